/* SPDX-License-Identifier: MIT */
/*
 * vmodel_json.h - variograms and models as JSON (json-c), the format that
 * `gridkit variogram --format json` writes and `-a kriging:variogram=FILE`
 * reads: {"experimental": [{"np":..,"dist":..,"gamma":..}, ...],
 *         "model": [{"model":"Nug","psill":..,"range":0}, {"model":"Sph",..}]}
 * like gstat's variogram and vgm data frames ("kappa", "anis": [angle, ratio]
 * where used).
 */
#ifndef GK_VMODEL_JSON_H
#define GK_VMODEL_JSON_H

#include "gridkit_geostat.h"

#include <stddef.h>

/* Reads the "model" of a JSON file; a clear error naming the file otherwise. */
int gk_vmodel_read_json(gk_context *ctx, const char *path, gk_vmodel *m);
/* What `gridkit variogram` reports besides the sample variogram and the
 * model: how the model was fitted and what the variogram is of. */
typedef struct {
    const gk_fit_result *fit; /* NULL: the model was not fitted */
    /* --fit-best: every candidate as fitted (SSErr NaN where it failed), the kept one */
    int ncand, kept;
    const gk_vmodel *cand;
    const gk_fit_result *cand_fit;
    /* --fit-kappa: the number of kappa values tried (0: no search) */
    int nkappa;
    /* --drift: the residuals of the OLS trend with these terms (NULL: z itself) */
    const char *drift; /* "linear", "quadratic" or NULL */
    int n_rasters;
    const char *const *rasters;
} gk_vgm_report;

/* The name of a model's structures joined by '+', "Nug+Sph". */
void gk_vmodel_names(const gk_vmodel *m, char *buf, size_t room);

/* JSON text of an experimental variogram and/or a model (either may be NULL)
 * with what rep says ("fit", "trend"; rep may be NULL); malloc'ed, NULL when
 * out of memory. */
char *gk_vgm_to_json(const gk_vgm *v, const gk_vmodel *m, const gk_vgm_report *rep);

#endif
