/* SPDX-License-Identifier: MIT */
/* idw/nearest.c - value of the nearest point inside the search ellipse.
 * Unlike gdal_grid's quadtree path the radius is always honoured
 * (docs/dev/gdal_grid.md, 'nearest honours the radius'); ties go to the point last in input order, as gdal_grid's
 * brute-force path does. */
#include "core/method.h"
#include "search/gpu_window.h"
#include "search/index.h"
#include "search/neighbours.h"

#include <stdio.h>

#include <math.h>

static int nearest_node(const gk_job *job, double nx, double ny, double hit2, gk_scratch *s,
                        double *v)
{
    (void)hit2;
    const gk_ellipse *e = &job->ell;
    const double *z = job->pts->z;
    double d2;
    if (e->all) {
        int id = gk_kdtree_nearest(job->tree, nx, ny, INFINITY, &d2);
        if (id < 0)
            return 0;
        *v = z[id];
        return 1;
    }
    if (e->r1 == e->r2) {
        /* circle: nearest in a slightly larger disc; if the exact ellipse test
         * accepts it, it is the answer, otherwise look at every candidate */
        int id = gk_kdtree_nearest(job->tree, nx, ny, e->r1 * e->r1 * (1.0 + 1e-9), &d2);
        if (id < 0)
            return 0;
        if (gk_ellipse_contains(e, job->pts->x[id] - nx, job->pts->y[id] - ny)) {
            *v = z[id];
            return 1;
        }
    }
    long n = gk_nb_ellipse(job, nx, ny, s);
    if (n < 0)
        return -1;
    if (n == 0)
        return 0;
    int best = s->idx[0];
    double bd = s->d2[0];
    for (long i = 1; i < n; i++) {
        if (s->d2[i] < bd || (s->d2[i] == bd && s->idx[i] > best)) {
            bd = s->d2[i];
            best = s->idx[i];
        }
    }
    *v = z[best];
    return 1;
}

uint64_t gk_nearest_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    return gk_nb_run_tile(job, t, out, s, nearest_node);
}

/* ---- the registry's row ------------------------------------------------ */

/* Per-quadrant keys are ignored, as on the CPU. */
static const char *nearest_gpu(const gk_job *job, gk_gpu_job_desc *d)
{
    const char *no = gk_gpu_desc_ellipse(job, d);
    d->op = GK_GPU_NEAREST;
    return no;
}

static double nearest_cost(const gk_algorithm *a, double n, double area, double *setup_ns)
{
    (void)a;
    (void)area;
    *setup_ns = n * GK_NS_TREE_PER_POINT;
    return 400.0;
}

/* gdal_grid searches its quadtree with a radius over more than
 * GDAL_GRID_POINT_COUNT_THRESHOLD's default 100 points (docs/dev/gdal_grid.md,
 * 'Quadtree use'). */
static int nearest_ties(const gk_algorithm *a, size_t n)
{
    return n > 100 && a->angle == 0.0 && (a->radius1 > 0.0 || a->radius2 > 0.0);
}

/* Cross-validation: the nearest point of the others is the held-out search's. */
static gk_cv_method nearest_cv(const gk_algorithm *a, size_t ntrain, const char **why,
                               const char **avoid)
{
    (void)a, (void)ntrain, (void)why, (void)avoid;
    return GK_CV_HOLDOUT;
}

const gk_method gk_method_nearest = {
    .name = "nearest",
    .kind = GK_ALG_NEAREST,
    .summary = "value of the nearest point (gdal_grid)",
    .keys = GK_KEY_ELLIPSE | GK_KEY_NODATA,
    .quadtree_ties = nearest_ties,
    .prepare = gk_method_tree,
    .cpu_index = gk_index_tree,
    .cpu_tile = gk_nearest_tile,
    .gpu_describe = nearest_gpu,
    .cost_ns = nearest_cost,
    .cv_way = nearest_cv,
};
