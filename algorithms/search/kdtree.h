/* SPDX-License-Identifier: MIT */
/*
 * kdtree.h - static 2-D k-d tree over the points, the CPU spatial index.
 *
 * Built once per job (O(n log n)), read-only afterwards, so any number of
 * threads may query it at once. Queries report ORIGINAL point indices, so that
 * ties can be broken by input order as gdal_grid does.
 */
#ifndef GK_KDTREE_H
#define GK_KDTREE_H

#include <stddef.h>
#include <stdint.h>

typedef struct gk_kdtree gk_kdtree;

/* Copies the coordinates; NULL on allocation failure. */
gk_kdtree *gk_kdtree_build(const double *x, const double *y, size_t n);
/* The same tree, built on threads threads (0: every core): the same layout
 * and answers for any count. */
gk_kdtree *gk_kdtree_build_threads(const double *x, const double *y, size_t n, int threads);
/* Over points in the depth-first order of another tree, given by its
 * boundaries: lev[k] (k >= 1) the depth of the boundary between points k-1
 * and k, GK_KD_NO_SPLIT inside a leaf (gk_gdal_quadtree_order's lcp). The
 * nodes follow that tree, so nothing is selected or moved (O(n)); indices
 * are positions in x, y, which the tree keeps (not copied: they must
 * outlive it). Queries whose answers are sorted (k-NN, nearest)
 * answer exactly as over gk_kdtree_build's tree; radius and box queries
 * list their points in another order. NULL when out of memory. */
#define GK_KD_NO_SPLIT 255
gk_kdtree *gk_kdtree_build_levels(const double *x, const double *y, const uint8_t *lev, size_t n,
                                  int threads);
void gk_kdtree_free(gk_kdtree *t);
size_t gk_kdtree_size(const gk_kdtree *t);

/* Cross-validation: a view of t (sharing its arrays; free it with
 * gk_kdtree_free before t) whose queries skip the points i with
 * group[i] == g, g set by gk_kdtree_holdout_set (0 at first). Its answers
 * are those of a tree built on the other points, indices still t's. One view
 * per thread. NULL when out of memory. */
gk_kdtree *gk_kdtree_holdout(const gk_kdtree *t, const int *group);
void gk_kdtree_holdout_set(gk_kdtree *view, int g);

/* Every point with dx^2 + dy^2 <= r2 around (cx, cy). Writes up to cap original
 * indices to idx and their squared distances to d2, in no particular order,
 * and returns the total number found (which may exceed cap: call again with
 * more room). */
size_t gk_kdtree_radius(const gk_kdtree *t, double cx, double cy, double r2, int *idx, double *d2,
                        size_t cap);

/* Every point with |dx| <= hx and |dy| <= hy (a box query; the caller applies
 * an ellipse test). Same reporting contract as gk_kdtree_radius; d2 is the
 * unrotated squared distance to (cx, cy). */
size_t gk_kdtree_box(const gk_kdtree *t, double cx, double cy, double hx, double hy, int *idx,
                     double *d2, size_t cap);

/* The k nearest points with d^2 <= r2max (use INFINITY for no limit), sorted by
 * (d^2, original index). Returns how many were found (<= k). */
int gk_kdtree_knn(const gk_kdtree *t, double cx, double cy, int k, double r2max, int *idx,
                  double *d2);

/* gk_kdtree_knn over the points of one quadrant around (cx, cy): quad =
 * (dx >= 0) | ((dy >= 0) << 1) with (dx, dy) = point - (cx, cy), -1 for every
 * point; and, if keep is not NULL, only those for which keep(keep_arg, dx, dy)
 * is true (a window inside the r2max disc). quad | GK_KD_CLOSED: keep alone
 * decides, and accepts only points of the closed quadrant (dx or dy may be 0,
 * as in gstat's pinwheel); quad then only skips boxes outside it, so that a
 * quadrant empty around (cx, cy) costs a few boxes, not every point. */
#define GK_KD_CLOSED 4
int gk_kdtree_knn_quadrant(const gk_kdtree *t, double cx, double cy, int quad,
                           int (*keep)(const void *arg, double dx, double dy), const void *keep_arg,
                           int k, double r2max, int *idx, double *d2);

/* The nearest point with d^2 <= r2max; among equally near points the one LAST in
 * input order (gdal_grid's nearest uses <=). Returns its original index or -1. */
int gk_kdtree_nearest(const gk_kdtree *t, double cx, double cy, double r2max, double *d2);

#endif
