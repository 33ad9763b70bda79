/* SPDX-License-Identifier: MIT */
/*
 * gridkit_lib.h - the library call under the CLI, the plugin and the tests,
 * in the shape of GDAL's GDALGridOptionsNew() + GDALGrid():
 *
 *   gk_grid_options *o = gk_grid_options_new(ctx, argc, argv);   // gdal_grid's argv
 *   int rc = gk_grid_run(ctx, o);                                   // read, grid, write
 *
 * The argument list is gdal_grid's (without the program name), plus
 * gridkit's own options (--threads N, --precision single|double). The
 * positional arguments are the source and, for gk_grid_run(), the destination.
 */
#ifndef GK_GRIDKIT_LIB_H
#define GK_GRIDKIT_LIB_H

#include "gridkit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gk_grid_options gk_grid_options;

/* Registers GDAL's drivers; the hook for per-context GDAL set-up. */
void gk_gdal_init(gk_context *ctx);

/* Parses the arguments; NULL and a message naming the argument on error. */
gk_grid_options *gk_grid_options_new(gk_context *ctx, int argc, char **argv);
void gk_grid_options_free(gk_grid_options *o);
void gk_grid_options_set_progress(gk_grid_options *o, gk_progress_fn fn, void *user);
const char *gk_grid_options_source(const gk_grid_options *o);
const char *gk_grid_options_destination(const gk_grid_options *o);
int gk_grid_options_quiet(const gk_grid_options *o);

/* Reads the points, grids every band on the tile engine and writes the
 * raster (under a temporary name, renamed when complete). */
int gk_grid_run(gk_context *ctx, const gk_grid_options *o);

/* Usage text of `gridkit grid`. */
const char *gk_grid_usage(void);

/* `gridkit ridges` (docs/ridges.md), in the same shape:
 *
 *   gk_ridges_options *o = gk_ridges_options_new(ctx, argc, argv);
 *   int rc = gk_ridges_run(ctx, o);   // read, find the lines, write them
 *
 * The arguments: SRC DST -a METHOD:key=value... [-of FORMAT] [-lco N=V]*
 * [-nln NAME] [--3d], and gridkit grid's source options (-l, -where, -sql,
 * -spat, -clipsrc*, -zfield, -z_increase, -z_multiply, -oo, -a_srs,
 * --threads, --device, -q), which behave as they do for grid. */
typedef struct gk_ridges_options gk_ridges_options;

gk_ridges_options *gk_ridges_options_new(gk_context *ctx, int argc, char **argv);
void gk_ridges_options_free(gk_ridges_options *o);
void gk_ridges_options_set_progress(gk_ridges_options *o, gk_progress_fn fn, void *user);
const char *gk_ridges_options_source(const gk_ridges_options *o);
const char *gk_ridges_options_destination(const gk_ridges_options *o);
int gk_ridges_options_quiet(const gk_ridges_options *o);

/* Reads the points, finds the lines and writes them through OGR (under a
 * temporary name, renamed when complete). */
int gk_ridges_run(gk_context *ctx, const gk_ridges_options *o);

/* Usage text of `gridkit ridges`, with the methods' keys. */
const char *gk_ridges_usage(void);

#ifdef __cplusplus
}
#endif
#endif
