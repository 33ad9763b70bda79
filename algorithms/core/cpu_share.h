/* SPDX-License-Identifier: MIT */
/*
 * cpu_share.h - the CPU cores' share of a GPU run (engine.c).
 *
 * A GPU run's tiles form a queue in row-major order. The GPU threads take
 * whole tiles from its front; one more thread, the helper, takes slices
 * (whole-width runs of rows) off the bottom of the last tile left and
 * computes them on the cores the GPU threads leave free, for as long as it
 * would finish each slice before the GPUs finish the rest. Where the GPUs
 * are far faster (most jobs on a GPU of today beside 16 cores) it never
 * starts; on a machine with many cores, a small GPU or a slow kernel it
 * takes its share. The results are the CPU's tile functions' own, so a
 * node's value does not depend on who computed it beyond the stated
 * tolerances between the CPU and the GPU. Internal to the core.
 *
 * A late start (the GPU still starting when the run begins, device.c): the
 * helper takes slices off the top of the first tile left, on every core,
 * and hands each over at once, until a GPU thread says the GPU is there
 * (gk_share_gpu_on); the GPUs then take the tiles from where it is, and it
 * goes on as above. Where no GPU comes it takes the whole grid so.
 */
#ifndef GK_CPU_SHARE_H
#define GK_CPU_SHARE_H

#include "gk_internal.h"

typedef struct gk_share gk_share;

/* A finished tile (doubles, which the engine may convert in place to the
 * run's type) to the sink; nonzero stops the run. */
typedef int (*gk_share_deliver_fn)(void *user, const gk_tile *t, uint64_t nodata, double *values);

/* The queue of a GPU run of g's rows [y0, y0+rows) in tiles of tile_w x
 * tile_h. gpu_threads take
 * tiles; the helper, when the job allows one (GRIDKIT_CPU_SHARE=0: never;
 * =force, for tests: from the start, without the cost rule), uses the
 * cores left of cpu_threads. NULL when out of memory. */
gk_share *gk_share_new(gk_job *job, const gk_grid *g, int y0, int rows, int tile_w, int tile_h,
                       int gpu_threads, int cpu_threads, int late);
void gk_share_free(gk_share *q);
/* Does the run have a helper thread (one more than the GPU threads)? */
int gk_share_has_helper(const gk_share *q);
/* A GPU thread's next tile (whole, or the rows the helper left of the last);
 * 0 when the queue is empty. */
int gk_share_next(gk_share *q, gk_tile *t);
/* A late start's GPU is ready: the GPU threads take tiles from now on. */
void gk_share_gpu_on(gk_share *q);
/* Is the queue empty (a late start's GPU threads stop waiting then)? */
int gk_share_empty(gk_share *q);
/* A GPU thread finished a tile of t's nodes in `seconds`. */
void gk_share_gpu_done(gk_share *q, const gk_tile *t, double seconds);
/* The helper thread's work: slices while they pay, then their delivery.
 * stop: the engine's flag (read atomically; set to an error code here when
 * the CPU runs out of memory). */
void gk_share_help(gk_share *q, int *stop, gk_share_deliver_fn deliver, void *user);
/* Nodes the helper computed (tests, --timings). */
uint64_t gk_share_cpu_nodes(const gk_share *q);

#endif
