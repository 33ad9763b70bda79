/* SPDX-License-Identifier: MIT */
/* test_write_raster_edges.c - the writer at its edges (part of
 * test_write_raster): specs and windows refused, descriptions that say
 * nothing, GDAL refusing to create, names already taken, BigTIFF past
 * 2 GiB, rows too wide to stage (GDAL's cache, as they come), bands and
 * rows never written; and replace_output.c's steps in the cases the
 * writer rarely meets. */
#define _XOPEN_SOURCE 700 /* link, symlink, seteuid, lchown */
#include "test_write_raster.h"

#include "io/replace_output.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal.h>
#include <ogr_srs_api.h>

/* The writer registers GDAL's drivers itself when its caller has not
 * (called before GDALAllRegister). */
void test_registers_drivers(gk_context *ctx)
{
    const char *dst = path("registered.tif");
    gk_raster_spec s = base_spec(dst, 4, 3);
    gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
    CHECKF(w, "open with no driver registered: %s", gk_errmsg(ctx));
    if (w) {
        CHECKF(fill(w, 4, 3, 1, ramp) == GK_OK, "%s", gk_errmsg(ctx));
        CHECKF(gk_raster_writer_commit(w) == GK_OK, "%s", gk_errmsg(ctx));
    }
    GDALDatasetH ds = GDALOpen(dst, GA_ReadOnly);
    CHECKF(ds && !strcmp(GDALGetDriverShortName(GDALGetDatasetDriver(ds)), "GTiff"),
           "%s is no GTiff", dst);
    if (ds)
        GDALClose(ds);
}

/* ---- refused before any file ------------------------------------------------ */

void test_spec_checks(gk_context *ctx)
{
    CHECK(gk_raster_writer_open(ctx, NULL) == NULL);
    CHECKF(strstr(gk_errmsg(ctx), "no output file name"), "NULL spec: '%s'", gk_errmsg(ctx));
    gk_raster_spec s = base_spec(NULL, 4, 4);
    gk_error_clear(ctx);
    CHECK(gk_raster_writer_open(ctx, &s) == NULL);
    CHECKF(strstr(gk_errmsg(ctx), "no output file name"), "NULL dst: '%s'", gk_errmsg(ctx));
    s.dst = "";
    gk_error_clear(ctx);
    CHECK(gk_raster_writer_open(ctx, &s) == NULL);
    CHECKF(strstr(gk_errmsg(ctx), "no output file name"), "empty dst: '%s'", gk_errmsg(ctx));

    const char *dst = path("size.tif");
    const struct {
        int nx, ny, bands;
        const char *want;
    } c[] = {{0, 4, 1, "invalid output size 0 x 4 x 1 bands"},
             {4, -1, 1, "invalid output size 4 x -1 x 1 bands"},
             {4, 4, 0, "invalid output size 4 x 4 x 0 bands"},
             {1, 1, 65536, "too large for GDAL"}}; /* GDAL's band count limit */
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        s = base_spec(dst, c[i].nx, c[i].ny);
        s.bands = c[i].bands;
        s.type = "Byte";
        gk_error_clear(ctx);
        gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
        CHECKF(!w && strstr(gk_errmsg(ctx), c[i].want) && strstr(gk_errmsg(ctx), "size.tif"),
               "case %zu: '%s'", i, gk_errmsg(ctx));
        gk_raster_writer_abort(w);
    }
    CHECK(!exists(dst));
    check_no_temporaries("spec checks");
}

/* Every bound of a window, and no values, is refused by both entries with
 * the window's words; nothing refused reaches the file. Band tags for a
 * band the raster has not fail. Calls on no writer are harmless. */
void test_window_checks(gk_context *ctx)
{
    const int nx = 10, ny = 8;
    CHECK(gk_raster_writer_write(NULL, 1, 0, 0, 1, 1, NULL) == GK_ERR_ARG);
    CHECK(gk_raster_writer_write_wire(NULL, 1, 0, 0, 1, 1, NULL) == GK_ERR_ARG);
    CHECK(gk_raster_writer_wire_type(NULL) == GDT_Float64);
    CHECK(!gk_raster_writer_takes_float32(NULL));
    CHECK(gk_raster_writer_io_seconds(NULL) == 0.0);
    CHECK(gk_raster_writer_commit(NULL) == GK_ERR_ARG);
    for (int direct = 1; direct >= 0; direct--) {
        const char *dst = path("windows.tif");
        gk_raster_spec s = base_spec(dst, nx, ny);
        s.type = "Float32";
        s.bands = 2;
        char *pixel[] = {"INTERLEAVE=PIXEL", NULL}; /* staged as doubles, not direct */
        s.creation_options = direct ? NULL : pixel;
        gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
        CHECKF(w, "open: %s", gk_errmsg(ctx));
        if (!w)
            continue;
        CHECK(gk_raster_writer_wire_type(w) == (direct ? GDT_Float32 : GDT_Float64));
        double junk[100];
        for (int i = 0; i < 100; i++)
            junk[i] = 99;
        const struct {
            int band, x0, y0, wd, ht;
        } bad[] = {{0, 0, 0, 1, 1}, {3, 0, 0, 1, 1}, {1, -1, 0, 1, 1}, {1, 0, -1, 1, 1},
                   {1, 0, 0, 0, 1}, {1, 0, 0, 1, 0}, {1, 0, 0, 11, 1}, {1, 5, 0, 6, 1},
                   {1, 0, 0, 1, 9}, {1, 0, 4, 1, 5}, {1, 0, 0, 1, 1}};
        const int n = (int)(sizeof bad / sizeof *bad);
        for (int i = 0; i < n; i++) {
            const double *v = i == n - 1 ? NULL : junk; /* the last: no values */
            for (int wire = 0; wire <= 1; wire++) {
                gk_error_clear(ctx);
                int rc = wire ? gk_raster_writer_write_wire(w, bad[i].band, bad[i].x0, bad[i].y0,
                                                            bad[i].wd, bad[i].ht, v)
                              : gk_raster_writer_write(w, bad[i].band, bad[i].x0, bad[i].y0,
                                                       bad[i].wd, bad[i].ht, v);
                CHECKF(rc == GK_ERR_ARG && strstr(gk_errmsg(ctx), "invalid window") &&
                           strstr(gk_errmsg(ctx), "of 10x8, 2 bands"),
                       "direct %d case %d wire %d: %d '%s'", direct, i, wire, rc, gk_errmsg(ctx));
            }
        }
        gk_error_clear(ctx);
        CPLPushErrorHandler(CPLQuietErrorHandler);
        int rc = gk_raster_writer_set_nodata(w, 3, -1);
        CHECKF(rc == GK_ERR_IO && strstr(gk_errmsg(ctx), "cannot set nodata -1 on band 3"),
               "nodata band 3: '%s'", gk_errmsg(ctx));
        rc = gk_raster_writer_set_band_metadata(w, 3, "KEY", "v");
        CHECKF(rc == GK_ERR_IO && strstr(gk_errmsg(ctx), "cannot set KEY on band 3"),
               "metadata band 3: '%s'", gk_errmsg(ctx));
        CPLPopErrorHandler();
        CHECK(gk_raster_writer_set_band_metadata(w, 2, "KEY", "v") == GK_OK);
        CHECKF(fill(w, nx, ny, 2, ramp) == GK_OK, "%s", gk_errmsg(ctx));
        CHECKF(gk_raster_writer_commit(w) == GK_OK, "%s", gk_errmsg(ctx));
        GDALDatasetH ds = GDALOpen(dst, GA_ReadOnly);
        CHECK(ds != NULL);
        if (!ds)
            continue;
        int bad_px = 0;
        for (int b = 1; b <= 2; b++) {
            float px[10 * 8];
            CHECK(GDALRasterIO(GDALGetRasterBand(ds, b), GF_Read, 0, 0, nx, ny, px, nx, ny,
                               GDT_Float32, 0, 0) == CE_None);
            for (int i = 0; i < nx * ny; i++)
                bad_px += px[i] != (float)ramp(b, i % nx, i / nx);
        }
        CHECKF(bad_px == 0, "direct %d: %d pixels differ from the ramp", direct, bad_px);
        const char *k = GDALGetMetadataItem(GDALGetRasterBand(ds, 2), "KEY", NULL);
        CHECK(k && !strcmp(k, "v"));
        GDALClose(ds);
    }
    check_no_temporaries("window checks");
}

/* ---- descriptions ------------------------------------------------------------- */

/* An empty SRS is none; a band without a description keeps none; a
 * metadata entry that is no NAME=VALUE is skipped, the others kept. A
 * bad SRS is refused with GDAL's reason, and nothing stays. */
void test_describe_edges(gk_context *ctx)
{
    const char *dst = path("describe.tif");
    gk_raster_spec s = base_spec(dst, 3, 2);
    s.bands = 2;
    s.srs_wkt = "";
    const char *desc[] = {"first", NULL};
    char *md[] = {"NOT_A_PAIR", "K=V", NULL};
    s.band_descriptions = desc;
    s.metadata = md;
    gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
    CHECKF(w, "%s", gk_errmsg(ctx));
    if (w) {
        CHECKF(fill(w, 3, 2, 2, ramp) == GK_OK, "%s", gk_errmsg(ctx));
        CHECKF(gk_raster_writer_commit(w) == GK_OK, "%s", gk_errmsg(ctx));
    }
    GDALDatasetH ds = GDALOpen(dst, GA_ReadOnly);
    CHECK(ds != NULL);
    if (ds) {
        CHECK(GDALGetSpatialRef(ds) == NULL);
        CHECK(!strcmp(GDALGetDescription(GDALGetRasterBand(ds, 1)), "first"));
        CHECK(!strcmp(GDALGetDescription(GDALGetRasterBand(ds, 2)), ""));
        const char *k = GDALGetMetadataItem(ds, "K", NULL);
        CHECK(k && !strcmp(k, "V"));
        CHECK(GDALGetMetadataItem(ds, "NOT_A_PAIR", NULL) == NULL);
        GDALClose(ds);
    }

    const char *bad = path("badsrs.tif");
    s = base_spec(bad, 3, 2);
    s.srs_wkt = "+proj=nosuch";
    gk_error_clear(ctx);
    CPLPushErrorHandler(CPLQuietErrorHandler);
    w = gk_raster_writer_open(ctx, &s);
    CPLPopErrorHandler();
    CHECKF(!w && strstr(gk_errmsg(ctx), "invalid output SRS for ") &&
               strstr(gk_errmsg(ctx), "badsrs.tif"),
           "bad SRS: '%s'", gk_errmsg(ctx));
    gk_raster_writer_abort(w);
    CHECK(!exists(bad));
    check_no_temporaries("describe");
}

/* ---- GDAL refuses, names taken ----------------------------------------------- */

/* GDAL refusing to create (PHOTOMETRIC=YCBCR without JPEG): its reason,
 * nothing left. A temporary name already taken by something that is not a
 * file of ours (a folder): refused, that thing untouched; for a CreateCopy
 * driver the intermediate GTiff's name too, the claimed temporary then
 * given back. */
void test_create_refused(gk_context *ctx)
{
    const char *dst = path("ycbcr.tif");
    gk_raster_spec s = base_spec(dst, 8, 8);
    s.type = "Byte";
    char *co[] = {"PHOTOMETRIC=YCBCR", NULL};
    s.creation_options = co;
    gk_error_clear(ctx);
    CPLPushErrorHandler(CPLQuietErrorHandler);
    gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
    CPLPopErrorHandler();
    CHECKF(!w && strstr(gk_errmsg(ctx), "cannot create ") && strstr(gk_errmsg(ctx), "ycbcr.tif") &&
               strstr(gk_errmsg(ctx), "YCBCR"),
           "YCBCR: '%s'", gk_errmsg(ctx));
    gk_raster_writer_abort(w);
    CHECK(!exists(dst));
    check_no_temporaries("create refused");

    for (int copy = 0; copy <= 1; copy++) {
        char taken_dst[1200];
        snprintf(taken_dst, sizeof taken_dst, "%s", path(copy ? "taken.png" : "taken.tif"));
        char *taken = copy ? gk_output_temp_name(taken_dst, "-src", "tif")
                           : gk_output_temp_name(taken_dst, "", NULL);
        CHECK(taken && mkdir(taken, 0755) == 0);
        s = base_spec(taken_dst, 8, 8);
        s.type = "Byte";
        gk_error_clear(ctx);
        w = gk_raster_writer_open(ctx, &s);
        CHECKF(!w && strstr(gk_errmsg(ctx), "cannot create ") && taken &&
                   strstr(gk_errmsg(ctx), taken),
               "copy %d: '%s'", copy, gk_errmsg(ctx));
        gk_raster_writer_abort(w);
        struct stat st;
        CHECKF(taken && stat(taken, &st) == 0 && S_ISDIR(st.st_mode), "copy %d: folder gone", copy);
        CHECK(!exists(taken_dst));
        if (taken)
            rmdir(taken);
        free(taken);
    }
    check_no_temporaries("names taken");
}

/* A driver refusing the description, with its own words, before any
 * pixel: NITF without ICORDS has no room for the corners (GDAL fails
 * quietly, found after), NITF holds no Lambert projection, Idrisi no
 * rotation. NITF with ICORDS=N and UTM is fine. */
void test_describe_refused(gk_context *ctx)
{
    OGRSpatialReferenceH srs = OSRNewSpatialReference(NULL);
    char *lambert = NULL, *utm = NULL;
    OSRImportFromEPSG(srs, 2154);
    OSRExportToWkt(srs, &lambert);
    OSRImportFromEPSG(srs, 32631);
    OSRExportToWkt(srs, &utm);
    OSRDestroySpatialReference(srs);
    char *icords[] = {"ICORDS=N", NULL};
    const struct {
        const char *format, *name, *srs, *want;
        char **co;
        int rotated;
    } c[] = {{"NITF", "corners.ntf", NULL, "cannot describe ", NULL, 0},
             {"NITF", "lambert.ntf", lambert, "cannot set the SRS of ", NULL, 0},
             {"RST", "rotated.rst", NULL, "cannot set the geotransform of ", NULL, 1},
             {"NITF", "utm.ntf", utm, NULL, icords, 0}};
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        const char *dst = path(c[i].name);
        gk_raster_spec s = base_spec(dst, 4, 3);
        s.format = c[i].format;
        s.type = "Byte";
        s.srs_wkt = c[i].srs;
        s.creation_options = c[i].co;
        if (c[i].rotated)
            s.geotransform[2] = 5.0;
        gk_error_clear(ctx);
        CPLPushErrorHandler(CPLQuietErrorHandler);
        gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
        CPLPopErrorHandler();
        if (!c[i].want) {
            CHECKF(w, "%s: %s", c[i].name, gk_errmsg(ctx));
            CHECKF(w && fill(w, 4, 3, 1, seven) == GK_OK && gk_raster_writer_commit(w) == GK_OK,
                   "%s: %s", c[i].name, gk_errmsg(ctx));
            GDALDatasetH ds = GDALOpen(dst, GA_ReadOnly);
            unsigned char v = 0;
            CHECK(ds &&
                  GDALRasterIO(GDALGetRasterBand(ds, 1), GF_Read, 3, 2, 1, 1, &v, 1, 1, GDT_Byte, 0,
                               0) == CE_None &&
                  v == 7);
            if (ds)
                GDALClose(ds);
            GDALDeleteDataset(GDALGetDriverByName(c[i].format), dst);
            continue;
        }
        CHECKF(!w && strstr(gk_errmsg(ctx), c[i].want) && strstr(gk_errmsg(ctx), c[i].name),
               "%s: '%s'", c[i].name, gk_errmsg(ctx));
        gk_raster_writer_abort(w);
        CHECKF(!exists(dst), "%s left", c[i].name);
    }
    CPLFree(lambert);
    CPLFree(utm);
    check_no_temporaries("describe refused");
}

/* ---- BigTIFF ---------------------------------------------------------------- */

/* TIFF's version (42, BigTIFF 43) at bytes 2-3, little-endian. */
static int tiff_version(const char *p)
{
    unsigned char h[4] = {0};
    FILE *f = fopen(p, "rb");
    if (!f)
        return -1;
    size_t n = fread(h, 1, 4, f);
    fclose(f);
    return n == 4 && h[0] == 'I' ? h[2] | h[3] << 8 : -1;
}

/* Compressed past 2 GiB (50000 x 50000 Byte, written sparse): BigTIFF, as
 * the compressed size cannot be known; the user's BIGTIFF=NO is kept. */
void test_bigtiff(gk_context *ctx)
{
    const int n = 50000;
    for (int user = 0; user <= 1; user++) {
        const char *dst = path(user ? "classic.tif" : "bigtiff.tif");
        gk_raster_spec s = base_spec(dst, n, n);
        s.type = "Byte";
        char *co[] = {"COMPRESS=DEFLATE", "SPARSE_OK=TRUE", user ? "BIGTIFF=NO" : NULL, NULL};
        s.creation_options = co;
        gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
        CHECKF(w, "%s: %s", dst, gk_errmsg(ctx));
        if (!w)
            continue;
        double v[16 * 16];
        for (int i = 0; i < 16 * 16; i++)
            v[i] = i % 251;
        CHECKF(gk_raster_writer_write(w, 1, 0, 0, 16, 16, v) == GK_OK, "%s", gk_errmsg(ctx));
        CHECKF(gk_raster_writer_commit(w) == GK_OK, "%s", gk_errmsg(ctx));
        CHECKF(tiff_version(dst) == (user ? 42 : 43), "%s: TIFF version %d", dst,
               tiff_version(dst));
        GDALDatasetH ds = GDALOpen(dst, GA_ReadOnly);
        unsigned char px[2] = {0, 0};
        CHECK(ds && GDALRasterIO(GDALGetRasterBand(ds, 1), GF_Read, 15, 15, 2, 1, px, 2, 1,
                                 GDT_Byte, 0, 0) == CE_None);
        CHECKF(px[0] == 255 % 251 && px[1] == 0, "%s: %d %d at 15,15", dst, px[0], px[1]);
        if (ds)
            GDALClose(ds);
        unlink(dst);
    }
    check_no_temporaries("bigtiff");
}

/* ---- rows too wide to stage ------------------------------------------------- */

static double stripes(int band, int x, int y) { return (x * 7 + y * 13 + band * 5) % 256; }

/* Pixel-interleaved strips of 2 rows wider than 4M pixels: a block row of
 * doubles is over 64 MiB, so windows go through GDAL's cache as they come.
 * Windows across strips, half strips, strips finished in another order
 * than begun, and one through the wire entry, read back exact. */
void test_unstaged_rows(gk_context *ctx)
{
    const int nx = 4194305, ny = 3, half = nx / 2;
    const char *dst = path("wide.tif");
    gk_raster_spec s = base_spec(dst, nx, ny);
    s.type = "Byte";
    s.bands = 2;
    char *co[] = {"INTERLEAVE=PIXEL", "BLOCKYSIZE=2", "COMPRESS=DEFLATE", "ZLEVEL=1", NULL};
    s.creation_options = co;
    gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
    CHECKF(w, "%s", gk_errmsg(ctx));
    if (!w)
        return;
    CHECK(gk_raster_writer_wire_type(w) == GDT_Float64);
    CHECK(!gk_raster_writer_takes_float32(w));
    /* x0, y0, wd, ht for each band: rows 0-2 left half (both strips
     * begun), rows 0-1 right half (strip 0 done, strip 1 still begun),
     * row 2 right half (strip 1 done) */
    const int win[3][4] = {{0, 0, half, 3}, {half, 0, nx - half, 2}, {half, 2, nx - half, 1}};
    double *buf = malloc(sizeof(double) * (size_t)(nx - half) * 3);
    int rc = buf ? GK_OK : GK_ERR_NOMEM;
    for (int b = 1; b <= 2 && rc == GK_OK; b++)
        for (int k = 0; k < 3 && rc == GK_OK; k++) {
            const int x0 = win[k][0], y0 = win[k][1], wd = win[k][2], ht = win[k][3];
            for (int j = 0; j < ht; j++)
                for (int i = 0; i < wd; i++)
                    buf[(size_t)j * wd + i] = stripes(b, x0 + i, y0 + j);
            rc = b == 2 && k == 1 ? gk_raster_writer_write_wire(w, b, x0, y0, wd, ht, buf)
                                  : gk_raster_writer_write(w, b, x0, y0, wd, ht, buf);
        }
    free(buf);
    CHECKF(rc == GK_OK, "write: %s", gk_errmsg(ctx));
    CHECKF(gk_raster_writer_commit(w) == GK_OK, "commit: %s", gk_errmsg(ctx));
    GDALDatasetH ds = GDALOpen(dst, GA_ReadOnly);
    unsigned char *row = malloc((size_t)nx);
    CHECK(ds && row);
    size_t bad = 0;
    for (int b = 1; ds && row && b <= 2; b++)
        for (int y = 0; y < ny; y++) {
            CHECK(GDALRasterIO(GDALGetRasterBand(ds, b), GF_Read, 0, y, nx, 1, row, nx, 1, GDT_Byte,
                               0, 0) == CE_None);
            for (int x = 0; x < nx; x++)
                bad += row[x] != (unsigned char)stripes(b, x, y);
        }
    CHECKF(bad == 0, "%zu pixels differ", bad);
    free(row);
    if (ds)
        GDALClose(ds);
    unlink(dst);
    check_no_temporaries("unstaged rows");
}

/* ---- bands and rows never written ------------------------------------------- */

/* Band 1 written in rows 0-15 only, band 2 in one window of rows 20-29,
 * rows 32-39 by no band, both ways rows are staged (a block per band, or
 * pixel-interleaved as doubles): what was written reads back, the rest 0. */
void test_unwritten_parts(gk_context *ctx)
{
    const int nx = 50, ny = 40;
    for (int direct = 1; direct >= 0; direct--) {
        const char *dst = path("parts.tif");
        gk_raster_spec s = base_spec(dst, nx, ny);
        s.type = "Int16";
        s.bands = 2;
        char *co[] = {direct ? "INTERLEAVE=BAND" : "INTERLEAVE=PIXEL", "BLOCKYSIZE=4", NULL};
        s.creation_options = co;
        gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
        CHECKF(w, "%s", gk_errmsg(ctx));
        if (!w)
            continue;
        double v[50 * 16];
        for (int i = 0; i < 50 * 16; i++)
            v[i] = stripes(1, i % nx, i / nx);
        CHECKF(gk_raster_writer_write(w, 1, 0, 0, nx, 16, v) == GK_OK, "%s", gk_errmsg(ctx));
        for (int i = 0; i < 20 * 10; i++)
            v[i] = stripes(2, 5 + i % 20, 20 + i / 20);
        CHECKF(gk_raster_writer_write(w, 2, 5, 20, 20, 10, v) == GK_OK, "%s", gk_errmsg(ctx));
        CHECKF(gk_raster_writer_commit(w) == GK_OK, "%s", gk_errmsg(ctx));
        double *got = read_all(dst, nx, ny, 2);
        CHECK(got != NULL);
        int bad = 0;
        for (int b = 1; got && b <= 2; b++)
            for (int y = 0; y < ny; y++)
                for (int x = 0; x < nx; x++) {
                    int in = b == 1 ? y < 16 : x >= 5 && x < 25 && y >= 20 && y < 30;
                    double want = in ? stripes(b, x, y) : 0.0;
                    bad += got[((size_t)(b - 1) * ny + y) * nx + x] != want;
                }
        CHECKF(bad == 0, "direct %d: %d pixels wrong", direct, bad);
        free(got);
    }
    check_no_temporaries("unwritten parts");
}

/* ---- replace_output.c: the steps' rarer cases ---------------------------------- */

/* Same file: by device and inode, only when both exist. A one-file output
 * replaces an existing file. An aside without old files is deleted alone.
 * The old dataset's side-car that is a link is not ours to delete; a TIFF
 * GDAL cannot open is replaced as a plain file. A file at our temporary
 * name that is someone else's (as root: owned by nobody) is not taken. A
 * temporary gone already still loses its .aux.xml. */
void test_replace_edges(gk_context *ctx)
{
    char a[1200], b[1200], c[1200];
    snprintf(a, sizeof a, "%s", path("same_a.txt"));
    snprintf(b, sizeof b, "%s", path("same_b.txt"));
    snprintf(c, sizeof c, "%s", path("same_c.txt"));
    unlink(b);
    unlink(c);
    write_text(a, "a");
    CHECK(!gk_output_same_file(a, b)); /* b missing */
    CHECK(!gk_output_same_file(b, a));
    CHECK(link(a, b) == 0 && gk_output_same_file(a, b));
    write_text(c, "a");
    CHECK(!gk_output_same_file(a, c));           /* same bytes, another file */
    CHECK(!gk_output_same_file(a, "/dev/null")); /* another device */

    /* a one-file output over an existing one */
    char *tmp = gk_output_temp_name(c, "", NULL);
    write_text(tmp, "new");
    gk_error_clear(ctx);
    CHECKF(gk_output_commit_file(ctx, "table", tmp, c) == GK_OK, "%s", gk_errmsg(ctx));
    size_t n = 0;
    char *got = read_bytes(c, &n);
    CHECK(got && n == 3 && !memcmp(got, "new", 3) && !exists(tmp));
    free(got);
    free(tmp);

    /* an aside, and no old files listed: the aside goes, dst stays */
    char *aside = gk_output_temp_name(a, "-old", NULL);
    write_text(aside, "old");
    gk_output_drop_old(a, aside, NULL, NULL);
    CHECK(!exists(aside) && exists(a));
    free(aside);
    unlink(a);
    unlink(b);
    unlink(c);

    /* the old dataset's .aux.xml is a link: kept, its target untouched */
    const char *dst = path("linked.tif");
    CHECK(make_raster(ctx, dst, 3, 3) == GK_OK);
    char target[1200], aux[1300];
    const char *pam = "<PAMDataset><Metadata><MDI key=\"X\">1</MDI></Metadata></PAMDataset>\n";
    snprintf(target, sizeof target, "%s", path("elsewhere.xml"));
    snprintf(aux, sizeof aux, "%s.aux.xml", dst);
    write_text(target, pam);
    unlink(aux);
    CHECK(symlink(target, aux) == 0);
    CHECKF(make_raster(ctx, dst, 4, 4) == GK_OK, "%s", gk_errmsg(ctx));
    struct stat st;
    CHECKF(lstat(aux, &st) == 0 && S_ISLNK(st.st_mode), "the linked side-car was deleted");
    CHECK(lstat(target, &st) == 0 && st.st_size == (off_t)strlen(pam));
    unlink(aux);
    unlink(target);
    unlink(dst);

    /* a TIFF header GDAL knows, and nothing GDAL can open */
    dst = path("broken.tif");
    static const unsigned char head[] = {'I',  'I',  42,   0,
                                         0xff, 0xff, 0xff, 0x7f}; /* IFD past EOF */
    FILE *f = fopen(dst, "wb");
    CHECK(f && fwrite(head, 1, sizeof head, f) == sizeof head);
    if (f)
        fclose(f);
    CPLPushErrorHandler(CPLQuietErrorHandler);
    CHECK(GDALIdentifyDriver(dst, NULL) != NULL && GDALOpen(dst, GA_ReadOnly) == NULL);
    CPLPopErrorHandler();
    CHECKF(make_raster(ctx, dst, 2, 2) == GK_OK, "%s", gk_errmsg(ctx));
    GDALDatasetH ds = GDALOpen(dst, GA_ReadOnly);
    CHECK(ds && GDALGetRasterXSize(ds) == 2);
    if (ds)
        GDALClose(ds);
    unlink(dst);

    /* a regular file under our temporary name that is not ours: refused */
    if (geteuid() == 0) {
        snprintf(a, sizeof a, "%s", path("foreign.tif"));
        tmp = gk_output_temp_name(a, "", NULL);
        write_text(tmp, "someone's");
        CHECK(chown(tmp, 65534, 65534) == 0);
        gk_error_clear(ctx);
        CHECK(gk_output_claim(ctx, "output", a, tmp) == GK_ERR_IO);
        CHECKF(strstr(gk_errmsg(ctx), "not a file of gridkit's"), "%s", gk_errmsg(ctx));
        CHECK(stat(tmp, &st) == 0 && st.st_uid == 65534 && st.st_size == 9);
        unlink(tmp);
        free(tmp);
    }

    /* no disk note where no disk can be asked: a virtual file, a folder gone */
    char note[600] = "x";
    CHECK(gk_output_disk_note("/vsimem/out.tif", note, sizeof note) == note && !*note);
    strcpy(note, "x");
    CHECK(!*gk_output_disk_note(path("no/such/dir/out.tif"), note, sizeof note));

    /* a temporary already gone: its side-car still goes */
    snprintf(a, sizeof a, "%s", path("gone.gridkit-tmp-1.tif"));
    snprintf(aux, sizeof aux, "%s.aux.xml", a);
    write_text(aux, "<PAMDataset></PAMDataset>\n");
    gk_output_delete_quietly(GDALGetDriverByName("GTiff"), a);
    CHECK(!exists(aux));
    check_no_temporaries("replace edges");
}
