/* SPDX-License-Identifier: MIT */
/* linear/linear.h - linear interpolation on the Delaunay triangulation:
 * its point-location structure (tin.c) and tile functions (linear.c). */
#ifndef GK_LINEAR_H
#define GK_LINEAR_H

#include "core/gk_internal.h"
#include "core/gpu_abi.h"

/* The triangulation prepared for point location (tin.h): linear's state. */
typedef struct gk_tin gk_tin;
static inline const gk_tin *gk_linear_tin(const gk_job *job) { return (const gk_tin *)job->state; }

/* Builds the point-location structure as the job's state (needs the
 * context's triangulator); gk_tin_free frees one. */
int gk_tin_build(gk_job *job);
/* The same, own = 1: always the core's exact Delaunay triangulation
 * (delaunay.c), never the context's hook (natural neighbours need it exact). */
int gk_tin_build_own(gk_job *job, int own);
void gk_tin_free(gk_tin *tin);
/* Number of triangles (0 when the nearest-point fallback is in use). */
int gk_tin_triangles(const gk_tin *tin);
uint64_t gk_linear_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s);
/* A tile the GPU rasterised (linear_raster.h): its nodes no proper triangle
 * took (GK_LR_UNSET) located one by one as gk_linear_tile does; their nodata
 * count, or UINT64_MAX when out of memory; *rest gets how many there were. */
/* A node outside the hull (t: the last triangle a walk reached, or -1), or
 * any node of a tin without triangles: the nearest point within
 * job->alg.radius (< 0: any distance; 0: none). 1 with *val, 0 for nodata. */
int gk_linear_outside(const gk_job *job, const gk_tin *tin, int t, double x, double y, double *val);
/* The tin's triangles and buckets in a GPU job's description (the arrays
 * stay the tin's). */
void gk_tin_gpu_desc(const gk_tin *tin, gk_gpu_job_desc *d);
uint64_t gk_linear_finish(const gk_job *job, const gk_tile *t, double *out, uint64_t *rest);

#endif
