/* SPDX-License-Identifier: MIT */
/*
 * exact_predicates.h - error-free arithmetic (expansions, Shewchuk 1997) and
 * the exact orientation test, shared by the core (delaunay.c, tin.c, linear.c)
 * and the CUDA module (gpu/linear.cu), so that both decide every
 * orientation with the same code. The code must be compiled without
 * floating-point contraction (ISO C mode; nvcc -fmad=false): Dekker's split
 * in two_prod would break under a fused multiply-add.
 */
#ifndef GK_EXACT_PREDICATES_H
#define GK_EXACT_PREDICATES_H

#include <math.h>

#if defined(__clang__) && !defined(__CUDACC__)
/* (GCC's ISO C mode does not contract; clang would.) */
#pragma STDC FP_CONTRACT OFF
#endif

#ifdef __CUDACC__
#define GK_EX_FN static inline __host__ __device__
#else
#define GK_EX_FN static inline
#endif

#define GK_EPS 0x1p-53 /* half an ulp of 1 */

/* a + b = s + e exactly (Knuth). */
GK_EX_FN void two_sum(double a, double b, double *s, double *e)
{
    double x = a + b, bv = x - a, av = x - bv;
    *s = x;
    *e = (a - av) + (b - bv);
}

/* a * b = p + e exactly (Dekker's split into 26-bit halves). */
GK_EX_FN void two_prod(double a, double b, double *p, double *e)
{
    const double splitter = 134217729.0; /* 2^27 + 1 */
    double x = a * b;
    double ca = splitter * a, ah = ca - (ca - a), al = a - ah;
    double cb = splitter * b, bh = cb - (cb - b), bl = b - bh;
    *p = x;
    *e = al * bl - (((x - ah * bh) - al * bh) - ah * bl);
}

/* Expansions: arrays of nonoverlapping doubles of increasing magnitude, no
 * zeros (so the last one carries the sign; length 0 is zero). */

/* a - b as an expansion of length 0..2. */
GK_EX_FN int exp_diff(double a, double b, double *h)
{
    double s, e;
    two_sum(a, -b, &s, &e);
    int n = 0;
    if (e != 0.0)
        h[n++] = e;
    if (s != 0.0)
        h[n++] = s;
    return n;
}

/* h = e * b; h holds 2 * elen. */
GK_EX_FN int exp_scale(int elen, const double *e, double b, double *h)
{
    if (elen == 0 || b == 0.0)
        return 0;
    int hn = 0;
    double q, hh, p1, p0, sum;
    two_prod(e[0], b, &q, &hh);
    if (hh != 0.0)
        h[hn++] = hh;
    for (int i = 1; i < elen; i++) {
        two_prod(e[i], b, &p1, &p0);
        two_sum(q, p0, &sum, &hh);
        if (hh != 0.0)
            h[hn++] = hh;
        two_sum(p1, sum, &q, &hh);
        if (hh != 0.0)
            h[hn++] = hh;
    }
    if (q != 0.0)
        h[hn++] = q;
    return hn;
}

/* h = e + f (merge by magnitude, then a chain of exact sums); h holds
 * elen + flen and is neither e nor f. */
GK_EX_FN int exp_sum(int elen, const double *e, int flen, const double *f, double *h)
{
    if (elen == 0 || flen == 0) {
        const double *src = elen ? e : f;
        int m = elen ? elen : flen;
        for (int k = 0; k < m; k++)
            h[k] = src[k];
        return m;
    }
    int i = 0, j = 0, hn = 0;
    double q = fabs(f[0]) < fabs(e[0]) ? f[j++] : e[i++], hh;
    while (i < elen || j < flen) {
        double g = (j >= flen || (i < elen && fabs(e[i]) < fabs(f[j]))) ? e[i++] : f[j++];
        two_sum(q, g, &q, &hh);
        if (hh != 0.0)
            h[hn++] = hh;
    }
    if (q != 0.0)
        h[hn++] = q;
    return hn;
}

/* h = e * f; h holds 2 * elen * flen, t1 2 * elen, t2 2 * elen * flen. */
GK_EX_FN int exp_mul(int elen, const double *e, int flen, const double *f, double *h, double *t1,
                     double *t2)
{
    int hn = 0;
    for (int j = 0; j < flen; j++) {
        int tn = exp_scale(elen, e, f[j], t1);
        hn = exp_sum(hn, h, tn, t1, t2);
        for (int k = 0; k < hn; k++)
            h[k] = t2[k];
    }
    return hn;
}

GK_EX_FN int exp_sign(int n, const double *h) { return n == 0 ? 0 : (h[n - 1] > 0.0 ? 1 : -1); }

GK_EX_FN void exp_negate(int n, double *h)
{
    for (int i = 0; i < n; i++)
        h[i] = -h[i];
}

/* h = p*q - r*s for 2-term expansions; h holds 16. */
GK_EX_FN int exp_cross(int np, const double *p, int nq, const double *q, int nr, const double *r,
                       int ns, const double *s, double *h)
{
    double a[8], b[8], t1[4], t2[8];
    int na = exp_mul(np, p, nq, q, a, t1, t2);
    int nb = exp_mul(nr, r, ns, s, b, t1, t2);
    exp_negate(nb, b);
    return exp_sum(na, a, nb, b, h);
}

/* Sign of the orientation of (a, b, c) in expansion arithmetic: always exact. */
GK_EX_FN int gk_orient_expansion(const double *a, const double *b, const double *c)
{
    double acx[2], acy[2], bcx[2], bcy[2], d[16];
    int n1 = exp_diff(a[0], c[0], acx), n2 = exp_diff(a[1], c[1], acy);
    int n3 = exp_diff(b[0], c[0], bcx), n4 = exp_diff(b[1], c[1], bcy);
    return exp_sign(exp_cross(n1, acx, n4, bcy, n2, acy, n3, bcx, d), d);
}

/* The floating-point filter in front of it (Shewchuk's error bound): 1 or -1
 * when it decides, GK_ORIENT_UNSURE when the exact stage must. */
#define GK_ORIENT_UNSURE 2
GK_EX_FN int gk_orient_filter(const double *a, const double *b, const double *c)
{
    double l = (a[0] - c[0]) * (b[1] - c[1]), r = (a[1] - c[1]) * (b[0] - c[0]);
    double det = l - r, bound = (3.0 + 16.0 * GK_EPS) * GK_EPS * (fabs(l) + fabs(r));
    if (det > bound)
        return 1;
    if (-det > bound)
        return -1;
    return GK_ORIENT_UNSURE;
}

/* The incircle test's filter (Shewchuk's error bound): 1 when d is inside
 * the circle through a, b, c (counter-clockwise), -1 outside,
 * GK_ORIENT_UNSURE when the exact stage (delaunay_sweep.c, the CPU's) must
 * decide. */
GK_EX_FN int gk_incircle_filter(const double *a, const double *b, const double *c, const double *d)
{
    double adx = a[0] - d[0], ady = a[1] - d[1];
    double bdx = b[0] - d[0], bdy = b[1] - d[1];
    double cdx = c[0] - d[0], cdy = c[1] - d[1];
    double bdxcdy = bdx * cdy, cdxbdy = cdx * bdy, al = adx * adx + ady * ady;
    double cdxady = cdx * ady, adxcdy = adx * cdy, bl = bdx * bdx + bdy * bdy;
    double adxbdy = adx * bdy, bdxady = bdx * ady, cl = cdx * cdx + cdy * cdy;
    double det = al * (bdxcdy - cdxbdy) + bl * (cdxady - adxcdy) + cl * (adxbdy - bdxady);
    double perm = (fabs(bdxcdy) + fabs(cdxbdy)) * al + (fabs(cdxady) + fabs(adxcdy)) * bl +
                  (fabs(adxbdy) + fabs(bdxady)) * cl;
    double bound = (10.0 + 96.0 * GK_EPS) * GK_EPS * perm;
    if (det > bound)
        return 1;
    if (-det > bound)
        return -1;
    return GK_ORIENT_UNSURE;
}

#endif
