/* SPDX-License-Identifier: MIT */
/* density_check.h - what the density tests share (after gk_check.h): a sink
 * into a raster in memory, and the same-bytes check over thread counts and
 * tile shapes. */
#ifndef GK_DENSITY_CHECK_H
#define GK_DENSITY_CHECK_H

#include "gk_check.h"
#include "gridkit.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    int nx;
    double *out;
} sink_t;

static int sink(void *user, int x0, int y0, int w, int h, int nbands, const double *v)
{
    (void)nbands;
    sink_t *s = user;
    for (int j = 0; j < h; j++)
        memcpy(s->out + (size_t)(y0 + j) * s->nx + x0, v + (size_t)j * w, w * sizeof *v);
    return 0;
}

/* spec over g with 1, 2, 4 and 3 threads and whole, 7x5, 32x32 and 97x1
 * tiles: every run byte for byte the first. */
static void same_bytes_over(gk_context *ctx, const gk_points *pts, const gk_grid *g,
                            const char *spec)
{
    static const int threads[] = {1, 2, 4, 3};
    static const int tiles[][2] = {{0, 0}, {7, 5}, {32, 32}, {97, 1}};
    const size_t n = (size_t)g->nx * g->ny;
    gk_algorithm *a = gk_algorithm_parse(ctx, spec);
    CHECKF(a != NULL, "%s: %s", spec, gk_errmsg(ctx));
    double *ref = NULL;
    for (int t = 0; a && t < 4; t++) {
        gk_context_set_threads(ctx, threads[t]);
        gk_job *job = gk_job_new(ctx, pts, a);
        sink_t sk = {g->nx, calloc(n, sizeof(double))};
        CHECKF(job && gk_job_run(job, g, tiles[t][0], tiles[t][1], sink, &sk, NULL, NULL) == GK_OK,
               "%s: %s", spec, gk_errmsg(ctx));
        if (!ref) {
            ref = sk.out;
        } else {
            CHECKF(!memcmp(ref, sk.out, n * sizeof(double)), "%s: %d threads, %dx%d tiles differ",
                   spec, threads[t], tiles[t][0], tiles[t][1]);
            free(sk.out);
        }
        gk_job_free(job);
    }
    free(ref);
    gk_algorithm_free(a);
    gk_context_set_threads(ctx, 0);
}

#endif
