/* SPDX-License-Identifier: MIT */
/*
 * shepard.cu - `shepard`'s sums (algorithms/idw/shepard.c) on the GPU: the
 * nodal functions are fitted on the CPU cores; a thread a node sums those
 * whose radius holds it with the core's own code (algorithms/idw/
 * shepard_node.h), over the same cells in the same order. Compiled with
 * -fmad=false (gpu/CMakeLists.txt): a node's value is the CPU's bits.
 */
#include "call.h"
#include "check.h"
#include "families.h"
#include "job.h"
#include "op_row.h"

#include "idw/shepard_node.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <new>

namespace gk_gpu
{

constexpr int SH_THREADS = 128; /* a block: nodes of one row */

struct ShepState {
    const ShepState *base = nullptr; /* a clone: the arrays are base's */
    gk_gpu_shepard d{};              /* its pointers: the device's */
};

__global__ void __launch_bounds__(SH_THREADS)
    shep_nodes(gk_sh_cells C, double *out, int w, int x0, int y0, double xmin, double cw,
               double ymax, double ch, double nodata)
{
    const int i = blockIdx.x * SH_THREADS + threadIdx.x, j = blockIdx.y;
    if (i >= w)
        return;
    /* as gk_grid_node_x / gk_grid_node_y */
    const double nx = xmin + ((x0 + i) + 0.5) * cw, ny = ymax + ((y0 + j) + 0.5) * ch;
    double v;
    out[(size_t)j * w + i] = gk_sh_node(&C, nx, ny, &v) ? v : nodata;
}

static void shep_free(ShepState *S)
{
    if (!S)
        return;
    if (!S->base) {
        cudaFree((void *)S->d.start);
        cudaFree((void *)S->d.cx);
        cudaFree((void *)S->d.cy);
        cudaFree((void *)S->d.crsq);
        cudaFree((void *)S->d.cf);
        cudaFree((void *)S->d.ca);
    }
    delete S;
}

static int shep_make(Job *J, const gk_gpu_job_desc *desc, char *err, size_t err_cap)
{
    ShepState *S = new (std::nothrow) ShepState;
    if (!S) {
        snprintf(err, err_cap, "out of host memory");
        return -1;
    }
    J->own = S;
    const gk_gpu_shepard &h = desc->p.shep;
    S->d = h;
    S->d.start = nullptr;
    S->d.cx = S->d.cy = S->d.crsq = S->d.cf = S->d.ca = nullptr;
    const size_t ncell = (size_t)h.cnx * (size_t)h.cny, n = h.n;
    CK_RET(upload(&S->d.start, h.start, ncell + 1, J->st));
    CK_RET(upload(&S->d.cx, h.cx, n, J->st));
    CK_RET(upload(&S->d.cy, h.cy, n, J->st));
    CK_RET(upload(&S->d.crsq, h.crsq, n, J->st));
    CK_RET(upload(&S->d.cf, h.cf, n, J->st));
    CK_RET(upload(&S->d.ca, h.ca, 5 * n, J->st));
    /* the host arrays are read during job_new only */
    CK_RET(cudaStreamSynchronize(J->st));
    return 0;
}

static void shep_drop(void *own) { shep_free(static_cast<ShepState *>(own)); }

static void *shep_clone(const void *own, char *err, size_t err_cap)
{
    const ShepState *B = static_cast<const ShepState *>(own);
    ShepState *S = new (std::nothrow) ShepState(*B);
    if (!S) {
        snprintf(err, err_cap, "out of host memory");
        return nullptr;
    }
    S->base = B->base ? B->base : B;
    return S;
}

static int shep_tile(Job *J, const Grid &, const gk_gpu_tile *t, int, char *err, size_t err_cap)
{
    const ShepState *S = static_cast<const ShepState *>(J->own);
    CK_RET(cudaMemsetAsync(J->counters, 0, 4 * sizeof(unsigned int), J->st));
    const gk_gpu_shepard &d = S->d;
    const gk_sh_cells C = {d.x0,
                           d.y0,
                           d.cs,
                           d.rmax,
                           d.s2,
                           d.cnx,
                           d.cny,
                           d.start,
                           d.cx,
                           d.cy,
                           d.crsq,
                           d.cf,
                           (const double(*)[5])d.ca};
    const dim3 grid((unsigned)((t->w + SH_THREADS - 1) / SH_THREADS), (unsigned)t->h);
    shep_nodes<<<grid, SH_THREADS, 0, J->st>>>(C, J->out, t->w, t->x0, t->y0, t->xmin,
                                               (t->xmax - t->xmin) / t->nx, t->ymax,
                                               (t->ymin - t->ymax) / t->ny, J->d.nodata);
    CK_RET(cudaGetLastError());
    return 0;
}

const OpRow op_shepard = {false, false, NEVER, NEVER, shep_make, shep_drop, shep_clone, shep_tile};

} // namespace gk_gpu
