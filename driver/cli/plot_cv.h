/* SPDX-License-Identifier: MIT */
/* plot_cv.h - `gridkit cv --plot`: what gstat users draw after krige.cv, as
 * a PNG or SVG chart (cairo): observed against predicted with the 1:1 line,
 * and a bubble map of the residuals (sign by colour, size by magnitude). */
#ifndef GK_PLOT_CV_H
#define GK_PLOT_CV_H

#include "gridkit_geostat.h"

/* Writes path (.png or .svg, by extension) under a temporary name renamed
 * when complete; title and subtitle may be NULL. */
int gk_plot_cv(gk_context *ctx, const char *path, const gk_cv_result *res, const char *title,
               const char *subtitle);

#endif
