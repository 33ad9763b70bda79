/* SPDX-License-Identifier: MIT */
/*
 * write_lines.c - ridge lines out through OGR (see write_lines.h): the
 * layer, its fields and every line in one transaction, into a dataset of
 * the plugin's or a file's (write_vector.h: checks, temporary, read back,
 * renamed in).
 */
#define _XOPEN_SOURCE 700
#include "io/write_lines.h"
#include "io/write_vector.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>

/* The day a shapefile's DBF header holds when the user sets none: a fixed
 * one, so that the same input gives the same bytes (GeoPackage's dates:
 * write_vector.c). */
#define GK_LINES_DBF_DATE "1970-01-01"

static const char *gdal_msg(void)
{
    const char *m = CPLGetLastErrorMsg();
    return m && *m ? m : "unknown GDAL error";
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
        return gk_error(ctx, GK_ERR_IO, "cannot create the field %s", name);
    return GK_OK;
}

/* Field indexes, in the order the fields are made. */
enum { F_LENGTH, F_SUPPORT, F_CLOSED, F_DENSITY, F_WIDTH, F_METHOD, N_FIELDS };

/* n_support's type: 64-bit where the driver has it (MapInfo has not), else
 * 32-bit where every count fits, else real (exact to 2^53). */
static OGRFieldType support_type(GDALDatasetH ds, const gk_lines *l)
{
    GDALDriverH d = GDALGetDatasetDriver(ds);
    const char *types = d ? GDALGetMetadataItem(d, GDAL_DMD_CREATIONFIELDDATATYPES, NULL) : NULL;
    if (!types || strstr(types, "Integer64"))
        return OFTInteger64;
    for (size_t i = 0; i < l->n_lines; i++)
        if (l->n_support[i] > INT_MAX)
            return OFTReal;
    return OFTInteger;
}

static int add_fields(gk_context *ctx, GDALDatasetH ds, OGRLayerH layer, const gk_lines *l,
                      int idx[N_FIELDS])
{
    const struct {
        const char *name;
        OGRFieldType type;
        OGRFieldSubType sub;
    } def[N_FIELDS] = {
        {"length", OFTReal, OFSTNone},       {"n_support", support_type(ds, l), OFSTNone},
        {"closed", OFTInteger, OFSTBoolean}, {"mean_density", OFTReal, OFSTNone},
        {"width", OFTReal, OFSTNone},        {"method", OFTString, OFSTNone}};
    for (int k = 0; k < N_FIELDS; k++)
        if (add_field(ctx, layer, def[k].name, def[k].type, def[k].sub, &idx[k]))
            return gk_errno(ctx);
    return GK_OK;
}

/* Line i as a feature of layer's definition. */
static OGRFeatureH line_feature(OGRLayerH layer, const gk_lines *l, size_t i, const char *method)
{
    OGRFeatureDefnH defn = OGR_L_GetLayerDefn(layer);
    OGRFeatureH f = OGR_F_Create(defn);
    OGRGeometryH g = OGR_G_CreateGeometry(l->dim == 3 ? wkbLineString25D : wkbLineString);
    size_t a = l->start[i], n = l->start[i + 1] - a;
    OGR_G_SetPoints(g, (int)n, l->x + a, sizeof(double), l->y + a, sizeof(double),
                    l->dim == 3 ? l->z + a : NULL, sizeof(double));
    OGR_F_SetGeometryDirectly(f, g);
    /* fields by name: a driver may have renamed or dropped one */
    OGR_F_SetFieldDouble(f, OGR_FD_GetFieldIndex(defn, "length"), l->length[i]);
    int ks = OGR_FD_GetFieldIndex(defn, "n_support");
    if (ks >= 0 && OGR_Fld_GetType(OGR_FD_GetFieldDefn(defn, ks)) == OFTReal)
        OGR_F_SetFieldDouble(f, ks, (double)l->n_support[i]);
    else
        OGR_F_SetFieldInteger64(f, ks, (GIntBig)l->n_support[i]);
    OGR_F_SetFieldInteger(f, OGR_FD_GetFieldIndex(defn, "closed"), l->closed[i] ? 1 : 0);
    int k = OGR_FD_GetFieldIndex(defn, "mean_density");
    if (isnan(l->mean_density[i]))
        OGR_F_SetFieldNull(f, k);
    else
        OGR_F_SetFieldDouble(f, k, l->mean_density[i]);
    OGR_F_SetFieldDouble(f, OGR_FD_GetFieldIndex(defn, "width"), l->width[i]);
    OGR_F_SetFieldString(f, OGR_FD_GetFieldIndex(defn, "method"), method ? method : "");
    return f;
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

/* The fields and every line into layer, in one transaction where ds has them. */
static int fill_layer(gk_context *ctx, GDALDatasetH ds, OGRLayerH layer, const gk_lines_layer *spec,
                      const gk_lines *lines)
{
    int idx[N_FIELDS];
    if (add_fields(ctx, ds, layer, lines, idx))
        return gk_errno(ctx);
    int tr = GDALDatasetTestCapability(ds, ODsCTransactions) &&
             GDALDatasetStartTransaction(ds, FALSE) == OGRERR_NONE;
    int rc = GK_OK;
    for (size_t i = 0; i < lines->n_lines && rc == GK_OK; i++) {
        OGRFeatureH f = line_feature(layer, lines, i, spec->method);
        CPLErrorReset();
        if (OGR_L_CreateFeature(layer, f) != OGRERR_NONE)
            rc = gk_error(ctx, GK_ERR_IO, "cannot write line %zu", i + 1);
        OGR_F_Destroy(f);
    }
    if (tr && rc == GK_OK && GDALDatasetCommitTransaction(ds) != OGRERR_NONE)
        rc = gk_error(ctx, GK_ERR_IO, "cannot write the lines");
    else if (tr && rc != GK_OK)
        GDALDatasetRollbackTransaction(ds);
    return rc;
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
    int rc = fill_layer(ctx, ds, layer, spec, lines);
    if (rc)
        gk_error(ctx, rc, "%s: %s", gk_errmsg(ctx), gdal_msg());
    return rc;
}

/* The same into a file's dataset, GDAL's messages naming the file. */
static int make_layer(gk_vector_out *out, GDALDatasetH ds, const gk_lines_layer *spec,
                      const gk_lines *lines, OGRLayerH *layer)
{
    gk_context *ctx = gk_vector_out_context(out);
    OGRSpatialReferenceH srs = make_srs(ctx, spec->srs_wkt);
    if (!srs && spec->srs_wkt && *spec->srs_wkt)
        return gk_errno(ctx);
    *layer = gk_vector_out_layer(out, spec->name ? spec->name : "ridges", srs,
                                 lines->dim == 3 ? wkbLineString25D : wkbLineString,
                                 spec->layer_options);
    if (srs)
        OSRDestroySpatialReference(srs);
    if (!*layer)
        return gk_errno(ctx);
    int rc = fill_layer(ctx, ds, *layer, spec, lines);
    if (rc) { /* GDAL's reason, and where the disk is full, that */
        char why[2800];
        gk_error(ctx, rc, "output %s: %s%s", gk_vector_out_path(out), gk_errmsg(ctx),
                 gk_vector_out_reason(out, why, sizeof why));
    }
    return rc;
}

static int commit_with(gk_vector_out *out, GIntBig n, OGRFeatureH last)
{
    int rc = gk_vector_out_commit(out, n, last);
    if (last)
        OGR_F_Destroy(last);
    return rc;
}

/* ---- the file ----------------------------------------------------------- */

struct gk_lines_writer {
    gk_vector_out *out;
};

gk_lines_writer *gk_lines_writer_open(gk_context *ctx, const char *dst, const char *format,
                                      const gk_inputs *inputs)
{
    gk_lines_writer *w = calloc(1, sizeof *w);
    if (!w) {
        gk_error(ctx, GK_ERR_NOMEM, "out of memory opening %s", dst ? dst : "the output");
        return NULL;
    }
    if (!(w->out = gk_vector_out_open(ctx, "output", dst, format, inputs))) {
        free(w);
        return NULL;
    }
    return w;
}

const char *gk_lines_writer_driver(const gk_lines_writer *w)
{
    return gk_vector_out_driver(w->out);
}

int gk_lines_writer_commit(gk_lines_writer *w, const gk_lines_layer *spec, const gk_lines *lines)
{
    if (!w)
        return GK_ERR_ARG;
    gk_vector_out *out = w->out;
    free(w);
    GDALDatasetH ds = gk_vector_out_dataset(out);
    gk_lines_layer s = *spec;
    char **lco = CSLDuplicate(spec->layer_options);
    const char *drv = gk_vector_out_driver(out);
    /* a shapefile's DBF header holds the day it was written */
    if (EQUAL(drv, "ESRI Shapefile") && !CSLFetchNameValue(lco, "DBF_DATE_LAST_UPDATE"))
        lco = CSLSetNameValue(lco, "DBF_DATE_LAST_UPDATE", GK_LINES_DBF_DATE);
    /* a CSV holds no geometry unless asked to */
    if (EQUAL(drv, "CSV") && !CSLFetchNameValue(lco, "GEOMETRY"))
        lco = CSLSetNameValue(lco, "GEOMETRY", "AS_WKT");
    s.layer_options = lco;
    OGRLayerH layer = NULL;
    int rc = make_layer(out, ds, &s, lines, &layer);
    CSLDestroy(lco);
    OGRFeatureH last = NULL;
    if (rc == GK_OK && lines->n_lines)
        last = line_feature(layer, lines, lines->n_lines - 1, spec->method);
    if (rc == GK_OK)
        return commit_with(out, (GIntBig)lines->n_lines, last);
    gk_vector_out_abort(out);
    return rc;
}

void gk_lines_writer_abort(gk_lines_writer *w)
{
    if (!w)
        return;
    gk_vector_out_abort(w->out);
    free(w);
}
