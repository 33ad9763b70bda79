/* SPDX-License-Identifier: MIT */
/*
 * window.cu - the window statistics on the GPU (algorithms/window/):
 * average, count, minimum, maximum, range and average_distance over every
 * point of the window (gather_kernel, which also takes IDW over every point
 * of the window, max_points = 0), and average_distance_pts over the pairs of
 * the window (algorithms/window/metrics.c). One thread per node; the rules
 * (min_points, nodata) are the CPU's. The per-quadrant selection of these
 * rules is quadrants.cu's.
 */
#include "families.h"
#include "call.h"
#include "job.h"
#include "local.cuh"

#include <cuda_runtime.h>

#include <climits>
#include <cmath>

namespace gk_gpu
{

/* ---- every point of the window: average, count, min/max/range, average
 * distance, and IDW over all of them (max_points = 0) ---------------------- */

__global__ void __launch_bounds__(128) gather_kernel(LocalParams P)
{
    int i, j;
    double nx, ny;
    if (!thread_node(P.g, i, j, nx, ny))
        return;
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

/* ---- average_distance_pts: mean distance over the pairs i < j of the window ---- */

__global__ void __launch_bounds__(128) pairs_kernel(LocalParams P)
{
    int i, j;
    double nx, ny;
    if (!thread_node(P.g, i, j, nx, ny))
        return;
    const Bins &B = P.B;
    int xa, xb, ya, yb;
    window_bins(P, nx, ny, xa, xb, ya, yb);
    long long n = 0;
    double sum = 0.0;
    /* each point of the window with every later one in the same scan */
    for (int yy = ya; yy <= yb; yy++) {
        const int p1 = B.start[yy * B.nbx + xb + 1];
        for (int p = B.start[yy * B.nbx + xa]; p < p1; p++) {
            const double2 a = B.xy[p];
            double dx = __dsub_rn(a.x, nx), dy = __dsub_rn(a.y, ny);
            if (!in_window(P.w, dx, dy, sq2(dx, dy)))
                continue;
            n++;
            int y2 = yy, q = p + 1, q1 = p1;
            for (;;) {
                for (; q < q1; q++) {
                    const double2 c = B.xy[q];
                    double ex = __dsub_rn(c.x, nx), ey = __dsub_rn(c.y, ny);
                    if (!in_window(P.w, ex, ey, sq2(ex, ey)))
                        continue;
                    sum += sqrt(sq2(__dsub_rn(c.x, a.x), __dsub_rn(c.y, a.y)));
                }
                if (++y2 > yb)
                    break;
                q = B.start[y2 * B.nbx + xa];
                q1 = B.start[y2 * B.nbx + xb + 1];
            }
        }
    }
    double v = P.nodata;
    if (n >= 2 && n >= P.min_points)
        v = sum / ((double)n * (double)(n - 1) / 2.0);
    P.out[(size_t)j * P.g.w + i] = v;
}

/* No window: every node has the same pairs, summed once per tile. Thread t
 * takes the rows t and n-1-t of the triangle (balanced work). */
__global__ void __launch_bounds__(128) pairs_all_partial(Bins B, int n, double *part)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x, h = (n + 1) / 2;
    if (t >= h)
        return;
    double s = 0.0;
    for (int r = 0; r < 2; r++) {
        const int a = r == 0 ? t : n - 1 - t;
        if (r == 1 && a == t)
            break;
        const double2 pa = B.xy[a];
        for (int b = a + 1; b < n; b++) {
            const double2 pb = B.xy[b];
            s += sqrt(sq2(__dsub_rn(pb.x, pa.x), __dsub_rn(pb.y, pa.y)));
        }
    }
    part[t] = s;
}

/* The partial sums in a fixed order, then the value into part[h]. */
__global__ void pairs_all_finish(double *part, int n, int min_points, double nodata)
{
    const int h = (n + 1) / 2;
    double s = 0.0;
    for (int t = 0; t < h; t++)
        s += part[t];
    part[h] = n >= 2 && n >= min_points ? s / ((double)n * (double)(n - 1) / 2.0) : nodata;
}

__global__ void fill_kernel(double *out, size_t ncell, const double *v)
{
    size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c < ncell)
        out[c] = *v;
}

/* ---- launches ------------------------------------------------------------- */

void gather_launch(dim3 g, dim3 b, cudaStream_t st, const LocalParams &P)
{
    gather_kernel<<<g, b, 0, st>>>(P);
}

/* average_distance_pts: a thread per node, or with no window the one value
 * of every pair filled in. */
int pairs_tile(Job *J, const LocalParams &P, dim3 g, dim3 b, const gk_gpu_tile *t, char *err,
               size_t err_cap)
{
    const gk_gpu_job_desc &d = J->d;
    const cudaStream_t st = J->st;
    if (d.window != GK_GPU_WIN_ALL) {
        pairs_kernel<<<g, b, 0, st>>>(P);
    } else {
        const int n = (int)J->n, h = (n + 1) / 2;
        const size_t ncell = (size_t)t->w * t->h;
        /* double2 slots, used as doubles: h partial sums and the value */
        CK_RET(grow(&J->part, &J->part_cap, (size_t)(h + 2) / 2 + 1));
        double *part = (double *)J->part;
        pairs_all_partial<<<(h + 127) / 128, 128, 0, st>>>(P.B, n, part);
        CK_RET(cudaGetLastError());
        pairs_all_finish<<<1, 1, 0, st>>>(part, n, d.min_points, d.nodata);
        CK_RET(cudaGetLastError());
        fill_kernel<<<(unsigned)((ncell + 255) / 256), 256, 0, st>>>(P.out, ncell, part + h);
    }
    return 0;
}

} // namespace gk_gpu
