/* SPDX-License-Identifier: MIT */
/*
 * kriging_ops.cu - the rows of the ops krige (local kriging: kriging.cu,
 * kriging_big.cu) and krige_global (krige_global.cu): their own state
 * (krige_state.h), the parameters api_krige_set hands them, what a tile
 * brings besides its grid (the covariates of external drift, the given
 * points of cross-validation), and their tiles.
 */
#include "call.h"
#include "families.h"
#include "job.h"
#include "krige_state.h"
#include "local.cuh"
#include "op_row.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <new>

namespace gk_gpu
{

/* ---- the state ------------------------------------------------------------ */

static void shrink_krige(void *own)
{
    KrigeState *S = static_cast<KrigeState *>(own);
    release({grown(S->g0, S->g0_cap), grown(S->nbr, S->nbr_cap), grown(S->big, S->big_cap),
             grown(S->q, S->q_cap), grown(S->qg, S->qg_cap)});
}

static void drop_krige(void *own)
{
    KrigeState *S = static_cast<KrigeState *>(own);
    shrink_krige(S);
    cudaFree(S->gp);
    if (S->global)
        kg_free(S->global);
    delete S;
}

static int make_krige(Job *J, const gk_gpu_job_desc *, char *err, size_t err_cap)
{
    if (!(J->own = new (std::nothrow) KrigeState)) {
        snprintf(err, err_cap, "out of host memory");
        return -1;
    }
    return 0;
}

static int make_krige_global(Job *J, const gk_gpu_job_desc *d, char *err, size_t err_cap)
{
    if (make_krige(J, d, err, err_cap))
        return -1;
    return (krige_state(J).global = kg_new(J->dev, J->st, d, err, err_cap)) ? 0 : -1;
}

/* A clone's parameters come from its own api_krige_set (the core sets each
 * job it holds): a clone starts empty. */
static void *clone_krige(const void *, char *err, size_t err_cap)
{
    KrigeState *S = new (std::nothrow) KrigeState;
    if (!S)
        snprintf(err, err_cap, "out of host memory");
    return S;
}

/* ---- the parameters --------------------------------------------------------- */

static int set_krige(Job *J, const gk_gpu_krige *k, char *err, size_t err_cap)
{
    KrigeState &S = krige_state(J);
    const bool local = S.global == nullptr;
    /* drift: none (simple), or 1 + poly + nr columns; a point or a block */
    const bool drift_ok = k->p == 0 ? k->nr == 0
                                    : (k->poly == 0 || k->poly == 2 || k->poly == 5) &&
                                          k->nr >= 0 && k->nr <= GK_GPU_KRIGE_MAX_P - 6 &&
                                          k->p == 1 + k->poly + k->nr && (k->nr == 0 || k->gpts);
    if (k->ns < 1 || k->ns > GK_GPU_KRIGE_MAX_STRUCT || !drift_ok ||
        !(k->nb <= 1 || k->nb == GK_GPU_KRIGE_MAX_DISCR) || k->nbands < 1 || k->nbands > 2 ||
        (k->omax > 0 && (!local || J->d.max_points > GK_GPU_MAX_K))) {
        snprintf(err, err_cap, "kriging parameters the GPU module cannot use");
        return -1;
    }
    if (!local && kg_set(S.global, k, err, err_cap))
        return -1;
    if (local && k->nr > 0) { /* the covariates at the points */
        const size_t bytes = (size_t)k->nr * J->n * sizeof(double);
        cudaError_t e = cudaSetDevice(J->dev);
        if (e == cudaSuccess && S.gp) {
            cudaFree(S.gp);
            S.gp = nullptr;
        }
        if (e == cudaSuccess)
            e = cudaMalloc(&S.gp, bytes);
        if (e == cudaSuccess)
            e = cudaMemcpy(S.gp, k->gpts, bytes, cudaMemcpyHostToDevice);
        if (e != cudaSuccess) {
            cudaGetLastError();
            snprintf(err, err_cap, "external drift covariates: %s", cudaGetErrorString(e));
            return -1;
        }
    }
    S.k = *k;
    S.k.gpts = nullptr; /* the caller's, read here only */
    S.set = true;
    J->nbands = k->nbands;
    return 0;
}

/* ---- a tile ----------------------------------------------------------------- */

/* The tile's covariates (external drift), before the timed kernels. */
static int stage_krige(Job *J, const gk_gpu_tile *t, char *err, size_t err_cap)
{
    KrigeState &S = krige_state(J);
    if (!S.set) {
        snprintf(err, err_cap, "kriging job without its parameters");
        return -1;
    }
    if (S.k.nr == 0)
        return 0;
    if (!t->g0) {
        snprintf(err, err_cap, "external drift: a tile without its covariates");
        return -1;
    }
    const size_t ncell = (size_t)t->w * t->h;
    CK_RET(grow(&S.g0, &S.g0_cap, (size_t)S.k.nr * ncell));
    for (int r = 0; r < S.k.nr; r++)
        CK_RET(cudaMemcpy2DAsync(S.g0 + r * ncell, t->w * sizeof(double), t->g0 + r * t->g0_ld,
                                 t->g0_pitch * sizeof(double), t->w * sizeof(double), t->h,
                                 cudaMemcpyHostToDevice, J->st));
    return 0;
}

static int tile_krige(Job *J, const Grid &G, const gk_gpu_tile *t, int nbands, char *err,
                      size_t err_cap)
{
    KrigeState &S = krige_state(J);
    LocalParams P = local_params(J, G);
    CK_RET(cudaMemsetAsync(J->counters, 0, 4 * sizeof(unsigned int), J->st));
    if (t->qx) { /* cross-validation: the given points, and their folds */
        const size_t nq = (size_t)t->w * t->h;
        if (!J->sgroup || S.k.omax > 0 || J->d.quad_max > 0 || J->d.max_points > 64 ||
            t->max_points > 0 || S.k.nr > 0) {
            snprintf(err, err_cap,
                     "cross-validation tiles: local kriging with its folds, up "
                     "to 64 neighbours, without per-quadrant search or external "
                     "drift");
            return -1;
        }
        CK_RET(grow(&S.q, &S.q_cap, nq));
        CK_RET(grow(&S.qg, &S.qg_cap, nq));
        double2 *hq = new (std::nothrow) double2[nq];
        if (!hq) {
            snprintf(err, err_cap, "out of host memory");
            return -1;
        }
        for (size_t o = 0; o < nq; o++)
            hq[o] = make_double2(t->qx[o], t->qy[o]);
        {
            cudaError_t e = cudaMemcpy(S.q, hq, nq * sizeof(double2), cudaMemcpyHostToDevice);
            delete[] hq;
            CK_RET(e);
        }
        CK_RET(cudaMemcpyAsync(S.qg, t->qgroup, nq * sizeof(int), cudaMemcpyHostToDevice, J->st));
        P.q = S.q;
        P.qg = S.qg;
    }
    return krige_tile(J, P, t, nbands, err, err_cap) ? -1 : 0;
}

static int tile_krige_global(Job *J, const Grid &, const gk_gpu_tile *t, int, char *err,
                             size_t err_cap)
{
    KrigeState &S = krige_state(J);
    CK_RET(cudaMemsetAsync(J->counters, 0, 4 * sizeof(unsigned int), J->st));
    const int rc =
        kg_tile(S.global, t, S.k.nr > 0 ? S.g0 : nullptr, J->out, J->counters + 3, err, err_cap);
    if (rc == GK_GPU_TILE_NOMEM)
        ck_last = cudaErrorMemoryAllocation;
    return rc ? -1 : 0;
}

/* ---- the rows --------------------------------------------------------------- */

const OpRow op_krige = {true,        true,       ALWAYS,       NEVER,     make_krige,  drop_krige,
                        clone_krige, tile_krige, shrink_krige, set_krige, stage_krige, true};
const OpRow op_krige_global = {true,
                               false,
                               NEVER,
                               NEVER,
                               make_krige_global,
                               drop_krige,
                               nullptr,
                               tile_krige_global,
                               shrink_krige,
                               set_krige,
                               stage_krige,
                               false};

} // namespace gk_gpu
