/* SPDX-License-Identifier: MIT */
/*
 * density_bins.h - the points of a density job sorted into square bins
 * (heatmap, gauss, kernel_smooth): ascending bin row (y), bin column (x),
 * then input index. That order is every node's order of summation
 * (density_sum.h), on the CPU and on the GPU, which gets these arrays as
 * they are. The bins depend on the points and the kernel's reach only.
 */
#ifndef GK_DENSITY_BINS_H
#define GK_DENSITY_BINS_H

#include "core/gk_internal.h"
#include "core/gpu_abi.h"

/* The CPU's inner loops, compiled for x86-64-v3 (AVX2, FMA) and v4
 * (AVX-512) beside the baseline and picked at load time: wider vectors, the
 * same bits (no contraction; element-wise IEEE operations and fma(), which
 * rounds once on every CPU, the baseline's through libm;
 * docs/reliability.md). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&                             \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define GK_DS_CLONES __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define GK_DS_CLONES
#endif

typedef struct gk_dens_bins {
    size_t n;
    double *x, *y, *z; /* in bin order */
    int *start;        /* nbx * nby + 1 offsets, bin (i, j) at j * nbx + i */
    int nbx, nby;
    double x0, y0, side; /* bin (i, j) is [x0 + i side, ...) x [y0 + j side, ...) */
} gk_dens_bins;

/* Bins of side reach / per or more (INFINITY: one bin), no more than about
 * 4 n of them; GK_OK or GK_ERR_NOMEM (an error in ctx). Finer bins waste
 * fewer points at a tile's edge and cost more runs: heatmap's splat is
 * quickest at 4, gauss's products at 8 (1 M points to 4096^2). */
int gk_dens_bins_build(gk_context *ctx, const gk_points *p, double reach, int per,
                       gk_dens_bins **out);
void gk_dens_bins_free(gk_dens_bins *b);

/* The family's state (the job's; heatmap, gauss, kernel_smooth): the bins,
 * and gauss's expansions (method=ifgt) or lattice blocks (method=fft). */
typedef struct {
    gk_dens_bins *bins;
    struct gk_ifgt *ifgt;
    struct gk_gauss_fft *fft;
} gk_dens_state;

/* The job's state, made empty where it has none: NULL when out of memory
 * (the error in the job's context). */
gk_dens_state *gk_dens_state_make(gk_job *job);
/* Its parts, NULL where not made. */
static inline gk_dens_bins *gk_dens_bins_of(const gk_job *job)
{
    const gk_dens_state *s = (const gk_dens_state *)job->state;
    return s ? s->bins : NULL;
}

/* The registry rows' hooks: release frees the bins and the state (gauss
 * frees its own parts first); the CPU's index of a GPU job is the same
 * bins, which prepare built. */
void gk_dens_release(gk_job *job);
int gk_dens_cpu_index(gk_job *job);

/* The bins into a GPU job's description (core/gpu_abi.h's dens_ fields). */
void gk_dens_gpu_bins(const gk_dens_bins *b, gk_gpu_job_desc *d);

/* The nodes of a tile, x by column and y by row (gk_grid_node_x/y). */
void gk_dens_tile_nodes(const gk_tile *t, double *nx, double *ny);

/* Calls fn(p0, p1, arg) for each run [p0, p1) of the sorted points in the
 * bins that can reach the tile's nodes within rx in x and ry in y, in bin
 * order. */
void gk_dens_tile_runs(const gk_dens_bins *b, const double *nx, int w, const double *ny, int h,
                       double rx, double ry, void (*fn)(size_t p0, size_t p1, void *arg),
                       void *arg);

#endif
