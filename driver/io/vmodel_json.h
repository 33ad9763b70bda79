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

/* Reads the "model" of a JSON file; a clear error naming the file otherwise. */
int gk_vmodel_read_json(gk_context *ctx, const char *path, gk_vmodel *m);
/* JSON text of an experimental variogram and/or a model (either may be NULL);
 * malloc'ed, NULL when out of memory. */
char *gk_vgm_to_json(const gk_vgm *v, const gk_vmodel *m, const gk_fit_result *fit);

#endif
