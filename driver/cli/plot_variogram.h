/* SPDX-License-Identifier: MIT */
/* plot_variogram.h - `gridkit variogram --plot`: the sample variogram and the
 * model as a PNG or SVG chart (cairo). */
#ifndef GK_PLOT_VARIOGRAM_H
#define GK_PLOT_VARIOGRAM_H

#include "gridkit_geostat.h"

/* Writes path (.png or .svg, by extension) under a temporary name renamed
 * when complete. m may be NULL (no curve); subtitle may be NULL. */
int gk_plot_variogram(gk_context *ctx, const char *path, const gk_vgm *v, const gk_vmodel *m,
                      const char *subtitle);

/* "0.0507 Nug + 0.591 Sph(897)" style text of a model, into buf. */
void gk_vmodel_describe(const gk_vmodel *m, char *buf, size_t size);

#endif
