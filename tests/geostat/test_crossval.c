/* SPDX-License-Identifier: MIT */
/* test_crossval.c - gk_crossval (algorithms/geostat/crossval.c) on cases computed by
 * hand: leave-one-out of nearest and invdist, duplicates as exact hits, the
 * k-fold partition, failed predictions counted (not averaged), bad input,
 * the same answer on 1 or many threads, and external drift's covariates. */
#include "geostat/crossval.h"
#include "gridkit.h"
#include "gridkit_geostat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gk_check.h"

static gk_points *make_points(gk_context *ctx, const double (*p)[3], size_t n)
{
    gk_points *pts = gk_points_new(ctx);
    for (size_t i = 0; i < n; i++)
        gk_points_add(pts, p[i][0], p[i][1], p[i][2]);
    return pts;
}

static int run_cv(gk_context *ctx, const gk_points *pts, const char *spec, int nfold, unsigned seed,
                  gk_cv_result *res)
{
    gk_algorithm *alg = gk_algorithm_parse(ctx, spec);
    if (!alg) {
        fprintf(stderr, "parse %s: %s\n", spec, gk_errmsg(ctx));
        memset(res, 0, sizeof *res);
        return -1;
    }
    int rc = gk_crossval(ctx, pts, alg, nfold, seed, res);
    gk_algorithm_free(alg);
    return rc;
}

/* Three collinear points, x = 0, 1, 3, z = 1, 2, 4: the nearest other point of
 * each is x=1, x=0, x=1, so the predictions are 2, 1, 2 and the residuals -1, 1, 2. */
static void test_nearest_loo(gk_context *ctx)
{
    const double p[][3] = {{0, 0, 1}, {1, 0, 2}, {3, 0, 4}};
    gk_points *pts = make_points(ctx, p, 3);
    gk_cv_result r;
    CHECK(run_cv(ctx, pts, "nearest", 0, 1, &r) == GK_OK);
    CHECK(r.n == 3 && r.nfold == 3 && r.n_failed == 0);
    const double pred[] = {2, 1, 2}, resid[] = {-1, 1, 2};
    for (int i = 0; i < 3; i++) {
        CHECK(r.predicted[i] == pred[i]);
        CHECK(r.residual[i] == resid[i]);
        CHECK(r.observed[i] == p[i][2]);
        CHECK(isnan(r.variance[i]) && isnan(r.zscore[i]));
        CHECK(r.fold[i] == i + 1);
    }
    CHECK_NEAR(r.mean_error, 2.0 / 3.0, 1e-15);
    CHECK_NEAR(r.rmse, sqrt(2.0), 1e-15);
    CHECK_NEAR(r.mae, 4.0 / 3.0, 1e-15);
    /* observed (1,2,4) vs predicted (2,1,2): cov 1/3, ss 42/9 and 6/9 */
    CHECK_NEAR(r.cor, 3.0 / sqrt(252.0), 1e-14);
    CHECK(isnan(r.mean_z) && isnan(r.var_z) && isnan(r.msdr));
    gk_cv_result_free(&r);
    /* nfold = n is leave-one-out too */
    CHECK(run_cv(ctx, pts, "nearest", 3, 99, &r) == GK_OK);
    CHECK(r.predicted[0] == 2 && r.predicted[1] == 1 && r.predicted[2] == 2);
    gk_cv_result_free(&r);
    gk_points_free(pts);
}

/* invdist power 2, all points: point 0 from the other three at squared
 * distances 4, 1, 18: (3/4 + 5/1 + 7/18) / (1/4 + 1 + 1/18). */
static void test_invdist_loo(gk_context *ctx)
{
    const double p[][3] = {{0, 0, 1}, {2, 0, 3}, {0, 1, 5}, {3, 3, 7}};
    gk_points *pts = make_points(ctx, p, 4);
    gk_cv_result r;
    CHECK(run_cv(ctx, pts, "invdist:power=2", 0, 1, &r) == GK_OK);
    CHECK(r.n == 4 && r.n_failed == 0);
    CHECK_NEAR(r.predicted[0], (3.0 / 4 + 5.0 + 7.0 / 18) / (1.0 / 4 + 1.0 + 1.0 / 18), 1e-13);
    /* point 3 from (0,0) d2 18, (2,0) d2 10, (0,1) d2 13 */
    CHECK_NEAR(r.predicted[3], (1.0 / 18 + 3.0 / 10 + 5.0 / 13) / (1.0 / 18 + 1.0 / 10 + 1.0 / 13),
               1e-13);
    /* all four by brute force, and the summary from them */
    double se = 0, se2 = 0, sa = 0;
    for (int i = 0; i < 4; i++) {
        double sw = 0, swz = 0;
        for (int j = 0; j < 4; j++) {
            if (j == i)
                continue;
            double dx = p[j][0] - p[i][0], dy = p[j][1] - p[i][1], w = 1.0 / (dx * dx + dy * dy);
            sw += w;
            swz += w * p[j][2];
        }
        CHECK_NEAR(r.predicted[i], swz / sw, 1e-13);
        double e = p[i][2] - swz / sw;
        CHECK_NEAR(r.residual[i], e, 1e-12);
        se += e;
        se2 += e * e;
        sa += fabs(e);
    }
    CHECK_NEAR(r.mean_error, se / 4, 1e-12);
    CHECK_NEAR(r.rmse, sqrt(se2 / 4), 1e-12);
    CHECK_NEAR(r.mae, sa / 4, 1e-12);
    gk_cv_result_free(&r);
    gk_points_free(pts);
}

/* A duplicate of the held-out point at the same place is an exact hit: the
 * correct leave-one-out answer is its value, whatever the others say. */
static void test_duplicates(gk_context *ctx)
{
    const double p[][3] = {{100, 200, 1}, {100, 200, 3}, {105, 200, 10}, {100, 207, 20}};
    gk_points *pts = make_points(ctx, p, 4);
    gk_cv_result r;
    CHECK(run_cv(ctx, pts, "invdist:power=2", 0, 1, &r) == GK_OK);
    CHECK(r.predicted[0] == 3);
    CHECK(r.predicted[1] == 1);
    gk_cv_result_free(&r);
    gk_points_free(pts);
}

static void test_partition(gk_context *ctx)
{
    enum { N = 103, K = 7 };
    int a[N], b[N], c[N], count[K + 1] = {0};
    gk_cv_partition(N, K, 42, a);
    gk_cv_partition(N, K, 42, b);
    gk_cv_partition(N, K, 43, c);
    int same_seed = 1, other_seed_differs = 0, in_range = 1;
    for (int i = 0; i < N; i++) {
        in_range &= a[i] >= 1 && a[i] <= K;
        if (a[i] >= 1 && a[i] <= K)
            count[a[i]]++;
        same_seed &= a[i] == b[i];
        other_seed_differs |= a[i] != c[i];
    }
    CHECK(in_range);
    CHECK(same_seed);
    CHECK(other_seed_differs);
    int total = 0;
    for (int f = 1; f <= K; f++) {
        CHECK(count[f] == N / K || count[f] == N / K + 1); /* balanced, none empty */
        total += count[f];
    }
    CHECK(total == N); /* every point in exactly one fold */

    /* k-fold nearest: each point's prediction is the nearest point of
     * another fold (brute force), and the folds are the partition's */
    gk_points *pts = gk_points_new(ctx);
    unsigned long long s = 12345;
    for (int i = 0; i < N; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        double x = (double)(s >> 11) / 9007199254740992.0 * 1000;
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        double y = (double)(s >> 11) / 9007199254740992.0 * 1000;
        gk_points_add(pts, x, y, (double)i);
    }
    gk_cv_result r;
    CHECK(run_cv(ctx, pts, "nearest", K, 42, &r) == GK_OK);
    CHECK(r.nfold == K && r.seed == 42);
    const double *x = gk_points_x(pts), *y = gk_points_y(pts), *z = gk_points_z(pts);
    int folds_ok = 1, pred_ok = 1;
    for (int i = 0; i < N; i++) {
        folds_ok &= r.fold[i] == a[i];
        double best = INFINITY, v = NAN;
        for (int j = 0; j < N; j++) {
            if (a[j] == a[i])
                continue;
            double d2 = (x[j] - x[i]) * (x[j] - x[i]) + (y[j] - y[i]) * (y[j] - y[i]);
            if (d2 < best)
                best = d2, v = z[j];
        }
        pred_ok &= r.predicted[i] == v;
    }
    CHECK(folds_ok);
    CHECK(pred_ok);

    /* same results on one thread and on several */
    gk_cv_result r1;
    gk_context_set_threads(ctx, 1);
    CHECK(run_cv(ctx, pts, "invdist:power=2:radius1=300:radius2=300:max_points=8", 0, 1, &r1) ==
          GK_OK);
    gk_context_set_threads(ctx, 4);
    gk_cv_result r4;
    CHECK(run_cv(ctx, pts, "invdist:power=2:radius1=300:radius2=300:max_points=8", 0, 1, &r4) ==
          GK_OK);
    gk_context_set_threads(ctx, 0);
    CHECK(r1.n == N && r4.n == N);
    CHECK(memcmp(r1.predicted, r4.predicted, N * sizeof(double)) == 0);
    CHECK(r1.rmse == r4.rmse);
    gk_cv_result_free(&r1);
    gk_cv_result_free(&r4);
    gk_cv_result_free(&r);
    gk_points_free(pts);
}

/* An isolated point has no neighbour within the radius: its prediction fails
 * and is counted, not averaged in. A genuine prediction equal to the user's
 * nodata (here 2, or gdal_grid's default 0) is not a failure. */
static void test_failed(gk_context *ctx)
{
    const double p[][3] = {{0, 0, 1}, {1, 0, 2}, {10, 10, 100}};
    gk_points *pts = make_points(ctx, p, 3);
    const char *specs[] = {"invdistnn:radius=1.5", "invdistnn:radius=1.5:nodata=2",
                           "invdistnn:radius=1.5:nodata=nan", "nearest:radius1=1.5:radius2=1.5"};
    for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
        gk_cv_result r;
        CHECK(run_cv(ctx, pts, specs[k], 0, 1, &r) == GK_OK);
        CHECK(r.n == 3);
        CHECK(r.n_failed == 1);
        CHECK(r.predicted[0] == 2 && r.predicted[1] == 1);
        CHECK(isnan(r.predicted[2]) && isnan(r.residual[2]));
        CHECK_NEAR(r.mean_error, 0.0, 1e-15);
        CHECK_NEAR(r.rmse, 1.0, 1e-15);
        CHECK_NEAR(r.mae, 1.0, 1e-15);
        CHECK_NEAR(r.cor, -1.0, 1e-15);
        gk_cv_result_free(&r);
    }
    gk_points_free(pts);
}

/* gk_cv_summarize on hand-made z-scores: mean, R's var (n-1) and mean z^2. */
static void test_summary_z(void)
{
    double obs[] = {1, 2, 3, 4}, pred[] = {1.5, 2.5, 2, 4}, var[] = {0.25, 1, 4, 1};
    double res[4], z[4];
    int fold[] = {1, 2, 3, 4};
    for (int i = 0; i < 4; i++) {
        res[i] = obs[i] - pred[i];
        z[i] = res[i] / sqrt(var[i]);
    }
    gk_cv_result r = {0};
    r.n = 4;
    r.observed = obs;
    r.predicted = pred;
    r.variance = var;
    r.residual = res;
    r.zscore = z;
    r.fold = fold;
    gk_cv_summarize(&r);
    /* z = -1, -0.5, 0.5, 0 */
    CHECK_NEAR(r.mean_z, -0.25, 1e-15);
    CHECK_NEAR(r.var_z, (0.5625 + 0.0625 + 0.5625 + 0.0625) / 3.0, 1e-15);
    CHECK_NEAR(r.msdr, (1 + 0.25 + 0.25 + 0) / 4.0, 1e-15);
    CHECK_NEAR(r.mean_error, 0.0, 1e-15);
}

static void test_bad_input(gk_context *ctx)
{
    const double p[][3] = {{0, 0, 1}, {1, 0, 2}, {3, 0, 4}};
    gk_points *pts = make_points(ctx, p, 3);
    gk_points *one = make_points(ctx, p, 1);
    gk_cv_result r;
    gk_error_clear(ctx);
    CHECK(run_cv(ctx, pts, "nearest", 1, 1, &r) == GK_ERR_ARG);
    CHECK(strstr(gk_errmsg(ctx), "nfold") != NULL);
    CHECK(r.n == 0 && r.predicted == NULL);
    CHECK(run_cv(ctx, pts, "nearest", 4, 1, &r) == GK_ERR_ARG);
    CHECK(strstr(gk_errmsg(ctx), "nfold") != NULL);
    CHECK(run_cv(ctx, one, "nearest", 0, 1, &r) == GK_ERR_NO_POINTS);
    CHECK(strstr(gk_errmsg(ctx), "at least 2 points") != NULL);
    CHECK(run_cv(ctx, pts, "count", 0, 1, &r) == GK_ERR_ARG);
    CHECK(strstr(gk_errmsg(ctx), "does not predict") != NULL);
    gk_cv_result_free(&r);
    gk_points_free(pts);
    gk_points_free(one);
}

/* Kriging with external drift: the covariate g = x^2/100 + y, a curve the
 * coordinates' own drift cannot follow. z = 3 + 2 g exactly, so every fold's
 * prediction is exact (KED is unbiased for its drift, and the residuals are
 * zero); without the covariates the run is refused by name. */
static int drift_g(void *user, size_t n, const double *x, const double *y, double *out)
{
    (void)user;
    for (size_t i = 0; i < n; i++)
        out[i] = x[i] * x[i] / 100.0 + y[i];
    return 0;
}

static void test_external_drift(gk_context *ctx)
{
    enum { N = 40 };
    gk_points *pts = gk_points_new(ctx);
    double g[N];
    unsigned s = 12345;
    for (int i = 0; i < N; i++) {
        s = s * 1103515245u + 12345u;
        double x = (s >> 8) % 1000 / 10.0;
        s = s * 1103515245u + 12345u;
        double y = (s >> 8) % 1000 / 10.0;
        drift_g(NULL, 1, &x, &y, &g[i]);
        gk_points_add(pts, x, y, 3.0 + 2.0 * g[i]);
    }
    gk_algorithm *alg = gk_algorithm_parse(
        ctx, "kriging:type=universal:drift_raster=g.tif:model=Exp:psill=1:range=30:nugget=0.01");
    CHECK(alg != NULL);
    gk_cv_result r;
    CHECK(gk_crossval(ctx, pts, alg, 0, 1, &r) == GK_ERR_ARG);
    CHECK(strstr(gk_errmsg(ctx), "1 drift raster and needs their values at the points") != NULL);
    gk_cv_result_free(&r);
    gk_cv_drift d = {1, g, drift_g, NULL};
    for (int nfold = 0; nfold <= 5; nfold += 5) {
        CHECK(gk_crossval_part_drift(ctx, pts, alg, nfold, 7, 0, 1, &d, NULL, NULL, &r) == GK_OK);
        gk_cv_summarize(&r);
        CHECK(r.n == N && r.n_failed == 0);
        for (int i = 0; i < N; i++) {
            gk_cv_fill(&r, (size_t)i);
            CHECK_NEAR(r.predicted[i], r.observed[i], 1e-9 * fabs(r.observed[i]));
        }
        gk_cv_result_free(&r);
    }
    /* values or a sampler missing */
    gk_cv_drift nov = {1, NULL, drift_g, NULL}, nos = {1, g, NULL, NULL};
    CHECK(gk_crossval_part_drift(ctx, pts, alg, 0, 1, 0, 1, &nov, NULL, NULL, &r) == GK_ERR_ARG);
    CHECK(gk_crossval_part_drift(ctx, pts, alg, 0, 1, 0, 1, &nos, NULL, NULL, &r) == GK_ERR_ARG);
    CHECK(strstr(gk_errmsg(ctx), "1 drift raster and needs their values at the points") != NULL);
    /* a drift of the wrong size is refused too */
    gk_cv_drift two = {2, g, drift_g, NULL};
    CHECK(gk_crossval_part_drift(ctx, pts, alg, 0, 1, 0, 1, &two, NULL, NULL, &r) == GK_ERR_ARG);
    gk_cv_result_free(&r);
    gk_algorithm_free(alg);
    gk_points_free(pts);
}

/* The summary's statistics that need two values or a spread: one finite
 * prediction gives the errors but no correlation; observed values all
 * equal, no correlation either; one z-score, its mean and msdr but no
 * variance. */
static void test_summary_edges(void)
{
    double obs[] = {2, 2, 2}, pred[] = {1, 3, NAN}, var[] = {4, NAN, 1};
    double res[3], z[3];
    int fold[] = {1, 2, 3};
    gk_cv_result r = {0};
    r.n = 3;
    r.observed = obs, r.predicted = pred, r.variance = var;
    r.residual = res, r.zscore = z, r.fold = fold;
    for (size_t i = 0; i < 3; i++)
        gk_cv_fill(&r, i);
    gk_cv_summarize(&r);
    CHECK(r.n_failed == 1);
    CHECK_NEAR(r.mean_error, 0.0, 1e-15);
    CHECK_NEAR(r.rmse, 1.0, 1e-15);
    CHECK(isnan(r.cor)); /* observed without spread */
    CHECK_NEAR(r.mean_z, 0.5, 1e-15); /* z = (2 - 1) / 2 */
    CHECK_NEAR(r.msdr, 0.25, 1e-15);
    CHECK(isnan(r.var_z));
    pred[1] = NAN;
    obs[0] = 5;
    gk_cv_fill(&r, 0);
    gk_cv_summarize(&r);
    CHECK(r.n_failed == 2);
    CHECK_NEAR(r.mean_error, 4.0, 1e-15);
    CHECK_NEAR(r.mae, 4.0, 1e-15);
    CHECK(isnan(r.cor));
    gk_cv_result_free(NULL); /* nothing to free */
}

/* The entry's refusals (each by name), the way asked for when it cannot
 * take the algorithm, GRIDKIT_DEVICE's check, and the ways auto takes. */
static void test_api_edges(gk_context *ctx)
{
    const double p[][3] = {{0, 0, 1}, {10, 0, 2}, {0, 10, 4}, {10, 10, 3}, {5, 4, 2.5}};
    gk_points *pts = make_points(ctx, p, 5);
    gk_algorithm *near = gk_algorithm_parse(ctx, "nearest");
    gk_algorithm *glob = gk_algorithm_parse(ctx, "kriging:model=Exp:psill=1:range=10:nugget=0.1");
    gk_algorithm *loc =
        gk_algorithm_parse(ctx, "kriging:model=Exp:psill=1:range=10:nugget=0.1:max_points=3");
    gk_cv_result r;
    CHECK(gk_crossval_part(ctx, pts, near, 0, 1, 1, 1, &r) == GK_ERR_ARG);
    CHECK(strstr(gk_errmsg(ctx), "cross-validation: part 1 of 1") != NULL);
    CHECK(gk_crossval_part(ctx, pts, near, 0, 1, -1, 2, &r) == GK_ERR_ARG);
    CHECK(gk_crossval_part(ctx, pts, near, 0, 1, 0, 0, &r) == GK_ERR_ARG);
    CHECK(strstr(gk_errmsg(ctx), "part 0 of 0") != NULL);
    CHECK(gk_crossval(ctx, pts, NULL, 0, 1, &r) == GK_ERR_ARG);
    CHECK(strstr(gk_errmsg(ctx), "no algorithm given") != NULL);
    CHECK(gk_crossval(ctx, NULL, near, 0, 1, &r) == GK_ERR_NO_POINTS);
    CHECK(strstr(gk_errmsg(ctx), "got 0") != NULL && r.n == 0);
    /* a way that would not give the rebuilt answer */
    CHECK(gk_crossval_with(ctx, pts, near, 0, 1, 0, 1, GK_CV_DUBRULE, &r) == GK_ERR_ARG);
    CHECK(strstr(gk_errmsg(ctx), "cannot be cross-validated by dubrule") != NULL);
    CHECK(gk_crossval_with(ctx, pts, glob, 0, 1, 0, 1, GK_CV_HOLDOUT, &r) == GK_ERR_ARG);
    CHECK(strstr(gk_errmsg(ctx), "cannot be cross-validated by holdout") != NULL);
    /* the ways auto takes: the closed form for global kriging, one index for
     * local kriging, a job per fold where a fold leaves fewer points than
     * min_points (the rebuild reports such folds) */
    CHECK(gk_cv_method_for(glob, 5, 1) == GK_CV_DUBRULE);
    CHECK(gk_cv_method_for(loc, 5, 1) == GK_CV_HOLDOUT);
    CHECK(gk_cv_method_for(near, 5, 1) == GK_CV_HOLDOUT);
    CHECK(gk_cv_method_for(near, 5, 5) == GK_CV_REBUILD);
    gk_algorithm *few =
        gk_algorithm_parse(ctx, "kriging:model=Exp:psill=1:range=10:max_points=8:min_points=5");
    CHECK(few && gk_cv_method_for(few, 5, 1) == GK_CV_REBUILD);
    CHECK(few && gk_cv_method_for(few, 6, 1) == GK_CV_HOLDOUT);
    /* four points left where five are needed: every prediction fails, counted */
    CHECK(few && gk_crossval(ctx, pts, few, 0, 1, &r) == GK_OK);
    gk_cv_summarize(&r);
    CHECK(r.n == 5 && r.n_failed == 5 && r.method && !strcmp(r.method, "rebuild"));
    gk_cv_result_free(&r);
    gk_algorithm_free(few);
    /* GRIDKIT_DEVICE read when the context says nothing */
    setenv("GRIDKIT_DEVICE", "gpu0", 1);
    CHECK(gk_crossval(ctx, pts, near, 0, 1, &r) == GK_ERR_ARG);
    CHECK(strstr(gk_errmsg(ctx), "GRIDKIT_DEVICE: 'gpu0'") != NULL && r.n == 0);
    /* cuda asked for, global kriging: the closed form on the cores, and the
     * result says why */
    setenv("GRIDKIT_DEVICE", "cuda", 1);
    CHECK(gk_crossval(ctx, pts, glob, 0, 1, &r) == GK_OK);
    CHECKF(!strcmp(r.method, "dubrule") &&
               !strncmp(r.device, "cpu (the GPU cross-validates local kriging", 41),
           "%s %s", r.method, r.device);
    gk_cv_result_free(&r);
    unsetenv("GRIDKIT_DEVICE");
    gk_algorithm_free(near);
    gk_algorithm_free(glob);
    gk_algorithm_free(loc);
    gk_points_free(pts);
    gk_error_clear(ctx);
}

/* Every point at the origin: no extent for the prediction's cell (a cell
 * of 1), and each point's nearest other is its duplicate. Global kriging
 * of duplicates without a nugget is singular: the closed form predicts
 * nothing, every point counted failed (as every node of a grid is nodata). */
static void test_degenerate(gk_context *ctx)
{
    const double p[][3] = {{0, 0, 1}, {0, 0, 2}};
    gk_points *pts = make_points(ctx, p, 2);
    gk_cv_result r;
    CHECK(run_cv(ctx, pts, "nearest", 0, 1, &r) == GK_OK);
    CHECK(r.n == 2 && r.predicted[0] == 2 && r.predicted[1] == 1);
    gk_cv_result_free(&r);
    gk_points_free(pts);
    const double q[][3] = {{0, 0, 1}, {10, 0, 2}, {10, 0, 3}, {0, 10, 4}, {7, 7, 5}};
    pts = make_points(ctx, q, 5);
    CHECK(run_cv(ctx, pts, "kriging:model=Exp:psill=1:range=10", 0, 1, &r) == GK_OK);
    gk_cv_summarize(&r);
    CHECK(r.n == 5 && r.n_failed == 5 && !strcmp(r.method, "dubrule"));
    for (int i = 0; i < 5; i++)
        CHECK(isnan(r.predicted[i]) && isnan(r.variance[i]) && isnan(r.zscore[i]));
    gk_cv_result_free(&r);
    gk_points_free(pts);
}

int main(void)
{
    gk_context *ctx = gk_context_new();
    test_nearest_loo(ctx);
    test_invdist_loo(ctx);
    test_duplicates(ctx);
    test_partition(ctx);
    test_failed(ctx);
    test_summary_z();
    test_bad_input(ctx);
    test_external_drift(ctx);
    test_summary_edges();
    test_api_edges(ctx);
    test_degenerate(ctx);
    gk_context_free(ctx);
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
