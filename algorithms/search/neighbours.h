/* SPDX-License-Identifier: MIT */
/*
 * neighbours.h - neighbourhood selection shared by the search-based algorithms:
 * candidates inside the search ellipse (or circle), deterministic ordering by
 * (squared distance, original index), the k nearest, gdal_grid's per-quadrant
 * round robin and the exact-hit rule.
 *
 * The gather functions leave their result in s->idx / s->d2 (original indices
 * and unrotated squared distances) and grow the scratch when needed (amortised:
 * a node only allocates when it needs more room than any node before it).
 */
#ifndef GK_NEIGHBOURS_H
#define GK_NEIGHBOURS_H

#include "core/gk_internal.h"
#include "kdtree.h"

#include <math.h>
#include <stddef.h>

/* Points inside job->ell around (nx, ny) (every point when ell.all), in no
 * particular order. Returns the count, or GK_NB_NOMEM when the scratch could
 * not grow. */
#define GK_NB_NOMEM (-2L)
long gk_nb_ellipse(const gk_job *job, double nx, double ny, gk_scratch *s);

/* Points with dx^2 + dy^2 <= r2 around (nx, ny). Same contract. */
long gk_nb_circle(const gk_job *job, double nx, double ny, double r2, gk_scratch *s);

/* Sorts idx/d2[0..n) ascending by (d2, idx). */
void gk_nb_sort(int *idx, double *d2, size_t n);

/* Moves the k nearest (by (d2, idx)) to the front, sorted; returns min(n, k)
 * (k == 0: all, sorted). */
size_t gk_nb_nearest(int *idx, double *d2, size_t n, size_t k);

/* The first point in input order (smallest original index) with
 * d2 + s2 < hit2 among idx/d2[0..n), or -1. */
int gk_nb_first_hit(const int *idx, const double *d2, size_t n, double s2, double hit2);

/* Exact hit among a k-NN answer idx/d2[0..m) sorted by d2 (m <= k, every
 * point inside ell unless ell is NULL). When all k answers are hits there may
 * be more, so those are looked up too (in s->idx2). Returns -1 when none,
 * GK_NB_NOMEM when the scratch could not grow. */
int gk_nb_hit_sorted(const gk_job *job, const gk_ellipse *ell, double nx, double ny, const int *idx,
                     const double *d2, int m, int k, double s2, double hit2, gk_scratch *s);

/* Are per-quadrant limits requested? */
static inline int gk_nb_has_quadrants(const gk_algorithm *a)
{
    return a->min_points_per_quadrant > 0 || a->max_points_per_quadrant > 0;
}

/* gdal_grid's per-quadrant selection over the candidates idx/d2[0..n) around
 * (nx, ny): quadrant q = (dx >= 0) | ((dy >= 0) << 1) with dx = point - node,
 * each quadrant sorted by (d2, idx), taken round robin q0, q1, q2, q3, ...; a
 * quadrant is skipped when exhausted or at max_per_q (0 = no limit); stops at
 * max_points (0 = no limit). The selection is written to the front of idx/d2
 * in the order taken. Returns its size, -1 when some quadrant got fewer than
 * min_per_q points (the node is nodata), or GK_NB_NOMEM. */
long gk_nb_quadrants(const gk_job *job, double nx, double ny, int *idx, double *d2, size_t n,
                     int max_points, int min_per_q, int max_per_q, gk_scratch *s);

/* The same selection over the points within r2 of (nx, ny) (and inside ell
 * if not NULL), written to s->idx/s->d2, without gathering them: each
 * quadrant's nearest up to the most it can give (max_per_q or max_points,
 * one of them set) straight from the k-d tree. Same returns. */
long gk_nb_quadrants_knn(const gk_job *job, double nx, double ny, double r2, const gk_ellipse *ell,
                         int max_points, int min_per_q, int max_per_q, gk_scratch *s);

/* Per-quadrant keys with a bound on what a quadrant gives (max_per_q, or
 * max_points where the algorithm honours it), and that bound 128 or less
 * (gk_nb_quadrants_knn's lists; above, the window is gathered)? */
int gk_nb_quadrants_bounded(const gk_algorithm *a, int honours_max);

/* gk_nb_quadrants over the job's ellipse, into s->idx/s->d2: through
 * gk_nb_quadrants_knn where bounded and the ellipse is proper, else the
 * window gathered (gk_nb_ellipse) and sorted per quadrant. */
long gk_nb_ellipse_quadrants(const gk_job *job, double nx, double ny, int honours_max,
                             gk_scratch *s);

/* gk_nb_first_hit over the points within r2 of (nx, ny) (and inside ell if
 * not NULL), looked up by itself (in s->idx2): -1, the point, or
 * GK_NB_NOMEM. */
int gk_nb_window_hit(const gk_job *job, const gk_ellipse *ell, double nx, double ny, double r2,
                     double s2, double hit2, gk_scratch *s);

/* IDW weight for a squared (smoothed) distance r2: r2^(-p/2). */
static inline double gk_idw_weight(double r2, double p)
{
    return p == 2.0 ? 1.0 / r2 : pow(r2, -0.5 * p);
}

/* Half extents of the axis-aligned box around the ellipse, slightly widened so
 * that rounding never loses a point the ellipse test accepts. */
void gk_nb_ellipse_box(const gk_ellipse *e, double *hx, double *hy);

/* Inverse-distance sum over idx/d2[0..m): weights (d2 + s2)^(-p/2). Returns 0
 * (nodata) when m == 0 or the weights vanish, else 1 with the value in *v. */
static inline int gk_idw_sum(const double *z, const int *idx, const double *d2, size_t m, double s2,
                             double p, double *v)
{
    double num = 0.0, den = 0.0;
    if (p == 2.0) {
        for (size_t i = 0; i < m; i++) {
            double w = 1.0 / (d2[i] + s2);
            num += w * z[idx[i]];
            den += w;
        }
    } else {
        /* relative to the nearest (as invdist_kernels.c): a large power
         * neither underflows every weight to 0 nor overflows one to inf */
        double rmin = INFINITY;
        for (size_t i = 0; i < m; i++)
            rmin = fmin(rmin, d2[i] + s2);
        if (!(rmin > 0) || !isfinite(rmin))
            rmin = 1.0;
        for (size_t i = 0; i < m; i++) {
            double w = pow((d2[i] + s2) / rmin, -0.5 * p);
            num += w * z[idx[i]];
            den += w;
        }
    }
    if (m == 0 || den == 0.0)
        return 0;
    *v = num / den;
    return 1;
}

/* invdistnn's node rule around (nx, ny): candidates with d2 <= radius^2, exact
 * hit first, the nearest max_points (0 = all) or the per-quadrant selection,
 * min_points. Shared by invdistnn and invdist with per-quadrant keys.
 * Node functions return 1 with *v set, 0 for nodata, -1 when out of memory. */
int gk_idwnn_node(const gk_job *job, double nx, double ny, double radius, double hit2,
                  gk_scratch *s, double *v);

/* invdist's rule with a search ellipse and power p (invdist, aidw): points inside
 * job->ell, exact hit first (input order), the max_points nearest (0 = all) or
 * the per-quadrant selection, min_points. */
int gk_idw_ellipse_node(const gk_job *job, double nx, double ny, double p, double hit2,
                        gk_scratch *s, double *v);

/* Runs a node function over the tile's nodes, writing nodata where it finds
 * no value. Returns the number of nodata nodes, or UINT64_MAX when out of
 * memory (the engine reports it). */
typedef int (*gk_node_fn)(const gk_job *job, double nx, double ny, double hit2, gk_scratch *s,
                          double *v);
uint64_t gk_nb_run_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s,
                        gk_node_fn fn);

#endif
