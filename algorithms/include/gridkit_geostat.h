/* SPDX-License-Identifier: MIT */
/*
 * gridkit_geostat.h - gridkit's geostatistics for callers of the core:
 * variogram models with gstat's conventions, the parameters of -a kriging,
 * experimental variograms and their fits, and cross-validation. The CLI's
 * variogram and cv commands and the GDAL layer use it; docs/dev/geostatistics.md
 * states the conventions.
 */
#ifndef GRIDKIT_GEOSTAT_H
#define GRIDKIT_GEOSTAT_H

#include "gridkit.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- variogram models ------------------------------------------------ */
/*
 * variogram models with gstat's parameter conventions.
 *
 * A model is a nested sum of structures, each with its partial sill, range
 * (gstat's scale parameter: Exp is 1 - exp(-h/range)), kappa where used, and
 * 2-D geometric anisotropy as gstat's anis = c(angle, ratio): angle of the
 * major axis in degrees clockwise from north, ratio = minor/major range.
 * The nugget is a structure of type GK_VM_NUG. gamma(0) = 0 always.
 */
typedef enum {
    GK_VM_NUG, /* nugget */
    GK_VM_SPH, /* spherical */
    GK_VM_EXP, /* exponential */
    GK_VM_GAU, /* gaussian */
    GK_VM_MAT, /* Matern (kappa) */
    GK_VM_STE, /* Matern, Stein's parameterisation (kappa) */
    GK_VM_EXC, /* exponential class / stable (kappa) */
    GK_VM_CIR, /* circular */
    GK_VM_PEN, /* pentaspherical */
    GK_VM_LIN, /* linear (range 0: unbounded, psill = slope) */
    GK_VM_POW, /* power (range = exponent, unbounded) */
    GK_VM_HOL, /* hole effect, c (1 - sin(u)/u) */
    GK_VM_N_TYPES
} gk_vm_type;

#define GK_VM_MAX_STRUCTURES 8

typedef struct {
    gk_vm_type type;
    double psill;
    double range;
    double kappa;      /* Mat, Ste, Exc */
    double anis_angle; /* degrees clockwise from north */
    double anis_ratio; /* minor / major, (0, 1]; 1 = isotropic */
} gk_vm_structure;

typedef struct {
    int n;
    gk_vm_structure s[GK_VM_MAX_STRUCTURES];
} gk_vmodel;

/* gstat's three-letter names ("Sph", "Exp", ...), case-insensitive. */
int gk_vm_type_from_name(const char *name, gk_vm_type *type);
const char *gk_vm_type_name(gk_vm_type type);

/* Checks every structure (ranges > 0 where needed, psill >= 0, kappa and
 * anisotropy in range); a message naming the offending structure. */
int gk_vmodel_check(gk_context *ctx, const gk_vmodel *m);
/* gamma at separation (dx, dy) (anisotropy applied); 0 at (0, 0). */
double gk_vmodel_gamma(const gk_vmodel *m, double dx, double dy);
/* gamma at isotropic distance h, ignoring anisotropy (for plots and fits). */
double gk_vmodel_gamma_h(const gk_vmodel *m, double h);
/* Total sill; 1 when every structure is bounded, else 0. */
int gk_vmodel_bounded(const gk_vmodel *m);
double gk_vmodel_sill(const gk_vmodel *m);

/* ---- kriging parameters ---------------------------------------------- */
/*
 * the parameters of -a kriging:... (parsed in
 * kriging_params.c). Plain data: gk_algorithm holds one by value.
 */
typedef enum { GK_KRIGE_ORDINARY = 0, GK_KRIGE_SIMPLE, GK_KRIGE_UNIVERSAL } gk_krige_type;
typedef enum { GK_DRIFT_NONE = 0, GK_DRIFT_LINEAR, GK_DRIFT_QUADRATIC } gk_drift_type;

#define GK_KRIGE_MAX_DRIFT_RASTERS 4

/* Simulation (kriging with nsim=, geostat/simulation*.c): what each summary
 * band holds: the mean, the variance, the probability above or below v, the
 * v-th percentile. */
typedef enum {
    GK_SIM_MEAN = 1,
    GK_SIM_VAR,
    GK_SIM_ABOVE,
    GK_SIM_BELOW,
    GK_SIM_QUANTILE
} gk_sim_stat;

#define GK_SIM_MAX_STATS 16
#define GK_SIM_MAX_NSIM 100000

typedef struct {
    int nsim;  /* realizations; 0: kriging, not simulation */
    int first; /* the first realization's number (from 0): first= */
    unsigned long long seed;
    int normal_score;  /* transform=normal_score */
    double zmin, zmax; /* the back-transform's tails (have_zmin, have_zmax) */
    int have_zmin, have_zmax;
    int path_random;  /* path=random (gstat's); 0: multigrid (GSLIB's) */
    int realizations; /* write the realizations as bands */
    int nstat;        /* summary bands after them */
    gk_sim_stat stat[GK_SIM_MAX_STATS];
    double stat_v[GK_SIM_MAX_STATS];
} gk_sim_params;

/* Indicator kriging (kriging with indicator=, geostat/indicator.c): the
 * cut-offs, ascending; the order relations' correction of the probabilities
 * (GSLIB's ordrel: cdf, clip, or none); per cut-off models (0: model= for
 * every one). */
#define GK_IK_MAX_CUTS 16
typedef enum { GK_IK_ORDER_CDF = 0, GK_IK_ORDER_CLIP, GK_IK_ORDER_NONE } gk_ik_order;

typedef struct {
    int ncut;
    double cut[GK_IK_MAX_CUTS];
    int order;
    int have_order; /* order= given */
    int nmodels;
    gk_vmodel models[GK_IK_MAX_CUTS];
} gk_ik_params;

typedef struct {
    gk_krige_type type;
    double mean;         /* simple kriging */
    gk_drift_type drift; /* universal: trend in x, y */
    int n_drift_rasters; /* external drift (sampled by the GDAL layer) */
    char drift_raster[GK_KRIGE_MAX_DRIFT_RASTERS][256];
    gk_vmodel model;
    int model_auto;           /* model=auto: fit on the points */
    char variogram_file[256]; /* variogram=FILE.json: read by the GDAL layer */
    int variance;             /* 1: second band with the kriging variance */
    double block_w, block_h;  /* block kriging; 0 = point kriging */
    /* neighbourhood (gstat's nmax, nmin, maxdist, omax) lives in gk_algorithm:
     * max_points, min_points, max_points_per_quadrant; the radius here: */
    double maxdist;     /* 0 = no distance limit */
    int drift_bilinear; /* drift rasters: 0 nearest pixel (sp::over), 1 bilinear */
    int have_mean;      /* mean= given */
    gk_sim_params sim;  /* nsim= and the other keys of simulation */
    gk_ik_params ik;    /* indicator= and the other keys of indicator kriging */
} gk_kriging_params;

/* The normal scores of z[0..n) into scores (GSLIB's nscore, ties sharing
 * their mean frequency: geostat/normal_score.h), the values simulation with
 * transform=normal_score kriges; for the variogram of the scores. GK_OK, or
 * an error for non-finite values, values that are all equal, or memory. */
int gk_normal_scores(gk_context *ctx, const double *z, size_t n, double *scores);

/* For the GDAL layer (the algorithm is opaque in gridkit.h). */
const gk_kriging_params *gk_algorithm_kriging(const gk_algorithm *a); /* NULL if not kriging */
/* Replaces the model (variogram=FILE.json read by the caller); checks it and
 * rebuilds the canonical string. */
/* The model in the compact form "Nug(0.05)+Sph(0.59,897)[@angle/ratio]" that
 * model= also accepts. GK_ERR_ARG when buf is too small. */
int gk_vmodel_format(const gk_vmodel *m, char *buf, size_t room);
/* The model a kriging job uses (the fitted one for model=auto); NULL otherwise. */
const gk_vmodel *gk_job_kriging_model(const gk_job *job);
int gk_kriging_set_model(gk_context *ctx, gk_algorithm *a, const gk_vmodel *m);

/* ---- experimental variograms and fits --------------------------------- */
/*
 * experimental variograms and model fitting, as gstat's
 * variogram() and fit.variogram() compute them.
 */
typedef enum { GK_VGM_MATHERON = 0, GK_VGM_CRESSIE = 1 } gk_vgm_estimator;

#define GK_VGM_MAX_DIRECTIONS 16

typedef struct {
    double cutoff; /* <= 0: gstat's default, one third of the bounding-box diagonal */
    double width;  /* <= 0: cutoff / nlags */
    int nlags;     /* <= 0: 15 (used when width <= 0) */
    gk_vgm_estimator estimator;
    int ndir;                              /* 0: omnidirectional */
    double azimuth[GK_VGM_MAX_DIRECTIONS]; /* degrees clockwise from north */
    double tol_hor;   /* angular half-tolerance in degrees; <= 0: 90 / ndir (gstat) */
    double bandwidth; /* GSLIB's perpendicular bandwidth; <= 0: none (gstat) */
} gk_vgm_options;

typedef struct {
    int ndir;  /* 1 when omnidirectional */
    int nlags; /* classes per direction */
    double cutoff, width;
    double *azimuth; /* ndir entries (NaN when omnidirectional) */
    /* ndir * nlags entries, direction-major; a class with np == 0 is empty */
    double *np, *dist, *gamma;
} gk_vgm;

/* Sample variogram of the points (pairs i < j, classes [0,w], (w,2w], ...;
 * reported distance = mean pair distance of the class). */
int gk_variogram(gk_context *ctx, const gk_points *pts, const gk_vgm_options *opt, gk_vgm *out);
void gk_vgm_free(gk_vgm *v);

/* gk_variogram in parts, for processes that share the work (MPI): the pair
 * triangle is cut into fixed blocks; part p of P sums the blocks b with
 * b % P == p. where: GK_VGM_ANY (the context's GPU when it takes the job,
 * every pair in block 0, else the CPU), GK_VGM_GPU (the GPU or nothing:
 * on_gpu says which) or GK_VGM_CPU. gk_vgm_blocks_add() copies part p's
 * blocks (data of `bytes` bytes, from any process) into a part's result;
 * gk_variogram_merge() then adds the blocks in order, the additions one
 * process makes: the same numbers, whatever P. */
enum { GK_VGM_ANY = 0, GK_VGM_GPU = 1, GK_VGM_CPU = 2 };
typedef struct {
    size_t nblocks, hsize, bytes;
    void *data; /* nblocks histograms of hsize classes */
    int on_gpu; /* every pair was summed on the GPU, into block 0 */
} gk_vgm_blocks;
int gk_variogram_blocks(gk_context *ctx, const gk_points *pts, const gk_vgm_options *opt, int part,
                        int parts, int where, gk_vgm_blocks *out);
/* gk_variogram_blocks with progress and cancel. progress (may be NULL) is
 * called from one thread at a time with the share of this part's work done,
 * from 0 to 1 (the GPU's: 1 when done; a GK_VGM_GPU call that the GPU does
 * not take: never); its message is NULL, except once where every pair is
 * compared because the cutoff is long against the points' extent, for an
 * estimated 2 s or more: then a line for the user saying so, about how long
 * it takes on this machine, and the cutoff below which a k-d tree finds the
 * pairs. A callback that returns 0 stops the work: GK_ERR_CANCELLED, out
 * empty. The sums do not depend on the callback. */
int gk_variogram_blocks_ex(gk_context *ctx, const gk_points *pts, const gk_vgm_options *opt,
                           int part, int parts, int where, gk_progress_fn progress,
                           void *progress_user, gk_vgm_blocks *out);
void gk_vgm_blocks_add(gk_vgm_blocks *to, const void *from, int part, int parts);
int gk_variogram_merge(gk_context *ctx, const gk_points *pts, const gk_vgm_options *opt,
                       gk_vgm_blocks *blocks, gk_vgm *out);
void gk_vgm_blocks_free(gk_vgm_blocks *b);

typedef struct {
    int method;    /* gstat fit.method: 1 (N_j), 2 (N_j/gamma^2), 6 (OLS), 7 (N_j/h_j^2, default) */
    int fit_sills; /* 1 (default) */
    int fit_ranges; /* 1 (default) */
} gk_fit_options;

typedef struct {
    double sserr;
    int iterations;
    int converged;
} gk_fit_result;

/* Fits the model's partial sills and ranges to direction dir of v (weighted
 * least squares as gstat). Structures whose psill or range is NaN get automatic
 * starting values (documented in docs/). */
int gk_variogram_fit(gk_context *ctx, const gk_vgm *v, int dir, gk_vmodel *model,
                     const gk_fit_options *opt, gk_fit_result *res);

/* Candidate models as gstat's vgm(c("Exp", "Sph", "Gau")): list is
 * comma-separated names; each candidate is a nugget plus that structure (a
 * name may nest structures with '+', "Sph+Exp", under one nugget; "Nug" alone
 * is a pure nugget), every psill and range NaN (filled from the sample
 * variogram by the fit), kappa 0.5. At most room candidates; an error naming
 * an unknown model or an empty list. */
#define GK_VM_MAX_CANDIDATES 16
int gk_vm_candidates(gk_context *ctx, const char *list, gk_vmodel *cand, int room, int *ncand);

/* gstat's fit.kappa = TRUE values, seq(0.3, 5, 0.1). */
#define GK_FIT_KAPPA_N 48
void gk_fit_kappa_gstat(double kappa[GK_FIT_KAPPA_N]);

/* Fits each of ncand candidates (in place: the fitted model replaces the
 * start) and keeps the smallest SSErr, the first of equals, as gstat's
 * fit.variogram() with a model list. With nkappa > 0 (values in (0, 100]),
 * a candidate with Mat or Ste structures is fitted once per kappa, every Mat
 * and Ste structure taking it, and keeps its best (gstat's fit.kappa); other
 * candidates are fitted once, and some candidate must have Mat or Ste. each
 * (ncand entries, may be NULL) gets every candidate's result; a candidate
 * that cannot be fitted keeps its start model and gets SSErr NaN, and only
 * when none can is it an error. *kept = the index of the best. */
int gk_variogram_fit_best(gk_context *ctx, const gk_vgm *v, int dir, gk_vmodel *cand, int ncand,
                          const double *kappa, int nkappa, const gk_fit_options *opt,
                          gk_fit_result *each, int *kept);

/* ---- residuals of a trend --------------------------------------------- */
/*
 * the residuals z - X b of an ordinary least-squares trend, the data of
 * gstat's variogram(z ~ x + y) (its lm.c: OLS by the normal equations). The
 * trend's terms: a constant; for GK_DRIFT_LINEAR x and y, for
 * GK_DRIFT_QUADRATIC also x^2, xy and y^2 (kriging's drift= terms); and ncov
 * covariates, cov[k * n + i] for covariate k at point i (kriging's
 * drift_raster= values). resid: n values. Errors name the problem: fewer
 * points than terms, a constant or non-finite covariate, and a term that is a
 * combination of the others at the points (collinear points with a
 * polynomial drift) - a singular least-squares system.
 */
#define GK_TREND_MAX_COV GK_KRIGE_MAX_DRIFT_RASTERS
int gk_trend_residuals(gk_context *ctx, const gk_points *pts, gk_drift_type drift, int ncov,
                       const double *cov, double *resid);

/* ---- cross-validation ------------------------------------------------- */
/*
 * leave-one-out and k-fold cross-validation of any algorithm, as
 * gstat's krige.cv (docs/dev/geostatistics.md, 'Cross-validation'): each
 * fold's points are predicted from the other folds' points with the same
 * algorithm; a given model is kept, model=auto is fitted again on each fold's
 * points.
 */
typedef struct {
    /* per point, in input order (n entries each) */
    size_t n; /* points cross-validated */
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
    double mean_z;      /* mean z-score; NaN without variances */
    double var_z;       /* sample variance (n-1) of the z-scores, R's var(); NaN without */
    double msdr;        /* mean of the squared z-scores (gstat's example; ~1 when well
                        * specified); NaN without variances */
    double cor;         /* Pearson correlation observed vs predicted; NaN if undefined */
    int nfold;          /* folds used (n for leave-one-out) */
    unsigned seed;      /* seed of the k-fold partition (unused by leave-one-out) */
    const char *method; /* how the folds were predicted: "rebuild" (a job per fold),
                         * "holdout" (one index, the fold skipped in each search) or
                         * "dubrule" (global kriging in closed form); docs/cv.md */
    char device[256];   /* where: "cpu", or the GPU ("cuda:0 (name)"), with any reason
                         * the CPU was chosen */
} gk_cv_result;

/* Cross-validates alg on pts. nfold 0 or n: leave-one-out; 2 <= nfold < n:
 * random balanced partition drawn with seed (portable generator, so the same
 * seed gives the same folds everywhere). Folds run on the context's threads.
 * On error res is left empty (safe to free). */
int gk_crossval(gk_context *ctx, const gk_points *pts, const gk_algorithm *alg, int nfold,
                unsigned seed, gk_cv_result *res);
/* gk_crossval's folds f (1..nfold) with (f - 1) % parts == part only (MPI:
 * each process its share); the other points' predicted and variance stay
 * NaN and the summary is not computed. A point's prediction does not depend
 * on who computed it: gather predicted and variance per point from the
 * parts, fill residual and zscore (gk_cv_fill) and summarize. */
int gk_crossval_part(gk_context *ctx, const gk_points *pts, const gk_algorithm *alg, int nfold,
                     unsigned seed, int part, int parts, gk_cv_result *res);
/* gk_crossval_part with progress and cancel. progress (may be NULL) is
 * called from one thread at a time with the share of this part's points
 * predicted so far, from 0 to 1; its message is NULL, except once where the
 * folds take the slow way (a job rebuilt per fold) for an estimated 2 s or
 * more: then a line for the user saying why, about how long it takes on
 * this machine, and how to avoid it, e.g. "cross-validating invdist with a
 * radius and no max_points: every fold rebuilds its search (about 640 s
 * here); give max_points=K to use one index". A callback that returns 0
 * stops the work: GK_ERR_CANCELLED, res empty. The results do not depend on
 * the callback. */
int gk_crossval_part_ex(gk_context *ctx, const gk_points *pts, const gk_algorithm *alg, int nfold,
                        unsigned seed, int part, int parts, gk_progress_fn progress,
                        void *progress_user, gk_cv_result *res);
/* Kriging with external drift (drift_raster=) under cross-validation: the
 * covariates at pts's points (n_drift blocks of pts->n values, as
 * gk_job_set_drift takes them) and the sampler for the places predicted.
 * Each fold's job gets its own points' share; a held-out point's covariate
 * comes from the sampler at its place, as a grid node's would. */
typedef struct {
    int n_drift;
    const double *values_at_points;
    gk_drift_sampler_fn sampler;
    void *user;
} gk_cv_drift;
/* gk_crossval_part_ex with the covariates that drift_raster= keys need
 * (drift: NULL for algorithms without them; with them, a drift of as many
 * rasters is required: GK_ERR_ARG otherwise). */
int gk_crossval_part_drift(gk_context *ctx, const gk_points *pts, const gk_algorithm *alg,
                           int nfold, unsigned seed, int part, int parts, const gk_cv_drift *drift,
                           gk_progress_fn progress, void *progress_user, gk_cv_result *res);
/* residual and zscore of point i from its observed, predicted and variance. */
void gk_cv_fill(gk_cv_result *res, size_t i);
void gk_cv_result_free(gk_cv_result *res);

/* The fold (1..nfold) of each of n points for a k-fold partition: a seeded
 * shuffle dealt round-robin, so fold sizes differ by at most one. */
void gk_cv_partition(size_t n, int nfold, unsigned seed, int *fold);

/* Recomputes the summary fields of res from its per-point arrays. */
void gk_cv_summarize(gk_cv_result *res);

#ifdef __cplusplus
}
#endif

#endif
