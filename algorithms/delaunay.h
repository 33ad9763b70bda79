/*
 * delaunay.h - gridkit's own Delaunay triangulation (sweep-hull with exact
 * predicates), the default triangulator of `linear`.
 */
#ifndef GK_DELAUNAY_H
#define GK_DELAUNAY_H

#include "gridkit.h"

/* Same contract as gk_triangulate_fn: on GK_OK *tri holds n_tri triangles,
 * counter-clockwise (y up), vertex indices into x/y, neighbor[3t+k] across
 * the edge opposite vertex k (-1 on the hull); both arrays malloc'ed, freed by
 * the caller with free(). Coincident points: the first in input order is the
 * vertex, the others are not vertices. Fewer than 3 distinct non-collinear
 * points: GK_ERR_ARG and no triangles. Also GK_ERR_NOMEM, or GK_ERR_ARG for
 * non-finite coordinates. Errors are recorded in ctx (which may be NULL).
 * The result is exactly Delaunay (exact orientation and incircle tests);
 * with cocircular points, one of the valid Delaunay triangulations. */
int gk_delaunay(gk_context *ctx, int n, const double *x, const double *y,
                gk_triangulation *tri);

#endif
