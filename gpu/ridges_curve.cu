/*
 * ridges_curve.cu - `curve`'s evolve on the GPU (algorithms/ridges/curve.c):
 * Jacobi steps until a step moves no representative, with the arithmetic of
 * algorithms/ridges/curve_step.h, so that the bits are the CPU's.
 *
 * A step is four small kernels:
 *   bin      representatives into a grid of cells of side >= r1, sorted by
 *            cell (radix sort, stable);
 *   assign   one thread per sample: the nearest representative within r1
 *            over the 3^dim cells around it (ties to the lower index: the
 *            order is total, so the order cells are visited in is free);
 *   sort     samples by owner, stable, so each owner's samples are in
 *            increasing index, the CPU's summation order;
 *   move     one thread per representative: sums its samples in that order
 *            and moves (gk_cs_move); a flag says whether any moved.
 * The host reads the flag after every step: stopping one step late would
 * change the result (a step that moves nothing still rounds). No float
 * atomics anywhere. Compiled with -fmad=false (gpu/CMakeLists.txt).
 */
#include "families.h"
#include "check.h"
#include "ridges/curve_step.h"

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace gk_gpu
{

namespace
{

struct CellGrid {
    int dim;
    double lo[3], side;
    int n[3];         /* cells per axis */
    unsigned int cells;
};

__host__ __device__ inline int cell_axis(const CellGrid &g, double v, int k)
{
    double f = (v - g.lo[k]) / g.side;
    int c = f >= 0.0 ? (int)f : 0;
    return c < g.n[k] ? c : g.n[k] - 1;
}

__device__ inline unsigned int cell_of(const CellGrid &g, const double *q)
{
    unsigned int c = 0;
    for (int k = g.dim - 1; k >= 0; k--)
        c = c * (unsigned int)g.n[k] + (unsigned int)cell_axis(g, q[k], k);
    return c;
}

__global__ void rep_cells(CellGrid g, const double *s, unsigned int m, unsigned int *key,
                          unsigned int *idx)
{
    unsigned int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        key[j] = cell_of(g, s + (size_t)j * g.dim);
        idx[j] = j;
    }
}

/* start[c] = first position of cell c in the sorted keys (cells + 1 entries). */
__global__ void cell_starts(const unsigned int *key, unsigned int m, unsigned int cells,
                            unsigned int *start)
{
    unsigned int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c > cells)
        return;
    unsigned int lo = 0, hi = m;
    while (lo < hi) {
        unsigned int mid = lo + (hi - lo) / 2;
        if (key[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    start[c] = lo;
}

__global__ void assign(CellGrid g, const double *p, size_t n, const double *s,
                       const unsigned int *start, const unsigned int *rep, double r2,
                       unsigned int m, unsigned int *owner, unsigned int *order)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const int dim = g.dim;
    const double *q = p + i * dim;
    int c[3] = {0, 0, 0}, lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        if (k < dim) {
            c[k] = cell_axis(g, q[k], k);
            lo[k] = c[k] > 0 ? c[k] - 1 : 0;
            hi[k] = c[k] + 1 < g.n[k] ? c[k] + 1 : g.n[k] - 1;
        }
    }
    double bd2 = INFINITY;
    unsigned int bj = m; /* none */
    for (int cz = lo[2]; cz <= hi[2]; cz++)
        for (int cy = lo[1]; cy <= hi[1]; cy++)
            for (int cx = lo[0]; cx <= hi[0]; cx++) {
                unsigned int cell = (unsigned int)cx + (unsigned int)g.n[0] *
                                    ((unsigned int)cy + (unsigned int)g.n[1] * (unsigned int)cz);
                for (unsigned int t = start[cell]; t < start[cell + 1]; t++) {
                    unsigned int j = rep[t];
                    double d2 = gk_cs_d2(q, s + (size_t)j * dim, dim);
                    if (d2 <= r2 && gk_cs_before(d2, j, bd2, bj)) {
                        bd2 = d2;
                        bj = j;
                    }
                }
            }
    owner[i] = bj;
    order[i] = (unsigned int)i;
}

/* Representative j's samples are sorted positions first[j] .. first[j+1]-1. */
__global__ void owner_starts(const unsigned int *owner_sorted, size_t n, unsigned int m,
                             unsigned int *first)
{
    unsigned int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j > m)
        return;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (owner_sorted[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    first[j] = (unsigned int)lo;
}

__global__ void move(int dim, const double *p, const unsigned int *order,
                     const unsigned int *first, unsigned int m, double *s, int *moved)
{
    unsigned int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    double sum[3] = {0.0, 0.0, 0.0};
    for (unsigned int t = first[j]; t < first[j + 1]; t++) {
        const double *q = p + (size_t)order[t] * dim;
        for (int k = 0; k < dim; k++)
            sum[k] = sum[k] + q[k];
    }
    if (gk_cs_move(s + (size_t)j * dim, sum, first[j + 1] - first[j], dim))
        *moved = 1; /* an int flag, not a float: any writer gives the same answer */
}

/* Cells of side >= r1 over the samples' box (the representatives are means
 * of samples, so inside it), at most about 2^26 of them. */
CellGrid make_grid(const double *p, size_t n, int dim, double r1)
{
    CellGrid g{};
    g.dim = dim;
    double hi[3] = {0, 0, 0};
    for (int k = 0; k < dim; k++) {
        g.lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < dim; k++) {
            g.lo[k] = std::min(g.lo[k], p[i * dim + k]);
            hi[k] = std::max(hi[k], p[i * dim + k]);
        }
    /* a little more than r1: a representative within r1 is never two cells away */
    g.side = r1 * (1.0 + 1e-9);
    for (;;) {
        double cells = 1.0;
        for (int k = 0; k < 3; k++) {
            g.n[k] = k < dim ? (int)std::min(1e9, std::floor((hi[k] - g.lo[k]) / g.side) + 1.0) : 1;
            cells *= g.n[k];
        }
        if (cells <= (double)(1u << 26)) {
            g.cells = (unsigned int)cells;
            return g;
        }
        g.side *= 2.0;
    }
}

} // namespace

int api_curve_evolve(int dev, gk_gpu_evolve *e, char *err, size_t err_cap)
{
    const int dim = e->dim;
    const size_t n = e->n;
    const unsigned int m = (unsigned int)e->m;
    double *dp = nullptr, *ds = nullptr;
    unsigned int *rkey = nullptr, *ridx = nullptr, *cstart = nullptr, *owner = nullptr,
                 *order = nullptr, *first = nullptr;
    int *dmoved = nullptr, *hmoved = nullptr;
    void *tmp = nullptr;
    size_t tmpb = 0, tmpb2 = 0;
    cudaStream_t st = nullptr;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    float ms = 0.0f;
    int rc = -1;
    e->iters = 0;
    e->converged = 0;
    if (n == 0 || m == 0 || n > 0xFFFFFFF0u || e->m > 0xFFFFFFF0u || (dim != 2 && dim != 3)) {
        snprintf(err, err_cap, "curve: %zu samples, %zu representatives, %d dimensions: "
                 "outside what the GPU kernel takes", n, e->m, dim);
        return -1;
    }
    {
        const CellGrid g = make_grid(e->p, n, dim, e->r1);
        const double r2 = e->r1 * e->r1;
        const unsigned int tb = 256;
        CK(cudaSetDevice(dev));
        CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        CK(cudaMalloc(&dp, n * dim * sizeof(double)));
        CK(cudaMalloc(&ds, (size_t)m * dim * sizeof(double)));
        CK(cudaMalloc(&rkey, 2 * (size_t)m * sizeof(unsigned int)));
        CK(cudaMalloc(&ridx, 2 * (size_t)m * sizeof(unsigned int)));
        CK(cudaMalloc(&cstart, ((size_t)g.cells + 1) * sizeof(unsigned int)));
        CK(cudaMalloc(&owner, 2 * n * sizeof(unsigned int)));
        CK(cudaMalloc(&order, 2 * n * sizeof(unsigned int)));
        CK(cudaMalloc(&first, ((size_t)m + 1) * sizeof(unsigned int)));
        CK(cudaMalloc(&dmoved, sizeof(int)));
        CK(cudaMallocHost(&hmoved, sizeof(int)));
        CK(cub::DeviceRadixSort::SortPairs(nullptr, tmpb, rkey, rkey + m, ridx, ridx + m,
                                           (int)m, 0, 32, st));
        CK(cub::DeviceRadixSort::SortPairs(nullptr, tmpb2, owner, owner + n, order, order + n,
                                           (int)n, 0, 32, st));
        CK(cudaMalloc(&tmp, std::max(tmpb, tmpb2)));
        tmpb = std::max(tmpb, tmpb2);
        CK(cudaMemcpyAsync(dp, e->p, n * dim * sizeof(double), cudaMemcpyHostToDevice, st));
        CK(cudaMemcpyAsync(ds, e->s, (size_t)m * dim * sizeof(double), cudaMemcpyHostToDevice,
                           st));
        CK(cudaEventRecord(e0, st));
        const unsigned int gm = (m + tb - 1) / tb, gm1 = (m + 1 + tb - 1) / tb,
                           gc = (g.cells + 1 + tb - 1) / tb;
        const unsigned int gn = (unsigned int)((n + tb - 1) / tb);
        for (int it = 0; it < e->max_iter; it++) {
            size_t b = tmpb;
            rep_cells<<<gm, tb, 0, st>>>(g, ds, m, rkey, ridx);
            CK(cub::DeviceRadixSort::SortPairs(tmp, b, rkey, rkey + m, ridx, ridx + m, (int)m, 0,
                                               32, st));
            cell_starts<<<gc, tb, 0, st>>>(rkey + m, m, g.cells, cstart);
            assign<<<gn, tb, 0, st>>>(g, dp, n, ds, cstart, ridx + m, r2, m, owner, order);
            b = tmpb;
            CK(cub::DeviceRadixSort::SortPairs(tmp, b, owner, owner + n, order, order + n,
                                               (int)n, 0, 32, st));
            owner_starts<<<gm1, tb, 0, st>>>(owner + n, n, m, first);
            CK(cudaMemsetAsync(dmoved, 0, sizeof(int), st));
            move<<<gm, tb, 0, st>>>(dim, dp, order + n, first, m, ds, dmoved);
            CK(cudaGetLastError());
            CK(cudaMemcpyAsync(hmoved, dmoved, sizeof(int), cudaMemcpyDeviceToHost, st));
            CK(cudaStreamSynchronize(st));
            e->iters = it + 1;
            if (!*hmoved) {
                e->converged = 1;
                break;
            }
        }
        CK(cudaEventRecord(e1, st));
        CK(cudaMemcpyAsync(e->s, ds, (size_t)m * dim * sizeof(double), cudaMemcpyDeviceToHost,
                           st));
        CK(cudaStreamSynchronize(st));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        e->kernel_ms = ms;
        rc = 0;
    }
fail:
    cudaFree(dp);
    cudaFree(ds);
    cudaFree(rkey);
    cudaFree(ridx);
    cudaFree(cstart);
    cudaFree(owner);
    cudaFree(order);
    cudaFree(first);
    cudaFree(dmoved);
    cudaFreeHost(hmoved);
    cudaFree(tmp);
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    if (st)
        cudaStreamDestroy(st);
    return rc;
}

} // namespace gk_gpu
