/* SPDX-License-Identifier: MIT */
/* test_read_points_ogr.c - gk_read_points over OGR sources (CSV,
 * GeoPackage) made here, with every gdal_grid selection option (part of
 * test_read_points). */
#define _POSIX_C_SOURCE 200809L
#include "test_read_points.h"

#include "core/points_xyz.h"
#include "io/input_files.h"

#include "cpl_conv.h"

#include <math.h>
#include <unistd.h>

/* ---- OGR fixtures ------------------------------------------------------- */

void must(OGRErr e, const char *what)
{
    if (e != OGRERR_NONE) {
        fprintf(stderr, "%s failed\n", what);
        exit(2);
    }
}

OGRGeometryH wkt_geom(const char *wkt)
{
    OGRGeometryH g = NULL;
    char *w = (char *)wkt;
    if (OGR_G_CreateFromWkt(&w, NULL, &g) != OGRERR_NONE) {
        fprintf(stderr, "bad test WKT %s\n", wkt);
        exit(2);
    }
    return g;
}

void add_feature(OGRLayerH lyr, const char *wkt, int id, const double *val)
{
    OGRFeatureH f = OGR_F_Create(OGR_L_GetLayerDefn(lyr));
    int i_id = OGR_F_GetFieldIndex(f, "id"), i_val = OGR_F_GetFieldIndex(f, "val");
    if (i_id >= 0)
        OGR_F_SetFieldInteger(f, i_id, id);
    if (i_val >= 0) {
        if (val)
            OGR_F_SetFieldDouble(f, i_val, *val);
        else
            OGR_F_SetFieldNull(f, i_val);
    }
    if (wkt)
        OGR_F_SetGeometryDirectly(f, wkt_geom(wkt));
    if (OGR_L_CreateFeature(lyr, f) != OGRERR_NONE) {
        fprintf(stderr, "CreateFeature failed\n");
        exit(2);
    }
    OGR_F_Destroy(f);
}

OGRLayerH new_layer(GDALDatasetH ds, const char *name, OGRSpatialReferenceH srs,
                    OGRwkbGeometryType t)
{
    OGRLayerH l = GDALDatasetCreateLayer(ds, name, srs, t, NULL);
    OGRFieldDefnH fd = OGR_Fld_Create("id", OFTInteger);
    OGR_L_CreateField(l, fd, 1);
    OGR_Fld_Destroy(fd);
    fd = OGR_Fld_Create("val", OFTReal);
    OGR_L_CreateField(l, fd, 1);
    OGR_Fld_Destroy(fd);
    return l;
}

static void make_fixtures(void)
{
    GDALDriverH gpkg = GDALGetDriverByName("GPKG");
    OGRSpatialReferenceH srs = OSRNewSpatialReference(NULL);
    OSRImportFromEPSG(srs, 32633);

    GDALDatasetH ds = GDALCreate(gpkg, tpath("in.gpkg"), 0, 0, 0, GDT_Unknown, NULL);
    /* grid: 5x5 3-D points at integer coordinates, z = 10 x + y, id = 5 y + x */
    OGRLayerH l = new_layer(ds, "grid", srs, wkbPoint25D);
    must(OGR_L_StartTransaction(l), "OGR_L_StartTransaction");
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 5; x++) {
            char w[64];
            double v = x + y;
            snprintf(w, sizeof w, "POINT Z (%d %d %d)", x, y, 10 * x + y);
            add_feature(l, w, 5 * y + x, &v);
        }
    must(OGR_L_CommitTransaction(l), "OGR_L_CommitTransaction");
    /* the same grid as a shapefile (OGR SQL evaluates -where there) */
    {
        GDALDatasetH shp = GDALCreate(GDALGetDriverByName("ESRI Shapefile"), tpath("grid.shp"), 0,
                                      0, 0, GDT_Unknown, NULL);
        OGRLayerH sl = new_layer(shp, "grid", srs, wkbPoint25D);
        for (int y = 0; y < 5; y++)
            for (int x = 0; x < 5; x++) {
                char w[64];
                double v = x + y;
                snprintf(w, sizeof w, "POINT Z (%d %d %d)", x, y, 10 * x + y);
                add_feature(sl, w, 5 * y + x, &v);
            }
        GDALClose(shp);
    }
    /* geoms: every geometry kind; 14 vertices in all */
    l = new_layer(ds, "geoms", NULL, wkbUnknown);
    add_feature(l, "POINT Z (1 1 10)", 1, NULL);
    add_feature(l, "LINESTRING Z (0 0 1,1 0 2,2 0 3)", 2, NULL);
    add_feature(l, "POLYGON Z ((0 0 5,4 0 5,4 4 5,0 4 5,0 0 5))", 3, NULL);
    add_feature(l, "MULTIPOINT Z ((5 5 7),(6 6 8))", 4, NULL);
    add_feature(l, "GEOMETRYCOLLECTION Z (POINT Z (7 7 9),LINESTRING Z (8 8 1,9 9 2))", 5, NULL);
    add_feature(l, NULL, 6, NULL); /* no geometry: read, contributes nothing */
    /* flat: 2-D points with a nullable value */
    l = new_layer(ds, "flat", NULL, wkbPoint);
    double one = 1, three = 3;
    add_feature(l, "POINT (0 0)", 1, &one);
    add_feature(l, "POINT (1 1)", 2, NULL);
    add_feature(l, "POINT (2 2)", 3, &three);
    /* nanz: one NaN Z among three points */
    l = new_layer(ds, "nanz", NULL, wkbPoint25D);
    add_feature(l, "POINT Z (0 0 1)", 1, NULL);
    {
        OGRFeatureH f = OGR_F_Create(OGR_L_GetLayerDefn(l));
        OGRGeometryH g = OGR_G_CreateGeometry(wkbPoint25D);
        OGR_G_SetPoint(g, 0, 1, 1, NAN);
        OGR_F_SetGeometryDirectly(f, g);
        must(OGR_L_CreateFeature(l, f), "OGR_L_CreateFeature");
        OGR_F_Destroy(f);
    }
    add_feature(l, "POINT Z (2 2 3)", 3, NULL);
    GDALClose(ds);

    /* clip source: polygons in "zones", a line in "lines" */
    ds = GDALCreate(gpkg, tpath("clip.gpkg"), 0, 0, 0, GDT_Unknown, NULL);
    l = new_layer(ds, "zones", NULL, wkbUnknown);
    add_feature(l, "POLYGON ((0.5 0.5,1.5 0.5,1.5 1.5,0.5 1.5,0.5 0.5))", 1, NULL);
    add_feature(l, "MULTIPOLYGON (((2.5 2.5,4.5 2.5,4.5 4.5,2.5 4.5,2.5 2.5)))", 2, NULL);
    l = new_layer(ds, "lines", NULL, wkbLineString);
    add_feature(l, "LINESTRING (0 0,5 5)", 1, NULL);
    GDALClose(ds);
    OSRDestroySpatialReference(srs);

    write_text(tpath("pts.csv"), "x,y,z,w\n0,0,1,10\n1,0,2,\n2,0,3,30\n3,0,4,40\n");
}

gk_read_options opts(const char *src)
{
    gk_read_options ro;
    memset(&ro, 0, sizeof ro);
    ro.src = src;
    ro.z_multiply = 1;
    ro.needs_z = 1;
    return ro;
}

/* Reads; returns rc and leaves the result in *sp (freed by the caller). */
int rd(gk_context *ctx, const gk_read_options *ro, gk_source_points *sp)
{
    gk_error_clear(ctx);
    int rc = gk_read_points(ctx, ro, sp);
    if (rc == 0)
        CHECK(gk_errno(ctx) == 0);
    return rc;
}

size_t npts(const gk_source_points *sp, int i) { return gk_points_count(sp->layers[i].pts); }

/* One layer of grid points, the (x, y) set must be exactly `want` ids. */
static void check_grid_ids(const gk_source_points *sp, const int *ids, size_t n)
{
    CHECK(sp->n_layers == 1);
    CHECK_EQ_SZ(npts(sp, 0), n);
    if (npts(sp, 0) != n)
        return;
    for (size_t i = 0; i < n; i++) {
        int x = ids[i] % 5, y = ids[i] / 5, found = 0;
        for (size_t k = 0; k < n; k++)
            if (gk_points_x(sp->layers[0].pts)[k] == x && gk_points_y(sp->layers[0].pts)[k] == y &&
                gk_points_z(sp->layers[0].pts)[k] == 10 * x + y)
                found = 1;
        if (!found)
            fprintf(stderr, "grid point id %d missing\n", ids[i]);
        CHECK(found);
    }
}

/* The points of layer 0 are exactly (x[i], y[i], z[i]), in order. */
static void check_points(const gk_source_points *sp, size_t n, const double *x, const double *y,
                         const double *z)
{
    CHECK(sp->n_layers == 1);
    CHECK_EQ_SZ(npts(sp, 0), n);
    for (size_t i = 0; sp->n_layers == 1 && i < n && i < npts(sp, 0); i++)
        CHECKF(gk_points_x(sp->layers[0].pts)[i] == x[i] &&
                   gk_points_y(sp->layers[0].pts)[i] == y[i] &&
                   gk_points_z(sp->layers[0].pts)[i] == z[i],
               "point %zu: (%.17g %.17g %.17g), want (%g %g %g)", i,
               gk_points_x(sp->layers[0].pts)[i], gk_points_y(sp->layers[0].pts)[i],
               gk_points_z(sp->layers[0].pts)[i], x[i], y[i], z[i]);
}

/* A CSV read without the open options that place its geometry: X and Y
 * from the columns QGIS's delimited-text import would take, Z never
 * guessed; without such columns an error that names the open options. */
static void test_csv_columns(gk_context *ctx)
{
    gk_source_points sp;
    gk_read_options ro = opts(tpath("pts.csv")); /* x,y,z,w */
    ro.zfield = "z";
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        const double x[] = {0, 1, 2, 3}, y[] = {0, 0, 0, 0}, z[] = {1, 2, 3, 4};
        check_points(&sp, 4, x, y, z);
    }
    gk_source_points_free(&sp);
    /* no -zfield: the column z is not taken for Z; the message says how */
    ro.zfield = NULL;
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "2-D geometries and no -zfield: give -zfield NAME");
    CHECK_MSG(ctx, "z looks like one");
    ro.needs_z = GK_Z_IGNORED; /* count: the points, Z 0 */
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        const double x[] = {0, 1, 2, 3}, y[] = {0, 0, 0, 0}, z[] = {0, 0, 0, 0};
        check_points(&sp, 4, x, y, z);
    }
    gk_source_points_free(&sp);
    /* the user's other open options stay (AUTODETECT_TYPE: w is a number
     * field, its empty value a null) */
    char *autodetect[] = {"AUTODETECT_TYPE=YES", NULL};
    ro = opts(tpath("pts.csv"));
    ro.open_options = autodetect;
    ro.zfield = "w";
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        const double x[] = {0, 2, 3}, y[] = {0, 0, 0}, z[] = {10, 30, 40};
        check_points(&sp, 3, x, y, z);
        CHECK_EQ_SZ(sp.layers[0].n_skipped_z, 1);
    }
    gk_source_points_free(&sp);

    /* lon/lat comes before x/y, names are matched in any case, with
     * anything around the word ("Lon_deg" pairs with "Lat_deg") */
    write_text(tpath("lonlat.csv"), "id,X,Lon_deg,Lat_deg,Y,h\n1,100,5.5,52.25,200,7\n"
                                    "2,101,5.75,52.5,201,8\n");
    ro = opts(tpath("lonlat.csv"));
    ro.zfield = "h";
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        const double x[] = {5.5, 5.75}, y[] = {52.25, 52.5}, z[] = {7, 8};
        check_points(&sp, 2, x, y, z);
    }
    gk_source_points_free(&sp);
    write_text(tpath("en.csv"), "Station,Easting,Northing,depth\nA,500000.5,4000000.25,-3\n");
    ro = opts(tpath("en.csv"));
    ro.zfield = "depth";
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        const double x[] = {500000.5}, y[] = {4000000.25}, z[] = {-3};
        check_points(&sp, 1, x, y, z);
    }
    gk_source_points_free(&sp);

    /* no pair of number columns: an error naming the layer, its fields and
     * the open options that place the points */
    write_text(tpath("text_x.csv"), "x,y,z\na,1,2\n");
    write_text(tpath("nocoords.csv"), "a,b,c\n1,2,3\n");
    const char *none[] = {"text_x.csv", "nocoords.csv"};
    for (int i = 0; i < 2; i++) {
        ro = opts(tpath(none[i]));
        CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
        CHECK_MSG(ctx, "has no geometry (fields: ");
        CHECK_MSG(ctx, "-oo X_POSSIBLE_NAMES=COLUMN -oo Y_POSSIBLE_NAMES=COLUMN");
    }
    /* the user's own placing options win: nothing is added */
    char *keep[] = {"KEEP_GEOM_COLUMNS=NO", NULL};
    ro = opts(tpath("pts.csv"));
    ro.open_options = keep;
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "has no geometry");
    /* a geometry of the file's own (a WKT column) is left as it is */
    write_text(tpath("wkt.csv"), "WKT,x,y,z\n\"POINT (7 8)\",1,2,3\n");
    ro = opts(tpath("wkt.csv"));
    ro.zfield = "z";
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        const double x[] = {7}, y[] = {8}, z[] = {3};
        check_points(&sp, 1, x, y, z);
    }
    gk_source_points_free(&sp);
}

/* Reads ro the first n of three ways (straight from SQLite where it may,
 * through OGR's Arrow stream or feature by feature, and feature by feature
 * only): the same code and message from each; the result of the first in
 * *sp. */
static int rd_ways(gk_context *ctx, const gk_read_options *ro, gk_source_points *sp, int n_ways)
{
    static const char *const ways[3][2] = {{"YES", "YES"}, {"NO", "YES"}, {"NO", "NO"}};
    int rc0 = 0;
    char msg0[1024] = "";
    for (int w = 0; w < n_ways; w++) {
        CPLSetConfigOption("GRIDKIT_GPKG_SQLITE", ways[w][0]);
        CPLSetConfigOption("GRIDKIT_OGR_ARROW", ways[w][1]);
        gk_source_points one;
        int rc = rd(ctx, ro, w ? &one : sp);
        if (w == 0) {
            rc0 = rc;
            snprintf(msg0, sizeof msg0, "%s", gk_errmsg(ctx));
            continue;
        }
        CHECKF(rc == rc0 && !strcmp(msg0, gk_errmsg(ctx)), "way %d: %d \"%s\", way 0: %d \"%s\"", w,
               rc, gk_errmsg(ctx), rc0, msg0);
        if (rc == 0 && rc0 == 0) {
            size_t n = npts(&one, 0);
            int same = n == npts(sp, 0) && one.layers[0].n_skipped_z == sp->layers[0].n_skipped_z;
            for (size_t i = 0; same && i < n; i++)
                same = gk_points_z(one.layers[0].pts)[i] == gk_points_z(sp->layers[0].pts)[i];
            CHECKF(same, "way %d: other points than way 0", w);
        }
        if (rc == 0)
            gk_source_points_free(&one);
    }
    CPLSetConfigOption("GRIDKIT_GPKG_SQLITE", NULL);
    CPLSetConfigOption("GRIDKIT_OGR_ARROW", NULL);
    gk_error_clear(ctx);
    if (rc0)
        gk_error(ctx, rc0, "%s", msg0);
    return rc0;
}

static int rd_every_way(gk_context *ctx, const gk_read_options *ro, gk_source_points *sp)
{
    return rd_ways(ctx, ro, sp, 3);
}

/* A -zfield whose values are text (a String field, as a CSV's columns are
 * without AUTODETECT_TYPE): a number is read as one, an empty value is
 * skipped as a null is, anything else is an error naming the field, the
 * feature and the text (OGR alone gives 0 for "grass"), on every path. */
static void test_zfield_text(gk_context *ctx)
{
    const char *path = tpath("text.gpkg");
    GDALDatasetH ds = GDALCreate(GDALGetDriverByName("GPKG"), path, 0, 0, 0, GDT_Unknown, NULL);
    const char *good[] = {"1.5", " 2 ", "", NULL, "-4e1", "nan", "7"};
    const char *bad[] = {"1", "grass", "3"};
    for (int L = 0; L < 2; L++) {
        OGRLayerH l = new_layer(ds, L ? "bad" : "good", NULL, wkbPoint);
        OGRFieldDefnH fd = OGR_Fld_Create("s", OFTString);
        OGR_L_CreateField(l, fd, 1);
        OGR_Fld_Destroy(fd);
        int n = L ? 3 : 7;
        for (int i = 0; i < n; i++) {
            OGRFeatureH f = OGR_F_Create(OGR_L_GetLayerDefn(l));
            OGR_F_SetFieldInteger(f, 0, i);
            const char *s = L ? bad[i] : good[i];
            if (s)
                OGR_F_SetFieldString(f, 2, s);
            char w[64];
            snprintf(w, sizeof w, "POINT (%d 0)", i);
            OGR_F_SetGeometryDirectly(f, wkt_geom(w));
            must(OGR_L_CreateFeature(l, f), "OGR_L_CreateFeature");
            OGR_F_Destroy(f);
        }
    }
    GDALClose(ds);

    gk_source_points sp;
    gk_read_options ro = opts(path);
    char *good_l[] = {"good", NULL}, *bad_l[] = {"bad", NULL};
    ro.zfield = "s";
    for (int where = 0; where < 2; where++) {
        ro.layers = good_l;
        ro.where = where ? "id >= 0" : NULL; /* -where: OGR's paths only */
        CHECK(rd_every_way(ctx, &ro, &sp) == 0);
        const double x[] = {0, 1, 4, 6}, y[] = {0, 0, 0, 0}, z[] = {1.5, 2, -40, 7};
        check_points(&sp, 4, x, y, z);
        CHECK_EQ_SZ(sp.layers[0].n_skipped_z, 3); /* empty, null, nan */
        gk_source_points_free(&sp);
        ro.layers = bad_l;
        CHECK(rd_every_way(ctx, &ro, &sp) == GK_ERR_ARG);
        CHECK_MSG(ctx, "-zfield \"s\" of layer \"bad\"");
        CHECK_MSG(ctx, "feature 2 has \"grass\", which is not a number");
        CHECK_MSG(ctx, "String");
    }
    /* a CSV's columns are text: an empty one is no value, not 0 */
    ro = opts(tpath("pts.csv"));
    ro.zfield = "w";
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        const double x[] = {0, 2, 3}, y[] = {0, 0, 0}, z[] = {10, 30, 40};
        check_points(&sp, 3, x, y, z);
        CHECK_EQ_SZ(sp.layers[0].n_skipped_z, 1);
    }
    gk_source_points_free(&sp);
    write_text(tpath("words.csv"), "x,y,kind\n0,0,1\n1,1,sand\n");
    ro = opts(tpath("words.csv"));
    ro.zfield = "kind";
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "\"sand\", which is not a number");
}

/* GK_Z_NOT_READ (ridges without --3d): X and Y only, on every path. */
static void test_z_not_read(gk_context *ctx)
{
    gk_source_points sp;
    gk_read_options ro = opts(tpath("in.gpkg"));
    char *nanz[] = {"nanz", NULL}, *flat[] = {"flat", NULL};
    ro.needs_z = GK_Z_NOT_READ;
    ro.layers = nanz; /* a NaN Z keeps its point */
    ro.z_multiply = 10;
    CHECK(rd_every_way(ctx, &ro, &sp) == 0);
    {
        const double x[] = {0, 1, 2}, y[] = {0, 1, 2}, z[] = {0, 0, 0};
        check_points(&sp, 3, x, y, z);
        CHECK_EQ_SZ(sp.layers[0].n_skipped_z, 0);
    }
    gk_source_points_free(&sp);
    ro.layers = flat; /* -zfield not read: its null and its absence alike */
    ro.zfield = "val";
    CHECK(rd_every_way(ctx, &ro, &sp) == 0);
    CHECK_EQ_SZ(npts(&sp, 0), 3);
    gk_source_points_free(&sp);
    ro.zfield = "nosuch";
    CHECK(rd(ctx, &ro, &sp) == 0);
    gk_source_points_free(&sp);

    /* XYZ of two columns; a CSV whose z is empty or NaN */
    write_text(tpath("two.xyz"), "1 2\n3 4\n");
    ro = opts(tpath("two.xyz"));
    ro.needs_z = GK_Z_NOT_READ;
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        const double x[] = {1, 3}, y[] = {2, 4}, z[] = {0, 0};
        check_points(&sp, 2, x, y, z);
    }
    gk_source_points_free(&sp);
    /* ... clipped by -spat: Z stays 0; every line outside: no "and Z" */
    ro.have_spat = 1;
    ro.spat[0] = 0, ro.spat[1] = 0, ro.spat[2] = 2, ro.spat[3] = 3;
    ro.z_multiply = 5;
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        const double x[] = {1}, y[] = {2}, z[] = {0};
        check_points(&sp, 1, x, y, z);
        CHECK_EQ_SZ(sp.layers[0].n_clipped, 1);
    }
    gk_source_points_free(&sp);
    ro.spat[0] = 10, ro.spat[1] = 10, ro.spat[2] = 20, ro.spat[3] = 20;
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_NO_POINTS);
    CHECK_MSG(ctx, "2 line(s) read, 2 outside -spat/-clipsrc, 0 without finite X, Y");
    CHECKF(!strstr(gk_errmsg(ctx), "and Z"), "Z named: %s", gk_errmsg(ctx));
    ro.have_spat = 0;
    ro.z_multiply = 1;
    ro.needs_z = GK_Z_NEEDED;
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_IO);
    CHECK_MSG(ctx, "line 1");
    write_text(tpath("nanz.csv"), "x,y,z\n0,0,\n1,1,nan\n2,2,3\n");
    ro = opts(tpath("nanz.csv"));
    ro.needs_z = GK_Z_NOT_READ;
    ro.zfield = "z";
    CHECK(rd(ctx, &ro, &sp) == 0);
    CHECK_EQ_SZ(npts(&sp, 0), 3);
    gk_source_points_free(&sp);
}

/* Selection edges: a NaN X/Y when Z is not read, a long non-number -zfield
 * text, the hint when no point has a finite Z, XYZ text with -sql, an
 * overflowing -z_multiply, every line clipped and the same layer twice, a
 * CSV column name too long to pair, and every way a -clipsrc can fail. */
static void test_selection_edges(gk_context *ctx)
{
    gk_source_points sp;
    gk_read_options ro;
    GDALDriverH gpkg = GDALGetDriverByName("GPKG");

    /* a line with a NaN vertex, Z not read: the vertex skipped and counted,
     * the others kept, on every reading path */
    GDALDatasetH ds = GDALCreate(gpkg, tpath("edges.gpkg"), 0, 0, 0, GDT_Unknown, NULL);
    OGRLayerH l = new_layer(ds, "nanxy", NULL, wkbLineString);
    {
        OGRFeatureH f = OGR_F_Create(OGR_L_GetLayerDefn(l));
        OGRGeometryH g = OGR_G_CreateGeometry(wkbLineString);
        OGR_G_AddPoint_2D(g, 0, 0);
        OGR_G_AddPoint_2D(g, NAN, 1);
        OGR_G_AddPoint_2D(g, 2, 2);
        OGR_F_SetGeometryDirectly(f, g);
        must(OGR_L_CreateFeature(l, f), "OGR_L_CreateFeature");
        OGR_F_Destroy(f);
    }
    /* 3-D points whose every Z is NaN, beside a field named like Z */
    l = GDALDatasetCreateLayer(ds, "allnan", NULL, wkbPoint25D, NULL);
    {
        OGRFieldDefnH fd = OGR_Fld_Create("elev", OFTReal);
        OGR_L_CreateField(l, fd, 1);
        OGR_Fld_Destroy(fd);
        for (int i = 0; i < 3; i++) {
            OGRFeatureH f = OGR_F_Create(OGR_L_GetLayerDefn(l));
            OGRGeometryH g = OGR_G_CreateGeometry(wkbPoint25D);
            OGR_G_SetPoint(g, 0, i, i, NAN);
            OGR_F_SetGeometryDirectly(f, g);
            OGR_F_SetFieldDouble(f, 0, 10 + i);
            must(OGR_L_CreateFeature(l, f), "OGR_L_CreateFeature");
            OGR_F_Destroy(f);
        }
    }
    GDALClose(ds);
    ro = opts(tpath("edges.gpkg"));
    char *nanxy[] = {"nanxy", NULL}, *allnan[] = {"allnan", NULL};
    ro.layers = nanxy;
    ro.needs_z = GK_Z_NOT_READ;
    CHECK(rd_every_way(ctx, &ro, &sp) == 0);
    {
        const double x[] = {0, 2}, y[] = {0, 2}, z[] = {0, 0};
        check_points(&sp, 2, x, y, z);
        CHECK_EQ_SZ(sp.layers[0].n_skipped_z, 1);
    }
    gk_source_points_free(&sp);
    /* no point with a finite Z: the error counts them and points at the
     * field that may hold Z; with -zfield elev every point is read */
    ro.layers = allnan;
    ro.needs_z = GK_Z_NEEDED;
    CHECK(rd_every_way(ctx, &ro, &sp) == GK_ERR_NO_POINTS);
    CHECK_MSG(ctx, "layer \"allnan\"");
    CHECK_MSG(ctx, "3 feature(s) read, 0 vertex(es) outside -spat/-clipsrc, 3 without finite X, Y "
                   "and Z; to take Z from a field give -zfield NAME (elev looks like one)");
    ro.zfield = "elev";
    CHECK(rd_every_way(ctx, &ro, &sp) == 0);
    {
        const double x[] = {0, 1, 2}, y[] = {0, 1, 2}, z[] = {10, 11, 12};
        check_points(&sp, 3, x, y, z);
    }
    gk_source_points_free(&sp);

    /* a -zfield text longer than a message shows: cut, marked with "..." */
    char csv[400];
    snprintf(csv, sizeof csv, "x,y,t\n0,0,%s\n",
             "not a number but a rather long sentence that goes on and on past what an error "
             "message should quote");
    write_text(tpath("longtext.csv"), csv);
    ro = opts(tpath("longtext.csv"));
    char *xy_oo[] = {"X_POSSIBLE_NAMES=x", "Y_POSSIBLE_NAMES=y", NULL};
    ro.open_options = xy_oo;
    ro.zfield = "t";
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "feature 1 has \"not a number but a rather long sentence that goes on and on "
                   "past what an err...\", which is not a number");
    CHECKF(!strstr(gk_errmsg(ctx), "should quote"), "the whole text quoted: %s", gk_errmsg(ctx));

    /* a CSV column name too long to pair (its Y twin would not fit a
     * name): passed over, X and Y from the x and y columns */
    char name[700], text[1000];
    memset(name, 'a', sizeof name - 1);
    memcpy(name, "lon", 3);
    name[600] = '\0';
    snprintf(text, sizeof text, "%s,x,y\n1,5,6\n2,7,8\n", name);
    write_text(tpath("longname.csv"), text);
    ro = opts(tpath("longname.csv"));
    ro.needs_z = GK_Z_NOT_READ;
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        const double x[] = {5, 7}, y[] = {6, 8}, z[] = {0, 0};
        check_points(&sp, 2, x, y, z);
    }
    gk_source_points_free(&sp);

    /* XYZ text: -sql refused; -z_multiply past DBL_MAX skips that line */
    write_text(tpath("big.xyz"), "0 0 1\n1 1 5\n2 2 -1\n");
    ro = opts(tpath("big.xyz"));
    ro.sql = "SELECT * FROM big";
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "-sql cannot be used on XYZ text");
    CHECK_MSG(ctx, "big.xyz");
    ro.sql = NULL;
    ro.z_multiply = 1e308;
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        const double x[] = {0, 2}, y[] = {0, 2}, z[] = {1e308, -1e308};
        check_points(&sp, 2, x, y, z);
        CHECK_EQ_SZ(sp.layers[0].n_skipped_z, 1);
        CHECK_EQ_SZ(sp.layers[0].n_features, 3);
    }
    gk_source_points_free(&sp);
    /* every line outside -spat: an error with the counts */
    ro.z_multiply = 1;
    ro.have_spat = 1;
    ro.spat[0] = 10, ro.spat[1] = 10, ro.spat[2] = 20, ro.spat[3] = 20;
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_NO_POINTS);
    CHECK_MSG(ctx, "has no usable point: 3 line(s) read, 3 outside -spat/-clipsrc, 0 without "
                   "finite X, Y and Z");
    CHECK(sp.n_layers == 0 && sp.layers == NULL);
    /* -l big -l big: one layer each, the same points */
    ro.have_spat = 0;
    char *twice[] = {"big", "big", NULL};
    ro.layers = twice;
    CHECK(rd(ctx, &ro, &sp) == 0);
    CHECK(sp.n_layers == 2);
    if (sp.n_layers == 2) {
        CHECK(!strcmp(sp.layers[0].name, "big") && !strcmp(sp.layers[1].name, "big"));
        CHECK(sp.layers[0].name != sp.layers[1].name && sp.layers[0].pts != sp.layers[1].pts);
        CHECK_EQ_SZ(npts(&sp, 1), 3);
        for (size_t i = 0; i < 3 && npts(&sp, 1) == 3; i++)
            CHECK(gk_points_x(sp.layers[1].pts)[i] == gk_points_x(sp.layers[0].pts)[i] &&
                  gk_points_y(sp.layers[1].pts)[i] == gk_points_y(sp.layers[0].pts)[i] &&
                  gk_points_z(sp.layers[1].pts)[i] == gk_points_z(sp.layers[0].pts)[i]);
    }
    gk_source_points_free(&sp);

    /* no source at all */
    ro = opts(NULL);
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "no source datasource given");
    ro = opts("");
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "no source datasource given");

    /* -clipsrc failures: a bad -clipsrcsql, a datasource without layers,
     * a bad -clipsrcwhere, one that keeps no polygon */
    char *one_layer[] = {"grid", NULL};
    ro = opts(tpath("in.gpkg"));
    ro.layers = one_layer;
    ro.clipsrc = tpath("clip.gpkg");
    ro.clipsrcsql = "SELECT * FROM nosuchtable";
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "-clipsrcsql on ");
    CHECK_MSG(ctx, "clip.gpkg failed");
    CHECK_MSG(ctx, "nosuchtable");
    ro.clipsrcsql = NULL;
    write_text(tpath("nolayer.vrt"), "<OGRVRTDataSource></OGRVRTDataSource>\n");
    ro.clipsrc = tpath("nolayer.vrt");
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "nolayer.vrt has no layer");
    /* a bad -clipsrcwhere: refused when set (OGR SQL, GeoJSON), or when
     * read (a GeoPackage hands it to SQLite) */
    write_text(tpath("zones.geojson"),
               "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\","
               "\"properties\":{\"id\":1},\"geometry\":{\"type\":\"Polygon\","
               "\"coordinates\":[[[0.5,0.5],[1.5,0.5],[1.5,1.5],[0.5,1.5],[0.5,0.5]]]}}]}\n");
    ro.clipsrc = tpath("zones.geojson");
    ro.clipsrcwhere = "id = = 1";
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "-clipsrcwhere \"id = = 1\" on ");
    CHECK_MSG(ctx, "zones.geojson is invalid");
    ro.clipsrcwhere = "id = 1";
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        int ids[] = {6};
        check_grid_ids(&sp, ids, 1);
    }
    gk_source_points_free(&sp);
    ro.clipsrc = tpath("clip.gpkg");
    ro.clipsrcwhere = "id = = 1";
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_IO);
    CHECK_MSG(ctx, "clip.gpkg: reading failed");
    CHECK_MSG(ctx, "(-clipsrcwhere \"id = = 1\")"); /* the option at fault named */
    CHECK_MSG(ctx, "id = = 1");
    ro.clipsrcwhere = "id = 99";
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "clip.gpkg: no polygon found (after -clipsrcwhere)");
    ro.clipsrcwhere = NULL;
    /* with -spat too: a bad WKT and a missing clip source still say so */
    ro.have_spat = 1;
    ro.spat[0] = 0, ro.spat[1] = 0, ro.spat[2] = 4, ro.spat[3] = 4;
    ro.clipsrc = "POLYGON((0 0,1 1";
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "-clipsrc: invalid geometry, must be a valid POLYGON or MULTIPOLYGON WKT");
    ro.clipsrc = tpath("missing_clip.gpkg");
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_IO);
    CHECK_MSG(ctx, "missing_clip.gpkg: not a rectangle, a POLYGON/MULTIPOLYGON WKT or a readable "
                   "vector datasource");
    /* -spat and -clipsrc apart: nothing to read, said before any reading */
    ro.spat[0] = 0, ro.spat[1] = 0, ro.spat[2] = 1, ro.spat[3] = 1;
    ro.clipsrc = "2 2 3 3";
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "-spat and -clipsrc do not overlap: nothing to read");
    CHECK(sp.n_layers == 0);
}

/* ---- GeoPackage rows read straight from SQLite (read_gpkg.c) ------------- */

/* Runs SQL statements on a GeoPackage (open for update, closed after). */
static void gpkg_exec(const char *path, const char *const *sql)
{
    GDALDatasetH ds = GDALOpenEx(path, GDAL_OF_VECTOR | GDAL_OF_UPDATE, NULL, NULL, NULL);
    if (!ds) {
        fprintf(stderr, "cannot open %s for update\n", path);
        exit(2);
    }
    for (; *sql; sql++) {
        CPLErrorReset();
        OGRLayerH r = GDALDatasetExecuteSQL(ds, *sql, NULL, NULL);
        if (r)
            GDALDatasetReleaseResultSet(ds, r);
        if (CPLGetLastErrorType() >= CE_Failure) {
            fprintf(stderr, "%s: %s\n", *sql, CPLGetLastErrorMsg());
            exit(2);
        }
    }
    GDALClose(ds);
}

/* A layer of POINT (i i), val i + 1 and s "i + 1" for FIDs fids[i]; no
 * spatial index (its triggers would decode the odd blobs written later). */
static void gpkg_points_layer(GDALDatasetH ds, const char *name, const GIntBig *fids, int n)
{
    char *lco[] = {"SPATIAL_INDEX=NO", NULL};
    OGRLayerH l = GDALDatasetCreateLayer(ds, name, NULL, wkbPoint, lco);
    OGRFieldDefnH fd = OGR_Fld_Create("val", OFTReal);
    OGR_L_CreateField(l, fd, 1);
    OGR_Fld_Destroy(fd);
    fd = OGR_Fld_Create("s", OFTString);
    OGR_L_CreateField(l, fd, 1);
    OGR_Fld_Destroy(fd);
    for (int i = 0; i < n; i++) {
        OGRFeatureH f = OGR_F_Create(OGR_L_GetLayerDefn(l));
        char w[64], s[16];
        snprintf(w, sizeof w, "POINT (%d %d)", i, i);
        snprintf(s, sizeof s, "%d", i + 1);
        OGR_F_SetFID(f, fids ? fids[i] : i + 1);
        OGR_F_SetFieldDouble(f, 0, i + 1);
        OGR_F_SetFieldString(f, 1, s);
        OGR_F_SetGeometryDirectly(f, wkt_geom(w));
        must(OGR_L_CreateFeature(l, f), "OGR_L_CreateFeature");
        OGR_F_Destroy(f);
    }
}

/* The odd rows and tables the reader straight from SQLite must read as OGR
 * does or leave to OGR: each layer read every way (rd_every_way: the same
 * code, message and points), with the points OGR's reading gives (ogrinfo
 * shows them: an envelope or the extended flag are read, another version,
 * an envelope code past 4, a blob shorter than its header, plain WKB, other
 * magic bytes or a text geometry are "Unable to read geometry"). */
static void test_gpkg_sqlite(gk_context *ctx)
{
    const char *path = tpath("rows.gpkg");
    GDALDatasetH ds = GDALCreate(GDALGetDriverByName("GPKG"), path, 0, 0, 0, GDT_Unknown, NULL);
    static const char *const odd[] = {"env", "ext", "ver", "env5", "short", "wkb",
                                      "tiny", "gq", "text", "infx", "valtext", "sblob"};
    const int n_odd = (int)(sizeof odd / sizeof *odd);
    for (int i = 0; i < n_odd; i++)
        gpkg_points_layer(ds, odd[i], NULL, 3);
    gpkg_points_layer(ds, "base", NULL, 3);
    /* FIDs far apart: a span that the slots cannot hold for 2 points, and
     * one they can (1e6 slots: many ranges, most of them empty) */
    const GIntBig sparse[] = {1, 3000000}, spread[] = {1, 500000, 1000000};
    gpkg_points_layer(ds, "sparse", sparse, 2);
    gpkg_points_layer(ds, "spread", spread, 3);
    GDALClose(ds);

    /* POINT (1 1): its WKB, and behind a GeoPackage header of flags FF */
#define WKB11 "0101000000000000000000F03F000000000000F03F"
#define ENV32 "000000000000F03F000000000000F03F000000000000F03F000000000000F03F"
#define SET2(t, v) "UPDATE \"" t "\" SET geom = " v " WHERE fid = 2"
    const char *const sql[] = {
        SET2("env", "X'4750000300000000" ENV32 WKB11 "'"), /* envelope code 1: 32 bytes */
        SET2("ext", "X'4750002100000000" WKB11 "'"),       /* the extended-type flag */
        SET2("ver", "X'4750010100000000" WKB11 "'"),       /* version 1 */
        SET2("env5", "X'4750000B00000000" WKB11 "'"),      /* envelope code 5 */
        SET2("short", "X'4750000300000000" WKB11 "'"),     /* code 1, no envelope */
        SET2("wkb", "X'" WKB11 "'"),
        SET2("tiny", "X'4750'"),
        SET2("gq", "X'4751000100000000" WKB11 "'"),
        SET2("text", "'POINT (1 1)'"),
        /* X = +inf */
        SET2("infx", "X'47500001000000000101000000000000000000F07F000000000000F03F'"),
        "UPDATE valtext SET val = 'abc' WHERE fid = 2",
        "UPDATE sblob SET s = X'41' WHERE fid = 2",
        /* a view, a table without a primary key, one whose key is INT (not
         * a rowid): OGR reads them, the ranges of FIDs do not apply */
        "CREATE VIEW pv AS SELECT fid, geom, val FROM base",
        "CREATE TABLE np (geom POINT, val REAL)",
        "INSERT INTO np SELECT geom, val FROM base",
        "CREATE TABLE ip (fid INT PRIMARY KEY, geom POINT, val REAL)",
        "INSERT INTO ip SELECT fid, geom, val FROM base",
        "INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES "
        "('pv', 'features', 'pv', 0), ('np', 'features', 'np', 0), ('ip', 'features', 'ip', 0)",
        "INSERT INTO gpkg_geometry_columns VALUES ('pv', 'geom', 'POINT', 0, 0, 0), "
        "('np', 'geom', 'POINT', 0, 0, 0), ('ip', 'geom', 'POINT', 0, 0, 0)",
        NULL};
#undef SET2
#undef ENV32
#undef WKB11
    gpkg_exec(path, sql);

    gk_source_points sp;
    gk_read_options ro = opts(path);
    char *lyr[2] = {NULL, NULL};
    ro.layers = lyr;
    ro.zfield = "val";
    const double x3[] = {0, 1, 2}, y3[] = {0, 1, 2}, z3[] = {1, 2, 3};
    /* read whole by OGR or straight from SQLite: the three points; the
     * first two straight from SQLite, the others left to OGR */
    static const char *const whole[] = {"env", "spread", "ext", "pv", "np", "ip", "sparse"};
    for (int i = 0; i < 7; i++) {
        lyr[0] = (char *)whole[i];
        int rc = rd_every_way(ctx, &ro, &sp);
        CHECKF(rc == 0, "layer %s: %d %s", whole[i], rc, gk_errmsg(ctx));
        if (rc)
            continue;
        size_t n = i == 6 ? 2 : 3;
        check_points(&sp, n, x3, y3, z3);
        CHECK_EQ_SZ(sp.layers[0].n_features, n);
        int sqlite = !strcmp(sp.layers[0].read_by, "sqlite");
        CHECKF(sqlite == (i < 2), "layer %s read by %s", whole[i], sp.layers[0].read_by);
        gk_source_points_free(&sp);
    }
    /* geometries OGR cannot read: left to OGR, whose reading they are.
     * (Its Arrow stream gives the row no geometry, as gdal_grid's features
     * do after OGR's "Unable to read geometry", while the feature path makes
     * that error the run's: the two OGR paths are not compared here.) */
    for (int i = 2; i < 9; i++) {
        lyr[0] = (char *)odd[i];
        int rc = rd_ways(ctx, &ro, &sp, 2);
#if GDAL_VERSION_NUM >= GDAL_COMPUTE_VERSION(3, 7, 0)
        /* newer GDAL's Arrow stream reports OGR's error too, as the feature
         * path does: either, never a silent wrong answer */
        if (rc) {
            CHECKF(strstr(gk_errmsg(ctx), "Unable to read geometry") &&
                       strstr(gk_errmsg(ctx), odd[i]),
                   "layer %s: %s", odd[i], gk_errmsg(ctx));
            continue;
        }
#endif
        CHECKF(rc == 0, "layer %s: %d %s", odd[i], rc, gk_errmsg(ctx));
        if (rc)
            continue;
        const double x[] = {0, 2}, y[] = {0, 2}, z[] = {1, 3};
        check_points(&sp, 2, x, y, z);
        CHECK(strcmp(sp.layers[0].read_by, "sqlite"));
        gk_source_points_free(&sp);
        /* feature by feature: OGR's error, naming the layer */
        CPLSetConfigOption("GRIDKIT_GPKG_SQLITE", "NO");
        CPLSetConfigOption("GRIDKIT_OGR_ARROW", "NO");
        CHECKF(rd(ctx, &ro, &sp) == GK_ERR_IO, "layer %s", odd[i]);
        CPLSetConfigOption("GRIDKIT_GPKG_SQLITE", NULL);
        CPLSetConfigOption("GRIDKIT_OGR_ARROW", NULL);
        CHECK_MSG(ctx, "Unable to read geometry");
        CHECK_MSG(ctx, odd[i]);
    }
    /* an infinite X: skipped and counted, with Z read or not */
    lyr[0] = "infx";
    for (int noz = 0; noz < 2; noz++) {
        ro.needs_z = noz ? GK_Z_NOT_READ : GK_Z_NEEDED;
        CHECK(rd_every_way(ctx, &ro, &sp) == 0);
        const double x[] = {0, 2}, y[] = {0, 2}, z[] = {noz ? 0 : 1, noz ? 0 : 3};
        check_points(&sp, 2, x, y, z);
        CHECK_EQ_SZ(sp.layers[0].n_skipped_z, 1);
        CHECK(!strcmp(sp.layers[0].read_by, "sqlite"));
        gk_source_points_free(&sp);
    }
    ro.needs_z = GK_Z_NEEDED;
    /* text in a REAL column: 0, as OGR converts it (ogrinfo shows val = 0) */
    lyr[0] = "valtext";
    CHECK(rd_every_way(ctx, &ro, &sp) == 0);
    {
        const double z[] = {1, 0, 3};
        check_points(&sp, 3, x3, y3, z);
        CHECK(strcmp(sp.layers[0].read_by, "sqlite"));
        gk_source_points_free(&sp);
    }
    /* a blob in a String column: its text, "A", is not a number */
    lyr[0] = "sblob";
    ro.zfield = "s";
    CHECK(rd_every_way(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "feature 2 has \"A\", which is not a number");

    /* a GeoPackage in /vsimem/: no SQLite connection can reach it, OGR reads it */
    ds = GDALCreate(GDALGetDriverByName("GPKG"), "/vsimem/gk_rows.gpkg", 0, 0, 0, GDT_Unknown,
                    NULL);
    gpkg_points_layer(ds, "base", NULL, 3);
    GDALClose(ds);
    ro = opts("/vsimem/gk_rows.gpkg");
    ro.zfield = "val";
    CHECK(rd(ctx, &ro, &sp) == 0);
    check_points(&sp, 3, x3, y3, z3);
    CHECK(sp.n_layers == 1 && strcmp(sp.layers[0].read_by, "sqlite"));
    gk_source_points_free(&sp);
    VSIUnlink("/vsimem/gk_rows.gpkg");
}

/* Layers and results without geometry, curves and empty geometries, a
 * -zfield of dates, open options on a GeoPackage, a failed read under
 * -where, two fields that may hold Z, and gk_peek_points. */
static void test_layer_kinds(gk_context *ctx)
{
    gk_source_points sp;
    gk_read_options ro;
    const char *path = tpath("kinds.gpkg");
    GDALDatasetH ds = GDALCreate(GDALGetDriverByName("GPKG"), path, 0, 0, 0, GDT_Unknown, NULL);
    new_layer(ds, "attrs", NULL, wkbNone);
    /* a circular arc's 3 points, 1 point, and empty geometries that have
     * no vertex (2-D ones too: not "2-D geometries" when Z is needed) */
    OGRLayerH l = new_layer(ds, "curves", NULL, wkbUnknown);
    add_feature(l, "POINT Z (1 1 10)", 1, NULL);
    add_feature(l, "CIRCULARSTRING Z (0 0 1,1 1 2,2 0 3)", 2, NULL);
    add_feature(l, "LINESTRING EMPTY", 3, NULL);
    add_feature(l, "POINT EMPTY", 4, NULL);
    add_feature(l, "MULTIPOINT EMPTY", 5, NULL);
    /* a Date field; every Z NaN beside two fields named like Z */
    l = new_layer(ds, "dated", NULL, wkbPoint25D);
    OGRFieldDefnH fd = OGR_Fld_Create("day", OFTDate);
    OGR_L_CreateField(l, fd, 1);
    OGR_Fld_Destroy(fd);
    fd = OGR_Fld_Create("height", OFTReal);
    OGR_L_CreateField(l, fd, 1);
    OGR_Fld_Destroy(fd);
    for (int i = 0; i < 2; i++) {
        OGRFeatureH f = OGR_F_Create(OGR_L_GetLayerDefn(l));
        OGRGeometryH g = OGR_G_CreateGeometry(wkbPoint25D);
        OGR_G_SetPoint(g, 0, i, i, NAN);
        OGR_F_SetGeometryDirectly(f, g);
        OGR_F_SetFieldDateTime(f, 2, 2020, 1, 2 + i, 0, 0, 0, 0);
        must(OGR_L_CreateFeature(l, f), "OGR_L_CreateFeature");
        OGR_F_Destroy(f);
    }
    GDALClose(ds);

    /* no geometry: a table, a -sql result, a -sql result on a CSV (where
     * the open options that name its X and Y columns would make one) */
    ro = opts(path);
    char *attrs[] = {"attrs", NULL};
    ro.layers = attrs;
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "layer \"attrs\" of ");
    CHECK_MSG(ctx, "has no geometry (fields: \"id\", \"val\")");
    CHECKF(!strstr(gk_errmsg(ctx), "POSSIBLE_NAMES"), "a CSV's hint: %s", gk_errmsg(ctx));
    ro = opts(tpath("in.gpkg"));
    ro.sql = "SELECT id FROM grid";
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "the -sql result on ");
    CHECK_MSG(ctx, "has no geometry (fields: \"id\"): select the geometry too");
    CHECKF(!strstr(gk_errmsg(ctx), "POSSIBLE_NAMES"), "a CSV's hint: %s", gk_errmsg(ctx));
    ro = opts(tpath("nocoords.csv")); /* a,b,c: no column pair to place points */
    ro.sql = "SELECT a FROM nocoords";
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "select the geometry too; a CSV's X and Y columns become one with -oo "
                   "X_POSSIBLE_NAMES=COLUMN -oo Y_POSSIBLE_NAMES=COLUMN");

    /* every vertex, empty geometries none: (1 1 10) and the arc's three */
    ro = opts(path);
    char *curves[] = {"curves", NULL};
    ro.layers = curves;
    CHECK(rd_every_way(ctx, &ro, &sp) == 0);
    {
        const double x[] = {1, 0, 1, 2}, y[] = {1, 0, 1, 0}, z[] = {10, 1, 2, 3};
        check_points(&sp, 4, x, y, z);
        CHECK_EQ_SZ(sp.layers[0].n_features, 5);
        gk_source_points_free(&sp);
    }
    /* an open option: OGR reads (it could change what OGR reads), the same points */
    char *oo[] = {"LIST_ALL_TABLES=YES", NULL};
    ro.open_options = oo;
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        const double x[] = {1, 0, 1, 2}, y[] = {1, 0, 1, 0}, z[] = {10, 1, 2, 3};
        check_points(&sp, 4, x, y, z);
        CHECK(strcmp(sp.layers[0].read_by, "sqlite"));
        gk_source_points_free(&sp);
    }

    /* -zfield of dates: text that is not a number, named, every way */
    ro = opts(path);
    char *dated[] = {"dated", NULL};
    ro.layers = dated;
    ro.zfield = "day";
    CHECK(rd_every_way(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "-zfield \"day\" of layer \"dated\"");
    CHECK_MSG(ctx, "feature 1 has \"2020/01/02\", which is not a number");
    /* no finite Z, two fields named like Z: both named */
    ro.zfield = NULL;
    CHECK(rd_every_way(ctx, &ro, &sp) == GK_ERR_NO_POINTS);
    CHECK_MSG(ctx, "2 without finite X, Y and Z; to take Z from a field give -zfield NAME");
    CHECK_MSG(ctx, "look like one)");
    CHECK_MSG(ctx, "height");

    /* a geometry OGR cannot read under -where: the -where in the message */
    ro = opts(tpath("rows.gpkg"));
    char *wkb[] = {"wkb", NULL};
    ro.layers = wkb;
    ro.zfield = "val";
    ro.where = "fid > 0";
    CPLSetConfigOption("GRIDKIT_OGR_ARROW", "NO");
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_IO);
    CPLSetConfigOption("GRIDKIT_OGR_ARROW", NULL);
    CHECK_MSG(ctx, "reading layer \"wkb\" of ");
    CHECK_MSG(ctx, "Unable to read geometry (-where \"fid > 0\")");

    /* gk_peek_points: the feature count and extent of the layers read, or
     * -1 where they are not known cheaply */
    double n = 0, bb[4] = {0};
    ro = opts(tpath("in.gpkg"));
    CHECK(gk_peek_points(&ro, &n, bb) == -1); /* 4 layers, no -l */
    char *grid_geoms[] = {"grid", "geoms", NULL};
    ro.layers = grid_geoms;
    CHECK(gk_peek_points(&ro, &n, bb) == 0);
    CHECK(n == 25 && bb[0] == 0 && bb[1] == 0 && bb[2] == 9 && bb[3] == 9);
    char *nosuch[] = {"nosuch", NULL};
    ro.layers = nosuch;
    CHECK(gk_peek_points(&ro, &n, bb) == -1);
    ro.layers = attrs; /* no extent */
    ro.src = path;
    CHECK(gk_peek_points(&ro, &n, bb) == -1);
    ro = opts(tpath("in.gpkg"));
    ro.sql = "SELECT * FROM grid";
    CHECK(gk_peek_points(&ro, &n, bb) == -1);
    ro = opts(tpath("big.xyz"));
    CHECK(gk_peek_points(&ro, &n, bb) == -1);
    ro = opts(tpath("does_not_exist.gpkg"));
    CHECK(gk_peek_points(&ro, &n, bb) == -1);
    ro = opts("ab"); /* shorter than ".xyz" */
    CHECK(gk_peek_points(&ro, &n, bb) == -1);
    /* FORMAT= other than XYZ: not XYZ text, peeked as OGR's */
    ro = opts(tpath("in.gpkg"));
    char *fmt_other[] = {"FORMAT=GPKG", NULL}, *grid_only[] = {"grid", NULL};
    ro.open_options = fmt_other;
    ro.layers = grid_only;
    CHECK(gk_peek_points(&ro, &n, bb) == 0);
    CHECK(n == 25 && bb[2] == 4 && bb[3] == 4);
}

/* The files an input stands for (io/input_files.h), for names that reach
 * no local file or reach one only through a prefix: nothing remote is
 * opened, a name GDAL cannot open counts by its canonical path. */
static void test_inputs(void)
{
    char in_gpkg[512];
    snprintf(in_gpkg, sizeof in_gpkg, "%s", tpath("in.gpkg"));
    gk_inputs *in = gk_inputs_new();
    CHECK(in != NULL);
    if (!in)
        return;
    /* remote: a URL, /vsicurl/, an archive that is remote: nothing local */
    CHECK(gk_inputs_add(in, "https://example.invalid/a.gpkg", NULL) == GK_OK);
    CHECK(gk_inputs_add(in, "/vsicurl/https://example.invalid/a.gpkg", NULL) == GK_OK);
    CHECK(gk_inputs_add(in, "/vsizip//vsicurl/https://example.invalid/a.zip/a.shp", NULL) == GK_OK);
    CHECK(gk_inputs_owner(in, "https://example.invalid/a.gpkg", NULL) == NULL);
    CHECK(gk_inputs_owner(in, "/vsicurl/https://example.invalid/a.gpkg", NULL) == NULL);
    /* /vsimem/: by its name */
    CHECK(gk_inputs_add(in, "/vsimem/gk_in.gpkg", NULL) == GK_OK);
    CHECK(gk_inputs_owner(in, "/vsimem/gk_in.gpkg", NULL) != NULL);
    /* archive names that reach no local file: a /vsisubfile/ without its
     * comma, braces never closed, an archive path under no folder that
     * exists; none makes a local file an input */
    char name[700];
    snprintf(name, sizeof name, "/vsisubfile/0_10%s", in_gpkg);
    CHECK(gk_inputs_add(in, name, NULL) == GK_OK);
    snprintf(name, sizeof name, "/vsizip/{%s/a.shp", in_gpkg);
    CHECK(gk_inputs_add(in, name, NULL) == GK_OK);
    CHECK(gk_inputs_add(in, "/vsizip/gk_no_such_dir/a.zip/a.shp", NULL) == GK_OK);
    CHECK(gk_inputs_owner(in, in_gpkg, NULL) == NULL);
    /* a driver prefix whose quoted name is never closed: no file behind it;
     * "C:..." is a drive letter, not a driver */
    snprintf(name, sizeof name, "GPKG:\"%s", in_gpkg);
    CHECK(gk_inputs_add(in, name, NULL) == GK_OK);
    CHECK(gk_inputs_add(in, "C:gk_no_such_file", NULL) == GK_OK);
    CHECK(gk_inputs_owner(in, in_gpkg, NULL) == NULL);
    /* GPKG:file:layer: the file, with the input as spelt */
    snprintf(name, sizeof name, "GPKG:%s:grid", in_gpkg);
    CHECK(gk_inputs_add(in, name, NULL) == GK_OK);
    const char *file = NULL, *owner = gk_inputs_owner(in, in_gpkg, &file);
    CHECK(owner && !strcmp(owner, name));
    CHECK(file && !strcmp(file, in_gpkg));
    /* nothing and nobody: no input */
    CHECK(gk_inputs_add(in, "", NULL) == GK_OK && gk_inputs_add_file(in, NULL) == GK_OK);
    CHECK(gk_inputs_owner(in, NULL, NULL) == NULL);
    CHECK(gk_inputs_owner(in, tpath("not_an_input.tif"), NULL) == NULL);
    gk_inputs_free(in);
}

/* Each case sets or clears one option of `ro` from the case before (and
 * checks what it needs: ids, counts, messages), so the cases stay written
 * out in order rather than in a table. */
void test_ogr(void)
{
    gk_context *ctx = gk_context_new();
    gk_source_points sp;
    gk_read_options ro;
    char *one_layer[] = {"grid", NULL};
    make_fixtures();

    /* plain layer with -l; SRS taken */
    ro = opts(tpath("in.gpkg"));
    ro.layers = one_layer;
    CHECK(rd(ctx, &ro, &sp) == 0);
    CHECK(sp.n_layers == 1 && strcmp(sp.layers[0].name, "grid") == 0);
    CHECK_EQ_SZ(npts(&sp, 0), 25);
    CHECK_EQ_SZ(sp.layers[0].n_features, 25);
    CHECK(sp.srs_wkt && strstr(sp.srs_wkt, "32633"));
    CHECK(gk_points_x(sp.layers[0].pts)[7] == 2 && gk_points_y(sp.layers[0].pts)[7] == 1 &&
          gk_points_z(sp.layers[0].pts)[7] == 21);
    gk_source_points_free(&sp);

    /* every vertex of every geometry kind: 1 + 3 + 5 + 2 + 3 */
    char *geoms[] = {"geoms", NULL};
    ro.layers = geoms;
    CHECK(rd(ctx, &ro, &sp) == 0);
    CHECK_EQ_SZ(npts(&sp, 0), 14);
    CHECK_EQ_SZ(sp.layers[0].n_features, 6);
    {
        double zsum = 0;
        for (size_t i = 0; i < npts(&sp, 0); i++)
            zsum += gk_points_z(sp.layers[0].pts)[i];
        CHECK(zsum == 10 + 6 + 25 + 15 + 12);
    }
    gk_source_points_free(&sp);

    /* -z_increase / -z_multiply with -where */
    ro.layers = one_layer;
    ro.where = "id = 7";
    ro.z_increase = 1;
    ro.z_multiply = 2;
    CHECK(rd(ctx, &ro, &sp) == 0);
    CHECK_EQ_SZ(npts(&sp, 0), 1);
    CHECK(gk_points_z(sp.layers[0].pts)[0] == (21 + 1) * 2);
    gk_source_points_free(&sp);

    /* -where */
    ro = opts(tpath("in.gpkg"));
    ro.layers = one_layer;
    ro.where = "id >= 20";
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        int ids[] = {20, 21, 22, 23, 24};
        check_grid_ids(&sp, ids, 5);
    }
    gk_source_points_free(&sp);

    /* -spat: boundary points excluded */
    ro = opts(tpath("in.gpkg"));
    ro.layers = one_layer;
    ro.have_spat = 1;
    ro.spat[0] = 1, ro.spat[1] = 1, ro.spat[2] = 3, ro.spat[3] = 3;
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        int ids[] = {12};
        check_grid_ids(&sp, ids, 1);
        CHECK(sp.layers[0].n_clipped >= 8);
    }
    gk_source_points_free(&sp);
    ro.spat[0] = 0.5, ro.spat[1] = 0.5, ro.spat[2] = 3.5, ro.spat[3] = 3.5;
    CHECK(rd(ctx, &ro, &sp) == 0);
    CHECK_EQ_SZ(npts(&sp, 0), 9);
    gk_source_points_free(&sp);

    /* -spat far away: no usable point is an error naming the layer */
    ro.spat[0] = 100, ro.spat[1] = 100, ro.spat[2] = 101, ro.spat[3] = 101;
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_NO_POINTS);
    CHECK_MSG(ctx, "\"grid\"");
    CHECK_MSG(ctx, "feature");
    CHECK(sp.n_layers == 0 && sp.layers == NULL);

    /* -clipsrc rectangle */
    ro = opts(tpath("in.gpkg"));
    ro.layers = one_layer;
    ro.clipsrc = "0.5 0.5 2.5 2.5";
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        int ids[] = {6, 7, 11, 12};
        check_grid_ids(&sp, ids, 4);
    }
    gk_source_points_free(&sp);
    /* rectangle given as a boundary-touching box: boundary excluded */
    ro.clipsrc = "1 1 3 3";
    CHECK(rd(ctx, &ro, &sp) == 0);
    CHECK_EQ_SZ(npts(&sp, 0), 1);
    gk_source_points_free(&sp);

    /* -clipsrc WKT triangle: x+y = 4 is on the boundary, excluded */
    ro.clipsrc = "POLYGON((0.5 0.5,3.5 0.5,0.5 3.5,0.5 0.5))";
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        int ids[] = {6, 7, 11};
        check_grid_ids(&sp, ids, 3);
    }
    gk_source_points_free(&sp);
    ro.clipsrc = "multipolygon(((0.5 0.5,1.5 0.5,1.5 1.5,0.5 0.5)),((2.5 2.5,3.5 2.5,3.5 3.5,2.5 "
                 "3.5,2.5 2.5)))";
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        int ids[] = {18};
        check_grid_ids(&sp, ids, 1); /* (1,1) is on the first triangle's hypotenuse */
    }
    gk_source_points_free(&sp);
    ro.clipsrc = "POLYGON((0 0,1 1";
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "WKT");

    /* -clipsrc datasource: two zones unioned; then -clipsrcwhere / -clipsrcsql */
    ro.clipsrc = tpath("clip.gpkg");
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        int ids[] = {6, 18, 19, 23, 24};
        check_grid_ids(&sp, ids, 5);
    }
    gk_source_points_free(&sp);
    ro.clipsrcwhere = "id = 1";
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        int ids[] = {6};
        check_grid_ids(&sp, ids, 1);
    }
    gk_source_points_free(&sp);
    ro.clipsrcwhere = NULL;
    ro.clipsrcsql = "SELECT * FROM zones WHERE id = 2";
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        int ids[] = {18, 19, 23, 24};
        check_grid_ids(&sp, ids, 4);
    }
    gk_source_points_free(&sp);
    ro.clipsrcsql = NULL;
    ro.clipsrclayer = "lines";
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "Geometry not of polygon type");
    CHECK_MSG(ctx, "clip.gpkg");
    ro.clipsrclayer = "nosuch";
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "nosuch");
    CHECK_MSG(ctx, "zones");
    ro.clipsrclayer = NULL;
    ro.clipsrc = tpath("missing_clip.shp");
    CHECK(rd(ctx, &ro, &sp) != 0);
    CHECK_MSG(ctx, "missing_clip.shp");

    /* -spat and -clipsrc together: intersection */
    ro.clipsrc = tpath("clip.gpkg");
    ro.have_spat = 1;
    ro.spat[0] = 0, ro.spat[1] = 0, ro.spat[2] = 3.7, ro.spat[3] = 3.7;
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        int ids[] = {6, 18};
        check_grid_ids(&sp, ids, 2);
    }
    gk_source_points_free(&sp);
    ro.clipsrc = "spat_extent";
    ro.spat[0] = 0.5, ro.spat[1] = 0.5, ro.spat[2] = 2.5, ro.spat[3] = 2.5;
    CHECK(rd(ctx, &ro, &sp) == 0);
    CHECK_EQ_SZ(npts(&sp, 0), 4);
    gk_source_points_free(&sp);
    ro.have_spat = 0;
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "spat_extent");

    /* -sql: its own layer, spatial filter applied, SRS taken */
    ro = opts(tpath("in.gpkg"));
    ro.sql = "SELECT * FROM grid WHERE id < 5";
    CHECK(rd(ctx, &ro, &sp) == 0);
    CHECK(sp.n_layers == 1 && strcmp(sp.layers[0].name, "SQL") == 0);
    {
        int ids[] = {0, 1, 2, 3, 4};
        check_grid_ids(&sp, ids, 5);
    }
    CHECK(sp.srs_wkt && strstr(sp.srs_wkt, "32633"));
    gk_source_points_free(&sp);
    ro.have_spat = 1;
    ro.spat[0] = 0.5, ro.spat[1] = -1, ro.spat[2] = 2.5, ro.spat[3] = 1;
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        int ids[] = {1, 2};
        check_grid_ids(&sp, ids, 2);
    }
    gk_source_points_free(&sp);

    /* -sql then -l layers, in order; -where only on the -l layers */
    ro = opts(tpath("in.gpkg"));
    char *two[] = {"geoms", "grid", NULL};
    ro.sql = "SELECT * FROM grid WHERE id < 3";
    ro.layers = two;
    ro.where = "id = 3";
    CHECK(rd(ctx, &ro, &sp) == 0);
    CHECK(sp.n_layers == 3);
    if (sp.n_layers == 3) {
        CHECK(strcmp(sp.layers[0].name, "SQL") == 0 && npts(&sp, 0) == 3);
        CHECK(strcmp(sp.layers[1].name, "geoms") == 0 && npts(&sp, 1) == 5); /* polygon */
        CHECK(strcmp(sp.layers[2].name, "grid") == 0 && npts(&sp, 2) == 1);
    }
    gk_source_points_free(&sp);

    /* -zfield: null values skipped and counted; 2-D geometry is then fine */
    ro = opts(tpath("in.gpkg"));
    char *flat[] = {"flat", NULL};
    ro.layers = flat;
    ro.zfield = "val";
    CHECK(rd(ctx, &ro, &sp) == 0);
    CHECK_EQ_SZ(npts(&sp, 0), 2);
    CHECK_EQ_SZ(sp.layers[0].n_skipped_z, 1);
    CHECK_EQ_SZ(sp.layers[0].n_features, 3);
    CHECK(gk_points_z(sp.layers[0].pts)[0] == 1 && gk_points_z(sp.layers[0].pts)[1] == 3);
    gk_source_points_free(&sp);
    /* 2-D geometry without -zfield: error when Z is needed, Z = 0 otherwise */
    ro.zfield = NULL;
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "layer \"flat\" has 2-D geometries and no -zfield");
    ro.needs_z = 0;
    CHECK(rd(ctx, &ro, &sp) == 0);
    CHECK_EQ_SZ(npts(&sp, 0), 3);
    CHECK(gk_points_z(sp.layers[0].pts)[2] == 0);
    gk_source_points_free(&sp);
    /* unknown field: names field, layer and the fields there are */
    ro.zfield = "height";
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "\"height\"");
    CHECK_MSG(ctx, "\"flat\"");
    CHECK_MSG(ctx, "\"val\"");

    /* NaN Z skipped and counted */
    ro = opts(tpath("in.gpkg"));
    char *nanz[] = {"nanz", NULL};
    ro.layers = nanz;
    CHECK(rd(ctx, &ro, &sp) == 0);
    CHECK_EQ_SZ(npts(&sp, 0), 2);
    CHECK_EQ_SZ(sp.layers[0].n_skipped_z, 1);
    gk_source_points_free(&sp);

    /* errors: missing file, several layers and no -l, unknown layer, bad -where, bad -sql */
    ro = opts(tpath("does_not_exist.gpkg"));
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_IO);
    CHECK_MSG(ctx, "does_not_exist.gpkg");
    ro = opts(tpath("in.gpkg"));
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "4 layers");
    CHECK_MSG(ctx, "\"nanz\"");
    char *bad[] = {"grid", "nosuchlayer", NULL};
    ro.layers = bad;
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "\"nosuchlayer\"");
    CHECK_MSG(ctx, "\"geoms\"");
    ro.layers = one_layer;
    ro.where = "nosuchcolumn = 1";
    CHECK(rd(ctx, &ro, &sp) != 0);
    CHECK_MSG(ctx, "nosuchcolumn");
    ro.where = "id = = 1";
    CHECK(rd(ctx, &ro, &sp) != 0);
    CHECK_MSG(ctx, "id = = 1");
    ro.where = NULL;
    ro.layers = NULL;
    ro.sql = "SELECT * FROM nosuchtable";
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "-sql");
    CHECK_MSG(ctx, "nosuchtable");

    /* shapefile: -where evaluated by OGR SQL; a bad one fails when set */
    ro = opts(tpath("grid.shp"));
    ro.where = "id >= 20";
    CHECK(rd(ctx, &ro, &sp) == 0);
    {
        int ids[] = {20, 21, 22, 23, 24};
        check_grid_ids(&sp, ids, 5);
    }
    CHECK(sp.srs_wkt && strstr(sp.srs_wkt, "UTM zone 33N"));
    gk_source_points_free(&sp);
    ro.where = "id = = 1";
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "-where \"id = = 1\" is invalid on layer \"grid\"");
    ro.where = "nosuchcolumn = 1";
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "nosuchcolumn");
    ro.where = NULL;
    ro.zfield = "val";
    ro.have_spat = 1;
    ro.spat[0] = 2.5, ro.spat[1] = 2.5, ro.spat[2] = 5, ro.spat[3] = 5;
    CHECK(rd(ctx, &ro, &sp) == 0);
    CHECK_EQ_SZ(npts(&sp, 0), 4);
    CHECK(gk_points_z(sp.layers[0].pts)[0] == 6 && gk_points_z(sp.layers[0].pts)[3] == 8);
    gk_source_points_free(&sp);

    /* CSV via open options: Z from Z_POSSIBLE_NAMES, or -zfield with a null */
    ro = opts(tpath("pts.csv"));
    char *csv_oo[] = {"X_POSSIBLE_NAMES=x", "Y_POSSIBLE_NAMES=y", "Z_POSSIBLE_NAMES=z",
                      "AUTODETECT_TYPE=YES", NULL};
    ro.open_options = csv_oo;
    CHECK(rd(ctx, &ro, &sp) == 0);
    CHECK_EQ_SZ(npts(&sp, 0), 4);
    CHECK(gk_points_x(sp.layers[0].pts)[3] == 3 && gk_points_z(sp.layers[0].pts)[3] == 4);
    gk_source_points_free(&sp);
    ro.zfield = "w";
    CHECK(rd(ctx, &ro, &sp) == 0);
    CHECK_EQ_SZ(npts(&sp, 0), 3);
    CHECK_EQ_SZ(sp.layers[0].n_skipped_z, 1);
    CHECK(gk_points_z(sp.layers[0].pts)[2] == 40);
    gk_source_points_free(&sp);
    char *csv_oo2d[] = {"X_POSSIBLE_NAMES=x", "Y_POSSIBLE_NAMES=y", NULL};
    ro.open_options = csv_oo2d;
    ro.zfield = NULL;
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "2-D");

    test_csv_columns(ctx);
    test_zfield_text(ctx);
    test_z_not_read(ctx);
    test_selection_edges(ctx);
    test_gpkg_sqlite(ctx);
    test_layer_kinds(ctx);
    test_inputs();

    /* XYZ through gk_read_points: clip and Z transform apply; -where refused */
    write_text(tpath("pts.XYZ"), "x y h\n0 0 1\n1 1 2\n2 2 3\n3 3 nan\n");
    ro = opts(tpath("pts.XYZ"));
    ro.z_multiply = 10;
    ro.z_increase = 1;
    ro.have_spat = 1;
    ro.spat[0] = 0.5, ro.spat[1] = 0.5, ro.spat[2] = 5, ro.spat[3] = 5;
    CHECK(rd(ctx, &ro, &sp) == 0);
    CHECK(sp.n_layers == 1 && strcmp(sp.layers[0].name, "pts") == 0);
    CHECK_EQ_SZ(npts(&sp, 0), 2);
    CHECK_EQ_SZ(sp.layers[0].n_skipped_z, 1);
    CHECK_EQ_SZ(sp.layers[0].n_clipped, 1);
    CHECK(gk_points_z(sp.layers[0].pts)[0] == 30 && gk_points_z(sp.layers[0].pts)[1] == 40);
    CHECK(sp.srs_wkt == NULL);
    gk_source_points_free(&sp);
    ro.where = "h > 1";
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "-where");
    ro.where = NULL;
    ro.have_spat = 0;
    ro.zfield = "H";
    char *pts_l[] = {"pts", NULL};
    ro.layers = pts_l;
    CHECK(rd(ctx, &ro, &sp) == 0);
    CHECK_EQ_SZ(npts(&sp, 0), 3);
    gk_source_points_free(&sp);
    char *other_l[] = {"other", NULL};
    ro.layers = other_l;
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_ARG);
    CHECK_MSG(ctx, "\"other\"");
    /* -oo FORMAT=XYZ for another extension */
    write_text(tpath("pts.txt"), "0,0,1\n1,1,2\n");
    ro = opts(tpath("pts.txt"));
    char *fmt_oo[] = {"FORMAT=XYZ", NULL};
    ro.open_options = fmt_oo;
    CHECK(rd(ctx, &ro, &sp) == 0);
    CHECK_EQ_SZ(npts(&sp, 0), 2);
    gk_source_points_free(&sp);
    ro = opts(tpath("bad.xyz"));
    write_text(tpath("bad.xyz"), "0 0 1\n1 1 x\n");
    CHECK(rd(ctx, &ro, &sp) == GK_ERR_IO);
    CHECK_MSG(ctx, "line 2");

    gk_context_free(ctx);
}
