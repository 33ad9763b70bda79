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
#if defined(__CUDACC__)
#define GK_PF_INLINE static __forceinline__ __host__ __device__
#elif defined(__GNUC__)
#define GK_PF_INLINE static inline __attribute__((always_inline))
#else
#define GK_PF_INLINE static inline
#endif

#define GK_PF_MAX_TERMS GK_MONO_MAX
#define GK_PF_LANES 4 /* the most fits gk_pf_fit_sets makes side by side */
/* a column of R below this share of its norm: the degree is not carried */
#define GK_PF_RANK_TOL 1e-10

GK_PF_FN int gk_pf_terms_of(int degree) { return gk_monomial_count(degree); }

/* Least squares A beta ~ b by Householder QR in place, for L systems side
 * by side (1 <= L <= GK_PF_LANES; a constant where this is inlined, so that
 * the lanes are a vector's). A is m x (p + 1), column-major with b as
 * column p, lane innermost: row i, column k of lane l at A[(k m + i) L + l];
 * beta[j L + l]. Returns a bit per lane whose column is a combination of
 * those before it (rank deficient); one lane stops there. A lane's
 * operations are those of its system solved alone, in the same order (each
 * sum in ascending rows): its bits do not depend on the other lanes. (Four
 * running sums a dot were 11% quicker on a CPU core but 10% slower in the
 * GPU's fits, which share this code.) */
GK_PF_INLINE int gk_pf_qr_lanes(double *A, int m, int p, int L, double *beta)
{
    int bad = 0;
    if (m < p)
        return (1 << L) - 1;
    for (int j = 0; j < p; j++) {
        double *c = A + (size_t)j * m * L;
        double above[GK_PF_LANES], below[GK_PF_LANES], vtv[GK_PF_LANES], s[GK_PF_LANES],
            alpha[GK_PF_LANES];
        for (int l = 0; l < L; l++)
            above[l] = below[l] = 0.0;
        for (int i = j; i < m; i++)
            for (int l = 0; l < L; l++)
                below[l] += c[i * L + l] * c[i * L + l];
        for (int i = 0; i < j; i++)
            for (int l = 0; l < L; l++)
                above[l] += c[i * L + l] * c[i * L + l];
        for (int l = 0; l < L; l++) {
            const double cj = c[j * L + l];
            alpha[l] = sqrt(below[l]);
            if (!(alpha[l] > GK_PF_RANK_TOL * sqrt(above[l] + below[l])))
                bad |= 1 << l;
            if (cj > 0)
                alpha[l] = -alpha[l];
            /* v = c[j..m) - alpha e_j; H = I - 2 v v' / v'v */
            const double vj = cj - alpha[l];
            vtv[l] = vj * vj + (below[l] - cj * cj);
            c[j * L + l] = vj;
        }
        if (L == 1 && bad)
            return bad;
        for (int k = j + 1; k <= p; k++) { /* the later columns, then b */
            double *ck = A + (size_t)k * m * L;
            for (int l = 0; l < L; l++)
                s[l] = 0.0;
            for (int i = j; i < m; i++)
                for (int l = 0; l < L; l++)
                    s[l] += c[i * L + l] * ck[i * L + l];
            for (int l = 0; l < L; l++)
                s[l] = 2.0 * s[l] / vtv[l];
            for (int i = j; i < m; i++)
                for (int l = 0; l < L; l++)
                    ck[i * L + l] -= s[l] * c[i * L + l];
        }
        for (int l = 0; l < L; l++)
            c[j * L + l] = alpha[l]; /* R's diagonal; R's upper part is in place above */
    }
    for (int j = p - 1; j >= 0; j--)
        for (int l = 0; l < L; l++) {
            double s = A[((size_t)p * m + j) * L + l];
            for (int k = j + 1; k < p; k++)
                s -= A[((size_t)k * m + j) * L + l] * beta[k * L + l];
            beta[j * L + l] = s / A[((size_t)j * m + j) * L + l];
        }
    return bad;
}

/* Lane l of the design (gk_pf_qr_lanes' layout) for degree d: the m points
 * idx[] of (x, y, z) (weights w[], NULL: 1) around (cx, cy) scaled by sc. */
GK_PF_INLINE void gk_pf_rows(const double *x, const double *y, const double *z, const int *idx,
                             const double *w, int m, double cx, double cy, double sc, int d, int L,
                             int l, double *A)
{
    const int p = gk_pf_terms_of(d);
    double t[GK_PF_MAX_TERMS];
    for (int i = 0; i < m; i++) {
        const int k = idx[i];
        const double sw = w ? sqrt(w[i]) : 1.0;
        gk_monomials((x[k] - cx) / sc, (y[k] - cy) / sc, d, t);
        for (int j = 0; j < p; j++)
            A[((size_t)j * m + i) * L + l] = sw * t[j];
        A[((size_t)p * m + i) * L + l] = sw * z[k];
    }
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
        gk_pf_rows(x, y, z, idx, w, m, cx, cy, sc, d, 1, 0, work);
        if (!gk_pf_qr_lanes(work, m, gk_pf_terms_of(d), 1, beta))
            return gk_pf_terms_of(d);
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

/* L sets' fits side by side (gk_pf_qr_lanes; L a constant where inlined):
 * set l is the m points idx[l m ..] (in index order), fitted up to degree
 * d into f[l]. work: (GK_PF_MAX_TERMS + 1) * m * L doubles. A set that
 * cannot carry degree d is fitted alone from d - 1 down, as gk_pf_fit
 * would: each set's doubles are those of its fit made alone. */
GK_PF_INLINE void gk_pf_fit_sets(const double *x, const double *y, const double *z, const int *idx,
                                 int m, int d, int L, double *work, gk_pf_set *f)
{
    for (int l = 0; l < L; l++) {
        const int *id = idx + (size_t)l * m;
        double sx = 0.0, sy = 0.0, r2 = 0.0;
        for (int i = 0; i < m; i++)
            sx += x[id[i]], sy += y[id[i]];
        f[l].cx = sx / m, f[l].cy = sy / m;
        for (int i = 0; i < m; i++) {
            const double dx = x[id[i]] - f[l].cx, dy = y[id[i]] - f[l].cy, d2 = dx * dx + dy * dy;
            r2 = d2 > r2 ? d2 : r2; /* fmax's value; fmax is a call on a CPU */
        }
        f[l].sc = r2 > 0 ? sqrt(r2) : 1.0;
        if (L > 1)
            gk_pf_rows(x, y, z, id, NULL, m, f[l].cx, f[l].cy, f[l].sc, d, L, l, work);
    }
    const int p = gk_pf_terms_of(d);
    double beta[GK_PF_MAX_TERMS * GK_PF_LANES];
    const int bad = L > 1 ? gk_pf_qr_lanes(work, m, p, L, beta) : 1;
    for (int l = 0; l < L; l++) {
        if (bad >> l & 1) { /* alone (and one set: the GPU's, one code path) */
            f[l].terms = gk_pf_fit(x, y, z, idx + (size_t)l * m, NULL, m, f[l].cx, f[l].cy, f[l].sc,
                                   L > 1 ? d - 1 : d, work, f[l].beta);
        } else {
            f[l].terms = p;
            for (int j = 0; j < p; j++)
                f[l].beta[j] = beta[j * L + l];
        }
        for (f[l].degree = 3; f[l].degree > 0 && gk_pf_terms_of(f[l].degree) != f[l].terms;
             f[l].degree--)
            ;
    }
}

/* The fit of the m points idx[] (in index order) up to degree d. */
GK_PF_FN void gk_pf_fit_set(const double *x, const double *y, const double *z, const int *idx,
                            int m, int d, double *work, gk_pf_set *f)
{
    gk_pf_fit_sets(x, y, z, idx, m, d, 1, work, f);
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
