/* SPDX-License-Identifier: MIT */
/*
 * quadtree_order.h - the order in which gdal_grid's quadtree lists points.
 *
 * gdal_grid finds candidates with GDAL's CPLQuadTree (invdistnn, the
 * per-quadrant limits, nearest with a radius over more than 100 points),
 * and among equidistant candidates keeps the ones the tree lists first (or,
 * for nearest, last). On lattices (DEMs exported as XYZ, survey grids) such
 * ties are everywhere. The tree is a deterministic function of the points
 * in input order, and a search lists its points in the tree's depth-first
 * order whatever the search box, so one order of all points, computed once,
 * reproduces every search's ties.
 */
#ifndef GK_QUADTREE_ORDER_H
#define GK_QUADTREE_ORDER_H

#include <stddef.h>
#include <stdint.h>

/* order[k] = the input index of the k-th point in the depth-first order of
 * the quadtree gdal_grid builds over (x, y)[0..n): root = the points'
 * bounding box, points inserted in input order, 8 points a node before it
 * splits, quarters of 55% of their parent's longer side; where ox and oy
 * are not NULL, the points' coordinates in that order too. Where lcp is
 * not NULL, the tree itself: lcp[k] (k >= 1) = the depth of the tree's
 * boundary between the k-1-th and the k-th point in binary form (each
 * quadtree node two levels: its halves, then their quarters; a search
 * tree can follow it, gk_kdtree_build_levels), GK_QT_NO_SPLIT inside a
 * leaf. On threads threads (0: every core); the order is the same for any
 * count. 0, or -1 when out of memory. */
#define GK_QT_NO_SPLIT 255
int gk_gdal_quadtree_order(const double *x, const double *y, size_t n, uint32_t *order, double *ox,
                           double *oy, uint8_t *lcp, int threads);

#endif
