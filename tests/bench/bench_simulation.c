/* SPDX-License-Identifier: MIT */
/*
 * bench_simulation.c - sequential Gaussian simulation on generated data,
 * core only (no GDAL I/O): the case, 100 realizations of 1000 x 1000
 * nodes conditioned on 10,000 data with max_points=16.
 *
 *   bench_simulation [data] [grid] [nsim] [threads] [reps]
 *                                 defaults 10000 1000 100 0 (all cores) 1
 *
 * Uniform random data in a 10 km square (bench_util.h's generator), z a
 * smooth field plus noise; simple kriging with mean 0 and a spherical model
 * of range 800 m, path=multigrid (GK_BENCH_ALG=<-a string without nsim>
 * times another). Prints the job's set-up, the simulation of the whole grid
 * with every realization copied out tile by tile (gk_job_run), their total
 * (the least of reps runs, wall clock and CPU time summed over threads),
 * the peak resident memory, and a hash of the realizations' bits so that
 * runs on other thread counts can be compared for identical output.
 * GK_BENCH_SUMMARY=<list> writes summary=<list> with realizations=no
 * instead of the realizations; GK_BENCH_DEVICE=cuda computes the weights
 * on the GPU (default cpu).
 */
#include "gridkit.h"
#include "bench_util.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* A hash of every value's bits that does not depend on the tiles: the sum
 * of a mix of each value with its band and node (tiles come in any order
 * and shape). */
typedef struct {
    uint64_t h;
    int nx, ny;
} hasher;

static uint64_t mix(uint64_t z)
{
    z ^= z >> 30;
    z *= 0xbf58476d1ce4e5b9ULL;
    z ^= z >> 27;
    z *= 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int hash_sink(void *user, int x0, int y0, int w, int h, int nb, const double *v)
{
    hasher *hs = user;
    uint64_t t = 0;
    for (int b = 0; b < nb; b++)
        for (int j = 0; j < h; j++)
            for (int i = 0; i < w; i++) {
                uint64_t bits;
                memcpy(&bits, v + ((size_t)b * h + j) * w + i, sizeof bits);
                const uint64_t at = ((uint64_t)b * hs->ny + (uint64_t)(y0 + j)) * hs->nx + (x0 + i);
                t += mix(bits ^ mix(at));
            }
#pragma omp atomic
    hs->h += t;
    return 0;
}

int main(int argc, char **argv)
{
    size_t nd = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000;
    int n = argc > 2 ? atoi(argv[2]) : 1000;
    int nsim = argc > 3 ? atoi(argv[3]) : 100;
    int threads = argc > 4 ? atoi(argv[4]) : 0;
    int reps = argc > 5 ? atoi(argv[5]) : 1;
    if (nd < 1 || n <= 0 || nsim < 1 || reps < 1) {
        fprintf(stderr, "usage: bench_simulation [data] [grid] [nsim] [threads] [reps]\n");
        return 2;
    }
    gk_context *ctx = gk_context_new();
    gk_context_set_threads(ctx, threads);
    const char *dev = getenv("GK_BENCH_DEVICE") ? getenv("GK_BENCH_DEVICE") : "cpu";
    if (gk_context_set_device(ctx, dev) != GK_OK) {
        fprintf(stderr, "--device %s: %s\n", dev, gk_errmsg(ctx));
        return 1;
    }
    gk_points *pts = gk_points_new(ctx);
    for (size_t i = 0; i < nd; i++) {
        double x = 10000.0 * urand(), y = 10000.0 * urand();
        gk_points_add(pts, x, y, sin(6e-4 * x) + cos(5e-4 * y) + 0.3 * (urand() - 0.5));
    }
    const char *base = getenv("GK_BENCH_ALG")
                           ? getenv("GK_BENCH_ALG")
                           : "kriging:type=simple:mean=0:model=Nug(0.05)+Sph(1,800):max_points=16";
    const char *summary = getenv("GK_BENCH_SUMMARY");
    char spec[1024];
    snprintf(spec, sizeof spec, "%s:nsim=%d:seed=1%s%s%s", base, nsim, summary ? ":summary=" : "",
             summary ? summary : "", summary ? ":realizations=no" : "");
    gk_algorithm *alg = gk_algorithm_parse(ctx, spec);
    if (!alg) {
        fprintf(stderr, "%s\n", gk_errmsg(ctx));
        return 1;
    }
    gk_grid g = {0.0, 10000.0, 0.0, 10000.0, n, n};
    double t_setup = INFINITY, t_run = INFINITY, c_setup = INFINITY, c_run = INFINITY;
    hasher hs = {0, n, n};
    for (int rep = 0; rep < reps; rep++) {
        double t0 = now(), c0 = cpu();
        gk_job *job = gk_job_new(ctx, pts, alg);
        double t1 = now(), c1 = cpu();
        hs.h = 0;
        if (!job || gk_job_run(job, &g, 0, 0, hash_sink, &hs, NULL, NULL)) {
            fprintf(stderr, "%s\n", gk_errmsg(ctx));
            return 1;
        }
        double t2 = now(), c2 = cpu();
        t_setup = fmin(t_setup, t1 - t0), c_setup = fmin(c_setup, c1 - c0);
        t_run = fmin(t_run, t2 - t1), c_run = fmin(c_run, c2 - c1);
        gk_job_free(job);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    int used = threads > 0 ? threads : omp_get_num_procs();
    printf("%s: %zu data, %d^2 grid, %d thread%s, %s\n", spec, nd, n, used, used > 1 ? "s" : "",
           gk_context_device_name(ctx));
    printf("  set-up             %8.1f ms [%7.1f ms CPU]\n", t_setup * 1e3, c_setup * 1e3);
    printf("  simulation         %8.3f s  [%7.3f s CPU]\n", t_run, c_run);
    printf("  total              %8.3f s\n", t_setup + t_run);
    printf("  peak memory        %8.1f MB\n", ru.ru_maxrss / 1024.0);
    printf("  hash %016llx\n", (unsigned long long)hs.h);
    gk_algorithm_free(alg);
    gk_points_free(pts);
    gk_context_free(ctx);
    return 0;
}
