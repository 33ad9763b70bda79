/*
 * grid.cuh - a tile's nodes (Grid) and the exact double helpers every
 * family's kernels use: written without contraction (__dmul_rn, __dadd_rn)
 * so that they round as the CPU's code does.
 */
#ifndef GK_GPU_GRID_CUH
#define GK_GPU_GRID_CUH

#include <cuda_runtime.h>

namespace gk_gpu
{

__device__ __forceinline__ double sq2(double dx, double dy)
{
    return __dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy));
}

/* gk_grid_node_x / gk_grid_node_y */
__device__ __forceinline__ double node_x(double xmin, double cw, int i)
{
    return __dadd_rn(xmin, __dmul_rn((double)i + 0.5, cw));
}

struct Grid {
    double xmin, ymax, cw, ch; /* ch = (ymin - ymax) / ny, negative */
    int x0, y0, w, h;
    double hit2;
};


} // namespace gk_gpu

#endif
