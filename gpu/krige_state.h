/* SPDX-License-Identifier: MIT */
/*
 * krige_state.h - a kriging job's own state (Job::own of the ops krige and
 * krige_global): the parameters api_krige_set gave, the covariates of
 * external drift, global kriging's factor, and the tile buffers kriging
 * alone uses. Made, freed and cloned by kriging_ops.cu's rows; read by
 * kriging.cu and kriging_big.cu.
 */
#ifndef GK_GPU_KRIGE_STATE_H
#define GK_GPU_KRIGE_STATE_H

#include "core/gpu_abi.h"
#include "job.h"

#include <cuda_runtime.h>

#include <cstddef>

namespace gk_gpu
{

struct KgState; /* krige_global.cu */

struct KrigeState {
    gk_gpu_krige k{}; /* api_krige_set's (k.gpts not kept: the caller's) */
    bool set = false;
    KgState *global = nullptr; /* krige_global: the factor and the dual weights */
    double *gp = nullptr;      /* external drift: the covariates at the points */
    /* tile buffers, grown on demand */
    double *g0 = nullptr; /* external drift: the covariates at a tile's nodes */
    size_t g0_cap = 0;
    int *nbr = nullptr; /* neighbours of a band of rows, then their counts */
    size_t nbr_cap = 0;
    unsigned char *big = nullptr; /* beyond shared memory: a system per block */
    size_t big_cap = 0;           /* bytes */
    double2 *q = nullptr;         /* cross-validation: a tile's given points */
    size_t q_cap = 0;
    int *qg = nullptr; /* and the folds they leave out */
    size_t qg_cap = 0;
};

inline KrigeState &krige_state(Job *J) { return *static_cast<KrigeState *>(J->own); }

} // namespace gk_gpu

#endif
