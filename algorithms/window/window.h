/* SPDX-License-Identifier: MIT */
/* window/window.h - what the window statistics' rows share (average.c,
 * metrics.c): a function of the points inside the search ellipse, over a
 * bucket grid where no ordered selection is asked for, else the k-d tree. */
#ifndef GK_WINDOW_H
#define GK_WINDOW_H

#include "core/method.h"

uint64_t gk_average_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s);
/* minimum, maximum, range, count, average_distance, average_distance_pts */
uint64_t gk_metrics_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s);

/* The window statistics' state: the bucket grid, or NULL where the k-d tree
 * serves (an ordered selection). */
static inline struct gk_bucket_grid *gk_window_bg(const gk_job *job)
{
    return (struct gk_bucket_grid *)job->state;
}

int gk_window_prepare(gk_job *job);
void gk_window_release(gk_job *job);
/* The GPU's form: the ellipse, the kernel op, and whether max_points bounds
 * the per-quadrant round robin (average's, as IDW's; never the metrics'). */
const char *gk_window_gpu(const gk_job *job, gk_gpu_job_desc *d, gk_gpu_op op, int honours_max);
double gk_window_cost(const gk_algorithm *a, double n, double area, double *setup_ns);

#define GK_WINDOW_KEYS (GK_KEY_ELLIPSE | GK_KEY_MIN_POINTS | GK_KEY_NODATA)

#endif
