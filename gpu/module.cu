/* SPDX-License-Identifier: MIT */
/*
 * module.cu - gridkit's CUDA module: the C ABI of core/gpu_abi.h (the
 * gk_gpu_api table behind GK_GPU_ENTRY_FN, gk_gpu_module_v<version>), the probe, jobs (the points
 * uploaded once per job, their bin grid for the local algorithms) and the
 * dispatch of a tile to its family's translation unit (families.h). Built
 * as a shared object with the CUDA runtime linked statically, dlopen()ed by
 * the core (algorithms/core/device.c) when a GPU is used.
 *
 * The local algorithms use a uniform bin grid built on the GPU (radix sort
 * of bin ids, stable, so points of a bin stay in input order) and search it
 * in double precision with gdal_grid's exact rules: window tests written
 * without contraction (__dmul_rn/__dadd_rn) so they round as the CPU's do,
 * ties by input order, exact hits, min_points and nodata as the CPU's.
 */
#include "families.h"
#include "call.h"
#include "op_row.h"
#include "job.h"
#include "local.cuh"
#include "core/to_float32.h"

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
#include <vector>

#define GK_EXPORT extern "C" __attribute__((visibility("default")))

namespace gk_gpu
{

thread_local cudaError_t ck_last = cudaSuccess;

/* ---- the nodata count, the bin grid, the job ------------------------------- */

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

/* A tile's values as Float32 pixels, by the CPU's rule (core/to_float32.h). */
__global__ void to_float32(const double *in, size_t n, float *out)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = gk_to_float32(in[i]);
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

/* each block's least and largest x, y, z (NaN left out, as fmin does) */
__global__ void extent_partials(const double *x, const double *y, const double *z, int n,
                                double *part)
{
    __shared__ double sh[6][256];
    double v[6] = {INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY};
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        v[0] = fmin(v[0], x[i]), v[1] = fmin(v[1], y[i]), v[2] = fmin(v[2], z[i]);
        v[3] = fmax(v[3], x[i]), v[4] = fmax(v[4], y[i]), v[5] = fmax(v[5], z[i]);
    }
    for (int k = 0; k < 6; k++)
        sh[k][threadIdx.x] = v[k];
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s)
            for (int k = 0; k < 6; k++)
                sh[k][threadIdx.x] = k < 3 ? fmin(sh[k][threadIdx.x], sh[k][threadIdx.x + s])
                                           : fmax(sh[k][threadIdx.x], sh[k][threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x < 6)
        part[blockIdx.x * 6 + threadIdx.x] = sh[threadIdx.x][0];
}

/* the points in gdal_grid's tie order (quadtree_order.cu) */
__global__ void gather_order(const double *x, const double *y, const double *z,
                             const unsigned *order, int n, double *ox, double *oy, double *oz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const unsigned o = order[i];
    ox[i] = x[o];
    oy[i] = y[o];
    oz[i] = z[o];
}

/* the folds of cross-validation in bin order */
__global__ void gather_group(const int *group, const int *sidx, int n, int *sgroup)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        sgroup[i] = group[sidx[i]];
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
    /* one of this build's kernels: every TU is built for the same architectures */
    cudaFuncAttributes fa;
    if ((e = cudaFuncGetAttributes(&fa, count_nodata)) != cudaSuccess) {
        snprintf(err, err_cap, "%s (compute capability %d.%d) cannot run this build's kernels: %s",
                 prop.name, prop.major, prop.minor, cudaGetErrorString(e));
        cudaGetLastError();
        return -1;
    }
    snprintf(name, name_cap, "%s", prop.name);
    return 0;
}

/* ---- the ops: what a job of each builds, and how its tile runs ------------ */

static int tile_invdist_all(Job *, const Grid &, const gk_gpu_tile *, int, char *, size_t);
static int tile_local(Job *, const Grid &, const gk_gpu_tile *, int, char *, size_t);
static int tile_linear(Job *, const Grid &, const gk_gpu_tile *, int, char *, size_t);
static int tile_density(Job *J, const Grid &G, const gk_gpu_tile *, int, char *err, size_t err_cap)
{
    return density_tile(J, G, err, err_cap);
}
static int make_linear(Job *J, const gk_gpu_job_desc *d, char *err, size_t err_cap)
{
    return (J->own = lin_new(J->st, d, err, err_cap)) ? 0 : -1;
}
static void drop_linear(void *own) { lin_free(static_cast<LinState *>(own)); }
static void *clone_linear(const void *own, char *err, size_t err_cap)
{
    return lin_clone(static_cast<const LinState *>(own), err, err_cap);
}

/* The rows of the ops whose tiles run here or in families without a row of
 * their own; a new op's row may be in its family's file instead. */
const OpRow op_invdist_all = {true,    false,   NEVER,   NEVER,
                              nullptr, nullptr, nullptr, tile_invdist_all};
const OpRow op_idw_knn = {true, true, WITH_K, WITHOUT_K, nullptr, nullptr, nullptr, tile_local};
const OpRow op_nearest = {true, true, ALWAYS, NEVER, nullptr, nullptr, nullptr, tile_local};
const OpRow op_average = {true, true, NEVER, ALWAYS, nullptr, nullptr, nullptr, tile_local};
const OpRow op_count = {true, true, NEVER, ALWAYS, nullptr, nullptr, nullptr, tile_local};
const OpRow op_minimum = {true, true, NEVER, ALWAYS, nullptr, nullptr, nullptr, tile_local};
const OpRow op_maximum = {true, true, NEVER, ALWAYS, nullptr, nullptr, nullptr, tile_local};
const OpRow op_range = {true, true, NEVER, ALWAYS, nullptr, nullptr, nullptr, tile_local};
const OpRow op_average_distance = {true,    true,    NEVER,   ALWAYS,
                                   nullptr, nullptr, nullptr, tile_local};
const OpRow op_average_distance_pts = {true,    true,    NEVER,   ALWAYS,
                                       nullptr, nullptr, nullptr, tile_local};
const OpRow op_aidw = {true, true, ALWAYS, WITHOUT_K, nullptr, nullptr, nullptr, tile_local};
const OpRow op_linear = {false,       false,       NEVER,        NEVER,
                         make_linear, drop_linear, clone_linear, tile_linear};
const OpRow op_heatmap = {false,        false,         NEVER,        NEVER,         density_make,
                          density_drop, density_clone, tile_density, density_shrink};
const OpRow op_gauss = {false,        false,         NEVER,        NEVER,         density_make,
                        density_drop, density_clone, tile_density, density_shrink};
/* op_krige and op_krige_global: kriging_ops.cu */

/* The table: one row per line of core/gpu_ops.def, by op number. */
static const OpRow *const OPS[] = {
#define GK_GPU_OP(NAME, row) &row,
#include "core/gpu_ops.def"
#undef GK_GPU_OP
};
static_assert(sizeof OPS / sizeof OPS[0] == GK_GPU_OP_END - 1, "a row per op");

static const OpRow *op_row(int op)
{
    return op > GK_GPU_OP_NONE && op < GK_GPU_OP_END ? OPS[op - 1] : nullptr;
}

void job_destroy(Job *J)
{
    if (!J)
        return;
    cudaSetDevice(J->dev);
    if (J->st)
        cudaStreamSynchronize(J->st);
    const OpRow *row = op_row(J->d.op);
    if (J->own && row && row->drop)
        row->drop(J->own);
    void *own[] = {J->out, J->outf, J->part, J->flags, J->pf, J->flag_list, J->counters, J->klg};
    for (void *p : own)
        if (p)
            cudaFree(p);
    void *shared[] = {J->x, J->y, J->z, J->sxy, J->sz, J->sidx, J->sgroup, J->bstart};
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

/* The job's points on its device, their extent, gdal_grid's tie order and
 * the bin grid where the op's row asks, then the op's own state. */
static int job_build(Job *J, const OpRow *row, int dev, const gk_gpu_job_desc *d, char *err,
                     size_t err_cap)
{
    int *keys = nullptr, *vals = nullptr, *keys2 = nullptr, *vals2 = nullptr;
    void *tmp = nullptr;
    unsigned *qorder = nullptr; /* gdal_grid's tie order, and the points in it */
    double *qx = nullptr, *qy = nullptr, *qz = nullptr;
    double *ext = nullptr; /* the blocks' extents */
    const auto scratch = at_exit([&] {
        void *p[] = {ext, qorder, qx, qy, qz, keys, vals, keys2, vals2, tmp};
        for (void *q : p)
            cudaFree(q);
    });
    J->dev = dev;
    J->d = *d;
    J->d.x = J->d.y = J->d.z = nullptr;
    J->d.group = nullptr;
    J->n = d->n;
    const int n = (int)d->n;
    const size_t nb = d->n * sizeof(double);
    CK_RET(cudaSetDevice(dev));
    CK_RET(cudaDeviceGetAttribute(&J->nsm, cudaDevAttrMultiProcessorCount, dev));
    CK_RET(cudaDeviceGetAttribute(&J->smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    CK_RET(cudaStreamCreateWithFlags(&J->st, cudaStreamNonBlocking));
    CK_RET(cudaEventCreate(&J->e0));
    CK_RET(cudaEventCreate(&J->e1));
    CK_RET(cudaMalloc(&J->counters, 4 * sizeof(unsigned int)));
    if (row->points) {
        CK_RET(cudaMalloc(&J->x, nb));
        CK_RET(cudaMalloc(&J->y, nb));
        CK_RET(cudaMalloc(&J->z, nb));
        CK_RET(cudaMemcpyAsync(J->x, d->x, nb, cudaMemcpyHostToDevice, J->st));
        CK_RET(cudaMemcpyAsync(J->y, d->y, nb, cudaMemcpyHostToDevice, J->st));
        CK_RET(cudaMemcpyAsync(J->z, d->z, nb, cudaMemcpyHostToDevice, J->st));
    }
    if (row->points) {
        /* the points' extent and Z's, on the device (a pass over the host's
         * arrays took longer than the upload) */
        double xmin, ymin, zmin, xmax, ymax, zmax;
        {
            const int nblk = std::max(1, std::min(2 * J->nsm, (n + 255) / 256));
            CK_RET(cudaMallocAsync(&ext, (size_t)nblk * 6 * sizeof(double), J->st));
            extent_partials<<<nblk, 256, 0, J->st>>>(J->x, J->y, J->z, n, ext);
            CK_RET(cudaGetLastError());
            std::vector<double> part((size_t)nblk * 6);
            CK_RET(cudaMemcpyAsync(part.data(), ext, part.size() * sizeof(double),
                                   cudaMemcpyDeviceToHost, J->st));
            CK_RET(cudaFreeAsync(ext, J->st));
            ext = nullptr;
            CK_RET(cudaStreamSynchronize(J->st));
            xmin = ymin = zmin = INFINITY;
            xmax = ymax = zmax = -INFINITY;
            for (int b = 0; b < nblk; b++) {
                const double *v = &part[(size_t)b * 6];
                xmin = std::fmin(xmin, v[0]), ymin = std::fmin(ymin, v[1]);
                zmin = std::fmin(zmin, v[2]), xmax = std::fmax(xmax, v[3]);
                ymax = std::fmax(ymax, v[4]), zmax = std::fmax(zmax, v[5]);
            }
        }
        J->zc = std::isfinite(zmin) && std::isfinite(zmax) ? 0.5 * (zmin + zmax) : 0.0;
        if (d->quadtree_order && n > 1) {
            const double box[4] = {xmin, ymin, xmax, ymax};
            CK_RET(cudaMalloc(&qorder, d->n * sizeof *qorder));
            CK_RET(cudaMalloc(&qx, nb));
            CK_RET(cudaMalloc(&qy, nb));
            CK_RET(cudaMalloc(&qz, nb));
            if (quadtree_order(J->st, J->x, J->y, n, box, qorder, err, err_cap))
                return -1;
            const int T = 256;
            gather_order<<<(n + T - 1) / T, T, 0, J->st>>>(J->x, J->y, J->z, qorder, n, qx, qy, qz);
            CK_RET(cudaGetLastError());
            CK_RET(cudaStreamSynchronize(J->st));
            cudaFree(J->x);
            cudaFree(J->y);
            cudaFree(J->z);
            J->x = qx, J->y = qy, J->z = qz;
            qx = qy = qz = nullptr;
        }
        if (row->bins) {
            /* square-ish bins of ~4 points, or a fraction of the window */
            double W = xmax - xmin, H = ymax - ymin;
            double area = std::max(W, 1e-300) * std::max(H, 1e-300);
            double ppb = 4.0;
            if (holds(row->knn_bins, d->max_points))
                ppb = 1.5; /* k = 16, H100: 6.48 ms against 6.59 with 2 and 6.49 with 1 */
            if (getenv("GRIDKIT_GPU_PPB"))
                ppb = std::max(0.25, atof(getenv("GRIDKIT_GPU_PPB")));
            double bs = std::sqrt(area * ppb / (double)d->n);
            if (!(W > 0) || !(H > 0))
                bs = std::max(W, H) * ppb / (double)d->n;
            if (holds(row->wide_bins, d->max_points) && d->window != GK_GPU_WIN_ALL)
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
            CK_RET(cudaMalloc(&keys, d->n * sizeof(int)));
            CK_RET(cudaMalloc(&vals, d->n * sizeof(int)));
            CK_RET(cudaMalloc(&keys2, d->n * sizeof(int)));
            CK_RET(cudaMalloc(&vals2, d->n * sizeof(int)));
            CK_RET(cudaMalloc(&J->sxy, d->n * sizeof(double2)));
            CK_RET(cudaMalloc(&J->sz, nb));
            CK_RET(cudaMalloc(&J->sidx, d->n * sizeof(int)));
            CK_RET(cudaMalloc(&J->bstart, (nbins + 1) * sizeof(int)));
            const int T = 256;
            bin_keys<<<(n + T - 1) / T, T, 0, J->st>>>(J->x, J->y, n, J->gx0, J->gy0, J->ibsx,
                                                       J->ibsy, nbx, nby, keys, vals);
            CK_RET(cudaGetLastError());
            int bits = 1;
            while ((1LL << bits) < nbins)
                bits++;
            size_t tb = 0;
            CK_RET(cub::DeviceRadixSort::SortPairs(nullptr, tb, keys, keys2, vals, vals2, n, 0,
                                                   bits, J->st));
            CK_RET(cudaMalloc(&tmp, tb));
            CK_RET(cub::DeviceRadixSort::SortPairs(tmp, tb, keys, keys2, vals, vals2, n, 0, bits,
                                                   J->st));
            gather_sorted<<<(n + T - 1) / T, T, 0, J->st>>>(J->x, J->y, J->z, vals2, n, J->sxy,
                                                            J->sz, J->sidx);
            CK_RET(cudaGetLastError());
            bin_starts<<<(nbins + 1 + T - 1) / T, T, 0, J->st>>>(keys2, n, nbins, J->bstart);
            CK_RET(cudaGetLastError());
            if (d->group) { /* keys is free now: the folds in input order there */
                CK_RET(cudaMalloc(&J->sgroup, d->n * sizeof(int)));
                CK_RET(cudaMemcpyAsync(keys, d->group, d->n * sizeof(int), cudaMemcpyHostToDevice,
                                       J->st));
                gather_group<<<(n + T - 1) / T, T, 0, J->st>>>(keys, J->sidx, n, J->sgroup);
                CK_RET(cudaGetLastError());
            }
        }
    }
    if (row->make && row->make(J, d, err, err_cap))
        return -1;
    CK_RET(cudaStreamSynchronize(J->st));
    return 0;
}

void *api_job_new(int dev, const gk_gpu_job_desc *d, char *err, size_t err_cap)
{
    const OpRow *row = op_row(d->op);
    if (!row) {
        snprintf(err, err_cap, "operation %d has no kernel in this module", d->op);
        return nullptr;
    }
    Job *J = new (std::nothrow) Job;
    if (!J) {
        snprintf(err, err_cap, "out of host memory");
        return nullptr;
    }
    if (job_build(J, row, dev, d, err, err_cap)) {
        cudaGetLastError();
        job_destroy(J);
        return nullptr;
    }
    return J;
}

/* ---- the local algorithms' dispatch -------------------------------------- */

/* aidw, average_distance_pts and the per-quadrant selection. */
static bool extra_op(const gk_gpu_job_desc &d)
{
    return d.op == GK_GPU_AVERAGE_DISTANCE_PTS || d.op == GK_GPU_AIDW || d.quad_min > 0 ||
           d.quad_max > 0;
}

static int run_extra(Job *J, const LocalParams &P, dim3 g, dim3 b, const gk_gpu_tile *t, char *err,
                     size_t err_cap)
{
    const gk_gpu_job_desc &d = J->d;
    ExtraParams E{};
    E.x = J->x;
    E.y = J->y;
    E.n = (int)J->n;
    E.quad_min = d.quad_min;
    E.quad_max = d.quad_max;
    E.quad_keep = d.quad_max;
    if (d.max_points > 0 && (E.quad_keep == 0 || d.max_points < E.quad_keep))
        E.quad_keep = d.max_points;
    if (d.op == GK_GPU_AIDW) { /* its block of the desc */
        E.aidw_k = d.p.aidw.k;
        for (int a = 0; a < 5; a++)
            E.alpha[a] = d.p.aidw.alpha[a];
        E.rmin = d.p.aidw.rmin;
        E.rmax = d.p.aidw.rmax;
        E.r_exp = d.p.aidw.r_exp;
    }
    if (d.op == GK_GPU_AVERAGE_DISTANCE_PTS) {
        if (pairs_tile(J, P, g, b, t, err, err_cap))
            return -1;
    } else if (d.op == GK_GPU_AIDW) {
        if (aidw_tile(J, P, E, g, b, t, err, err_cap))
            return -1;
    } else {
        CK_RET(launch_quad(J, P, E, g, b, (size_t)t->w * t->h));
    }
    CK_RET(cudaGetLastError());
    return 0;
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
        nearest_launch(g, b, J->st, P);
    } else if (d.op == GK_GPU_IDW_KNN && d.max_points > 0) {
        CK_RET(idw_knn_launch(J, P, g, b, (size_t)t->w * t->h));
    } else {
        gather_launch(g, b, J->st, P);
    }
    CK_RET(cudaGetLastError());
    return 0;
}

/* ---- the ops' tiles ------------------------------------------------------ */

static int tile_invdist_all(Job *J, const Grid &G, const gk_gpu_tile *t, int, char *err,
                            size_t err_cap)
{
    return invdist_all_tile(J, G, t, err, err_cap);
}

/* The core locates the nodes left GK_LR_UNSET and counts nodata. */
static int tile_linear(Job *J, const Grid &, const gk_gpu_tile *t, int, char *err, size_t err_cap)
{
    CK_RET(cudaMemsetAsync(J->counters, 0, 4 * sizeof(unsigned int), J->st));
    {
        const int rc = lin_tile(static_cast<LinState *>(J->own), J->st, t, J->out, err, err_cap);
        if (rc == GK_GPU_TILE_NOMEM)
            ck_last = cudaErrorMemoryAllocation;
        return rc ? -1 : 0;
    }
}

/* The window searches' parameters of a tile: the bins, the window, the op. */
LocalParams local_params(Job *J, const Grid &G)
{
    const gk_gpu_job_desc &d = J->d;
    LocalParams P{};
    P.g = G;
    P.B = Bins{J->sxy, J->sz,  J->sidx, J->bstart, J->nbx,    J->nby,   J->gx0,  J->gy0,
               J->bsx, J->bsy, J->ibsx, J->ibsy,   J->margin, J->pxmax, J->pymax};
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
    P.sg = J->sgroup;
    return P;
}

static int tile_local(Job *J, const Grid &G, const gk_gpu_tile *t, int, char *err, size_t err_cap)
{
    LocalParams P = local_params(J, G);
    CK_RET(cudaMemsetAsync(J->counters, 0, 4 * sizeof(unsigned int), J->st));
    return run_local(J, P, t, err, err_cap);
}

/* ---- ABI: kriging's parameters, a tile, the rest ------------------------- */

int api_krige_set(void *job, const gk_gpu_krige *k, char *err, size_t err_cap)
{
    Job *J = (Job *)job;
    std::lock_guard<std::mutex> lock(J->mu);
    const OpRow *row = op_row(J->d.op);
    if (!row->set_krige) {
        snprintf(err, err_cap, "kriging parameters for a job that is not kriging");
        return -1;
    }
    return row->set_krige(J, k, err, err_cap);
}

/* A tile (api_tile's work, its lock held); CK_RET leaves ck_last for the
 * caller to tell out-of-memory from other failures. */
static int tile_run(Job *J, const gk_gpu_tile *t, double *out, uint64_t *nodata, uint64_t *singular,
                    char *err, size_t err_cap)
{
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
    const OpRow *row = op_row(d.op);
    const int nbands = J->nbands;
    CK_RET(cudaSetDevice(J->dev));
    CK_RET(grow(&J->out, &J->out_cap, ncell * nbands));
    if (row->stage && row->stage(J, t, err, err_cap))
        return -1;
    CK_RET(cudaEventRecord(J->e0, J->st));
    if (row->tile(J, G, t, nbands, err, err_cap))
        return -1;
    CK_RET(cudaEventRecord(J->e1, J->st));
    count_nodata<<<(unsigned)((ncell + 255) / 256), 256, 0, J->st>>>(J->out, ncell, d.nodata,
                                                                     J->counters + 1);
    CK_RET(cudaGetLastError());
    if (t->out_float) { /* half the bytes back, and no pass over them on the host */
        CK_RET(grow(&J->outf, &J->outf_cap, ncell * nbands));
        to_float32<<<(unsigned)((ncell * nbands + 255) / 256), 256, 0, J->st>>>(
            J->out, ncell * nbands, J->outf);
        CK_RET(cudaGetLastError());
        CK_RET(cudaMemcpyAsync(out, J->outf, ncell * nbands * sizeof(float), cudaMemcpyDeviceToHost,
                               J->st));
    } else {
        CK_RET(cudaMemcpyAsync(out, J->out, ncell * nbands * sizeof(double), cudaMemcpyDeviceToHost,
                               J->st));
    }
    CK_RET(cudaMemcpyAsync(&cnt, J->counters + 1, sizeof cnt, cudaMemcpyDeviceToHost, J->st));
    CK_RET(cudaMemcpyAsync(&nsing, J->counters + 3, sizeof nsing, cudaMemcpyDeviceToHost, J->st));
    CK_RET(cudaStreamSynchronize(J->st));
    CK_RET(cudaEventElapsedTime(&J->last_ms, J->e0, J->e1));
    *nodata = cnt;
    *singular = nsing;
    return 0;
}

int api_tile(void *job, const gk_gpu_tile *t, double *out, uint64_t *nodata, uint64_t *singular,
             char *err, size_t err_cap)
{
    Job *J = (Job *)job;
    std::lock_guard<std::mutex> lock(J->mu);
    const OpRow *row = op_row(J->d.op);
    *singular = 0;
    if (t->qx && !row->cv_tiles) {
        snprintf(err, err_cap, "cross-validation tiles are local kriging's only");
        return -1;
    }
    ck_last = cudaSuccess;
    if (!tile_run(J, t, out, nodata, singular, err, err_cap))
        return 0;
    cudaGetLastError();
    if (ck_last != cudaErrorMemoryAllocation)
        return -1;
    /* give the buffers back: the halves the caller asks for next need less */
    cudaStreamSynchronize(J->st);
    release({grown(J->out, J->out_cap), grown(J->outf, J->outf_cap), grown(J->part, J->part_cap),
             grown(J->flags, J->flags_cap), grown(J->flag_list, J->flag_list_cap),
             grown(J->klg, J->klg_cap)});
    if (J->own && row->shrink)
        row->shrink(J->own);
    return GK_GPU_TILE_NOMEM;
}

/* A clone's stream, events and counters. */
static int clone_streams(Job *J, char *err, size_t err_cap)
{
    CK_RET(cudaSetDevice(J->dev));
    CK_RET(cudaStreamCreateWithFlags(&J->st, cudaStreamNonBlocking));
    CK_RET(cudaEventCreate(&J->e0));
    CK_RET(cudaEventCreate(&J->e1));
    CK_RET(cudaMalloc(&J->counters, 4 * sizeof(unsigned int)));
    return 0;
}

/* A second job on the base's device that shares its points and bins (read
 * only) and has its own stream and buffers: the points are uploaded once per
 * GPU however many tiles are in flight there. Freed before its base. */
void *api_job_clone(void *job, char *err, size_t err_cap)
{
    const Job *B = (const Job *)job;
    const OpRow *row = B ? op_row(B->d.op) : nullptr;
    if (!B || !row || (B->own && !row->clone) || B->base) {
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
    J->sgroup = B->sgroup;
    J->nbx = B->nbx, J->nby = B->nby;
    J->gx0 = B->gx0, J->gy0 = B->gy0, J->bsx = B->bsx, J->bsy = B->bsy;
    J->ibsx = B->ibsx, J->ibsy = B->ibsy, J->margin = B->margin;
    J->pxmax = B->pxmax, J->pymax = B->pymax;
    J->nsm = B->nsm;
    J->smem_optin = B->smem_optin;
    if ((B->own && !(J->own = row->clone(B->own, err, err_cap))) ||
        clone_streams(J, err, err_cap)) {
        job_destroy(J);
        return nullptr;
    }
    return J;
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

const gk_gpu_api the_api = {
    GK_GPU_ABI_VERSION, api_probe,       api_job_new,      api_tile,         api_job_free,
    api_last_kernel_ms, api_krige_set,   api_variogram,    api_device_count, api_host_alloc,
    api_host_free,      api_job_clone,   api_curve_evolve, api_scms,         api_quadtree_order,
    api_surface,        api_sim_weights, api_rst_sums};

} // namespace gk_gpu

GK_EXPORT const gk_gpu_api *GK_GPU_ENTRY_FN(void) { return &gk_gpu::the_api; }
