/* SPDX-License-Identifier: MIT */
/*
 * search_window.cuh - the search window of the local algorithms (every
 * point, a circle or gdal_grid's rotated ellipse) and its exact test.
 */
#ifndef GK_GPU_SEARCH_WINDOW_CUH
#define GK_GPU_SEARCH_WINDOW_CUH

#include "core/gpu_abi.h"

#include <cuda_runtime.h>

namespace gk_gpu
{

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

} // namespace gk_gpu

#endif
