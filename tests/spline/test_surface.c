/* SPDX-License-Identifier: MIT */
/*
 * test_surface.c - -a surface in the core against exact expectations: data
 * on a plane give that plane; a datum on a node is that node's value; the
 * bounds hold; the grid is the same for any threads, windows, tiles and
 * strips (it is solved once for the whole grid); the refusals name the
 * problem (GMT's surface itself: tests/spline/surface_gmt.py).
 */
#include "gridkit.h"
#include "gridkit_geostat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gk_check.h"
#include "gk_run.h"

static gk_context *ctx;

static gk_points *random_points(int n, unsigned long long seed, double w, double h)
{
    gk_points *p = gk_points_new(ctx);
    for (int i = 0; i < n; i++) {
        const double x = w * gk_test_urand(&seed), y = h * gk_test_urand(&seed);
        gk_points_add(p, x, y, 20 + 0.1 * x - 0.05 * y + 8 * sin(x / 9) * cos(y / 13));
    }
    return p;
}

static void plane_and_nodes(void)
{
    enum { W = 20, H = 16 };
    gk_grid g = {0, 40, 0, 32, W, H}; /* cells of 2: node centres 1, 3, ... */
    gk_points *p = gk_points_new(ctx);
    unsigned long long s = 5;
    for (int i = 0; i < 30; i++) {
        const double x = 40 * gk_test_urand(&s), y = 32 * gk_test_urand(&s);
        gk_points_add(p, x, y, 3 + 0.5 * x - 0.2 * y);
    }
    static double out[W * H];
    CHECK(gk_test_run(ctx, "surface", p, &g, out, NULL) == 1);
    double far = 0;
    for (int j = 0; j < H; j++)
        for (int i = 0; i < W; i++) {
            const double x = gk_grid_node_x(&g, i), y = gk_grid_node_y(&g, j);
            far = fmax(far, fabs(out[j * W + i] - (3 + 0.5 * x - 0.2 * y)));
        }
    CHECKF(far < 1e-9, "a plane's data give the plane (%g off)", far);
    gk_points_free(p);

    /* data on nodes are the nodes' values */
    p = gk_points_new(ctx);
    for (int j = 0; j < H; j += 3)
        for (int i = (j % 2); i < W; i += 4)
            gk_points_add(p, gk_grid_node_x(&g, i), gk_grid_node_y(&g, j),
                          10 * sin(0.4 * i) + j * j * 0.1);
    CHECK(gk_test_run(ctx, "surface:tension=0.3", p, &g, out, NULL) == 1);
    far = 0;
    for (int j = 0; j < H; j += 3)
        for (int i = (j % 2); i < W; i += 4)
            far = fmax(far, fabs(out[j * W + i] - (10 * sin(0.4 * i) + j * j * 0.1)));
    CHECKF(far < 1e-9, "data on nodes (%g off)", far);
    gk_points_free(p);
}

static void bounds_hold(void)
{
    enum { W = 30, H = 25 };
    gk_grid g = {0, 90, 0, 75, W, H};
    gk_points *p = random_points(120, 3, 90, 75);
    static double out[W * H];
    double lo = INFINITY, hi = -INFINITY, dlo = INFINITY, dhi = -INFINITY;
    unsigned long long seed = 3; /* random_points' sequence again */
    for (int k = 0; k < 120; k++) {
        const double x = 90 * gk_test_urand(&seed), y = 75 * gk_test_urand(&seed);
        const double z = 20 + 0.1 * x - 0.05 * y + 8 * sin(x / 9) * cos(y / 13);
        dlo = fmin(dlo, z), dhi = fmax(dhi, z);
    }
    CHECK(gk_test_run(ctx, "surface:lower=data:upper=data", p, &g, out, NULL) == 1);
    for (int q = 0; q < W * H; q++)
        lo = fmin(lo, out[q]), hi = fmax(hi, out[q]);
    CHECKF(lo >= dlo && hi <= dhi, "within the data: %g .. %g of %g .. %g", lo, hi, dlo, dhi);
    CHECK(gk_test_run(ctx, "surface:lower=18:upper=25", p, &g, out, NULL) == 1);
    lo = INFINITY, hi = -INFINITY;
    for (int q = 0; q < W * H; q++)
        lo = fmin(lo, out[q]), hi = fmax(hi, out[q]);
    CHECKF(lo == 18 && hi == 25, "clipped to 18 .. 25: %g .. %g", lo, hi);
    gk_points_free(p);
}

typedef struct {
    double *v;
    int W;
} catcher;

static int catch_tile(void *user, int x0, int y0, int w, int h, int nb, const double *values)
{
    (void)nb;
    catcher *c = user;
    for (int j = 0; j < h; j++)
        memcpy(c->v + (size_t)(y0 + j) * c->W + x0, values + (size_t)j * w, w * sizeof *values);
    return 0;
}

/* The same doubles for threads 1, 2 and 7, windows, tiles and strips, on
 * two data sets (one needs many sweeps: tension 0, odd sizes). */
static void same_bytes(void)
{
    enum { W = 301, H = 231, T = W * H }; /* enough nodes for the sweeps to share them out */
    /* few sweeps (the order is what is tested, not the convergence) */
    const char *specs[2] = {"surface:maxiter=60",
                            "surface:tension=0.4:btension=0.1:relax=1.2:maxiter=60"};
    gk_points *sets[2] = {random_points(3000, 11, 602, 462), random_points(400, 17, 602, 462)};
    gk_grid g = {0, 602, 0, 462, W, H};
    static double ref[T], out[T], part[T];
    for (int d = 0; d < 2; d++) {
        gk_context_set_threads(ctx, 1);
        CHECK(gk_test_run(ctx, specs[d], sets[d], &g, ref, NULL) == 1);
        const int threads[2] = {2, 7};
        for (int t = 0; t < 2; t++) {
            gk_context_set_threads(ctx, threads[t]);
            CHECK(gk_test_run(ctx, specs[d], sets[d], &g, out, NULL) == 1);
            CHECKF(memcmp(ref, out, sizeof ref) == 0, "%s: threads 1 and %d", specs[d],
                   threads[t]);
        }
        gk_algorithm *a = gk_algorithm_parse(ctx, specs[d]);
        gk_job *job = a ? gk_job_new(ctx, sets[d], a) : NULL;
        /* windows, the grid solved once for all of them */
        memset(out, 0, sizeof out);
        for (int y0 = 0; job && y0 < H; y0 += 10)
            for (int x0 = 0; x0 < W; x0 += 13) {
                const int w = x0 + 13 <= W ? 13 : W - x0, h = y0 + 10 <= H ? 10 : H - y0;
                CHECK(gk_job_compute_window(job, &g, x0, y0, w, h, part) == 0);
                for (int j = 0; j < h; j++)
                    memcpy(out + (size_t)(y0 + j) * W + x0, part + (size_t)j * w,
                           w * sizeof *part);
            }
        CHECKF(memcmp(ref, out, sizeof ref) == 0, "%s: windows", specs[d]);
        /* tiles of the engine, and two strips as two processes take them */
        catcher c = {out, W};
        memset(out, 0, sizeof out);
        CHECK(job && gk_job_run(job, &g, 16, 8, catch_tile, &c, NULL, NULL) == 0);
        CHECKF(memcmp(ref, out, sizeof ref) == 0, "%s: tiles", specs[d]);
        memset(out, 0, sizeof out);
        CHECK(job && gk_job_run_rows(job, &g, 0, 20, 0, 0, 0, catch_tile, &c, NULL, NULL) == 0 &&
              gk_job_run_rows(job, &g, 20, H - 20, 0, 0, 0, catch_tile, &c, NULL, NULL) == 0);
        CHECKF(memcmp(ref, out, sizeof ref) == 0, "%s: strips", specs[d]);
        gk_job_free(job);
        gk_algorithm_free(a);
        gk_points_free(sets[d]);
    }
    gk_context_set_threads(ctx, 0);
}

static void refusals(void)
{
    const char *bad[] = {"surface:tension=1",   "surface:btension=-0.1", "surface:relax=2",
                         "surface:maxiter=0",   "surface:converge=-1",   "surface:aspect=0",
                         "surface:lower=5:upper=5", "surface:lower=low",  "surface:radius=3"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        gk_algorithm *a = gk_algorithm_parse(ctx, bad[k]);
        CHECKF(!a && strstr(gk_errmsg(ctx), "surface"), "%s refused: %s", bad[k],
               gk_errmsg(ctx));
        gk_algorithm_free(a);
    }
    gk_points *p = random_points(50, 2, 100, 100);
    double out[64];
    gk_grid small = {0, 100, 0, 100, 2, 8};
    CHECK(gk_test_run(ctx, "surface", p, &small, out, NULL) == 0 &&
          strstr(gk_errmsg(ctx), "at least 3x3"));
    /* solved whole: a grid beyond any machine's memory is refused, not tried */
    gk_grid huge = {0, 100, 0, 100, 200000, 200000};
    CHECKF(gk_test_run(ctx, "surface", p, &huge, out, NULL) == 0 &&
               strstr(gk_errmsg(ctx), "needs about"),
           "a 200000 x 200000 grid: %s", gk_errmsg(ctx));
    gk_grid away = {500, 600, 500, 600, 8, 8};
    CHECK(gk_test_run(ctx, "surface", p, &away, out, NULL) == 0 &&
          strstr(gk_errmsg(ctx), "none of the 50 points"));
    /* too few sweeps: a warning, still a grid */
    gk_grid g = {0, 100, 0, 100, 8, 8};
    gk_algorithm *a = gk_algorithm_parse(ctx, "surface:maxiter=1:converge=1e-12");
    gk_job *job = a ? gk_job_new(ctx, p, a) : NULL;
    CHECK(job && gk_job_compute_window(job, &g, 0, 0, 8, 8, out) == 0 && gk_job_warning(job) &&
          strstr(gk_job_warning(job), "stopped at maxiter=1"));
    gk_job_free(job);
    gk_algorithm_free(a);
    gk_points_free(p);
}

/* Cross-validation: each fold's surface over the other points' box, read at
 * the held-out point bilinearly; data on a plane are predicted exactly. */
static void cross_validation(void)
{
    gk_points *p = gk_points_new(ctx);
    unsigned long long s = 21;
    for (int i = 0; i < 60; i++) {
        const double x = 100 * gk_test_urand(&s), y = 80 * gk_test_urand(&s);
        gk_points_add(p, x, y, 7 - 0.3 * x + 0.45 * y);
    }
    gk_algorithm *a = gk_algorithm_parse(ctx, "surface:tension=0.25");
    gk_cv_result r;
    memset(&r, 0, sizeof r);
    CHECK(a && gk_crossval(ctx, p, a, 0, 1, &r) == 0 && r.n_failed == 0);
    CHECKF(r.rmse < 1e-9, "a plane's points predicted exactly (rmse %g)", r.rmse);
    gk_cv_result_free(&r);
    gk_algorithm_free(a);
    gk_points_free(p);
    p = random_points(150, 23, 100, 80);
    a = gk_algorithm_parse(ctx, "surface:cv_cell=4");
    memset(&r, 0, sizeof r);
    CHECK(a && gk_crossval(ctx, p, a, 5, 3, &r) == 0 && r.n_failed == 0 && r.rmse > 0 &&
          r.rmse < 5);
    gk_cv_result_free(&r);
    gk_algorithm_free(a);
    gk_points_free(p);
}

int main(void)
{
    ctx = gk_context_new();
    gk_context_set_device(ctx, "cpu");
    plane_and_nodes();
    bounds_hold();
    same_bytes();
    refusals();
    cross_validation();
    gk_context_free(ctx);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
