/* SPDX-License-Identifier: MIT */
/*
 * kriging_big.cu - local kriging with more neighbours than the warp
 * kernels of kriging.cu hold (k above 64, or above 32 with
 * max_points_per_quadrant).
 *
 * Phase 1 is kl_search_kernel's lists (any k), then kr_quad_filter where
 * omax is set. Phase 2 gives a node a block of 128 threads: the same
 * system and the same right-looking Cholesky as krige_kernel (rows [C | c0'
 * | z' | F'], the GLS form of geostat/kriging_local.c), with the matrix in shared
 * memory where it fits and else in a global-memory slot per block (the grid
 * then strides over the nodes, so the slots are bounded), factored there in
 * panels (kb_chol_panels).
 */
#include "families.h"
#include "check.h"
#include "job.h"
#include "krige_state.h"
#include "knn_list.cuh"
#include "krige_cov.cuh"
#include "krige_system.cuh"
#include "local.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>

namespace gk_gpu
{

/* T elements of one node's workspace: K + 2 + PM rows of K + 1, and the
 * node-local x, y, z (3 K). */
__host__ __device__ inline size_t kb_node_elems(int K, int PM)
{
    return (size_t)(K + 2 + PM) * (K + 1) + 3 * (size_t)K;
}

/* Sums of NV values over the block (4 warps); every thread gets them. */
template <class T, int NV> __device__ __forceinline__ void kb_block_sums(T (&v)[NV], T (*red)[NV])
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int q = 0; q < NV; q++)
        for (int o = 16; o > 0; o >>= 1)
            v[q] += __shfl_xor_sync(0xffffffffu, v[q], o);
    __syncthreads();
    if (lane == 0)
#pragma unroll
        for (int q = 0; q < NV; q++)
            red[warp][q] = v[q];
    __syncthreads();
#pragma unroll
    for (int q = 0; q < NV; q++)
        v[q] = red[0][q] + red[1][q] + red[2][q] + red[3][q];
}

template <class T> __device__ __forceinline__ T kb_block_max(T v, T *red)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int o = 16; o > 0; o >>= 1)
        v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
    __syncthreads();
    if (lane == 0)
        red[warp] = v;
    __syncthreads();
    return max(max(red[0], red[1]), max(red[2], red[3]));
}

/* Shared memory of kb_chol_panels: a 32 x 32 tile of the panel's rows (a
 * column of padding against bank conflicts), the diagonal block, its
 * inverse pivots. */
template <class T> __host__ __device__ constexpr size_t kb_panel_scratch()
{
    return (size_t)(32 * 33 + 32 * 33 + 32) * sizeof(T);
}

/* The right-looking loop's factorisation (below) for a matrix in global
 * memory, left-looking in panels of 32 columns: the right-looking loop reads
 * and writes the whole trailing matrix once a column, from DRAM once the
 * blocks' matrices outgrow the L2; here each row's earlier entries are read
 * once a panel. For each panel, a thread per row: the row's update by the
 * earlier columns (the panel's rows staged 32 columns at a time in shared
 * memory), then the diagonal block factored in shared memory and each row
 * below it solved against the block. The same pivots, tested the same way;
 * true when one is not above tolA. */
template <class T> __device__ bool kb_chol_panels(T *M, int LD, int m, int nr, T tolA, T *scr)
{
    constexpr int NB = 32;
    T(*P)[NB + 1] = (T(*)[NB + 1]) scr; /* P[kk][cc]: row j0 + cc, column kt + kk */
    T(*D)[NB + 1] = (T(*)[NB + 1])(scr + NB * (NB + 1));
    T *ij = scr + 2 * NB * (NB + 1);
    const int tid = threadIdx.x, G = blockDim.x;
    for (int j0 = 0; j0 < m; j0 += NB) {
        const int nb = min(NB, m - j0);
        for (int rb = j0; rb < nr; rb += G) {
            const int r = rb + tid;
            const bool live = r < nr;
            T *row = M + (size_t)(live ? r : j0) * LD;
            T acc[NB];
#pragma unroll
            for (int cc = 0; cc < NB; cc++)
                acc[cc] = T(0);
            for (int kt = 0; kt < j0; kt += NB) {
                const int kn = min(NB, j0 - kt);
                __syncthreads();
                for (int e = tid; e < NB * NB; e += G) {
                    const int cc = e / NB, kk = e - cc * NB;
                    P[kk][cc] = kk < kn && cc < nb ? M[(size_t)(j0 + cc) * LD + kt + kk] : T(0);
                }
                __syncthreads();
                if (live)
                    for (int kk = 0; kk < kn; kk++) {
                        const T lr = row[kt + kk];
#pragma unroll
                        for (int cc = 0; cc < NB; cc++)
                            acc[cc] += lr * P[kk][cc];
                    }
            }
            /* the panel's entries of the row, updated (above the diagonal
             * of the block's rows: unused) */
#pragma unroll
            for (int cc = 0; cc < NB; cc++)
                acc[cc] = live && cc < nb ? row[j0 + cc] - acc[cc] : T(0);
            if (rb == j0) { /* the first rows: the diagonal block */
                const bool in_block = r < j0 + nb;
                if (in_block)
#pragma unroll
                    for (int cc = 0; cc < NB; cc++)
                        D[tid][cc] = acc[cc];
                __syncthreads();
                for (int jc = 0; jc < nb; jc++) {
                    const T d = D[jc][jc];
                    if (!(d > tolA)) /* the same on every thread */
                        return true;
                    const T inv = T(1) / sqrt(d);
                    if (tid == 0)
                        ij[jc] = inv;
                    for (int rr = jc + 1 + tid; rr < nb; rr += G)
                        D[rr][jc] *= inv;
                    __syncthreads();
                    for (int e = tid; e < NB * NB; e += G) {
                        const int rr = e / NB, c = e - rr * NB;
                        if (c > jc && c <= rr && rr < nb)
                            D[rr][c] -= D[rr][jc] * D[c][jc];
                    }
                    __syncthreads();
                }
                if (in_block)
                    for (int cc = 0; cc <= tid; cc++)
                        row[j0 + cc] = D[tid][cc];
            }
            if (live && r >= j0 + nb) { /* forward substitution against the block */
#pragma unroll
                for (int cc = 0; cc < NB; cc++)
                    if (cc < nb) {
                        T v = acc[cc];
#pragma unroll
                        for (int k = 0; k < cc; k++)
                            v -= acc[k] * D[cc][k];
                        acc[cc] = v * ij[cc];
                    }
#pragma unroll
                for (int cc = 0; cc < NB; cc++)
                    if (cc < nb)
                        row[j0 + cc] = acc[cc];
            }
        }
        __syncthreads(); /* this panel's entries: the next panels' tiles */
    }
    return false;
}

/* One node per block of 128 threads, K = LP.k neighbours at most; !GM: the
 * workspace in dynamic shared memory, GM: at gmat + blockIdx.x *
 * kb_node_elems, factored by kb_chol_panels (its scratch the dynamic shared
 * memory). X, XM and PM as krige_kernel's. */
template <class T, int PM, bool X, bool XM, bool GM>
__global__ void __launch_bounds__(128)
    kr_block_kernel(LocalParams LP, KrigeParams KP, int j0, int nrows, const int *__restrict__ nbr,
                    const int *__restrict__ cnt, T *gmat)
{
    extern __shared__ __align__(16) unsigned char kb_smem[];
    constexpr int NV = 2 + 2 * PM + PM * (PM + 1) / 2;
    __shared__ T red[4][NV];
    const int K = LP.k, LD = K + 1, tid = threadIdx.x, G = blockDim.x;
    T *M = GM ? gmat + (size_t)blockIdx.x * kb_node_elems(K, PM) : (T *)kb_smem;
    T *px = M + (size_t)(K + 2 + PM) * LD, *py = px + K, *pz = py + K;
    const int w = LP.g.w, p = KP.p, q = 2 + p;
    const T A = (T)KP.A;
    const T tol = KP.single ? T(1e-6) : T(1e-12);
    const size_t N = (size_t)nrows * w;
    for (size_t n = blockIdx.x; n < N; n += gridDim.x) {
        const int jr = (int)(n / w), i0 = (int)(n - (size_t)jr * w);
        const double mx = node_x(LP.g.xmin, LP.g.cw, LP.g.x0 + i0);
        const double my = node_x(LP.g.ymax, LP.g.ch, LP.g.y0 + j0 + jr);
        const size_t o = (size_t)(j0 + jr) * w + i0;
        const int m = min(cnt[n], K);
        double est = LP.nodata, var = LP.nodata;
        const int pre = kr_before_system<X>(KP, o, true, m, LP.min_points, p == 0, p, est, var);
        bool sing = pre == KR_SINGULAR;
        if (pre == KR_SOLVE) {
            const int *sel = nbr + n * K;
            T sx = 0, sy = 0;
            for (int r = tid; r < m; r += G) {
                const int id = sel[r];
                px[r] = (T)(KP.x[id] - mx);
                py[r] = (T)(KP.y[id] - my);
                pz[r] = (T)(LP.zin[id] - KP.zshift);
                sx += px[r];
                sy += py[r];
            }
            __syncthreads();
            /* the polynomial drift's origin and scale of the selection */
            T ox = 0, oy = 0, sc = 1;
            if (X ? KP.poly > 0 : p == 3) {
                T s[NV] = {};
                s[0] = sx;
                s[1] = sy;
                kb_block_sums<T, NV>(s, red);
                ox = s[0] / (T)m;
                oy = s[1] / (T)m;
                T d = 0;
                for (int r = tid; r < m; r += G) {
                    const T ex = px[r] - ox, ey = py[r] - oy;
                    d = max(d, sqrt(ex * ex + ey * ey));
                }
                d = kb_block_max<T>(d, &red[0][0]);
                sc = d > T(0) ? d : T(1);
            }
            kr_assemble<T, X, XM>(KP, M, LD, m, p, px, py, pz, sel, ox, oy, sc, tid, G);
            __syncthreads();
            /* right-looking Cholesky over the m data columns. A thread per
             * column, a warp's 32 columns walking the rows together: row r's
             * L_rj is one broadcast, its entries are consecutive (no bank
             * conflicts in shared memory, coalesced in global memory). */
            const int nr = m + q, lane = tid & 31;
            if constexpr (GM)
                sing = kb_chol_panels<T>(M, LD, m, nr, tol * A, (T *)kb_smem);
            for (int jc = 0; !GM && jc < m; jc++) {
                const T d = M[jc * LD + jc];
                if (!(d > tol * A)) { /* the same on every thread */
                    sing = true;
                    break;
                }
                const T ij = T(1) / sqrt(d);
                for (int r = jc + 1 + tid; r < nr; r += G)
                    M[r * LD + jc] *= ij;
                __syncthreads();
                for (int cb = jc + 1 + (tid - lane); cb < m; cb += G) {
                    const int c = cb + lane;
                    const bool on = c < m;
                    const T lc = on ? M[c * LD + jc] : T(0);
                    int r = cb;
                    /* eight rows' loads before their stores: the compiler
                     * cannot move a load past a store to the same array, and
                     * one row at a time waits on shared memory's latency */
                    for (; r + 8 <= nr; r += 8) {
                        T lr[8], v[8];
#pragma unroll
                        for (int u = 0; u < 8; u++) {
                            lr[u] = M[(r + u) * LD + jc];
                            v[u] = on && c <= r + u ? M[(r + u) * LD + c] : T(0);
                        }
#pragma unroll
                        for (int u = 0; u < 8; u++)
                            if (on && c <= r + u)
                                M[(r + u) * LD + c] = v[u] - lr[u] * lc;
                    }
                    for (; r < nr; r++) {
                        const T lr = M[r * LD + jc];
                        if (on && c <= r)
                            M[r * LD + c] -= lr * lc;
                    }
                }
                __syncthreads();
            }
            if (!sing) {
                const T *ra = M + m * LD, *rw = M + (m + 1) * LD, *rf = M + (m + 2) * LD;
                T s[NV] = {}; /* aa, aw, fa[PM], fw[PM], ff lower triangle */
                for (int c = tid; c < m; c += G) {
                    const T a = ra[c], wv = rw[c];
                    s[0] += a * a;
                    s[1] += a * wv;
                    int t = 2 + 2 * PM;
#pragma unroll
                    for (int u = 0; u < PM; u++) {
                        const T fu = u < p ? rf[u * LD + c] : T(0);
                        s[2 + u] += fu * a;
                        s[2 + PM + u] += fu * wv;
#pragma unroll
                        for (int v = 0; v <= u; v++, t++)
                            s[t] += v < p ? fu * rf[v * LD + c] : T(0);
                    }
                }
                kb_block_sums<T, NV>(s, red);
                T fa[PM], fw[PM], ff[PM][PM] = {};
                int t = 2 + 2 * PM;
#pragma unroll
                for (int u = 0; u < PM; u++) {
                    fa[u] = s[2 + u];
                    fw[u] = s[2 + PM + u];
#pragma unroll
                    for (int v = 0; v <= u; v++, t++)
                        ff[u][v] = s[t];
                }
                double f0[PM];
                kr_target_drift<X, PM, T>(KP, p, ox, oy, sc, o, f0);
                kr_finish<PM, T>(KP, p, s[0], s[1], fa, fw, ff, f0, sing, est, var);
            }
            if (sing)
                est = var = LP.nodata;
        }
        if (tid == 0) {
            LP.out[o] = est;
            if (KP.var)
                KP.var[o] = var;
            if (sing)
                atomicAdd(KP.singular, 1u);
        }
        __syncthreads(); /* the workspace is the next node's */
    }
}

/* Phase 1b, max_points_per_quadrant (gstat's omax, geostat/kriging_local.c's
 * select_points): of each node's list, in (distance, input order), the
 * first omax of each quadrant, compacted in place. The count before the
 * filter decides min_points, as on the CPU: a list under it is emptied, and
 * phase 2 then runs with min_points 0. One thread per node. */
__global__ void kr_quad_filter(LocalParams P, const double *__restrict__ x,
                               const double *__restrict__ y, int omax, int j0, int nrows, int K,
                               int *nbr, int *cnt)
{
    const int w = P.g.w;
    const size_t n = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= (size_t)nrows * w)
        return;
    const int jr = (int)(n / w), i0 = (int)(n - (size_t)jr * w);
    const double nx = node_x(P.g.xmin, P.g.cw, P.g.x0 + i0);
    const double ny = node_x(P.g.ymax, P.g.ch, P.g.y0 + j0 + jr);
    const int m = min(cnt[n], P.k);
    if (m < P.min_points) {
        cnt[n] = 0;
        return;
    }
    int *l = nbr + n * K;
    int taken[4] = {0, 0, 0, 0};
    int o = 0;
    for (int v = 0; v < m; v++) {
        const int id = l[v];
        const int q = kr_quadrant(__dsub_rn(x[id], nx), __dsub_rn(y[id], ny));
        int t = taken[0];
#pragma unroll
        for (int u = 1; u < 4; u++) /* compile-time indices: taken stays in registers */
            t = q == u ? taken[u] : t;
        if (t < omax) {
#pragma unroll
            for (int u = 0; u < 4; u++)
                taken[u] += q == u;
            l[o++] = id;
        }
    }
    cnt[n] = o;
}

/* Kriging's lists (kr_search_kernel's layout, any k): the k nearest of each
 * node of rows [j0, j0 + nrows), nbr[n * K + q] in (distance, input order),
 * cnt[n] the window's count as far as searched. No exact hits (gstat). */
__global__ void __launch_bounds__(128)
    kl_search_kernel(LocalParams P, int j0, int nrows, int *nbr, int *cnt)
{
    extern __shared__ __align__(16) unsigned char kl_smem[];
    const int lane = threadIdx.x & 31, K = P.k;
    KList L = kl_bind(kl_warp_base(P, kl_smem, kl_warp_bytes(K)), K);
    KL_FOR_NODES_N((size_t)nrows * P.g.w, n)
    {
        double nx, ny;
        kl_node_xy(P, n, j0, nx, ny);
        int hit;
        const int count = kl_search(P.B, P.w, nx, ny, L, 0.0, 0.0, hit);
        for (int q = lane; q < L.m; q += 32)
            nbr[n * K + q] = L.I[q];
        if (lane == 0)
            cnt[n] = count;
        __syncwarp();
    }
}

/* Kriging's lists for max_points_per_quadrant over every point (no
 * max_points, no radius; geostat/kriging_local.c sorts the whole set, then filters):
 * each quadrant's omax nearest (gstat's pinwheel) end to end in
 * nbr[n * P.k ...], P.k = 4 omax, and cnt[n] their number; 0 where the set
 * holds fewer than min_points (`enough` 0), as the CPU counts before the
 * filter. */
__global__ void __launch_bounds__(128)
    kl_quad_search_kernel(LocalParams P, int j0, int nrows, int omax, int enough, int *nbr,
                          int *cnt)
{
    extern __shared__ __align__(16) unsigned char kl_smem[];
    const int lane = threadIdx.x & 31, K = P.k;
    KList L[4];
    kl_bind_quadrants(P, kl_smem, omax, L);
    KL_FOR_NODES_N((size_t)nrows * P.g.w, n)
    {
        double nx, ny;
        kl_node_xy(P, n, j0, nx, ny);
        int hit, o = 0;
        kl_search_lists<4, true>(P.B, P.w, nx, ny, L, 0.0, 0.0, hit);
#pragma unroll
        for (int q = 0; q < 4; q++) {
            for (int v = lane; v < L[q].m; v += 32)
                nbr[n * K + o + v] = L[q].I[v];
            o += L[q].m;
        }
        if (lane == 0)
            cnt[n] = enough ? o : 0;
        __syncwarp();
    }
}

/* ---- launches ------------------------------------------------------------- */

/* Lists of any k for another op (rbf.cu): kl_search_kernel's. */
cudaError_t kl_lists_launch(Job *J, const LocalParams &P, int j0, int nr, int *nbr, int *cnt)
{
    return kl_launch(kl_search_kernel, J, P.k, (size_t)nr * P.g.w, P, j0, nr, nbr, cnt);
}

/* More neighbours than the warp kernels take. */
bool krige_big(int k, int omax) { return k > 64 || (omax > 0 && k > 32); }

/* The filter of max_points_per_quadrant on the lists of a band (kriging.cu's
 * two-phase kernels' too). */
void kr_quad_filter_launch(cudaStream_t st, const LocalParams &P, const KrigeParams &KP, int j0,
                           int nr, int K, int *nbr, int *cnt)
{
    const size_t N = (size_t)nr * P.g.w;
    kr_quad_filter<<<(unsigned)((N + 127) / 128), 128, 0, st>>>(P, KP.x, KP.y, KP.omax, j0, nr, K,
                                                                nbr, cnt);
}

/* Phase 2 of the big kernels on a band: the workspace in shared memory, or
 * in a global-memory slot per block (at most 1 GiB of them). */
template <class T, int PM, bool X, bool XM>
static cudaError_t kb_solve(Job *J, const LocalParams &P, const KrigeParams &KP, int j0, int nr,
                            const int *nbr, const int *cnt)
{
    const size_t N = (size_t)nr * P.g.w, bytes = kb_node_elems(P.k, PM) * sizeof(T);
    const size_t red = 4 * sizeof(T) * (2 + 2 * PM + PM * (PM + 1) / 2);
    T *gmat = nullptr;
    size_t sm = 0, blocks;
    cudaError_t e;
    /* in panels (kb_chol_panels) where the system outgrows shared memory,
     * and in double from 96 neighbours (k = 100: 1.53 s against 2.03 s on
     * 2048^2 on an H100; k = 40: 1.66 s against 0.85 s; in single, 1.27 s
     * against 1.15 s at k = 100) */
    const bool panels = bytes + red > (size_t)J->smem_optin || (sizeof(T) == 8 && P.k >= 96);
    if (!panels) {
        sm = bytes;
        /* the most the device allows, the same value from every host thread:
         * a smaller k's setting cannot undercut a launch in flight */
        if ((e = cudaFuncSetAttribute(kr_block_kernel<T, PM, X, XM, false>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      J->smem_optin - (int)red)))
            return e;
        blocks = std::min(N, (size_t)J->nsm * 16);
        kr_block_kernel<T, PM, X, XM, false>
            <<<(unsigned)blocks, 128, sm, J->st>>>(P, KP, j0, nr, nbr, cnt, gmat);
    } else {
        blocks = std::min(
            N, std::max<size_t>(1, std::min((size_t)J->nsm * 16, ((size_t)1 << 30) / bytes)));
        if ((e = grow(&krige_state(J).big, &krige_state(J).big_cap, blocks * bytes)))
            return e;
        gmat = (T *)krige_state(J).big;
        kr_block_kernel<T, PM, X, XM, true>
            <<<(unsigned)blocks, 128, kb_panel_scratch<T>(), J->st>>>(P, KP, j0, nr, nbr, cnt,
                                                                      gmat);
    }
    return cudaGetLastError();
}

template <class T>
static cudaError_t kb_solve_t(Job *J, const LocalParams &P, const KrigeParams &KP, int j0, int nr,
                              const int *nbr, const int *cnt)
{
    if (!krige_extended(KP))
        return kb_solve<T, KR_MAXP, false, false>(J, P, KP, j0, nr, nbr, cnt);
    return KP.ext ? kb_solve<T, KR_XMAXP, true, true>(J, P, KP, j0, nr, nbr, cnt)
                  : kb_solve<T, KR_XMAXP, true, false>(J, P, KP, j0, nr, nbr, cnt);
}

/* Kriging with k = P.k above the warp kernels': per band of rows (lists
 * under 64 M ints), the lists, the quadrant filter, then a block per node. */
cudaError_t launch_krige_big(Job *J, const LocalParams &P, const KrigeParams &KP)
{
    const int K = P.k, w = P.g.w, h = P.g.h;
    const int band = kr_band(K, w, h, 1);
    KrigeState &S = krige_state(J);
    cudaError_t e = grow(&S.nbr, &S.nbr_cap, (size_t)band * w * (K + 1));
    if (e != cudaSuccess)
        return e;
    LocalParams Pc = P; /* per quadrant: min_points is the filter's */
    if (KP.omax > 0)
        Pc.min_points = 0;
    /* omax over every point: each quadrant's omax nearest, searched as such */
    const int qsel = J->d.quad_max;
    const int enough = J->n >= (size_t)std::max(P.min_points, 0);
    for (int j0 = 0; j0 < h; j0 += band) {
        const int nr = std::min(band, h - j0);
        const size_t N = (size_t)nr * w;
        int *nbr = S.nbr, *cnt = nbr + (size_t)K * N;
        if (qsel > 0)
            e = kl_launch_lists(kl_quad_search_kernel, J, qsel, 4, N, P, j0, nr, qsel, enough, nbr,
                                cnt);
        else
            e = kl_launch(kl_search_kernel, J, K, N, P, j0, nr, nbr, cnt);
        if (e)
            return e;
        if (KP.omax > 0 && qsel == 0)
            kr_quad_filter_launch(J->st, P, KP, j0, nr, K, nbr, cnt);
        e = KP.single ? kb_solve_t<float>(J, Pc, KP, j0, nr, nbr, cnt)
                      : kb_solve_t<double>(J, Pc, KP, j0, nr, nbr, cnt);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

} // namespace gk_gpu
