/* SPDX-License-Identifier: MIT */
/*
 * rst_segments.cu - the values of v.surf.rst's segments on the GPU
 * (algorithms/spline/rst_segments.c; the leaves and their systems are the
 * CPU's): a block a run of one leaf's cells, the leaf's window of points in
 * shared memory a slice at a time, a thread a cell summing the points in
 * their order with the CPU's function (spline/rbf_system.h), compiled with
 * -fmad=false (gpu/CMakeLists.txt): the CPU's operations, but for CUDA's exp
 * and log against the C library's.
 * With solve, the leaves' systems first, in batches that fit the device:
 * each built on the device as the CPU builds it (GRASS's layout), bordered
 * by the identity up to the largest leaf's size (a block of its own, which
 * partial pivoting never mixes in), factored and solved by cuBLAS's batched
 * LU; a zero pivot marks its leaf singular (nodata), as a row of zeros does
 * on the CPU.
 */
#include "families.h"
#include "call.h"
#include "krige_global_libs.h"
#include "spline/rbf_system.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace gk_gpu
{

namespace
{

constexpr int TB = 128;    /* cells a block */
constexpr int SLICE = 256; /* points in shared memory at a time */

/* Block b: leaf = the last k with first[k] <= b, its cells from
 * (b - first[k]) * TB. */
__global__ void rst_cells(gk_gpu_rst s, const unsigned int *first)
{
    __shared__ double px[SLICE], py[SLICE], pb[SLICE];
    const unsigned int blk = blockIdx.x;
    int lo = 0, hi = s.nleaf - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (first[mid] <= blk)
            lo = mid;
        else
            hi = mid - 1;
    }
    const int k = lo;
    const int *L = s.leaf + 5 * (size_t)k;
    const int col0 = L[0], row0 = L[1], cols = L[2], rows = L[3], singular = L[4];
    const long cell = (long)(blk - first[k]) * TB + threadIdx.x;
    const bool mine = cell < (long)cols * rows;
    const int i = mine ? (int)(cell % cols) : 0, kk = mine ? (int)(cell / cols) : 0;
    const double stx = s.step[2 * (size_t)k], sty = s.step[2 * (size_t)k + 1];
    /* rst_segments.c's leaf_of: the cell's centre in the leaf's units */
    const double xg = i * stx + stx / 2.0, yg = kk * sty + sty / 2.0;
    const size_t p0 = s.off[k], n = s.off[k + 1] - p0;
    const double *bk = s.b + p0 + k;
    double h = bk[0];
    for (size_t q0 = 0; q0 < n; q0 += SLICE) {
        const int m = n - q0 < (size_t)SLICE ? (int)(n - q0) : SLICE;
        __syncthreads();
        for (int t = threadIdx.x; t < m; t += blockDim.x)
            px[t] = s.xn[p0 + q0 + t], py[t] = s.yn[p0 + q0 + t], pb[t] = bk[1 + q0 + t];
        __syncthreads();
        for (int t = 0; t < m; t++) {
            const double dx = xg - px[t], dy = yg - py[t];
            h += pb[t] * gk_rbf_rst_x(s.fi * s.fi * (dx * dx + dy * dy) / 4);
        }
    }
    if (!mine)
        return;
    const int row = s.ny - 1 - (row0 + kk); /* from the top */
    s.out[(size_t)row * s.nx + col0 + i] = singular ? nan("") : h + s.zmin;
}

/* Leaf k0 + blockIdx.x's system, M x M by columns, and its right-hand side. */
__global__ void rst_systems(gk_gpu_rst s, int k0, int M, double *A, double *B, double **Ap,
                            double **Bp)
{
    const int k = k0 + (int)blockIdx.x;
    const size_t p0 = s.off[k];
    const int n = (int)(s.off[k + 1] - p0), N = n + 1;
    double *a = A + (size_t)blockIdx.x * M * M, *rhs = B + (size_t)blockIdx.x * M;
    if (threadIdx.x == 0)
        Ap[blockIdx.x] = a, Bp[blockIdx.x] = rhs;
    for (size_t e = threadIdx.x; e < (size_t)M * M; e += blockDim.x) {
        const int i = (int)(e % M), j = (int)(e / M);
        a[e] = i >= N || j >= N ? (i == j ? 1.0 : 0.0)
                                : gk_rst_system_entry(i, j, s.xn + p0, s.yn + p0, s.fi, s.smooth);
    }
    for (int i = threadIdx.x; i < M; i += blockDim.x)
        rhs[i] = i < N ? s.b[p0 + k + i] : 0.0;
}

/* The solutions back into b; a zero pivot or a non-finite coefficient makes
 * the leaf singular. */
__global__ void rst_solutions(gk_gpu_rst s, int k0, int M, const double *B, const int *info,
                              int *leaf)
{
    const int k = k0 + (int)blockIdx.x;
    const size_t p0 = s.off[k];
    const int N = (int)(s.off[k + 1] - p0) + 1;
    const double *x = B + (size_t)blockIdx.x * M;
    double *b = const_cast<double *>(s.b) + p0 + k;
    __shared__ int bad;
    if (threadIdx.x == 0)
        bad = info[blockIdx.x] != 0;
    __syncthreads();
    for (int i = threadIdx.x; i < N; i += blockDim.x) {
        b[i] = x[i];
        if (!isfinite(x[i]))
            bad = 1;
    }
    __syncthreads();
    if (threadIdx.x == 0 && bad)
        leaf[5 * (size_t)k + 4] = 1;
}

/* Every leaf's system on the device: 0, or -1 and a reason. */
int solve_leaves(Call &c, gk_gpu_rst &d, int nleaf, char *err, size_t err_cap)
{
    if (load_libs(err, err_cap))
        return -1;
    if (!libs.batched) {
        snprintf(err, err_cap, "rst: this cuBLAS has no batched LU");
        return -1;
    }
    const int M = d.maxn + 1;
    size_t free_b = 0, total_b = 0;
    CK_RET(cudaMemGetInfo(&free_b, &total_b));
    const size_t per = (size_t)M * M * sizeof(double) + (size_t)M * (sizeof(double) + sizeof(int)) +
                       sizeof(int) + 2 * sizeof(double *);
    const size_t budget = std::min<size_t>(free_b / 2, (size_t)8 << 30);
    const int nb = (int)std::max<size_t>(1, std::min<size_t>((size_t)nleaf, budget / per));
    double *A = nullptr, *B = nullptr, **Ap = nullptr, **Bp = nullptr;
    int *piv = nullptr, *info = nullptr;
    Layout lay;
    lay.part(A, (size_t)nb * M * M);
    lay.part(B, (size_t)nb * M);
    lay.part(Ap, (size_t)nb);
    lay.part(Bp, (size_t)nb);
    lay.part(piv, (size_t)nb * M);
    lay.part(info, (size_t)nb);
    void *mem = nullptr;
    CK_RET(cudaMalloc(&mem, lay.bytes()));
    lay.place(mem);
    cublasHandle_t h = nullptr;
    int rc = 0;
    if (libs.bl_create(&h) != CUBLAS_STATUS_SUCCESS || libs.bl_set_stream(h, c.st)) {
        snprintf(err, err_cap, "rst: cuBLAS could not start");
        rc = -1;
    }
    for (int k0 = 0; !rc && k0 < nleaf; k0 += nb) {
        const int m = std::min(nb, nleaf - k0);
        int hinfo = 0;
        rst_systems<<<m, 256, 0, c.st>>>(d, k0, M, A, B, Ap, Bp);
        if (cudaGetLastError() != cudaSuccess ||
            libs.bl_getrf_batched(h, M, Ap, M, piv, info, m) != CUBLAS_STATUS_SUCCESS ||
            libs.bl_getrs_batched(h, CUBLAS_OP_N, M, 1, Ap, M, piv, Bp, M, &hinfo, m) !=
                CUBLAS_STATUS_SUCCESS ||
            hinfo != 0) {
            snprintf(err, err_cap, "rst: the batched LU of %d systems of %d failed", m, M);
            rc = -1;
            break;
        }
        rst_solutions<<<m, 256, 0, c.st>>>(d, k0, M, B, info, const_cast<int *>(d.leaf));
        if (cudaGetLastError() != cudaSuccess) {
            snprintf(err, err_cap, "rst: the systems' solutions could not be read");
            rc = -1;
        }
    }
    if (cudaStreamSynchronize(c.st) != cudaSuccess && !rc) {
        snprintf(err, err_cap, "rst: the leaves' systems failed on the device");
        rc = -1;
    }
    if (h)
        libs.bl_destroy(h);
    cudaFree(mem);
    cudaGetLastError();
    return rc;
}

} // namespace

int api_rst_sums(int dev, gk_gpu_rst *s, char *err, size_t err_cap)
{
    s->kernel_ms = 0;
    if (s->nleaf < 1 || s->nx < 1 || s->ny < 1) {
        snprintf(err, err_cap, "rst: no segment");
        return -1;
    }
    /* each leaf's first block */
    std::vector<unsigned int> first((size_t)s->nleaf);
    unsigned long long blocks = 0;
    for (int k = 0; k < s->nleaf; k++) {
        first[(size_t)k] = (unsigned int)blocks;
        const long long cells = (long long)s->leaf[5 * (size_t)k + 2] * s->leaf[5 * (size_t)k + 3];
        blocks += (unsigned long long)((cells + TB - 1) / TB);
    }
    if (blocks == 0 || blocks > 0x7fffffffULL) {
        snprintf(err, err_cap, "rst: %llu blocks of cells", blocks);
        return -1;
    }
    const size_t N = (size_t)s->nx * s->ny, np = s->off[s->nleaf], nl = (size_t)s->nleaf;
    Call c;
    CK_RET(c.open(dev));
    cudaStream_t st = c.st;
    gk_gpu_rst d = *s;
    int *dleaf = nullptr;
    unsigned int *dfirst = nullptr;
    size_t *doff = nullptr;
    double *dstep = nullptr, *dxn = nullptr, *dyn = nullptr, *db = nullptr, *dout = nullptr;
    c.part(dleaf, 5 * nl);
    c.part(dfirst, nl);
    c.part(doff, nl + 1);
    c.part(dstep, 2 * nl);
    c.part(dxn, np ? np : 1);
    c.part(dyn, np ? np : 1);
    c.part(db, np + nl);
    c.part(dout, N);
    CK_RET(c.carve());
    CK_RET(cudaMemcpyAsync(dleaf, s->leaf, 5 * nl * sizeof(int), cudaMemcpyHostToDevice, st));
    CK_RET(cudaMemcpyAsync(dfirst, first.data(), nl * sizeof(unsigned int), cudaMemcpyHostToDevice,
                           st));
    CK_RET(cudaMemcpyAsync(doff, s->off, (nl + 1) * sizeof(size_t), cudaMemcpyHostToDevice, st));
    CK_RET(cudaMemcpyAsync(dstep, s->step, 2 * nl * sizeof(double), cudaMemcpyHostToDevice, st));
    if (np) {
        CK_RET(cudaMemcpyAsync(dxn, s->xn, np * sizeof(double), cudaMemcpyHostToDevice, st));
        CK_RET(cudaMemcpyAsync(dyn, s->yn, np * sizeof(double), cudaMemcpyHostToDevice, st));
    }
    CK_RET(cudaMemcpyAsync(db, s->b, (np + nl) * sizeof(double), cudaMemcpyHostToDevice, st));
    d.leaf = dleaf, d.off = doff, d.step = dstep, d.xn = dxn, d.yn = dyn, d.b = db, d.out = dout;
    CK_RET(cudaEventRecord(c.e0, st));
    if (s->solve && solve_leaves(c, d, s->nleaf, err, err_cap))
        return -1;
    rst_cells<<<(unsigned int)blocks, TB, 0, st>>>(d, dfirst);
    CK_RET(cudaGetLastError());
    CK_RET(cudaEventRecord(c.e1, st));
    CK_RET(cudaMemcpyAsync(s->out, dout, N * sizeof(double), cudaMemcpyDeviceToHost, st));
    CK_RET(cudaStreamSynchronize(st));
    float ms = 0.0f;
    CK_RET(c.elapsed(&ms));
    s->kernel_ms = ms;
    return 0;
}

} // namespace gk_gpu
