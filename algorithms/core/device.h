/* SPDX-License-Identifier: MIT */
/*
 * device.h - where a job's tiles are computed: the CPU, or a CUDA GPU through
 * the run-time loaded module (algorithms/core/gpu_abi.h). Internal to the core.
 */
#ifndef GK_DEVICE_H
#define GK_DEVICE_H

#include "gk_internal.h"
#include "gpu_abi.h"

/* gk_context.device: the request, encoded. */
#define GK_DEV_UNSET 0 /* GRIDKIT_DEVICE, else auto */
#define GK_DEV_AUTO 1
#define GK_DEV_CPU 2
#define GK_DEV_CUDA 3 /* "cuda": device 0; GK_DEV_CUDA + 1 + N: "cuda:N" */

/* tile result when the GPU failed (the message: gk_device_error) */
#define GK_DEVICE_FAILED (UINT64_MAX - 1)

/* Decides where the job runs and, for the GPU, uploads the points and builds
 * the GPU index. GK_OK also when it falls back to the CPU (the reason is in
 * gk_context_device_name); an error only when a GPU was asked for explicitly
 * and cannot be used. */
int gk_device_job_attach(gk_job *job);
/* Has device dev's probe (gk_device_probe) finished? Never waits. */
int gk_device_probe_done(int dev);
/* A late start (gk_context_set_gpu_late; device_late.c): where attach
 * finds the GPU still starting, begin puts the rest of its start on a thread
 * of its own and the job is prepared for the CPU; once prepared, the job
 * hands it its GPU form (late_start), which it builds. GK_OK, or an error
 * (attach then waits for the GPU as without a late start). */
typedef struct gk_device_late gk_device_late;
int gk_device_late_begin(gk_job *job, int code, int dev);
int gk_device_late_start(gk_job *job);
/* Is a late start under way, not yet adopted? */
int gk_device_late_pending(const gk_job *job);
/* Has it ended without a GPU (never adopting one)? */
int gk_device_late_failed(gk_job *job);
/* 1: the GPU's side is ready and now the job's (job->gpu; the first caller
 * adopts it); 0: still starting; -1: none will come (the reason in the
 * context's device name). */
int gk_device_late_poll(gk_job *job);
/* The job is going: a start still probing is left to end alone; one
 * building is waited for and its GPU side freed. */
void gk_device_late_end(gk_job *job);
/* device.c's parts a late start uses: the job's GPU form, a GPU side built
 * from it (NULL and why; desc: what it runs on), freeing one. */
const char *gk_device_describe(const gk_job *job, gk_gpu_job_desc *d);
int gk_device_counts_window(const gk_job *job, const gk_gpu_job_desc *d);
void *gk_device_build(const gk_gpu_job_desc *d, int code, int dev, int count_window,
                      const char *name, char *desc, size_t desc_cap, char *why, size_t why_cap);
void gk_device_gpu_free(void *gpu);
/* Is the job on the GPU? */
int gk_device_job_on_gpu(const gk_job *job);
/* Computes a tile on one of the job's GPUs (split where a GPU runs out of
 * memory): nodata count, GK_DEVICE_FAILED, or UINT64_MAX (host memory).
 * want_float: Float32 pixels wanted; *is_float says whether out got them
 * (converted on the device, core/to_float32.h) or doubles (a tile the CPU
 * finishes: linear's, kriging's dense nodes). Thread-safe: up to
 * gk_device_streams() tiles run at once. */
uint64_t gk_device_tile(const gk_job *job, const gk_tile *t, double *out, int want_float,
                        int *is_float);
/* Does the job's GPU give Float32 tiles when asked (gk_device_tile)? */
int gk_device_converts(const gk_job *job);
/* Cross-validation (a job made with its context's cv_fold, local kriging):
 * the predictions at nq given points, each leaving out the points of fold
 * qgroup[k], into out (nbands x nq, band-major); as gk_device_tile
 * otherwise. Points near each other in the arrays share their searches. */
uint64_t gk_device_points(const gk_job *job, size_t nq, const double *qx, const double *qy,
                          const int *qgroup, double *out);
/* Jobs per GPU, each with its stream (GRIDKIT_GPU_STREAMS, else 2). */
int gk_device_streams_wanted(void);
/* Tiles the job's GPUs can work on at once (0 on the CPU). */
int gk_device_streams(const gk_job *job);
/* Kriging within radius: nodes whose window held more points than the GPU's
 * kernel takes, computed on the CPU (tests). */
uint64_t gk_device_dense_nodes(const gk_job *job);
/* Tiles split because a GPU ran out of memory (tests). */
uint64_t gk_device_tile_splits(const gk_job *job);
/* linear: nodes the GPU's triangles did not take, located on the CPU (tests). */
uint64_t gk_device_linear_rest(const gk_job *job);
/* May the CPU take a share of the GPU job's tiles? (Not of one system
 * factorised on the GPU: global kriging.) */
int gk_device_job_shares(const gk_job *job);
/* Does the GPU job keep the CPU cores busy itself (kriging within radius:
 * the nodes whose window holds more than the kernel takes)? */
int gk_device_job_uses_cpu(const gk_job *job);
/* The CPU's index of a GPU job (its k-d tree), built once on first need by
 * whichever thread asks first: the CPU's share of the job's nodes. GK_OK or
 * GK_ERR_NOMEM. */
int gk_device_cpu_index(gk_job *job);
/* One core's seconds per node of alg, and in *setup_s for its index, from the
 * model of device_choice.c (INFINITY: no figure). */
double gk_algorithm_cpu_node_seconds(const gk_algorithm *alg, double n_points, double area,
                                     double *setup_s);
/* Page-locked memory for tile buffers of a GPU job (NULL: use malloc). */
void *gk_device_host_alloc(const gk_job *job, size_t bytes);
void gk_device_host_free(const gk_job *job, void *p);
const char *gk_device_error(const gk_job *job);
void gk_device_job_free(gk_job *job);
/* Kernel time (ms, CUDA events) of the job's last GPU tile; -1 on the CPU. */
double gk_device_last_kernel_ms(const gk_job *job);

/* The experimental variogram's class sums (v's classes, direction-major) on
 * the context's GPU: 1 when it ran there, 0 when the CPU should (the reason
 * in gk_device_last_variogram_device), or -1 (the error in ctx) when a GPU was asked
 * for explicitly and cannot be used. */
int gk_device_variogram(gk_context *ctx, const gk_gpu_vgm *v, double *np, double *sd, double *sg);
/* Kernel time (ms) of the last GPU variogram in this process; -1 if none. */
double gk_device_last_variogram_ms(void);
/* Where this thread's last variogram ran ("cuda:0 (name)", or "cpu (reason)"). */
const char *gk_device_last_variogram_device(void);

/* What device_calls.c shares of device.c: the context's device request
 * (GK_DEV_*; GK_OK or an error in ctx for a bad GRIDKIT_DEVICE), whether
 * GPU dev is usable (0, its name; else a reason; loads the module), and
 * the module's table once a probe succeeded. */
int gk_device_requested(gk_context *ctx, int *code);
int gk_device_probe(int dev, char *name, size_t name_cap, char *why, size_t why_cap);
const gk_gpu_api *gk_device_module(void);

/* Ridges' one-shot GPU calls (core/gpu_abi.h): 1 when it ran on the
 * context's GPU, 0 when the CPU should run it (the reason in
 * gk_context_device_name), -1 (the error in ctx) when a GPU asked for
 * by name cannot be used. A GPU that fails mid-way leaves the CPU to it. */
int gk_device_curve_evolve(gk_context *ctx, gk_gpu_evolve *e);
int gk_device_scms(gk_context *ctx, gk_gpu_scms *s);
/* surface's sweeps of one grid, the same way (a grid of fewer than 2^18
 * nodes stays on the CPU under auto). */
int gk_device_surface(gk_context *ctx, gk_gpu_surface *s);
/* simulation's weights of a range of positions, the same way; exact: the
 * GPU's are the CPU's bits (Nug and Sph models), else auto keeps the CPU
 * and only --device cuda takes the GPU. */
int gk_device_sim_weights(gk_context *ctx, gk_gpu_sim *s, int exact);
/* rst's segments' values on the GPU, the same way; its caller asks only
 * under --device cuda (the GPU's exp and log round otherwise than the C
 * library's: spline/rst_segments.c); terms: points times nodes. */
int gk_device_rst_sums(gk_context *ctx, gk_gpu_rst *s, double terms);

#endif
