/* SPDX-License-Identifier: MIT */
/* window/window.c - the window statistics' shared row pieces: their index,
 * their GPU form and their cost model. */
#include "window.h"
#include "search/bucket_grid.h"
#include "search/gpu_window.h"
#include "search/index.h"
#include "search/neighbours.h"

#include <math.h>

/* The bucket grid where it suits (no ordered selection), else the tree. */
int gk_window_prepare(gk_job *job)
{
    if (gk_bg_wanted(job)) {
        gk_bucket_grid *g;
        int rc = gk_bg_build(job, &g);
        job->state = g;
        return rc;
    }
    return gk_method_tree(job);
}

void gk_window_release(gk_job *job)
{
    gk_bg_free(job->state);
    job->state = NULL;
}

const char *gk_window_gpu(const gk_job *job, gk_gpu_job_desc *d, gk_gpu_op op, int honours_max)
{
    const gk_algorithm *a = &job->alg;
    const char *no = gk_gpu_desc_ellipse(job, d);
    if (no)
        return no;
    d->op = op;
    /* average_distance_pts ignores the per-quadrant keys, as the CPU does */
    if (op != GK_GPU_AVERAGE_DISTANCE_PTS && gk_nb_has_quadrants(a))
        return gk_gpu_desc_quadrants(a, honours_max, d);
    return NULL;
}

/* A bucket grid's sort per point and a few spans per node; else the tree's
 * ordered selection. */
#define NS_BUCKET_PER_POINT 40.0

double gk_window_cost(const gk_algorithm *a, double n, double area, double *setup_ns)
{
    double win, k;
    gk_ellipse e;
    gk_cost_window(a, n, area, &win, &k);
    gk_ellipse_init(&e, a->radius1, a->radius2, a->angle);
    if (gk_bg_suits(a, &e)) {
        *setup_ns = n * NS_BUCKET_PER_POINT;
        return 120.0 + 1.0 * win;
    }
    *setup_ns = n * GK_NS_TREE_PER_POINT;
    return gk_cost_select_ns(k, win);
}
