/* SPDX-License-Identifier: MIT */
/*
 * test_shepard.c - -a shepard in the core against exact expectations: it
 * passes through the points; a quadratic is reproduced everywhere a point's
 * radius reaches (each nodal function is that quadratic, so is their
 * weighted mean); coincident points are one node with their mean; points on
 * a line, a handful of points and a single point give defined values, never
 * NaN; smoothing leaves the points. (SAGA's tool on meuse and on synthetic
 * data: tests/idw/saga/.)
 */
#include "core/gk_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gk_check.h"
#include "gk_run.h"

static gk_context *ctx;

static int run(const char *spec, const gk_points *pts, const gk_grid *g, double *out)
{
    return gk_test_run(ctx, spec, pts, g, out, NULL);
}

static unsigned long long lcg = 99;

static double quad(double x, double y)
{
    const double u = (x - 50) / 10, v = (y - 40) / 10;
    return 2.0 + 0.3 * u - 0.7 * v + 0.11 * u * u - 0.05 * u * v + 0.08 * v * v;
}

static void reproduces_quadratics(void)
{
    gk_points *p = gk_points_new(ctx);
    for (int i = 0; i < 400; i++) {
        const double x = 100 * gk_test_urand(&lcg), y = 100 * gk_test_urand(&lcg);
        gk_points_add(p, x, y, quad(x, y));
    }
    gk_grid g = {10, 90, 10, 90, 33, 29}; /* inside the points: every node within a radius */
    double out[33 * 29];
    const char *specs[] = {"shepard", "shepard:quadratic_points=6:weight_points=5",
                           "shepard:quadratic_points=40:weight_points=40"};
    for (int s = 0; s < 3; s++) {
        CHECK(run(specs[s], p, &g, out));
        double worst = 0;
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++)
                worst = fmax(worst, fabs(out[j * g.nx + i] -
                                         quad(gk_grid_node_x(&g, i), gk_grid_node_y(&g, j))));
        CHECKF(worst < 1e-9, "%s on a quadratic: off by %g", specs[s], worst);
    }
    gk_points_free(p);
}

static void through_the_points_and_degenerate_input(void)
{
    /* nodes on points: the points' values (the one at (30, 30) twice: 5 and
     * 7, so 6) */
    gk_points *p = gk_points_new(ctx);
    const double px[] = {10, 30, 50, 70, 90, 20, 40, 60, 80, 30, 30};
    const double py[] = {10, 50, 30, 70, 10, 90, 10, 50, 30, 30, 30};
    const double pz[] = {1, 4, 2, 8, 3, 9, 2, 6, 5, 5, 7};
    for (int i = 0; i < 11; i++)
        gk_points_add(p, px[i], py[i], pz[i]);
    gk_grid g = {0, 100, 0, 100, 5, 5}; /* nodes at 10, 30, 50, 70, 90 */
    double out[25];
    CHECK(run("shepard:nodata=-1", p, &g, out));
    /* (x, y) -> node (i, j): i = (x - 10) / 20, j = (90 - y) / 20 */
    CHECKF(out[4 * 5 + 0] == 1 && out[2 * 5 + 1] == 4 && out[3 * 5 + 2] == 2 &&
               out[1 * 5 + 3] == 8 && out[4 * 5 + 4] == 3,
           "at the points: their values");
    CHECKF(out[3 * 5 + 1] == 6, "two points at (30, 30), 5 and 7: their mean 6, got %g",
           out[3 * 5 + 1]);
    int finite = 1;
    for (int i = 0; i < 25; i++)
        finite &= isfinite(out[i]);
    CHECKF(finite, "no NaN");
    /* smoothing: no longer through the points */
    CHECK(run("shepard:smoothing=5", p, &g, out));
    CHECKF(out[4 * 5 + 0] != 1, "smoothing 5: (10, 10) no longer 1 (%g)", out[4 * 5 + 0]);
    gk_points_free(p);

    /* points on a line: a defined, finite surface through them */
    p = gk_points_new(ctx);
    for (int i = 0; i < 12; i++)
        gk_points_add(p, 10 + 7 * i, 20 + 3.5 * i, 1 + 0.5 * i);
    gk_grid g2 = {0, 100, 0, 100, 11, 9};
    double o2[99];
    CHECK(run("shepard", p, &g2, o2));
    finite = 1;
    for (int i = 0; i < 99; i++)
        finite &= isfinite(o2[i]) || o2[i] == 0.0;
    CHECKF(finite, "collinear points: no NaN");
    gk_points_free(p);

    /* one point: its value everywhere; three points: values between theirs */
    p = gk_points_new(ctx);
    gk_points_add(p, 50, 50, 4.25);
    CHECK(run("shepard", p, &g, out));
    int all = 1;
    for (int i = 0; i < 25; i++)
        all &= out[i] == 4.25;
    CHECKF(all, "one point: 4.25 everywhere");
    gk_points_add(p, 10, 80, 1.0);
    gk_points_add(p, 90, 20, 2.0);
    CHECK(run("shepard", p, &g, out));
    finite = 1;
    for (int i = 0; i < 25; i++)
        finite &= isfinite(out[i]);
    CHECKF(finite && out[2 * 5 + 2] == 4.25, "three points: finite, and 4.25 on (50, 50)");
    gk_points_free(p);
}

int main(void)
{
    ctx = gk_context_new();
    gk_context_set_device(ctx, "cpu");
    reproduces_quadratics();
    through_the_points_and_degenerate_input();
    gk_context_free(ctx);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
