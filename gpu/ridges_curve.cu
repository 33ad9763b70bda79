/* SPDX-License-Identifier: MIT */
/*
 * ridges_curve.cu - `curve`'s evolve on the GPU (algorithms/ridges/curve.c):
 * Jacobi steps until a step moves no representative, with the arithmetic of
 * algorithms/ridges/curve_step.h, so that the bits are the CPU's.
 *
 * The samples come renumbered (curve_evolve.c sorts them by cell), so a
 * representative's samples lie close together. A step is a few small
 * kernels:
 *   bin      representatives into a grid of cells of side >= r1, sorted by
 *            cell (radix sort, stable);
 *   assign   one thread per sample: the nearest representative within r1
 *            over the 3^dim cells around it (ties to the lower index: the
 *            order is total, so the order cells are visited in is free);
 *   sort     samples by owner (radix sort over the bits of m only), stable,
 *            so each owner's samples are in increasing index;
 *   chunks   each owner's samples cut into chunks of GK_CS_CHUNK (the
 *            counts scanned into chunk offsets), one thread per chunk sums
 *            its samples in order;
 *   move     one thread per representative sums its chunks in order and
 *            moves (gk_cs_move); a flag says whether any moved;
 *   end      one thread: counts the step, and when nothing moved sets done.
 * Every kernel of a step returns at once when done is set, so the host
 * queues several steps between reads of done and the positions stay those
 * of the first step that moved nothing, as on the CPU (stopping one step
 * late would change the result: a step that moves nothing still rounds).
 * Only the radix sorts and the scan still run after done, on unchanged
 * data. No float atomics anywhere. Compiled with -fmad=false
 * (gpu/CMakeLists.txt).
 */
#include "families.h"
#include "call.h"
#include "ridges/curve_step.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
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
    int n[3]; /* cells per axis */
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

/* The step's flags on the device: moved (this step), done, steps taken. */
enum { F_MOVED = 0, F_DONE = 1, F_ITERS = 2, F_N = 3 };

__global__ void rep_cells(CellGrid g, const double *s, unsigned int m, unsigned int *key,
                          unsigned int *idx, const int *flags)
{
    unsigned int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m && !flags[F_DONE]) {
        key[j] = cell_of(g, s + (size_t)j * g.dim);
        idx[j] = j;
    }
}

/* start[c] = first position of cell c in the sorted keys (cells + 1 entries). */
__global__ void cell_starts(const unsigned int *key, unsigned int m, unsigned int cells,
                            unsigned int *start, const int *flags)
{
    unsigned int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c > cells || flags[F_DONE])
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

/* The best starts as (r1^2, none = m): above every (d2 <= r1^2, j), below
 * every d2 > r1^2 (NaN compares false): gk_cs_before's rule within r1. */
__global__ void assign(CellGrid g, const double *p, size_t n, const double *s,
                       const unsigned int *start, const unsigned int *rep, double r2,
                       unsigned int m, unsigned int *owner, unsigned int *order, const int *flags)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || flags[F_DONE])
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
    double bd2 = r2;
    unsigned int bj = m; /* none */
    for (int cz = lo[2]; cz <= hi[2]; cz++)
        for (int cy = lo[1]; cy <= hi[1]; cy++) {
            /* a row of cells is one span of the sorted representatives */
            unsigned int row =
                (unsigned int)g.n[0] * ((unsigned int)cy + (unsigned int)g.n[1] * (unsigned int)cz);
            unsigned int t1 = start[row + (unsigned int)hi[0] + 1];
            for (unsigned int t = start[row + (unsigned int)lo[0]]; t < t1; t++) {
                unsigned int j = rep[t];
                double d2 = gk_cs_d2(q, s + (size_t)j * dim, dim);
                bool take = gk_cs_before(d2, j, bd2, bj);
                bd2 = take ? d2 : bd2;
                bj = take ? j : bj;
            }
        }
    owner[i] = bj;
    order[i] = (unsigned int)i;
}

/* first[j] = the first sorted position of owner j (j <= m: first[m] is the
 * owned samples' count); nch[j] = its chunks (nch[m] = 0). */
__global__ void owner_starts(const unsigned int *owner_sorted, size_t n, unsigned int m,
                             unsigned int *first, unsigned int *nch, const int *flags)
{
    unsigned int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j > m || flags[F_DONE])
        return;
    size_t b[2];
    for (int u = 0; u < 2; u++) {
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (owner_sorted[mid] < j + u)
                lo = mid + 1;
            else
                hi = mid;
        }
        b[u] = lo;
    }
    first[j] = (unsigned int)b[0];
    nch[j] = j < m ? (unsigned int)((b[1] - b[0] + GK_CS_CHUNK - 1) / GK_CS_CHUNK) : 0u;
}

/* One thread per chunk: chunk g of owner j (cfirst[j] <= g < cfirst[j+1])
 * is sorted positions first[j] + (g - cfirst[j]) C .. , at most C of them,
 * summed in order (curve_step.h). */
__global__ void chunk_sums(int dim, const double *p, const unsigned int *order,
                           const unsigned int *first, const unsigned int *cfirst, unsigned int m,
                           size_t maxch, double *part, const int *flags)
{
    size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= maxch || flags[F_DONE] || g >= cfirst[m])
        return;
    unsigned int lo = 0, hi = m; /* the last j with cfirst[j] <= g */
    while (hi - lo > 1) {
        unsigned int mid = lo + (hi - lo) / 2;
        if (cfirst[mid] <= g)
            lo = mid;
        else
            hi = mid;
    }
    const unsigned int j = lo;
    const size_t a = first[j] + (g - cfirst[j]) * (size_t)GK_CS_CHUNK;
    const size_t e = min(a + (size_t)GK_CS_CHUNK, (size_t)first[j + 1]);
    double acc[3] = {0.0, 0.0, 0.0};
#pragma unroll 8
    for (size_t t = a; t < e; t++)
        gk_cs_chunk_add(acc, p + (size_t)order[t] * dim, dim);
    for (int k = 0; k < dim; k++)
        part[g * dim + k] = acc[k];
}

__global__ void move(int dim, const unsigned int *first, const unsigned int *cfirst,
                     const double *part, unsigned int m, double *s, int *flags)
{
    unsigned int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m || flags[F_DONE])
        return;
    double sum[3] = {0.0, 0.0, 0.0};
#pragma unroll 4
    for (unsigned int g = cfirst[j]; g < cfirst[j + 1]; g++)
        gk_cs_chunk_add(sum, part + (size_t)g * dim, dim);
    if (gk_cs_move(s + (size_t)j * dim, sum, first[j + 1] - first[j], dim))
        flags[F_MOVED] = 1; /* an int flag, not a float: any writer gives the same answer */
}

__global__ void step_end(int *flags)
{
    if (flags[F_DONE])
        return;
    flags[F_ITERS]++;
    if (!flags[F_MOVED])
        flags[F_DONE] = 1;
    flags[F_MOVED] = 0;
}

/* Bits that hold 0 .. x. */
int bits_for(unsigned int x)
{
    int b = 1;
    while (b < 32 && (x >> b) != 0)
        b++;
    return b;
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
    const size_t maxch = n / GK_CS_CHUNK + (size_t)m + 1; /* at most one short chunk per owner */
    e->iters = 0;
    e->converged = 0;
    if (n == 0 || m == 0 || n > 0xFFFFFFF0u || e->m > 0xFFFFFFF0u || (dim != 2 && dim != 3)) {
        snprintf(err, err_cap,
                 "curve: %zu samples, %zu representatives, %d dimensions: "
                 "outside what the GPU kernel takes",
                 n, e->m, dim);
        return -1;
    }
    const CellGrid g = make_grid(e->p, n, dim, e->r1);
    const double r2 = e->r1 * e->r1;
    const unsigned int tb = 256;
    const int cell_bits = bits_for(g.cells - 1), owner_bits = bits_for(m);
    Call c;
    CK_RET(c.open(dev));
    cudaStream_t st = c.st;
    double *dp = nullptr, *ds = nullptr, *part = nullptr;
    unsigned int *rkey = nullptr, *ridx = nullptr, *cstart = nullptr, *owner = nullptr,
                 *order = nullptr, *first = nullptr, *nch = nullptr, *cfirst = nullptr;
    int *dflags = nullptr, *hflags = nullptr;
    unsigned char *tmp = nullptr;
    size_t tb1 = 0, tb2 = 0, tb3 = 0;
    /* the sorts' and the scan's scratch first (a size query reads no memory) */
    CK_RET(cub::DeviceRadixSort::SortPairs(nullptr, tb1, rkey, rkey + m, ridx, ridx + m, (int)m, 0,
                                           cell_bits, st));
    CK_RET(cub::DeviceRadixSort::SortPairs(nullptr, tb2, owner, owner + n, order, order + n, (int)n,
                                           0, owner_bits, st));
    CK_RET(cub::DeviceScan::ExclusiveSum(nullptr, tb3, nch, cfirst, (int)m + 1, st));
    const size_t tmpb = std::max(tb1, std::max(tb2, tb3));
    c.part(dp, n * dim);
    c.part(ds, (size_t)m * dim);
    c.part(part, maxch * dim);
    c.part(rkey, 2 * (size_t)m);
    c.part(ridx, 2 * (size_t)m);
    c.part(cstart, (size_t)g.cells + 1);
    c.part(owner, 2 * n);
    c.part(order, 2 * n);
    c.part(first, (size_t)m + 1);
    c.part(nch, (size_t)m + 1);
    c.part(cfirst, (size_t)m + 1);
    c.part(dflags, F_N);
    c.part(tmp, tmpb);
    CK_RET(c.carve());
    CK_RET(c.host(hflags, F_N));
    for (int u = 0; u < F_N; u++) /* max_iter <= 0: no step, not converged */
        hflags[u] = 0;
    CK_RET(cudaMemcpyAsync(dp, e->p, n * dim * sizeof(double), cudaMemcpyHostToDevice, st));
    CK_RET(cudaMemcpyAsync(ds, e->s, (size_t)m * dim * sizeof(double), cudaMemcpyHostToDevice, st));
    CK_RET(cudaMemsetAsync(dflags, 0, F_N * sizeof(int), st));
    CK_RET(cudaEventRecord(c.e0, st));
    const unsigned int gm = (m + tb - 1) / tb, gm1 = (m + 1 + tb - 1) / tb,
                       gc = (g.cells + 1 + tb - 1) / tb;
    const unsigned int gn = (unsigned int)((n + tb - 1) / tb);
    const unsigned int gch = (unsigned int)((maxch + tb - 1) / tb);
    /* Steps are queued in batches; done is read after each. A batch past
     * convergence costs only its sorts and scans. */
    for (int queued = 0; queued < e->max_iter;) {
        int batch = std::min(e->max_iter - queued, queued < 32 ? 8 : 32);
        for (int u = 0; u < batch; u++) {
            size_t b = tmpb;
            rep_cells<<<gm, tb, 0, st>>>(g, ds, m, rkey, ridx, dflags);
            CK_RET(cub::DeviceRadixSort::SortPairs(tmp, b, rkey, rkey + m, ridx, ridx + m, (int)m,
                                                   0, cell_bits, st));
            cell_starts<<<gc, tb, 0, st>>>(rkey + m, m, g.cells, cstart, dflags);
            assign<<<gn, tb, 0, st>>>(g, dp, n, ds, cstart, ridx + m, r2, m, owner, order, dflags);
            b = tmpb;
            CK_RET(cub::DeviceRadixSort::SortPairs(tmp, b, owner, owner + n, order, order + n,
                                                   (int)n, 0, owner_bits, st));
            owner_starts<<<gm1, tb, 0, st>>>(owner + n, n, m, first, nch, dflags);
            b = tmpb;
            CK_RET(cub::DeviceScan::ExclusiveSum(tmp, b, nch, cfirst, (int)m + 1, st));
            chunk_sums<<<gch, tb, 0, st>>>(dim, dp, order + n, first, cfirst, m, maxch, part,
                                           dflags);
            move<<<gm, tb, 0, st>>>(dim, first, cfirst, part, m, ds, dflags);
            step_end<<<1, 1, 0, st>>>(dflags);
            CK_RET(cudaGetLastError());
        }
        queued += batch;
        CK_RET(cudaMemcpyAsync(hflags, dflags, F_N * sizeof(int), cudaMemcpyDeviceToHost, st));
        CK_RET(cudaStreamSynchronize(st));
        if (hflags[F_DONE])
            break;
    }
    e->iters = hflags[F_ITERS];
    e->converged = hflags[F_DONE];
    CK_RET(cudaEventRecord(c.e1, st));
    CK_RET(cudaMemcpyAsync(e->s, ds, (size_t)m * dim * sizeof(double), cudaMemcpyDeviceToHost, st));
    CK_RET(cudaStreamSynchronize(st));
    float ms = 0.0f;
    CK_RET(c.elapsed(&ms));
    e->kernel_ms = ms;
    return 0;
}

} // namespace gk_gpu
