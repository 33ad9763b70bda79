/*
 * variogram.h - experimental variograms and model fitting, as gstat's
 * variogram() and fit.variogram() compute them.
 */
#ifndef GK_VARIOGRAM_H
#define GK_VARIOGRAM_H

#include "gridkit.h"
#include "vmodel.h"

typedef enum { GK_VGM_MATHERON = 0, GK_VGM_CRESSIE = 1 } gk_vgm_estimator;

#define GK_VGM_MAX_DIRECTIONS 16

typedef struct {
    double cutoff;    /* <= 0: gstat's default, one third of the bounding-box diagonal */
    double width;     /* <= 0: cutoff / nlags */
    int nlags;        /* <= 0: 15 (used when width <= 0) */
    gk_vgm_estimator estimator;
    int ndir;         /* 0: omnidirectional */
    double azimuth[GK_VGM_MAX_DIRECTIONS]; /* degrees clockwise from north */
    double tol_hor;   /* angular half-tolerance in degrees; <= 0: 90 / ndir (gstat) */
    double bandwidth; /* GSLIB's perpendicular bandwidth; <= 0: none (gstat) */
} gk_vgm_options;

typedef struct {
    int ndir;          /* 1 when omnidirectional */
    int nlags;         /* classes per direction */
    double cutoff, width;
    double *azimuth;   /* ndir entries (NaN when omnidirectional) */
    /* ndir * nlags entries, direction-major; a class with np == 0 is empty */
    double *np, *dist, *gamma;
} gk_vgm;

/* Sample variogram of the points (pairs i < j, classes [0,w], (w,2w], ...;
 * reported distance = mean pair distance of the class). */
int gk_variogram(gk_context *ctx, const gk_points *pts, const gk_vgm_options *opt, gk_vgm *out);
void gk_vgm_free(gk_vgm *v);

typedef struct {
    int method;      /* gstat fit.method: 1 (N_j), 2 (N_j/gamma^2), 6 (OLS), 7 (N_j/h_j^2, default) */
    int fit_sills;   /* 1 (default) */
    int fit_ranges;  /* 1 (default) */
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

#endif
