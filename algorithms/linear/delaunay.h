/* SPDX-License-Identifier: MIT */
/*
 * delaunay.h - gridkit's own Delaunay triangulation (sweep-hull with exact
 * predicates, in parallel strips where that gives the same triangles), the
 * default triangulator of `linear`; its exact orientation test.
 */
#ifndef GK_DELAUNAY_H
#define GK_DELAUNAY_H

#include "exact_predicates.h"
#include "gridkit.h"

#include <math.h>

/* Same contract as gk_triangulate_fn: on GK_OK *tri holds n_tri triangles,
 * counter-clockwise (y up), vertex indices into x/y, neighbor[3t+k] across
 * the edge opposite vertex k (-1 on the hull); both arrays malloc'ed, freed by
 * the caller with free(). Coincident points: the first in input order is the
 * vertex, the others are not vertices. Fewer than 3 distinct non-collinear
 * points: GK_ERR_ARG and no triangles. Also GK_ERR_NOMEM, or GK_ERR_ARG for
 * non-finite coordinates. Errors are recorded in ctx (which may be NULL).
 * The result is exactly Delaunay (exact orientation and incircle tests);
 * with cocircular points, one of the valid Delaunay triangulations, chosen
 * by the sweep's order. The triangles are the same on any number of threads
 * (the context's; their order and numbering may differ). */
int gk_delaunay(gk_context *ctx, int n, const double *x, const double *y, gk_triangulation *tri);

/* The parallel path of gk_delaunay, for tests: the points cut into strips
 * (2..64) triangulated on threads and joined. 1: done (tri holds the
 * triangulation, the same triangles as the sweep's); 0: not done (tri empty;
 * coincident or cocircular points, too few points per strip), -1: no memory. */
int gk_delaunay_strips(int n, const double *x, const double *y, int strips, int threads,
                       gk_triangulation *tri);

/* Exact orientation of (a, b, c), 2 doubles each: > 0 counter-clockwise, < 0
 * clockwise, 0 collinear. A floating-point filter with Shewchuk's error
 * bound decides almost always; gk_orient_exact (expansion arithmetic) the
 * rest. Both live in exact_predicates.h, shared with the CUDA module. */
int gk_orient_exact(const double *a, const double *b, const double *c);
static inline int gk_orient(const double *a, const double *b, const double *c)
{
    int s = gk_orient_filter(a, b, c);
    return s != GK_ORIENT_UNSURE ? s : gk_orient_exact(a, b, c);
}

#endif
