/*
 * read_points.c - points in: OGR layers with gdal_grid's selection options
 * (-l, -sql, -where, -spat, -clipsrc*, -zfield, -z_increase, -z_multiply),
 * or .xyz text through the native reader (algorithms/core/points_xyz.c).
 *
 * Differences from gdal_grid 3.6 (reference/gdal_grid.md section 8, items
 * 11, 12, 15, 16): points without a valid value (null -zfield, NaN or infinite X, Y, Z) are
 * skipped and counted; 2-D geometry without -zfield is an error when the
 * algorithm reads Z; an unknown layer, a bad WHERE/SQL and a layer with no
 * usable point are errors; the -sql layer's SRS is used. As gdal_grid, a
 * point exactly on the -spat / -clipsrc boundary is excluded.
 *
 * Layers with a fast Arrow stream are read through it (3x faster for a
 * GeoPackage) with the same result as feature by feature; the config option
 * GRIDKIT_OGR_ARROW=NO turns that off (the tests compare the two).
 */
#include "io/read_points.h"
#include "core/points_xyz.h"
#include "io/read_gpkg.h"
#include "io/wkb_point.h"

#include "cpl_conv.h"
#include "cpl_multiproc.h"
#include "cpl_error.h"
#include "cpl_string.h"
#include "cpl_vsi.h"
#include "gdal.h"
#include "ogr_api.h"
#include "ogr_recordbatch.h"
#include "ogr_srs_api.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- GDAL error capture ------------------------------------------------- */

/* Failures are kept for our own message (and not printed twice); warnings
 * and debug output still reach the user through the default handler. */
typedef struct {
    char msg[1024];
    int n_fail;
} err_capture;

static void CPL_STDCALL capture_handler(CPLErr cls, CPLErrorNum no, const char *msg)
{
    err_capture *ec = CPLGetErrorHandlerUserData();
    if (ec && cls >= CE_Failure) {
        snprintf(ec->msg, sizeof ec->msg, "%s", msg ? msg : "");
        ec->n_fail++;
        return;
    }
    CPLDefaultErrorHandler(cls, no, msg);
}

/* ": <GDAL message>" or "" for appending to our messages. */
static const char *gdal_reason(const err_capture *ec, char *buf, size_t cap)
{
    if (ec->msg[0])
        snprintf(buf, cap, ": %s", ec->msg);
    else
        buf[0] = '\0';
    return buf;
}

/* Comma-separated layer names of ds, for messages. */
static void layer_list(GDALDatasetH ds, char *buf, size_t cap)
{
    size_t n = 0;
    int nl = GDALDatasetGetLayerCount(ds);
    buf[0] = '\0';
    for (int i = 0; i < nl && n + 8 < cap; i++) {
        const char *name = OGR_L_GetName(GDALDatasetGetLayer(ds, i));
        n += (size_t)snprintf(buf + n, cap - n, "%s\"%s\"", i ? ", " : "", name ? name : "");
    }
    if (n >= cap)
        memcpy(buf + cap - 4, "...", 4);
    if (nl == 0)
        snprintf(buf, cap, "none");
}

static void field_list(OGRFeatureDefnH defn, char *buf, size_t cap)
{
    size_t n = 0;
    int nf = OGR_FD_GetFieldCount(defn);
    buf[0] = '\0';
    for (int i = 0; i < nf && n + 8 < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s\"%s\"", i ? ", " : "",
                              OGR_Fld_GetNameRef(OGR_FD_GetFieldDefn(defn, i)));
    if (n >= cap)
        memcpy(buf + cap - 4, "...", 4);
    if (nf == 0)
        snprintf(buf, cap, "none");
}

/* ---- clip region (-spat, -clipsrc) -------------------------------------- */

typedef struct {
    int active;
    int is_rect;                 /* axis-aligned rectangle: pure compare */
    double xmin, ymin, xmax, ymax; /* envelope */
    OGRGeometryH geom;
    OGRPreparedGeometryH prep;
    OGRGeometryH pt;             /* reused test point */
} clip_region;

static OGRGeometryH make_rect(double x0, double y0, double x1, double y1)
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

/* Strictly inside (gdal_grid's OGRPoint::Within): boundary points excluded. */
static inline int clip_inside(clip_region *c, double x, double y)
{
    if (!(x > c->xmin && x < c->xmax && y > c->ymin && y < c->ymax))
        return 0;
    if (c->is_rect)
        return 1;
    OGR_G_SetPoint_2D(c->pt, 0, x, y);
    if (c->prep)
        return OGRPreparedGeometryContains(c->prep, c->pt);
    return OGR_G_Within(c->pt, c->geom);
}

static void clip_free(clip_region *c)
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
static int load_clip_source(gk_context *ctx, const gk_read_options *ro, err_capture *ec,
                            OGRGeometryH *out)
{
    char why[1100], names[1024];
    const char *name = ro->clipsrc;
    *out = NULL;
    ec->msg[0] = '\0';
    GDALDatasetH ds =
        GDALOpenEx(name, GDAL_OF_VECTOR | GDAL_OF_VERBOSE_ERROR, NULL, NULL, NULL);
    if (!ds)
        return gk_error(ctx, GK_ERR_IO,
                        "-clipsrc %s: not a rectangle, a POLYGON/MULTIPOLYGON WKT or a "
                        "readable vector datasource%s",
                        name, gdal_reason(ec, why, sizeof why));
    OGRLayerH lyr = NULL;
    int rc = GK_OK;
    if (ro->clipsrcsql) {
        lyr = GDALDatasetExecuteSQL(ds, ro->clipsrcsql, NULL, NULL);
        if (!lyr)
            rc = gk_error(ctx, GK_ERR_ARG, "-clipsrcsql on %s failed%s", name,
                          gdal_reason(ec, why, sizeof why));
    } else if (ro->clipsrclayer) {
        lyr = GDALDatasetGetLayerByName(ds, ro->clipsrclayer);
        if (!lyr) {
            layer_list(ds, names, sizeof names);
            rc = gk_error(ctx, GK_ERR_ARG, "-clipsrclayer: no layer \"%s\" in %s (layers: %s)",
                          ro->clipsrclayer, name, names);
        }
    } else {
        lyr = GDALDatasetGetLayer(ds, 0);
        if (!lyr)
            rc = gk_error(ctx, GK_ERR_ARG, "-clipsrc %s has no layer", name);
    }
    if (!rc && ro->clipsrcwhere && OGR_L_SetAttributeFilter(lyr, ro->clipsrcwhere) != OGRERR_NONE)
        rc = gk_error(ctx, GK_ERR_ARG, "-clipsrcwhere \"%s\" on %s is invalid%s",
                      ro->clipsrcwhere, name, gdal_reason(ec, why, sizeof why));
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
            rc = gk_error(ctx, GK_ERR_IO, "-clipsrc %s: reading failed%s", name,
                          gdal_reason(ec, why, sizeof why));
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

static int build_clip(gk_context *ctx, const gk_read_options *ro, err_capture *ec,
                      clip_region *c)
{
    memset(c, 0, sizeof *c);
    OGRGeometryH spat = NULL, clip = NULL;
    if (ro->have_spat)
        spat = make_rect(ro->spat[0], ro->spat[1], ro->spat[2], ro->spat[3]);
    if (ro->clipsrc) {
        const char *s = ro->clipsrc;
        double v[4];
        VSIStatBufL st;
        if (EQUAL(s, "spat_extent")) {
            if (!spat)
                return gk_error(ctx, GK_ERR_ARG, "-clipsrc spat_extent needs -spat");
        } else if (parse_rect(s, v)) {
            clip = make_rect(v[0], v[1], v[2], v[3]);
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
        clip_free(c);
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

/* ---- vertex visitor ----------------------------------------------------- */

typedef enum { Z_GEOM, Z_FIELD, Z_SKIP } z_mode;

typedef struct {
    gk_context *ctx;
    gk_layer_points *lp;
    clip_region *clip;
    z_mode mode;
    double zfield_value;
    double zinc, zmul;
    double *bx, *by, *bz; /* GetPoints buffers, reused across features */
    size_t bcap;
    int err;
} visitor;

static inline void add_vertex(visitor *v, double x, double y, double z)
{
    if (v->clip->active && !clip_inside(v->clip, x, y)) {
        v->lp->n_clipped++;
        return;
    }
    if (v->mode == Z_SKIP) {
        v->lp->n_skipped_z++;
        return;
    }
    if (v->mode == Z_FIELD)
        z = v->zfield_value;
    z = (z + v->zinc) * v->zmul;
    /* an infinite value would reach every node it weighs on (inf or NaN
     * rasters): skipped like a NaN Z, and counted */
    if (!isfinite(x) || !isfinite(y) || !isfinite(z)) {
        v->lp->n_skipped_z++;
        return;
    }
    if (gk_points_add(v->lp->pts, x, y, z))
        v->err = GK_ERR_NOMEM;
}

static void visit(visitor *v, OGRGeometryH g)
{
    OGRwkbGeometryType t = wkbFlatten(OGR_G_GetGeometryType(g));
    if (t == wkbPoint) {
        if (!OGR_G_IsEmpty(g))
            add_vertex(v, OGR_G_GetX(g, 0), OGR_G_GetY(g, 0), OGR_G_GetZ(g, 0));
        return;
    }
    if (t == wkbLineString || t == wkbLinearRing || t == wkbCircularString) {
        int n = OGR_G_GetPointCount(g);
        if (n <= 0)
            return;
        if ((size_t)n > v->bcap) {
            size_t cap = (size_t)n * 2;
            double *nx = realloc(v->bx, cap * sizeof *nx);
            if (nx)
                v->bx = nx;
            double *ny = realloc(v->by, cap * sizeof *ny);
            if (ny)
                v->by = ny;
            double *nz = realloc(v->bz, cap * sizeof *nz);
            if (nz)
                v->bz = nz;
            if (!nx || !ny || !nz) {
                v->err = gk_error(v->ctx, GK_ERR_NOMEM, "out of memory reading a geometry");
                return;
            }
            v->bcap = cap;
        }
        OGR_G_GetPoints(g, v->bx, (int)sizeof(double), v->by, (int)sizeof(double), v->bz,
                        (int)sizeof(double));
        if (!OGR_G_Is3D(g))
            memset(v->bz, 0, (size_t)n * sizeof(double));
        for (int i = 0; i < n && !v->err; i++)
            add_vertex(v, v->bx[i], v->by[i], v->bz[i]);
        return;
    }
    /* Polygons (rings), compound curves, multi-* and collections. */
    int n = OGR_G_GetGeometryCount(g);
    for (int i = 0; i < n && !v->err; i++)
        visit(v, OGR_G_GetGeometryRef(g, i));
}

/* ---- one OGR layer ------------------------------------------------------ */

/* What every reading path of one layer shares. */
typedef struct {
    OGRFeatureDefnH defn;
    int zidx;     /* -zfield index, -1 */
    int check_2d; /* Z from the geometry and the algorithm reads it */
} layer_ctx;

static int error_2d(visitor *v, const layer_ctx *lc)
{
    char names[1024];
    field_list(lc->defn, names, sizeof names);
    return v->err = gk_error(v->ctx, GK_ERR_ARG,
                             "layer \"%s\" has 2-D geometries and no -zfield: give "
                             "-zfield with one of its fields (%s), or use an algorithm that "
                             "ignores Z (count, average_distance, average_distance_pts)",
                             v->lp->name, names);
}

/* One feature's geometry; Z from the field when zidx >= 0 (mode set by the
 * caller). */
static void visit_feature_geometry(visitor *v, const layer_ctx *lc, OGRGeometryH g)
{
    if (lc->check_2d && !OGR_G_Is3D(g) && !OGR_G_IsEmpty(g))
        error_2d(v, lc);
    else
        visit(v, g);
}

/* The feature by feature path: every driver, every option. */
static void read_features(visitor *v, const layer_ctx *lc, OGRLayerH lyr)
{
    OGRFeatureH f;
    OGR_L_ResetReading(lyr);
    while (!v->err && (f = OGR_L_GetNextFeature(lyr)) != NULL) {
        v->lp->n_features++;
        OGRGeometryH g = OGR_F_GetGeometryRef(f);
        if (g) {
            if (lc->zidx >= 0) {
                if (OGR_F_IsFieldSetAndNotNull(f, lc->zidx)) {
                    v->mode = Z_FIELD;
                    v->zfield_value = OGR_F_GetFieldAsDouble(f, lc->zidx);
                } else {
                    v->mode = Z_SKIP;
                }
            }
            visit_feature_geometry(v, lc, g);
        }
        OGR_F_Destroy(f);
    }
}

/* ---- the same through OGR's Arrow stream --------------------------------- */

/* Where the driver has a fast Arrow stream (GeoPackage, FlatGeobuf, ...),
 * geometries come as WKB columns a batch of rows at a time, without an
 * OGRFeature per point: 3x faster for a GeoPackage. Points are decoded here;
 * other geometries go through OGR_G_CreateFromWkbEx() and the same visitor,
 * so the points, their order and the counts are those of read_features().
 * Anything unexpected gives up (ARROW_NO) before or after any row, and the
 * layer is read again feature by feature. */
#define ARROW_NO (-1)

static int arrow_bit(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *valid = a->null_count != 0 ? a->buffers[0] : NULL;
    i += a->offset;
    return !valid || (valid[i >> 3] >> (i & 7)) & 1;
}

static int child_index(const struct ArrowSchema *sc, const char *name, const char *formats)
{
    for (int64_t i = 0; i < sc->n_children; i++) {
        const struct ArrowSchema *c = sc->children[i];
        if (c->name && !strcmp(c->name, name) && c->format && strlen(c->format) == 1 &&
            strchr(formats, c->format[0]))
            return (int)i;
    }
    return -1;
}

/* One batch. 0, or ARROW_NO for a layout this code does not read. */
static int arrow_batch(visitor *v, const layer_ctx *lc, const struct ArrowArray *a,
                       int gcol, char gfmt, int zcol, char zfmt)
{
    const struct ArrowArray *ga = a->children[gcol];
    const struct ArrowArray *za = zcol >= 0 ? a->children[zcol] : NULL;
    if (ga->n_buffers != 3 || (za && za->n_buffers != 2) || a->offset != 0)
        return ARROW_NO;
    const unsigned char *data = ga->buffers[2];
    for (int64_t r = 0; r < a->length && !v->err; r++) {
        v->lp->n_features++;
        if (!arrow_bit(ga, r))
            continue; /* no geometry */
        int64_t k = ga->offset + r;
        size_t off, end;
        if (gfmt == 'z') {
            const int32_t *o = ga->buffers[1];
            off = (size_t)o[k];
            end = (size_t)o[k + 1];
        } else {
            const int64_t *o = ga->buffers[1];
            off = (size_t)o[k];
            end = (size_t)o[k + 1];
        }
        if (end <= off)
            return ARROW_NO; /* a geometry of no bytes: not what OGR would read */
        if (za) {
            if (arrow_bit(za, r)) {
                int64_t j = za->offset + r;
                v->mode = Z_FIELD;
                v->zfield_value = zfmt == 'g'   ? ((const double *)za->buffers[1])[j]
                                  : zfmt == 'l' ? (double)((const int64_t *)za->buffers[1])[j]
                                                : (double)((const int32_t *)za->buffers[1])[j];
            } else {
                v->mode = Z_SKIP;
            }
        }
        double x, y, z;
        int is3d;
        if (gk_wkb_point(data + off, end - off, &x, &y, &z, &is3d) == 1) {
            if (lc->check_2d && !is3d)
                error_2d(v, lc);
            else
                add_vertex(v, x, y, z);
            continue;
        }
        OGRGeometryH g = NULL;
        if (OGR_G_CreateFromWkbEx(data + off, NULL, &g, end - off) != OGRERR_NONE || !g)
            return ARROW_NO; /* let the driver's own path say what it makes of it */
        visit_feature_geometry(v, lc, g);
        OGR_G_DestroyGeometry(g);
    }
    return 0;
}

static int read_arrow(visitor *v, const layer_ctx *lc, OGRLayerH lyr)
{
    OGRGeomFieldDefnH gd = OGR_FD_GetGeomFieldDefn(lc->defn, 0);
    const char *gname = gd ? OGR_GFld_GetNameRef(gd) : NULL;
    if (!gname)
        return ARROW_NO;
    if (!*gname)
        gname = "wkb_geometry"; /* what OGR calls an unnamed geometry column */
    /* With the FID: GDAL 3.6's GeoPackage stream gives empty geometries
     * when no attribute column is left */
    char **opt = CSLSetNameValue(NULL, "INCLUDE_FID", "YES");
    struct ArrowArrayStream st;
    memset(&st, 0, sizeof st);
    OGR_L_ResetReading(lyr);
    int ok = OGR_L_GetArrowStream(lyr, &st, opt);
    CSLDestroy(opt);
    if (!ok)
        return ARROW_NO;
    struct ArrowSchema sc;
    memset(&sc, 0, sizeof sc);
    int rc = ARROW_NO;
    if (st.get_schema(&st, &sc) == 0 && sc.format && !strcmp(sc.format, "+s")) {
        int gcol = child_index(&sc, gname, "zZ"), zcol = -1;
        if (lc->zidx >= 0)
            zcol = child_index(
                &sc, OGR_Fld_GetNameRef(OGR_FD_GetFieldDefn(lc->defn, lc->zidx)), "gil");
        if (gcol >= 0 && (lc->zidx < 0 || zcol >= 0)) {
            char gfmt = sc.children[gcol]->format[0];
            char zfmt = zcol >= 0 ? sc.children[zcol]->format[0] : 0;
            rc = 0;
            while (rc == 0 && !v->err) {
                struct ArrowArray a;
                memset(&a, 0, sizeof a);
                if (st.get_next(&st, &a) != 0) {
                    rc = ARROW_NO;
                    break;
                }
                if (!a.release)
                    break; /* end of stream */
                if (a.n_children != sc.n_children)
                    rc = ARROW_NO;
                else
                    rc = arrow_batch(v, lc, &a, gcol, gfmt, zcol, zfmt);
                a.release(&a);
            }
        }
    }
    if (sc.release)
        sc.release(&sc);
    st.release(&st);
    return rc;
}

static int arrow_wanted(int is_sql, const clip_region *clip, OGRLayerH lyr, OGRFeatureDefnH defn)
{
    /* -sql result layers and spatial filters stay on the feature path: a
     * spatially filtered GeoPackage stream gains little, and with -where as
     * well it is twice as slow as the features */
    return !is_sql && !clip->active && OGR_FD_GetGeomFieldCount(defn) == 1 &&
           CPLTestBool(CPLGetConfigOption("GRIDKIT_OGR_ARROW", "YES")) &&
           OGR_L_TestCapability(lyr, OLCFastGetArrowStream);
}

/* The first SRS among the layers, as WKT. */
static void take_srs(gk_source_points *out, OGRLayerH lyr)
{
    if (out->srs_wkt)
        return;
    OGRSpatialReferenceH srs = OGR_L_GetSpatialRef(lyr);
    char *wkt = NULL;
    if (srs && OSRExportToWkt(srs, &wkt) == OGRERR_NONE && wkt && *wkt)
        out->srs_wkt = strdup(wkt);
    CPLFree(wkt);
}

/* take_srs, left to read_layer: exporting the SRS can take PROJ's database
 * several milliseconds (8 ms for an "unknown" CRS), which the GeoPackage
 * reader runs on this thread while its connections read. */
typedef struct {
    gk_source_points *out;
    OGRLayerH lyr;
    int done;
} srs_task;

static void srs_task_run(void *arg)
{
    srs_task *t = arg;
    if (!t->done)
        take_srs(t->out, t->lyr);
    t->done = 1;
}

/* ---- the same straight from SQLite (GeoPackage) --------------------------- */

/* A GeoPackage layer read whole, with no -where, -sql, -spat, -clipsrc or
 * open option (one could change what OGR reads): read_gpkg.c, several
 * connections at once. GRIDKIT_GPKG_SQLITE=NO turns it off (the tests
 * compare it with OGR's paths). */
static int gpkg_wanted(const gk_read_options *ro, GDALDatasetH ds, int is_sql,
                       const clip_region *clip, OGRFeatureDefnH defn)
{
    GDALDriverH drv = GDALGetDatasetDriver(ds);
    return !is_sql && !clip->active && !ro->where && CSLCount(ro->open_options) == 0 &&
           drv && EQUAL(GDALGetDriverShortName(drv), "GPKG") &&
           OGR_FD_GetGeomFieldCount(defn) == 1 &&
           CPLTestBool(CPLGetConfigOption("GRIDKIT_GPKG_SQLITE", "YES"));
}

static int read_gpkg(gk_context *ctx, const gk_read_options *ro, GDALDatasetH ds,
                     OGRLayerH lyr, const layer_ctx *lc, GIntBig n_hint, gk_layer_points *lp,
                     srs_task *srs)
{
    gk_gpkg_layer g = {0};
    g.beside = srs_task_run;
    g.beside_arg = srs;
    g.n_hint = n_hint;
    g.path = GDALGetDescription(ds);
    g.table = OGR_L_GetName(lyr);
    g.fid = OGR_L_GetFIDColumn(lyr);
    g.geom = OGR_L_GetGeometryColumn(lyr);
    if (lc->zidx >= 0) {
        OGRFieldDefnH fd = OGR_FD_GetFieldDefn(lc->defn, lc->zidx);
        g.zfield = OGR_Fld_GetNameRef(fd);
        g.zfield_type = OGR_Fld_GetType(fd);
        if (g.zfield_type != OFTInteger && g.zfield_type != OFTInteger64 &&
            g.zfield_type != OFTReal)
            return GK_GPKG_DECLINED;
    }
    g.need_3d = lc->check_2d;
    g.z_increase = ro->z_increase;
    g.z_multiply = ro->z_multiply;
    /* a connection per core, up to 16 (16-core machine, a million points,
     * the CLI having turned SQLite's memory statistics off: 0.21 s on one,
     * 0.019-0.027 on 8, 0.010-0.014 on 16) */
    int t = gk_context_threads(ctx) > 0 ? gk_context_threads(ctx) : CPLGetNumCPUs();
    g.threads = t < 1 ? 1 : t > 16 ? 16 : t;
    gk_points *pts = gk_points_new(ctx);
    if (!pts)
        return GK_ERR_NOMEM;
    size_t nf = 0, ns = 0;
    int rc = gk_read_gpkg_points(ctx, &g, pts, &nf, &ns);
    if (rc != GK_OK) {
        gk_points_free(pts);
        if (rc == GK_GPKG_DECLINED)
            CPLDebug("GRIDKIT", "layer \"%s\": not read straight from SQLite", lp->name);
        return rc;
    }
    CPLDebug("GRIDKIT", "layer \"%s\": read straight from SQLite, up to %d connections", lp->name,
             g.threads);
    gk_points_free(lp->pts);
    lp->pts = pts;
    lp->n_features = nf;
    lp->n_skipped_z = ns;
    lp->n_clipped = 0;
    lp->read_by = "sqlite";
    return GK_OK;
}

static int read_layer(gk_context *ctx, const gk_read_options *ro, const char *src,
                      GDALDatasetH ds, OGRLayerH lyr, int is_sql, clip_region *clip,
                      err_capture *ec, gk_layer_points *lp, srs_task *srs)
{
    char why[1100], names[1024];
    const char *lname = lp->name;
    OGRFeatureDefnH defn = OGR_L_GetLayerDefn(lyr);
    int zidx = -1;
    if (ro->zfield) {
        zidx = OGR_FD_GetFieldIndex(defn, ro->zfield);
        if (zidx < 0) {
            field_list(defn, names, sizeof names);
            return gk_error(ctx, GK_ERR_ARG,
                            "-zfield: no field \"%s\" on layer \"%s\" of %s (fields: %s)",
                            ro->zfield, lname, src, names);
        }
    }
    /* Skip decoding attributes we never look at (a large speed-up for wide
     * layers). Not with -where: some drivers evaluate it on ignored fields. */
    if (!is_sql && !ro->where && OGR_L_TestCapability(lyr, OLCIgnoreFields)) {
        int nf = OGR_FD_GetFieldCount(defn);
        const char **ign = calloc((size_t)nf + 2, sizeof *ign);
        if (ign) {
            int k = 0;
            for (int i = 0; i < nf; i++)
                if (i != zidx)
                    ign[k++] = OGR_Fld_GetNameRef(OGR_FD_GetFieldDefn(defn, i));
            ign[k++] = "OGR_STYLE";
            OGR_L_SetIgnoredFields(lyr, ign);
            free(ign);
        }
    }
    GIntBig fc = OGR_L_TestCapability(lyr, OLCFastFeatureCount) ? OGR_L_GetFeatureCount(lyr, 0)
                                                                 : -1;
    layer_ctx lc = {defn, zidx, !ro->zfield && ro->needs_z};
    visitor v = {ctx, lp, clip, Z_GEOM, 0, ro->z_increase, ro->z_multiply, NULL, NULL, NULL, 0, 0};
    int nfail = ec->n_fail;
    int done = 0;
    if (gpkg_wanted(ro, ds, is_sql, clip, defn)) {
        int rc = read_gpkg(ctx, ro, ds, lyr, &lc, fc, lp, srs);
        if (rc != GK_GPKG_DECLINED && rc != GK_OK)
            return rc;
        done = rc == GK_OK;
    }
    srs_task_run(srs);
    int arrow = arrow_wanted(is_sql, clip, lyr, defn);
    for (int pass = arrow ? 0 : 1; !done && pass < 2; pass++) {
        /* pass 0: the Arrow stream; pass 1: feature by feature (from scratch) */
        gk_points_free(lp->pts);
        lp->n_features = lp->n_skipped_z = lp->n_clipped = 0;
        v.err = GK_OK;
        v.mode = Z_GEOM;
        lp->pts = gk_points_new(ctx);
        if (!lp->pts)
            return GK_ERR_NOMEM;
        if (fc > 0 && gk_points_reserve(lp->pts, (size_t)fc))
            gk_error_clear(ctx); /* only a hint */
        if (pass == 1) {
            read_features(&v, &lc, lyr);
            lp->read_by = "features";
            break;
        }
        char msg[sizeof ec->msg];
        memcpy(msg, ec->msg, sizeof msg);
        if (read_arrow(&v, &lc, lyr) != ARROW_NO && ec->n_fail == nfail) {
            CPLDebug("GRIDKIT", "layer \"%s\": read through the Arrow stream", lname);
            lp->read_by = "arrow";
            break;
        }
        CPLDebug("GRIDKIT", "layer \"%s\": Arrow stream not usable, reading features", lname);
        ec->n_fail = nfail; /* the feature path has the last word on errors */
        memcpy(ec->msg, msg, sizeof msg);
    }
    free(v.bx);
    free(v.by);
    free(v.bz);
    if (v.err)
        return v.err;
    if (ec->n_fail > nfail)
        return gk_error(ctx, GK_ERR_IO, "reading layer \"%s\" of %s failed%s%s%s%s", lname,
                        src, gdal_reason(ec, why, sizeof why),
                        !is_sql && ro->where ? " (-where \"" : "",
                        !is_sql && ro->where ? ro->where : "",
                        !is_sql && ro->where ? "\")" : "");
    if (gk_points_count(lp->pts) == 0)
        return gk_error(ctx, GK_ERR_NO_POINTS,
                        "layer \"%s\" of %s has no usable point: %zu feature(s) read, "
                        "%zu vertex(es) outside -spat/-clipsrc, %zu without finite X, Y and Z",
                        lname, src, lp->n_features, lp->n_clipped, lp->n_skipped_z);
    return GK_OK;
}

/* ---- XYZ text ----------------------------------------------------------- */

static int ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && EQUAL(s + n - m, suffix);
}

static int read_xyz(gk_context *ctx, const gk_read_options *ro, clip_region *clip,
                    gk_source_points *out)
{
    const char *src = ro->src;
    char base[512];
    snprintf(base, sizeof base, "%s", CPLGetBasename(src));
    if (ro->sql)
        return gk_error(ctx, GK_ERR_ARG, "-sql cannot be used on XYZ text (%s)", src);
    if (ro->where)
        return gk_error(ctx, GK_ERR_ARG, "-where cannot be used on XYZ text (%s)", src);
    for (int i = 0; ro->layers && ro->layers[i]; i++)
        if (!EQUAL(ro->layers[i], base))
            return gk_error(ctx, GK_ERR_ARG, "no layer \"%s\" in %s (layers: \"%s\")",
                            ro->layers[i], src, base);
    int n_layers = CSLCount(ro->layers) > 0 ? CSLCount(ro->layers) : 1;
    out->layers = calloc((size_t)n_layers, sizeof *out->layers);
    if (!out->layers)
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory");
    out->n_layers = n_layers;
    gk_layer_points *lp = &out->layers[0];
    lp->name = strdup(base);
    gk_points *raw = gk_points_new(ctx);
    if (!lp->name || !raw) {
        gk_points_free(raw);
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory");
    }
    int rc = gk_points_read_xyz(ctx, src, ro->zfield, raw, &lp->n_skipped_z);
    if (rc) {
        gk_points_free(raw);
        return rc;
    }
    size_t n = gk_points_count(raw);
    lp->n_features = n + lp->n_skipped_z;
    lp->read_by = "xyz";
    if (!clip->active && ro->z_increase == 0.0 && ro->z_multiply == 1.0) {
        lp->pts = raw;
    } else {
        lp->pts = gk_points_new(ctx);
        if (!lp->pts || gk_points_reserve(lp->pts, n ? n : 1)) {
            gk_points_free(raw);
            return gk_error(ctx, GK_ERR_NOMEM, "out of memory holding %zu points", n);
        }
        const double *x = gk_points_x(raw), *y = gk_points_y(raw), *z = gk_points_z(raw);
        for (size_t i = 0; i < n; i++) {
            if (clip->active && !clip_inside(clip, x[i], y[i])) {
                lp->n_clipped++;
                continue;
            }
            double zz = (z[i] + ro->z_increase) * ro->z_multiply;
            if (!isfinite(zz)) { /* -z_increase/-z_multiply overflowed */
                lp->n_skipped_z++;
                continue;
            }
            gk_points_add(lp->pts, x[i], y[i], zz);
        }
        gk_points_free(raw);
    }
    if (gk_points_count(lp->pts) == 0)
        return gk_error(ctx, GK_ERR_NO_POINTS,
                        "%s has no usable point: %zu line(s) read, %zu outside -spat/-clipsrc, "
                        "%zu without finite X, Y and Z",
                        src, lp->n_features, lp->n_clipped, lp->n_skipped_z);
    /* The same file asked for several times (-l x -l x): one band each. */
    for (int i = 1; i < n_layers; i++) {
        gk_layer_points *d = &out->layers[i];
        *d = *lp;
        d->pts = NULL;
        d->name = strdup(lp->name);
        d->pts = gk_points_new(ctx);
        size_t m = gk_points_count(lp->pts);
        if (!d->name || !d->pts || gk_points_reserve(d->pts, m))
            return gk_error(ctx, GK_ERR_NOMEM, "out of memory");
        for (size_t k = 0; k < m; k++)
            gk_points_add(d->pts, gk_points_x(lp->pts)[k], gk_points_y(lp->pts)[k],
                          gk_points_z(lp->pts)[k]);
    }
    return GK_OK;
}

/* ---- entry point -------------------------------------------------------- */

void gk_source_points_free(gk_source_points *sp)
{
    if (!sp)
        return;
    for (int i = 0; i < sp->n_layers; i++) {
        free(sp->layers[i].name);
        gk_points_free(sp->layers[i].pts);
    }
    free(sp->layers);
    free(sp->srs_wkt);
    memset(sp, 0, sizeof *sp);
}

static int read_ogr(gk_context *ctx, const gk_read_options *ro, clip_region *clip,
                    err_capture *ec, gk_source_points *out)
{
    char why[1100], names[1024];
    const char *src = ro->src;
    ec->msg[0] = '\0';
    GDALDatasetH ds = GDALOpenEx(src, GDAL_OF_VECTOR | GDAL_OF_VERBOSE_ERROR, NULL,
                                 (const char *const *)ro->open_options, NULL);
    if (!ds)
        return gk_error(ctx, GK_ERR_IO, "cannot open %s as a vector datasource%s", src,
                        gdal_reason(ec, why, sizeof why));
    int n_l = CSLCount(ro->layers);
    int rc = GK_OK;
    if (!ro->sql && n_l == 0 && GDALDatasetGetLayerCount(ds) != 1) {
        layer_list(ds, names, sizeof names);
        rc = gk_error(ctx, GK_ERR_ARG,
                      "%s has %d layers (%s): choose with -l (or use -sql)", src,
                      GDALDatasetGetLayerCount(ds), names);
        GDALClose(ds);
        return rc;
    }
    /* Unknown -l names fail before any reading. */
    for (int i = 0; i < n_l; i++) {
        if (!GDALDatasetGetLayerByName(ds, ro->layers[i])) {
            layer_list(ds, names, sizeof names);
            rc = gk_error(ctx, GK_ERR_ARG, "no layer \"%s\" in %s (layers: %s)",
                          ro->layers[i], src, names);
            GDALClose(ds);
            return rc;
        }
    }
    int n_layers = (ro->sql ? 1 : 0) + (n_l ? n_l : (ro->sql ? 0 : 1));
    out->layers = calloc((size_t)n_layers, sizeof *out->layers);
    if (!out->layers) {
        GDALClose(ds);
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory");
    }
    out->n_layers = n_layers;
    OGRGeometryH filt = clip->active ? make_rect(clip->xmin, clip->ymin, clip->xmax, clip->ymax)
                                     : NULL;
    int k = 0;
    if (ro->sql) {
        gk_layer_points *lp = &out->layers[k++];
        lp->name = strdup("SQL");
        ec->msg[0] = '\0';
        OGRLayerH lyr = GDALDatasetExecuteSQL(ds, ro->sql, filt, NULL);
        if (!lyr) {
            rc = gk_error(ctx, GK_ERR_ARG, "-sql on %s failed%s", src,
                          ec->msg[0] ? gdal_reason(ec, why, sizeof why)
                                     : ": the statement gives no result layer");
        } else {
            srs_task srs = {out, lyr, 0};
            rc = read_layer(ctx, ro, src, ds, lyr, 1, clip, ec, lp, &srs);
            GDALDatasetReleaseResultSet(ds, lyr);
        }
    }
    for (int i = 0; !rc && k < n_layers; i++) {
        gk_layer_points *lp = &out->layers[k++];
        OGRLayerH lyr = n_l ? GDALDatasetGetLayerByName(ds, ro->layers[i])
                            : GDALDatasetGetLayer(ds, 0);
        lp->name = strdup(OGR_L_GetName(lyr));
        ec->msg[0] = '\0';
        if (OGR_L_SetAttributeFilter(lyr, ro->where) != OGRERR_NONE) {
            rc = gk_error(ctx, GK_ERR_ARG, "-where \"%s\" is invalid on layer \"%s\" of %s%s",
                          ro->where, lp->name, src, gdal_reason(ec, why, sizeof why));
            break;
        }
        if (clip->active)
            OGR_L_SetSpatialFilterRect(lyr, clip->xmin, clip->ymin, clip->xmax, clip->ymax);
        else
            OGR_L_SetSpatialFilter(lyr, NULL);
        srs_task srs = {out, lyr, 0};
        rc = read_layer(ctx, ro, src, ds, lyr, 0, clip, ec, lp, &srs);
    }
    if (filt)
        OGR_G_DestroyGeometry(filt);
    GDALClose(ds);
    return rc;
}

int gk_peek_points(const gk_read_options *ro, double *n_features, double bbox[4])
{
    const char *fmt = CSLFetchNameValue(ro->open_options, "FORMAT");
    if (!ro->src || ro->sql || (fmt && EQUAL(fmt, "XYZ")) || ends_with_ci(ro->src, ".xyz"))
        return -1;
    if (GDALGetDriverCount() == 0)
        GDALAllRegister();
    CPLPushErrorHandler(CPLQuietErrorHandler);
    GDALDatasetH ds = GDALOpenEx(ro->src, GDAL_OF_VECTOR | GDAL_OF_READONLY, NULL,
                                 (const char *const *)ro->open_options, NULL);
    int n_l = CSLCount(ro->layers), rc = ds ? 0 : -1;
    double n = 0, x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    if (ds && n_l == 0 && GDALDatasetGetLayerCount(ds) != 1)
        rc = -1;
    for (int i = 0; !rc && i < (n_l ? n_l : 1); i++) {
        OGRLayerH lyr = n_l ? GDALDatasetGetLayerByName(ds, ro->layers[i])
                            : GDALDatasetGetLayer(ds, 0);
        OGREnvelope e;
        GIntBig c = lyr ? OGR_L_GetFeatureCount(lyr, FALSE) : -1;
        if (c < 0 || OGR_L_GetExtent(lyr, &e, FALSE) != OGRERR_NONE) {
            rc = -1;
            break;
        }
        n = fmax(n, (double)c);
        x0 = fmin(x0, e.MinX);
        y0 = fmin(y0, e.MinY);
        x1 = fmax(x1, e.MaxX);
        y1 = fmax(y1, e.MaxY);
    }
    if (ds)
        GDALClose(ds);
    CPLPopErrorHandler();
    if (rc || !(x1 >= x0) || !(y1 >= y0))
        return -1;
    *n_features = n;
    bbox[0] = x0;
    bbox[1] = y0;
    bbox[2] = x1;
    bbox[3] = y1;
    return 0;
}

int gk_read_points(gk_context *ctx, const gk_read_options *ro, gk_source_points *out)
{
    memset(out, 0, sizeof *out);
    if (!ro || !ro->src || !*ro->src)
        return gk_error(ctx, GK_ERR_ARG, "no source datasource given");
    if (GDALGetDriverCount() == 0)
        GDALAllRegister();

    err_capture ec;
    memset(&ec, 0, sizeof ec);
    CPLPushErrorHandlerEx(capture_handler, &ec);

    clip_region clip;
    int rc = build_clip(ctx, ro, &ec, &clip);
    if (!rc) {
        const char *fmt = CSLFetchNameValue(ro->open_options, "FORMAT");
        if ((fmt && EQUAL(fmt, "XYZ")) || ends_with_ci(ro->src, ".xyz"))
            rc = read_xyz(ctx, ro, &clip, out);
        else
            rc = read_ogr(ctx, ro, &clip, &ec, out);
    }
    clip_free(&clip);
    CPLPopErrorHandler();
    if (rc)
        gk_source_points_free(out);
    return rc;
}
