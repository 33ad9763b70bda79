/* SPDX-License-Identifier: MIT */
/*
 * replace_output.c - replacing an existing output without losing it (see
 * replace_output.h).
 */
/* lstat() is POSIX, not C11 */
#define _XOPEN_SOURCE 700
#include "io/replace_output.h"
#include "io/cancel_cleanup.h"
#include "io/output_check.h"
#include "io/write_raster.h" /* gk_format_bytes */

#include <cpl_conv.h>
#include <cpl_string.h>
#include <cpl_vsi.h>
#include <gdal.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

char *gk_output_temp_name(const char *dst, const char *tag, const char *ext_override)
{
    const char *ext = CPLGetExtension(dst);
    size_t base_len = strlen(dst) - (*ext ? strlen(ext) + 1 : 0);
    const char *e = ext_override ? ext_override : ext;
    size_t len = base_len + strlen(tag) + strlen(e) + 64;
    char *out = malloc(len);
    if (!out)
        return NULL;
    snprintf(out, len, "%.*s.gridkit-tmp-%ld%s%s%s", (int)base_len, dst, (long)getpid(), tag,
             *e ? "." : "", e);
    return out;
}

int gk_output_aside(gk_context *ctx, const char *dst, char **aside)
{
    struct stat st;
    *aside = NULL;
    if (lstat(dst, &st) != 0)
        return GK_OK;
    /* only a regular file is renamed aside: something else may have taken
     * the name since the caller's checks (output_check.h) */
    if (!S_ISREG(st.st_mode))
        return gk_error(ctx, GK_ERR_IO, "cannot replace %s: it is no longer a regular file", dst);
    char *a = gk_output_temp_name(dst, "-old", NULL);
    if (!a)
        return gk_error(ctx, GK_ERR_NOMEM, "cannot replace %s: out of memory", dst);
    if (rename(dst, a) != 0) {
        int rc = gk_error(ctx, GK_ERR_IO, "cannot replace %s: %s", dst, strerror(errno));
        free(a);
        return rc;
    }
    *aside = a;
    return GK_OK;
}

void gk_output_restore(gk_context *ctx, const char *dst, const char *aside)
{
    if (aside && rename(aside, dst) != 0)
        gk_error(ctx, GK_ERR_IO,
                 "the new %s could not take its name, and the old one is now %s: %s", dst, aside,
                 strerror(errno));
}

const char *gk_output_disk_note(const char *path, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (!strncmp(path, "/vsi", 4))
        return buf;
    char *dir = CPLStrdup(CPLGetPath(path));
    struct statvfs vfs;
    if (statvfs(*dir ? dir : ".", &vfs) == 0) {
        /* root may write into the blocks reserved for it */
        double avail = (double)(geteuid() == 0 ? vfs.f_bfree : vfs.f_bavail) * vfs.f_frsize;
        if (avail < 1048576.0) {
            char have[32];
            gk_format_bytes(avail, have, sizeof have);
            char *where = realpath(*dir ? dir : ".", NULL);
            snprintf(buf, cap, "the disk holding %s is full (%s free)",
                     where  ? where
                     : *dir ? dir
                            : ".",
                     have);
            free(where);
        }
    }
    CPLFree(dir);
    return buf;
}

int gk_output_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

void gk_output_drop_old(const char *dst, const char *aside, char **old, char **now)
{
    if (!aside)
        return;
    VSIUnlink(aside);
    struct stat st;
    for (char **f = old; f && *f; f++) {
        int kept = strcmp(*f, dst) == 0 || CSLFindString(now, *f) >= 0;
        for (char **m = now; !kept && m && *m; m++)
            kept = gk_output_same_file(*f, *m);
        /* a side-car that is a link or a device is not ours to delete */
        if (!kept && lstat(*f, &st) == 0 && S_ISREG(st.st_mode))
            VSIUnlink(*f);
    }
}

int gk_output_commit_file(gk_context *ctx, const char *what, const char *tmp, const char *dst)
{
    struct stat st;
    int rc = GK_OK;
    gk_cancel_hold();
    if (lstat(dst, &st) == 0 && !S_ISREG(st.st_mode))
        rc = gk_error(ctx, GK_ERR_IO, "%s %s: cannot replace it, it is no longer a regular file",
                      what, dst);
    else if (rename(tmp, dst) != 0)
        rc = gk_error(ctx, GK_ERR_IO, "%s %s: cannot rename %s to it: %s", what, dst, tmp,
                      strerror(errno));
    if (rc != GK_OK)
        unlink(tmp);
    gk_cancel_forget(tmp);
    gk_cancel_release();
    return rc;
}

/* A file at our own temporary name is a dead process's with our pid (the
 * stale sweep skips our pid) when it is a regular file of ours; anything
 * else there (a link planted in /tmp) is left alone and refused. */
static int open_new(const char *tmp)
{
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    struct stat st;
    if (fd < 0 && errno == EEXIST && lstat(tmp, &st) == 0 && S_ISREG(st.st_mode) &&
        st.st_uid == geteuid() && unlink(tmp) == 0)
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    return fd;
}

static int claim_error(gk_context *ctx, const char *what, const char *dst, const char *tmp)
{
    int e = errno;
    return gk_error(ctx, GK_ERR_IO, "%s %s: cannot create %s: %s%s", what, dst, tmp, strerror(e),
                    e == EEXIST || e == ELOOP
                        ? " (something that is not a file of gridkit's has that name; "
                          "it is left as it is)"
                        : "");
}

int gk_output_claim(gk_context *ctx, const char *what, const char *dst, const char *tmp)
{
    int fd = open_new(tmp);
    if (fd < 0)
        return claim_error(ctx, what, dst, tmp);
    close(fd);
    return GK_OK;
}

void gk_output_settle(const char *tmp)
{
    int fd = open(tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
        close(fd);
}

FILE *gk_output_open_temp(gk_context *ctx, const char *what, const char *dst, const char *tmp)
{
    int fd = open_new(tmp);
    if (fd < 0) {
        claim_error(ctx, what, dst, tmp);
        return NULL;
    }
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        gk_error(ctx, GK_ERR_NOMEM, "%s %s: cannot open %s: %s", what, dst, tmp, strerror(errno));
        close(fd);
        unlink(tmp);
    }
    return f;
}

/* ---- a whole GDAL dataset ---------------------------------------------- */

/* The files of the dataset at name (a dataset GDAL knows lists its
 * side-cars: overviews, masks, .aux.xml), or name alone. */
static char **dataset_files(const char *name)
{
    char **files = NULL;
    CPLPushErrorHandler(CPLQuietErrorHandler);
    if (GDALIdentifyDriver(name, NULL)) {
        GDALDatasetH h = GDALOpenEx(name, GDAL_OF_RASTER | GDAL_OF_VECTOR, NULL, NULL, NULL);
        if (h) {
            files = GDALGetFileList(h);
            GDALClose(h);
        }
    }
    CPLPopErrorHandler();
    if (CSLFindString(files, name) < 0)
        files = CSLAddString(files, name);
    return files;
}

char **gk_output_old_files(const char *dst)
{
    char **files = dataset_files(dst);
    /* dst is a part of another file's dataset (a shapefile's .dbf): that
     * file and its other parts are not dst's to delete */
    if (files && strcmp(files[0], dst) && !gk_output_same_file(files[0], dst)) {
        CSLDestroy(files);
        files = CSLAddString(NULL, dst);
    }
    return files;
}

/* GDALRenameDataset's fallback (GDAL 3.6 opens only rasters to list the
 * files): every file of the new dataset to its name beside dst, the main
 * file first; a side-car that cannot follow is deleted. */
static int rename_files(gk_context *ctx, const char *tmp, const char *dst, char **made, char **now)
{
    if (rename(tmp, dst) != 0)
        return gk_error(ctx, GK_ERR_IO, "cannot rename %s to %s: %s", tmp, dst, strerror(errno));
    for (int i = 0; made && made[i] && now && now[i]; i++)
        if (strcmp(made[i], tmp) && rename(made[i], now[i]) != 0)
            VSIUnlink(made[i]);
    /* the PAM side-car, if any (listed only by drivers that know it) */
    char *from = CPLStrdup(CPLSPrintf("%s.aux.xml", tmp));
    char *to = CPLStrdup(CPLSPrintf("%s.aux.xml", dst));
    VSIStatBufL st;
    if (VSIStatL(from, &st) == 0 && rename(from, to) != 0)
        VSIUnlink(from);
    CPLFree(from);
    CPLFree(to);
    return GK_OK;
}

int gk_output_replace_dataset(gk_context *ctx, GDALDriverH driver, const char *tmp, const char *dst,
                              const gk_inputs *inputs)
{
    VSIStatBufL st;
    char **old = VSIStatL(dst, &st) == 0 ? gk_output_old_files(dst) : NULL;
    char **made = dataset_files(tmp);
    /* the new files' names once renamed (listed now: afterwards the old
     * side-cars would be listed as the new dataset's) */
    char **now = CPLCorrespondingPaths(tmp, dst, made);
    /* replacing deletes the old files, renaming replaces the names: no
     * input among either */
    for (char **f = old; f && *f; f++)
        if (gk_output_not_input(ctx, "output", dst, *f, inputs))
            goto refused;
    for (char **f = now; f && *f; f++)
        if (gk_output_not_input(ctx, "output", dst, *f, inputs))
            goto refused;
    char *aside = NULL;
    /* a cancel now would leave the old file aside and the new one unnamed */
    gk_cancel_hold();
    int rc = gk_output_aside(ctx, dst, &aside);
    CPLErrorReset();
    CPLPushErrorHandler(CPLQuietErrorHandler);
    CPLErr e = rc == GK_OK ? GDALRenameDataset(driver, dst, tmp) : CE_None;
    CPLPopErrorHandler();
    if (rc == GK_OK && e != CE_None && (rc = rename_files(ctx, tmp, dst, made, now)))
        gk_output_restore(ctx, dst, aside);
    if (rc == GK_OK)
        gk_output_drop_old(dst, aside, old, now);
    gk_cancel_release();
    free(aside);
    CSLDestroy(old);
    CSLDestroy(made);
    CSLDestroy(now);
    return rc;
refused:
    CSLDestroy(old);
    CSLDestroy(made);
    CSLDestroy(now);
    return gk_errno(ctx);
}

void gk_output_delete_quietly(GDALDriverH drv, const char *name)
{
    if (!name)
        return;
    VSIStatBufL st;
    CPLPushErrorHandler(CPLQuietErrorHandler);
    if (VSIStatL(name, &st) == 0 && GDALDeleteDataset(drv, name) != CE_None)
        VSIUnlink(name);
    /* side-cars a failed Create may leave */
    char *aux = malloc(strlen(name) + 9);
    if (aux) {
        sprintf(aux, "%s.aux.xml", name);
        if (VSIStatL(aux, &st) == 0)
            VSIUnlink(aux);
        free(aux);
    }
    CPLPopErrorHandler();
}
