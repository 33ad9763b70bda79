/* SPDX-License-Identifier: MIT */
/*
 * knn_bins.h - k nearest points from a uniform bin grid, built by one
 * counting sort (no tree, no order of the points): invdistnn's CPU index
 * where every query is a k-NN one (idw/invdistnn.c).
 *
 * A query visits the bins ring by ring around the node's, nearest first,
 * and stops once a lower bound on the distance of every point not visited
 * exceeds the k-th best (or the radius). It answers with distances only
 * sorted: equal distances come in no defined order, which its caller
 * detects and settles otherwise (gdal_grid's tie order, job_ties.c).
 */
#ifndef GK_KNN_BINS_H
#define GK_KNN_BINS_H

#include <stddef.h>

typedef struct gk_knn_bins gk_knn_bins;

/* Bins of about two points over (x, y)[0..n), on threads threads (0:
 * every core); NULL when out of memory. */
gk_knn_bins *gk_knn_bins_build(const double *x, const double *y, size_t n, int threads);
/* (the bins keep x and y, which must outlive them, for gk_knn_bins_before) */
void gk_knn_bins_free(gk_knn_bins *b);

/* The k nearest points to (cx, cy) with dx^2 + dy^2 <= r2max, d2 computed
 * as the k-d tree computes it (search/kdtree.h): their input indices in
 * idx and squared distances in d2, ascending; how many (<= k). */
int gk_knn_bins_knn(const gk_knn_bins *b, double cx, double cy, int k, double r2max, int *idx,
                    double *d2);

/* Where points i and j (input indices, i != j) come in gdal_grid's
 * quadtree order (core/quadtree_order.h) over the bins' points, without
 * the order: down the tree along their common path, whose nodes split when
 * more than 8 points take that path (counted in the bins, stopping at 9).
 * 1: i first, 0: j first, -1: not decided within a bound on the work
 * (duplicates by the hundred, huge sparse nodes: the caller orders every
 * point then). */
int gk_knn_bins_before(const gk_knn_bins *b, int i, int j);

#endif
