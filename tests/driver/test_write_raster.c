/* SPDX-License-Identifier: MIT */
/*
 * test_write_raster.c - the GDAL raster writer: round trips, type conversion,
 * CreateCopy drivers, temporary files, safety checks (in
 * test_write_raster_safety.c), edge cases (test_write_raster_edges.c), and
 * bounded memory.
 *
 * usage: test_write_raster WORKDIR            functional suite
 *        test_write_raster --memory WORKDIR   20000 x 20000 Byte, peak RSS
 */
#define _XOPEN_SOURCE 700 /* realpath, link, seteuid */
#include "test_write_raster.h"

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal.h>
#include <ogr_srs_api.h>

int failures, checks;

char workdir[1024];

const char *path(const char *name)
{
    static char buf[4][1200];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", workdir, name);
    return buf[k];
}

int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* Every test ends here: no temporary of any writer may survive. */
void check_no_temporaries(const char *where)
{
    DIR *d = opendir(workdir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        CHECKF(!strstr(e->d_name, ".gridkit-tmp-"), "%s left %s behind", where, e->d_name);
    closedir(d);
}

gk_raster_spec base_spec(const char *dst, int nx, int ny)
{
    gk_raster_spec s;
    memset(&s, 0, sizeof s);
    s.dst = dst;
    s.nx = nx;
    s.ny = ny;
    s.bands = 1;
    double gt[6] = {440720.0, 60.0, 0.0, 3751320.0, 0.0, -60.0};
    memcpy(s.geotransform, gt, sizeof gt);
    return s;
}

/* Writes value(band, x, y) tile by tile with the writer's preferred tiles. */
int fill(gk_raster_writer *w, int nx, int ny, int bands, double (*value)(int band, int x, int y))
{
    int tw, th;
    gk_raster_writer_tile_size(w, &tw, &th);
    double *buf = malloc(sizeof(double) * tw * th);
    int rc = GK_OK;
    for (int b = 1; b <= bands && rc == GK_OK; b++)
        for (int y0 = 0; y0 < ny && rc == GK_OK; y0 += th)
            for (int x0 = 0; x0 < nx && rc == GK_OK; x0 += tw) {
                int wd = nx - x0 < tw ? nx - x0 : tw, ht = ny - y0 < th ? ny - y0 : th;
                for (int j = 0; j < ht; j++)
                    for (int i = 0; i < wd; i++)
                        buf[j * wd + i] = value(b, x0 + i, y0 + j);
                rc = gk_raster_writer_write(w, b, x0, y0, wd, ht, buf);
            }
    free(buf);
    return rc;
}

double ramp(int band, int x, int y) { return x + 10.0 * y + 100.0 * band + 0.25; }

double seven(int band, int x, int y)
{
    (void)band, (void)x, (void)y;
    return 7.0;
}

char *read_bytes(const char *p, size_t *n)
{
    FILE *f = fopen(p, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(len > 0 ? (size_t)len : 1);
    *n = fread(b, 1, (size_t)len, f);
    fclose(f);
    return b;
}

void write_text(const char *p, const char *text)
{
    FILE *f = fopen(p, "w");
    fputs(text, f);
    fclose(f);
}

/* Creates dst with value 7 everywhere through the writer. */
int make_raster(gk_context *ctx, const char *dst, int nx, int ny)
{
    gk_raster_spec s = base_spec(dst, nx, ny);
    s.type = "Byte";
    gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
    if (!w)
        return GK_ERR_IO;
    if (fill(w, nx, ny, 1, seven) != GK_OK) {
        gk_raster_writer_abort(w);
        return GK_ERR_IO;
    }
    return gk_raster_writer_commit(w);
}

/* ---- round trip ----------------------------------------------------------- */

static void test_gtiff_roundtrip(gk_context *ctx, int set_nodata)
{
    const char *dst = path(set_nodata ? "rt_nodata.tif" : "rt_plain.tif");
    const int nx = 37, ny = 23, bands = 2;
    OGRSpatialReferenceH want = OSRNewSpatialReference(NULL);
    OSRImportFromEPSG(want, 32631);
    char *wkt = NULL;
    OSRExportToWkt(want, &wkt);
    const char *desc[] = {"first layer", "second layer"};
    char *md[] = {"GRIDKIT_ALGORITHM=invdist:power=2.0", "SOURCE=points.csv", NULL};

    gk_raster_spec s = base_spec(dst, nx, ny);
    s.type = "Float32";
    s.bands = bands;
    s.srs_wkt = wkt;
    s.set_nodata = set_nodata;
    s.nodata = -9999.0;
    s.band_descriptions = desc;
    s.metadata = md;
    gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
    CHECKF(w, "open: %s", gk_errmsg(ctx));
    if (!w)
        goto done;
    CHECKF(fill(w, nx, ny, bands, ramp) == GK_OK, "write: %s", gk_errmsg(ctx));
    CHECKF(!exists(dst), "dst must not exist before commit");
    CHECKF(gk_raster_writer_commit(w) == GK_OK, "commit: %s", gk_errmsg(ctx));

    GDALDatasetH ds = GDALOpen(dst, GA_ReadOnly);
    CHECKF(ds, "reopen %s", dst);
    if (!ds)
        goto done;
    CHECKF(GDALGetRasterXSize(ds) == nx && GDALGetRasterYSize(ds) == ny, "size");
    CHECKF(GDALGetRasterCount(ds) == bands, "bands %d", GDALGetRasterCount(ds));
    double gt[6];
    GDALGetGeoTransform(ds, gt);
    for (int i = 0; i < 6; i++)
        CHECKF(gt[i] == s.geotransform[i], "gt[%d] %.17g != %.17g", i, gt[i], s.geotransform[i]);
    OGRSpatialReferenceH got = GDALGetSpatialRef(ds);
    CHECKF(got && OSRIsSame(got, want), "SRS not kept");
    float *row = malloc(sizeof(float) * nx * ny);
    for (int b = 1; b <= bands; b++) {
        GDALRasterBandH band = GDALGetRasterBand(ds, b);
        CHECKF(GDALGetRasterDataType(band) == GDT_Float32, "type");
        int has = -1;
        double nd = GDALGetRasterNoDataValue(band, &has);
        if (set_nodata)
            CHECKF(has && nd == -9999.0, "band %d nodata %d %g", b, has, nd);
        else
            CHECKF(!has, "band %d has a nodata flag", b);
        CHECKF(strcmp(GDALGetDescription(band), desc[b - 1]) == 0, "band %d description '%s'", b,
               GDALGetDescription(band));
        CHECKF(GDALRasterIO(band, GF_Read, 0, 0, nx, ny, row, nx, ny, GDT_Float32, 0, 0) == CE_None,
               "read");
        int bad = 0;
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++)
                bad += row[y * nx + x] != (float)ramp(b, x, y);
        CHECKF(bad == 0, "band %d: %d wrong values", b, bad);
    }
    free(row);
    const char *alg = GDALGetMetadataItem(ds, "GRIDKIT_ALGORITHM", NULL);
    CHECKF(alg && strcmp(alg, "invdist:power=2.0") == 0, "metadata '%s'", alg ? alg : "(null)");
    const char *src = GDALGetMetadataItem(ds, "SOURCE", NULL);
    CHECKF(src && strcmp(src, "points.csv") == 0, "metadata SOURCE");
    GDALClose(ds);
done:
    CPLFree(wkt);
    OSRDestroySpatialReference(want);
    check_no_temporaries("roundtrip");
}

/* ---- type conversion: GDALCopyWords rounds half up and clamps ------------- */

static void test_integer_conversion(gk_context *ctx)
{
    /* measured with GDAL 3.6.2 (GDALCopyWords, double -> Byte / Int16) */
    const double in[10] = {3.5, 2.5, -2, 300, -0.5, 254.5, 255.5, NAN, 0.49, 1.5};
    const int want_byte[10] = {4, 3, 0, 255, 0, 255, 255, 0, 0, 2};
    const int want_i16[10] = {4, 3, -2, 300, -1, 255, 256, 0, 0, 2};
    const char *types[2] = {"Byte", "Int16"};
    for (int t = 0; t < 2; t++) {
        const char *dst = path(t ? "conv.i16.tif" : "conv.byte.tif");
        gk_raster_spec s = base_spec(dst, 10, 1);
        s.type = types[t];
        gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
        CHECKF(w, "open %s: %s", types[t], gk_errmsg(ctx));
        if (!w)
            continue;
        CHECKF(gk_raster_writer_write(w, 1, 0, 0, 10, 1, in) == GK_OK, "%s", gk_errmsg(ctx));
        CHECKF(gk_raster_writer_commit(w) == GK_OK, "%s", gk_errmsg(ctx));
        GDALDatasetH ds = GDALOpen(dst, GA_ReadOnly);
        CHECKF(ds, "reopen");
        if (!ds)
            continue;
        GDALRasterBandH band = GDALGetRasterBand(ds, 1);
        CHECKF(GDALGetRasterDataType(band) == GDALGetDataTypeByName(types[t]), "type");
        int got[10];
        CHECKF(GDALRasterIO(band, GF_Read, 0, 0, 10, 1, got, 10, 1, GDT_Int32, 0, 0) == CE_None,
               "read");
        for (int i = 0; i < 10; i++) {
            int want = t ? want_i16[i] : want_byte[i];
            CHECKF(got[i] == want, "%s: %g -> %d, want %d", types[t], in[i], got[i], want);
        }
        GDALClose(ds);
    }
    check_no_temporaries("conversion");
}

/* ---- Float32: gridkit's conversion (GK_VALUES_FLOAT32, also on a GPU) is
 * GDALCopyWords's, bit for bit ----------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng_next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void test_float32_rule(gk_context *ctx)
{
    /* every exponent a double has, random mantissas and signs: overflow past
     * FLT_MAX, subnormals, underflow to zero and ties included */
    enum { N = 200000 };
    double *v = malloc(N * sizeof *v);
    float *g = malloc(N * sizeof *g);
    if (!v || !g) {
        CHECK(!"out of memory");
        free(v);
        free(g);
        return;
    }
    for (int k = 0; k < N; k++) {
        uint64_t bits = rng_next();
        if (k % 4 == 1) /* ties: a float's mantissa and then exactly half an ulp */
            bits = (bits & 0xFFFFFFFFE0000000ull) | 0x10000000ull;
        if (k % 8 == 3) /* near FLT_MAX and the float subnormals */
            bits =
                (bits & 0x800FFFFFFFFFFFFFull) |
                ((uint64_t)(k % 16 == 3 ? 1023 + 127 : 1023 - 126 - (int)(rng_next() % 30)) << 52);
        memcpy(&v[k], &bits, sizeof bits);
    }
    const double edge[] = {(double)FLT_MAX,
                           nextafter((double)FLT_MAX, INFINITY),
                           -nextafter((double)FLT_MAX, INFINITY),
                           0x1p-150,
                           0x1.8p-150,
                           -0x1p-150,
                           INFINITY,
                           -INFINITY,
                           NAN,
                           -0.0};
    memcpy(v, edge, sizeof edge);
    GDALCopyWords(v, GDT_Float64, sizeof(double), g, GDT_Float32, sizeof(float), N);
    int bad = 0, first = -1;
    for (int k = 0; k < N; k++) {
        float m = gk_value_to_float32(v[k]);
        if (isnan(m) ? !isnan(g[k]) : memcmp(&m, &g[k], sizeof m) != 0)
            first = bad++ ? first : k;
    }
#if GDAL_VERSION_NUM < GDAL_COMPUTE_VERSION(3, 7, 0)
    /* Debian 12's GDAL: gridkit's rule is its rule, on every value */
    CHECKF(bad == 0, "%d of %d values converted otherwise than GDALCopyWords (first %.17g)", bad,
           N, first >= 0 ? v[first] : 0.0);
#else
    /* a newer GDAL rounds beyond FLT_MAX to nearest (FLT_MAX, not infinity):
     * the writer must then see it and leave the conversion to GDAL (below) */
    CHECKF(bad == 0 || fabs(v[first]) > FLT_MAX,
           "%d of %d values converted otherwise than GDALCopyWords, first %.17g", bad, N,
           v[first]);
#endif
    free(v);
    free(g);

    /* the writer takes Float32 pixels as they are, where its blocks hold
     * them and GDAL converts as gridkit does (else GDAL converts) */
    gk_raster_spec s = base_spec(path("f32.tif"), 10, 1);
    s.type = "Float32";
    gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
    CHECKF(w, "open: %s", gk_errmsg(ctx));
    if (w) {
        CHECK(gk_raster_writer_takes_float32(w) == (bad == 0));
        gk_raster_writer_abort(w);
    }
    s = base_spec(path("f64.tif"), 10, 1);
    w = gk_raster_writer_open(ctx, &s);
    if (w) {
        CHECK(!gk_raster_writer_takes_float32(w)); /* Float64: doubles */
        gk_raster_writer_abort(w);
    }
    check_no_temporaries("float32");
}

/* A nodata the output type cannot hold (Int16 0.5 would be
 * written 1 and tagged 0.5) is refused before any file exists; one it holds is
 * accepted, also at the type's bounds. */
static void test_nodata_fits_type(gk_context *ctx)
{
    struct {
        const char *type;
        double nodata;
        int ok;
    } c[] = {{"Int16", 0.5, 0},
             {"Int16", -32768, 1},
             {"Int16", 32767, 1},
             {"Int16", 32768, 0},
             {"Byte", -1, 0},
             {"Byte", 255, 1},
             {"UInt32", 4294967295.0, 1},
             {"UInt32", 4294967296.0, 0},
             {"Float32", 1e39, 0},
             {"Float32", 0.1, 1},
             {"Float64", 0.5, 1},
             {"Int32", NAN, 0}};
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        const char *dst = path("nodata_type.tif");
        gk_raster_spec s = base_spec(dst, 4, 1);
        s.type = c[i].type;
        s.set_nodata = 1;
        s.nodata = c[i].nodata;
        gk_error_clear(ctx);
        gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
        CHECKF((w != NULL) == c[i].ok, "%s nodata=%g: %s", c[i].type, c[i].nodata,
               w ? "accepted" : gk_errmsg(ctx));
        if (!w) {
            CHECKF(strstr(gk_errmsg(ctx), "nodata") && strstr(gk_errmsg(ctx), c[i].type),
                   "message names nodata and the type: %s", gk_errmsg(ctx));
            CHECKF(access(dst, F_OK) != 0, "no output left for %s", c[i].type);
            continue;
        }
        gk_raster_writer_abort(w);
    }
    check_no_temporaries("nodata type");
}

/* Kriging tags nodata only once its nodes are computed: the tag set after the
 * pixels must reach the file. */
static void test_nodata_after_writing(gk_context *ctx)
{
    const char *dst = path("nodata_late.tif");
    gk_raster_spec s = base_spec(dst, 4, 1);
    gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
    CHECKF(w, "open: %s", gk_errmsg(ctx));
    if (!w)
        return;
    const double v[4] = {1, 2, -9, 4};
    CHECKF(gk_raster_writer_write(w, 1, 0, 0, 4, 1, v) == GK_OK, "%s", gk_errmsg(ctx));
    CHECKF(gk_raster_writer_set_nodata(w, 1, -9) == GK_OK, "%s", gk_errmsg(ctx));
    CHECKF(gk_raster_writer_commit(w) == GK_OK, "%s", gk_errmsg(ctx));
    GDALDatasetH ds = GDALOpen(dst, GA_ReadOnly);
    CHECKF(ds, "reopen");
    if (!ds)
        return;
    int has = 0;
    double nd = GDALGetRasterNoDataValue(GDALGetRasterBand(ds, 1), &has);
    CHECKF(has && nd == -9, "nodata tag %d %g, want -9", has, nd);
    GDALClose(ds);
}

/* The free-space message's sizes: "0.00 GiB" said nothing. */
static void test_format_bytes(void)
{
    struct {
        double b;
        const char *want;
    } c[] = {{0, "0 bytes"},
             {1023, "1023 bytes"},
             {1024, "1.00 KiB"},
             {1536, "1.50 KiB"},
             {10.5 * 1024, "10.5 KiB"},
             {3 * 1048576.0, "3.00 MiB"},
             {5.0 * 1073741824.0, "5.00 GiB"},
             {2048.0 * 1073741824.0, "2.00 TiB"}};
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        char buf[32];
        gk_format_bytes(c[i].b, buf, sizeof buf);
        CHECKF(!strcmp(buf, c[i].want), "%.0f bytes -> '%s', want '%s'", c[i].b, buf, c[i].want);
    }
}

/* ---- CreateCopy drivers --------------------------------------------------- */

static double pattern(int band, int x, int y)
{
    (void)band;
    return (x * 7 + y * 13) % 256;
}

static void test_png(gk_context *ctx)
{
    const char *dst = path("copy.png");
    const int nx = 40, ny = 30;
    gk_raster_spec s = base_spec(dst, nx, ny);
    s.type = "Byte";
    gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
    CHECKF(w, "open png: %s", gk_errmsg(ctx));
    if (w) {
        CHECKF(fill(w, nx, ny, 1, pattern) == GK_OK, "%s", gk_errmsg(ctx));
        CHECKF(!exists(dst), "png before commit");
        CHECKF(gk_raster_writer_commit(w) == GK_OK, "commit png: %s", gk_errmsg(ctx));
    }
    GDALDatasetH ds = GDALOpen(dst, GA_ReadOnly);
    CHECKF(ds, "reopen png");
    if (ds) {
        CHECKF(strcmp(GDALGetDriverShortName(GDALGetDatasetDriver(ds)), "PNG") == 0, "driver %s",
               GDALGetDriverShortName(GDALGetDatasetDriver(ds)));
        unsigned char buf[40 * 30];
        CHECKF(GDALRasterIO(GDALGetRasterBand(ds, 1), GF_Read, 0, 0, nx, ny, buf, nx, ny, GDT_Byte,
                            0, 0) == CE_None,
               "read");
        int bad = 0;
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++)
                bad += buf[y * nx + x] != (unsigned char)pattern(1, x, y);
        CHECKF(bad == 0, "png: %d wrong values", bad);
        double gt[6];
        CHECKF(GDALGetGeoTransform(ds, gt) == CE_None && gt[0] == s.geotransform[0] &&
                   gt[5] == s.geotransform[5],
               "png geotransform (PAM side-car) not kept");
        GDALClose(ds);
    }
    /* CreateCopy failing at commit (bad ZLEVEL): an error naming the file,
     * the existing destination untouched, no temporaries */
    size_t n0 = 0, n1 = 0;
    char *before = read_bytes(dst, &n0);
    char *bad_co[] = {"ZLEVEL=42", NULL};
    s.creation_options = bad_co;
    w = gk_raster_writer_open(ctx, &s);
    CHECKF(w, "open png ZLEVEL: %s", gk_errmsg(ctx));
    if (w) {
        CHECKF(fill(w, nx, ny, 1, seven) == GK_OK, "%s", gk_errmsg(ctx));
        CPLPushErrorHandler(CPLQuietErrorHandler);
        int rc = gk_raster_writer_commit(w);
        CPLPopErrorHandler();
        CHECKF(rc == GK_ERR_IO && strstr(gk_errmsg(ctx), "copy.png") &&
                   strstr(gk_errmsg(ctx), "ZLEVEL"),
               "failed commit: %d '%s'", rc, gk_errmsg(ctx));
    }
    char *after = read_bytes(dst, &n1);
    CHECKF(before && after && n0 == n1 && memcmp(before, after, n0) == 0,
           "png changed by a failed commit");
    free(before);
    free(after);
    s.creation_options = NULL;

    /* PNG cannot hold Float64 (the default): refused before any work */
    s.type = NULL;
    s.dst = path("float.png");
    w = gk_raster_writer_open(ctx, &s);
    CHECKF(!w && strstr(gk_errmsg(ctx), "PNG") && strstr(gk_errmsg(ctx), "Float64"),
           "float png: '%s'", gk_errmsg(ctx));
    gk_raster_writer_abort(w);
    CHECKF(!exists(path("float.png")), "float.png created");
    check_no_temporaries("png");
}

/* ---- memory: 20000 x 20000 Byte, row of tiles by row of tiles ----------- */

static int test_memory(gk_context *ctx)
{
    const int n = 20000, t = 256;
    const char *dst = path("big.tif");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    gk_raster_spec s = base_spec(dst, n, n);
    s.type = "Byte";
    gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
    CHECKF(w, "open big: %s", gk_errmsg(ctx));
    if (!w)
        return 1;
    int tw, th;
    gk_raster_writer_tile_size(w, &tw, &th);
    printf("preferred tile %dx%d\n", tw, th);
    double *buf = malloc(sizeof(double) * t * t);
    int rc = GK_OK;
    for (int y0 = 0; y0 < n && rc == GK_OK; y0 += t)
        for (int x0 = 0; x0 < n && rc == GK_OK; x0 += t) {
            int wd = n - x0 < t ? n - x0 : t, ht = n - y0 < t ? n - y0 : t;
            for (int j = 0; j < ht; j++)
                for (int i = 0; i < wd; i++)
                    buf[j * wd + i] = (x0 + i + 3 * (y0 + j)) & 255;
            rc = gk_raster_writer_write(w, 1, x0, y0, wd, ht, buf);
        }
    free(buf);
    CHECKF(rc == GK_OK, "write big: %s", gk_errmsg(ctx));
    CHECKF(gk_raster_writer_commit(w) == GK_OK, "commit big: %s", gk_errmsg(ctx));
    clock_gettime(CLOCK_MONOTONIC, &t1);

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double peak_mb = ru.ru_maxrss / 1024.0;
    printf("20000x20000 Byte: %.1f s, peak RSS %.1f MB\n",
           (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9, peak_mb);
    CHECKF(peak_mb < 300.0, "peak RSS %.1f MB", peak_mb);

    GDALDatasetH ds = GDALOpen(dst, GA_ReadOnly);
    CHECKF(ds, "reopen big");
    if (ds) {
        const int xs[3] = {0, 12345, 19999}, ys[3] = {0, 7777, 19999};
        for (int k = 0; k < 3; k++) {
            unsigned char v = 0;
            CHECKF(GDALRasterIO(GDALGetRasterBand(ds, 1), GF_Read, xs[k], ys[k], 1, 1, &v, 1, 1,
                                GDT_Byte, 0, 0) == CE_None,
                   "read big");
            CHECKF(v == ((xs[k] + 3 * ys[k]) & 255), "big (%d,%d) = %d", xs[k], ys[k], v);
        }
        GDALClose(ds);
    }
    unlink(dst);
    check_no_temporaries("memory");
    return failures != 0;
}

/* ---- threads writing at once --------------------------------------------- */

static double wave(int band, int x, int y)
{
    /* fractions, negatives and values beyond Int16, for the conversions */
    return 40000.0 * sin(0.013 * x + 0.7 * band) * cos(0.021 * y) + 0.5 * (x % 3) - 0.25;
}

/* Tiles of 96 x 80 (across blocks and strips), band by band; with threads
 * > 1 written by them all at once in a scrambled order. The tile numbered
 * skip (if >= 0) is left out. */
static int fill_tiles(gk_raster_writer *w, int nx, int ny, int bands, int skip, int threads)
{
    const int tw = 96, th = 80, ntx = (nx + tw - 1) / tw, nty = (ny + th - 1) / th;
    const int n = ntx * nty * bands;
    int rc = GK_OK;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int k = 0; k < n; k++) {
        /* 7919 is prime: k -> t is a permutation */
        int t = threads > 1 ? (int)(((long long)k * 7919) % n) : k;
        int b = t / (ntx * nty) + 1, ty = t % (ntx * nty) / ntx, tx = t % ntx;
        int x0 = tx * tw, y0 = ty * th;
        int wd = nx - x0 < tw ? nx - x0 : tw, ht = ny - y0 < th ? ny - y0 : th;
        double buf[96 * 80];
        for (int j = 0; j < ht; j++)
            for (int i = 0; i < wd; i++)
                buf[j * wd + i] = wave(b, x0 + i, y0 + j);
        if (t != skip && gk_raster_writer_write(w, b, x0, y0, wd, ht, buf) != GK_OK) {
#pragma omp atomic write
            rc = GK_ERR_IO;
        }
    }
    return rc;
}

double *read_all(const char *p, int nx, int ny, int bands)
{
    GDALDatasetH ds = GDALOpen(p, GA_ReadOnly);
    if (!ds)
        return NULL;
    double *v = malloc(sizeof(double) * nx * ny * bands);
    CPLErr e = GDALDatasetRasterIO(ds, GF_Read, 0, 0, nx, ny, v, nx, ny, GDT_Float64, bands, NULL,
                                   0, 0, 0);
    GDALClose(ds);
    if (e != CE_None) {
        free(v);
        return NULL;
    }
    return v;
}

/* Every layout the writer meets, written by 4 threads at once, must read
 * back exactly as GDALRasterIO through GDAL's block cache writes it from one
 * thread (GRIDKIT_DIRECT_BLOCKS=NO), edge blocks and conversions included,
 * and a tile never written reads 0 both ways. */
static void test_parallel_writes(gk_context *ctx)
{
    static const struct {
        const char *type;
        int bands;
        const char *co[5];
    } cases[] = {
        {"Float32", 1, {NULL}},
        {"Float32", 2, {"TILED=YES", "BLOCKXSIZE=256", "BLOCKYSIZE=128", NULL}},
        {"Int16", 1, {"TILED=YES", "COMPRESS=DEFLATE", NULL}},
        {"Byte", 3, {"INTERLEAVE=PIXEL", NULL}}, /* not direct: GDAL's cache, in turn */
        {"Float64", 2, {"BLOCKYSIZE=3", NULL}},
    };
    const int nx = 1000, ny = 700;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        /* skipped: the first tile of band 1's last row of tiles, where the
         * writer reuses the buffers of finished rows */
        for (int skip = -1; skip <= 88; skip += 89) {
            double *got[2] = {NULL, NULL};
            for (int direct = 1; direct >= 0; direct--) {
                CPLSetConfigOption("GRIDKIT_DIRECT_BLOCKS", direct ? NULL : "NO");
                const char *dst = path(direct ? "par_direct.tif" : "par_cache.tif");
                gk_raster_spec s = base_spec(dst, nx, ny);
                s.type = cases[c].type;
                s.bands = cases[c].bands;
                s.creation_options = (char **)cases[c].co;
                gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
                CHECKF(w, "open case %zu: %s", c, gk_errmsg(ctx));
                if (!w)
                    continue;
                /* the reference: one thread, in order, through GDAL's cache */
                int rc = fill_tiles(w, nx, ny, s.bands, skip, direct ? 4 : 1);
                CHECKF(rc == GK_OK, "write case %zu direct %d: %s", c, direct, gk_errmsg(ctx));
                CHECKF(gk_raster_writer_commit(w) == GK_OK, "commit case %zu: %s", c,
                       gk_errmsg(ctx));
                got[direct] = read_all(dst, nx, ny, s.bands);
                CHECKF(got[direct], "read back case %zu direct %d", c, direct);
            }
            CPLSetConfigOption("GRIDKIT_DIRECT_BLOCKS", NULL);
            if (got[0] && got[1]) {
                size_t bad = 0, first = 0, n = (size_t)nx * ny * cases[c].bands;
                for (size_t i = 0; i < n; i++)
                    if (memcmp(&got[0][i], &got[1][i], sizeof(double)) != 0 && !bad++)
                        first = i;
                CHECKF(bad == 0,
                       "case %zu (%s, %d bands) skip %d: %zu pixels differ, first %zu: "
                       "%.17g (direct, 4 threads) vs %.17g (GDAL's cache)",
                       c, cases[c].type, cases[c].bands, skip, bad, first, got[1][first],
                       got[0][first]);
                /* the values are really there: the untouched tile 0,0 of band 1 */
                if (skip < 0 && !strcmp(cases[c].type, "Float32"))
                    CHECKF(got[1][5 * nx + 7] == (double)(float)wave(1, 7, 5), "value at 7,5");
                if (skip == 88) /* 11 x 9 tiles: tile 88 is x 0..95, y 640..699 */
                    CHECKF(got[1][(size_t)(ny - 5) * nx + 3] == 0.0, "unwritten pixel reads %g",
                           got[1][(size_t)(ny - 5) * nx + 3]);
            }
            free(got[0]);
            free(got[1]);
        }
    check_no_temporaries("parallel writes");
}

/* The file's bytes must not depend on the order tiles arrive in (threads,
 * GPUs and MPI ranks finish them in any order; a GeoTIFF's bytes depend on
 * the order its blocks are written): in order from one thread, and
 * scrambled from 4, give the same file, for every layout and through a
 * CreateCopy driver. */
static unsigned char *slurp(const char *p, size_t *n)
{
    FILE *f = fopen(p, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = len > 0 ? malloc((size_t)len) : NULL;
    if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *n = b ? (size_t)len : 0;
    return b;
}

static void test_file_order(gk_context *ctx)
{
    static const struct {
        const char *format, *type, *ext;
        int bands;
        const char *co[5];
    } cases[] = {
        {"GTiff", "Float32", "tif", 1, {NULL}},
        {"GTiff", "Float32", "tif", 2, {"TILED=YES", "BLOCKXSIZE=256", "BLOCKYSIZE=128", NULL}},
        {"GTiff", "Int16", "tif", 1, {"TILED=YES", "COMPRESS=DEFLATE", NULL}},
        {"GTiff", "Float64", "tif", 2, {"COMPRESS=LZW", NULL}}, /* pixel-interleaved */
        {"GTiff", "Byte", "tif", 3, {"INTERLEAVE=BAND", "BLOCKYSIZE=3", NULL}},
        {"HFA", "Float32", "img", 2, {NULL}}, /* another Create() driver */
        {"PNG", "Byte", "png", 1, {NULL}},    /* CreateCopy() at commit */
    };
    const int nx = 1000, ny = 700;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        unsigned char *bytes[2] = {NULL, NULL};
        size_t len[2] = {0, 0};
        for (int scrambled = 0; scrambled <= 1; scrambled++) {
            char name[64];
            snprintf(name, sizeof name, "order_%d.%s", scrambled, cases[c].ext);
            const char *dst = path(name);
            gk_raster_spec s = base_spec(dst, nx, ny);
            s.format = cases[c].format;
            s.type = cases[c].type;
            s.bands = cases[c].bands;
            s.creation_options = (char **)cases[c].co;
            gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
            CHECKF(w, "order case %zu: open: %s", c, gk_errmsg(ctx));
            if (!w)
                continue;
            CHECKF(fill_tiles(w, nx, ny, s.bands, -1, scrambled ? 4 : 1) == GK_OK,
                   "order case %zu: write: %s", c, gk_errmsg(ctx));
            CHECKF(gk_raster_writer_commit(w) == GK_OK, "order case %zu: commit: %s", c,
                   gk_errmsg(ctx));
            bytes[scrambled] = slurp(dst, &len[scrambled]);
        }
        CHECKF(bytes[0] && bytes[1] && len[0] == len[1] && !memcmp(bytes[0], bytes[1], len[0]),
               "order case %zu (%s %s, %d bands): the file written in order (%zu bytes) and the "
               "one written scrambled (%zu bytes) differ",
               c, cases[c].format, cases[c].type, cases[c].bands, len[0], len[1]);
        free(bytes[0]);
        free(bytes[1]);
    }
    check_no_temporaries("file order");
}

/* ---- bench (not in ctest): gridkit grid's 4096 x 4096 Float32 GTiff ----- */

static double secs(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* test_write_raster --bench DIR [N [TILE [TILE_H]]]: N x N Float32, TILE x
 * TILE (or TILE x TILE_H) tiles (0: the writer's own), row by row as the
 * engine hands them over. */
static void bench(gk_context *ctx, int n, int tile, int tile_h)
{
    const char *dst = path("bench.tif");
    gk_raster_spec s = base_spec(dst, n, n);
    s.type = "Float32";
    double t0 = secs();
    gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
    if (!w) {
        fprintf(stderr, "open: %s\n", gk_errmsg(ctx));
        return;
    }
    int tw, th;
    gk_raster_writer_tile_size(w, &tw, &th);
    if (tile > 0)
        tw = th = tile;
    if (tile_h > 0)
        th = tile_h;
    /* as grid_run.c: three rows of tiles of cache (GDAL_CACHEMAX=16 shows
     * what too small a cache costs) */
    GIntBig want = 3 * (GIntBig)n * th * 4;
    if (want < ((GIntBig)16 << 20))
        want = (GIntBig)16 << 20;
    if (!CPLGetConfigOption("GDAL_CACHEMAX", NULL) && want < GDALGetCacheMax64())
        GDALSetCacheMax64(want);
    double *buf = malloc(sizeof(double) * tw * th);
    for (size_t i = 0; i < (size_t)tw * th; i++)
        buf[i] = (double)i * 1e-3;
    double t1 = secs();
    int rc = GK_OK;
    for (int y0 = 0; y0 < n && rc == GK_OK; y0 += th)
        for (int x0 = 0; x0 < n && rc == GK_OK; x0 += tw) {
            int wd = n - x0 < tw ? n - x0 : tw, ht = n - y0 < th ? n - y0 : th;
            rc = gk_raster_writer_write(w, 1, x0, y0, wd, ht, buf);
        }
    double t2 = secs();
    rc = rc ? rc : gk_raster_writer_commit(w);
    double t3 = secs();
    free(buf);
    printf("%dx%d Float32, tiles %dx%d: open %.3f s, write %.3f s, commit %.3f s (rc %d)\n", n, n,
           tw, th, t1 - t0, t2 - t1, t3 - t2, rc);
    unlink(dst);
}

/* Every run starts from an empty work directory: files left by an earlier
 * run would make the "not there before commit" checks fail. */
static void empty_workdir(void)
{
    DIR *d = opendir(workdir);
    struct dirent *e;
    char p[2048];
    while (d && (e = readdir(d)) != NULL) {
        snprintf(p, sizeof p, "%s/%s", workdir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && !S_ISDIR(st.st_mode))
            unlink(p);
    }
    if (d)
        closedir(d);
}

int main(int argc, char **argv)
{
    int memory = argc > 2 && strcmp(argv[1], "--memory") == 0;
    int bench_n = 0, bench_tile = 0, bench_tile_h = 0;
    if (argc > 2 && strcmp(argv[1], "--bench") == 0) {
        bench_n = argc > 3 ? atoi(argv[3]) : 4096;
        bench_tile = argc > 4 ? atoi(argv[4]) : 0;
        bench_tile_h = argc > 5 ? atoi(argv[5]) : 0;
        argc = 3;
    }
    const char *dir = argc > 1 ? argv[argc - 1] : "write_raster_tmp";
    mkdir(dir, 0755);
    char *real = realpath(dir, NULL);
    if (!real) {
        fprintf(stderr, "cannot use work directory %s: %s\n", dir, strerror(errno));
        return 2;
    }
    snprintf(workdir, sizeof workdir, "%s", real);
    free(real);
    empty_workdir();
    gk_context *ctx = gk_context_new();
    if (bench_n == 0 && !memory)
        test_registers_drivers(ctx); /* before GDALAllRegister */
    GDALAllRegister();
    if (bench_n > 0) {
        bench(ctx, bench_n, bench_tile, bench_tile_h);
    } else if (memory) {
        test_memory(ctx);
    } else {
        test_gtiff_roundtrip(ctx, 1);
        test_gtiff_roundtrip(ctx, 0);
        test_integer_conversion(ctx);
        test_float32_rule(ctx);
        test_nodata_fits_type(ctx);
        test_nodata_after_writing(ctx);
        test_format_bytes();
        test_png(ctx);
        test_abort(ctx);
        test_replace(ctx);
        test_protect(ctx);
        test_directories(ctx);
        test_bad_names(ctx);
        test_guess_warning(ctx);
        test_tile_size(ctx);
        test_replace_steps(ctx);
        test_parallel_writes(ctx);
        test_file_order(ctx);
        test_spec_checks(ctx);
        test_window_checks(ctx);
        test_describe_edges(ctx);
        test_create_refused(ctx);
        test_describe_refused(ctx);
        test_bigtiff(ctx);
        test_unstaged_rows(ctx);
        test_unwritten_parts(ctx);
        test_replace_edges(ctx);
    }
    gk_context_free(ctx);
    GDALDestroyDriverManager();
    if (failures)
        fprintf(stderr, "%d failure(s) of %d checks\n", failures, checks);
    else
        printf("all write_raster tests passed (%d checks)\n", checks);
    return failures ? 1 : 0;
}
