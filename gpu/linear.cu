/* SPDX-License-Identifier: MIT */
/*
 * linear.cu - gdal_grid's `linear` on the GPU: the core's triangles
 * rasterised per tile with the core's own rules (algorithms/linear/linear_raster.h,
 * the exact orientation of algorithms/linear/exact_predicates.h). This file is
 * compiled with -fmad=false (gpu/CMakeLists.txt): nothing is contracted, so
 * every test and every plane value rounds as the CPU's and the nodes the GPU
 * takes come out bit-identical to the CPU's.
 *
 * Candidates: the triangles are sorted into the buckets of a few levels (a
 * loose quadtree, linear/tin.c); the host picks the bucket rows a tile can
 * reach, as the CPU does, and hands the kernel their triangle ranges. A
 * thread takes a triangle and finds its row spans a row at a time; its warp
 * writes the spans of its 32 triangles together, so that large triangles
 * (a grid finer than the points) and small ones both keep the lanes busy.
 */
#include "check.h"
#include "families.h"

#include "linear/linear_raster.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <new>
#include <vector>

namespace gk_gpu
{

struct LinState {
    const LinState *base = nullptr; /* a clone: the triangles are base's */
    size_t nt = 0;
    int nlev = 0;
    gk_gpu_lin_level lev[GK_GPU_LIN_MAX_LEVELS];
    size_t lev_off[GK_GPU_LIN_MAX_LEVELS]; /* a level's first bucket */
    std::vector<int> bstart;               /* host copy (the base's only) */
    double *xy = nullptr, *plane = nullptr;
    int *vert = nullptr;
    /* per tile, this job's own */
    double *nodes = nullptr; /* xs (w), then ys (h) */
    size_t nodes_cap = 0;
    int2 *rng = nullptr; /* per bucket row reached: first triangle, triangles before it */
    size_t rng_cap = 0;
    std::vector<int2> hrng;
};

struct TileP {
    gk_lr_nodes N; /* xs, ys on the device */
    double *out;
    const int2 *rng;
    int nrng, total;
    const double *xy, *plane;
    const int *vert;
};

/* Every node GK_LR_UNSET; the tile's node coordinates as gk_grid_node_x/y. */
__global__ void lin_init(double *out, size_t ncell, double *xs, double *ys, int w, int h,
                         double xmin, double cw, double ymax, double ch, int x0, int y0)
{
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < ncell)
        out[k] = __longlong_as_double((long long)GK_LR_UNSET);
    if (k < (size_t)w)
        xs[k] = xmin + ((x0 + (int)k) + 0.5) * cw;
    if (k < (size_t)h)
        ys[k] = ymax + ((y0 + (int)k) + 0.5) * ch;
}

/* ---- thread: one triangle --------------------------------------------------- */

/* Candidate e's triangle: the last range starting at or before e. */
__device__ __forceinline__ int candidate(const TileP &P, int e)
{
    int lo = 0, hi = P.nrng - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) >> 1;
        if (__ldg(&P.rng[mid].y) <= e)
            lo = mid;
        else
            hi = mid - 1;
    }
    return __ldg(&P.rng[lo].x) + (e - __ldg(&P.rng[lo].y));
}

/* A triangle's corners, plane and rows j0..j1 (none: j0 > j1). */
struct Tri {
    double pl[3];
    double bb[4];
    gk_lr_tri T;
    int j0, j1;
};

__device__ __forceinline__ void load_tri(const TileP &P, int t, Tri &R)
{
    R.j0 = 1;
    R.j1 = 0;
    R.pl[1] = __ldg(&P.plane[3 * (size_t)t + 1]);
    if (isnan(R.pl[1]))
        return; /* degenerate: the core's nearest-point rule */
    R.pl[0] = __ldg(&P.plane[3 * (size_t)t]);
    R.pl[2] = __ldg(&P.plane[3 * (size_t)t + 2]);
    for (int k = 0; k < 3; k++) {
        const int v = __ldg(&P.vert[3 * (size_t)t + k]);
        R.T.P[k][0] = __ldg(&P.xy[2 * (size_t)v]);
        R.T.P[k][1] = __ldg(&P.xy[2 * (size_t)v + 1]);
    }
    gk_lr_bbox(&R.T, R.bb);
    /* the node extent as the CPU has it: its first and last nodes */
    const int w = P.N.w, h = P.N.h;
    if (R.bb[1] < P.N.xs[0] || R.bb[0] > P.N.xs[w - 1] || R.bb[3] < P.N.ys[h - 1] ||
        R.bb[2] > P.N.ys[0])
        return;
    gk_lr_edges(&R.T);
    gk_lr_rows(&P.N, R.bb[2], R.bb[3], &R.j0, &R.j1);
}

/* ---- warp: the spans of 32 triangles, a row each, written together ---------- */

constexpr int LIN_THREADS = 128;
constexpr int LIN_WARPS = LIN_THREADS / 32;

struct SpanSmem {
    int start[LIN_WARPS][32]; /* first node of lane's span in the warp's list */
    int lo[LIN_WARPS][32], row[LIN_WARPS][32];
    double base[LIN_WARPS][32], gx[LIN_WARPS][32], ax[LIN_WARPS][32];
};

__global__ void __launch_bounds__(LIN_THREADS) lin_raster(TileP P)
{
    __shared__ SpanSmem S;
    const unsigned full = 0xffffffffu;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int e = blockIdx.x * LIN_THREADS + threadIdx.x;
    Tri R;
    R.j0 = 1;
    R.j1 = 0;
    if (e < P.total)
        load_tri(P, candidate(P, e), R);
    int j = R.j0;
    while (__any_sync(full, j <= R.j1)) {
        int lo = 0, hi = -1, row = j;
        double base = 0.0;
        if (j <= R.j1) {
            const double y = P.N.ys[j];
            if (!(y < R.bb[2] || y > R.bb[3])) {
                gk_lr_span(&R.T, &P.N, y, &lo, &hi);
                base = gk_lr_row_base(R.pl, R.T.P[0], y);
            }
            j++;
        }
        const int len = hi >= lo ? hi - lo + 1 : 0;
        int incl = len;
        for (int d = 1; d < 32; d <<= 1) {
            const int v = __shfl_up_sync(full, incl, d);
            if (lane >= d)
                incl += v;
        }
        const int count = __shfl_sync(full, incl, 31);
        if (count == 0)
            continue;
        S.start[warp][lane] = incl - len;
        S.lo[warp][lane] = lo;
        S.row[warp][lane] = row;
        S.base[warp][lane] = base;
        S.gx[warp][lane] = R.pl[1];
        S.ax[warp][lane] = R.T.P[0][0];
        __syncwarp();
        for (int q = lane; q < count; q += 32) {
            /* its lane: the last whose span starts at or before q (that
             * span holds q, so it is not empty) */
            int k = 0;
            for (int step = 16; step > 0; step >>= 1)
                if (S.start[warp][k + step] <= q)
                    k += step;
            const int i = S.lo[warp][k] + (q - S.start[warp][k]);
            const double pl[3] = {0.0, S.gx[warp][k], 0.0}, P0[2] = {S.ax[warp][k], 0.0};
            P.out[(size_t)S.row[warp][k] * P.N.w + i] =
                gk_lr_value(S.base[warp][k], pl, P0, P.N.xs[i]);
        }
        __syncwarp();
    }
}

/* ---- host ------------------------------------------------------------------- */

void lin_free(LinState *L)
{
    if (!L)
        return;
    if (!L->base) {
        cudaFree(L->xy);
        cudaFree(L->plane);
        cudaFree(L->vert);
    }
    cudaFree(L->nodes);
    cudaFree(L->rng);
    delete L;
}

LinState *lin_new(cudaStream_t st, const gk_gpu_job_desc *d, char *err, size_t err_cap)
{
    LinState *L = new (std::nothrow) LinState;
    cudaError_t e = cudaSuccess;
    size_t nb = 0;
    if (!L) {
        snprintf(err, err_cap, "out of host memory");
        return nullptr;
    }
    L->nt = d->p.lin.nt;
    L->nlev = d->p.lin.nlev;
    if (L->nt > 0 && (L->nlev < 1 || L->nlev > GK_GPU_LIN_MAX_LEVELS || !d->p.lin.bstart)) {
        snprintf(err, err_cap, "linear: %d bucket levels", L->nlev);
        lin_free(L);
        return nullptr;
    }
    if (L->nt == 0) {
        L->nlev = 0; /* no triangles: every node is the core's */
        return L;
    }
    for (int l = 0; l < L->nlev; l++) {
        L->lev[l] = d->p.lin.lev[l];
        L->lev_off[l] = nb;
        nb += (size_t)L->lev[l].nx * L->lev[l].ny;
    }
    if (nb != d->p.lin.nbuckets) {
        snprintf(err, err_cap, "linear: %zu buckets, the levels say %zu", d->p.lin.nbuckets, nb);
        lin_free(L);
        return nullptr;
    }
    try {
        L->bstart.assign(d->p.lin.bstart, d->p.lin.bstart + nb + 1);
    } catch (...) {
        snprintf(err, err_cap, "out of host memory for %zu buckets", nb);
        lin_free(L);
        return nullptr;
    }
    if ((e = cudaMalloc(&L->xy, 2 * d->p.lin.nv * sizeof(double))) != cudaSuccess ||
        (e = cudaMalloc(&L->plane, 3 * L->nt * sizeof(double))) != cudaSuccess ||
        (e = cudaMalloc(&L->vert, 3 * L->nt * sizeof(int))) != cudaSuccess ||
        (e = cudaMemcpyAsync(L->xy, d->p.lin.xy, 2 * d->p.lin.nv * sizeof(double),
                             cudaMemcpyHostToDevice, st)) != cudaSuccess ||
        (e = cudaMemcpyAsync(L->plane, d->p.lin.plane, 3 * L->nt * sizeof(double),
                             cudaMemcpyHostToDevice, st)) != cudaSuccess ||
        (e = cudaMemcpyAsync(L->vert, d->p.lin.vertex, 3 * L->nt * sizeof(int),
                             cudaMemcpyHostToDevice, st)) != cudaSuccess) {
        snprintf(err, err_cap, "linear: %zu triangles: %s", L->nt, cudaGetErrorString(e));
        cudaGetLastError();
        lin_free(L);
        return nullptr;
    }
    return L;
}

LinState *lin_clone(const LinState *base, char *err, size_t err_cap)
{
    LinState *L = new (std::nothrow) LinState;
    if (!L) {
        snprintf(err, err_cap, "out of host memory");
        return nullptr;
    }
    L->base = base;
    L->nt = base->nt;
    L->nlev = base->nlev;
    for (int l = 0; l < base->nlev; l++) {
        L->lev[l] = base->lev[l];
        L->lev_off[l] = base->lev_off[l];
    }
    L->xy = base->xy;
    L->plane = base->plane;
    L->vert = base->vert;
    return L;
}

/* The triangles that may overlap the node extent: per level the bucket rows
 * gk_linear_tile reads (a triangle's bucket is that of its lower-left corner,
 * and it spans at most one more each way), with one more bucket each way
 * against the host's roundoff of the extent. Returns their count. */
static int pick_ranges(LinState *L, double xlo, double xhi, double ylo, double yhi)
{
    const LinState *B = L->base ? L->base : L;
    const int *bstart = B->bstart.data();
    int total = 0;
    L->hrng.clear();
    for (int l = 0; l < L->nlev; l++) {
        const gk_gpu_lin_level &lv = L->lev[l];
        int bx0 = gk_lr_bucket_of((xlo - lv.x0) * lv.inv, lv.nx) - 2;
        int bx1 = gk_lr_bucket_of((xhi - lv.x0) * lv.inv, lv.nx) + 1;
        int by0 = gk_lr_bucket_of((ylo - lv.y0) * lv.inv, lv.ny) - 2;
        int by1 = gk_lr_bucket_of((yhi - lv.y0) * lv.inv, lv.ny) + 1;
        bx0 = bx0 < 0 ? 0 : bx0;
        by0 = by0 < 0 ? 0 : by0;
        bx1 = bx1 > lv.nx - 1 ? lv.nx - 1 : bx1;
        by1 = by1 > lv.ny - 1 ? lv.ny - 1 : by1;
        for (int by = by0; by <= by1; by++) {
            const size_t row = L->lev_off[l] + (size_t)by * lv.nx;
            const int s = bstart[row + bx0], e = bstart[row + bx1 + 1];
            if (e > s) {
                L->hrng.push_back(make_int2(s, total));
                total += e - s;
            }
        }
    }
    return total;
}

int lin_tile(LinState *L, cudaStream_t st, const gk_gpu_tile *t, double *out, char *err,
             size_t err_cap)
{
    const int w = t->w, h = t->h;
    const size_t ncell = (size_t)w * h;
    /* as gk_grid_node_x / gk_grid_node_y and gk_linear_tile */
    const double cw = (t->xmax - t->xmin) / t->nx, ch = (t->ymin - t->ymax) / t->ny;
    TileP P{};
    P.N.w = w;
    P.N.h = h;
    P.N.x0 = t->x0;
    P.N.y0 = t->y0;
    P.N.gx = t->xmin;
    P.N.icx = t->nx / (t->xmax - t->xmin);
    P.N.gy = t->ymax;
    P.N.icy = t->ny / (t->ymin - t->ymax);
    P.out = out;
    P.xy = L->xy;
    P.plane = L->plane;
    P.vert = L->vert;
    int total = 0;
    try {
        /* the host's extent may differ from the device's in an ulp (a host
         * compiler may contract): pick_ranges has a bucket to spare */
        const double xlo = t->xmin + (t->x0 + 0.5) * cw;
        const double xhi = t->xmin + ((t->x0 + w - 1) + 0.5) * cw;
        const double yhi = t->ymax + (t->y0 + 0.5) * ch;
        const double ylo = t->ymax + ((t->y0 + h - 1) + 0.5) * ch;
        total = L->nt > 0 ? pick_ranges(L, xlo, xhi, ylo, yhi) : 0;
    } catch (...) {
        snprintf(err, err_cap, "out of host memory");
        return -1;
    }
    const auto fails = [&](cudaError_t why) {
        cudaGetLastError();
        snprintf(err, err_cap, "linear: %s", cudaGetErrorString(why));
        return -1;
    };
    cudaError_t e;
    if ((e = grow(&L->nodes, &L->nodes_cap, (size_t)w + h)) != cudaSuccess ||
        (e = grow(&L->rng, &L->rng_cap, L->hrng.size())) != cudaSuccess) {
        cudaGetLastError();
        if (e == cudaErrorMemoryAllocation) {
            /* give the buffers back: the halves the caller asks for next need less */
            release({grown(L->nodes, L->nodes_cap), grown(L->rng, L->rng_cap)});
            return GK_GPU_TILE_NOMEM;
        }
        snprintf(err, err_cap, "linear: %s", cudaGetErrorString(e));
        return -1;
    }
    P.N.xs = L->nodes;
    P.N.ys = L->nodes + w;
    P.rng = L->rng;
    P.nrng = (int)L->hrng.size();
    P.total = total;
    /* the ranges first: a pageable copy waits for the stream, idle here */
    if (total > 0 && (e = cudaMemcpyAsync(L->rng, L->hrng.data(), L->hrng.size() * sizeof(int2),
                                          cudaMemcpyHostToDevice, st)) != cudaSuccess)
        return fails(e);
    lin_init<<<(unsigned)((ncell + 255) / 256), 256, 0, st>>>(
        out, ncell, L->nodes, L->nodes + w, w, h, t->xmin, cw, t->ymax, ch, t->x0, t->y0);
    if ((e = cudaGetLastError()) != cudaSuccess)
        return fails(e);
    if (total > 0) {
        lin_raster<<<(unsigned)((total + LIN_THREADS - 1) / LIN_THREADS), LIN_THREADS, 0, st>>>(P);
        if ((e = cudaGetLastError()) != cudaSuccess)
            return fails(e);
    }
    return 0;
}

} // namespace gk_gpu
