/* SPDX-License-Identifier: MIT */
/*
 * polynomial_fit.h - `polynomial`'s least-squares fit of a neighbourhood
 * (polynomial.c): the terms, the Householder QR, the fall-back to lower
 * degrees and the value at a node. Shared with the CUDA module
 * (gpu/polynomial.cu) so that a node's fit takes the same operations in the
 * same order: compiled without contraction on both sides (ISO C; nvcc
 * -fmad=false), the GPU's unweighted values are the CPU's bits.
 */
#ifndef GK_POLYNOMIAL_FIT_H
#define GK_POLYNOMIAL_FIT_H

#include "core/monomials.h"

#include <math.h>
#include <stddef.h>

#ifdef __CUDACC__
#define GK_PF_FN static inline __host__ __device__
#else
#define GK_PF_FN static inline
#endif

#define GK_PF_MAX_TERMS GK_MONO_MAX
/* a column of R below this share of its norm: the degree is not carried */
#define GK_PF_RANK_TOL 1e-10

GK_PF_FN int gk_pf_terms_of(int degree) { return gk_monomial_count(degree); }

/* sum a[i] b[i], i < n, in order. (Four running sums were 11% quicker on
 * a CPU core but 10% slower in the GPU's fits, which share this code; the
 * sums of all columns in one pass over the rows were no quicker on a CPU.) */
GK_PF_FN double gk_pf_dot(const double *a, const double *b, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* Least squares A beta ~ b, A m x p (column-major, leading dimension m),
 * by Householder QR in place. 0 with beta, or 1 when a column is a
 * combination of those before it (rank deficient). */
GK_PF_FN int gk_pf_qr_solve(double *A, double *b, int m, int p, double *beta)
{
    if (m < p)
        return 1;
    for (int j = 0; j < p; j++) {
        double *c = A + (size_t)j * m;
        const double below = gk_pf_dot(c + j, c + j, m - j);
        const double norm2 = gk_pf_dot(c, c, j) + below;
        double alpha = sqrt(below);
        if (!(alpha > GK_PF_RANK_TOL * sqrt(norm2)))
            return 1;
        if (c[j] > 0)
            alpha = -alpha;
        /* v = c[j..m) - alpha e_j; H = I - 2 v v' / v'v */
        double vj = c[j] - alpha, vtv = vj * vj + (below - c[j] * c[j]);
        c[j] = vj;
        for (int k = j + 1; k < p; k++) {
            double *ck = A + (size_t)k * m;
            const double s = 2.0 * gk_pf_dot(c + j, ck + j, m - j) / vtv;
            for (int i = j; i < m; i++)
                ck[i] -= s * c[i];
        }
        const double s = 2.0 * gk_pf_dot(c + j, b + j, m - j) / vtv;
        for (int i = j; i < m; i++)
            b[i] -= s * c[i];
        c[j] = alpha; /* R's diagonal; R's upper part is in place above */
    }
    for (int j = p - 1; j >= 0; j--) {
        double s = b[j];
        for (int k = j + 1; k < p; k++)
            s -= A[(size_t)k * m + j] * beta[k];
        beta[j] = s / A[(size_t)j * m + j];
    }
    return 0;
}

/* The fit of the m points idx[] of (x, y, z) (weights w[], NULL: 1) around
 * (cx, cy) scaled by sc, at the highest degree up to d the points carry.
 * work: (GK_PF_MAX_TERMS + 1) * m doubles (or (terms of d + 1) * m).
 * Returns the terms used (0: none). */
GK_PF_FN int gk_pf_fit(const double *x, const double *y, const double *z, const int *idx,
                       const double *w, int m, double cx, double cy, double sc, int d, double *work,
                       double *beta)
{
    for (; d >= 0; d--) {
        const int p = gk_pf_terms_of(d);
        double *A = work, *b = work + (size_t)p * m, t[GK_PF_MAX_TERMS];
        for (int i = 0; i < m; i++) {
            const int k = idx[i];
            const double sw = w ? sqrt(w[i]) : 1.0;
            gk_monomials((x[k] - cx) / sc, (y[k] - cy) / sc, d, t);
            for (int j = 0; j < p; j++)
                A[(size_t)j * m + i] = sw * t[j];
            b[i] = sw * z[k];
        }
        if (!gk_pf_qr_solve(A, b, m, p, beta))
            return p;
    }
    return 0;
}

/* An unweighted fit, centred on its points' centroid and scaled by their
 * largest distance from it, so that it depends on the set alone. */
typedef struct {
    int terms, degree;
    double cx, cy, sc;
    double beta[GK_PF_MAX_TERMS];
} gk_pf_set;

/* The fit of the m points idx[] (in index order) up to degree d. */
GK_PF_FN void gk_pf_fit_set(const double *x, const double *y, const double *z, const int *idx,
                            int m, int d, double *work, gk_pf_set *f)
{
    double sx = 0.0, sy = 0.0, r2 = 0.0;
    for (int i = 0; i < m; i++)
        sx += x[idx[i]], sy += y[idx[i]];
    f->cx = sx / m, f->cy = sy / m;
    for (int i = 0; i < m; i++) {
        const double dx = x[idx[i]] - f->cx, dy = y[idx[i]] - f->cy, d2 = dx * dx + dy * dy;
        r2 = d2 > r2 ? d2 : r2; /* fmax's value; fmax is a call on a CPU (8% of a fit) */
    }
    f->sc = r2 > 0 ? sqrt(r2) : 1.0;
    f->terms = gk_pf_fit(x, y, z, idx, NULL, m, f->cx, f->cy, f->sc, d, work, f->beta);
    for (f->degree = 3; f->degree > 0 && gk_pf_terms_of(f->degree) != f->terms; f->degree--)
        ;
}

/* The set's surface at (nx, ny). */
GK_PF_FN double gk_pf_eval(const gk_pf_set *f, double nx, double ny)
{
    double t[GK_PF_MAX_TERMS], v = 0.0;
    gk_monomials((nx - f->cx) / f->sc, (ny - f->cy) / f->sc, f->degree, t);
    for (int k = 0; k < f->terms; k++)
        v += f->beta[k] * t[k];
    return v;
}

/* A neighbour's weight at squared distance d2 (polynomial.c's weight=):
 * power: (1 - d/R)^p, gauss: exp(-d^2 / (2 h^2)); 0: none. A whole p up to
 * 64 by products (the same bits on every device; a libm's pow rounds its
 * own way, and ill-conditioned fits magnify that). */
enum { GK_PF_W_NONE, GK_PF_W_POWER, GK_PF_W_GAUSS };
GK_PF_FN double gk_pf_weight(int kind, double d2, double power, double maxdist, double bandwidth)
{
    if (kind == GK_PF_W_POWER) {
        const double f = 1.0 - sqrt(d2) / maxdist;
        if (!(f > 0))
            return 0.0;
        if (power == floor(power) && power >= 0 && power <= 64) {
            double r = 1.0, b = f;
            for (int e = (int)power; e > 0; e >>= 1, b *= b)
                if (e & 1)
                    r *= b;
            return r;
        }
        return pow(f, power);
    }
    return exp(-0.5 * d2 / (bandwidth * bandwidth));
}

/* The weighted fit at node (nx, ny), centred on it and scaled by its
 * farthest neighbour of positive weight: idx[0..m) (index order) keeps
 * those neighbours, w[] gets their weights. The terms used (0: none), the
 * value in *v. */
GK_PF_FN int gk_pf_node_weighted(const double *x, const double *y, const double *z, int *idx,
                                 double *w, int m, double nx, double ny, int kind, double power,
                                 double maxdist, double bandwidth, int d, double *work, double *v)
{
    int keep = 0;
    double sc2 = 0.0;
    for (int i = 0; i < m; i++) {
        const int k = idx[i];
        const double dx = x[k] - nx, dy = y[k] - ny, d2 = dx * dx + dy * dy;
        const double wi = gk_pf_weight(kind, d2, power, maxdist, bandwidth);
        if (!(wi > 0))
            continue; /* no weight: not part of the fit */
        idx[keep] = k;
        w[keep] = wi;
        sc2 = d2 > sc2 ? d2 : sc2;
        keep++;
    }
    if (keep == 0)
        return 0;
    double beta[GK_PF_MAX_TERMS];
    const double sc = sc2 > 0 ? sqrt(sc2) : 1.0;
    const int used = gk_pf_fit(x, y, z, idx, w, keep, nx, ny, sc, d, work, beta);
    if (used)
        *v = beta[0];
    return used;
}

#endif
