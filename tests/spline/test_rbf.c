/* SPDX-License-Identifier: MIT */
/*
 * test_rbf.c - -a rbf in the core against exact expectations: each kernel
 * with its polynomial reproduces a polynomial of that degree at every node,
 * global or local; the data are honoured where a node is a data point
 * (smoothing=0); a hand-solved case (the linear kernel on two points is
 * linear interpolation between them and constant beyond); the bad inputs:
 * coincident points (an error globally, singular nodes locally, fine with
 * smoothing), points on a line under degree 1, fewer points than monomials.
 * (The comparison with SciPy lives in tests/spline/rbf_scipy.py.)
 */
#include "gridkit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gk_check.h"
#include "gk_run.h"

static gk_context *ctx;
static unsigned long long lcg = 4242;

/* a polynomial of degree d around (500, 300) */
static double surface(double x, double y, int d)
{
    const double u = (x - 500) / 100, v = (y - 300) / 100;
    double z = 3.0;
    if (d >= 1)
        z += 0.7 * u - 1.3 * v;
    if (d >= 2)
        z += 0.2 * u * u - 0.45 * u * v + 0.3 * v * v;
    if (d >= 3)
        z += 0.05 * u * u * u - 0.02 * u * u * v + 0.04 * u * v * v - 0.03 * v * v * v;
    return z;
}

static gk_points *random_points(int n, int d)
{
    gk_points *p = gk_points_new(ctx);
    for (int i = 0; i < n; i++) {
        const double x = 250 + 500 * gk_test_urand(&lcg), y = 50 + 500 * gk_test_urand(&lcg);
        gk_points_add(p, x, y, surface(x, y, d));
    }
    return p;
}

static void reproduces_its_polynomial(void)
{
    static const struct {
        const char *spec;
        int d;
    } c[] = {
        {"rbf", 1}, /* thin plate spline, degree 1 */
        {"rbf:neighbors=15", 1},
        {"rbf:kernel=cubic:degree=2", 2},
        {"rbf:kernel=quintic:neighbors=30", 2},
        {"rbf:kernel=linear:degree=3:neighbors=25", 3},
        {"rbf:kernel=gaussian:epsilon=0.01", 0},
        {"rbf:kernel=multiquadric:epsilon=0.005:degree=1:neighbors=20", 1},
        {"rbf:kernel=inverse_quadratic:epsilon=0.01:smoothing=0.5", 0}, /* smoothing keeps it */
    };
    gk_grid g = {300, 700, 100, 500, 21, 17};
    double out[21 * 17];
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        gk_points *p = random_points(120, c[k].d);
        CHECKF(gk_test_run(ctx, c[k].spec, p, &g, out, NULL) == 1, "%s runs", c[k].spec);
        double worst = 0;
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++) {
                const double x = g.xmin + (i + 0.5) * (g.xmax - g.xmin) / g.nx;
                const double y = g.ymax - (j + 0.5) * (g.ymax - g.ymin) / g.ny;
                worst = fmax(worst, fabs(out[j * g.nx + i] - surface(x, y, c[k].d)));
            }
        CHECKF(worst < 1e-9, "%s: degree %d off by %g", c[k].spec, c[k].d, worst);
        gk_points_free(p);
    }
}

/* Nodes on data points get the data (an interpolant), away from them not. */
static void honours_the_data(void)
{
    gk_grid g = {0, 100, 0, 100, 10, 10}; /* node centres 5, 15, ..., 95 */
    gk_points *p = gk_points_new(ctx);
    for (int i = 0; i < 10; i += 3)
        for (int j = 0; j < 10; j += 2)
            gk_points_add(p, 5 + 10 * i, 5 + 10 * j, sin(i + 0.3 * j) * 10);
    double out[100];
    const char *specs[] = {"rbf", "rbf:kernel=cubic:neighbors=8",
                           "rbf:kernel=inverse_multiquadric:epsilon=0.05"};
    for (int s = 0; s < 3; s++) {
        CHECK(gk_test_run(ctx, specs[s], p, &g, out, NULL) == 1);
        for (int i = 0; i < 10; i += 3)
            for (int j = 0; j < 10; j += 2) {
                const double want = sin(i + 0.3 * j) * 10;
                const double got = out[(9 - j) * 10 + i];
                CHECKF(fabs(got - want) < 1e-9 * 10, "%s at (%d, %d): %.17g, data %.17g", specs[s],
                       i, j, got, want);
            }
    }
    /* with smoothing the surface leaves the data */
    CHECK(gk_test_run(ctx, "rbf:smoothing=5", p, &g, out, NULL) == 1);
    double far = 0;
    for (int i = 0; i < 10; i += 3)
        for (int j = 0; j < 10; j += 2)
            far = fmax(far, fabs(out[(9 - j) * 10 + i] - sin(i + 0.3 * j) * 10));
    CHECKF(far > 1e-3, "smoothing=5 leaves the data (%g)", far);
    gk_points_free(p);
}

/* The linear kernel (phi = -r) with a constant on two points on the x axis,
 * by hand: c0 = -c1 from the constant's row, so s(x, 0) = c0 (|x - d| - |x|)
 * + b: linear between them, the far point's value beyond it. */
static void two_points_by_hand(void)
{
    gk_points *p = gk_points_new(ctx);
    gk_points_add(p, 0, 0.5, 2.0);
    gk_points_add(p, 40, 0.5, 6.0);
    gk_grid g = {-20, 60, 0, 1, 8, 1}; /* nodes x = -15, -5, 5, ..., 55 on y = 0.5 */
    double out[8];
    CHECK(gk_test_run(ctx, "rbf:kernel=linear", p, &g, out, NULL) == 1);
    for (int i = 0; i < 8; i++) {
        const double x = -15 + 10 * i;
        const double want = x <= 0 ? 2.0 : x >= 40 ? 6.0 : 2.0 + 4.0 * x / 40;
        CHECK_NEAR(out[i], want, 1e-13);
    }
    gk_points_free(p);
}

static int fails_with(const char *spec, const gk_points *p, const char *word)
{
    gk_grid g = {0, 100, 0, 100, 4, 4};
    double out[16];
    gk_algorithm *a = gk_algorithm_parse(ctx, spec);
    if (!a)
        return 0;
    gk_job *job = gk_job_new(ctx, p, a);
    int rc = job ? gk_job_compute_window(job, &g, 0, 0, 4, 4, out) : -1;
    gk_job_free(job);
    gk_algorithm_free(a);
    return rc != 0 && strstr(gk_errmsg(ctx), word) != NULL;
}

static void bad_inputs(void)
{
    gk_grid g = {0, 100, 0, 100, 10, 10};
    double out[100];
    gk_run_stats st;
    /* coincident points */
    gk_points *p = gk_points_new(ctx);
    for (int i = 0; i < 30; i++)
        gk_points_add(p, 3 + 3 * i % 97, 7 + 11 * i % 89, i * 0.5);
    gk_points_add(p, 3, 7, 99.0); /* the first point again */
    CHECKF(fails_with("rbf", p, "singular"), "coincident points, global: %s", gk_errmsg(ctx));
    CHECK(gk_test_run(ctx, "rbf:smoothing=0.1", p, &g, out, &st) == 1);
    int finite = 1;
    for (int q = 0; q < 100; q++)
        finite &= isfinite(out[q]);
    CHECK(finite && st.nodata_nodes == 0);
    /* locally only the nodes whose k nearest hold both copies are singular */
    CHECK(gk_test_run(ctx, "rbf:neighbors=5:nodata=-1", p, &g, out, &st) == 1);
    CHECKF(st.singular_nodes > 0 && st.singular_nodes < 100 && st.singular_nodes == st.nodata_nodes,
           "neighbors=5: %llu singular, %llu nodata", (unsigned long long)st.singular_nodes,
           (unsigned long long)st.nodata_nodes);
    CHECK(out[99] == -1.0 || out[90] == -1.0 || out[0] == -1.0 || st.singular_nodes > 0);
    gk_points_free(p);

    /* on a line: degree 1 cannot be carried; degree 0 can */
    p = gk_points_new(ctx);
    for (int i = 0; i < 12; i++)
        gk_points_add(p, 10 + 7 * i, 20 + 3.5 * i, i);
    CHECKF(fails_with("rbf", p, "cannot carry"), "collinear: %s", gk_errmsg(ctx));
    CHECK(gk_test_run(ctx, "rbf:neighbors=6", p, &g, out, &st) == 1);
    CHECKF(st.singular_nodes == 100, "collinear, local: %llu singular",
           (unsigned long long)st.singular_nodes);
    CHECK(gk_test_run(ctx, "rbf:kernel=linear", p, &g, out, &st) == 1 && st.nodata_nodes == 0);
    gk_points_free(p);

    /* fewer points than monomials */
    p = gk_points_new(ctx);
    gk_points_add(p, 1, 1, 1);
    gk_points_add(p, 2, 5, 1);
    CHECKF(fails_with("rbf", p, "at least 3 points"), "two points: %s", gk_errmsg(ctx));
    CHECK(gk_test_run(ctx, "rbf:kernel=gaussian:epsilon=1", p, &g, out, &st) == 1);
    gk_points_free(p);

    /* no point: the core's error, as for every method */
    p = gk_points_new(ctx);
    CHECKF(fails_with("rbf", p, "no points"), "no points: %s", gk_errmsg(ctx));
    gk_points_free(p);
}

int main(void)
{
    ctx = gk_context_new();
    gk_context_set_device(ctx, "cpu");
    reproduces_its_polynomial();
    honours_the_data();
    two_points_by_hand();
    bad_inputs();
    gk_context_free(ctx);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
