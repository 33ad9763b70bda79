/* SPDX-License-Identifier: MIT */
/*
 * geostat/crossval.h - how gk_crossval predicts a fold's points, exposed so
 * that the tests can run each way on the same input and compare.
 *
 *  - rebuild: a job on the other folds' points, per fold (every algorithm);
 *  - holdout: one job on every point, its k-d tree built once, and each
 *    search skipping the fold's points (gk_kdtree_holdout): the same
 *    selections, so the same doubles, as a job on the other points, for the
 *    algorithms whose every search goes through that tree and whose
 *    preparation does not depend on which points it is given; local
 *    kriging on the GPU where one is asked for (or, with auto, from 20,000
 *    points), its kernels skipping the fold: within 1e-9 of the CPU's;
 *  - dubrule: global kriging's closed form (Dubrule 1983) from the one
 *    factorised system of every point: equal to rebuilding to rounding.
 */
#ifndef GK_CROSSVAL_H
#define GK_CROSSVAL_H

#include "core/method.h" /* gk_cv_method: each row says its way (cv_way) */
#include "gridkit_geostat.h"

/* The way GK_CV_AUTO takes for alg on n points whose largest fold has
 * maxfold of them. */
gk_cv_method gk_cv_method_for(const gk_algorithm *alg, size_t n, size_t maxfold);

/* gk_crossval_part, the way given (GK_ERR_ARG when it cannot take alg). */
int gk_crossval_with(gk_context *ctx, const gk_points *pts, const gk_algorithm *alg, int nfold,
                     unsigned seed, int part, int parts, gk_cv_method how, gk_cv_result *res);
/* gk_crossval_with with gk_crossval_part_drift's covariates and progress. */
int gk_crossval_run(gk_context *ctx, const gk_points *pts, const gk_algorithm *alg, int nfold,
                    unsigned seed, int part, int parts, gk_cv_method how,
                    const gk_cv_drift *drift, gk_progress_fn progress, void *progress_user,
                    gk_cv_result *res);

#endif
