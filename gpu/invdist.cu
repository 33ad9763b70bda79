/* SPDX-License-Identifier: MIT */
/*
 * invdist.cu - invdist over every point on the GPU (algorithms/idw/invdist.c):
 * no index. Point tiles stream through shared memory (single precision on
 * tile-local, cell-scaled coordinates, or double), split over slices of the
 * points so that any tile size fills the GPU, with a fixed-order reduction;
 * the cells that need the exact rule (a hit or a near hit) are redone in
 * double over every point.
 */
#include "families.h"
#include "call.h"
#include "grid.cuh"
#include "job.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>

namespace gk_gpu
{

#define AP_CHUNK 256 /* points per shared-memory tile */
#define SP_CX 4      /* single: cells per thread (one row) */
#define SP_BX 16
#define SP_BY 16
#define DP_CX 2 /* double: cells per thread */
#define DP_BX 16
#define DP_BY 16

struct AllParams {
    Grid g;
    int n, chunk; /* points per slice */
    /* single */
    const float4 *pf;
    float s2f;
    double ox, oy, sc; /* tile origin and 1 / cell size */
    /* double */
    const double *x, *y, *z;
    double s2, half_p;
    int p2;
    double2 *part; /* [slice][cell] (sum w z, sum w) */
    int *flags;    /* cell flags: a point within the hit distance (double) */
};

__device__ __forceinline__ float rcp_approx(float x)
{
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

/* Tile-local, cell-scaled float points: (x - ox) sc, (y - oy) sc, z - zc. */
__global__ void to_local_f32(const double *x, const double *y, const double *z, int n, double ox,
                             double oy, double sc, double zc, float4 *pf)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        pf[i] = make_float4((float)((x[i] - ox) * sc), (float)((y[i] - oy) * sc),
                            (float)(z[i] - zc), 0.0f);
}

/* Single precision over every point, by how a weight is formed: p = 2, one
 * reciprocal a weight (IDW_P2) or one for two weights, 1/a = b/(ab), which
 * halves the special-function unit's work, the binding limit
 * (IDW_P2_PAIRED); any power, w = 2^(-p/2 log2 r2) (IDW_POW), which also
 * flags the cells some point may hit exactly. invdist_all_f64 below walks
 * the same slices and shared-memory tiles: the loops stay written out in
 * each, whose sums, tile types and cells per thread are its own. */
enum { IDW_P2 = 0, IDW_P2_PAIRED = 1, IDW_POW = 2 };
template <int W> __global__ void __launch_bounds__(SP_BX *SP_BY, 4) invdist_all_f32(AllParams P)
{
    __shared__ float4 sp[AP_CHUNK];
    const int tid = threadIdx.y * SP_BX + threadIdx.x;
    const int ci = (blockIdx.x * SP_BX + threadIdx.x) * SP_CX;
    const int cj = blockIdx.y * SP_BY + threadIdx.y;
    const int cjj = cj < P.g.h ? cj : P.g.h - 1;
    float cx[SP_CX];
#pragma unroll
    for (int c = 0; c < SP_CX; c++) {
        int ii = min(ci + c, P.g.w - 1);
        cx[c] = (float)((node_x(P.g.xmin, P.g.cw, P.g.x0 + ii) - P.ox) * P.sc);
    }
    const float cy = (float)((node_x(P.g.ymax, P.g.ch, P.g.y0 + cjj) - P.oy) * P.sc);
    const float s2f = P.s2f, nhp = (float)(-P.half_p);
    double swz[SP_CX], sw[SP_CX];
    float mn = INFINITY;
#pragma unroll
    for (int c = 0; c < SP_CX; c++)
        swz[c] = sw[c] = 0.0;
    const int p_begin = blockIdx.z * P.chunk;
    const int p_end = min(P.n, p_begin + P.chunk);
    for (int base = p_begin; base < p_end; base += AP_CHUNK) {
        __syncthreads();
        if (base + tid < p_end)
            sp[tid] = P.pf[base + tid];
        __syncthreads();
        const int cnt = min(AP_CHUNK, p_end - base);
        float awz[SP_CX], aw[SP_CX];
#pragma unroll
        for (int c = 0; c < SP_CX; c++)
            awz[c] = aw[c] = 0.0f;
#pragma unroll(W == IDW_POW ? 2 : 4)
        for (int q = 0; q < cnt; q++) {
            const float4 p = sp[q];
            const float dy = p.y - cy;
            const float dy2 = fmaf(dy, dy, s2f);
            float r[SP_CX], w[SP_CX];
#pragma unroll
            for (int c = 0; c < SP_CX; c++) {
                const float dx = p.x - cx[c];
                r[c] = fmaf(dx, dx, dy2);
            }
            if (W == IDW_P2_PAIRED) {
#pragma unroll
                for (int c = 0; c < SP_CX; c += 2) {
                    const float inv = rcp_approx(r[c] * r[c + 1]);
                    w[c] = r[c + 1] * inv;
                    w[c + 1] = r[c] * inv;
                }
            } else if (W == IDW_P2) {
#pragma unroll
                for (int c = 0; c < SP_CX; c++)
                    w[c] = rcp_approx(r[c]);
            } else {
#pragma unroll
                for (int c = 0; c < SP_CX; c++) {
                    mn = fminf(mn, r[c]);
                    w[c] = exp2f(nhp * __log2f(r[c]));
                }
            }
#pragma unroll
            for (int c = 0; c < SP_CX; c++) {
                awz[c] = fmaf(w[c], p.z, awz[c]);
                aw[c] += w[c];
            }
        }
#pragma unroll
        for (int c = 0; c < SP_CX; c++) {
            swz[c] += (double)awz[c];
            sw[c] += (double)aw[c];
        }
    }
    if (cj >= P.g.h)
        return;
    const size_t ncell = (size_t)P.g.w * P.g.h;
    /* mn is per thread (its SP_CX cells): flag them all, the fix-up is exact */
    const bool near = W == IDW_POW && !(mn >= 4.0f * (float)(P.g.hit2 * P.sc * P.sc));
#pragma unroll
    for (int c = 0; c < SP_CX; c++)
        if (ci + c < P.g.w) {
            size_t cell = (size_t)cj * P.g.w + ci + c;
            P.part[blockIdx.z * ncell + cell] = make_double2(swz[c], sw[c]);
            if (near)
                atomicOr(&P.flags[cell], 1);
        }
}

/* Double precision, any power; flags cells that some point hits exactly. */
__global__ void __launch_bounds__(DP_BX *DP_BY, 2) invdist_all_f64(AllParams P)
{
    __shared__ double3 sp[AP_CHUNK];
    const int tid = threadIdx.y * DP_BX + threadIdx.x;
    const int ci = (blockIdx.x * DP_BX + threadIdx.x) * DP_CX;
    const int cj = blockIdx.y * DP_BY + threadIdx.y;
    const int cjj = cj < P.g.h ? cj : P.g.h - 1;
    double cx[DP_CX];
#pragma unroll
    for (int c = 0; c < DP_CX; c++)
        cx[c] = node_x(P.g.xmin, P.g.cw, P.g.x0 + min(ci + c, P.g.w - 1));
    const double cy = node_x(P.g.ymax, P.g.ch, P.g.y0 + cjj);
    const double s2 = P.s2, hit2 = P.g.hit2, nhp = -P.half_p;
    double swz[DP_CX], sw[DP_CX];
    bool hit = false;
#pragma unroll
    for (int c = 0; c < DP_CX; c++)
        swz[c] = sw[c] = 0.0;
    const int p_begin = blockIdx.z * P.chunk;
    const int p_end = min(P.n, p_begin + P.chunk);
    for (int base = p_begin; base < p_end; base += AP_CHUNK) {
        __syncthreads();
        if (base + tid < p_end)
            sp[tid] = make_double3(P.x[base + tid], P.y[base + tid], P.z[base + tid]);
        __syncthreads();
        const int cnt = min(AP_CHUNK, p_end - base);
        if (P.p2) {
#pragma unroll 2
            for (int q = 0; q < cnt; q++) {
                const double3 p = sp[q];
                const double dy = p.y - cy;
                const double dy2 = __dadd_rn(__dmul_rn(dy, dy), s2);
#pragma unroll
                for (int c = 0; c < DP_CX; c++) {
                    const double dx = p.x - cx[c];
                    const double r2 = __dadd_rn(__dmul_rn(dx, dx), dy2);
                    hit |= r2 < hit2;
                    const double w = __drcp_rn(r2);
                    swz[c] = fma(w, p.z, swz[c]);
                    sw[c] += w;
                }
            }
        } else {
            for (int q = 0; q < cnt; q++) {
                const double3 p = sp[q];
                const double dy = p.y - cy;
                const double dy2 = __dadd_rn(__dmul_rn(dy, dy), s2);
#pragma unroll
                for (int c = 0; c < DP_CX; c++) {
                    const double dx = p.x - cx[c];
                    const double r2 = __dadd_rn(__dmul_rn(dx, dx), dy2);
                    hit |= r2 < hit2;
                    const double w = pow(r2, nhp);
                    swz[c] = fma(w, p.z, swz[c]);
                    sw[c] += w;
                }
            }
        }
    }
    if (cj >= P.g.h)
        return;
    const size_t ncell = (size_t)P.g.w * P.g.h;
#pragma unroll
    for (int c = 0; c < DP_CX; c++)
        if (ci + c < P.g.w) {
            size_t cell = (size_t)cj * P.g.w + ci + c;
            P.part[blockIdx.z * ncell + cell] = make_double2(swz[c], sw[c]);
            if (hit)
                atomicOr(&P.flags[cell], 1);
        }
}

/* Sums the slices in a fixed order; cells that need the exact rule (a hit or
 * a near hit, or sums that are not finite) go to the fix-up list. */
__global__ void invdist_all_finish(const double2 *part, int slices, size_t ncell, int *flags,
                                   double zc, double hit2s, int single, double nodata, double *out,
                                   int *flag_list, unsigned int *nflag)
{
    size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ncell)
        return;
    double a = 0.0, b = 0.0;
    for (int s = 0; s < slices; s++) {
        double2 v = part[s * ncell + c];
        a += v.x;
        b += v.y;
    }
    bool fix = flags[c] != 0;
    if (single)
        fix = fix || !isfinite(b) || !isfinite(a) || b * hit2s >= 0.25;
    if (fix) {
        unsigned int k = atomicAdd(nflag, 1u);
        flag_list[k] = (int)c;
        return;
    }
    if (b > 0.0 && isfinite(b))
        out[c] = single ? zc + a / b : a / b;
    else
        out[c] = nodata;
}

/* The exact rule at one flagged cell, in double, over every point: the first
 * point in input order within the hit distance, else the full sums. */
__global__ void __launch_bounds__(256)
    invdist_all_fixup(AllParams P, const int *flag_list, const unsigned int *nflag, double nodata,
                      double *out)
{
    if (blockIdx.x >= *nflag)
        return;
    __shared__ double sa[256], sb[256];
    __shared__ int sh[256];
    const int c = flag_list[blockIdx.x];
    const int i = c % P.g.w, j = c / P.g.w;
    const double cx = node_x(P.g.xmin, P.g.cw, P.g.x0 + i);
    const double cy = node_x(P.g.ymax, P.g.ch, P.g.y0 + j);
    const double s2 = P.s2, hit2 = P.g.hit2;
    double a = 0.0, b = 0.0;
    int h = INT_MAX;
    for (int p = threadIdx.x; p < P.n; p += blockDim.x) {
        double dx = __dsub_rn(P.x[p], cx), dy = __dsub_rn(P.y[p], cy);
        if (h == INT_MAX && __dadd_rn(sq2(dx, dy), s2) < hit2)
            h = p;
        double r2 = __dadd_rn(__dmul_rn(dx, dx), __dadd_rn(__dmul_rn(dy, dy), s2));
        double w = P.p2 ? 1.0 / r2 : pow(r2, -P.half_p);
        a += w * P.z[p];
        b += w;
    }
    sa[threadIdx.x] = a;
    sb[threadIdx.x] = b;
    sh[threadIdx.x] = h;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            sa[threadIdx.x] += sa[threadIdx.x + s];
            sb[threadIdx.x] += sb[threadIdx.x + s];
            sh[threadIdx.x] = min(sh[threadIdx.x], sh[threadIdx.x + s]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        double v;
        if (sh[0] != INT_MAX)
            v = P.z[sh[0]];
        else if (sb[0] > 0.0 && isfinite(sb[0]))
            v = sa[0] / sb[0];
        else
            v = nodata;
        out[c] = v;
    }
}

int invdist_all_tile(Job *J, const Grid &G, const gk_gpu_tile *t, char *err, size_t err_cap)
{
    const gk_gpu_job_desc &d = J->d;
    const size_t ncell = (size_t)t->w * t->h;
    const int n = (int)J->n;
    AllParams P{};
    P.g = G;
    P.n = n;
    P.x = J->x;
    P.y = J->y;
    P.z = J->z;
    P.s2 = d.smoothing * d.smoothing;
    P.half_p = 0.5 * d.power;
    P.p2 = d.power == 2.0;
    const bool single = d.single && d.power <= 4.0;
    const char *pair_env = getenv("GRIDKIT_GPU_IDW_PAIRED");
    const bool paired = !(pair_env && pair_env[0] == '0');
    int cx = single ? SP_CX : DP_CX, bx = single ? SP_BX : DP_BX, by = single ? SP_BY : DP_BY;
    dim3 blk(bx, by);
    dim3 grd((t->w + cx * bx - 1) / (cx * bx), (t->h + by - 1) / by, 1);
    /* slices of the points, each summed on its own and then added in order:
     * their number depends on the points only, never on the tile or the
     * GPU, so a node gets the same bits whatever tile it is in (MPI strips,
     * other GPUs); up to 64 slices keep small tiles' blocks many */
    int slices = std::min(std::max(1, n / 4096), 64);
    while (slices > 1 && (size_t)slices * ncell > (64u << 20))
        slices--;
    int chunk = (n + slices - 1) / slices;
    chunk = (chunk + AP_CHUNK - 1) / AP_CHUNK * AP_CHUNK;
    slices = (n + chunk - 1) / chunk;
    grd.z = slices;
    P.chunk = chunk;
    CK_RET(grow(&J->part, &J->part_cap, (size_t)slices * ncell));
    CK_RET(grow(&J->flags, &J->flags_cap, ncell));
    CK_RET(grow(&J->flag_list, &J->flag_list_cap, ncell));
    P.part = J->part;
    P.flags = J->flags;
    CK_RET(cudaMemsetAsync(J->flags, 0, ncell * sizeof(int), J->st));
    CK_RET(cudaMemsetAsync(J->counters, 0, 4 * sizeof(unsigned int), J->st));
    {
        double cw = (t->xmax - t->xmin) / t->nx, chh = (t->ymax - t->ymin) / t->ny;
        double sc = 1.0 / std::min(cw, chh);
        P.sc = sc;
        P.ox = t->xmin + (t->x0 + t->w / 2 + 0.5) * cw;
        P.oy = t->ymax + (t->y0 + t->h / 2 + 0.5) * ((t->ymin - t->ymax) / t->ny);
        P.s2f = (float)(P.s2 * sc * sc);
        if (single) {
            size_t cap = J->pf ? J->n : 0;
            CK_RET(grow(&J->pf, &cap, J->n));
            to_local_f32<<<(n + 255) / 256, 256, 0, J->st>>>(J->x, J->y, J->z, n, P.ox, P.oy, sc,
                                                             J->zc, J->pf);
            CK_RET(cudaGetLastError());
            P.pf = J->pf;
            if (P.p2 && paired)
                invdist_all_f32<IDW_P2_PAIRED><<<grd, blk, 0, J->st>>>(P);
            else if (P.p2)
                invdist_all_f32<IDW_P2><<<grd, blk, 0, J->st>>>(P);
            else
                invdist_all_f32<IDW_POW><<<grd, blk, 0, J->st>>>(P);
        } else {
            invdist_all_f64<<<grd, blk, 0, J->st>>>(P);
        }
        CK_RET(cudaGetLastError());
        double hit2s = G.hit2 * sc * sc;
        invdist_all_finish<<<(unsigned)((ncell + 255) / 256), 256, 0, J->st>>>(
            J->part, slices, ncell, J->flags, J->zc, hit2s, single ? 1 : 0, d.nodata, J->out,
            J->flag_list, J->counters);
        CK_RET(cudaGetLastError());
        /* one block per flagged cell; the kernel reads the count on the GPU */
        unsigned int nflag = 0;
        CK_RET(cudaMemcpyAsync(&nflag, J->counters, sizeof nflag, cudaMemcpyDeviceToHost, J->st));
        CK_RET(cudaStreamSynchronize(J->st));
        if (nflag) {
            invdist_all_fixup<<<nflag, 256, 0, J->st>>>(P, J->flag_list, J->counters, d.nodata,
                                                        J->out);
            CK_RET(cudaGetLastError());
        }
    }
    return 0;
}

} // namespace gk_gpu
