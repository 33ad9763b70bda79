/* SPDX-License-Identifier: MIT */
/*
 * density.cu - heatmap, gauss and kernel_smooth on the GPU
 * (algorithms/density/): the core's bins uploaded as they are, and each
 * term's arithmetic from density/density_sum.h (compiled with -fmad=false),
 * so that every node sums the same terms in the same order as the CPU: the
 * same bits.
 *
 * A block takes a square of nodes and walks the bins that can reach it, in
 * bin order, a chunk of points at a time through shared memory. gauss's
 * kernel is a product of an x and a y factor: the block computes each
 * point's factors over its 64 columns and 64 rows once, and each thread
 * then forms the products for its 4 x 4 nodes, like a small matrix product
 * (each a fused multiply-add, rounded once, as the CPU's fma()). heatmap's
 * kernel and a turned ellipse are not separable: a thread per node tests
 * each point. ifgt: a thread per node sums the CPU's expansions (no bins).
 */
#include "call.h"
#include "families.h"
#include "grid.cuh"
#include "job.h"

#include "density/density_fft.h"
#include "density/density_sum.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <new>
#include <vector>

namespace gk_gpu
{

/* A density job's own state (Job::own): method=fft's buffer (its plans, the
 * lattice, the lines' scratch), grown on demand. */
struct DensState {
    double *fft = nullptr;
    size_t fft_cap = 0;
};

void density_shrink(void *own)
{
    DensState *S = static_cast<DensState *>(own);
    release({grown(S->fft, S->fft_cap)});
}

void density_drop(void *own)
{
    density_shrink(own);
    delete static_cast<DensState *>(own);
}

void *density_clone(const void *, char *err, size_t err_cap)
{
    DensState *S = new (std::nothrow) DensState;
    if (!S)
        snprintf(err, err_cap, "out of host memory");
    return S;
}

struct DensParams {
    Grid g;
    const double2 *xy;
    const double *z;
    const int *start;
    int nbx, nby;
    double x0, y0, side;
    double r, ry, c, cy, div; /* gauss: r, c along x; ry, cy along y */
    gk_ds_heat_k hk;          /* heatmap */
    int smooth;
    double nodata;
    double *out;
};

/* The runs of points of the bins that can reach nodes [i0, i1] x [j0, j1]. */
struct Span {
    int bi0, bi1, bj0, bj1;
};
__device__ __forceinline__ Span block_span(const DensParams &P, int i0, int i1, int j0, int j1,
                                           double rx, double ry)
{
    Span s;
    const double xa = node_x(P.g.xmin, P.g.cw, P.g.x0 + i0);
    const double xb = node_x(P.g.xmin, P.g.cw, P.g.x0 + i1);
    const double ya = node_x(P.g.ymax, P.g.ch, P.g.y0 + j0); /* the top: largest y */
    const double yb = node_x(P.g.ymax, P.g.ch, P.g.y0 + j1);
    gk_ds_bin_span(xa, xb, rx, P.x0, P.side, P.nbx, &s.bi0, &s.bi1);
    gk_ds_bin_span(yb, ya, ry, P.y0, P.side, P.nby, &s.bj0, &s.bj1);
    return s;
}

/* A thread a node: f(point, weight, index) for each point of the runs of
 * span s, in bin order, a chunk of CH at a time through the block's shared
 * sxy and sz. */
template <int CH, class F>
__device__ __forceinline__ void each_point(const DensParams &P, const Span &s, double2 *sxy,
                                           double *sz, F f)
{
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    for (int row = s.bj0; row <= s.bj1 && s.bi0 <= s.bi1; row++) {
        const int p0 = P.start[row * P.nbx + s.bi0], p1 = P.start[row * P.nbx + s.bi1 + 1];
        for (int base = p0; base < p1; base += CH) {
            const int cnt = min(CH, p1 - base);
            __syncthreads();
            if (tid < cnt) {
                sxy[tid] = P.xy[base + tid];
                sz[tid] = P.z[base + tid];
            }
            __syncthreads();
            for (int c = 0; c < cnt; c++)
                f(sxy[c], sz[c], base + c);
        }
    }
}

/* ---- gauss ---------------------------------------------------------------- */

#define GS_B 64  /* nodes a side of a block */
#define GS_T 4   /* nodes a side of a thread */
#define GS_CH 32 /* points a chunk */
#define GS_THREADS 256

/* A node's value from its sums (gauss, or kernel_smooth's ratio). */
template <bool SMOOTH>
__device__ __forceinline__ double gauss_value(const DensParams &P, double v, double den)
{
    if (SMOOTH)
        return den > 0 ? v / den : P.nodata;
    return P.div > 0 ? v / P.div : v;
}

/* A block of GS_B x GS_B nodes over the points of segments [k0, k1)
 * (density_sum.h's GK_DS_SEG): each segment's sums from 0.0, then either
 * added in order into the node's total (part NULL: the whole sum, written
 * as the value) or written to part, a plane per segment (and the kernel
 * masses after them, kernel_smooth), for gauss_reduce. */
template <bool SMOOTH>
__global__ void __launch_bounds__(GS_THREADS)
    gauss_f64(DensParams P, int kper, double *part, size_t ncell, int nsegs)
{
    __shared__ double sx[GS_CH][GS_B], swy[GS_CH][GS_B], sey[SMOOTH ? GS_CH : 1][GS_B];
    const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
    const int bi = blockIdx.x * GS_B, bj = blockIdx.y * GS_B;
    const int ni = min(GS_B, P.g.w - bi), nj = min(GS_B, P.g.h - bj);
    const int k0 = blockIdx.z * kper, k1 = min(nsegs, k0 + kper);
    const long long lo = (long long)k0 * GK_DS_SEG, hi = (long long)k1 * GK_DS_SEG;
    const Span s = block_span(P, bi, bi + ni - 1, bj, bj + nj - 1, P.r, P.ry);
    /* the segments' totals in shared memory (the registers hold the
     * segment's own sums): a node's slot is its thread's alone */
    extern __shared__ double stot[];
    double *tden = stot + GS_B * GS_B;
    double acc[GS_T][GS_T], den[GS_T][GS_T];
#pragma unroll
    for (int b = 0; b < GS_T; b++)
#pragma unroll
        for (int a = 0; a < GS_T; a++) {
            acc[b][a] = den[b][a] = 0.0;
            const int k = (ty * GS_T + b) * GS_B + tx + 16 * a;
            if (!part) {
                stot[k] = 0.0;
                if (SMOOTH)
                    tden[k] = 0.0;
            }
        }
    long long cur = -1; /* the segment acc and den hold */
    /* closes segment cur: into the totals, or into its plane of part */
    auto close = [&]() {
        if (cur < 0)
            return;
#pragma unroll
        for (int b = 0; b < GS_T; b++)
#pragma unroll
            for (int a = 0; a < GS_T; a++) {
                const int i = tx + 16 * a, j = ty * GS_T + b;
                if (part) {
                    if (i < ni && j < nj) {
                        const size_t node = (size_t)(bj + j) * P.g.w + bi + i;
                        part[(size_t)cur * ncell + node] = acc[b][a];
                        if (SMOOTH)
                            part[((size_t)nsegs + cur) * ncell + node] = den[b][a];
                    }
                } else {
                    const int k = j * GS_B + i;
                    stot[k] = __dadd_rn(stot[k], acc[b][a]);
                    if (SMOOTH)
                        tden[k] = __dadd_rn(tden[k], den[b][a]);
                }
                acc[b][a] = den[b][a] = 0.0;
            }
    };
    for (int row = s.bj0; row <= s.bj1 && s.bi0 <= s.bi1; row++) {
        const long long p0 = max(lo, (long long)P.start[row * P.nbx + s.bi0]);
        const long long p1 = min(hi, (long long)P.start[row * P.nbx + s.bi1 + 1]);
        for (long long base = p0; base < p1;) {
            const long long seg = base / GK_DS_SEG;
            const int cnt = (int)min((long long)GS_CH, min(p1, (seg + 1) * GK_DS_SEG) - base);
            if (seg != cur) {
                close();
                cur = seg;
            }
            __syncthreads();
            int any = 0;
            for (int e = tid; e < GS_CH * GS_B; e += GS_THREADS) {
                const int c = e / GS_B, k = e % GS_B;
                double fx = 0.0, fy = 0.0, z = 0.0;
                if (c < cnt) {
                    const double2 q = P.xy[base + c];
                    z = P.z[base + c];
                    if (k < ni)
                        fx =
                            gk_ds_gauss1(node_x(P.g.xmin, P.g.cw, P.g.x0 + bi + k) - q.x, P.c, P.r);
                    if (k < nj)
                        fy = gk_ds_gauss1(node_x(P.g.ymax, P.g.ch, P.g.y0 + bj + k) - q.y, P.cy,
                                          P.ry);
                }
                sx[c][k] = fx;
                swy[c][k] = z * fy;
                if (SMOOTH)
                    sey[c][k] = fy;
                any |= fx != 0.0 || fy != 0.0;
            }
            base += cnt;
            /* a chunk of points that reach none of the block's nodes adds
             * only zeros: skipped, the same bits */
            if (!__syncthreads_or(any))
                continue;
            for (int c = 0; c < cnt; c++) {
                double ex[GS_T], wy[GS_T], ey[GS_T];
#pragma unroll
                for (int a = 0; a < GS_T; a++)
                    ex[a] = sx[c][tx + 16 * a];
#pragma unroll
                for (int b = 0; b < GS_T; b++) {
                    wy[b] = swy[c][ty * GS_T + b];
                    ey[b] = SMOOTH ? sey[c][ty * GS_T + b] : 0.0;
                }
                /* a warp's 8 rows: a point whose factors are 0 on all of
                 * them adds only zeros there (the same bits) */
                bool nz = false;
#pragma unroll
                for (int b = 0; b < GS_T; b++)
                    nz = nz || wy[b] != 0.0 || (SMOOTH && ey[b] != 0.0);
                if (!__any_sync(0xffffffffu, nz))
                    continue;
#pragma unroll
                for (int b = 0; b < GS_T; b++)
#pragma unroll
                    for (int a = 0; a < GS_T; a++) {
                        acc[b][a] = __fma_rn(wy[b], ex[a], acc[b][a]);
                        if (SMOOTH)
                            den[b][a] = __fma_rn(ey[b], ex[a], den[b][a]);
                    }
            }
        }
    }
    close();
    if (part)
        return;
#pragma unroll
    for (int b = 0; b < GS_T; b++)
#pragma unroll
        for (int a = 0; a < GS_T; a++) {
            const int i = tx + 16 * a, j = ty * GS_T + b, k = j * GS_B + i;
            if (i < ni && j < nj)
                P.out[(size_t)(bj + j) * P.g.w + bi + i] =
                    gauss_value<SMOOTH>(P, stot[k], SMOOTH ? tden[k] : 0.0);
        }
}

/* The segments' planes summed in order from 0.0: the value of each node. */
template <bool SMOOTH>
__global__ void gauss_reduce(DensParams P, const double *part, size_t ncell, int nsegs)
{
    const size_t node = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (node >= ncell)
        return;
    double v = 0.0, den = 0.0;
    for (int k = 0; k < nsegs; k++) {
        v = __dadd_rn(v, part[(size_t)k * ncell + node]);
        if (SMOOTH)
            den = __dadd_rn(den, part[((size_t)nsegs + k) * ncell + node]);
    }
    P.out[node] = gauss_value<SMOOTH>(P, v, den);
}

/* A turned ellipse is no product of factors: a thread a node, a term a pair,
 * as the CPU's gauss_flush_turned; the segments' sums added in order. */
#define GT_B 16   /* nodes a side of a block, a thread each */
#define GT_CH 256 /* points a chunk */

template <bool SMOOTH>
__global__ void __launch_bounds__(GT_B *GT_B)
    gauss_turned_f64(DensParams P, double ca, double sa, double lim)
{
    __shared__ double2 sxy[GT_CH];
    __shared__ double sz[GT_CH];
    const int bi = blockIdx.x * GT_B, bj = blockIdx.y * GT_B;
    const int ni = min(GT_B, P.g.w - bi), nj = min(GT_B, P.g.h - bj);
    const int i = bi + threadIdx.x, j = bj + threadIdx.y;
    const double nx = node_x(P.g.xmin, P.g.cw, P.g.x0 + min(i, P.g.w - 1));
    const double ny = node_x(P.g.ymax, P.g.ch, P.g.y0 + min(j, P.g.h - 1));
    const Span s = block_span(P, bi, bi + ni - 1, bj, bj + nj - 1, P.r, P.ry);
    double tot = 0.0, tden = 0.0, acc = 0.0, den = 0.0;
    long long cur = -1;
    each_point<GT_CH>(P, s, sxy, sz, [&](double2 q, double z, int p) {
        const double dx = nx - q.x, dy = ny - q.y;
        const double u = ca * dx + sa * dy, v = ca * dy - sa * dx;
        const double q2 = u * u * P.c + v * v * P.cy;
        if (!(q2 <= lim))
            return;
        const long long seg = (long long)p / GK_DS_SEG;
        if (seg != cur) { /* a new segment: the last one's sums into the totals */
            tot = tot + acc, acc = 0.0;
            if (SMOOTH)
                tden = tden + den, den = 0.0;
            cur = seg;
        }
        const double e = gk_ds_exp(-q2);
        acc = acc + z * e;
        if (SMOOTH)
            den = den + e;
    });
    tot = tot + acc;
    if (SMOOTH)
        tden = tden + den;
    if (i < P.g.w && j < P.g.h)
        P.out[(size_t)j * P.g.w + i] = gauss_value<SMOOTH>(P, tot, tden);
}

/* The fast Gauss transform's expansions (density/gauss_ifgt.c's ifgt_node):
 * a thread a node, the clusters in order, each series by
 * gk_ds_ifgt_series. */
#define GI_PMAX 40

__global__ void __launch_bounds__(256)
    gauss_ifgt_f64(DensParams P, const double2 *cen, const double *coef, const double *reach2,
                   const int *orders, const int *offs, int K, double h)
{
    const int i = blockIdx.x * 16 + (threadIdx.x & 15), j = blockIdx.y * 16 + (threadIdx.x >> 4);
    if (i >= P.g.w || j >= P.g.h)
        return;
    const double nx = node_x(P.g.xmin, P.g.cw, P.g.x0 + i);
    const double ny = node_x(P.g.ymax, P.g.ch, P.g.y0 + j);
    double sum = 0.0;
    for (int k = 0; k < K; k++) {
        const double2 c = cen[k];
        const double dx = nx - c.x, dy = ny - c.y;
        if (!(dx * dx + dy * dy <= reach2[k]))
            continue;
        const double bx = dx / h, by = dy / h;
        const int p = orders[k];
        const double e = gk_ds_ifgt_series(coef + offs[k], p, p * (p + 1) / 2, bx, by);
        sum = sum + gk_ds_exp(-(bx * bx + by * by)) * e;
    }
    if (P.div > 0)
        sum = sum / P.div;
    P.out[(size_t)j * P.g.w + i] = sum;
}

/* ---- heatmap -------------------------------------------------------------- */

#define HM_B 16   /* nodes a side of a block, a thread each */
#define HM_CH 256 /* points a chunk */

template <int K> __global__ void __launch_bounds__(HM_B *HM_B) heatmap_f64(DensParams P)
{
    __shared__ double2 sxy[HM_CH];
    __shared__ double sz[HM_CH];
    const int bi = blockIdx.x * HM_B, bj = blockIdx.y * HM_B;
    const int ni = min(HM_B, P.g.w - bi), nj = min(HM_B, P.g.h - bj);
    const int i = bi + threadIdx.x, j = bj + threadIdx.y;
    const double nx = node_x(P.g.xmin, P.g.cw, P.g.x0 + min(i, P.g.w - 1));
    const double ny = node_x(P.g.ymax, P.g.ch, P.g.y0 + min(j, P.g.h - 1));
    const double r = P.r;
    const Span s =
        block_span(P, bi, bi + ni - 1, bj, bj + nj - 1, r * (1.0 + 1e-9), r * (1.0 + 1e-9));
    double sum = 0.0;
    bool hit = false;
    each_point<HM_CH>(P, s, sxy, sz, [&](double2 q, double z, int) {
        const double dx = __dadd_rn(nx, -q.x), dy = __dadd_rn(ny, -q.y);
        const double d2 = sq2(dx, dy);
        if (!(d2 <= P.hk.d2max))
            return;
        sum = __dadd_rn(sum, __dmul_rn(z, gk_ds_heat(&P.hk, K, d2)));
        hit = true;
    });
    if (i < P.g.w && j < P.g.h)
        P.out[(size_t)j * P.g.w + i] = hit ? sum : P.nodata;
}

/* ---- gauss, method=fft (density/gauss_fft.c) ------------------------------- */

/* The lattice window of a block, a thread a node: each node sums the parts
 * of the points binned onto it, in bin order (the CPU adds them point after
 * point in that order: the same sum). */
__global__ void fft_gather(DensParams P, double x0, double y0, double dx, double dy, long long k0,
                           long long l0, int W, int H, double *B)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x, l = blockIdx.y * blockDim.y + threadIdx.y;
    if (k >= W || l >= H)
        return;
    const double kk = (double)(k0 + k), ll = (double)(l0 + l);
    const double X = x0 + kk * dx, Y = y0 - ll * dy;
    int bi0, bi1, bj0, bj1;
    gk_ds_bin_span(X, X, dx, P.x0, P.side, P.nbx, &bi0, &bi1);
    gk_ds_bin_span(Y, Y, dy, P.y0, P.side, P.nby, &bj0, &bj1);
    double acc = 0.0;
    for (int row = bj0; row <= bj1 && bi0 <= bi1; row++) {
        const int p0 = P.start[row * P.nbx + bi0], p1 = P.start[row * P.nbx + bi1 + 1];
        for (int p = p0; p < p1; p++) {
            const double2 q = P.xy[p];
            double fu, fv, part[4];
            gk_fft_bin(q.x, q.y, P.z[p], x0, y0, dx, dy, &fu, &fv, part);
            const double a = kk - fu, b = ll - fv;
            if ((a == 0.0 || a == 1.0) && (b == 0.0 || b == 1.0))
                acc = acc + part[(int)a + 2 * (int)b];
        }
    }
    B[(size_t)l * W + k] = acc;
}

/* Lines convolved with an axis's taps, a block a line, in scratch (4 N
 * doubles a line): the CPU's gk_fft_run, its butterflies spread over the
 * threads stage by stage. ROWS: lattice rows of B into T (the block's
 * cells' columns); else T's columns into the tile's cells. */
struct FftLines {
    const double *in;
    long long in_line, in_elem; /* strides */
    int N, R, m, nout;
    const double *wr, *wi, *kr, *ki;
    double *scr;
    int line0;
    double *T; /* ROWS: nout a line */
    /* columns: line i is cell column c0 + i, output q cell row r0 + q */
    double *out;
    int gx0, gy0, gw, gh, c0, r0;
    double div;
};

__device__ void fft_stages(double *re, double *im, int N, const double *wr, const double *wi,
                           int inverse)
{
    for (int len = 2; len <= N; len <<= 1) {
        const int half = len >> 1, step = N / len;
        for (int b = threadIdx.x; b < N / 2; b += blockDim.x) {
            const int j = b % half, a = (b / half) * len + j;
            gk_fft_butterfly(re, im, a, half, wr[j * step], inverse ? -wi[j * step] : wi[j * step]);
        }
        __syncthreads();
    }
}

template <bool ROWS> __global__ void __launch_bounds__(256) fft_lines(FftLines L)
{
    const int N = L.N, line = L.line0 + blockIdx.x;
    double *re = L.scr + (size_t)blockIdx.x * 4 * N, *im = re + N, *re2 = im + N, *im2 = re2 + N;
    const double *in = L.in + line * L.in_line;
    for (int t = threadIdx.x; t < N; t += blockDim.x) {
        const int j = gk_fft_bitrev(t, N);
        re[j] = in[t * L.in_elem], im[j] = 0.0;
    }
    __syncthreads();
    fft_stages(re, im, N, L.wr, L.wi, 0);
    for (int t = threadIdx.x; t < N; t += blockDim.x) {
        double r = re[t], i = im[t];
        gk_fft_times(&r, &i, L.kr[t], L.ki[t]);
        const int j = gk_fft_bitrev(t, N);
        re2[j] = r, im2[j] = i;
    }
    __syncthreads();
    fft_stages(re2, im2, N, L.wr, L.wi, 1);
    for (int q = threadIdx.x; q < L.nout; q += blockDim.x) {
        const double v = re2[L.R + L.m * q] + 0.0; /* -0.0 to +0.0, as the CPU */
        if (ROWS) {
            L.T[(size_t)line * L.nout + q] = v;
        } else {
            const int gx = L.c0 + line, gy = L.r0 + q;
            if (gy >= L.gy0 && gy < L.gy0 + L.gh)
                L.out[(size_t)(gy - L.gy0) * L.gw + (gx - L.gx0)] = L.div > 0 ? v / L.div : v;
        }
    }
}

/* A tile of method=fft: the lattice's plans for this grid (the host, as the
 * CPU's), then each block the tile meets: gathered, rows, columns. 1 when
 * the cells are too coarse for a lattice (the factors' kernel then). */
static int fft_tile(Job *J, const Grid &G, const DensParams &P, char *err, size_t err_cap)
{
    const gk_gpu_job_desc &d = J->d;
    gk_fft_axis X, Y;
    if (gk_fft_axis_plan(G.cw, d.p.dens.sx, d.p.dens.r, &X) ||
        gk_fft_axis_plan(-G.ch, d.p.dens.sy, d.p.dens.ry, &Y))
        return 1;
    std::vector<double> plan((size_t)3 * X.N + 3 * Y.N);
    double *xwr = plan.data(), *xwi = xwr + X.N / 2, *xkr = xwi + X.N / 2, *xki = xkr + X.N;
    double *ywr = xki + X.N, *ywi = ywr + Y.N / 2, *ykr = ywi + Y.N / 2, *yki = ykr + Y.N;
    gk_fft_twiddles(X.N, xwr, xwi);
    gk_fft_spectrum(&X, d.p.dens.sx, d.p.dens.r, xwr, xwi, xkr, xki);
    gk_fft_twiddles(Y.N, ywr, ywi);
    gk_fft_spectrum(&Y, d.p.dens.sy, d.p.dens.ry, ywr, ywi, ykr, yki);
    /* the buffer: the plans, B (Y.N x X.N), T (Y.N x X.cells), lines' scratch */
    const size_t nB = (size_t)X.N * Y.N, nT = (size_t)Y.N * X.cells;
    const int NM = std::max(X.N, Y.N);
    const int batch = (int)std::max((size_t)1, std::min((size_t)std::max(Y.N, X.cells),
                                                        ((size_t)256 << 20) / (32 * (size_t)NM)));
    const size_t need = plan.size() + nB + nT + (size_t)batch * 4 * NM;
    double *dev, *dB, *dT, *scr;
    DensState *S = static_cast<DensState *>(J->own);
    CK_RET(grow(&S->fft, &S->fft_cap, need));
    dev = S->fft, dB = dev + plan.size(), dT = dB + nB, scr = dT + nT;
    CK_RET(cudaMemcpyAsync(dev, plan.data(), plan.size() * sizeof(double), cudaMemcpyHostToDevice,
                           J->st));
    {
        const double *dxwr = dev, *dxwi = dxwr + X.N / 2, *dxkr = dxwi + X.N / 2,
                     *dxki = dxkr + X.N;
        const double *dywr = dxki + X.N, *dywi = dywr + Y.N / 2, *dykr = dywi + Y.N / 2,
                     *dyki = dykr + Y.N;
        /* gk_grid_node_x / _y of column and row 0 */
        const double x0 = G.xmin + 0.5 * G.cw, y0 = G.ymax + 0.5 * G.ch;
        const long long bx0 = G.x0 / X.cells, bx1 = (G.x0 + G.w - 1) / X.cells;
        const long long by0 = G.y0 / Y.cells, by1 = (G.y0 + G.h - 1) / Y.cells;
        for (long long by = by0; by <= by1; by++)
            for (long long bx = bx0; bx <= bx1; bx++) {
                dim3 b(16, 16), g((X.N + 15) / 16, (Y.N + 15) / 16);
                fft_gather<<<g, b, 0, J->st>>>(P, x0, y0, X.step, Y.step, bx * X.L - X.R,
                                               by * Y.L - Y.R, X.N, Y.N, dB);
                CK_RET(cudaGetLastError());
                FftLines L{};
                L.in = dB, L.in_line = X.N, L.in_elem = 1;
                L.N = X.N, L.R = X.R, L.m = X.m, L.nout = X.cells;
                L.wr = dxwr, L.wi = dxwi, L.kr = dxkr, L.ki = dxki, L.scr = scr, L.T = dT;
                for (int l0 = 0; l0 < Y.N; l0 += batch) {
                    L.line0 = l0;
                    fft_lines<true><<<std::min(batch, Y.N - l0), 256, 0, J->st>>>(L);
                }
                CK_RET(cudaGetLastError());
                /* the block's cell columns within the tile */
                const long long cx0 = bx * X.cells, cy0 = by * Y.cells;
                const long long i0 = std::max(cx0, (long long)G.x0);
                const long long i1 = std::min(cx0 + X.cells, (long long)G.x0 + G.w);
                FftLines C{};
                C.in = dT + (i0 - cx0), C.in_line = 1, C.in_elem = X.cells;
                C.N = Y.N, C.R = Y.R, C.m = Y.m, C.nout = Y.cells;
                C.wr = dywr, C.wi = dywi, C.kr = dykr, C.ki = dyki, C.scr = scr;
                C.out = P.out, C.gx0 = G.x0, C.gy0 = G.y0, C.gw = G.w, C.gh = G.h;
                C.c0 = (int)i0, C.r0 = (int)cy0, C.div = P.div;
                const int ncol = (int)(i1 - i0);
                for (int c = 0; c < ncol; c += batch) {
                    C.line0 = c;
                    fft_lines<false><<<std::min(batch, ncol - c), 256, 0, J->st>>>(C);
                }
                CK_RET(cudaGetLastError());
            }
    }
    return 0;
}

/* ---- gauss, mode=relative (density/gauss_relative.c) ------------------------ */

/* A thread a node: density_sum.h's gk_ds_relative over the bins of the
 * points of positive weight, as the CPU. */
__global__ void __launch_bounds__(256)
    gauss_relative_f64(DensParams P, gk_ds_bins_view v, double eps, double sumw, int direct)
{
    const int i = blockIdx.x * 16 + (threadIdx.x & 15), j = blockIdx.y * 16 + (threadIdx.x >> 4);
    if (i >= P.g.w || j >= P.g.h)
        return;
    const double nx = node_x(P.g.xmin, P.g.cw, P.g.x0 + i);
    const double ny = node_x(P.g.ymax, P.g.ch, P.g.y0 + j);
    double sum = sumw > 0 ? gk_ds_relative(&v, nx, ny, P.c, eps, sumw, direct) : 0.0;
    if (P.div > 0)
        sum = sum / P.div;
    P.out[(size_t)j * P.g.w + i] = sum;
}

/* ---- the op's job and tile ------------------------------------------------ */

/* ifgt: the centres into sxy, the coefficients and then the clusters'
 * squared reaches into sz, their orders and offsets into bstart (a clone
 * shares them as it shares the bins). */
static int ifgt_make(Job *J, const gk_gpu_job_desc *d, char *err, size_t err_cap)
{
    const int K = d->p.dens.ifgt_k;
    const size_t nc = d->p.dens.ifgt_ncoef;
    if (K < 1 || d->p.dens.ifgt_p < 1 || d->p.dens.ifgt_p > GI_PMAX || !d->p.dens.ifgt_coef ||
        !d->p.dens.ifgt_orders) {
        snprintf(err, err_cap, "ifgt job without its expansions, or order over %d", GI_PMAX);
        return -1;
    }
    std::vector<double2> hc((size_t)K);
    for (int k = 0; k < K; k++)
        hc[k] = make_double2(d->p.dens.ifgt_cx[k], d->p.dens.ifgt_cy[k]);
    CK_RET(cudaMalloc(&J->sxy, (size_t)K * sizeof(double2)));
    CK_RET(cudaMalloc(&J->sz, (nc + K) * sizeof(double)));
    CK_RET(cudaMalloc(&J->bstart, 2 * (size_t)K * sizeof(int)));
    CK_RET(cudaMemcpyAsync(J->sxy, hc.data(), (size_t)K * sizeof(double2), cudaMemcpyHostToDevice,
                           J->st));
    CK_RET(cudaMemcpyAsync(J->sz, d->p.dens.ifgt_coef, nc * sizeof(double), cudaMemcpyHostToDevice,
                           J->st));
    CK_RET(cudaMemcpyAsync(J->sz + nc, d->p.dens.ifgt_reach2, K * sizeof(double),
                           cudaMemcpyHostToDevice, J->st));
    CK_RET(cudaMemcpyAsync(J->bstart, d->p.dens.ifgt_orders, K * sizeof(int),
                           cudaMemcpyHostToDevice, J->st));
    CK_RET(cudaMemcpyAsync(J->bstart + K, d->p.dens.ifgt_offs, K * sizeof(int),
                           cudaMemcpyHostToDevice, J->st));
    CK_RET(cudaStreamSynchronize(J->st));
    J->d.p.dens.ifgt_cx = J->d.p.dens.ifgt_cy = J->d.p.dens.ifgt_coef = J->d.p.dens.ifgt_reach2 =
        nullptr;
    J->d.p.dens.ifgt_orders = J->d.p.dens.ifgt_offs = nullptr;
    return 0;
}

__global__ void pair_xy(const double *x, const double *y, size_t n, double2 *xy)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        xy[i] = make_double2(x[i], y[i]);
}

int density_make(Job *J, const gk_gpu_job_desc *d, char *err, size_t err_cap)
{
    if (!(J->own = new (std::nothrow) DensState)) {
        snprintf(err, err_cap, "out of host memory");
        return -1;
    }
    if (d->op == GK_GPU_GAUSS && d->p.dens.form == GK_GPU_GS_IFGT)
        return ifgt_make(J, d, err, err_cap);
    const size_t nbins = (size_t)d->p.dens.nbx * d->p.dens.nby;
    if (!d->p.dens.start || d->n > (size_t)INT32_MAX) {
        snprintf(err, err_cap, "density job without its bins, or over 2^31 points");
        return -1;
    }
    /* the bins' points (mode=relative's are those of positive weight) */
    const size_t n = (size_t)d->p.dens.start[nbins];
    CK_RET(cudaMalloc(&J->sxy, (n ? n : 1) * sizeof(double2)));
    CK_RET(cudaMalloc(&J->sz, (n ? n : 1) * sizeof(double)));
    CK_RET(cudaMalloc(&J->bstart, (nbins + 1) * sizeof(int)));
    /* x and y as they are, paired on the device (mode=relative's
     * gk_ds_relative reads them apart too: they stay in J's x, y) */
    CK_RET(cudaMalloc(&J->x, (n ? n : 1) * sizeof(double)));
    CK_RET(cudaMalloc(&J->y, (n ? n : 1) * sizeof(double)));
    CK_RET(cudaMemcpyAsync(J->x, d->p.dens.x, n * sizeof(double), cudaMemcpyHostToDevice, J->st));
    CK_RET(cudaMemcpyAsync(J->y, d->p.dens.y, n * sizeof(double), cudaMemcpyHostToDevice, J->st));
    CK_RET(cudaMemcpyAsync(J->sz, d->p.dens.z, n * sizeof(double), cudaMemcpyHostToDevice, J->st));
    CK_RET(cudaMemcpyAsync(J->bstart, d->p.dens.start, (nbins + 1) * sizeof(int),
                           cudaMemcpyHostToDevice, J->st));
    if (n)
        pair_xy<<<(unsigned)((n + 255) / 256), 256, 0, J->st>>>(J->x, J->y, n, J->sxy);
    CK_RET(cudaGetLastError());
    CK_RET(cudaStreamSynchronize(J->st));
    if (!(d->op == GK_GPU_GAUSS && d->p.dens.form == GK_GPU_GS_RELATIVE)) {
        cudaFree(J->x);
        cudaFree(J->y);
        J->x = J->y = nullptr;
    }
    J->nbx = d->p.dens.nbx, J->nby = d->p.dens.nby;
    J->gx0 = d->p.dens.x0, J->gy0 = d->p.dens.y0, J->bsx = J->bsy = d->p.dens.side;
    return 0;
}

int density_tile(Job *J, const Grid &G, char *err, size_t err_cap)
{
    const gk_gpu_job_desc &d = J->d;
    int lattice = 0;
    DensParams P;
    P.g = G;
    P.xy = J->sxy;
    P.z = J->sz;
    P.start = J->bstart;
    P.nbx = J->nbx, P.nby = J->nby;
    P.x0 = J->gx0, P.y0 = J->gy0, P.side = J->bsx;
    P.r = d.p.dens.r, P.ry = d.p.dens.ry, P.c = d.p.dens.c, P.cy = d.p.dens.cy;
    P.div = d.p.dens.div;
    if (d.op == GK_GPU_HEATMAP) /* dens_r is gauss's cut-off otherwise, maybe infinite */
        P.hk = gk_ds_heat_init(d.p.dens.kernel, d.p.dens.scaled, d.p.dens.decay, d.p.dens.r);
    else
        P.hk = gk_ds_heat_k{};
    P.smooth = d.p.dens.smooth;
    P.nodata = d.nodata;
    P.out = J->out;
    if (d.op == GK_GPU_HEATMAP) {
        dim3 b(HM_B, HM_B), g((G.w + HM_B - 1) / HM_B, (G.h + HM_B - 1) / HM_B);
        switch (d.p.dens.kernel) { /* a kernel each: the switch out of the loop */
        case GK_HM_QUARTIC:
            heatmap_f64<GK_HM_QUARTIC><<<g, b, 0, J->st>>>(P);
            break;
        case GK_HM_TRIANGULAR:
            heatmap_f64<GK_HM_TRIANGULAR><<<g, b, 0, J->st>>>(P);
            break;
        case GK_HM_UNIFORM:
            heatmap_f64<GK_HM_UNIFORM><<<g, b, 0, J->st>>>(P);
            break;
        case GK_HM_TRIWEIGHT:
            heatmap_f64<GK_HM_TRIWEIGHT><<<g, b, 0, J->st>>>(P);
            break;
        default:
            heatmap_f64<GK_HM_EPANECHNIKOV><<<g, b, 0, J->st>>>(P);
            break;
        }
    } else if (d.p.dens.form == GK_GPU_GS_RELATIVE) {
        gk_ds_bins_view v;
        v.x = J->x, v.y = J->y, v.z = J->sz, v.start = J->bstart;
        v.nbx = J->nbx, v.nby = J->nby, v.x0 = J->gx0, v.y0 = J->gy0, v.side = J->bsx;
        dim3 g((G.w + 15) / 16, (G.h + 15) / 16);
        gauss_relative_f64<<<g, 256, 0, J->st>>>(P, v, d.p.dens.eps, d.p.dens.sumw,
                                                 d.p.dens.direct);
    } else if (d.p.dens.form == GK_GPU_GS_FFT && (lattice = fft_tile(J, G, P, err, err_cap)) != 1) {
        if (lattice < 0) {
            snprintf(err, err_cap, "method=fft on the GPU: %s", cudaGetErrorString(ck_last));
            return -1;
        }
    } else if (d.p.dens.form == GK_GPU_GS_IFGT) { /* (fft on cells too coarse: the factors) */
        dim3 g((G.w + 15) / 16, (G.h + 15) / 16);
        gauss_ifgt_f64<<<g, 256, 0, J->st>>>(P, J->sxy, J->sz, J->sz + d.p.dens.ifgt_ncoef,
                                             J->bstart, J->bstart + d.p.dens.ifgt_k,
                                             d.p.dens.ifgt_k, d.p.dens.ifgt_h);
    } else if (d.p.dens.form == GK_GPU_GS_TURNED) {
        dim3 b(GT_B, GT_B), g((G.w + GT_B - 1) / GT_B, (G.h + GT_B - 1) / GT_B);
        if (P.smooth)
            gauss_turned_f64<true><<<g, b, 0, J->st>>>(P, d.p.dens.ca, d.p.dens.sa, d.p.dens.lim);
        else
            gauss_turned_f64<false><<<g, b, 0, J->st>>>(P, d.p.dens.ca, d.p.dens.sa, d.p.dens.lim);
    } else {
        /* a grid of fewer blocks than the GPU can run at once: the points'
         * segments split over more blocks, reduced after (the same bits) */
        dim3 g((G.w + GS_B - 1) / GS_B, (G.h + GS_B - 1) / GS_B);
        const size_t ncell = (size_t)G.w * G.h, nblk = (size_t)g.x * g.y;
        const int nsegs = (int)((J->n + GK_DS_SEG - 1) / GK_DS_SEG);
        int kper = nsegs > 0 ? nsegs : 1;
        double *part = nullptr;
        const size_t want = 16 * (size_t)J->nsm; /* blocks for a few even waves */
        if (nsegs > 1 && nblk < want && env_int("GRIDKIT_GPU_GAUSS_SPLIT", 1)) {
            const int nsplit = (int)std::min((size_t)nsegs, (want + nblk - 1) / nblk);
            const size_t doubles = (size_t)nsegs * ncell * (P.smooth ? 2 : 1);
            if (doubles * sizeof(double) <= ((size_t)512 << 20)) {
                kper = (nsegs + nsplit - 1) / nsplit;
                CK_RET(grow(&J->part, &J->part_cap, (doubles + 1) / 2));
                part = (double *)J->part;
                CK_RET(cudaMemsetAsync(part, 0, doubles * sizeof(double), J->st));
            }
        }
        g.z = (nsegs + kper - 1) / kper;
        if (g.z == 0)
            g.z = 1;
        const size_t smem = (P.smooth ? 2 : 1) * GS_B * GS_B * sizeof(double);
        if (P.smooth) {
            CK_RET(cudaFuncSetAttribute(gauss_f64<true>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
            gauss_f64<true><<<g, GS_THREADS, smem, J->st>>>(P, kper, part, ncell, nsegs);
        } else {
            CK_RET(cudaFuncSetAttribute(gauss_f64<false>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
            gauss_f64<false><<<g, GS_THREADS, smem, J->st>>>(P, kper, part, ncell, nsegs);
        }
        CK_RET(cudaGetLastError());
        if (part) {
            const unsigned nb = (unsigned)((ncell + 255) / 256);
            if (P.smooth)
                gauss_reduce<true><<<nb, 256, 0, J->st>>>(P, part, ncell, nsegs);
            else
                gauss_reduce<false><<<nb, 256, 0, J->st>>>(P, part, ncell, nsegs);
        }
    }
    CK_RET(cudaGetLastError());
    return 0;
}

} // namespace gk_gpu
