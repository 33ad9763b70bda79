/* SPDX-License-Identifier: MIT */
/*
 * read_points.c - points in: OGR layers with gdal_grid's selection options
 * (-l, -sql, -where, -spat, -clipsrc*, -zfield, -z_increase, -z_multiply),
 * or .xyz text through the native reader (algorithms/core/points_xyz.c).
 *
 * Differences from gdal_grid 3.6 (docs/dev/gdal_grid.md, 'Points and layers'
 * and 'Where gridkit differs'): points without a valid value (null -zfield, NaN or infinite X, Y, Z) are
 * skipped and counted; 2-D geometry without -zfield is an error when the
 * algorithm reads Z; an unknown layer, a bad WHERE/SQL and a layer with no
 * usable point are errors; the -sql layer's SRS is used. As gdal_grid, a
 * point exactly on the -spat / -clipsrc boundary is excluded.
 *
 * Layers with a fast Arrow stream are read through it (3x faster for a
 * GeoPackage) with the same result as feature by feature; the config option
 * GRIDKIT_OGR_ARROW=NO turns that off (the tests compare the two).
 * GeoPackage layers are read straight from SQLite (read_gpkg.c); the -spat
 * and -clipsrc region is clip_region.c's.
 */
#include "io/read_points.h"
#include "io/clip_region.h"
#include "io/gdal_messages.h"
#include "io/read_gpkg.h"
#include "io/text_number.h"
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

/* ---- vertex visitor ----------------------------------------------------- */

/* Z from the geometry, from the -zfield value at hand, none for this
 * feature (a null -zfield: skipped), or not read at all (GK_Z_NOT_READ). */
typedef enum { Z_GEOM, Z_FIELD, Z_SKIP, Z_NONE } z_mode;

typedef struct {
    gk_context *ctx;
    gk_layer_points *lp;
    gk_clip_region *clip;
    z_mode mode;
    double zfield_value;
    double zinc, zmul;
    double *bx, *by, *bz; /* GetPoints buffers, reused across features */
    size_t bcap;
    int err;
} visitor;

static inline void add_vertex(visitor *v, double x, double y, double z)
{
    if (v->clip->active && !gk_clip_inside(v->clip, x, y)) {
        v->lp->n_clipped++;
        return;
    }
    if (v->mode == Z_NONE) {
        if (!isfinite(x) || !isfinite(y))
            v->lp->n_skipped_z++;
        else if (gk_points_add(v->lp->pts, x, y, 0.0))
            v->err = GK_ERR_NOMEM;
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
    int z_text;   /* the -zfield is not a number field (String, Date, ...): its text is read */
    z_mode mode;  /* Z_GEOM, or Z_NONE for GK_Z_NOT_READ */
    const char *src;
} layer_ctx;

/* Fields whose name says they may hold Z, for the messages that ask for
 * -zfield: gridkit never takes one without being told (gdal_grid's rule:
 * the geometry's Z, or -zfield). How many; their names into buf. */
static int z_candidates(OGRFeatureDefnH defn, char *buf, size_t cap)
{
    static const char *const names[] = {"z",        "elev",  "elevation", "height", "alt",
                                        "altitude", "depth", "value",     "val",    "level"};
    int n = 0;
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < OGR_FD_GetFieldCount(defn); i++) {
        const char *f = OGR_Fld_GetNameRef(OGR_FD_GetFieldDefn(defn, i));
        for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
            if (!EQUAL(f, names[k]))
                continue;
            int w = snprintf(buf + len, cap - len, "%s%s", n ? ", " : "", f);
            if (w > 0 && (size_t)w < cap - len)
                len += (size_t)w;
            n++;
            break;
        }
    }
    return n;
}

static int error_2d(visitor *v, const layer_ctx *lc)
{
    char names[1024], cand[256], hint[300] = "";
    gk_field_list(lc->defn, names, sizeof names);
    int nc = z_candidates(lc->defn, cand, sizeof cand);
    if (nc)
        snprintf(hint, sizeof hint, "%s look%s like one; ", cand, nc == 1 ? "s" : "");
    return v->err = gk_error(v->ctx, GK_ERR_ARG,
                             "layer \"%s\" has 2-D geometries and no -zfield: give "
                             "-zfield NAME, the field that holds Z (%sfields: %s), or use an "
                             "algorithm that ignores Z (count, average_distance, "
                             "average_distance_pts)",
                             v->lp->name, hint, names);
}

/* Printable excerpt of a field's text for a message. */
static void shown_text(const char *s, char *dst, size_t cap)
{
    size_t n = 0;
    for (; *s && n + 4 < cap; s++)
        dst[n++] = (unsigned char)*s >= 32 && *s != 127 ? *s : '?';
    if (*s) {
        memcpy(dst + n, "...", 3);
        n += 3;
    }
    dst[n] = '\0';
}

/* Feature f's -zfield value: 1 with *z, 0 for none (null, unset, empty
 * text: the point is skipped and counted), -1 after an error naming the
 * field, the feature and the text when the field holds text that is not a
 * number (OGR's conversion would give 0 for "grass"). */
static int zfield_value(visitor *v, const layer_ctx *lc, OGRFeatureH f, double *z)
{
    *z = 0;
    if (!OGR_F_IsFieldSetAndNotNull(f, lc->zidx))
        return 0;
    if (!lc->z_text) {
        *z = OGR_F_GetFieldAsDouble(f, lc->zidx);
        return 1;
    }
    const char *s = OGR_F_GetFieldAsString(f, lc->zidx);
    int k = gk_text_number(s, z);
    if (k < 0) {
        char shown[80];
        shown_text(s, shown, sizeof shown);
        OGRFieldDefnH fd = OGR_FD_GetFieldDefn(lc->defn, lc->zidx);
        v->err = gk_error(v->ctx, GK_ERR_ARG,
                          "-zfield \"%s\" of layer \"%s\" of %s: feature %lld has \"%s\", "
                          "which is not a number (a %s field; Z must be a number)",
                          OGR_Fld_GetNameRef(fd), v->lp->name, lc->src, (long long)OGR_F_GetFID(f),
                          shown, OGR_GetFieldTypeName(OGR_Fld_GetType(fd)));
    }
    return k;
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
                double z;
                int k = zfield_value(v, lc, f, &z);
                v->mode = k > 0 ? Z_FIELD : Z_SKIP;
                v->zfield_value = z;
            }
            if (!v->err)
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
static int arrow_batch(visitor *v, const layer_ctx *lc, const struct ArrowArray *a, int gcol,
                       char gfmt, int zcol, char zfmt)
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
        if (lc->zidx >= 0 && !lc->z_text) /* text is read feature by feature */
            zcol = child_index(&sc, OGR_Fld_GetNameRef(OGR_FD_GetFieldDefn(lc->defn, lc->zidx)),
                               "gil");
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

static int arrow_wanted(int is_sql, const gk_clip_region *clip, OGRLayerH lyr, OGRFeatureDefnH defn)
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
                       const gk_clip_region *clip, OGRFeatureDefnH defn)
{
    GDALDriverH drv = GDALGetDatasetDriver(ds);
    return !is_sql && !clip->active && !ro->where && CSLCount(ro->open_options) == 0 && drv &&
           EQUAL(GDALGetDriverShortName(drv), "GPKG") && OGR_FD_GetGeomFieldCount(defn) == 1 &&
           CPLTestBool(CPLGetConfigOption("GRIDKIT_GPKG_SQLITE", "YES"));
}

static int read_gpkg(gk_context *ctx, const gk_read_options *ro, GDALDatasetH ds, OGRLayerH lyr,
                     const layer_ctx *lc, GIntBig n_hint, gk_layer_points *lp, srs_task *srs)
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
            g.zfield_type != OFTReal && g.zfield_type != OFTString)
            return GK_GPKG_DECLINED;
    }
    g.need_3d = lc->check_2d;
    g.no_z = lc->mode == Z_NONE;
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

static int read_layer(gk_context *ctx, const gk_read_options *ro, const char *src, GDALDatasetH ds,
                      OGRLayerH lyr, int is_sql, gk_clip_region *clip, gk_err_capture *ec,
                      gk_layer_points *lp, srs_task *srs)
{
    char why[1100], names[1024];
    const char *lname = lp->name;
    OGRFeatureDefnH defn = OGR_L_GetLayerDefn(lyr);
    const int no_z = ro->needs_z == GK_Z_NOT_READ;
    if (OGR_FD_GetGeomFieldCount(defn) == 0) {
        /* every feature would be read for nothing, and "no usable point" would not say why */
        GDALDriverH drv = GDALGetDatasetDriver(ds);
        int csv = drv && EQUAL(GDALGetDriverShortName(drv), "CSV");
        gk_field_list(defn, names, sizeof names);
        if (is_sql)
            return gk_error(ctx, GK_ERR_ARG,
                            "the -sql result on %s has no geometry (fields: %s): select the "
                            "geometry too%s",
                            src, names,
                            csv ? "; a CSV's X and Y columns become one with -oo "
                                  "X_POSSIBLE_NAMES=COLUMN -oo Y_POSSIBLE_NAMES=COLUMN"
                                : "");
        return gk_error(ctx, GK_ERR_ARG, "layer \"%s\" of %s has no geometry (fields: %s)%s", lname,
                        src, names,
                        csv ? ": name its X and Y columns with -oo X_POSSIBLE_NAMES=COLUMN "
                              "-oo Y_POSSIBLE_NAMES=COLUMN (or a WKT column with -oo "
                              "GEOM_POSSIBLE_NAMES=COLUMN)"
                            : "");
    }
    int zidx = -1;
    if (ro->zfield && !no_z) {
        zidx = OGR_FD_GetFieldIndex(defn, ro->zfield);
        if (zidx < 0) {
            gk_field_list(defn, names, sizeof names);
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
    GIntBig fc =
        OGR_L_TestCapability(lyr, OLCFastFeatureCount) ? OGR_L_GetFeatureCount(lyr, 0) : -1;
    int z_text = 0;
    if (zidx >= 0) {
        OGRFieldType t = OGR_Fld_GetType(OGR_FD_GetFieldDefn(defn, zidx));
        z_text = t != OFTInteger && t != OFTInteger64 && t != OFTReal;
    }
    layer_ctx lc = {
        defn, zidx, !ro->zfield && ro->needs_z == GK_Z_NEEDED, z_text, no_z ? Z_NONE : Z_GEOM, src};
    visitor v = {ctx, lp, clip, lc.mode, 0, ro->z_increase, ro->z_multiply, NULL, NULL, NULL, 0, 0};
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
        v.mode = lc.mode;
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
        return gk_error(ctx, GK_ERR_IO, "reading layer \"%s\" of %s failed%s%s%s%s", lname, src,
                        gk_gdal_reason(ec, why, sizeof why),
                        !is_sql && ro->where ? " (-where \"" : "",
                        !is_sql && ro->where ? ro->where : "", !is_sql && ro->where ? "\")" : "");
    if (gk_points_count(lp->pts) == 0) {
        /* no Z anywhere and a field that may hold it: say how to take it */
        char cand[256], hint[400] = "";
        int nc =
            !ro->zfield && !no_z && lp->n_skipped_z > 0 ? z_candidates(defn, cand, sizeof cand) : 0;
        if (nc)
            snprintf(hint, sizeof hint,
                     "; to take Z from a field give -zfield NAME (%s look%s "
                     "like one)",
                     cand, nc == 1 ? "s" : "");
        return gk_error(ctx, GK_ERR_NO_POINTS,
                        "layer \"%s\" of %s has no usable point: %zu feature(s) read, "
                        "%zu vertex(es) outside -spat/-clipsrc, %zu without finite X, Y%s%s",
                        lname, src, lp->n_features, lp->n_clipped, lp->n_skipped_z,
                        no_z ? "" : " and Z", hint);
    }
    return GK_OK;
}

/* ---- XYZ text ----------------------------------------------------------- */

static int ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && EQUAL(s + n - m, suffix);
}

int gk_source_is_xyz(const char *src, char **open_options)
{
    const char *fmt = CSLFetchNameValue(open_options, "FORMAT");
    return (fmt && EQUAL(fmt, "XYZ")) || (src && ends_with_ci(src, ".xyz"));
}

static int read_xyz(gk_context *ctx, const gk_read_options *ro, gk_clip_region *clip,
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
    const int no_z = ro->needs_z == GK_Z_NOT_READ;
    int rc = no_z ? gk_points_read_xy(ctx, src, raw, &lp->n_skipped_z)
                  : gk_points_read_xyz(ctx, src, ro->zfield, raw, &lp->n_skipped_z);
    if (rc) {
        gk_points_free(raw);
        return rc;
    }
    size_t n = gk_points_count(raw);
    lp->n_features = n + lp->n_skipped_z;
    lp->read_by = "xyz";
    if (!clip->active && (no_z || (ro->z_increase == 0.0 && ro->z_multiply == 1.0))) {
        lp->pts = raw;
    } else {
        lp->pts = gk_points_new(ctx);
        if (!lp->pts || gk_points_reserve(lp->pts, n ? n : 1)) {
            gk_points_free(raw);
            return gk_error(ctx, GK_ERR_NOMEM, "out of memory holding %zu points", n);
        }
        const double *x = gk_points_x(raw), *y = gk_points_y(raw), *z = gk_points_z(raw);
        for (size_t i = 0; i < n; i++) {
            if (clip->active && !gk_clip_inside(clip, x[i], y[i])) {
                lp->n_clipped++;
                continue;
            }
            double zz = no_z ? 0.0 : (z[i] + ro->z_increase) * ro->z_multiply;
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
                        "%zu without finite X, Y%s",
                        src, lp->n_features, lp->n_clipped, lp->n_skipped_z, no_z ? "" : " and Z");
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

/* ---- a CSV's X and Y columns ---------------------------------------------- */

/* Case-insensitive strstr from position from; the position or -1. */
static int find_ci(const char *s, const char *sub, int from)
{
    size_t n = strlen(s), m = strlen(sub);
    for (size_t i = (size_t)from; i + m <= n; i++)
        if (EQUALN(s + i, sub, m))
            return (int)i;
    return -1;
}

/* Column k holds numbers: every non-empty value of the first rows does, and
 * one at least is not empty (QGIS's test of a coordinate column). */
static int numeric_column(OGRLayerH lyr, int k)
{
    int seen = 0, ok = 1;
    OGRFeatureH f;
    OGR_L_ResetReading(lyr);
    for (int r = 0; ok && r < 50 && (f = OGR_L_GetNextFeature(lyr)) != NULL; r++) {
        double v;
        if (OGR_F_IsFieldSetAndNotNull(f, k)) {
            int t = gk_text_number(OGR_F_GetFieldAsString(f, k), &v);
            ok = t >= 0;
            seen |= t > 0;
        }
        OGR_F_Destroy(f);
    }
    OGR_L_ResetReading(lyr);
    return ok && seen;
}

/* The X and Y columns of lyr as QGIS's delimited-text import picks them:
 * the first pair below (in this order) where a numeric column's name holds
 * the first word and the same name with the second word in its place is
 * another numeric column ("x"/"y", "Lon_deg"/"Lat_deg", "Easting"/
 * "Northing"). 1 with their indexes, else 0. */
static int csv_xy_columns(OGRLayerH lyr, int *xi, int *yi)
{
    static const char *const pairs[][2] = {
        {"longitude", "latitude"}, {"lon", "lat"}, {"long", "lat"},
        {"east", "north"},         {"x", "y"},     {"e", "n"}};
    OGRFeatureDefnH defn = OGR_L_GetLayerDefn(lyr);
    int nf = OGR_FD_GetFieldCount(defn);
    for (size_t p = 0; p < sizeof pairs / sizeof *pairs; p++) {
        const char *xw = pairs[p][0], *yw = pairs[p][1];
        for (int i = 0; i < nf; i++) {
            const char *xn = OGR_Fld_GetNameRef(OGR_FD_GetFieldDefn(defn, i));
            for (int at = find_ci(xn, xw, 0); at >= 0; at = find_ci(xn, xw, at + 1)) {
                char yn[512];
                if (snprintf(yn, sizeof yn, "%.*s%s%s", at, xn, yw, xn + at + strlen(xw)) >=
                    (int)sizeof yn)
                    continue;
                for (int j = 0; j < nf; j++) {
                    const char *name = OGR_Fld_GetNameRef(OGR_FD_GetFieldDefn(defn, j));
                    /* a name with a comma or '*' cannot be given as an open option */
                    if (j == i || !EQUAL(name, yn) || strpbrk(xn, ",*") || strpbrk(name, ",*") ||
                        !numeric_column(lyr, i) || !numeric_column(lyr, j))
                        continue;
                    *xi = i;
                    *yi = j;
                    return 1;
                }
            }
        }
    }
    return 0;
}

/* GDAL's CSV driver makes points only from the columns that
 * X_POSSIBLE_NAMES and Y_POSSIBLE_NAMES name (or a WKT column): a plain
 * x,y,z file has no geometry. Where the user named none of the options
 * that place the geometry and the layer has none, the source is opened
 * again with its X and Y columns (csv_xy_columns) named. ds, or the dataset
 * opened again (NULL when that fails: the message is in ctx). */
static GDALDatasetH csv_xy(gk_context *ctx, const gk_read_options *ro, GDALDatasetH ds,
                           gk_err_capture *ec)
{
    static const char *const placing[] = {"X_POSSIBLE_NAMES", "Y_POSSIBLE_NAMES",
                                          "Z_POSSIBLE_NAMES", "GEOM_POSSIBLE_NAMES",
                                          "KEEP_GEOM_COLUMNS"};
    GDALDriverH drv = GDALGetDatasetDriver(ds);
    if (!drv || !EQUAL(GDALGetDriverShortName(drv), "CSV"))
        return ds;
    for (size_t k = 0; k < sizeof placing / sizeof *placing; k++)
        if (CSLFetchNameValue(ro->open_options, placing[k]))
            return ds;
    OGRLayerH lyr = CSLCount(ro->layers) > 0 ? GDALDatasetGetLayerByName(ds, ro->layers[0])
                    : GDALDatasetGetLayerCount(ds) == 1 ? GDALDatasetGetLayer(ds, 0)
                                                        : NULL;
    int xi, yi;
    if (!lyr || OGR_FD_GetGeomFieldCount(OGR_L_GetLayerDefn(lyr)) > 0 ||
        !csv_xy_columns(lyr, &xi, &yi))
        return ds;
    OGRFeatureDefnH defn = OGR_L_GetLayerDefn(lyr);
    char **oo = CSLDuplicate(ro->open_options);
    oo = CSLSetNameValue(oo, "X_POSSIBLE_NAMES", OGR_Fld_GetNameRef(OGR_FD_GetFieldDefn(defn, xi)));
    oo = CSLSetNameValue(oo, "Y_POSSIBLE_NAMES", OGR_Fld_GetNameRef(OGR_FD_GetFieldDefn(defn, yi)));
    CPLDebug("GRIDKIT", "%s: X and Y from the columns \"%s\" and \"%s\"", ro->src,
             CSLFetchNameValue(oo, "X_POSSIBLE_NAMES"), CSLFetchNameValue(oo, "Y_POSSIBLE_NAMES"));
    GDALClose(ds);
    ds = GDALOpenEx(ro->src, GDAL_OF_VECTOR | GDAL_OF_VERBOSE_ERROR, NULL, (const char *const *)oo,
                    NULL);
    CSLDestroy(oo);
    if (!ds) {
        char why[1100];
        gk_error(ctx, GK_ERR_IO, "cannot open %s again with its X and Y columns named%s", ro->src,
                 gk_gdal_reason(ec, why, sizeof why));
    }
    return ds;
}

static int read_ogr(gk_context *ctx, const gk_read_options *ro, gk_clip_region *clip,
                    gk_err_capture *ec, gk_source_points *out)
{
    char why[1100], names[1024];
    const char *src = ro->src;
    ec->msg[0] = '\0';
    GDALDatasetH ds = GDALOpenEx(src, GDAL_OF_VECTOR | GDAL_OF_VERBOSE_ERROR, NULL,
                                 (const char *const *)ro->open_options, NULL);
    if (!ds)
        return gk_error(ctx, GK_ERR_IO, "cannot open %s as a vector datasource%s", src,
                        gk_gdal_reason(ec, why, sizeof why));
    if (!(ds = csv_xy(ctx, ro, ds, ec)))
        return gk_errno(ctx);
    int n_l = CSLCount(ro->layers);
    int rc = GK_OK;
    if (!ro->sql && n_l == 0 && GDALDatasetGetLayerCount(ds) != 1) {
        gk_layer_list(ds, names, sizeof names);
        rc = gk_error(ctx, GK_ERR_ARG, "%s has %d layers (%s): choose with -l (or use -sql)", src,
                      GDALDatasetGetLayerCount(ds), names);
        GDALClose(ds);
        return rc;
    }
    /* Unknown -l names fail before any reading. */
    for (int i = 0; i < n_l; i++) {
        if (!GDALDatasetGetLayerByName(ds, ro->layers[i])) {
            gk_layer_list(ds, names, sizeof names);
            rc = gk_error(ctx, GK_ERR_ARG, "no layer \"%s\" in %s (layers: %s)", ro->layers[i], src,
                          names);
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
    OGRGeometryH filt =
        clip->active ? gk_clip_rect(clip->xmin, clip->ymin, clip->xmax, clip->ymax) : NULL;
    int k = 0;
    if (ro->sql) {
        gk_layer_points *lp = &out->layers[k++];
        lp->name = strdup("SQL");
        ec->msg[0] = '\0';
        OGRLayerH lyr = GDALDatasetExecuteSQL(ds, ro->sql, filt, NULL);
        if (!lyr) {
            rc = gk_error(ctx, GK_ERR_ARG, "-sql on %s failed%s", src,
                          ec->msg[0] ? gk_gdal_reason(ec, why, sizeof why)
                                     : ": the statement gives no result layer");
        } else {
            srs_task srs = {out, lyr, 0};
            rc = read_layer(ctx, ro, src, ds, lyr, 1, clip, ec, lp, &srs);
            GDALDatasetReleaseResultSet(ds, lyr);
        }
    }
    for (int i = 0; !rc && k < n_layers; i++) {
        gk_layer_points *lp = &out->layers[k++];
        OGRLayerH lyr =
            n_l ? GDALDatasetGetLayerByName(ds, ro->layers[i]) : GDALDatasetGetLayer(ds, 0);
        lp->name = strdup(OGR_L_GetName(lyr));
        ec->msg[0] = '\0';
        if (OGR_L_SetAttributeFilter(lyr, ro->where) != OGRERR_NONE) {
            rc = gk_error(ctx, GK_ERR_ARG, "-where \"%s\" is invalid on layer \"%s\" of %s%s",
                          ro->where, lp->name, src, gk_gdal_reason(ec, why, sizeof why));
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
    if (!ro->src || ro->sql || gk_source_is_xyz(ro->src, ro->open_options))
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
        OGRLayerH lyr =
            n_l ? GDALDatasetGetLayerByName(ds, ro->layers[i]) : GDALDatasetGetLayer(ds, 0);
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

    gk_err_capture ec;
    memset(&ec, 0, sizeof ec);
    CPLPushErrorHandlerEx(gk_capture_handler, &ec);

    gk_clip_region clip;
    int rc = gk_clip_build(ctx, ro, &ec, &clip);
    if (!rc) {
        if (gk_source_is_xyz(ro->src, ro->open_options))
            rc = read_xyz(ctx, ro, &clip, out);
        else
            rc = read_ogr(ctx, ro, &clip, &ec, out);
    }
    gk_clip_free(&clip);
    CPLPopErrorHandler();
    if (rc)
        gk_source_points_free(out);
    return rc;
}
