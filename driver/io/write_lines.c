/*
 * write_lines.c - ridge lines out through OGR (see write_lines.h).
 *
 * Life of an output: checks (driver, inputs, regular file) -> create
 * "<dst minus ext>.gridkit-tmp-<pid><.ext>" -> the layer, its fields and
 * every line in one transaction -> close, check errors -> old dst aside,
 * rename in, delete the old files (replace_output.h).
 */
#define _XOPEN_SOURCE 700
#include "io/write_lines.h"
#include "io/cancel_cleanup.h"
#include "io/output_check.h"
#include "io/replace_output.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>

/* The date drivers stamp into files (GeoPackage's gpkg_contents.last_change,
 * a DBF header) when the user sets none: a fixed one, so that the same
 * input gives the same bytes. */
#define GK_LINES_DATE "1970-01-01T00:00:00.000Z"
#define GK_LINES_DBF_DATE "1970-01-01"

struct gk_lines_writer {
    gk_context *ctx;
    GDALDriverH driver;
    GDALDatasetH ds;
    char *dst; /* the file to replace (output_check.h: a link's target) */
    char *tmp;
    char *date_before; /* the thread's OGR_CURRENT_DATE before ours, or NULL */
    int date_pinned;
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

/* ---- the layer ---------------------------------------------------------- */

static int add_field(gk_context *ctx, OGRLayerH layer, const char *name, OGRFieldType type,
                     OGRFieldSubType sub, int *index)
{
    OGRFieldDefnH f = OGR_Fld_Create(name, type);
    OGR_Fld_SetSubType(f, sub);
    *index = OGR_FD_GetFieldCount(OGR_L_GetLayerDefn(layer));
    OGRErr e = OGR_L_CreateField(layer, f, TRUE);
    OGR_Fld_Destroy(f);
    if (e != OGRERR_NONE)
        return gk_error(ctx, GK_ERR_IO, "cannot create the field %s: %s", name, gdal_msg());
    return GK_OK;
}

/* Field indexes, in the order the fields are made. */
enum { F_LENGTH, F_SUPPORT, F_CLOSED, F_DENSITY, F_WIDTH, F_METHOD, N_FIELDS };

static int add_fields(gk_context *ctx, OGRLayerH layer, int idx[N_FIELDS])
{
    static const struct {
        const char *name;
        OGRFieldType type;
        OGRFieldSubType sub;
    } def[N_FIELDS] = {{"length", OFTReal, OFSTNone},       {"n_support", OFTInteger64, OFSTNone},
                       {"closed", OFTInteger, OFSTBoolean}, {"mean_density", OFTReal, OFSTNone},
                       {"width", OFTReal, OFSTNone},        {"method", OFTString, OFSTNone}};
    for (int k = 0; k < N_FIELDS; k++)
        if (add_field(ctx, layer, def[k].name, def[k].type, def[k].sub, &idx[k]))
            return gk_errno(ctx);
    return GK_OK;
}

static int add_line(gk_context *ctx, OGRLayerH layer, const int idx[N_FIELDS],
                    const gk_lines *l, size_t i, const char *method)
{
    OGRFeatureH f = OGR_F_Create(OGR_L_GetLayerDefn(layer));
    OGRGeometryH g = OGR_G_CreateGeometry(l->dim == 3 ? wkbLineString25D : wkbLineString);
    size_t a = l->start[i], n = l->start[i + 1] - a;
    OGR_G_SetPoints(g, (int)n, l->x + a, sizeof(double), l->y + a, sizeof(double),
                    l->dim == 3 ? l->z + a : NULL, sizeof(double));
    OGR_F_SetGeometryDirectly(f, g);
    OGR_F_SetFieldDouble(f, idx[F_LENGTH], l->length[i]);
    OGR_F_SetFieldInteger64(f, idx[F_SUPPORT], (GIntBig)l->n_support[i]);
    OGR_F_SetFieldInteger(f, idx[F_CLOSED], l->closed[i] ? 1 : 0);
    if (isnan(l->mean_density[i]))
        OGR_F_SetFieldNull(f, idx[F_DENSITY]);
    else
        OGR_F_SetFieldDouble(f, idx[F_DENSITY], l->mean_density[i]);
    OGR_F_SetFieldDouble(f, idx[F_WIDTH], l->width[i]);
    OGR_F_SetFieldString(f, idx[F_METHOD], method ? method : "");
    OGRErr e = OGR_L_CreateFeature(layer, f);
    OGR_F_Destroy(f);
    if (e != OGRERR_NONE)
        return gk_error(ctx, GK_ERR_IO, "cannot write line %zu: %s", i + 1, gdal_msg());
    return GK_OK;
}

static OGRSpatialReferenceH make_srs(gk_context *ctx, const char *wkt)
{
    if (!wkt || !*wkt)
        return NULL;
    OGRSpatialReferenceH srs = OSRNewSpatialReference(NULL);
    OSRSetAxisMappingStrategy(srs, OAMS_TRADITIONAL_GIS_ORDER);
    if (OSRSetFromUserInput(srs, wkt) != OGRERR_NONE) {
        OSRDestroySpatialReference(srs);
        gk_error(ctx, GK_ERR_ARG, "invalid output SRS: %s", gdal_msg());
        return NULL;
    }
    return srs;
}

int gk_lines_to_layer(gk_context *ctx, GDALDatasetH ds, const gk_lines_layer *spec,
                      const gk_lines *lines)
{
    CPLErrorReset();
    OGRSpatialReferenceH srs = make_srs(ctx, spec->srs_wkt);
    if (!srs && spec->srs_wkt && *spec->srs_wkt)
        return gk_errno(ctx);
    OGRLayerH layer = GDALDatasetCreateLayer(ds, spec->name ? spec->name : "ridges", srs,
                                             lines->dim == 3 ? wkbLineString25D : wkbLineString,
                                             spec->layer_options);
    if (srs)
        OSRDestroySpatialReference(srs);
    if (!layer)
        return gk_error(ctx, GK_ERR_IO, "cannot create the layer %s: %s",
                        spec->name ? spec->name : "ridges", gdal_msg());
    int idx[N_FIELDS];
    if (add_fields(ctx, layer, idx))
        return gk_errno(ctx);
    int tr = GDALDatasetTestCapability(ds, ODsCTransactions) &&
             GDALDatasetStartTransaction(ds, FALSE) == OGRERR_NONE;
    int rc = GK_OK;
    for (size_t i = 0; i < lines->n_lines && rc == GK_OK; i++)
        rc = add_line(ctx, layer, idx, lines, i, spec->method);
    if (tr && rc == GK_OK && GDALDatasetCommitTransaction(ds) != OGRERR_NONE)
        rc = gk_error(ctx, GK_ERR_IO, "cannot write the lines: %s", gdal_msg());
    else if (tr && rc != GK_OK)
        GDALDatasetRollbackTransaction(ds);
    return rc;
}

/* ---- the file ----------------------------------------------------------- */

static int is_vector_writer(GDALDriverH d)
{
    return d && GDALGetMetadataItem(d, GDAL_DCAP_VECTOR, NULL) &&
           GDALGetMetadataItem(d, GDAL_DCAP_CREATE, NULL);
}

/* The first vector driver that creates files and lists ext; GPKG when none. */
static GDALDriverH driver_for(const char *dst)
{
    const char *ext = CPLGetExtension(dst);
    for (int i = 0; *ext && i < GDALGetDriverCount(); i++) {
        GDALDriverH d = GDALGetDriver(i);
        const char *exts = GDALGetMetadataItem(d, GDAL_DMD_EXTENSIONS, NULL);
        if (!is_vector_writer(d) || !exts)
            continue;
        char **list = CSLTokenizeString(exts);
        int hit = CSLFindString(list, ext) >= 0;
        CSLDestroy(list);
        if (hit)
            return d;
    }
    return GDALGetDriverByName("GPKG");
}

static GDALDriverH choose_driver(gk_context *ctx, const char *dst, const char *format)
{
    GDALDriverH d = format ? GDALGetDriverByName(format) : driver_for(dst);
    if (!format && !d)
        gk_error(ctx, GK_ERR_UNSUPPORTED, "this GDAL has no GPKG driver: give -of");
    else if (!d)
        gk_error(ctx, GK_ERR_ARG, "-of %s: GDAL has no such driver (ogrinfo --formats lists them)",
                 format);
    else if (!is_vector_writer(d))
        gk_error(ctx, GK_ERR_ARG,
                 "-of %s: not an OGR vector driver that creates files (e.g. GPKG, \"ESRI "
                 "Shapefile\", FlatGeobuf, GeoJSON)",
                 format);
    else if (EQUAL(GDALGetDriverShortName(d), "ESRI Shapefile") &&
             !EQUAL(CPLGetExtension(dst), "shp"))
        gk_error(ctx, GK_ERR_ARG,
                 "output %s: a shapefile's name must end in .shp (else GDAL makes a folder)", dst);
    else
        return d;
    return NULL;
}

static void writer_free(gk_lines_writer *w)
{
    if (!w)
        return;
    if (w->date_pinned)
        CPLSetThreadLocalConfigOption("OGR_CURRENT_DATE", w->date_before);
    CPLFree(w->date_before);
    gk_cancel_forget(w->tmp);
    free(w->dst);
    free(w->tmp);
    free(w);
}

/* GeoPackage's dates from OGR_CURRENT_DATE: ours for this thread, while
 * the file is written, unless the user set one. */
static void pin_date(gk_lines_writer *w)
{
    if (CPLGetConfigOption("OGR_CURRENT_DATE", NULL))
        return;
    const char *before = CPLGetThreadLocalConfigOption("OGR_CURRENT_DATE", NULL);
    w->date_before = before ? CPLStrdup(before) : NULL;
    CPLSetThreadLocalConfigOption("OGR_CURRENT_DATE", GK_LINES_DATE);
    w->date_pinned = 1;
}

gk_lines_writer *gk_lines_writer_open(gk_context *ctx, const char *dst, const char *format,
                                      const char *const *protect)
{
    if (!dst || !*dst) {
        gk_error(ctx, GK_ERR_ARG, "no output file name");
        return NULL;
    }
    if (GDALGetDriverCount() == 0)
        GDALAllRegister();
    GDALDriverH drv = choose_driver(ctx, dst, format);
    if (!drv)
        return NULL;
    int n = 0;
    while (protect && protect[n])
        n++;
    char *path = gk_output_prepare(ctx, "output", dst, protect, n);
    if (!path)
        return NULL;
    gk_lines_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->tmp = gk_output_temp_name(path, "", NULL))) {
        gk_error(ctx, GK_ERR_NOMEM, "out of memory opening %s", dst);
        free(path);
        writer_free(w);
        return NULL;
    }
    w->ctx = ctx;
    w->driver = drv;
    w->dst = path;
    /* watched before it exists: a signal the moment it is made removes it.
     * Claimed as a new regular file (no planted link written through), then
     * given back to the driver, which may refuse to create over a file. */
    gk_cancel_watch(w->tmp);
    if (gk_output_claim(ctx, "output", dst, w->tmp) != GK_OK) {
        writer_free(w); /* forgets it: an unclaimed name is not ours */
        return NULL;
    }
    unlink(w->tmp);
    pin_date(w);
    CPLErrorReset();
    w->ds = GDALCreate(drv, w->tmp, 0, 0, 0, GDT_Unknown, NULL);
    if (!w->ds) {
        gk_error(ctx, GK_ERR_IO, "cannot create %s (as %s): %s", dst, w->tmp, gdal_msg());
        gk_output_delete_quietly(drv, w->tmp);
        writer_free(w);
        return NULL;
    }
    return w;
}

const char *gk_lines_writer_driver(const gk_lines_writer *w)
{
    return GDALGetDriverShortName(w->driver);
}

static int close_dataset(gk_lines_writer *w)
{
    CPLErrorReset();
    GDALClose(w->ds);
    w->ds = NULL;
    if (gdal_failed())
        return gk_error(w->ctx, GK_ERR_IO, "cannot write %s: %s", w->dst, gdal_msg());
    return GK_OK;
}

int gk_lines_writer_commit(gk_lines_writer *w, const gk_lines_layer *spec, const gk_lines *lines)
{
    if (!w)
        return GK_ERR_ARG;
    gk_context *ctx = w->ctx;
    gk_lines_layer s = *spec;
    char **lco = CSLDuplicate(spec->layer_options);
    /* a shapefile's DBF header holds the day it was written */
    if (EQUAL(GDALGetDriverShortName(w->driver), "ESRI Shapefile") &&
        !CSLFetchNameValue(lco, "DBF_DATE_LAST_UPDATE"))
        lco = CSLSetNameValue(lco, "DBF_DATE_LAST_UPDATE", GK_LINES_DBF_DATE);
    s.layer_options = lco;
    int rc = gk_lines_to_layer(ctx, w->ds, &s, lines);
    CSLDestroy(lco);
    if (rc == GK_OK)
        rc = close_dataset(w);
    if (rc == GK_OK)
        rc = gk_output_replace_dataset(ctx, w->driver, w->tmp, w->dst);
    if (rc != GK_OK) {
        gk_lines_writer_abort(w);
        return rc;
    }
    writer_free(w);
    return GK_OK;
}

void gk_lines_writer_abort(gk_lines_writer *w)
{
    if (!w)
        return;
    if (w->ds) {
        CPLPushErrorHandler(CPLQuietErrorHandler);
        GDALClose(w->ds);
        CPLPopErrorHandler();
        w->ds = NULL;
    }
    gk_output_delete_quietly(w->driver, w->tmp);
    writer_free(w);
}
