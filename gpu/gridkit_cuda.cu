/*
 * gridkit_cuda.cu - gridkit's CUDA module: the gridding kernels behind the C
 * ABI of gk_gpu_abi.h. Built as a shared object with the CUDA runtime linked
 * statically, dlopen()ed by the core (algorithms/core/device.c) when a GPU is used.
 *
 * Points are uploaded once per job. invdist over every point needs no index:
 * point tiles stream through shared memory (single precision on tile-local,
 * cell-scaled coordinates, or double), split over slices of the points so
 * that any tile size fills the GPU, with a fixed-order reduction. The local
 * algorithms use a uniform bin grid built on the GPU (radix sort of bin ids,
 * stable, so points of a bin stay in input order) and search it in double
 * precision with gdal_grid's exact rules: window tests written without
 * contraction (__dmul_rn/__dadd_rn) so they round as the CPU's do, ties by
 * input order, exact hits, min_points and nodata as algorithms/alg_*.c.
 */
#include "core/gpu_abi.h"
#include "krige_global.h"
#include "linear_gpu.h"

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#define GK_EXPORT extern "C" __attribute__((visibility("default")))

/* ---- the job ------------------------------------------------------------ */

namespace
{

struct Job {
    int dev = 0;
    gk_gpu_job_desc d{};
    size_t n = 0;
    std::mutex mu;
    cudaStream_t st = nullptr;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    float last_ms = -1.0f;
    /* input order */
    double *x = nullptr, *y = nullptr, *z = nullptr;
    double zc = 0.0; /* mid-range of Z (single precision sums) */
    /* bin grid (local algorithms) */
    double2 *sxy = nullptr; /* points in bin order */
    double *sz = nullptr;
    int *sidx = nullptr;   /* their input indices */
    int *bstart = nullptr; /* nbins + 1 */
    int nbx = 1, nby = 1;
    double gx0 = 0, gy0 = 0, bsx = 1, bsy = 1, ibsx = 1, ibsy = 1, margin = 0;
    double pxmax = 0, pymax = 0;
    /* per-tile buffers, grown on demand */
    double *out = nullptr;
    size_t out_cap = 0;
    double2 *part = nullptr;
    size_t part_cap = 0;
    int *flags = nullptr;
    size_t flags_cap = 0;
    float4 *pf = nullptr; /* tile-local single-precision points */
    int *flag_list = nullptr;
    size_t flag_list_cap = 0;
    unsigned int *counters = nullptr; /* [0] flagged cells, [1] nodata, [3] singular systems */
    int nsm = 132;
    int smem_optin = 48 << 10; /* dynamic shared memory a block may opt in to */
    gk_gpu_krige kr{};
    int kr_set = 0;
    int *knbr = nullptr; /* kriging: neighbours of a band of rows, then counts */
    size_t knbr_cap = 0;
    unsigned char *kbig = nullptr; /* kriging beyond shared memory: a system per block */
    size_t kbig_cap = 0;  /* bytes */
    unsigned char *klg = nullptr; /* k-lists beyond shared memory: a warp's each */
    size_t klg_cap = 0;   /* bytes */
    double *kgp = nullptr; /* external drift: the covariates at the points */
    double *kg0 = nullptr; /* and at a tile's nodes */
    size_t kg0_cap = 0;
    KgState *kg = nullptr; /* global kriging (krige_global.cu) */
    LinState *lin = nullptr; /* linear (linear_kernels.cu) */
    const Job *base = nullptr; /* a clone: the points and bins are base's */
};

static thread_local cudaError_t ck_last = cudaSuccess; /* the error CK last saw */

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            ck_last = e_;                                                                          \
            snprintf(err, err_cap, "%s (%s:%d)", cudaGetErrorString(e_), __FILE__, __LINE__);      \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* Tuning knobs read from the environment (benchmarks and tests). */
static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

/* GRIDKIT_GPU_TILE_MEM (bytes): refuse larger per-tile buffers, as a GPU with
 * that little free memory would (tests of the split on out-of-memory). */
static size_t tile_mem_limit()
{
    const char *e = getenv("GRIDKIT_GPU_TILE_MEM");
    return e && *e ? (size_t)strtoull(e, nullptr, 10) : (size_t)0;
}

template <class T> static cudaError_t grow(T **p, size_t *cap, size_t n)
{
    if (n <= *cap)
        return cudaSuccess;
    if (*p)
        cudaFree(*p);
    *p = nullptr;
    *cap = 0;
    if (tile_mem_limit() && n * sizeof(T) > tile_mem_limit())
        return cudaErrorMemoryAllocation;
    cudaError_t e = cudaMalloc((void **)p, n * sizeof(T));
    if (e == cudaSuccess)
        *cap = n;
    return e;
}

/* ---- exact double helpers (no contraction: round as the CPU does) ----------- */

__device__ __forceinline__ double sq2(double dx, double dy)
{
    return __dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy));
}

/* gk_grid_node_x / gk_grid_node_y */
__device__ __forceinline__ double node_x(double xmin, double cw, int i)
{
    return __dadd_rn(xmin, __dmul_rn((double)i + 0.5, cw));
}

struct Win {
    int kind;
    double r2;                    /* circle */
    double c, s, r1sq, r2sq, rhs; /* ellipse: r2^2 rx^2 + r1^2 ry^2 <= r1^2 r2^2 */
    double rout;                  /* no point of the window is farther (for stopping) */
    double hx, hy;                /* box half extents */
};

__device__ __forceinline__ bool in_window(const Win &w, double dx, double dy, double d2)
{
    if (w.kind == GK_GPU_WIN_ALL)
        return true;
    if (w.kind == GK_GPU_WIN_CIRCLE)
        return d2 <= w.r2;
    double rx = __dadd_rn(__dmul_rn(dx, w.c), __dmul_rn(dy, w.s));
    double ry = __dsub_rn(__dmul_rn(dy, w.c), __dmul_rn(dx, w.s));
    double l =
        __dadd_rn(__dmul_rn(__dmul_rn(w.r2sq, rx), rx), __dmul_rn(__dmul_rn(w.r1sq, ry), ry));
    return l <= w.rhs;
}

struct Grid {
    double xmin, ymax, cw, ch; /* ch = (ymin - ymax) / ny, negative */
    int x0, y0, w, h;
    double hit2;
};

struct Bins {
    const double2 *xy;
    const double *z;
    const int *idx;
    const int *start;
    int nbx, nby;
    double gx0, gy0, bsx, bsy, ibsx, ibsy, margin;
    double xmax, ymax; /* the points' largest x and y (gx0, gy0: their smallest) */
};

__device__ __forceinline__ int bin_of(double v, double g0, double ib, int nb)
{
    double f = floor((v - g0) * ib);
    if (!(f >= 0.0))
        return 0;
    if (f >= (double)(nb - 1))
        return nb - 1;
    return (int)f;
}

/* sqrt(a^2 + b^2) rounded down at every step, so never above it, in single
 * precision: a double sqrt in ring_box_bound costs the searches registers
 * (spills) at every node, not only at the few it serves. */
__device__ __forceinline__ double hypot_down(double a, double b)
{
    return __fsqrt_rd(__double2float_rd(__fma_rd(a, a, __dmul_rd(b, b))));
}

/* Lower bound on the distance from (nx, ny) to any point outside the bins
 * [bxl-r, bxh+r] x [byl-r, byh+r]; INFINITY when that box holds every bin.
 * The points beyond a side of the box lie past that side along one axis and
 * within the points' extent along the other: a node outside the extent
 * (its bin clamped) counts its distance to the extent too, else its rings
 * would have to grow by that distance along the edge before they stop. */
__device__ __forceinline__ double ring_box_bound(const Bins &B, double nx, double ny, int bxl,
                                                 int bxh, int byl, int byh, int r)
{
    double sx = INFINITY, sy = INFINITY;
    if (bxl - r > 0)
        sx = fmin(sx, nx - (B.gx0 + (double)(bxl - r) * B.bsx));
    if (bxh + r < B.nbx - 1)
        sx = fmin(sx, (B.gx0 + (double)(bxh + r + 1) * B.bsx) - nx);
    if (byl - r > 0)
        sy = fmin(sy, ny - (B.gy0 + (double)(byl - r) * B.bsy));
    if (byh + r < B.nby - 1)
        sy = fmin(sy, (B.gy0 + (double)(byh + r + 1) * B.bsy) - ny);
    if (nx < B.gx0 || nx > B.xmax || ny < B.gy0 || ny > B.ymax) {
        const double gx = fmax(fmax(B.gx0 - nx, nx - B.xmax), 0.0);
        const double gy = fmax(fmax(B.gy0 - ny, ny - B.ymax), 0.0);
        if (sx != INFINITY)
            sx = hypot_down(fmax(sx, 0.0), gy);
        if (sy != INFINITY)
            sy = hypot_down(fmax(sy, 0.0), gx);
    }
    const double b = fmin(sx, sy);
    return b == INFINITY ? b : fmax(b - B.margin, 0.0);
}

/* The same around one bin (bx, by). */
__device__ __forceinline__ double ring_bound(const Bins &B, double nx, double ny, int bx, int by,
                                             int r)
{
    return ring_box_bound(B, nx, ny, bx, bx, by, by, r);
}

/* Ring r of bins around (bx, by) as segments of consecutive points: the
 * bottom and top rows whole (a row of bins is one run of points), then the
 * side bins. nseg(r) segments; an empty range where a segment is off the grid. */
__device__ __forceinline__ int ring_segments(int r) { return r == 0 ? 1 : 2 + 2 * (2 * r - 1); }

__device__ __forceinline__ void seg_range(const Bins &B, int bx, int by, int r, int s, int &p0,
                                          int &p1)
{
    int yy, xa, xb;
    if (s < 2) {
        yy = s == 0 ? by - r : by + r;
        xa = max(bx - r, 0);
        xb = min(bx + r, B.nbx - 1);
    } else {
        int t = s - 2;
        yy = by - r + 1 + (t >> 1);
        xa = xb = (t & 1) ? bx + r : bx - r;
    }
    if (yy < 0 || yy >= B.nby || xa < 0 || xb >= B.nbx || xa > xb) {
        p0 = p1 = 0;
        return;
    }
    p0 = B.start[yy * B.nbx + xa];
    p1 = B.start[yy * B.nbx + xb + 1];
}

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

struct LocalParams {
    Grid g;
    Bins B;
    Win w;
    const double *zin; /* Z in input order */
    double s2, power, nodata;
    int k, min_points, op;
    double *out;
    unsigned char *klg; /* the k-lists' global scratch, null: shared memory (kl_launch_lists) */
};

/* Visits the points of window w around (nx, ny) ring by ring of bins, the
 * nearest ring first: visit(p, d2) for each point p (bin order) inside the
 * window; after each ring, stop(b), b a lower bound on the distance of every
 * point not visited yet. Ends when stop says so or nothing is left. */
template <class Visit, class Stop>
__device__ __forceinline__ void ring_search(const Bins &B, const Win &w, double nx, double ny,
                                            Visit &&visit, Stop &&stop)
{
    const int bx = bin_of(nx, B.gx0, B.ibsx, B.nbx), by = bin_of(ny, B.gy0, B.ibsy, B.nby);
    for (int r = 0;; r++) {
        const int nseg = ring_segments(r);
        for (int sg = 0; sg < nseg; sg++) {
            int p0, p1;
            seg_range(B, bx, by, r, sg, p0, p1);
            for (int p = p0; p < p1; p++) {
                const double2 q = B.xy[p];
                const double dx = __dsub_rn(q.x, nx), dy = __dsub_rn(q.y, ny);
                const double d2 = sq2(dx, dy);
                if (in_window(w, dx, dy, d2))
                    visit(p, dx, dy, d2);
            }
        }
        const double b = ring_bound(B, nx, ny, bx, by, r);
        if (b == INFINITY || b > w.rout || stop(b))
            return;
    }
}

/* The same with a warp in lockstep over the rings around the bins of its
 * lanes' nodes: every lane reads the same point (a broadcast), and the rings
 * go on until every lane's stop holds. No divergence in the loops; a few more
 * candidates per node. */
template <class Visit, class Stop>
__device__ __forceinline__ void ring_search_warp(const Bins &B, const Win &w, double nx,
                                                 double ny, Visit &&visit, Stop &&stop)
{
    const int bx = bin_of(nx, B.gx0, B.ibsx, B.nbx), by = bin_of(ny, B.gy0, B.ibsy, B.nby);
    const unsigned FULL = 0xffffffffu;
    const int bxl = __reduce_min_sync(FULL, bx), bxh = __reduce_max_sync(FULL, bx);
    const int byl = __reduce_min_sync(FULL, by), byh = __reduce_max_sync(FULL, by);
    for (int r = 0;; r++) {
        const int nseg = r == 0 ? byh - byl + 1 : 2 + 2 * (byh - byl + 2 * r - 1);
        for (int sg = 0; sg < nseg; sg++) {
            int yy, xa, xb;
            if (r == 0) {
                yy = byl + sg, xa = bxl, xb = bxh;
            } else if (sg < 2) {
                yy = sg == 0 ? byl - r : byh + r;
                xa = max(bxl - r, 0), xb = min(bxh + r, B.nbx - 1);
            } else {
                const int t = sg - 2;
                yy = byl - r + 1 + (t >> 1);
                xa = xb = (t & 1) ? bxh + r : bxl - r;
            }
            if (yy < 0 || yy >= B.nby || xa < 0 || xb >= B.nbx || xa > xb)
                continue;
            const int p0 = B.start[yy * B.nbx + xa], p1 = B.start[yy * B.nbx + xb + 1];
            for (int p = p0; p < p1; p++) {
                const double2 q = B.xy[p];
                const double dx = __dsub_rn(q.x, nx), dy = __dsub_rn(q.y, ny);
                const double d2 = sq2(dx, dy);
                if (in_window(w, dx, dy, d2))
                    visit(p, dx, dy, d2);
            }
        }
        /* this lane's bound: its distance to the outside of the searched box */
        const double b = ring_box_bound(B, nx, ny, bxl, bxh, byl, byh, r);
        const bool done = b == INFINITY || b > w.rout || stop(b);
        if (__all_sync(FULL, done))
            return;
    }
}

/* The bins of the window's box around (nx, ny), widened by the rounding
 * margin (every bin for no window): the window statistics' range. */
__device__ __forceinline__ void window_bins(const LocalParams &P, double nx, double ny, int &xa,
                                            int &xb, int &ya, int &yb)
{
    const Bins &B = P.B;
    if (P.w.kind == GK_GPU_WIN_ALL) {
        xa = 0, xb = B.nbx - 1, ya = 0, yb = B.nby - 1;
        return;
    }
    const double m = B.margin;
    xa = bin_of(nx - P.w.hx - m, B.gx0, B.ibsx, B.nbx);
    xb = bin_of(nx + P.w.hx + m, B.gx0, B.ibsx, B.nbx);
    ya = bin_of(ny - P.w.hy - m, B.gy0, B.ibsy, B.nby);
    yb = bin_of(ny + P.w.hy + m, B.gy0, B.ibsy, B.nby);
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
__device__ __forceinline__ int knn_search(const Bins &B, const Win &w, double nx, double ny,
                                          int k, double s2, double hit2, double (&D)[K],
                                          int (&I)[K], int &hit)
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

__device__ __forceinline__ double idw_weight(double r2, double p)
{
    return p == 2.0 ? 1.0 / r2 : pow(r2, -0.5 * p);
}

#include "krige_kernels.cuh"
#include "variogram_kernels.cuh"
#include "knn_list_kernels.cuh"
#include "window_kernels_extra.cuh"
#include "krige_big_kernels.cuh"

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
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= P.g.w || j >= P.g.h)
        return;
    const double nx = node_x(P.g.xmin, P.g.cw, P.g.x0 + i);
    const double ny = node_x(P.g.ymax, P.g.ch, P.g.y0 + j);
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
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= P.g.w || j >= P.g.h)
        return;
    const double nx = node_x(P.g.xmin, P.g.cw, P.g.x0 + i);
    const double ny = node_x(P.g.ymax, P.g.ch, P.g.y0 + j);
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

/* ---- every point of the window: average, count, min/max/range, average
 * distance, and IDW over all of them (max_points = 0) ---------------------- */

__global__ void __launch_bounds__(128) gather_kernel(LocalParams P)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= P.g.w || j >= P.g.h)
        return;
    const double nx = node_x(P.g.xmin, P.g.cw, P.g.x0 + i);
    const double ny = node_x(P.g.ymax, P.g.ch, P.g.y0 + j);
    const Bins &B = P.B;
    const int op = P.op;
    const double s2 = P.s2, hit2 = P.g.hit2;
    long long count = 0;
    int hit = INT_MAX;
    double a = 0.0, b = 0.0, lo = INFINITY, hi = -INFINITY;
    int xa, xb, ya, yb;
    window_bins(P, nx, ny, xa, xb, ya, yb);
    for (int yy = ya; yy <= yb; yy++) {
        int p0 = B.start[yy * B.nbx + xa], p1 = B.start[yy * B.nbx + xb + 1];
        for (int p = p0; p < p1; p++) {
            double2 q = B.xy[p];
            double dx = __dsub_rn(q.x, nx), dy = __dsub_rn(q.y, ny);
            double d2 = sq2(dx, dy);
            if (!in_window(P.w, dx, dy, d2))
                continue;
            count++;
            double zv = B.z[p];
            switch (op) {
            case GK_GPU_IDW_KNN: {
                int id = B.idx[p];
                if (__dadd_rn(d2, s2) < hit2 && id < hit)
                    hit = id;
                double wgt = idw_weight(d2 + s2, P.power);
                a += wgt * zv;
                b += wgt;
                break;
            }
            case GK_GPU_AVERAGE:
                a += zv;
                break;
            case GK_GPU_MINIMUM:
            case GK_GPU_MAXIMUM:
            case GK_GPU_RANGE:
                lo = fmin(lo, zv);
                hi = fmax(hi, zv);
                break;
            case GK_GPU_AVERAGE_DISTANCE:
                a += sqrt(d2);
                break;
            default:
                break;
            }
        }
    }
    double v = P.nodata;
    bool enough = count >= P.min_points;
    switch (op) {
    case GK_GPU_IDW_KNN:
        if (hit != INT_MAX)
            v = P.zin[hit];
        else if (count > 0 && enough && b != 0.0)
            v = a / b;
        break;
    case GK_GPU_AVERAGE:
        if (count > 0 && enough)
            v = a / (double)count;
        break;
    case GK_GPU_COUNT:
        if (enough)
            v = (double)count;
        break;
    case GK_GPU_MINIMUM:
        if (count > 0 && enough)
            v = lo;
        break;
    case GK_GPU_MAXIMUM:
        if (count > 0 && enough)
            v = hi;
        break;
    case GK_GPU_RANGE:
        if (count > 0 && enough)
            v = hi - lo;
        break;
    case GK_GPU_AVERAGE_DISTANCE:
        if (count > 0 && enough)
            v = a / (double)count;
        break;
    }
    P.out[(size_t)j * P.g.w + i] = v;
}

/* ---- invdist over every point ---------------------------------------------- */

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
 * flags the cells some point may hit exactly. */
enum { IDW_P2 = 0, IDW_P2_PAIRED = 1, IDW_POW = 2 };
template <int W>
__global__ void __launch_bounds__(SP_BX *SP_BY, 4) invdist_all_f32(AllParams P)
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

/* ---- common ---------------------------------------------------------------- */

__global__ void count_nodata(const double *out, size_t n, double nodata, unsigned int *cnt)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    bool nd = false;
    if (i < n) {
        double v = out[i];
        nd = v == nodata || (isnan(v) && isnan(nodata));
    }
    unsigned int m = __ballot_sync(0xffffffffu, nd);
    if ((threadIdx.x & 31) == 0 && m)
        atomicAdd(cnt, (unsigned int)__popc(m));
}

__global__ void bin_keys(const double *x, const double *y, int n, double gx0, double gy0,
                         double ibsx, double ibsy, int nbx, int nby, int *keys, int *vals)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    keys[i] = bin_of(y[i], gy0, ibsy, nby) * nbx + bin_of(x[i], gx0, ibsx, nbx);
    vals[i] = i;
}

__global__ void gather_sorted(const double *x, const double *y, const double *z, const int *order,
                              int n, double2 *sxy, double *sz, int *sidx)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int o = order[i];
    sxy[i] = make_double2(x[o], y[o]);
    sz[i] = z[o];
    sidx[i] = o;
}

__global__ void bin_starts(const int *keys, int n, int nbins, int *start)
{
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b > nbins)
        return;
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (keys[mid] < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    start[b] = lo;
}

void job_destroy(Job *J)
{
    if (!J)
        return;
    cudaSetDevice(J->dev);
    if (J->st)
        cudaStreamSynchronize(J->st);
    kg_free(J->kg);
    lin_free(J->lin);
    void *own[] = {J->out,       J->part,     J->flags, J->pf,
                   J->flag_list, J->counters, J->knbr,  J->kgp, J->kg0, J->kbig, J->klg};
    for (void *p : own)
        if (p)
            cudaFree(p);
    void *shared[] = {J->x, J->y, J->z, J->sxy, J->sz, J->sidx, J->bstart};
    for (void *p : shared)
        if (p && !J->base)
            cudaFree(p);
    if (J->e0)
        cudaEventDestroy(J->e0);
    if (J->e1)
        cudaEventDestroy(J->e1);
    if (J->st)
        cudaStreamDestroy(J->st);
    delete J;
}

/* ---- ABI ------------------------------------------------------------------- */

int api_probe(int dev, char *name, size_t name_cap, char *err, size_t err_cap)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        snprintf(err, err_cap, "%s",
                 e == cudaErrorInsufficientDriver
                     ? "no NVIDIA driver, or one too old for this CUDA module"
                     : cudaGetErrorString(e));
        return -1;
    }
    if (count == 0) {
        snprintf(err, err_cap, "no CUDA GPU found");
        return -1;
    }
    if (dev < 0 || dev >= count) {
        snprintf(err, err_cap, "cuda:%d does not exist (%d GPU%s)", dev, count,
                 count > 1 ? "s" : "");
        return -1;
    }
    cudaDeviceProp prop;
    if ((e = cudaGetDeviceProperties(&prop, dev)) != cudaSuccess ||
        (e = cudaSetDevice(dev)) != cudaSuccess) {
        snprintf(err, err_cap, "cuda:%d: %s", dev, cudaGetErrorString(e));
        return -1;
    }
    cudaFuncAttributes fa;
    if ((e = cudaFuncGetAttributes(&fa, gather_kernel)) != cudaSuccess) {
        snprintf(err, err_cap, "%s (compute capability %d.%d) cannot run this build's kernels: %s",
                 prop.name, prop.major, prop.minor, cudaGetErrorString(e));
        cudaGetLastError();
        return -1;
    }
    snprintf(name, name_cap, "%s", prop.name);
    return 0;
}

void *api_job_new(int dev, const gk_gpu_job_desc *d, char *err, size_t err_cap)
{
    Job *J = new (std::nothrow) Job;
    int *keys = nullptr, *vals = nullptr, *keys2 = nullptr, *vals2 = nullptr;
    void *tmp = nullptr;
    if (!J) {
        snprintf(err, err_cap, "out of host memory");
        return nullptr;
    }
    J->dev = dev;
    J->d = *d;
    J->d.x = J->d.y = J->d.z = nullptr;
    J->n = d->n;
    const int n = (int)d->n;
    const size_t nb = d->n * sizeof(double);
    CK(cudaSetDevice(dev));
    CK(cudaDeviceGetAttribute(&J->nsm, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaDeviceGetAttribute(&J->smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    CK(cudaStreamCreateWithFlags(&J->st, cudaStreamNonBlocking));
    CK(cudaEventCreate(&J->e0));
    CK(cudaEventCreate(&J->e1));
    CK(cudaMalloc(&J->counters, 4 * sizeof(unsigned int)));
    if (d->op != GK_GPU_LINEAR) { /* linear reads its triangles only */
        CK(cudaMalloc(&J->x, nb));
        CK(cudaMalloc(&J->y, nb));
        CK(cudaMalloc(&J->z, nb));
        CK(cudaMemcpyAsync(J->x, d->x, nb, cudaMemcpyHostToDevice, J->st));
        CK(cudaMemcpyAsync(J->y, d->y, nb, cudaMemcpyHostToDevice, J->st));
        CK(cudaMemcpyAsync(J->z, d->z, nb, cudaMemcpyHostToDevice, J->st));
    }
    {
        double zmin = INFINITY, zmax = -INFINITY, xmin = INFINITY, xmax = -INFINITY,
               ymin = INFINITY, ymax = -INFINITY;
        for (size_t i = 0; i < d->n; i++) {
            zmin = std::min(zmin, d->z[i]);
            zmax = std::max(zmax, d->z[i]);
            xmin = std::min(xmin, d->x[i]);
            xmax = std::max(xmax, d->x[i]);
            ymin = std::min(ymin, d->y[i]);
            ymax = std::max(ymax, d->y[i]);
        }
        J->zc = std::isfinite(zmin) && std::isfinite(zmax) ? 0.5 * (zmin + zmax) : 0.0;
        if (d->op != GK_GPU_INVDIST_ALL && d->op != GK_GPU_KRIGE_GLOBAL &&
            d->op != GK_GPU_LINEAR) {
            /* square-ish bins of ~4 points, or a fraction of the window */
            double W = xmax - xmin, H = ymax - ymin;
            double area = std::max(W, 1e-300) * std::max(H, 1e-300);
            double ppb = 4.0;
            if (d->op == GK_GPU_NEAREST || d->op == GK_GPU_KRIGE || d->op == GK_GPU_AIDW ||
                (d->op == GK_GPU_IDW_KNN && d->max_points > 0))
                ppb = 1.5; /* k = 16, H100: 6.48 ms against 6.59 with 2 and 6.49 with 1 */
            if (getenv("GRIDKIT_GPU_PPB"))
                ppb = std::max(0.25, atof(getenv("GRIDKIT_GPU_PPB")));
            double bs = std::sqrt(area * ppb / (double)d->n);
            if (!(W > 0) || !(H > 0))
                bs = std::max(W, H) * ppb / (double)d->n;
            if (d->op != GK_GPU_NEAREST && d->op != GK_GPU_IDW_KNN && d->op != GK_GPU_KRIGE &&
                d->op != GK_GPU_AIDW && d->window != GK_GPU_WIN_ALL)
                bs = std::max(bs, std::min(d->box_hx, d->box_hy) / 8.0);
            if ((d->op == GK_GPU_IDW_KNN || d->op == GK_GPU_AIDW) && d->max_points == 0 &&
                d->window != GK_GPU_WIN_ALL)
                bs = std::max(bs, std::min(d->box_hx, d->box_hy) / 8.0);
            int nbx = 1, nby = 1;
            if (bs > 0 && std::isfinite(bs)) {
                nbx = (int)std::min(4096.0, std::max(1.0, std::ceil(W / bs)));
                nby = (int)std::min(4096.0, std::max(1.0, std::ceil(H / bs)));
            }
            J->nbx = nbx;
            J->nby = nby;
            J->gx0 = xmin;
            J->gy0 = ymin;
            J->pxmax = xmax;
            J->pymax = ymax;
            J->bsx = W > 0 ? W / nbx : 1.0;
            J->bsy = H > 0 ? H / nby : 1.0;
            J->ibsx = 1.0 / J->bsx;
            J->ibsy = 1.0 / J->bsy;
            J->margin =
                1e-9 * (W + H + J->bsx + J->bsy) +
                1e-14 * (std::fabs(xmin) + std::fabs(ymin) + std::fabs(xmax) + std::fabs(ymax));
            const int nbins = nbx * nby;
            CK(cudaMalloc(&keys, d->n * sizeof(int)));
            CK(cudaMalloc(&vals, d->n * sizeof(int)));
            CK(cudaMalloc(&keys2, d->n * sizeof(int)));
            CK(cudaMalloc(&vals2, d->n * sizeof(int)));
            CK(cudaMalloc(&J->sxy, d->n * sizeof(double2)));
            CK(cudaMalloc(&J->sz, nb));
            CK(cudaMalloc(&J->sidx, d->n * sizeof(int)));
            CK(cudaMalloc(&J->bstart, (nbins + 1) * sizeof(int)));
            const int T = 256;
            bin_keys<<<(n + T - 1) / T, T, 0, J->st>>>(J->x, J->y, n, J->gx0, J->gy0, J->ibsx,
                                                       J->ibsy, nbx, nby, keys, vals);
            CK(cudaGetLastError());
            int bits = 1;
            while ((1LL << bits) < nbins)
                bits++;
            size_t tb = 0;
            CK(cub::DeviceRadixSort::SortPairs(nullptr, tb, keys, keys2, vals, vals2, n, 0, bits,
                                               J->st));
            CK(cudaMalloc(&tmp, tb));
            CK(cub::DeviceRadixSort::SortPairs(tmp, tb, keys, keys2, vals, vals2, n, 0, bits,
                                               J->st));
            gather_sorted<<<(n + T - 1) / T, T, 0, J->st>>>(J->x, J->y, J->z, vals2, n, J->sxy,
                                                            J->sz, J->sidx);
            CK(cudaGetLastError());
            bin_starts<<<(nbins + 1 + T - 1) / T, T, 0, J->st>>>(keys2, n, nbins, J->bstart);
            CK(cudaGetLastError());
        }
    }
    if (d->op == GK_GPU_KRIGE_GLOBAL && !(J->kg = kg_new(dev, J->st, d, err, err_cap)))
        goto fail;
    if (d->op == GK_GPU_LINEAR && !(J->lin = lin_new(J->st, d, err, err_cap)))
        goto fail;
    CK(cudaStreamSynchronize(J->st));
    cudaFree(keys);
    cudaFree(vals);
    cudaFree(keys2);
    cudaFree(vals2);
    cudaFree(tmp);
    return J;
fail:
    cudaGetLastError();
    cudaFree(keys);
    cudaFree(vals);
    cudaFree(keys2);
    cudaFree(vals2);
    cudaFree(tmp);
    job_destroy(J);
    return nullptr;
}

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

static int run_local(Job *J, const LocalParams &P0, const gk_gpu_tile *t, char *err, size_t err_cap)
{
    LocalParams P = P0;
    /* 128 threads as bx x (128 / bx) nodes: a warp covers a compact patch */
    int bxn = env_int("GRIDKIT_GPU_KNN_BX", 32);
    bxn = bxn == 8 || bxn == 16 ? bxn : 32;
    dim3 b(bxn, 128 / bxn), g((t->w + bxn - 1) / bxn, (t->h + 128 / bxn - 1) / (128 / bxn));
    const gk_gpu_job_desc &d = J->d;
    if (extra_op(d))
        return run_extra(J, P, g, b, t, err, err_cap);
    if (d.op == GK_GPU_NEAREST) {
        nearest_kernel<<<g, b, 0, J->st>>>(P);
    } else if (d.op == GK_GPU_IDW_KNN && d.max_points > 0) {
        int k = d.max_points;
        if (k > 64)
            CK(kl_launch(kl_idw_kernel, J, k, (size_t)t->w * t->h, P, 0));
        else if (k <= 2)
            launch_knn<2>(g, b, J->st, P);
        else if (k <= 4)
            launch_knn<4>(g, b, J->st, P);
        else if (k <= 8)
            launch_knn<8>(g, b, J->st, P);
        else if (k <= 12)
            launch_knn<12>(g, b, J->st, P);
        else if (k <= 16)
            launch_knn<16>(g, b, J->st, P);
        else if (k <= 24)
            launch_knn<24>(g, b, J->st, P);
        else if (k <= 32)
            launch_knn<32>(g, b, J->st, P);
        else if (k <= 48)
            launch_knn<48>(g, b, J->st, P);
        else
            launch_knn<64>(g, b, J->st, P);
    } else {
        gather_kernel<<<g, b, 0, J->st>>>(P);
    }
    CK(cudaGetLastError());
    return 0;
fail:
    return -1;
}

static int run_all(Job *J, const Grid &G, const gk_gpu_tile *t, char *err, size_t err_cap)
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
    /* slices of the points: enough blocks for several waves on every SM */
    long long cellblocks = (long long)grd.x * grd.y;
    long long want = (long long)J->nsm * 32;
    int slices = (int)std::max(1LL, (want + cellblocks - 1) / cellblocks);
    slices = std::min(slices, std::max(1, n / 4096));
    slices = std::min(slices, 64);
    while (slices > 1 && (size_t)slices * ncell > (64u << 20))
        slices--;
    int chunk = (n + slices - 1) / slices;
    chunk = (chunk + AP_CHUNK - 1) / AP_CHUNK * AP_CHUNK;
    slices = (n + chunk - 1) / chunk;
    grd.z = slices;
    P.chunk = chunk;
    CK(grow(&J->part, &J->part_cap, (size_t)slices * ncell));
    CK(grow(&J->flags, &J->flags_cap, ncell));
    CK(grow(&J->flag_list, &J->flag_list_cap, ncell));
    P.part = J->part;
    P.flags = J->flags;
    CK(cudaMemsetAsync(J->flags, 0, ncell * sizeof(int), J->st));
    CK(cudaMemsetAsync(J->counters, 0, 4 * sizeof(unsigned int), J->st));
    {
        double cw = (t->xmax - t->xmin) / t->nx, chh = (t->ymax - t->ymin) / t->ny;
        double sc = 1.0 / std::min(cw, chh);
        P.sc = sc;
        P.ox = t->xmin + (t->x0 + t->w / 2 + 0.5) * cw;
        P.oy = t->ymax + (t->y0 + t->h / 2 + 0.5) * ((t->ymin - t->ymax) / t->ny);
        P.s2f = (float)(P.s2 * sc * sc);
        if (single) {
            size_t cap = J->pf ? J->n : 0;
            CK(grow(&J->pf, &cap, J->n));
            to_local_f32<<<(n + 255) / 256, 256, 0, J->st>>>(J->x, J->y, J->z, n, P.ox, P.oy, sc,
                                                             J->zc, J->pf);
            CK(cudaGetLastError());
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
        CK(cudaGetLastError());
        double hit2s = G.hit2 * sc * sc;
        invdist_all_finish<<<(unsigned)((ncell + 255) / 256), 256, 0, J->st>>>(
            J->part, slices, ncell, J->flags, J->zc, hit2s, single ? 1 : 0, d.nodata, J->out,
            J->flag_list, J->counters);
        CK(cudaGetLastError());
        /* one block per flagged cell; the kernel reads the count on the GPU */
        unsigned int nflag = 0;
        CK(cudaMemcpyAsync(&nflag, J->counters, sizeof nflag, cudaMemcpyDeviceToHost, J->st));
        CK(cudaStreamSynchronize(J->st));
        if (nflag) {
            invdist_all_fixup<<<nflag, 256, 0, J->st>>>(P, J->flag_list, J->counters, d.nodata,
                                                        J->out);
            CK(cudaGetLastError());
        }
    }
    return 0;
fail:
    return -1;
}

/* Rows of a band whose neighbour lists (K + 1 ints a node) stay under 64 M
 * ints, a multiple of `align` (at least one such). */
static int kr_band(int K, int w, int h, int align)
{
    const int band = (int)std::min<size_t>((size_t)h, ((size_t)64 << 20) / ((size_t)w * (K + 1)));
    return std::max(align, band / align * align);
}

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
            kr_quad_filter<<<(unsigned)((N + 127) / 128), 128, 0, st>>>(P, KP.x, KP.y, KP.omax, j0,
                                                                       nr, K, nbr, cnt);
        kr_coop_kernel<K, G, PD, TS, TC, X, XM>
            <<<(unsigned)((N + per_block - 1) / per_block), 128, sm, st>>>(Pc, KP, j0, nr, nbr, cnt);
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
    return p == 0            ? launch_krige_2p<K, G, 0, T, T, true, XM>(st, P, KP, nbr)
           : p == 1          ? launch_krige_2p<K, G, 1, T, T, true, XM>(st, P, KP, nbr)
           : p <= 3          ? launch_krige_2p<K, G, 3, T, T, true, XM>(st, P, KP, nbr)
           : p <= 6 && !XM   ? launch_krige_2p<K, G, XM ? KR_XMAXP : 6, T, T, true, XM>(st, P, KP, nbr)
                             : launch_krige_2p<K, G, KR_XMAXP, T, T, true, XM>(st, P, KP, nbr);
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

/* More neighbours than the warp kernels take: krige_big_kernels.cuh. */
static bool krige_big(int k, int omax) { return k > 64 || (omax > 0 && k > 32); }

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
        blocks = std::min(N, std::max<size_t>(1, std::min((size_t)J->nsm * 16, ((size_t)1 << 30) / bytes)));
        if ((e = grow(&J->kbig, &J->kbig_cap, blocks * bytes)))
            return e;
        gmat = (T *)J->kbig;
        kr_block_kernel<T, PM, X, XM, true><<<(unsigned)blocks, 128, kb_panel_scratch<T>(),
                                              J->st>>>(P, KP, j0, nr, nbr, cnt, gmat);
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
static cudaError_t launch_krige_big(Job *J, const LocalParams &P, const KrigeParams &KP)
{
    const int K = P.k, w = P.g.w, h = P.g.h;
    const int band = kr_band(K, w, h, 1);
    cudaError_t e = grow(&J->knbr, &J->knbr_cap, (size_t)band * w * (K + 1));
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
        int *nbr = J->knbr, *cnt = nbr + (size_t)K * N;
        if (qsel > 0)
            e = kl_launch_lists(kl_quad_search_kernel, J, qsel, 4, N, P, j0, nr, qsel, enough,
                                nbr, cnt);
        else
            e = kl_launch(kl_search_kernel, J, K, N, P, j0, nr, nbr, cnt);
        if (e)
            return e;
        if (KP.omax > 0 && qsel == 0)
            kr_quad_filter<<<(unsigned)((N + 127) / 128), 128, 0, J->st>>>(P, KP.x, KP.y, KP.omax,
                                                                            j0, nr, K, nbr, cnt);
        e = KP.single ? kb_solve_t<float>(J, Pc, KP, j0, nr, nbr, cnt)
                      : kb_solve_t<double>(J, Pc, KP, j0, nr, nbr, cnt);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
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

int api_krige_set(void *job, const gk_gpu_krige *k, char *err, size_t err_cap)
{
    Job *J = (Job *)job;
    std::lock_guard<std::mutex> lock(J->mu);
    /* drift: none (simple), or 1 + poly + nr columns; a point or a block */
    const bool drift_ok =
        k->p == 0 ? k->nr == 0
                  : (k->poly == 0 || k->poly == 2 || k->poly == 5) && k->nr >= 0 &&
                        k->nr <= GK_GPU_KRIGE_MAX_P - 6 && k->p == 1 + k->poly + k->nr &&
                        (k->nr == 0 || k->gpts);
    if ((J->d.op != GK_GPU_KRIGE && J->d.op != GK_GPU_KRIGE_GLOBAL) || k->ns < 1 ||
        k->ns > GK_GPU_KRIGE_MAX_STRUCT || !drift_ok ||
        !(k->nb <= 1 || k->nb == GK_GPU_KRIGE_MAX_DISCR) || k->nbands < 1 || k->nbands > 2 ||
        (k->omax > 0 && (J->d.op != GK_GPU_KRIGE || J->d.max_points > GK_GPU_MAX_K))) {
        snprintf(err, err_cap, "kriging parameters the GPU module cannot use");
        return -1;
    }
    if (J->d.op == GK_GPU_KRIGE_GLOBAL && kg_set(J->kg, k, err, err_cap))
        return -1;
    if (J->d.op == GK_GPU_KRIGE && k->nr > 0) { /* the covariates at the points */
        const size_t bytes = (size_t)k->nr * J->n * sizeof(double);
        cudaError_t e = cudaSetDevice(J->dev);
        if (e == cudaSuccess && J->kgp) {
            cudaFree(J->kgp);
            J->kgp = nullptr;
        }
        if (e == cudaSuccess)
            e = cudaMalloc(&J->kgp, bytes);
        if (e == cudaSuccess)
            e = cudaMemcpy(J->kgp, k->gpts, bytes, cudaMemcpyHostToDevice);
        if (e != cudaSuccess) {
            cudaGetLastError();
            snprintf(err, err_cap, "external drift covariates: %s", cudaGetErrorString(e));
            return -1;
        }
    }
    J->kr = *k;
    J->kr.gpts = nullptr; /* the caller's, read here only */
    J->kr_set = 1;
    return 0;
}

int api_tile(void *job, const gk_gpu_tile *t, double *out, uint64_t *nodata, uint64_t *singular,
             char *err, size_t err_cap)
{
    Job *J = (Job *)job;
    std::lock_guard<std::mutex> lock(J->mu);
    const size_t ncell = (size_t)t->w * t->h;
    const gk_gpu_job_desc &d = J->d;
    Grid G;
    G.xmin = t->xmin;
    G.ymax = t->ymax;
    G.cw = (t->xmax - t->xmin) / t->nx;
    G.ch = (t->ymin - t->ymax) / t->ny;
    G.x0 = t->x0;
    G.y0 = t->y0;
    G.w = t->w;
    G.h = t->h;
    G.hit2 = t->hit2;
    unsigned int cnt = 0, nsing = 0;
    const bool krige = d.op == GK_GPU_KRIGE || d.op == GK_GPU_KRIGE_GLOBAL;
    const int nbands = krige ? J->kr.nbands : 1;
    *singular = 0;
    if (krige && !J->kr_set) {
        snprintf(err, err_cap, "kriging job without its parameters");
        return -1;
    }
    ck_last = cudaSuccess;
    CK(cudaSetDevice(J->dev));
    CK(grow(&J->out, &J->out_cap, ncell * nbands));
    if (krige && J->kr.nr > 0) { /* external drift: the tile's covariates */
        if (!t->g0) {
            snprintf(err, err_cap, "external drift: a tile without its covariates");
            return -1;
        }
        CK(grow(&J->kg0, &J->kg0_cap, (size_t)J->kr.nr * ncell));
        for (int r = 0; r < J->kr.nr; r++)
            CK(cudaMemcpy2DAsync(J->kg0 + r * ncell, t->w * sizeof(double), t->g0 + r * t->g0_ld,
                                 t->g0_pitch * sizeof(double), t->w * sizeof(double), t->h,
                                 cudaMemcpyHostToDevice, J->st));
    }
    CK(cudaEventRecord(J->e0, J->st));
    if (d.op == GK_GPU_INVDIST_ALL) {
        if (run_all(J, G, t, err, err_cap))
            goto fail;
    } else if (d.op == GK_GPU_KRIGE_GLOBAL) {
        CK(cudaMemsetAsync(J->counters, 0, 4 * sizeof(unsigned int), J->st));
        const int rc = kg_tile(J->kg, t, J->kr.nr > 0 ? J->kg0 : nullptr, J->out,
                               J->counters + 3, err, err_cap);
        if (rc == GK_GPU_TILE_NOMEM)
            ck_last = cudaErrorMemoryAllocation;
        if (rc)
            goto fail;
    } else if (d.op == GK_GPU_LINEAR) {
        /* the core locates the nodes left GK_LR_UNSET and counts nodata */
        CK(cudaMemsetAsync(J->counters, 0, 4 * sizeof(unsigned int), J->st));
        const int rc = lin_tile(J->lin, J->st, t, J->out, err, err_cap);
        if (rc == GK_GPU_TILE_NOMEM)
            ck_last = cudaErrorMemoryAllocation;
        if (rc)
            goto fail;
    } else {
        LocalParams P{};
        P.g = G;
        P.B = Bins{J->sxy, J->sz,  J->sidx, J->bstart, J->nbx,  J->nby,   J->gx0,
                   J->gy0, J->bsx, J->bsy,  J->ibsx,   J->ibsy, J->margin, J->pxmax, J->pymax};
        Win &w = P.w;
        w.kind = d.window;
        w.r2 = d.r2;
        w.c = d.e_cos;
        w.s = d.e_sin;
        w.r1sq = d.e_r1 * d.e_r1;
        w.r2sq = d.e_r2 * d.e_r2;
        w.rhs = d.e_r1 * d.e_r1 * d.e_r2 * d.e_r2;
        w.hx = d.box_hx;
        w.hy = d.box_hy;
        if (d.window == GK_GPU_WIN_ALL)
            w.rout = INFINITY;
        else if (d.window == GK_GPU_WIN_CIRCLE)
            w.rout = std::sqrt(d.r2) * (1.0 + 1e-9) + J->margin;
        else
            w.rout = std::max(d.e_r1, d.e_r2) * (1.0 + 1e-9) + J->margin;
        P.zin = J->z;
        P.s2 = d.smoothing * d.smoothing;
        P.power = d.power;
        P.nodata = d.nodata;
        P.k = d.max_points;
        P.min_points = d.min_points;
        P.op = d.op;
        P.out = J->out;
        CK(cudaMemsetAsync(J->counters, 0, 4 * sizeof(unsigned int), J->st));
        if (d.op == GK_GPU_KRIGE) {
            KrigeParams KP{};
            const gk_gpu_krige &k = J->kr;
            krige_params_fill(KP, k);
            KP.single = d.single;
            KP.fastf = env_int("GRIDKIT_GPU_KRIGE_FASTF", 1);
            KP.zshift = k.p == 0 ? k.mean : (d.single ? J->zc : 0.0);
            KP.x = J->x;
            KP.y = J->y;
            KP.var = nbands > 1 ? J->out + ncell : nullptr;
            KP.singular = J->counters + 3;
            KP.gp = J->kgp;
            KP.gld = J->n;
            KP.g0 = k.nr > 0 ? J->kg0 : nullptr; /* uploaded above */
            KP.g0ld = ncell;
            /* fewer where the core counted no more in any window (every point
             * within radius): the same points, a smaller kernel */
            const int K = t->max_points > 0 && t->max_points < d.max_points ? t->max_points
                                                                             : d.max_points;
            P.k = K;
            if (d.single && krige_needs_double(k))
                KP.single = 0;
            if (krige_big(K, k.omax) || d.quad_max > 0) {
                CK(launch_krige_big(J, P, KP));
            } else {
                const size_t kn = krige_scratch(K, G.w, G.h, k.omax > 0);
                if (kn)
                    CK(grow(&J->knbr, &J->knbr_cap, kn));
                int *nbr = kn ? J->knbr : nullptr;
                CK(KP.single ? launch_krige_k<float>(J->st, K, P, KP, nbr)
                             : launch_krige_k<double>(J->st, K, P, KP, nbr));
            }
        } else if (run_local(J, P, t, err, err_cap))
            goto fail;
    }
    CK(cudaEventRecord(J->e1, J->st));
    count_nodata<<<(unsigned)((ncell + 255) / 256), 256, 0, J->st>>>(J->out, ncell, d.nodata,
                                                                     J->counters + 1);
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(out, J->out, ncell * nbands * sizeof(double), cudaMemcpyDeviceToHost,
                       J->st));
    CK(cudaMemcpyAsync(&cnt, J->counters + 1, sizeof cnt, cudaMemcpyDeviceToHost, J->st));
    CK(cudaMemcpyAsync(&nsing, J->counters + 3, sizeof nsing, cudaMemcpyDeviceToHost, J->st));
    CK(cudaStreamSynchronize(J->st));
    CK(cudaEventElapsedTime(&J->last_ms, J->e0, J->e1));
    *nodata = cnt;
    *singular = nsing;
    return 0;
fail:
    cudaGetLastError();
    if (ck_last == cudaErrorMemoryAllocation) {
        /* give the buffers back: the halves the caller asks for next need less */
        cudaStreamSynchronize(J->st);
        /* each buffer beside its capacity: the two cannot fall out of step */
        const struct {
            void **buf;
            size_t *cap;
        } grown[] = {{(void **)&J->out, &J->out_cap},
                     {(void **)&J->part, &J->part_cap},
                     {(void **)&J->flags, &J->flags_cap},
                     {(void **)&J->flag_list, &J->flag_list_cap},
                     {(void **)&J->knbr, &J->knbr_cap},
                     {(void **)&J->kg0, &J->kg0_cap},
                     {(void **)&J->kbig, &J->kbig_cap},
                     {(void **)&J->klg, &J->klg_cap}};
        for (const auto &g : grown) {
            cudaFree(*g.buf);
            *g.buf = nullptr;
            *g.cap = 0;
        }
        return GK_GPU_TILE_NOMEM;
    }
    return -1;
}

/* A second job on the base's device that shares its points and bins (read
 * only) and has its own stream and buffers: the points are uploaded once per
 * GPU however many tiles are in flight there. Freed before its base. */
void *api_job_clone(void *job, char *err, size_t err_cap)
{
    const Job *B = (const Job *)job;
    if (!B || B->kg || B->base) {
        snprintf(err, err_cap, "this job cannot be cloned");
        return nullptr;
    }
    Job *J = new (std::nothrow) Job;
    if (!J) {
        snprintf(err, err_cap, "out of host memory");
        return nullptr;
    }
    J->base = B;
    J->dev = B->dev;
    J->d = B->d;
    J->n = B->n;
    J->x = B->x, J->y = B->y, J->z = B->z;
    J->zc = B->zc;
    J->sxy = B->sxy, J->sz = B->sz, J->sidx = B->sidx, J->bstart = B->bstart;
    J->nbx = B->nbx, J->nby = B->nby;
    J->gx0 = B->gx0, J->gy0 = B->gy0, J->bsx = B->bsx, J->bsy = B->bsy;
    J->ibsx = B->ibsx, J->ibsy = B->ibsy, J->margin = B->margin;
    J->pxmax = B->pxmax, J->pymax = B->pymax;
    J->nsm = B->nsm;
    J->smem_optin = B->smem_optin;
    if (B->lin && !(J->lin = lin_clone(B->lin, err, err_cap)))
        goto fail;
    CK(cudaSetDevice(J->dev));
    CK(cudaStreamCreateWithFlags(&J->st, cudaStreamNonBlocking));
    CK(cudaEventCreate(&J->e0));
    CK(cudaEventCreate(&J->e1));
    CK(cudaMalloc(&J->counters, 4 * sizeof(unsigned int)));
    return J;
fail:
    cudaGetLastError();
    job_destroy(J);
    return nullptr;
}

int api_device_count(void)
{
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

void *api_host_alloc(size_t bytes)
{
    void *p = nullptr;
    if (cudaMallocHost(&p, bytes) != cudaSuccess) {
        cudaGetLastError();
        return nullptr;
    }
    return p;
}

void api_host_free(void *p)
{
    if (p)
        cudaFreeHost(p);
}

void api_job_free(void *job) { job_destroy((Job *)job); }

double api_last_kernel_ms(void *job) { return job ? ((Job *)job)->last_ms : -1.0; }

int api_variogram(int dev, const gk_gpu_vgm *v, double *np, double *sd, double *sg,
                  double *kernel_ms, char *err, size_t err_cap)
{
    const int nb = v->ncls * v->ndir;
    const size_t n = v->n;
    double *x = nullptr, *y = nullptr, *z = nullptr, *onp = nullptr, *osd = nullptr,
           *osg = nullptr;
    float2 *pf = nullptr, *pfs = nullptr;
    double *xs = nullptr;
    float4 *tb = nullptr, *pk = nullptr;
    float2 *bnd = nullptr, *hbnd = nullptr;
    unsigned int *key = nullptr, *dlost = nullptr, lost = 0;
    int *idx = nullptr;
    void *tmp = nullptr;
    size_t tmpb = 0;
    unsigned long long *pnp = nullptr;
    double *psd = nullptr, *psg = nullptr;
    cudaStream_t st = nullptr;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    float ms = 0.0f;
    const size_t smem = (size_t)nb * VT * 20 + VT * 32;
    int rc = -1;
    if (nb < 1 || smem > 200 * 1024 || n > (size_t)INT_MAX - VT) {
        snprintf(err, err_cap, "%d classes x directions: more than the GPU variogram keeps "
                 "per thread (at most %d)", nb, (int)((200 * 1024 - VT * 32) / (VT * 20)));
        return -1;
    }
    {
        const size_t bytes = n * sizeof(double);
        const int ntiles = (int)((n + VT - 1) / VT), strips = (ntiles + VSTRIP - 1) / VSTRIP;
        const size_t nblk = (size_t)ntiles * strips;
        double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
        for (size_t i = 0; i < n; i++) {
            xmin = std::min(xmin, v->x[i]);
            xmax = std::max(xmax, v->x[i]);
            ymin = std::min(ymin, v->y[i]);
            ymax = std::max(ymax, v->y[i]);
        }
        const double cx = 0.5 * (xmin + xmax), cy = 0.5 * (ymin + ymax);
        const double M = std::max(std::max(xmax - cx, cx - xmin), std::max(ymax - cy, cy - ymin));
        const bool dir = v->ndir > 1 || !v->all_dirs[0] || v->bandwidth > 0.0;
        /* the omnidirectional kernel, unless GRIDKIT_GPU_VGM_OLD=1 asks for the
         * previous one (A/B timing) or its float bounds would overflow */
        const char *old_env = getenv("GRIDKIT_GPU_VGM_OLD");
        const bool want_fast = !dir && !(old_env && *old_env && strcmp(old_env, "0"));
        if (want_fast)
            hbnd = (float2 *)malloc((size_t)(v->ncls + 1) * sizeof *hbnd);
        /* rounding bounds (both kernels) and class-limit table (vgm_bounds) */
        double tol = 0.0, cullr2 = 0.0;
        float cut2_lo = 0.0f, cut2_hi = 0.0f;
        const bool fast = vgm_bounds(v->cutoff, v->width, v->ncls, M, tol, cut2_lo, cut2_hi,
                                     cullr2, hbnd) &&
                          hbnd;
        const double eps = 5.9604645e-8;
        VgmParams P{};
        P.n = (int)n;
        P.ncls = v->ncls;
        P.nbins = nb;
        P.ndir = v->ndir;
        P.cressie = v->cressie;
        P.strips = strips;
        P.cutoff = v->cutoff;
        P.width = v->width;
        P.cut2_hi = cut2_hi;
        P.cut2_lo = cut2_lo;
        P.inv_w = (float)(1.0 / v->width);
        P.cullr2 = cullr2;
        double frtol = tol / v->width + 4.0 * eps * (v->ncls + 1.0);
        P.frtol = (float)std::min(frtol, 0.5);
        for (int a = 0; a < 16; a++) {
            P.all_dirs[a] = v->all_dirs[a];
            P.ux[a] = v->ux[a];
            P.uy[a] = v->uy[a];
        }
        P.cos_tol = v->cos_tol;
        P.bandwidth = v->bandwidth;
        int nslabs = 1, ybits = 0, keybits = 20;
        if (fast)
            vgm_str_shape((int)n, nslabs, ybits, keybits);
        CK(cudaSetDevice(dev));
        CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        CK(cudaMalloc(&x, bytes));
        CK(cudaMalloc(&y, bytes));
        CK(cudaMalloc(&z, bytes));
        CK(cudaMalloc(&pf, 2 * n * sizeof(float2)));
        pfs = pf + n;
        CK(cudaMalloc(&xs, 3 * bytes));
        CK(cudaMalloc(&tb, (size_t)ntiles * sizeof(float4)));
        CK(cudaMalloc(&key, 2 * n * sizeof(unsigned int)));
        CK(cudaMalloc(&idx, 2 * n * sizeof(int)));
        CK(cub::DeviceRadixSort::SortPairs(nullptr, tmpb, key, key + n, idx, idx + n, (int)n, 0,
                                           32, st));
        CK(cudaMalloc(&tmp, tmpb));
        CK(cudaMalloc(&pnp, nblk * nb * sizeof(unsigned long long)));
        CK(cudaMalloc(&psd, nblk * nb * sizeof(double)));
        CK(cudaMalloc(&psg, nblk * nb * sizeof(double)));
        CK(cudaMalloc(&onp, 3 * nb * sizeof(double)));
        osd = onp + nb;
        osg = osd + nb;
        if (fast) {
            CK(cudaMalloc(&pk, n * sizeof(float4)));
            CK(cudaMalloc(&bnd, (size_t)(v->ncls + 1) * sizeof(float2)));
            CK(cudaMalloc(&dlost, sizeof(unsigned int)));
            CK(cudaMemcpyAsync(bnd, hbnd, (size_t)(v->ncls + 1) * sizeof(float2),
                               cudaMemcpyHostToDevice, st));
            CK(cudaMemsetAsync(dlost, 0, sizeof(unsigned int), st));
        }
        CK(cudaMemcpyAsync(x, v->x, bytes, cudaMemcpyHostToDevice, st));
        CK(cudaMemcpyAsync(y, v->y, bytes, cudaMemcpyHostToDevice, st));
        CK(cudaMemcpyAsync(z, v->z, bytes, cudaMemcpyHostToDevice, st));
        P.x = xs;
        P.y = xs + n;
        P.z = xs + 2 * n;
        P.pf = pfs;
        P.tb = tb;
        P.pnp = pnp;
        P.psd = psd;
        P.psg = psg;
        CK(cudaFuncSetAttribute(vgm_kernel<0>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)smem));
        CK(cudaFuncSetAttribute(vgm_kernel<1>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)smem));
        const unsigned int g256 = (unsigned int)((n + 255) / 256);
        const float mm = (float)(M * (1.0 + 1e-6));
        CK(cudaEventRecord(e0, st));
        vgm_centre<<<g256, 256, 0, st>>>(x, y, (int)n, cx, cy, pf);
        CK(cudaGetLastError());
        if (fast) { /* STR tiles */
            vgm_xkey<<<g256, 256, 0, st>>>(pf, (int)n, key, idx);
            CK(cudaGetLastError());
            CK(cub::DeviceRadixSort::SortPairs(tmp, tmpb, key, key + n, idx, idx + n, (int)n, 0,
                                               32, st));
            vgm_ykey<<<g256, 256, 0, st>>>(
                pf, idx + n, (int)n, nslabs, ybits, mm,
                M > 0.0 ? (float)(((1 << ybits) - 1) / (2.0 * M * (1.0 + 1e-6))) : 0.0f, key, idx);
            CK(cudaGetLastError());
            CK(cub::DeviceRadixSort::SortPairs(tmp, tmpb, key, key + n, idx, idx + n, (int)n, 0,
                                               keybits, st));
        } else { /* Morton order */
            vgm_key<<<g256, 256, 0, st>>>(pf, (int)n, mm,
                                          M > 0.0 ? (float)(1024.0 / (2.0 * M * (1.0 + 1e-6)))
                                                  : 0.0f,
                                          key, idx);
            CK(cudaGetLastError());
            CK(cub::DeviceRadixSort::SortPairs(tmp, tmpb, key, key + n, idx, idx + n, (int)n, 0,
                                               20, st));
        }
        vgm_gather<<<g256, 256, 0, st>>>(idx + n, (int)n, x, y, z, pf, xs, xs + n, xs + 2 * n,
                                         pfs, pk);
        CK(cudaGetLastError());
        vgm_bbox<<<(unsigned)((ntiles + 127) / 128), 128, 0, st>>>(pfs, (int)n, ntiles, tb);
        CK(cudaGetLastError());
        dim3 grid(ntiles, strips);
        if (fast) {
            VgmFast F{};
            F.n = (int)n;
            F.ncls = v->ncls;
            F.strips = strips;
            F.pk = pk;
            F.x = xs;
            F.y = xs + n;
            F.tb = tb;
            F.bnd = bnd;
            F.cutoff = v->cutoff;
            F.width = v->width;
            F.tol = tol;
            F.cullr2 = cullr2;
            F.cut2_lo = cut2_lo;
            F.cut2_hi = cut2_hi;
            F.pnp = pnp;
            F.psd = psd;
            F.psg = psg;
            F.lost = dlost;
            const size_t fsm = (size_t)nb * (2 * sizeof(double) + sizeof(unsigned int));
            if (v->cressie)
                vgm_fast_kernel<true><<<grid, 32, fsm, st>>>(F);
            else
                vgm_fast_kernel<false><<<grid, 32, fsm, st>>>(F);
        } else if (dir) {
            vgm_kernel<1><<<grid, VT, smem, st>>>(P);
        } else {
            vgm_kernel<0><<<grid, VT, smem, st>>>(P);
        }
        CK(cudaGetLastError());
        /* twice at most: a planning bug in the fast kernel (pairs it could
         * not place, never expected) is said and redone with the old one */
        for (int pass = 0; pass < 2; pass++) {
            vgm_merge<<<nb, 256, 0, st>>>(pnp, psd, psg, nblk, nb, onp, osd, osg);
            CK(cudaGetLastError());
            if (pass == 0) {
                CK(cudaEventRecord(e1, st));
                if (fast)
                    CK(cudaMemcpyAsync(&lost, dlost, sizeof lost, cudaMemcpyDeviceToHost, st));
            }
            CK(cudaMemcpyAsync(np, onp, nb * sizeof(double), cudaMemcpyDeviceToHost, st));
            CK(cudaMemcpyAsync(sd, osd, nb * sizeof(double), cudaMemcpyDeviceToHost, st));
            CK(cudaMemcpyAsync(sg, osg, nb * sizeof(double), cudaMemcpyDeviceToHost, st));
            CK(cudaStreamSynchronize(st));
            if (!lost)
                break;
            fprintf(stderr, "gridkit: GPU variogram: %u pairs outside their planned classes "
                            "(internal error); redone with the previous kernel\n",
                    lost);
            lost = 0;
            vgm_kernel<0><<<grid, VT, smem, st>>>(P);
            CK(cudaGetLastError());
        }
        CK(cudaEventElapsedTime(&ms, e0, e1));
        *kernel_ms = ms;
        rc = 0;
    }
fail:
    if (rc)
        cudaGetLastError();
    free(hbnd);
    cudaFree(x);
    cudaFree(y);
    cudaFree(z);
    cudaFree(pf);
    cudaFree(xs);
    cudaFree(tb);
    cudaFree(pk);
    cudaFree(bnd);
    cudaFree(dlost);
    cudaFree(key);
    cudaFree(idx);
    cudaFree(tmp);
    cudaFree(pnp);
    cudaFree(psd);
    cudaFree(psg);
    cudaFree(onp);
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    if (st)
        cudaStreamDestroy(st);
    return rc;
}

const gk_gpu_api the_api = {GK_GPU_ABI_VERSION, api_probe,          api_job_new,
                            api_tile,           api_job_free,       api_last_kernel_ms,
                            api_krige_set,      api_variogram,      api_device_count,
                            api_host_alloc,     api_host_free,      api_job_clone};

} // namespace

GK_EXPORT const gk_gpu_api *GK_GPU_ENTRY_FN(void) { return &the_api; }
