/* SPDX-License-Identifier: MIT */
/*
 * bucket_grid_impl.h - the bucket grid's insides, shared by its three ways of
 * computing a window statistic: the per-node scan (bucket_grid.c), the row
 * sweep (bucket_sweep.c) and the tile stamp (bucket_stamp.c). Not for use
 * outside those files.
 */
#ifndef GK_BUCKET_GRID_IMPL_H
#define GK_BUCKET_GRID_IMPL_H

#include "bucket_grid.h"
#include "neighbours.h"

#include <math.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GK_BG_X86 1
#include <immintrin.h>
#else
#define GK_BG_X86 0
#endif

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF /* the inclusion test must round as gk_ellipse_contains */
#endif

struct gk_bucket_grid {
    double x0, y0; /* lower left corner of bucket (0, 0) */
    double b, inv; /* bucket side and its inverse */
    int nbx, nby;
    int *start; /* nbx * nby + 1 offsets into x, y, z */
    double *x, *y, *z;
    size_t n;
    double margin; /* absolute widening of the spans (coordinates' rounding) */
    int simd;      /* AVX-512 kernels */
    int exact;     /* every sum of z is exact in double-double (bg_exact_sums) */
    int method;    /* gk_bg_force_method: a GK_BG_* method, or -1 for the rule */
};

/* ---- sums of z that do not depend on their order ----------------------------
 * Every z is a multiple of 2^q and below 2^E in magnitude; where
 * E - q + log2(n) <= 102, every partial sum of any subset, and every error
 * term below, is a multiple of 2^q under 2^(q + 104): a double-double kept
 * renormalised by TwoSum then holds each partial sum exactly, and its high
 * part is the exact sum correctly rounded. So the scan, the sweep and the
 * stamp, in any order, on any tiling and any CPU, give the same double
 * (docs/reliability.md). Elsewhere (z of a huge dynamic range) only the scan runs, in
 * one fixed order on every CPU. */
static inline void bg_two_sum(double a, double b, double *s, double *e)
{
    double x = a + b, bb = x - a;
    *e = (a - (x - bb)) + (b - bb);
    *s = x;
}

/* (h, l) += q, renormalised */
static inline void bg_dd_add(double *h, double *l, double q)
{
    double s, e;
    bg_two_sum(*h, q, &s, &e);
    e += *l;
    bg_two_sum(s, e, h, l);
}

/* (h, l) += (qh, ql), renormalised */
static inline void bg_dd_add_dd(double *h, double *l, double qh, double ql)
{
    double s, e;
    bg_two_sum(*h, qh, &s, &e);
    e += *l + ql;
    bg_two_sum(s, e, h, l);
}

/* The scan's eight lanes in one fixed order: ((0 4)(2 6))((1 5)(3 7)). */
static inline double bg_dd_fold8(const double *h, const double *l)
{
    static const int ord[4][2] = {{0, 4}, {2, 6}, {1, 5}, {3, 7}};
    double ph[4], pl[4];
    for (int k = 0; k < 4; k++) {
        ph[k] = h[ord[k][0]], pl[k] = l[ord[k][0]];
        bg_dd_add_dd(&ph[k], &pl[k], h[ord[k][1]], l[ord[k][1]]);
    }
    bg_dd_add_dd(&ph[0], &pl[0], ph[1], pl[1]);
    bg_dd_add_dd(&ph[2], &pl[2], ph[3], pl[3]);
    bg_dd_add_dd(&ph[0], &pl[0], ph[2], pl[2]);
    return ph[0];
}

/* Ellipse test constants, in gk_ellipse_contains' order of operations. */
typedef struct {
    double c, s, A, B, C; /* A = r2*r2, B = r1*r1, C = r1*r1*r2*r2 */
} ell_k;

static inline void ell_consts(const gk_ellipse *e, ell_k *k)
{
    k->c = e->cos_a;
    k->s = e->sin_a;
    k->A = e->r2 * e->r2;
    k->B = e->r1 * e->r1;
    k->C = e->r1 * e->r1 * e->r2 * e->r2;
}

/* The exact test for a point dx, dy from a node, with dys = dy * s and
 * dyc = dy * c formed once per point and row (gk_ellipse_contains' own
 * products, in its order). */
static inline int ell_in(const ell_k *e, double dx, double dys, double dyc)
{
    double rx = dx * e->c + dys, ry = dyc - dx * e->s;
    return e->A * rx * rx + e->B * ry * ry <= e->C;
}

/* Bucket index of u (a coordinate's offset in buckets) among nb: -1 before
 * the grid, nb past it. Monotone in u, so a point never lies in a column or
 * row past that of any larger coordinate. */
static inline int bg_cell(double u, int nb)
{
    if (!(u >= 0.0))
        return -1;
    if (u >= (double)nb)
        return nb;
    return (int)u;
}

static inline int bg_col(const gk_bucket_grid *g, double x)
{
    return bg_cell((x - g->x0) * g->inv, g->nbx);
}

static inline int bg_row(const gk_bucket_grid *g, double y)
{
    return bg_cell((y - g->y0) * g->inv, g->nby);
}

/* Interior nodes of a chord need no test (the convexity argument at the
 * top of bucket_sweep.c): the ellipse's dx^2 coefficient times the cell
 * squared against the test's rounding, with a wide safety factor. */
static inline int sweep_flat(const gk_ellipse *e, double cw)
{
    double r1s = e->r1 * e->r1, r2s = e->r2 * e->r2;
    double a = e->cos_a * e->cos_a / r1s + e->sin_a * e->sin_a / r2s;
    double q = e->rmax / fmin(e->r1, e->r2);
    return a * cw * cw >= 1e-9 * q * q;
}

/* The ellipse's chord over a row of nodes, for the sweep and the stamp. As
 * in gk_bg_rows_init, a dx^2 + 2 h dx dy + b dy^2 <= 1 gives dx in
 * (-h dy -+ sqrt(a - dy^2 det)) / a; it is taken over dy +- m (the rounding
 * of dy and of the test) at its extreme ends, then widened by m, so that it
 * never ends inside the exact test's chord. An ellipse thinner than 1e-3 of
 * its size (not tight) takes its box's width instead. */
typedef struct {
    double hx, hy; /* the box's half sides (gk_nb_ellipse_box) */
    double a, h, t, det;
    int tight, sym; /* the formula holds; t == 0 (yl == yr: one square root) */
} bg_chord;

static inline void bg_chord_init(const gk_ellipse *e, bg_chord *k)
{
    const double c = e->cos_a, s = e->sin_a, r1s = e->r1 * e->r1, r2s = e->r2 * e->r2;
    gk_nb_ellipse_box(e, &k->hx, &k->hy);
    k->tight = fmin(e->r1, e->r2) >= 1e-3 * e->rmax;
    k->a = c * c / r1s + s * s / r2s;
    k->h = c * s * (1.0 / r1s - 1.0 / r2s);
    k->t = c * s * (r1s - r2s) / sqrt(r1s * c * c + r2s * s * s);
    k->det = 1.0 / (r1s * r2s);
    k->sym = k->t == 0.0;
}

#if GK_BG_X86
/* For 8 lanes (a point at X, dy = DY from the row, margin M): the local node
 * indices (unrounded) one node beyond each end of the widened chord, lo and
 * hi, on the row of nodes x0.. of the grid (xmin, step cw). */
__attribute__((target("avx512f"))) static inline void bg_chord8(const bg_chord *k, __m512d X,
                                                                __m512d DY, __m512d M, double xmin,
                                                                double cw, int x0, __m512d *lo,
                                                                __m512d *hi)
{
    const __m512d HX = _mm512_set1_pd(k->hx), HY = _mm512_set1_pd(k->hy);
    const __m512d NHX = _mm512_set1_pd(-k->hx), NHY = _mm512_set1_pd(-k->hy);
    const __m512d ZERO = _mm512_setzero_pd(), ONE = _mm512_set1_pd(1.0);
    __m512d xl = _mm512_sub_pd(NHX, M), xr = _mm512_add_pd(HX, M);
    if (k->tight) {
        const __m512d Av = _mm512_set1_pd(k->a), H = _mm512_set1_pd(k->h);
        const __m512d DET = _mm512_set1_pd(k->det), IA = _mm512_set1_pd(1.0 / k->a);
        __m512d ylo = _mm512_max_pd(_mm512_sub_pd(DY, M), NHY);
        __m512d yhi = _mm512_min_pd(_mm512_add_pd(DY, M), HY);
        __mmask8 ok = _mm512_cmp_pd_mask(ylo, yhi, _CMP_LE_OQ);
        __m512d yr = _mm512_min_pd(_mm512_max_pd(_mm512_set1_pd(k->t), ylo), yhi);
        __m512d yl = _mm512_min_pd(_mm512_max_pd(_mm512_set1_pd(-k->t), ylo), yhi);
        __m512d dr = _mm512_sub_pd(Av, _mm512_mul_pd(_mm512_mul_pd(yr, yr), DET));
        __m512d qr = _mm512_sqrt_pd(_mm512_max_pd(dr, ZERO)), ql = qr;
        if (!k->sym) {
            __m512d dl = _mm512_sub_pd(Av, _mm512_mul_pd(_mm512_mul_pd(yl, yl), DET));
            ql = _mm512_sqrt_pd(_mm512_max_pd(dl, ZERO));
        }
        __m512d xrr = _mm512_mul_pd(_mm512_sub_pd(qr, _mm512_mul_pd(H, yr)), IA);
        __m512d xll =
            _mm512_mul_pd(_mm512_sub_pd(_mm512_sub_pd(ZERO, _mm512_mul_pd(H, yl)), ql), IA);
        xl = _mm512_mask_sub_pd(xl, ok, _mm512_max_pd(xll, NHX), M);
        xr = _mm512_mask_add_pd(xr, ok, _mm512_min_pd(xrr, HX), M);
    }
    const __m512d XMIN = _mm512_set1_pd(xmin), ICW = _mm512_set1_pd(1.0 / cw);
    const __m512d OFF = _mm512_set1_pd(0.5 + (double)x0);
    *lo = _mm512_sub_pd(
        _mm512_sub_pd(_mm512_mul_pd(_mm512_sub_pd(_mm512_sub_pd(X, xr), XMIN), ICW), OFF), ONE);
    *hi = _mm512_add_pd(
        _mm512_sub_pd(_mm512_mul_pd(_mm512_sub_pd(_mm512_sub_pd(X, xl), XMIN), ICW), OFF), ONE);
}
#endif

#endif
