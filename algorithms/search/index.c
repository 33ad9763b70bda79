/* SPDX-License-Identifier: MIT */
/* search/index.c - a job's k-d tree, built on the rows' behalf. */
#include "index.h"
#include "kdtree.h"
#include "knn_bins.h"

#include <pthread.h>
#include <stdlib.h>

/* The job's tree, once: where every query of the method is a k-NN one and
 * the points are in gdal_grid's quadtree order, the tree of that quadtree
 * (nothing selected); else the selected tree. */
static int index_tree(gk_job *job, int knn_only)
{
    if (job->tree)
        return GK_OK;
    const gk_points *p = job->pts;
    job->tree = knn_only && job->order_lev
                    ? gk_kdtree_build_levels(p->x, p->y, job->order_lev, p->n, job->ctx->threads)
                    : gk_kdtree_build_threads(p->x, p->y, p->n, job->ctx->threads);
    if (!job->tree)
        return GK_ERR_NOMEM;
    job->tree_free = gk_kdtree_free;
    return GK_OK;
}

static int method_tree(gk_job *job, int knn_only)
{
    if (job->gpu)
        return GK_OK;
    if (index_tree(job, knn_only))
        return gk_error(job->ctx, GK_ERR_NOMEM,
                        "out of memory building the spatial index of %zu points", job->pts->n);
    return GK_OK;
}

int gk_index_tree(gk_job *job) { return index_tree(job, 0); }
int gk_index_tree_knn(gk_job *job) { return index_tree(job, 1); }
int gk_method_tree(gk_job *job) { return method_tree(job, 0); }
int gk_method_tree_knn(gk_job *job) { return method_tree(job, 1); }

/* ---- lazy ties ------------------------------------------------------------ */

static void view_free(gk_job *v)
{
    if (!v)
        return;
    if (v->tree_free)
        v->tree_free(v->tree);
    gk_points_free(v->own_pts);
    free(v->order);
    free(v->order_lev);
    free(v);
}

static void lazy_free(gk_job *job)
{
    gk_knn_bins_free(job->kbins);
    view_free(job->tie_view);
    job->kbins = NULL, job->tie_view = NULL;
}

int gk_index_knn_bins(gk_job *job)
{
    if (job->kbins)
        return GK_OK;
    const gk_points *p = job->pts;
    job->lazy_free = lazy_free;
    job->kbins = gk_knn_bins_build(p->x, p->y, p->n, job->ctx->threads);
    return job->kbins ? GK_OK : GK_ERR_NOMEM;
}

/* the views' one lock: taken once a job, at its first tie */
static pthread_mutex_t view_mu = PTHREAD_MUTEX_INITIALIZER;

const gk_job *gk_index_tie_view(gk_job *job)
{
    gk_job *v = __atomic_load_n(&job->tie_view, __ATOMIC_ACQUIRE);
    if (v)
        return v;
    pthread_mutex_lock(&view_mu);
    v = job->tie_view;
    if (!v && (v = malloc(sizeof *v))) {
        *v = *job;
        v->own_pts = NULL, v->order = NULL, v->order_lev = NULL;
        v->tree = NULL, v->tree_free = NULL;
        v->kbins = NULL, v->tie_view = NULL, v->lazy_ties = 0, v->lazy_free = NULL;
        if (gk_job_order_points(v) || index_tree(v, 1)) {
            view_free(v);
            v = NULL;
        } else {
            job->lazy_free = lazy_free;
            __atomic_store_n(&job->tie_view, v, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&view_mu);
    return v;
}
