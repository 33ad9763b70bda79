/* SPDX-License-Identifier: MIT */
/* gpu_harness.h - the shared part of test_gpu (tests/gpu/gpu.cmake): one
 * program built from a file per family (idw and window, search, kriging,
 * global kriging, variogram, linear; test_gpu.c holds the device option, the
 * engine's paths and main),
 * counting its checks together. Each comparison prints one "ok" or "FAIL"
 * line: `grep -c "^ok "` on the output counts the comparisons made. */
#ifndef GK_GPU_HARNESS_H
#define GK_GPU_HARNESS_H

#define GK_CHECK_SHARED
#include "gk_check.h"

#include "gridkit.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *name;
    gk_points *pts;
    gk_grid g;
    double zrange;
} dataset;

/* External drift (drift_raster= keys; here analytic covariates, as a
 * raster sampler would give them): short-scale functions of x and y, not
 * collinear with the polynomial drift (scale s: 1 for metres, 0.01 for the
 * lattice), NaN at the nodes left of xmin (nodata there, as off a raster). */
typedef struct {
    int nr;
    double s, xmin;
} ked_cov;

double ked_value(int r, double s, double x, double y);
int ked_sampler(void *user, size_t n, const double *x, const double *y, double *out);
/* The covariates at the points (no NaN there: points left of xmin keep theirs). */
int set_covariates(gk_job *job, const dataset *d, const ked_cov *c);
/* The covariates of a data set: one per drift_raster= key of spec. */
ked_cov ked_of(const char *spec, const dataset *d);

/* Kriging: both bands (estimate, variance) of a whole-grid run. */
typedef struct {
    double *v;
    int nx, ny;
} raster2;

int sink2(void *user, int x0, int y0, int w, int h, int nbands, const double *values);

extern uint64_t last_dense;  /* run2's job: nodes the GPU left to the CPU */
extern uint64_t last_shared; /* and the nodes the CPU cores took beside the GPU */
extern uint64_t last_lowered; /* run's job: nodes fitted at a lower degree (polynomial) */

/* Runs spec on one device over the whole grid; NULL when the job fails. */
double *run(const char *device, const char *spec, int single, const dataset *d, char *devname,
            size_t cap);
/* Both bands (the second zeros for one band) over the whole grid; NULL when the job fails. */
double *run2(const char *device, const char *spec, int single, const dataset *d, char *devname,
             size_t cap, uint64_t *singular);
int same_nodata(double a, double b);

/* The GPU against the CPU on one algorithm and data set: within 1e-9
 * (relative to the larger of the value and the data range) in double, 1e-5
 * of the data range in single; expect_gpu: whether the GPU must take it. */
void compare(const char *spec, int single, const dataset *d, int expect_gpu);
/* compare(), then every node bit for bit (linear, natural, shepard); exact
 * 0: the count of differing nodes printed, not failed. */
void compare_bits(const char *spec, const dataset *d, int exact);
/* The share of the nodes a GPU job left to the CPU (linear, natural) within
 * lo..hi. */
void cpu_rest_share(const char *spec, const dataset *d, double lo, double hi);
/* The same through gk_job_compute_window on odd windows. */
void compare_windows(const char *spec, int single, const dataset *d);
/* Estimate and variance (check_bands' tolerances) and the singular counts. */
void check_bands(const char *spec, const char *vs, int single, const dataset *d, const double *c,
                 const double *g, uint64_t cs, uint64_t gs, int on_gpu);
/* Kriging (or any method): both bands of a whole-grid run, GPU against CPU. */
void compare_krige(const char *spec, int single, const dataset *d, int expect_gpu);
/* Split tiles under a 40000-byte GPU (GRIDKIT_GPU_TILE_MEM): the CPU's values. */
void test_split(const char *spec, const dataset *d);

/* The data sets: 20,000 points over 10 km in UTM metres; an integer lattice
 * with holes and duplicates; 300 points on a small grid. */
/* urand()'s state (bench_util.h: one a file) for make_utm and make_small */
void seed_datasets(unsigned long long seed);
dataset make_utm(gk_context *ctx);
/* d->zrange from its points (1 where all z are equal) */
void set_zrange(dataset *d);
dataset make_lattice(gk_context *ctx);
dataset make_small(gk_context *ctx);
double grand(unsigned long long *s);

/* ---- tables of cases: each expected on the GPU --------------------------------- */
typedef struct {
    const char *spec;
    const dataset *d;
    int single; /* 1: single precision */
} gpu_case;

#define NCASES(a) (sizeof(a) / sizeof *(a))

/* compare() or compare_krige() each spec on d */
void compare_each(const char *const *specs, size_t n, int single, const dataset *d);
void krige_each(const char *const *specs, size_t n, int single, const dataset *d);
/* compare() or compare_krige() each case on its data set */
void compare_cases(const gpu_case *c, size_t n);
void krige_cases(const gpu_case *c, size_t n);
/* compare_windows() each case */
void windows_cases(const gpu_case *c, size_t n);

/* ---- the families, by file (main in test_gpu.c runs them) ----------------------- */
/* test_gpu_idw_window.c */
void test_gpu_basic(const dataset *u, const dataset *l);
void test_extra(const dataset *u, const dataset *l, const dataset *s);
/* test_gpu_search.c */
void test_big_k(const dataset *u, const dataset *l, const dataset *s);
void test_far_nodes(const dataset *u);
/* test_gpu_kriging.c */
void test_krige_basic(const dataset *u, const dataset *l);
void test_quadrants(const dataset *u, const dataset *l);
void test_radius_kriging(const dataset *u, const dataset *l);
void test_models(const dataset *u, const dataset *l);
void test_drift_block(const dataset *u, const dataset *l);
/* test_gpu_global.c */
void test_global_reference(void);
void test_global(const dataset *lattice);
/* test_gpu_density.c */
void test_density(const dataset *u, const dataset *l, const dataset *s);
/* test_gpu_ridges.c */
void test_ridges(gk_context *ctx);
/* test_gpu_variogram.c */
void test_variograms(const dataset *u, const dataset *l);
/* test_gpu_linear.c */
void test_linear(gk_context *ctx, const dataset *u, const dataset *l, const dataset *s);
/* test_gpu_natural.c */
void test_natural(gk_context *ctx, const dataset *u, const dataset *l, const dataset *s);
/* test_gpu_shepard.c */
void test_shepard(const dataset *u, const dataset *l, const dataset *s);
/* test_gpu_polynomial.c */
void test_polynomial(gk_context *ctx, const dataset *u, const dataset *l, const dataset *s);
/* test_gpu_rbf.c */
void test_rbf(const dataset *u, const dataset *l, const dataset *s);
/* test_gpu_rst.c */
void test_rst(const dataset *l, const dataset *s);
void test_surface(const dataset *u, const dataset *l, const dataset *s);
void test_simulation(const dataset *u, const dataset *l, const dataset *s);
/* test_gpu_indicator.c */
void test_indicator(const dataset *u, const dataset *l);
/* test_gpu_crossval.c */
void test_crossval(const dataset *u, const dataset *l);
void test_quadtree_order(void); /* test_gpu_quadtree_order.c */

#endif
