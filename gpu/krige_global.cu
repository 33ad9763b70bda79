/* SPDX-License-Identifier: MIT */
/*
 * krige_global.cu - global kriging on the GPU (max_points=0, no radius):
 * algorithms/geostat/kriging_global.c's method with cuSOLVER and cuBLAS.
 *
 * The n x n covariance of the points (ordered by y) is assembled on the GPU
 * and factorised once (cusolverDnDpotrf); the drift's GLS coefficients beta
 * and the dual weights w = C^-1 (z - F beta) follow from triangular solves
 * (the p x p Schur complement on the host, as the CPU computes it). A tile
 * then goes in blocks of nodes: one kernel computes the covariances c0 of a
 * block's nodes (column-major, n x m) and the estimates c0'w + f0'beta; one
 * triangular solve with m right-hand sides (cublasDtrsm) gives L^-1 c0, from
 * the first row where any of the block's c0 is non-zero (the rows above stay
 * exact zeros: compact-support models skip most of the solve); a last
 * kernel takes the column norms and the drift terms of the variance. All
 * sums are fixed-order block reductions: the doubles do not depend on the
 * run. Everything is double, whatever --precision says. Above 46,340 points
 * (n^2 beyond 32-bit integers; the CPU's LAPACK stops there) the same calls
 * go through the 64-bit API (cusolverDnXpotrf, cublasDtrsm_v2_64), as far as
 * the GPU's memory holds the n x n matrix.
 *
 * cuSOLVER and cuBLAS are dlopen()ed when the first global job is made
 * (krige_global_libs.cu): the module links neither.
 */
#include "families.h"
#include "check.h"
#include "krige_cov.cuh"
#include "krige_global_libs.h"

#include <cublas_v2.h>
#include <cusolverDn.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <numeric>
#include <vector>

namespace gk_gpu
{

#define KG_CHOL_TOL 1e-12             /* kriging_global.c's CHOL_TOL */
#define KG_SCHUR_TOL 1e-11            /* and SCHUR_TOL */
#define KG_NT 256                     /* threads per node (one block per node) */
#define KG_C0_BYTES ((size_t)1 << 30) /* right-hand sides of a block */

/* ---- the state of a job ----------------------------------------------------- */

struct KgState {
    int dev = 0;
    cudaStream_t st = nullptr;
    size_t n = 0;
    cusolverDnHandle_t dn = nullptr;
    cublasHandle_t bl = nullptr;
    bool x64 = false; /* cuSOLVER's and cuBLAS's 64-bit API (Libs::x64) */
    /* host: the points ordered by (y, input index), Z in that order, the
     * drift origin and scale (kriging_global.c's, from the input order) */
    std::vector<double> hx, hy, hz;
    std::vector<size_t> perm; /* input index of each of them (external drift) */
    double ox = 0, oy = 0, sc = 1;
    /* device */
    double *px = nullptr, *py = nullptr;
    double *L = nullptr;  /* n x n, column-major; its lower factor after kg_set */
    double *W = nullptr;  /* n x (1 + KR_XMAXP): the dual weights, then L^-1 F */
    double *c0 = nullptr; /* a block's right-hand sides */
    size_t c0_cap = 0;    /* doubles */
    int *dint = nullptr;  /* [0] potrf's info, [1] a block's first non-zero row */
    /* the model */
    bool ready = false, singular = false;
    KrigeParams KP{};
    int p = 0, nbands = 1;
    double c00 = 0, mean = 0;
    double S[KR_XMAXP * KR_XMAXP] = {0}, Sinv[KR_XMAXP] = {0}, beta[KR_XMAXP] = {0};
    double nodata = 0;
};

/* ---- kernels ------------------------------------------------------------------ */

/* The lower triangle of the covariance matrix, columns j = blockIdx.y,
 * blockIdx.y + gridDim.y, ... (gridDim.y is at most 65535).
 * EXT (KP.ext): every model; else Nug, Sph, Exp and Gau, without kcov's
 * call (the same below). */
template <bool EXT>
__global__ void kg_cov_matrix(KrigeParams KP, const double *px, const double *py, int n, double *L)
{
    for (int j = blockIdx.y; j < n; j += gridDim.y) {
        const double xj = px[j], yj = py[j];
        for (int i = j + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            L[(size_t)j * n + i] = i == j ? KP.A : kcov<double, EXT>(KP, px[i] - xj, py[i] - yj);
    }
}

__global__ void kg_set_int(int *p, int v) { *p = v; }

/* Every node nodata (a singular system), all counted. */
__global__ void kg_fill_nodata(double *out, size_t count, size_t ncell, double nodata,
                               unsigned int *singular)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        out[i] = nodata;
    if (i == 0)
        atomicAdd(singular, (unsigned int)ncell);
}

/* What the kernels of a block read. */
struct KgBlock {
    double xmin, ymax, cw, ch; /* the grid: first node's corner, signed cell sizes */
    int x0, y0, w;             /* the tile */
    size_t q0, ncell;          /* the block's first node (tile row-major), the tile's nodes */
    int n, p, lead;
    const double *px, *py, *W;
    const double *g0; /* external drift: the covariates at the tile's nodes, nr blocks of ncell */
    double ox, oy, sc, mean, c00, nodata;
    double S[KR_XMAXP * KR_XMAXP], Sinv[KR_XMAXP], beta[KR_XMAXP];
    double *c0;  /* n x m right-hand sides, or nullptr (estimates only) */
    double *out; /* the tile's bands */
    int *first;  /* the block's first non-zero row (atomicMin) */
    unsigned int *singular;
};

/* gk_grid_node_x / _y, rounded as the CPU's (no contraction) */
__device__ __forceinline__ double kg_node(double origin, double cell, int i)
{
    return __dadd_rn(origin, __dmul_rn((double)i + 0.5, cell));
}

__device__ __forceinline__ void kg_node_xy(const KgBlock &B, size_t q, double &x, double &y)
{
    x = kg_node(B.xmin, B.cw, B.x0 + (int)(q % (size_t)B.w));
    y = kg_node(B.ymax, B.ch, B.y0 + (int)(q / (size_t)B.w));
}

/* Drift at the node: [1, u, v (, u^2, v^2, uv)] in the centred, scaled
 * coordinates, or its average over the block. */
__device__ __forceinline__ void kg_f0(const KrigeParams &KP, const KgBlock &B, size_t q, double x,
                                      double y, double (&f0)[KR_XMAXP])
{
    kr_f0<KR_XMAXP>(KP, B.p, (x - B.ox) / B.sc, (y - B.oy) / B.sc, B.sc, B.g0 ? B.g0 + q : nullptr,
                    B.ncell, f0);
}

/* A node where a drift raster has no value is nodata, not a singular system
 * (geostat/kriging.c's rule, as on the CPU). */
__device__ __forceinline__ bool kg_covariates_ok(const KrigeParams &KP, const KgBlock &B, size_t q)
{
    if (!B.g0)
        return true;
    for (int r = 0; r < KP.nr; r++)
        if (!isfinite(B.g0[(size_t)r * B.ncell + q]))
            return false;
    return true;
}

/* Fixed-order tree sums of K values over the block's KG_NT threads; the
 * totals in sh[k][0]. */
template <int K>
__device__ __forceinline__ void kg_block_sum(const double (&v)[K], double (*sh)[KG_NT])
{
    const int t = threadIdx.x;
#pragma unroll
    for (int k = 0; k < K; k++)
        sh[k][t] = v[k];
    __syncthreads();
    for (int s = KG_NT / 2; s > 0; s >>= 1) {
        if (t < s)
#pragma unroll
            for (int k = 0; k < K; k++)
                sh[k][t] += sh[k][t + s];
        __syncthreads();
    }
}

/* One node per block: its covariances (into c0 when the variance follows),
 * its estimate c0'w + f0'beta (or + mean), and its first non-zero row.
 * BLK: the covariances averaged over the block (block kriging). */
template <bool EXT, bool BLK>
__global__ void __launch_bounds__(KG_NT) kg_estimate(KrigeParams KP, KgBlock B)
{
    __shared__ double sh[1][KG_NT];
    __shared__ int sf[KG_NT];
    const size_t q = B.q0 + blockIdx.x;
    double x, y;
    kg_node_xy(B, q, x, y);
    double *col = B.c0 ? B.c0 + (size_t)blockIdx.x * B.n : nullptr;
    double acc[1] = {0.0};
    int first = B.n;
    for (int i = threadIdx.x; i < B.n; i += KG_NT) {
        const double dx = B.px[i] - x, dy = B.py[i] - y;
        const double c =
            BLK ? kr_cov0_block<double, EXT>(KP, dx, dy) : kcov<double, EXT>(KP, dx, dy);
        if (col)
            col[i] = c;
        acc[0] += c * B.W[i];
        if (c != 0.0 && first == B.n)
            first = i;
    }
    sf[threadIdx.x] = first;
    kg_block_sum<1>(acc, sh); /* its barriers cover sf too */
    for (int s = KG_NT / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            sf[threadIdx.x] = min(sf[threadIdx.x], sf[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x)
        return;
    double e = sh[0][0];
    if (!kg_covariates_ok(KP, B, q)) {
        B.out[q] = B.nodata;
        if (col)
            atomicMin(B.first, sf[0]);
        return;
    }
    if (B.p > 0) {
        double f0[KR_XMAXP];
        kg_f0(KP, B, q, x, y, f0);
        for (int k = 0; k < B.p; k++)
            e += f0[k] * B.beta[k];
    } else {
        e += B.mean;
    }
    if (col) {
        B.out[q] = e; /* checked with the variance */
        atomicMin(B.first, sf[0]);
    } else if (isfinite(e)) {
        B.out[q] = e;
    } else {
        B.out[q] = B.nodata;
        atomicAdd(B.singular, 1u);
    }
}

/* One node per block, after the solve (c0 holds L^-1 c0 from row lead):
 * var = c00 - |L^-1 c0|^2 + r' S^-1 r, r = f0 - (L^-1 F)' (L^-1 c0).
 * NV: 1 + the drift columns it can take. */
template <int NV> __global__ void __launch_bounds__(KG_NT) kg_variance(KrigeParams KP, KgBlock B)
{
    __shared__ double sh[NV][KG_NT];
    const size_t q = B.q0 + blockIdx.x;
    const double *a = B.c0 + (size_t)blockIdx.x * B.n;
    const double *F = B.W + B.n; /* L^-1 F, p columns */
    double v[NV] = {};
    for (int i = B.lead + threadIdx.x; i < B.n; i += KG_NT) {
        const double ai = a[i];
        v[0] += ai * ai;
        for (int k = 0; k < B.p; k++)
            v[1 + k] += F[(size_t)k * B.n + i] * ai;
    }
    kg_block_sum<NV>(v, sh);
    if (threadIdx.x)
        return;
    if (!kg_covariates_ok(KP, B, q)) {
        B.out[B.ncell + q] = B.nodata;
        return;
    }
    double var = B.c00 - sh[0][0];
    if (B.p > 0) {
        double x, y, f0[KR_XMAXP], r[KR_XMAXP], t[KR_XMAXP];
        kg_node_xy(B, q, x, y);
        kg_f0(KP, B, q, x, y, f0);
        for (int k = 0; k < B.p; k++)
            r[k] = t[k] = f0[k] - sh[1 + k][0];
        /* S^-1 r with S's factor (row-major lower, 1 / diagonal in Sinv) */
        for (int i = 0; i < B.p; i++) {
            double s = t[i];
            for (int k = 0; k < i; k++)
                s -= B.S[i * B.p + k] * t[k];
            t[i] = s * B.Sinv[i];
        }
        for (int i = B.p - 1; i >= 0; i--) {
            t[i] *= B.Sinv[i];
            for (int k = 0; k < i; k++)
                t[k] -= B.S[i * B.p + k] * t[i];
        }
        for (int k = 0; k < B.p; k++)
            var += r[k] * t[k];
    }
    if (var < 0.0) /* rounding at a datum */
        var = 0.0;
    const double e = B.out[q];
    if (isfinite(e) && isfinite(var)) {
        B.out[B.ncell + q] = var;
    } else {
        B.out[q] = B.out[B.ncell + q] = B.nodata;
        atomicAdd(B.singular, 1u);
    }
}

/* ---- host helpers ------------------------------------------------------------- */

/* cublasDtrsm with L's lower triangle on the left, or its 64-bit form (x64) */
static cublasStatus_t kg_trsm(const KgState *g, cublasOperation_t op, size_t m, size_t ncol,
                              const double *one, const double *A, size_t lda, double *B, size_t ldb)
{
    if (g->x64)
        return libs.bl_trsm64(g->bl, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, op,
                              CUBLAS_DIAG_NON_UNIT, (int64_t)m, (int64_t)ncol, one, A, (int64_t)lda,
                              B, (int64_t)ldb);
    return libs.bl_trsm(g->bl, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, op, CUBLAS_DIAG_NON_UNIT,
                        (int)m, (int)ncol, one, A, (int)lda, B, (int)ldb);
}

/* kg_estimate over nodes nodes, its EXT instantiation only where the model needs it */
static void kg_estimate_launch(const KgState *g, const KgBlock &B, unsigned nodes)
{
    const bool blk = g->KP.nb > 1;
    if (g->KP.ext)
        (blk ? kg_estimate<true, true>
             : kg_estimate<true, false>)<<<nodes, KG_NT, 0, g->st>>>(g->KP, B);
    else
        (blk ? kg_estimate<false, true>
             : kg_estimate<false, false>)<<<nodes, KG_NT, 0, g->st>>>(g->KP, B);
}

#define KG_CK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            snprintf(err, err_cap, "%s (%s:%d)", cudaGetErrorString(e_), __FILE__, __LINE__);      \
            cudaGetLastError();                                                                    \
            return e_ == cudaErrorMemoryAllocation ? GK_GPU_TILE_NOMEM : -1;                       \
        }                                                                                          \
    } while (0)

#define KG_BL(call, what)                                                                          \
    do {                                                                                           \
        cublasStatus_t s_ = (call);                                                                \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                         \
            snprintf(err, err_cap, "%s failed (cuBLAS status %d)", what, (int)s_);                 \
            return s_ == CUBLAS_STATUS_ALLOC_FAILED ? GK_GPU_TILE_NOMEM : -1;                      \
        }                                                                                          \
    } while (0)

/* The p x p Cholesky of kriging_global.c (gk_krige_chol): row-major lower,
 * 1 / diagonal in inv; -1 when a pivot is below tol times its diagonal. */
static int small_chol(double *a, int n, double *inv, double tol)
{
    for (int i = 0; i < n; i++) {
        double *ri = a + i * n;
        for (int j = 0; j < i; j++) {
            const double *rj = a + j * n;
            double s = 0.0;
            for (int k = 0; k < j; k++)
                s += ri[k] * rj[k];
            ri[j] = (ri[j] - s) * inv[j];
        }
        double d = ri[i], s = 0.0;
        for (int k = 0; k < i; k++)
            s += ri[k] * ri[k];
        s = d - s;
        if (!(s > tol * fabs(d)))
            return -1;
        ri[i] = sqrt(s);
        inv[i] = 1.0 / ri[i];
    }
    return 0;
}

static void small_solve(const double *l, int n, const double *inv, double *b)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int k = 0; k < i; k++)
            s += l[i * n + k] * b[k];
        b[i] = (b[i] - s) * inv[i];
    }
    for (int i = n - 1; i >= 0; i--) {
        b[i] *= inv[i];
        for (int k = 0; k < i; k++)
            b[k] -= l[i * n + k] * b[i];
    }
}

/* ---- the interface ------------------------------------------------------------ */

void kg_free(KgState *g)
{
    if (!g)
        return;
    cudaSetDevice(g->dev);
    if (g->st)
        cudaStreamSynchronize(g->st);
    if (g->dn)
        libs.dn_destroy(g->dn);
    if (g->bl)
        libs.bl_destroy(g->bl);
    void *ptrs[] = {g->px, g->py, g->L, g->W, g->c0, g->dint};
    for (void *p : ptrs)
        if (p)
            cudaFree(p);
    cudaGetLastError();
    delete g;
}

/* kg_new's device part: the libraries' handles on st, the factor's memory,
 * the points. 0, or -1 and a reason (g then freed by the caller). */
static int kg_open(KgState *g, int dev, cudaStream_t st, char *err, size_t err_cap)
{
    const size_t n = g->n;
    cudaError_t e;
    const auto cuda_fails = [&](cudaError_t why) {
        snprintf(err, err_cap, "global kriging: %s", cudaGetErrorString(why));
        return -1;
    };
    const size_t nb = n * sizeof(double);
    if ((e = cudaSetDevice(dev)) != cudaSuccess)
        return cuda_fails(e);
    if (libs.dn_create(&g->dn) != CUSOLVER_STATUS_SUCCESS) {
        g->dn = nullptr;
        snprintf(err, err_cap, "global kriging: cusolverDnCreate failed");
        return -1;
    }
    if (libs.bl_create(&g->bl) != CUBLAS_STATUS_SUCCESS) {
        g->bl = nullptr;
        snprintf(err, err_cap, "global kriging: cublasCreate failed");
        return -1;
    }
    if (libs.dn_set_stream(g->dn, st) != CUSOLVER_STATUS_SUCCESS ||
        libs.bl_set_stream(g->bl, st) != CUBLAS_STATUS_SUCCESS) {
        snprintf(err, err_cap, "global kriging: setting the stream of cuSOLVER / cuBLAS failed");
        return -1;
    }
    /* the factor's memory now: a GPU too small for it leaves the job to the CPU */
    if ((e = cudaMalloc(&g->L, n * nb)) != cudaSuccess) {
        cudaGetLastError();
        size_t mfree = 0, mtotal = 0;
        cudaMemGetInfo(&mfree, &mtotal);
        snprintf(err, err_cap,
                 "out of GPU memory for the %zu x %zu covariance matrix of global kriging "
                 "(%.2f GB; the GPU has %.2f GB free of %.2f)",
                 n, n, (double)n * nb / 1e9, (double)mfree / 1e9, (double)mtotal / 1e9);
        return -1;
    }
    if ((e = cudaMalloc(&g->W, (1 + KR_XMAXP) * nb)) != cudaSuccess ||
        (e = cudaMalloc(&g->px, nb)) != cudaSuccess ||
        (e = cudaMalloc(&g->py, nb)) != cudaSuccess ||
        (e = cudaMalloc(&g->dint, 2 * sizeof(int))) != cudaSuccess ||
        (e = cudaMemcpyAsync(g->px, g->hx.data(), nb, cudaMemcpyHostToDevice, st)) != cudaSuccess ||
        (e = cudaMemcpyAsync(g->py, g->hy.data(), nb, cudaMemcpyHostToDevice, st)) != cudaSuccess ||
        (e = cudaStreamSynchronize(st)) != cudaSuccess)
        return cuda_fails(e);
    return 0;
}

KgState *kg_new(int dev, cudaStream_t st, const gk_gpu_job_desc *d, char *err, size_t err_cap)
{
    const size_t n = d->n;
    if (n > (size_t)INT_MAX / 2) { /* the kernels count points in int */
        snprintf(err, err_cap, "global kriging of %zu points: too many (give max_points=)", n);
        return nullptr;
    }
    if (load_libs(err, err_cap))
        return nullptr;
    /* above KG_MAX_N points the 64-bit API (GRIDKIT_GPU_KG_X64=1: always, for tests) */
    const char *xe = getenv("GRIDKIT_GPU_KG_X64");
    const bool x64 = n > KG_MAX_N || (xe && atoi(xe) > 0);
    if (x64 && !libs.x64) {
        snprintf(err, err_cap,
                 "global kriging of %zu points needs the 64-bit API of cuSOLVER and cuBLAS "
                 "(cusolverDnXpotrf, cublasDtrsm_v2_64: CUDA 12 on), which the libraries "
                 "found lack (give max_points=)",
                 n);
        return nullptr;
    }
    KgState *g = new (std::nothrow) KgState;
    if (!g) {
        snprintf(err, err_cap, "out of host memory");
        return nullptr;
    }
    g->dev = dev;
    g->st = st;
    g->n = n;
    g->x64 = x64;
    g->nodata = d->nodata;
    try {
        std::vector<size_t> perm(n);
        std::iota(perm.begin(), perm.end(), (size_t)0);
        const double *Y = d->y;
        std::sort(perm.begin(), perm.end(),
                  [Y](size_t a, size_t b) { return Y[a] < Y[b] || (Y[a] == Y[b] && a < b); });
        g->hx.resize(n);
        g->hy.resize(n);
        g->hz.resize(n);
        for (size_t i = 0; i < n; i++) {
            g->hx[i] = d->x[perm[i]];
            g->hy[i] = d->y[perm[i]];
            g->hz[i] = d->z[perm[i]];
        }
        g->perm = std::move(perm);
    } catch (...) {
        snprintf(err, err_cap, "out of host memory");
        delete g;
        return nullptr;
    }
    /* the drift's origin and scale as kriging_global.c takes them */
    double ox = 0, oy = 0, sc = 0;
    for (size_t i = 0; i < n; i++)
        ox += d->x[i], oy += d->y[i];
    ox /= (double)n;
    oy /= (double)n;
    for (size_t i = 0; i < n; i++)
        sc = fmax(sc, hypot(d->x[i] - ox, d->y[i] - oy));
    if (!(sc > 0))
        sc = 1.0;
    g->ox = ox, g->oy = oy, g->sc = sc;

    if (kg_open(g, dev, st, err, err_cap)) {
        cudaGetLastError();
        kg_free(g);
        return nullptr;
    }
    return g;
}

int kg_set(KgState *g, const gk_gpu_krige *k, char *err, size_t err_cap)
{
    /* drift: 1 + poly polynomial columns, then nr covariates */
    if (!(k->p == 0 || (k->p == 1 + k->poly + k->nr && k->p <= KR_XMAXP)) ||
        (k->nr > 0 && !k->gpts) || k->nbands < 1 || k->nbands > 2) {
        snprintf(err, err_cap, "global kriging parameters the GPU module cannot use");
        return -1;
    }
    const size_t n = g->n;
    const int p = k->p, nr = 1 + p;
    g->ready = g->singular = false;
    g->p = p;
    g->nbands = k->nbands;
    g->c00 = k->c00;
    g->mean = k->mean;
    g->KP = KrigeParams{};
    krige_params_fill(g->KP, *k);
    g->KP.single = 0;
    g->KP.fastf = 0;
    const cudaStream_t st = g->st;
    const int ni = (int)n;
    int info = 0, lwork = 0;
    double *work = nullptr;
    std::vector<double> diag, R;
    try {
        diag.resize(n);
        R.resize(n * nr);
    } catch (...) {
        snprintf(err, err_cap, "out of host memory");
        return -1;
    }
    KG_CK(cudaSetDevice(g->dev));
    {
        dim3 grid((unsigned)std::min<size_t>((n + 255) / 256, 64),
                  (unsigned)std::min<size_t>(n, 65535));
        if (g->KP.ext)
            kg_cov_matrix<true><<<grid, 256, 0, st>>>(g->KP, g->px, g->py, ni, g->L);
        else
            kg_cov_matrix<false><<<grid, 256, 0, st>>>(g->KP, g->px, g->py, ni, g->L);
        KG_CK(cudaGetLastError());
    }
    /* the factor: cusolverDnDpotrf, or its 64-bit form (x64) */
    const char *fname = g->x64 ? "cusolverDnXpotrf" : "cusolverDnDpotrf";
    cusolverDnParams_t prm = nullptr;
    size_t wbytes = 0, hbytes = 0;
    std::vector<char> hwork; /* the 64-bit form's host workspace */
    bool bs_ok;
    if (g->x64) {
        bs_ok =
            libs.dn_create_params(&prm) == CUSOLVER_STATUS_SUCCESS &&
            libs.dn_xpotrf_bs(g->dn, prm, CUBLAS_FILL_MODE_LOWER, (int64_t)n, CUDA_R_64F, g->L,
                              (int64_t)n, CUDA_R_64F, &wbytes, &hbytes) == CUSOLVER_STATUS_SUCCESS;
    } else {
        bs_ok = libs.dn_potrf_bs(g->dn, CUBLAS_FILL_MODE_LOWER, ni, g->L, ni, &lwork) ==
                CUSOLVER_STATUS_SUCCESS;
        wbytes = (size_t)std::max(lwork, 0) * sizeof(double);
    }
    try {
        hwork.resize(hbytes);
    } catch (...) {
        bs_ok = false;
    }
    if (!bs_ok) {
        if (prm)
            libs.dn_destroy_params(prm);
        snprintf(err, err_cap, "%s_bufferSize failed", fname);
        return -1;
    }
    if (cudaMalloc(&work, std::max<size_t>(wbytes, sizeof(double))) != cudaSuccess) {
        cudaGetLastError();
        if (prm)
            libs.dn_destroy_params(prm);
        snprintf(err, err_cap, "out of GPU memory for %s's workspace (%.2f GB)", fname,
                 (double)wbytes / 1e9);
        return -1;
    }
    {
        cusolverStatus_t s =
            g->x64
                ? libs.dn_xpotrf(g->dn, prm, CUBLAS_FILL_MODE_LOWER, (int64_t)n, CUDA_R_64F, g->L,
                                 (int64_t)n, CUDA_R_64F, work, wbytes,
                                 hbytes ? hwork.data() : nullptr, hbytes, g->dint)
                : libs.dn_potrf(g->dn, CUBLAS_FILL_MODE_LOWER, ni, g->L, ni, work, lwork, g->dint);
        cudaError_t e1 = cudaMemcpyAsync(&info, g->dint, sizeof info, cudaMemcpyDeviceToHost, st);
        cudaError_t e2 =
            cudaMemcpy2DAsync(diag.data(), sizeof(double), g->L, (n + 1) * sizeof(double),
                              sizeof(double), n, cudaMemcpyDeviceToHost, st);
        cudaError_t e3 = cudaStreamSynchronize(st);
        cudaFree(work);
        if (prm)
            libs.dn_destroy_params(prm);
        if (s != CUSOLVER_STATUS_SUCCESS) {
            snprintf(err, err_cap, "%s failed (status %d)", fname, (int)s);
            return -1;
        }
        KG_CK(e1);
        KG_CK(e2);
        KG_CK(e3);
    }
    if (info < 0) {
        snprintf(err, err_cap, "%s: bad argument %d", fname, -info);
        return -1;
    }
    /* kriging_global.c's rule: a failed factor or a pivot below CHOL_TOL */
    bool sing = info > 0 || (p > 0 && n < (size_t)p);
    for (size_t i = 0; !sing && i < n; i++)
        if (!(diag[i] * diag[i] > KG_CHOL_TOL * g->KP.A))
            sing = true;
    if (sing) {
        g->singular = g->ready = true;
        return 0;
    }

    /* [z | F] in the points' order, then L^-1 of it: w0 and B = L^-1 F */
    for (size_t i = 0; i < n; i++) {
        R[i] = g->hz[i] - (p == 0 ? k->mean : 0.0);
        const double u = (g->hx[i] - g->ox) / g->sc, v = (g->hy[i] - g->oy) / g->sc;
        const int np = p - k->nr;
        for (int c = 0; c < np; c++)
            R[(1 + c) * n + i] = kr_poly<double>(c, u, v);
        for (int r = 0; r < k->nr && p > 0; r++)
            R[(1 + np + r) * n + i] = k->gpts[(size_t)r * n + g->perm[i]];
    }
    const double one = 1.0;
    KG_CK(cudaMemcpyAsync(g->W, R.data(), n * nr * sizeof(double), cudaMemcpyHostToDevice, st));
    KG_BL(kg_trsm(g, CUBLAS_OP_N, n, nr, &one, g->L, n, g->W, n), "cublasDtrsm");
    if (p > 0) {
        /* the Schur complement S = B'B and beta on the host, as the CPU */
        KG_CK(cudaMemcpyAsync(R.data(), g->W, n * nr * sizeof(double), cudaMemcpyDeviceToHost, st));
        KG_CK(cudaStreamSynchronize(st));
        double *w = R.data();
        const double *B = w + n;
        double btw[KR_XMAXP];
        for (int c = 0; c < p; c++) {
            const double *bc = B + (size_t)c * n;
            for (int dd = 0; dd <= c; dd++) {
                const double *bd = B + (size_t)dd * n;
                double s = 0;
                for (size_t i = 0; i < n; i++)
                    s += bc[i] * bd[i];
                g->S[c * p + dd] = s;
            }
            double s = 0;
            for (size_t i = 0; i < n; i++)
                s += bc[i] * w[i];
            btw[c] = s;
        }
        if (small_chol(g->S, p, g->Sinv, KG_SCHUR_TOL)) {
            g->singular = g->ready = true;
            return 0;
        }
        memcpy(g->beta, btw, (size_t)p * sizeof *btw);
        small_solve(g->S, p, g->Sinv, g->beta);
        for (int c = 0; c < p; c++) {
            const double *bc = B + (size_t)c * n;
            for (size_t i = 0; i < n; i++)
                w[i] -= bc[i] * g->beta[c];
        }
        KG_CK(cudaMemcpyAsync(g->W, w, n * sizeof(double), cudaMemcpyHostToDevice, st));
    }
    /* the dual weights: L^-T (w0 - B beta) */
    KG_BL(kg_trsm(g, CUBLAS_OP_T, n, 1, &one, g->L, n, g->W, n), "cublasDtrsm");
    KG_CK(cudaStreamSynchronize(st));
    g->ready = true;
    return 0;
}

int kg_tile(KgState *g, const gk_gpu_tile *t, const double *g0, double *out, unsigned int *singular,
            char *err, size_t err_cap)
{
    if (!g->ready) {
        snprintf(err, err_cap, "global kriging job without its parameters");
        return -1;
    }
    const size_t ncell = (size_t)t->w * t->h, n = g->n;
    const cudaStream_t st = g->st;
    KG_CK(cudaSetDevice(g->dev));
    if (g->singular) {
        const size_t count = ncell * g->nbands;
        kg_fill_nodata<<<(unsigned)((count + 255) / 256), 256, 0, st>>>(out, count, ncell,
                                                                        g->nodata, singular);
        KG_CK(cudaGetLastError());
        return 0;
    }
    KgBlock B{};
    B.xmin = t->xmin;
    B.ymax = t->ymax;
    B.cw = (t->xmax - t->xmin) / t->nx;
    B.ch = (t->ymin - t->ymax) / t->ny;
    B.x0 = t->x0;
    B.y0 = t->y0;
    B.w = t->w;
    B.ncell = ncell;
    B.n = (int)n;
    B.p = g->p;
    B.px = g->px;
    B.py = g->py;
    B.W = g->W;
    B.g0 = g0;
    B.ox = g->ox;
    B.oy = g->oy;
    B.sc = g->sc;
    B.mean = g->mean;
    B.c00 = g->c00;
    B.nodata = g->nodata;
    memcpy(B.S, g->S, sizeof B.S);
    memcpy(B.Sinv, g->Sinv, sizeof B.Sinv);
    memcpy(B.beta, g->beta, sizeof B.beta);
    B.out = out;
    B.first = g->dint + 1;
    B.singular = singular;
    if (g->nbands < 2) { /* estimates only: no right-hand sides to keep */
        B.q0 = 0;
        B.c0 = nullptr;
        kg_estimate_launch(g, B, (unsigned)ncell);
        KG_CK(cudaGetLastError());
        return 0;
    }
    /* nodes per block: KG_C0_BYTES of right-hand sides (GRIDKIT_GPU_KG_COLS
     * sets it, for tests), fewer when the GPU has less */
    size_t m = std::max<size_t>(1, KG_C0_BYTES / (n * sizeof(double)));
    const char *ce = getenv("GRIDKIT_GPU_KG_COLS");
    if (ce && atoi(ce) > 0)
        m = (size_t)atoi(ce);
    m = std::min(m, ncell);
    const size_t lim = tile_mem_limit(); /* check.h: a simulated small GPU */
    if (lim)
        m = std::min(m, lim / (n * sizeof(double)));
    if (m == 0) {
        snprintf(err, err_cap, "no GPU memory for one node's right-hand side");
        return GK_GPU_TILE_NOMEM;
    }
    while (g->c0_cap < n * m) {
        if (g->c0)
            cudaFree(g->c0);
        g->c0 = nullptr;
        g->c0_cap = 0;
        if (cudaMalloc(&g->c0, n * m * sizeof(double)) == cudaSuccess) {
            g->c0_cap = n * m;
            break;
        }
        cudaGetLastError();
        g->c0 = nullptr;
        if (m < 64) {
            snprintf(err, err_cap, "out of GPU memory for global kriging's right-hand sides");
            return GK_GPU_TILE_NOMEM;
        }
        m /= 2;
    }
    B.c0 = g->c0;
    const double one = 1.0;
    for (size_t q0 = 0; q0 < ncell; q0 += m) {
        const size_t mb = std::min(m, ncell - q0);
        B.q0 = q0;
        kg_set_int<<<1, 1, 0, st>>>(B.first, (int)n);
        kg_estimate_launch(g, B, (unsigned)mb);
        KG_CK(cudaGetLastError());
        int lead = 0;
        KG_CK(cudaMemcpyAsync(&lead, B.first, sizeof lead, cudaMemcpyDeviceToHost, st));
        KG_CK(cudaStreamSynchronize(st));
        /* rows before lead are zero in every column, and stay zero */
        if (lead < (int)n)
            KG_BL(kg_trsm(g, CUBLAS_OP_N, n - lead, mb, &one, g->L + (size_t)lead * n + lead, n,
                          g->c0 + lead, n),
                  "cublasDtrsm");
        B.lead = lead;
        if (g->p <= 3) /* the sums a node takes: 1 + p */
            kg_variance<4><<<(unsigned)mb, KG_NT, 0, st>>>(g->KP, B);
        else
            kg_variance<1 + KR_XMAXP><<<(unsigned)mb, KG_NT, 0, st>>>(g->KP, B);
        KG_CK(cudaGetLastError());
    }
    return 0;
}

} // namespace gk_gpu
