/* SPDX-License-Identifier: MIT */
/*
 * bench_linear.c - `linear` on generated points, core only (no GDAL I/O).
 *
 *   bench_linear [points] [grid] [threads] [reps] [out.f64]
 *                                       defaults 1048576 4096 0 (all cores) 3
 *
 * Uniform random points in a 10 km square (the same generator, seed and z
 * as bench_gpu.c), gridded to grid x grid nodes. Prints, each on its own:
 * a k-d tree build alone (gk_job_new builds one where the engine asks for
 * it; linear itself needs none), the bare triangulation (gk_delaunay), the
 * whole job set-up (gk_job_new: any index, triangulation, preparation), the
 * interpolation (gk_job_run through the tile engine into a double raster),
 * their total, and a hash of the raster's bits so that two builds can be
 * compared for identical output. Each time is the least of reps runs (the
 * machine may be shared), wall clock and, in brackets, CPU time summed over
 * threads. out.f64, when given, receives the raster as raw doubles.
 * GK_BENCH_ALG=<-a string> times another method on the same triangulation
 * (natural, natural:type=laplace) instead of linear; GK_BENCH_DEVICE=cuda
 * runs the job on the GPU (default cpu).
 */
#include "linear/delaunay.h"
#include "gridkit.h"
#include "search/kdtree.h"
#include "bench_util.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CPU time of the whole process (all threads): on a shared machine it
 * leaves out the time other processes took, unlike the wall clock. */
static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv)
{
    size_t np = argc > 1 ? strtoull(argv[1], NULL, 10) : 1048576;
    int n = argc > 2 ? atoi(argv[2]) : 4096;
    int threads = argc > 3 ? atoi(argv[3]) : 0;
    int reps = argc > 4 ? atoi(argv[4]) : 3;
    const char *out = argc > 5 ? argv[5] : NULL;
    if (np < 3 || np > 0x7fffffff || n <= 0 || reps < 1) {
        fprintf(stderr, "usage: bench_linear [points >= 3] [grid > 0] [threads] [reps >= 1] "
                        "[out.f64]\n");
        return 2;
    }
    gk_context *ctx = gk_context_new();
    const char *dev = getenv("GK_BENCH_DEVICE") ? getenv("GK_BENCH_DEVICE") : "cpu";
    if (gk_context_set_device(ctx, dev) != GK_OK) {
        fprintf(stderr, "--device %s: %s\n", dev, gk_errmsg(ctx));
        return 1;
    }
    gk_context_set_threads(ctx, threads);
    gk_points *pts = gk_points_new(ctx);
    gk_points_reserve(pts, np);
    for (size_t i = 0; i < np; i++) {
        double x = 10000.0 * urand(), y = 10000.0 * urand();
        double z = sin(6e-4 * x) + cos(5e-4 * y) + 0.1 * urand();
        gk_points_add(pts, x, y, z);
    }
    const double *px = gk_points_x(pts), *py = gk_points_y(pts);

    const char *spec = getenv("GK_BENCH_ALG") ? getenv("GK_BENCH_ALG") : "linear";
    gk_algorithm *alg = gk_algorithm_parse(ctx, spec);
    gk_grid g = {0.0, 10000.0, 0.0, 10000.0, n, n};
    size_t ncell = (size_t)n * n;
    double *v = malloc(ncell * sizeof *v);
    if (!alg || !v) {
        fprintf(stderr, "out of memory or bad algorithm: %s\n", gk_errmsg(ctx));
        return 1;
    }
    memset(v, 0, ncell * sizeof *v); /* touch the pages outside the timing */
    raster r = {v, n};
    double t_tree = INFINITY, t_dt = INFINITY, t_setup = INFINITY, t_run = INFINITY;
    double t_total = INFINITY, c_tree = INFINITY, c_dt = INFINITY, c_setup = INFINITY;
    double c_run = INFINITY;
    int ntri = 0;
    gk_run_stats st;
    for (int rep = 0; rep < reps; rep++) {
        /* The parts alone, as gk_job_new runs them. */
        double t0 = now(), c0 = cpu();
        gk_kdtree *tree = gk_kdtree_build(px, py, np);
        t_tree = fmin(t_tree, now() - t0);
        c_tree = fmin(c_tree, cpu() - c0);
        gk_kdtree_free(tree);
        gk_triangulation tri = {0, NULL, NULL};
        t0 = now();
        c0 = cpu();
        if (gk_delaunay(ctx, (int)np, px, py, &tri)) {
            fprintf(stderr, "gk_delaunay: %s\n", gk_errmsg(ctx));
            return 1;
        }
        t_dt = fmin(t_dt, now() - t0);
        c_dt = fmin(c_dt, cpu() - c0);
        ntri = tri.n_tri;
        free(tri.vertex);
        free(tri.neighbor);

        /* The job: set-up, then every node through the tile engine. */
        t0 = now();
        c0 = cpu();
        gk_job *job = gk_job_new(ctx, pts, alg);
        double t1 = now(), c1 = cpu();
        if (!job) {
            fprintf(stderr, "gk_job_new: %s\n", gk_errmsg(ctx));
            return 1;
        }
        if (gk_job_run(job, &g, 0, 0, sink, &r, NULL, NULL)) {
            fprintf(stderr, "gk_job_run: %s\n", gk_errmsg(ctx));
            return 1;
        }
        double t2 = now(), c2 = cpu();
        t_setup = fmin(t_setup, t1 - t0);
        t_run = fmin(t_run, t2 - t1);
        c_setup = fmin(c_setup, c1 - c0);
        c_run = fmin(c_run, c2 - c1);
        t_total = fmin(t_total, t2 - t0);
        gk_job_stats(job, &st);
        gk_job_free(job);
    }

    uint64_t h = 1469598103934665603ULL; /* FNV-1a over the bits */
    for (size_t i = 0; i < ncell; i++) {
        uint64_t b;
        memcpy(&b, v + i, sizeof b);
        h = (h ^ b) * 1099511628211ULL;
    }
    int used = threads > 0 ? threads : omp_get_num_procs();
    printf("%s: %zu points, %d^2 grid, %d thread%s\n", spec, np, n, used, used > 1 ? "s" : "");
    printf("  kd-tree            %8.1f ms [%7.1f ms CPU]\n", t_tree * 1e3, c_tree * 1e3);
    printf("  triangulation      %8.1f ms [%7.1f ms CPU]  (%d triangles)\n", t_dt * 1e3, c_dt * 1e3,
           ntri);
    printf("  job set-up         %8.1f ms [%7.1f ms CPU]  (gk_job_new: any index, triangulation, "
           "preparation)\n",
           t_setup * 1e3, c_setup * 1e3);
    printf("  interpolation      %8.1f ms [%7.1f ms CPU]  (%.1f Mnodes/s; %.1f Mnodes per CPU "
           "second)\n",
           t_run * 1e3, c_run * 1e3, ncell / t_run * 1e-6, ncell / c_run * 1e-6);
    printf("  total              %8.1f ms  (set-up + interpolation, least of %d)\n", t_total * 1e3,
           reps);
    printf("  nodata nodes %llu, raster hash %016llx\n", (unsigned long long)st.nodata_nodes,
           (unsigned long long)h);
    if (out) {
        FILE *f = fopen(out, "wb");
        if (!f || fwrite(v, sizeof *v, ncell, f) != ncell || fclose(f)) {
            fprintf(stderr, "cannot write %s\n", out);
            return 1;
        }
    }
    free(v);
    gk_algorithm_free(alg);
    gk_points_free(pts);
    gk_context_free(ctx);
    return 0;
}
