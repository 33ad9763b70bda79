/* SPDX-License-Identifier: MIT */
/*
 * fake_gpu.c - a stand-in for the CUDA module (gpu/), loaded through
 * GRIDKIT_GPU_MODULE, so that the core's GPU side (device*.c, cpu_share.c,
 * the late start, the out-of-memory split, every fallback and message) runs
 * on machines without a GPU: CI's. It computes one op, count, exactly as
 * gpu/window.cu does (the same window tests, node coordinates and
 * nodata rule), so a run on it has the CPU's bytes; every other op is
 * refused at job_new, as a module without that kernel would.
 *
 * Environment (tests/core/fake_gpu.sh):
 *   GK_FAKE_GPU_COUNT=N        devices (default 1; 0: none)
 *   GK_FAKE_GPU_FAIL=CALL      probe, job_new, clone or tile fails
 *   GK_FAKE_GPU_MAX_CELLS=N    a tile of more nodes is out of memory
 *   GK_FAKE_GPU_ABI=N          the ABI version the entry reports
 *   GK_FAKE_GPU_TILE_MS=N      a tile takes N ms longer (a slow GPU: the
 *                              cores take a share)
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "core/gpu_abi.h"
#include "core/to_float32.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    gk_gpu_job_desc d;
    double *x, *y;
} fake_job;

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

static int fails(const char *call)
{
    const char *v = getenv("GK_FAKE_GPU_FAIL");
    return v && !strcmp(v, call);
}

static int device_count(void) { return env_int("GK_FAKE_GPU_COUNT", 1); }

static int probe(int dev, char *name, size_t name_cap, char *err, size_t err_cap)
{
    if (fails("probe") || dev >= device_count()) {
        snprintf(err, err_cap, "fake device %d: not usable", dev);
        return -1;
    }
    snprintf(name, name_cap, "fake GPU %d", dev);
    return 0;
}

static void *job_new(int dev, const gk_gpu_job_desc *d, char *err, size_t err_cap)
{
    (void)dev;
    if (fails("job_new")) {
        snprintf(err, err_cap, "fake job_new failed");
        return NULL;
    }
    if (d->op != GK_GPU_COUNT || d->quad_min > 0 || d->quad_max > 0) {
        snprintf(err, err_cap, "the fake module has no kernel for op %d", d->op);
        return NULL;
    }
    fake_job *J = calloc(1, sizeof *J);
    size_t nb = (d->n ? d->n : 1) * sizeof(double);
    if (!J || !(J->x = malloc(nb)) || !(J->y = malloc(nb))) {
        if (J) {
            free(J->x);
            free(J);
        }
        snprintf(err, err_cap, "out of host memory");
        return NULL;
    }
    J->d = *d;
    memcpy(J->x, d->x, d->n * sizeof(double));
    memcpy(J->y, d->y, d->n * sizeof(double));
    J->d.x = J->d.y = J->d.z = NULL;
    J->d.group = NULL;
    return J;
}

static void job_free(void *job)
{
    fake_job *J = job;
    if (J) {
        free(J->x);
        free(J->y);
        free(J);
    }
}

static void *job_clone(void *job, char *err, size_t err_cap)
{
    const fake_job *B = job;
    if (fails("clone")) {
        snprintf(err, err_cap, "fake clone failed");
        return NULL;
    }
    gk_gpu_job_desc d = B->d;
    d.x = B->x;
    d.y = B->y;
    return job_new(0, &d, err, err_cap);
}

/* gpu/search_window.cuh's in_window */
static int in_window(const gk_gpu_job_desc *d, double dx, double dy)
{
    if (d->window == GK_GPU_WIN_ALL)
        return 1;
    if (d->window == GK_GPU_WIN_CIRCLE)
        return dx * dx + dy * dy <= d->r2;
    double r1sq = d->e_r1 * d->e_r1, r2sq = d->e_r2 * d->e_r2;
    double rx = dx * d->e_cos + dy * d->e_sin, ry = dy * d->e_cos - dx * d->e_sin;
    return r2sq * rx * rx + r1sq * ry * ry <= r1sq * r2sq;
}

static int tile(void *job, const gk_gpu_tile *t, double *out, uint64_t *nodata, uint64_t *singular,
                char *err, size_t err_cap)
{
    const fake_job *J = job;
    const size_t ncell = (size_t)t->w * t->h;
    *singular = 0;
    if (fails("tile")) {
        snprintf(err, err_cap, "fake tile failed");
        return -1;
    }
    if (env_int("GK_FAKE_GPU_MAX_CELLS", 0) > 0 &&
        ncell > (size_t)env_int("GK_FAKE_GPU_MAX_CELLS", 0))
        return GK_GPU_TILE_NOMEM;
    const int ms = env_int("GK_FAKE_GPU_TILE_MS", 0);
    if (ms > 0) {
        struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    const double cw = (t->xmax - t->xmin) / t->nx, ch = (t->ymin - t->ymax) / t->ny;
    uint64_t nd = 0;
    for (int j = 0; j < t->h; j++)
        for (int i = 0; i < t->w; i++) {
            /* gk_grid_node_x / gk_grid_node_y */
            const double nx = t->xmin + ((double)(t->x0 + i) + 0.5) * cw;
            const double ny = t->ymax + ((double)(t->y0 + j) + 0.5) * ch;
            int count = 0;
            for (size_t p = 0; p < J->d.n; p++)
                count += in_window(&J->d, J->x[p] - nx, J->y[p] - ny);
            const double v = count >= J->d.min_points ? (double)count : J->d.nodata;
            nd += v == J->d.nodata || (isnan(v) && isnan(J->d.nodata));
            const size_t o = (size_t)j * t->w + i;
            if (t->out_float)
                ((float *)out)[o] = gk_to_float32(v);
            else
                out[o] = v;
        }
    *nodata = nd;
    return 0;
}

static double last_kernel_ms(void *job)
{
    (void)job;
    return env_int("GK_FAKE_GPU_TILE_MS", 0) + 0.01;
}

static int krige_set(void *job, const gk_gpu_krige *k, char *err, size_t err_cap)
{
    (void)job, (void)k;
    snprintf(err, err_cap, "the fake module has no kriging");
    return -1;
}

static int variogram(int dev, const gk_gpu_vgm *v, double *np, double *sd, double *sg,
                     double *kernel_ms, char *err, size_t err_cap)
{
    (void)dev, (void)v, (void)np, (void)sd, (void)sg, (void)kernel_ms;
    snprintf(err, err_cap, "the fake module has no variogram");
    return -1;
}

static void *host_alloc(size_t bytes) { return malloc(bytes); }
static void host_free(void *p) { free(p); }

static int quadtree_order(int dev, const double *x, const double *y, size_t n, uint32_t *order,
                          double *ms, char *err, size_t err_cap)
{
    (void)dev, (void)x, (void)y, (void)n, (void)order, (void)ms;
    snprintf(err, err_cap, "the fake module has no tie order");
    return -1;
}

static gk_gpu_api api = {
    GK_GPU_ABI_VERSION, probe,        job_new,    tile,      job_free,  last_kernel_ms, krige_set,
    variogram,          device_count, host_alloc, host_free, job_clone, NULL,           NULL,
    quadtree_order,     NULL,         NULL,       NULL};

__attribute__((visibility("default"))) const gk_gpu_api *GK_GPU_ENTRY_FN(void)
{
    api.abi_version = env_int("GK_FAKE_GPU_ABI", GK_GPU_ABI_VERSION);
    return &api;
}
