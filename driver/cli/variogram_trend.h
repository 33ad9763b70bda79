/* SPDX-License-Identifier: MIT */
/*
 * variogram_trend.h - `gridkit variogram --drift`: the points with their z
 * replaced by the residuals of an ordinary least-squares trend (the data of
 * gstat's variogram(z ~ x + y)), the covariates of --drift-raster sampled at
 * the points as kriging's drift_raster= samples them (io/drift_raster.h).
 */
#ifndef GK_VARIOGRAM_TREND_H
#define GK_VARIOGRAM_TREND_H

#include "gridkit_geostat.h"

/* *out: new points (free with gk_points_free), or NULL and an error (the
 * trend's own errors name the source src; a raster's name the raster). */
int gk_vgm_trend_points(gk_context *ctx, const char *src, const gk_points *pts, gk_drift_type drift,
                        int n_rasters, const char *const *rasters, int bilinear, gk_points **out);

#endif
