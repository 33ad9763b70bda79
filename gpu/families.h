/* SPDX-License-Identifier: MIT */
/*
 * families.h - what module.cu (the ABI and the tile dispatch) and the
 * families' translation units call across files. One TU per family, as in
 * algorithms/: invdist.cu, idw.cu (invdistnn, nearest, aidw), window.cu
 * (average and the metrics), quadrants.cu (per-quadrant selection),
 * kriging.cu and kriging_big.cu (local kriging), krige_global.cu (with
 * krige_global_libs.cu), kriging_ops.cu (both kriging ops' rows and state), linear.cu, variogram.cu and variogram_fast.cu,
 * density.cu, natural.cu, shepard.cu, polynomial.cu and rbf.cu (their rows their own); quadtree_order.cu (gdal_grid's tie order, for job_new).
 * Everything is in namespace gk_gpu and hidden (the module is built with
 * -fvisibility=hidden): the module exports GK_GPU_ENTRY_FN alone.
 */
#ifndef GK_GPU_FAMILIES_H
#define GK_GPU_FAMILIES_H

#include "core/gpu_abi.h"

#include <cuda_runtime.h>

#include <cstddef>

namespace gk_gpu
{

struct Job;         /* job.h */
struct Grid;        /* grid.cuh */
struct LocalParams; /* local.cuh */
struct ExtraParams;
struct KrigeParams; /* krige_cov.cuh */
struct KgState;     /* krige_global.cu */
struct LinState;    /* linear.cu */

/* ---- quadtree_order.cu ------------------------------------------------------ */

/* order[0..n) (device) = the input indices of device points (x, y) in
 * gdal_grid's quadtree order (algorithms/core/quadtree_order.h) over the
 * box {minx, miny, maxx, maxy} of the points, on stream st. 0, or non-zero
 * and a reason. */
int quadtree_order(cudaStream_t st, const double *x, const double *y, int n, const double box[4],
                   unsigned *order, char *err, size_t err_cap);
/* The same from host arrays to a host order (tests, bench_gpu); *ms: its time. */
int api_quadtree_order(int dev, const double *x, const double *y, size_t n, uint32_t *order,
                       double *ms, char *err, size_t err_cap);

/* ---- density.cu: heatmap and gauss, jobs of op GK_GPU_HEATMAP, GK_GPU_GAUSS -- */

/* Uploads the core's bins (the desc's dens_ fields) into J's sxy, sz, bstart,
 * and makes the job's own state (method=fft's buffer); the rows' drop,
 * clone and shrink of that state. */
int density_make(Job *J, const gk_gpu_job_desc *d, char *err, size_t err_cap);
void density_drop(void *own);
void *density_clone(const void *own, char *err, size_t err_cap);
void density_shrink(void *own);
/* A tile into J->out. */
int density_tile(Job *J, const Grid &G, char *err, size_t err_cap);

/* ---- invdist.cu ------------------------------------------------------------ */

/* invdist over every point, a tile into J->out. */
int invdist_all_tile(Job *J, const Grid &G, const gk_gpu_tile *t, char *err, size_t err_cap);

/* ---- idw.cu: launches on J->st of g x b blocks over P's tile ----------------- */

cudaError_t idw_knn_launch(Job *J, const LocalParams &P, dim3 g, dim3 b, size_t nodes);
void nearest_launch(dim3 g, dim3 b, cudaStream_t st, const LocalParams &P);
int aidw_tile(Job *J, const LocalParams &P, const ExtraParams &E, dim3 g, dim3 b,
              const gk_gpu_tile *t, char *err, size_t err_cap);

/* ---- window.cu ------------------------------------------------------------- */

void gather_launch(dim3 g, dim3 b, cudaStream_t st, const LocalParams &P);
int pairs_tile(Job *J, const LocalParams &P, dim3 g, dim3 b, const gk_gpu_tile *t, char *err,
               size_t err_cap);

/* ---- quadrants.cu ---------------------------------------------------------- */

cudaError_t launch_quad(Job *J, const LocalParams &P, const ExtraParams &E, dim3 g, dim3 b,
                        size_t nodes);
void quad_all_launch(dim3 g, dim3 b, cudaStream_t st, const LocalParams &P, const ExtraParams &E);

/* ---- module.cu, for the local families' tiles -------------------------------- */

/* The window searches' parameters of a tile of J over G: the bins, the
 * window, the op. */
LocalParams local_params(Job *J, const Grid &G);

/* ---- kriging.cu, kriging_big.cu (state and rows: kriging_ops.cu) ------------- */

int krige_tile(Job *J, LocalParams &P, const gk_gpu_tile *t, int nbands, char *err, size_t err_cap);
void kr_quad_filter_launch(cudaStream_t st, const LocalParams &P, const KrigeParams &KP, int j0,
                           int nr, int K, int *nbr, int *cnt);
bool krige_big(int k, int omax);
/* The k = P.k (<= K, K 16 or 32) nearest of each node of rows [j0, j0 + nr)
 * of P's tile, gstat's rule (ties by input order): node n's (n = row within
 * the band * w + column) at nbr[n K ..], nearest first, and the count its
 * window held in cnt[n] (polynomial.cu's search too). */
cudaError_t kr_search_launch(cudaStream_t st, const LocalParams &P, int K, int j0, int nr, int *nbr,
                             int *cnt);
cudaError_t launch_krige_big(Job *J, const LocalParams &P, const KrigeParams &KP);
/* The same lists for any k = P.k (kriging_big.cu's search; rbf.cu's too):
 * node n's k nearest at nbr[n k ..] in (distance, input order), cnt[n] the
 * count its window held as far as searched. */
cudaError_t kl_lists_launch(Job *J, const LocalParams &P, int j0, int nr, int *nbr, int *cnt);

/* ---- krige_global.cu: global kriging, jobs of op GK_GPU_KRIGE_GLOBAL ---------
 *
 * cuSOLVER and cuBLAS are loaded with dlopen() on the first such job, so the
 * module needs neither to load: without them job creation fails with a
 * reason, and the core computes on the CPU.
 */
/* Loads the libraries, keeps the points (ordered by y) and takes the device
 * memory of the n x n factor on device dev, with work queued on st. NULL
 * and a reason on failure. */
KgState *kg_new(int dev, cudaStream_t st, const gk_gpu_job_desc *d, char *err, size_t err_cap);
/* The model: assembles and factorises the covariance matrix, then the drift
 * and the dual weights. A singular system is no error: its tiles are nodata. */
int kg_set(KgState *g, const gk_gpu_krige *k, char *err, size_t err_cap);
/* A tile into the device buffer out (g0: external drift's covariates at the
 * tile's nodes on the device, nr blocks of w * h, or NULL) (ncell estimates, then ncell variances
 * when the model asks for them); nodes whose system fails get nodata and
 * count in *singular (a device counter). 0, GK_GPU_TILE_NOMEM, or -1 and a
 * reason. */
int kg_tile(KgState *g, const gk_gpu_tile *t, const double *g0, double *out, unsigned int *singular,
            char *err, size_t err_cap);
void kg_free(KgState *g);

/* ---- linear.cu: gdal_grid's `linear`, jobs of op GK_GPU_LINEAR ----------------
 *
 * The core triangulates (algorithms/linear/tin.c) and hands over its
 * triangles, planes and buckets; a tile is filled by rasterising the
 * triangles that may overlap it with the core's own rules
 * (algorithms/linear/linear_raster.h). Nodes no proper triangle takes come back as
 * GK_LR_UNSET, and the core locates them one by one.
 */
/* Uploads the triangles on the current device, with work queued on st (the
 * caller synchronises st before the host arrays go). NULL and a reason on
 * failure. */
LinState *lin_new(cudaStream_t st, const gk_gpu_job_desc *d, char *err, size_t err_cap);
/* Another job's state sharing base's triangles (read only), with buffers of
 * its own; freed before base. */
LinState *lin_clone(const LinState *base, char *err, size_t err_cap);
/* A tile into the device buffer out (w * h doubles, row-major): the plane
 * where a proper triangle takes the node, GK_LR_UNSET elsewhere. 0,
 * GK_GPU_TILE_NOMEM, or -1 and a reason. */
int lin_tile(LinState *L, cudaStream_t st, const gk_gpu_tile *t, double *out, char *err,
             size_t err_cap);
void lin_free(LinState *L);

/* ---- variogram.cu ---------------------------------------------------------- */

int api_variogram(int dev, const gk_gpu_vgm *v, double *np, double *sd, double *sg,
                  double *kernel_ms, char *err, size_t err_cap);

/* ---- ridges_curve.cu, ridges_density.cu: one-shot ridge calls ---------------- */

int api_curve_evolve(int dev, gk_gpu_evolve *e, char *err, size_t err_cap);
int api_scms(int dev, gk_gpu_scms *s, char *err, size_t err_cap);

/* ---- surface.cu: surface's sweeps of one grid --------------------------------- */

int api_surface(int dev, gk_gpu_surface *s, char *err, size_t err_cap);

/* ---- simulation.cu: simulation's weights ---------------------------------------- */

int api_sim_weights(int dev, gk_gpu_sim *s, char *err, size_t err_cap);

/* ---- rst_segments.cu: the values of rst's segments ------------------------------ */

int api_rst_sums(int dev, gk_gpu_rst *s, char *err, size_t err_cap);

} // namespace gk_gpu

#endif
