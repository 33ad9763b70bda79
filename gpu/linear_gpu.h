/*
 * linear_gpu.h - gdal_grid's `linear` on the GPU (gpu/linear_kernels.cu),
 * called by gridkit_cuda.cu for jobs of op GK_GPU_LINEAR. Internal to the
 * module.
 *
 * The core triangulates (algorithms/linear/linear.c) and hands over its
 * triangles, planes and buckets; a tile is filled by rasterising the
 * triangles that may overlap it with the core's own rules
 * (algorithms/linear/linear_raster.h). Nodes no proper triangle takes come back as
 * GK_LR_UNSET, and the core locates them one by one.
 */
#ifndef GK_LINEAR_GPU_H
#define GK_LINEAR_GPU_H

#include "core/gpu_abi.h"

#include <cuda_runtime.h>
#include <stddef.h>

struct LinState;

/* Uploads the triangles on the current device, with work queued on st (the
 * caller synchronises st before the host arrays go). NULL and a reason on
 * failure. */
LinState *lin_new(cudaStream_t st, const gk_gpu_job_desc *d, char *err, size_t err_cap);
/* Another job's state sharing base's triangles (read only), with buffers of
 * its own; freed before base. */
LinState *lin_clone(const LinState *base, char *err, size_t err_cap);
/* A tile into the device buffer out (w * h doubles, row-major): the plane
 * where a proper triangle takes the node, GK_LR_UNSET elsewhere. 0,
 * GK_GPU_TILE_NOMEM, or -1 and a reason. */
int lin_tile(LinState *L, cudaStream_t st, const gk_gpu_tile *t, double *out, char *err,
             size_t err_cap);
void lin_free(LinState *L);

#endif
