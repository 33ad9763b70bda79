/* SPDX-License-Identifier: MIT */
/* bench_algorithms.c - k-NN / radius queries of the k-d tree on 200k points,
 * an invdistnn tile, and the window statistics on the bucket grid (per-node
 * scan, row sweep, tile stamp). Not a test; built with the test_algorithms
 * harness (tests/core/algo_harness.h). */
#include "core/algo_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* One window statistic on the bucket grid over g in the engine's 256 x 256
 * tiles: ns per node of the per-node scan (AVX-512, portable) and of the row
 * sweep where it runs, and which one the rule picks. */
static void bench_window(gk_points *pts, gk_alg_kind kind, double r, const gk_grid *g,
                         const char *what, double *out)
{
    gk_algorithm a = alg_of(kind);
    a.radius1 = a.radius2 = r;
    double t0 = now();
    gk_job *job = gk_job_new(ctx, pts, &a);
    double t1 = now();
    if (!job || !gk_window_bg(job)) {
        gk_job_free(job);
        return;
    }
    const char *name[] = {"avx-512", "generic", "row sweep", "tile stamp"};
    int sweeps = kind == GK_ALG_AVERAGE || kind == GK_ALG_COUNT;
    for (int mode = 0; mode < 2 + 2 * sweeps; mode++) {
        gk_bg_use_simd(gk_window_bg(job), mode != 1);
        gk_bg_force_method(gk_window_bg(job), mode <= 1   ? GK_BG_SCAN
                                              : mode == 2 ? GK_BG_SWEEP
                                                          : GK_BG_STAMP);
        double t2 = now();
        for (int y0 = 0; y0 < g->ny; y0 += 256)
            for (int x0 = 0; x0 < g->nx; x0 += 256)
                gk_job_compute_window(job, g, x0, y0, x0 + 256 > g->nx ? g->nx - x0 : 256,
                                      y0 + 256 > g->ny ? g->ny - y0 : 256, out);
        double t3 = now();
        printf("%s radius %g, %s (bucket grid, %s): prepare %.1f ms, %.0f ns/node\n",
               gk_algorithm_name(&a), r, what, name[mode], (t1 - t0) * 1e3,
               (t3 - t2) / ((double)g->nx * g->ny) * 1e9);
    }
    gk_bg_force_method(gk_window_bg(job), -1);
    int m = gk_bg_method(gk_window_bg(job), &job->ell, g,
                         kind == GK_ALG_COUNT     ? GK_BG_COUNT
                         : kind == GK_ALG_AVERAGE ? GK_BG_SUM_Z
                                                  : -1);
    printf("  (the rule picks the %s)\n", m == GK_BG_STAMP   ? "tile stamp"
                                          : m == GK_BG_SWEEP ? "row sweep"
                                                             : "per-node scan");
    gk_job_free(job);
}

static int bench(void)
{
    size_t n = 200000;
    pset p;
    pset_alloc(&p, n);
    for (size_t i = 0; i < n; i++) {
        p.x[i] = urand() * 1000.0;
        p.y[i] = urand() * 1000.0;
        p.z[i] = urand();
    }
    double t0 = now();
    gk_kdtree *t = gk_kdtree_build(p.x, p.y, n);
    double t1 = now();
    printf("build %zu points: %.1f ms\n", n, (t1 - t0) * 1e3);
    int idx[64];
    double d2[64];
    int nq = 1000000;
    double sink = 0;
    /* grid-ordered queries, as the tiles issue them */
    int side = 1000;
    t0 = now();
    for (int q = 0; q < nq; q++) {
        double cx = (q % side + 0.5), cy = (q / side + 0.5);
        int m = gk_kdtree_knn(t, cx, cy, 12, INFINITY, idx, d2);
        sink += d2[m - 1];
    }
    t1 = now();
    printf("12-NN (grid order): %.0f ns/query\n", (t1 - t0) / nq * 1e9);
    t0 = now();
    for (int q = 0; q < nq; q++) {
        double cx = urand() * 1000.0, cy = urand() * 1000.0;
        int m = gk_kdtree_knn(t, cx, cy, 12, INFINITY, idx, d2);
        sink += d2[m - 1];
    }
    t1 = now();
    printf("12-NN (random order): %.0f ns/query\n", (t1 - t0) / nq * 1e9);
    t0 = now();
    for (int q = 0; q < nq; q++) {
        double cx = (q % side + 0.5), cy = (q / side + 0.5);
        sink += gk_kdtree_nearest(t, cx, cy, INFINITY, d2);
    }
    t1 = now();
    printf("nearest: %.0f ns/query\n", (t1 - t0) / nq * 1e9);
    int *bi = malloc(4096 * sizeof *bi);
    double *bd = malloc(4096 * sizeof *bd);
    t0 = now();
    for (int q = 0; q < nq; q++) {
        double cx = (q % side + 0.5), cy = (q / side + 0.5);
        sink += (double)gk_kdtree_radius(t, cx, cy, 100.0, bi, bd, 4096); /* ~63 points */
    }
    t1 = now();
    printf("radius 10 (~63 pts): %.0f ns/query\n", (t1 - t0) / nq * 1e9);
    free(bi);
    free(bd);

    /* invdistnn tile throughput */
    gk_algorithm a = alg_of(GK_ALG_INVDISTNN);
    a.radius1 = a.radius2 = 20;
    a.max_points = 12;
    tjob tj;
    tjob_init(&tj, p.x, p.y, p.z, n, &a);
    gk_grid g = {0, 1000, 0, 1000, 1000, 1000};
    double *out = malloc(sizeof *out * 1000 * 1000);
    gk_scratch s = {0};
    gk_tile tile = {&g, 0, 0, 1000, 1000, HIT2};
    t0 = now();
    gk_invdistnn_tile(tj.job, &tile, out, &s);
    t1 = now();
    printf("invdistnn max_points=12 1000x1000 tile: %.0f ns/node\n", (t1 - t0) / 1e6 * 1e9);
    gk_scratch_free(&s);
    tjob_free(&tj);

    /* window statistics on the bucket grid: radius 10 (~63 points a node),
     * then the sweep against the per-node scan as the chord shrinks to a cell */
    gk_points *pts = gk_points_new(ctx);
    for (size_t i = 0; i < n; i++)
        gk_points_add(pts, p.x[i], p.y[i], p.z[i]);
    gk_context_set_threads(ctx, 1);
    const gk_alg_kind bk[] = {GK_ALG_AVERAGE,          GK_ALG_COUNT,   GK_ALG_RANGE,
                              GK_ALG_AVERAGE_DISTANCE, GK_ALG_AVERAGE, GK_ALG_AVERAGE,
                              GK_ALG_AVERAGE,          GK_ALG_AVERAGE, GK_ALG_AVERAGE,
                              GK_ALG_AVERAGE,          GK_ALG_COUNT};
    const double br[] = {10, 10, 10, 10, 40, 20, 4, 2, 1, 0.5, 0.25};
    for (int k = 0; k < (int)(sizeof br / sizeof br[0]); k++)
        bench_window(pts, bk[k], br[k], &g, "cell 1", out);
    /* nodes sparser than the points: 4 units a cell */
    gk_grid g4 = {0, 1000, 0, 1000, 250, 250};
    bench_window(pts, GK_ALG_AVERAGE, 1, &g4, "cell 4", out);
    gk_points_free(pts);
    /* the end-to-end average benchmark in cells: 1,048,576 points on 4096^2 nodes
     * (0.0625 a cell), radius 25 m over 2.44 m cells (10.24 cells) */
    pts = gk_points_new(ctx);
    for (size_t i = 0; i < 62500; i++)
        gk_points_add(pts, urand() * 1000.0, urand() * 1000.0, urand());
    bench_window(pts, GK_ALG_AVERAGE, 10.24, &g, "0.0625 points a cell, 1 M points on 4096^2", out);
    gk_points_free(pts);
    free(out);
    printf("(%g)\n", sink);
    gk_kdtree_free(t);
    pset_free(&p);
    return 0;
}

int main(void)
{
    ctx = gk_context_new();
    gk_context_set_device(ctx, "cpu"); /* the tile functions are called on the jobs */
    int rc = bench();
    gk_context_free(ctx);
    return rc;
}
