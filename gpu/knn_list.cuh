/* SPDX-License-Identifier: MIT */
/*
 * knn_list.cuh - the k nearest for any k up to GK_GPU_MAX_LIST_K, beyond
 * the register lists of knn_search (kbest.cuh, k <= 64), and the launch of
 * the kernels that keep such lists (kl_launch).
 *
 * One warp per node. Its k-best list lives in shared memory, sorted by
 * (d2, input index), the CPU's order. The warp reads the bins ring by ring,
 * 32 points at a time whatever the bins' sizes (a ring's segments laid end to
 * end); candidates that beat the list's k-th go to a 32-entry buffer, which,
 * when full, is sorted (bitonic, in registers) and merged into the list
 * (each entry's new place by a binary search in the other sequence). The
 * stop rule is knn_search's: k found and the next ring beyond both the k-th
 * distance and the exact-hit distance.
 *
 * Lists that do not fit a block's shared memory (k above about 2300 on an
 * H100, 4 x 512 per quadrant on older GPUs) live in a global scratch of the
 * job's, a warp's own slice (kl_warp_base): the same code, slower memory.
 *
 * Used for IDW and aidw with max_points (or aidw's k) above 64 (idw.cu),
 * the per-quadrant selection beyond 16 a quadrant (quadrants.cu) and,
 * writing the lists out, by kriging with more neighbours than its warp
 * kernels take (kriging_big.cu).
 */
#ifndef GK_GPU_KNN_LIST_CUH
#define GK_GPU_KNN_LIST_CUH

#include "check.h"
#include "job.h"
#include "kbest.cuh"
#include "local.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>

namespace gk_gpu
{

/* gstat's quadrant of (dx, dy) = point - node, "pinwheel" (geostat/kriging_local.c's quadrant) */
__device__ __forceinline__ int kr_quadrant(double dx, double dy)
{
    const int x = dy < 0 ? dx > 0 : dx >= 0;
    const int y = dx < 0 ? dy >= 0 : dy > 0;
    return x | (y << 1);
}

/* Shared memory of one warp's list for k: the list and its merge target
 * (doubles, then ints), and the buffer. */
__host__ __device__ inline size_t kl_warp_bytes(int k)
{
    const size_t kc = (size_t)(k + 1) / 2 * 2; /* even: the ints start 8-aligned */
    return (2 * kc + 32) * (sizeof(double) + sizeof(int));
}

/* A warp's lists, `per` bytes: in shared memory, or in P.klg where the
 * launch put them there (kl_launch_lists). */
__device__ __forceinline__ unsigned char *kl_warp_base(const LocalParams &P, unsigned char *smem,
                                                       size_t per)
{
    const size_t wi = threadIdx.x >> 5;
    return P.klg ? P.klg + ((size_t)blockIdx.x * (blockDim.x >> 5) + wi) * per : smem + wi * per;
}

struct KList {
    double *D, *T, *bd;
    int *I, *U, *bi;
    int k, m, nb; /* capacity, length, buffered (warp-uniform) */
};

__device__ __forceinline__ KList kl_bind(unsigned char *base, int k)
{
    const size_t kc = (size_t)(k + 1) / 2 * 2;
    KList L;
    L.D = (double *)base;
    L.T = L.D + kc;
    L.bd = L.T + kc;
    L.I = (int *)(L.bd + 32);
    L.U = L.I + kc;
    L.bi = L.U + kc;
    L.k = k;
    L.m = L.nb = 0;
    return L;
}

/* Ascending (d, id) across the warp's lanes, one entry each. */
__device__ __forceinline__ void kl_sort32(double &d, int &id)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int size = 2; size <= 32; size <<= 1)
#pragma unroll
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            const double od = __shfl_xor_sync(0xffffffffu, d, stride);
            const int oi = __shfl_xor_sync(0xffffffffu, id, stride);
            const bool keep_min = ((lane & stride) == 0) == ((lane & size) == 0);
            if (keep_min ? before(od, oi, d, id) : before(d, id, od, oi)) {
                d = od;
                id = oi;
            }
        }
}

/* How many of the n sorted entries (D, I) come before (d, id). */
__device__ __forceinline__ int kl_rank(const double *D, const int *I, int n, double d, int id)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (before(D[mid], I[mid], d, id))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The buffer into the list, the first k of the merge kept. */
static __device__ void kl_flush(KList &L)
{
    const int lane = threadIdx.x & 31, m = L.m, nb = L.nb, k = L.k;
    double d = lane < nb ? L.bd[lane] : INFINITY;
    int id = lane < nb ? L.bi[lane] : INT_MAX;
    kl_sort32(d, id);
    __syncwarp();
    L.bd[lane] = d;
    L.bi[lane] = id;
    __syncwarp();
    if (lane < nb) { /* after the list's entries before it */
        const int lo = kl_rank(L.D, L.I, m, d, id);
        if (lane + lo < k) {
            L.T[lane + lo] = d;
            L.U[lane + lo] = id;
        }
    }
    for (int a = lane; a < m; a += 32) { /* after the buffer's entries before it */
        const double da = L.D[a];
        const int ia = L.I[a];
        const int lo = kl_rank(L.bd, L.bi, nb, da, ia);
        if (a + lo < k) {
            L.T[a + lo] = da;
            L.U[a + lo] = ia;
        }
    }
    __syncwarp();
    double *td = L.D;
    L.D = L.T;
    L.T = td;
    int *ti = L.I;
    L.I = L.U;
    L.U = ti;
    L.m = min(k, m + nb);
    L.nb = 0;
}

/* Ring r of bins around (bx, by), its segments end to end, 32 points a step:
 * visit(p) on every lane, p < 0 for none. Segments 32 at a time, each lane
 * finding its point's segment by a search over the lanes' running totals. */
template <class Visit>
__device__ __forceinline__ void kl_ring(const Bins &B, int bx, int by, int r, Visit &&visit)
{
    const unsigned FULL = 0xffffffffu;
    const int lane = threadIdx.x & 31, nseg = ring_segments(r);
    for (int s0 = 0; s0 < nseg; s0 += 32) {
        int p0 = 0, p1 = 0;
        if (s0 + lane < nseg)
            seg_range(B, bx, by, r, s0 + lane, p0, p1);
        const int len = p1 - p0;
        int inc = len;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const int v = __shfl_up_sync(FULL, inc, o);
            if (lane >= o)
                inc += v;
        }
        const int total = __shfl_sync(FULL, inc, 31), exc = inc - len;
        for (int base = 0; base < total; base += 32) {
            const int o = base + lane;
            int s = 0; /* segments ending at or before o */
#pragma unroll
            for (int step = 16; step > 0; step >>= 1) {
                const int v = __shfl_sync(FULL, inc, s + step - 1);
                if (v <= o)
                    s += step;
            }
            s = min(s, 31);
            const int se = __shfl_sync(FULL, exc, s), sp = __shfl_sync(FULL, p0, s);
            visit(o < total ? sp + (o - se) : -1);
        }
    }
}

/* Candidates of a ring step that pass L's k-th into its buffer (flushed
 * when it would overflow). */
__device__ __forceinline__ void kl_offer(KList &L, bool in, double d2, int id)
{
    const unsigned FULL = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    const bool full = L.m == L.k;
    const bool pass = in && (!full || before(d2, id, L.D[L.k - 1], L.I[L.k - 1]));
    const unsigned bal = __ballot_sync(FULL, pass);
    if (!bal)
        return;
    const int c = __popc(bal);
    if (L.nb + c > 32)
        kl_flush(L);
    if (pass) {
        const int at = L.nb + __popc(bal & ((1u << lane) - 1u));
        L.bd[at] = d2;
        L.bi[at] = id;
    }
    L.nb += c;
    __syncwarp();
}

/* The k nearest of window w around (nx, ny) into L[0] (sorted, L[0].m of
 * them), or with NQ = 4 those of each quadrant q = (dx >= 0) | (dy >= 0) << 1
 * of point - node (gdal_grid's; PINWHEEL: gstat's, kr_quadrant) into L[q],
 * in one pass over the rings; and the first exact
 * hit over the window (smallest index with d2 + s2 < hit2, INT_MAX for none).
 * Done when every list's stop rule holds (knn_search's: k found and the next
 * ring beyond the k-th distance and the hit distance), a quadrant's also when
 * no later ring holds a bin of its closed quadrant (dx or dy may be 0: both
 * rules' quadrants lie in it): a node beyond the points' extent would
 * otherwise visit every point for its empty quadrants. Returns the window's
 * point count (NQ = 1) as far as searched. Every lane of the warp calls it;
 * the results are the same on every lane. */
template <int NQ, bool PINWHEEL = false>
__device__ __forceinline__ int kl_search_lists(const Bins &B, const Win &w, double nx, double ny,
                                               KList *L, double s2, double hit2, int &hit)
{
    const unsigned FULL = 0xffffffffu;
    const int bx = bin_of(nx, B.gx0, B.ibsx, B.nbx), by = bin_of(ny, B.gy0, B.ibsy, B.nby);
    int count[NQ], lim[NQ], h = INT_MAX;
#pragma unroll
    for (int q = 0; q < NQ; q++) {
        count[q] = 0;
        L[q].m = L[q].nb = 0;
        /* a point with x >= nx has its bin at or right of bx (bin_of is
         * monotone), and none has when nx > xmax; likewise the other sides */
        const bool xr = NQ == 4 && (q & 1), yu = NQ == 4 && (q & 2);
        const bool none =
            NQ == 4 && ((xr ? nx > B.xmax : nx < B.gx0) || (yu ? ny > B.ymax : ny < B.gy0));
        lim[q] = NQ == 1 ? INT_MAX
                 : none  ? -1
                         : max(xr ? B.nbx - 1 - bx : bx, yu ? B.nby - 1 - by : by);
    }
    for (int r = 0;; r++) {
        kl_ring(B, bx, by, r, [&](int p) {
            bool in = false;
            double d2 = 0.0;
            int id = INT_MAX, qp = 0;
            if (p >= 0) {
                const double2 c = B.xy[p];
                const double dx = __dsub_rn(c.x, nx), dy = __dsub_rn(c.y, ny);
                d2 = sq2(dx, dy);
                in = in_window(w, dx, dy, d2);
                id = B.idx[p];
                if (NQ == 4)
                    qp = PINWHEEL ? kr_quadrant(dx, dy) : (dx >= 0.0 ? 1 : 0) | (dy >= 0.0 ? 2 : 0);
            }
            if (in && __dadd_rn(d2, s2) < hit2 && id < h)
                h = id;
#pragma unroll
            for (int q = 0; q < NQ; q++) {
                count[q] += __popc(__ballot_sync(FULL, in && qp == q));
                kl_offer(L[q], in && qp == q, d2, id);
            }
        });
#pragma unroll
        for (int q = 0; q < NQ; q++)
            if (L[q].nb)
                kl_flush(L[q]);
        const double b = ring_bound(B, nx, ny, bx, by, r);
        if (b == INFINITY || b > w.rout)
            break;
        const double b2 = b * b;
        bool done = b2 >= hit2;
#pragma unroll
        for (int q = 0; q < NQ; q++)
            done = done && ((count[q] >= L[q].k && b2 > L[q].D[L[q].k - 1]) || r >= lim[q]);
        if (done)
            break;
    }
    hit = __reduce_min_sync(FULL, h);
    return count[0];
}

__device__ __forceinline__ int kl_search(const Bins &B, const Win &w, double nx, double ny,
                                         KList &L, double s2, double hit2, int &hit)
{
    return kl_search_lists<1>(B, w, nx, ny, &L, s2, hit2, hit);
}

__device__ __forceinline__ double warp_sum(double v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/* The warps over N nodes (a tile's, or a band's of rows), row-major; the
 * grid strides. */
#define KL_FOR_NODES_N(N, n)                                                                       \
    for (size_t n = (size_t)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); n < (N);          \
         n += (size_t)gridDim.x * (blockDim.x >> 5))
#define KL_FOR_NODES(P, n) KL_FOR_NODES_N((size_t)(P).g.w *(P).g.h, n)

/* Node n of the band of rows from j0 of P's tile. */
__device__ __forceinline__ void kl_node_xy(const LocalParams &P, size_t n, int j0, double &nx,
                                           double &ny)
{
    const int i = (int)(n % P.g.w), jr = (int)(n / P.g.w);
    nx = node_x(P.g.xmin, P.g.cw, P.g.x0 + i);
    ny = node_x(P.g.ymax, P.g.ch, P.g.y0 + j0 + jr);
}

/* A warp's four lists of k (one a quadrant), end to end. */
__device__ __forceinline__ void kl_bind_quadrants(const LocalParams &P, unsigned char *smem, int k,
                                                  KList (&L)[4])
{
    const size_t wb = kl_warp_bytes(k);
    unsigned char *base = kl_warp_base(P, smem, 4 * wb);
#pragma unroll
    for (int q = 0; q < 4; q++)
        L[q] = kl_bind(base + q * wb, k);
}

/* Warps per block as shared memory allows, for `lists` lists of k a warp
 * (0: they do not fit). GRIDKIT_GPU_KLIST_GLOBAL=1 says 0 always (tests of
 * the global scratch). */
inline int kl_warps_per_block(int k, int smem_optin, int lists = 1)
{
    if (env_int("GRIDKIT_GPU_KLIST_GLOBAL", 0))
        return 0;
    const size_t per = (size_t)lists * kl_warp_bytes(k);
    for (int nw = 4; nw >= 1; nw--)
        if ((size_t)nw * per <= (size_t)smem_optin)
            return nw;
    return 0;
}

/* A list kernel (its first parameter the LocalParams) over `nodes` nodes
 * with `lists` lists of k a warp, on the job's stream: a few waves of blocks
 * (the kernels stride over the nodes). Lists beyond shared memory go to the
 * job's global scratch, as many warps as KL_GLOBAL_BYTES hold (one at least). */
#define KL_GLOBAL_BYTES ((size_t)1 << 30)
template <class... A, class... B>
static cudaError_t kl_launch_lists(void (*kernel)(LocalParams, A...), Job *J, int k, int lists,
                                   size_t nodes, LocalParams P, B... args)
{
    if (k < 1 || k > GK_GPU_MAX_LIST_K)
        return cudaErrorInvalidValue;
    const size_t per = (size_t)lists * kl_warp_bytes(k);
    int nw = kl_warps_per_block(k, J->smem_optin, lists);
    size_t blocks, sm = 0;
    P.klg = nullptr;
    if (nw >= 1) {
        sm = (size_t)nw * per;
        blocks = std::min((nodes + nw - 1) / nw, (size_t)J->nsm * 32);
        /* the device's most, the same from every host thread: a smaller k's
         * setting cannot undercut another thread's launch */
        cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             J->smem_optin);
        if (e != cudaSuccess)
            return e;
    } else {
        const size_t warps =
            std::max<size_t>(1, std::min({nodes, (size_t)J->nsm * 128, KL_GLOBAL_BYTES / per}));
        nw = (int)std::min<size_t>(4, warps);
        blocks = warps / nw; /* whole blocks: never more warps than the bytes hold */
        cudaError_t e = grow(&J->klg, &J->klg_cap, blocks * nw * per);
        if (e != cudaSuccess)
            return e;
        P.klg = J->klg;
    }
    kernel<<<(unsigned)std::max<size_t>(blocks, 1), 32 * nw, sm, J->st>>>(P, args...);
    return cudaGetLastError();
}

template <class... A, class... B>
static cudaError_t kl_launch(void (*kernel)(LocalParams, A...), Job *J, int k, size_t nodes,
                             LocalParams P, B... args)
{
    return kl_launch_lists(kernel, J, k, 1, nodes, P, args...);
}

} // namespace gk_gpu

#endif
