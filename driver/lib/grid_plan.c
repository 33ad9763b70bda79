/* SPDX-License-Identifier: MIT */
/*
 * grid_plan.c - gk_grid_plan: the part of `gridkit grid` between the argument
 * parser and the tile engine, shared by the CLI and the GDAL plugin.
 */
#include "lib/grid_plan.h"

#include "io/drift_raster.h"
#include "io/vmodel_json.h"

#include <cpl_conv.h>
#include <cpl_string.h>
#include <math.h>
#include <omp.h>
#include <ogr_srs_api.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double gk_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* What --device auto weighs: the number and extent of the points before
 * they are read (most formats keep them) and the nodes of the grid. */
typedef struct {
    double n, area, nodes;
} auto_inputs;

static void auto_look(const gk_grid_options *o, auto_inputs *in)
{
    double n = 0, bb[4] = {0, 0, 0, 0};
    if (gk_grid_options_peek_points(o, &n, bb))
        n = 0; /* unknown: no estimate, the GPU as before */
    double w = o->have_txe ? fabs(o->txe[1] - o->txe[0]) : bb[2] - bb[0];
    double h = o->have_tye ? fabs(o->tye[1] - o->tye[0]) : bb[3] - bb[1];
    double nodes = 256.0 * 256.0;
    if (o->have_outsize)
        nodes = (double)o->nx * o->ny;
    else if (o->have_tr)
        nodes = floor((w + o->tr[0] / 2) / o->tr[0]) * floor((h + o->tr[1] / 2) / o->tr[1]);
    in->n = n;
    in->area = (bb[2] - bb[0]) * (bb[3] - bb[1]);
    in->nodes = nodes;
}

/* The GPU's start-up (CUDA module, device context: a few hundred ms) on a
 * thread of its own while the points are read. With --device auto the main
 * thread first looks at the source (auto_look: opening it, 0.01 s) and the
 * thread starts the GPU only where the CPU cores would not finish before
 * CUDA could start (gk_context_auto_device). The thread never calls GDAL:
 * two threads opening datasets at once can race in a library's lazy global
 * set-up (libxml2's, under an OGR VRT: a deadlock). */
typedef struct {
    pthread_t th;
    int started;
    atomic_int finished; /* the thread's work is done (a join will not wait) */
    const char *device;
    int decide;              /* auto: start the GPU or not, by `in` */
    const gk_algorithm *alg; /* not changed while the thread runs */
    int threads;
    auto_inputs in; /* what the look found (before the start) */
    int use_gpu;
} gpu_warm_up;

static void *warm_up_main(void *arg)
{
    gpu_warm_up *w = arg;
    w->use_gpu = 1;
    if (w->decide) {
        gk_context *tmp = gk_context_new(); /* the caller's is in use */
        if (tmp) {
            gk_context_set_threads(tmp, w->threads);
            w->use_gpu = gk_context_auto_device(tmp, w->alg, w->in.n, w->in.area, w->in.nodes);
            gk_context_free(tmp);
        }
    }
    if (w->use_gpu)
        gk_device_warm_up(w->device);
    atomic_store(&w->finished, 1);
    return NULL;
}

static void warm_up_start(gpu_warm_up *w)
{
    w->started = 0;
    atomic_store(&w->finished, 0);
    if (w->device && !strcmp(w->device, "cpu"))
        return;
    w->started = pthread_create(&w->th, NULL, warm_up_main, w) == 0;
}

/* A late start (gk_context_set_gpu_late) where the cost model puts the
 * cores' time under this: twice the GPU's start. Beyond it the GPU does the
 * grid in a fraction of its start (1 M points to 4096^2: 0.05-0.1 s after
 * 0.2 s of start, H200), the cores' share meanwhile saved it under 0.01 s,
 * and their preparation beside the start cost more (kriging: 0.03-0.1 s
 * slower than waiting; docs/benchmarks.md). */
#define LATE_MAX_S 0.6

/* Seconds spent waiting for it. */
static double warm_up_join(gpu_warm_up *w)
{
    if (!w->started)
        return 0;
    double t0 = gk_seconds();
    pthread_join(w->th, NULL);
    w->started = 0;
    return gk_seconds() - t0;
}

/* May the run start the GPU: asked for by name, or auto (*want_auto) for
 * an algorithm with a GPU kernel? An algorithm that never runs on a GPU
 * starts nothing; it says so when it runs ("cpu (kriging: block ...)"). */
static int gpu_may_start(const gk_grid_options *o, const gk_algorithm *alg, int *want_auto)
{
    const char *dev = o->device && *o->device ? o->device : getenv("GRIDKIT_DEVICE");
    const int want_cuda = dev && !strncmp(dev, "cuda", 4);
    *want_auto = !dev || !*dev || !strcmp(dev, "auto");
    return want_cuda || (*want_auto && gk_algorithm_may_use_gpu(alg));
}

/* w for alg, its thread started (w->started says whether it was); alg is
 * read until the join. */
static void warm_up_begin(gpu_warm_up *w, gk_context *ctx, const gk_grid_options *o,
                          const gk_algorithm *alg, int want_auto)
{
    w->device = o->device;
    w->decide = want_auto;
    w->alg = alg;
    /* resolved here, so that the thread makes no OpenMP call: under clang's
     * libomp a thread that made one and ended is a root that a parallel
     * region begun later on another thread of ours trips on (TSan build,
     * ctest cli_threads_parts: a crash in __kmpc_end_critical) */
    w->threads = gk_context_threads(ctx) > 0 ? gk_context_threads(ctx) : omp_get_num_procs();
    if (want_auto)
        auto_look(o, &w->in);
    warm_up_start(w);
}

/* a late start's warm-up outlives plan_make (gk_grid_plan.starting) */
struct gk_gpu_warm {
    gpu_warm_up w;
};

/* gdal_grid's geometry: extent from -txe/-tye, else (gridkit's choice) the
 * bounding box of the points actually used by every band; size from -outsize,
 * else -tr with gdal_grid's rounding, else 256 x 256. -tr without an extent
 * (heatmap): QGIS's Heatmap's grid, the box widened by the margin,
 * ceil(side / pixel) + 1 pixels of exactly that size from its top-left corner. */
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
    double margin = gk_algorithm_pixel_margin(o->alg);
    const int qgis = o->have_tr && !o->have_txe && !o->have_tye && isfinite(margin) &&
                     isfinite(g->xmin) && isfinite(g->ymax);
    if (!qgis && (!(g->xmax > g->xmin) || !(g->ymax > g->ymin)))
        return gk_error(ctx, GK_ERR_ARG,
                        "the points span no area (x %.15g..%.15g, y %.15g..%.15g): give the "
                        "extent with -txe and -tye",
                        g->xmin, g->xmax, g->ymin, g->ymax);
    if (qgis) {
        double w = g->xmax - g->xmin + 2 * margin, h = g->ymax - g->ymin + 2 * margin;
        double nx = fmax(ceil(w / o->tr[0]) + 1, 1.0), ny = fmax(ceil(h / o->tr[1]) + 1, 1.0);
        if (!(nx <= 2147483647.0 && ny <= 2147483647.0))
            return gk_error(ctx, GK_ERR_ARG,
                            "-tr %.15g %.15g over the points' extent widened by %.15g gives %.15g x "
                            "%.15g pixels: each side must be from 1 to 2147483647",
                            o->tr[0], o->tr[1], margin, nx, ny);
        g->xmin -= margin;
        g->ymax += margin;
        g->nx = (int)nx;
        g->ny = (int)ny;
        g->xmax = g->xmin + g->nx * o->tr[0];
        g->ymin = g->ymax - g->ny * o->tr[1];
    } else if (o->have_outsize) {
        g->nx = o->nx;
        g->ny = o->ny;
    } else if (o->have_tr) {
        double nx = floor((g->xmax - g->xmin + o->tr[0] / 2) / o->tr[0]);
        double ny = floor((g->ymax - g->ymin + o->tr[1] / 2) / o->tr[1]);
        if (nx < 1 || ny < 1 || nx > 2147483647.0 || ny > 2147483647.0)
            return gk_error(
                ctx, GK_ERR_ARG,
                "-tr %.15g %.15g over x %.15g..%.15g, y %.15g..%.15g gives %.15g x %.15g "
                "pixels: each side must be from 1 to 2147483647",
                o->tr[0], o->tr[1], g->xmin, g->xmax, g->ymin, g->ymax, nx, ny);
        g->nx = (int)nx;
        g->ny = (int)ny;
    } else {
        g->nx = g->ny = 256;
    }
    return gk_grid_check(ctx, g);
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

void gk_grid_plan_free(gk_grid_plan *p)
{
    if (!p)
        return;
    if (p->starting) { /* a late start's warm-up: ended by now, or soon */
        warm_up_join(&p->starting->w);
        free(p->starting);
    }
    gk_source_points_free(&p->sp);
    gk_drift_rasters_close(p->drift);
    CSLDestroy(p->md);
    CSLDestroy(p->desc);
    CPLFree(p->a_srs_wkt);
    gk_algorithm_free(p->alg);
    memset(p, 0, sizeof *p);
}

const char *gk_grid_plan_srs(const gk_grid_plan *p)
{
    return p->a_srs_wkt ? p->a_srs_wkt : p->sp.srs_wkt;
}

int gk_grid_plan_init(gk_context *ctx, const gk_grid_options *o, gk_grid_plan *p)
{
    return gk_grid_plan_init_ex(ctx, o, NULL, 0, p);
}

static int plan_make(gk_context *ctx, const gk_grid_options *o, const gk_world *world, int late,
                     gk_grid_plan *p, int *read_tried);

int gk_grid_plan_init_ex(gk_context *ctx, const gk_grid_options *o, const gk_world *world, int late,
                         gk_grid_plan *p)
{
    memset(p, 0, sizeof *p);
    int read_tried = 0;
    int rc = plan_make(ctx, o, world, late, p, &read_tried);
    /* a rank that failed before reading still takes part in the read's
     * first agreement (mpi/world_points.c), where the others wait */
    if (rc && world && !read_tried)
        gk_world_agree(world, ctx, rc);
    return rc;
}

static int plan_make(gk_context *ctx, const gk_grid_options *o, const gk_world *world, int late,
                     gk_grid_plan *p, int *read_tried)
{
    gk_context_set_gpu_late(ctx, 0);
    if (gk_grid_options_apply_threads(ctx, o))
        return gk_errno(ctx);
    /* A GPU asked for by name is checked (started) by set_device: that waits
     * until the points are read, while the warm-up thread starts it. */
    /* on the heap: a late start's thread outlives this call (p->starting) */
    struct gk_gpu_warm *hw = calloc(1, sizeof *hw);
    if (!hw)
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory");
    gpu_warm_up *warm = &hw->w;
    int rc = GK_OK;
    if (!(p->alg = o->alg ? gk_algorithm_clone(o->alg) : gk_algorithm_parse(ctx, o->algorithm))) {
        if (o->alg)
            gk_error(ctx, GK_ERR_NOMEM, "out of memory");
        goto fail;
    }
    gk_context_auto_device(ctx, p->alg, 0, 0, 0); /* no earlier run's choice */
    gk_algorithm_set_precision(p->alg, o->precision);
    /* kriging: variogram=FILE.json is read here */
    const gk_kriging_params *kp = gk_algorithm_kriging(p->alg);
    if (kp && kp->variogram_file[0]) {
        gk_vmodel vm;
        if (gk_vmodel_read_json(ctx, kp->variogram_file, &vm) ||
            gk_kriging_set_model(ctx, p->alg, &vm))
            goto fail;
    }
    int want_auto;
    if (!gpu_may_start(o, p->alg, &want_auto)) {
        if (gk_context_request_device(ctx, o->device))
            goto fail;
    } else {
        warm_up_begin(warm, ctx, o, p->alg, want_auto);
        if (!warm->started && want_auto) { /* no thread: start nothing */
            if (!gk_context_auto_device(ctx, p->alg, warm->in.n, warm->in.area, warm->in.nodes)) {
                if (gk_context_request_device(ctx, o->device))
                    goto fail;
            } else if (gk_context_set_device(ctx, o->device)) {
                goto fail;
            }
        } else if (!warm->started && gk_context_set_device(ctx, o->device)) {
            goto fail;
        }
    }
    p->planes = gk_algorithm_bands(p->alg);
    if (o->a_srs && !(p->a_srs_wkt = srs_to_wkt(ctx, o->a_srs)))
        goto fail;
    double t0 = gk_seconds();
    *read_tried = 1;
    int read_rc = gk_world_read_points(world, ctx, o, gk_algorithm_needs_z(p->alg), &p->sp);
    p->read_s = gk_seconds() - t0;
    if (warm->started && late && warm->decide && !atomic_load(&warm->finished) && !read_rc &&
        gk_context_auto_device(ctx, p->alg, warm->in.n, warm->in.area, warm->in.nodes) &&
        gk_algorithm_cpu_seconds(p->alg, warm->in.n, warm->in.area, warm->in.nodes, warm->threads) <
            LATE_MAX_S) {
        /* auto, the GPU still starting, and a job the cores might finish
         * or take a real share of meanwhile: they begin and the GPU joins
         * them; its thread is joined when the plan is freed */
        p->starting = hw;
        hw = NULL;
        gk_context_set_gpu_late(ctx, 1);
        if (gk_context_request_device(ctx, o->device))
            goto fail;
    }
    if (hw && warm->started) {
        p->gpu_wait_s = warm_up_join(warm);
        /* auto: the thread's choice, made again on ctx (same inputs, same
         * answer) so that ctx says why the CPU ran */
        int use_gpu = !warm->decide || gk_context_auto_device(ctx, p->alg, warm->in.n,
                                                              warm->in.area, warm->in.nodes);
        if (use_gpu ? gk_context_set_device(ctx, o->device)
                    : gk_context_request_device(ctx, o->device))
            goto fail;
    }
    if (read_rc)
        goto fail;
    /* heatmap: z is a weight, 1 for every point without -zfield */
    if (!o->zfield && gk_algorithm_z_is_weight(p->alg))
        for (int b = 0; b < p->sp.n_layers; b++)
            gk_points_fill_z(p->sp.layers[b].pts, 1.0);
    if (grid_geometry(ctx, o, &p->sp, &p->g))
        goto fail;
    p->bands = p->sp.n_layers * p->planes;

    for (int b = 0; b < p->sp.n_layers; b++) /* kriging: "<layer> estimate", "<layer> variance" */
        for (int k = 0; k < p->planes; k++) {
            const char *name = gk_algorithm_band_name(p->alg, k);
            p->desc = CSLAddString(p->desc, name ? CPLSPrintf("%s %s", p->sp.layers[b].name, name)
                                                 : p->sp.layers[b].name);
        }
    if (kp && kp->n_drift_rasters && !(p->drift = gk_drift_rasters_open_kriging(ctx, kp)))
        goto fail;
    p->md = CSLSetNameValue(p->md, "GRIDKIT_VERSION", GK_VERSION_STRING);
    p->md = CSLSetNameValue(p->md, "GRIDKIT_ALGORITHM", gk_algorithm_string(p->alg));
    if (o->precision == GK_PRECISION_SINGLE)
        p->md = CSLSetNameValue(p->md, "GRIDKIT_PRECISION", "single");
    p->set_nodata = gk_algorithm_nodata_given(p->alg);
    p->nodata = gk_algorithm_nodata(p->alg);
    p->dst = o->dst;
    p->format = o->format;
    p->type = o->type;
    p->creation_options = o->creation_options;
    free(hw);
    return GK_OK;

fail:
    if (warm->started) {
        /* an unusable GPU is the error reported, over what failed meanwhile */
        warm_up_join(warm);
        if (warm->use_gpu)
            gk_context_set_device(ctx, o->device);
    }
    free(hw);
    rc = gk_errno(ctx) ? gk_errno(ctx) : GK_ERR_INTERNAL;
    gk_grid_plan_free(p);
    return rc;
}

gk_job *gk_grid_plan_job(gk_context *ctx, const gk_grid_plan *p, int layer)
{
    if (layer < 0 || layer >= p->sp.n_layers) {
        gk_error(ctx, GK_ERR_ARG, "no input layer %d", layer + 1);
        return NULL;
    }
    const gk_points *pts = p->sp.layers[layer].pts;
    gk_job *job = gk_job_new(ctx, pts, p->alg);
    if (!job || !p->drift)
        return job;
    /* kriging with external drift: the covariates at the points */
    const gk_kriging_params *kp = gk_algorithm_kriging(p->alg);
    size_t n = gk_points_count(pts);
    double *gv = malloc((size_t)kp->n_drift_rasters * (n ? n : 1) * sizeof *gv);
    int rc = !gv ? gk_error(ctx, GK_ERR_NOMEM, "out of memory")
                 : gk_drift_rasters_at_points(ctx, p->drift, pts, gv);
    if (!rc)
        rc = gk_job_set_drift(job, kp->n_drift_rasters, gv, gk_drift_rasters_sample, p->drift);
    free(gv);
    if (rc) {
        gk_job_free(job);
        return NULL;
    }
    return job;
}
