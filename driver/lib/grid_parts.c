/* SPDX-License-Identifier: MIT */
/*
 * grid_parts.c - the parts of --parts and their mosaic (see grid_parts.h).
 */
#define _XOPEN_SOURCE 700
#include "lib/grid_parts.h"
#include "lib/grid_strips.h"
#include "io/cancel_cleanup.h"
#include "io/gdal_messages.h"
#include "io/output_check.h"
#include "io/replace_output.h"
#include "io/stale_temps.h"

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <cpl_vsi.h>
#include <errno.h>
#include <fcntl.h>
#include <gdal.h>
#include <gdal_utils.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_regular(const char *name)
{
    struct stat st;
    return lstat(name, &st) == 0 && S_ISREG(st.st_mode);
}

/* "<dst stem>.part-": every part of every run of this output begins so. */
static char *parts_prefix(const char *dst)
{
    return CPLStrdup(CPLSPrintf("%s.part-", CPLGetBasename(dst)));
}

char *gk_parts_name(const gk_parts *p, int k) { return gk_strips_part_name(p->dir, p->stem, k); }

/* Every regular file of dir whose name begins with prefix, removed. */
static void remove_prefixed(const char *dir, const char *prefix)
{
    char **entries = VSIReadDir(dir);
    size_t pl = strlen(prefix);
    for (char **e = entries; e && *e; e++)
        if (!strncmp(*e, prefix, pl)) {
            const char *f = CPLFormFilename(dir, *e, NULL);
            if (is_regular(f))
                unlink(f);
        }
    CSLDestroy(entries);
}

static int make_dir(gk_context *ctx, const char *dir, int *made)
{
    struct stat st;
    *made = 0;
    if (mkdir(dir, 0777) == 0)
        *made = 1;
    else if (errno != EEXIST)
        return gk_error(ctx, GK_ERR_IO, "--parts %s: cannot create the directory: %s", dir,
                        strerror(errno));
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return gk_error(ctx, GK_ERR_IO, "--parts %s: not a directory", dir);
    if (access(dir, W_OK) != 0)
        return gk_error(ctx, GK_ERR_IO, "--parts %s: the directory is not writable", dir);
    return GK_OK;
}

/* ---- the lock ----------------------------------------------------------------- */

static int take_lock(gk_context *ctx, gk_parts *p)
{
    char *lock = CPLStrdup(
        CPLFormFilename(p->dir, CPLSPrintf("%s.gridkit-lock", CPLGetBasename(p->dst)), NULL));
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    gk_cancel_watch(lock); /* made below: a cancel from then on removes it */
    for (int attempt = 0; attempt < 2; attempt++) {
        int fd = open(lock, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0) {
            char line[320];
            int n = snprintf(line, sizeof line, "%ld %s\n", (long)getpid(), host);
            int ok = write(fd, line, (size_t)n) == n;
            close(fd);
            if (!ok) {
                unlink(lock);
                break;
            }
            p->lock = lock;
            return GK_OK;
        }
        if (errno != EEXIST)
            break;
        /* a run's lock: its pid and host */
        char buf[320] = "", who[256] = "";
        long pid = 0;
        struct stat st;
        FILE *f = fopen(lock, "r");
        if (f) {
            if (fgets(buf, sizeof buf, f) && sscanf(buf, "%ld %255s", &pid, who) < 1)
                pid = 0;
            fclose(f);
        }
        if (attempt == 0 && lstat(lock, &st) == 0 && S_ISREG(st.st_mode) && pid > 0 &&
            !strcmp(who, host) && gk_process_gone(pid, st.st_ctime)) {
            unlink(lock); /* its run was killed outright */
            continue;
        }
        int rc =
            gk_error(ctx, GK_ERR_IO,
                     "--parts %s: another gridkit run (pid %ld on %s) is writing the parts "
                     "of %s there; wait for it to end, or remove %s if that run is gone",
                     p->dir, pid, *who ? who : "an unknown host", CPLGetFilename(p->dst), lock);
        gk_cancel_forget(lock);
        CPLFree(lock);
        return rc;
    }
    int rc =
        gk_error(ctx, GK_ERR_IO, "--parts %s: cannot create %s: %s", p->dir, lock, strerror(errno));
    gk_cancel_forget(lock);
    CPLFree(lock);
    return rc;
}

static void release_lock(gk_parts *p)
{
    if (!p->lock)
        return;
    unlink(p->lock);
    gk_cancel_forget(p->lock);
    CPLFree(p->lock);
    p->lock = NULL;
}

/* ---- claim ------------------------------------------------------------------------- */

/* The parts the mosaic at dst uses: files of dir named as this output's
 * parts (anything else a VRT there lists is not ours to remove). */
static char **old_parts(const gk_parts *p)
{
    if (!is_regular(p->dst))
        return NULL;
    CPLPushErrorHandler(CPLQuietErrorHandler);
    GDALDatasetH ds = GDALOpenEx(p->dst, GDAL_OF_RASTER | GDAL_OF_READONLY, NULL, NULL, NULL);
    char **files = ds ? GDALGetFileList(ds) : NULL;
    if (ds)
        GDALClose(ds);
    CPLPopErrorHandler();
    CPLErrorReset();
    char *prefix = parts_prefix(p->dst), **out = NULL;
    for (char **f = files; f && *f; f++) {
        const char *name = CPLGetFilename(*f);
        char *dir = CPLStrdup(CPLGetPath(*f));
        if (!strncmp(name, prefix, strlen(prefix)) && EQUAL(CPLGetExtension(name), "tif") &&
            gk_output_same_file(*dir ? dir : ".", p->dir))
            out = CSLAddString(out, CPLFormFilename(p->dir, name, NULL));
        CPLFree(dir);
    }
    CPLFree(prefix);
    CSLDestroy(files);
    return out;
}

static int set_slot(gk_parts *p, char slot)
{
    p->slot = slot;
    p->stem = CPLStrdup(CPLSPrintf("%s.part-%c", CPLGetBasename(p->dst), slot));
    /* a killed run's parts of this slot: no mosaic uses them */
    char *prefix = CPLStrdup(CPLSPrintf("%s-", p->stem));
    remove_prefixed(p->dir, prefix);
    CPLFree(prefix);
    return GK_OK;
}

int gk_parts_claim(gk_context *ctx, gk_parts *p, const char *dir, const char *dst,
                   const gk_inputs *inputs)
{
    memset(p, 0, sizeof *p);
    p->dir = CPLStrdup(dir);
    /* the mosaic first: nothing is made for a run refused */
    char *path = gk_output_prepare(ctx, "--parts", dst, inputs);
    if (!path)
        return gk_errno(ctx) ? gk_errno(ctx) : GK_ERR_ARG;
    p->dst = CPLStrdup(path);
    free(path);
    if (gk_output_same_name(p->dst, dir))
        return gk_error(ctx, GK_ERR_ARG,
                        "--parts %s: the directory of the parts cannot be the mosaic %s too", dir,
                        dst);
    int rc = make_dir(ctx, dir, &p->made_dir);
    if (!rc)
        rc = take_lock(ctx, p);
    if (rc)
        return rc;
    p->old = old_parts(p);
    /* the slot the mosaic in place does not use */
    char *a = CPLStrdup(CPLSPrintf("%s.part-a-", CPLGetBasename(p->dst)));
    char slot = 'a';
    for (char **f = p->old; f && *f; f++)
        if (!strncmp(CPLGetFilename(*f), a, strlen(a)))
            slot = 'b';
    CPLFree(a);
    return set_slot(p, slot);
}

int gk_parts_join(gk_context *ctx, gk_parts *p, const char *dir, const char *dst, char slot)
{
    memset(p, 0, sizeof *p);
    p->dir = CPLStrdup(dir);
    p->dst = CPLStrdup(dst);
    int rc = make_dir(ctx, dir, &p->made_dir);
    return rc ? rc : set_slot(p, slot);
}

/* ---- commit ------------------------------------------------------------------------- */

/* The mosaic, as gdalbuildvrt makes it, with the bands' descriptions and
 * metadata, at tmp; every GDAL failure meanwhile is ours. */
static int write_mosaic(gk_context *ctx, gk_parts *p, const gk_grid_plan *plan, int nstrips,
                        const char *const *prepared, const uint64_t *singular, const char *tmp)
{
    char **names = calloc((size_t)nstrips + 1, sizeof *names);
    if (!names)
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory");
    int rc = GK_OK;
    for (int k = 0; k < nstrips && !rc; k++)
        if (!(names[k] = gk_parts_name(p, k)))
            rc = gk_error(ctx, GK_ERR_NOMEM, "out of memory");
    gk_err_capture ec;
    memset(&ec, 0, sizeof ec);
    CPLPushErrorHandlerEx(gk_capture_handler, &ec);
    GDALDatasetH v = NULL;
    if (!rc) {
        GDALBuildVRTOptions *bo = GDALBuildVRTOptionsNew(NULL, NULL);
        int usage = 0;
        v = GDALBuildVRT(tmp, nstrips, NULL, (const char *const *)names, bo, &usage);
        GDALBuildVRTOptionsFree(bo);
    }
    for (int b = 0; v && b < plan->bands; b++) {
        GDALRasterBandH h = GDALGetRasterBand(v, b + 1);
        if (plan->desc && plan->desc[b])
            GDALSetDescription(h, plan->desc[b]);
        if (prepared[b])
            GDALSetMetadataItem(h, "GRIDKIT_PREPARED", prepared[b], NULL);
        if (plan->set_nodata || singular[b / plan->planes])
            GDALSetRasterNoDataValue(h, plan->nodata);
        const uint64_t lowered = singular[plan->sp.n_layers + b / plan->planes];
        if (lowered) {
            char n[32];
            snprintf(n, sizeof n, "%llu", (unsigned long long)lowered);
            GDALSetMetadataItem(h, GK_LOWERED_KEY, n, NULL);
        }
    }
    if (v) {
        /* the grid's own geotransform: gdalbuildvrt averages the parts'
         * resolutions, a last bit off */
        double gt[6];
        gk_grid_geotransform(&plan->g, gt);
        GDALSetGeoTransform(v, gt);
        /* a GeoTIFF's own item, as the single raster has it */
        GDALSetMetadataItem(v, "AREA_OR_POINT", "Area", NULL);
        for (char **m = plan->md; m && *m; m++) {
            char *key = NULL;
            const char *val = CPLParseNameValue(*m, &key);
            if (key && val)
                GDALSetMetadataItem(v, key, val, NULL);
            CPLFree(key);
        }
        GDALClose(v);
    }
    CPLPopErrorHandler();
    if (!rc && (!v || ec.n_fail)) {
        char why[1100];
        rc = gk_error(ctx, GK_ERR_IO, "cannot write the mosaic %s%s", p->dst,
                      gk_gdal_reason(&ec, why, sizeof why));
    }
    for (int k = 0; k < nstrips; k++)
        free(names[k]);
    free(names);
    return rc;
}

int gk_parts_commit(gk_context *ctx, gk_parts *p, const gk_grid_plan *plan, int nstrips,
                    const char *const *prepared, const uint64_t *singular)
{
    char *tmp = gk_output_temp_name(p->dst, "", NULL);
    if (!tmp)
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory");
    gk_cancel_watch(tmp);
    int rc = gk_output_claim(ctx, "--parts", p->dst, tmp);
    if (!rc)
        rc = write_mosaic(ctx, p, plan, nstrips, prepared, singular, tmp);
    /* one file (its parts are not its side-cars): renamed as a file */
    if (!rc)
        rc = gk_output_commit_file(ctx, "--parts", tmp, p->dst);
    else {
        unlink(tmp);
        gk_cancel_forget(tmp);
    }
    free(tmp);
    if (!rc) { /* the old mosaic's parts, no longer used */
        for (char **f = p->old; f && *f; f++)
            if (strncmp(CPLGetFilename(*f), p->stem, strlen(p->stem)) && is_regular(*f))
                unlink(*f);
        release_lock(p);
    }
    return rc;
}

void gk_parts_abort(gk_parts *p, int nstrips)
{
    for (int k = 0; p->stem && p->lock && k < nstrips; k++) {
        char *name = gk_parts_name(p, k);
        if (name && is_regular(name))
            unlink(name);
        free(name);
    }
    release_lock(p);
    if (p->made_dir)
        rmdir(p->dir); /* only where empty */
}

void gk_parts_free(gk_parts *p)
{
    release_lock(p);
    CPLFree(p->dir);
    CPLFree(p->dst);
    CPLFree(p->stem);
    CSLDestroy(p->old);
    memset(p, 0, sizeof *p);
}
