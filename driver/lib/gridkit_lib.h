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

#ifdef __cplusplus
}
#endif
#endif
