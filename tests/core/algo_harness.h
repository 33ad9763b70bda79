/* SPDX-License-Identifier: MIT */
/* algo_harness.h - the shared part of test_algorithms (tests/core/algorithms.cmake):
 * one program built from the families' files (tests/search, tests/idw,
 * tests/window, tests/core), counting its checks together. */
#ifndef GK_ALGO_HARNESS_H
#define GK_ALGO_HARNESS_H

#define GK_CHECK_SHARED
#include "gk_check.h"

#include "idw/aidw.h"
#include "idw/idw.h"
#include "window/window.h"
#include "search/bucket_grid.h"
#include "core/gk_internal.h"
#include "core/method.h"
#include "search/kdtree.h"
#include "search/neighbours.h"

#include <stddef.h>

/* ---- deterministic random numbers: one sequence through the whole run, so
 * the families run in a fixed order (main in tests/core/test_algorithms.c) --- */
extern unsigned long long rng_state;
double urand(void);
double nrand(void);

/* ---- point sets ------------------------------------------------------------- */
typedef struct {
    size_t n;
    double *x, *y, *z;
} pset;

void pset_alloc(pset *p, size_t n);
void pset_free(pset *p);
/* uniform points on [0, 100)^2, snapped to a 0.5 lattice (ties are common) */
void make_uniform(pset *p, size_t n);
/* Gaussian clusters, plus exact duplicates of earlier points */
void make_clustered(pset *p, size_t n);

/* ---- brute-force references --------------------------------------------------- */
typedef struct {
    double d2;
    int idx;
} cand;

int cand_cmp(const void *a, const void *b);
int int_cmp(const void *a, const void *b);
double bf_d2(const pset *p, size_t i, double cx, double cy);

/* ---- hand-built jobs ---------------------------------------------------------- */
extern gk_context *ctx;
typedef struct {
    gk_points *pts;
    gk_job *job; /* gk_job_new's, on the CPU */
} tjob;

gk_algorithm alg_of(gk_alg_kind kind);
void tjob_init(tjob *tj, const double *x, const double *y, const double *z, size_t n,
               const gk_algorithm *a);
void tjob_free(tjob *tj);
gk_tile_fn fn_of(gk_alg_kind k);

#define HIT2 1e-12

/* Value of the single node (x, y); *nodata set when the node got no value. */
double node_value(tjob *tj, double x, double y, int *nodata);
/* One-shot: build, evaluate one node, free. */
double eval1(const gk_algorithm *a, const double *x, const double *y, const double *z, size_t n,
             double nx, double ny, int *nodata);

/* ---- the families (run by main in this order) --------------------------------- */
void test_kdtree(void); /* tests/search/test_search.c */
void test_kdtree_threads(void);
void test_kdtree_levels(void);
void test_knn_bins(void);
void test_invdistnn_ties(void);
void test_sort(void);
void test_invdist(void); /* tests/idw/test_idw.c */
void test_invdist_single(void);
void test_invdist_single_far(void);
void test_invdistnn(void);
void test_quadrants(void);
void test_quadrants_knn(void);
void test_average_nearest(void); /* tests/window/test_window.c */
void test_metrics(void);
void test_aidw(void);                /* tests/idw/test_idw.c */
void test_tiles_vs_bruteforce(void); /* tests/core/test_algorithms.c */
void test_bucket_grid(void);         /* tests/search/test_search.c */

#endif
