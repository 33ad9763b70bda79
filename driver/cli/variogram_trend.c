/* SPDX-License-Identifier: MIT */
/*
 * variogram_trend.c - the residual points of `gridkit variogram --drift`
 * (variogram_trend.h).
 */
#include "cli/variogram_trend.h"
#include "io/drift_raster.h"

#include <stdlib.h>

int gk_vgm_trend_points(gk_context *ctx, const char *src, const gk_points *pts, gk_drift_type drift,
                        int n_rasters, const char *const *rasters, int bilinear, gk_points **out)
{
    *out = NULL;
    size_t n = gk_points_count(pts);
    double *cov = NULL, *res = malloc((n ? n : 1) * sizeof *res);
    gk_drift_rasters *dr = NULL;
    gk_points *p = NULL;
    int rc = GK_OK;
    if (!res) {
        rc = gk_error(ctx, GK_ERR_NOMEM, "out of memory for the residuals");
        goto done;
    }
    if (n_rasters > 0) {
        /* kriging's sampler: a data point off a raster or on its nodata is an error */
        if (!(dr = gk_drift_rasters_open(ctx, n_rasters, rasters, bilinear))) {
            rc = gk_errno(ctx);
            goto done;
        }
        if (!(cov = malloc((size_t)n_rasters * (n ? n : 1) * sizeof *cov))) {
            rc = gk_error(ctx, GK_ERR_NOMEM, "out of memory for the drift rasters");
            goto done;
        }
        if ((rc = gk_drift_rasters_at_points(ctx, dr, pts, cov)))
            goto done;
    }
    if ((rc = gk_trend_residuals(ctx, pts, drift, n_rasters, cov, res))) {
        rc = gk_error(ctx, rc, "%s: %s", src, gk_errmsg(ctx));
        goto done;
    }
    const double *x = gk_points_x(pts), *y = gk_points_y(pts);
    if (!(p = gk_points_new(ctx)) || gk_points_reserve(p, n)) {
        rc = gk_error(ctx, GK_ERR_NOMEM, "out of memory for the residuals");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        if ((rc = gk_points_add(p, x[i], y[i], res[i])))
            goto done;
    *out = p;
    p = NULL;
done:
    gk_points_free(p);
    gk_drift_rasters_close(dr);
    free(cov);
    free(res);
    return rc;
}
