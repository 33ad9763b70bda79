/* SPDX-License-Identifier: MIT */
/*
 * idw.cu - the IDW family's local kernels on the GPU: invdistnn (and invdist
 * with a window) over the k nearest (algorithms/idw/invdistnn.c), nearest
 * (algorithms/idw/nearest.c) and aidw, adaptive IDW (algorithms/idw/aidw.c).
 * One thread per node, or a warp in lockstep over its patch of nodes; k
 * above 64 keeps its lists in shared memory (knn_list.cuh). Every rule (ties
 * by input order, exact hits, min_points, nodata) is the CPU's, and where the
 * CPU sums in an order the GPU can follow (sorted neighbours) it follows it.
 * IDW over every point of the window (max_points = 0) is window.cu's
 * gather_kernel; invdist over every point, invdist.cu.
 */
#include "families.h"
#include "call.h"
#include "job.h"
#include "kbest.cuh"
#include "knn_list.cuh"
#include "local.cuh"

#include <cuda_runtime.h>

#include <climits>
#include <cmath>
#include <cstdio>

namespace gk_gpu
{

/* ---- IDW over the k nearest in the window (invdistnn, invdist with an ellipse) --- */

/* IDW over the k nearest (knn_search's lists), or the exact hit's value;
 * nodata below min_points. */
template <int K>
__device__ __forceinline__ double knn_idw_value(const LocalParams &P, const double (&D)[K],
                                                const int (&I)[K], int count, int hit)
{
    if (hit != INT_MAX)
        return P.zin[hit];
    const int m = count < P.k ? count : P.k, koff = K - P.k;
    if (m == 0 || m < P.min_points)
        return P.nodata;
    double num = 0.0, den = 0.0;
#pragma unroll
    for (int q = 0; q < K; q++) {
        if (q >= koff && q - koff < m) {
            const double wgt = idw_weight(D[q] + P.s2, P.power);
            num += wgt * P.zin[I[q]];
            den += wgt;
        }
    }
    return den != 0.0 ? num / den : P.nodata;
}

template <int K, int MINB>
__global__ void __launch_bounds__(128, MINB) knn_idw_kernel(LocalParams P)
{
    int i, j;
    double nx, ny;
    if (!thread_node(P.g, i, j, nx, ny))
        return;
    double D[K];
    int I[K], hit;
    const int count = knn_search<K, false>(P.B, P.w, nx, ny, P.k, P.s2, P.g.hit2, D, I, hit);
    P.out[(size_t)j * P.g.w + i] = knn_idw_value(P, D, I, count, hit);
}

/* The same rule with a warp in lockstep over the candidates of its 8 x 4
 * nodes: one ring search around the bins of the patch, every lane reading the
 * same point (a broadcast) and keeping its own k-list, until every lane's stop
 * rule holds. No divergence in the loops; a few more candidates per node. */
template <int K, int MINB>
__global__ void __launch_bounds__(128, MINB) knn_idw_warp_kernel(LocalParams P)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int i = blockIdx.x * 8 + (lane & 7), j = blockIdx.y * 16 + warp * 4 + (lane >> 3);
    const bool valid = i < P.g.w && j < P.g.h;
    const double nx = node_x(P.g.xmin, P.g.cw, P.g.x0 + min(i, P.g.w - 1));
    const double ny = node_x(P.g.ymax, P.g.ch, P.g.y0 + min(j, P.g.h - 1));
    double D[K];
    int I[K], hit;
    const int count = knn_search<K, true>(P.B, P.w, nx, ny, P.k, P.s2, P.g.hit2, D, I, hit);
    if (!valid)
        return;
    P.out[(size_t)j * P.g.w + i] = knn_idw_value(P, D, I, count, hit);
}

/* ---- nearest: smallest distance in the window, ties to the last in input order - */

__global__ void __launch_bounds__(128) nearest_kernel(LocalParams P)
{
    int i, j;
    double nx, ny;
    if (!thread_node(P.g, i, j, nx, ny))
        return;
    const Bins &B = P.B;
    double bd = INFINITY;
    int bi = -1;
    ring_search(
        B, P.w, nx, ny,
        [&](int p, double, double, double d2) {
            const int id = B.idx[p];
            if (d2 < bd || (d2 == bd && id > bi)) {
                bd = d2;
                bi = id;
            }
        },
        [&](double b) { return bi >= 0 && b * b > bd; });
    P.out[(size_t)j * P.g.w + i] = bi >= 0 ? P.zin[bi] : P.nodata;
}

/* IDW over the k = P.k nearest of the window (knn_idw_value's rule); with
 * aidw, each node's power is in P.out (NaN: none, nodata). */
__global__ void __launch_bounds__(128) kl_idw_kernel(LocalParams P, int aidw)
{
    extern __shared__ __align__(16) unsigned char kl_smem[];
    const int lane = threadIdx.x & 31;
    KList L = kl_bind(kl_warp_base(P, kl_smem, kl_warp_bytes(P.k)), P.k);
    KL_FOR_NODES(P, n)
    {
        double nx, ny;
        kl_node_xy(P, n, 0, nx, ny);
        const double power = aidw ? P.out[n] : P.power;
        int hit;
        const int count = kl_search(P.B, P.w, nx, ny, L, P.s2, P.g.hit2, hit);
        double v = P.nodata;
        const int m = min(count, P.k);
        if (aidw && !(power == power)) {
            /* no power: nodata, as the CPU */
        } else if (hit != INT_MAX) {
            v = P.zin[hit];
        } else if (m > 0 && m >= P.min_points) {
            double num = 0.0, den = 0.0;
            for (int q = lane; q < L.m; q += 32) {
                const double wgt = idw_weight(__dadd_rn(L.D[q], P.s2), power);
                num += wgt * P.zin[L.I[q]];
                den += wgt;
            }
            num = warp_sum(num);
            den = warp_sum(den);
            if (den != 0.0)
                v = num / den;
        }
        __syncwarp();
        if (lane == 0)
            P.out[n] = v;
    }
}

/* ---- aidw ---------------------------------------------------------------------- */

/* gk_aidw_mu then gk_aidw_alpha, rounded as the CPU's (no contraction). */
__device__ __forceinline__ double aidw_alpha(const ExtraParams &E, double R)
{
    double mu;
    if (!(R > E.rmin)) /* also NaN */
        mu = 0.0;
    else if (R >= E.rmax)
        mu = 1.0;
    else
        mu = __dsub_rn(0.5, __dmul_rn(0.5, cos(__dmul_rn(3.14159265358979323846, /* M_PI */
                                                         __dsub_rn(R, E.rmin)) /
                                               __dsub_rn(E.rmax, E.rmin))));
    if (!(mu > 0.1))
        return E.alpha[0];
    if (mu >= 0.9)
        return E.alpha[4];
    const double u = __dsub_rn(mu, 0.1) / 0.2; /* in (0, 4) */
    int seg = (int)u;
    if (seg > 3)
        seg = 3;
    const double f = __dsub_rn(u, (double)seg);
    double lo = E.alpha[0], hi = E.alpha[1];
#pragma unroll
    for (int s = 1; s < 4; s++)
        if (seg == s) {
            lo = E.alpha[s];
            hi = E.alpha[s + 1];
        }
    return __dadd_rn(__dmul_rn(lo, __dsub_rn(1.0, f)), __dmul_rn(hi, f));
}

/* The power from the sum of the got nearest distances (NaN when none). */
__device__ __forceinline__ double aidw_power(const ExtraParams &E, double sum, int got)
{
    if (got <= 0)
        return NAN;
    const double r_obs = sum / got;
    double R;
    if (E.r_exp > 0.0)
        R = r_obs / E.r_exp;
    else
        R = r_obs > 0.0 ? INFINITY : 0.0;
    return aidw_alpha(E, R);
}

/* Phase 1: the power at each node from its aidw_k nearest points (no window),
 * written to P.out for phase 2 to read (and overwrite); NaN when none. */
template <int K>
__global__ void __launch_bounds__(128, K <= 16 ? 4 : 1)
    aidw_alpha_kernel(LocalParams P, ExtraParams E)
{
    int i, j;
    double nx, ny;
    if (!thread_node(P.g, i, j, nx, ny))
        return;
    Win all{};
    all.kind = GK_GPU_WIN_ALL;
    all.rout = INFINITY;
    double D[K];
    int I[K], hit;
    const int k = E.aidw_k;
    const int got = min(knn_search<K, false>(P.B, all, nx, ny, k, 0.0, 0.0, D, I, hit), k);
    double sum = 0.0; /* ascending, as the CPU's sorted answer */
#pragma unroll
    for (int q = 0; q < K; q++)
        if (q >= K - k && q < K - k + got)
            sum = __dadd_rn(sum, sqrt(D[q]));
    P.out[(size_t)j * P.g.w + i] = aidw_power(E, sum, got);
}

/* Phase 1 for k above 64: aidw_alpha_kernel's rule over a warp's list
 * (knn_list.cuh), the mean distance summed in ascending order. */
__global__ void __launch_bounds__(128) kl_aidw_alpha_kernel(LocalParams P, ExtraParams E)
{
    extern __shared__ __align__(16) unsigned char kl_smem[];
    const int lane = threadIdx.x & 31;
    KList L = kl_bind(kl_warp_base(P, kl_smem, kl_warp_bytes(E.aidw_k)), E.aidw_k);
    Win all{};
    all.kind = GK_GPU_WIN_ALL;
    all.rout = INFINITY;
    KL_FOR_NODES(P, n)
    {
        double nx, ny;
        kl_node_xy(P, n, 0, nx, ny);
        int hit;
        kl_search(P.B, all, nx, ny, L, 0.0, 0.0, hit);
        if (lane == 0) {
            const int got = L.m;
            double sum = 0.0;
            for (int q = 0; q < got; q++)
                sum = __dadd_rn(sum, sqrt(L.D[q]));
            P.out[n] = aidw_power(E, sum, got);
        }
        __syncwarp();
    }
}

/* Phase 2, no window: every point in input order, the first exact hit wins;
 * summed in the CPU's order and rounding (no contraction). */
__global__ void __launch_bounds__(128) aidw_all_kernel(LocalParams P, ExtraParams E)
{
    int i, j;
    double nx, ny;
    if (!thread_node(P.g, i, j, nx, ny))
        return;
    const size_t cell = (size_t)j * P.g.w + i;
    const double alpha = P.out[cell], e = -0.5 * alpha, s2 = P.s2, hit2 = P.g.hit2;
    const bool p2 = alpha == 2.0;
    double v = P.nodata, num = 0.0, den = 0.0;
    bool hit = false;
    if (alpha == alpha) {
        for (int p = 0; p < E.n; p++) {
            const double dx = __dsub_rn(E.x[p], nx), dy = __dsub_rn(E.y[p], ny);
            const double r2 = __dadd_rn(sq2(dx, dy), s2);
            if (r2 < hit2) {
                v = P.zin[p];
                hit = true;
                break;
            }
            const double w = p2 ? 1.0 / r2 : pow(r2, e);
            num = __dadd_rn(num, __dmul_rn(w, P.zin[p]));
            den = __dadd_rn(den, w);
        }
        if (!hit && den != 0.0)
            v = num / den;
    }
    P.out[cell] = v;
}

/* Phase 2 in a window with max_points: IDW over the k nearest (exact hit
 * first, min_points), summed in the sorted order as gk_idw_sum. */
template <int K>
__global__ void __launch_bounds__(128, K <= 16 ? 4 : 1) aidw_knn_kernel(LocalParams P)
{
    int i, j;
    double nx, ny;
    if (!thread_node(P.g, i, j, nx, ny))
        return;
    const size_t cell = (size_t)j * P.g.w + i;
    const double alpha = P.out[cell], s2 = P.s2;
    double D[K];
    int I[K], hit;
    const int k = P.k;
    const int count = knn_search<K, false>(P.B, P.w, nx, ny, k, s2, P.g.hit2, D, I, hit);
    double v = P.nodata;
    if (!(alpha == alpha)) {
        /* no power: nodata, as the CPU */
    } else if (hit != INT_MAX) {
        v = P.zin[hit];
    } else {
        const int m = count < k ? count : k;
        if (m > 0 && m >= P.min_points) {
            double num = 0.0, den = 0.0;
#pragma unroll
            for (int q = 0; q < K; q++) {
                if (q >= K - k && q < K - k + m) {
                    const double wgt = idw_weight(__dadd_rn(D[q], s2), alpha);
                    num = __dadd_rn(num, __dmul_rn(wgt, P.zin[I[q]]));
                    den = __dadd_rn(den, wgt);
                }
            }
            if (den != 0.0)
                v = num / den;
        }
    }
    P.out[cell] = v;
}

/* ---- launches ------------------------------------------------------------- */

template <int K> static void launch_knn(dim3 g, dim3 b, cudaStream_t st, const LocalParams &P)
{
    /* K <= 16: registers capped for 6 (warp kernel; 80 registers, no spills)
     * or 4 blocks of 128 per SM; GRIDKIT_GPU_KNN_MINB=2 tries 2 */
    const bool two = env_int("GRIDKIT_GPU_KNN_MINB", 0) == 2;
    /* the warp-lockstep kernel by default (14 ms against 18.5 for a thread per
     * node, k = 16, 4096^2, 1 M points, H100, before the sentinel lists) */
    if (env_int("GRIDKIT_GPU_KNN_WARP", 1)) {
        dim3 wg((P.g.w + 7) / 8, (P.g.h + 15) / 16);
        if (K <= 16 && !two)
            knn_idw_warp_kernel<K, (K <= 16 ? 6 : 1)><<<wg, 128, 0, st>>>(P);
        else
            knn_idw_warp_kernel<K, (K <= 16 ? 2 : 1)><<<wg, 128, 0, st>>>(P);
        return;
    }
    if (K <= 16 && !two)
        knn_idw_kernel<K, (K <= 16 ? 4 : 1)><<<g, b, 0, st>>>(P);
    else
        knn_idw_kernel<K, (K <= 16 ? 2 : 1)><<<g, b, 0, st>>>(P);
}

template <int K>
static void launch_aidw_alpha(dim3 g, dim3 b, cudaStream_t st, const LocalParams &P,
                              const ExtraParams &E)
{
    aidw_alpha_kernel<K><<<g, b, 0, st>>>(P, E);
}

/* invdistnn's kernels for k = max_points (> 0): registers up to 64, then a
 * warp's list in shared memory. */
cudaError_t idw_knn_launch(Job *J, const LocalParams &P, dim3 g, dim3 b, size_t nodes)
{
    const int k = J->d.max_points;
    if (k > 64)
        return kl_launch(kl_idw_kernel, J, k, nodes, P, 0);
    for_k<2, 4, 8, 12, 16, 24, 32, 48, 64>(
        k, [&](auto K) { launch_knn<decltype(K)::value>(g, b, J->st, P); });
    return cudaSuccess;
}

void nearest_launch(dim3 g, dim3 b, cudaStream_t st, const LocalParams &P)
{
    nearest_kernel<<<g, b, 0, st>>>(P);
}

/* aidw: each node's power from its aidw_k nearest (the power into P.out),
 * then IDW with it over the window's points or their max_points nearest. */
int aidw_tile(Job *J, const LocalParams &P, const ExtraParams &E, dim3 g, dim3 b,
              const gk_gpu_tile *t, char *err, size_t err_cap)
{
    const gk_gpu_job_desc &d = J->d;
    const cudaStream_t st = J->st;
    const int ka = d.p.aidw.k, k = d.max_points;
    if (ka < 1 || ka > GK_GPU_MAX_LIST_K || (d.window != GK_GPU_WIN_ALL && k > GK_GPU_MAX_LIST_K)) {
        snprintf(err, err_cap, "aidw: k %d, max_points %d: no GPU kernel", ka, k);
        return -1;
    }
    if (ka > 64)
        CK_RET(kl_launch(kl_aidw_alpha_kernel, J, ka, (size_t)t->w * t->h, P, E));
    else
        for_k<2, 4, 8, 16, 32, 64>(
            ka, [&](auto K) { launch_aidw_alpha<decltype(K)::value>(g, b, st, P, E); });
    CK_RET(cudaGetLastError());
    if (d.window == GK_GPU_WIN_ALL)
        aidw_all_kernel<<<g, b, 0, st>>>(P, E);
    else if (k == 0)
        quad_all_launch(g, b, st, P, E); /* every point of the window */
    else if (k > 64)
        CK_RET(kl_launch(kl_idw_kernel, J, k, (size_t)t->w * t->h, P, 1));
    else
        for_k<4, 8, 16, 32, 64>(
            k, [&](auto K) { aidw_knn_kernel<decltype(K)::value><<<g, b, 0, st>>>(P); });
    return 0;
}

} // namespace gk_gpu
