/* SPDX-License-Identifier: MIT */
/*
 * op_row.h - what the module knows of an operation (algorithms/core/
 * gpu_ops.def): whether a job uploads the points, sorts them into the bin
 * grid and how that grid is sized, any state of its own, and its tile
 * function. module.cu holds the table, one row per line of gpu_ops.def; a
 * row is `const OpRow op_<name>` in its family's file (or in module.cu).
 */
#ifndef GK_GPU_OP_ROW_H
#define GK_GPU_OP_ROW_H

#include "core/gpu_abi.h"

#include <cstddef>

namespace gk_gpu
{

struct Job;  /* job.h */
struct Grid; /* grid.cuh */

/* When a row's bin rule applies: never, always, or by max_points. */
enum When : unsigned char { NEVER, ALWAYS, WITH_K, WITHOUT_K };
inline bool holds(When w, int max_points)
{
    return w == ALWAYS || (w == WITH_K && max_points > 0) || (w == WITHOUT_K && max_points == 0);
}

typedef int (*TileFn)(Job *J, const Grid &G, const gk_gpu_tile *t, int nbands, char *err,
                      size_t err_cap);

struct OpRow {
    bool points;    /* uploads the points (linear reads its triangles only) */
    bool bins;      /* sorts them into the bin grid of the window searches */
    When knn_bins;  /* bins of ~1.5 points: k-nearest searches */
    When wide_bins; /* bins of at least an eighth of the window's box: window scans */
    /* state of its own (Job::own): made, freed, and cloned for another stream
     * (NULL clone: a job with state cannot be cloned) */
    int (*make)(Job *J, const gk_gpu_job_desc *d, char *err, size_t err_cap);
    void (*drop)(void *own);
    void *(*clone)(const void *own, char *err, size_t err_cap);
    TileFn tile;
    /* the state's tile buffers given back when a tile ran out of device
     * memory (the core retries with halves) */
    void (*shrink)(void *own) = nullptr;
    /* kriging's parameters (api_krige_set): an op without it takes none */
    int (*set_krige)(Job *J, const gk_gpu_krige *k, char *err, size_t err_cap) = nullptr;
    /* before the timed tile: what the tile brings besides the grid (kriging's
     * covariates at its nodes), its checks */
    int (*stage)(Job *J, const gk_gpu_tile *t, char *err, size_t err_cap) = nullptr;
    bool cv_tiles = false; /* takes cross-validation tiles (gk_gpu_tile's qx) */
};

/* every op's row (module.cu's table reads them) */
#define GK_GPU_OP(NAME, row) extern const OpRow row;
#include "core/gpu_ops.def"
#undef GK_GPU_OP

} // namespace gk_gpu

#endif
