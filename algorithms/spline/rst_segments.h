/* SPDX-License-Identifier: MIT */
/*
 * spline/rst_segments.h - v.surf.rst's quadtree segments (rst_segments.c)
 * for rst.c: a region of the grid split as GRASS splits it, each leaf's
 * system solved on a window of nearby points, each node valued by its leaf.
 */
#ifndef GK_SPLINE_RST_SEGMENTS_H
#define GK_SPLINE_RST_SEGMENTS_H

#include "core/gk_internal.h"

typedef struct gk_rst_segments gk_rst_segments;

typedef struct {
    double tension, smooth, dmin, zscale;
    int npmin, segmax, threads;
    int values_only; /* the leaves' coefficients are not needed (no derivatives) */
} gk_rst_seg_params;

/* The segments of the points inside grid g's extent (edges included), in
 * input order. NULL with an error in ctx: too concentrated points (a cell
 * holding more than segmax), npmin not above segmax while more than 2 npmin
 * points remain, no point in the region, out of memory. *dropped gets the
 * points dropped within dmin, *outside those outside the region. */
gk_rst_segments *gk_rst_segments_new(gk_context *ctx, const gk_points *pts, const gk_grid *g,
                                     const gk_rst_seg_params *p, size_t *dropped, size_t *outside);
void gk_rst_segments_free(gk_rst_segments *s);
/* Is it the segments of grid g? */
int gk_rst_segments_of(const gk_rst_segments *s, const gk_grid *g);
/* The surface at node (col, row) of the grid (row 0 at its top), or NaN
 * where its leaf's system was singular. */
double gk_rst_segments_value(const gk_rst_segments *s, int col, int row);
/* Node (col, row)'s sums of the RST function's derivatives in its leaf (DX,
 * DY, DXX, DYY, DXY in units of dnorm, as v.surf.rst adds them), and in
 * *col0 the grid column where its leaf's row starts (GRASS's secpar runs
 * along a leaf's row); 0, or -1 where the leaf's system was singular. */
int gk_rst_segments_sums(const gk_rst_segments *s, int col, int row, double *D, int *col0);
/* GRASS's dnorm for these points. */
double gk_rst_segments_dnorm(const gk_rst_segments *s);
/* Every node's value computed at once on the GPU, where the context takes
 * rst's segments there (--device cuda: the GPU's exp and log are not the C
 * library's, so auto keeps the CPU); gk_rst_segments_value then reads them.
 * solve: the leaves' systems too (their right-hand sides in the leaves'
 * coefficients: cuBLAS's batched LU), else the CPU's coefficients. 1 done,
 * 0 left to the CPU, -1 an error (in ctx). gk_rst_segments_new calls it. */
int gk_rst_segments_gpu(gk_context *ctx, gk_rst_segments *s, int solve, double smooth);
/* Its leaves (segments). */
int gk_rst_segments_count(const gk_rst_segments *s);

#endif
