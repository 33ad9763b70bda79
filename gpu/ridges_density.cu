/* SPDX-License-Identifier: MIT */
/*
 * ridges_density.cu - `density`'s walkers on the GPU (algorithms/ridges/
 * density.c): one thread per walker runs algorithms/ridges/scms_step.h's
 * gk_scms_walk over the CPU's own bins, uploaded as they are, so that the
 * sums run over the same samples in the same order; only exp() may differ
 * in the last bit. Compiled with -fmad=false (gpu/CMakeLists.txt).
 *
 * Walkers are launched in the order of their bins (a permutation; each
 * walker's result is its own), so that the threads of a warp read the same
 * samples: in input order they are scattered over the whole cloud.
 */
#include "families.h"
#include "call.h"
#include "ridges/scms_step.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

namespace gk_gpu
{

namespace
{

__global__ void __launch_bounds__(128)
    walk(gk_scms_index ix, const uint32_t *perm, double *walkers, size_t n, double h, double cutoff,
         double tol, int32_t max_iter, double *density, double *tangent, int32_t *iters)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    const size_t i = perm[t];
    const int dim = ix.dim;
    double x[3] = {0.0, 0.0, 0.0}, tg[3] = {0.0, 0.0, 0.0}, d = 0.0;
    for (int k = 0; k < dim; k++)
        x[k] = walkers[i * dim + k];
    int32_t it = gk_scms_walk(&ix, x, h, cutoff, tol, max_iter, &d, tg);
    for (int k = 0; k < dim; k++) {
        walkers[i * dim + k] = x[k];
        tangent[i * dim + k] = tg[k];
    }
    density[i] = d;
    iters[i] = it;
}

/* The walkers' launch order: by the key of the bin they start in, then by
 * index. */
std::vector<uint32_t> launch_order(const gk_scms_index &ix, const double *w, size_t n)
{
    std::vector<std::pair<uint64_t, uint32_t>> k(n);
    for (size_t i = 0; i < n; i++) {
        uint64_t key = 0;
        for (int a = ix.dim - 1; a >= 0; a--) {
            int64_t c = gk_scms_cell(&ix, w[i * ix.dim + a], a);
            c = c < 0 ? 0 : c >= ix.nc[a] ? ix.nc[a] - 1 : c;
            key = key * (uint64_t)ix.nc[a] + (uint64_t)c;
        }
        k[i] = {key, (uint32_t)i};
    }
    std::sort(k.begin(), k.end());
    std::vector<uint32_t> perm(n);
    for (size_t i = 0; i < n; i++)
        perm[i] = k[i].second;
    return perm;
}

} // namespace

int api_scms(int dev, gk_gpu_scms *s, char *err, size_t err_cap)
{
    const int dim = s->dim;
    const size_t n = s->n, nw = s->n_walkers;
    if ((dim != 2 && dim != 3) || n == 0 || nw == 0 || !s->key || !s->start || !s->ps) {
        snprintf(err, err_cap,
                 "density: %zu samples, %zu walkers, %d dimensions, no bins: "
                 "outside what the GPU kernel takes",
                 n, nw, dim);
        return -1;
    }
    Call c;
    uint64_t *key = nullptr;
    size_t *start = nullptr;
    double *ps = nullptr, *ws = nullptr, *wk = nullptr, *dens = nullptr, *tan = nullptr;
    int32_t *its = nullptr;
    uint32_t *perm = nullptr;
    c.part(key, s->n_bins);
    c.part(start, s->n_bins + 1);
    c.part(ps, n * dim);
    if (s->ws)
        c.part(ws, n);
    c.part(wk, nw * dim);
    c.part(tan, nw * dim);
    c.part(dens, nw);
    c.part(its, nw);
    c.part(perm, nw);
    CK_RET(c.open(dev));
    CK_RET(c.carve());
    cudaStream_t st = c.st;
    CK_RET(cudaMemcpyAsync(key, s->key, s->n_bins * sizeof(uint64_t), cudaMemcpyHostToDevice, st));
    CK_RET(cudaMemcpyAsync(start, s->start, (s->n_bins + 1) * sizeof(size_t),
                           cudaMemcpyHostToDevice, st));
    CK_RET(cudaMemcpyAsync(ps, s->ps, n * dim * sizeof(double), cudaMemcpyHostToDevice, st));
    if (s->ws)
        CK_RET(cudaMemcpyAsync(ws, s->ws, n * sizeof(double), cudaMemcpyHostToDevice, st));
    CK_RET(cudaMemcpyAsync(wk, s->walkers, nw * dim * sizeof(double), cudaMemcpyHostToDevice, st));
    gk_scms_index ix{};
    ix.dim = dim;
    for (int k = 0; k < 3; k++) {
        ix.origin[k] = s->origin[k];
        ix.nc[k] = s->nc[k];
    }
    ix.side = s->side;
    ix.n_bins = s->n_bins;
    ix.key = key;
    ix.start = start;
    ix.ps = ps;
    ix.ws = ws;
    gk_scms_index hix = ix; /* the host's view, for the launch order */
    hix.key = s->key;
    const std::vector<uint32_t> order = launch_order(hix, s->walkers, nw);
    CK_RET(cudaMemcpyAsync(perm, order.data(), nw * sizeof(uint32_t), cudaMemcpyHostToDevice, st));
    CK_RET(cudaEventRecord(c.e0, st));
    walk<<<(unsigned int)((nw + 127) / 128), 128, 0, st>>>(ix, perm, wk, nw, s->h, s->cutoff,
                                                           s->tol, s->max_iter, dens, tan, its);
    CK_RET(cudaGetLastError());
    CK_RET(cudaEventRecord(c.e1, st));
    CK_RET(cudaMemcpyAsync(s->walkers, wk, nw * dim * sizeof(double), cudaMemcpyDeviceToHost, st));
    CK_RET(cudaMemcpyAsync(s->tangent, tan, nw * dim * sizeof(double), cudaMemcpyDeviceToHost, st));
    CK_RET(cudaMemcpyAsync(s->density, dens, nw * sizeof(double), cudaMemcpyDeviceToHost, st));
    CK_RET(cudaMemcpyAsync(s->iters, its, nw * sizeof(int32_t), cudaMemcpyDeviceToHost, st));
    CK_RET(cudaStreamSynchronize(st));
    float ms = 0.0f;
    CK_RET(c.elapsed(&ms));
    s->kernel_ms = ms;
    return 0;
}

} // namespace gk_gpu
