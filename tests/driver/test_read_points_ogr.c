/* test_read_points_ogr.c - gk_read_points over OGR sources (CSV,
 * GeoPackage) made here, with every gdal_grid selection option (part of
 * test_read_points). */
#define _POSIX_C_SOURCE 200809L
#include "test_read_points.h"

#include "core/points_xyz.h"

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
