/*
 * test_read_points.c - points in: the XYZ text reader and gk_read_points over
 * OGR sources (CSV, GeoPackage) with every gdal_grid selection option.
 *
 *   test_read_points xyz | ogr | arrow    (ctest)
 *   test_read_points bench_xyz N          (writes and times an N-line .xyz)
 *   test_read_points bench_gpkg N         (writes and times an N-point GeoPackage)
 */
#define _POSIX_C_SOURCE 200809L
#include "core/points_xyz.h"
#include "read_points.h"

#include "cpl_conv.h"
#include "gdal.h"
#include "ogr_api.h"
#include "ogr_srs_api.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gk_check.h"

/* The context's last message contains sub. */
#define CHECK_MSG(ctx, sub)                                                                  \
    do {                                                                                     \
        if (getenv("GK_TEST_VERBOSE"))                                                       \
            printf("line %d: %s\n", __LINE__, gk_errmsg(ctx));                               \
        CHECKF(strstr(gk_errmsg(ctx), (sub)), "message \"%s\" lacks \"%s\"", gk_errmsg(ctx), \
               (sub));                                                                       \
    } while (0)

static char tmpdir[256];

static const char *tpath(const char *name)
{
    static char buf[8][512];
    static int k = 0;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(2);
    }
    fputs(text, f);
    fclose(f);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- XYZ reader ----------------------------------------------------------- */

static gk_points *xyz(gk_context *ctx, const char *text, const char *zcol, size_t *skipped,
                      int *rc)
{
    const char *p = tpath("t.xyz");
    write_text(p, text);
    gk_points *pts = gk_points_new(ctx);
    gk_error_clear(ctx);
    *rc = gk_points_read_xyz(ctx, p, zcol, pts, skipped);
    return pts;
}

static void test_parse_double(void)
{
    /* The fast path must agree bit for bit with strtod. */
    srand(12345);
    char buf[64];
    const char *fmts[] = {"%.17g", "%.3f", "%g", "%.6e", "%.10f", "%.1f"};
    int bad = 0;
    for (int i = 0; i < 200000; i++) {
        double v = (rand() / (double)RAND_MAX - 0.5) * pow(10.0, rand() % 40 - 20);
        int n = snprintf(buf, sizeof buf, fmts[i % 6], v);
        double a, b = strtod(buf, NULL);
        if (!gk_parse_double(buf, buf + n, &a) || memcmp(&a, &b, sizeof a) != 0) {
            if (bad++ < 5)
                fprintf(stderr, "parse mismatch: %s -> %.17g vs %.17g\n", buf, a, b);
        }
    }
    CHECK(bad == 0);
    const char *ok[] = {"0", "-0", "+1.5", ".5", "5.", "1e3", "1E-3", "\"2.25\"", "123456789012345678901234",
                        "0.1000000000000000055511151231257827", "nan", "inf", "4.9e-324"};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        double a;
        CHECK(gk_parse_double(ok[i], ok[i] + strlen(ok[i]), &a));
        if (ok[i][0] != '"' && strcmp(ok[i], "nan"))
            CHECK(a == strtod(ok[i], NULL));
    }
    const char *no[] = {"", "x", "1.2.3", "1e", "--1", "1,5", "12abc", "."};
    for (size_t i = 0; i < sizeof no / sizeof *no; i++) {
        double a;
        CHECK(!gk_parse_double(no[i], no[i] + strlen(no[i]), &a));
    }
}

static void test_xyz(void)
{
    gk_context *ctx = gk_context_new();
    size_t sk;
    int rc;
    gk_points *p;

    test_parse_double();

    /* spaces, no trailing newline */
    p = xyz(ctx, "1 2 3\n  4   5 6.5\n7 8 -9", NULL, &sk, &rc);
    CHECK(rc == 0);
    CHECK_EQ_SZ(gk_points_count(p), 3);
    CHECK_EQ_SZ(sk, 0);
    CHECK(gk_points_x(p)[1] == 4 && gk_points_y(p)[1] == 5 && gk_points_z(p)[1] == 6.5);
    CHECK(gk_points_z(p)[2] == -9);
    gk_points_free(p);

    /* commas, CRLF, header, comments, blank lines, empty and NaN Z skipped */
    p = xyz(ctx,
            "x,y,elev,other\r\n# comment\r\n1,2,3,9\r\n\r\n4,5,,9\r\n7,8,nan,9\r\n"
            "10, 11 ,12,9\r\n   # indented comment\n",
            "elev", &sk, &rc);
    CHECK(rc == 0);
    CHECK_EQ_SZ(gk_points_count(p), 2);
    CHECK_EQ_SZ(sk, 2);
    CHECK(gk_points_x(p)[1] == 10 && gk_points_y(p)[1] == 11 && gk_points_z(p)[1] == 12);
    gk_points_free(p);

    /* the header names another Z column (case-insensitive, quoted) */
    p = xyz(ctx, "\"X\",\"Y\",\"Elev\",\"Other\"\n1,2,3,9\n4,5,,8\n", "other", &sk, &rc);
    CHECK(rc == 0);
    CHECK_EQ_SZ(gk_points_count(p), 2);
    CHECK_EQ_SZ(sk, 0);
    CHECK(gk_points_z(p)[0] == 9 && gk_points_z(p)[1] == 8);
    gk_points_free(p);

    /* header without zcolumn: Z is column 3 */
    p = xyz(ctx, "x y z\n1 2 3\n", NULL, &sk, &rc);
    CHECK(rc == 0 && gk_points_count(p) == 1 && gk_points_z(p)[0] == 3);
    gk_points_free(p);

    /* tabs and semicolons */
    p = xyz(ctx, "1\t2\t3\n4;5;6\n7 ; 8 ; 9\n", NULL, &sk, &rc);
    CHECK(rc == 0);
    CHECK_EQ_SZ(gk_points_count(p), 3);
    CHECK(gk_points_z(p)[2] == 9 && gk_points_x(p)[2] == 7);
    gk_points_free(p);

    /* malformed line: error names the file and the line number */
    p = xyz(ctx, "# header comment\n1 2 3\n\n4 five 6\n", NULL, &sk, &rc);
    CHECK(rc != 0);
    CHECK_MSG(ctx, "line 4");
    CHECK_MSG(ctx, "t.xyz");
    gk_points_free(p);
    p = xyz(ctx, "1 2 3\n4 5\n", NULL, &sk, &rc);
    CHECK(rc != 0);
    CHECK_MSG(ctx, "line 2");
    gk_points_free(p);
    p = xyz(ctx, "1 2 3\n4 5 six\n", NULL, &sk, &rc);
    CHECK(rc != 0);
    CHECK_MSG(ctx, "line 2");
    gk_points_free(p);

    /* issue 22 item 7: decimal commas with blank separators would read as
     * other numbers ("0,5 0,25 1,5" -> 0, 5, 0): refused, file and line named */
    p = xyz(ctx, "x y z\n1 2 3\n0,5 0,25 1,5\n", NULL, &sk, &rc);
    CHECK(rc != 0);
    CHECK_MSG(ctx, "t.xyz: line 3");
    CHECK_MSG(ctx, "decimal comma");
    gk_points_free(p);
    p = xyz(ctx, "1;2,5;3\n", NULL, &sk, &rc);
    CHECK(rc != 0);
    CHECK_MSG(ctx, "line 1");
    gk_points_free(p);
    /* one separator throughout, with blanks around it, stays fine */
    p = xyz(ctx, "1 , 2 , 3\n4\t5\t6\n7 ;8; 9\n", NULL, &sk, &rc);
    CHECK(rc == 0 && gk_points_count(p) == 3);
    gk_points_free(p);

    /* NaN or infinite X, Y or Z (also overflowing 1e999): skipped and counted */
    p = xyz(ctx, "1 2 3\n1 2 inf\n1 2 -inf\ninf 2 3\n1 -inf 3\nnan 2 3\n1 2 1e999\n4 5 6\n",
            NULL, &sk, &rc);
    CHECK(rc == 0);
    CHECK_EQ_SZ(gk_points_count(p), 2);
    CHECK_EQ_SZ(sk, 6);
    gk_points_free(p);

    /* unknown Z column: the header's columns are listed */
    p = xyz(ctx, "x,y,z\n1,2,3\n", "depth", &sk, &rc);
    CHECK(rc != 0);
    CHECK_MSG(ctx, "depth");
    CHECK_MSG(ctx, "x, y, z");
    gk_points_free(p);
    /* a name without a header is an error; a column number is fine */
    p = xyz(ctx, "1 2 3 4\n", "depth", &sk, &rc);
    CHECK(rc != 0);
    CHECK_MSG(ctx, "no header");
    gk_points_free(p);
    p = xyz(ctx, "1 2 3 4\n", "4", &sk, &rc);
    CHECK(rc == 0 && gk_points_count(p) == 1 && gk_points_z(p)[0] == 4);
    gk_points_free(p);

    /* missing file */
    p = gk_points_new(ctx);
    rc = gk_points_read_xyz(ctx, tpath("nope.xyz"), NULL, p, &sk);
    CHECK(rc == GK_ERR_IO);
    CHECK_MSG(ctx, "nope.xyz");
    gk_points_free(p);

    /* long file crossing the 4 MB chunk boundary: every line kept */
    {
        const char *path = tpath("long.xyz");
        FILE *f = fopen(path, "wb");
        size_t n = 400000;
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%zu.25 %zu.5 %zu\n", i, i * 2, i % 1000);
        fclose(f);
        p = gk_points_new(ctx);
        rc = gk_points_read_xyz(ctx, path, NULL, p, &sk);
        CHECK(rc == 0);
        CHECK_EQ_SZ(gk_points_count(p), n);
        int ok = 1;
        for (size_t i = 0; i < gk_points_count(p); i++)
            ok &= gk_points_x(p)[i] == i + 0.25 && gk_points_y(p)[i] == 2.0 * i + 0.5 &&
                  gk_points_z(p)[i] == (double)(i % 1000);
        CHECK(ok);
        gk_points_free(p);
    }
    gk_context_free(ctx);
}

/* ---- OGR fixtures ------------------------------------------------------- */

static void must(OGRErr e, const char *what)
{
    if (e != OGRERR_NONE) {
        fprintf(stderr, "%s failed\n", what);
        exit(2);
    }
}

static OGRGeometryH wkt_geom(const char *wkt)
{
    OGRGeometryH g = NULL;
    char *w = (char *)wkt;
    if (OGR_G_CreateFromWkt(&w, NULL, &g) != OGRERR_NONE) {
        fprintf(stderr, "bad test WKT %s\n", wkt);
        exit(2);
    }
    return g;
}

static void add_feature(OGRLayerH lyr, const char *wkt, int id, const double *val)
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

static OGRLayerH new_layer(GDALDatasetH ds, const char *name, OGRSpatialReferenceH srs,
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
        GDALDatasetH shp = GDALCreate(GDALGetDriverByName("ESRI Shapefile"), tpath("grid.shp"),
                                      0, 0, 0, GDT_Unknown, NULL);
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
    add_feature(l, "GEOMETRYCOLLECTION Z (POINT Z (7 7 9),LINESTRING Z (8 8 1,9 9 2))", 5,
                NULL);
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

static gk_read_options opts(const char *src)
{
    gk_read_options ro;
    memset(&ro, 0, sizeof ro);
    ro.src = src;
    ro.z_multiply = 1;
    ro.needs_z = 1;
    return ro;
}

/* Reads; returns rc and leaves the result in *sp (freed by the caller). */
static int rd(gk_context *ctx, const gk_read_options *ro, gk_source_points *sp)
{
    gk_error_clear(ctx);
    int rc = gk_read_points(ctx, ro, sp);
    if (rc == 0)
        CHECK(gk_errno(ctx) == 0);
    return rc;
}

static size_t npts(const gk_source_points *sp, int i) { return gk_points_count(sp->layers[i].pts); }

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

static void test_ogr(void)
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
    ro.clipsrc = "multipolygon(((0.5 0.5,1.5 0.5,1.5 1.5,0.5 0.5)),((2.5 2.5,3.5 2.5,3.5 3.5,2.5 3.5,2.5 2.5)))";
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

/* ---- the Arrow stream against feature by feature -------------------------- */

/* Layers for every case the Arrow path decodes itself or hands to OGR: 3-D,
 * 2-D, M and ZM points, empty points, every geometry kind, null geometries,
 * null / integer / 64-bit Z fields, a layer without attributes and one of
 * several batches. */
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
static void same_both_ways_1(const char *src, const char *layer, const char *zfield,
                             int needs_z, const char *where, const char *sqlite);

/* How test_arrow's reads went (gk_layer_points.read_by of the first read,
 * the one that may take the Arrow stream or SQLite): per layer name. */
static struct {
    int arrow, sqlite, sqlite_tried_other;
} read_by_layer[4];
static const char *const arrow_layers[4] = {"mixed", "many", "bare", "sparse"};

static void same_both_ways(const char *src, const char *layer, const char *zfield,
                           int needs_z, const char *where)
{
    same_both_ways_1(src, layer, zfield, needs_z, where, "YES");
    same_both_ways_1(src, layer, zfield, needs_z, where, "NO");
}

static void same_both_ways_1(const char *src, const char *layer, const char *zfield,
                             int needs_z, const char *where, const char *sqlite)
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
                    "arrow: %zu points, %zu features, %zu skipped; features: %zu, %zu, %zu\n",
                    n, la->n_features, la->n_skipped_z, gk_points_count(lb->pts),
                    lb->n_features, lb->n_skipped_z);
    }
    if (bad)
        fprintf(stderr,
                "%s layer %s zfield %s needs_z %d where %s sqlite %s: rc %d/%d \"%s\" / "
                "\"%s\"\n",
                src, layer, zfield ? zfield : "-", needs_z, where ? where : "-", sqlite, ra, rb,
                ma, gk_errmsg(ctx));
    CHECK(!bad);
    if (!ra)
        gk_source_points_free(&a);
    if (!rb)
        gk_source_points_free(&b);
    gk_context_free(ctx);
}

static void test_arrow(void)
{
    /* FlatGeobuf: a directory, one .fgb per layer */
    const char *gpkg = tpath("arrow.gpkg"), *fgb = tpath("arrow_fgb");
    make_arrow_fixture("GPKG", gpkg);
    make_arrow_fixture("FlatGeobuf", fgb);
    const char *srcs[] = {gpkg, fgb};
    const char *layers[] = {"mixed", "many", "bare"};
    const char *zfields[] = {NULL, "val", "id", "big"};
    for (int s = 0; s < 2; s++)
        for (int l = 0; l < 3; l++)
            for (int z = 0; z < 4; z++)
                for (int nz = 0; nz < 2; nz++) {
                    same_both_ways(srcs[s], layers[l], zfields[z], nz, NULL);
                    if (l < 2)
                        same_both_ways(srcs[s], layers[l], zfields[z], nz, "id % 3 <> 1");
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

/* ---- benchmarks (not in ctest) -------------------------------------------- */

static void bench_xyz(size_t n)
{
    const char *path = tpath("bench.xyz");
    FILE *f = fopen(path, "wb");
    srand(1);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%.3f %.3f %.4f\n", 500000 + rand() % 100000000 / 1000.0,
                4000000 + rand() % 100000000 / 1000.0, rand() % 1000000 / 1000.0);
    fclose(f);
    gk_context *ctx = gk_context_new();
    gk_points *p = gk_points_new(ctx);
    double t0 = now();
    int rc = gk_points_read_xyz(ctx, path, NULL, p, NULL);
    double t1 = now();
    printf("xyz: %zu lines, rc=%d, %zu points in %.3f s\n", n, rc, gk_points_count(p), t1 - t0);
    gk_points_free(p);
    gk_context_free(ctx);
}

static void bench_gpkg(size_t n)
{
    const char *path = tpath("bench.gpkg");
    GDALDatasetH ds = GDALCreate(GDALGetDriverByName("GPKG"), path, 0, 0, 0, GDT_Unknown, NULL);
    OGRLayerH l = new_layer(ds, "pts", NULL, wkbPoint25D);
    must(OGR_L_StartTransaction(l), "OGR_L_StartTransaction");
    OGRFeatureH f = OGR_F_Create(OGR_L_GetLayerDefn(l));
    OGRGeometryH g = OGR_G_CreateGeometry(wkbPoint25D);
    srand(1);
    for (size_t i = 0; i < n; i++) {
        OGR_G_SetPoint(g, 0, rand() % 100000 / 10.0, rand() % 100000 / 10.0, i % 1000);
        OGR_F_SetGeometry(f, g);
        OGR_F_SetFID(f, OGRNullFID);
        OGR_F_SetFieldInteger(f, 0, (int)i);
        must(OGR_L_CreateFeature(l, f), "OGR_L_CreateFeature");
    }
    must(OGR_L_CommitTransaction(l), "OGR_L_CommitTransaction");
    OGR_G_DestroyGeometry(g);
    OGR_F_Destroy(f);
    GDALClose(ds);
    gk_context *ctx = gk_context_new();
    gk_read_options ro = opts(path);
    gk_source_points sp;
    double t0 = now();
    int rc = gk_read_points(ctx, &ro, &sp);
    double t1 = now();
    printf("gpkg: %zu points, rc=%d, read %zu in %.3f s\n", n, rc, rc ? 0 : npts(&sp, 0), t1 - t0);
    if (!rc)
        gk_source_points_free(&sp);
    ro.clipsrc = "POLYGON((0 0,10000 0,0 10000,0 0))";
    t0 = now();
    rc = gk_read_points(ctx, &ro, &sp);
    t1 = now();
    printf("gpkg + triangle clip: rc=%d, kept %zu in %.3f s\n", rc, rc ? 0 : npts(&sp, 0),
           t1 - t0);
    if (!rc)
        gk_source_points_free(&sp);
    gk_context_free(ctx);
}

static void rm_rf(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(tmpdir, sizeof tmpdir, "%s/gk_read_points_XXXXXX", base);
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    GDALAllRegister();
    if (!strcmp(what, "xyz") || !strcmp(what, "all"))
        test_xyz();
    if (!strcmp(what, "ogr") || !strcmp(what, "all"))
        test_ogr();
    if (!strcmp(what, "arrow") || !strcmp(what, "all"))
        test_arrow();
    if (!strcmp(what, "bench_xyz"))
        bench_xyz(argc > 2 ? (size_t)atol(argv[2]) : 10000000);
    if (!strcmp(what, "bench_gpkg"))
        bench_gpkg(argc > 2 ? (size_t)atol(argv[2]) : 1000000);
    rm_rf(tmpdir);
    if (failures)
        fprintf(stderr, "%d of %d checks failed\n", failures, checks);
    else
        printf("ok (%d checks)\n", checks);
    return failures ? 1 : 0;
}
