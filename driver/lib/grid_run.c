/* SPDX-License-Identifier: MIT */
/*
 * grid_run.c - gk_grid_run(): points in, every band gridded on the tile engine,
 * raster out. The whole of `gridkit grid` below the argument parser.
 */
#include "io/drift_raster.h"
#include "lib/grid_plan.h"
#include "lib/grid_strips.h"
#include "io/read_points.h"
#include "io/vmodel_json.h"
#include "io/triangulate_gdal.h"
#include "io/write_raster.h"

#include <cpl_conv.h>
#include <cpl_string.h>
#include <gdal.h>
#include <math.h>
#include <pthread.h>
#include <ogr_srs_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gk_gdal_init(gk_context *ctx)
{
    /* linear uses the core's own Delaunay (algorithms/linear/delaunay.c); GDAL's
     * qhull triangulator stays available as a peer for the tests. */
    (void)ctx;
    GDALAllRegister();
}

/* GDAL's block cache for the output. Tiles reach the writer a row of tiles
 * at a time and finished blocks are never read again, so GDAL's default
 * (5% of RAM) would only fill up with them; too small a cache is worse: it
 * writes out blocks still half empty and reads them back for the next tile
 * (1024-row GPU tiles in a 16 MB cache: 2-3x slower). Unless the user chose
 * a size, the cache holds three rows of the tallest tiles seen so far (at
 * least 16 MB, at most GDAL's default); memory then stays flat whatever the
 * grid size. */
typedef struct {
    int automatic;        /* GDAL_CACHEMAX not set by the user */
    GIntBig gdal_default; /* GDAL's own choice */
    GIntBig row_bytes;    /* one row of pixels of one band */
    int tile_h;           /* tallest tile the cache is sized for */
} cache_plan;

static void cache_fit(cache_plan *c, int tile_h, int planes)
{
    if (!c->automatic || tile_h <= c->tile_h)
        return;
    c->tile_h = tile_h;
    GIntBig want = 3 * c->row_bytes * tile_h * planes;
    if (want < ((GIntBig)16 << 20))
        want = (GIntBig)16 << 20;
    GDALSetCacheMax64(want < c->gdal_default ? want : c->gdal_default);
}

typedef struct {
    gk_raster_writer *w;
    int band; /* first output band of this job's planes */
    cache_plan *cache;
    pthread_mutex_t cache_lock;
} sink_state;

/* Called by the computing threads at once (GK_SINK_CONCURRENT): the writer
 * converts their tiles in parallel and takes the file in turn. */
static void sink_fit(sink_state *s, int h, int nbands)
{
    pthread_mutex_lock(&s->cache_lock);
    cache_fit(s->cache, h, nbands); /* the engine may take larger tiles (GPU) */
    pthread_mutex_unlock(&s->cache_lock);
}

static int sink(void *user, int x0, int y0, int w, int h, int nbands, const double *values)
{
    sink_state *s = user;
    sink_fit(s, h, nbands);
    int rc = 0;
    for (int b = 0; b < nbands && !rc; b++)
        rc = gk_raster_writer_write(s->w, s->band + b, x0, y0, w, h, values + (size_t)b * w * h) !=
             GK_OK;
    return rc;
}

/* sink for Float32 tiles (gk_raster_writer_takes_float32) */
static int sink_float32(void *user, int x0, int y0, int w, int h, int nbands, const void *values)
{
    sink_state *s = user;
    sink_fit(s, h, nbands);
    int rc = 0;
    for (int b = 0; b < nbands && !rc; b++)
        rc = gk_raster_writer_write_wire(s->w, s->band + b, x0, y0, w, h,
                                         (const float *)values + (size_t)b * w * h) != GK_OK;
    return rc;
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

void gk_grid_raster_spec(const gk_grid_plan *plan, gk_raster_spec *spec, const gk_inputs *inputs)
{
    memset(spec, 0, sizeof *spec);
    spec->dst = plan->dst;
    spec->format = plan->format;
    spec->type = plan->type;
    spec->creation_options = plan->creation_options;
    spec->nx = plan->g.nx;
    spec->ny = plan->g.ny;
    spec->bands = plan->bands;
    gk_grid_geotransform(&plan->g, spec->geotransform);
    spec->srs_wkt = gk_grid_plan_srs(plan);
    spec->set_nodata = plan->set_nodata;
    spec->nodata = plan->nodata;
    spec->band_descriptions = (const char *const *)plan->desc;
    spec->metadata = plan->md;
    spec->inputs = inputs;
}

int gk_grid_note_lowered(gk_raster_writer *w, int band, uint64_t n)
{
    char v[32];
    snprintf(v, sizeof v, "%llu", (unsigned long long)n);
    return gk_raster_writer_set_band_metadata(w, band, GK_LOWERED_KEY, v);
}

void gk_grid_say_lowered(const gk_algorithm *alg, uint64_t n, uint64_t nodes, int band)
{
    fprintf(stderr,
            "Note: %llu of %llu nodes of band %d were computed in a simpler form than %s asks "
            "(%s); the band's metadata item " GK_LOWERED_KEY " counts them.\n",
            (unsigned long long)n, (unsigned long long)nodes, band, gk_algorithm_name(alg),
            gk_algorithm_lowered_form(alg));
}

void gk_grid_print_band(const gk_grid_plan *plan, int b)
{
    const gk_grid g = plan->g;
    const gk_layer_points *lp = &plan->sp.layers[b];
    const gk_algorithm *alg = plan->alg;
    double gt[6];
    gk_grid_geotransform(&g, gt);
    fprintf(stderr, "Band %d: layer \"%s\"\n", b + 1, lp->name);
    fprintf(stderr, "Grid data type is \"%s\"\n", plan->type ? plan->type : "Float64");
    fprintf(stderr, "Grid size = (%d %d).\n", g.nx, g.ny);
    fprintf(stderr, "Corner coordinates = (%f %f)-(%f %f).\n", g.xmin, g.ymax, g.xmax, g.ymin);
    fprintf(stderr, "Grid cell size = (%f %f).\n", gt[1], -gt[5]);
    fprintf(stderr, "Source point count = %zu.\n", gk_points_count(lp->pts));
    if (lp->n_skipped_z)
        fprintf(stderr,
                "Skipped %zu points with a null, NaN or infinite Z, or a NaN or "
                "infinite X/Y.\n",
                lp->n_skipped_z);
    if (lp->n_clipped)
        fprintf(stderr, "Skipped %zu points outside -spat/-clipsrc.\n", lp->n_clipped);
    fprintf(stderr, "Algorithm name: \"%s\".\n", gk_algorithm_name(alg));
    fprintf(stderr, "Options are \"%s\"\n", gk_algorithm_string(alg));
}

int gk_grid_run(gk_context *ctx, const gk_grid_options *o)
{
    if (!o->dst)
        return gk_error(ctx, GK_ERR_ARG, "no destination file given (try --help)");
    const gk_world *world = gk_world_get();
    if (world || o->parts)
        return gk_grid_run_strips(ctx, o, world);
    /* --timings: seconds per phase */
    double t_start = gk_seconds(), t_open = 0, t_prepare = 0, t_grid = 0, t_write = 0, t_finish = 0;
    gk_grid_plan plan;
    if (gk_grid_plan_init_ex(ctx, o, NULL, 1, &plan))
        return gk_errno(ctx);
    double t_plan = gk_seconds() - t_start;
    const gk_grid g = plan.g;
    const gk_source_points sp = plan.sp;
    const gk_algorithm *alg = plan.alg;
    const gk_kriging_params *kp = gk_algorithm_kriging(alg);
    const int nb = plan.planes;
    gk_raster_writer *w = NULL;
    gk_inputs *inputs = NULL;
    int rc = GK_OK;

    /* every input: the output may be none of them (io/input_files.h) */
    inputs = gk_grid_inputs(ctx, o, kp);
    if (!inputs) {
        rc = gk_errno(ctx);
        goto done;
    }
    gk_raster_spec spec;
    gk_grid_raster_spec(&plan, &spec, inputs);
    double t0 = gk_seconds();
    w = gk_raster_writer_open(ctx, &spec);
    t_open = gk_seconds() - t0;
    if (!w) {
        rc = gk_errno(ctx) ? gk_errno(ctx) : GK_ERR_IO;
        goto done;
    }
    int tw, th;
    gk_raster_writer_tile_size(w, &tw, &th);
    GDALDataType dt = plan.type ? GDALGetDataTypeByName(plan.type) : GDT_Float64;
    cache_plan cache = {!CPLGetConfigOption("GDAL_CACHEMAX", NULL), GDALGetCacheMax64(),
                        (GIntBig)g.nx * GDALGetDataTypeSizeBytes(dt), 0};
    cache_fit(&cache, th, nb);

    double gt[6];
    gk_grid_geotransform(&g, gt);
    for (int b = 0; b < sp.n_layers && !rc; b++) {
        const gk_layer_points *lp = &sp.layers[b];
        if (!o->quiet)
            gk_grid_print_band(&plan, b);
        t0 = gk_seconds();
        gk_job *job = gk_grid_plan_job(ctx, &plan, b);
        t_prepare += gk_seconds() - t0;
        if (!job) {
            rc = gk_errno(ctx) ? gk_errno(ctx) : GK_ERR_INTERNAL;
            gk_error(ctx, rc, "%s, layer \"%s\": %s", o->src, lp->name, gk_errmsg(ctx));
            break;
        }
        if (strcmp(gk_job_algorithm_string(job), gk_algorithm_string(alg))) {
            /* what the data decided (Scott's bandwidth, gauss's cut-off and
             * bound): said on stderr, and kept with the band */
            if (!o->quiet)
                fprintf(stderr, "Prepared: \"%s\"\n", gk_job_algorithm_string(job));
            for (int k = 0; k < nb && !rc; k++)
                rc = gk_raster_writer_set_band_metadata(w, b * nb + 1 + k, "GRIDKIT_PREPARED",
                                                        gk_job_algorithm_string(job));
            if (rc) {
                gk_job_free(job);
                break;
            }
        }
        if (gk_job_warning(job)) /* even with -q, as the kriging one: the method changed */
            fprintf(stderr, "Warning: band %d (%s): %s\n", b * nb + 1, lp->name,
                    gk_job_warning(job));
        /* a warning the run itself may leave (surface's, made with the grid) */
        char warned[512];
        snprintf(warned, sizeof warned, "%s", gk_job_warning(job) ? gk_job_warning(job) : "");
        if (kp && !o->quiet) {
            char mbuf[768];
            if (gk_vmodel_format(gk_job_kriging_model(job), mbuf, sizeof mbuf) == GK_OK)
                fprintf(stderr, "Variogram model: %s%s\n", mbuf, kp->model_auto ? " (fitted)" : "");
        }
        sink_state ss = {w, b * nb + 1, &cache, PTHREAD_MUTEX_INITIALIZER};
        scaled_progress sc = {o->progress, o->progress_user, (double)b / sp.n_layers,
                              1.0 / sp.n_layers};
        t0 = gk_seconds();
        /* Float32 files get Float32 tiles: a GPU converts its own and
         * copies half the bytes back */
        if (gk_raster_writer_takes_float32(w))
            rc = gk_job_run_typed(job, &g, 0, g.ny, tw, th, GK_SINK_CONCURRENT, GK_VALUES_FLOAT32,
                                  sink_float32, &ss, o->progress ? band_progress : NULL, &sc);
        else
            rc = gk_job_run_ex(job, &g, tw, th, GK_SINK_CONCURRENT, sink, &ss,
                               o->progress ? band_progress : NULL, &sc);
        t_grid += gk_seconds() - t0;
        if (!o->quiet && !rc)
            fprintf(stderr, "Device: %s\n", gk_context_device_name(ctx));
        if (!rc && gk_job_warning(job) && strcmp(warned, gk_job_warning(job)))
            fprintf(stderr, "Warning: band %d (%s): %s\n", b * nb + 1, lp->name,
                    gk_job_warning(job));
        gk_run_stats st;
        gk_job_stats(job, &st);
        if (!rc && st.singular_nodes) { /* printed even with -q: these nodes lost their value */
            /* the nodata they got must be tagged, or it reads as a value */
            for (int k = 1; k <= nb && !plan.set_nodata && !rc; k++)
                rc = gk_raster_writer_set_nodata(w, b * nb + k, plan.nodata);
            fprintf(stderr,
                    "Warning: %llu of %llu nodes of band %d had %s and got nodata "
                    "%.17g (tagged on the band; set another with nodata=).\n",
                    (unsigned long long)st.singular_nodes,
                    (unsigned long long)g.nx * (unsigned long long)g.ny, b * nb + 1,
                    gk_algorithm_singular_form(plan.alg), plan.nodata);
        }
        if (!rc && st.lowered_nodes) {
            for (int k = 1; k <= nb && !rc; k++)
                rc = gk_grid_note_lowered(w, b * nb + k, st.lowered_nodes);
            if (!o->quiet)
                gk_grid_say_lowered(plan.alg, st.lowered_nodes, (uint64_t)g.nx * (uint64_t)g.ny,
                                    b * nb + 1);
        }
        gk_job_free(job);
    }
    t_write = gk_raster_writer_io_seconds(w);
    if (!rc) {
        t0 = gk_seconds();
        rc = gk_raster_writer_commit(w);
        t_finish = gk_seconds() - t0;
        w = NULL;
        if (rc && !gk_errno(ctx))
            rc = gk_error(ctx, GK_ERR_IO, "could not finish %s", plan.dst);
    }
    if (o->timings && !rc) {
        fprintf(stderr,
                "Timings (s): read points %.3f, waiting for the GPU %.3f, other set-up %.3f, "
                "create output %.3f, prepare %.3f, grid %.3f (writing tiles %.3f of it), "
                "finish output %.3f; total %.3f\n",
                plan.read_s, plan.gpu_wait_s, t_plan - plan.read_s - plan.gpu_wait_s, t_open,
                t_prepare, t_grid, t_write, t_finish, gk_seconds() - t_start);
    }

done:
    gk_raster_writer_abort(w);
    gk_inputs_free(inputs);
    gk_grid_plan_free(&plan);
    return rc;
}
