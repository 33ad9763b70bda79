/* SPDX-License-Identifier: MIT */
/*
 * triangulate_gdal.h - GDAL's (qhull) Delaunay triangulation as a gk_triangulate_fn.
 */
#ifndef GK_TRIANGULATE_GDAL_H
#define GK_TRIANGULATE_GDAL_H

#include "gridkit.h"

/* gk_triangulate_fn: install with gk_context_set_triangulator(ctx, gk_gdal_triangulate, NULL).
 * Returns GK_OK and fills *tri (triangles counter-clockwise, neighbor[3t+k]
 * across the edge opposite vertex k, -1 on the hull); GK_ERR_ARG for fewer
 * than 3 distinct points or (nearly) collinear points; GK_ERR_NOMEM;
 * GK_ERR_UNSUPPORTED when GDAL has no qhull; GK_ERR_INTERNAL when qhull fails.
 * On error *tri is empty. */
int gk_gdal_triangulate(void *user, int n, const double *x, const double *y, gk_triangulation *tri);

#endif
