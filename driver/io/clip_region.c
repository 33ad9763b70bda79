/* SPDX-License-Identifier: MIT */
/*
 * clip_region.c - the region points must fall in, from -spat and -clipsrc
 * (see clip_region.h).
 */
#include "io/clip_region.h"

#include "cpl_conv.h"
#include "cpl_string.h"
#include "cpl_vsi.h"

#include <string.h>

OGRGeometryH gk_clip_rect(double x0, double y0, double x1, double y1)
{
    OGRGeometryH ring = OGR_G_CreateGeometry(wkbLinearRing);
    OGR_G_AddPoint_2D(ring, x0, y0);
    OGR_G_AddPoint_2D(ring, x0, y1);
    OGR_G_AddPoint_2D(ring, x1, y1);
    OGR_G_AddPoint_2D(ring, x1, y0);
    OGR_G_AddPoint_2D(ring, x0, y0);
    OGRGeometryH poly = OGR_G_CreateGeometry(wkbPolygon);
    OGR_G_AddGeometryDirectly(poly, ring);
    return poly;
}

/* One exterior ring of 4 axis-parallel edges through the envelope corners. */
static int geom_is_rect(OGRGeometryH g, const OGREnvelope *e)
{
    if (wkbFlatten(OGR_G_GetGeometryType(g)) != wkbPolygon || OGR_G_GetGeometryCount(g) != 1)
        return 0;
    OGRGeometryH r = OGR_G_GetGeometryRef(g, 0);
    if (OGR_G_GetPointCount(r) != 5)
        return 0;
    for (int i = 0; i < 5; i++) {
        double x = OGR_G_GetX(r, i), y = OGR_G_GetY(r, i);
        if ((x != e->MinX && x != e->MaxX) || (y != e->MinY && y != e->MaxY))
            return 0;
        if (i > 0) {
            double px = OGR_G_GetX(r, i - 1), py = OGR_G_GetY(r, i - 1);
            if (px != x && py != y)
                return 0; /* diagonal edge */
        }
    }
    return OGR_G_GetX(r, 0) == OGR_G_GetX(r, 4) && OGR_G_GetY(r, 0) == OGR_G_GetY(r, 4);
}

void gk_clip_free(gk_clip_region *c)
{
    if (c->prep)
        OGRDestroyPreparedGeometry(c->prep);
    if (c->geom)
        OGR_G_DestroyGeometry(c->geom);
    if (c->pt)
        OGR_G_DestroyGeometry(c->pt);
    memset(c, 0, sizeof *c);
}

/* "xmin ymin xmax ymax" (blanks or commas). */
static int parse_rect(const char *s, double v[4])
{
    char **tok = CSLTokenizeString2(s, " ,", 0);
    int ok = CSLCount(tok) == 4;
    for (int i = 0; ok && i < 4; i++) {
        char *end;
        v[i] = CPLStrtod(tok[i], &end);
        ok = end != tok[i] && *end == '\0';
    }
    CSLDestroy(tok);
    return ok;
}

/* Polygons of a clip datasource, unioned into one (Multi)Polygon. */
static int load_clip_source(gk_context *ctx, const gk_read_options *ro, gk_err_capture *ec,
                            OGRGeometryH *out)
{
    char why[1100], names[1024];
    const char *name = ro->clipsrc;
    *out = NULL;
    ec->msg[0] = '\0';
    GDALDatasetH ds = GDALOpenEx(name, GDAL_OF_VECTOR | GDAL_OF_VERBOSE_ERROR, NULL, NULL, NULL);
    if (!ds)
        return gk_error(ctx, GK_ERR_IO,
                        "-clipsrc %s: not a rectangle, a POLYGON/MULTIPOLYGON WKT or a "
                        "readable vector datasource%s",
                        name, gk_gdal_reason(ec, why, sizeof why));
    OGRLayerH lyr = NULL;
    int rc = GK_OK;
    if (ro->clipsrcsql) {
        lyr = GDALDatasetExecuteSQL(ds, ro->clipsrcsql, NULL, NULL);
        if (!lyr)
            rc = gk_error(ctx, GK_ERR_ARG, "-clipsrcsql on %s failed%s", name,
                          gk_gdal_reason(ec, why, sizeof why));
    } else if (ro->clipsrclayer) {
        lyr = GDALDatasetGetLayerByName(ds, ro->clipsrclayer);
        if (!lyr) {
            gk_layer_list(ds, names, sizeof names);
            rc = gk_error(ctx, GK_ERR_ARG, "-clipsrclayer: no layer \"%s\" in %s (layers: %s)",
                          ro->clipsrclayer, name, names);
        }
    } else {
        lyr = GDALDatasetGetLayer(ds, 0);
        if (!lyr)
            rc = gk_error(ctx, GK_ERR_ARG, "-clipsrc %s has no layer", name);
    }
    if (!rc && ro->clipsrcwhere && OGR_L_SetAttributeFilter(lyr, ro->clipsrcwhere) != OGRERR_NONE)
        rc = gk_error(ctx, GK_ERR_ARG, "-clipsrcwhere \"%s\" on %s is invalid%s", ro->clipsrcwhere,
                      name, gk_gdal_reason(ec, why, sizeof why));
    OGRGeometryH mp = OGR_G_CreateGeometry(wkbMultiPolygon);
    if (!rc) {
        int nfail = ec->n_fail;
        OGR_L_ResetReading(lyr);
        OGRFeatureH f;
        while (!rc && (f = OGR_L_GetNextFeature(lyr)) != NULL) {
            OGRGeometryH g = OGR_F_GetGeometryRef(f);
            if (g) {
                OGRwkbGeometryType t = wkbFlatten(OGR_G_GetGeometryType(g));
                if (t == wkbPolygon) {
                    OGR_G_AddGeometry(mp, g);
                } else if (t == wkbMultiPolygon) {
                    for (int i = 0; i < OGR_G_GetGeometryCount(g); i++)
                        OGR_G_AddGeometry(mp, OGR_G_GetGeometryRef(g, i));
                } else {
                    rc = gk_error(ctx, GK_ERR_ARG,
                                  "-clipsrc %s: Geometry not of polygon type (feature " CPL_FRMT_GIB
                                  " is a %s)",
                                  name, OGR_F_GetFID(f), OGRGeometryTypeToName(t));
                }
            }
            OGR_F_Destroy(f);
        }
        if (!rc && ec->n_fail > nfail)
            rc = gk_error(ctx, GK_ERR_IO, "-clipsrc %s: reading failed%s%s%s%s", name,
                          gk_gdal_reason(ec, why, sizeof why),
                          ro->clipsrcwhere ? " (-clipsrcwhere \"" : "",
                          ro->clipsrcwhere ? ro->clipsrcwhere : "", ro->clipsrcwhere ? "\")" : "");
        if (!rc && OGR_G_GetGeometryCount(mp) == 0)
            rc = gk_error(ctx, GK_ERR_ARG, "-clipsrc %s: no polygon found%s", name,
                          ro->clipsrcwhere ? " (after -clipsrcwhere)" : "");
    }
    if (ro->clipsrcsql && lyr)
        GDALDatasetReleaseResultSet(ds, lyr);
    GDALClose(ds);
    if (rc) {
        OGR_G_DestroyGeometry(mp);
        return rc;
    }
    /* Union: overlapping parts would make an invalid MultiPolygon for GEOS. */
    OGR_G_FlattenTo2D(mp);
    OGRGeometryH u = OGR_G_GetGeometryCount(mp) > 1 ? OGR_G_UnionCascaded(mp) : NULL;
    if (u) {
        OGR_G_DestroyGeometry(mp);
        mp = u;
    }
    *out = mp;
    return GK_OK;
}

int gk_clip_build(gk_context *ctx, const gk_read_options *ro, gk_err_capture *ec, gk_clip_region *c)
{
    memset(c, 0, sizeof *c);
    OGRGeometryH spat = NULL, clip = NULL;
    if (ro->have_spat)
        spat = gk_clip_rect(ro->spat[0], ro->spat[1], ro->spat[2], ro->spat[3]);
    if (ro->clipsrc) {
        const char *s = ro->clipsrc;
        double v[4];
        VSIStatBufL st;
        if (EQUAL(s, "spat_extent")) {
            if (!spat)
                return gk_error(ctx, GK_ERR_ARG, "-clipsrc spat_extent needs -spat");
        } else if (parse_rect(s, v)) {
            clip = gk_clip_rect(v[0], v[1], v[2], v[3]);
        } else if ((STARTS_WITH_CI(s, "POLYGON") || STARTS_WITH_CI(s, "MULTIPOLYGON")) &&
                   VSIStatL(s, &st) != 0) {
            char *wkt = (char *)s;
            if (OGR_G_CreateFromWkt(&wkt, NULL, &clip) != OGRERR_NONE || !clip) {
                if (spat)
                    OGR_G_DestroyGeometry(spat);
                return gk_error(ctx, GK_ERR_ARG,
                                "-clipsrc: invalid geometry, must be a valid POLYGON or "
                                "MULTIPOLYGON WKT: %.200s",
                                s);
            }
            OGR_G_FlattenTo2D(clip);
        } else {
            int rc = load_clip_source(ctx, ro, ec, &clip);
            if (rc) {
                if (spat)
                    OGR_G_DestroyGeometry(spat);
                return rc;
            }
        }
    }
    OGRGeometryH g = spat;
    if (spat && clip) {
        g = OGR_G_Intersection(spat, clip);
        OGR_G_DestroyGeometry(spat);
        OGR_G_DestroyGeometry(clip);
        if (!g)
            return gk_error(ctx, GK_ERR_UNSUPPORTED,
                            "cannot intersect -spat with -clipsrc (GDAL built without GEOS?)");
    } else if (clip) {
        g = clip;
    }
    if (!g)
        return GK_OK;
    c->active = 1;
    c->geom = g;
    if (OGR_G_IsEmpty(g)) {
        gk_clip_free(c);
        return gk_error(ctx, GK_ERR_ARG, "-spat and -clipsrc do not overlap: nothing to read");
    }
    OGREnvelope e;
    OGR_G_GetEnvelope(g, &e);
    c->xmin = e.MinX;
    c->ymin = e.MinY;
    c->xmax = e.MaxX;
    c->ymax = e.MaxY;
    c->is_rect = geom_is_rect(g, &e);
    c->active = 1;
    if (!c->is_rect) {
        c->pt = OGR_G_CreateGeometry(wkbPoint);
        if (OGRHasPreparedGeometrySupport())
            c->prep = OGRCreatePreparedGeometry(g);
    }
    return GK_OK;
}
