/* SPDX-License-Identifier: MIT */
/*
 * job_ties.c - where a job breaks ties in gdal_grid's quadtree order: the
 * rows' quadtree_ties rules, and the job's own copy of its points in that
 * order (engine.c asks for it when the job is made, device.c before the
 * CPU takes a share of a GPU job).
 */
#include "gk_internal.h"
#include "method.h"
#include "quadtree_order.h"

#include <omp.h>
#include <stdlib.h>

int gk_ties_always(const gk_algorithm *a, size_t n)
{
    (void)a, (void)n;
    return 1;
}

int gk_ties_quadrants(const gk_algorithm *a, size_t n)
{
    (void)n;
    return a->min_points_per_quadrant > 0 || a->max_points_per_quadrant > 0;
}

/* The job's own copy of pts in gdal_grid's quadtree order: every rule that
 * breaks ties by index ("the first in input order") then follows the tree's
 * order, on the CPU and the GPU alike; *order_out: the caller's index of each
 * (cross-validation maps its folds through it); *lev_out: the tree's
 * boundaries, which a search tree can follow (gk_index_tree_knn). NULL when
 * out of memory. */
static gk_points *quadtree_ordered(gk_context *ctx, const gk_points *pts, uint32_t **order_out,
                                   uint8_t **lev_out)
{
    size_t n = pts->n;
    uint32_t *order = malloc(n * sizeof *order);
    uint8_t *lev = malloc(n);
    gk_points *own = gk_points_new(ctx);
    if (!order || !lev || !own || gk_points_reserve(own, n) ||
        gk_gdal_quadtree_order(pts->x, pts->y, n, order, own->x, own->y, lev, ctx->threads)) {
        free(order);
        free(lev);
        gk_points_free(own);
        return NULL;
    }
    *lev_out = lev;
    const int nt = ctx->threads > 0 ? ctx->threads : omp_get_num_procs();
#pragma omp parallel for if (n >= 65536) num_threads(nt)
    for (size_t k = 0; k < n; k++)
        own->z[k] = pts->z[order[k]];
    own->n = n;
    *order_out = order;
    return own;
}

int gk_job_order_points(gk_job *job)
{
    if (!job->ties || job->own_pts)
        return GK_OK;
    gk_points *own = quadtree_ordered(job->ctx, job->pts, &job->order, &job->order_lev);
    if (!own)
        return gk_error(job->ctx, GK_ERR_NOMEM, "out of memory ordering %zu points", job->pts->n);
    job->own_pts = own;
    job->pts = own;
    return GK_OK;
}

int gk_job_prepare_ties(gk_job *job) { return job->lazy_ties ? GK_OK : gk_job_order_points(job); }
