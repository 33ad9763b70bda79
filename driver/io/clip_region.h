/* SPDX-License-Identifier: MIT */
/*
 * clip_region.h - the region points must fall in: -spat, -clipsrc (a
 * rectangle, a POLYGON/MULTIPOLYGON WKT, or the polygons of a datasource
 * chosen with -clipsrcsql/-clipsrclayer/-clipsrcwhere) or both intersected.
 * A rectangle is tested by comparison alone, other shapes through OGR
 * (prepared where GDAL can).
 */
#ifndef GK_CLIP_REGION_H
#define GK_CLIP_REGION_H

#include "io/gdal_messages.h"
#include "io/read_points.h"

#include "ogr_api.h"

typedef struct {
    int active;
    int is_rect;                   /* axis-aligned rectangle: pure compare */
    double xmin, ymin, xmax, ymax; /* envelope */
    OGRGeometryH geom;
    OGRPreparedGeometryH prep;
    OGRGeometryH pt; /* reused test point */
} gk_clip_region;

/* The region of ro's -spat and -clipsrc* in *c (c->active 0 when neither is
 * given); otherwise an error naming the option, with GDAL's reason from ec. */
int gk_clip_build(gk_context *ctx, const gk_read_options *ro, gk_err_capture *ec,
                  gk_clip_region *c);
void gk_clip_free(gk_clip_region *c);
/* The rectangle (x0, y0)-(x1, y1) as a polygon (the caller destroys it). */
OGRGeometryH gk_clip_rect(double x0, double y0, double x1, double y1);

/* Strictly inside (gdal_grid's OGRPoint::Within): boundary points excluded. */
static inline int gk_clip_inside(gk_clip_region *c, double x, double y)
{
    if (!(x > c->xmin && x < c->xmax && y > c->ymin && y < c->ymax))
        return 0;
    if (c->is_rect)
        return 1;
    OGR_G_SetPoint_2D(c->pt, 0, x, y);
    if (c->prep)
        return OGRPreparedGeometryContains(c->prep, c->pt);
    return OGR_G_Within(c->pt, c->geom);
}

#endif
