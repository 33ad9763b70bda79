/* SPDX-License-Identifier: MIT */
/* test_read_points_arrow.c - the Arrow stream reader against feature by
 * feature on the same layers (part of test_read_points). */
#define _POSIX_C_SOURCE 200809L
#include "test_read_points.h"

#include "cpl_conv.h"

#include <math.h>
#include <unistd.h>

/* ---- the Arrow stream against feature by feature -------------------------- */

/* Layers for every case the Arrow path decodes itself or hands to OGR: 3-D,
 * 2-D, M and ZM points, empty points, every geometry kind, null geometries,
 * null / integer / 64-bit / text Z fields, a layer without attributes and
 * one of several batches. */

/* A String field "txt" on l: numbers as text, some empty, padded or "nan". */
static void add_text_field(OGRLayerH l)
{
    OGRFieldDefnH fd = OGR_Fld_Create("txt", OFTString);
    OGR_L_CreateField(l, fd, 1);
    OGR_Fld_Destroy(fd);
}

static void set_text(OGRFeatureH f, int i)
{
    int k = OGR_F_GetFieldIndex(f, "txt");
    char t[64];
    if (i % 9 == 4)
        return; /* null */
    double v = 0.37 * i - 3;
    if (i % 9 == 1)
        t[0] = '\0'; /* empty: no value */
    else if (i % 9 == 7)
        snprintf(t, sizeof t, "nan");
    else
        snprintf(t, sizeof t, i % 9 == 2 ? " %.17g " : "%.17g", v);
    OGR_F_SetFieldString(f, k, t);
}

static void make_arrow_fixture(const char *driver, const char *path)
{
    GDALDatasetH ds = GDALCreate(GDALGetDriverByName(driver), path, 0, 0, 0, GDT_Unknown, NULL);
    if (!ds) {
        fprintf(stderr, "cannot create %s\n", path);
        exit(2);
    }
    OGRLayerH l = new_layer(ds, "mixed", NULL, wkbUnknown);
    OGRFieldDefnH fd = OGR_Fld_Create("big", OFTInteger64);
    OGR_L_CreateField(l, fd, 1);
    OGR_Fld_Destroy(fd);
    add_text_field(l);
    const char *wkt[] = {"POINT Z (1 2 3)",
                         "POINT (4 5)",
                         "POINT M (6 7 8)",
                         "POINT ZM (9 10 11 12)",
                         "POINT EMPTY",
                         NULL,
                         "MULTIPOINT Z ((1 1 1),(2 2 2))",
                         "MULTIPOINT ((3 3),(4 4))",
                         "LINESTRING Z (0 0 1,1 0 2)",
                         "POLYGON Z ((0 0 5,4 0 5,4 4 5,0 4 5,0 0 5))",
                         "GEOMETRYCOLLECTION Z (POINT Z (7 7 9),LINESTRING Z (8 8 1,9 9 2))",
                         "POINT Z (-1.5 2.25 NaN)",
                         "POINT Z (1e300 -1e-300 -0.0)"};
    int n = (int)(sizeof wkt / sizeof *wkt);
    for (int i = 0; i < 3 * n; i++) {
        double v = i % 4 == 1 ? NAN : 0.5 * i;
        OGRFeatureH f = OGR_F_Create(OGR_L_GetLayerDefn(l));
        OGR_F_SetFieldInteger(f, 0, i);
        if (i % 5 != 2)
            OGR_F_SetFieldDouble(f, 1, v);
        if (i % 7 != 3)
            OGR_F_SetFieldInteger64(f, 2, ((GIntBig)1 << 40) + i);
        set_text(f, i);
        const char *w = wkt[i % n];
        if (w) {
            OGRGeometryH g;
            if (!strcmp(w, "POINT Z (-1.5 2.25 NaN)")) {
                g = OGR_G_CreateGeometry(wkbPoint25D);
                OGR_G_SetPoint(g, 0, -1.5, 2.25, NAN);
            } else {
                g = wkt_geom(w);
            }
            OGR_F_SetGeometryDirectly(f, g);
        }
        if (OGR_L_CreateFeature(l, f) != OGRERR_NONE)
            fprintf(stderr, "%s: cannot write %s\n", driver, w ? w : "no geometry");
        OGR_F_Destroy(f);
    }
    /* many 3-D points (several batches), some null values */
    l = new_layer(ds, "many", NULL, wkbPoint25D);
    add_text_field(l);
    int tr = OGR_L_TestCapability(l, OLCTransactions);
    if (tr)
        must(OGR_L_StartTransaction(l), "OGR_L_StartTransaction");
    OGRFeatureH f = OGR_F_Create(OGR_L_GetLayerDefn(l));
    OGRGeometryH g = OGR_G_CreateGeometry(wkbPoint25D);
    srand(7);
    for (int i = 0; i < 70000; i++) { /* > 65536, the default batch */
        OGR_G_SetPoint(g, 0, rand() / (double)RAND_MAX * 1000, rand() / (double)RAND_MAX * 1000,
                       rand() / (double)RAND_MAX);
        OGR_F_SetGeometry(f, g);
        OGR_F_SetFID(f, OGRNullFID);
        OGR_F_SetFieldInteger(f, 0, i);
        if (i % 1000 == 17)
            OGR_F_SetFieldNull(f, 1);
        else
            OGR_F_SetFieldDouble(f, 1, i * 0.25);
        set_text(f, i);
        must(OGR_L_CreateFeature(l, f), "OGR_L_CreateFeature");
    }
    if (tr)
        must(OGR_L_CommitTransaction(l), "OGR_L_CommitTransaction");
    /* gaps in the FIDs (GeoPackage): ranges of them read nothing, or less */
    if (OGR_L_TestCapability(l, OLCDeleteFeature))
        for (GIntBig fid = 1; fid <= 70000; fid++)
            if ((fid >= 20001 && fid <= 40000) || fid % 7 == 0)
                must(OGR_L_DeleteFeature(l, fid), "OGR_L_DeleteFeature");
    OGR_G_DestroyGeometry(g);
    OGR_F_Destroy(f);
    /* FIDs too sparse for one slot each (GeoPackage): read through OGR */
    if (!strcmp(driver, "GPKG")) {
        l = new_layer(ds, "sparse", NULL, wkbPoint25D);
        for (int i = 0; i < 3; i++) {
            OGRFeatureH sf = OGR_F_Create(OGR_L_GetLayerDefn(l));
            OGR_F_SetFID(sf, (GIntBig)1 + (GIntBig)i * 3000000);
            OGR_F_SetFieldDouble(sf, 1, 0.5 * i);
            OGR_F_SetGeometryDirectly(sf, wkt_geom(i == 1 ? "POINT Z (1 2 3)" : "POINT Z (4 5 6)"));
            must(OGR_L_CreateFeature(l, sf), "OGR_L_CreateFeature");
            OGR_F_Destroy(sf);
        }
    }
    /* 2-D points and no attribute at all */
    l = GDALDatasetCreateLayer(ds, "bare", NULL, wkbPoint, NULL);
    for (int i = 0; i < 10; i++) {
        char w[64];
        snprintf(w, sizeof w, "POINT (%d %d)", i, 2 * i);
        add_feature(l, w, i, NULL);
    }
    GDALClose(ds);
}

/* Reads layer `layer` of src three ways: straight from SQLite (GeoPackage,
 * 8 connections), through the Arrow stream, and feature by feature: the
 * same return code and message, and the same points, bit for bit, in the
 * same order, with the same counts. */
static void same_both_ways_1(const char *src, const char *layer, const char *zfield, int needs_z,
                             const char *where, const char *sqlite);

/* How test_arrow's reads went (gk_layer_points.read_by of the first read,
 * the one that may take the Arrow stream or SQLite): per layer name. */
static struct {
    int arrow, sqlite, sqlite_tried_other;
} read_by_layer[4];
static const char *const arrow_layers[4] = {"mixed", "many", "bare", "sparse"};

static void same_both_ways(const char *src, const char *layer, const char *zfield, int needs_z,
                           const char *where)
{
    same_both_ways_1(src, layer, zfield, needs_z, where, "YES");
    same_both_ways_1(src, layer, zfield, needs_z, where, "NO");
}

static void same_both_ways_1(const char *src, const char *layer, const char *zfield, int needs_z,
                             const char *where, const char *sqlite)
{
    gk_context *ctx = gk_context_new();
    gk_context_set_threads(ctx, 8);
    CPLSetConfigOption("GRIDKIT_GPKG_SQLITE", sqlite);
    gk_read_options ro = opts(src);
    char *ls[] = {(char *)layer, NULL};
    ro.layers = ls;
    ro.zfield = zfield;
    ro.needs_z = needs_z;
    ro.where = where;
    ro.z_increase = 0.5;
    ro.z_multiply = -2;
    gk_source_points a, b;
    CPLSetConfigOption("GRIDKIT_OGR_ARROW", "YES");
    int ra = rd(ctx, &ro, &a);
    char ma[1024];
    snprintf(ma, sizeof ma, "%s", gk_errmsg(ctx));
    CPLSetConfigOption("GRIDKIT_OGR_ARROW", "NO");
    CPLSetConfigOption("GRIDKIT_GPKG_SQLITE", "NO");
    int rb = rd(ctx, &ro, &b);
    CPLSetConfigOption("GRIDKIT_OGR_ARROW", NULL);
    CPLSetConfigOption("GRIDKIT_GPKG_SQLITE", NULL);
    int bad = ra != rb || strcmp(ma, gk_errmsg(ctx)) != 0;
    for (int i = 0; !ra && i < 4; i++)
        if (!strcmp(layer, arrow_layers[i])) {
            const char *by = a.layers[0].read_by;
            read_by_layer[i].arrow += by && !strcmp(by, "arrow");
            read_by_layer[i].sqlite += by && !strcmp(by, "sqlite");
            /* SQLite's reader wanted (a GeoPackage, no -where) but declined */
            read_by_layer[i].sqlite_tried_other += !strcmp(sqlite, "YES") && !where &&
                                                   strstr(src, ".gpkg") &&
                                                   (!by || strcmp(by, "sqlite"));
        }
    if (!ra && !rb) {
        const gk_layer_points *la = &a.layers[0], *lb = &b.layers[0];
        size_t n = gk_points_count(la->pts);
        bad |= n != gk_points_count(lb->pts) || la->n_features != lb->n_features ||
               la->n_skipped_z != lb->n_skipped_z || la->n_clipped != lb->n_clipped;
        for (size_t i = 0; !bad && i < n; i++)
            bad |= memcmp(&gk_points_x(la->pts)[i], &gk_points_x(lb->pts)[i], 8) ||
                   memcmp(&gk_points_y(la->pts)[i], &gk_points_y(lb->pts)[i], 8) ||
                   memcmp(&gk_points_z(la->pts)[i], &gk_points_z(lb->pts)[i], 8);
        if (bad)
            fprintf(stderr,
                    "arrow: %zu points, %zu features, %zu skipped; features: %zu, %zu, %zu\n", n,
                    la->n_features, la->n_skipped_z, gk_points_count(lb->pts), lb->n_features,
                    lb->n_skipped_z);
    }
    if (bad)
        fprintf(stderr,
                "%s layer %s zfield %s needs_z %d where %s sqlite %s: rc %d/%d \"%s\" / "
                "\"%s\"\n",
                src, layer, zfield ? zfield : "-", needs_z, where ? where : "-", sqlite, ra, rb, ma,
                gk_errmsg(ctx));
    CHECK(!bad);
    if (!ra)
        gk_source_points_free(&a);
    if (!rb)
        gk_source_points_free(&b);
    gk_context_free(ctx);
}

void test_arrow(void)
{
    /* FlatGeobuf: a directory, one .fgb per layer */
    const char *gpkg = tpath("arrow.gpkg"), *fgb = tpath("arrow_fgb");
    make_arrow_fixture("GPKG", gpkg);
    make_arrow_fixture("FlatGeobuf", fgb);
    const char *srcs[] = {gpkg, fgb};
    const char *layers[] = {"mixed", "many", "bare"};
    const char *zfields[] = {NULL, "val", "id", "big", "txt"};
    const int needs[] = {GK_Z_IGNORED, GK_Z_NEEDED, GK_Z_NOT_READ};
    for (int s = 0; s < 2; s++)
        for (int l = 0; l < 3; l++)
            for (int z = 0; z < 5; z++)
                for (int nz = 0; nz < 3; nz++) {
                    if (nz == 2 && z > 0 && z < 4)
                        continue; /* Z not read: which -zfield does not matter */
                    same_both_ways(srcs[s], layers[l], zfields[z], needs[nz], NULL);
                    if (l < 2)
                        same_both_ways(srcs[s], layers[l], zfields[z], needs[nz], "id % 3 <> 1");
                }
    same_both_ways(gpkg, "sparse", "val", 1, NULL);
    same_both_ways(gpkg, "sparse", NULL, 1, NULL);
    /* the GeoPackage's point layers did go straight to SQLite, or (with
     * that off, or with -where) through the Arrow stream; its mixed layer
     * and its sparse one were declined (not only points; FIDs far sparser
     * than the features) and went through the Arrow stream */
    CHECK(read_by_layer[1].arrow > 0); /* many */
    CHECK(read_by_layer[2].arrow > 0); /* bare */
    CHECK(read_by_layer[1].sqlite > 0);
    CHECK(read_by_layer[2].sqlite > 0);
    CHECK(read_by_layer[0].sqlite == 0); /* mixed */
    CHECK(read_by_layer[0].sqlite_tried_other > 0);
    CHECK(read_by_layer[0].arrow > 0);
    CHECK(read_by_layer[3].sqlite == 0); /* sparse */
    CHECK(read_by_layer[3].sqlite_tried_other > 0);
    CHECK(read_by_layer[3].arrow > 0);
}
