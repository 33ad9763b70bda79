/* SPDX-License-Identifier: MIT */
/*
 * linear/delaunay_sweep.h - what gk_delaunay (delaunay.c) and the parallel
 * strips (delaunay_strips.c) take from the sweep (delaunay_sweep.c): the
 * sweep itself and the exact incircle test.
 */
#ifndef GK_DELAUNAY_SWEEP_H
#define GK_DELAUNAY_SWEEP_H

#ifdef GK_DELAUNAY_TEST_DEFER
/* Test build (tests/linear/delaunay.cmake, delaunay.c and delaunay_sweep.c
 * again): every GK_DELAUNAY_TEST_DEFER-th point is moved to the end of the
 * sweep, so the inside-the-hull path is exercised. */
#define gk_delaunay gk_delaunay_deferred
#define gk_orient_exact gk_orient_exact_deferred
#define gk_delaunay_strips gk_delaunay_strips_deferred
#define gk_dt_sweep gk_dt_sweep_deferred
#define gk_dt_sweep_ordered gk_dt_sweep_ordered_deferred
#define gk_incircle_exact gk_incircle_exact_deferred
#endif

#include "delaunay.h"

#include <math.h>

/* Fewer points than this: the sweep alone. */
#define GK_DT_PAR_MIN 65536

/* What the sweep met, besides its result. */
typedef struct {
    const char *why; /* the reason of an error */
    long zeros;      /* cocircular quadruples met */
    int skipped;     /* points not inserted (coincident with an earlier one) */
} gk_dt_info;

/* The sweep over n finite points (3 <= n <= INT_MAX / 6): gk_delaunay's
 * contract, without the context; *info says what it met. */
int gk_dt_sweep(int n, const double *x, const double *y, gk_triangulation *tri, gk_dt_info *info);

/* The sweep's own numbering: vertex k is the k-th point in sweep order,
 * input point order[k] at xy[2k], xy[2k + 1]. Triangles made one after the
 * other share recent vertices there, so a pass over them in this numbering
 * stays in cache where the input's numbering jumps (delaunay_strips.c). */
typedef struct {
    int *order;
    double *xy;
} gk_dt_order;

/* gk_dt_sweep, its triangles in the sweep's numbering; on GK_OK, *ord holds
 * two blocks for the caller to free, else NULLs. */
int gk_dt_sweep_ordered(int n, const double *x, const double *y, gk_triangulation *tri,
                        gk_dt_info *info, gk_dt_order *ord);

/* The incircle test's exact stage (expansion arithmetic). */
int gk_incircle_exact(const double *a, const double *b, const double *c, const double *d);

/* > 0 when d is inside the circle through a, b, c (counter-clockwise), < 0
 * outside, 0 on it: a floating-point filter with Shewchuk's error bound,
 * the exact stage when it cannot decide. */
static inline int gk_incircle(const double *a, const double *b, const double *c, const double *d)
{
    const int s = gk_incircle_filter(a, b, c, d);
    return s != GK_ORIENT_UNSURE ? s : gk_incircle_exact(a, b, c, d);
}

#endif
