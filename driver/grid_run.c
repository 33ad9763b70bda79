/*
 * grid_run.c - gk_grid_run(): points in, every band gridded on the tile engine,
 * raster out. The whole of `gridkit grid` below the argument parser.
 */
#include "drift_raster.h"
#include "grid_options.h"
#include "read_points.h"
#include "vmodel_json.h"
#include "triangulate_gdal.h"
#include "write_raster.h"

#include <cpl_conv.h>
#include <cpl_string.h>
#include <gdal.h>
#include <math.h>
#include <ogr_srs_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gk_gdal_init(gk_context *ctx)
{
    /* linear uses the core's own Delaunay (algorithms/delaunay.c); GDAL's
     * qhull triangulator stays available as a peer for the tests. */
    (void)ctx;
    GDALAllRegister();
}

/* --threads, else GDAL_NUM_THREADS (as gdal_grid), else every core. */
static int thread_count(const gk_grid_options *o)
{
    if (o->threads > 0)
        return o->threads;
    const char *s = CPLGetConfigOption("GDAL_NUM_THREADS", NULL);
    if (s && !EQUAL(s, "ALL_CPUS") && atoi(s) > 0)
        return atoi(s);
    return 0;
}

/* gdal_grid's geometry: extent from -txe/-tye, else (gridkit's choice) the
 * bounding box of the points actually used by every band; size from -outsize,
 * else -tr with gdal_grid's rounding, else 256 x 256. */
static int grid_geometry(gk_context *ctx, const gk_grid_options *o, const gk_source_points *sp,
                         gk_grid *g)
{
    double bx0 = INFINITY, by0 = INFINITY, bx1 = -INFINITY, by1 = -INFINITY;
    if (!o->have_txe || !o->have_tye)
        for (int b = 0; b < sp->n_layers; b++) {
            double x0, y0, x1, y1;
            if (gk_points_bounds(sp->layers[b].pts, &x0, &y0, &x1, &y1) == GK_OK) {
                bx0 = fmin(bx0, x0);
                by0 = fmin(by0, y0);
                bx1 = fmax(bx1, x1);
                by1 = fmax(by1, y1);
            }
        }
    gk_error_clear(ctx);
    g->xmin = o->have_txe ? fmin(o->txe[0], o->txe[1]) : bx0;
    g->xmax = o->have_txe ? fmax(o->txe[0], o->txe[1]) : bx1;
    g->ymin = o->have_tye ? fmin(o->tye[0], o->tye[1]) : by0;
    g->ymax = o->have_tye ? fmax(o->tye[0], o->tye[1]) : by1;
    if (!(g->xmax > g->xmin) || !(g->ymax > g->ymin))
        return gk_error(ctx, GK_ERR_ARG,
                        "the points span no area (x %.15g..%.15g, y %.15g..%.15g): give the "
                        "extent with -txe and -tye",
                        g->xmin, g->xmax, g->ymin, g->ymax);
    if (o->have_outsize) {
        g->nx = o->nx;
        g->ny = o->ny;
    } else if (o->have_tr) {
        double nx = floor((g->xmax - g->xmin + o->tr[0] / 2) / o->tr[0]);
        double ny = floor((g->ymax - g->ymin + o->tr[1] / 2) / o->tr[1]);
        if (nx < 1 || ny < 1 || nx > 2147483647.0 || ny > 2147483647.0)
            return gk_error(ctx, GK_ERR_ARG,
                            "-tr %.15g %.15g over this extent gives %.0f x %.0f pixels", o->tr[0],
                            o->tr[1], nx, ny);
        g->nx = (int)nx;
        g->ny = (int)ny;
    } else {
        g->nx = g->ny = 256;
    }
    return gk_grid_check(ctx, g);
}

typedef struct {
    gk_raster_writer *w;
    int band; /* first output band of this job's planes */
} sink_state;

static int sink(void *user, int x0, int y0, int w, int h, int nbands, const double *values)
{
    sink_state *s = user;
    for (int b = 0; b < nbands; b++)
        if (gk_raster_writer_write(s->w, s->band + b, x0, y0, w, h,
                                   values + (size_t)b * w * h))
            return 1;
    return 0;
}

typedef struct {
    gk_progress_fn fn;
    void *user;
    double base, scale;
} scaled_progress;

static int band_progress(double complete, const char *msg, void *user)
{
    scaled_progress *p = user;
    return p->fn(p->base + p->scale * complete, msg, p->user);
}

/* The -a_srs argument (any form OSRSetFromUserInput takes) as WKT. */
static char *srs_to_wkt(gk_context *ctx, const char *def)
{
    OGRSpatialReferenceH srs = OSRNewSpatialReference(NULL);
    char *wkt = NULL;
    if (OSRSetFromUserInput(srs, def) != OGRERR_NONE) {
        gk_error(ctx, GK_ERR_ARG, "-a_srs: cannot understand '%s'", def);
    } else if (OSRExportToWkt(srs, &wkt) != OGRERR_NONE) {
        gk_error(ctx, GK_ERR_ARG, "-a_srs: cannot export '%s' as WKT", def);
        CPLFree(wkt);
        wkt = NULL;
    }
    OSRDestroySpatialReference(srs);
    return wkt;
}

int gk_grid_options_read_points(gk_context *ctx, const gk_grid_options *o, int needs_z,
                                gk_source_points *sp)
{
    gk_read_options ro = {0};
    ro.src = o->src;
    ro.layers = o->layers;
    ro.where = o->where;
    ro.sql = o->sql;
    ro.have_spat = o->have_spat;
    memcpy(ro.spat, o->spat, sizeof ro.spat);
    ro.clipsrc = o->clipsrc;
    ro.clipsrcsql = o->clipsrcsql;
    ro.clipsrclayer = o->clipsrclayer;
    ro.clipsrcwhere = o->clipsrcwhere;
    ro.zfield = o->zfield;
    ro.z_increase = o->z_increase;
    ro.z_multiply = o->z_multiply;
    ro.open_options = o->open_options;
    ro.needs_z = needs_z;
    return gk_read_points(ctx, &ro, sp);
}

int gk_grid_run(gk_context *ctx, const gk_grid_options *o)
{
    if (!o->dst)
        return gk_error(ctx, GK_ERR_ARG, "no destination file given (try --help)");
    gk_context_set_threads(ctx, thread_count(o));
    if (gk_context_set_device(ctx, o->device))
        return gk_errno(ctx);

    gk_algorithm *alg = gk_algorithm_parse(ctx, o->algorithm);
    if (!alg)
        return gk_errno(ctx);
    gk_algorithm_set_precision(alg, o->precision);
    /* kriging: variogram=FILE.json is read here; the bands per layer */
    const gk_kriging_params *kp = gk_algorithm_kriging(alg);
    if (kp && kp->variogram_file[0]) {
        gk_vmodel vm;
        if (gk_vmodel_read_json(ctx, kp->variogram_file, &vm) ||
            gk_kriging_set_model(ctx, alg, &vm)) {
            gk_algorithm_free(alg);
            return gk_errno(ctx);
        }
    }
    int nb = gk_algorithm_bands(alg);
    gk_drift_rasters *drift = NULL;

    char *srs = NULL;
    if (o->a_srs && !(srs = srs_to_wkt(ctx, o->a_srs))) {
        gk_algorithm_free(alg);
        return gk_errno(ctx);
    }

    gk_source_points sp = {0};
    gk_raster_writer *w = NULL;
    char **md = NULL, **desc = NULL;
    int rc = gk_grid_options_read_points(ctx, o, gk_algorithm_needs_z(alg), &sp);
    if (rc)
        goto done;

    gk_grid g;
    if ((rc = grid_geometry(ctx, o, &sp, &g)))
        goto done;

    for (int b = 0; b < sp.n_layers; b++) {
        if (nb == 2) { /* kriging: estimate and variance per layer */
            char *e = CPLStrdup(CPLSPrintf("%s estimate", sp.layers[b].name));
            desc = CSLAddString(desc, e);
            CPLFree(e);
            desc = CSLAddString(desc, CPLSPrintf("%s variance", sp.layers[b].name));
        } else {
            desc = CSLAddString(desc, sp.layers[b].name);
        }
    }
    if (kp && kp->n_drift_rasters) {
        const char *paths[GK_KRIGE_MAX_DRIFT_RASTERS];
        for (int k = 0; k < kp->n_drift_rasters; k++)
            paths[k] = kp->drift_raster[k];
        if (!(drift = gk_drift_rasters_open(ctx, kp->n_drift_rasters, paths,
                                            kp->drift_bilinear))) {
            rc = gk_errno(ctx);
            goto done;
        }
    }
    md = CSLSetNameValue(md, "GRIDKIT_VERSION", GK_VERSION_STRING);
    md = CSLSetNameValue(md, "GRIDKIT_ALGORITHM", gk_algorithm_string(alg));
    if (o->precision == GK_PRECISION_SINGLE)
        md = CSLSetNameValue(md, "GRIDKIT_PRECISION", "single");

    const char *protect[3 + GK_KRIGE_MAX_DRIFT_RASTERS] = {o->src, NULL, NULL};
    int np = 1;
    if (o->clipsrc)
        protect[np++] = o->clipsrc;
    for (int k = 0; kp && k < kp->n_drift_rasters; k++)
        protect[np++] = kp->drift_raster[k];
    gk_raster_spec spec = {0};
    spec.dst = o->dst;
    spec.format = o->format;
    spec.type = o->type;
    spec.creation_options = o->creation_options;
    spec.nx = g.nx;
    spec.ny = g.ny;
    spec.bands = sp.n_layers * nb;
    gk_grid_geotransform(&g, spec.geotransform);
    spec.srs_wkt = srs ? srs : sp.srs_wkt;
    spec.set_nodata = gk_algorithm_nodata_given(alg);
    spec.nodata = gk_algorithm_nodata(alg);
    spec.band_descriptions = (const char *const *)desc;
    spec.metadata = md;
    spec.protect = protect;
    if (!(w = gk_raster_writer_open(ctx, &spec))) {
        rc = gk_errno(ctx) ? gk_errno(ctx) : GK_ERR_IO;
        goto done;
    }
    int tw, th;
    gk_raster_writer_tile_size(w, &tw, &th);

    double gt[6];
    gk_grid_geotransform(&g, gt);
    for (int b = 0; b < sp.n_layers && !rc; b++) {
        gk_layer_points *lp = &sp.layers[b];
        if (!o->quiet) {
            fprintf(stderr, "Band %d: layer \"%s\"\n", b + 1, lp->name);
            fprintf(stderr, "Grid data type is \"%s\"\n", o->type ? o->type : "Float64");
            fprintf(stderr, "Grid size = (%d %d).\n", g.nx, g.ny);
            fprintf(stderr, "Corner coordinates = (%f %f)-(%f %f).\n", g.xmin, g.ymax, g.xmax,
                    g.ymin);
            fprintf(stderr, "Grid cell size = (%f %f).\n", gt[1], -gt[5]);
            fprintf(stderr, "Source point count = %zu.\n", gk_points_count(lp->pts));
            if (lp->n_skipped_z)
                fprintf(stderr, "Skipped %zu points with a null or NaN Z.\n", lp->n_skipped_z);
            if (lp->n_clipped)
                fprintf(stderr, "Skipped %zu points outside -spat/-clipsrc.\n", lp->n_clipped);
            fprintf(stderr, "Algorithm name: \"%s\".\n", gk_algorithm_name(alg));
            fprintf(stderr, "Options are \"%s\"\n", gk_algorithm_string(alg));
        }
        gk_job *job = gk_job_new(ctx, lp->pts, alg);
        if (!job) {
            rc = gk_errno(ctx);
            break;
        }
        if (drift) { /* kriging with external drift: covariates at the points */
            size_t n = gk_points_count(lp->pts);
            double *gv = malloc((size_t)kp->n_drift_rasters * (n ? n : 1) * sizeof *gv);
            rc = !gv ? gk_error(ctx, GK_ERR_NOMEM, "out of memory")
                     : gk_drift_rasters_at_points(ctx, drift, lp->pts, gv);
            if (!rc)
                rc = gk_job_set_drift(job, kp->n_drift_rasters, gv, gk_drift_rasters_sample,
                                      drift);
            free(gv);
            if (rc) {
                gk_job_free(job);
                break;
            }
        }
        if (kp && !o->quiet) {
            char mbuf[768];
            if (gk_vmodel_format(gk_job_kriging_model(job), mbuf, sizeof mbuf) == GK_OK)
                fprintf(stderr, "Variogram model: %s%s\n", mbuf,
                        kp->model_auto ? " (fitted)" : "");
        }
        sink_state ss = {w, b * nb + 1};
        scaled_progress sc = {o->progress, o->progress_user, (double)b / sp.n_layers,
                              1.0 / sp.n_layers};
        rc = gk_job_run(job, &g, tw, th, sink, &ss, o->progress ? band_progress : NULL, &sc);
        if (!o->quiet && !rc)
            fprintf(stderr, "Device: %s\n", gk_context_device_name(ctx));
        gk_run_stats st;
        gk_job_stats(job, &st);
        if (!rc && st.singular_nodes) /* printed even with -q: these nodes lost their value */
            fprintf(stderr,
                    "Warning: %llu nodes had a singular kriging system (coincident points, "
                    "or a drift that cannot be estimated) and got nodata.\n",
                    (unsigned long long)st.singular_nodes);
        gk_job_free(job);
    }
    if (!rc) {
        rc = gk_raster_writer_commit(w);
        w = NULL;
        if (rc && !gk_errno(ctx))
            rc = gk_error(ctx, GK_ERR_IO, "could not finish %s", o->dst);
    }

done:
    gk_raster_writer_abort(w);
    gk_source_points_free(&sp);
    gk_drift_rasters_close(drift);
    CSLDestroy(md);
    CSLDestroy(desc);
    CPLFree(srs);
    gk_algorithm_free(alg);
    return rc;
}
