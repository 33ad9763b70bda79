/* SPDX-License-Identifier: MIT */
/*
 * drift_raster.h - external drift rasters for kriging (drift_raster=PATH):
 * band 1 of each raster sampled at the data points and at the grid nodes.
 *
 * Sampling is the value of the pixel that contains the location (nearest;
 * what sp::over(points, pixels) gives an R user), or bilinear between the four
 * nearest pixel centres (drift_resample=bilinear; clamped to the edge pixels
 * within half a pixel of the raster's border). At a pixel centre both give the
 * pixel's value, so a covariate raster on the prediction grid reproduces
 * gstat's KED with the covariate given at the same locations.
 * Data points outside a raster or on its nodata are an error; nodes there get
 * nodata. The sampler is thread-safe (one mutex around GDAL's reads).
 */
#ifndef GK_DRIFT_RASTER_H
#define GK_DRIFT_RASTER_H

#include "gridkit_geostat.h"

typedef struct gk_drift_rasters gk_drift_rasters;

/* Opens n rasters (band 1 each); NULL and a message naming the file on error. */
gk_drift_rasters *gk_drift_rasters_open(gk_context *ctx, int n, const char *const *paths,
                                        int bilinear);
void gk_drift_rasters_close(gk_drift_rasters *d);
/* The rasters of kriging's drift_raster= keys, with its drift_resample=. */
gk_drift_rasters *gk_drift_rasters_open_kriging(gk_context *ctx, const gk_kriging_params *kp);

/* Covariates at the points: out[k*n + i] for raster k, point i. An error
 * naming the point and the raster when one has no value. */
int gk_drift_rasters_at_points(gk_context *ctx, gk_drift_rasters *d, const gk_points *pts,
                               double *out);

/* gk_drift_sampler_fn for gk_job_set_drift (user = the gk_drift_rasters). */
int gk_drift_rasters_sample(void *user, size_t n, const double *x, const double *y, double *out);

#endif
