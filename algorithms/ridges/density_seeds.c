/* SPDX-License-Identifier: MIT */
/*
 * density_seeds.c - `density`'s walkers on a mesh (seeds=mesh): the nodes
 * of a regular mesh over the samples' box, kept where the kernel sum is
 * worth a walk (the rule in gk_density_mesh_seeds).
 */
#include "ridges/density.h"

#include <stdlib.h>

#define GK_MESH_MAX 50000000.0 /* nodes: 400 MB of coordinates in 2-D */

/* Mesh node j's coordinates. */
static void mesh_node(const double *lo, const int64_t *cnt, double s, int dim, size_t j, double *x)
{
    for (int k = 0; k < dim; k++) {
        x[k] = lo[k] + s * (double)(int64_t)(j % (size_t)cnt[k]);
        j /= (size_t)cnt[k];
    }
}

/* Nodes kept: those whose kernel sum reaches half the level at which
 * walkers are kept (relative: of the largest node sum), since a walker
 * climbs from its node to a ridge of higher density; nodes farther out
 * are covered by closer ones (the mesh is finer than h). */
int gk_density_mesh_seeds(gk_context *ctx, const gk_cloud *c, const gk_scms_bins *b, double h,
                          double cutoff, double s, double keep_rel, double keep_abs, int threads,
                          int scale_exp, double **seeds, size_t *n_seeds)
{
    int dim = c->dim;
    double lo[3], total = 1.0;
    int64_t cnt[3] = {1, 1, 1};
    for (int k = 0; k < dim; k++) {
        lo[k] = b->ix.origin[k];
        double hi = lo[k];
        for (size_t i = 0; i < c->n; i++)
            hi = fmax(hi, c->p[i * (size_t)dim + k]);
        double m = floor((hi - lo[k]) / s) + 1.0;
        total *= m;
        cnt[k] = (int64_t)fmin(m, GK_MESH_MAX);
    }
    if (!(total <= GK_MESH_MAX))
        return gk_error(ctx, GK_ERR_ARG,
                        "density: spacing=%.15g makes %.3g mesh nodes over the points' box (at "
                        "most %.0f); give a larger spacing or seeds=data",
                        ldexp(s, scale_exp), total, GK_MESH_MAX);
    size_t n = (size_t)total;
    double *sum = malloc(n * sizeof(double));
    if (!sum)
        return gk_error(ctx, GK_ERR_NOMEM, "density: out of memory for %zu mesh nodes", n);
    double top = 0.0;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 256) reduction(max : top)
    for (long j = 0; j < (long)n; j++) {
        double x[3];
        gk_scms_acc a;
        mesh_node(lo, cnt, s, dim, (size_t)j, x);
        gk_scms_sums(&b->ix, x, h, cutoff, &a);
        sum[j] = a.s0;
        top = a.s0 > top ? a.s0 : top;
    }
    double level = 0.5 * (keep_rel > 0.0 ? keep_rel * top : keep_abs);
    size_t m = 0;
    for (size_t j = 0; j < n; j++)
        m += sum[j] > 0.0 && sum[j] >= level;
    *seeds = malloc((m ? m : 1) * (size_t)dim * sizeof(double));
    if (!*seeds) {
        free(sum);
        return gk_error(ctx, GK_ERR_NOMEM, "density: out of memory for %zu seeds", m);
    }
    *n_seeds = 0;
    for (size_t j = 0; j < n; j++)
        if (sum[j] > 0.0 && sum[j] >= level)
            mesh_node(lo, cnt, s, dim, j, *seeds + (*n_seeds)++ * (size_t)dim);
    free(sum);
    return GK_OK;
}
