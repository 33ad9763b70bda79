/* SPDX-License-Identifier: MIT */
/*
 * linear_raster.h - how `linear` (linear/linear.c) takes the nodes of a tile
 * with one triangle: a row at a time, every node decided by exact
 * orientation tests and a top-left rule for nodes on an edge. Shared with the
 * CUDA module (gpu/linear.cu), so that the GPU takes the same nodes
 * and computes the same values with the same code: both sides are compiled
 * without floating-point contraction (ISO C mode; nvcc -fmad=false).
 */
#ifndef GK_LINEAR_RASTER_H
#define GK_LINEAR_RASTER_H

#include "exact_predicates.h"

#ifdef __CUDACC__
#define GK_LR_HD static inline __host__ __device__
#define GK_LR_DEV static inline __device__
/* the exact stage is rare and large: out of line, on values (the corners
 * stay in registers) */
static __device__ __noinline__ int gk_lr_orient_exact6(double ax, double ay, double bx, double by,
                                                       double cx, double cy)
{
    const double a[2] = {ax, ay}, b[2] = {bx, by}, c[2] = {cx, cy};
    return gk_orient_expansion(a, b, c);
}
#define GK_LR_EXACT(a, b, c) gk_lr_orient_exact6((a)[0], (a)[1], (b)[0], (b)[1], (c)[0], (c)[1])
#else
#include "delaunay.h"
#define GK_LR_HD static inline
#define GK_LR_DEV static inline
#define GK_LR_EXACT(a, b, c) gk_orient_exact(a, b, c)
#endif

/* Triangles are sorted into square buckets of a few levels (linear/tin.c):
 * the bucket of coordinate offset times inverse side f, of n. */
GK_LR_HD int gk_lr_bucket_of(double f, int n)
{
    if (!(f >= 0.0))
        return 0;
    return f >= (double)n ? n - 1 : (int)f;
}

/* floor(f) clamped to [0, n - 1] (NaN: 0). */
GK_LR_HD int gk_lr_node_index(double f, int n)
{
    if (!(f > 0.0))
        return 0;
    return f < n - 1 ? (int)f : n - 1;
}

/* Does edge a -> b take the nodes on it? Exactly one of a -> b and b -> a does. */
GK_LR_HD int gk_lr_owns(const double *a, const double *b)
{
    return b[1] < a[1] || (b[1] == a[1] && b[0] > a[0]);
}

GK_LR_DEV int gk_lr_orient(const double *a, const double *b, const double *c)
{
    int s = gk_orient_filter(a, b, c);
    return s != GK_ORIENT_UNSURE ? s : GK_LR_EXACT(a, b, c);
}

/* A proper triangle as the rasteriser sees it: its corners counter-clockwise
 * (P[0] the plane's origin; by value, so that a GPU thread keeps them in
 * registers), whether each edge P[k] -> P[k+1] takes the nodes on it, and
 * its dx/dy. */
typedef struct {
    double P[3][2];
    int own[3];
    double slope[3];
} gk_lr_tri;

GK_LR_HD void gk_lr_edges(gk_lr_tri *T)
{
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int k = 0; k < 3; k++) {
        const double *a = T->P[k], *b = T->P[(k + 1) % 3];
        T->own[k] = gk_lr_owns(a, b);
        T->slope[k] = a[1] != b[1] ? (b[0] - a[0]) / (b[1] - a[1]) : 0.0;
    }
}

/* Bounding box: xl, xh, yl, yh. */
GK_LR_HD void gk_lr_bbox(const gk_lr_tri *T, double *bb)
{
    const double(*P)[2] = T->P;
    bb[0] = fmin(fmin(P[0][0], P[1][0]), P[2][0]);
    bb[1] = fmax(fmax(P[0][0], P[1][0]), P[2][0]);
    bb[2] = fmin(fmin(P[0][1], P[1][1]), P[2][1]);
    bb[3] = fmax(fmax(P[0][1], P[1][1]), P[2][1]);
}

/* The tile's nodes: column i at x = xs[i] (gk_grid_node_x of x0 + i), about
 * gx + (x0 + i + 0.5) / icx; row j at ys[j], about gy + (y0 + j + 0.5) / icy
 * (y decreases with j). */
typedef struct {
    const double *xs, *ys;
    int w, h, x0, y0;
    double gx, icx, gy, icy;
} gk_lr_nodes;

/* Rows j0..j1 that may hold nodes of a triangle spanning yl..yh: a margin of
 * one against roundoff (the span test is exact). */
GK_LR_HD void gk_lr_rows(const gk_lr_nodes *N, double yl, double yh, int *j0, int *j1)
{
    int a = gk_lr_node_index((yh - N->gy) * N->icy - 0.5 - N->y0, N->h) - 1;
    int b = gk_lr_node_index((yl - N->gy) * N->icy - 0.5 - N->y0, N->h) + 1;
    *j0 = a < 0 ? 0 : a;
    *j1 = b > N->h - 1 ? N->h - 1 : b;
}

/* Is node (xs[i], y) on the inner side of a -> b (or on it and owned)? */
GK_LR_DEV int gk_lr_inner(const double *a, const double *b, int own, const double *xs, int i,
                          double y)
{
    const double p[2] = {xs[i], y};
    int o = gk_lr_orient(a, b, p);
    return o > 0 || (o == 0 && own);
}

/* The nodes lo..hi of the row at y (y within the triangle's yl..yh) that the
 * triangle takes; none when lo > hi. */
GK_LR_DEV void gk_lr_span(const gk_lr_tri *T, const gk_lr_nodes *N, double y, int *plo, int *phi)
{
    const double *xs = N->xs;
    const int w = N->w;
    int lo = 0, hi = w - 1;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int k = 0; k < 3 && lo <= hi; k++) {
        const double *a = T->P[k], *b = T->P[(k + 1) % 3];
        const int own = T->own[k];
        if (a[1] == b[1]) { /* horizontal: the whole row is in or out */
            int s = ((a[1] > y) - (a[1] < y)) * ((a[0] > b[0]) - (a[0] < b[0]));
            if (!(s > 0 || (s == 0 && own)))
                hi = -1;
            continue;
        }
        /* Where the edge's line crosses the row: xc, within B of the exact
         * crossing (a few ulps of its terms; B is far larger). Nodes
         * farther than B from xc are on the side their x says; nearer
         * ones (or a poor guess) take the exact tests. */
        double dt = (y - a[1]) * T->slope[k], xc = a[0] + dt;
        double B = 1e-14 * (fabs(a[0]) + fabs(dt));
        int k0 = gk_lr_node_index((xc - N->gx) * N->icx - 0.5 - N->x0, w), right = b[1] < a[1];
        int split = -2; /* nodes <= split are left of the crossing, the others right */
        if (xs[k0] < xc - B) {
            if (k0 + 1 == w || xs[k0 + 1] > xc + B)
                split = k0;
        } else if (xs[k0] > xc + B && k0 == 0) {
            split = -1;
        }
        if (split > -2) {
            if (right)
                lo = split + 1 > lo ? split + 1 : lo;
            else
                hi = split < hi ? split : hi;
        } else if (right) { /* inner side to the right: a lower bound */
            if (gk_lr_inner(a, b, own, xs, k0, y)) {
                while (k0 > 0 && gk_lr_inner(a, b, own, xs, k0 - 1, y))
                    k0--;
            } else {
                while (k0 < w && !gk_lr_inner(a, b, own, xs, k0, y))
                    k0++;
            }
            lo = k0 > lo ? k0 : lo;
        } else { /* an upper bound */
            if (gk_lr_inner(a, b, own, xs, k0, y)) {
                while (k0 < w - 1 && gk_lr_inner(a, b, own, xs, k0 + 1, y))
                    k0++;
            } else {
                while (k0 >= 0 && !gk_lr_inner(a, b, own, xs, k0, y))
                    k0--;
            }
            hi = k0 < hi ? k0 : hi;
        }
    }
    *plo = lo;
    *phi = hi;
}

/* The plane pl (z = pl[0] + pl[1] (x - P0x) + pl[2] (y - P0y)) at (x, y):
 * the row's part first, as the rasteriser computes it a row at a time. */
GK_LR_HD double gk_lr_row_base(const double *pl, const double *P0, double y)
{
    return pl[0] + pl[2] * (y - P0[1]);
}
GK_LR_HD double gk_lr_value(double base, const double *pl, const double *P0, double x)
{
    return base + pl[1] * (x - P0[0]);
}

/* The bit pattern of a node no proper triangle took (a signalling NaN, which
 * arithmetic never produces): the nodes located one by one afterwards. */
#define GK_LR_UNSET 0x7ff0deadbeef0001ull

#endif
