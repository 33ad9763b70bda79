/* SPDX-License-Identifier: MIT */
/*
 * quadrants.cu - gdal_grid's per-quadrant selection on the GPU
 * (algorithms/search/neighbours.c) for the IDW family, average and the
 * metrics: a quadrant's nearest in registers up to 16, then in a warp's
 * lists (knn_list.cuh). One thread per node; every rule (ties by input
 * order, exact hits, min_points, nodata) is the CPU's.
 */
#include "families.h"
#include "job.h"
#include "kbest.cuh"
#include "knn_list.cuh"
#include "local.cuh"

#include <cuda_runtime.h>

#include <climits>
#include <cmath>

namespace gk_gpu
{

/* ---- per-quadrant selection ------------------------------------------------------ *
 * Quadrant q = (dx >= 0) | ((dy >= 0) << 1) of point - node. The CPU sorts each
 * quadrant by (d2, index) and takes them round robin q0, q1, q2, q3, q0, ...,
 * skipping a quadrant when exhausted or at quad_max, stopping at max_points.
 * With either limit (quad_keep > 0) a quadrant contributes at most quad_keep
 * points: KQ >= quad_keep nearest per quadrant are kept (kbest_offer), found
 * by the ring search, and taken in the CPU's order. Without limits every
 * point of the window counts (a box scan, only the counts per quadrant kept).
 * IDW ops (IDW_KNN, AIDW with its power in P.out) also keep the exact hit
 * over the whole window, which wins before any quadrant rule, as on the CPU. */

template <int KQ> struct QuadState {
    int n0, n1, n2, n3; /* window points per quadrant */
    int hit;
    double a, b, lo, hi; /* KQ == 0: sums over every point */
    double D[4][KQ > 0 ? KQ : 1];
    int I[4][KQ > 0 ? KQ : 1];
};

template <int KQ>
__device__ __forceinline__ void quad_visit(QuadState<KQ> &S, int op, bool idw, double power,
                                           double s2, double hit2, double zv, int id, double dx,
                                           double dy, double d2)
{
    const int q = (dx >= 0.0 ? 1 : 0) | (dy >= 0.0 ? 2 : 0);
    if (idw && __dadd_rn(d2, s2) < hit2 && id < S.hit)
        S.hit = id;
    switch (q) {
    case 0:
        S.n0++;
        if (KQ > 0)
            kbest_offer(S.D[0], S.I[0], d2, id);
        break;
    case 1:
        S.n1++;
        if (KQ > 0)
            kbest_offer(S.D[1], S.I[1], d2, id);
        break;
    case 2:
        S.n2++;
        if (KQ > 0)
            kbest_offer(S.D[2], S.I[2], d2, id);
        break;
    default:
        S.n3++;
        if (KQ > 0)
            kbest_offer(S.D[3], S.I[3], d2, id);
        break;
    }
    if (KQ > 0)
        return;
    if (idw) {
        const double wgt = idw_weight(__dadd_rn(d2, s2), power);
        S.a += wgt * zv;
        S.b += wgt;
    } else if (op == GK_GPU_AVERAGE) {
        S.a += zv;
    } else if (op == GK_GPU_AVERAGE_DISTANCE) {
        S.a += sqrt(d2);
    } else {
        S.lo = fmin(S.lo, zv);
        S.hi = fmax(S.hi, zv);
    }
}

template <int KQ>
__global__ void __launch_bounds__(128, KQ <= 4 ? 4 : 1) quad_kernel(LocalParams P, ExtraParams E)
{
    int i, j;
    double nx, ny;
    if (!thread_node(P.g, i, j, nx, ny))
        return;
    const size_t cell = (size_t)j * P.g.w + i;
    const Bins &B = P.B;
    const int op = P.op;
    const bool idw = op == GK_GPU_IDW_KNN || op == GK_GPU_AIDW;
    const double power = op == GK_GPU_AIDW ? P.out[cell] : P.power;
    const double s2 = P.s2, hit2 = idw ? P.g.hit2 : 0.0;
    const int keep = E.quad_keep;
    QuadState<KQ> S;
    S.n0 = S.n1 = S.n2 = S.n3 = 0;
    S.hit = INT_MAX;
    S.a = S.b = 0.0;
    S.lo = INFINITY;
    S.hi = -INFINITY;
    /* the first KQ - keep slots hold sentinels ahead of any point, so that a
     * list keeps the keep nearest and the keep-th sits at the constant KQ - 1
     * (a runtime index would move the lists to local memory) */
#pragma unroll
    for (int q = 0; q < 4; q++)
#pragma unroll
        for (int t = 0; t < (KQ > 0 ? KQ : 1); t++) {
            const bool pad = t < KQ - keep;
            S.D[q][t] = pad ? -INFINITY : INFINITY;
            S.I[q][t] = pad ? -1 : INT_MAX;
        }
    if (KQ == 0) {
        int xa, xb, ya, yb;
        window_bins(P, nx, ny, xa, xb, ya, yb);
        for (int yy = ya; yy <= yb; yy++) {
            const int p0 = B.start[yy * B.nbx + xa], p1 = B.start[yy * B.nbx + xb + 1];
            for (int p = p0; p < p1; p++) {
                double2 c = B.xy[p];
                double dx = __dsub_rn(c.x, nx), dy = __dsub_rn(c.y, ny);
                double d2 = sq2(dx, dy);
                if (in_window(P.w, dx, dy, d2))
                    quad_visit(S, op, idw, power, s2, hit2, B.z[p], B.idx[p], dx, dy, d2);
            }
        }
    } else {
        constexpr int L = KQ > 0 ? KQ - 1 : 0;
        ring_search(
            B, P.w, nx, ny,
            [&](int p, double dx, double dy, double d2) {
                quad_visit(S, op, idw, power, s2, hit2, 0.0, B.idx[p], dx, dy, d2);
            },
            /* done when every quadrant's keep nearest are known (and any hit) */
            [&](double b) {
                const double b2 = b * b;
                return b2 >= hit2 && S.n0 >= keep && S.n1 >= keep && S.n2 >= keep && S.n3 >= keep &&
                       b2 > S.D[0][L] && b2 > S.D[1][L] && b2 > S.D[2][L] && b2 > S.D[3][L];
            });
    }
    const int nq[4] = {S.n0, S.n1, S.n2, S.n3};
    int m = 0, taken[4];
    double a = S.a, b = S.b, lo = S.lo, hi = S.hi;
    if (KQ == 0) {
        m = S.n0 + S.n1 + S.n2 + S.n3;
#pragma unroll
        for (int q = 0; q < 4; q++)
            taken[q] = nq[q];
    } else {
        /* the round robin: pass t takes the t-th nearest of q0..q3 where there
         * is one (quad_keep bounds both limits), until max_points; the lists
         * shift down a place a pass so that every index stays a constant */
        const int mmax = P.k > 0 ? P.k : INT_MAX;
        int avail[4];
#pragma unroll
        for (int q = 0; q < 4; q++) {
            avail[q] = nq[q] < keep ? nq[q] : keep;
            taken[q] = 0;
        }
        /* drop the sentinels: the nearest of each quadrant to slot 0 */
#pragma unroll 1
        for (int r = 0; r < KQ - keep; r++)
#pragma unroll
            for (int q = 0; q < 4; q++)
#pragma unroll
                for (int s = 0; s + 1 < (KQ > 0 ? KQ : 1); s++) {
                    S.D[q][s] = S.D[q][s + 1];
                    S.I[q][s] = S.I[q][s + 1];
                }
#pragma unroll 1
        for (int t = 0; t < KQ && m < mmax; t++) {
#pragma unroll
            for (int q = 0; q < 4; q++) {
                if (t < avail[q] && m < mmax) {
                    m++;
                    taken[q]++;
                    const double d2 = S.D[q][0];
                    if (idw) {
                        const double wgt = idw_weight(__dadd_rn(d2, s2), power);
                        a = __dadd_rn(a, __dmul_rn(wgt, P.zin[S.I[q][0]]));
                        b = __dadd_rn(b, wgt);
                    } else if (op == GK_GPU_AVERAGE) {
                        a = __dadd_rn(a, P.zin[S.I[q][0]]);
                    } else if (op == GK_GPU_AVERAGE_DISTANCE) {
                        a = __dadd_rn(a, sqrt(d2));
                    } else if (op != GK_GPU_COUNT) {
                        const double zv = P.zin[S.I[q][0]];
                        lo = fmin(lo, zv);
                        hi = fmax(hi, zv);
                    }
                }
#pragma unroll
                for (int s = 0; s + 1 < (KQ > 0 ? KQ : 1); s++) {
                    S.D[q][s] = S.D[q][s + 1];
                    S.I[q][s] = S.I[q][s + 1];
                }
            }
        }
    }
    double v = P.nodata;
    bool ok = m >= P.min_points && !(idw && !(power == power));
#pragma unroll
    for (int q = 0; q < 4; q++)
        ok = ok && taken[q] >= E.quad_min;
    if (idw && S.hit != INT_MAX && power == power) {
        v = P.zin[S.hit];
    } else if (ok) {
        switch (op) {
        case GK_GPU_COUNT:
            v = (double)m;
            break;
        case GK_GPU_MINIMUM:
            if (m > 0)
                v = lo;
            break;
        case GK_GPU_MAXIMUM:
            if (m > 0)
                v = hi;
            break;
        case GK_GPU_RANGE:
            if (m > 0)
                v = hi - lo;
            break;
        case GK_GPU_AVERAGE:
        case GK_GPU_AVERAGE_DISTANCE:
            if (m > 0)
                v = a / (double)m;
            break;
        default: /* IDW */
            if (m > 0 && b != 0.0)
                v = a / b;
            break;
        }
    }
    P.out[cell] = v;
}

/* The same selection keeping more than 16 a quadrant (up to GK_GPU_MAX_LIST_K):
 * a warp per node, each quadrant's quad_keep nearest in a list of its own in
 * shared memory (kl_search_lists<4>: one pass over the rings, kl_search's
 * stop rule and exact hits), then quad_kernel's round robin and statistic, the
 * taken points summed across the warp's lanes. */
__global__ void __launch_bounds__(128) kl_quad_kernel(LocalParams P, ExtraParams E)
{
    extern __shared__ __align__(16) unsigned char kl_smem[];
    const unsigned FULL = 0xffffffffu;
    const int lane = threadIdx.x & 31, keep = E.quad_keep, op = P.op;
    KList L[4];
    kl_bind_quadrants(P, kl_smem, keep, L);
    const bool idw = op == GK_GPU_IDW_KNN;
    const double s2 = P.s2, hit2 = idw ? P.g.hit2 : 0.0, power = P.power;
    const int mmax = P.k > 0 ? P.k : INT_MAX;
    KL_FOR_NODES(P, n)
    {
        double nx, ny;
        kl_node_xy(P, n, 0, nx, ny);
        int hit, avail[4], taken[4], m = 0;
        kl_search_lists<4>(P.B, P.w, nx, ny, L, s2, hit2, hit);
#pragma unroll
        for (int q = 0; q < 4; q++) {
            avail[q] = L[q].m; /* min(the quadrant's window points, keep) */
            taken[q] = 0;
        }
        /* the round robin: pass t takes the t-th nearest of q0..q3 where
         * there is one, until max_points */
        for (int t = 0; t < keep && m < mmax; t++)
#pragma unroll
            for (int q = 0; q < 4; q++)
                if (t < avail[q] && m < mmax) {
                    m++;
                    taken[q]++;
                }
        double a = 0.0, b = 0.0, lo = INFINITY, hi = -INFINITY;
#pragma unroll
        for (int q = 0; q < 4; q++)
            for (int t = lane; t < taken[q]; t += 32) {
                const double d2 = L[q].D[t];
                if (idw) {
                    const double wgt = idw_weight(__dadd_rn(d2, s2), power);
                    a += wgt * P.zin[L[q].I[t]];
                    b += wgt;
                } else if (op == GK_GPU_AVERAGE) {
                    a += P.zin[L[q].I[t]];
                } else if (op == GK_GPU_AVERAGE_DISTANCE) {
                    a += sqrt(d2);
                } else if (op != GK_GPU_COUNT) {
                    const double zv = P.zin[L[q].I[t]];
                    lo = fmin(lo, zv);
                    hi = fmax(hi, zv);
                }
            }
        a = warp_sum(a);
        b = warp_sum(b);
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            lo = fmin(lo, __shfl_xor_sync(FULL, lo, o));
            hi = fmax(hi, __shfl_xor_sync(FULL, hi, o));
        }
        double v = P.nodata;
        bool ok = m >= P.min_points;
#pragma unroll
        for (int q = 0; q < 4; q++)
            ok = ok && taken[q] >= E.quad_min;
        if (idw && hit != INT_MAX) {
            v = P.zin[hit];
        } else if (ok && m > 0) {
            switch (op) {
            case GK_GPU_COUNT:
                v = (double)m;
                break;
            case GK_GPU_MINIMUM:
                v = lo;
                break;
            case GK_GPU_MAXIMUM:
                v = hi;
                break;
            case GK_GPU_RANGE:
                v = hi - lo;
                break;
            case GK_GPU_AVERAGE:
            case GK_GPU_AVERAGE_DISTANCE:
                v = a / (double)m;
                break;
            default: /* IDW */
                if (b != 0.0)
                    v = a / b;
                break;
            }
        } else if (ok && op == GK_GPU_COUNT) {
            v = 0.0;
        }
        __syncwarp();
        if (lane == 0)
            P.out[n] = v;
    }
}

/* ---- launches ------------------------------------------------------------- */

/* The per-quadrant selection, by what one quadrant keeps: registers up to
 * 16, then a warp's lists (kl_quad_kernel). */
cudaError_t launch_quad(Job *J, const LocalParams &P, const ExtraParams &E, dim3 g, dim3 b,
                        size_t nodes)
{
    const int keep = E.quad_keep;
    const cudaStream_t st = J->st;
    if (keep > 16)
        return kl_launch_lists(kl_quad_kernel, J, keep, 4, nodes, P, E);
    if (keep == 0)
        quad_kernel<0><<<g, b, 0, st>>>(P, E);
    else if (keep == 1)
        quad_kernel<1><<<g, b, 0, st>>>(P, E);
    else if (keep == 2)
        quad_kernel<2><<<g, b, 0, st>>>(P, E);
    else if (keep <= 4)
        quad_kernel<4><<<g, b, 0, st>>>(P, E);
    else if (keep <= 8)
        quad_kernel<8><<<g, b, 0, st>>>(P, E);
    else if (keep <= 12)
        quad_kernel<12><<<g, b, 0, st>>>(P, E);
    else
        quad_kernel<16><<<g, b, 0, st>>>(P, E);
    return cudaGetLastError();
}

/* Every point of the window, no quadrant limit (aidw with max_points 0). */
void quad_all_launch(dim3 g, dim3 b, cudaStream_t st, const LocalParams &P, const ExtraParams &E)
{
    quad_kernel<0><<<g, b, 0, st>>>(P, E);
}

} // namespace gk_gpu
