/* SPDX-License-Identifier: MIT */
/* idw/aidw.h - the pieces of adaptive IDW (idw/aidw.c), visible to the tests. */
#ifndef GK_ALG_AIDW_H
#define GK_ALG_AIDW_H

#include "core/gk_internal.h"

/* Its parameters (Lu & Wong 2008): k neighbours for the nearest-neighbour
 * statistic, alpha at mu = 0.1, 0.3, 0.5, 0.7, 0.9, and R_min/R_max of the
 * membership. */
typedef struct {
    int k;
    double alpha[5];
    double rmin, rmax;
} gk_aidw_params;
GK_ALG_OWN_FITS(gk_aidw_params);
static inline gk_aidw_params *gk_aidw_of(const gk_algorithm *a)
{
    return GK_ALG_OWN(gk_aidw_params, a);
}

/* Fuzzy membership of the nearest-neighbour statistic R: 0 up to r_min,
 * 0.5 - 0.5 cos(pi (R - r_min) / (r_max - r_min)) between, 1 from r_max. */
double gk_aidw_mu(const gk_algorithm *a, double R);

/* Power for membership mu: piecewise linear through (0.1, alpha1), (0.3, alpha2),
 * (0.5, alpha3), (0.7, alpha4), (0.9, alpha5); constant outside [0.1, 0.9]. */
double gk_aidw_alpha(const gk_algorithm *a, double mu);

/* Expected mean nearest-neighbour distance of a random pattern of the points'
 * density, 1 / (2 sqrt(n / A)) over their bounding box (n >= 1). */
double gk_aidw_r_exp(const gk_points *p);

/* Its state (the job's, made by prepare): r_exp of the job's points. */
typedef struct {
    double r_exp;
} gk_aidw_state;

#endif
