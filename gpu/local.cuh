/* SPDX-License-Identifier: MIT */
/*
 * local.cuh - the parameters of a tile of the local algorithms (LocalParams:
 * the nodes, the bins, the window and the rule's values; ExtraParams: aidw's
 * and the per-quadrant selection's), the window's box of bins, and the IDW
 * weight.
 */
#ifndef GK_GPU_LOCAL_CUH
#define GK_GPU_LOCAL_CUH

#include "bins.cuh"

#include <cuda_runtime.h>

#include <type_traits>

namespace gk_gpu
{

struct LocalParams {
    Grid g;
    Bins B;
    Win w;
    const double *zin; /* Z in input order */
    double s2, power, nodata;
    int k, min_points, op;
    double *out;
    unsigned char *klg; /* the k-lists' global scratch, null: shared memory (kl_launch_lists) */
    /* cross-validation (gk_gpu_tile's qx, qy, qgroup): the tile's nodes as
     * given points, the fold each leaves out, and the points' folds in bin
     * order (B's); q null: the lattice */
    const double2 *q;
    const int *qg, *sg;
};

/* Node (i, j) of the tile (both within it; j from the tile's first row): its
 * coordinates, and the fold its search leaves out (0: none). */
__device__ __forceinline__ void tile_node(const LocalParams &P, int i, int j, double &nx,
                                          double &ny, int &grp)
{
    if (P.q) {
        const size_t o = (size_t)j * P.g.w + i;
        const double2 v = P.q[o];
        nx = v.x, ny = v.y, grp = P.qg[o];
    } else {
        nx = node_x(P.g.xmin, P.g.cw, P.g.x0 + i);
        ny = node_x(P.g.ymax, P.g.ch, P.g.y0 + j);
        grp = 0;
    }
}

struct ExtraParams {
    const double *x, *y; /* input order (aidw over every point) */
    int n;
    int quad_min;  /* per-quadrant minimum, 0 = none */
    int quad_max;  /* per-quadrant maximum, 0 = none */
    int quad_keep; /* most points one quadrant contributes: min(quad_max, max_points), 0 = all */
    int aidw_k;
    double alpha[5], rmin, rmax, r_exp;
};

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
__device__ __forceinline__ double idw_weight(double r2, double p)
{
    return p == 2.0 ? 1.0 / r2 : pow(r2, -0.5 * p);
}

/* f(std::integral_constant<int, K>{}) for K the first of Ks not below k, the
 * last of them beyond them all: a kernel's compile-time size for a run-time
 * k (the sizes keep the k-best lists in registers). */
template <int K, int... Ks, class F> inline void for_k(int k, F &&f)
{
    if constexpr (sizeof...(Ks) == 0)
        f(std::integral_constant<int, K>{});
    else if (k <= K)
        f(std::integral_constant<int, K>{});
    else
        for_k<Ks...>(k, f);
}

} // namespace gk_gpu

#endif
