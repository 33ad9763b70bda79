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
 * an H200).
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

/* A = P L U of the warp's N x N system in shared memory, b carried along
 * and then solved into the coefficients: 0, or 1 when singular (a zero or
 * non-finite pivot, a non-finite coefficient). */
__device__ int warp_lu_solve(double *A, double *b, int N, int lane)
{
    for (int c = 0; c < N; c++) {
        double best = -1.0;
        int p = c;
        for (int r = c + lane; r < N; r += 32) {
            const double a = fabs(A[r * N + c]);
            if (a > best)
                best = a, p = r;
        }
        for (int o = 16; o > 0; o >>= 1) { /* the first largest, as idamax */
            const double ob = __shfl_xor_sync(0xffffffffu, best, o);
            const int op = __shfl_xor_sync(0xffffffffu, p, o);
            if (ob > best || (ob == best && op < p))
                best = ob, p = op;
        }
        if (!(best > 0.0) || !isfinite(best))
            return 1;
        if (p != c) {
            for (int j = lane; j < N; j += 32) {
                const double t = A[c * N + j];
                A[c * N + j] = A[p * N + j], A[p * N + j] = t;
            }
            if (lane == 0) {
                const double t = b[c];
                b[c] = b[p], b[p] = t;
            }
        }
        __syncwarp();
        const double inv = 1.0 / A[c * N + c], bc = b[c];
        for (int r = c + 1 + lane; r < N; r += 32) {
            const double l = A[r * N + c] * inv;
            A[r * N + c] = l;
            b[r] -= l * bc;
        }
        __syncwarp();
        for (int j = c + 1 + lane; j < N; j += 32) {
            const double u = A[c * N + j];
            for (int r = c + 1; r < N; r++)
                A[r * N + j] -= A[r * N + c] * u;
        }
        __syncwarp();
    }
    int bad = 0;
    for (int c = N - 1; c >= 0; c--) {
        const double x = b[c] / A[c * N + c];
        bad |= !isfinite(x);
        __syncwarp();
        for (int r = lane; r < c; r += 32)
            b[r] -= A[r * N + c] * x;
        if (lane == 0)
            b[c] = x;
        __syncwarp();
    }
    return bad;
}

/* One block (a warp) a node at a time over the band [j0, j0 + nr): its
 * k-list nbr[n K ..] (K = P.k) and count cnt[n]. */
__global__ void __launch_bounds__(32)
    rbf_nodes(LocalParams P, gk_gpu_rbf rp, const double *x, const double *y, int j0, int nr,
              const int *nbr, const int *cnt, unsigned int *singular)
{
    extern __shared__ __align__(16) double rbf_smem[];
    const int lane = threadIdx.x, K = P.k, w = P.g.w;
    const int M = gk_rbf_terms(rp.degree), NM = K + M;
    double *A = rbf_smem, *b = A + (size_t)NM * NM;
    int *idx = (int *)(b + NM);
    const gk_rbf_spec sp = {rp.kernel, rp.degree, rp.epsilon, rp.smoothing};
    for (size_t n = blockIdx.x; n < (size_t)nr * w; n += gridDim.x) {
        const int i = (int)(n % w), jr = (int)(n / w);
        double nx, ny;
        int grp;
        tile_node(P, i, j0 + jr, nx, ny, grp);
        (void)grp;
        const int m = min(cnt[n], K), N = m + M;
        const int *l = nbr + n * K;
        for (int q = lane; q < m; q += 32) { /* input order, as the CPU sorts them */
            const int e = l[q];
            int rank = 0;
            for (int r = 0; r < m; r++)
                rank += l[r] < e;
            idx[rank] = e;
        }
        __syncwarp();
        double lo0 = INFINITY, hi0 = -INFINITY, lo1 = INFINITY, hi1 = -INFINITY;
        int dup = 0;
        for (int q = lane; q < m; q += 32) {
            const double px = x[idx[q]], py = y[idx[q]];
            lo0 = fmin(lo0, px), hi0 = fmax(hi0, px), lo1 = fmin(lo1, py), hi1 = fmax(hi1, py);
            if (sp.smoothing == 0.0)
                for (int r = 0; r < q; r++)
                    dup |= x[idx[r]] == px && y[idx[r]] == py;
        }
        double shift[2], scale[2];
        lo0 = warp_min(lo0), hi0 = warp_max(hi0), lo1 = warp_min(lo1), hi1 = warp_max(hi1);
        shift[0] = (hi0 + lo0) / 2, scale[0] = (hi0 - lo0) / 2;
        shift[1] = (hi1 + lo1) / 2, scale[1] = (hi1 - lo1) / 2;
        for (int d = 0; d < 2; d++)
            if (scale[d] == 0.0)
                scale[d] = 1.0;
        int sing = m <= 0 || __any_sync(0xffffffffu, dup);
        if (!sing && M) { /* the points carry the monomials? (the CPU's test) */
            int full = 0;
            if (lane == 0)
                full = gk_rbf_full_rank(x, y, idx, m, shift, scale, sp.degree, A);
            sing = !__shfl_sync(0xffffffffu, full, 0);
        }
        double v = P.nodata;
        if (!sing) {
            __syncwarp();
            for (int e = lane; e < m * m; e += 32) {
                const int r = e / m, c = e % m;
                if (r > c) {
                    const double k = gk_rbf_pair(&sp, x, y, idx[r], idx[c]);
                    A[r * N + c] = k, A[c * N + r] = k;
                } else if (r == c) {
                    A[r * N + r] = gk_rbf_phi(sp.kernel, 0.0) + sp.smoothing;
                }
            }
            for (int r = lane; r < m; r += 32) {
                double t[GK_RBF_MAX_TERMS];
                const int p = idx[r];
                gk_monomials((x[p] - shift[0]) / scale[0], (y[p] - shift[1]) / scale[1], sp.degree,
                             t);
                for (int c = 0; c < M; c++)
                    A[r * N + m + c] = t[c], A[(m + c) * N + r] = t[c];
                b[r] = P.zin[p];
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
                    const double dx = nx - x[idx[q]], dy = ny - y[idx[q]];
                    s += b[q] * gk_rbf_phi(sp.kernel, sp.epsilon * sqrt(dx * dx + dy * dy));
                }
                s = warp_sum(s);
                if (M) {
                    double t[GK_RBF_MAX_TERMS], pq = 0.0;
                    gk_monomials((nx - shift[0]) / scale[0], (ny - shift[1]) / scale[1], sp.degree,
                                 t);
                    for (int c = 0; c < M; c++)
                        pq += b[m + c] * t[c];
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
    const size_t smem = ((size_t)NM * NM + NM) * sizeof(double) + (size_t)K * sizeof(int);
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
