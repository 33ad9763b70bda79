/* SPDX-License-Identifier: MIT */
/*
 * delaunay.c - gk_delaunay(): the Delaunay triangulation of n points, by the
 * sweep (delaunay_sweep.c) or, on 3 or more threads, for large inputs, by
 * vertical strips swept in parallel and joined (delaunay_strips.c); the join
 * is kept only where it is provably the sweep's own triangulation, i.e. the
 * Delaunay triangulation is unique, so the result never depends on the
 * number of threads.
 */
#include "delaunay_sweep.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#ifndef GK_DELAUNAY_TEST_DEFER
#include <omp.h>
#endif

static int fail(gk_context *ctx, gk_triangulation *tri, int code, const char *msg, int n)
{
    free(tri->vertex);
    free(tri->neighbor);
    tri->vertex = tri->neighbor = NULL;
    tri->n_tri = 0;
    return gk_error(ctx, code, "Delaunay triangulation of %d points: %s", n, msg);
}

int gk_delaunay(gk_context *ctx, int n, const double *x, const double *y, gk_triangulation *tri)
{
    tri->n_tri = 0;
    tri->vertex = tri->neighbor = NULL;
    if (n < 3)
        return fail(ctx, tri, GK_ERR_ARG, "fewer than 3 points", n);
    if (n > INT_MAX / 6)
        return fail(ctx, tri, GK_ERR_NOMEM, "too many points", n);
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i]) || !isfinite(y[i]))
            return fail(ctx, tri, GK_ERR_ARG, "a point has a non-finite coordinate", n);
#ifndef GK_DELAUNAY_TEST_DEFER
    int nth = ctx ? gk_context_threads(ctx) : 0;
    if (nth <= 0)
        nth = omp_get_num_procs();
    /* The strips cost about 1.7 times the sweep's CPU time: a gain from 3 threads. */
    if (nth >= 3 && n >= GK_DT_PAR_MIN) {
        int r = gk_delaunay_strips(n, x, y, nth, nth, tri);
        if (r > 0)
            return GK_OK;
        if (r < 0)
            return fail(ctx, tri, GK_ERR_NOMEM, "out of memory", n);
    }
#endif
    gk_dt_info info;
    int rc = gk_dt_sweep(n, x, y, tri, &info);
    if (rc != GK_OK)
        return fail(ctx, tri, rc, info.why, n);
    return GK_OK;
}
