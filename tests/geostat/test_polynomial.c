/* SPDX-License-Identifier: MIT */
/*
 * test_polynomial.c - -a polynomial in the core against exact expectations:
 * a surface of degree d is reproduced by every fit of degree d or more, at
 * every node, local or global; the weights change nothing there and pull
 * the fit towards the near points elsewhere (a hand-computed weighted line);
 * degrees the points cannot carry (fewer points than terms, collinear or
 * coincident points) fall back to lower ones down to the (weighted) mean;
 * an empty neighbourhood and a neighbourhood of zero weight are nodata;
 * sets fitted side by side (the CPU's batches) are the bits of each alone.
 * (The comparison with gstat on meuse lives in tests/geostat/gstat/, the
 * weighted forms against numpy in tests/geostat/poly_weighted.py.)
 */
#include "core/gk_internal.h"
#include "geostat/polynomial_fit.h"

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

static unsigned long long lcg = 777;

/* A cubic in (x, y) around (500, 300): degree d keeps the terms up to d. */
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

static void reproduces_its_degree(void)
{
    enum { N = 300 };
    gk_grid g = {300, 700, 100, 500, 21, 17};
    double out[21 * 17];
    for (int d = 0; d <= 3; d++) {
        gk_points *p = gk_points_new(ctx);
        lcg = 777 + (unsigned)d;
        for (int i = 0; i < N; i++) {
            const double x = 250 + 500 * gk_test_urand(&lcg), y = 50 + 500 * gk_test_urand(&lcg);
            gk_points_add(p, x, y, surface(x, y, d));
        }
        for (int fd = d; fd <= 3; fd++) {
            char specs[4][160];
            snprintf(specs[0], sizeof specs[0], "polynomial:degree=%d", fd);
            snprintf(specs[1], sizeof specs[1], "polynomial:degree=%d:max_points=24", fd);
            snprintf(specs[2], sizeof specs[2],
                     "polynomial:degree=%d:radius=120:weight=power:power=1.5", fd);
            snprintf(specs[3], sizeof specs[3],
                     "polynomial:degree=%d:max_points=40:max_points_per_quadrant=10:weight=gauss:"
                     "bandwidth=80",
                     fd);
            for (int s = 0; s < 4; s++) {
                CHECK(run(specs[s], p, &g, out));
                double worst = 0.0;
                for (int j = 0; j < g.ny; j++)
                    for (int i = 0; i < g.nx; i++) {
                        const double x = gk_grid_node_x(&g, i), y = gk_grid_node_y(&g, j);
                        worst = fmax(worst, fabs(out[j * g.nx + i] - surface(x, y, d)));
                    }
                /* values of about 1 to 10 from least squares: rounding only */
                CHECKF(worst < 1e-9, "%s on a surface of degree %d: off by %g", specs[s], d, worst);
            }
        }
        gk_points_free(p);
    }
}

/* Weighted least squares by hand: a line through 3 points on the x axis,
 * node at 0, weights (1 - d/R)^2 with R = 4: points at -1, 1, 2 with z 1,
 * 2, 5 have weights 9/16, 9/16, 1/4; the weighted normal equations give
 * the value at 0 as b0 = (sum w z sum w x^2 - sum w x sum w x z) / det. */
static void weighted_line(void)
{
    gk_points *p = gk_points_new(ctx);
    gk_points_add(p, -1, 0, 1);
    gk_points_add(p, 1, 0, 2);
    gk_points_add(p, 2, 0, 5);
    gk_points_add(p, 0, 5, 100); /* beyond the radius */
    const double w[3] = {9.0 / 16, 9.0 / 16, 1.0 / 4}, x[3] = {-1, 1, 2}, z[3] = {1, 2, 5};
    double sw = 0, swx = 0, swxx = 0, swz = 0, swxz = 0;
    for (int i = 0; i < 3; i++) {
        sw += w[i], swx += w[i] * x[i], swxx += w[i] * x[i] * x[i];
        swz += w[i] * z[i], swxz += w[i] * x[i] * z[i];
    }
    const double b0 = (swz * swxx - swx * swxz) / (sw * swxx - swx * swx);
    /* a 1 x 1 grid whose node is (0, 0); the points are collinear in y too:
     * a plane cannot be fitted, a line along x can, through v's absence.
     * So the fit falls back to degree 0 (the weighted mean) in 2-D ... */
    gk_grid g = {-0.5, 0.5, -0.5, 0.5, 1, 1};
    double out[1];
    CHECK(run("polynomial:degree=1:radius=4:weight=power:power=2", p, &g, out));
    CHECKF(fabs(out[0] - swz / sw) < 1e-12, "collinear: the weighted mean %.17g, got %.17g",
           swz / sw, out[0]);
    /* ... and with a point off the line (z on the plane z = 1.5 + 0.5 y + the
     * line's slope), degree 1 holds, and that point's weight moves b0 not
     * at all when it lies on the fitted plane */
    const double slope = (sw * swxz - swx * swz) / (sw * swxx - swx * swx);
    gk_points_add(p, 0, 1, b0 + 0.5); /* any z: the plane fits it exactly */
    CHECK(run("polynomial:degree=1:radius=4:weight=power:power=2", p, &g, out));
    CHECKF(fabs(out[0] - b0) < 1e-12, "weighted line: b0 %.17g (slope %.17g), got %.17g", b0, slope,
           out[0]);
    gk_points_free(p);
}

static void fallbacks_and_nodata(void)
{
    gk_grid g = {0, 10, 0, 10, 5, 5};
    double out[25];
    /* one point: its value everywhere, whatever the degree */
    gk_points *p = gk_points_new(ctx);
    gk_points_add(p, 3, 3, 7.5);
    CHECK(run("polynomial:degree=3", p, &g, out));
    int all = 1;
    for (int i = 0; i < 25; i++)
        all &= out[i] == 7.5;
    CHECKF(all, "one point: 7.5 everywhere");
    /* coincident points: their mean */
    gk_points_add(p, 3, 3, 8.5);
    gk_points_add(p, 3, 3, 9.5);
    CHECK(run("polynomial:degree=2:max_points=3", p, &g, out));
    all = 1;
    for (int i = 0; i < 25; i++)
        all &= fabs(out[i] - 8.5) < 1e-12;
    CHECKF(all, "coincident points: their mean 8.5 everywhere (got %.17g)", out[0]);
    gk_points_free(p);
    /* fewer points than terms: 4 points on a plane and degree 2 (6 terms)
     * or 3 (10): the plane */
    p = gk_points_new(ctx);
    const double px[4] = {1, 9, 2, 8}, py[4] = {1, 2, 9, 8};
    for (int i = 0; i < 4; i++)
        gk_points_add(p, px[i], py[i], 2 + 0.5 * px[i] - 0.25 * py[i]);
    for (int d = 2; d <= 3; d++) {
        char spec[64];
        snprintf(spec, sizeof spec, "polynomial:degree=%d", d);
        CHECK(run(spec, p, &g, out));
        double worst = 0;
        for (int j = 0; j < 5; j++)
            for (int i = 0; i < 5; i++) {
                const double x = gk_grid_node_x(&g, i), y = gk_grid_node_y(&g, j);
                worst = fmax(worst, fabs(out[j * 5 + i] - (2 + 0.5 * x - 0.25 * y)));
            }
        CHECKF(worst < 1e-12, "4 points, degree %d: the plane (off by %g)", d, worst);
    }
    /* an empty neighbourhood is nodata; so is one whose every weight is 0
     * (the points at the radius exactly) */
    gk_grid g2 = {0.5, 10.5, 0.5, 10.5, 5, 5}; /* nodes at 1.5, 3.5, ...: 0.7 or more away */
    CHECK(run("polynomial:radius=0.5:nodata=-1", p, &g2, out));
    all = 1;
    for (int i = 0; i < 25; i++)
        all &= out[i] == -1;
    CHECKF(all, "no point within 0.5 of any node: nodata");
    gk_points_free(p);
    p = gk_points_new(ctx);
    gk_points_add(p, 4, 5, 1); /* 1 from the node (5, 5) */
    gk_points_add(p, 6, 5, 3);
    gk_grid g1 = {4.5, 5.5, 4.5, 5.5, 1, 1};
    CHECK(run("polynomial:degree=0:radius=1:weight=power:nodata=-1", p, &g1, out));
    CHECKF(out[0] == -1, "every weight 0: nodata (got %g)", out[0]);
    CHECK(run("polynomial:degree=0:radius=1:min_points=3:nodata=-1", p, &g1, out));
    CHECKF(out[0] == -1, "fewer than min_points: nodata (got %g)", out[0]);
    CHECK(run("polynomial:degree=0:radius=1:nodata=-1", p, &g1, out));
    CHECKF(out[0] == 2, "both at the radius, unweighted: their mean 2 (got %g)", out[0]);
    gk_points_free(p);
}

/* gk_pf_fit_sets with GK_PF_LANES lanes gives each set the doubles of its
 * fit made alone, also for a lane that falls back (collinear, coincident) */
static void lanes_are_alone(void)
{
    enum { M = 12 };
    double x[GK_PF_LANES * M], y[GK_PF_LANES * M], z[GK_PF_LANES * M];
    int idx[GK_PF_LANES * M];
    for (int i = 0; i < GK_PF_LANES * M; i++) {
        const int l = i / M;
        x[i] = 3e5 + 1000.0 * gk_test_urand(&lcg);
        y[i] = l == 1 ? 7e6 + 0.5 * (x[i] - 3e5)
                      : 7e6 + 1000.0 * gk_test_urand(&lcg); /* lane 1: a line */
        if (l == 2)
            x[i] = 3e5 + 17.0, y[i] = 7e6 + 4.0; /* lane 2: one place */
        z[i] = 50.0 * gk_test_urand(&lcg);
        idx[i] = i;
    }
    for (int d = 0; d <= 3; d++) {
        double work[(GK_PF_MAX_TERMS + 1) * M * GK_PF_LANES];
        gk_pf_set side[GK_PF_LANES], alone;
        gk_pf_fit_sets(x, y, z, idx, M, d, GK_PF_LANES, work, side);
        for (int l = 0; l < GK_PF_LANES; l++) {
            gk_pf_fit_set(x, y, z, idx + l * M, M, d, work, &alone);
            int same = alone.terms == side[l].terms && alone.degree == side[l].degree &&
                       !memcmp(&alone.cx, &side[l].cx, sizeof alone.cx) &&
                       !memcmp(&alone.sc, &side[l].sc, sizeof alone.sc) &&
                       !memcmp(alone.beta, side[l].beta, (size_t)alone.terms * sizeof *alone.beta);
            CHECKF(same, "degree %d, lane %d: %d terms side by side, %d alone, or other bits", d, l,
                   side[l].terms, alone.terms);
        }
        if (d > 0) /* the line and the place fall back: the test covers that path */
            CHECKF(side[1].degree < d && side[2].terms == 1, "degree %d: lanes 1, 2 lowered", d);
    }
}

int main(void)
{
    ctx = gk_context_new();
    gk_context_set_device(ctx, "cpu");
    reproduces_its_degree();
    weighted_line();
    fallbacks_and_nodata();
    lanes_are_alone();
    gk_context_free(ctx);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
