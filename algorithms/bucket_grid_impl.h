/*
 * bucket_grid_impl.h - the bucket grid's insides, shared by its three ways of
 * computing a window statistic: the per-node scan (bucket_grid.c), the row
 * sweep (bucket_sweep.c) and the tile stamp (bucket_stamp.c). Not for use
 * outside those files.
 */
#ifndef GK_BUCKET_GRID_IMPL_H
#define GK_BUCKET_GRID_IMPL_H

#include "bucket_grid.h"

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
    double x0, y0;   /* lower left corner of bucket (0, 0) */
    double b, inv;   /* bucket side and its inverse */
    int nbx, nby;
    int *start;      /* nbx * nby + 1 offsets into x, y, z */
    double *x, *y, *z;
    size_t n;
    double margin;   /* absolute widening of the spans (coordinates' rounding) */
    int simd;        /* AVX-512 kernels */
    int method;      /* gk_bg_force_method: a GK_BG_* method, or -1 for the rule */
};

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

/* Bucket column of x: -1 left of the grid, nbx right of it. Monotone in x, so
 * a point never lies right of the column of any larger x. */
static inline int bg_col(const gk_bucket_grid *g, double x)
{
    double u = (x - g->x0) * g->inv;
    if (!(u >= 0.0))
        return -1;
    if (u >= (double)g->nbx)
        return g->nbx;
    return (int)u;
}

static inline int bg_row(const gk_bucket_grid *g, double y)
{
    double u = (y - g->y0) * g->inv;
    if (!(u >= 0.0))
        return -1;
    if (u >= (double)g->nby)
        return g->nby;
    return (int)u;
}

/* Interior nodes of a chord need no test (see above): the ellipse's dx^2
 * coefficient times the cell squared against the test's rounding, with a
 * wide safety factor. */
static inline int sweep_flat(const gk_ellipse *e, double cw)
{
    double r1s = e->r1 * e->r1, r2s = e->r2 * e->r2;
    double a = e->cos_a * e->cos_a / r1s + e->sin_a * e->sin_a / r2s;
    double q = e->rmax / fmin(e->r1, e->r2);
    return a * cw * cw >= 1e-9 * q * q;
}

#endif
