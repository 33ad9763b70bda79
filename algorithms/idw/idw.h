/* SPDX-License-Identifier: MIT */
/* idw/idw.h - what the IDW family's rows share (invdist, invdistnn, aidw). */
#ifndef GK_IDW_H
#define GK_IDW_H

#include "core/method.h"

/* The methods' tile functions (gk_tile_fn). */
uint64_t gk_invdist_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s);
uint64_t gk_invdistnn_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s);
uint64_t gk_nearest_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s);
uint64_t gk_aidw_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s);
/* invdist over every point (no search window), invdist_kernels.c: SIMD
 * kernels in double, or in single precision on tile-local coordinates. */
uint64_t gk_invdist_all_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s);
/* invdist over every point in single precision with the far points
 * interpolated (invdist_far.c): where it applies, and a tile of it. */
int gk_invdist_far_fits(const gk_job *job);
uint64_t gk_invdist_far_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s);
/* invdist_kernels.c's pieces it shares: the single-precision sums of
 * w (z - zc) and w, w = 1 / (d^2 + dy2), over n points for nodes <= 4 nodes
 * of a row (x and cx in one frame); the exact double sums of one node; and
 * the exact hits of a tile (hit[k]: the point a node takes, or -1). */
void gk_invdist_sums_f32(const float *x, const float *dy2, const float *z, size_t n,
                         const float *cx, int nodes, double *swz, double *sw);
void gk_invdist_exact(const gk_points *p, double s2, double cx, double cy, double *swz, double *sw);
void gk_invdist_mark_hits(const gk_points *p, const gk_tile *t, double s2, int *hit);

/* Adaptive IDW (aidw.h has its state): checks its keys and makes the state (and the CPU's tree); release frees it. */
int gk_aidw_prepare(gk_job *job);
void gk_aidw_release(gk_job *job);

/* A node's value from the points a search gathered in s (idx/d2[0..n)): a
 * hit, else the quadrants' choice, the k = max_points nearest or all of
 * them, min_points, then the weighted sum to the power p. 1, 0 (nodata),
 * -1 out of memory. */
int gk_idw_gathered(const gk_job *job, double nx, double ny, size_t n, double p, double hit2,
                    gk_scratch *s, double *v);

/* ":power=...:smoothing=..." for the canonical string. */
void gk_idw_canonical(const gk_algorithm *a, gk_strbuf *sb);
/* A neighbour limit (max_points or per quadrant): the window then takes
 * its k nearest, the same with a fold held out of the search as on the
 * other points; an unlimited window sums its points in the tree's order,
 * which is not the same for all points as for a fold's others. */
static inline int gk_idw_limited(const gk_algorithm *a)
{
    return a->max_points > 0 || a->min_points_per_quadrant > 0 || a->max_points_per_quadrant > 0;
}

/* The GPU's k-NN list bound on max_points: NULL, or why not. */
const char *gk_idw_gpu_limits(const gk_algorithm *a);

#endif
