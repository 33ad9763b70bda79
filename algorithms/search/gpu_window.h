/* SPDX-License-Identifier: MIT */
/* search/gpu_window.h - a job's search window in the GPU module's terms
 * (core/gpu_abi.h), for the rows' gpu_describe hooks. */
#ifndef GK_GPU_WINDOW_H
#define GK_GPU_WINDOW_H

#include "core/gk_internal.h"
#include "core/gpu_abi.h"

/* The job's gdal_grid ellipse (or every point): NULL, or why not. */
const char *gk_gpu_desc_ellipse(const gk_job *job, gk_gpu_job_desc *d);
/* A circle of radius r. */
void gk_gpu_desc_circle(gk_gpu_job_desc *d, double r);
/* Per-quadrant limits, and what one quadrant can contribute (0: every point
 * of the window), which the kernels keep per quadrant; max_points bounds the
 * round robin where the method honours it. NULL, or why not. */
const char *gk_gpu_desc_quadrants(const gk_algorithm *a, int honours_max, gk_gpu_job_desc *d);

#endif
