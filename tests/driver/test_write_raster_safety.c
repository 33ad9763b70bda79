/* SPDX-License-Identifier: MIT */
/* test_write_raster_safety.c - the writer's safety: an aborted write leaves
 * nothing, a replaced output is replaced whole, inputs and directories are
 * refused, bad names fail, a guessed driver warns, tile sizes (part of
 * test_write_raster). */
#define _XOPEN_SOURCE 700 /* realpath, link, seteuid */
#include "test_write_raster.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal.h>

/* ---- abort, replace ------------------------------------------------------- */

void test_abort(gk_context *ctx)
{
    /* new destination: nothing at all remains */
    const char *dst = path("aborted.tif");
    gk_raster_spec s = base_spec(dst, 300, 300);
    gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
    CHECKF(w, "open: %s", gk_errmsg(ctx));
    if (w) {
        double v[100];
        for (int i = 0; i < 100; i++)
            v[i] = i;
        CHECKF(gk_raster_writer_write(w, 1, 0, 0, 10, 10, v) == GK_OK, "%s", gk_errmsg(ctx));
        gk_raster_writer_abort(w);
    }
    CHECKF(!exists(dst), "aborted output exists");
    check_no_temporaries("abort (new)");

    /* existing destination: byte-for-byte untouched */
    const char *old = path("keep.tif");
    CHECKF(make_raster(ctx, old, 5, 4) == GK_OK, "%s", gk_errmsg(ctx));
    size_t n0 = 0, n1 = 0;
    char *before = read_bytes(old, &n0);
    s = base_spec(old, 50, 50);
    s.type = "Float32";
    w = gk_raster_writer_open(ctx, &s);
    CHECKF(w, "open over existing: %s", gk_errmsg(ctx));
    if (w) {
        CHECKF(fill(w, 50, 50, 1, ramp) == GK_OK, "%s", gk_errmsg(ctx));
        gk_raster_writer_abort(w);
    }
    char *after = read_bytes(old, &n1);
    CHECKF(before && after && n0 == n1 && memcmp(before, after, n0) == 0,
           "existing dst changed by an aborted write (%zu -> %zu bytes)", n0, n1);
    free(before);
    free(after);
    gk_raster_writer_abort(NULL); /* safe on NULL */
    check_no_temporaries("abort (existing)");
}

void test_replace(gk_context *ctx)
{
    const char *dst = path("replace.tif");
    CHECKF(make_raster(ctx, dst, 3, 3) == GK_OK, "%s", gk_errmsg(ctx));
    gk_raster_spec s = base_spec(dst, 8, 6);
    s.type = "Float32";
    gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
    CHECKF(w, "%s", gk_errmsg(ctx));
    if (w) {
        CHECKF(fill(w, 8, 6, 1, ramp) == GK_OK, "%s", gk_errmsg(ctx));
        CHECKF(gk_raster_writer_commit(w) == GK_OK, "%s", gk_errmsg(ctx));
    }
    GDALDatasetH ds = GDALOpen(dst, GA_ReadOnly);
    CHECKF(ds && GDALGetRasterXSize(ds) == 8 && GDALGetRasterYSize(ds) == 6,
           "dst not replaced by the new raster");
    if (ds) {
        float v = 0;
        CHECKF(GDALRasterIO(GDALGetRasterBand(ds, 1), GF_Read, 7, 5, 1, 1, &v, 1, 1, GDT_Float32, 0,
                            0) == CE_None,
               "read");
        CHECKF(v == (float)ramp(1, 7, 5), "replaced value %g", v);
        GDALClose(ds);
    }

    /* a destination that is not a dataset is replaced too */
    const char *junk = path("junk.tif");
    write_text(junk, "not a raster\n");
    CHECKF(make_raster(ctx, junk, 4, 4) == GK_OK, "%s", gk_errmsg(ctx));
    ds = GDALOpen(junk, GA_ReadOnly);
    CHECKF(ds && GDALGetRasterXSize(ds) == 4, "junk not replaced");
    if (ds)
        GDALClose(ds);

    /* the old dataset's own side-cars (overviews, PAM) go with it; the
     * new dataset's files replace the old ones in place */
    const char *ovr = path("sides.tif.ovr"), *aux = path("sides.tif.aux.xml");
    const char *sides = path("sides.tif");
    CHECKF(make_raster(ctx, sides, 16, 16) == GK_OK, "%s", gk_errmsg(ctx));
    ds = GDALOpen(sides, GA_ReadOnly);
    if (ds) {
        int level = 2;
        CHECKF(GDALBuildOverviews(ds, "NEAREST", 1, &level, 0, NULL, NULL, NULL) == CE_None,
               "overviews of %s", sides);
        GDALSetMetadataItem(ds, "OLD", "yes", NULL);
        GDALClose(ds);
    }
    CHECKF(exists(ovr) && exists(aux), "the old dataset has no .ovr and .aux.xml to replace");
    CHECKF(make_raster(ctx, sides, 5, 5) == GK_OK, "%s", gk_errmsg(ctx));
    CHECKF(!exists(ovr), "the old dataset's overviews survived its replacement");
    CHECKF(!exists(aux), "the old dataset's .aux.xml survived its replacement");
    ds = GDALOpen(sides, GA_ReadOnly);
    CHECKF(ds && GDALGetRasterXSize(ds) == 5 && GDALGetOverviewCount(GDALGetRasterBand(ds, 1)) == 0,
           "%s not replaced by the new raster alone", sides);
    if (ds)
        GDALClose(ds);

    /* a destination that became something that cannot be replaced while
     * the raster was written (a directory with a file in it): an error,
     * and that destination untouched */
    const char *dir = path("dir.tif"), *inside = path("dir.tif/keep.txt");
    unlink(inside); /* an earlier run's */
    rmdir(dir);
    gk_raster_spec d = base_spec(dir, 4, 4);
    d.type = "Byte";
    w = gk_raster_writer_open(ctx, &d);
    CHECKF(w, "%s", gk_errmsg(ctx));
    if (w) {
        CHECKF(fill(w, 4, 4, 1, seven) == GK_OK, "%s", gk_errmsg(ctx));
        mkdir(dir, 0755);
        write_text(inside, "kept\n");
        CHECKF(gk_raster_writer_commit(w) == GK_ERR_IO, "a directory replaced by a raster");
    }
    CHECKF(exists(inside), "the directory that could not be replaced lost its file");
    unlink(inside);
    rmdir(dir);
    check_no_temporaries("replace");
}

/* ---- refusals ------------------------------------------------------------- */

void test_protect(gk_context *ctx)
{
    const char *input = path("points.csv");
    write_text(input, "x,y,z\n1,2,3\n");
    char other_spelling[1300];
    snprintf(other_spelling, sizeof other_spelling, "%s/./../%s/points.csv", workdir,
             strrchr(workdir, '/') + 1);
    gk_inputs *protect = gk_inputs_new();
    gk_inputs_add(protect, path("none.shp"), NULL);
    gk_inputs_add(protect, input, NULL);
    gk_raster_spec s = base_spec(other_spelling, 10, 10);
    s.format = "GTiff";
    s.inputs = protect;
    gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
    CHECKF(!w && strstr(gk_errmsg(ctx), "refusing to overwrite input"), "protect: '%s'",
           gk_errmsg(ctx));
    gk_raster_writer_abort(w);
    size_t n = 0;
    char *b = read_bytes(input, &n);
    CHECKF(b && n == 12 && memcmp(b, "x,y,z\n1,2,3\n", 12) == 0, "input changed");
    free(b);

    /* a hard link is the same file under another name */
    const char *link_name = path("points_link.tif");
    unlink(link_name);
    if (link(input, link_name) == 0) {
        s.dst = link_name;
        w = gk_raster_writer_open(ctx, &s);
        CHECKF(!w && strstr(gk_errmsg(ctx), "refusing"), "hard link: '%s'", gk_errmsg(ctx));
        gk_raster_writer_abort(w);
        unlink(link_name);
    }
    /* neither exists yet: compared by canonical path */
    gk_inputs *protect2 = gk_inputs_new();
    gk_inputs_add(protect2, path("future.tif"), NULL);
    snprintf(other_spelling, sizeof other_spelling, "%s/./future.tif", workdir);
    s.dst = other_spelling;
    s.inputs = protect2;
    w = gk_raster_writer_open(ctx, &s);
    CHECKF(!w && strstr(gk_errmsg(ctx), "refusing"), "non-existing: '%s'", gk_errmsg(ctx));
    gk_raster_writer_abort(w);
    gk_inputs_free(protect);
    gk_inputs_free(protect2);
    check_no_temporaries("protect");
}

void test_directories(gk_context *ctx)
{
    const char *ro = path("readonly");
    mkdir(ro, 0755);
    chmod(ro, 0555);
    char dst[1300];
    snprintf(dst, sizeof dst, "%s/out.tif", ro);
    gk_raster_spec s = base_spec(dst, 10, 10);
    /* root writes anywhere: test as nobody for the duration of the check */
    int was_root = geteuid() == 0;
    if (was_root && seteuid(65534) != 0)
        perror("seteuid");
    gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
    if (was_root && seteuid(0) != 0)
        perror("seteuid back");
    CHECKF(!w && strstr(gk_errmsg(ctx), "not writable") && strstr(gk_errmsg(ctx), ro),
           "unwritable dir: '%s'", gk_errmsg(ctx));
    gk_raster_writer_abort(w);
    CHECKF(!exists(dst), "created in a read-only directory");
    chmod(ro, 0755);

    snprintf(dst, sizeof dst, "%s/no/such/dir/out.tif", workdir);
    s.dst = dst;
    w = gk_raster_writer_open(ctx, &s);
    CHECKF(!w && strstr(gk_errmsg(ctx), "does not exist") && strstr(gk_errmsg(ctx), "no/such/dir"),
           "missing dir: '%s'", gk_errmsg(ctx));
    gk_raster_writer_abort(w);

    s.dst = workdir; /* a directory is not an output file */
    w = gk_raster_writer_open(ctx, &s);
    CHECKF(!w && strstr(gk_errmsg(ctx), "directory"), "dst dir: '%s'", gk_errmsg(ctx));
    gk_raster_writer_abort(w);
}

void test_bad_names(gk_context *ctx)
{
    gk_raster_spec s = base_spec(path("bad.tif"), 10, 10);
    s.format = "NoSuchFormat";
    gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
    CHECKF(!w && strstr(gk_errmsg(ctx), "NoSuchFormat"), "format: '%s'", gk_errmsg(ctx));

    s.format = "ESRI Shapefile";
    w = gk_raster_writer_open(ctx, &s);
    CHECKF(!w && strstr(gk_errmsg(ctx), "not a raster"), "vector format: '%s'", gk_errmsg(ctx));

    if (GDALGetDriverByName("CEOS")) { /* a read-only raster driver */
        s.format = "CEOS";
        w = gk_raster_writer_open(ctx, &s);
        CHECKF(!w && strstr(gk_errmsg(ctx), "cannot write"), "read-only: '%s'", gk_errmsg(ctx));
    }

    s.format = NULL;
    s.type = "Float65";
    w = gk_raster_writer_open(ctx, &s);
    CHECKF(!w && strstr(gk_errmsg(ctx), "Float65") && strstr(gk_errmsg(ctx), "Float32") &&
               strstr(gk_errmsg(ctx), "Byte"),
           "type: '%s'", gk_errmsg(ctx));

    s.type = NULL;
    s.dst = path("out.xyzzy");
    w = gk_raster_writer_open(ctx, &s);
    CHECKF(!w && strstr(gk_errmsg(ctx), "xyzzy"), "extension: '%s'", gk_errmsg(ctx));

    /* no extension: GTiff */
    s.dst = path("noext");
    w = gk_raster_writer_open(ctx, &s);
    CHECKF(w, "no extension: %s", gk_errmsg(ctx));
    if (w) {
        CHECKF(fill(w, 10, 10, 1, ramp) == GK_OK, "%s", gk_errmsg(ctx));
        /* and a bad window is refused */
        double v = 1;
        CHECKF(gk_raster_writer_write(w, 1, 10, 0, 1, 1, &v) == GK_ERR_ARG, "window outside");
        CHECKF(gk_raster_writer_write(w, 2, 0, 0, 1, 1, &v) == GK_ERR_ARG, "band 2 of 1");
        CHECKF(gk_raster_writer_commit(w) == GK_OK, "%s", gk_errmsg(ctx));
        GDALDatasetH ds = GDALOpen(path("noext"), GA_ReadOnly);
        CHECKF(ds && strcmp(GDALGetDriverShortName(GDALGetDatasetDriver(ds)), "GTiff") == 0,
               "noext is not a GTiff");
        if (ds)
            GDALClose(ds);
    }

    /* sizes: beyond the disk, beyond GDAL's int */
    s.dst = path("huge.tif");
    s.nx = 2000000000;
    s.ny = 2000000000;
    s.type = "Byte";
    w = gk_raster_writer_open(ctx, &s);
    CHECKF(!w && strstr(gk_errmsg(ctx), "GiB free in"), "disk: '%s'", gk_errmsg(ctx));
    s.type = "Float64";
    w = gk_raster_writer_open(ctx, &s);
    CHECKF(!w && strstr(gk_errmsg(ctx), "too large"), "int limits: '%s'", gk_errmsg(ctx));
    CHECKF(!exists(path("huge.tif")), "huge.tif created");
    check_no_temporaries("bad names");
}

static int warnings;
static char last_warning[512];
static void CPL_STDCALL record_warning(CPLErr cls, CPLErrorNum no, const char *msg)
{
    (void)no;
    if (cls == CE_Warning) {
        warnings++;
        snprintf(last_warning, sizeof last_warning, "%s", msg);
    }
}

void test_guess_warning(gk_context *ctx)
{
    /* .grd is claimed by several Golden Software drivers */
    gk_raster_spec s = base_spec(path("several.grd"), 10, 10);
    s.type = "Float32";
    warnings = 0;
    CPLPushErrorHandler(record_warning);
    gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
    CPLPopErrorHandler();
    CHECKF(w, "grd: %s", gk_errmsg(ctx));
    /* (a GDAL built without them has one writer of .grd, or none: no warning) */
    int writers = 0;
    for (int i = 0; i < GDALGetDriverCount(); i++) {
        GDALDriverH d = GDALGetDriver(i);
        const char *ext = GDALGetMetadataItem(d, GDAL_DMD_EXTENSIONS, NULL);
        writers += ext && strstr(ext, "grd") && GDALGetMetadataItem(d, GDAL_DCAP_RASTER, NULL) &&
                   (GDALGetMetadataItem(d, GDAL_DCAP_CREATE, NULL) ||
                    GDALGetMetadataItem(d, GDAL_DCAP_CREATECOPY, NULL));
    }
    if (writers > 1)
        CHECKF(warnings == 1 && strstr(last_warning, "Several drivers"), "warning '%s'",
               last_warning);
    else
        CHECKF(warnings == 0, "%d writers of .grd, warning '%s'", writers, last_warning);
    gk_raster_writer_abort(w);

    /* .tif (GTiff and COG) stays quiet and is GTiff */
    s.dst = path("quiet.tif");
    warnings = 0;
    CPLPushErrorHandler(record_warning);
    w = gk_raster_writer_open(ctx, &s);
    CPLPopErrorHandler();
    CHECKF(w && warnings == 0, "tif warned: %s", last_warning);
    gk_raster_writer_abort(w);
    CHECKF(!exists(path("several.grd")) && !exists(path("quiet.tif")), "aborted files remain");
    check_no_temporaries("guess");
}

void test_tile_size(gk_context *ctx)
{
    int tw, th;
    /* striped GTiff: 256 wide, whole strips near 256 rows */
    gk_raster_spec s = base_spec(path("tiles1.tif"), 1000, 700);
    s.type = "Float32";
    gk_raster_writer *w = gk_raster_writer_open(ctx, &s);
    if (w) {
        gk_raster_writer_tile_size(w, &tw, &th);
        CHECKF(tw == 256 && th >= 128 && th <= 512, "striped tile %dx%d", tw, th);
        gk_raster_writer_abort(w);
    }
    /* a very wide strip: a row of tiles stays under ~64 MiB */
    s.dst = path("tiles2.tif");
    s.nx = 400000;
    s.ny = 300;
    w = gk_raster_writer_open(ctx, &s);
    CHECKF(w, "%s", gk_errmsg(ctx));
    if (w) {
        gk_raster_writer_tile_size(w, &tw, &th);
        CHECKF(tw == 256 && th >= 1 && (double)s.nx * th * 8 <= 64.0 * 1024 * 1024,
               "wide tile %dx%d", tw, th);
        gk_raster_writer_abort(w);
    }
    /* tiled output: the block */
    char *co[] = {"TILED=YES", "BLOCKXSIZE=128", "BLOCKYSIZE=64", NULL};
    s.dst = path("tiles3.tif");
    s.nx = 1000;
    s.ny = 1000;
    s.creation_options = co;
    w = gk_raster_writer_open(ctx, &s);
    if (w) {
        gk_raster_writer_tile_size(w, &tw, &th);
        CHECKF(tw == 128 && th == 64, "tiled %dx%d", tw, th);
        gk_raster_writer_abort(w);
    }
    check_no_temporaries("tile size");
}

/* ---- the replacement steps one by one ------------------------------------ */

#include "io/cancel_cleanup.h"
#include "io/input_files.h"
#include "io/output_check.h"
#include "io/replace_output.h"

#include <signal.h>
#include <sys/wait.h>

static off_t file_size(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0 ? st.st_size : -1;
}

/* What each step of a replacement does when the name it needs is taken or
 * gone: the old output put aside and back, a commit over something that
 * is no longer a file, a stale temporary under this pid, a dataset whose
 * old or new side-car is an input, a vector dataset GDAL 3.6 cannot
 * rename, and a signal that arrives while a rename is held. */
void test_replace_steps(gk_context *ctx)
{
    /* gk_output_prepare: no name; a /vsi name refused by name (no rename there) */
    gk_error_clear(ctx);
    CHECK(gk_output_prepare(ctx, "output", "", NULL) == NULL);
    CHECKF(strstr(gk_errmsg(ctx), "output: no file name"), "%s", gk_errmsg(ctx));
    CHECK(gk_output_prepare(ctx, "output", NULL, NULL) == NULL);
    CHECK(gk_output_prepare(ctx, "output", "/vsimem/prep.tif", NULL) == NULL);
    CHECKF(gk_errno(ctx) == GK_ERR_UNSUPPORTED && strstr(gk_errmsg(ctx), "output /vsimem/prep.tif:") &&
               strstr(gk_errmsg(ctx), "write a file, then copy it"),
           "%s", gk_errmsg(ctx));

    /* aside: nothing there is no error; a name that cannot be renamed
     * aside (a folder holds the aside's name) leaves it as it was */
    char *aside = (char *)1;
    CHECK(gk_output_aside(ctx, path("none.tif"), &aside) == GK_OK && aside == NULL);
    char dst[1100], fifo[1100], tmp[1100], cdst[1100], rdst[1100], rtmp[1100], vdst[1100],
        vtmp[1100], held[1100]; /* path() reuses its buffers */
    snprintf(dst, sizeof dst, "%s", path("aside.tif"));
    write_text(dst, "old");
    char *busy = gk_output_temp_name(dst, "-old", NULL);
    CHECK(busy && mkdir(busy, 0755) == 0);
    char inside[1100];
    snprintf(inside, sizeof inside, "%s/keep", busy ? busy : "");
    write_text(inside, "x");
    gk_error_clear(ctx);
    CHECK(gk_output_aside(ctx, dst, &aside) == GK_ERR_IO && aside == NULL);
    CHECKF(strstr(gk_errmsg(ctx), "cannot replace ") && strstr(gk_errmsg(ctx), "aside.tif: ") &&
               strstr(gk_errmsg(ctx), "directory"),
           "%s", gk_errmsg(ctx));
    CHECK(file_size(dst) == 3);
    unlink(inside);
    rmdir(busy);
    free(busy);
    /* aside and back */
    CHECK(gk_output_aside(ctx, dst, &aside) == GK_OK && aside && !exists(dst) && exists(aside));
    gk_error_clear(ctx);
    gk_output_restore(ctx, dst, aside);
    CHECK(gk_errno(ctx) == 0 && file_size(dst) == 3 && !exists(aside));
    gk_output_restore(ctx, dst, NULL); /* nothing aside: nothing to do */
    CHECK(gk_errno(ctx) == 0);
    /* the aside gone when it should come back: said, with both names */
    gk_output_restore(ctx, path("gone.tif"), aside);
    CHECKF(gk_errno(ctx) == GK_ERR_IO &&
               strstr(gk_errmsg(ctx), "gone.tif could not take its name, and the old one is now ") &&
               strstr(gk_errmsg(ctx), "aside.gridkit-tmp-") &&
               strstr(gk_errmsg(ctx), "No such file"),
           "%s", gk_errmsg(ctx));
    free(aside);

    /* commit: the destination became a FIFO, or the temporary is gone */
    snprintf(fifo, sizeof fifo, "%s", path("commit.txt"));
    snprintf(tmp, sizeof tmp, "%s", path("commit.gridkit-tmp-1.txt"));
    CHECK(mkfifo(fifo, 0644) == 0);
    write_text(tmp, "new");
    gk_error_clear(ctx);
    CHECK(gk_output_commit_file(ctx, "table", tmp, fifo) == GK_ERR_IO);
    CHECKF(strstr(gk_errmsg(ctx), "table ") &&
               strstr(gk_errmsg(ctx), "commit.txt: cannot replace it, it is no longer a regular file"),
           "%s", gk_errmsg(ctx));
    struct stat st;
    CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    CHECK(!exists(tmp)); /* the temporary deleted */
    unlink(fifo);
    CHECK(gk_output_commit_file(ctx, "table", tmp, fifo) == GK_ERR_IO);
    CHECKF(strstr(gk_errmsg(ctx), "cannot rename ") && strstr(gk_errmsg(ctx), "No such file"), "%s",
           gk_errmsg(ctx));
    CHECK(!exists(fifo));

    /* claim: a regular file under this very pid's temporary name is a dead
     * run's (the sweep skips our pid): emptied and taken; a link is not */
    snprintf(cdst, sizeof cdst, "%s", path("claim.txt"));
    char *ctmp = gk_output_temp_name(cdst, "", NULL);
    write_text(ctmp, "a dead run's bytes");
    CHECK(gk_output_claim(ctx, "table", cdst, ctmp) == GK_OK);
    CHECK(file_size(ctmp) == 0);
    FILE *f = gk_output_open_temp(ctx, "table", cdst, ctmp);
    CHECK(f != NULL);
    if (f)
        fclose(f);
    unlink(ctmp);
    CHECK(symlink("claim-victim", ctmp) == 0);
    gk_error_clear(ctx);
    CHECK(gk_output_open_temp(ctx, "table", cdst, ctmp) == NULL);
    CHECKF(strstr(gk_errmsg(ctx), "not a file of gridkit's has that name"), "%s", gk_errmsg(ctx));
    CHECK(lstat(ctmp, &st) == 0 && S_ISLNK(st.st_mode) && !exists(path("claim-victim")));
    unlink(ctmp);
    free(ctmp);

    /* a raster dataset whose old side-car, or whose new one, is an input:
     * refused, every file as it was */
    GDALDriverH gtiff = GDALGetDriverByName("GTiff");
    snprintf(rdst, sizeof rdst, "%s", path("rep.tif"));
    snprintf(rtmp, sizeof rtmp, "%s", path("rep.gridkit-tmp-1.tif"));
    CHECK(make_raster(ctx, rdst, 3, 3) == GK_OK && make_raster(ctx, rtmp, 4, 4) == GK_OK);
    write_text(path("rep.tif.aux.xml"), "<PAMDataset></PAMDataset>\n");
    size_t n0 = 0, n1 = 0;
    char *before = read_bytes(rdst, &n0);
    gk_inputs *in = gk_inputs_new();
    CHECK(in && gk_inputs_add_file(in, path("rep.tif.aux.xml")) == GK_OK);
    gk_error_clear(ctx);
    CHECK(gk_output_replace_dataset(ctx, gtiff, rtmp, rdst, in) != GK_OK);
    CHECKF(strstr(gk_errmsg(ctx), "refusing to overwrite input") &&
               strstr(gk_errmsg(ctx), "rep.tif.aux.xml"),
           "%s", gk_errmsg(ctx));
    char *after = read_bytes(rdst, &n1);
    CHECK(before && after && n0 == n1 && !memcmp(before, after, n0));
    CHECK(exists(rtmp) && exists(path("rep.tif.aux.xml")));
    free(before);
    free(after);
    gk_inputs_free(in);
    /* the new dataset's side-car would take an input's name */
    GDALDeleteDataset(gtiff, rdst);
    unlink(path("rep.tif.aux.xml"));
    write_text(path("rep.gridkit-tmp-1.tif.aux.xml"), "<PAMDataset></PAMDataset>\n");
    write_text(path("rep.tif.aux.xml"), "an input");
    in = gk_inputs_new();
    CHECK(in && gk_inputs_add_file(in, path("rep.tif.aux.xml")) == GK_OK);
    /* the same missing file twice is one input */
    CHECK(gk_inputs_add_file(in, path("nowhere/x.json")) == GK_OK &&
          gk_inputs_add_file(in, path("nowhere/x.json")) == GK_OK);
    gk_error_clear(ctx);
    CHECK(gk_output_replace_dataset(ctx, gtiff, rtmp, rdst, in) != GK_OK);
    CHECKF(strstr(gk_errmsg(ctx), "refusing to overwrite input"), "%s", gk_errmsg(ctx));
    CHECK(!exists(rdst) && exists(rtmp) && file_size(path("rep.tif.aux.xml")) == 8);
    gk_inputs_free(in);
    gk_output_delete_quietly(gtiff, rtmp); /* the raster and its .aux.xml */
    CHECK(!exists(rtmp) && !exists(path("rep.gridkit-tmp-1.tif.aux.xml")));
    gk_output_delete_quietly(gtiff, NULL);
    unlink(path("rep.tif.aux.xml"));

    /* a vector GeoPackage: GDAL 3.6's rename lists raster files only, so
     * gridkit renames the files itself, the PAM side-car with them */
    GDALDriverH gpkg = GDALGetDriverByName("GPKG");
    snprintf(vdst, sizeof vdst, "%s", path("lines.gpkg"));
    snprintf(vtmp, sizeof vtmp, "%s", path("lines.gridkit-tmp-1.gpkg"));
    GDALDatasetH ds = GDALCreate(gpkg, vtmp, 0, 0, 0, GDT_Unknown, NULL);
    CHECK(ds && GDALDatasetCreateLayer(ds, "l", NULL, wkbLineString, NULL));
    GDALClose(ds);
    write_text(path("lines.gridkit-tmp-1.gpkg.aux.xml"), "<PAMDataset></PAMDataset>\n");
    gk_error_clear(ctx);
    CHECKF(gk_output_replace_dataset(ctx, gpkg, vtmp, vdst, NULL) == GK_OK, "%s", gk_errmsg(ctx));
    CHECK(!exists(vtmp) && !exists(path("lines.gridkit-tmp-1.gpkg.aux.xml")) &&
          exists(path("lines.gpkg.aux.xml")));
    ds = GDALOpenEx(vdst, GDAL_OF_VECTOR, NULL, NULL, NULL);
    CHECK(ds && GDALDatasetGetLayerCount(ds) == 1 && GDALDatasetGetLayerByName(ds, "l"));
    if (ds)
        GDALClose(ds);
    GDALDeleteDataset(gpkg, vdst);
    unlink(path("lines.gpkg.aux.xml"));

    /* a signal while a rename is held waits for the release, which deletes
     * the watched temporaries, then delivers it (blocked here, so that the
     * child can say what it saw) */
    snprintf(held, sizeof held, "%s", path("held.gridkit-tmp-1.tif"));
    write_text(held, "partial");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        gk_cancel_install();
        gk_cancel_watch(held);
        gk_cancel_hold();
        raise(SIGTERM); /* held: only noted */
        int code = exists(held) ? 0 : 1;
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGTERM);
        sigprocmask(SIG_BLOCK, &set, NULL);
        gk_cancel_release(); /* deletes, then raises SIGTERM: pending */
        sigset_t pend;
        sigpending(&pend);
        if (exists(held))
            code |= 2;
        if (!sigismember(&pend, SIGTERM))
            code |= 4;
        exit(code); /* a normal exit: SIGTERM stays blocked */
    }
    int status = -1;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "held signal: status %#x (1: temporary deleted while held, 2: kept after the release, "
           "4: no signal raised)",
           status);
    CHECK(!exists(held));
    /* not held: deleted at once, and the signal ends the process */
    write_text(held, "partial");
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        gk_cancel_install();
        gk_cancel_watch(held);
        raise(SIGINT);
        _exit(3); /* not reached */
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECKF(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT, "status %#x", status);
    CHECK(!exists(held));
    check_no_temporaries("replace steps");
}
