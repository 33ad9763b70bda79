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
