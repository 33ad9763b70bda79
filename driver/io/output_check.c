/* SPDX-License-Identifier: MIT */
/*
 * output_check.c - an output name checked before any work (see
 * output_check.h).
 */
/* realpath() is XSI */
#define _XOPEN_SOURCE 700
#include "io/output_check.h"
#include "io/input_files.h"
#include "io/stale_temps.h"

#include <cpl_conv.h>
#include <cpl_string.h>
#include <errno.h>
#include <gdal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int gk_output_same_name(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char *ca = gk_canonical_path(a), *cb = gk_canonical_path(b);
    int same = ca && cb && strcmp(ca, cb) == 0;
    free(ca);
    free(cb);
    return same;
}

int gk_output_not_input(gk_context *ctx, const char *what, const char *dst, const char *path,
                        const gk_inputs *inputs)
{
    const char *file = NULL;
    const char *in = gk_inputs_owner(inputs, path, &file);
    if (!in)
        return GK_OK;
    const int via = strcmp(path, dst) != 0; /* a link's target, a side-car */
    if (!via && !strcmp(file, in) && !strcmp(file, dst))
        return gk_error(ctx, GK_ERR_ARG, "refusing to overwrite input %s (%s %s): write elsewhere",
                        in, what, dst);
    return gk_error(ctx, GK_ERR_ARG,
                    "refusing to overwrite input %s (%s %s%s%s is %s%s): write elsewhere", in, what,
                    dst, via ? " -> " : "", via ? path : "",
                    !strcmp(file, via ? path : dst) ? "one of its files" : "its file ",
                    !strcmp(file, via ? path : dst) ? "" : file);
}

int gk_output_driver_writes_files(GDALDriverH d)
{
    const char *name = GDALGetDriverShortName(d);
    return !EQUAL(name, "MEM") && !EQUAL(name, "Memory") &&
           !GDALGetMetadataItem(d, GDAL_DMD_CONNECTION_PREFIX, NULL);
}

static const char *kind_of(mode_t m)
{
    return S_ISCHR(m)    ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISFIFO(m) ? "a FIFO (named pipe)"
           : S_ISSOCK(m) ? "a socket"
           : S_ISDIR(m)  ? "a directory"
                         : "not a regular file";
}

char *gk_output_prepare(gk_context *ctx, const char *what, const char *dst, const gk_inputs *inputs)
{
    if (!dst || !*dst) {
        gk_error(ctx, GK_ERR_ARG, "%s: no file name", what);
        return NULL;
    }
    /* a link's target too: stat() follows it */
    if (gk_output_not_input(ctx, what, dst, dst, inputs))
        return NULL;
    /* every output is a temporary renamed when complete, through the file
     * system: a virtual one (/vsimem/, /vsis3/, ...) has no such rename */
    if (!strncmp(dst, "/vsi", 4)) {
        gk_error(ctx, GK_ERR_UNSUPPORTED,
                 "%s %s: GDAL's virtual file systems (/vsi...) are not written by gridkit, which "
                 "writes a temporary file and renames it when complete; write a file, then copy it "
                 "(gdal_translate, ogr2ogr or the storage's own tool)",
                 what, dst);
        return NULL;
    }

    struct stat st;
    char *path = NULL;
    if (lstat(dst, &st) == 0 && S_ISLNK(st.st_mode)) {
        path = realpath(dst, NULL);
        if (!path) {
            gk_error(ctx, GK_ERR_IO,
                     "%s %s is a symbolic link whose target cannot be reached (%s); "
                     "gridkit writes through a link only to an existing file",
                     what, dst, strerror(errno));
            return NULL;
        }
        if (lstat(path, &st) != 0)
            st.st_mode = S_IFREG;
    } else {
        path = strdup(dst);
        if (!path) {
            gk_error(ctx, GK_ERR_NOMEM, "%s %s: out of memory", what, dst);
            return NULL;
        }
        if (lstat(dst, &st) != 0)
            st.st_mode = S_IFREG; /* a new file */
    }
    if (!S_ISREG(st.st_mode)) {
        if (strcmp(path, dst))
            gk_error(ctx, GK_ERR_ARG,
                     "%s %s links to %s, which is %s; gridkit writes only regular files", what, dst,
                     path, kind_of(st.st_mode));
        else
            gk_error(ctx, GK_ERR_ARG, "%s %s is %s; gridkit writes only regular files", what, dst,
                     kind_of(st.st_mode));
        free(path);
        return NULL;
    }
    gk_output_clear_stale(path);
    return path;
}
