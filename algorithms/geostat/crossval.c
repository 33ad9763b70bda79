/*
 * crossval.c - leave-one-out and k-fold cross-validation (crossval.h).
 *
 * Each fold is an ordinary job on the other folds' points; a held-out point
 * is predicted as the single node of a tiny 1x1 grid centred on it, so every
 * algorithm is cross-validated by exactly the code that grids with it. Folds
 * run in parallel, one job per fold per thread, each thread with a context
 * of its own (a context's error state is single-threaded).
 */
#include "gridkit_geostat.h"

#include "core/gk_internal.h"

#include <math.h>
#include <omp.h>
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
    return r->x && r->y && r->observed && r->predicted && r->variance && r->residual &&
           r->zscore && r->fold;
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
            gk_error(ctx, *stop, "cross-validation fold %d of %d (fitted on the other %zu "
                     "point(s)): %s", fold, nfold, ntrain,
                     tctx->err ? tctx->msg : "failed");
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
    memset(res, 0, sizeof *res);
    if (parts < 1 || part < 0 || part >= parts)
        return gk_error(ctx, GK_ERR_ARG, "cross-validation: part %d of %d", part, parts);
    size_t n = pts ? pts->n : 0;
    if (!alg)
        return gk_error(ctx, GK_ERR_ARG, "cross-validation: no algorithm given");
    if (n < 2)
        return gk_error(ctx, GK_ERR_NO_POINTS,
                        "cross-validation needs at least 2 points, got %zu", n);
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
                        "(%zu)", nfold, n);

    /* The algorithm as gridded, but: "no result" comes back as NaN (the
     * user's nodata, gdal_grid's default 0, may be a genuine prediction),
     * and kriging always reports its variance (for the z-scores). */
    gk_algorithm a = *alg;
    a.nodata = NAN;
    if (a.kind == GK_ALG_KRIGING)
        a.krige.variance = 1;

    if (!alloc_result(res, n)) {
        gk_cv_result_free(res);
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory for %zu cross-validation results", n);
    }
    res->nfold = nfold;
    res->seed = seed;
    memcpy(res->x, pts->x, n * sizeof *res->x);
    memcpy(res->y, pts->y, n * sizeof *res->y);
    memcpy(res->observed, pts->z, n * sizeof *res->observed);
    if ((size_t)nfold == n)
        for (size_t i = 0; i < n; i++)
            res->fold[i] = (int)i + 1;
    else
        gk_cv_partition(n, nfold, seed, res->fold);

    /* Points grouped by fold (counting sort): member[start[f] .. start[f+1]). */
    size_t *start = calloc((size_t)nfold + 1, sizeof *start);
    size_t *member = malloc(n * sizeof *member);
    if (!start || !member) {
        free(start);
        free(member);
        gk_cv_result_free(res);
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory for %d folds", nfold);
    }
    for (size_t i = 0; i < n; i++)
        start[res->fold[i]]++;
    for (int f = 0; f < nfold; f++)
        start[f + 1] += start[f];
    {
        size_t *fill = calloc((size_t)nfold, sizeof *fill);
        if (!fill) {
            free(start);
            free(member);
            gk_cv_result_free(res);
            return gk_error(ctx, GK_ERR_NOMEM, "out of memory for %d folds", nfold);
        }
        for (size_t i = 0; i < n; i++) {
            int f = res->fold[i] - 1;
            member[start[f] + fill[f]++] = i;
        }
        free(fill);
    }

    double bx0, by0, bx1, by1;
    gk_points_bounds(pts, &bx0, &by0, &bx1, &by1);
    double extent = fmax(bx1 - bx0, by1 - by0);

    int threads = ctx->threads > 0 ? ctx->threads : omp_get_num_procs();
    if (threads > nfold)
        threads = nfold;
    int stop = GK_OK, err_fold = 0; /* the fold reported; 0: none, or not a fold's */

#pragma omp parallel num_threads(threads)
    {
        gk_context *tctx = gk_context_new();
        gk_points *train = tctx ? gk_points_new(tctx) : NULL;
        if (tctx) {
            tctx->threads = 1;
            tctx->triangulate = ctx->triangulate;
            tctx->triangulate_user = ctx->triangulate_user;
        }
        if (!train || gk_points_reserve(train, n)) {
#pragma omp critical(gk_cv_error)
            {
                if (!stop)
                    stop = gk_error(ctx, GK_ERR_NOMEM, "out of memory for a fold's points");
            }
        }
#pragma omp for schedule(dynamic, 1)
        for (int f = 0; f < nfold; f++) {
            int skip;
#pragma omp critical(gk_cv_error)
            skip = stop && (err_fold == 0 || f + 1 > err_fold);
            if (skip || f % parts != part) /* another process's fold */
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
            gk_job *job = gk_job_new(tctx, train, &a);
            if (!job) {
                report_error(ctx, tctx, &stop, &err_fold, f + 1, nfold, train->n);
                continue;
            }
            int nb = gk_job_bands(job);
            if (nb < 1 || nb > 2) {
                gk_error(tctx, GK_ERR_INTERNAL, "cross-validation: %s writes %d planes",
                         a.canonical, nb);
                report_error(ctx, tctx, &stop, &err_fold, f + 1, nfold, train->n);
                gk_job_free(job);
                continue;
            }
            for (size_t k = start[f]; k < start[f + 1]; k++) {
                size_t i = member[k];
                double x = pts->x[i], y = pts->y[i], h = cell_size(extent, x, y);
                gk_grid g = {x - 0.5 * h, x + 0.5 * h, y - 0.5 * h, y + 0.5 * h, 1, 1};
                double out[2] = {NAN, NAN};
                if (gk_job_compute_window(job, &g, 0, 0, 1, 1, out)) {
                    report_error(ctx, tctx, &stop, &err_fold, f + 1, nfold, train->n);
                    break;
                }
                double p = out[0], v = nb == 2 ? out[1] : NAN;
                if (!isfinite(p))
                    p = v = NAN;
                res->predicted[i] = p;
                res->variance[i] = v;
                gk_cv_fill(res, i);
            }
            gk_job_free(job);
        }
        gk_points_free(train);
        gk_context_free(tctx);
    }
    free(start);
    free(member);
    if (stop) {
        gk_cv_result_free(res);
        return stop;
    }
    gk_cv_summarize(res);
    return GK_OK;
}
