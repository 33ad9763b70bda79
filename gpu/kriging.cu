/* SPDX-License-Identifier: MIT */
/*
 * kriging.cu - local kriging on the GPU (algorithms/geostat/kriging_local.c) with
 * up to 64 neighbours, and a tile's kriging from api_tile (krige_tile),
 * which hands more neighbours to kriging_big.cu.
 *
 * One fused kernel per node block: a warp finds the k nearest points of its
 * 8 x 4 nodes in lockstep (the kNN search of the IDW kernels, gstat's rule:
 * the k nearest within maxdist, inclusive, ties by input order), parks the
 * selections in shared memory, then groups of G lanes (G = 8, 16 or 32 by k)
 * solve one node each with the matrix in shared memory: the data rows
 * [C | c0' | z' | F'] are assembled in parallel (one covariance per lane),
 * a right-looking Cholesky eliminates the m data columns, which leaves
 * L^-1 c0, L^-1 z and L^-1 F in the augmented rows; their dot products give
 * the estimate, the variance and the drift's Schur complement, exactly the
 * GLS form of geostat/kriging_local.c (docs/dev/geostatistics.md, 'The GLS
 * form'). T = float works on node-local coordinates (point - node), Z less
 * its mid-range.
 *
 * The kernels' extended forms (template flag X; the fast ones keep p = 0, 1
 * or 3 and are unchanged) take a quadratic drift, external drift (the
 * covariates at the points and the tile's nodes) and blocks (c0 and the
 * drift at the target averaged over the block's discretisation), with the
 * drift columns rounded up to 0, 1, 3, 6 or KR_XMAXP.
 */
#include "families.h"
#include "call.h"
#include "job.h"
#include "krige_state.h"
#include "kbest.cuh"
#include "krige_cov.cuh"
#include "krige_system.cuh"
#include "local.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <mutex>

namespace gk_gpu
{

/* The k (<= K) nearest in the window around each lane's node, in D and I
 * from slot K - k on, all lanes in lockstep over the bins around the warp's
 * patch (knn_idw_warp_kernel without hits). Only candidates after the floor (fd, fi) in (distance, input
 * order) count, so a second pass continues where a first one stopped;
 * count gets how many of those the window holds. The points of fold grp
 * (cross-validation; 0: none) are not there. */
template <int K>
__device__ __forceinline__ void knn_warp_select(const LocalParams &P, double nx, double ny, int grp,
                                                double (&D)[K], int (&I)[K], int &count, int k,
                                                double fd = -1.0, int fi = -1)
{
    const Bins &B = P.B;
    kbest_init(D, I, k);
    count = 0;
    ring_search_warp(
        B, P.w, nx, ny,
        [&](int p, double, double, double d2) {
            if (grp && P.sg[p] == grp) /* cross-validation: the node's own fold */
                return;
            const int id = B.idx[p];
            if (!before(fd, fi, d2, id)) /* at or before the floor: an earlier pass's */
                return;
            count++;
            kbest_offer(D, I, d2, id);
        },
        [&](double b) { return count >= k && b * b > D[K - 1]; });
}

/* Shared memory per warp: the 32 selections, then per group the matrix
 * (K + 2 + PM rows of K + 1) and the node-local points (3 x K). */
template <int K, class T, int PM = KR_MAXP> struct KrLayout {
    static constexpr int G = K <= 8 ? 8 : K <= 16 ? 16 : 32;
    static constexpr int NG = 32 / G;
    static constexpr int LD = K + 1;
    static constexpr int NR = K + 2 + PM;
    static constexpr size_t group_T = (size_t)NR * LD + 3 * K;
    static constexpr size_t warp_bytes = NG * group_T * sizeof(T) + 32 * K * sizeof(int);
};

template <class T> __device__ __forceinline__ T group_sum(T v, unsigned mask, int G)
{
    for (int o = G >> 1; o > 0; o >>= 1)
        v += __shfl_xor_sync(mask, v, o);
    return v;
}

template <int K, class T, int PM = KR_MAXP, bool X = false, bool XM = X>
__global__ void __launch_bounds__(128) krige_kernel(LocalParams P, KrigeParams KP)
{
    using Lay = KrLayout<K, T, PM>;
    constexpr int G = Lay::G, NG = Lay::NG, LD = Lay::LD;
    extern __shared__ __align__(16) unsigned char kr_smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    unsigned char *wbase = kr_smem + (size_t)warp * Lay::warp_bytes;
    const int i = blockIdx.x * 8 + (lane & 7),
              j = blockIdx.y * (4 * nwarps) + warp * 4 + (lane >> 3);
    const bool valid = i < P.g.w && j < P.g.h;
    double nx, ny;
    int grp;
    tile_node(P, min(i, P.g.w - 1), min(j, P.g.h - 1), nx, ny, grp);

    int count;
    {
        double D[K];
        int I[K];
        knn_warp_select<K>(P, nx, ny, grp, D, I, count, P.k);
        int *sel = (int *)(wbase + NG * Lay::group_T * sizeof(T));
        const int off = K - P.k;
#pragma unroll
        for (int q = 0; q < K; q++)
            if (q >= off)
                sel[lane * K + q - off] = I[q];
    }
    __syncwarp();
    const int *sel = (const int *)(wbase + NG * Lay::group_T * sizeof(T));
    const int g = lane / G, gl = lane % G;
    const unsigned gmask = (G == 32 ? 0xffffffffu : ((1u << G) - 1u) << (g * G));
    T *M = (T *)wbase + (size_t)g * Lay::group_T;
    T *px = M + (size_t)Lay::NR * LD, *py = px + K, *pz = py + K;
    const int p = KP.p, q = 2 + p, kmax = P.k;
    const T A = (T)KP.A;
    const T tol = KP.single ? T(1e-6) : T(1e-12);
    const size_t ncell = (size_t)P.g.w * P.g.h;

    for (int it = 0; it < 32 / NG; it++) {
        const int src = it * NG + g;
        const int cnt = __shfl_sync(0xffffffffu, count, src);
        const double mx = __shfl_sync(0xffffffffu, nx, src);
        const double my = __shfl_sync(0xffffffffu, ny, src);
        const int vsrc = __shfl_sync(0xffffffffu, (int)valid, src);
        const int si = blockIdx.x * 8 + (src & 7),
                  sj = blockIdx.y * (4 * nwarps) + warp * 4 + (src >> 3);
        const int m = min(cnt, kmax);
        double est = P.nodata, var = P.nodata;
        const int pre = kr_before_system<X>(KP, (size_t)sj * P.g.w + si, vsrc, m, P.min_points,
                                            p == 0, p, est, var);
        bool sing = pre == KR_SINGULAR;
        if (pre == KR_SOLVE) {
            /* node-local points */
            for (int r = gl; r < m; r += G) {
                int id = sel[src * K + r];
                px[r] = (T)(KP.x[id] - mx);
                py[r] = (T)(KP.y[id] - my);
                pz[r] = (T)(P.zin[id] - KP.zshift);
            }
            __syncwarp(gmask);
            /* polynomial drift: origin and scale of the selection (geostat/kriging_local.c) */
            T ox = 0, oy = 0, sc = 1;
            if (X ? KP.poly > 0 : p == 3) {
                T sx = 0, sy = 0;
                for (int r = gl; r < m; r += G)
                    sx += px[r], sy += py[r];
                ox = group_sum(sx, gmask, G) / (T)m;
                oy = group_sum(sy, gmask, G) / (T)m;
                T mxd = 0;
                for (int r = gl; r < m; r += G) {
                    T ex = px[r] - ox, ey = py[r] - oy;
                    mxd = max(mxd, sqrt(ex * ex + ey * ey));
                }
                for (int o = G >> 1; o > 0; o >>= 1)
                    mxd = max(mxd, __shfl_xor_sync(gmask, mxd, o));
                sc = mxd > T(0) ? mxd : T(1);
            }
            kr_assemble<T, X, XM>(KP, M, LD, m, p, px, py, pz, sel + src * K, ox, oy, sc, gl, G);
            __syncwarp(gmask);
            /* right-looking Cholesky over the m data columns */
            const int nr = m + q;
            for (int jc = 0; jc < m; jc++) {
                T d = M[jc * LD + jc];
                if (!(d > tol * A))
                    sing = true;
                T ij = T(1) / sqrt(d);
                __syncwarp(gmask);
                for (int r = jc + 1 + gl; r < nr; r += G)
                    M[r * LD + jc] *= ij;
                __syncwarp(gmask);
                for (int c = jc + 1 + gl; c < m; c += G) {
                    const T lcj = M[c * LD + jc];
                    int r = c;
                    /* loads before stores: the compiler cannot move them past a
                     * store to the same array */
                    for (; r + 4 <= nr; r += 4) {
                        T a0 = M[r * LD + jc], a1 = M[(r + 1) * LD + jc];
                        T a2 = M[(r + 2) * LD + jc], a3 = M[(r + 3) * LD + jc];
                        T b0 = M[r * LD + c], b1 = M[(r + 1) * LD + c];
                        T b2 = M[(r + 2) * LD + c], b3 = M[(r + 3) * LD + c];
                        M[r * LD + c] = b0 - a0 * lcj;
                        M[(r + 1) * LD + c] = b1 - a1 * lcj;
                        M[(r + 2) * LD + c] = b2 - a2 * lcj;
                        M[(r + 3) * LD + c] = b3 - a3 * lcj;
                    }
                    for (; r < nr; r++)
                        M[r * LD + c] -= M[r * LD + jc] * lcj;
                }
                __syncwarp(gmask);
            }
            if (!sing) {
                /* dot products of the augmented rows */
                const T *ra = M + m * LD, *rw = M + (m + 1) * LD, *rf = M + (m + 2) * LD;
                T aa = 0, aw = 0, fa[PM] = {}, fw[PM] = {};
                T ff[PM][PM] = {};
                for (int c = gl; c < m; c += G) {
                    T a = ra[c], w = rw[c];
                    aa += a * a;
                    aw += a * w;
#pragma unroll
                    for (int u = 0; u < PM; u++) {
                        if (u < p) {
                            T fu = rf[u * LD + c];
                            fa[u] += fu * a;
                            fw[u] += fu * w;
#pragma unroll
                            for (int v = 0; v <= u; v++)
                                ff[u][v] += fu * rf[v * LD + c];
                        }
                    }
                }
                /* the drift's sums over the group, as kr_coop_kernel's below,
                 * whose loop runs to its compile-time P instead */
                aa = group_sum(aa, gmask, G);
                aw = group_sum(aw, gmask, G);
#pragma unroll
                for (int u = 0; u < PM; u++) {
                    if (u < p) {
                        fa[u] = group_sum(fa[u], gmask, G);
                        fw[u] = group_sum(fw[u], gmask, G);
#pragma unroll
                        for (int v = 0; v <= u; v++)
                            ff[u][v] = group_sum(ff[u][v], gmask, G);
                    }
                }
                double f0[PM];
                kr_target_drift<X, PM, T>(KP, p, ox, oy, sc, (size_t)sj * P.g.w + si, f0);
                kr_finish<PM, T>(KP, p, aa, aw, fa, fw, ff, f0, sing, est, var);
            }
            if (sing)
                est = var = P.nodata;
        }
        if (gl == 0 && vsrc) {
            size_t o = (size_t)sj * P.g.w + si;
            P.out[o] = est;
            if (KP.var)
                KP.var[o] = var;
            if (sing)
                atomicAdd(KP.singular, 1u);
        }
        __syncwarp();
    }
    (void)ncell;
}

/* ---- two phases: the neighbour search, then a lane group per node ------- */

/* Phase 1: the k nearest of each node of a band of rows [j0, j0 + nrows),
 * node-major: nbr[n * K + q] (n = node within the band), cnt[n] how many
 * (fewer than k where the window holds fewer). The search
 * alone keeps few registers, so many warps hide its load latency. K = 32 runs
 * as two passes of 16 (the second after the first's 16th), which keeps the
 * k-best lists in registers: one list of 32 doubles spills. */
template <int K>
__global__ void __launch_bounds__(128, K <= 16 ? 7 : 6) /* the most without spills (sm_90) */
    kr_search_kernel(LocalParams P, int j0, int nrows, int *nbr, int *cnt)
{
    constexpr int KP = K < 16 ? K : 16, NPASS = K / KP;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int i = blockIdx.x * 8 + (lane & 7), jr = blockIdx.y * 16 + warp * 4 + (lane >> 3);
    const int w = P.g.w;
    const bool valid = i < w && jr < nrows;
    double nx, ny;
    int grp;
    tile_node(P, min(i, w - 1), j0 + min(jr, nrows - 1), nx, ny, grp);
    const size_t n = (size_t)min(jr, nrows - 1) * w + min(i, w - 1);
    double fd = -1.0;
    int fi = -1, total = 0, found = 0;
#pragma unroll 1
    for (int pass = 0; pass < NPASS; pass++) {
        const int kk = min(P.k - pass * KP, KP);
        if (__all_sync(0xffffffffu, kk <= 0 || (pass > 0 && total <= pass * KP)))
            break; /* the first pass saw every point of each window */
        double D[KP];
        int I[KP], count;
        knn_warp_select<KP>(P, nx, ny, grp, D, I, count, max(kk, 1), fd, fi);
        if (pass == 0)
            total = count;
        /* a pass that stopped early counted only what it searched, but then
         * it found its kk; one that ran out counted them all */
        if (kk > 0)
            found += min(count, kk);
        if (valid) { /* the kk found, without the sentinels in front */
            int *o = nbr + n * K + pass * KP - (KP - max(kk, 1));
#pragma unroll
            for (int q = 0; q < KP; q++)
                if (q >= KP - max(kk, 1))
                    o[q] = I[q];
        }
        fd = D[KP - 1];
        fi = I[KP - 1];
    }
    if (valid)
        cnt[n] = found;
}

cudaError_t kr_search_launch(cudaStream_t st, const LocalParams &P, int K, int j0, int nr, int *nbr,
                             int *cnt)
{
    const dim3 g((P.g.w + 7) / 8, (nr + 15) / 16);
    if (K == 16)
        kr_search_kernel<16><<<g, 128, 0, st>>>(P, j0, nr, nbr, cnt);
    else
        kr_search_kernel<32><<<g, 128, 0, st>>>(P, j0, nr, nbr, cnt);
    return cudaGetLastError();
}

/* Phase 2: G lanes per node (32 / G nodes per warp), lane r holding rows
 * r, r + G, ... of [C | c0 z F] in registers. The covariances are computed
 * once each, spread evenly over the lanes (row v pairs with v + 1 .. v + K/2,
 * mod K) into shared memory, and read back as rows. A right-looking
 * Cholesky then needs, at step j, only the pivot (a shuffle from its owner),
 * column j of L (one store per row, broadcast loads) and y_j = b_j / L_jj,
 * row j of L^-1 [c0 z F], which the owner leaves in shared memory: every row
 * subtracts L_rj L_cj and L_rj y_j, without predicates (rows and entries at
 * or left of the pivot become garbage nobody reads; symmetry keeps the upper
 * entries right). The estimate and the variance are then dot products of
 * the y over the lanes (geostat/kriging_local.c's GLS form). Rows beyond the m
 * neighbours found are identity rows and never pivots. Fewer lanes per node
 * share the per-step overhead among more rows; more lanes keep fewer
 * registers. TS: the solve's type; TC: the covariances'. */
template <int K, int G, class TS, int PY = KR_MAXP> struct KrCoopLay {
    static constexpr int NGR = 32 / G;      /* nodes per warp */
    static constexpr int LD = K + 1;        /* odd: rows read without bank conflicts */
    static constexpr int MAT = K * LD;      /* per node */
    static constexpr int CB = K;            /* column j of L */
    static constexpr int COL = 2 * CB;      /* double-buffered */
    static constexpr int PTS = 2 * K;       /* node-local x and y */
    static constexpr int YS = K * (2 + PY); /* rows of L^-1 [c0 z F], as found */
    /* The nodes of a warp start 32 / NGR banks apart, so that their rows,
     * columns and broadcasts fall on different banks (a multiple of 32 words
     * would put all NGR nodes' accesses on the same ones). */
    static constexpr int WPT = (int)sizeof(TS) / 4, BASE = MAT + COL + PTS + YS;
    static constexpr int SHIFT = NGR > 1 ? 32 / NGR / WPT : 0;
    static constexpr int WB = 32 / WPT; /* elements per 32 banks */
    static constexpr int PAD = SHIFT ? ((SHIFT - BASE % WB) % WB + WB) % WB : 0;
    static constexpr size_t node_T = (size_t)BASE + PAD;
    static constexpr size_t warp_bytes = NGR * node_T * sizeof(TS);
};

template <class T> __device__ __forceinline__ T kr_rsqrt(T v) { return rsqrt(v); }
/* float pivots: the SFU's rsqrt without rsqrtf's denormal fix-ups (a pivot is
 * above 1e-6 A, and sills below 1e-30 are solved in double) */
template <> __device__ __forceinline__ float kr_rsqrt<float>(float v)
{
    float r;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
    return r;
}

/* X: the extended form (quadratic and external drift, blocks): P drift
 * columns kept, the first p = KP.p of them used (the others stay zero);
 * else p = P, 0, 1 or 3. XM: every model type (krige_kernel's). */
template <int K, int G, int P, class TS, class TC, bool X = false, bool XM = X>
__global__ void __launch_bounds__(128)
    kr_coop_kernel(LocalParams LP, KrigeParams KP, int j0, int nrows, const int *__restrict__ nbr,
                   const int *__restrict__ cnt)
{
    using L = KrCoopLay<K, G, TS, X ? P : KR_MAXP>;
    constexpr int R = K / G, NQ = 2 + P; /* rows per lane; right-hand sides: c0, z, drift */
    constexpr int PM = X ? (P > 0 ? P : 1) : KR_MAXP; /* the drift's sums */
    extern __shared__ __align__(16) unsigned char kc_smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane / G, r = lane % G;
    const unsigned gmask = G == 32 ? 0xffffffffu : ((1u << G) - 1u) << (g * G);
    TS *M = (TS *)(kc_smem + (size_t)warp * L::warp_bytes) + (size_t)g * L::node_T;
    TS *col = M + L::MAT, *sx = col + L::COL, *sy = sx + K, *Y = sy + K;
    const int w = LP.g.w;
    const size_t N = (size_t)nrows * w;
    const size_t n = ((size_t)blockIdx.x * (blockDim.x >> 5) + warp) * L::NGR + g;
    if (n >= N) /* whole groups leave together */
        return;
    const int jr = (int)(n / w), i0 = (int)(n - (size_t)jr * w);
    double nx, ny;
    int grp;
    tile_node(LP, i0, j0 + jr, nx, ny, grp);
    (void)grp; /* the search (kr_search_kernel) left the fold out */
    const int m = min(cnt[n], LP.k);
    const int p = X ? KP.p : P;
    double est = LP.nodata, var = LP.nodata;
    const int pre = kr_before_system<X>(KP, (size_t)(j0 + jr) * w + i0, true, m, LP.min_points,
                                        P == 0, p, est, var);
    bool sing = pre == KR_SINGULAR;
    if (pre == KR_SOLVE) {
        TS px[R], py[R], pz[R];
        TS ox = 0, oy = 0, sc = 1;
#pragma unroll
        for (int i = 0; i < R; i++) {
            const int v = r + G * i;
            const bool mine = v < m;
            const int id = mine ? nbr[n * K + v] : 0;
            px[i] = mine ? (TS)(KP.x[id] - nx) : TS(0);
            py[i] = mine ? (TS)(KP.y[id] - ny) : TS(0);
            pz[i] = mine ? (TS)(LP.zin[id] - KP.zshift) : TS(0);
            sx[v] = px[i];
            sy[v] = py[i];
            M[v * L::LD + v] = (TS)KP.A;
            ox += px[i];
            oy += py[i];
        }
        /* the polynomial drift's origin and scale of the selection (geostat/kriging_local.c) */
        if (X ? KP.poly > 0 : P == 3) {
            ox = group_sum(ox, gmask, G) / (TS)m;
            oy = group_sum(oy, gmask, G) / (TS)m;
            TS d = 0;
#pragma unroll
            for (int i = 0; i < R; i++) {
                const TS ex = px[i] - ox, ey = py[i] - oy;
                if (r + G * i < m)
                    d = max(d, sqrt(ex * ex + ey * ey));
            }
            for (int o = G >> 1; o > 0; o >>= 1)
                d = max(d, __shfl_xor_sync(gmask, d, o));
            sc = d > TS(0) ? d : TS(1);
        }
        __syncwarp(gmask);
        /* the strict lower triangle once: row v with v + t (mod K), t = 1 .. K/2
         * (t = K/2 from the first half only), mirrored */
#pragma unroll
        for (int i = 0; i < R; i++) {
            const int v = r + G * i;
            const int tmax = v < K / 2 ? K / 2 : K / 2 - 1;
#pragma unroll 2
            for (int t = 1; t <= tmax; t++) {
                const int u = (v + t) & (K - 1);
                const TS c = v < m && u < m
                                 ? (TS)kcov<TC, XM>(KP, (TC)(px[i] - sx[u]), (TC)(py[i] - sy[u]))
                                 : TS(0);
                M[v * L::LD + u] = c;
                M[u * L::LD + v] = c;
            }
        }
        __syncwarp(gmask);
        TS A[R][K], B[R][NQ];
        if constexpr (X) {
            /* c0 (a block's average), z, the drift's columns: before the rows
             * of A are live, which the covariances' calls would spill */
#pragma unroll
            for (int i = 0; i < R; i++) {
                const int v = r + G * i;
                const bool mine = v < m;
                if (KP.nb > 1)
                    B[i][0] = mine ? (TS)kr_cov0_block<TC, XM>(KP, (TC)px[i], (TC)py[i]) : TS(0);
                else
                    B[i][0] = mine ? (TS)kcov<TC, XM>(KP, (TC)px[i], (TC)py[i]) : TS(0);
                B[i][1] = pz[i];
                const int id = mine ? nbr[n * K + v] : 0, np = 1 + KP.poly;
                const TS u = (px[i] - ox) / sc, vv = (py[i] - oy) / sc;
#pragma unroll
                for (int c = 0; c < P; c++)
                    B[i][2 + c] = !mine || c >= p ? TS(0)
                                  : c < np        ? kr_poly<TS>(c, u, vv)
                                                  : (TS)KP.gp[(size_t)(c - np) * KP.gld + id];
            }
        }
#pragma unroll
        for (int i = 0; i < R; i++) {
            const int v = r + G * i;
            const bool mine = v < m;
            /* a row is only ever read left of and at its diagonal: row slot i
             * holds rows below G (i + 1), so its columns beyond are dead */
#pragma unroll
            for (int c = 0; c < K; c++)
                A[i][c] = c < G * (i + 1) ? M[v * L::LD + c] : TS(0);
            if constexpr (!X) {
                B[i][0] = mine ? (TS)kcov<TC, XM>(KP, (TC)px[i], (TC)py[i]) : TS(0);
                B[i][1] = pz[i];
                if constexpr (P >= 1)
                    B[i][2] = mine ? TS(1) : TS(0);
                if constexpr (P == 3) {
                    B[i][3] = mine ? (px[i] - ox) / sc : TS(0);
                    B[i][4] = mine ? (py[i] - oy) / sc : TS(0);
                }
            }
        }
        const TS tol = (KP.single ? TS(1e-6) : TS(1e-12)) * (TS)KP.A;
#pragma unroll
        for (int j = 0; j < K; j++) {
            if (j >= m)
                break;
            const int oj = j % G, ij = j / G;
            const TS d = __shfl_sync(gmask, A[ij][j], oj, G);
            if (!(d > tol))
                sing = true; /* the same on every lane of the group */
            const TS inv = kr_rsqrt<TS>(d);
            TS *cj = col + (j & 1) * L::CB;
            TS l[R];
#pragma unroll
            for (int i = 0; i < R; i++) {
                l[i] = A[i][j] * inv; /* L_vj (row j itself: L_jj) */
                cj[r + G * i] = l[i];
            }
            if (r == oj) {
#pragma unroll
                for (int t = 0; t < NQ; t++)
                    Y[j * NQ + t] = B[ij][t] * inv;
            }
            __syncwarp(gmask);
            TS y[NQ];
#pragma unroll
            for (int t = 0; t < NQ; t++)
                y[t] = Y[j * NQ + t];
                /* rows at or above the pivot turn to garbage: their y is in Y */
#pragma unroll
            for (int i = 0; i < R; i++)
#pragma unroll
                for (int t = 0; t < NQ; t++)
                    B[i][t] -= l[i] * y[t];
            /* from the aligned start of the live columns: the few left of the
             * pivot are garbage either way */
            constexpr int VW = 16 / sizeof(TS);
#pragma unroll
            for (int c0 = (j + 1) / VW * VW; c0 < K; c0 += VW) {
                if constexpr (VW == 4) {
                    const float4 cv = *reinterpret_cast<const float4 *>(cj + c0);
#pragma unroll
                    for (int i = 0; i < R; i++) {
                        if (c0 >= G * (i + 1)) /* dead columns of this slot */
                            continue;
                        A[i][c0] -= l[i] * (TS)cv.x;
                        A[i][c0 + 1] -= l[i] * (TS)cv.y;
                        A[i][c0 + 2] -= l[i] * (TS)cv.z;
                        A[i][c0 + 3] -= l[i] * (TS)cv.w;
                    }
                } else {
                    const double2 cv = *reinterpret_cast<const double2 *>(cj + c0);
#pragma unroll
                    for (int i = 0; i < R; i++) {
                        if (c0 >= G * (i + 1))
                            continue;
                        A[i][c0] -= l[i] * (TS)cv.x;
                        A[i][c0 + 1] -= l[i] * (TS)cv.y;
                    }
                }
            }
        }
        if (!sing) {
            /* the y of this lane's rows (none beyond m) */
#pragma unroll
            for (int i = 0; i < R; i++) {
                const int v = r + G * i;
#pragma unroll
                for (int t = 0; t < NQ; t++)
                    B[i][t] = v < m ? Y[v * NQ + t] : TS(0);
            }
            TS aa = 0, aw = 0, fa[PM] = {}, fw[PM] = {};
            TS ff[PM][PM] = {};
#pragma unroll
            for (int i = 0; i < R; i++) {
                aa += B[i][0] * B[i][0];
                aw += B[i][0] * B[i][1];
#pragma unroll
                for (int u = 0; u < P; u++) {
                    fa[u] += B[i][2 + u] * B[i][0];
                    fw[u] += B[i][2 + u] * B[i][1];
#pragma unroll
                    for (int v = 0; v <= u; v++)
                        ff[u][v] += B[i][2 + u] * B[i][2 + v];
                }
            }
            aa = group_sum(aa, gmask, G);
            aw = group_sum(aw, gmask, G);
#pragma unroll
            for (int u = 0; u < P; u++) {
                fa[u] = group_sum(fa[u], gmask, G);
                fw[u] = group_sum(fw[u], gmask, G);
#pragma unroll
                for (int v = 0; v <= u; v++)
                    ff[u][v] = group_sum(ff[u][v], gmask, G);
            }
            double f0[PM];
            kr_target_drift<X, PM, TS>(KP, p, ox, oy, sc, (size_t)(j0 + jr) * w + i0, f0);
            kr_finish<PM, TS>(KP, p, aa, aw, fa, fw, ff, f0, sing, est, var);
        }
        if (sing)
            est = var = LP.nodata;
    }
    if (r == 0) {
        const size_t o = (size_t)(j0 + jr) * w + i0;
        LP.out[o] = est;
        if (KP.var)
            KP.var[o] = var;
        if (sing)
            atomicAdd(KP.singular, 1u);
    }
}

/* ---- launches ------------------------------------------------------------- */

template <int K, class T, int PM = KR_MAXP, bool X = false, bool XM = X>
static cudaError_t launch_krige(cudaStream_t st, const LocalParams &P, const KrigeParams &KP)
{
    const int nw = K >= 64 ? 2 : 4;
    const size_t sm = (size_t)nw * KrLayout<K, T, PM>::warp_bytes;
    cudaError_t e = cudaFuncSetAttribute(krige_kernel<K, T, PM, X, XM>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm);
    if (e != cudaSuccess)
        return e;
    dim3 g((P.g.w + 7) / 8, (P.g.h + 4 * nw - 1) / (4 * nw));
    krige_kernel<K, T, PM, X, XM><<<g, 32 * nw, sm, st>>>(P, KP);
    return cudaGetLastError();
}

/* Two phases per band of rows (the neighbour lists of a band stay under
 * 64 M ints): the search, then G lanes per node. */
template <int K, int G, int PD, class TS, class TC, bool X = false, bool XM = X>
static cudaError_t launch_krige_2p(cudaStream_t st, const LocalParams &P, const KrigeParams &KP,
                                   int *nbr)
{
    using L = KrCoopLay<K, G, TS, X ? PD : KR_MAXP>;
    const int w = P.g.w, h = P.g.h;
    const int band = kr_band(K, w, h, 16);
    const size_t sm = 4 * L::warp_bytes;
    cudaError_t e = cudaFuncSetAttribute(kr_coop_kernel<K, G, PD, TS, TC, X, XM>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm);
    if (e != cudaSuccess)
        return e;
    LocalParams Pc = P; /* per quadrant: min_points is the filter's */
    if (KP.omax > 0)
        Pc.min_points = 0;
    for (int j0 = 0; j0 < h; j0 += band) {
        const int nr = std::min(band, h - j0);
        const size_t N = (size_t)nr * w, per_block = 4 * L::NGR;
        int *cnt = nbr + (size_t)K * N;
        kr_search_kernel<K><<<dim3((w + 7) / 8, (nr + 15) / 16), 128, 0, st>>>(P, j0, nr, nbr, cnt);
        if (KP.omax > 0)
            kr_quad_filter_launch(st, P, KP, j0, nr, K, nbr, cnt);
        kr_coop_kernel<K, G, PD, TS, TC, X, XM>
            <<<(unsigned)((N + per_block - 1) / per_block), 128, sm, st>>>(Pc, KP, j0, nr, nbr,
                                                                           cnt);
        if ((e = cudaGetLastError()) != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

template <int K, int G, class TS, class TC>
static cudaError_t launch_krige_2p_p(cudaStream_t st, const LocalParams &P, const KrigeParams &KP,
                                     int *nbr)
{
    return KP.p == 0   ? launch_krige_2p<K, G, 0, TS, TC>(st, P, KP, nbr)
           : KP.p == 1 ? launch_krige_2p<K, G, 1, TS, TC>(st, P, KP, nbr)
                       : launch_krige_2p<K, G, 3, TS, TC>(st, P, KP, nbr);
}

/* The extended kernels (quadratic and external drift, blocks; the other
 * model types: XM): the drift columns rounded up to 0, 1, 3, 6 (not with
 * XM: rare) or KR_XMAXP, so that the registers and shared memory follow p. */
template <int K, int G, class T, bool XM>
static cudaError_t launch_krige_2p_x(cudaStream_t st, const LocalParams &P, const KrigeParams &KP,
                                     int *nbr)
{
    const int p = KP.p;
    return p == 0   ? launch_krige_2p<K, G, 0, T, T, true, XM>(st, P, KP, nbr)
           : p == 1 ? launch_krige_2p<K, G, 1, T, T, true, XM>(st, P, KP, nbr)
           : p <= 3 ? launch_krige_2p<K, G, 3, T, T, true, XM>(st, P, KP, nbr)
                    : p <= 6 && !XM
               ? launch_krige_2p < K,
           G, XM ? KR_XMAXP : 6, T, T, true,
           XM > (st, P, KP, nbr) : launch_krige_2p<K, G, KR_XMAXP, T, T, true, XM>(st, P, KP, nbr);
}

template <class T, bool XM>
static cudaError_t launch_krige_x(cudaStream_t st, int k, const LocalParams &P,
                                  const KrigeParams &KP, int *nbr)
{
    if (nbr && k <= 16)
        return launch_krige_2p_x<16, 8, T, XM>(st, P, KP, nbr);
    if (nbr)
        return sizeof(T) == 8 ? launch_krige_2p_x<32, 32, T, XM>(st, P, KP, nbr)
                              : launch_krige_2p_x<32, 16, T, XM>(st, P, KP, nbr);
    return launch_krige<64, T, KR_XMAXP, true, XM>(st, P, KP);
}

/* Ints of neighbour scratch the two-phase kernels need (0: the fused kernel);
 * two: those kernels whatever GRIDKIT_GPU_KRIGE_MODE says (per quadrant). */
static size_t krige_scratch(int k, int w, int h, bool two = false)
{
    if (k > 32 || (!two && env_int("GRIDKIT_GPU_KRIGE_MODE", 0) != 0))
        return 0;
    const int K = k <= 16 ? 16 : 32;
    const int band = kr_band(K, w, h, 16);
    return (size_t)std::min(band, h) * w * (K + 1);
}

template <class T>
static cudaError_t launch_krige_k(cudaStream_t st, int k, const LocalParams &P,
                                  const KrigeParams &KP, int *nbr)
{
    /* k <= 32: the search, then a lane group per node (nbr != NULL), the
     * group sizes timed fastest on an H100 (GRIDKIT_GPU_KRIGE_G=1: the
     * other); GRIDKIT_GPU_KRIGE_MODE=2 and k > 32: the fused kernel */
    const bool alt = env_int("GRIDKIT_GPU_KRIGE_G", 0) != 0;
    if (krige_extended(KP)) /* the default group sizes; the fused kernel at K = 64 */
        return KP.ext ? launch_krige_x<T, true>(st, k, P, KP, nbr)
                      : launch_krige_x<T, false>(st, k, P, KP, nbr);
    if (nbr && k <= 16) {
        if (sizeof(T) == 8)
            return alt ? launch_krige_2p_p<16, 16, double, double>(st, P, KP, nbr)
                       : launch_krige_2p_p<16, 8, double, double>(st, P, KP, nbr);
        return alt ? launch_krige_2p_p<16, 4, float, float>(st, P, KP, nbr)
                   : launch_krige_2p_p<16, 8, float, float>(st, P, KP, nbr);
    }
    if (nbr) {
        if (sizeof(T) == 8)
            return alt ? launch_krige_2p_p<32, 16, double, double>(st, P, KP, nbr)
                       : launch_krige_2p_p<32, 32, double, double>(st, P, KP, nbr);
        /* single at k = 32: GRIDKIT_GPU_KRIGE_S64=1 solves in double */
        if (env_int("GRIDKIT_GPU_KRIGE_S64", 0))
            return launch_krige_2p_p<32, 16, double, float>(st, P, KP, nbr);
        return alt ? launch_krige_2p_p<32, 32, float, float>(st, P, KP, nbr)
                   : launch_krige_2p_p<32, 16, float, float>(st, P, KP, nbr);
    }
    if (k <= 8)
        return launch_krige<8, T>(st, P, KP);
    if (k <= 16)
        return launch_krige<16, T>(st, P, KP);
    if (k <= 32)
        return launch_krige<32, T>(st, P, KP);
    return launch_krige<64, T>(st, P, KP);
}

/* Models smooth at the origin (gamma ~ h^a, a > 1: Gau, Hol, Mat and Ste
 * above kappa 1/2, Exc above 1) give systems too ill-conditioned for float
 * (1e-5 of the range is not kept for Gau), and so do unbounded ones (Lin
 * without range, Pow: A - gamma, A far above the gammas of a neighbourhood):
 * they are solved in double. */
static bool krige_needs_double(const gk_gpu_krige &k)
{
    if (!(k.A >= 1e-30)) /* float pivots would be denormal (kr_rsqrt) */
        return true;
    for (int q = 0; q < k.ns; q++) {
        const gk_gpu_vstruct &v = k.st[q];
        switch (v.type) {
        case GK_GPU_V_GAU:
        case GK_GPU_V_HOL:
        case GK_GPU_V_POW:
            return true;
        case GK_GPU_V_MAT:
        case GK_GPU_V_STE:
            if (v.kappa > 0.5)
                return true;
            break;
        case GK_GPU_V_EXC:
            if (v.kappa > 1.0)
                return true;
            break;
        case GK_GPU_V_LIN:
            if (v.range == 0.0)
                return true;
            break;
        default:
            break;
        }
    }
    return false;
}

/* A tile of local kriging, P filled by api_tile: up to 64 neighbours here,
 * more (or max_points_per_quadrant over every point) in kriging_big.cu. */
int krige_tile(Job *J, LocalParams &P, const gk_gpu_tile *t, int nbands, char *err, size_t err_cap)
{
    const gk_gpu_job_desc &d = J->d;
    const Grid &G = P.g;
    const size_t ncell = (size_t)t->w * t->h;
    KrigeParams KP{};
    KrigeState &S = krige_state(J);
    const gk_gpu_krige &k = S.k;
    krige_params_fill(KP, k);
    KP.single = d.single;
    KP.fastf = env_int("GRIDKIT_GPU_KRIGE_FASTF", 1);
    KP.zshift = k.p == 0 ? k.mean : (d.single ? J->zc : 0.0);
    KP.x = J->x;
    KP.y = J->y;
    KP.var = nbands > 1 ? J->out + ncell : nullptr;
    KP.singular = J->counters + 3;
    KP.gp = S.gp;
    KP.gld = J->n;
    KP.g0 = k.nr > 0 ? S.g0 : nullptr; /* uploaded by stage_krige */
    KP.g0ld = ncell;
    /* fewer where the core counted no more in any window (every point
     * within radius): the same points, a smaller kernel */
    const int K = t->max_points > 0 && t->max_points < d.max_points ? t->max_points : d.max_points;
    P.k = K;
    if (d.single && krige_needs_double(k))
        KP.single = 0;
    if (krige_big(K, k.omax) || d.quad_max > 0) {
        CK_RET(launch_krige_big(J, P, KP));
    } else {
        const size_t kn = krige_scratch(K, G.w, G.h, k.omax > 0);
        if (kn)
            CK_RET(grow(&S.nbr, &S.nbr_cap, kn));
        int *nbr = kn ? S.nbr : nullptr;
        CK_RET(KP.single ? launch_krige_k<float>(J->st, K, P, KP, nbr)
                         : launch_krige_k<double>(J->st, K, P, KP, nbr));
    }
    return 0;
}

} // namespace gk_gpu
