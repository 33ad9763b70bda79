/* SPDX-License-Identifier: MIT */
/*
 * engine.c - jobs and the tile engine.
 *
 * A job is the points, their spatial index and the algorithm, prepared once.
 * The engine cuts the grid into tiles, computes them on OpenMP threads and
 * hands each finished tile to a sink at once, so memory is the points, the
 * index and one tile per thread, whatever the grid size. A tile is the unit a
 * GPU backend will take later: a window in, a buffer of doubles out.
 */
#include "cpu_share.h"
#include "to_float32.h"
#include "device.h"
#include "method.h"
#include "gk_internal.h"
#include "quadtree_order.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

gk_tile_fn gk_cpu_tile_fn(gk_alg_kind kind)
{
    const gk_method *m = gk_method_of(kind);
    return m ? m->cpu_tile : NULL;
}

static gk_job *job_new(gk_context *ctx, const gk_points *pts, const gk_algorithm *alg,
                       int cpu_only);

gk_job *gk_job_new(gk_context *ctx, const gk_points *pts, const gk_algorithm *alg)
{
    return job_new(ctx, pts, alg, 0);
}

gk_job *gk_job_new_cpu(gk_context *ctx, const gk_points *pts, const gk_algorithm *alg)
{
    return job_new(ctx, pts, alg, 1);
}

static gk_job *job_new(gk_context *ctx, const gk_points *pts, const gk_algorithm *alg, int cpu_only)
{
    size_t n = pts ? pts->n : 0;
    if (n == 0) {
        gk_error(ctx, GK_ERR_NO_POINTS, "no points to grid");
        return NULL;
    }
    if (n > (size_t)0x7fffffff) {
        gk_error(ctx, GK_ERR_NOMEM, "%zu points: at most 2^31-1 points per band", n);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (!isfinite(pts->x[i]) || !isfinite(pts->y[i])) {
            gk_error(ctx, GK_ERR_ARG, "point %zu has a non-finite coordinate (%.15g, %.15g)", i + 1,
                     pts->x[i], pts->y[i]);
            return NULL;
        }
    gk_job *job = calloc(1, sizeof *job);
    if (!job) {
        gk_error(ctx, GK_ERR_NOMEM, "out of memory");
        return NULL;
    }
    job->ctx = ctx;
    job->pts = pts;
    job->alg = *alg;
    job->nbands = 1;
    gk_ellipse_init(&job->ell, alg->radius1, alg->radius2, alg->angle);

    /* The method's row (core/method.h): what the GPU takes too (linear's
     * triangulation), then the device, then the CPU's index and the
     * method's state. The GPU keeps its own copy of the points and its own
     * index. */
    const gk_method *m = gk_method_of(alg->kind);
    job->ties = m && m->quadtree_ties && m->quadtree_ties(alg, n);
    if (!m) {
        gk_error(ctx, GK_ERR_ARG, "unknown algorithm kind %d", (int)alg->kind);
        free(job);
        return NULL;
    }
    job->method = m;
    job->lazy_ties = job->ties && m->lazy_ties && m->lazy_ties(alg);
    /* a GPU orders its own copy of the points (gk_gpu_job_desc's
     * quadtree_order); the CPU's share of a GPU run orders the job's then
     * (gk_device_cpu_index) */
    if ((m->build && m->build(job)) || (!cpu_only && gk_device_job_attach(job)) ||
        (!job->gpu && gk_job_prepare_ties(job)) || (m->prepare && m->prepare(job)) ||
        (!cpu_only && gk_device_late_start(job))) {
        gk_job_free(job);
        return NULL;
    }
    job->cpu_prepared = !job->gpu; /* its CPU index is built (a late GPU joins it) */
    return job;
}

int gk_job_bands(const gk_job *job) { return job->nbands; }

void gk_job_free(gk_job *job)
{
    if (!job)
        return;
    const gk_method *m = job->method;
    gk_device_job_free(job);
    if (m && m->release)
        m->release(job);
    if (job->tree_free)
        job->tree_free(job->tree);
    gk_points_free(job->own_pts);
    free(job->order);
    free(job->order_lev);
    if (job->lazy_free)
        job->lazy_free(job);
    free(job);
}

/* One tile, on the job's device, into out in type vt (the CPU's doubles
 * converted here; a GPU converts its own). */
static uint64_t compute_tile(gk_job *job, const gk_tile *t, double *out, gk_scratch *s,
                             gk_value_type vt)
{
    const int want_float = vt == GK_VALUES_FLOAT32;
    int is_float = 0;
    uint64_t nodata = job->gpu ? gk_device_tile(job, t, out, want_float, &is_float)
                               : job->method->cpu_tile(job, t, out, s);
    if (want_float && !is_float && nodata < GK_DEVICE_FAILED)
        gk_to_float32_in_place(out, (size_t)t->w * t->h * job->nbands);
    return nodata;
}

float gk_value_to_float32(double v) { return gk_to_float32(v); }

static int check_window(gk_job *job, const gk_grid *g, int x0, int y0, int w, int h)
{
    int rc = gk_grid_check(job->ctx, g);
    if (rc)
        return rc;
    if (x0 < 0 || y0 < 0 || w <= 0 || h <= 0 || x0 > g->nx - w || y0 > g->ny - h)
        return gk_error(job->ctx, GK_ERR_ARG, "window %d,%d %dx%d is outside the %dx%d grid", x0,
                        y0, w, h, g->nx, g->ny);
    return GK_OK;
}

int gk_job_compute_window(gk_job *job, const gk_grid *g, int x0, int y0, int w, int h, double *out)
{
    return gk_job_compute_window_typed(job, g, x0, y0, w, h, GK_VALUES_FLOAT64, out);
}

int gk_job_compute_window_typed(gk_job *job, const gk_grid *g, int x0, int y0, int w, int h,
                                gk_value_type vt, void *out)
{
    int rc = check_window(job, g, x0, y0, w, h);
    if (rc || (job->method->grid_prepare && (rc = job->method->grid_prepare(job, g))))
        return rc;
    gk_scratch s = {0};
    if (vt != GK_VALUES_FLOAT64 && vt != GK_VALUES_FLOAT32)
        return gk_error(job->ctx, GK_ERR_ARG, "unknown value type %d", (int)vt);
    gk_tile t = {g, x0, y0, w, h, gk_hit_threshold2(g)};
    /* a float window the CPU computes is converted from doubles in place:
     * room for them */
    double *dbl = NULL;
    if (vt == GK_VALUES_FLOAT32 && !gk_device_converts(job) &&
        !(dbl = malloc((size_t)w * h * job->nbands * sizeof *dbl)))
        return gk_error(job->ctx, GK_ERR_NOMEM, "out of memory computing a tile");
    uint64_t nodata = compute_tile(job, &t, dbl ? dbl : out, &s, vt);
    if (dbl && nodata < GK_DEVICE_FAILED)
        memcpy(out, dbl, (size_t)w * h * job->nbands * sizeof(float));
    free(dbl);
    gk_scratch_free(&s);
    if (nodata == GK_DEVICE_FAILED)
        return gk_error(job->ctx, GK_ERR_INTERNAL, "GPU: %s", gk_device_error(job));
    if (nodata == UINT64_MAX)
        return gk_error(job->ctx, GK_ERR_NOMEM, "out of memory computing a tile");
#pragma omp atomic
    job->nodes += (uint64_t)w * (uint64_t)h;
#pragma omp atomic
    job->nodata_nodes += nodata;
    return GK_OK;
}

/* Tiles of the requested size, shrunk so that every thread has several
 * tiles to take (small grids) and never larger than the grid. */
static void choose_tiles(const gk_grid *g, int threads, int *tw, int *th)
{
    int w = *tw > 0 ? *tw : 256, h = *th > 0 ? *th : 256;
    if (w > g->nx)
        w = g->nx;
    if (h > g->ny)
        h = g->ny;
    while ((long long)((g->nx + w - 1) / w) * ((g->ny + h - 1) / h) < 4LL * threads &&
           (w > 16 || h > 16)) {
        if (h >= w && h > 16)
            h = (h + 1) / 2;
        else
            w = (w + 1) / 2;
    }
    *tw = w;
    *th = h;
}

/* What the threads of a run share. */
typedef struct {
    gk_job *job;
    gk_tile_sink sink;             /* doubles, */
    gk_tile_sink_typed typed_sink; /* or the run's type vt */
    gk_value_type vt;
    void *sink_user;
    gk_progress_fn progress;
    void *progress_user;
    double total, done;
    int stop;
    int concurrent; /* GK_SINK_CONCURRENT: the sink outside the critical section */
} run_state;

/* A finished tile (or a GPU failure) to the sink, one at a time unless the
 * sink takes them at once: nonzero when the run stops. */
static int to_sink(run_state *r, const gk_tile *t, const double *buf)
{
    return r->typed_sink
               ? r->typed_sink(r->sink_user, t->x0, t->y0, t->w, t->h, r->job->nbands, buf)
               : r->sink(r->sink_user, t->x0, t->y0, t->w, t->h, r->job->nbands, buf);
}

/* buf: the tile in the run's type (gk_share_help's slices: doubles, converted
 * here) */
static int deliver_as(void *user, const gk_tile *t, uint64_t nodata, double *buf, int is_vt)
{
    run_state *r = user;
    if (!is_vt && r->vt == GK_VALUES_FLOAT32 && nodata < GK_DEVICE_FAILED)
        gk_to_float32_in_place(buf, (size_t)t->w * t->h * r->job->nbands);
    gk_job *job = r->job;
    int stop, sink_failed = 0;
    const int has_sink = r->sink || r->typed_sink;
    if (r->concurrent && has_sink && nodata < GK_DEVICE_FAILED) {
#pragma omp atomic read
        stop = r->stop;
        if (!stop)
            sink_failed = to_sink(r, t, buf) != 0;
    }
#pragma omp critical(gk_sink)
    {
        if (nodata == GK_DEVICE_FAILED) {
            if (!r->stop)
                r->stop = GK_ERR_INTERNAL;
        } else if (nodata == UINT64_MAX) {
            if (!r->stop)
                r->stop = GK_ERR_NOMEM;
        } else if (!r->stop) {
            job->nodes += (uint64_t)t->w * t->h;
            job->nodata_nodes += nodata;
            if (sink_failed || (!r->concurrent && has_sink && to_sink(r, t, buf)))
                r->stop = GK_ERR_IO;
            r->done += (double)t->w * t->h;
            if (!r->stop && r->progress && !r->progress(r->done / r->total, NULL, r->progress_user))
                r->stop = GK_ERR_CANCELLED;
        }
        stop = r->stop;
    }
    return stop;
}

/* A late start's GPU thread: waits for the GPU; 1 once it is the job's, 0
 * when the cores took the grid first or no GPU will come. */
static int late_gpu_joins(gk_job *job, gk_share *queue)
{
    for (;;) {
        int p = gk_device_late_poll(job);
        if (p > 0) {
            gk_share_gpu_on(queue);
            return 1;
        }
        if (p < 0 || gk_share_empty(queue))
            return 0;
        struct timespec ts = {0, 500000};
        nanosleep(&ts, NULL);
    }
}

/* What ran a late start, for the user. */
static void late_device_name(gk_job *job, double nodes)
{
    gk_context *ctx = job->ctx;
    if (job->gpu) {
        size_t len = strlen(ctx->device_name);
        snprintf(ctx->device_name + len, sizeof ctx->device_name - len,
                 "; the CPU cores took %.1f%% of the nodes while it started",
                 100.0 * (double)job->shared_nodes / nodes);
    } else if (!gk_device_late_failed(job)) { /* no adopting now: it computed nothing */
        snprintf(ctx->device_name, sizeof ctx->device_name,
                 "cpu (the cores finished before the GPU had started)");
    } else {
        gk_device_late_poll(job); /* the reason, in the device name */
    }
}

/* A slice of the helper's (doubles). */
static int deliver_slice(void *user, const gk_tile *t, uint64_t nodata, double *buf)
{
    return deliver_as(user, t, nodata, buf, 0);
}

int gk_job_run(gk_job *job, const gk_grid *g, int tile_w, int tile_h, gk_tile_sink sink,
               void *sink_user, gk_progress_fn progress, void *progress_user)
{
    return gk_job_run_ex(job, g, tile_w, tile_h, 0, sink, sink_user, progress, progress_user);
}

int gk_job_run_ex(gk_job *job, const gk_grid *g, int tile_w, int tile_h, unsigned flags,
                  gk_tile_sink sink, void *sink_user, gk_progress_fn progress, void *progress_user)
{
    return gk_job_run_rows(job, g, 0, g ? g->ny : 0, tile_w, tile_h, flags, sink, sink_user,
                           progress, progress_user);
}

static int run_rows(gk_job *job, const gk_grid *g, int y0, int rows, int tile_w, int tile_h,
                    unsigned flags, gk_value_type vt, gk_tile_sink sink,
                    gk_tile_sink_typed typed_sink, void *sink_user, gk_progress_fn progress,
                    void *progress_user);

int gk_job_run_rows(gk_job *job, const gk_grid *g, int y0, int rows, int tile_w, int tile_h,
                    unsigned flags, gk_tile_sink sink, void *sink_user, gk_progress_fn progress,
                    void *progress_user)
{
    return run_rows(job, g, y0, rows, tile_w, tile_h, flags, GK_VALUES_FLOAT64, sink, NULL,
                    sink_user, progress, progress_user);
}

int gk_job_run_typed(gk_job *job, const gk_grid *g, int y0, int rows, int tile_w, int tile_h,
                     unsigned flags, gk_value_type vt, gk_tile_sink_typed sink, void *sink_user,
                     gk_progress_fn progress, void *progress_user)
{
    if (vt != GK_VALUES_FLOAT64 && vt != GK_VALUES_FLOAT32)
        return gk_error(job->ctx, GK_ERR_ARG, "unknown value type %d", (int)vt);
    return run_rows(job, g, y0, rows, tile_w, tile_h, flags, vt, NULL, sink, sink_user, progress,
                    progress_user);
}

static int run_rows(gk_job *job, const gk_grid *g, int y0, int rows, int tile_w, int tile_h,
                    unsigned flags, gk_value_type vt, gk_tile_sink sink,
                    gk_tile_sink_typed typed_sink, void *sink_user, gk_progress_fn progress,
                    void *progress_user)
{
    gk_context *ctx = job->ctx;
    int rc = gk_grid_check(ctx, g);
    if (rc)
        return rc;
    if (y0 < 0 || rows <= 0 || y0 > g->ny - rows)
        return gk_error(ctx, GK_ERR_ARG, "rows %d to %d are outside the %d rows of the grid", y0,
                        y0 + rows - 1, g->ny);
    if (job->method->grid_prepare && (rc = job->method->grid_prepare(job, g)))
        return rc;
    /* the tiles see the strip as the grid they cover; nodes keep g's coordinates */
    gk_grid strip = *g;
    strip.ny = rows;
    const int cpu = ctx->threads > 0 ? ctx->threads : omp_get_num_procs();
    int threads = cpu;
    /* a late start: the GPU still starting, the CPU begins (cpu_share.h) */
    const int late = gk_device_late_pending(job) && gk_device_late_poll(job) == 0;
    const int gpu_run = job->gpu || late;
    /* its streams as one GPU's (more GPUs, found later, share these threads) */
    const int streams = job->gpu ? gk_device_streams(job) : late ? gk_device_streams_wanted() : 0;
    if (gpu_run) {
        /* Each GPU stream takes large tiles, one at a time; one more thread
         * hands a finished tile to the sink meanwhile. Tiles of up to 1 M
         * nodes, smaller where that leaves every stream too few. */
        threads = streams + 1;
        /* linear: the CPU locates the nodes a tile's triangles left after
         * the tile (the row's gpu_finish); more tiles in flight overlap that */
        if ((job->method->flags & GK_M_GPU_CPU_TAIL) && threads < cpu)
            threads = cpu;
        long long want = (long long)g->nx * rows / (4LL * streams);
        want = want > (1LL << 20) ? (1LL << 20) : want < (1LL << 16) ? (1LL << 16) : want;
        int w = tile_w > 0 ? tile_w : 256, h = tile_h > 0 ? tile_h : 256;
        while ((long long)w * h < want && (w < g->nx || h < rows)) {
            if (w < g->nx && (w <= h || h >= rows))
                w *= 2;
            else
                h *= 2;
        }
        tile_w = w;
        tile_h = h;
    }
    choose_tiles(&strip, gpu_run ? streams : threads, &tile_w, &tile_h);
    int ntx = (g->nx + tile_w - 1) / tile_w, nty = (rows + tile_h - 1) / tile_h;
    long long ntiles = (long long)ntx * nty;
    run_state r = {job,
                   sink,
                   typed_sink,
                   vt,
                   sink_user,
                   progress,
                   progress_user,
                   (double)g->nx * (double)rows,
                   0,
                   GK_OK,
                   (flags & GK_SINK_CONCURRENT) != 0};
    double hit2 = gk_hit_threshold2(g);
    job->nodes = job->nodata_nodes = job->shared_nodes = 0;
    job->singular_nodes = job->lowered_nodes = 0;
    /* a failing sink's own message is told from an earlier call's error by
     * the count (not by clearing: a context may carry a failure of another
     * part of the same work, e.g. another strip's) */
    const unsigned long errors_before = ctx->n_errors;
    if (progress && !progress(0.0, NULL, progress_user))
        return gk_error(ctx, GK_ERR_CANCELLED, "cancelled");

    /* A GPU run: its threads take tiles from a queue, and one more thread
     * may take a share for the cores they leave free (cpu_share.c). */
    gk_share *queue = NULL;
    if (gpu_run) {
        queue = gk_share_new(job, g, y0, rows, tile_w, tile_h, threads, cpu, late);
        if (!queue)
            return gk_error(ctx, GK_ERR_NOMEM, "out of memory");
    }
    const int helper = queue && gk_share_has_helper(queue);
    /* the CPU's share of a GPU run (kriging's dense windows, the helper's
     * slices) runs on the cores from inside the engine's few GPU threads:
     * one nested level, for this run only */
    const int levels = omp_get_max_active_levels();
    if ((gpu_run || job->lazy_ties) && levels < 2)
        omp_set_max_active_levels(2); /* lazy_ties: the view is built on every core */
#pragma omp parallel num_threads(threads + helper)
    {
        if (helper && omp_get_thread_num() == threads) {
            gk_share_help(queue, &r.stop, deliver_slice, &r);
        } else if (late && !late_gpu_joins(job, queue)) {
            /* no GPU came before the cores had the grid, or none will */
        } else {
            gk_scratch s = {0};
            size_t bytes = (size_t)tile_w * tile_h * job->nbands * sizeof(double);
            double *buf = gk_device_host_alloc(job, bytes); /* GPU: page-locked */
            int pinned = buf != NULL;
            if (!buf)
                buf = malloc(bytes);
            if (!buf) {
#pragma omp atomic write
                r.stop = GK_ERR_NOMEM;
            }
            if (queue) {
                gk_tile t;
                while (buf && gk_share_next(queue, &t)) {
                    int st;
#pragma omp atomic read
                    st = r.stop;
                    if (st)
                        break;
                    t.hit2 = hit2;
                    double t0 = omp_get_wtime();
                    uint64_t nodata = compute_tile(job, &t, buf, &s, vt);
                    gk_share_gpu_done(queue, &t, omp_get_wtime() - t0);
                    deliver_as(&r, &t, nodata, buf, 1);
                }
            } else {
                /* Dynamic, in row-major order: tiles in flight stay within
                 * a row or two of tiles, which keeps the writer's partly
                 * written strips few. */
#pragma omp for schedule(dynamic, 1)
                for (long long k = 0; k < ntiles; k++) {
                    int st;
#pragma omp atomic read
                    st = r.stop;
                    if (st || !buf)
                        continue;
                    int tx = (int)(k % ntx), ty = (int)(k / ntx);
                    gk_tile t = {g, tx * tile_w, y0 + ty * tile_h, tile_w, tile_h, hit2};
                    if (t.x0 + t.w > g->nx)
                        t.w = g->nx - t.x0;
                    if (t.y0 + t.h > y0 + rows)
                        t.h = y0 + rows - t.y0;
                    deliver_as(&r, &t, compute_tile(job, &t, buf, &s, vt), buf, 1);
                }
            }
            if (pinned)
                gk_device_host_free(job, buf);
            else
                free(buf);
            gk_scratch_free(&s);
        }
    }
    omp_set_max_active_levels(levels);
    if (queue)
        job->shared_nodes = gk_share_cpu_nodes(queue);
    if (late)
        late_device_name(job, (double)g->nx * rows);
    else if (job->gpu && job->shared_nodes > 0 && !strstr(ctx->device_name, "CPU cores took")) {
        /* the helper's slices (cpu_share.c); said once, for the first strip that had them */
        size_t len = strlen(ctx->device_name);
        snprintf(ctx->device_name + len, sizeof ctx->device_name - len,
                 "; the CPU cores took %.1f%% of the nodes",
                 100.0 * (double)job->shared_nodes / ((double)g->nx * rows));
    }
    gk_share_free(queue);
    const int stop = r.stop;
    if (stop == GK_ERR_INTERNAL)
        return gk_error(ctx, GK_ERR_INTERNAL, "GPU: %s", gk_device_error(job));
    if (stop == GK_ERR_NOMEM)
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory computing tiles");
    if (stop == GK_ERR_CANCELLED)
        return gk_error(ctx, GK_ERR_CANCELLED, "cancelled");
    if (stop == GK_ERR_IO)
        return ctx->n_errors != errors_before && ctx->err
                   ? ctx->err
                   : gk_error(ctx, GK_ERR_IO, "writing a tile failed");
    return GK_OK;
}

const char *gk_job_algorithm_string(const gk_job *job) { return job->alg.canonical; }

const char *gk_job_warning(const gk_job *job)
{
    return job && job->warning[0] ? job->warning : NULL;
}

void gk_job_stats(const gk_job *job, gk_run_stats *st)
{
    st->nodes = job->nodes;
    st->nodata_nodes = job->nodata_nodes;
    st->singular_nodes = job->singular_nodes;
    st->lowered_nodes = job->lowered_nodes;
}

void gk_job_add_lowered(const gk_job *job, uint64_t n)
{
    if (n) {
#pragma omp atomic
        ((gk_job *)job)->lowered_nodes += n;
    }
}

void gk_job_add_singular(const gk_job *job, uint64_t n)
{
    if (n) {
#pragma omp atomic
        ((gk_job *)job)->singular_nodes += n;
    }
}
