/* SPDX-License-Identifier: MIT */
/*
 * test_natural.c - -a natural in the core against exact expectations: both
 * coordinates reproduce a plane (linear precision) inside the hull; a node on
 * a point takes its value (of coincident points, the first's); on a hull edge
 * the linear interpolation along it; at a lattice square's centre the mean of
 * its corners; outside the hull nodata, or the nearest point within radius;
 * a single point, points on a line, points all at one place and an empty
 * set give defined answers, never NaN; bad keys are refused by name. (CGAL and exact Voronoi cells:
 * tests/linear/natural/compare.py.)
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

static unsigned long long lcg = 7;

static double plane(double x, double y) { return 3.0 + 0.5 * x - 0.2 * y; }

/* The square [0, 100]^2's corners and random points inside: the hull is the square. */
static gk_points *square_points(int n, double (*f)(double, double))
{
    gk_points *p = gk_points_new(ctx);
    const double cx[] = {0, 100, 100, 0}, cy[] = {0, 0, 100, 100};
    for (int i = 0; i < 4; i++)
        gk_points_add(p, cx[i], cy[i], f(cx[i], cy[i]));
    for (int i = 0; i < n; i++) {
        const double x = 100 * gk_test_urand(&lcg), y = 100 * gk_test_urand(&lcg);
        gk_points_add(p, x, y, f(x, y));
    }
    return p;
}

static void linear_precision(void)
{
    gk_points *p = square_points(300, plane);
    gk_grid g = {-10, 110, -10, 110, 37, 41}; /* a margin of nodes outside */
    double out[37 * 41];
    /* sibson_c1: the gradients fitted to a plane are its own, and every term
     * of the blend is then the plane's value */
    const char *specs[] = {"natural:nodata=-999", "natural:type=laplace:nodata=-999",
                           "natural:type=sibson_c1:nodata=-999"};
    for (int s = 0; s < 3; s++) {
        CHECK(run(specs[s], p, &g, out));
        double worst = 0;
        int in = 0, outside_ok = 1;
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++) {
                const double x = gk_grid_node_x(&g, i), y = gk_grid_node_y(&g, j);
                const double v = out[j * g.nx + i];
                if (x >= 0 && x <= 100 && y >= 0 && y <= 100) {
                    worst = fmax(worst, fabs(v - plane(x, y)));
                    in++;
                } else {
                    outside_ok &= v == -999;
                }
            }
        CHECKF(in > 900 && worst < 1e-9, "%s on a plane: %d nodes, off by %g", specs[s], in, worst);
        CHECKF(outside_ok, "%s: nodata outside the hull", specs[s]);
    }
    gk_points_free(p);
}

static double wavy(double x, double y) { return sin(x / 13) + cos(y / 7); }

static void points_edges_and_lattices(void)
{
    /* nodes at 10, 30, .., 90: on the points (one twice: 5 first, then 7),
     * on the hull edge y = 90 between (10, 90) and (90, 90) */
    gk_points *p = gk_points_new(ctx);
    const double px[] = {10, 90, 90, 10, 30, 50, 70, 30, 30};
    const double py[] = {10, 10, 90, 90, 50, 30, 70, 30, 30};
    const double pz[] = {1, 2, 6, 4, 8, 3, 9, 5, 7};
    for (int i = 0; i < 9; i++)
        gk_points_add(p, px[i], py[i], pz[i]);
    gk_grid g = {0, 100, 0, 100, 5, 5};
    double out[25];
    for (int t = 0; t < 3; t++) {
        const char *spec = t == 2   ? "natural:type=sibson_c1:nodata=-1"
                           : t == 1 ? "natural:type=laplace:nodata=-1"
                                    : "natural:nodata=-1";
        CHECK(run(spec, p, &g, out));
        /* (x, y) -> node i = (x - 10) / 20, j = (90 - y) / 20 */
        CHECKF(out[4 * 5 + 0] == 1 && out[4 * 5 + 4] == 2 && out[0 * 5 + 4] == 6 &&
                   out[0 * 5 + 0] == 4 && out[2 * 5 + 1] == 8 && out[3 * 5 + 2] == 3 &&
                   out[1 * 5 + 3] == 9,
               "%s: the points' values at the points", spec);
        CHECKF(out[3 * 5 + 1] == 5, "%s: two points at (30, 30), 5 then 7: the first, got %g", spec,
               out[3 * 5 + 1]);
        /* the top edge from (10, 90) z=4 to (90, 90) z=6: at x = 30, 50, 70 */
        CHECKF(fabs(out[1] - 4.5) < 1e-12 && fabs(out[2] - 5) < 1e-12 && fabs(out[3] - 5.5) < 1e-12,
               "%s: along the hull edge: %g %g %g", spec, out[1], out[2], out[3]);
    }
    gk_points_free(p);

    /* a lattice: every node a square's centre (four cocircular points, each
     * square split by either diagonal): the mean of its corners */
    p = gk_points_new(ctx);
    for (int j = 0; j <= 10; j++)
        for (int i = 0; i <= 10; i++)
            gk_points_add(p, 10.0 * i, 10.0 * j, wavy(10.0 * i, 10.0 * j));
    gk_grid h = {0, 100, 0, 100, 10, 10};
    double o2[100];
    for (int t = 0; t < 2; t++) {
        const char *spec = t ? "natural:type=laplace" : "natural";
        CHECK(run(spec, p, &h, o2));
        double worst = 0;
        for (int j = 0; j < 10; j++)
            for (int i = 0; i < 10; i++) {
                const double x0 = 10.0 * i, y0 = 90.0 - 10.0 * j;
                const double m = 0.25 * (wavy(x0, y0) + wavy(x0 + 10, y0) + wavy(x0, y0 + 10) +
                                         wavy(x0 + 10, y0 + 10));
                worst = fmax(worst, fabs(o2[j * 10 + i] - m));
            }
        CHECKF(worst < 1e-12, "%s: a lattice square's centre is its corners' mean, off by %g", spec,
               worst);
    }
    gk_points_free(p);
}

static void outside_and_degenerate(void)
{
    gk_points *p = gk_points_new(ctx);
    gk_points_add(p, 0, 0, 1);
    gk_points_add(p, 10, 0, 2);
    gk_points_add(p, 0, 10, 3);
    gk_grid g = {-20, 30, -20, 30, 5, 5}; /* nodes at -15, -5, 5, 15, 25 */
    double out[25];
    CHECK(run("natural:radius=-1", p, &g, out));
    /* (25, 25): nearest (10, 0)? no: d^2 225+625=850 vs (0, 10): 625+225=850,
     * a tie, the later point in input order (as linear) */
    CHECKF(out[0 * 5 + 4] == 3, "radius=-1: the nearest point, ties to the last: %g", out[4]);
    CHECKF(out[4 * 5 + 0] == 1, "radius=-1: (-15, -15) takes (0, 0)'s value: %g", out[20]);
    CHECK(run("natural:radius=8:nodata=-5", p, &g, out));
    CHECKF(out[4 * 5 + 0] == -5 && out[3 * 5 + 1] == 1,
           "radius=8: (-15, -15) beyond it (%g), (-5, -5) within it of (0, 0) (%g)", out[20],
           out[16]);
    gk_points_free(p);

    /* one point, points on a line, points all at one place: no triangle;
     * nodata, or the nearest */
    static const char *const what[] = {"one point", "points on a line", "identical points"};
    for (int c = 0; c < 3; c++) {
        p = gk_points_new(ctx);
        for (int i = 0; i < (c ? 5 : 1); i++)
            gk_points_add(p, c == 2 ? 0.0 : 10.0 * i, c == 2 ? 0.0 : 5.0 * i, c == 2 ? 1 : i + 1);
        CHECK(run("natural:nodata=-7", p, &g, out));
        int all = 1;
        for (int i = 0; i < 25; i++)
            all &= out[i] == -7;
        CHECKF(all, "%s: nodata everywhere by default", what[c]);
        CHECK(run("natural:radius=-1", p, &g, out));
        int finite = 1;
        for (int i = 0; i < 25; i++)
            finite &= isfinite(out[i]);
        CHECKF(finite && (c == 1 || out[12] == 1), "%s with radius=-1: the nearest point's value",
               what[c]);
        gk_points_free(p);
    }

    /* no points: an error saying so */
    p = gk_points_new(ctx);
    gk_algorithm *a = gk_algorithm_parse(ctx, "natural");
    gk_job *job = gk_job_new(ctx, p, a);
    CHECKF(!job && strstr(gk_errmsg(ctx), "no points"), "no points: '%s'", gk_errmsg(ctx));
    gk_job_free(job);
    gk_algorithm_free(a);
    gk_points_free(p);
}

static void bad_keys(void)
{
    const char *bad[][2] = {
        {"natural:type=cubic", "type=cubic must be sibson, laplace or sibson_c1"},
        {"natural:radius=nan", "radius"},
        {"natural:power=2", "no parameter 'power'"},
        {"natural:radius", "not key=value"}};
    for (int i = 0; i < 4; i++) {
        gk_algorithm *a = gk_algorithm_parse(ctx, bad[i][0]);
        CHECKF(!a && strstr(gk_errmsg(ctx), bad[i][1]), "%s refused: '%s'", bad[i][0],
               gk_errmsg(ctx));
        gk_algorithm_free(a);
    }
    gk_algorithm *a = gk_algorithm_parse(ctx, "natural:TYPE=Laplace:radius=5");
    CHECKF(a && !strcmp(gk_algorithm_string(a), "natural:type=laplace:radius=5:nodata=0"),
           "canonical: %s", a ? gk_algorithm_string(a) : gk_errmsg(ctx));
    gk_algorithm_free(a);
    a = gk_algorithm_parse(ctx, "natural:type=SIBSON_C1");
    CHECKF(a && !strcmp(gk_algorithm_string(a), "natural:type=sibson_c1:radius=0:nodata=0"),
           "canonical: %s", a ? gk_algorithm_string(a) : gk_errmsg(ctx));
    gk_algorithm_free(a);
}

/* sibson_c1 on a curved surface: smoother than Sibson's (closer to it at
 * the nodes away from the hull), the nodes with a hull point among their
 * natural neighbours counted as lowered and given Sibson's value. */
static void c1_form(void)
{
    gk_points *p = square_points(400, wavy);
    gk_grid g = {0, 100, 0, 100, 50, 50};
    double c0[2500], c1[2500];
    gk_run_stats st;
    memset(&st, 0, sizeof st);
    CHECK(run("natural", p, &g, c0));
    CHECK(gk_test_run(ctx, "natural:type=sibson_c1", p, &g, c1, &st));
    double e0 = 0, e1 = 0;
    int same = 0, inner = 0;
    for (int j = 0; j < g.ny; j++)
        for (int i = 0; i < g.nx; i++) {
            const double x = gk_grid_node_x(&g, i), y = gk_grid_node_y(&g, j);
            const int k = j * g.nx + i;
            same += c0[k] == c1[k];
            if (x > 15 && x < 85 && y > 15 && y < 85) {
                e0 += fabs(c0[k] - wavy(x, y));
                e1 += fabs(c1[k] - wavy(x, y));
                inner++;
            }
        }
    CHECKF(e1 < 0.5 * e0, "sibson_c1 off a smooth surface by %g on %d inner nodes, sibson by %g",
           e1 / inner, inner, e0 / inner);
    CHECKF(st.lowered_nodes > 0 && st.lowered_nodes < 2500 && (uint64_t)same >= st.lowered_nodes,
           "sibson_c1: %llu nodes lowered (a hull neighbour), %d equal to Sibson's",
           (unsigned long long)st.lowered_nodes, same);
    gk_points_free(p);
}

int main(void)
{
    ctx = gk_context_new();
    gk_context_set_device(ctx, "cpu");
    linear_precision();
    points_edges_and_lattices();
    outside_and_degenerate();
    bad_keys();
    c1_form();
    gk_context_free(ctx);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
