/* SPDX-License-Identifier: MIT */
/*
 * natural.cu - `natural` (algorithms/linear/natural.c) on the GPU, exactly:
 * a thread a node walks from its bucket's seed triangle to the triangle that
 * holds it, digs its cavity and sums its weights with the core's own code
 * (algorithms/linear/natural_node.h). Compiled with -fmad=false
 * (gpu/CMakeLists.txt): nothing is contracted, so a node's value is the
 * CPU's bits. The orientation and incircle tests are the filters alone:
 * a node one of them cannot decide (on a point, on an edge, cocircular) is
 * left GK_LR_UNSET, as are nodes outside the hull and cavities of more than
 * NN_CAP triangles; the core computes those (natural.c's gpu_finish).
 */
#include "call.h"
#include "check.h"
#include "families.h"
#include "job.h"
#include "op_row.h"

#include "linear/linear_raster.h"
#include "linear/natural_node.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <new>

namespace gk_gpu
{

constexpr int NN_CAP = 24;      /* cavity triangles a thread holds (typically 4-6) */
constexpr int NN_THREADS = 128; /* a block: nodes of one row */

struct NatState {
    const NatState *base = nullptr; /* a clone: the arrays are base's */
    size_t nv = 0, nt = 0, nseed = 0;
    double *xy = nullptr, *z = nullptr, *grad = nullptr; /* grad: sibson_c1's */
    int *vert = nullptr, *nbr = nullptr, *seed = nullptr;
    gk_gpu_lin_level lev0{};
    int type = 0;
};

struct NatP {
    gk_nn_tin T;
    const int *seed;
    gk_gpu_lin_level lev0;
    int type, w, x0, y0, walk_cap;
    size_t nt; /* 0: no triangles, every node the core's */
    double xmin, cw, ymax, ch;
    double *out;
};

__global__ void __launch_bounds__(NN_THREADS) nat_nodes(NatP P)
{
    const int i = blockIdx.x * NN_THREADS + threadIdx.x, j = blockIdx.y;
    if (i >= P.w)
        return;
    /* as gk_grid_node_x / gk_grid_node_y */
    const double q[2] = {P.xmin + ((P.x0 + i) + 0.5) * P.cw, P.ymax + ((P.y0 + j) + 0.5) * P.ch};
    double *o = P.out + (size_t)j * P.w + i;
    *o = __longlong_as_double((long long)GK_LR_UNSET);
    if (P.nt == 0)
        return;
    const int bx = gk_lr_bucket_of((q[0] - P.lev0.x0) * P.lev0.inv, P.lev0.nx);
    const int by = gk_lr_bucket_of((q[1] - P.lev0.y0) * P.lev0.inv, P.lev0.ny);
    int t = __ldg(&P.seed[(size_t)by * P.lev0.nx + bx]);
    /* the visibility walk to the triangle holding q strictly */
    for (int step = 0;; step++) {
        if (step == P.walk_cap)
            return;
        const int *v = P.T.vertex + 3 * (size_t)t, *nb = P.T.neighbor + 3 * (size_t)t;
        int next = -1;
        for (int k = 0; k < 3 && next < 0; k++) {
            const int s =
                gk_orient_filter(gk_nn_xy(&P.T, v[(k + 1) % 3]), gk_nn_xy(&P.T, v[(k + 2) % 3]), q);
            if (s == GK_ORIENT_UNSURE)
                return; /* on an edge or a point, or too close to tell */
            if (s < 0) {
                if (nb[k] < 0)
                    return; /* outside the hull */
                next = nb[k];
            }
        }
        if (next < 0)
            break;
        t = next;
    }
    int c[NN_CAP], ea[NN_CAP + 2], eb[NN_CAP + 2], eu[NN_CAP + 2];
    double g[2 * (NN_CAP + 2)], w[NN_CAP + 2];
    gk_nn_cavity cv = {c, ea, eb, eu, 0, 0};
    if (gk_nn_dig(&P.T, t, q, NN_CAP, &cv) != GK_NN_OK)
        return;
    double val;
    /* 2: sibson_c1 without a neighbour's gradient, which the core counts */
    if (gk_nn_value(&P.T, &cv, q, P.type, g, w, &val) == 1)
        *o = val;
}

/* ---- host ------------------------------------------------------------------- */

static void nat_free(NatState *S)
{
    if (!S)
        return;
    if (!S->base) {
        cudaFree(S->xy);
        cudaFree(S->z);
        cudaFree(S->grad);
        cudaFree(S->vert);
        cudaFree(S->nbr);
        cudaFree(S->seed);
    }
    delete S;
}

static int nat_make(Job *J, const gk_gpu_job_desc *d, char *err, size_t err_cap)
{
    NatState *S = new (std::nothrow) NatState;
    if (!S) {
        snprintf(err, err_cap, "out of host memory");
        return -1;
    }
    const gk_gpu_linear &L = d->p.lin;
    S->nv = L.nv;
    S->nt = L.nt;
    S->type = L.nn_type;
    J->own = S;
    if (S->nt == 0)
        return 0; /* no triangles: every node is the core's */
    if (L.nlev < 1 || !L.neighbor || !L.z || !L.seed) {
        snprintf(err, err_cap, "natural: the triangulation's neighbours, values or seeds missing");
        return -1;
    }
    S->lev0 = L.lev[0];
    S->nseed = (size_t)S->lev0.nx * S->lev0.ny;
    CK_RET(upload(&S->xy, L.xy, 2 * S->nv, J->st));
    CK_RET(upload(&S->z, L.z, S->nv, J->st));
    CK_RET(upload(&S->vert, L.vertex, 3 * S->nt, J->st));
    CK_RET(upload(&S->nbr, L.neighbor, 3 * S->nt, J->st));
    CK_RET(upload(&S->seed, L.seed, S->nseed, J->st));
    if (S->type == GK_NN_SIBSON_C1) {
        if (!L.grad) {
            snprintf(err, err_cap, "natural: sibson_c1 without its gradients");
            return -1;
        }
        CK_RET(upload(&S->grad, L.grad, 2 * S->nv, J->st));
    }
    /* the host arrays are read during job_new only */
    CK_RET(cudaStreamSynchronize(J->st));
    return 0;
}

static void nat_drop(void *own) { nat_free(static_cast<NatState *>(own)); }

static void *nat_clone(const void *own, char *err, size_t err_cap)
{
    const NatState *B = static_cast<const NatState *>(own);
    NatState *S = new (std::nothrow) NatState(*B);
    if (!S) {
        snprintf(err, err_cap, "out of host memory");
        return nullptr;
    }
    S->base = B->base ? B->base : B;
    return S;
}

static int nat_tile(Job *J, const Grid &, const gk_gpu_tile *t, int, char *err, size_t err_cap)
{
    const NatState *S = static_cast<const NatState *>(J->own);
    CK_RET(cudaMemsetAsync(J->counters, 0, 4 * sizeof(unsigned int), J->st));
    NatP P{};
    P.T.xy = S->xy;
    P.T.vertex = S->vert;
    P.T.neighbor = S->nbr;
    P.T.z = S->z;
    P.T.grad = S->grad;
    P.seed = S->seed;
    P.lev0 = S->lev0;
    P.type = S->type;
    P.w = t->w;
    P.x0 = t->x0;
    P.y0 = t->y0;
    /* a straight walk crosses O(sqrt(n_tri)) triangles (linear/tin.c's cap) */
    P.walk_cap = 64 + 8 * (int)sqrt((double)S->nt);
    P.xmin = t->xmin;
    P.cw = (t->xmax - t->xmin) / t->nx;
    P.ymax = t->ymax;
    P.ch = (t->ymin - t->ymax) / t->ny;
    P.out = J->out;
    P.nt = S->nt;
    const dim3 grid((unsigned)((t->w + NN_THREADS - 1) / NN_THREADS), (unsigned)t->h);
    nat_nodes<<<grid, NN_THREADS, 0, J->st>>>(P);
    CK_RET(cudaGetLastError());
    return 0;
}

const OpRow op_natural = {false, false, NEVER, NEVER, nat_make, nat_drop, nat_clone, nat_tile};

} // namespace gk_gpu
