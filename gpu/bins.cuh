/* SPDX-License-Identifier: MIT */
/*
 * bins.cuh - the uniform bin grid of the points on the device (built by
 * module.cu's job_new: a stable radix sort of bin ids, so the points of a
 * bin stay in input order) and the ring searches over it: the bins ring by
 * ring around a node, nearest first, with a lower bound on the distance of
 * every point not visited yet, by one thread or by a warp in lockstep.
 */
#ifndef GK_GPU_BINS_CUH
#define GK_GPU_BINS_CUH

#include "grid.cuh"
#include "search_window.cuh"

#include <cuda_runtime.h>

namespace gk_gpu
{

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

/* visit(p, dx, dy, d2) for each point p of the run [p0, p1) (bin order)
 * inside window w around (nx, ny). */
template <class Visit>
__device__ __forceinline__ void visit_range(const Bins &B, const Win &w, double nx, double ny,
                                            int p0, int p1, Visit &visit)
{
    for (int p = p0; p < p1; p++) {
        const double2 q = B.xy[p];
        const double dx = __dsub_rn(q.x, nx), dy = __dsub_rn(q.y, ny);
        const double d2 = sq2(dx, dy);
        if (in_window(w, dx, dy, d2))
            visit(p, dx, dy, d2);
    }
}

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
            visit_range(B, w, nx, ny, p0, p1, visit);
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
__device__ __forceinline__ void ring_search_warp(const Bins &B, const Win &w, double nx, double ny,
                                                 Visit &&visit, Stop &&stop)
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
            visit_range(B, w, nx, ny, p0, p1, visit);
        }
        /* this lane's bound: its distance to the outside of the searched box */
        const double b = ring_box_bound(B, nx, ny, bxl, bxh, byl, byh, r);
        const bool done = b == INFINITY || b > w.rout || stop(b);
        if (__all_sync(FULL, done))
            return;
    }
}

} // namespace gk_gpu

#endif
