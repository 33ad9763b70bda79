/* SPDX-License-Identifier: MIT */
/*
 * rbf.cu - `rbf`'s local systems (algorithms/spline/rbf.c) on the GPU: the
 * k nearest of each node by kriging_big.cu's lists (ties by input order, as
 * the CPU's k-d tree), then a warp a node: the points put in input order,
 * SciPy's frame, the system (rbf_system.h's kernels and monomials) in shared
 * memory, LU with partial pivoting (the first largest pivot, as the CPU's),
 * and the value. The same decisions as the CPU (coincident points, rank,
 * zero pivots); the doubles within test_gpu's tolerance of the CPU's (the
 * order of the sums differs, and log() rounds its own way).
 *
 * The system's N^2 doubles in shared memory bound the warps an SM holds (9
 * at 53 unknowns), and that bounds the speed. A thread a row with the row
 * in registers was tried: 236 registers and a barrier per column made it
 * slower (269 ms against 199 ms, 1M points to 1024^2 with neighbors=50, on
 * an H200). Two warps a system (block-wide reductions, a barrier per step)
 * gained 5 % (1523 ms against 1603, 4096^2 nodes with neighbors=50): the
 * steps of a column's pivot, not the lanes, are what take the time.
 */
#include "call.h"
#include "check.h"
#include "families.h"
#include "job.h"
#include "krige_global_libs.h"
#include "krige_system.cuh"
#include "local.cuh"
#include "op_row.h"

#include "spline/rbf_system.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <new>

namespace gk_gpu
{

struct RbfState {
    gk_gpu_rbf p{};
    int *nbr = nullptr; /* a band's neighbour lists and counts (kl_lists_launch) */
    size_t nbr_cap = 0;
    /* one global system (max_points 0): its coefficients (points in input
     * order, then the monomials), solved by cuSOLVER when the job is made;
     * a clone shares them */
    bool global = false, owner = false;
    double shift[2] = {0, 0}, scale[2] = {1, 1};
    double *coef = nullptr;
};

__device__ __forceinline__ double warp_sum(double v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ double warp_min(double v)
{
    for (int o = 16; o > 0; o >>= 1)
        v = fmin(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ __forceinline__ double warp_max(double v)
{
    for (int o = 16; o > 0; o >>= 1)
        v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

/* LU's panel width: the trailing update reads each entry once a panel. */
constexpr int RBF_NB = 8;

/* Panel [c0, c1)'s rows of U and the trailing update, in column ja and,
 * when TWO, ja + 32 (one column when no lane has a second). */
template <bool TWO>
__device__ __forceinline__ void lu_trail(double *A, int N, int c0, int c1, int ja)
{
    const int jb = ja + 32;
    const bool ha = ja < N, hb = TWO && jb < N;
    double ua[RBF_NB], ub[RBF_NB];
#pragma unroll
    for (int k = 0; k < RBF_NB; k++) { /* U12: the unit lower triangle's substitution */
        double va = 0.0, vb = 0.0;
        if (c0 + k < c1) {
            const double *row = A + (c0 + k) * N;
            va = ha ? row[ja] : 0.0, vb = hb ? row[jb] : 0.0;
#pragma unroll
            for (int q = 0; q < k; q++) {
                const double l = row[c0 + q];
                va -= l * ua[q], vb -= l * ub[q];
            }
        }
        ua[k] = va, ub[k] = vb;
    }
#pragma unroll
    for (int k = 0; k < RBF_NB; k++) {
        double *row = A + (c0 + k) * N;
        if (c0 + k < c1 && ha)
            row[ja] = ua[k];
        if (c0 + k < c1 && hb)
            row[jb] = ub[k];
    }
    int r = c1;
    for (; r + 2 <= N; r += 2) { /* A22 -= L21 U12, two rows' loads before stores */
        double *r0 = A + r * N, *r1 = r0 + N;
        double l0[RBF_NB], l1[RBF_NB];
#pragma unroll
        for (int k = 0; k < RBF_NB; k++)
            l0[k] = c0 + k < c1 ? r0[c0 + k] : 0.0, l1[k] = c0 + k < c1 ? r1[c0 + k] : 0.0;
        const double a0 = ha ? r0[ja] : 0.0, b0 = hb ? r0[jb] : 0.0;
        const double a1 = ha ? r1[ja] : 0.0, b1 = hb ? r1[jb] : 0.0;
        double sa0 = 0.0, sb0 = 0.0, sa1 = 0.0, sb1 = 0.0;
#pragma unroll
        for (int k = 0; k < RBF_NB; k++) {
            sa0 += l0[k] * ua[k], sb0 += l0[k] * ub[k];
            sa1 += l1[k] * ua[k], sb1 += l1[k] * ub[k];
        }
        if (ha)
            r0[ja] = a0 - sa0, r1[ja] = a1 - sa1;
        if (hb)
            r0[jb] = b0 - sb0, r1[jb] = b1 - sb1;
    }
    if (r < N) {
        double *r0 = A + r * N, sa0 = 0.0, sb0 = 0.0;
#pragma unroll
        for (int k = 0; k < RBF_NB; k++) {
            const double l = c0 + k < c1 ? r0[c0 + k] : 0.0;
            sa0 += l * ua[k], sb0 += l * ub[k];
        }
        if (ha)
            r0[ja] -= sa0;
        if (hb)
            r0[jb] -= sb0;
    }
}

/* A = P L U of the warp's N x N system in shared memory, b carried along
 * and then solved into the coefficients: 0, or 1 when singular (a zero or
 * non-finite pivot, a non-finite coefficient). Right-looking by panels of
 * RBF_NB columns (partial pivoting column by column inside the panel, whole
 * rows swapped), then the rest of the panel's rows of U and the trailing
 * update, the panel's U in registers. The SM holds too few warps to hide
 * latencies, so each step issues its loads together before its stores (a
 * lane takes two rows or columns at once), and the pivots' reciprocals,
 * computed while the rows swap, replace U's diagonal for the solve. */
__device__ int warp_lu_solve(double *A, double *b, int N, int lane)
{
    for (int c0 = 0; c0 < N; c0 += RBF_NB) {
        const int c1 = min(c0 + RBF_NB, N);
        for (int c = c0; c < c1; c++) {
            double best = -1.0, sv = 0.0;
            int p = c;
            for (int r = c + lane; r < N; r += 32) {
                const double a = A[r * N + c];
                if (fabs(a) > best)
                    best = fabs(a), sv = a, p = r;
            }
            { /* the first largest, as idamax: a |value|'s bits order as its value */
                const unsigned long long key = best > 0.0 ? __double_as_longlong(best) : 0ull;
                const unsigned hi = (unsigned)(key >> 32), lo = (unsigned)key;
                const unsigned mhi = __reduce_max_sync(0xffffffffu, hi);
                const unsigned mlo = __reduce_max_sync(0xffffffffu, hi == mhi ? lo : 0u);
                p = __reduce_min_sync(0xffffffffu, hi == mhi && lo == mlo ? p : INT_MAX);
                best = __longlong_as_double((long long)(((unsigned long long)mhi << 32) | mlo));
            }
            if (!(best > 0.0) || !isfinite(best))
                return 1;
            /* the pivot from the lane that found it */
            const double inv = 1.0 / __shfl_sync(0xffffffffu, sv, (p - c) & 31);
            if (p != c) {
                double *u = A + c * N, *v = A + p * N;
                for (int j = lane; j < N; j += 64) {
                    const bool h = j + 32 < N;
                    const double u0 = u[j], v0 = v[j];
                    const double u1 = h ? u[j + 32] : 0.0, v1 = h ? v[j + 32] : 0.0;
                    u[j] = v0, v[j] = u0;
                    if (h)
                        u[j + 32] = v1, v[j + 32] = u1;
                }
                if (lane == 0) {
                    const double t = b[c];
                    b[c] = b[p], b[p] = t;
                }
            }
            __syncwarp();
            const double bc = b[c];
            for (int r = c + 1 + lane; r < N; r += 64) { /* rows r and r + 32 */
                const bool h = r + 32 < N;
                double *w0 = A + r * N, *w1 = w0 + 32 * N;
                const double l0 = w0[c] * inv, l1 = h ? w1[c] * inv : 0.0;
                const double b0 = b[r], b1 = h ? b[r + 32] : 0.0;
                w0[c] = l0, b[r] = b0 - l0 * bc;
                if (h)
                    w1[c] = l1, b[r + 32] = b1 - l1 * bc;
                for (int j = c + 1; j < c1; j++) { /* the rest of the panel */
                    const double u = A[c * N + j], a0 = w0[j], a1 = h ? w1[j] : 0.0;
                    w0[j] = a0 - l0 * u;
                    if (h)
                        w1[j] = a1 - l1 * u;
                }
            }
            if (lane == 0)
                A[c * N + c] = inv; /* U's diagonal is read by the solve only */
            __syncwarp();
        }
        for (int j = c1; j < N; j += 64) {
            if (j + 32 < N)
                lu_trail<true>(A, N, c0, c1, j + lane);
            else
                lu_trail<false>(A, N, c0, c1, j + lane);
        }
        __syncwarp();
    }
    int bad = 0;
    for (int c = N - 1; c >= 0; c--) {
        const double x = b[c] * A[c * N + c];
        bad |= !isfinite(x);
        __syncwarp();
        for (int r = lane; r < c; r += 64) {
            const bool h = r + 32 < c;
            const double a0 = A[r * N + c], b0 = b[r];
            const double a1 = h ? A[(r + 32) * N + c] : 0.0, b1 = h ? b[r + 32] : 0.0;
            b[r] = b0 - a0 * x;
            if (h)
                b[r + 32] = b1 - a1 * x;
        }
        if (lane == 0)
            b[c] = x;
        __syncwarp();
    }
    return bad;
}

/* Do the m points' monomials have full column rank? gk_rbf_full_rank's
 * modified Gram-Schmidt, a lane its rows of the columns in W (m x M,
 * column-major) and the dot products by warp_sum: every lane the same sums
 * (a butterfly adds each pair in both orders, which round alike), the same
 * test as the CPU's on sums in another order. */
__device__ int warp_full_rank(const double *px, const double *py, int m, double s0, double s1,
                              double c0, double c1, int degree, double *W, int lane)
{
    const int M = gk_rbf_terms(degree);
    if (m < M)
        return 0;
    for (int i = lane; i < m; i += 32) {
        const double u = (px[i] - s0) / c0, v = (py[i] - s1) / c1;
        for (int j = 0; j < M; j++)
            W[j * m + i] = gk_monomial(u, v, j);
    }
    for (int j = 0; j < M; j++) { /* a lane reads and writes only its own rows */
        double *c = W + j * m, n0 = 0.0, n1 = 0.0;
        for (int i = lane; i < m; i += 32)
            n0 += c[i] * c[i];
        n0 = warp_sum(n0);
        for (int q = 0; q < j; q++) {
            const double *e = W + q * m;
            double d = 0.0;
            for (int i = lane; i < m; i += 32)
                d += e[i] * c[i];
            d = warp_sum(d);
            for (int i = lane; i < m; i += 32)
                c[i] -= d * e[i];
        }
        for (int i = lane; i < m; i += 32)
            n1 += c[i] * c[i];
        n1 = warp_sum(n1);
        if (!(n1 > GK_RBF_RANK_TOL * GK_RBF_RANK_TOL * n0))
            return 0;
        n1 = 1.0 / sqrt(n1);
        for (int i = lane; i < m; i += 32)
            c[i] *= n1;
    }
    return 1;
}

/* Pair e of the lower triangle, (r, c) with r > c and e = r (r - 1) / 2 + c. */
__device__ __forceinline__ void pair_of(int e, int &r, int &c)
{
    r = (int)((1.0 + sqrt(8.0 * e + 1.0)) / 2);
    r -= r * (r - 1) / 2 > e;
    r += (r + 1) * r / 2 <= e;
    c = e - r * (r - 1) / 2;
}

/* One block (a warp) a node at a time over the band [j0, j0 + nr): its
 * k-list nbr[n K ..] (K = P.k) and count cnt[n]. The points' coordinates
 * are staged in shared memory in input order; the kernel's values are
 * computed once a pair, the pairs of the lower triangle spread over the
 * lanes. */
__global__ void __launch_bounds__(32)
    rbf_nodes(LocalParams P, gk_gpu_rbf rp, const double *x, const double *y, int j0, int nr,
              const int *nbr, const int *cnt, unsigned int *singular)
{
    extern __shared__ __align__(16) double rbf_smem[];
    const int lane = threadIdx.x, K = P.k, w = P.g.w;
    const int M = gk_rbf_terms(rp.degree), NM = K + M;
    double *A = rbf_smem, *b = A + (size_t)NM * NM, *px = b + NM, *py = px + K;
    int *idx = (int *)(py + K), *raw = (int *)b; /* raw: the list, before b is used */
    const gk_rbf_spec sp = {rp.kernel, rp.degree, rp.epsilon, rp.smoothing};
    const double phi0 = gk_rbf_phi(sp.kernel, 0.0) + sp.smoothing;
    for (size_t n = blockIdx.x; n < (size_t)nr * w; n += gridDim.x) {
        const int i = (int)(n % w), jr = (int)(n / w);
        double nx, ny;
        int grp;
        tile_node(P, i, j0 + jr, nx, ny, grp);
        (void)grp;
        const int m = min(cnt[n], K), N = m + M;
        const int *l = nbr + n * K;
        for (int q = lane; q < m; q += 32)
            raw[q] = l[q];
        __syncwarp();
        for (int q = lane; q < m; q += 32) { /* input order, as the CPU sorts them */
            const int e = raw[q];
            int rank = 0;
            for (int r = 0; r < m; r++)
                rank += raw[r] < e;
            idx[rank] = e, px[rank] = x[e], py[rank] = y[e];
        }
        __syncwarp();
        double lo0 = INFINITY, hi0 = -INFINITY, lo1 = INFINITY, hi1 = -INFINITY;
        int dup = 0;
        for (int q = lane; q < m; q += 32) {
            const double qx = px[q], qy = py[q];
            lo0 = fmin(lo0, qx), hi0 = fmax(hi0, qx), lo1 = fmin(lo1, qy), hi1 = fmax(hi1, qy);
            if (sp.smoothing == 0.0)
                for (int r = 0; r < q; r++)
                    dup |= px[r] == qx && py[r] == qy;
        }
        lo0 = warp_min(lo0), hi0 = warp_max(hi0), lo1 = warp_min(lo1), hi1 = warp_max(hi1);
        const double s0 = (hi0 + lo0) / 2, s1 = (hi1 + lo1) / 2; /* gk_rbf_frame's */
        double c0 = (hi0 - lo0) / 2, c1 = (hi1 - lo1) / 2;
        c0 = c0 == 0.0 ? 1.0 : c0, c1 = c1 == 0.0 ? 1.0 : c1;
        int sing = m <= 0 || __any_sync(0xffffffffu, dup);
        if (!sing && M) /* the points carry the monomials? (the CPU's test) */
            sing = !warp_full_rank(px, py, m, s0, s1, c0, c1, sp.degree, A, lane);
        double v = P.nodata;
        if (!sing) {
            __syncwarp();
            const int pairs = m * (m - 1) / 2;
            for (int e = lane; e < pairs; e += 64) { /* pairs e and e + 32 */
                const bool h = e + 32 < pairs;
                int r0, q0, r1, q1;
                pair_of(e, r0, q0), pair_of(h ? e + 32 : e, r1, q1);
                const double dx0 = px[r0] - px[q0], dy0 = py[r0] - py[q0];
                const double dx1 = px[r1] - px[q1], dy1 = py[r1] - py[q1];
                const double k0 = gk_rbf_phi(sp.kernel, sp.epsilon * sqrt(dx0 * dx0 + dy0 * dy0));
                const double k1 = gk_rbf_phi(sp.kernel, sp.epsilon * sqrt(dx1 * dx1 + dy1 * dy1));
                A[r0 * N + q0] = k0, A[q0 * N + r0] = k0;
                if (h)
                    A[r1 * N + q1] = k1, A[q1 * N + r1] = k1;
            }
            for (int r = lane; r < m; r += 32) {
                const double u = (px[r] - s0) / c0, v = (py[r] - s1) / c1;
                for (int c = 0; c < M; c++) {
                    const double t = gk_monomial(u, v, c);
                    A[r * N + m + c] = t, A[(m + c) * N + r] = t;
                }
                A[r * N + r] = phi0;
                b[r] = P.zin[idx[r]];
            }
            for (int e = lane; e < M * M; e += 32)
                A[(m + e / M) * N + m + e % M] = 0.0;
            for (int c = lane; c < M; c += 32)
                b[m + c] = 0.0;
            __syncwarp();
            sing = warp_lu_solve(A, b, N, lane);
            if (!sing) {
                double s = 0.0;
                for (int q = lane; q < m; q += 32) {
                    const double dx = nx - px[q], dy = ny - py[q];
                    s += b[q] * gk_rbf_phi(sp.kernel, sp.epsilon * sqrt(dx * dx + dy * dy));
                }
                s = warp_sum(s);
                if (M) {
                    const double u = (nx - s0) / c0, v = (ny - s1) / c1;
                    double pq = 0.0;
                    for (int c = 0; c < M; c++)
                        pq += b[m + c] * gk_monomial(u, v, c);
                    s += pq;
                }
                s += rp.zadd;
                v = isfinite(s) ? s : P.nodata;
            }
        }
        if (lane == 0) {
            if (sing)
                atomicAdd(singular, 1u); /* an integer count: the order does not matter */
            P.out[(size_t)(j0 + jr) * w + i] = v;
        }
        __syncwarp();
    }
}

/* ---- one global system ------------------------------------------------------
 *
 * The system of every point, built on the device and factorised by
 * cuSOLVER's getrf (LU with partial pivoting, as SciPy's LAPACK) when the
 * job is made; then a thread a node sums over the points in their order,
 * from shared-memory tiles. The core has already refused coincident points
 * and points that cannot carry the monomials (spline/rbf.c). */

__global__ void rbf_fill_global(gk_gpu_rbf rp, const double *x, const double *y, const double *z,
                                int n, double s0, double s1, double c0, double c1, double *A,
                                double *b)
{
    const gk_rbf_spec sp = {rp.kernel, rp.degree, rp.epsilon, rp.smoothing};
    const int M = gk_rbf_terms(rp.degree), N = n + M;
    const double shift[2] = {s0, s1}, scale[2] = {c0, c1};
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < (size_t)N * N;
         e += (size_t)gridDim.x * blockDim.x) {
        const int r = (int)(e % N), c = (int)(e / N); /* column-major; the matrix is symmetric */
        double v = 0.0;
        if (r < n && c < n) {
            v = r == c ? gk_rbf_phi(sp.kernel, 0.0) + sp.smoothing
                       : gk_rbf_pair(&sp, x, y, r < c ? c : r, r < c ? r : c);
        } else if (r < n || c < n) {
            const int p = r < n ? r : c, q = (r < n ? c : r) - n;
            double t[GK_RBF_MAX_TERMS];
            gk_monomials((x[p] - shift[0]) / scale[0], (y[p] - shift[1]) / scale[1], sp.degree, t);
            v = t[q];
        }
        A[e] = v;
        if (c == 0)
            b[r] = r < n ? z[r] : 0.0;
    }
}

constexpr int RG_THREADS = 128;

__global__ void __launch_bounds__(RG_THREADS)
    rbf_global_nodes(LocalParams P, gk_gpu_rbf rp, const double *x, const double *y, int n,
                     double s0, double s1, double c0, double c1, const double *coef)
{
    __shared__ double tx[RG_THREADS], ty[RG_THREADS], tc[RG_THREADS];
    const gk_rbf_spec sp = {rp.kernel, rp.degree, rp.epsilon, rp.smoothing};
    const size_t nodes = (size_t)P.g.w * P.g.h;
    const size_t q = (size_t)blockIdx.x * RG_THREADS + threadIdx.x;
    double nx = 0, ny = 0;
    int grp;
    if (q < nodes)
        tile_node(P, (int)(q % P.g.w), (int)(q / P.g.w), nx, ny, grp);
    (void)grp;
    double s = 0.0;
    for (int i0 = 0; i0 < n; i0 += RG_THREADS) { /* the points in their order */
        const int i = i0 + threadIdx.x;
        __syncthreads();
        if (i < n)
            tx[threadIdx.x] = x[i], ty[threadIdx.x] = y[i], tc[threadIdx.x] = coef[i];
        __syncthreads();
        const int e = min(RG_THREADS, n - i0);
        for (int k = 0; k < e; k++) {
            const double dx = nx - tx[k], dy = ny - ty[k];
            s += tc[k] * gk_rbf_phi(sp.kernel, sp.epsilon * sqrt(dx * dx + dy * dy));
        }
    }
    if (q >= nodes)
        return;
    const int M = gk_rbf_terms(rp.degree);
    if (M) {
        const double shift[2] = {s0, s1}, scale[2] = {c0, c1};
        double t[GK_RBF_MAX_TERMS], pq = 0.0;
        gk_monomials((nx - shift[0]) / scale[0], (ny - shift[1]) / scale[1], sp.degree, t);
        for (int c = 0; c < M; c++)
            pq += coef[n + c] * t[c];
        s += pq;
    }
    s += rp.zadd;
    P.out[q] = isfinite(s) ? s : P.nodata;
}

static int global_make(Job *J, RbfState *S, const gk_gpu_job_desc *d, char *err, size_t err_cap)
{
    if (load_libs(err, err_cap))
        return -1;
    const int n = (int)J->n, M = gk_rbf_terms(S->p.degree), N = n + M;
    gk_rbf_frame(d->x, d->y, nullptr, n, S->shift, S->scale); /* the host's points */
    double *A = nullptr, *work = nullptr;
    int *piv = nullptr, *info = nullptr, lwork = 0, h_info = 0;
    cusolverDnHandle_t h = nullptr;
    cudaError_t e;
    int rc = -1;
    if ((e = cudaMalloc(&S->coef, (size_t)N * sizeof(double))) ||
        (e = cudaMalloc(&A, (size_t)N * N * sizeof(double))) ||
        (e = cudaMalloc(&piv, (size_t)N * sizeof(int))) || (e = cudaMalloc(&info, sizeof(int)))) {
        snprintf(err, err_cap, "rbf: the global system of %d points needs %.2f GB on the GPU: %s",
                 n, (double)N * N * 8 / 1e9, cudaGetErrorString(e));
        goto done;
    }
    rbf_fill_global<<<(unsigned)std::min<size_t>(((size_t)N * N + 255) / 256, 65535), 256, 0,
                      J->st>>>(S->p, J->x, J->y, J->z, n, S->shift[0], S->shift[1], S->scale[0],
                               S->scale[1], A, S->coef);
    if ((e = cudaGetLastError()))
        goto cuda_fail;
    if (libs.dn_create(&h) || libs.dn_set_stream(h, J->st) ||
        libs.dn_getrf_bs(h, N, N, A, N, &lwork)) {
        snprintf(err, err_cap, "rbf: cuSOLVER could not start");
        goto done;
    }
    if ((e = cudaMalloc(&work, (size_t)std::max(lwork, 1) * sizeof(double))))
        goto cuda_fail;
    if (libs.dn_getrf(h, N, N, A, N, work, piv, info)) {
        snprintf(err, err_cap, "rbf: cuSOLVER's getrf failed");
        goto done;
    }
    if ((e = cudaMemcpyAsync(&h_info, info, sizeof(int), cudaMemcpyDeviceToHost, J->st)) ||
        (e = cudaStreamSynchronize(J->st)))
        goto cuda_fail;
    if (h_info != 0) {
        snprintf(err, err_cap, "rbf: the system of the %d points is singular", n);
        goto done;
    }
    if (libs.dn_getrs(h, CUBLAS_OP_N, N, 1, A, N, piv, S->coef, N, info)) {
        snprintf(err, err_cap, "rbf: cuSOLVER's getrs failed");
        goto done;
    }
    if ((e = cudaStreamSynchronize(J->st)))
        goto cuda_fail;
    rc = 0;
    goto done;
cuda_fail:
    snprintf(err, err_cap, "rbf: %s", cudaGetErrorString(e));
done:
    if (h)
        libs.dn_destroy(h);
    cudaFree(A), cudaFree(work), cudaFree(piv), cudaFree(info);
    return rc;
}

static int rbf_make(Job *J, const gk_gpu_job_desc *d, char *err, size_t err_cap)
{
    const int M = gk_rbf_terms(d->p.rbf.degree);
    const bool global = d->max_points == 0;
    if ((!global && (d->max_points < 1 || d->max_points + M > GK_GPU_RBF_MAX_N)) ||
        d->p.rbf.degree < -1 || d->p.rbf.degree > GK_RBF_MAX_DEGREE) {
        snprintf(err, err_cap, "rbf: neighbors %d or degree %d out of the kernel's range",
                 d->max_points, d->p.rbf.degree);
        return -1;
    }
    RbfState *S = new (std::nothrow) RbfState;
    if (!S) {
        snprintf(err, err_cap, "out of host memory");
        return -1;
    }
    S->p = d->p.rbf;
    S->global = S->owner = global;
    J->own = S;
    return global ? global_make(J, S, d, err, err_cap) : 0;
}

static void rbf_shrink(void *own)
{
    RbfState *S = static_cast<RbfState *>(own);
    cudaFree(S->nbr);
    S->nbr = nullptr;
    S->nbr_cap = 0;
}

static void rbf_drop(void *own)
{
    if (!own)
        return;
    rbf_shrink(own);
    RbfState *S = static_cast<RbfState *>(own);
    if (S->owner)
        cudaFree(S->coef);
    delete S;
}

static void *rbf_clone(const void *own, char *err, size_t err_cap)
{
    RbfState *S = new (std::nothrow) RbfState;
    if (!S) {
        snprintf(err, err_cap, "out of host memory");
        return nullptr;
    }
    const RbfState *B = static_cast<const RbfState *>(own);
    S->p = B->p; /* a buffer of its own; the global coefficients shared, read only */
    S->global = B->global;
    S->shift[0] = B->shift[0], S->shift[1] = B->shift[1];
    S->scale[0] = B->scale[0], S->scale[1] = B->scale[1];
    S->coef = B->coef;
    return S;
}

static int rbf_tile(Job *J, const Grid &G, const gk_gpu_tile *, int, char *err, size_t err_cap)
{
    RbfState &S = *static_cast<RbfState *>(J->own);
    LocalParams P = local_params(J, G);
    CK_RET(cudaMemsetAsync(J->counters, 0, 4 * sizeof(unsigned int), J->st));
    if (S.global) {
        const size_t nodes = (size_t)G.w * G.h;
        rbf_global_nodes<<<(unsigned)((nodes + RG_THREADS - 1) / RG_THREADS), RG_THREADS, 0,
                           J->st>>>(P, S.p, J->x, J->y, (int)J->n, S.shift[0], S.shift[1],
                                    S.scale[0], S.scale[1], S.coef);
        CK_RET(cudaGetLastError());
        return 0;
    }
    const int K = P.k, w = G.w, h = G.h, NM = K + gk_rbf_terms(S.p.degree);
    const size_t smem =
        ((size_t)NM * NM + NM + 2 * (size_t)K) * sizeof(double) + (size_t)K * sizeof(int);
    CK_RET(cudaFuncSetAttribute(rbf_nodes, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                J->smem_optin));
    if (smem > (size_t)J->smem_optin) {
        snprintf(err, err_cap, "rbf: a system of %d unknowns needs %zu bytes of shared memory", NM,
                 smem);
        return -1;
    }
    const int band = kr_band(K, w, h, 1);
    CK_RET(grow(&S.nbr, &S.nbr_cap, (size_t)std::min(band, h) * w * (K + 1)));
    for (int j0 = 0; j0 < h; j0 += band) {
        const int nr = std::min(band, h - j0);
        int *cnt = S.nbr + (size_t)K * nr * w;
        CK_RET(kl_lists_launch(J, P, j0, nr, S.nbr, cnt));
        const size_t N = (size_t)nr * w;
        const unsigned blocks = (unsigned)std::min(N, (size_t)J->nsm * 32);
        rbf_nodes<<<blocks, 32, smem, J->st>>>(P, S.p, J->x, J->y, j0, nr, S.nbr, cnt,
                                               J->counters + 3);
        CK_RET(cudaGetLastError());
    }
    return 0;
}

const OpRow op_rbf = {true,     true,      ALWAYS,   NEVER,     rbf_make,
                      rbf_drop, rbf_clone, rbf_tile, rbf_shrink};

} // namespace gk_gpu
