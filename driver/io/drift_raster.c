/* SPDX-License-Identifier: MIT */
/*
 * drift_raster.c - sampling covariate rasters for kriging with external drift
 * (see drift_raster.h for the rules).
 */
#include "io/drift_raster.h"

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <cpl_vsi.h>
#include <gdal.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WINDOW (16u << 20) /* pixels read in one request; beyond, point by point */

typedef struct {
    char *path;
    GDALDatasetH ds;
    GDALRasterBandH band;
    int nx, ny;
    double inv[6]; /* georeferenced -> pixel/line */
    int has_nodata;
    double nodata;
} drift_raster;

struct gk_drift_rasters {
    int n;
    int bilinear;
    drift_raster r[GK_KRIGE_MAX_DRIFT_RASTERS];
    pthread_mutex_t lock; /* GDAL datasets are not safe to read from several threads */
};

gk_drift_rasters *gk_drift_rasters_open_kriging(gk_context *ctx, const gk_kriging_params *kp)
{
    const char *paths[GK_KRIGE_MAX_DRIFT_RASTERS];
    for (int k = 0; k < kp->n_drift_rasters; k++)
        paths[k] = kp->drift_raster[k];
    return gk_drift_rasters_open(ctx, kp->n_drift_rasters, paths, kp->drift_bilinear);
}

void gk_drift_rasters_close(gk_drift_rasters *d)
{
    if (!d)
        return;
    for (int k = 0; k < d->n; k++) {
        if (d->r[k].ds)
            GDALClose(d->r[k].ds);
        free(d->r[k].path);
    }
    pthread_mutex_destroy(&d->lock);
    free(d);
}

gk_drift_rasters *gk_drift_rasters_open(gk_context *ctx, int n, const char *const *paths,
                                        int bilinear)
{
    if (n < 1 || n > GK_KRIGE_MAX_DRIFT_RASTERS) {
        gk_error(ctx, GK_ERR_ARG, "drift rasters: %d given (1 to %d)", n,
                 GK_KRIGE_MAX_DRIFT_RASTERS);
        return NULL;
    }
    gk_drift_rasters *d = calloc(1, sizeof *d);
    if (!d) {
        gk_error(ctx, GK_ERR_NOMEM, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&d->lock, NULL);
    d->bilinear = bilinear;
    for (int k = 0; k < n; k++) {
        drift_raster *r = &d->r[k];
        d->n = k + 1;
        r->path = strdup(paths[k]);
        /* GDAL says why only with GDAL_OF_VERBOSE_ERROR; its message goes
         * into ours, not on stderr as well */
        CPLErrorReset();
        CPLPushErrorHandler(CPLQuietErrorHandler);
        r->ds = GDALOpenEx(paths[k], GDAL_OF_RASTER | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR,
                           NULL, NULL, NULL);
        CPLPopErrorHandler();
        if (!r->path || !r->ds) {
            VSIStatBufL st;
            const char *why = CPLGetLastErrorMsg();
            if (!*why)
                why = VSIStatL(paths[k], &st) != 0 ? "no such file"
                                                   : "not a raster format GDAL can read";
            gk_error(ctx, GK_ERR_IO, "drift_raster=%s: cannot open it as a raster (%s)", paths[k],
                     why);
            gk_drift_rasters_close(d);
            return NULL;
        }
        if (GDALGetRasterCount(r->ds) < 1) {
            /* a container (GeoPackage, netCDF, HDF) of several rasters: name one */
            const char *sub =
                CSLFetchNameValue(GDALGetMetadata(r->ds, "SUBDATASETS"), "SUBDATASET_1_NAME");
            if (sub)
                gk_error(ctx, GK_ERR_IO,
                         "drift_raster=%s has no band of its own: it holds several rasters; "
                         "give one of them, e.g. %s",
                         paths[k], sub);
            else
                gk_error(ctx, GK_ERR_IO, "drift_raster=%s has no band", paths[k]);
            gk_drift_rasters_close(d);
            return NULL;
        }
        r->band = GDALGetRasterBand(r->ds, 1);
        r->nx = GDALGetRasterXSize(r->ds);
        r->ny = GDALGetRasterYSize(r->ds);
        double gt[6];
        if (GDALGetGeoTransform(r->ds, gt) != CE_None || !GDALInvGeoTransform(gt, r->inv)) {
            gk_error(ctx, GK_ERR_ARG,
                     "drift_raster=%s has no (invertible) geotransform: it cannot be sampled "
                     "at the points",
                     paths[k]);
            gk_drift_rasters_close(d);
            return NULL;
        }
        r->nodata = GDALGetRasterNoDataValue(r->band, &r->has_nodata);
    }
    return d;
}

static inline int is_nodata(const drift_raster *r, double v)
{
    return isnan(v) || (r->has_nodata && v == r->nodata);
}

/* Pixel coordinates (fractional) of (x, y). */
static inline void to_pixel(const drift_raster *r, double x, double y, double *px, double *py)
{
    *px = r->inv[0] + r->inv[1] * x + r->inv[2] * y;
    *py = r->inv[3] + r->inv[4] * x + r->inv[5] * y;
}

/* The pixels a sample at (px, py) reads: [c0, c1] x [r0, r1] and the weights
 * along each axis. Returns 0 when the location is outside the raster. */
static int footprint(const drift_raster *r, int bilinear, double px, double py, int *c0, int *c1,
                     int *r0, int *r1, double *tx, double *ty)
{
    if (!(px >= 0 && py >= 0 && px < r->nx && py < r->ny)) /* NaN too */
        return 0;
    if (!bilinear) {
        *c0 = *c1 = (int)px;
        *r0 = *r1 = (int)py;
        *tx = *ty = 0.0;
        return 1;
    }
    double fx = px - 0.5, fy = py - 0.5;
    int ci = (int)floor(fx), ri = (int)floor(fy);
    *tx = fx - ci;
    *ty = fy - ri;
    *c0 = ci, *c1 = ci + 1, *r0 = ri, *r1 = ri + 1;
    if (*c0 < 0)
        *c0 = 0, *tx = 0.0;
    if (*c1 > r->nx - 1)
        *c1 = r->nx - 1, *tx = 0.0;
    if (*r0 < 0)
        *r0 = 0, *ty = 0.0;
    if (*r1 > r->ny - 1)
        *r1 = r->ny - 1, *ty = 0.0;
    if (*c1 < *c0)
        *c1 = *c0;
    if (*r1 < *r0)
        *r1 = *r0;
    return 1;
}

static double combine(const drift_raster *r, double v00, double v10, double v01, double v11,
                      double tx, double ty)
{
    if (is_nodata(r, v00) || is_nodata(r, v10) || is_nodata(r, v01) || is_nodata(r, v11))
        return NAN;
    return (1 - ty) * ((1 - tx) * v00 + tx * v10) + ty * ((1 - tx) * v01 + tx * v11);
}

/* Samples raster r at n locations into out (NaN where no value). */
static int sample_one(gk_drift_rasters *d, drift_raster *r, size_t n, const double *x,
                      const double *y, double *out)
{
    int wx0 = r->nx, wx1 = -1, wy0 = r->ny, wy1 = -1;
    for (size_t i = 0; i < n; i++) {
        double px, py, tx, ty;
        int c0, c1, r0, r1;
        to_pixel(r, x[i], y[i], &px, &py);
        if (!footprint(r, d->bilinear, px, py, &c0, &c1, &r0, &r1, &tx, &ty))
            continue;
        if (c0 < wx0)
            wx0 = c0;
        if (c1 > wx1)
            wx1 = c1;
        if (r0 < wy0)
            wy0 = r0;
        if (r1 > wy1)
            wy1 = r1;
    }
    if (wx1 < 0) {
        for (size_t i = 0; i < n; i++)
            out[i] = NAN;
        return 0;
    }
    int ww = wx1 - wx0 + 1, wh = wy1 - wy0 + 1;
    double *win = NULL;
    if ((size_t)ww * wh <= MAX_WINDOW)
        win = malloc((size_t)ww * wh * sizeof *win);
    if (win) {
        pthread_mutex_lock(&d->lock);
        CPLErr e = GDALRasterIO(r->band, GF_Read, wx0, wy0, ww, wh, win, ww, wh, GDT_Float64, 0, 0);
        pthread_mutex_unlock(&d->lock);
        if (e != CE_None) {
            free(win);
            return -1;
        }
    }
    for (size_t i = 0; i < n; i++) {
        double px, py, tx, ty, v[4];
        int c0, c1, r0, r1;
        to_pixel(r, x[i], y[i], &px, &py);
        if (!footprint(r, d->bilinear, px, py, &c0, &c1, &r0, &r1, &tx, &ty)) {
            out[i] = NAN;
            continue;
        }
        if (win) {
            v[0] = win[(size_t)(r0 - wy0) * ww + (c0 - wx0)];
            v[1] = win[(size_t)(r0 - wy0) * ww + (c1 - wx0)];
            v[2] = win[(size_t)(r1 - wy0) * ww + (c0 - wx0)];
            v[3] = win[(size_t)(r1 - wy0) * ww + (c1 - wx0)];
        } else { /* a huge footprint: the four pixels one by one */
            const int cc[4] = {c0, c1, c0, c1}, rr[4] = {r0, r0, r1, r1};
            pthread_mutex_lock(&d->lock);
            CPLErr e = CE_None;
            for (int q = 0; q < 4 && e == CE_None; q++)
                e = GDALRasterIO(r->band, GF_Read, cc[q], rr[q], 1, 1, &v[q], 1, 1, GDT_Float64, 0,
                                 0);
            pthread_mutex_unlock(&d->lock);
            if (e != CE_None)
                return -1;
        }
        out[i] = combine(r, v[0], v[1], v[2], v[3], tx, ty);
    }
    free(win);
    return 0;
}

int gk_drift_rasters_sample(void *user, size_t n, const double *x, const double *y, double *out)
{
    gk_drift_rasters *d = user;
    for (int k = 0; k < d->n; k++)
        if (sample_one(d, &d->r[k], n, x, y, out + (size_t)k * n))
            return -1;
    return 0;
}

int gk_drift_rasters_at_points(gk_context *ctx, gk_drift_rasters *d, const gk_points *pts,
                               double *out)
{
    size_t n = gk_points_count(pts);
    const double *x = gk_points_x(pts), *y = gk_points_y(pts);
    for (int k = 0; k < d->n; k++) {
        double *o = out + (size_t)k * n;
        if (sample_one(d, &d->r[k], n, x, y, o))
            return gk_error(ctx, GK_ERR_IO, "drift_raster=%s: read error (%s)", d->r[k].path,
                            CPLGetLastErrorMsg());
        for (size_t i = 0; i < n; i++)
            if (!isfinite(o[i])) {
                double px, py;
                to_pixel(&d->r[k], x[i], y[i], &px, &py);
                int inside = px >= 0 && py >= 0 && px < d->r[k].nx && py < d->r[k].ny;
                return gk_error(ctx, GK_ERR_ARG,
                                "drift_raster=%s has no value at data point %zu (%.15g, %.15g): "
                                "%s",
                                d->r[k].path, i + 1, x[i], y[i],
                                inside ? "the pixel is nodata" : "it is outside the raster");
            }
    }
    return GK_OK;
}
