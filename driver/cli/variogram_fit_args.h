/* SPDX-License-Identifier: MIT */
/*
 * variogram_fit_args.h - the fit options of `gridkit variogram` turned into
 * the models to fit: --fit (one nested model), --fit-best (candidates, as
 * gstat's vgm(c("Exp", "Sph"))), the start values, and the kappa list of
 * --fit-kappa (gstat's fit.kappa).
 */
#ifndef GK_VARIOGRAM_FIT_ARGS_H
#define GK_VARIOGRAM_FIT_ARGS_H

#include "gridkit_geostat.h"

/* The options as given (NULL: not given). */
typedef struct {
    const char *fit;      /* --fit MODEL[,MODEL...]: one nested model */
    const char *fit_best; /* --fit-best MODEL[,MODEL...]: candidates */
    const char *nugget, *psill, *range, *kappa, *anis;
    const char *fit_kappa; /* --fit-kappa [LIST]: "" for gstat's default list */
    int no_fit;
} gk_vgm_fit_args;

/* A number, or a comma-separated list of at most max numbers (returns the
 * count, -1 on error); messages name the option opt. */
int gk_vgm_parse_num(gk_context *ctx, const char *opt, const char *s, double *v);
int gk_vgm_parse_list(gk_context *ctx, const char *opt, const char *s, double *v, int max);

/* The model of --fit with its start values (NaN where not given). */
int gk_vgm_build_model(gk_context *ctx, const gk_vgm_fit_args *fa, gk_vmodel *m);

/* The candidates of --fit-best, with --nugget, --kappa and --anis applied
 * to each (--psill, --range and --no-fit are refused: each candidate starts
 * from gstat's defaults). */
int gk_vgm_build_candidates(gk_context *ctx, const gk_vgm_fit_args *fa, gk_vmodel *cand,
                            int *ncand);

/* The kappa values of --fit-kappa (malloc'ed into *kappa, count in *n):
 * gstat's seq(0.3, 5, 0.1) for "", else the listed values, each in (0, 100]. */
int gk_vgm_kappa_list(gk_context *ctx, const char *spec, double **kappa, int *n);

#endif
