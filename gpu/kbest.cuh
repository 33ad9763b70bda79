/* SPDX-License-Identifier: MIT */
/*
 * kbest.cuh - the k nearest in registers (k <= 64): a sorted k-best list
 * with sentinels, and knn_search, the k nearest of a window with the first
 * exact hit (gdal_grid's rules: ties by input order). knn_list.cuh takes
 * larger k.
 */
#ifndef GK_GPU_KBEST_CUH
#define GK_GPU_KBEST_CUH

#include "bins.cuh"

#include <cuda_runtime.h>

#include <climits>

namespace gk_gpu
{

__device__ __forceinline__ bool before(double da, int ia, double db, int ib)
{
    return da < db || (da == db && ia < ib);
}

/* Offers the candidate (d2, id) to a k-best list kept sorted by (d2, id):
 * an insertion with compile-time indices only, so D and I stay in registers. */
template <int K>
__device__ __forceinline__ void kbest_offer(double (&D)[K], int (&I)[K], double d2, int id)
{
    if (!before(d2, id, D[K - 1], I[K - 1]))
        return;
#pragma unroll
    for (int t = K - 1; t > 0; --t) {
        if (before(d2, id, D[t - 1], I[t - 1])) {
            D[t] = D[t - 1];
            I[t] = I[t - 1];
        } else if (before(d2, id, D[t], I[t])) {
            D[t] = d2;
            I[t] = id;
        }
    }
    if (before(d2, id, D[0], I[0])) {
        D[0] = d2;
        I[0] = id;
    }
}

/* Sentinels in front of a k-best list (k <= K): no candidate passes them, so
 * the k-th nearest is always D[K-1] (a run-time index would move the lists
 * out of registers) and the k found are D/I[K-k .. K). */
template <int K> __device__ __forceinline__ void kbest_init(double (&D)[K], int (&I)[K], int k)
{
#pragma unroll
    for (int q = 0; q < K; q++) {
        D[q] = q < K - k ? -INFINITY : INFINITY;
        I[q] = q < K - k ? -1 : INT_MAX;
    }
}

/* The k nearest of window w around (nx, ny) in D/I (kbest_init's layout) and
 * the first exact hit (smallest index with d2 + s2 < hit2; none when hit2 <=
 * 0); returns the window's point count as far as searched. With WARP, the
 * lanes of a warp search in lockstep (every lane must call it). */
template <int K, bool WARP>
__device__ __forceinline__ int knn_search(const Bins &B, const Win &w, double nx, double ny, int k,
                                          double s2, double hit2, double (&D)[K], int (&I)[K],
                                          int &hit)
{
    kbest_init(D, I, k);
    int count = 0;
    hit = INT_MAX;
    auto visit = [&](int p, double, double, double d2) {
        const int id = B.idx[p];
        count++;
        if (__dadd_rn(d2, s2) < hit2 && id < hit)
            hit = id;
        kbest_offer(D, I, d2, id);
    };
    auto stop = [&](double b) {
        const double b2 = b * b;
        return count >= k && b2 > D[K - 1] && b2 >= hit2;
    };
    if (WARP)
        ring_search_warp(B, w, nx, ny, visit, stop);
    else
        ring_search(B, w, nx, ny, visit, stop);
    return count;
}

} // namespace gk_gpu

#endif
