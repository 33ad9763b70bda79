/* SPDX-License-Identifier: MIT */
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

/* A thread per node, blocks over the tile: this thread's column i, row j
 * and the node's coordinates; false beyond the tile. */
__device__ __forceinline__ bool thread_node(const Grid &g, int &i, int &j, double &nx, double &ny)
{
    i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= g.w || j >= g.h)
        return false;
    nx = node_x(g.xmin, g.cw, g.x0 + i);
    ny = node_x(g.ymax, g.ch, g.y0 + j);
    return true;
}

} // namespace gk_gpu

#endif
