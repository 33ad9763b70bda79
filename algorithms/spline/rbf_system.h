/* SPDX-License-Identifier: MIT */
/*
 * spline/rbf_system.h - `rbf`'s arithmetic, SciPy 1.10's RBFInterpolator
 * (scipy/interpolate/_rbfinterp.py): the kernels, the monomials, the system
 *
 *     [ K + s I   P ] [c]   [z]        K_ij = phi(eps |y_i - y_j|)
 *     [ P'        0 ] [b] = [0]        P_ij = monomial j at (y_i - shift) / scale
 *
 * its LU factorisation with partial pivoting (LAPACK's dgesv, which SciPy
 * calls) in one fixed order of operations, and the value at a node. shift
 * and scale map the points' box onto [-1, 1]^2 (a side of zero length keeps
 * scale 1), as SciPy's. Header-only, so that a GPU kernel can share it.
 */
#ifndef GK_RBF_SYSTEM_H
#define GK_RBF_SYSTEM_H

#include "core/monomials.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#ifdef __CUDACC__
#define GK_RBF_FN static inline __host__ __device__
#define GK_RBF_HOT GK_RBF_FN
#else
#define GK_RBF_FN static inline
/* inlined into each caller, so that a caller compiled for AVX2 (rbf.c) has
 * its own vector code: the same operations per entry, the same doubles */
#define GK_RBF_HOT static inline __attribute__((always_inline))
#endif

/* SciPy's kernel names, in its order. */
typedef enum {
    GK_RBF_LINEAR,
    GK_RBF_TPS,
    GK_RBF_CUBIC,
    GK_RBF_QUINTIC,
    GK_RBF_MQ,
    GK_RBF_IMQ,
    GK_RBF_IQ,
    GK_RBF_GAUSS,
    GK_RBF_N_KERNELS,
    /* not an -a rbf kernel: rst.c's regularized spline with tension */
    GK_RBF_RST = GK_RBF_N_KERNELS
} gk_rbf_kernel;

#define GK_RBF_MAX_DEGREE 3
#define GK_RBF_MAX_TERMS GK_MONO_MAX
/* a monomial column below this share of its norm after those before it: the
 * points cannot carry the degree (points on a line for degree 1) */
#define GK_RBF_RANK_TOL 1e-10
/* LU's block width: a fixed constant, so the order of operations is too */
#define GK_RBF_NB 32

typedef struct {
    int kernel;       /* gk_rbf_kernel */
    int degree;       /* -1: no polynomial */
    double epsilon;   /* shape parameter */
    double smoothing; /* added to K's diagonal */
} gk_rbf_spec;

/* GRASS's regularized spline with tension (v.surf.rst, Mitasova & Mitas
 * 1993, with the sign GRASS gives it): E1(x) + gamma + ln x at x (gk_rbf_rst:
 * x = r^2) =
 * (tension d / (2 dnorm))^2, with its series below 1, its rational E1 (Abramowitz
 * & Stegun 5.1.56) up to 25 and no E1 beyond, and its constants as written
 * (docs/dev/v_surf_rst.md, section 1). */
GK_RBF_FN double gk_rbf_rst_x(double x)
{
    if (x < 1.0) {
        const double u[10] = {1.0,
                              -0.25,
                              0.055555555555556,
                              -0.010416666666667,
                              0.166666666666667e-02,
                              -2.31481481481482e-04,
                              2.83446712018141e-05,
                              -3.10019841269841e-06,
                              3.06192435822065e-07,
                              -2.75573192239859e-08};
        double p = u[9];
        for (int k = 8; k >= 0; k--)
            p = u[k] + x * p;
        return x * p;
    }
    double e1 = 0.0;
    if (x <= 25.0) {
        const double ea =
            0.2677737343 + x * (8.6347608925 + x * (18.0590169730 + x * (8.5733287401 + x)));
        const double eb =
            3.9584969228 + x * (21.0996530827 + x * (25.6329561486 + x * (9.5733223454 + x)));
        e1 = (ea / eb) / (x * exp(x));
    }
    return e1 + 0.57721566 + log(x);
}

GK_RBF_FN double gk_rbf_rst(double r) { return gk_rbf_rst_x(r * r); }

/* Element (i, j) of a v.surf.rst segment's system (spline/rst_segments.c,
 * the CPU's, and gpu/rst_segments.cu): GRASS's layout, the constant first
 * and -smooth on the diagonal, its points (xn, yn) in units of dnorm and
 * each pair taken as GRASS takes it, the lower index first. */
GK_RBF_FN double gk_rst_system_entry(int i, int j, const double *xn, const double *yn, double fi,
                                     double smooth)
{
    if (i == 0 || j == 0)
        return i == j ? 0.0 : 1.0;
    if (i == j)
        return -smooth;
    const int r = i < j ? i : j, c = i < j ? j : i;
    const double dx = xn[r - 1] - xn[c - 1], dy = yn[r - 1] - yn[c - 1];
    return gk_rbf_rst_x(fi * fi * (dx * dx + dy * dy) / 4);
}

/* The RST function's derivative terms at normalised offset (dx, dy) with
 * tension fi, coefficient b, added to D = (DX, DY, DXX, DYY, DXY): GRASS's
 * IL_crstg helpers (its series below 0.001, 1/x beyond 35). */
GK_RBF_FN void gk_rst_sums_add(double dx, double dy, double fi, double b, double *D)
{
    const double r2 = dx * dx + dy * dy, x = fi * fi * r2 / 4, fsta2 = fi * fi / 2;
    double g1, g2;
    if (x < 0.001) {
        g1 = 1 - x / 2 + x * x / 6 - x * x * x / 24;
        g2 = fsta2 * (-0.5 + x / 3 - x * x / 8 + x * x * x / 30);
    } else if (x < 35.0) {
        const double exm = exp(-x), oneme = 1 - exm, hold = x * exm - oneme;
        g1 = oneme / x;
        g2 = (hold + hold) / (r2 * x);
    } else {
        g1 = 1 / x;
        g2 = -2 / (x * r2);
    }
    /* in v.surf.rst's order of operations (IL_grid_calc_2d) */
    const double bg1 = b * g1, bg2 = b * g2;
    D[0] += bg1 * dx, D[1] += bg1 * dy;
    D[2] = D[2] + bg2 * (dx * dx) + bg1, D[3] = D[3] + bg2 * (dy * dy) + bg1;
    D[4] += bg2 * dx * dy;
}

/* phi(r), r = eps * distance, with SciPy's signs (each kernel conditionally
 * positive definite of its minimum degree's order plus one). */
GK_RBF_FN double gk_rbf_phi(int kernel, double r)
{
    switch (kernel) {
    case GK_RBF_RST:
        return gk_rbf_rst(r);
    case GK_RBF_LINEAR:
        return -r;
    case GK_RBF_TPS:
        return r == 0.0 ? 0.0 : r * r * log(r);
    case GK_RBF_CUBIC:
        return r * r * r;
    case GK_RBF_QUINTIC:
        return -(r * r) * (r * r) * r;
    case GK_RBF_MQ:
        return -sqrt(r * r + 1.0);
    case GK_RBF_IMQ:
        return 1.0 / sqrt(r * r + 1.0);
    case GK_RBF_IQ:
        return 1.0 / (r * r + 1.0);
    default:
        return exp(-(r * r));
    }
}

/* SciPy's _NAME_TO_MIN_DEGREE (-1: positive definite, no polynomial needed). */
GK_RBF_FN int gk_rbf_min_degree(int kernel)
{
    switch (kernel) {
    case GK_RBF_LINEAR:
    case GK_RBF_MQ:
        return 0;
    case GK_RBF_TPS:
    case GK_RBF_CUBIC:
        return 1;
    case GK_RBF_QUINTIC:
        return 2;
    default:
        return -1;
    }
}

GK_RBF_FN int gk_rbf_terms(int degree) { return gk_monomial_count(degree); }

/* shift and scale of the points idx[0..n) (idx NULL: 0..n), SciPy's. */
GK_RBF_FN void gk_rbf_frame(const double *x, const double *y, const int *idx, int n, double *shift,
                            double *scale)
{
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (int i = 0; i < n; i++) {
        const int p = idx ? idx[i] : i;
        lo[0] = fmin(lo[0], x[p]), hi[0] = fmax(hi[0], x[p]);
        lo[1] = fmin(lo[1], y[p]), hi[1] = fmax(hi[1], y[p]);
    }
    for (int d = 0; d < 2; d++) {
        shift[d] = (hi[d] + lo[d]) / 2;
        scale[d] = (hi[d] - lo[d]) / 2;
        if (scale[d] == 0.0)
            scale[d] = 1.0;
    }
}

/* Do the points' monomials have full column rank (modified Gram-Schmidt,
 * work: n * terms)? SciPy asks the same when its solve fails. */
GK_RBF_FN int gk_rbf_full_rank(const double *x, const double *y, const int *idx, int n,
                               const double *shift, const double *scale, int degree, double *work)
{
    const int m = gk_rbf_terms(degree);
    if (n < m)
        return 0;
    for (int i = 0; i < n; i++) {
        const int p = idx ? idx[i] : i;
        double t[GK_RBF_MAX_TERMS];
        gk_monomials((x[p] - shift[0]) / scale[0], (y[p] - shift[1]) / scale[1], degree, t);
        for (int j = 0; j < m; j++)
            work[(size_t)j * n + i] = t[j];
    }
    for (int j = 0; j < m; j++) {
        double *c = work + (size_t)j * n, n0 = 0.0, n1 = 0.0;
        for (int i = 0; i < n; i++)
            n0 += c[i] * c[i];
        for (int q = 0; q < j; q++) {
            const double *e = work + (size_t)q * n;
            double d = 0.0;
            for (int i = 0; i < n; i++)
                d += e[i] * c[i];
            for (int i = 0; i < n; i++)
                c[i] -= d * e[i];
        }
        for (int i = 0; i < n; i++)
            n1 += c[i] * c[i];
        if (!(n1 > GK_RBF_RANK_TOL * GK_RBF_RANK_TOL * n0))
            return 0;
        n1 = 1.0 / sqrt(n1);
        for (int i = 0; i < n; i++)
            c[i] *= n1;
    }
    return 1;
}

/* phi of points p and q */
GK_RBF_FN double gk_rbf_pair(const gk_rbf_spec *sp, const double *x, const double *y, int p, int q)
{
    const double dx = x[p] - x[q], dy = y[p] - y[q];
    return gk_rbf_phi(sp->kernel, sp->epsilon * sqrt(dx * dx + dy * dy));
}

/* The system of points idx[0..n) (NULL: 0..n) into A (N x N, row-major, N
 * = n + terms) and b (N); K (n x n, NULL: computed here) holds the kernel's
 * values below the diagonal when the caller has them. */
GK_RBF_FN void gk_rbf_fill(const gk_rbf_spec *sp, const double *x, const double *y, const double *z,
                           const int *idx, int n, const double *shift, const double *scale,
                           const double *K, double *A, double *b)
{
    const int m = gk_rbf_terms(sp->degree), N = n + m;
    for (int i = 0; i < n; i++) {
        const int p = idx ? idx[i] : i;
        double *row = A + (size_t)i * N;
        for (int j = 0; j < i; j++) /* symmetric: the upper half by copy */
            row[j] = K ? K[(size_t)i * n + j] : gk_rbf_pair(sp, x, y, p, idx ? idx[j] : j);
        for (int j = 0; j < i; j++)
            A[(size_t)j * N + i] = row[j];
        row[i] = gk_rbf_phi(sp->kernel, 0.0) + sp->smoothing;
        gk_monomials((x[p] - shift[0]) / scale[0], (y[p] - shift[1]) / scale[1], sp->degree,
                     row + n);
        for (int j = 0; j < m; j++)
            A[(size_t)(n + j) * N + i] = row[n + j];
        b[i] = z[p];
    }
    for (int j = n; j < N; j++) {
        memset(A + (size_t)j * N + n, 0, (size_t)m * sizeof *A);
        b[j] = 0.0;
    }
}

/* Columns c0..c1 of A's rows c0..N, as one panel: partial pivoting (the
 * first largest |entry|, as LAPACK's idamax), whole rows swapped, the
 * multipliers and the panel's own update. 0, or 1 at a zero pivot. */
GK_RBF_HOT int gk_rbf_lu_panel(double *A, int N, int *piv, int c0, int c1)
{
    for (int c = c0; c < c1; c++) {
        int p = c;
        double best = fabs(A[(size_t)c * N + c]);
        for (int r = c + 1; r < N; r++) {
            const double a = fabs(A[(size_t)r * N + c]);
            if (a > best)
                best = a, p = r;
        }
        piv[c] = p;
        if (!(best > 0.0) || !isfinite(best))
            return 1;
        if (p != c) {
            double *u = A + (size_t)c * N, *v = A + (size_t)p * N;
            for (int j = 0; j < N; j++) {
                const double t = u[j];
                u[j] = v[j], v[j] = t;
            }
        }
        const double *pr = A + (size_t)c * N;
        const double inv = 1.0 / pr[c];
        for (int r = c + 1; r < N; r++) {
            double *row = A + (size_t)r * N;
            const double l = row[c] * inv;
            row[c] = l;
            for (int j = c + 1; j < c1; j++)
                row[j] -= l * pr[j];
        }
    }
    return 0;
}

/* The block of rows [r0, r1) of A's trailing part after panel [c0, c1):
 * its U12 rows (r < c1: the unit lower triangle's substitution) or its
 * A22 rows (the panel's product, each entry's sum in k order). */
GK_RBF_HOT void gk_rbf_lu_trail(double *A, int N, int c0, int c1, int r0, int r1, int j0, int j1)
{
    for (int r = r0; r < r1; r++) {
        double *row = A + (size_t)r * N;
        if (r < c1) { /* U12 */
            for (int k = c0; k < r; k++) {
                const double l = row[k];
                const double *u = A + (size_t)k * N;
                for (int j = j0; j < j1; j++)
                    row[j] -= l * u[j];
            }
        } else { /* A22 -= L21 U12 */
            double acc[256];
            for (int jb = j0; jb < j1; jb += 256) {
                const int je = jb + 256 < j1 ? jb + 256 : j1;
                for (int j = jb; j < je; j++)
                    acc[j - jb] = 0.0;
                for (int k = c0; k < c1; k++) {
                    const double l = row[k];
                    const double *u = A + (size_t)k * N;
                    for (int j = jb; j < je; j++)
                        acc[j - jb] += l * u[j];
                }
                for (int j = jb; j < je; j++)
                    row[j] -= acc[j - jb];
            }
        }
    }
}

/* A = P L U in place on one thread (GK_RBF_NB-wide panels); 0, or 1 when
 * singular. */
GK_RBF_HOT int gk_rbf_lu(double *A, int N, int *piv)
{
    for (int c0 = 0; c0 < N; c0 += GK_RBF_NB) {
        const int c1 = c0 + GK_RBF_NB < N ? c0 + GK_RBF_NB : N;
        if (gk_rbf_lu_panel(A, N, piv, c0, c1))
            return 1;
        if (c1 < N) {
            gk_rbf_lu_trail(A, N, c0, c1, c0, c1, c1, N);
            gk_rbf_lu_trail(A, N, c0, c1, c1, N, c1, N);
        }
    }
    return 0;
}

/* Solves with the factor: b becomes the solution. 0, or 1 when it is not
 * finite (a system singular to working precision). */
GK_RBF_FN int gk_rbf_lu_solve(const double *A, int N, const int *piv, double *b)
{
    for (int c = 0; c < N; c++)
        if (piv[c] != c) {
            const double t = b[c];
            b[c] = b[piv[c]], b[piv[c]] = t;
        }
    for (int r = 1; r < N; r++) {
        const double *row = A + (size_t)r * N;
        double s = 0.0;
        for (int k = 0; k < r; k++)
            s += row[k] * b[k];
        b[r] -= s;
    }
    for (int r = N - 1; r >= 0; r--) {
        const double *row = A + (size_t)r * N;
        double s = 0.0;
        for (int k = r + 1; k < N; k++)
            s += row[k] * b[k];
        b[r] = (b[r] - s) / row[r];
        if (!isfinite(b[r]))
            return 1;
    }
    return 0;
}

/* The interpolant at (px, py): sum c_i phi(eps |p - y_i|) in point order,
 * then the monomials' part. */
GK_RBF_FN double gk_rbf_value(const gk_rbf_spec *sp, const double *x, const double *y,
                              const int *idx, int n, const double *shift, const double *scale,
                              const double *coef, double px, double py)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        const int p = idx ? idx[i] : i;
        const double dx = px - x[p], dy = py - y[p];
        s += coef[i] * gk_rbf_phi(sp->kernel, sp->epsilon * sqrt(dx * dx + dy * dy));
    }
    const int m = gk_rbf_terms(sp->degree);
    if (m) {
        double t[GK_RBF_MAX_TERMS], q = 0.0;
        gk_monomials((px - shift[0]) / scale[0], (py - shift[1]) / scale[1], sp->degree, t);
        for (int j = 0; j < m; j++)
            q += coef[n + j] * t[j];
        s += q;
    }
    return s;
}

#endif
