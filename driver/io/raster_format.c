/* SPDX-License-Identifier: MIT */
/*
 * raster_format.c - the output's driver and pixel type, chosen and checked
 * before any work (see raster_format.h).
 */
#include "io/raster_format.h"
#include "io/output_check.h"

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int driver_has_extension(GDALDriverH drv, const char *ext)
{
    const char *exts = GDALGetMetadataItem(drv, GDAL_DMD_EXTENSIONS, NULL);
    if (!exts)
        return 0;
    char **tok = CSLTokenizeString(exts);
    int found = 0;
    for (int i = 0; tok && tok[i] && !found; i++)
        found = EQUAL(tok[i], ext);
    CSLDestroy(tok);
    return found;
}

/* gdal_grid 3.6 (apps/commonutils.cpp GetOutputDriverForRaster): drivers that
 * can write rasters and list the extension (or whose connection prefix the
 * name starts with); GTiff when nothing matches and there is no extension. */
static GDALDriverH guess_driver(gk_context *ctx, const char *dst)
{
    const char *ext = CPLGetExtension(dst);
    GDALDriverH first = NULL, gtiff = NULL;
    int n = 0;
    char names[512] = "";
    for (int i = 0; i < GDALGetDriverCount(); i++) {
        GDALDriverH d = GDALGetDriver(i);
        if (!GDALGetMetadataItem(d, GDAL_DCAP_RASTER, NULL))
            continue;
        if (!GDALGetMetadataItem(d, GDAL_DCAP_CREATE, NULL) &&
            !GDALGetMetadataItem(d, GDAL_DCAP_CREATECOPY, NULL))
            continue;
        const char *prefix = GDALGetMetadataItem(d, GDAL_DMD_CONNECTION_PREFIX, NULL);
        if ((*ext && driver_has_extension(d, ext)) ||
            (prefix && *prefix && STARTS_WITH_CI(dst, prefix))) {
            const char *name = GDALGetDriverShortName(d);
            if (!first)
                first = d;
            if (EQUAL(name, "GTiff"))
                gtiff = d;
            size_t len = strlen(names);
            snprintf(names + len, sizeof names - len, "%s%s", n ? ", " : "", name);
            n++;
        }
    }
    if (n == 0) {
        if (!*ext)
            return GDALGetDriverByName("GTiff");
        gk_error(ctx, GK_ERR_ARG,
                 "cannot guess the output format from extension '.%s' of %s: use -of", ext, dst);
        return NULL;
    }
    /* netCDF rather than GMT for .nc, as gdal_grid does */
    if (EQUAL(ext, "nc") && n == 2 && EQUAL(GDALGetDriverShortName(first), "GMT")) {
        GDALDriverH nc = GDALGetDriverByName("netCDF");
        if (nc)
            first = nc;
    }
    GDALDriverH pick = gtiff ? gtiff : first;
    /* GTiff + COG for .tif is the normal case; gdal_grid stays quiet there */
    if (n > 1 && !(gtiff && n == 2 && strstr(names, "COG")))
        CPLError(CE_Warning, CPLE_AppDefined,
                 "Several drivers matching %s extension (%s). Using %s", ext, names,
                 GDALGetDriverShortName(pick));
    return pick;
}

static GDALDriverH choose_driver(gk_context *ctx, const gk_raster_spec *spec)
{
    GDALDriverH drv;
    if (spec->format && *spec->format) {
        drv = GDALGetDriverByName(spec->format);
        if (!drv) {
            gk_error(ctx, GK_ERR_ARG, "unknown output format (-of) '%s'", spec->format);
            return NULL;
        }
    } else {
        drv = guess_driver(ctx, spec->dst);
        if (!drv)
            return NULL;
    }
    const char *name = GDALGetDriverShortName(drv);
    if (!GDALGetMetadataItem(drv, GDAL_DCAP_RASTER, NULL)) {
        gk_error(ctx, GK_ERR_ARG, "output format '%s' is not a raster format", name);
        return NULL;
    }
    if (!GDALGetMetadataItem(drv, GDAL_DCAP_CREATE, NULL) &&
        !GDALGetMetadataItem(drv, GDAL_DCAP_CREATECOPY, NULL)) {
        gk_error(ctx, GK_ERR_UNSUPPORTED,
                 "output format '%s' cannot write files (read-only driver)", name);
        return NULL;
    }
    if (!gk_output_driver_writes_files(drv)) {
        gk_error(ctx, GK_ERR_ARG,
                 "output format '%s' writes no file, and gridkit writes its output to a file "
                 "(e.g. GTiff, COG, GPKG)",
                 name);
        return NULL;
    }
    return drv;
}

static int choose_type(gk_context *ctx, const char *type_name, GDALDataType *type)
{
    if (!type_name || !*type_name) {
        *type = GDT_Float64;
        return GK_OK;
    }
    *type = GDALGetDataTypeByName(type_name);
    if (*type != GDT_Unknown)
        return GK_OK;
    char names[512] = "";
    for (int t = 1; t < GDT_TypeCount; t++) {
        const char *n = GDALGetDataTypeName((GDALDataType)t);
        if (!n)
            continue;
        size_t len = strlen(names);
        snprintf(names + len, sizeof names - len, "%s%s", *names ? ", " : "", n);
    }
    return gk_error(ctx, GK_ERR_ARG, "unknown output type (-ot) '%s'; valid types: %s", type_name,
                    names);
}

/* Some drivers list the types they can create; refusing now beats failing
 * after all the work (PNG: Byte and UInt16 only). */
static int check_type_for_driver(gk_context *ctx, GDALDriverH drv, GDALDataType type)
{
    const char *list = GDALGetMetadataItem(drv, GDAL_DMD_CREATIONDATATYPES, NULL);
    if (!list || !*list)
        return GK_OK;
    char **tok = CSLTokenizeString(list);
    int ok = 0;
    for (int i = 0; tok && tok[i] && !ok; i++)
        ok = EQUAL(tok[i], GDALGetDataTypeName(type));
    CSLDestroy(tok);
    if (ok)
        return GK_OK;
    return gk_error(ctx, GK_ERR_ARG,
                    "output format '%s' cannot write type %s (-ot); it supports: %s",
                    GDALGetDriverShortName(drv), GDALGetDataTypeName(type), list);
}

/* The nodata value is written into nodes that got none and tagged on the
 * bands: it must be a value of the output type, or the pixels (converted as
 * GDALCopyWords does: 0.5 -> 1) would differ from the tag (0.5) and GDAL would
 * not mask them. Refused rather than rounded: the user chose the value. */
static int check_nodata_for_type(gk_context *ctx, const gk_raster_spec *spec, GDALDataType type)
{
    if (!spec->set_nodata)
        return GK_OK;
    double v = spec->nodata;
    if (GDALDataTypeIsInteger(type) && !GDALDataTypeIsComplex(type)) {
        int bits = GDALGetDataTypeSizeBits(type), sgn = GDALDataTypeIsSigned(type);
        double lo = sgn ? -ldexp(1.0, bits - 1) : 0.0;
        double hi = sgn ? ldexp(1.0, bits - 1) - 1 : ldexp(1.0, bits) - 1;
        /* 64-bit bounds are not doubles: compare with the power of two above */
        int above = bits == 64 ? v >= ldexp(1.0, sgn ? 63 : 64) : v > hi;
        if (!isfinite(v) || v != floor(v) || v < lo || above)
            return gk_error(ctx, GK_ERR_ARG,
                            "nodata=%.17g cannot be written as %s (-ot) in %s: give an integer "
                            "from %.0f to %.0f",
                            v, GDALGetDataTypeName(type), spec->dst, lo, hi);
    } else if (type == GDT_Float32 && isfinite(v) && fabs(v) > FLT_MAX) {
        return gk_error(ctx, GK_ERR_ARG,
                        "nodata=%.17g is beyond the range of Float32 (-ot) in %s: at most "
                        "%.9g in magnitude",
                        v, spec->dst, (double)FLT_MAX);
    }
    return GK_OK;
}

int gk_raster_format_choose(gk_context *ctx, const gk_raster_spec *spec, GDALDriverH *drv,
                            GDALDataType *type)
{
    *drv = choose_driver(ctx, spec);
    if (!*drv || choose_type(ctx, spec->type, type) != GK_OK ||
        check_type_for_driver(ctx, *drv, *type) != GK_OK ||
        check_nodata_for_type(ctx, spec, *type) != GK_OK)
        return gk_errno(ctx) ? gk_errno(ctx) : GK_ERR_ARG;
    return GK_OK;
}
