/* SPDX-License-Identifier: MIT */
/*
 * write_raster.h - rasters out through GDAL, safely.
 *
 * The output is created under a temporary name next to the destination and
 * renamed (GDALRenameDataset, so side-car files move too) only when every
 * band is complete; on failure or cancel the temporary dataset is deleted, so
 * a half-written file that looks valid is never left behind, and an existing
 * destination is untouched until the new one is whole. Then the old file is
 * renamed aside (put back if the new one cannot take its name), the new one
 * renamed in, and only then are the old file and the old dataset's side-cars
 * that the new one lacks (overviews, .aux.xml) deleted. Drivers without
 * Create() (PNG, JPEG, ...) get a temporary GTiff and CreateCopy() at close.
 */
#ifndef GK_WRITE_RASTER_H
#define GK_WRITE_RASTER_H

#include "gridkit.h"
#include "io/input_files.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gk_raster_writer gk_raster_writer;

typedef struct {
    const char *dst;         /* destination name */
    const char *format;      /* -of; NULL: guessed from the extension, GTiff when none */
    const char *type;        /* -ot name (GDAL type name); NULL: Float64 */
    char **creation_options; /* -co, NULL-terminated (may be NULL) */
    int nx, ny, bands;
    double geotransform[6];
    const char *srs_wkt; /* NULL: none */
    int set_nodata;      /* set the band nodata flag */
    double nodata;
    const char *const *band_descriptions; /* bands entries or NULL */
    char **metadata;                      /* dataset metadata NAME=VALUE (may be NULL) */
    const gk_inputs *inputs;              /* what the output may not be (NULL: nothing) */
} gk_raster_spec;

/* A byte count in the unit that fits: "512 bytes", "1.50 KiB", "3.2 MiB". */
void gk_format_bytes(double bytes, char *buf, size_t cap);
/* Validates everything it can before any work (driver exists and can write,
 * type name, destination is not an input and is a regular file or none
 * (output_check.h), directory writable, enough disk for
 * uncompressed output) and creates the temporary dataset. */
gk_raster_writer *gk_raster_writer_open(gk_context *ctx, const gk_raster_spec *spec);
/* Preferred tile size: the output's block size, bounded to sane tiles. */
void gk_raster_writer_tile_size(const gk_raster_writer *w, int *tile_w, int *tile_h);
/* Writes a window of doubles (converted as GDALCopyWords does: round, clamp).
 * Threads may write at once, each its own windows (no pixel twice); where
 * the output allows (a GTiff, one band per block) they convert in parallel
 * and take turns only for the file. */
int gk_raster_writer_write(gk_raster_writer *w, int band, int x0, int y0, int wd, int ht,
                           const double *values);
/* Values already converted elsewhere (another process: MPI strips): the
 * GDAL type (GDALDataType) that gk_raster_writer_write_wire() takes, the
 * file's own where its blocks are staged as such, else Float64. Convert
 * with GDALCopyWords from doubles, as gk_raster_writer_write() does, and the
 * file is the same. */
int gk_raster_writer_wire_type(const gk_raster_writer *w);
int gk_raster_writer_write_wire(gk_raster_writer *w, int band, int x0, int y0, int wd, int ht,
                                const void *values);
/* Does gk_raster_writer_write_wire() take Float32 pixels converted by
 * gk_value_to_float32 (GK_VALUES_FLOAT32), with the bytes GDAL's own
 * conversion would give: the file's blocks staged as Float32, and the GDAL
 * in use converting as gridkit does (checked once on edge values)? */
int gk_raster_writer_takes_float32(const gk_raster_writer *w);
/* Does the GDAL in use convert doubles to Float32 as gk_value_to_float32
 * does (checked once)? */
int gk_float32_rule_holds(void);
/* Seconds spent so far in GDAL's writing calls (taken in turn). */
double gk_raster_writer_io_seconds(const gk_raster_writer *w);
/* Tags nodata on a band after its pixels were written (kriging learns only
 * while gridding that some nodes got nodata). */
int gk_raster_writer_set_nodata(gk_raster_writer *w, int band, double nodata);
/* A band's metadata item (the job as prepared: a bandwidth estimated from
 * the data, the cut-off and the bound of gauss). */
int gk_raster_writer_set_band_metadata(gk_raster_writer *w, int band, const char *key,
                                       const char *value);
/* Flushes, closes and renames into place. Frees w. */
int gk_raster_writer_commit(gk_raster_writer *w);
/* Deletes the temporary output. Frees w. Safe on NULL. */
void gk_raster_writer_abort(gk_raster_writer *w);

#ifdef __cplusplus
}
#endif

#endif
