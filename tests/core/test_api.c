/* SPDX-License-Identifier: MIT */
/*
 * test_api.c - the C API's contract at its edges (gridkit.h): what each call
 * refuses, with which code and which words, and what a caller's callback can
 * do to a run (stop it, fail it). The values themselves are the other tests'
 * business; here a refusal must be clean (NULL or the code, the message
 * naming the culprit) and a stopped run must say so.
 */
#include "gridkit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gk_check.h"

static gk_points *points(gk_context *ctx, int n, double nan_at)
{
    gk_points *p = gk_points_new(ctx);
    for (int i = 0; i < n; i++)
        gk_points_add(p, i == (int)nan_at ? NAN : 10.0 * (i % 7), 10.0 * (i / 7), (double)i);
    return p;
}

static gk_algorithm *alg(gk_context *ctx, const char *spec)
{
    gk_algorithm *a = gk_algorithm_parse(ctx, spec);
    CHECKF(a != NULL, "%s: %s", spec, gk_errmsg(ctx));
    return a;
}

static int contains(const char *s, const char *w) { return s && strstr(s, w) != NULL; }

/* gk_job_new refuses an empty set, a non-finite coordinate (naming the point,
 * 1-based as the files' lines are), and an unknown algorithm kind. */
static void test_job_new(gk_context *ctx)
{
    gk_algorithm *a = alg(ctx, "invdist:power=2");
    gk_points *none = gk_points_new(ctx);
    CHECK(gk_job_new(ctx, none, a) == NULL);
    CHECKF(gk_errno(ctx) == GK_ERR_NO_POINTS && contains(gk_errmsg(ctx), "no points"), "%s",
           gk_errmsg(ctx));
    double x0, y0, x1, y1;
    CHECK(gk_points_bounds(none, &x0, &y0, &x1, &y1) == GK_ERR_NO_POINTS);
    gk_points_free(none);

    gk_points *bad = points(ctx, 20, 4); /* the 5th point's x is NaN */
    CHECK(gk_job_new(ctx, bad, a) == NULL);
    CHECKF(gk_errno(ctx) == GK_ERR_ARG && contains(gk_errmsg(ctx), "point 5"), "%s",
           gk_errmsg(ctx));
    gk_points_free(bad);
    gk_algorithm_free(a);
}

typedef struct {
    int tiles, fail_at;
} sink_state;

static int sink(void *user, int x0, int y0, int w, int h, int nbands, const double *v)
{
    (void)x0, (void)y0, (void)w, (void)h, (void)nbands, (void)v;
    sink_state *s = user;
    return ++s->tiles == s->fail_at;
}

typedef struct {
    int calls, stop_at;
} progress_state;

static int progress(double f, const char *msg, void *user)
{
    (void)f, (void)msg;
    progress_state *p = user;
    return ++p->calls < p->stop_at;
}

/* Windows and rows outside the grid are refused with the sizes named; a
 * progress callback that returns 0 cancels (before the first tile or
 * between tiles); a sink that fails stops the run with GK_ERR_IO. */
static void test_runs(gk_context *ctx)
{
    gk_points *p = points(ctx, 49, -1);
    gk_algorithm *a = alg(ctx, "invdist:power=2");
    gk_job *job = gk_job_new(ctx, p, a);
    CHECKF(job != NULL, "%s", gk_errmsg(ctx));
    if (!job)
        return;
    gk_grid g = {0.0, 60.0, 0.0, 60.0, 64, 64};
    double out[16];
    CHECK(gk_job_compute_window(job, &g, 62, 0, 4, 4, out) == GK_ERR_ARG);
    CHECKF(contains(gk_errmsg(ctx), "outside the 64x64 grid"), "%s", gk_errmsg(ctx));
    CHECK(gk_job_compute_window(job, &g, 0, -1, 4, 4, out) == GK_ERR_ARG);
    CHECK(gk_job_compute_window(job, &g, 0, 0, 0, 4, out) == GK_ERR_ARG);
    CHECK(gk_job_compute_window(job, &g, 0, 0, 4, 4, out) == GK_OK);

    sink_state s = {0, 0};
    CHECK(gk_job_run_rows(job, &g, 60, 8, 16, 16, 0, sink, &s, NULL, NULL) == GK_ERR_ARG);
    CHECKF(contains(gk_errmsg(ctx), "outside the 64 rows"), "%s", gk_errmsg(ctx));
    CHECK(gk_job_run_rows(job, &g, 0, 0, 16, 16, 0, sink, &s, NULL, NULL) == GK_ERR_ARG);
    CHECK(s.tiles == 0);

    progress_state pr = {0, 1}; /* stops at its first call, before any tile */
    CHECK(gk_job_run(job, &g, 16, 16, sink, &s, progress, &pr) == GK_ERR_CANCELLED);
    CHECK(s.tiles == 0);
    pr = (progress_state){0, 4}; /* stops after a few tiles of 16 */
    gk_context_set_threads(ctx, 1);
    CHECK(gk_job_run(job, &g, 16, 16, sink, &s, progress, &pr) == GK_ERR_CANCELLED);
    CHECKF(s.tiles > 0 && s.tiles < 16, "%d tiles before the stop", s.tiles);

    s = (sink_state){0, 3}; /* the third tile's sink fails */
    CHECK(gk_job_run(job, &g, 16, 16, sink, &s, NULL, NULL) == GK_ERR_IO);
    CHECK(s.tiles == 3);
    s = (sink_state){0, 0};
    CHECK(gk_job_run(job, &g, 16, 16, sink, &s, NULL, NULL) == GK_OK);
    CHECK(s.tiles == 16);
    CHECK(gk_job_warning(job) == NULL);
    gk_context_set_threads(ctx, 0);
    gk_job_free(job);
    gk_algorithm_free(a);
    gk_points_free(p);
}

/* Float32 tiles are the double tiles converted by gk_value_to_float32, for
 * a window and for a run. */
static float f32_tiles[64 * 64];
static int f32_sink(void *user, int x0, int y0, int w, int h, int nbands, const void *v)
{
    (void)user, (void)nbands;
    const float *f = v;
    for (int j = 0; j < h; j++)
        memcpy(f32_tiles + (size_t)(y0 + j) * 64 + x0, f + (size_t)j * w, (size_t)w * sizeof *f);
    return 0;
}

static void test_typed(gk_context *ctx)
{
    gk_points *p = points(ctx, 49, -1);
    gk_algorithm *a = alg(ctx, "invdistnn:power=1.5:radius=25:max_points=6:nodata=-1");
    gk_job *job = gk_job_new(ctx, p, a);
    CHECKF(job != NULL, "%s", gk_errmsg(ctx));
    if (!job)
        return;
    gk_grid g = {-5.0, 65.0, -5.0, 95.0, 64, 64};
    double *d = malloc(64 * 64 * sizeof *d);
    float *f = malloc(64 * 64 * sizeof *f);
    CHECK(gk_job_compute_window(job, &g, 0, 0, 64, 64, d) == GK_OK);
    CHECK(gk_job_compute_window_typed(job, &g, 0, 0, 64, 64, GK_VALUES_FLOAT32, f) == GK_OK);
    int same = 1;
    for (int i = 0; i < 64 * 64; i++) {
        float e = gk_value_to_float32(d[i]);
        same &= memcmp(&e, f + i, sizeof e) == 0 && memcmp(&e, &(float){(float)d[i]}, 4) == 0;
    }
    CHECK(same);
    CHECK(gk_job_run_typed(job, &g, 0, 64, 16, 16, 0, GK_VALUES_FLOAT32, f32_sink, NULL, NULL,
                           NULL) == GK_OK);
    CHECK(memcmp(f32_tiles, f, sizeof f32_tiles) == 0);
    free(d);
    free(f);
    gk_job_free(job);
    gk_algorithm_free(a);
    gk_points_free(p);
}

int main(void)
{
    gk_context *ctx = gk_context_new();
    gk_context_set_device(ctx, "cpu"); /* the tiles counted are the CPU engine's */
    test_job_new(ctx);
    test_runs(ctx);
    test_typed(ctx);
    gk_context_free(ctx);
    printf("%s: %d checks, %d failures\n", failures ? "FAILED" : "all API tests passed", checks,
           failures);
    return failures != 0;
}
