/* SPDX-License-Identifier: MIT */
/*
 * test_write_lines.c - ridge lines out through OGR (driver/io/write_lines.c)
 * and the vector output under them (driver/io/write_vector.c): formats
 * beside GeoPackage (MapInfo's side files, DXF's fixed fields, a shapefile's
 * DBF date, CSV's geometry, PGDUMP refused), GeoPackage's dates, the layer
 * into a caller's dataset, bad SRS and layer names, existing outputs, and
 * what is never taken or deleted.
 *
 * usage: test_write_lines WORKDIR
 */
#define _XOPEN_SOURCE 700 /* mkdir, realpath */
#include "gk_check.h"

#include "io/input_files.h"
#include "io/write_lines.h"
#include "io/write_vector.h"

#include <dirent.h>
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
#include <ogr_api.h>
#include <ogr_srs_api.h>

static char workdir[1024];

static const char *path(const char *name)
{
    static char buf[4][1200];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", workdir, name);
    return buf[k];
}

static int exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0;
}

static void write_text(const char *p, const char *text)
{
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* No temporary of any writer may survive, except keep (NULL: none). */
static void check_no_temporaries(const char *where, const char *keep)
{
    DIR *d = opendir(workdir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        CHECKF(!strstr(e->d_name, ".gridkit-tmp-") || (keep && !strcmp(e->d_name, keep)),
               "%s left %s behind", where, e->d_name);
    if (d)
        closedir(d);
}

/* Two lines: an open one (0,0)-(3,4) of length 5, and a closed triangle
 * (perimeter 12); n_support as given. */
static double lx[6] = {0, 3, 10, 13, 10, 10}, ly[6] = {0, 4, 0, 0, 4, 0},
              lz[6] = {1, 2, 3, 4, 5, 3};
static size_t lstart[3] = {0, 2, 6};
static double llength[2] = {5, 12}, ldens[2] = {0.5, 0.25}, lwidth[2] = {1.5, 2.5};
static int lclosed[2] = {0, 1};

static gk_lines make_lines(uint64_t *n_support, int dim)
{
    gk_lines l;
    memset(&l, 0, sizeof l);
    l.dim = dim;
    l.n_lines = 2;
    l.start = lstart;
    l.x = lx, l.y = ly, l.z = dim == 3 ? lz : NULL;
    l.length = llength;
    l.n_support = n_support;
    l.closed = lclosed;
    l.mean_density = ldens;
    l.width = lwidth;
    return l;
}

static GDALDatasetH open_vector(const char *p)
{
    return GDALOpenEx(p, GDAL_OF_VECTOR | GDAL_OF_READONLY, NULL, NULL, NULL);
}

/* No SRS, or GeoPackage's "undefined" one: no authority code. */
static int no_srs(OGRLayerH lyr)
{
    OGRSpatialReferenceH s = OGR_L_GetSpatialRef(lyr);
    return !s || !OSRGetAuthorityCode(s, NULL);
}

/* ---- MapInfo: no Integer64, several files ---------------------------------- */

/* MapInfo has no 64-bit integers: n_support is Integer where every count
 * fits in 32 bits, else Real, exact to 2^53; the .tab's other files (.dat,
 * .map, .id) follow it to the destination's name. */
static void test_mapinfo(gk_context *ctx)
{
    const uint64_t big = 3000000000ull; /* > INT_MAX */
    for (int wide = 0; wide <= 1; wide++) {
        uint64_t sup[2] = {7, wide ? big : 9};
        gk_lines l = make_lines(sup, 2);
        const char *dst = path(wide ? "wide.tab" : "narrow.tab");
        gk_lines_writer *w = gk_lines_writer_open(ctx, dst, NULL, NULL);
        CHECKF(w && !strcmp(gk_lines_writer_driver(w), "MapInfo File"), "open %s: %s", dst,
               w ? gk_lines_writer_driver(w) : gk_errmsg(ctx));
        if (!w)
            continue;
        gk_lines_layer spec = {"lines", NULL, NULL, "curve"};
        CHECKF(gk_lines_writer_commit(w, &spec, &l) == GK_OK, "commit %s: %s", dst, gk_errmsg(ctx));
        static const char *side[] = {"dat", "map", "id"};
        for (int s = 0; s < 3; s++)
            CHECKF(exists(CPLResetExtension(dst, side[s])), "%s has no .%s", dst, side[s]);
        GDALDatasetH ds = open_vector(dst);
        OGRLayerH lyr = ds ? GDALDatasetGetLayer(ds, 0) : NULL;
        CHECKF(lyr && OGR_L_GetFeatureCount(lyr, TRUE) == 2, "%s: 2 features", dst);
        if (lyr) {
            OGRFeatureDefnH defn = OGR_L_GetLayerDefn(lyr);
            int k = OGR_FD_GetFieldIndex(defn, "n_support");
            /* 64-bit where the driver has it (MapInfo of newer GDALs), else
             * 32-bit, or a double past INT_MAX */
            const char *types = GDALGetMetadataItem(GDALGetDriverByName("MapInfo File"),
                                                    GDAL_DMD_CREATIONFIELDDATATYPES, NULL);
            OGRFieldType want = types && strstr(types, "Integer64") ? OFTInteger64
                                : wide                             ? OFTReal
                                                                   : OFTInteger;
            CHECKF(k >= 0 && OGR_Fld_GetType(OGR_FD_GetFieldDefn(defn, k)) == want,
                   "%s: n_support's type", dst);
            OGR_L_ResetReading(lyr);
            OGRFeatureH f;
            int i = 0;
            while ((f = OGR_L_GetNextFeature(lyr)) != NULL) {
                if (i < 2 && k >= 0)
                    CHECKF(OGR_F_GetFieldAsDouble(f, k) == (double)sup[i],
                           "%s line %d: n_support %.17g, want %llu", dst, i + 1,
                           OGR_F_GetFieldAsDouble(f, k), (unsigned long long)sup[i]);
                OGR_F_Destroy(f);
                i++;
            }
        }
        if (ds)
            GDALClose(ds);
    }
    check_no_temporaries("mapinfo", NULL);
}

/* ---- DXF: a format with fixed fields ----------------------------------------- */

/* DXF takes no fields of its own: an error naming the field and the
 * destination (never the temporary), and no file left. */
static void test_dxf(gk_context *ctx)
{
    uint64_t sup[2] = {3, 4};
    gk_lines l = make_lines(sup, 2);
    const char *dst = path("lines.dxf");
    gk_lines_writer *w = gk_lines_writer_open(ctx, dst, NULL, NULL);
    CHECKF(w, "open dxf: %s", gk_errmsg(ctx));
    if (!w)
        return;
    gk_lines_layer spec = {NULL, NULL, NULL, "curve"};
    gk_error_clear(ctx);
    CHECK(gk_lines_writer_commit(w, &spec, &l) == GK_ERR_IO);
    const char *m = gk_errmsg(ctx);
    CHECKF(strstr(m, "cannot create the field length") && strstr(m, "lines.dxf") &&
               !strstr(m, "gridkit-tmp"),
           "dxf: '%s'", m);
    CHECK(!exists(dst));
    check_no_temporaries("dxf", NULL);
}

/* ---- into a caller's dataset ------------------------------------------------ */

static OGRFeatureH feature_at(OGRLayerH lyr, int i)
{
    OGR_L_ResetReading(lyr);
    OGRFeatureH f = NULL;
    for (int k = 0; k <= i; k++) {
        if (f)
            OGR_F_Destroy(f);
        f = OGR_L_GetNextFeature(lyr);
    }
    return f;
}

/* gk_lines_to_layer (the plugin's path): the default layer name, 3-D
 * lines as LineStringZ with their z, every attribute as given, no method
 * as "", the SRS; then the same name again, and a bad SRS, refused with
 * GDAL's reason. A transaction of the caller's own holds the lines too. */
static void test_to_layer(gk_context *ctx)
{
    uint64_t sup[2] = {11, 12};
    gk_lines l = make_lines(sup, 3);
    GDALDatasetH ds = GDALCreate(GDALGetDriverByName("GPKG"), "/vsimem/wl_layer.gpkg", 0, 0, 0,
                                 GDT_Unknown, NULL);
    CHECK(ds != NULL);
    if (!ds)
        return;
    gk_lines_layer spec = {NULL, NULL, "EPSG:32631", NULL};
    CHECKF(gk_lines_to_layer(ctx, ds, &spec, &l) == GK_OK, "%s", gk_errmsg(ctx));
    OGRLayerH lyr = GDALDatasetGetLayerByName(ds, "ridges");
    CHECK(lyr != NULL);
    if (lyr) {
        CHECK(OGR_L_GetGeomType(lyr) == wkbLineString25D);
        OGRSpatialReferenceH want = OSRNewSpatialReference(NULL);
        OSRImportFromEPSG(want, 32631);
        OGRSpatialReferenceH got = OGR_L_GetSpatialRef(lyr);
        CHECKF(got && OSRIsSame(got, want), "the layer's SRS is not EPSG:32631");
        OSRDestroySpatialReference(want);
        OGRFeatureH f = feature_at(lyr, 1);
        CHECK(f != NULL);
        if (f) {
            OGRGeometryH g = OGR_F_GetGeometryRef(f);
            CHECKF(g && OGR_G_GetPointCount(g) == 4 && OGR_G_GetZ(g, 1) == 4.0,
                   "line 2: 4 vertices, z 4 at the second");
            CHECK(OGR_F_GetFieldAsDouble(f, OGR_F_GetFieldIndex(f, "length")) == 12.0);
            CHECK(OGR_F_GetFieldAsInteger64(f, OGR_F_GetFieldIndex(f, "n_support")) == 12);
            CHECK(OGR_F_GetFieldAsInteger(f, OGR_F_GetFieldIndex(f, "closed")) == 1);
            CHECK(OGR_F_GetFieldAsDouble(f, OGR_F_GetFieldIndex(f, "mean_density")) == 0.25);
            CHECK(OGR_F_GetFieldAsDouble(f, OGR_F_GetFieldIndex(f, "width")) == 2.5);
            int km = OGR_F_GetFieldIndex(f, "method");
            CHECKF(km >= 0 && OGR_F_IsFieldSetAndNotNull(f, km) &&
                       !strcmp(OGR_F_GetFieldAsString(f, km), ""),
                   "no method: the empty string");
            OGR_F_Destroy(f);
        }
    }
    /* the same layer name again, by default or given: GeoPackage refuses,
     * and says so */
    int rc = GK_OK;
    for (int named = 0; named <= 1; named++) {
        gk_lines_layer again = {named ? "ridges" : NULL, NULL, NULL, "curve"};
        gk_error_clear(ctx);
        CPLPushErrorHandler(CPLQuietErrorHandler);
        rc = gk_lines_to_layer(ctx, ds, &again, &l);
        CPLPopErrorHandler();
        CHECKF(rc == GK_ERR_IO && strstr(gk_errmsg(ctx), "cannot create the layer ridges: ") &&
                   strstr(gk_errmsg(ctx), "already exists"),
               "same name: %d '%s'", rc, gk_errmsg(ctx));
    }
    gk_lines_layer bad = {"other", NULL, "EPSG:999999999", "curve"};
    gk_error_clear(ctx);
    CPLPushErrorHandler(CPLQuietErrorHandler);
    rc = gk_lines_to_layer(ctx, ds, &bad, &l);
    CPLPopErrorHandler();
    CHECKF(rc == GK_ERR_ARG && strstr(gk_errmsg(ctx), "invalid output SRS: "), "bad SRS: %d '%s'",
           rc, gk_errmsg(ctx));
    CHECK(GDALDatasetGetLayerByName(ds, "other") == NULL);
    /* the caller's transaction: the lines go into it, and are there once
     * the caller commits */
    CHECK(GDALDatasetStartTransaction(ds, FALSE) == OGRERR_NONE);
    gk_lines_layer in_tr = {"in_tr", NULL, "", "curve"};
    CPLPushErrorHandler(CPLQuietErrorHandler);
    rc = gk_lines_to_layer(ctx, ds, &in_tr, &l);
    CPLPopErrorHandler();
    CHECKF(rc == GK_OK, "in a transaction: %s", gk_errmsg(ctx));
    CHECK(GDALDatasetCommitTransaction(ds) == OGRERR_NONE);
    GDALClose(ds);
    ds = open_vector("/vsimem/wl_layer.gpkg");
    lyr = ds ? GDALDatasetGetLayerByName(ds, "in_tr") : NULL;
    CHECKF(lyr && OGR_L_GetFeatureCount(lyr, TRUE) == 2 && no_srs(lyr), "in_tr: 2 lines, no SRS");
    if (ds)
        GDALClose(ds);
    VSIUnlink("/vsimem/wl_layer.gpkg");
}

/* A dataset whose driver takes no fields of its own (DXF): the field named,
 * with GDAL's reason. */
static void test_to_layer_fixed_fields(gk_context *ctx)
{
    uint64_t sup[2] = {1, 2};
    gk_lines l = make_lines(sup, 2);
    GDALDatasetH ds =
        GDALCreate(GDALGetDriverByName("DXF"), "/vsimem/wl_fixed.dxf", 0, 0, 0, GDT_Unknown, NULL);
    CHECK(ds != NULL);
    if (!ds)
        return;
    gk_lines_layer spec = {NULL, NULL, NULL, "curve"};
    gk_error_clear(ctx);
    CPLPushErrorHandler(CPLQuietErrorHandler);
    int rc = gk_lines_to_layer(ctx, ds, &spec, &l);
    CPLPopErrorHandler();
    CHECKF(rc == GK_ERR_IO && strstr(gk_errmsg(ctx), "cannot create the field length: ") &&
               strstr(gk_errmsg(ctx), "field creation"),
           "%d '%s'", rc, gk_errmsg(ctx));
    GDALClose(ds);
    VSIUnlink("/vsimem/wl_fixed.dxf");
}

/* ---- files: SRS, no lines, dates, CSV ----------------------------------------- */

/* A bad SRS is refused before any line is written: no file left. No SRS
 * (""), and no lines at all, make a layer without them. */
static void test_srs_and_empty(gk_context *ctx)
{
    uint64_t sup[2] = {1, 2};
    gk_lines l = make_lines(sup, 2);
    const char *dst = path("badsrs.gpkg");
    gk_lines_writer *w = gk_lines_writer_open(ctx, dst, NULL, NULL);
    CHECKF(w, "%s", gk_errmsg(ctx));
    if (w) {
        gk_lines_layer spec = {"r", NULL, "+proj=nosuch", "curve"};
        gk_error_clear(ctx);
        CPLPushErrorHandler(CPLQuietErrorHandler);
        int rc = gk_lines_writer_commit(w, &spec, &l);
        CPLPopErrorHandler();
        CHECKF(rc == GK_ERR_ARG && strstr(gk_errmsg(ctx), "invalid output SRS"), "%d '%s'", rc,
               gk_errmsg(ctx));
        CHECK(!exists(dst));
    }
    dst = path("empty.gpkg");
    w = gk_lines_writer_open(ctx, dst, "GPKG", NULL);
    CHECKF(w, "%s", gk_errmsg(ctx));
    if (w) {
        gk_lines none = make_lines(sup, 2);
        none.n_lines = 0;
        gk_lines_layer spec = {"r", NULL, "", "curve"};
        CHECKF(gk_lines_writer_commit(w, &spec, &none) == GK_OK, "%s", gk_errmsg(ctx));
        GDALDatasetH ds = open_vector(dst);
        OGRLayerH lyr = ds ? GDALDatasetGetLayerByName(ds, "r") : NULL;
        CHECKF(lyr && OGR_L_GetFeatureCount(lyr, TRUE) == 0 && no_srs(lyr),
               "empty.gpkg: a layer r without lines nor SRS");
        if (ds)
            GDALClose(ds);
    }
    /* a format GDAL writes but cannot read back: refused before any file */
    gk_error_clear(ctx);
    CHECK(gk_lines_writer_open(ctx, path("dump.sql"), NULL, NULL) == NULL);
    CHECKF(strstr(gk_errmsg(ctx), "PGDUMP: GDAL cannot read this format back"), "'%s'",
           gk_errmsg(ctx));
    CHECK(!exists(path("dump.sql")));
    gk_error_clear(ctx);
    CHECK(gk_lines_writer_open(ctx, NULL, NULL, NULL) == NULL);
    CHECKF(strstr(gk_errmsg(ctx), "output: no file name"), "'%s'", gk_errmsg(ctx));
    CHECK(gk_lines_writer_commit(NULL, NULL, NULL) == GK_ERR_ARG);
    gk_lines_writer_abort(NULL); /* safe */
    CHECK(gk_vector_out_commit(NULL, 0, NULL) == GK_ERR_ARG);
    gk_vector_out_abort(NULL);
    check_no_temporaries("srs and empty", NULL);
}

/* The DBF header's date (bytes 1-3: year - 1900, month, day): 1970-01-01
 * unless the user gives -lco DBF_DATE_LAST_UPDATE. */
static void test_shapefile_date(gk_context *ctx)
{
    uint64_t sup[2] = {1, 2};
    gk_lines l = make_lines(sup, 2);
    for (int user = 0; user <= 1; user++) {
        const char *dst = path(user ? "dated.shp" : "undated.shp");
        gk_lines_writer *w = gk_lines_writer_open(ctx, dst, NULL, NULL);
        CHECKF(w, "%s", gk_errmsg(ctx));
        if (!w)
            continue;
        char *lco[] = {"DBF_DATE_LAST_UPDATE=2020-05-06", NULL};
        gk_lines_layer spec = {"r", user ? lco : NULL, NULL, "curve"};
        CHECKF(gk_lines_writer_commit(w, &spec, &l) == GK_OK, "%s", gk_errmsg(ctx));
        unsigned char h[4] = {0};
        FILE *f = fopen(CPLResetExtension(dst, "dbf"), "rb");
        CHECK(f && fread(h, 1, 4, f) == 4);
        if (f)
            fclose(f);
        CHECKF(user ? h[1] == 120 && h[2] == 5 && h[3] == 6 : h[1] == 70 && h[2] == 1 && h[3] == 1,
               "%s: DBF date %d-%d-%d", dst, 1900 + h[1], h[2], h[3]);
    }
    check_no_temporaries("shapefile date", NULL);
}

/* A CSV gets its lines as WKT, unless -lco GEOMETRY says otherwise. */
static void test_csv_geometry(gk_context *ctx)
{
    uint64_t sup[2] = {1, 2};
    gk_lines l = make_lines(sup, 2);
    for (int user = 0; user <= 1; user++) {
        const char *dst = path(user ? "xy.csv" : "wkt.csv");
        gk_lines_writer *w = gk_lines_writer_open(ctx, dst, NULL, NULL);
        CHECKF(w, "%s", gk_errmsg(ctx));
        if (!w)
            continue;
        char *lco[] = {"GEOMETRY=AS_XY", NULL};
        gk_lines_layer spec = {"r", user ? lco : NULL, NULL, "curve"};
        CPLPushErrorHandler(CPLQuietErrorHandler);
        int rc = gk_lines_writer_commit(w, &spec, &l);
        CPLPopErrorHandler();
#if GDAL_VERSION_NUM >= GDAL_COMPUTE_VERSION(3, 7, 0)
        /* newer GDALs refuse lines with AS_XY: GDAL's reason, no file */
        if (user && rc != GK_OK) {
            CHECKF(strstr(gk_errmsg(ctx), "AS_XY") && !exists(dst), "%s: %s", dst,
                   gk_errmsg(ctx));
            continue;
        }
#endif
        CHECKF(rc == GK_OK, "%s: %s", dst, gk_errmsg(ctx));
        char head[256] = "";
        FILE *f = fopen(dst, "r");
        if (f) {
            if (!fgets(head, sizeof head, f))
                head[0] = '\0';
            fclose(f);
        }
        if (user)
            CHECKF(!strstr(head, "WKT") && !strncmp(head, "length,", 7), "%s header: %s", dst,
                   head); /* AS_XY: no column for lines */
        else
            CHECKF(!strncmp(head, "WKT,", 4), "%s header: %s", dst, head);
    }
    check_no_temporaries("csv", NULL);
}

/* ---- the vector output ------------------------------------------------------- */

static char *gpkg_last_change(const char *p)
{
    GDALDatasetH ds = open_vector(p);
    char *v = NULL;
    OGRLayerH r =
        ds ? GDALDatasetExecuteSQL(ds, "SELECT last_change FROM gpkg_contents", NULL, NULL) : NULL;
    OGRFeatureH f = r ? OGR_L_GetNextFeature(r) : NULL;
    if (f) {
        v = CPLStrdup(OGR_F_GetFieldAsString(f, 0));
        OGR_F_Destroy(f);
    }
    if (r)
        GDALDatasetReleaseResultSet(ds, r);
    if (ds)
        GDALClose(ds);
    return v;
}

/* GeoPackage's last_change: gridkit's fixed date, or the user's
 * OGR_CURRENT_DATE where set. */
static void test_dates(gk_context *ctx)
{
    uint64_t sup[2] = {1, 2};
    gk_lines l = make_lines(sup, 2);
    for (int user = 0; user <= 1; user++) {
        const char *dst = path(user ? "user_date.gpkg" : "fixed_date.gpkg");
        CPLSetConfigOption("OGR_CURRENT_DATE", user ? "2001-02-03T04:05:06.000Z" : NULL);
        gk_lines_writer *w = gk_lines_writer_open(ctx, dst, NULL, NULL);
        CHECKF(w, "%s", gk_errmsg(ctx));
        gk_lines_layer spec = {"r", NULL, NULL, "curve"};
        CHECKF(w && gk_lines_writer_commit(w, &spec, &l) == GK_OK, "%s", gk_errmsg(ctx));
        CPLSetConfigOption("OGR_CURRENT_DATE", NULL);
        char *got = gpkg_last_change(dst);
        /* as OGR reads a DateTime back */
        const char *want = user ? "2001/02/03 04:05:06+00" : "1970/01/01 00:00:00+00";
        CHECKF(got && !strcmp(got, want), "%s: last_change %s, want %s", dst, got ? got : "none",
               want);
        CPLFree(got);
    }
    check_no_temporaries("dates", NULL);
}

/* An existing output whose side-car is an input (a shapefile's .dbf) is
 * refused before any work, every file as it was. */
static void test_old_sidecar_input(gk_context *ctx)
{
    uint64_t sup[2] = {1, 2};
    gk_lines l = make_lines(sup, 2);
    const char *dst = path("old.shp");
    gk_lines_writer *w = gk_lines_writer_open(ctx, dst, NULL, NULL);
    gk_lines_layer spec = {"r", NULL, NULL, "curve"};
    CPLPushErrorHandler(CPLQuietErrorHandler);
    CHECKF(w && gk_lines_writer_commit(w, &spec, &l) == GK_OK, "%s", gk_errmsg(ctx));
    CPLPopErrorHandler();
    struct stat before, after;
    CHECK(stat(path("old.dbf"), &before) == 0);
    gk_inputs *in = gk_inputs_new();
    CHECK(in && gk_inputs_add_file(in, path("old.dbf")) == GK_OK);
    gk_error_clear(ctx);
    w = gk_lines_writer_open(ctx, dst, NULL, in);
    CHECKF(!w && strstr(gk_errmsg(ctx), "refusing to overwrite input") &&
               strstr(gk_errmsg(ctx), "old.dbf"),
           "'%s'", gk_errmsg(ctx));
    gk_lines_writer_abort(w);
    CHECK(stat(path("old.dbf"), &after) == 0 && after.st_size == before.st_size &&
          after.st_mtime == before.st_mtime && exists(dst));
    gk_inputs_free(in);
    check_no_temporaries("old side-car", NULL);
}

/* Files that only begin as this output's temporary ("<stem>.gridkit-tmp-
 * <pid>-src.tif": the raster writer's intermediate for a mine.png written
 * by this process at the same time) are neither renamed in nor deleted. A
 * CSV output closed without a layer made no file: said so, nothing left. */
static void test_not_ours(gk_context *ctx)
{
    char other[256];
    snprintf(other, sizeof other, "mine.gridkit-tmp-%ld-src.tif", (long)getpid());
    write_text(path(other), "another run's");
    uint64_t sup[2] = {1, 2};
    gk_lines l = make_lines(sup, 2);
    gk_lines_writer *w = gk_lines_writer_open(ctx, path("mine.gpkg"), NULL, NULL);
    gk_lines_layer spec = {"r", NULL, NULL, "curve"};
    CHECKF(w && gk_lines_writer_commit(w, &spec, &l) == GK_OK, "%s", gk_errmsg(ctx));
    w = gk_lines_writer_open(ctx, path("mine.gpkg"), NULL, NULL);
    CHECK(w != NULL);
    gk_lines_writer_abort(w);
    struct stat st;
    CHECKF(stat(path(other), &st) == 0 && st.st_size == 13, "%s taken", other);
    CHECK(exists(path("mine.gpkg")));
    check_no_temporaries("not ours", other);
    unlink(path(other));

    gk_vector_out *v = gk_vector_out_open(ctx, "-o", path("nolayer.csv"), NULL, NULL);
    CHECKF(v, "%s", gk_errmsg(ctx));
    if (v) {
        gk_error_clear(ctx);
        int rc = gk_vector_out_commit(v, 0, NULL);
        CHECKF(rc == GK_ERR_IO && strstr(gk_errmsg(ctx), "-o ") &&
                   strstr(gk_errmsg(ctx), "nolayer.csv: the CSV driver wrote no file"),
               "%d '%s'", rc, gk_errmsg(ctx));
    }
    CHECK(!exists(path("nolayer.csv")));
    check_no_temporaries("no layer", NULL);
}

/* Every run starts from an empty work directory. */
static void empty_workdir(void)
{
    DIR *d = opendir(workdir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        struct stat st;
        char p[2048];
        snprintf(p, sizeof p, "%s/%s", workdir, e->d_name);
        if (lstat(p, &st) == 0 && !S_ISDIR(st.st_mode))
            unlink(p);
    }
    if (d)
        closedir(d);
}

/* The writer registers GDAL's drivers itself when its caller has not
 * (called before GDALAllRegister): a name without extension is a
 * GeoPackage. */
static void test_registers_drivers(gk_context *ctx)
{
    uint64_t sup[2] = {1, 2};
    gk_lines l = make_lines(sup, 2);
    const char *dst = path("registered");
    gk_lines_writer *w = gk_lines_writer_open(ctx, dst, NULL, NULL);
    CHECKF(w && !strcmp(gk_lines_writer_driver(w), "GPKG"), "%s", gk_errmsg(ctx));
    gk_lines_layer spec = {"r", NULL, NULL, "curve"};
    CHECKF(w && gk_lines_writer_commit(w, &spec, &l) == GK_OK, "%s", gk_errmsg(ctx));
    GDALDatasetH ds = open_vector(dst);
    CHECK(ds && GDALDatasetGetLayerByName(ds, "r"));
    if (ds)
        GDALClose(ds);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "write_lines_tmp";
    mkdir(dir, 0755);
    char *real = realpath(dir, NULL);
    if (!real) {
        fprintf(stderr, "cannot use work directory %s: %s\n", dir, strerror(errno));
        return 2;
    }
    snprintf(workdir, sizeof workdir, "%s", real);
    free(real);
    empty_workdir();
    gk_context *ctx = gk_context_new();
    test_registers_drivers(ctx); /* before GDALAllRegister */
    GDALAllRegister();
    test_mapinfo(ctx);
    test_dxf(ctx);
    test_to_layer(ctx);
    test_to_layer_fixed_fields(ctx);
    test_srs_and_empty(ctx);
    test_shapefile_date(ctx);
    test_csv_geometry(ctx);
    test_dates(ctx);
    test_old_sidecar_input(ctx);
    test_not_ours(ctx);
    gk_context_free(ctx);
    GDALDestroyDriverManager();
    if (failures)
        fprintf(stderr, "%d failure(s) of %d checks\n", failures, checks);
    else
        printf("all write_lines tests passed (%d checks)\n", checks);
    return failures ? 1 : 0;
}
