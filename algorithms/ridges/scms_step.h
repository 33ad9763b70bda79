/* SPDX-License-Identifier: MIT */
/*
 * scms_step.h - the arithmetic of one `density` walker (ridges/density.c):
 * kernel sums, the direction along the ridge, the projected mean-shift step
 * and the stop test. Shared with the CUDA module (gpu/ridges.cu), which
 * compiles it without contraction (nvcc -fmad=false) as the CPU does
 * (-ffp-contract=off), so that only exp() may differ in the last bit.
 *
 * The samples' order (what the GPU must copy):
 *   bins are cubes (squares) of side cutoff * h / GK_SCMS_SPAN whose corner
 *   is the samples' smallest coordinate per axis (nx = floor((max - min) /
 *   side) + 1 per axis); a bin's key is (cz * ny + cy) * nx + cx; the
 *   samples are stored sorted by (key, sample index), the non-empty bins by
 *   key. A walker in bin (cx, cy, cz) (gk_scms_cell) visits the bins within
 *   GK_SCMS_SPAN of it that exist, z outer, then y, then x inner (a row of
 *   x is one run of keys: one binary search, then in key order), each bin's
 *   samples in increasing index, and adds every sample with
 *   |d|^2 <= (cutoff h)^2, d = sample - walker, to the sums in that order
 *   (gk_scms_add).
 *
 * The local inverse covariance of Ozertem & Erdogmus, -grad^2 log p, not the
 * Hessian of p (Genovese et al., ks::kdr): across a ridge of Gaussian
 * profile log p is concave at every distance, while p is convex beyond one
 * standard deviation, where the Hessian of p would take the along-ridge
 * direction as the one to climb; walkers seeded at the samples start there.
 * With m = S1/S0 (the mean shift) and C = S2/S0 - m m^T (the kernel-weighted
 * covariance of the offsets), -grad^2 log p = (h^2 I - C) / h^4: its largest
 * eigenvalues are C's smallest, so the ridge tangent t is C's top
 * eigenvector and the step is m - (t.m) t (the mean shift across the ridge).
 */
#ifndef GK_SCMS_STEP_H
#define GK_SCMS_STEP_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define GK_SCMS_HD static inline __host__ __device__
#else
#define GK_SCMS_HD static inline
#endif

/* Bins per cut-off radius: 2 visits 5 x 5 bins of side 2 h (cutoff 4),
 * 100 h^2 for a disc of 50 h^2, where side 4 h and 3 x 3 would visit 144. */
#define GK_SCMS_SPAN 2

/* The smallest tolerance (in bandwidths): a step below 2^-52 bandwidths is
 * below the rounding of the mean shift itself (kernel-weighted offsets of
 * about a bandwidth, summed in double), so the stop test could never pass
 * and every walker would run to max_iter. */
#define GK_SCMS_TOL_MIN 2.220446049250313e-16
/* The most steps a walker takes: each sums its neighbours within the
 * cut-off (microseconds); beyond a million steps a walker creeps along a
 * flat density rather than converging, and thousands of them take hours. */
#define GK_SCMS_ITER_MAX 1000000

/* The samples binned as above (built by ridges/scms_index.c). */
typedef struct {
    int dim;
    double origin[3];    /* smallest coordinate per axis */
    double side;         /* bin side: cutoff * h / GK_SCMS_SPAN (the sums) */
    int64_t nc[3];       /* bins per axis (1 for z in 2-D) */
    size_t n_bins;       /* non-empty bins */
    const uint64_t *key; /* n_bins keys, increasing */
    const size_t *start; /* n_bins + 1: bin b is sorted samples start[b] .. start[b+1]-1 */
    const double *ps;    /* samples in (key, index) order, interleaved */
    const double *ws;    /* their weights, or NULL (all 1) */
} gk_scms_index;

/* Kernel sums at a point: S0 = sum K, S1 = sum K d, S2 = sum K d d^T as
 * xx, xy, yy (2-D) or xx, xy, xz, yy, yz, zz (3-D). */
typedef struct {
    double s0, s1[3], s2[6];
} gk_scms_acc;

/* Bin coordinate of x on axis k, clamped to [-3, nc + 2] (farther bins have
 * no neighbours within GK_SCMS_SPAN either); NaN gives -3. */
GK_SCMS_HD int64_t gk_scms_cell(const gk_scms_index *ix, double x, int k)
{
    double f = floor((x - ix->origin[k]) / ix->side);
    if (!(f >= -3.0))
        return -3;
    if (f >= (double)ix->nc[k] + 2.0)
        return ix->nc[k] + 2;
    return (int64_t)f;
}

/* The first non-empty bin with key >= key (n_bins when none). */
GK_SCMS_HD size_t gk_scms_lower(const gk_scms_index *ix, uint64_t key)
{
    size_t lo = 0, hi = ix->n_bins;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->key[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The sorted-sample range of the bins in row (y, z), x from x0 to x1
 * (clipped to the grid); 0 when the row is outside it or empty there. */
GK_SCMS_HD int gk_scms_row(const gk_scms_index *ix, int64_t y, int64_t z, int64_t x0, int64_t x1,
                           size_t *b, size_t *e)
{
    if (z < 0 || z >= ix->nc[2] || y < 0 || y >= ix->nc[1])
        return 0;
    x0 = x0 < 0 ? 0 : x0;
    x1 = x1 >= ix->nc[0] ? ix->nc[0] - 1 : x1;
    if (x0 > x1)
        return 0;
    uint64_t row = ((uint64_t)z * (uint64_t)ix->nc[1] + (uint64_t)y) * (uint64_t)ix->nc[0];
    size_t lo = gk_scms_lower(ix, row + (uint64_t)x0), hi = lo;
    while (hi < ix->n_bins && ix->key[hi] <= row + (uint64_t)x1)
        hi++;
    if (hi == lo)
        return 0;
    *b = ix->start[lo];
    *e = ix->start[hi];
    return 1;
}

/* Adds sample q (weight w) at offset from x to a, when within r2. */
GK_SCMS_HD void gk_scms_add(gk_scms_acc *a, const double *q, const double *x, double w, int dim,
                            double r2, double nh)
{
    double d[3] = {q[0] - x[0], q[1] - x[1], dim == 3 ? q[2] - x[2] : 0.0};
    double d2 = d[0] * d[0] + d[1] * d[1];
    if (dim == 3)
        d2 = d2 + d[2] * d[2];
    if (!(d2 <= r2))
        return;
    double k = exp(d2 * nh) * w;
    a->s0 += k;
    int s = 0;
    for (int i = 0; i < dim; i++) {
        double kd = k * d[i];
        a->s1[i] += kd;
        for (int j = i; j < dim; j++)
            a->s2[s++] += kd * d[j];
    }
}

/* The kernel sums at x: K = w exp(|d|^2 * (-0.5 / h^2)), cut at cutoff * h
 * (the order in the file's comment; ix's side must be cutoff * h / GK_SCMS_SPAN). */
GK_SCMS_HD void gk_scms_sums(const gk_scms_index *ix, const double *x, double h, double cutoff,
                             gk_scms_acc *a)
{
    int dim = ix->dim;
    double rc = cutoff * h, r2 = rc * rc, nh = -0.5 / (h * h);
    *a = (gk_scms_acc){0.0, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}};
    int64_t c[3] = {0, 0, 0}, sp = GK_SCMS_SPAN;
    for (int k = 0; k < dim; k++)
        c[k] = gk_scms_cell(ix, x[k], k);
    int64_t z0 = dim == 3 ? c[2] - sp : 0, z1 = dim == 3 ? c[2] + sp : 0;
    for (int64_t z = z0; z <= z1; z++)
        for (int64_t y = c[1] - sp; y <= c[1] + sp; y++) {
            size_t b, e;
            if (!gk_scms_row(ix, y, z, c[0] - sp, c[0] + sp, &b, &e))
                continue;
            for (size_t i = b; i < e; i++)
                gk_scms_add(a, ix->ps + i * (size_t)dim, x, ix->ws ? ix->ws[i] : 1.0, dim, r2, nh);
        }
}

/* Unit top eigenvector of the symmetric 2x2 [a b; b c], in closed form
 * (the larger of the two candidate forms, so no cancellation); (1, 0)
 * when the matrix is a multiple of I. */
GK_SCMS_HD void gk_scms_eig2(double a, double b, double c, double *t)
{
    double hd = 0.5 * (a - c);
    double r = sqrt(hd * hd + b * b), l = 0.5 * (a + c) + r;
    double vx = a >= c ? l - c : b, vy = a >= c ? b : l - a;
    double nn = sqrt(vx * vx + vy * vy);
    if (!(nn > 0.0)) {
        t[0] = 1.0;
        t[1] = 0.0;
        return;
    }
    t[0] = vx / nn;
    t[1] = vy / nn;
}

/* One Jacobi rotation zeroing A[p][q] of the symmetric 3x3 A, V gathering
 * the rotations (Numerical Recipes' form). */
GK_SCMS_HD void gk_scms_jacobi_rot(double A[3][3], double V[3][3], int p, int q)
{
    if (A[p][q] == 0.0)
        return;
    double th = (A[q][q] - A[p][p]) / (2.0 * A[p][q]);
    double t =
        fabs(th) > 1e150 ? 0.5 / th : (th >= 0.0 ? 1.0 : -1.0) / (fabs(th) + sqrt(th * th + 1.0));
    double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
    for (int k = 0; k < 3; k++) { /* columns p, q of A, then rows */
        double akp = A[k][p], akq = A[k][q];
        A[k][p] = c * akp - s * akq;
        A[k][q] = s * akp + c * akq;
    }
    for (int k = 0; k < 3; k++) {
        double apk = A[p][k], aqk = A[q][k];
        A[p][k] = c * apk - s * aqk;
        A[q][k] = s * apk + c * aqk;
    }
    for (int k = 0; k < 3; k++) {
        double vkp = V[k][p], vkq = V[k][q];
        V[k][p] = c * vkp - s * vkq;
        V[k][q] = s * vkp + c * vkq;
    }
}

/* Unit top eigenvector of the symmetric 3x3 C (xx, xy, xz, yy, yz, zz) by
 * cyclic Jacobi: at most 12 sweeps, until the off-diagonal part is below
 * 1e-30 of the diagonal's (in squares); ties to the lower axis. */
GK_SCMS_HD void gk_scms_eig3(const double *C, double *t)
{
    double A[3][3] = {{C[0], C[1], C[2]}, {C[1], C[3], C[4]}, {C[2], C[4], C[5]}};
    double V[3][3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
    for (int sweep = 0; sweep < 12; sweep++) {
        double off = A[0][1] * A[0][1] + A[0][2] * A[0][2] + A[1][2] * A[1][2];
        double dg = A[0][0] * A[0][0] + A[1][1] * A[1][1] + A[2][2] * A[2][2];
        if (!(off > 1e-30 * dg))
            break;
        gk_scms_jacobi_rot(A, V, 0, 1);
        gk_scms_jacobi_rot(A, V, 0, 2);
        gk_scms_jacobi_rot(A, V, 1, 2);
    }
    int b = 0;
    for (int k = 1; k < 3; k++)
        if (A[k][k] > A[b][b])
            b = k;
    for (int k = 0; k < 3; k++)
        t[k] = V[k][b];
}

/* From sums a: the mean shift m = S1 / S0, the tangent t (top eigenvector
 * of C = S2 / S0 - m m^T) and the step m - (t.m) t. 0 when S0 is 0 (no
 * sample within the cut-off: no step). */
GK_SCMS_HD int gk_scms_step(const gk_scms_acc *a, int dim, double *t, double *step)
{
    if (!(a->s0 > 0.0))
        return 0;
    double m[3] = {0.0, 0.0, 0.0}, C[6];
    for (int i = 0; i < dim; i++)
        m[i] = a->s1[i] / a->s0;
    int s = 0;
    for (int i = 0; i < dim; i++)
        for (int j = i; j < dim; j++, s++)
            C[s] = a->s2[s] / a->s0 - m[i] * m[j];
    if (dim == 2)
        gk_scms_eig2(C[0], C[1], C[2], t);
    else
        gk_scms_eig3(C, t);
    double tm = t[0] * m[0] + t[1] * m[1];
    if (dim == 3)
        tm = tm + t[2] * m[2];
    for (int i = 0; i < dim; i++)
        step[i] = m[i] - tm * t[i];
    return 1;
}

/* Walks x (in place) until the step is below tol * h, at most max_iter
 * steps. *density gets S0 at the last position, t the tangent there (0 when
 * S0 is 0); returns the steps taken, max_iter + 1 when it did not stop. */
GK_SCMS_HD int32_t gk_scms_walk(const gk_scms_index *ix, double *x, double h, double cutoff,
                                double tol, int32_t max_iter, double *density, double *t)
{
    int dim = ix->dim;
    double lim = tol * h, lim2 = lim * lim;
    for (int32_t it = 0;; it++) {
        gk_scms_acc a;
        double step[3];
        gk_scms_sums(ix, x, h, cutoff, &a);
        *density = a.s0;
        if (!gk_scms_step(&a, dim, t, step)) {
            for (int k = 0; k < dim; k++)
                t[k] = 0.0;
            return it;
        }
        double s2 = step[0] * step[0] + step[1] * step[1];
        if (dim == 3)
            s2 = s2 + step[2] * step[2];
        if (s2 < lim2)
            return it;
        if (it == max_iter)
            return max_iter + 1;
        for (int k = 0; k < dim; k++)
            x[k] = x[k] + step[k];
    }
}

#endif
