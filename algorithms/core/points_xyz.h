/* SPDX-License-Identifier: MIT */
/*
 * points_xyz.h - native reader for scattered "x y z" text (no GDAL).
 *
 * One point per line; fields separated by spaces, tabs, commas or semicolons.
 * An optional header line (first data line whose first field is not a
 * number) names the columns. '#' comment lines and blank lines are skipped.
 * X and Y are columns 1 and 2; Z is column 3 unless zcolumn names another
 * (a header name, case-insensitive, or a 1-based column number).
 */
#ifndef GK_POINTS_XYZ_H
#define GK_POINTS_XYZ_H

#include "gridkit.h"

#include <stddef.h>

/* Parses the whole of [s, end) as a decimal number (strtod syntax, plus
 * surrounding double quotes). Returns 1 and sets *v on success, 0 otherwise.
 * Exact: the common short decimals take a correctly rounded fast path. */
int gk_parse_double(const char *s, const char *end, double *v);

#endif
