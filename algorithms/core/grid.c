/* SPDX-License-Identifier: MIT */
/* grid.c - output grid geometry (gdal_grid's: outer edges, nodes at pixel centres). */
#include "gk_internal.h"

#include <math.h>

int gk_grid_check(gk_context *ctx, const gk_grid *g)
{
    if (g->nx <= 0 || g->ny <= 0)
        return gk_error(ctx, GK_ERR_ARG, "grid size %d x %d: both must be positive", g->nx, g->ny);
    if (!isfinite(g->xmin) || !isfinite(g->xmax) || !isfinite(g->ymin) || !isfinite(g->ymax))
        return gk_error(ctx, GK_ERR_ARG, "grid extent is not finite");
    if (!(g->xmax > g->xmin) || !(g->ymax > g->ymin))
        return gk_error(ctx, GK_ERR_ARG,
                        "grid extent x %.17g..%.17g, y %.17g..%.17g is empty: give -txe/-tye "
                        "with distinct values (all points may share one coordinate)",
                        g->xmin, g->xmax, g->ymin, g->ymax);
    /* Width or height near DBL_MAX makes the geotransform inf/NaN, and any
     * span above 1e150 overflows squared distances: refused, not rasterised. */
    double w = g->xmax - g->xmin, h = g->ymax - g->ymin;
    if (!(w <= GK_GRID_MAX_SPAN) || !(h <= GK_GRID_MAX_SPAN))
        return gk_error(ctx, GK_ERR_ARG,
                        "grid extent x %.17g..%.17g, y %.17g..%.17g is %.3g x %.3g units wide: "
                        "at most %.0e a side (squared distances must stay finite); give a "
                        "smaller -txe/-tye or check the coordinates",
                        g->xmin, g->xmax, g->ymin, g->ymax, w, h, GK_GRID_MAX_SPAN);
    /* Below 2 ulps of the coordinates, pixel centres (half a cell in) would
     * coincide: nodes that cannot be told apart. */
    double cx = w / g->nx, cy = h / g->ny;
    double mx = fmax(fabs(g->xmin), fabs(g->xmax)), my = fmax(fabs(g->ymin), fabs(g->ymax));
    double ux = nextafter(mx, INFINITY) - mx, uy = nextafter(my, INFINITY) - my;
    if (!(cx >= 2 * ux) || !(cy >= 2 * uy))
        return gk_error(ctx, GK_ERR_ARG,
                        "grid cell %.17g x %.17g (%d x %d cells over x %.17g..%.17g, y "
                        "%.17g..%.17g) is below what double coordinates of this size resolve "
                        "(at least 2 ulps: %.3g x %.3g): use fewer cells or a larger extent",
                        cx, cy, g->nx, g->ny, g->xmin, g->xmax, g->ymin, g->ymax, 2 * ux, 2 * uy);
    return GK_OK;
}

void gk_grid_geotransform(const gk_grid *g, double gt[6])
{
    gt[0] = g->xmin;
    gt[1] = (g->xmax - g->xmin) / g->nx;
    gt[2] = 0.0;
    gt[3] = g->ymax;
    gt[4] = 0.0;
    gt[5] = (g->ymin - g->ymax) / g->ny;
}

double gk_hit_threshold2(const gk_grid *g)
{
    /* A point closer than a millionth of a cell to a node is that node's value:
     * scale-free, unlike gdal_grid's absolute 1e-13 units^2. */
    double cx = (g->xmax - g->xmin) / g->nx, cy = (g->ymax - g->ymin) / g->ny;
    double c = 1e-6 * (cx < cy ? cx : cy);
    return c * c;
}

void gk_ellipse_init(gk_ellipse *e, double r1, double r2, double angle_deg)
{
    double a = angle_deg * (M_PI / 180.0);
    e->all = (r1 == 0.0 && r2 == 0.0);
    e->r1 = r1;
    e->r2 = r2;
    e->cos_a = cos(a);
    e->sin_a = sin(a);
    e->rmax = r1 > r2 ? r1 : r2;
}
