/* SPDX-License-Identifier: MIT */
/*
 * read_points.h - points in: any OGR source with gdal_grid's selection options,
 * or plain XYZ text read natively (algorithms/core/points_xyz.c).
 */
#ifndef GK_READ_POINTS_H
#define GK_READ_POINTS_H

#include "gridkit.h"

/* What to read: gdal_grid's source options. Strings are borrowed. */
typedef struct {
    const char *src;   /* datasource name */
    char **layers;     /* -l, NULL-terminated list (may be NULL) */
    const char *where; /* -where: on the -l layers only */
    const char *sql;   /* -sql: band 1, before the -l layers */
    int have_spat;     /* -spat xmin ymin xmax ymax */
    double spat[4];
    const char *clipsrc; /* "xmin ymin xmax ymax" | WKT | datasource | "spat_extent" */
    const char *clipsrcsql;
    const char *clipsrclayer;
    const char *clipsrcwhere;
    const char *zfield; /* -zfield */
    double z_increase;  /* Z' = (Z + z_increase) * z_multiply */
    double z_multiply;
    char **open_options; /* -oo NAME=VALUE, NULL-terminated (may be NULL) */
    int needs_z;         /* GK_Z_NEEDED, GK_Z_IGNORED or GK_Z_NOT_READ */
} gk_read_options;

/* What the caller does with Z (gk_read_options.needs_z). */
enum {
    /* the algorithm ignores Z or takes it as an optional weight (count, the
     * distance metrics, heatmap): Z is read as for GK_Z_NEEDED, but 2-D
     * geometry without -zfield gives Z = 0 */
    GK_Z_IGNORED = 0,
    /* Z from -zfield, else the geometry: 2-D geometry without -zfield is an
     * error; a null, NaN or infinite Z skips its point (counted) */
    GK_Z_NEEDED = 1,
    /* X and Y only (gridkit ridges without --3d): neither the geometry's Z
     * nor -zfield, -z_increase, -z_multiply is read; every point gets
     * z = 0, a 2-column XYZ file is read, a NaN or missing Z keeps its point */
    GK_Z_NOT_READ = 2
};

/* One input layer = one output band. */
typedef struct {
    char *name; /* layer name (or "SQL") */
    gk_points *pts;
    size_t n_features;   /* features read */
    size_t n_skipped_z;  /* skipped: null/unset -zfield, NaN/inf Z or X/Y */
    size_t n_clipped;    /* vertices outside -spat / -clipsrc */
    const char *read_by; /* how: "sqlite" (read_gpkg.c), "arrow", "features" or "xyz" */
} gk_layer_points;

typedef struct {
    int n_layers;
    gk_layer_points *layers;
    char *srs_wkt; /* SRS of the first layer that has one (incl. -sql); NULL if none */
} gk_source_points;

/* Reads every requested layer. Errors (missing file, unknown layer or field,
 * bad WHERE/SQL, bad clip source, a layer without geometry or with no usable
 * point, Z needed but the geometries are 2-D and no -zfield is given, a
 * -zfield value that is text and not a number) set a message naming the
 * input and return non-zero; nothing is left allocated in *out then.
 *
 * A source read by GDAL's CSV driver with no geometry of its own and none of
 * the open options that say where it is (X_POSSIBLE_NAMES, ...) takes X and
 * Y from the columns QGIS's delimited-text import would pick (x/y, lon/lat,
 * easting/northing, ...: csv_xy() in read_points.c). Z is never guessed. */
int gk_read_points(gk_context *ctx, const gk_read_options *ro, gk_source_points *out);
void gk_source_points_free(gk_source_points *sp);

/* What is known of the points before reading them, without a scan: the
 * feature count (the largest of the layers to read) and the bounding box of
 * them all, where every layer keeps both (GeoPackage, Shapefile, FlatGeobuf,
 * ...). 0 when known, -1 otherwise (-sql, XYZ text, CSV, an error: the read
 * reports those). -where, -spat and -clipsrc are ignored: an upper bound. */
int gk_peek_points(const gk_read_options *ro, double *n_features, double bbox[4]);

/* src is read by gridkit's own XYZ reader (-oo FORMAT=XYZ, or a name
 * ending in .xyz), not through GDAL. */
int gk_source_is_xyz(const char *src, char **open_options);

#endif
