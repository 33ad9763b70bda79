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
/* Adaptive IDW: checks its keys and sets the expected nearest-neighbour
 * distance of the point set. */
int gk_aidw_prepare(gk_job *job);

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
