/*
 * krige_global.h - global kriging on the GPU (gpu/krige_global.cu), called by
 * gridkit_cuda.cu for jobs of op GK_GPU_KRIGE_GLOBAL. Internal to the module.
 *
 * cuSOLVER and cuBLAS are loaded with dlopen() on the first such job, so the
 * module needs neither to load: without them job creation fails with a
 * reason, and the core computes on the CPU.
 */
#ifndef GK_KRIGE_GLOBAL_H
#define GK_KRIGE_GLOBAL_H

#include "core/gpu_abi.h"

#include <cuda_runtime.h>
#include <stddef.h>

struct KgState;

/* Loads the libraries, keeps the points (ordered by y) and takes the device
 * memory of the n x n factor on device dev, with work queued on st. NULL
 * and a reason on failure. */
KgState *kg_new(int dev, cudaStream_t st, const gk_gpu_job_desc *d, char *err, size_t err_cap);
/* The model: assembles and factorises the covariance matrix, then the drift
 * and the dual weights. A singular system is no error: its tiles are nodata. */
int kg_set(KgState *g, const gk_gpu_krige *k, char *err, size_t err_cap);
/* A tile into the device buffer out (g0: external drift's covariates at the
 * tile's nodes on the device, nr blocks of w * h, or NULL) (ncell estimates, then ncell variances
 * when the model asks for them); nodes whose system fails get nodata and
 * count in *singular (a device counter). 0, GK_GPU_TILE_NOMEM, or -1 and a
 * reason. */
int kg_tile(KgState *g, const gk_gpu_tile *t, const double *g0, double *out,
            unsigned int *singular, char *err, size_t err_cap);
void kg_free(KgState *g);

#endif
