/* SPDX-License-Identifier: MIT */
/*
 * bench_density.c - heatmap, gauss and kernel_smooth: the GPU against the
 * CPU cores, and Markovic's (2016) Gauss transform case (no GDAL).
 *
 *   bench_density [points] [grid]       defaults 1048576 4096
 *
 * Uniform points in a 10 km square, weights in [0.5, 2), to grid x grid
 * nodes over the square: gauss sigma 50 m epsilon 1e-6, kernel_smooth sigma
 * 50 m, heatmap radius 50 m. GPU: kernel time from CUDA events (median of 3
 * after a warm-up) and the wall time of the whole grid in one call (kernels
 * and the copy back); effective pairs/s = points x nodes / kernel time. CPU:
 * every core through the tile engine (gk_job_run), the whole grid, which
 * must be bit-identical to the GPU's (exit 1 otherwise).
 *
 * Then 100,000 points to 1024^2 with wide bandwidths (method=cutoff
 * against ifgt), a turned ellipse and mode=relative; and Markovic's (2016,
 * IFGT in OpenCL) 2-D case: 200,000
 * points uniform in the unit square, 200,000 targets (a 447 x 447 grid over
 * it), h = 1 (sigma = 1/sqrt(2)), epsilon 1e-3 absolute: 1.424 s on that
 * paper's GPU (a Tesla K20m). The bound is checked against a long-double direct sum at 400
 * nodes (exit 1 when it fails).
 */
#include "core/device.h"
#include "gridkit.h"
#include "bench_util.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int failed;

/* GPU: kernel ms (median of 3 after a warm-up) and wall ms of the whole
 * grid; the band of rows [0, rows) into band. -1 without a GPU. The job's
 * preparation (bandwidth, plan, bins, upload) in *prep_ms. */
static double gpu_run(gk_context *ctx, const gk_points *pts, const char *spec, const gk_grid *g,
                      int rows, double *band, double *wall_ms, double *prep_ms)
{
    gk_algorithm *alg = gk_algorithm_parse(ctx, spec);
    double tp = now();
    gk_job *job = alg ? gk_job_new(ctx, pts, alg) : NULL;
    *prep_ms = (now() - tp) * 1e3;
    double kt[3] = {-1, -1, -1};
    *wall_ms = -1;
    size_t n = (size_t)g->nx * g->ny;
    double *v = malloc(n * sizeof *v);
    if (job && v && gk_device_job_on_gpu(job)) {
        gk_job_compute_window(job, g, 0, 0, g->nx, g->ny, v);
        double t0 = now();
        for (int r = 0; r < 3; r++) {
            gk_job_compute_window(job, g, 0, 0, g->nx, g->ny, v);
            kt[r] = gk_device_last_kernel_ms(job);
        }
        *wall_ms = (now() - t0) / 3 * 1e3;
        memcpy(band, v, (size_t)g->nx * rows * sizeof *v);
    } else if (!job) {
        printf("  %s: %s\n", spec, gk_errmsg(ctx));
    }
    qsort(kt, 3, sizeof *kt, cmp_d);
    free(v);
    gk_job_free(job);
    gk_algorithm_free(alg);
    return kt[1];
}

/* CPU: seconds for the whole grid with every core (the tile engine). */
static double cpu_run(gk_context *ctx, const gk_points *pts, const char *spec, const gk_grid *g,
                      double *out)
{
    gk_algorithm *alg = gk_algorithm_parse(ctx, spec);
    gk_job *job = gk_job_new(ctx, pts, alg);
    double t = -1;
    raster r = {out, g->nx};
    if (job) {
        double t0 = now();
        if (gk_job_run(job, g, 0, 0, sink, &r, NULL, NULL) == GK_OK)
            t = now() - t0;
        printf("  prepared: %s\n", gk_job_algorithm_string(job));
    }
    gk_job_free(job);
    gk_algorithm_free(alg);
    return t;
}

static void one(gk_context *gc, gk_context *cc, const gk_points *pts, const char *spec,
                const gk_grid *g)
{
    size_t np = gk_points_count(pts), nodes = (size_t)g->nx * g->ny;
    double *bg = calloc(nodes, sizeof *bg), *bc = calloc(nodes, sizeof *bc);
    double wall, prep, kms = gpu_run(gc, pts, spec, g, g->ny, bg, &wall, &prep);
    double tc = cpu_run(cc, pts, spec, g, bc);
    int same = kms >= 0 && !memcmp(bg, bc, nodes * sizeof *bg);
    printf("%-42s %zu pts, %dx%d: GPU prepare %.1f ms, kernel %.2f ms (%.3g effective pairs/s), "
           "wall %.1f ms; CPU %d threads %.2f s; CPU / GPU wall %.0fx; %s\n",
           spec, np, g->nx, g->ny, prep, kms, (double)np * nodes / (kms * 1e-3), wall,
           omp_get_max_threads(), tc, tc / (wall * 1e-3),
           kms < 0 ? "not run on a GPU"
           : same  ? "bit-identical"
                   : "DIFFERENT");
    if (kms >= 0 && !same)
        failed = 1;
    free(bg);
    free(bc);
}

/* Markovic's 2-D case; the bound against long double at 400 nodes. */
static void seed_case(gk_context *gc, gk_context *cc)
{
    enum { N = 200000, G = 447 };
    urand_seed(20261127);
    gk_points *pts = gk_points_new(gc);
    for (int i = 0; i < N; i++) {
        double x = urand(), y = urand();
        gk_points_add(pts, x, y, 1.0);
    }
    gk_grid g = {0.0, 1.0, 0.0, 1.0, G, G};
    const double sigma = 0.70710678118654752, eps = 1e-3;
    char spec[200];
    snprintf(spec, sizeof spec, "gauss:bandwidth=%.17g:epsilon=%g:normalize=no", sigma, eps);
    double *v = calloc((size_t)G * G, sizeof *v);
    double wall, prep, kms = gpu_run(gc, pts, spec, &g, G, v, &wall, &prep);
    double *c = calloc((size_t)G * G, sizeof *c);
    double tc = cpu_run(cc, pts, spec, &g, c);
    if (kms < 0) /* no GPU: check the CPU's values */
        memcpy(v, c, (size_t)G * G * sizeof *v);
    else if (memcmp(v, c, (size_t)G * G * sizeof *v))
        printf("seed case: GPU and CPU DIFFERENT\n"), failed = 1;
    const double *x = gk_points_x(pts), *y = gk_points_y(pts);
    double worst = 0;
    for (int s = 0; s < 400; s++) {
        int i = (int)(urand() * G), j = (int)(urand() * G);
        double nx = gk_grid_node_x(&g, i), ny = gk_grid_node_y(&g, j);
        long double e = 0;
        for (int k = 0; k < N; k++) {
            long double dx = nx - x[k], dy = ny - y[k];
            e += expl(-(dx * dx + dy * dy) / (2.0L * sigma * sigma));
        }
        double err = (double)fabsl((long double)v[(size_t)j * G + i] - e) / N;
        worst = fmax(worst, err);
    }
    int ok = worst <= eps;
    printf(
        "seed case: %d points to %dx%d, sigma %.6g, epsilon %g: GPU kernel %.2f ms, wall %.1f "
        "ms; Markovic's K20m 1424 ms: %.0fx (kernel), %.0fx (wall); CPU %d threads %.2f s; worst "
        "|error| / sum|w| at 400 nodes %.2e: bound %s\n",
        N, G, G, sigma, eps, kms, wall, 1424.0 / kms, 1424.0 / wall, omp_get_max_threads(), tc,
        worst, ok ? "met" : "BROKEN");
    if (!ok)
        failed = 1;
    free(v);
    free(c);
    gk_points_free(pts);
}

/* n points uniform in the 10 km square, weights in [0.5, 2). */
static gk_points *uniform_points(gk_context *ctx, size_t n)
{
    gk_points *pts = gk_points_new(ctx);
    for (size_t i = 0; i < n; i++) {
        double x = 10000 * urand(), y = 10000 * urand();
        gk_points_add(pts, x, y, 0.5 + 1.5 * urand());
    }
    return pts;
}

int main(int argc, char **argv)
{
    size_t np = argc > 1 ? strtoull(argv[1], NULL, 10) : 1048576;
    int grid = argc > 2 ? atoi(argv[2]) : 4096;
    gk_context *gc = gk_context_new(), *cc = gk_context_new();
    gk_context_set_device(gc, "cuda");
    gk_context_set_device(cc, "cpu");
    urand_seed(42);
    gk_points *pts = uniform_points(gc, np);
    gk_grid g = {0.0, 10000.0, 0.0, 10000.0, grid, grid};
    one(gc, cc, pts, "gauss:bandwidth=50:epsilon=1e-6", &g);
    one(gc, cc, pts, "kernel_smooth:bandwidth=50:epsilon=1e-6", &g);
    one(gc, cc, pts, "heatmap:radius=50:kernel=quartic", &g);
    one(gc, cc, pts, "heatmap:radius=200:kernel=quartic", &g);
    one(gc, cc, pts, "gauss:bandwidth=50:method=fft", &g);
    one(gc, cc, pts, "gauss:bandwidth=500:method=fft", &g);
    gk_points_free(pts);
    /* wide bandwidths, where the cut-off keeps most points: 100,000 points
     * to 1024^2, the IFGT against the cut-off on both devices */
    pts = uniform_points(gc, 100000);
    gk_grid gw = {0.0, 10000.0, 0.0, 10000.0, 1024, 1024};
    one(gc, cc, pts, "gauss:bandwidth=1000:method=cutoff", &gw);
    one(gc, cc, pts, "gauss:bandwidth=1000:method=ifgt", &gw);
    one(gc, cc, pts, "gauss:bandwidth=3000:method=cutoff", &gw);
    one(gc, cc, pts, "gauss:bandwidth=3000:method=ifgt", &gw);
    one(gc, cc, pts, "gauss:bandwidth_x=150:bandwidth_y=60:angle=30", &gw);
    one(gc, cc, pts, "gauss:bandwidth=150:mode=relative", &gw);
    gk_points_free(pts);
    seed_case(gc, cc);
    gk_context_free(gc);
    gk_context_free(cc);
    return failed;
}
