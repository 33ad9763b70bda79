/* SPDX-License-Identifier: MIT */
/*
 * surface.cu - `surface`'s sweeps of one grid on the GPU
 * (algorithms/spline/surface_solve.c), with the arithmetic of
 * algorithms/spline/surface_node.h, so that the bits are the CPU's.
 *
 * A sweep is
 *   edges   the ghost rows and columns, in surface_node.h's three steps, a
 *           launch each (a thread an entry), once (as GMT sets them once an
 *           iteration), then for each of the five colours:
 *   colour  a thread a node of the colour ((col + 2 row) mod 5, whose
 *           stencils never meet) in each of a few rows, updated in place
 *           (a colour's nodes of a row, and each of their neighbours, lie
 *           in runs: surface_node.h's layout, so a warp's loads coalesce);
 *           each block's largest change joins the sweep's by an integer max
 *           on the doubles' bits (non-negative: the order of the bits is the
 *           order of the values, so the max is exact in any order);
 * then one thread ends the sweep: counts it, and when the change is at most
 * the limit, or the sweeps reach maxit, sets done. Every kernel returns at
 * once when done is set, so the host queues sweeps in batches and the grid
 * stays that of the sweep that stopped, as on the CPU. Compiled with
 * -fmad=false (gpu/CMakeLists.txt).
 */
#include "families.h"
#include "call.h"
#include "spline/surface_node.h"

#include <cub/block/block_reduce.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace gk_gpu
{

namespace
{

constexpr int TB = 256;

struct MaxOp {
    __device__ double operator()(double a, double b) const { return a > b ? a : b; }
};

/* the sweep's state on the device */
enum { F_DONE = 0, F_CONVERGED, F_N };
struct Flags {
    unsigned long long maxch; /* the sweep's largest change, as bits */
    long long iters;
    int f[F_N];
};

__global__ void edges(gk_gpu_surface s, int step, const Flags *fl)
{
    if (fl->f[F_DONE])
        return;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < gk_surf_bc_entries(&s, step))
        gk_surf_bc(&s, s.u, step, i);
}

__global__ void colour_nodes(gk_gpu_surface s, int colour, int rows_per_block, Flags *fl)
{
    if (fl->f[F_DONE])
        return;
    double ch = 0.0;
    const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const int r0 = blockIdx.y * rows_per_block;
    const int r1 = min(r0 + rows_per_block, s.ny);
    for (int r = r0; r < r1; r++) {
        const int first = gk_surf_first_col(colour, r);
        const long long c = first + 5LL * k;
        if (c < s.nx) {
            /* node k of the colour's run, its neighbours k into theirs: a
             * warp's loads are contiguous */
            const size_t n = gk_surf_at(&s, r, first) + (size_t)k;
            const unsigned char stn = s.st[n];
            if (stn != GK_SURF_FIXED) {
                double nbv[12], d;
                for (int q = 0; q < 12; q++)
                    nbv[q] = s.u[gk_surf_nb(&s, r, first, q) + (size_t)k];
                s.u[n] = gk_surf_update(&s, nbv, s.u[n], stn, stn ? s.bi[n] : -1, c * s.rx,
                                        (s.ny - 1 - r) * s.ry, &d);
                ch = d > ch ? d : ch;
            }
        }
    }
    typedef cub::BlockReduce<double, TB> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    const double m = Reduce(tmp).Reduce(ch, MaxOp());
    /* the bits of non-negative doubles order as the values: an integer max;
     * skipped when the sweep's is larger already (it only grows) */
    if (threadIdx.x == 0 && m > 0.0 &&
        m > __longlong_as_double((long long)*(volatile unsigned long long *)&fl->maxch))
        atomicMax(&fl->maxch, (unsigned long long)__double_as_longlong(m));
}

__global__ void sweep_end(Flags *fl, double limit, long long maxit)
{
    if (fl->f[F_DONE])
        return;
    fl->iters++;
    const double m = __longlong_as_double((long long)fl->maxch);
    fl->maxch = 0ULL;
    if (m <= limit)
        fl->f[F_DONE] = fl->f[F_CONVERGED] = 1;
    else if (fl->iters >= maxit)
        fl->f[F_DONE] = 1;
}

} // namespace

int api_surface(int dev, gk_gpu_surface *s, char *err, size_t err_cap)
{
    s->iterations = 0;
    s->converged = 0;
    if (s->nx < 4 || s->ny < 4 || s->ny > 65535 || s->nx > (1 << 28)) {
        snprintf(err, err_cap, "surface: a %dx%d grid is outside what the GPU kernel takes",
                 s->nx, s->ny);
        return -1;
    }
    const size_t nt = (size_t)(s->ny + 4) * gk_surf_pitch(s);
    Call c;
    CK_RET(c.open(dev));
    cudaStream_t st = c.st;
    gk_gpu_surface d = *s;
    double *du = nullptr, *db = nullptr;
    unsigned char *dst = nullptr;
    int32_t *dbi = nullptr;
    Flags *dfl = nullptr, *hfl = nullptr;
    c.part(du, nt);
    c.part(dst, nt);
    c.part(dbi, nt);
    c.part(db, 6 * std::max<size_t>(s->nb, 1));
    c.part(dfl, 1);
    CK_RET(c.carve());
    CK_RET(c.host(hfl, 1));
    *hfl = Flags{};
    if (s->maxit <= 0) /* no sweep: the grid as it came */
        hfl->f[F_DONE] = 1;
    CK_RET(cudaMemcpyAsync(du, s->u, nt * sizeof(double), cudaMemcpyHostToDevice, st));
    CK_RET(cudaMemcpyAsync(dst, s->st, nt, cudaMemcpyHostToDevice, st));
    CK_RET(cudaMemcpyAsync(dbi, s->bi, nt * sizeof(int32_t), cudaMemcpyHostToDevice, st));
    if (s->nb)
        CK_RET(cudaMemcpyAsync(db, s->b, 6 * s->nb * sizeof(double), cudaMemcpyHostToDevice, st));
    CK_RET(cudaMemcpyAsync(dfl, hfl, sizeof(Flags), cudaMemcpyHostToDevice, st));
    d.u = du, d.st = dst, d.bi = dbi, d.b = db;
    const unsigned int per_row = (unsigned int)((s->nx + 4) / 5); /* a colour's nodes a row, at most */
    /* a block a few rows: about 1000 row groups, few atomics a colour */
    const int rows_per_block = (s->ny + 1023) / 1024;
    const dim3 grid((per_row + TB - 1) / TB,
                    (unsigned int)((s->ny + rows_per_block - 1) / rows_per_block));
    const unsigned int edge_n = (unsigned int)(s->nx + s->ny);
    CK_RET(cudaEventRecord(c.e0, st));
    for (long long queued = 0; !hfl->f[F_DONE] && queued < s->maxit;) {
        const long long batch = std::min<long long>(s->maxit - queued, queued < 32 ? 8 : 32);
        for (long long k = 0; k < batch; k++) {
            for (int step = 0; step < 3; step++)
                edges<<<step == 1 ? 1 : (edge_n + TB - 1) / TB, step == 1 ? 1 : TB, 0, st>>>(
                    d, step, dfl);
            for (int colour = 0; colour < 5; colour++)
                colour_nodes<<<grid, TB, 0, st>>>(d, colour, rows_per_block, dfl);
            sweep_end<<<1, 1, 0, st>>>(dfl, s->limit, (long long)s->maxit);
        }
        CK_RET(cudaGetLastError());
        queued += batch;
        CK_RET(cudaMemcpyAsync(hfl, dfl, sizeof(Flags), cudaMemcpyDeviceToHost, st));
        CK_RET(cudaStreamSynchronize(st));
    }
    CK_RET(cudaEventRecord(c.e1, st));
    CK_RET(cudaMemcpyAsync(s->u, du, nt * sizeof(double), cudaMemcpyDeviceToHost, st));
    CK_RET(cudaStreamSynchronize(st));
    s->iterations = (long)hfl->iters;
    s->converged = hfl->f[F_CONVERGED];
    float ms = 0.0f;
    CK_RET(c.elapsed(&ms));
    s->kernel_ms = ms;
    return 0;
}

} // namespace gk_gpu
