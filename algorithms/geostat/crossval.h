/*
 * crossval.h - leave-one-out and k-fold cross-validation of any algorithm, as
 * gstat's krige.cv (geostatistics.md section 7): each fold's points are
 * predicted from the other folds' points with the same algorithm (nothing is
 * refitted).
 */
#ifndef GK_CROSSVAL_H
#define GK_CROSSVAL_H

#include "gridkit.h"

typedef struct {
    /* per point, in input order (n entries each) */
    size_t n;          /* points cross-validated */
    double *x, *y;
    double *observed;
    double *predicted; /* NaN when the algorithm gave no result (a failed prediction) */
    double *variance;  /* NaN when the algorithm has no variance */
    double *residual;  /* observed - predicted */
    double *zscore;    /* residual / sqrt(variance) */
    int *fold;         /* 1..nfold, like gstat's fold column */
    /* summary over the successful predictions */
    size_t n_failed;   /* predictions that were nodata */
    double mean_error; /* mean residual (bias) */
    double rmse, mae;
    double mean_z;     /* mean z-score; NaN without variances */
    double var_z;      /* sample variance (n-1) of the z-scores, R's var(); NaN without */
    double msdr;       /* mean of the squared z-scores (gstat's example; ~1 when well
                        * specified); NaN without variances */
    double cor;        /* Pearson correlation observed vs predicted; NaN if undefined */
    int nfold;         /* folds used (n for leave-one-out) */
    unsigned seed;     /* seed of the k-fold partition (unused by leave-one-out) */
} gk_cv_result;

/* Cross-validates alg on pts. nfold 0 or n: leave-one-out; 2 <= nfold < n:
 * random balanced partition drawn with seed (portable generator, so the same
 * seed gives the same folds everywhere). Folds run on the context's threads.
 * On error res is left empty (safe to free). */
int gk_crossval(gk_context *ctx, const gk_points *pts, const gk_algorithm *alg, int nfold,
                unsigned seed, gk_cv_result *res);
void gk_cv_result_free(gk_cv_result *res);

/* The fold (1..nfold) of each of n points for a k-fold partition: a seeded
 * shuffle dealt round-robin, so fold sizes differ by at most one. */
void gk_cv_partition(size_t n, int nfold, unsigned seed, int *fold);

/* Recomputes the summary fields of res from its per-point arrays. */
void gk_cv_summarize(gk_cv_result *res);

#endif
