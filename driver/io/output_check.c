/*
 * output_check.c - an output name checked before any work (see
 * output_check.h).
 */
/* realpath() is XSI */
#define _XOPEN_SOURCE 700
#include "io/output_check.h"
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

/* Canonical spelling of a name that may not exist yet: realpath of the file,
 * else realpath of its directory + base name, else the name itself. */
static char *canonical(const char *name)
{
    char *r = realpath(name, NULL);
    if (r)
        return r;
    const char *path = CPLGetPath(name);
    char *rd = realpath(*path ? path : ".", NULL);
    if (!rd)
        return strdup(name);
    const char *base = CPLGetFilename(name);
    size_t len = strlen(rd) + strlen(base) + 2;
    char *out = malloc(len);
    if (out)
        snprintf(out, len, "%s/%s", rd, base);
    free(rd);
    return out;
}

int gk_output_same_name(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char *ca = canonical(a), *cb = canonical(b);
    int same = ca && cb && strcmp(ca, cb) == 0;
    free(ca);
    free(cb);
    return same;
}

/* dst is a file of the dataset in (its side-cars: .dbf, .prj, .aux.xml,
 * .csvt), looked up only when they share directory and stem, which keeps
 * the usual case free of another open of the input. */
static int in_dataset(const char *dst, const char *in)
{
    struct stat st;
    if (stat(dst, &st) != 0) /* a file yet to be made is no input's */
        return 0;
    char *a = CPLStrdup(CPLResetExtension(dst, ""));
    char *b = CPLStrdup(CPLResetExtension(in, ""));
    int related = strcmp(a, b) == 0 || !strncmp(dst, in, strlen(in)); /* x.tif.aux.xml */
    CPLFree(a);
    CPLFree(b);
    if (!related)
        return 0;
    CPLPushErrorHandler(CPLQuietErrorHandler);
    GDALDatasetH ds = GDALOpenEx(in, GDAL_OF_READONLY, NULL, NULL, NULL);
    CPLPopErrorHandler();
    if (!ds)
        return 0;
    char **files = GDALGetFileList(ds);
    int hit = 0;
    for (char **f = files; f && *f && !hit; f++)
        hit = gk_output_same_name(dst, *f);
    CSLDestroy(files);
    GDALClose(ds);
    return hit;
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

char *gk_output_prepare(gk_context *ctx, const char *what, const char *dst,
                        const char *const *inputs, int n_inputs)
{
    if (!dst || !*dst) {
        gk_error(ctx, GK_ERR_ARG, "%s: no file name", what);
        return NULL;
    }
    for (int i = 0; i < n_inputs; i++)
        if (inputs[i] && *inputs[i] &&
            (gk_output_same_name(dst, inputs[i]) || in_dataset(dst, inputs[i]))) {
            gk_error(ctx, GK_ERR_ARG, "refusing to overwrite input %s (%s %s): write elsewhere",
                     inputs[i], what, dst);
            return NULL;
        }
    if (!strncmp(dst, "/vsi", 4))
        return strdup(dst);

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
        /* the target may be an input under another name */
        for (int i = 0; i < n_inputs; i++)
            if (inputs[i] && *inputs[i] && in_dataset(path, inputs[i])) {
                gk_error(ctx, GK_ERR_ARG, "refusing to overwrite input %s (%s %s -> %s)",
                         inputs[i], what, dst, path);
                free(path);
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
                     "%s %s links to %s, which is %s; gridkit writes only regular files", what,
                     dst, path, kind_of(st.st_mode));
        else
            gk_error(ctx, GK_ERR_ARG, "%s %s is %s; gridkit writes only regular files", what,
                     dst, kind_of(st.st_mode));
        free(path);
        return NULL;
    }
    gk_output_clear_stale(path);
    return path;
}
