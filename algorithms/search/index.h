/* SPDX-License-Identifier: MIT */
/* search/index.h - a job's k-d tree (or k-NN bins), built by the method rows that search
 * (core/method.h's prepare and cpu_index hooks). */
#ifndef GK_SEARCH_INDEX_H
#define GK_SEARCH_INDEX_H

#include "core/gk_internal.h"

/* prepare: the k-d tree of the points, unless the job is on the GPU (which
 * keeps its own index). GK_OK or GK_ERR_NOMEM with a message. */
int gk_method_tree(gk_job *job);
/* The k-d tree whatever the device (the CPU's share of a GPU job's nodes),
 * once; the caller serialises. GK_OK or GK_ERR_NOMEM. */
int gk_index_tree(gk_job *job);
/* The same for a method whose every query is a k-NN one (answers sorted by
 * distance, then index): where the job's points are in gdal_grid's quadtree
 * order, a tree that follows the quadtree (gk_kdtree_build_levels: nothing
 * selected, the same answers) instead. */
int gk_method_tree_knn(gk_job *job);
int gk_index_tree_knn(gk_job *job);

/* A lazy_ties job (core/gk_internal.h): its bins over the points as given
 * (search/knn_bins.h), once; the caller serialises. GK_OK or GK_ERR_NOMEM. */
int gk_index_knn_bins(gk_job *job);
/* Its view over the points in gdal_grid's quadtree order with their k-d
 * tree, built by the first caller (any thread; the others wait): a query
 * that met equal distances is answered through it, as the ordered job
 * answers. NULL when out of memory. */
const gk_job *gk_index_tie_view(gk_job *job);

#endif
