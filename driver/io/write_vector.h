/* SPDX-License-Identifier: MIT */
/*
 * write_vector.h - one vector output (ridges' lines, cv's residuals)
 * written as every gridkit output is: checked before any work (driver,
 * inputs, a regular file or none), created under a temporary name beside
 * the destination, read back before it takes the name (a driver that
 * loses a write on a full disk does not say so), then renamed in with
 * every side-car it has (a shapefile's .dbf, GML's .xsd); on failure or
 * cancel the temporary files go and an existing destination stays.
 *
 * Formats that write no file (Memory, a database) or a folder
 * (OpenFileGDB) are refused before any work: gridkit replaces only files;
 * so are those GDAL cannot read back (PGDUMP).
 * GDAL's messages name the destination, never the temporary.
 */
#ifndef GK_WRITE_VECTOR_H
#define GK_WRITE_VECTOR_H

#include "gridkit.h"
#include "io/input_files.h"

#include <gdal.h>
#include <ogr_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gk_vector_out gk_vector_out;

/* what names dst in messages ("output", "-o"). format: a GDAL vector
 * driver that creates files; NULL: the driver that lists dst's extension
 * (GPKG for a name without one). dst may be no file of inputs. The dates
 * drivers stamp (GeoPackage's last_change) are pinned while it is open, so
 * that the same input gives the same bytes. */
gk_vector_out *gk_vector_out_open(gk_context *ctx, const char *what, const char *dst,
                                  const char *format, const gk_inputs *inputs);
GDALDatasetH gk_vector_out_dataset(const gk_vector_out *v);
gk_context *gk_vector_out_context(const gk_vector_out *v);
/* The file it replaces (dst, or a link's target). */
const char *gk_vector_out_path(const gk_vector_out *v);
/* The driver's short name ("GPKG"). */
const char *gk_vector_out_driver(const gk_vector_out *v);
/* GDALDatasetCreateLayer, its warnings (an -lco the driver does not know)
 * naming dst; NULL and an error in ctx. */
OGRLayerH gk_vector_out_layer(gk_vector_out *v, const char *name, OGRSpatialReferenceH srs,
                              OGRwkbGeometryType type, char **options);
/* GDAL's last failure for a message: ": <text>" naming dst (and where the
 * disk is full, that), or ": the disk holding DIR is full" where GDAL said
 * nothing; buf holds it. */
const char *gk_vector_out_reason(const gk_vector_out *v, char *buf, size_t cap);

/* Closes the dataset, reads the layer back (n_features features; the
 * integer and string fields of the last one equal to last's, which may be
 * NULL), then renames every file into place. Frees v, also on error. */
int gk_vector_out_commit(gk_vector_out *v, GIntBig n_features, OGRFeatureH last);
/* Deletes the temporary files. Frees v. Safe on NULL. */
void gk_vector_out_abort(gk_vector_out *v);

#ifdef __cplusplus
}
#endif
#endif
