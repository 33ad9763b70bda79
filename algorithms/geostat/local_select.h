/* SPDX-License-Identifier: MIT */
/*
 * geostat/local_select.h - gstat's local neighbourhood (docs/dev/geostatistics.md,
 * 'Local neighbourhoods'), as local kriging and the local polynomials take it:
 *
 *  - the max_points (nmax) nearest within maxdist (inclusive), ties by input
 *    order; all points within maxdist when max_points = 0;
 *  - fewer than min_points (nmin): an empty neighbourhood;
 *  - omax (max_points_per_quadrant): of that selection, the omax nearest per
 *    quadrant, with gstat's pinwheel rule for points on the axes.
 *
 * The k nearest of a node are searched within a bound from the thread's
 * previous node (its k-th distance plus the step), by a radius query (over
 * a cache of the points near a recent node, kept in the scratch) and a
 * ranking of the few candidates: the answer is the same, only quicker.
 */
#ifndef GK_GEOSTAT_LOCAL_SELECT_H
#define GK_GEOSTAT_LOCAL_SELECT_H

#include "core/gk_internal.h"

typedef struct {
    int max_points, min_points, omax; /* 0: no limit */
    double maxdist;                   /* 0: no limit */
} gk_local_nb;

/* The last k-nearest search of a thread: its node and the squared distance
 * of its k-th point, so that the next search starts with a bound. Zero it
 * before a thread's first node. */
typedef struct {
    int valid;
    double x, y, d2k;
} gk_local_prev;

/* The selection around (nx, ny) into s->idx[0..m); the job's k-d tree
 * searched. Where omax is set it is sorted by (d2, index) with s->d2;
 * otherwise it may come as a set in no order, s->d2[m - 1] the largest
 * squared distance and the other d2 undefined: users take the set (in
 * index order) and its distances from the coordinates. Returns m (0 when
 * fewer than min_points), or -1 when out of memory. */
long gk_local_select(const gk_job *job, const gk_local_nb *nb, double nx, double ny, gk_scratch *s,
                     gk_local_prev *pv);

#endif
