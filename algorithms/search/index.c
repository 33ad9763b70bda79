/* search/index.c - a job's k-d tree, built on the rows' behalf. */
#include "index.h"
#include "kdtree.h"

int gk_index_tree(gk_job *job)
{
    if (job->tree)
        return GK_OK;
    job->tree = gk_kdtree_build_threads(job->pts->x, job->pts->y, job->pts->n, job->ctx->threads);
    if (!job->tree)
        return GK_ERR_NOMEM;
    job->tree_free = gk_kdtree_free;
    return GK_OK;
}

int gk_method_tree(gk_job *job)
{
    if (job->gpu)
        return GK_OK;
    if (gk_index_tree(job))
        return gk_error(job->ctx, GK_ERR_NOMEM,
                        "out of memory building the spatial index of %zu points", job->pts->n);
    return GK_OK;
}

int gk_index_tree_knn(gk_job *job)
{
    if (!job->order_lev)
        return gk_index_tree(job);
    if (job->tree)
        return GK_OK;
    job->tree = gk_kdtree_build_levels(job->pts->x, job->pts->y, job->order_lev, job->pts->n,
                                       job->ctx->threads);
    if (!job->tree)
        return GK_ERR_NOMEM;
    job->tree_free = gk_kdtree_free;
    return GK_OK;
}

int gk_method_tree_knn(gk_job *job)
{
    if (job->gpu)
        return GK_OK;
    if (gk_index_tree_knn(job))
        return gk_error(job->ctx, GK_ERR_NOMEM,
                        "out of memory building the spatial index of %zu points", job->pts->n);
    return GK_OK;
}
