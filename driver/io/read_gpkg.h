/* SPDX-License-Identifier: MIT */
/*
 * read_gpkg.h - the points of a GeoPackage layer straight from SQLite, on
 * several threads at once (GDAL 3.6's reader, even through its Arrow stream,
 * takes one core: 0.11-0.17 s for a million points, against 0.02 s here on
 * 16 cores, once the process has turned SQLite's memory statistics off, as
 * the gridkit command does: they take a process-wide lock per allocation).
 *
 * Only what it reads exactly as OGR does: a plain table with an integer
 * primary key, Point geometries in standard GeoPackage blobs, Z from the
 * geometry or from an Integer, Integer64 or Real field, or from a String field
 * whose text is a number (text_number.h). Anything else (another geometry
 * type, a 2-D point where Z is needed, an extended blob, text that is not a
 * number, text in a number field, an SQLite error) declines before a point
 * is kept, and the caller reads the layer through OGR instead, which then
 * has the last word on errors. Points come out in FID order, as OGR gives them.
 */
#ifndef GK_READ_GPKG_H
#define GK_READ_GPKG_H

#include "gridkit.h"

#include <stddef.h>

/* Returned when this reader does not take the layer. */
#define GK_GPKG_DECLINED (-1)

typedef struct {
    const char *path;   /* the GeoPackage file (a plain file, not /vsi...) */
    const char *table;  /* the layer's table */
    const char *fid;    /* its FID column */
    const char *geom;   /* its geometry column */
    const char *zfield; /* NULL: Z from the geometry */
    int zfield_type;    /* OGRFieldType of zfield: OFTInteger, OFTInteger64, OFTReal, OFTString */
    int need_3d;        /* Z from the geometry and the algorithm reads it */
    int no_z;           /* X and Y only (GK_Z_NOT_READ): z = 0, a NaN Z keeps its point */
    double z_increase, z_multiply;
    int threads;      /* connections read at once (>= 1) */
    long long n_hint; /* the layer's feature count if known (OGR's fast count), else -1 */
    /* if not NULL, run once on the calling thread while the connections
     * read (before it takes ranges itself), if the reading gets that far */
    void (*beside)(void *arg);
    void *beside_arg;
} gk_gpkg_layer;

/* Appends the layer's points to pts: GK_OK with the features read and the
 * points skipped for a null or NaN Z counted, or GK_GPKG_DECLINED with pts
 * as it was (also when the memory for it is lacking: OGR's path needs less). */
int gk_read_gpkg_points(gk_context *ctx, const gk_gpkg_layer *l, gk_points *pts, size_t *n_features,
                        size_t *n_skipped_z);

#endif
