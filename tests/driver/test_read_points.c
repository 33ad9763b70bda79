/* SPDX-License-Identifier: MIT */
/*
 * test_read_points.c - points in: the XYZ text reader and gk_read_points over
 * OGR sources (CSV, GeoPackage) with every gdal_grid selection option
 * (test_read_points_ogr.c) and through the Arrow stream
 * (test_read_points_arrow.c).
 *
 *   test_read_points xyz | ogr | arrow    (ctest)
 *   test_read_points bench_xyz N          (writes and times an N-line .xyz)
 *   test_read_points bench_gpkg N         (writes and times an N-point GeoPackage)
 */
#define _POSIX_C_SOURCE 200809L
#include "test_read_points.h"

#include "core/points_xyz.h"

#include "cpl_conv.h"

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int failures, checks;

char tmpdir[256];

const char *tpath(const char *name)
{
    static char buf[8][512];
    static int k = 0;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(2);
    }
    fputs(text, f);
    fclose(f);
}

double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- XYZ reader ----------------------------------------------------------- */

gk_points *xyz(gk_context *ctx, const char *text, const char *zcol, size_t *skipped, int *rc)
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
    const char *ok[] = {"0",
                        "-0",
                        "+1.5",
                        ".5",
                        "5.",
                        "1e3",
                        "1E-3",
                        "\"2.25\"",
                        "123456789012345678901234",
                        "0.1000000000000000055511151231257827",
                        "nan",
                        "inf",
                        "4.9e-324"};
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

    /* refused, the message naming the place */
    static const struct {
        const char *text, *zcol, *msg[2]; /* msg: what the message holds */
    } refused[] = {
        /* malformed line: error names the file and the line number */
        {"# header comment\n1 2 3\n\n4 five 6\n", NULL, {"line 4", "t.xyz"}},
        {"1 2 3\n4 5\n", NULL, {"line 2"}},
        {"1 2 3\n4 5 six\n", NULL, {"line 2"}},
        /* decimal commas with blank separators would read as other numbers
         * ("0,5 0,25 1,5" -> 0, 5, 0): refused, file and line named */
        {"x y z\n1 2 3\n0,5 0,25 1,5\n", NULL, {"t.xyz: line 3", "decimal comma"}},
        {"1;2,5;3\n", NULL, {"line 1"}},
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        p = xyz(ctx, refused[i].text, refused[i].zcol, &sk, &rc);
        CHECK(rc != 0);
        for (int k = 0; k < 2 && refused[i].msg[k]; k++)
            CHECK_MSG(ctx, refused[i].msg[k]);
        gk_points_free(p);
    }
    /* one separator throughout, with blanks around it, stays fine */
    p = xyz(ctx, "1 , 2 , 3\n4\t5\t6\n7 ;8; 9\n", NULL, &sk, &rc);
    CHECK(rc == 0 && gk_points_count(p) == 3);
    gk_points_free(p);

    /* NaN or infinite X, Y or Z (also overflowing 1e999): skipped and counted */
    p = xyz(ctx, "1 2 3\n1 2 inf\n1 2 -inf\ninf 2 3\n1 -inf 3\nnan 2 3\n1 2 1e999\n4 5 6\n", NULL,
            &sk, &rc);
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

    /* X and Y only (gridkit ridges without --3d): two columns are enough,
     * an empty, NaN or missing Z keeps its line (z 0), what follows X and Y
     * is not read; a NaN or infinite X or Y is still skipped and counted */
    {
        const char *path = tpath("xy.xyz");
        write_text(path, "x y\n1 2\n3 4 nan\n5 6 \n7 8 words here\n9,10\ninf 1\n1 nan 3\n");
        p = gk_points_new(ctx);
        rc = gk_points_read_xy(ctx, path, p, &sk);
        CHECK(rc == 0);
        CHECK_EQ_SZ(gk_points_count(p), 5);
        CHECK_EQ_SZ(sk, 2);
        const double wx[] = {1, 3, 5, 7, 9}, wy[] = {2, 4, 6, 8, 10};
        for (size_t i = 0; rc == 0 && i < gk_points_count(p) && i < 5; i++)
            CHECK(gk_points_x(p)[i] == wx[i] && gk_points_y(p)[i] == wy[i] &&
                  gk_points_z(p)[i] == 0);
        gk_points_free(p);
        /* the same file needs Z when read as XYZ */
        p = gk_points_new(ctx);
        CHECK(gk_points_read_xyz(ctx, path, NULL, p, &sk) != 0);
        CHECK_MSG(ctx, "line 2");
        gk_points_free(p);
        /* one column, or decimal commas, still refused */
        write_text(path, "1 2\n3\n");
        p = gk_points_new(ctx);
        CHECK(gk_points_read_xy(ctx, path, p, &sk) != 0);
        CHECK_MSG(ctx, "line 2: expected X and Y fields");
        gk_points_free(p);
        write_text(path, "0,5 0,25\n");
        p = gk_points_new(ctx);
        CHECK(gk_points_read_xy(ctx, path, p, &sk) != 0);
        CHECK_MSG(ctx, "decimal comma");
        gk_points_free(p);
    }

    /* a separator ending the line leaves an empty last field: an empty Z,
     * skipped and counted like "4,5,,9" */
    p = xyz(ctx, "1,2,\n3,4,5\n6;7;\n", NULL, &sk, &rc);
    CHECK(rc == 0);
    CHECK_EQ_SZ(gk_points_count(p), 1);
    CHECK_EQ_SZ(sk, 2);
    CHECK(gk_points_count(p) == 1 && gk_points_x(p)[0] == 3 && gk_points_z(p)[0] == 5);
    gk_points_free(p);

    /* a column number with a header line: the header's names do not hold
     * "4", so it is the 4th column */
    p = xyz(ctx, "x,y,elev,other\n1,2,3,9\n4,5,6,8\n", "4", &sk, &rc);
    CHECK(rc == 0 && gk_points_count(p) == 2);
    CHECK(gk_points_count(p) == 2 && gk_points_z(p)[0] == 9 && gk_points_z(p)[1] == 8);
    gk_points_free(p);
    /* ... and a column named "4" is that column, wherever it is */
    p = xyz(ctx, "x y 4 3\n1 2 3 9\n", "4", &sk, &rc);
    CHECK(rc == 0 && gk_points_count(p) == 1 && gk_points_z(p)[0] == 3);
    gk_points_free(p);
    /* the header names no such column and it is no column number either */
    p = xyz(ctx, "x,y,z\n1,2,3\n", "0", &sk, &rc);
    CHECK(rc == GK_ERR_ARG);
    CHECK_MSG(ctx, "no column named \"0\"");
    gk_points_free(p);

    /* quoted numbers; exponents of many digits (strtod's values: 30,
     * +inf skipped and counted, 0) */
    p = xyz(ctx,
            "\"1.5\",\"2\",\"3e1\"\n1 2 3e00000000000000000001\n1 2 1e1000000\n"
            "4 5 1e-1000000\n",
            NULL, &sk, &rc);
    CHECK(rc == 0);
    CHECK_EQ_SZ(gk_points_count(p), 3);
    CHECK_EQ_SZ(sk, 1);
    if (gk_points_count(p) == 3)
        CHECK(gk_points_x(p)[0] == 1.5 && gk_points_y(p)[0] == 2 && gk_points_z(p)[0] == 30 &&
              gk_points_z(p)[1] == 30 && gk_points_x(p)[2] == 4 && gk_points_z(p)[2] == 0);
    gk_points_free(p);
    /* a column number past any file's columns is no column number */
    p = xyz(ctx, "x,y,z\n1,2,3\n", "99999999", &sk, &rc);
    CHECK(rc == GK_ERR_ARG);
    CHECK_MSG(ctx, "no column named \"99999999\"");
    gk_points_free(p);
    /* a header longer than the message holds: the names that fit, listed */
    {
        char text[3000];
        int n = 0;
        for (int i = 0; i < 100; i++)
            n += snprintf(text + n, sizeof text - (size_t)n, "%scolumn_name_%03d", i ? " " : "", i);
        snprintf(text + n, sizeof text - (size_t)n, "\n1 2 3\n");
        p = xyz(ctx, text, "depth", &sk, &rc);
        CHECK(rc == GK_ERR_ARG);
        CHECK_MSG(ctx, "(columns: column_name_000, column_name_001, ");
        CHECKF(!strstr(gk_errmsg(ctx), "column_name_099"), "every name listed: %s",
               gk_errmsg(ctx));
        gk_points_free(p);
    }
    /* a control character in a quoted line: shown as '?' */
    p = xyz(ctx, "1 2 3\n4 5 \001x\n", NULL, &sk, &rc);
    CHECK(rc == GK_ERR_IO);
    CHECK_MSG(ctx, "line 2: Z is not a number: \"4 5 ?x\"");
    gk_points_free(p);

    /* X not a number after the first line (a first line like that is a header) */
    p = xyz(ctx, "1 2 3\nabc 5 6\n", NULL, &sk, &rc);
    CHECK(rc == GK_ERR_IO);
    CHECK_MSG(ctx, "t.xyz: line 2: X is not a number: \"abc 5 6\"");
    gk_points_free(p);
    /* the line quoted in a message: without its CR (CRLF files) ... */
    p = xyz(ctx, "1 2 3\r\n4 5 six\r\n", NULL, &sk, &rc);
    CHECK(rc == GK_ERR_IO);
    CHECK_MSG(ctx, "line 2: Z is not a number: \"4 5 six\"");
    gk_points_free(p);
    /* ... and cut to its first 92 characters, with "..." after them */
    {
        char text[300], want[200];
        int n = snprintf(text, sizeof text, "1 2 3\n7 8 ");
        memset(text + n, 'q', 200);
        text[n + 200] = '\n';
        text[n + 201] = '\0';
        n = snprintf(want, sizeof want, "line 2: Z is not a number: \"7 8 ");
        memset(want + n, 'q', 88); /* 4 + 88 = 92 characters of the line */
        snprintf(want + n + 88, sizeof want - (size_t)(n + 88), "...\"");
        p = xyz(ctx, text, NULL, &sk, &rc);
        CHECK(rc == GK_ERR_IO);
        CHECK_MSG(ctx, want);
        gk_points_free(p);
    }

    /* a folder is no file of points: refused by name, not 0 points (nor a
     * point count guessed from the "size" ext4 gives a folder, 2^63 - 1) */
    p = gk_points_new(ctx);
    gk_error_clear(ctx);
    rc = gk_points_read_xyz(ctx, tmpdir, NULL, p, &sk);
    CHECK(rc == GK_ERR_IO);
    CHECK_MSG(ctx, "is a folder, not a file of points");
    CHECK_MSG(ctx, tmpdir);
    CHECK_EQ_SZ(gk_points_count(p), 0);
    gk_points_free(p);

    /* from a pipe (no size known: the 4 MB buffer), a line longer than the
     * buffer: it grows, and the line and the next one are read */
    {
        const char *fifo = tpath("pipe.xyz");
        CHECK(mkfifo(fifo, 0600) == 0);
        pid_t pid = fork();
        if (pid == 0) { /* the writer */
            int fd = open(fifo, O_WRONLY);
            static char blanks[1 << 16];
            memset(blanks, ' ', sizeof blanks);
            int ok = fd >= 0 && write(fd, "1 2 3", 5) == 5;
            for (int i = 0; ok && i < 80; i++) /* 5 MB of blanks after Z */
                ok = write(fd, blanks, sizeof blanks) == (ssize_t)sizeof blanks;
            ok = ok && write(fd, "\n4 5 6\n", 7) == 7;
            _exit(ok ? 0 : 1);
        }
        CHECK(pid > 0);
        if (pid > 0) {
            p = gk_points_new(ctx);
            rc = gk_points_read_xyz(ctx, fifo, NULL, p, &sk);
            int status = 0;
            waitpid(pid, &status, 0);
            CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
            CHECKF(rc == 0, "%s", gk_errmsg(ctx));
            CHECK_EQ_SZ(gk_points_count(p), 2);
            CHECK(gk_points_count(p) == 2 && gk_points_z(p)[0] == 3 && gk_points_x(p)[1] == 4 &&
                  gk_points_z(p)[1] == 6);
            gk_points_free(p);
        }
        unlink(fifo);
    }

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
    printf("gpkg + triangle clip: rc=%d, kept %zu in %.3f s\n", rc, rc ? 0 : npts(&sp, 0), t1 - t0);
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
    if (!strcmp(what, "ogr") || !strcmp(what, "all")) {
        /* the look at a source before any driver is registered registers
         * them: its count and extent */
        char src[300];
        snprintf(src, sizeof src, "%s/peek.gpkg", tmpdir);
        pid_t pid = fork(); /* made by a child: this process registers nothing */
        if (pid == 0) {
            GDALAllRegister();
            GDALDatasetH ds =
                GDALCreate(GDALGetDriverByName("GPKG"), src, 0, 0, 0, GDT_Unknown, NULL);
            OGRLayerH l = ds ? GDALDatasetCreateLayer(ds, "p", NULL, wkbPoint25D, NULL) : NULL;
            const char *wkt[] = {"POINT Z (1 5 0)", "POINT Z (3 -2 1)", "POINT Z (2 4 2)"};
            int made = 0;
            for (int i = 0; l && i < 3; i++) {
                OGRFeatureH f = OGR_F_Create(OGR_L_GetLayerDefn(l));
                OGRGeometryH g = NULL;
                char *w = (char *)wkt[i];
                OGR_G_CreateFromWkt(&w, NULL, &g);
                OGR_F_SetGeometryDirectly(f, g);
                made += OGR_L_CreateFeature(l, f) == OGRERR_NONE;
                OGR_F_Destroy(f);
            }
            GDALClose(ds);
            _exit(made == 3 ? 0 : 1);
        }
        int status = -1;
        CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0);
        gk_read_options ro;
        memset(&ro, 0, sizeof ro);
        ro.src = src;
        double n = 0, box[4] = {0};
        CHECK(GDALGetDriverCount() == 0);
        CHECK(gk_peek_points(&ro, &n, box) == 0);
        CHECK(GDALGetDriverCount() > 0);
        CHECKF(n == 3 && box[0] == 1 && box[1] == -2 && box[2] == 3 && box[3] == 5,
               "peek: %g features, extent %g %g %g %g", n, box[0], box[1], box[2], box[3]);
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
