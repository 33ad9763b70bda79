/* SPDX-License-Identifier: MIT */
/*
 * job.h - a job of the module: the points on one GPU (uploaded once), their
 * bin grid for the local algorithms, the stream, the per-tile buffers every
 * op shares, grown on demand (check.h's grow), and the op's own state. Made
 * and freed by module.cu; every family's launches read it.
 */
#ifndef GK_GPU_JOB_H
#define GK_GPU_JOB_H

#include "core/gpu_abi.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <mutex>

namespace gk_gpu
{

struct Job {
    int dev = 0;
    gk_gpu_job_desc d{};
    size_t n = 0;
    std::mutex mu;
    cudaStream_t st = nullptr;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    float last_ms = -1.0f;
    /* input order */
    double *x = nullptr, *y = nullptr, *z = nullptr;
    double zc = 0.0; /* mid-range of Z (single precision sums) */
    /* bin grid (local algorithms) */
    double2 *sxy = nullptr; /* points in bin order */
    double *sz = nullptr;
    int *sidx = nullptr;   /* their input indices */
    int *sgroup = nullptr; /* cross-validation: their folds (gk_gpu_job_desc's group) */
    int *bstart = nullptr; /* nbins + 1 */
    int nbx = 1, nby = 1;
    double gx0 = 0, gy0 = 0, bsx = 1, bsy = 1, ibsx = 1, ibsy = 1, margin = 0;
    double pxmax = 0, pymax = 0;
    /* per-tile buffers, grown on demand */
    double *out = nullptr;
    size_t out_cap = 0;
    float *outf = nullptr; /* out as Float32 pixels (gk_gpu_tile's out_float) */
    size_t outf_cap = 0;
    double2 *part = nullptr;
    size_t part_cap = 0;
    int *flags = nullptr;
    size_t flags_cap = 0;
    float4 *pf = nullptr; /* tile-local single-precision points */
    int *flag_list = nullptr;
    size_t flag_list_cap = 0;
    unsigned int *counters = nullptr; /* [0] flagged cells, [1] nodata, [3] singular systems */
    int nsm = 132;
    int smem_optin = 48 << 10;    /* dynamic shared memory a block may opt in to */
    unsigned char *klg = nullptr; /* k-lists beyond shared memory: a warp's each */
    size_t klg_cap = 0;           /* bytes */
    int nbands = 1;               /* values per node (kriging: the estimate, the variance) */
    /* The op's own state (kriging's parameters and buffers, linear's
     * triangles, the density's scratch): made by its row's make, freed by
     * its drop, cloned by its clone (op_row.h); only the op's family file
     * reads it. */
    void *own = nullptr;
    const Job *base = nullptr; /* a clone: the points and bins are base's */
};

} // namespace gk_gpu

#endif
