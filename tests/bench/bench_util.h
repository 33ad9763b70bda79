/* SPDX-License-Identifier: MIT */
/*
 * bench_util.h - what the GPU tests and the benchmarks share: a wall clock,
 * a reproducible xorshift generator and a tile sink into a raster in memory.
 * Static inline functions: each program includes it once.
 */
#ifndef GK_BENCH_UTIL_H
#define GK_BENCH_UTIL_H

#include <string.h>
#include <time.h>

static inline double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* xorshift64: the same points on every machine; seed with urand_seed */
static unsigned long long urand_state = 0x9E3779B97F4A7C15ULL;
static inline void urand_seed(unsigned long long s) { urand_state = s; }
static inline double urand(void)
{
    urand_state ^= urand_state << 13;
    urand_state ^= urand_state >> 7;
    urand_state ^= urand_state << 17;
    return (double)(urand_state >> 11) / 9007199254740992.0;
}

/* band 1 of a tile into a raster of nx columns */
typedef struct {
    double *v;
    int nx;
} raster;

static inline int sink(void *user, int x0, int y0, int w, int h, int nbands, const double *values)
{
    (void)nbands;
    raster *r = user;
    for (int j = 0; j < h; j++)
        memcpy(r->v + (size_t)(y0 + j) * r->nx + x0, values + (size_t)j * w, w * sizeof(double));
    return 0;
}

#endif
