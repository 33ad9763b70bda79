/* SPDX-License-Identifier: MIT */
/*
 * test_kriging.c - kriging in the core against exact expectations: exact
 * interpolation, simple kriging's closed form, unbiasedness, trend
 * reproduction, block versus point variance, singular systems, local versus
 * global, gstat's quadrant rule, external drift, and parameter errors.
 * (The comparison with gstat on meuse lives in tests/geostat/gstat/.)
 */
#include "core/gk_internal.h"
#include "gridkit_geostat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gk_check.h"
#include "gk_run.h"

static gk_context *ctx;

static int run(const char *spec, const gk_points *pts, const gk_grid *g, double *out,
               gk_run_stats *st)
{
    return gk_test_run(ctx, spec, pts, g, out, st);
}

static gk_points *make_points(int n, const double *x, const double *y, const double *z)
{
    gk_points *p = gk_points_new(ctx);
    for (int i = 0; i < n; i++)
        gk_points_add(p, x[i], y[i], z[i]);
    return p;
}

static unsigned long long lcg = 12345; /* gk_test_urand's sequence */

static void test_exact_interpolation(void)
{
    /* Points on integer nodes of a 10 x 10 grid over [0,10]^2: node (i, j) is
     * at (i + 0.5, 9.5 - j). */
    enum { N = 10 };
    double x[N], y[N], z[N];
    static const int cx[N] = {0, 7, 4, 1, 8, 5, 2, 9, 6, 3};
    static const int cy[N] = {3, 9, 0, 6, 2, 8, 5, 1, 7, 4};
    for (int i = 0; i < N; i++) {
        x[i] = cx[i] + 0.5;
        y[i] = cy[i] + 0.5;
        z[i] = 10 + i * 1.7 - (i % 3);
    }
    gk_points *p = make_points(N, x, y, z);
    gk_grid g = {0, 10, 0, 10, 10, 10};
    double out[200];
    const char *specs[] = {"kriging:model=Sph:psill=4:range=6",
                           "kriging:model=Exp:psill=4:range=3:max_points=5",
                           "kriging:model=Sph:psill=4:range=6:nugget=1",
                           "kriging:type=simple:mean=12:model=Gau:psill=4:range=3:nugget=0.5",
                           "kriging:drift=linear:model=Sph:psill=4:range=8:max_points=8"};
    for (size_t s = 0; s < sizeof specs / sizeof *specs; s++) {
        CHECKF(run(specs[s], p, &g, out, NULL) == 2, "%s did not run", specs[s]);
        for (int i = 0; i < N; i++) {
            int col = (int)x[i], row = 9 - (int)y[i];
            double e = out[row * 10 + col], v = out[100 + row * 10 + col];
            CHECKF(fabs(e - z[i]) < 1e-9, "%s: estimate %.15g at datum %d, want %.15g", specs[s], e,
                   i, z[i]);
            CHECKF(fabs(v) < 1e-9, "%s: variance %.3g at datum %d, want 0", specs[s], v, i);
        }
    }
    gk_points_free(p);
}

static void test_simple_closed_form(void)
{
    double x = 3, y = 4, z = 7, m = 2, c = 5, a = 10, nug = 0.5;
    gk_points *p = make_points(1, &x, &y, &z);
    gk_grid g = {0, 20, 0, 20, 4, 4};
    double out[32];
    CHECKF(run("kriging:type=simple:mean=2:model=Exp:psill=5:range=10:nugget=0.5", p, &g, out,
               NULL) == 2,
           "simple kriging did not run");
    double c0 = c + nug;
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 4; i++) {
            double h = hypot(gk_grid_node_x(&g, i) - x, gk_grid_node_y(&g, j) - y);
            double ch = c * exp(-h / a); /* h > 0: no nugget */
            double est = m + ch / c0 * (z - m), var = c0 - ch * ch / c0;
            CHECKF(fabs(out[j * 4 + i] - est) < 1e-12, "SK estimate %.15g want %.15g",
                   out[j * 4 + i], est);
            CHECKF(fabs(out[16 + j * 4 + i] - var) < 1e-12, "SK variance %.15g want %.15g",
                   out[16 + j * 4 + i], var);
        }
    /* an empty neighbourhood: the mean and C(0), as gstat */
    CHECKF(run("kriging:type=simple:mean=2:model=Exp:psill=5:range=10:nugget=0.5:radius=1", p, &g,
               out, NULL) == 2,
           "SK radius did not run");
    CHECKF(out[0] == 2 && out[16] == c0, "empty SK: %g %g, want 2 %g", out[0], out[16], c0);
    gk_points_free(p);
}

static void test_weights_sum_to_one(void)
{
    enum { N = 9 };
    double x[N], y[N], z[N];
    for (int i = 0; i < N; i++)
        x[i] = gk_test_urand(&lcg) * 100, y[i] = gk_test_urand(&lcg) * 100;
    gk_grid g = {0, 100, 0, 100, 7, 5};
    double sum[35] = {0}, out[70];
    const char *spec[] = {"kriging:model=Sph:psill=1:range=60:nugget=0.1",
                          "kriging:model=Pow:psill=0.2:range=1.5:max_points=6",
                          "kriging:model=Lin:psill=0.01:range=0:max_points=7"};
    for (int s = 0; s < 3; s++) {
        memset(sum, 0, sizeof sum);
        for (int j = 0; j < N; j++) { /* z = e_j gives weight j */
            for (int i = 0; i < N; i++)
                z[i] = i == j;
            gk_points *p = make_points(N, x, y, z);
            CHECKF(run(spec[s], p, &g, out, NULL) == 2, "%s did not run", spec[s]);
            for (int q = 0; q < 35; q++)
                sum[q] += out[q];
            gk_points_free(p);
        }
        for (int q = 0; q < 35; q++)
            CHECKF(fabs(sum[q] - 1) < 1e-10, "%s: OK weights sum to %.15g", spec[s], sum[q]);
    }
}

static void test_trend_reproduction(void)
{
    enum { N = 40 };
    double x[N], y[N], z[N];
    for (int i = 0; i < N; i++) {
        x[i] = 1000 + gk_test_urand(&lcg) * 100;
        y[i] = 5000 + gk_test_urand(&lcg) * 100;
        z[i] = 2 + 0.5 * x[i] - 0.3 * y[i];
    }
    gk_points *p = make_points(N, x, y, z);
    gk_grid g = {1010, 1090, 5010, 5090, 9, 8};
    double out[144];
    const char *spec[] = {"kriging:drift=linear:model=Exp:psill=3:range=20",
                          "kriging:drift=linear:model=Exp:psill=3:range=20:nugget=1:max_points=10",
                          "kriging:drift=quadratic:model=Sph:psill=3:range=50:max_points=15",
                          "kriging:drift=linear:model=Sph:psill=3:range=50:block=10x5"};
    for (int s = 0; s < 4; s++) {
        CHECKF(run(spec[s], p, &g, out, NULL) == 2, "%s did not run", spec[s]);
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++) {
                double want = 2 + 0.5 * gk_grid_node_x(&g, i) - 0.3 * gk_grid_node_y(&g, j);
                double e = out[j * g.nx + i];
                CHECKF(fabs(e - want) < 1e-8, "%s: UK %.15g, trend %.15g", spec[s], e, want);
            }
    }
    gk_points_free(p);
}

static void test_block_and_global(void)
{
    enum { N = 30 };
    double x[N], y[N], z[N];
    for (int i = 0; i < N; i++) {
        x[i] = gk_test_urand(&lcg) * 100, y[i] = gk_test_urand(&lcg) * 100;
        z[i] = sin(x[i] / 20) + cos(y[i] / 30) + gk_test_urand(&lcg) * 0.1;
    }
    gk_points *p = make_points(N, x, y, z);
    gk_grid g = {0, 100, 0, 100, 10, 10};
    double pt[200], bl[200], loc[200];
    run("kriging:model=Sph:psill=1:range=50:nugget=0.05", p, &g, pt, NULL);
    run("kriging:model=Sph:psill=1:range=50:nugget=0.05:block=10x10", p, &g, bl, NULL);
    for (int q = 0; q < 100; q++)
        CHECKF(bl[100 + q] < pt[100 + q], "block variance %g >= point variance %g", bl[100 + q],
               pt[100 + q]);
    const char *pairs[][2] = {
        {"kriging:model=Sph:psill=1:range=50:nugget=0.05",
         "kriging:model=Sph:psill=1:range=50:nugget=0.05:max_points=30"},
        {"kriging:type=simple:mean=1:model=Exp:psill=1:range=20",
         "kriging:type=simple:mean=1:model=Exp:psill=1:range=20:max_points=100"},
        {"kriging:drift=quadratic:model=Gau:psill=1:range=30:nugget=0.01:block=5x8",
         "kriging:drift=quadratic:model=Gau:psill=1:range=30:nugget=0.01:block=5x8:max_points=30"},
        {"kriging:model=Pow:psill=0.1:range=1.2",
         "kriging:model=Pow:psill=0.1:range=1.2:radius=1000"},
    };
    for (size_t s = 0; s < sizeof pairs / sizeof *pairs; s++) {
        CHECKF(run(pairs[s][0], p, &g, pt, NULL) == 2, "%s", pairs[s][0]);
        CHECKF(run(pairs[s][1], p, &g, loc, NULL) == 2, "%s", pairs[s][1]);
        double de = 0, dv = 0;
        for (int q = 0; q < 100; q++) {
            de = fmax(de, fabs(pt[q] - loc[q]));
            dv = fmax(dv, fabs(pt[100 + q] - loc[100 + q]));
        }
        CHECKF(de < 1e-9 && dv < 1e-9, "%s: local vs global differ by %g / %g", pairs[s][1], de,
               dv);
    }
    gk_points_free(p);
}

static void check_job_refused(const char *spec, const gk_points *pts, const char *want);

static void test_singular(void)
{
    double x[] = {10, 20, 20, 30, 15}, y[] = {10, 20, 20, 12, 30}, z[] = {1, 2, 3, 4, 5};
    gk_points *p = make_points(5, x, y, z);
    gk_grid g = {0, 40, 0, 40, 8, 8};
    double out[128];
    gk_run_stats st;
    const char *spec[] = {"kriging:model=Sph:psill=1:range=50",
                          "kriging:model=Sph:psill=1:range=50:max_points=3"};
    for (int s = 0; s < 2; s++) {
        CHECKF(run(spec[s], p, &g, out, &st) == 2, "%s", spec[s]);
        for (int q = 0; q < 128; q++)
            CHECKF(isfinite(out[q]), "%s: NaN at %d", spec[s], q);
        CHECKF(st.singular_nodes > 0 && st.singular_nodes <= st.nodata_nodes,
               "%s: singular %llu nodata %llu", spec[s], (unsigned long long)st.singular_nodes,
               (unsigned long long)st.nodata_nodes);
    }
    /* gstat's covariance of coincident points includes the nugget, so a
     * nugget does not help: still singular (gstat: NA and a warning) */
    CHECKF(run("kriging:model=Sph:psill=1:range=50:nugget=0.1", p, &g, out, &st) == 2, "nugget");
    CHECKF(st.singular_nodes == 64, "nugget: %llu singular", (unsigned long long)st.singular_nodes);
    /* without the duplicate every node has a value */
    double ux[] = {10, 20, 30, 15}, uy[] = {10, 20, 12, 30};
    gk_points *d = make_points(4, ux, uy, z);
    CHECKF(run("kriging:model=Sph:psill=1:range=50", d, &g, out, &st) == 2, "no duplicate");
    CHECKF(st.singular_nodes == 0 && st.nodata_nodes == 0, "no duplicate: %llu singular",
           (unsigned long long)st.singular_nodes);
    gk_points_free(d);
    /* collinear points under a linear drift */
    double cx[] = {0, 10, 20, 30}, cy[] = {0, 10, 20, 30}, cz[] = {1, 2, 3, 4};
    gk_points *c = make_points(4, cx, cy, cz);
    CHECKF(run("kriging:drift=linear:model=Exp:psill=1:range=10", c, &g, out, &st) == 2, "coll");
    CHECKF(st.singular_nodes == 64, "collinear UK: %llu singular",
           (unsigned long long)st.singular_nodes);
    gk_points_free(c);
    /* two points, three drift terms (1, x, y): no drift estimate, refused at
     * the job by name (global and local alike) */
    gk_points *two = make_points(2, ux, uy, z);
    check_job_refused("kriging:drift=linear:model=Exp:psill=1:range=10", two,
                      "2 points for a drift of 3 terms");
    check_job_refused("kriging:drift=quadratic:model=Exp:psill=1:range=10:max_points=8", two,
                      "2 points for a drift of 6 terms");
    gk_points_free(two);
    gk_points_free(p);
}

static void test_quadrants(void)
{
    /* Node at (5, 5) (grid 1x1 over [0,10]^2). Four points on the axes at
     * distance 1 (gstat's pinwheel puts them in four quadrants) and farther
     * points: with omax=1 only the four axis points count. */
    double x[] = {6, 5, 4, 5, 7, 7.5, 2, 3}, y[] = {5, 6, 5, 4, 7, 3, 3.5, 8};
    double z[] = {1, 2, 3, 4, 10, 20, 30, 40};
    gk_points *p = make_points(8, x, y, z), *q = make_points(4, x, y, z);
    gk_grid g = {0, 10, 0, 10, 1, 1};
    double a[2], b[2];
    run("kriging:model=Exp:psill=1:range=3:max_points=8:max_points_per_quadrant=1", p, &g, a, NULL);
    run("kriging:model=Exp:psill=1:range=3", q, &g, b, NULL);
    CHECKF(fabs(a[0] - b[0]) < 1e-12 && fabs(a[1] - b[1]) < 1e-12,
           "omax=1: %.15g %.15g, want %.15g %.15g", a[0], a[1], b[0], b[1]);
    CHECKF(fabs(a[0] - 2.5) < 1e-12, "four symmetric points: %.15g, want 2.5", a[0]);
    /* no max_points: every point, filtered (the k-d tree per quadrant) */
    run("kriging:model=Exp:psill=1:range=3:max_points_per_quadrant=1", p, &g, a, NULL);
    CHECKF(fabs(a[0] - b[0]) < 1e-12 && fabs(a[1] - b[1]) < 1e-12,
           "omax=1, every point: %.15g %.15g, want %.15g %.15g", a[0], a[1], b[0], b[1]);
    gk_points_free(p);
    gk_points_free(q);
}

/* omax over every point (no max_points, no radius) selects each quadrant's
 * omax nearest from the k-d tree; max_points = n asks for the same points
 * through the general path (all n sorted, then filtered). Equal bit for bit,
 * over a lattice (points on the axes through nodes; ties within a quadrant,
 * as (1, 2) and (2, 1) from a node at (0.5, 0.5) - coincident points would
 * make most systems singular) and random points, nodes inside and outside
 * the points' hull. */
static void test_quadrants_every_point(void)
{
    enum { NL = 21 * 21, NR = 150 };
    double x[NL + NR], y[NL + NR], z[NL + NR];
    int n = 0;
    for (int j = 0; j <= 20; j++)
        for (int i = 0; i <= 20; i++)
            if ((i * 5 + j * 3) % 7 != 0) /* holes */
                x[n] = i, y[n] = j, z[n] = sin(i * 0.5) + cos(j * 0.4), n++;
    for (int r = 0; r < NR; r++)
        x[n] = 20 * gk_test_urand(&lcg), y[n] = 20 * gk_test_urand(&lcg),
        z[n] = gk_test_urand(&lcg), n++;
    gk_points *p = make_points(n, x, y, z);
    gk_grid g = {-2.25, 22.25, -2.25, 22.25, 49, 49}; /* nodes at -2, -1.5, .. 22 */
    const size_t nodes = (size_t)g.nx * g.ny;
    double *a = malloc(2 * nodes * sizeof *a), *b = malloc(2 * nodes * sizeof *b);
    static const char *models[] = {
        "kriging:model=Exp:psill=1:range=4:nugget=0.1",
        "kriging:type=simple:mean=0.5:model=Sph:psill=1:range=6:nugget=0.1",
        "kriging:drift=linear:model=Exp:psill=1:range=5:nugget=0.1",
    };
    static const char *limits[] = {":max_points_per_quadrant=1", ":max_points_per_quadrant=3",
                                   ":max_points_per_quadrant=7:min_points=20"};
    for (size_t mi = 0; mi < sizeof models / sizeof *models; mi++) {
        for (size_t li = 0; li < sizeof limits / sizeof *limits; li++) {
            char every[256], all[256];
            snprintf(every, sizeof every, "%s%s", models[mi], limits[li]);
            snprintf(all, sizeof all, "%s%s:max_points=%d", models[mi], limits[li], n);
            int na = run(every, p, &g, a, NULL), nb = run(all, p, &g, b, NULL);
            size_t differ = 0, valid = 0;
            for (size_t i = 0; na == 2 && nb == 2 && i < 2 * nodes; i++) {
                differ += memcmp(&a[i], &b[i], sizeof *a) != 0;
                valid += i < nodes && a[i] != 0.0; /* 0: nodata */
            }
            CHECKF(na == 2 && nb == 2 && differ == 0,
                   "%s: %zu of %zu values differ from max_points=%d", every, differ, 2 * nodes, n);
            CHECKF(valid > nodes / 2, "%s: only %zu estimates", every, valid);
        }
        /* min_points above the set's size: nothing selected anywhere (simple
         * kriging: gstat's mean and C(0)) */
        char few[256];
        snprintf(few, sizeof few, "%s:max_points_per_quadrant=2:min_points=%d", models[mi], n + 1);
        const int sk = strstr(few, "simple") != NULL;
        size_t off = 0;
        int nf = run(few, p, &g, a, NULL);
        for (size_t i = 0; nf == 2 && i < nodes; i++)
            off += a[i] != (sk ? 0.5 : 0.0) || a[nodes + i] != (sk ? 1.1 : 0.0);
        CHECKF(nf == 2 && off == 0, "%s: %zu nodes not empty", few, off);
    }
    free(a);
    free(b);
    gk_points_free(p);
}

/* External drift: covariates x and y sampled analytically equal UK linear. */
static int sampler_xy(void *user, size_t n, const double *x, const double *y, double *out)
{
    (void)user;
    for (size_t i = 0; i < n; i++) {
        out[i] = x[i] * 2 + 1;
        out[n + i] = y[i];
    }
    return 0;
}

static void test_external_drift(void)
{
    enum { N = 25 };
    double x[N], y[N], z[N], gv[2 * N];
    for (int i = 0; i < N; i++) {
        x[i] = gk_test_urand(&lcg) * 100, y[i] = gk_test_urand(&lcg) * 100;
        z[i] = sin(x[i] / 15) + y[i] / 50;
    }
    sampler_xy(NULL, N, x, y, gv);
    gk_points *p = make_points(N, x, y, z);
    gk_grid g = {0, 100, 0, 100, 6, 6};
    double uk[72], ked[72];
    for (int s = 0; s < 2; s++) {
        const char *u = s ? "kriging:drift=linear:model=Sph:psill=1:range=40:max_points=12"
                          : "kriging:drift=linear:model=Sph:psill=1:range=40";
        const char *k = s ? "kriging:drift_raster=a:drift_raster=b:model=Sph:psill=1:range=40:"
                            "max_points=12"
                          : "kriging:drift_raster=a:drift_raster=b:model=Sph:psill=1:range=40";
        run(u, p, &g, uk, NULL);
        gk_algorithm *a = gk_algorithm_parse(ctx, k);
        gk_job *job = a ? gk_job_new(ctx, p, a) : NULL;
        CHECKF(job && gk_job_set_drift(job, 2, gv, sampler_xy, NULL) == GK_OK, "KED: %s",
               gk_errmsg(ctx));
        if (job) {
            gk_job_compute_window(job, &g, 0, 0, 6, 6, ked);
            for (int q = 0; q < 72; q++)
                CHECKF(fabs(uk[q] - ked[q]) < 1e-9, "KED %.15g vs UK %.15g at %d", ked[q], uk[q],
                       q);
        }
        gk_job_free(job);
        gk_algorithm_free(a);
    }
    gk_points_free(p);
}

/* The context's message holds want. */
#define CHECK_KMSG(want)                                                                           \
    CHECKF(strstr(gk_errmsg(ctx), (want)) != NULL, "message '%s' does not say '%s'",               \
           gk_errmsg(ctx), (want))

/* gk_job_new(spec) on pts fails with a message holding want. */
static void check_job_refused(const char *spec, const gk_points *pts, const char *want)
{
    gk_algorithm *a = gk_algorithm_parse(ctx, spec);
    CHECKF(a != NULL, "parse %s: %s", spec, gk_errmsg(ctx));
    if (!a)
        return;
    gk_error_clear(ctx);
    gk_job *job = gk_job_new(ctx, pts, a);
    CHECKF(!job && gk_errno(ctx) == GK_ERR_ARG, "%s: a job (or not GK_ERR_ARG: %s)", spec,
           gk_errmsg(ctx));
    CHECK_KMSG(want);
    gk_job_free(job);
    gk_algorithm_free(a);
}

/* One covariate: 3x + y at each place. */
static int sampler_one(void *user, size_t n, const double *x, const double *y, double *out)
{
    (void)user;
    for (size_t i = 0; i < n; i++)
        out[i] = 3 * x[i] + y[i];
    return 0;
}

/* What the C API refuses around a kriging job: a model set on another
 * method or a bad one (the algorithm left as it was), a variogram file not
 * loaded, fewer max_points than drift terms, and external drift values that
 * do not fit the algorithm's drift_raster= keys. */
static void test_api_refusals(void)
{
    static const double x[5] = {0, 10, 0, 10, 5}, y[5] = {0, 0, 10, 10, 5},
                        z[5] = {1, 2, 3, 4, 2.5};
    gk_points *p = make_points(5, x, y, z);

    /* gk_kriging_set_model */
    gk_algorithm *idw = gk_algorithm_parse(ctx, "invdist:power=2");
    gk_vmodel sph = {1, {{GK_VM_SPH, 1, 20, 0, 0, 1}}};
    CHECK(idw && gk_kriging_set_model(ctx, idw, &sph) == GK_ERR_ARG);
    CHECK_KMSG("not a kriging algorithm");
    CHECK(gk_algorithm_kriging(idw) == NULL);
    gk_algorithm *kr = gk_algorithm_parse(ctx, "kriging:model=Exp:psill=2:range=30");
    CHECK(kr != NULL);
    if (kr) {
        char before[sizeof kr->canonical];
        snprintf(before, sizeof before, "%s", gk_algorithm_string(kr));
        gk_vmodel none = {0};
        CHECK(gk_kriging_set_model(ctx, kr, &none) == GK_ERR_ARG);
        CHECK_KMSG("the variogram model has no structure");
        gk_vmodel neg = {1, {{GK_VM_SPH, -1, 20, 0, 0, 1}}};
        CHECK(gk_kriging_set_model(ctx, kr, &neg) == GK_ERR_ARG);
        CHECK_KMSG("structure 1 (Sph) has a negative or non-finite partial sill -1");
        gk_vmodel zero = {1, {{GK_VM_SPH, 0, 20, 0, 0, 1}}};
        CHECK(gk_kriging_set_model(ctx, kr, &zero) == GK_ERR_ARG);
        CHECK_KMSG("zero sill");
        /* nor an unbounded one with every partial sill 0: gamma = 0 everywhere
         * (it was taken, and every node came out nodata) */
        gk_vmodel flat = {1, {{GK_VM_POW, 0, 1.5, 0, 0, 1}}};
        CHECK(gk_kriging_set_model(ctx, kr, &flat) == GK_ERR_ARG);
        CHECK_KMSG("0 at every distance");
        /* refused: the algorithm is the one parsed */
        CHECK(!strcmp(gk_algorithm_string(kr), before));
        const gk_kriging_params *kp = gk_algorithm_kriging(kr);
        CHECK(kp && kp->model.n == 1 && kp->model.s[0].type == GK_VM_EXP &&
              kp->model.s[0].psill == 2 && kp->model.s[0].range == 30);
        /* accepted: the canonical string names the new model */
        CHECK(gk_kriging_set_model(ctx, kr, &sph) == GK_OK);
        CHECKF(strstr(gk_algorithm_string(kr), ":model=Sph(1,20):"), "%s", gk_algorithm_string(kr));
    }

    /* gk_job_kriging_model: the model a kriging job uses, NULL for another method */
    gk_job *job = idw ? gk_job_new(ctx, p, idw) : NULL;
    CHECK(job && gk_job_kriging_model(job) == NULL);
    gk_job_free(job);
    job = kr ? gk_job_new(ctx, p, kr) : NULL;
    const gk_vmodel *jm = job ? gk_job_kriging_model(job) : NULL;
    CHECK(jm && jm->n == 1 && jm->s[0].type == GK_VM_SPH && jm->s[0].psill == 1 &&
          jm->s[0].range == 20);
    /* gk_job_set_drift on a job without drift_raster= keys */
    CHECK(job && gk_job_set_drift(job, 0, NULL, NULL, NULL) == GK_OK);
    double g1[5] = {1, 2, 3, 4, 5};
    CHECK(job && gk_job_set_drift(job, 1, g1, sampler_one, NULL) == GK_ERR_ARG);
    CHECK_KMSG("1 external drift variables given, the algorithm has 0 drift_raster= keys");
    gk_job_free(job);
    job = idw ? gk_job_new(ctx, p, idw) : NULL;
    CHECK(job && gk_job_set_drift(job, 1, g1, sampler_one, NULL) == GK_ERR_ARG);
    CHECK_KMSG("external drift is for kriging only");
    gk_job_free(job);
    gk_algorithm_free(idw);
    gk_algorithm_free(kr);

    /* a variogram file the caller did not load */
    check_job_refused("kriging:variogram=vgm.json", p, "variogram=vgm.json was not read");
    /* max_points below the drift's terms (1 + 2 linear, 1 + 5 quadratic, + 1 a raster) */
    check_job_refused("kriging:drift=linear:model=Sph:psill=1:range=20:max_points=2", p,
                      "max_points=2 is fewer than the 3 drift terms");
    {
        static const double x8[8] = {0, 10, 0, 10, 5, 2, 7, 4}, y8[8] = {0, 0, 10, 10, 5, 8, 1, 3};
        gk_points *p8 = make_points(8, x8, y8, x8);
        check_job_refused("kriging:drift=quadratic:model=Sph:psill=1:range=20:max_points=5", p8,
                          "max_points=5 is fewer than the 6 drift terms");
        gk_points_free(p8);
    }
    check_job_refused("kriging:drift=linear:drift_raster=a:model=Sph:psill=1:range=20:max_points=3",
                      p, "max_points=3 is fewer than the 4 drift terms");

    /* external drift values: one block per drift_raster= key, a value at every
     * point, not constant, and a sampler */
    gk_algorithm *ked =
        gk_algorithm_parse(ctx, "kriging:drift_raster=a:model=Sph:psill=1:range=20");
    job = ked ? gk_job_new(ctx, p, ked) : NULL;
    CHECK(job != NULL);
    if (job) {
        double two[10] = {1, 2, 3, 4, 5, 5, 4, 3, 2, 1};
        CHECK(gk_job_set_drift(job, 2, two, sampler_one, NULL) == GK_ERR_ARG);
        CHECK_KMSG("2 external drift variables given, the algorithm has 1 drift_raster= keys");
        CHECK(gk_job_set_drift(job, 1, NULL, sampler_one, NULL) == GK_ERR_ARG);
        CHECK_KMSG("needs values and a sampler");
        CHECK(gk_job_set_drift(job, 1, g1, NULL, NULL) == GK_ERR_ARG);
        CHECK_KMSG("needs values and a sampler");
        double hole[5] = {1, 2, NAN, 4, 5};
        CHECK(gk_job_set_drift(job, 1, hole, sampler_one, NULL) == GK_ERR_ARG);
        CHECK_KMSG("drift variable 1 has no value at point 3 (0, 10)");
        double inf[5] = {1, 2, 3, 4, INFINITY};
        CHECK(gk_job_set_drift(job, 1, inf, sampler_one, NULL) == GK_ERR_ARG);
        CHECK_KMSG("drift variable 1 has no value at point 5 (5, 5)");
        double flat[5] = {7, 7, 7, 7, 7};
        CHECK(gk_job_set_drift(job, 1, flat, sampler_one, NULL) == GK_ERR_ARG);
        CHECK_KMSG("drift variable 1 is constant at the data points");
        /* then a right one: z = 0.1 (3x + y) + 1 at the points is reproduced
         * exactly at a node away from them (the drift carries it all) */
        double gv[5];
        sampler_one(NULL, 5, x, y, gv);
        double zl[5];
        for (int i = 0; i < 5; i++)
            zl[i] = 0.1 * gv[i] + 1;
        gk_points *pl = make_points(5, x, y, zl);
        gk_job_free(job);
        job = gk_job_new(ctx, pl, ked);
        CHECK(job && gk_job_set_drift(job, 1, gv, sampler_one, NULL) == GK_OK);
        gk_grid g = {2, 4, 6, 8, 1, 1}; /* the node (3, 7) */
        double out[2] = {0, 0};
        CHECK(job && gk_job_compute_window(job, &g, 0, 0, 1, 1, out) == GK_OK);
        CHECKF(fabs(out[0] - (0.1 * (3 * 3 + 7) + 1)) < 1e-9, "KED at (3, 7): %.15g", out[0]);
        gk_points_free(pl);
    }
    gk_job_free(job);
    gk_algorithm_free(ked);
    gk_points_free(p);
}

/* Geometric anisotropy at angle 0 (the major axis north) with ratio 1/2
 * shrinks the east-west axis: distance = sqrt(dy^2 + (dx / 0.5)^2). Kriging
 * with it must equal isotropic kriging on the points and nodes with x
 * doubled, for a bounded model and for an unbounded one (Pow, whose
 * pseudo-sill is then taken over the anisotropic distances). */
static void test_anisotropy_as_stretch(void)
{
    enum { N = 14 };
    double x[N], y[N], z[N], x2[N];
    for (int i = 0; i < N; i++) {
        x[i] = gk_test_urand(&lcg) * 50, y[i] = gk_test_urand(&lcg) * 100;
        z[i] = sin(x[i] / 9) + y[i] / 40;
        x2[i] = 2 * x[i];
    }
    gk_points *p = make_points(N, x, y, z), *q = make_points(N, x2, y, z);
    gk_grid g = {0, 50, 0, 100, 5, 6}, g2 = {0, 100, 0, 100, 5, 6};
    static const char *const pairs[][2] = {
        {"kriging:model=Sph(1,40)@0/0.5", "kriging:model=Sph(1,40)"},
        {"kriging:model=Pow(1,1.5)@0/0.5", "kriging:model=Pow(1,1.5)"},
        /* the local path, with every point (neighbours are chosen by plain
         * distance, so fewer would be other points once stretched) */
        {"kriging:model=Pow(1,1.5)@0/0.5:max_points=14", "kriging:model=Pow(1,1.5):max_points=14"},
    };
    for (size_t c = 0; c < sizeof pairs / sizeof pairs[0]; c++) {
        double a[60], b[60];
        int na = run(pairs[c][0], p, &g, a, NULL), nb = run(pairs[c][1], q, &g2, b, NULL);
        CHECKF(na == 2 && nb == 2, "%s: bands %d %d", pairs[c][0], na, nb);
        int bad = 0;
        for (int k = 0; na == 2 && nb == 2 && k < 60; k++)
            if (!(fabs(a[k] - b[k]) <= 1e-8 * (1 + fabs(b[k]))) && bad++ < 3)
                fprintf(stderr, "%s: value %d: %.15g, stretched %.15g\n", pairs[c][0], k, a[k],
                        b[k]);
        CHECK(bad == 0);
    }
    gk_points_free(p);
    gk_points_free(q);
}

/* Global kriging of more than 46340 points would need a covariance matrix
 * beyond 17 GB: refused at the job, by name, with the way out (a local
 * neighbourhood), before anything that large is asked for; max_points=
 * on the same points runs. */
static void test_global_too_many(void)
{
    enum { N = 46341 };
    gk_points *p = gk_points_new(ctx);
    for (int i = 0; i < N; i++)
        gk_points_add(p, i % 216, i / 216, (i % 7) * 0.5);
    gk_algorithm *a = gk_algorithm_parse(ctx, "kriging:model=Exp:psill=1:range=5:nugget=0.1");
    gk_error_clear(ctx);
    gk_job *job = a ? gk_job_new(ctx, p, a) : NULL;
    CHECKF(!job && gk_errno(ctx) == GK_ERR_NOMEM &&
               strstr(gk_errmsg(ctx), "global kriging of 46341 points") &&
               strstr(gk_errmsg(ctx), "give max_points="),
           "%s", job ? "a job" : gk_errmsg(ctx));
    gk_job_free(job);
    gk_algorithm_free(a);
    gk_error_clear(ctx);
    double out[2];
    gk_grid g = {10, 11, 10, 11, 1, 1};
    CHECK(run("kriging:model=Exp:psill=1:range=5:nugget=0.1:max_points=8", p, &g, out, NULL) == 2);
    gk_points_free(p);
}

static void test_parse(void)
{
    /* refused strings and round trips: tests/core/specs (test_parse) */
    gk_algorithm *a = gk_algorithm_parse(
        ctx, "kriging:model=Sph:psill=0.59:range=897:nugget=0.05:max_points=20:block=40");
    CHECKF(a && gk_algorithm_bands(a) == 2, "bands");
    if (a) {
        const char *c = gk_algorithm_string(a);
        CHECKF(strstr(c, "model=Nug(0.050000000000000003)+Sph(0.58999999999999997,897)") &&
                   strstr(c, "block=40x40") && strstr(c, "max_points=20"),
               "canonical %s", c);
    }
    gk_algorithm_free(a);
    a = gk_algorithm_parse(ctx, "kriging:model=Exp:psill=1:range=2:variance=no");
    CHECKF(a && gk_algorithm_bands(a) == 1, "variance=no gives one band");
    gk_algorithm_free(a);
}

/* What the -a parser refuses beyond tests/core/specs/bad.tsv: each
 * sub-condition of a key's check (a count below 0 or above 1e9, a model
 * name too long or not followed by '(', an infinite number in the compact
 * form, a path too long, block= sizes split oddly or not finite, ...), each
 * with the message naming the cause. */
static void test_parse_refusals(void)
{
    char longpath[300], longblock[80], spec[400];
    memset(longpath, 'p', sizeof longpath - 1), longpath[sizeof longpath - 1] = '\0';
    memset(longblock, '1', sizeof longblock - 1), longblock[sizeof longblock - 1] = '\0';
    static const char *const bad[][2] = {
        {"max_points=-1", "max_points=-1 must be a whole number from 0 to 1000000000"},
        {"min_points=2e9", "min_points=2e9 must be a whole number from 0 to 1000000000"},
        {"max_points_per_quadrant=x", "max_points_per_quadrant=x"},
        {"radius=abc", "radius=abc"},
        {"radius=0", "radius=0 must be > 0"},
        {"block=3x", "block=3x must be WIDTHxHEIGHT"},
        {"block=3x0x10", "block=3x0x10 must be WIDTHxHEIGHT"}, /* 0x10: hexadecimal */
        {"block=x3", "block=x3 must be WIDTHxHEIGHT"},
        {"block=inf", "block=inf must be WIDTHxHEIGHT"},
        {"block=3xinf", "block=3xinf must be WIDTHxHEIGHT"},
        {"block=nan", "block=nan must be WIDTHxHEIGHT"},
        {"block=3x-1", "block=3x-1 must be WIDTHxHEIGHT"},
        {"nugget=-1", "psill, range and nugget must be >= 0"},
        {"anis_ratio=0", "anis_ratio=0 must be in (0, 1]"},
        {"mean=2", "mean= is for type=simple only"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(spec, sizeof spec, "kriging:model=Sph:psill=1:range=10:%s", bad[i][0]);
        gk_algorithm *a = gk_algorithm_parse(ctx, spec);
        CHECKF(!a && strstr(gk_errmsg(ctx), bad[i][1]), "%s: %s", spec,
               a ? gk_algorithm_string(a) : gk_errmsg(ctx));
        gk_algorithm_free(a);
    }
    static const char *const whole[][2] = {
        {"kriging:model=Sphericalspherical(1,2)", "'Sphericalspheri' is not a model like"},
        {"kriging:model=Sph+Exp(1,2)", "'Sph' is not a model like"},
        {"kriging:model=Sph(inf,10)", "bad number in Sph"},
        {"kriging:model=Sph(1,nan)", "bad number in Sph"},
        {"kriging:model=Pow:psill=1", "model=Pow needs range= (the exponent)"},
        {"kriging:model=Sph:psill=1:range=-1", "psill, range and nugget must be >= 0"},
    };
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++) {
        gk_algorithm *a = gk_algorithm_parse(ctx, whole[i][0]);
        CHECKF(!a && strstr(gk_errmsg(ctx), whole[i][1]), "%s: %s", whole[i][0],
               a ? gk_algorithm_string(a) : gk_errmsg(ctx));
        gk_algorithm_free(a);
    }
    /* a path of 299 bytes: the keys hold 255 */
    snprintf(spec, sizeof spec, "kriging:drift_raster=%s:model=Sph:psill=1:range=1", longpath);
    gk_algorithm *a = gk_algorithm_parse(ctx, spec);
    CHECKF(!a && strstr(gk_errmsg(ctx), "drift_raster= needs a file name (under 256 bytes)"), "%s",
           gk_errmsg(ctx));
    gk_algorithm_free(a);
    snprintf(spec, sizeof spec, "kriging:variogram=%s", longpath);
    a = gk_algorithm_parse(ctx, spec);
    CHECKF(!a && strstr(gk_errmsg(ctx), "variogram= needs a file name (under 256 bytes)"), "%s",
           gk_errmsg(ctx));
    gk_algorithm_free(a);
    /* a width of 79 digits: more than block='s buffer, refused, not cut */
    snprintf(spec, sizeof spec, "kriging:model=Sph:psill=1:range=1:block=%s", longblock);
    a = gk_algorithm_parse(ctx, spec);
    CHECKF(!a && strstr(gk_errmsg(ctx), "must be WIDTHxHEIGHT"), "%s", gk_errmsg(ctx));
    gk_algorithm_free(a);
    gk_error_clear(ctx);
}

/* What the parser accepts and how its string says it: variance= in each
 * spelling, empty keys between colons, Mat's kappa 0.5 by default, a
 * nugget after another structure, and a model set on variogram=. */
static void test_parse_accepted(void)
{
    static const struct {
        const char *spec, *want;
        int bands;
    } ok[] = {
        {"kriging:model=Sph:psill=1:range=10:variance=TRUE", ":variance=yes", 2},
        {"kriging:model=Sph:psill=1:range=10:variance=1", ":variance=yes", 2},
        {"kriging:model=Sph:psill=1:range=10:variance=False", ":variance=no", 1},
        {"kriging:model=Sph:psill=1:range=10:variance=0", ":variance=no", 1},
        {"kriging::model=Sph::psill=1:range=10:", ":model=Sph(1,10):", 2},
        {"kriging:model=Mat(1,10)", ":model=Mat(1,10,0.5):", 2},
        {"kriging:model=Sph(1,10)+Nug(0.5)", ":model=Sph(1,10)+Nug(0.5):", 2},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        gk_algorithm *a = gk_algorithm_parse(ctx, ok[i].spec);
        CHECKF(a && strstr(gk_algorithm_string(a), ok[i].want) &&
                   gk_algorithm_bands(a) == ok[i].bands,
               "%s: %s", ok[i].spec, a ? gk_algorithm_string(a) : gk_errmsg(ctx));
        gk_algorithm_free(a);
    }
    CHECK(gk_algorithm_kriging(NULL) == NULL);
    /* variogram=FILE then the model read from it: the string names the model */
    gk_algorithm *a = gk_algorithm_parse(ctx, "kriging:variogram=v.json");
    CHECKF(a && strstr(gk_algorithm_string(a), ":variogram=v.json:"), "%s",
           a ? gk_algorithm_string(a) : gk_errmsg(ctx));
    gk_vmodel exp = {1, {{GK_VM_EXP, 2, 30, 0, 0, 1}}};
    CHECK(a && gk_kriging_set_model(ctx, a, &exp) == GK_OK);
    CHECKF(a && strstr(gk_algorithm_string(a), ":model=Exp(2,30):") &&
               !strstr(gk_algorithm_string(a), "variogram="),
           "%s", a ? gk_algorithm_string(a) : "");
    /* a model not finite where the parser cannot be asked (NaN, infinity) */
    static const struct {
        gk_vm_structure s;
        const char *want;
    } nf[] = {
        {{GK_VM_SPH, NAN, 20, 0, 0, 1}, "negative or non-finite partial sill"},
        {{GK_VM_SPH, INFINITY, 20, 0, 0, 1}, "negative or non-finite partial sill"},
        {{GK_VM_SPH, 1, NAN, 0, 0, 1}, "negative or non-finite range"},
        {{GK_VM_SPH, 1, INFINITY, 0, 0, 1}, "negative or non-finite range"},
        {{GK_VM_SPH, 1, 20, 0, NAN, 0.5}, "anis_ratio must be in (0, 1] and anis_angle finite"},
    };
    for (size_t i = 0; a && i < sizeof nf / sizeof nf[0]; i++) {
        gk_vmodel m = {1, {nf[i].s}};
        CHECK(gk_kriging_set_model(ctx, a, &m) == GK_ERR_ARG);
        CHECK_KMSG(nf[i].want);
        CHECK(strstr(gk_algorithm_string(a), ":model=Exp(2,30):") != NULL);
    }
    gk_algorithm_free(a);
    gk_error_clear(ctx);
}

/* The string of eight nested structures of long numbers reads back as the
 * same algorithm, its model= whole (it was left out: the model did not fit
 * a buffer of 768 bytes, and the string read back as "no variogram model").
 * A string that cannot hold everything (four drift_raster= paths of 250
 * bytes) is refused, at the parser and at gk_kriging_set_model (the
 * algorithm then as it was), not cut. */
static void test_long_model(void)
{
    const char *mat = "Mat(1.2345678901234567e-100,1.2345678901234567e+100,12.345678901234567)"
                      "@123.45678901234567/0.12345678901234567";
    char spec[1400], path[251];
    int len = snprintf(spec, sizeof spec, "kriging:model=");
    for (int i = 0; i < 8; i++)
        len += snprintf(spec + len, sizeof spec - (size_t)len, "%s%s", i ? "+" : "", mat);
    gk_algorithm *a = gk_algorithm_parse(ctx, spec);
    gk_algorithm *b = a ? gk_algorithm_parse(ctx, gk_algorithm_string(a)) : NULL;
    CHECKF(a && b && !strcmp(gk_algorithm_string(a), gk_algorithm_string(b)) &&
               gk_algorithm_kriging(b)->model.n == 8 &&
               gk_algorithm_kriging(b)->model.s[7].kappa == 12.345678901234567,
           "eight structures: %s", a ? gk_algorithm_string(a) : gk_errmsg(ctx));
    gk_algorithm_free(a);
    gk_algorithm_free(b);

    memset(path, 'p', sizeof path - 1), path[sizeof path - 1] = '\0';
    for (int np = 4; np >= 3; np--) {
        len = snprintf(spec, sizeof spec, "kriging:model=Exp(2,30)");
        for (int i = 0; i < np; i++)
            len += snprintf(spec + len, sizeof spec - (size_t)len, ":drift_raster=%c%s", '0' + i,
                            path + 1);
        a = gk_algorithm_parse(ctx, spec);
        if (np == 4) {
            CHECKF(!a && strstr(gk_errmsg(ctx), "would pass 1023 characters"), "%s",
                   a ? gk_algorithm_string(a) : gk_errmsg(ctx));
            gk_algorithm_free(a);
        }
    }
    /* three paths fit, with Exp(2,30); not with eight long structures */
    gk_vmodel m = {8, {{0}}};
    for (int i = 0; i < 8; i++)
        m.s[i] = (gk_vm_structure){GK_VM_MAT, 1.2345678901234567e-100, 1.2345678901234567e+100,
                                   12.345678901234567, 123.45678901234567, 0.12345678901234567};
    char before[sizeof a->canonical] = "";
    if (a)
        snprintf(before, sizeof before, "%s", gk_algorithm_string(a));
    CHECK(a && gk_kriging_set_model(ctx, a, &m) == GK_ERR_ARG);
    CHECK_KMSG("would pass 1023 characters");
    CHECKF(a && !strcmp(gk_algorithm_string(a), before) && strstr(before, ":model=Exp(2,30):") &&
               gk_algorithm_kriging(a)->model.n == 1,
           "%s", a ? gk_algorithm_string(a) : "");
    gk_algorithm_free(a);
    gk_error_clear(ctx);
}

int main(void)
{
    ctx = gk_context_new();
    gk_context_set_threads(ctx, 2);
    test_parse();
    test_parse_refusals();
    test_parse_accepted();
    test_long_model();
    test_exact_interpolation();
    test_simple_closed_form();
    test_weights_sum_to_one();
    test_trend_reproduction();
    test_block_and_global();
    test_singular();
    test_quadrants();
    test_quadrants_every_point();
    test_external_drift();
    test_api_refusals();
    test_anisotropy_as_stretch();
    test_global_too_many();
    gk_context_free(ctx);
    if (failures) {
        fprintf(stderr, "%d failure(s) of %d checks\n", failures, checks);
        return 1;
    }
    printf("kriging: all tests passed (%d checks)\n", checks);
    return 0;
}
