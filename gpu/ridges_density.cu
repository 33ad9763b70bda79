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
#include "check.h"
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

__global__ void __launch_bounds__(128) walk(gk_scms_index ix, const uint32_t *perm,
                                            double *walkers, size_t n, double h, double cutoff,
                                            double tol, int32_t max_iter, double *density,
                                            double *tangent, int32_t *iters)
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
    uint64_t *key = nullptr;
    size_t *start = nullptr;
    double *ps = nullptr, *ws = nullptr, *wk = nullptr, *dens = nullptr, *tan = nullptr;
    int32_t *its = nullptr;
    uint32_t *perm = nullptr;
    cudaStream_t st = nullptr;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    float ms = 0.0f;
    int rc = -1;
    if ((dim != 2 && dim != 3) || n == 0 || nw == 0 || !s->key || !s->start || !s->ps) {
        snprintf(err, err_cap, "density: %zu samples, %zu walkers, %d dimensions, no bins: "
                 "outside what the GPU kernel takes", n, nw, dim);
        return -1;
    }
    {
        CK(cudaSetDevice(dev));
        CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        CK(cudaMalloc(&key, s->n_bins * sizeof(uint64_t)));
        CK(cudaMalloc(&start, (s->n_bins + 1) * sizeof(size_t)));
        CK(cudaMalloc(&ps, n * dim * sizeof(double)));
        if (s->ws)
            CK(cudaMalloc(&ws, n * sizeof(double)));
        CK(cudaMalloc(&wk, nw * dim * sizeof(double)));
        CK(cudaMalloc(&tan, nw * dim * sizeof(double)));
        CK(cudaMalloc(&dens, nw * sizeof(double)));
        CK(cudaMalloc(&its, nw * sizeof(int32_t)));
        CK(cudaMalloc(&perm, nw * sizeof(uint32_t)));
        CK(cudaMemcpyAsync(key, s->key, s->n_bins * sizeof(uint64_t), cudaMemcpyHostToDevice, st));
        CK(cudaMemcpyAsync(start, s->start, (s->n_bins + 1) * sizeof(size_t),
                           cudaMemcpyHostToDevice, st));
        CK(cudaMemcpyAsync(ps, s->ps, n * dim * sizeof(double), cudaMemcpyHostToDevice, st));
        if (s->ws)
            CK(cudaMemcpyAsync(ws, s->ws, n * sizeof(double), cudaMemcpyHostToDevice, st));
        CK(cudaMemcpyAsync(wk, s->walkers, nw * dim * sizeof(double), cudaMemcpyHostToDevice,
                           st));
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
        CK(cudaMemcpyAsync(perm, order.data(), nw * sizeof(uint32_t), cudaMemcpyHostToDevice, st));
        CK(cudaEventRecord(e0, st));
        walk<<<(unsigned int)((nw + 127) / 128), 128, 0, st>>>(ix, perm, wk, nw, s->h, s->cutoff,
                                                               s->tol, s->max_iter, dens, tan, its);
        CK(cudaGetLastError());
        CK(cudaEventRecord(e1, st));
        CK(cudaMemcpyAsync(s->walkers, wk, nw * dim * sizeof(double), cudaMemcpyDeviceToHost,
                           st));
        CK(cudaMemcpyAsync(s->tangent, tan, nw * dim * sizeof(double), cudaMemcpyDeviceToHost,
                           st));
        CK(cudaMemcpyAsync(s->density, dens, nw * sizeof(double), cudaMemcpyDeviceToHost, st));
        CK(cudaMemcpyAsync(s->iters, its, nw * sizeof(int32_t), cudaMemcpyDeviceToHost, st));
        CK(cudaStreamSynchronize(st));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        s->kernel_ms = ms;
        rc = 0;
    }
fail:
    cudaFree(key);
    cudaFree(start);
    cudaFree(ps);
    cudaFree(ws);
    cudaFree(wk);
    cudaFree(tan);
    cudaFree(dens);
    cudaFree(its);
    cudaFree(perm);
    release_stream(st, e0, e1);
    return rc;
}

} // namespace gk_gpu
