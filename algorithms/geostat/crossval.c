/* SPDX-License-Identifier: MIT */
/*
 * crossval.c - leave-one-out and k-fold cross-validation.
 *
 * A held-out point is predicted as the single node of a tiny 1x1 grid
 * centred on it, so every algorithm is cross-validated by exactly the code
 * that grids with it. Three ways to get there (crossval.h): a job per fold
 * on the other folds' points (rebuild); one job on every point whose k-d
 * tree skips the fold's points (holdout: no index built per fold); global
 * kriging's closed form (dubrule). Folds run in parallel, each thread with a
 * context of its own (a context's error state is single-threaded).
 */
#include "crossval.h"
#include "kriging.h"

#include "core/device.h"
#include "core/gk_internal.h"
#include "core/method.h"
#include "search/index.h"
#include "search/kdtree.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gk_cv_result_free(gk_cv_result *res)
{
    if (!res)
        return;
    free(res->x);
    free(res->y);
    free(res->observed);
    free(res->predicted);
    free(res->variance);
    free(res->residual);
    free(res->zscore);
    free(res->fold);
    memset(res, 0, sizeof *res);
}

/* splitmix64: tiny, portable, good enough to shuffle. */
static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, bound) without modulo bias. */
static uint64_t rand_below(uint64_t *s, uint64_t bound)
{
    uint64_t threshold = (0 - bound) % bound;
    for (;;) {
        uint64_t r = next_rand(s);
        if (r >= threshold)
            return r % bound;
    }
}

void gk_cv_partition(size_t n, int nfold, unsigned seed, int *fold)
{
    /* fold doubles as the permutation buffer: shuffle 0..n-1, then deal. */
    size_t *perm = malloc(n * sizeof *perm);
    uint64_t s = seed;
    if (!perm) {
        /* no memory to shuffle: still a valid (if unshuffled) partition */
        for (size_t i = 0; i < n; i++)
            fold[i] = (int)(i % (size_t)nfold) + 1;
        return;
    }
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)rand_below(&s, i);
        size_t t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    for (size_t i = 0; i < n; i++)
        fold[perm[i]] = (int)(i % (size_t)nfold) + 1;
    free(perm);
}

void gk_cv_summarize(gk_cv_result *r)
{
    size_t m = 0, nz = 0;
    double se = 0, se2 = 0, sa = 0, so = 0, sp = 0, sz = 0, sz2 = 0;
    r->n_failed = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (!isfinite(r->predicted[i])) {
            r->n_failed++;
            continue;
        }
        double e = r->residual[i];
        m++;
        se += e;
        se2 += e * e;
        sa += fabs(e);
        so += r->observed[i];
        sp += r->predicted[i];
        if (isfinite(r->zscore[i])) {
            nz++;
            sz += r->zscore[i];
            sz2 += r->zscore[i] * r->zscore[i];
        }
    }
    r->mean_error = r->rmse = r->mae = r->cor = NAN;
    r->mean_z = r->var_z = r->msdr = NAN;
    if (m > 0) {
        r->mean_error = se / (double)m;
        r->rmse = sqrt(se2 / (double)m);
        r->mae = sa / (double)m;
    }
    if (m > 1) {
        /* second pass about the means: no cancellation from large values */
        double mo = so / (double)m, mp = sp / (double)m, soo = 0, spp = 0, sop = 0;
        for (size_t i = 0; i < r->n; i++) {
            if (!isfinite(r->predicted[i]))
                continue;
            double a = r->observed[i] - mo, b = r->predicted[i] - mp;
            soo += a * a;
            spp += b * b;
            sop += a * b;
        }
        if (soo > 0 && spp > 0)
            r->cor = sop / sqrt(soo * spp);
    }
    if (nz > 0) {
        r->mean_z = sz / (double)nz;
        r->msdr = sz2 / (double)nz;
    }
    if (nz > 1) {
        double d2 = 0;
        for (size_t i = 0; i < r->n; i++)
            if (isfinite(r->predicted[i]) && isfinite(r->zscore[i])) {
                double d = r->zscore[i] - r->mean_z;
                d2 += d * d;
            }
        r->var_z = d2 / (double)(nz - 1);
    }
}

static int alloc_result(gk_cv_result *r, size_t n)
{
    r->n = n;
    r->x = malloc(n * sizeof *r->x);
    r->y = malloc(n * sizeof *r->y);
    r->observed = malloc(n * sizeof *r->observed);
    r->predicted = malloc(n * sizeof *r->predicted);
    r->variance = malloc(n * sizeof *r->variance);
    r->residual = malloc(n * sizeof *r->residual);
    r->zscore = malloc(n * sizeof *r->zscore);
    r->fold = malloc(n * sizeof *r->fold);
    return r->x && r->y && r->observed && r->predicted && r->variance && r->residual && r->zscore &&
           r->fold;
}

/* Side of the 1x1 prediction grid: small against the data (so the node is
 * the point itself for every algorithm), but large against the rounding of
 * the coordinates (so x - h/2 + h/2 lands within the exact-hit radius,
 * 1e-6 h, of x: duplicates of the held-out point are exact hits). */
static double cell_size(double extent, double x, double y)
{
    double h = fmax(1e-3 * extent, 1e-6 * fmax(fabs(x), fabs(y)));
    return h > 0 ? h : 1.0;
}

/* The error of the lowest failing fold, copied into the caller's context,
 * with the fold and the points it was fitted on (2 points left one out
 * leave 1): the folds below the one reported still run (the loop skips only
 * those above), so which error is said does not depend on the threads. */
static void report_error(gk_context *ctx, gk_context *tctx, int *stop, int *err_fold, int fold,
                         int nfold, size_t ntrain)
{
#pragma omp critical(gk_cv_error)
    {
        if (!*stop || (*err_fold > 0 && fold < *err_fold)) {
            *stop = tctx->err ? tctx->err : GK_ERR_INTERNAL;
            *err_fold = fold;
            gk_error(ctx, *stop,
                     "cross-validation fold %d of %d (fitted on the other %zu "
                     "point(s)): %s",
                     fold, nfold, ntrain, tctx->err ? tctx->msg : "failed");
        }
    }
}

int gk_crossval(gk_context *ctx, const gk_points *pts, const gk_algorithm *alg, int nfold,
                unsigned seed, gk_cv_result *res)
{
    return gk_crossval_part(ctx, pts, alg, nfold, seed, 0, 1, res);
}

void gk_cv_fill(gk_cv_result *res, size_t i)
{
    res->residual[i] = res->observed[i] - res->predicted[i];
    res->zscore[i] = res->residual[i] / sqrt(res->variance[i]); /* NaN without variance */
}

int gk_crossval_part(gk_context *ctx, const gk_points *pts, const gk_algorithm *alg, int nfold,
                     unsigned seed, int part, int parts, gk_cv_result *res)
{
    return gk_crossval_with(ctx, pts, alg, nfold, seed, part, parts, GK_CV_AUTO, res);
}

/* The way GK_CV_AUTO takes, and for a rebuild why (the words after the
 * algorithm's name in the note on the slow path) and how to avoid it
 * (NULL when nothing would): the row's own rule (core/method.h's cv_way). */
static gk_cv_method method_why(const gk_algorithm *a, size_t n, size_t maxfold, const char **why,
                               const char **avoid)
{
    *why = *avoid = NULL;
    size_t ntrain = n - maxfold; /* the fewest points a fold is fitted on */
    if (ntrain < 1 || (a->min_points > 0 && ntrain < (size_t)a->min_points))
        return GK_CV_REBUILD; /* the rebuild's own message for such a fold */
    const gk_method *m = gk_method_of(a->kind);
    if (m && m->cv_way)
        return m->cv_way(a, ntrain, why, avoid);
    *why = "as a job per fold: every fold rebuilds its preparation (its index or "
           "triangulation) on the other folds' points";
    return GK_CV_REBUILD;
}

gk_cv_method gk_cv_method_for(const gk_algorithm *a, size_t n, size_t maxfold)
{
    const char *why, *avoid;
    return method_why(a, n, maxfold, &why, &avoid);
}

/* What the three ways share: the input, the folds and where to report. */
typedef struct {
    gk_context *ctx;
    const gk_points *pts;
    const gk_algorithm *a; /* NaN nodata, kriging's variance on */
    int nfold, part, parts;
    const size_t *start, *member; /* fold f's points: member[start[f] .. start[f + 1]) */
    double extent;
    int threads;
    int device; /* the device asked for (core/device.h's GK_DEV_*) */
    const gk_cv_drift *drift; /* drift_raster='s covariates, or NULL */
    gk_cv_result *res;
    int stop, err_fold; /* the error reported, and its fold (0: none, or not a fold's) */
    /* progress: this process's points, those predicted; the rebuild's
     * note (why, avoid) said once, with its estimate, early in the run */
    gk_progress_fn progress;
    void *progress_user;
    size_t total, done;
    double t0;
    const char *why, *avoid;
    int noted;
} cv_run;

/* The slow path's note: weighed once the folds have run this long (the
 * rate of the first folds, which pay for starting the threads, would
 * mislead), and said when the whole run would take at least the other. */
#define GK_CV_NOTE_AFTER 0.5
#define GK_CV_NOTE_SECONDS 2.0

/* The rebuild's note for a run of about est seconds; NULL when not worth
 * saying. */
static const char *slow_note(const cv_run *r, double est, char *buf, size_t cap)
{
    if (!r->why || est < GK_CV_NOTE_SECONDS)
        return NULL;
    char when[32];
    if (est < 3600)
        snprintf(when, sizeof when, "%.0f s", est);
    else
        snprintf(when, sizeof when, "%.1f h", est / 3600);
    snprintf(buf, cap, "cross-validating %s %s (about %s here)%s%s", gk_algorithm_name(r->a),
             r->why, when, r->avoid ? "; " : "", r->avoid ? r->avoid : "");
    return buf;
}

/* k more points predicted: the progress callback, from one thread at a
 * time; a callback that returns 0 stops the folds. */
static void progress_add(cv_run *r, size_t k)
{
    if (!r->progress || !k)
        return;
#pragma omp critical(gk_cv_error)
    {
        r->done += k;
        char buf[768];
        const char *note = NULL;
        double elapsed = omp_get_wtime() - r->t0;
        /* until a note is weighed, nothing is reported: it comes first */
        int hold = r->why && !r->noted;
        if (hold && (elapsed >= GK_CV_NOTE_AFTER || r->done >= r->total)) {
            r->noted = 1;
            hold = 0;
            if (r->done < r->total)
                note =
                    slow_note(r, elapsed * ((double)r->total / (double)r->done), buf, sizeof buf);
        }
        double f = r->total ? (double)r->done / (double)r->total : 1.0;
        if (!hold && !r->stop && !r->progress(f > 1.0 ? 1.0 : f, note, r->progress_user)) {
            r->stop = gk_error(r->ctx, GK_ERR_CANCELLED, "cross-validation: cancelled");
            r->err_fold = 0;
        }
    }
}

/* Points predicted one at a time (holdout): handed to progress_add in
 * batches of about 1/512 of the total, so the callback's lock stays rare. */
static void progress_batch(cv_run *r, size_t *pending, int flush)
{
    size_t step = r->total / 512 > 0 ? r->total / 512 : 1;
    if (*pending && (flush || *pending >= step)) {
        progress_add(r, *pending);
        *pending = 0;
    }
}

/* Is fold f (0-based) this process's, and still to run? */
static int fold_wanted(cv_run *r, int f)
{
    int skip;
#pragma omp critical(gk_cv_error)
    skip = r->stop && (r->err_fold == 0 || f + 1 > r->err_fold);
    return !skip && f % r->parts == r->part;
}

/* One point's prediction from a 1x1 tile's planes (nb of them). */
static void put_prediction(gk_cv_result *res, size_t i, const double *out, int nb)
{
    double p = out[0], v = nb == 2 ? out[1] : NAN;
    if (!isfinite(p))
        p = v = NAN;
    res->predicted[i] = p;
    res->variance[i] = v;
    gk_cv_fill(res, i);
}

/* The 1x1 grid of point i. */
static gk_grid point_grid(const cv_run *r, size_t i)
{
    double x = r->pts->x[i], y = r->pts->y[i], h = cell_size(r->extent, x, y);
    gk_grid g = {x - 0.5 * h, x + 0.5 * h, y - 0.5 * h, y + 0.5 * h, 1, 1};
    return g;
}

static gk_context *thread_context(const gk_context *ctx)
{
    gk_context *tctx = gk_context_new();
    if (tctx) {
        tctx->threads = 1;
        tctx->triangulate = ctx->triangulate;
        tctx->triangulate_user = ctx->triangulate_user;
    }
    return tctx;
}

static void report_nomem(cv_run *r, const char *what)
{
#pragma omp critical(gk_cv_error)
    {
        if (!r->stop)
            r->stop = gk_error(r->ctx, GK_ERR_NOMEM, "out of memory for %s", what);
    }
}

/* Kriging with external drift: the covariates of the points not in fold,
 * in input order, as the fold's job has them; buf holds them (n_drift * n
 * doubles). Only the rebuild takes drift rasters (each fold standardises
 * them on its own points: kriging.c's cv_way). Nothing to do without. */
static int set_drift(const cv_run *r, gk_job *job, int fold, double *buf)
{
    const gk_cv_drift *d = r->drift;
    if (!d)
        return GK_OK;
    size_t n = r->pts->n, m = 0;
    for (size_t i = 0; i < n; i++)
        m += r->res->fold[i] != fold;
    for (int k = 0; k < d->n_drift; k++) {
        const double *v = d->values_at_points + (size_t)k * n;
        double *o = buf + (size_t)k * m;
        for (size_t i = 0; i < n; i++)
            if (r->res->fold[i] != fold)
                *o++ = v[i];
    }
    return gk_job_set_drift(job, d->n_drift, buf, d->sampler, d->user);
}

/* A job per fold on the other folds' points. */
static void run_rebuild(cv_run *r)
{
    const gk_points *pts = r->pts;
    size_t n = pts->n;
    gk_cv_result *res = r->res;
#pragma omp parallel num_threads(r->threads)
    {
        gk_context *tctx = thread_context(r->ctx);
        gk_points *train = tctx ? gk_points_new(tctx) : NULL;
        double *dbuf = r->drift ? malloc((size_t)r->drift->n_drift * n * sizeof *dbuf) : NULL;
        if (train && (gk_points_reserve(train, n) || (r->drift && !dbuf))) {
            gk_points_free(train);
            train = NULL;
        }
        if (!train)
            report_nomem(r, "a fold's points");
#pragma omp for schedule(dynamic, 1)
        for (int f = 0; f < r->nfold; f++) {
            if (!fold_wanted(r, f) || !train) /* another process's fold */
                continue;
            /* training set: every point not in fold f, in input order (input
             * order decides ties, as when gridding) */
            train->n = 0;
            for (size_t i = 0; i < n; i++)
                if (res->fold[i] != f + 1) {
                    train->x[train->n] = pts->x[i];
                    train->y[train->n] = pts->y[i];
                    train->z[train->n] = pts->z[i];
                    train->n++;
                }
            gk_job *job = gk_job_new(tctx, train, r->a);
            if (job && set_drift(r, job, f + 1, dbuf)) {
                gk_job_free(job);
                job = NULL;
            }
            if (!job) {
                report_error(r->ctx, tctx, &r->stop, &r->err_fold, f + 1, r->nfold, train->n);
                continue;
            }
            int nb = gk_job_bands(job);
            if (nb < 1 || nb > 2) {
                gk_error(tctx, GK_ERR_INTERNAL, "cross-validation: %s writes %d planes",
                         r->a->canonical, nb);
                report_error(r->ctx, tctx, &r->stop, &r->err_fold, f + 1, r->nfold, train->n);
                gk_job_free(job);
                continue;
            }
            for (size_t k = r->start[f]; k < r->start[f + 1]; k++) {
                size_t i = r->member[k];
                gk_grid g = point_grid(r, i);
                double out[2] = {NAN, NAN};
                if (gk_job_compute_window(job, &g, 0, 0, 1, 1, out)) {
                    report_error(r->ctx, tctx, &r->stop, &r->err_fold, f + 1, r->nfold, train->n);
                    break;
                }
                put_prediction(res, i, out, nb);
            }
            gk_job_free(job);
            progress_add(r, r->start[f + 1] - r->start[f]);
        }
        gk_points_free(train);
        free(dbuf);
        gk_context_free(tctx);
    }
}

/* Holdout on the GPU: local kriging whose kernels take a fold out of their
 * search (core/gpu_abi.h: up to 64 neighbours, no per-quadrant search). */
static int gpu_fits(const gk_algorithm *a)
{
    const gk_method *m = gk_method_of(a->kind);
    return m && m->cv_gpu && m->cv_gpu(a);
}

/* Where the holdout's job goes: the CPU, or the device asked for (auto:
 * the GPU where the CPU cores would take longer than starting it, as for a
 * grid of as many nodes as points; the reason in the device name). */
static void choose_device(const cv_run *r, gk_context *jctx)
{
    if (!gpu_fits(r->a) || r->device == GK_DEV_CPU) {
        gk_context_set_device(jctx, "cpu");
        return;
    }
    jctx->device = r->device;
    jctx->cv_fold = r->res->fold;
    if (r->device < GK_DEV_CUDA) {
        double x0, y0, x1, y1, n = (double)r->pts->n;
        gk_points_bounds(r->pts, &x0, &y0, &x1, &y1);
        gk_context_auto_device(jctx, r->a, n, (x1 - x0) * (y1 - y0), n);
    }
}

/* The points of this process's folds in an order that keeps neighbours
 * together (rows of cells of about 4 points), so that a warp's 32 share
 * their search; m of them. */
static size_t *spatial_order(const cv_run *r, size_t *m)
{
    const gk_points *pts = r->pts;
    size_t n = pts->n, k = 0;
    double x0, y0, x1, y1;
    gk_points_bounds(pts, &x0, &y0, &x1, &y1);
    int side = (int)fmin(4096.0, fmax(1.0, ceil(sqrt((double)n / 4.0))));
    double sx = side / fmax(x1 - x0, 1e-300), sy = side / fmax(y1 - y0, 1e-300);
    size_t ncell = (size_t)side * side;
    size_t *start = calloc(ncell + 1, sizeof *start), *idx = malloc(n * sizeof *idx);
    int *cell = malloc(n * sizeof *cell);
    if (!start || !idx || !cell) {
        free(start);
        free(idx);
        free(cell);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if ((r->res->fold[i] - 1) % r->parts != r->part) {
            cell[i] = -1;
            continue;
        }
        int cx = (int)fmin(side - 1, fmax(0.0, (pts->x[i] - x0) * sx));
        int cy = (int)fmin(side - 1, fmax(0.0, (pts->y[i] - y0) * sy));
        cell[i] = cy * side + cx;
        start[cell[i] + 1]++;
    }
    for (size_t c = 0; c < ncell; c++)
        start[c + 1] += start[c];
    for (size_t i = 0; i < n; i++)
        if (cell[i] >= 0)
            idx[start[cell[i]]++] = i, k++;
    free(start);
    free(cell);
    *m = k;
    return idx;
}

/* One job on the GPU with the folds uploaded; every wanted point a node of
 * a tile of given points that leaves its fold out. */
static void run_holdout_gpu(cv_run *r, gk_job *job)
{
    gk_cv_result *res = r->res;
    const int nb = job->nbands;
    size_t m = 0;
    size_t *idx = spatial_order(r, &m);
    double *qx = malloc((m ? m : 1) * sizeof *qx), *qy = malloc((m ? m : 1) * sizeof *qy);
    double *out = malloc((m ? m : 1) * nb * sizeof *out);
    int *qg = malloc((m ? m : 1) * sizeof *qg);
    if (!idx || !qx || !qy || !out || !qg) {
        report_nomem(r, "cross-validation on the GPU");
        goto done;
    }
    for (size_t k = 0; k < m; k++) {
        gk_grid g = point_grid(r, idx[k]); /* the node the CPU would compute */
        qx[k] = gk_grid_node_x(&g, 0);
        qy[k] = gk_grid_node_y(&g, 0);
        qg[k] = res->fold[idx[k]];
    }
    /* a piece per stream of each GPU, at most 2^20 points at a time */
    int streams = gk_device_streams(job);
    size_t piece = (m + streams - 1) / (streams > 0 ? streams : 1);
    piece = piece < 1024 ? 1024 : piece > ((size_t)1 << 20) ? (size_t)1 << 20 : piece;
    long pieces = (long)((m + piece - 1) / piece);
    uint64_t failed = 0;
#pragma omp parallel for num_threads(streams > 0 ? streams : 1) schedule(dynamic, 1)
    for (long c = 0; c < pieces; c++) {
        size_t off = (size_t)c * piece, len = m - off < piece ? m - off : piece;
        uint64_t rc;
#pragma omp atomic read
        rc = failed;
        if (rc)
            continue;
        rc = gk_device_points(job, len, qx + off, qy + off, qg + off, out + off * nb);
        if (rc >= GK_DEVICE_FAILED) {
#pragma omp atomic write
            failed = rc;
        } else {
            progress_add(r, len);
        }
    }
    if (r->stop) {
        /* cancelled: said */
    } else if (failed == UINT64_MAX) {
        report_nomem(r, "cross-validation on the GPU");
    } else if (failed) {
        r->stop = gk_error(r->ctx, GK_ERR_INTERNAL, "cross-validation on the GPU: %s",
                           gk_device_error(job));
    } else {
        for (long c = 0; c < pieces; c++) {
            size_t off = (size_t)c * piece, len = m - off < piece ? m - off : piece;
            const double *o = out + off * nb;
            for (size_t k = 0; k < len; k++) {
                double v[2] = {o[k], nb == 2 ? o[len + k] : NAN};
                put_prediction(res, idx[off + k], v, nb);
            }
        }
    }
done:
    free(idx);
    free(qx);
    free(qy);
    free(qg);
    free(out);
}

/* One job on every point, on the CPU; each thread searches a view of its
 * k-d tree that skips the fold at hand. The GPU's kernels take local
 * kriging (run_holdout_gpu). */
static void run_holdout(cv_run *r)
{
    const gk_points *pts = r->pts;
    size_t n = pts->n;
    gk_cv_result *res = r->res;
    gk_context *jctx = thread_context(r->ctx);
    int *group = malloc(n * sizeof *group);
    if (!jctx || !group) {
        report_nomem(r, "cross-validation");
        gk_context_free(jctx);
        free(group);
        return;
    }
    jctx->threads = r->threads;
    choose_device(r, jctx);
    gk_job *job = gk_job_new(jctx, pts, r->a);
    /* else gk_crossval_with's word stands; auto's choice of the cores is
     * plain "cpu" (its reason names the threads, which differ under MPI) */
    if (jctx->device != GK_DEV_CPU && !jctx->auto_cpu[0])
        snprintf(res->device, sizeof res->device, "%s", gk_context_device_name(jctx));
    if (job && gk_device_job_on_gpu(job)) {
        run_holdout_gpu(r, job);
        gk_job_free(job);
        gk_context_free(jctx);
        free(group);
        return;
    }
    /* the folds' trees over the points in the job's order (its ties' order) */
    if (job && gk_job_order_points(job))
        gk_error(jctx, GK_ERR_NOMEM, "out of memory ordering %zu points", n);
    else if (job && !job->tree && gk_index_tree(job))
        gk_error(jctx, GK_ERR_NOMEM, "out of memory for the k-d tree of %zu points", n);
    if (!job || !job->tree || job->nbands < 1 || job->nbands > 2) {
        if (!jctx->err)
            gk_error(jctx, GK_ERR_INTERNAL, "cross-validation: %s has no k-d tree",
                     r->a->canonical);
        r->stop = gk_error(r->ctx, jctx->err, "cross-validation: %s", jctx->msg);
        gk_job_free(job);
        gk_context_free(jctx);
        free(group);
        return;
    }
    /* the folds in the job's order of the points (it may reorder them) */
    for (size_t k = 0; k < n; k++)
        group[k] = res->fold[job->order ? job->order[k] : k];
    const int nb = job->nbands;
#pragma omp parallel num_threads(r->threads)
    {
        gk_context *tctx = thread_context(r->ctx);
        gk_job view = *job;
        view.ctx = tctx;
        view.tree = tctx ? gk_kdtree_holdout(job->tree, group) : NULL;
        gk_scratch s = {0};
        size_t pending = 0;
        if (!view.tree)
            report_nomem(r, "a search view");
#pragma omp for schedule(dynamic, 1)
        for (int f = 0; f < r->nfold; f++) {
            if (!fold_wanted(r, f) || !view.tree)
                continue;
            pending += r->start[f + 1] - r->start[f];
            progress_batch(r, &pending, 0);
            gk_kdtree_holdout_set(view.tree, f + 1);
            size_t ntrain = n - (r->start[f + 1] - r->start[f]);
            for (size_t k = r->start[f]; k < r->start[f + 1]; k++) {
                size_t i = r->member[k];
                gk_grid g = point_grid(r, i);
                gk_tile t = {&g, 0, 0, 1, 1, gk_hit_threshold2(&g)};
                double out[2] = {NAN, NAN};
                if (job->method->cpu_tile(&view, &t, out, &s) == UINT64_MAX) {
                    gk_error(tctx, GK_ERR_NOMEM, "out of memory computing a prediction");
                    report_error(r->ctx, tctx, &r->stop, &r->err_fold, f + 1, r->nfold, ntrain);
                    break;
                }
                put_prediction(res, i, out, nb);
            }
        }
        progress_batch(r, &pending, 1);
        gk_scratch_free(&s);
        gk_kdtree_free(view.tree);
        gk_context_free(tctx);
    }
    gk_job_free(job);
    gk_context_free(jctx);
    free(group);
}

/* Global kriging: one factorised system, each fold in closed form. */
static void run_dubrule(cv_run *r)
{
    gk_cv_result *res = r->res;
    gk_context *jctx = thread_context(r->ctx);
    if (!jctx) {
        report_nomem(r, "cross-validation");
        return;
    }
    jctx->threads = r->threads;
    gk_context_set_device(jctx, "cpu");
    gk_job *job = gk_job_new(jctx, r->pts, r->a);
    if (!job || gk_krige_global_cv(job, r->nfold, r->start, r->member, r->part, r->parts,
                                   r->threads, res->predicted, res->variance)) {
        r->stop = gk_error(r->ctx, jctx->err ? jctx->err : GK_ERR_INTERNAL, "cross-validation: %s",
                           jctx->msg);
    } else {
        for (size_t i = 0; i < r->pts->n; i++)
            if ((res->fold[i] - 1) % r->parts == r->part) {
                if (!isfinite(res->predicted[i]))
                    res->predicted[i] = res->variance[i] = NAN;
                gk_cv_fill(res, i);
            }
        progress_add(r, r->total);
    }
    gk_job_free(job);
    gk_context_free(jctx);
}

static const char *method_name(gk_cv_method m)
{
    return m == GK_CV_HOLDOUT ? "holdout" : m == GK_CV_DUBRULE ? "dubrule" : "rebuild";
}

int gk_crossval_with(gk_context *ctx, const gk_points *pts, const gk_algorithm *alg, int nfold,
                     unsigned seed, int part, int parts, gk_cv_method how, gk_cv_result *res)
{
    return gk_crossval_run(ctx, pts, alg, nfold, seed, part, parts, how, NULL, NULL, NULL, res);
}

int gk_crossval_part_ex(gk_context *ctx, const gk_points *pts, const gk_algorithm *alg, int nfold,
                        unsigned seed, int part, int parts, gk_progress_fn progress,
                        void *progress_user, gk_cv_result *res)
{
    return gk_crossval_run(ctx, pts, alg, nfold, seed, part, parts, GK_CV_AUTO, NULL, progress,
                           progress_user, res);
}

int gk_crossval_part_drift(gk_context *ctx, const gk_points *pts, const gk_algorithm *alg,
                           int nfold, unsigned seed, int part, int parts, const gk_cv_drift *drift,
                           gk_progress_fn progress, void *progress_user, gk_cv_result *res)
{
    return gk_crossval_run(ctx, pts, alg, nfold, seed, part, parts, GK_CV_AUTO, drift, progress,
                           progress_user, res);
}

int gk_crossval_run(gk_context *ctx, const gk_points *pts, const gk_algorithm *alg, int nfold,
                    unsigned seed, int part, int parts, gk_cv_method how,
                    const gk_cv_drift *drift, gk_progress_fn progress, void *progress_user,
                    gk_cv_result *res)
{
    memset(res, 0, sizeof *res);
    if (parts < 1 || part < 0 || part >= parts)
        return gk_error(ctx, GK_ERR_ARG, "cross-validation: part %d of %d", part, parts);
    size_t n = pts ? pts->n : 0;
    if (!alg)
        return gk_error(ctx, GK_ERR_ARG, "cross-validation: no algorithm given");
    if (n < 2)
        return gk_error(ctx, GK_ERR_NO_POINTS, "cross-validation needs at least 2 points, got %zu",
                        n);
    if (n > (size_t)0x7fffffff)
        return gk_error(ctx, GK_ERR_NOMEM, "%zu points: at most 2^31-1 can be cross-validated", n);
    if (!gk_algorithm_needs_z(alg))
        return gk_error(ctx, GK_ERR_ARG,
                        "cross-validation: %s does not predict Z (it ignores the values); use an "
                        "interpolator such as invdist, nearest, linear, aidw or kriging",
                        gk_algorithm_name(alg));
    if (nfold == 0)
        nfold = (int)n;
    if (nfold < 2 || (size_t)nfold > n)
        return gk_error(ctx, GK_ERR_ARG,
                        "cross-validation: nfold %d must be between 2 and the number of points "
                        "(%zu)",
                        nfold, n);
    /* drift_raster= keys: every job needs the covariates (else no node gets a value) */
    const gk_kriging_params *kp = gk_algorithm_kriging(alg);
    int ndrift = kp ? kp->n_drift_rasters : 0;
    if (ndrift && (!drift || drift->n_drift != ndrift || !drift->values_at_points ||
                   !drift->sampler))
        return gk_error(ctx, GK_ERR_ARG,
                        "cross-validation: %s has %d drift raster%s and needs their values at "
                        "the points (gk_crossval_part_drift)",
                        gk_algorithm_name(alg), ndrift, ndrift == 1 ? "" : "s");
    if (!ndrift)
        drift = NULL;

    /* The algorithm as gridded, but: "no result" comes back as NaN (the
     * user's nodata, gdal_grid's default 0, may be a genuine prediction),
     * and kriging always reports its variance (for the z-scores). */
    gk_algorithm a = *alg;
    a.nodata = NAN;
    const gk_method *m = gk_method_of(a.kind);
    if (m && m->cv_adjust)
        m->cv_adjust(&a);

    if (!alloc_result(res, n)) {
        gk_cv_result_free(res);
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory for %zu cross-validation results", n);
    }
    res->nfold = nfold;
    res->seed = seed;
    memcpy(res->x, pts->x, n * sizeof *res->x);
    memcpy(res->y, pts->y, n * sizeof *res->y);
    memcpy(res->observed, pts->z, n * sizeof *res->observed);
    for (size_t i = 0; i < n; i++) /* stay NaN where another process predicts */
        res->predicted[i] = res->variance[i] = res->residual[i] = res->zscore[i] = NAN;
    if ((size_t)nfold == n)
        for (size_t i = 0; i < n; i++)
            res->fold[i] = (int)i + 1;
    else
        gk_cv_partition(n, nfold, seed, res->fold);

    /* Points grouped by fold (counting sort): member[start[f] .. start[f+1]). */
    size_t *start = calloc((size_t)nfold + 1, sizeof *start);
    size_t *member = malloc(n * sizeof *member);
    size_t *fill = calloc((size_t)nfold, sizeof *fill);
    if (!start || !member || !fill) {
        free(start);
        free(member);
        free(fill);
        gk_cv_result_free(res);
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory for %d folds", nfold);
    }
    for (size_t i = 0; i < n; i++)
        start[res->fold[i]]++;
    for (int f = 0; f < nfold; f++)
        start[f + 1] += start[f];
    for (size_t i = 0; i < n; i++) {
        int f = res->fold[i] - 1;
        member[start[f] + fill[f]++] = i;
    }
    size_t maxfold = 0;
    for (int f = 0; f < nfold; f++)
        if (fill[f] > maxfold)
            maxfold = fill[f];
    free(fill);

    const char *why, *avoid;
    gk_cv_method best = method_why(&a, n, maxfold, &why, &avoid);
    if (best == GK_CV_NONE) {
        free(start);
        free(member);
        gk_cv_result_free(res);
        return gk_error(ctx, GK_ERR_ARG, "cross-validation: %s %s%s%s", gk_algorithm_name(&a), why,
                        avoid ? ": " : "", avoid ? avoid : "");
    }
    if (how == GK_CV_AUTO)
        how = best;
    if (how != GK_CV_REBUILD && how != best) {
        free(start);
        free(member);
        gk_cv_result_free(res);
        return gk_error(ctx, GK_ERR_ARG, "cross-validation: %s cannot be cross-validated by %s",
                        a.canonical, method_name(how));
    }
    res->method = method_name(how);
    snprintf(res->device, sizeof res->device, "cpu");
    int device;
    if (gk_device_requested(ctx, &device)) {
        free(start);
        free(member);
        gk_cv_result_free(res);
        return gk_errno(ctx);
    }
    if (device >= GK_DEV_CUDA && (how != GK_CV_HOLDOUT || !gpu_fits(&a)))
        snprintf(res->device, sizeof res->device,
                 "cpu (the GPU cross-validates local kriging with 1 to 64 neighbours, without "
                 "per-quadrant search or drift rasters)");

    double bx0, by0, bx1, by1;
    gk_points_bounds(pts, &bx0, &by0, &bx1, &by1);
    int threads = ctx->threads > 0 ? ctx->threads : omp_get_num_procs();
    if (threads > nfold)
        threads = nfold;
    cv_run r = {.ctx = ctx,
                .pts = pts,
                .drift = drift,
                .a = &a,
                .nfold = nfold,
                .part = part,
                .parts = parts,
                .start = start,
                .member = member,
                .extent = fmax(bx1 - bx0, by1 - by0),
                .threads = threads,
                .device = device,
                .res = res};
    r.progress = progress;
    r.progress_user = progress_user;
    for (int f = part; f < nfold; f += parts)
        r.total += start[f + 1] - start[f];
    if (how == GK_CV_REBUILD) {
        r.why = why;
        r.avoid = avoid;
    }
    r.t0 = omp_get_wtime();
    if (progress && !progress(0.0, NULL, progress_user))
        r.stop = gk_error(ctx, GK_ERR_CANCELLED, "cross-validation: cancelled");
    else if (how == GK_CV_HOLDOUT)
        run_holdout(&r);
    else if (how == GK_CV_DUBRULE)
        run_dubrule(&r);
    else
        run_rebuild(&r);
    free(start);
    free(member);
    if (r.stop) {
        gk_cv_result_free(res);
        return r.stop;
    }
    gk_cv_summarize(res);
    return GK_OK;
}
