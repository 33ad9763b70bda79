/* search/index.c - a job's k-d tree, built on the rows' behalf. */
#include "index.h"
#include "kdtree.h"

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
