/* SPDX-License-Identifier: MIT */
/* test_idw.c - invdist, invdistnn (with quadrant selection, from the k-d
 * tree too) and aidw on hand-checked cases (part of test_algorithms). */
#include "core/algo_harness.h"
#include "core/quadtree_order.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void test_invdist(void)
{
    const double x[] = {0, 1, 3}, y[] = {0, 0, 0}, z[] = {1, 3, 10};
    gk_algorithm a = alg_of(GK_ALG_INVDIST);
    a.radius1 = a.radius2 = 2;
    int nd;
    /* (3,0) is 2.5 away: outside; the other two are equally near */
    CHECK_NEAR(eval1(&a, x, y, z, 3, 0.5, 0, &nd), 2.0, 1e-14);
    CHECK(!nd);
    a.power = 3; /* node (0.25, 0): weights 64 and 64/27 -> 15/14 */
    CHECK_NEAR(eval1(&a, x, y, z, 3, 0.25, 0, &nd), 15.0 / 14.0, 1e-14);
    a.power = 2;
    a.smoothing = 1; /* equal smoothed distances */
    CHECK_NEAR(eval1(&a, x, y, z, 3, 0.25, 0, &nd),
               (1 / 1.0625 + 3 / 1.5625) / (1 / 1.0625 + 1 / 1.5625), 1e-14);
    a.smoothing = 0;
    a.min_points = 3;
    eval1(&a, x, y, z, 3, 0.5, 0, &nd);
    CHECK(nd);
    a.min_points = 0;
    /* exact hit */
    CHECK(eval1(&a, x, y, z, 3, 1, 0, &nd) == 3.0);

    /* max_points: the NEAREST inside the ellipse, not the first in file order */
    const double x2[] = {1.5, 0.2, -0.3, 0.1}, y2[] = {0, 0, 0, 1.9}, z2[] = {10, 2, 4, 50};
    a.max_points = 2;
    double w1 = 1 / 0.04, w2 = 1 / 0.09;
    CHECK_NEAR(eval1(&a, x2, y2, z2, 4, 0, 0, &nd), (2 * w1 + 4 * w2) / (w1 + w2), 1e-14);
    /* ellipse (not circle) path of the same rule */
    a.radius1 = 2;
    a.radius2 = 2.5;
    CHECK_NEAR(eval1(&a, x2, y2, z2, 4, 0, 0, &nd), (2 * w1 + 4 * w2) / (w1 + w2), 1e-14);
    a.radius2 = 2;
    /* ties at max_points: the lower index wins */
    const double x3[] = {1, 0, -1}, y3[] = {0, 1, 0}, z3[] = {5, 7, 9};
    a.max_points = 1;
    CHECK(eval1(&a, x3, y3, z3, 3, 0, 0, &nd) == 5.0);
    a.max_points = 0;

    /* coincident points: the first in input order is the hit */
    const double x4[] = {5, 1, 2, 1}, y4[] = {5, 0, 2, 0}, z4[] = {1, 3, 4, 7};
    CHECK(eval1(&a, x4, y4, z4, 4, 1, 0, &nd) == 3.0);
    a.max_points = 1; /* also through the k-NN path */
    CHECK(eval1(&a, x4, y4, z4, 4, 1, 0, &nd) == 3.0);
    const double x5[] = {1, 1, 1}, y5[] = {0, 0, 0}, z5[] = {8, 3, 4};
    CHECK(eval1(&a, x5, y5, z5, 3, 1, 0, &nd) == 8.0);
    const double x6[] = {1, 1, 1, 1}, y6[] = {0, 0, 0, 0}, z6[] = {8, 3, 4, 6};
    a.max_points = 2; /* all k answers are hits: index 0 still wins */
    CHECK(eval1(&a, x6, y6, z6, 4, 1, 0, &nd) == 8.0);

    /* rotated ellipse: r1 = 3 along the x axis turned by 90 degrees */
    const double x7[] = {2, 0}, y7[] = {0, 2}, z7[] = {5, 9};
    a.max_points = 0;
    a.radius1 = 3;
    a.radius2 = 1;
    CHECK(eval1(&a, x7, y7, z7, 2, 0, 0, &nd) == 5.0);
    a.angle = 90;
    CHECK(eval1(&a, x7, y7, z7, 2, 0, 0, &nd) == 9.0);
    a.angle = 0;
    eval1(&a, x7, y7, z7, 2, 10, 10, &nd);
    CHECK(nd);
}

/* invdist over every point with --precision single (the AVX-512, AVX2 and
 * portable kernels: whichever this CPU runs) against the exact double sum, on
 * UTM-sized coordinates, with counts that leave partial vectors (points
 * not a multiple of 8, rows not of 4 nodes) and a node on a point. */
void test_invdist_single(void)
{
    gk_context *ctx = gk_context_new();
    gk_points *pts = gk_points_new(ctx);
    const size_t n = 3001;
    double zmin = INFINITY, zmax = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double x = 500000.0 + 10000.0 * urand(), y = 5000000.0 + 10000.0 * urand();
        double z = 100.0 + 40.0 * sin(6e-4 * (x - 500000.0)) + 0.5 * urand();
        if (i == 17) /* on node (3, 5) of the grid below */
            x = 500000.0 + 10000.0 * 3.5 / 37.0, y = 5010000.0 - 10000.0 * 5.5 / 29.0;
        gk_points_add(pts, x, y, z);
        zmin = fmin(zmin, z), zmax = fmax(zmax, z);
    }
    gk_grid g = {500000.0, 510000.0, 5000000.0, 5010000.0, 37, 29};
    double *vd = malloc(37 * 29 * sizeof *vd), *vs = malloc(37 * 29 * sizeof *vs);
    gk_algorithm *a = gk_algorithm_parse(ctx, "invdist");
    gk_job *jd = gk_job_new(ctx, pts, a);
    gk_algorithm_set_precision(a, GK_PRECISION_SINGLE);
    gk_job *js = gk_job_new(ctx, pts, a);
    CHECK(jd && js);
    CHECK(!gk_job_compute_window(jd, &g, 0, 0, 37, 29, vd));
    CHECK(!gk_job_compute_window(js, &g, 0, 0, 37, 29, vs));
    double worst = 0;
    for (int k = 0; k < 37 * 29; k++)
        worst = fmax(worst, fabs(vs[k] - vd[k]));
    /* float on tile-local coordinates: about 1e-6 of the range (docs/benchmarks.md) */
    CHECKF(worst <= 1e-5 * (zmax - zmin), "invdist single: %.3g of the range from double",
           worst / (zmax - zmin));
    CHECKF(vs[5 * 37 + 3] == gk_points_z(pts)[17] && vd[5 * 37 + 3] == gk_points_z(pts)[17],
           "invdist single: a node on a point takes its value (%.17g)", vs[5 * 37 + 3]);
    gk_job_free(jd), gk_job_free(js);
    gk_algorithm_free(a);
    gk_points_free(pts);
    gk_context_free(ctx);
    free(vd), free(vs);
}

/* invdist --precision single on enough points and nodes for the far points'
 * sums to be interpolated (idw/invdist_far.c): against the exact double sum
 * on uniform points with a dense cluster, repeated points and a point on a
 * node, with smoothing, on square and on 2:1 cells; and the same bytes
 * whatever the windows (the blocks are the grid's, not the tiles'). */
void test_invdist_single_far(void)
{
    gk_context *ctx = gk_context_new();
    gk_points *pts = gk_points_new(ctx);
    const size_t n = 6000;
    double zmin = INFINITY, zmax = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double x, y;
        if (i % 3 == 0) { /* a cluster around (3000, 7000) */
            x = 503000.0 + 300.0 * urand(), y = 5007000.0 + 300.0 * urand();
        } else {
            x = 500000.0 + 10000.0 * urand(), y = 5000000.0 + 10000.0 * urand();
        }
        if (i % 97 == 5 && i > 5) /* repeated points, another value */
            x = gk_points_x(pts)[i - 5], y = gk_points_y(pts)[i - 5];
        if (i == 11) /* on node (70, 40) of the 150 x 120 grid below */
            x = 500000.0 + 10000.0 * 70.5 / 150.0, y = 5010000.0 - 10000.0 * 40.5 / 120.0;
        double z =
            100.0 + 40.0 * sin(6e-4 * (x - 500000.0)) * cos(4e-4 * (y - 5000000.0)) + 0.5 * urand();
        gk_points_add(pts, x, y, z);
        zmin = fmin(zmin, z), zmax = fmax(zmax, z);
    }
    const char *specs[] = {"invdist", "invdist:smoothing=20"};
    const gk_grid grids[] = {{500000.0, 510000.0, 5000000.0, 5010000.0, 150, 120},
                             {500000.0, 510000.0, 5000000.0, 5010000.0, 100, 200}};
    for (int sp = 0; sp < 2; sp++)
        for (int gi = 0; gi < 2; gi++) {
            const gk_grid *g = &grids[gi];
            size_t nn = (size_t)g->nx * g->ny;
            double *vd = malloc(nn * sizeof *vd), *vs = malloc(nn * sizeof *vs);
            double *vw = malloc(nn * sizeof *vw);
            gk_algorithm *a = gk_algorithm_parse(ctx, specs[sp]);
            gk_job *jd = gk_job_new(ctx, pts, a);
            gk_algorithm_set_precision(a, GK_PRECISION_SINGLE);
            gk_job *js = gk_job_new(ctx, pts, a);
            CHECK(jd && js);
            CHECK(!gk_job_compute_window(jd, g, 0, 0, g->nx, g->ny, vd));
            CHECK(!gk_job_compute_window(js, g, 0, 0, g->nx, g->ny, vs));
            double worst = 0;
            for (size_t k = 0; k < nn; k++)
                worst = fmax(worst, fabs(vs[k] - vd[k]));
            CHECKF(worst <= 1e-6 * (zmax - zmin),
                   "invdist single, far sums interpolated (%s, %dx%d): %.3g of the range from "
                   "double",
                   specs[sp], g->nx, g->ny, worst / (zmax - zmin));
            /* odd windows, computed apart: the same bytes */
            for (int y0 = 0; y0 < g->ny; y0 += 37)
                for (int x0 = 0; x0 < g->nx; x0 += 23) {
                    int w = g->nx - x0 < 23 ? g->nx - x0 : 23;
                    int h = g->ny - y0 < 37 ? g->ny - y0 : 37;
                    CHECK(!gk_job_compute_window(js, g, x0, y0, w, h, vw));
                    int same = 1;
                    for (int r = 0; r < h; r++)
                        same &= memcmp(vw + (size_t)r * w, vs + (size_t)(y0 + r) * g->nx + x0,
                                       (size_t)w * sizeof *vw) == 0;
                    CHECKF(same, "invdist single far: window %d,%d %dx%d differs", x0, y0, w, h);
                }
            if (gi == 0 && sp == 0) /* the node on the point takes its value (no smoothing) */
                CHECKF(vs[40 * 150 + 70] == gk_points_z(pts)[11], "hit: single %.17g, z %.17g",
                       vs[40 * 150 + 70], gk_points_z(pts)[11]);
            gk_job_free(jd), gk_job_free(js);
            gk_algorithm_free(a);
            free(vd), free(vs), free(vw);
        }
    gk_points_free(pts);
    gk_context_free(ctx);
}

void test_invdistnn(void)
{
    const double x[] = {1, 0, -1.2, 0, 2}, y[] = {0, 1, 0, -1.4, 2}, z[] = {1, 2, 3, 4, 100};
    gk_algorithm a = alg_of(GK_ALG_INVDISTNN);
    a.radius1 = a.radius2 = 1.5;
    a.max_points = 2;
    int nd;
    CHECK_NEAR(eval1(&a, x, y, z, 5, 0, 0, &nd), 1.5, 1e-14);
    a.max_points = 3;
    CHECK_NEAR(eval1(&a, x, y, z, 5, 0, 0, &nd), 183.0 / 97.0, 1e-14);
    a.max_points = 0;
    CHECK_NEAR(eval1(&a, x, y, z, 5, 0, 0, &nd),
               (1 + 2 + 3 / 1.44 + 4 / 1.96) / (2 + 1 / 1.44 + 1 / 1.96), 1e-14);
    a.max_points = 12;
    a.min_points = 5;
    eval1(&a, x, y, z, 5, 0, 0, &nd);
    CHECK(nd);
    a.min_points = 0;
    a.max_points = 1; /* tie between index 0 and 1 */
    CHECK(eval1(&a, x, y, z, 5, 0, 0, &nd) == 1.0);
    a.power = 1;
    a.max_points = 12;
    CHECK_NEAR(eval1(&a, x, y, z, 5, 0, 0, &nd),
               (1 + 2 + 3 / 1.2 + 4 / 1.4) / (2 + 1 / 1.2 + 1 / 1.4), 1e-14);
    CHECK(eval1(&a, x, y, z, 5, 2, 2, &nd) == 100.0); /* hit */
}

/* invdistnn's k nearest as gdal_grid takes them, by brute force: every
 * point within the radius sorted by distance, equal distances in the order
 * of gdal_grid's quadtree; the first of the hits (in that order) where any;
 * the first k summed in that order. */
static int ties_reference(const gk_points *pts, const uint32_t *rank, double nx, double ny,
                          double r, int k, double s2, double hit2, size_t *sel, double *sd,
                          double *v)
{
    const size_t n = gk_points_count(pts);
    const double *x = gk_points_x(pts), *y = gk_points_y(pts), *z = gk_points_z(pts);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        double dx = x[i] - nx, dy = y[i] - ny, e = dx * dx + dy * dy;
        if (e > r * r)
            continue;
        size_t j = m++; /* insertion by (distance, rank) */
        while (j > 0 && (sd[j - 1] > e || (sd[j - 1] == e && rank[sel[j - 1]] > rank[i]))) {
            sd[j] = sd[j - 1], sel[j] = sel[j - 1];
            j--;
        }
        sd[j] = e, sel[j] = i;
    }
    long hit = -1;
    for (size_t j = 0; j < m; j++)
        if (sd[j] + s2 < hit2 && (hit < 0 || rank[sel[j]] < rank[hit]))
            hit = (long)sel[j];
    if (hit >= 0) {
        *v = z[hit];
        return 1;
    }
    if (m > (size_t)k)
        m = (size_t)k;
    double num = 0.0, den = 0.0;
    for (size_t j = 0; j < m; j++) {
        double w = 1.0 / (sd[j] + s2);
        num += w * z[sel[j]];
        den += w;
    }
    if (m == 0 || den == 0.0)
        return 0;
    *v = num / den;
    return 1;
}

/* The CPU's invdistnn orders the points only once a query meets equal
 * distances (core/gk_internal.h's lazy_ties): its every node is the brute
 * force's, bit for bit, on points without ties, a lattice (ties
 * everywhere, nodes on points), integer coordinates (ties here and there)
 * and duplicates, on 1 and 3 threads. */
void test_invdistnn_ties(void)
{
    gk_context *ctx = gk_context_new();
    gk_context_set_device(ctx, "cpu");
    for (int kind = 0; kind < 4; kind++) {
        gk_points *pts = gk_points_new(ctx);
        for (int i = 0; i < 6000; i++) {
            double x = 100.0 * urand(), y = 100.0 * urand();
            if (kind == 1)
                x = (double)(i % 80) * 1.25, y = (double)(i / 80) * 1.25;
            if (kind == 2)
                x = floor(x), y = floor(y);
            if (kind == 3 && i % 9 == 4)
                x = 50.0, y = 50.0; /* 666 points on one place */
            gk_points_add(pts, x, y, sin(0.1 * x) + 0.01 * (double)(i % 97));
        }
        const size_t n = gk_points_count(pts);
        uint32_t *order = malloc(n * sizeof *order), *rank = malloc(n * sizeof *rank);
        CHECK(!gk_gdal_quadtree_order(gk_points_x(pts), gk_points_y(pts), n, order, NULL, NULL,
                                      NULL, 1));
        for (size_t i = 0; i < n; i++)
            rank[order[i]] = (uint32_t)i;
        gk_grid g = {-1.25, 101.25, -1.25, 101.25, 83, 83}; /* nodes 1.25 apart */
        const double hit2 = gk_hit_threshold2(&g);
        size_t *sel = malloc(n * sizeof *sel);
        double *sd = malloc(n * sizeof *sd), *v = malloc(83 * 83 * sizeof *v);
        static const char *specs[] = {"invdistnn:radius=6:max_points=12",
                                      "invdistnn:radius=3:max_points=1:smoothing=0.5"};
        for (int sp = 0; sp < 2; sp++) {
            for (int th = 3; th >= 1; th -= 2) {
                gk_context_set_threads(ctx, th);
                gk_algorithm *a = gk_algorithm_parse(ctx, specs[sp]);
                gk_job *job = a ? gk_job_new(ctx, pts, a) : NULL;
                CHECK(job && !gk_job_compute_window(job, &g, 0, 0, 83, 83, v));
                int bad = 0;
                const double nd = job ? job->alg.nodata : 0;
                for (int r = 0; job && r < 83; r++)
                    for (int c = 0; c < 83; c++) {
                        double want = nd;
                        ties_reference(pts, rank, gk_grid_node_x(&g, c), gk_grid_node_y(&g, r),
                                       job->alg.radius1, job->alg.max_points,
                                       job->alg.smoothing * job->alg.smoothing, hit2, sel, sd,
                                       &want);
                        double got = v[r * 83 + c];
                        bad += memcmp(&want, &got, sizeof got) != 0;
                    }
                CHECKF(bad == 0,
                       "invdistnn %s, data %d, %d threads: %d of 83^2 nodes differ "
                       "from gdal_grid's ties",
                       specs[sp], kind, th, bad);
                gk_job_free(job);
                gk_algorithm_free(a);
            }
        }
        free(order), free(rank), free(sel), free(sd), free(v);
        gk_points_free(pts);
    }
    gk_context_free(ctx);
}

/* Quadrants around (0, 0): q0 SW {A, B}, q1 SE {C}, q2 NW {D}, q3 NE {E, G, F}. */
static const double QX[] = {-1, -2, 1, -0.5, 0, 1, 0.5};
static const double QY[] = {-1, -2, -0.5, 0, 0.5, 1, 0.5};
static const double QZ[] = {1, 2, 3, 4, 5, 6, 7}; /* A B C D E F G */

void test_quadrants(void)
{
    int nd;
    gk_algorithm a = alg_of(GK_ALG_AVERAGE);
    a.radius1 = a.radius2 = 5;
    a.min_points_per_quadrant = 1;
    CHECK_NEAR(eval1(&a, QX, QY, QZ, 7, 0, 0, &nd), 4.0, 1e-14); /* all seven */
    a.max_points = 5;                                            /* A C D E B */
    CHECK_NEAR(eval1(&a, QX, QY, QZ, 7, 0, 0, &nd), 3.0, 1e-14);
    a.max_points = 6; /* A C D E B G: G is nearer than F */
    a.max_points_per_quadrant = 2;
    CHECK_NEAR(eval1(&a, QX, QY, QZ, 7, 0, 0, &nd), 22.0 / 6.0, 1e-14);
    a.max_points = 0;
    a.max_points_per_quadrant = 1; /* A C D E */
    CHECK_NEAR(eval1(&a, QX, QY, QZ, 7, 0, 0, &nd), 13.0 / 4.0, 1e-14);
    a.max_points_per_quadrant = 0;
    a.min_points_per_quadrant = 2; /* SE and NW have one each */
    eval1(&a, QX, QY, QZ, 7, 0, 0, &nd);
    CHECK(nd);
    /* max_points reached before the quadrant minimum is met: nodata */
    a.min_points_per_quadrant = 1;
    a.max_points = 3;
    eval1(&a, QX, QY, QZ, 7, 0, 0, &nd);
    CHECK(nd);
    a.max_points = 0;

    /* the selection order itself */
    tjob tj;
    a.min_points_per_quadrant = 0;
    a.max_points_per_quadrant = 5;
    tjob_init(&tj, QX, QY, QZ, 7, &a);
    gk_scratch s = {0};
    long n = gk_nb_ellipse(tj.job, 0, 0, &s);
    CHECK(n == 7);
    n = gk_nb_quadrants(tj.job, 0, 0, s.idx, s.d2, (size_t)n, 0, 0, 5, &s);
    const int order[] = {0, 2, 3, 4, 1, 6, 5}; /* A C D E B G F */
    CHECK(n == 7);
    for (int i = 0; i < 7 && n == 7; i++)
        CHECK(s.idx[i] == order[i]);
    gk_scratch_free(&s);
    tjob_free(&tj);

    /* metrics ignore max_points */
    a = alg_of(GK_ALG_COUNT);
    a.radius1 = a.radius2 = 5;
    a.max_points = 5;
    a.max_points_per_quadrant = 2; /* A B C D E G */
    CHECK(eval1(&a, QX, QY, QZ, 7, 0, 0, &nd) == 6.0);
    a.kind = GK_ALG_MAXIMUM;
    a.max_points_per_quadrant = 1; /* A C D E */
    CHECK(eval1(&a, QX, QY, QZ, 7, 0, 0, &nd) == 5.0);
    a.kind = GK_ALG_AVERAGE_DISTANCE;
    CHECK_NEAR(eval1(&a, QX, QY, QZ, 7, 0, 0, &nd), (sqrt(2.0) + sqrt(1.25) + 0.5 + 0.5) / 4.0,
               1e-14);
    a.kind = GK_ALG_COUNT;
    a.max_points_per_quadrant = 0;
    a.min_points_per_quadrant = 2;
    eval1(&a, QX, QY, QZ, 7, 0, 0, &nd);
    CHECK(nd); /* count: the quadrant minimum still makes it nodata */

    /* invdistnn with quadrants: A C D E */
    a = alg_of(GK_ALG_INVDISTNN);
    a.radius1 = a.radius2 = 5;
    a.max_points = 4;
    a.min_points_per_quadrant = 1;
    CHECK_NEAR(eval1(&a, QX, QY, QZ, 7, 0, 0, &nd), 38.9 / 9.3, 1e-14);
    /* invdist with per-quadrant keys behaves as invdistnn with the limits */
    a.kind = GK_ALG_INVDIST;
    CHECK_NEAR(eval1(&a, QX, QY, QZ, 7, 0, 0, &nd), 38.9 / 9.3, 1e-14);
}

/* The bounded per-quadrant selection straight from the k-d tree
 * (gk_nb_ellipse_quadrants, gk_nb_quadrants_knn) equals the gathered one
 * (gk_nb_ellipse, then gk_nb_quadrants: the path the gdal_grid conformance
 * cases check), point for point and in order: points on a lattice (ties in
 * distance, points on the axes through nodes on lattice points) plus random
 * ones and duplicates, circles and rotated ellipses, every limit. */
void test_quadrants_knn(void)
{
    enum { NL = 21 * 21, NR = 300, N = NL + NR + 20 };
    static double x[N], y[N], z[N];
    unsigned r = 12345;
    for (int i = 0; i < NL; i++) {
        x[i] = i % 21;
        y[i] = i / 21;
    }
    for (int i = NL; i < NL + NR; i++) {
        r = r * 1103515245u + 12345u;
        x[i] = (r >> 8) % 200000 / 10000.0;
        r = r * 1103515245u + 12345u;
        y[i] = (r >> 8) % 200000 / 10000.0;
    }
    for (int i = NL + NR; i < N; i++) { /* duplicates of lattice points */
        x[i] = x[(i * 37) % NL];
        y[i] = y[(i * 37) % NL];
    }
    for (int i = 0; i < N; i++)
        z[i] = i;
    static const double radii[][3] = {{3, 3, 0}, {4, 2, 30}, {2.5, 5, 90}, {6, 6, 0}};
    static const int limits[][3] = {/* max_points, min per quadrant, max per quadrant */
                                    {0, 0, 2}, {5, 0, 0},   {7, 1, 3}, {12, 0, 1},
                                    {0, 2, 5}, {40, 0, 16}, {3, 1, 0}};
    int bad = 0, cases = 0;
    for (size_t e = 0; e < sizeof radii / sizeof *radii; e++)
        for (size_t l = 0; l < sizeof limits / sizeof *limits; l++) {
            gk_algorithm a = alg_of(GK_ALG_AVERAGE);
            a.radius1 = radii[e][0];
            a.radius2 = radii[e][1];
            a.angle = radii[e][2];
            a.max_points = limits[l][0];
            a.min_points_per_quadrant = limits[l][1];
            a.max_points_per_quadrant = limits[l][2];
            tjob tj;
            tjob_init(&tj, x, y, z, N, &a);
            gk_scratch s1 = {0}, s2 = {0};
            for (int k = 0; k < 60; k++) {
                /* nodes on lattice points, half-way between them, anywhere */
                double nx = k < 20 ? k % 7 * 3 : k < 40 ? 0.5 + k % 9 * 2 : 20.0 * k / 61.0;
                double ny = k < 20 ? k % 5 * 4 : k < 40 ? 0.5 + k % 6 * 3 : 20.0 * (k % 13) / 13.0;
                long n1 = gk_nb_ellipse(tj.job, nx, ny, &s1);
                if (n1 >= 0)
                    n1 = gk_nb_quadrants(tj.job, nx, ny, s1.idx, s1.d2, (size_t)n1, a.max_points,
                                         a.min_points_per_quadrant, a.max_points_per_quadrant, &s1);
                long n2 = gk_nb_ellipse_quadrants(tj.job, nx, ny, 1, &s2);
                int same = n1 == n2;
                for (long i = 0; same && i < n1; i++)
                    same = s1.idx[i] == s2.idx[i] && s1.d2[i] == s2.d2[i];
                /* the circle's form (invdistnn), where the ellipse is one */
                if (radii[e][0] == radii[e][1] && gk_nb_quadrants_bounded(&a, 1)) {
                    double r2 = a.radius1 * a.radius1;
                    long n4 = gk_nb_circle(tj.job, nx, ny, r2, &s1);
                    if (n4 >= 0)
                        n4 = gk_nb_quadrants(tj.job, nx, ny, s1.idx, s1.d2, (size_t)n4,
                                             a.max_points, a.min_points_per_quadrant,
                                             a.max_points_per_quadrant, &s1);
                    long n3 = gk_nb_quadrants_knn(tj.job, nx, ny, r2, NULL, a.max_points,
                                                  a.min_points_per_quadrant,
                                                  a.max_points_per_quadrant, &s2);
                    same = same && n3 == n4;
                    for (long i = 0; same && i < n4; i++)
                        same = s1.idx[i] == s2.idx[i] && s1.d2[i] == s2.d2[i];
                }
                bad += !same;
                cases++;
            }
            gk_scratch_free(&s1);
            gk_scratch_free(&s2);
            tjob_free(&tj);
        }
    CHECK(cases == 4 * 7 * 60);
    if (bad)
        fprintf(stderr, "quadrants from the k-d tree: %d of %d nodes differ\n", bad, cases);
    CHECK(bad == 0);
}

/* ---- aidw --------------------------------------------------------------------- */

void test_aidw(void)
{
    gk_algorithm a = alg_of(GK_ALG_AIDW);
    /* alpha: 1.5, 2, 2.5, 3, 3.5 through mu = 0.1 ... 0.9 */
    CHECK_NEAR(gk_aidw_alpha(&a, 0.0), 1.5, 1e-14);
    CHECK_NEAR(gk_aidw_alpha(&a, 0.1), 1.5, 1e-14);
    CHECK_NEAR(gk_aidw_alpha(&a, 0.2), 1.75, 1e-14);
    CHECK_NEAR(gk_aidw_alpha(&a, 0.3), 2.0, 1e-14);
    CHECK_NEAR(gk_aidw_alpha(&a, 0.4), 2.25, 1e-14); /* alpha2/alpha3, not alpha1 */
    CHECK_NEAR(gk_aidw_alpha(&a, 0.6), 2.75, 1e-14);
    CHECK_NEAR(gk_aidw_alpha(&a, 0.8), 3.25, 1e-14);
    CHECK_NEAR(gk_aidw_alpha(&a, 0.9), 3.5, 1e-14);
    CHECK_NEAR(gk_aidw_alpha(&a, 1.0), 3.5, 1e-14);
    gk_aidw_of(&a)->alpha[1] = 7.0; /* only the 0.1-0.5 neighbourhood moves */
    CHECK_NEAR(gk_aidw_alpha(&a, 0.4), 0.5 * 7.0 + 0.5 * 2.5, 1e-14);
    CHECK_NEAR(gk_aidw_alpha(&a, 0.2), 0.5 * 1.5 + 0.5 * 7.0, 1e-14);
    CHECK_NEAR(gk_aidw_alpha(&a, 0.6), 2.75, 1e-14);
    gk_aidw_of(&a)->alpha[1] = 2.0;
    /* membership: cosine between r_min = 0 and r_max = 2 */
    CHECK(gk_aidw_mu(&a, 0.0) == 0.0);
    CHECK(gk_aidw_mu(&a, -1.0) == 0.0);
    CHECK_NEAR(gk_aidw_mu(&a, 1.0), 0.5, 1e-14);
    CHECK_NEAR(gk_aidw_mu(&a, 0.5), 0.5 - 0.5 * sqrt(0.5), 1e-14);
    CHECK(gk_aidw_mu(&a, 2.0) == 1.0);
    CHECK(gk_aidw_mu(&a, 5.0) == 1.0);
    gk_aidw_of(&a)->rmin = 1.0;
    gk_aidw_of(&a)->rmax = 3.0;
    CHECK_NEAR(gk_aidw_mu(&a, 2.0), 0.5, 1e-14);
    gk_aidw_of(&a)->rmin = 0.0;
    gk_aidw_of(&a)->rmax = 2.0;

    /* r_exp of the unit square's corners: 1 / (2 sqrt(4 / 1)) = 0.25 */
    const double xs[] = {0, 1, 0, 1}, ys[] = {0, 0, 1, 1}, zs[] = {1, 2, 3, 4};
    tjob tj;
    gk_aidw_of(&a)->k = 2;
    tjob_init(&tj, xs, ys, zs, 4, &a);
    CHECK_NEAR(((const gk_aidw_state *)tj.job->state)->r_exp, 0.25, 1e-15);
    int nd;
    /* centre: r_obs = sqrt(0.5), R = 2.83 -> mu 1 -> alpha 3.5; all equidistant */
    CHECK_NEAR(node_value(&tj, 0.5, 0.5, &nd), 2.5, 1e-14);
    CHECK(node_value(&tj, 1, 1, &nd) == 4.0); /* exact hit */
    tjob_free(&tj);

    /* against an independent implementation: random points, all-points IDW */
    pset p;
    make_clustered(&p, 300);
    for (int pass = 0; pass < 2; pass++) {
        a = alg_of(GK_ALG_AIDW);
        gk_aidw_of(&a)->k = 7;
        if (pass == 1) {
            a.radius1 = a.radius2 = 15;
            a.max_points = 20;
        }
        tjob_init(&tj, p.x, p.y, p.z, p.n, &a);
        double bx0 = INFINITY, bx1 = -INFINITY, by0 = INFINITY, by1 = -INFINITY;
        for (size_t i = 0; i < p.n; i++) {
            bx0 = fmin(bx0, p.x[i]);
            bx1 = fmax(bx1, p.x[i]);
            by0 = fmin(by0, p.y[i]);
            by1 = fmax(by1, p.y[i]);
        }
        double rexp = 1.0 / (2.0 * sqrt((double)p.n / ((bx1 - bx0) * (by1 - by0))));
        CHECK_NEAR(((const gk_aidw_state *)tj.job->state)->r_exp, rexp, 1e-13);
        cand *c = malloc(p.n * sizeof *c);
        int bad = 0, seen[5] = {0};
        for (int q = 0; q < 200; q++) {
            double nx = bx0 + urand() * (bx1 - bx0), ny = by0 + urand() * (by1 - by0);
            for (size_t i = 0; i < p.n; i++) {
                c[i].d2 = bf_d2(&p, i, nx, ny);
                c[i].idx = (int)i;
            }
            qsort(c, p.n, sizeof *c, cand_cmp);
            double robs = 0;
            for (int i = 0; i < 7; i++)
                robs += sqrt(c[i].d2);
            robs /= 7;
            double R = robs / rexp, mu;
            if (R <= 0)
                mu = 0;
            else if (R >= 2)
                mu = 1;
            else
                mu = 0.5 - 0.5 * cos(M_PI * R / 2);
            /* alpha by explicit segments */
            double alpha;
            if (mu <= 0.1)
                alpha = 1.5;
            else if (mu <= 0.3)
                alpha = 1.5 + (mu - 0.1) / 0.2 * 0.5;
            else if (mu <= 0.5)
                alpha = 2.0 * (1 - 5 * (mu - 0.3)) + 5 * 2.5 * (mu - 0.3);
            else if (mu <= 0.7)
                alpha = 2.5 + (mu - 0.5) / 0.2 * 0.5;
            else if (mu < 0.9)
                alpha = 3.0 + (mu - 0.7) / 0.2 * 0.5;
            else
                alpha = 3.5;
            seen[mu <= 0.1 ? 0 : mu <= 0.3 ? 1 : mu <= 0.5 ? 2 : mu < 0.9 ? 3 : 4]++;
            double num = 0, den = 0;
            size_t used = pass == 0 ? p.n : 0;
            if (pass == 1)
                while (used < 20 && used < p.n && c[used].d2 <= 15.0 * 15.0)
                    used++;
            for (size_t i = 0; i < used; i++) {
                double w = pow(sqrt(c[i].d2), -alpha);
                num += w * p.z[c[i].idx];
                den += w;
            }
            double want = num / den;
            int ndf;
            double got = node_value(&tj, nx, ny, &ndf);
            if (used == 0 ? !ndf : (ndf || !(fabs(got - want) <= 1e-11 * (1 + fabs(want)))))
                bad++;
        }
        free(c);
        CHECK(bad == 0);
        if (pass == 0) /* the random nodes cover several membership ranges */
            CHECK(seen[0] + seen[1] + seen[2] > 0 && seen[3] + seen[4] > 0);
        tjob_free(&tj);
    }
    pset_free(&p);
}
