/* SPDX-License-Identifier: MIT */
/*
 * write_lines.h - ridge lines (gk_lines) out through OGR, safely, as
 * rasters are (write_raster.h): the output is checked before any work
 * (driver, inputs, regular file), created under a temporary name next to
 * the destination, and renamed in only when every line is written; on
 * failure or cancel the temporary is deleted and an existing destination
 * is untouched.
 *
 * The same input gives the same bytes: lines in gk_lines's order, and the
 * dates drivers stamp pinned (GeoPackage's last_change through
 * OGR_CURRENT_DATE, a shapefile's DBF header through DBF_DATE_LAST_UPDATE)
 * unless the user sets them.
 */
#ifndef GK_WRITE_LINES_H
#define GK_WRITE_LINES_H

#include "gridkit_ridges.h"
#include "io/input_files.h"

#include <gdal.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a layer of lines holds besides the lines. Strings are borrowed. */
typedef struct {
    const char *name;     /* layer name */
    char **layer_options; /* -lco NAME=VALUE (may be NULL) */
    const char *srs_wkt;  /* NULL: none */
    const char *method;   /* the `method` attribute */
} gk_lines_layer;

/* The layer and its features (fields length, n_support, closed,
 * mean_density, width, method; LineString, LineStringZ for 3-D lines) in
 * ds, any OGR dataset open for writing (the plugin's in-memory one too). */
int gk_lines_to_layer(gk_context *ctx, GDALDatasetH ds, const gk_lines_layer *spec,
                      const gk_lines *lines);

typedef struct gk_lines_writer gk_lines_writer;

/* Checks the output and creates the temporary dataset (write_vector.h):
 * format (NULL: from dst's extension, GPKG without one) must be an OGR
 * vector driver that creates files; dst may be no file of inputs and must
 * be a regular file or none. A CSV gets its geometry as WKT unless -lco
 * GEOMETRY says otherwise. */
gk_lines_writer *gk_lines_writer_open(gk_context *ctx, const char *dst, const char *format,
                                      const gk_inputs *inputs);
/* The driver's short name ("GPKG"). */
const char *gk_lines_writer_driver(const gk_lines_writer *w);
/* Writes the layer, closes and renames into place. Frees w. */
int gk_lines_writer_commit(gk_lines_writer *w, const gk_lines_layer *spec, const gk_lines *lines);
/* Deletes the temporary output. Frees w. Safe on NULL. */
void gk_lines_writer_abort(gk_lines_writer *w);

#ifdef __cplusplus
}
#endif
#endif
