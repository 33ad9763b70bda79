/* SPDX-License-Identifier: MIT */
/*
 * write_raster.c - rasters out through GDAL, safely (see write_raster.h).
 *
 * Life of an output: checks (driver, type, inputs, directory, disk) -> create
 * "<dst minus ext>.gridkit-tmp-<pid><.ext>" (or an intermediate GTiff for
 * CreateCopy-only drivers) -> tiles via GDALRasterIO -> close, check errors,
 * old dst aside, rename in, delete the old files. Tiles are staged in whole
 * block rows, and block rows reach the file strictly in order (row by row,
 * band by band within a row) whatever order the tiles come in: a GeoTIFF's
 * bytes depend on the order its blocks are written, and tiles finish in an
 * order that depends on threads, devices and MPI ranks. Memory stays about
 * the rows in flight, a row of tiles or two, whatever the grid size.
 * The driver and pixel type are chosen in raster_format.c.
 */
/* faccessat() and statvfs() are POSIX; GDAL's VSIStatBufL is a struct stat64 */
#define _XOPEN_SOURCE 700
#define _LARGEFILE64_SOURCE 1
#include "io/write_raster.h"
#include "io/raster_format.h"
#include "io/cancel_cleanup.h"
#include "io/output_check.h"
#include "io/replace_output.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal.h>
#include <ogr_srs_api.h>

#define GK_GIB (1024.0 * 1024.0 * 1024.0)
#define GK_ROW_OF_TILES_MAX (64.0 * 1024.0 * 1024.0)

struct gk_raster_writer {
    gk_context *ctx;
    GDALDriverH driver;      /* final driver */
    GDALDatasetH ds;         /* what the tiles go into: tmp, or mid for CreateCopy */
    int copy;                /* 1: driver has only CreateCopy */
    const gk_inputs *inputs; /* the caller's, what no output file may be */
    char *dst;               /* user's destination */
    char *tmp;               /* temporary name of the final file */
    char *mid;               /* intermediate GTiff (copy only) */
    char **copy_options;     /* creation options for CreateCopy */
    int nx, ny, bands;
    int block_w, block_h, block_rows;
    int64_t *written; /* bands x block_rows: pixels written per block row */
    int *partial;     /* per band: block rows started but not finished */
    /* Direct writing (a GTiff whose blocks each hold one band): tiles are
     * converted into a row of whole blocks, written with GDALWriteBlock when
     * its turn comes. Half the time of GDALRasterIO through the block cache
     * (64 MB: 0.03 against 0.055 s), whose blocks are allocated, copied and
     * flushed again for every row. Otherwise (pixel-interleaved bands, other
     * drivers) rows are staged as doubles, row-major, and go through
     * GDALRasterIO and a flush of the dataset in their turn. */
    int direct;
    int staged; /* rows staged and written in order (direct, or as doubles) */
    GDALDataType type;
    int tsize;                /* bytes per pixel of type */
    int nbx;                  /* blocks across */
    size_t row_bytes;         /* one staged block row: nbx blocks, one after another */
    unsigned char **stage;    /* bands x block_rows: staged rows, NULL when none */
    int next_row;             /* the next block row to reach the file (all bands) */
    unsigned char **row_bufs; /* bands: the row being written (under io) */
    unsigned char **spare;    /* written rows' buffers, for the next rows */
    int n_spare, cap_spare;
    pthread_mutex_t lock; /* stage, written, spare, next_row (staged) */
    pthread_mutex_t io;   /* the dataset and ctx's message, for writers at once */
    double io_s;          /* seconds in GDAL's writing calls */
};

static const char *gdal_msg(void)
{
    const char *m = CPLGetLastErrorMsg();
    return m && *m ? m : "unknown GDAL error";
}

static int gdal_failed(void)
{
    return CPLGetLastErrorType() == CE_Failure || CPLGetLastErrorType() == CE_Fatal;
}

static void ensure_drivers(void)
{
    if (GDALGetDriverCount() == 0)
        GDALAllRegister();
}

/* ---- file-system checks ------------------------------------------------- */

void gk_format_bytes(double bytes, char *buf, size_t cap)
{
    /* the unit that keeps 1 to 1023 of it: "0.00 GiB" told nothing */
    static const char *unit[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    if (bytes < 1024) {
        snprintf(buf, cap, "%.0f bytes", bytes);
        return;
    }
    int u = 0;
    double v = bytes / 1024;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(buf, cap, "%.*f %s", v < 10 ? 2 : 1, v, unit[u]);
}

static char *dir_of(const char *name)
{
    const char *path = CPLGetPath(name);
    return CPLStrdup(*path ? path : ".");
}

/* *path: the file to write (output_check.h: dst, or a link's target). */
static int check_destination(gk_context *ctx, const gk_raster_spec *spec, double bytes,
                             int compressed, char **path)
{
    *path = gk_output_prepare(ctx, "output", spec->dst, spec->inputs);
    if (!*path)
        return gk_errno(ctx) ? gk_errno(ctx) : GK_ERR_ARG;

    struct stat st;
    char *dir = dir_of(*path);
    int rc = GK_OK;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        rc =
            gk_error(ctx, GK_ERR_IO, "output directory %s does not exist (for %s)", dir, spec->dst);
    } else if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0) {
        rc = gk_error(ctx, GK_ERR_IO, "output directory %s is not writable (for %s): %s", dir,
                      spec->dst, strerror(errno));
    } else if (!compressed) {
        struct statvfs vfs;
        if (statvfs(dir, &vfs) == 0) {
            double avail = (double)vfs.f_bavail * (double)vfs.f_frsize;
            if (bytes > avail) {
                char need[32], have[32];
                gk_format_bytes(bytes, need, sizeof need);
                gk_format_bytes(avail, have, sizeof have);
                rc = gk_error(ctx, GK_ERR_IO,
                              "output %s needs %s uncompressed, only %s free in %s (use "
                              "-co COMPRESS=... or another directory)",
                              spec->dst, need, have, dir);
            }
        }
    }
    CPLFree(dir);
    if (rc != GK_OK) {
        free(*path);
        *path = NULL;
    }
    return rc;
}

/* ---- open --------------------------------------------------------------- */

static void writer_free(gk_raster_writer *w)
{
    if (!w)
        return;
    gk_cancel_forget(w->tmp);
    gk_cancel_forget(w->mid);
    free(w->dst);
    free(w->tmp);
    free(w->mid);
    CSLDestroy(w->copy_options);
    free(w->written);
    free(w->partial);
    if (w->stage)
        for (size_t i = 0; i < (size_t)w->bands * w->block_rows; i++)
            free(w->stage[i]);
    free(w->stage);
    free(w->row_bufs);
    for (int i = 0; i < w->n_spare; i++)
        free(w->spare[i]);
    free(w->spare);
    pthread_mutex_destroy(&w->lock);
    pthread_mutex_destroy(&w->io);
    free(w);
}

/* A write that failed: GDAL's words, and where the disk is full, that
 * (a driver's own words then rarely say it). */
static int write_failed(gk_raster_writer *w)
{
    char disk[600];
    gk_output_disk_note(w->dst, disk, sizeof disk);
    return gk_error(w->ctx, GK_ERR_IO, "cannot write %s: %s%s%s", w->dst, *disk ? disk : gdal_msg(),
                    *disk ? " (GDAL: " : "", *disk ? CPLSPrintf("%s)", gdal_msg()) : "");
}

static int describe(gk_raster_writer *w, const gk_raster_spec *spec)
{
    gk_context *ctx = w->ctx;
    CPLErrorReset();
    if (GDALSetGeoTransform(w->ds, (double *)spec->geotransform) != CE_None)
        return gk_error(ctx, GK_ERR_IO, "cannot set the geotransform of %s: %s", spec->dst,
                        gdal_msg());
    if (spec->srs_wkt && *spec->srs_wkt) {
        OGRSpatialReferenceH srs = OSRNewSpatialReference(NULL);
        OSRSetAxisMappingStrategy(srs, OAMS_TRADITIONAL_GIS_ORDER);
        if (OSRSetFromUserInput(srs, spec->srs_wkt) != OGRERR_NONE) {
            OSRDestroySpatialReference(srs);
            return gk_error(ctx, GK_ERR_ARG, "invalid output SRS for %s: %s", spec->dst,
                            gdal_msg());
        }
        CPLErr e = GDALSetSpatialRef(w->ds, srs);
        OSRDestroySpatialReference(srs);
        if (e != CE_None)
            return gk_error(ctx, GK_ERR_IO, "cannot set the SRS of %s: %s", spec->dst, gdal_msg());
    }
    for (int b = 1; b <= spec->bands; b++) {
        GDALRasterBandH band = GDALGetRasterBand(w->ds, b);
        if (spec->set_nodata && GDALSetRasterNoDataValue(band, spec->nodata) != CE_None)
            return gk_error(ctx, GK_ERR_IO, "cannot set nodata %.15g on band %d of %s: %s",
                            spec->nodata, b, spec->dst, gdal_msg());
        if (spec->band_descriptions && spec->band_descriptions[b - 1])
            GDALSetDescription(band, spec->band_descriptions[b - 1]);
    }
    for (char **m = spec->metadata; m && *m; m++) {
        char *key = NULL;
        const char *value = CPLParseNameValue(*m, &key);
        if (key && value)
            GDALSetMetadataItem(w->ds, key, value, NULL);
        CPLFree(key);
    }
    if (gdal_failed())
        return gk_error(ctx, GK_ERR_IO, "cannot describe %s: %s", spec->dst, gdal_msg());
    return GK_OK;
}

gk_raster_writer *gk_raster_writer_open(gk_context *ctx, const gk_raster_spec *spec)
{
    if (!spec || !spec->dst || !*spec->dst) {
        gk_error(ctx, GK_ERR_ARG, "no output file name");
        return NULL;
    }
    if (spec->nx <= 0 || spec->ny <= 0 || spec->bands <= 0) {
        gk_error(ctx, GK_ERR_ARG, "invalid output size %d x %d x %d bands for %s", spec->nx,
                 spec->ny, spec->bands, spec->dst);
        return NULL;
    }
    ensure_drivers();
    /* an input first: the most important thing to say */
    if (gk_output_not_input(ctx, "output", spec->dst, spec->dst, spec->inputs))
        return NULL;

    GDALDriverH drv;
    GDALDataType type;
    if (gk_raster_format_choose(ctx, spec, &drv, &type) != GK_OK)
        return NULL;

    int tsize = GDALGetDataTypeSizeBytes(type);
    /* GDAL indexes a scanline of all bands, and block buffers, with int */
    if (spec->bands > 65535 || (double)spec->nx * spec->bands * tsize > INT_MAX) {
        gk_error(ctx, GK_ERR_ARG, "output %s is too large for GDAL: %d x %d x %d bands of %s",
                 spec->dst, spec->nx, spec->ny, spec->bands, GDALGetDataTypeName(type));
        return NULL;
    }
    double bytes = (double)spec->nx * spec->ny * spec->bands * tsize;
    int compressed = CSLFetchNameValue(spec->creation_options, "COMPRESS") != NULL;
    char *path;
    if (check_destination(ctx, spec, bytes, compressed, &path) != GK_OK)
        return NULL;
    gk_raster_spec resolved = *spec;
    resolved.dst = path;
    spec = &resolved;

    gk_raster_writer *w = calloc(1, sizeof *w);
    if (!w) {
        gk_error(ctx, GK_ERR_NOMEM, "out of memory opening %s", spec->dst);
        free(path);
        return NULL;
    }
    pthread_mutex_init(&w->lock, NULL);
    pthread_mutex_init(&w->io, NULL);
    w->ctx = ctx;
    w->inputs = spec->inputs;
    w->driver = drv;
    w->nx = spec->nx;
    w->ny = spec->ny;
    w->bands = spec->bands;
    w->copy = GDALGetMetadataItem(drv, GDAL_DCAP_CREATE, NULL) == NULL;
    w->dst = path;
    w->tmp = gk_output_temp_name(spec->dst, "", NULL);
    if (w->copy)
        w->mid = gk_output_temp_name(spec->dst, "-src", "tif");
    if (!w->tmp || (w->copy && !w->mid)) {
        gk_error(ctx, GK_ERR_NOMEM, "out of memory opening %s", spec->dst);
        writer_free(w);
        return NULL;
    }

    /* The dataset the tiles go into: the output itself, or a plain GTiff
     * that CreateCopy reads at commit. */
    GDALDriverH create_drv = w->copy ? GDALGetDriverByName("GTiff") : drv;
    char **co = w->copy ? NULL : CSLDuplicate(spec->creation_options);
    if (w->copy)
        w->copy_options = CSLDuplicate(spec->creation_options);
    if (create_drv && EQUAL(GDALGetDriverShortName(create_drv), "GTiff")) {
        if (!CSLFetchNameValue(co, "BIGTIFF") && bytes > 2.0 * GK_GIB)
            co = CSLSetNameValue(co, "BIGTIFF", "IF_SAFER");
        /* bands are written one after another: band interleave keeps each
         * pass to its own strips instead of rewriting pixel-interleaved ones */
        if (spec->bands > 1 && !CSLFetchNameValue(co, "INTERLEAVE"))
            co = CSLSetNameValue(co, "INTERLEAVE", "BAND");
    }
    const char *create_name = w->copy ? w->mid : w->tmp;
    /* claimed as new regular files first (replace_output.h); drivers other
     * than GTiff may refuse to create over an existing file, so theirs is
     * given back just before they create it (here, or at commit for
     * CreateCopy) */
    /* a cancelled run leaves no temporary that looks like a whole raster:
     * watched before they exist, so a signal the moment one is made removes it */
    gk_cancel_watch(w->tmp);
    gk_cancel_watch(w->mid);
    int claimed = gk_output_claim(ctx, "output", spec->dst, w->tmp) == GK_OK;
    if (!claimed || (w->mid && gk_output_claim(ctx, "output", spec->dst, w->mid) != GK_OK)) {
        if (claimed)
            unlink(w->tmp);
        CSLDestroy(co);
        writer_free(w); /* forgets them: an unclaimed name is not ours */
        return NULL;
    }
    if (!w->copy && !EQUAL(GDALGetDriverShortName(w->driver), "GTiff"))
        unlink(w->tmp);
    CPLErrorReset();
    w->ds = create_drv
                ? GDALCreate(create_drv, create_name, spec->nx, spec->ny, spec->bands, type, co)
                : NULL;
    CSLDestroy(co);
    if (!w->ds) {
        gk_error(ctx, GK_ERR_IO, "cannot create %s (as %s): %s", spec->dst, create_name,
                 create_drv ? gdal_msg() : "GTiff driver missing");
        gk_output_delete_quietly(create_drv, create_name);
        writer_free(w);
        return NULL;
    }
    if (w->copy || EQUAL(GDALGetDriverShortName(w->driver), "GTiff"))
        gk_output_settle(create_name); /* GTiff made it over our claim */
    if (describe(w, spec) != GK_OK) {
        gk_raster_writer_abort(w);
        return NULL;
    }

    GDALGetBlockSize(GDALGetRasterBand(w->ds, 1), &w->block_w, &w->block_h);
    if (w->block_w <= 0)
        w->block_w = w->nx;
    if (w->block_h <= 0)
        w->block_h = 1;
    w->block_rows = (w->ny + w->block_h - 1) / w->block_h;
    w->written = calloc((size_t)w->bands * w->block_rows, sizeof *w->written);
    w->partial = calloc((size_t)w->bands, sizeof *w->partial);
    /* direct: each block of a GTiff holds one band's pixels (one band, or
     * INTERLEAVE=BAND); a pixel-interleaved block would be read back and
     * merged for every band, which GDAL's cache does better */
    const char *il = GDALGetMetadataItem(w->ds, "INTERLEAVE", "IMAGE_STRUCTURE");
    w->type = type;
    w->tsize = tsize;
    w->nbx = (w->nx + w->block_w - 1) / w->block_w;
    w->row_bytes = (size_t)w->nbx * w->block_w * w->block_h * tsize;
    w->direct = EQUAL(GDALGetDriverShortName(create_drv), "GTiff") &&
                (w->bands == 1 || (il && EQUAL(il, "BAND"))) &&
                w->row_bytes <= (size_t)GK_ROW_OF_TILES_MAX &&
                CPLTestBool(CPLGetConfigOption("GRIDKIT_DIRECT_BLOCKS", "YES"));
    if (!w->direct) {
        /* staged as doubles; rows too large for that (over 64 MiB a band)
         * go through GDAL's cache as they come, in no fixed order */
        w->row_bytes = (size_t)w->nx * w->block_h * sizeof(double);
        w->staged = w->row_bytes <= (size_t)GK_ROW_OF_TILES_MAX;
    } else
        w->staged = 1;
    if (w->staged) {
        w->stage = calloc((size_t)w->bands * w->block_rows, sizeof *w->stage);
        w->row_bufs = calloc((size_t)w->bands, sizeof *w->row_bufs);
    }
    if (!w->written || !w->partial || (w->staged && (!w->stage || !w->row_bufs))) {
        gk_error(ctx, GK_ERR_NOMEM, "out of memory opening %s", spec->dst);
        gk_raster_writer_abort(w);
        return NULL;
    }
    return w;
}

/* ---- tiles -------------------------------------------------------------- */

void gk_raster_writer_tile_size(const gk_raster_writer *w, int *tile_w, int *tile_h)
{
    int bw = w->block_w, bh = w->block_h;
    int tw, th;
    if (bw >= w->nx) {
        /* strips: 256 wide, whole strips high, a row of tiles <= ~64 MiB */
        tw = w->nx < 256 ? w->nx : 256;
        int k = (256 + bh / 2) / bh;
        if (k < 1)
            k = 1;
        while (k > 1 && (double)w->nx * k * bh * 8.0 > GK_ROW_OF_TILES_MAX)
            k--;
        th = k * bh;
    } else {
        /* tiles: the block; tiny blocks (< 64) grow to about 256 so that
         * per-tile overhead stays small */
        int kx = bw < 64 ? (256 + bw / 2) / bw : 1;
        int ky = bh < 64 ? (256 + bh / 2) / bh : 1;
        tw = (kx < 1 ? 1 : kx) * bw;
        th = (ky < 1 ? 1 : ky) * bh;
    }
    if (tw > w->nx)
        tw = w->nx;
    if (th > w->ny)
        th = w->ny;
    *tile_w = tw < 1 ? 1 : tw;
    *tile_h = th < 1 ? 1 : th;
}

/* Counts pixels per block row; when no block row of the band is left half
 * written, the complete ones leave GDAL's cache (FlushCache drops them), so
 * the cache never holds more than the block rows being filled. */
static int account(gk_raster_writer *w, int band, int y0, int wd, int ht)
{
    int64_t *cnt = w->written + (size_t)(band - 1) * w->block_rows;
    int completed = 0;
    for (int r = y0 / w->block_h; r < w->block_rows && r * w->block_h < y0 + ht; r++) {
        int r0 = r * w->block_h, r1 = r0 + w->block_h;
        if (r1 > w->ny)
            r1 = w->ny;
        int a = r0 > y0 ? r0 : y0, b = r1 < y0 + ht ? r1 : y0 + ht;
        int64_t full = (int64_t)w->nx * (r1 - r0);
        int was_partial = cnt[r] > 0 && cnt[r] < full;
        cnt[r] += (int64_t)wd * (b - a);
        int now_partial = cnt[r] > 0 && cnt[r] < full;
        w->partial[band - 1] += now_partial - was_partial;
        if (!now_partial)
            completed = 1;
    }
    if (completed && w->partial[band - 1] == 0) {
        CPLErrorReset();
        if (GDALFlushRasterCache(GDALGetRasterBand(w->ds, band)) != CE_None || gdal_failed())
            return write_failed(w);
    }
    return GK_OK;
}

/* ---- staged rows, written in order ---------------------------------------- */

/* Threads write disjoint windows at once: w->lock guards the staged rows'
 * table, their counts, next_row and the spare buffers; w->io the dataset
 * (GDAL's calls) and w->ctx's message. Converting a tile, the bulk of the
 * work, takes neither. */

static void give_row(gk_raster_writer *w, unsigned char *b)
{
    if (!b)
        return;
    if (w->n_spare == w->cap_spare) {
        int cap = w->cap_spare ? 2 * w->cap_spare : 64;
        unsigned char **s = realloc(w->spare, (size_t)cap * sizeof *s);
        if (!s) {
            free(b);
            return;
        }
        w->spare = s;
        w->cap_spare = cap;
    }
    w->spare[w->n_spare++] = b;
}

/* Buffers for the block rows r0..r1 of a band that have none yet: zeroed,
 * so that pixels outside the raster (edge blocks) and any never written
 * read 0, as in GDAL's own new blocks; not rows f0..f1, which the caller
 * fills whole. Zeroed outside the lock, installed under it (another thread
 * may have installed one meanwhile). */
static int stage_rows(gk_raster_writer *w, unsigned char **stage, int r0, int r1, int f0, int f1)
{
    enum { BATCH = 64 };
    unsigned char *got[BATCH];
    for (int r = r0; r <= r1;) {
        int want = 0, k = 0, whole = 1;
        pthread_mutex_lock(&w->lock);
        for (int q = r; q <= r1 && want < BATCH; q++)
            if (stage[q] == NULL) {
                want++;
                whole &= q >= f0 && q <= f1;
            }
        while (k < want && w->n_spare > 0)
            got[k++] = w->spare[--w->n_spare];
        pthread_mutex_unlock(&w->lock);
        for (int i = 0; i < want; i++) {
            if (i < k) {
                if (!whole)
                    memset(got[i], 0, w->row_bytes);
            } else if (!(got[i] = calloc(1, w->row_bytes))) {
                pthread_mutex_lock(&w->lock);
                for (int j = 0; j < i; j++)
                    give_row(w, got[j]);
                pthread_mutex_unlock(&w->lock);
                return GK_ERR_NOMEM;
            }
        }
        int used = 0, q = r;
        pthread_mutex_lock(&w->lock);
        for (; q <= r1 && used < want; q++)
            if (!stage[q])
                stage[q] = got[used++];
        for (int i = used; i < want; i++)
            give_row(w, got[i]);
        pthread_mutex_unlock(&w->lock);
        r = want ? q : r1 + 1;
    }
    return GK_OK;
}

/* Block row r of every band to the file (bufs[b]: band b+1's staged row, or
 * NULL to leave that band's row unwritten). Called under w->io. */
static int write_row(gk_raster_writer *w, int r, unsigned char **bufs)
{
    CPLErrorReset();
    for (int b = 0; b < w->bands; b++) {
        if (!bufs[b])
            continue;
        GDALRasterBandH h = GDALGetRasterBand(w->ds, b + 1);
        if (w->direct) {
            size_t block_bytes = (size_t)w->block_w * w->block_h * w->tsize;
            for (int bx = 0; bx < w->nbx; bx++)
                if (GDALWriteBlock(h, bx, r, bufs[b] + bx * block_bytes) != CE_None ||
                    gdal_failed())
                    return write_failed(w);
        } else {
            int y0 = r * w->block_h, ht = y0 + w->block_h > w->ny ? w->ny - y0 : w->block_h;
            if (GDALRasterIO(h, GF_Write, 0, y0, w->nx, ht, bufs[b], w->nx, ht, GDT_Float64, 0,
                             0) != CE_None ||
                gdal_failed())
                return write_failed(w);
        }
    }
    /* through GDAL's cache: out now, every band's share of a pixel-interleaved
     * block at once, so the blocks reach the file in this row's turn */
    for (int b = 0; !w->direct && b < w->bands; b++)
        if (GDALFlushRasterCache(GDALGetRasterBand(w->ds, b + 1)) != CE_None || gdal_failed())
            return write_failed(w);
    return GK_OK;
}

/* Writes the block rows that are complete in every band and next in turn.
 * The claim and the writing both happen under w->io, so rows reach the
 * file in order whichever thread finished them. */
static int write_ready(gk_raster_writer *w)
{
    int rc = GK_OK;
    pthread_mutex_lock(&w->io);
    double t0 = omp_get_wtime();
    while (rc == GK_OK) {
        pthread_mutex_lock(&w->lock);
        int r = w->next_row, ready = r < w->block_rows;
        int full_h = ready && (r + 1) * w->block_h > w->ny ? w->ny - r * w->block_h : w->block_h;
        for (int b = 0; ready && b < w->bands; b++)
            ready = w->written[(size_t)b * w->block_rows + r] == (int64_t)w->nx * full_h;
        for (int b = 0; ready && b < w->bands; b++) {
            unsigned char **slot = w->stage + (size_t)b * w->block_rows + r;
            w->row_bufs[b] = *slot;
            *slot = NULL;
        }
        if (ready)
            w->next_row++;
        pthread_mutex_unlock(&w->lock);
        if (!ready)
            break;
        rc = write_row(w, r, w->row_bufs);
        pthread_mutex_lock(&w->lock);
        for (int b = 0; b < w->bands; b++)
            give_row(w, w->row_bufs[b]);
        pthread_mutex_unlock(&w->lock);
    }
    w->io_s += omp_get_wtime() - t0;
    pthread_mutex_unlock(&w->io);
    return rc;
}

/* values: wd x ht of type vt (Float64, or the file's own type when direct) */
static int write_window(gk_raster_writer *w, int band, int x0, int y0, int wd, int ht,
                        const void *values, GDALDataType vt)
{
    const int bw = w->block_w, bh = w->block_h, ts = w->tsize;
    const int vs = GDALGetDataTypeSizeBytes(vt);
    unsigned char **stage = w->stage + (size_t)(band - 1) * w->block_rows;
    int64_t *cnt = w->written + (size_t)(band - 1) * w->block_rows;
    const int r0 = y0 / bh, r1 = (y0 + ht - 1) / bh;
    /* the block rows this window fills whole, padding included (none: a
     * window short of the full width, or blocks wider than the raster) */
    const int full_w =
        x0 == 0 && wd == w->nx && (!w->direct || (size_t)w->nbx * bw == (size_t)w->nx);
    const int f0 = full_w ? (y0 + bh - 1) / bh : 1, f1 = full_w ? (y0 + ht) / bh - 1 : 0;
    if (stage_rows(w, stage, r0, r1, f0, f1) != GK_OK) {
        pthread_mutex_lock(&w->io);
        int rc = gk_error(w->ctx, GK_ERR_NOMEM, "out of memory writing %s", w->dst);
        pthread_mutex_unlock(&w->io);
        return rc;
    }
    /* rows r0..r1 stay staged until this window is counted in them; a
     * large window (a strip) is copied by several threads */
    int nt = (size_t)wd * ht >= ((size_t)1 << 20) ? gk_context_threads(w->ctx) : 1;
    nt = nt < 1 ? 1 : nt > 8 ? 8 : nt;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int y = y0; y < y0 + ht; y++) {
        int r = y / bh, ry = y - r * bh;
        const unsigned char *src = (const unsigned char *)values + (size_t)(y - y0) * wd * vs;
        if (!w->direct) {
            memcpy(stage[r] + ((size_t)ry * w->nx + x0) * sizeof(double), src,
                   (size_t)wd * sizeof(double));
            continue;
        }
        for (int x = x0; x < x0 + wd;) {
            int bx = x / bw, xe = (bx + 1) * bw < x0 + wd ? (bx + 1) * bw : x0 + wd;
            unsigned char *dst =
                stage[r] + ((size_t)bx * bw * bh + (size_t)ry * bw + (x - bx * bw)) * ts;
            /* GDALRasterIO's own conversion: rounding, clamping (a copy when
             * the values are of the file's type already) */
            GDALCopyWords(src + (size_t)(x - x0) * vs, vt, vs, dst, w->type, ts, xe - x);
            x = xe;
        }
    }
    pthread_mutex_lock(&w->lock);
    int next = w->next_row, reached = 0;
    for (int r = r0; r <= r1; r++) {
        int a = r * bh > y0 ? r * bh : y0;
        int e = (r + 1) * bh < y0 + ht ? (r + 1) * bh : y0 + ht;
        int full_h = (r + 1) * bh < w->ny ? bh : w->ny - r * bh;
        cnt[r] += (int64_t)wd * (e - a);
        reached |= r == next && cnt[r] == (int64_t)w->nx * full_h;
    }
    pthread_mutex_unlock(&w->lock);
    /* only a window that completed the row next in turn can let rows out */
    return reached ? write_ready(w) : GK_OK;
}

/* At commit: rows never completed (a caller that skipped pixels) go out as
 * they are, in order. */
static int write_staged(gk_raster_writer *w)
{
    int rc = GK_OK;
    if (!w->staged)
        return rc;
    pthread_mutex_lock(&w->io);
    for (int r = w->next_row; r < w->block_rows && rc == GK_OK; r++) {
        int any = 0;
        for (int b = 0; b < w->bands; b++) {
            unsigned char **slot = w->stage + (size_t)b * w->block_rows + r;
            w->row_bufs[b] = *slot;
            *slot = NULL;
            any |= w->row_bufs[b] != NULL;
        }
        if (any)
            rc = write_row(w, r, w->row_bufs);
        for (int b = 0; b < w->bands; b++)
            give_row(w, w->row_bufs[b]);
    }
    w->next_row = w->block_rows;
    pthread_mutex_unlock(&w->io);
    return rc;
}

int gk_raster_writer_write(gk_raster_writer *w, int band, int x0, int y0, int wd, int ht,
                           const double *values)
{
    if (!w)
        return GK_ERR_ARG;
    if (band < 1 || band > w->bands || x0 < 0 || y0 < 0 || wd <= 0 || ht <= 0 || wd > w->nx - x0 ||
        ht > w->ny - y0 || !values) {
        pthread_mutex_lock(&w->io);
        int rc = gk_error(w->ctx, GK_ERR_ARG,
                          "invalid window %d,%d %dx%d (band %d) for %s of %dx%d, %d bands", x0, y0,
                          wd, ht, band, w->dst, w->nx, w->ny, w->bands);
        pthread_mutex_unlock(&w->io);
        return rc;
    }
    if (w->staged)
        return write_window(w, band, x0, y0, wd, ht, values, GDT_Float64);
    pthread_mutex_lock(&w->io);
    double t0 = omp_get_wtime();
    CPLErrorReset();
    CPLErr e = GDALRasterIO(GDALGetRasterBand(w->ds, band), GF_Write, x0, y0, wd, ht,
                            (void *)values, wd, ht, GDT_Float64, 0, 0);
    int rc = e != CE_None || gdal_failed() ? write_failed(w) : account(w, band, y0, wd, ht);
    w->io_s += omp_get_wtime() - t0;
    pthread_mutex_unlock(&w->io);
    return rc;
}

int gk_raster_writer_wire_type(const gk_raster_writer *w)
{
    return w && w->direct ? (int)w->type : (int)GDT_Float64;
}

/* gk_value_to_float32 against GDALCopyWords: the edges of the rule (the
 * overflow to infinity just past FLT_MAX, subnormals, ties) and ordinary
 * values; NaN only as NaN. */
static pthread_once_t f32_once = PTHREAD_ONCE_INIT;
static int f32_same;

static void f32_check(void)
{
    const double big = (double)FLT_MAX;
    double v[] = {0.0,
                  -0.0,
                  1.0,
                  -1.0,
                  0.1,
                  -2.5e-3,
                  1e30,
                  -1e-30,
                  6.02214076e23,
                  1.0000000596046448,
                  1.0000000596046449,
                  3.0000001192092896,
                  big,
                  nextafter(big, INFINITY),
                  big * (1.0 + 0x1p-25),
                  big * (1.0 + 0x1p-24),
                  1e39,
                  -big,
                  -nextafter(big, INFINITY),
                  -1e39,
                  (double)FLT_MIN,
                  (double)FLT_MIN * 0.5,
                  0x1p-149,
                  0x1p-150,
                  0x1.8p-150,
                  0x1p-151,
                  -0x1p-150,
                  1e-300,
                  4503599627370497.0,
                  INFINITY,
                  -INFINITY,
                  NAN};
    const int n = (int)(sizeof v / sizeof *v);
    float g[sizeof v / sizeof *v];
    GDALCopyWords(v, GDT_Float64, sizeof(double), g, GDT_Float32, sizeof(float), n);
    int same = 1;
    for (int k = 0; k < n; k++) {
        float m = gk_value_to_float32(v[k]);
        same &= isnan(m) ? isnan(g[k]) != 0 : memcmp(&m, &g[k], sizeof m) == 0;
    }
    f32_same = same;
}

int gk_float32_rule_holds(void)
{
    pthread_once(&f32_once, f32_check);
    return f32_same;
}

int gk_raster_writer_takes_float32(const gk_raster_writer *w)
{
    return w && w->direct && w->type == GDT_Float32 && gk_float32_rule_holds();
}

int gk_raster_writer_write_wire(gk_raster_writer *w, int band, int x0, int y0, int wd, int ht,
                                const void *values)
{
    if (!w || !w->direct)
        return gk_raster_writer_write(w, band, x0, y0, wd, ht, values);
    if (band < 1 || band > w->bands || x0 < 0 || y0 < 0 || wd <= 0 || ht <= 0 || wd > w->nx - x0 ||
        ht > w->ny - y0 || !values)
        return gk_raster_writer_write(w, band, x0, y0, wd, ht, NULL); /* its message */
    return write_window(w, band, x0, y0, wd, ht, values, w->type);
}

double gk_raster_writer_io_seconds(const gk_raster_writer *w) { return w ? w->io_s : 0.0; }

int gk_raster_writer_set_nodata(gk_raster_writer *w, int band, double nodata)
{
    pthread_mutex_lock(&w->io);
    CPLErrorReset();
    GDALRasterBandH b = GDALGetRasterBand(w->ds, band);
    int rc = GK_OK;
    if (!b || GDALSetRasterNoDataValue(b, nodata) != CE_None)
        rc = gk_error(w->ctx, GK_ERR_IO, "cannot set nodata %.17g on band %d of %s: %s", nodata,
                      band, w->dst, gdal_msg());
    pthread_mutex_unlock(&w->io);
    return rc;
}

int gk_raster_writer_set_band_metadata(gk_raster_writer *w, int band, const char *key,
                                       const char *value)
{
    pthread_mutex_lock(&w->io);
    CPLErrorReset();
    GDALRasterBandH b = GDALGetRasterBand(w->ds, band);
    int rc = GK_OK;
    if (!b || GDALSetMetadataItem(b, key, value, NULL) != CE_None)
        rc = gk_error(w->ctx, GK_ERR_IO, "cannot set %s on band %d of %s: %s", key, band, w->dst,
                      gdal_msg());
    pthread_mutex_unlock(&w->io);
    return rc;
}

/* ---- commit / abort ----------------------------------------------------- */

int gk_raster_writer_commit(gk_raster_writer *w)
{
    if (!w)
        return GK_ERR_ARG;
    gk_context *ctx = w->ctx;
    int rc = write_staged(w);
    if (rc != GK_OK) {
        gk_raster_writer_abort(w);
        return rc;
    }

    CPLErrorReset();
    if (w->copy) {
        GDALFlushCache(w->ds);
        GDALDatasetH out = NULL;
        if (!gdal_failed()) {
            unlink(w->tmp); /* claimed at open; the driver makes it anew */
            out = GDALCreateCopy(w->driver, w->tmp, w->ds, FALSE, w->copy_options, NULL, NULL);
        }
        if (!out || gdal_failed()) {
            rc = write_failed(w);
            if (out)
                GDALClose(out);
        } else {
            GDALClose(out);
            if (gdal_failed())
                rc = write_failed(w);
        }
        GDALClose(w->ds);
        w->ds = NULL;
        gk_output_delete_quietly(GDALGetDriverByName("GTiff"), w->mid);
    } else {
        GDALFlushCache(w->ds);
        if (!gdal_failed())
            GDALClose(w->ds);
        else {
            rc = write_failed(w);
            CPLPushErrorHandler(CPLQuietErrorHandler);
            GDALClose(w->ds);
            CPLPopErrorHandler();
        }
        w->ds = NULL;
        if (rc == GK_OK && gdal_failed())
            rc = write_failed(w);
    }
    if (rc != GK_OK) {
        gk_output_delete_quietly(w->driver, w->tmp);
        writer_free(w);
        return rc;
    }

    rc = gk_output_replace_dataset(ctx, w->driver, w->tmp, w->dst, w->inputs);
    if (rc != GK_OK)
        gk_output_delete_quietly(w->driver, w->tmp);
    writer_free(w);
    return rc;
}

void gk_raster_writer_abort(gk_raster_writer *w)
{
    if (!w)
        return;
    if (w->ds) {
        CPLPushErrorHandler(CPLQuietErrorHandler);
        GDALClose(w->ds);
        CPLPopErrorHandler();
        w->ds = NULL;
    }
    if (w->copy)
        gk_output_delete_quietly(GDALGetDriverByName("GTiff"), w->mid);
    gk_output_delete_quietly(w->driver, w->tmp);
    writer_free(w);
}
