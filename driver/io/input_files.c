/* SPDX-License-Identifier: MIT */
/*
 * input_files.c - the files an input stands for (see input_files.h).
 */
/* realpath() is XSI */
#define _XOPEN_SOURCE 700
#include "io/input_files.h"

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <ctype.h>
#include <gdal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    char *input; /* as the user spelt it */
    char *file;  /* as GDAL or the archive named it */
    int has_id;  /* the file exists: dev and ino; else canon */
    dev_t dev;
    ino_t ino;
    char *canon;
} entry;

struct gk_inputs {
    entry *e;
    size_t n, cap;
};

/* How deep a VRT's sources are followed (a VRT of VRTs of files). */
#define GK_INPUTS_DEPTH 4

char *gk_canonical_path(const char *name)
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

gk_inputs *gk_inputs_new(void) { return calloc(1, sizeof(gk_inputs)); }

void gk_inputs_free(gk_inputs *in)
{
    if (!in)
        return;
    for (size_t i = 0; i < in->n; i++) {
        free(in->e[i].input);
        free(in->e[i].file);
        free(in->e[i].canon);
    }
    free(in->e);
    free(in);
}

/* One file of input; 1 when it was new, 0 when known, -1 out of memory. */
static int add_entry(gk_inputs *in, const char *input, const char *file)
{
    entry e = {0};
    struct stat st;
    if (strncmp(file, "/vsi", 4) && stat(file, &st) == 0) {
        e.has_id = 1, e.dev = st.st_dev, e.ino = st.st_ino;
        for (size_t i = 0; i < in->n; i++)
            if (in->e[i].has_id && in->e[i].dev == e.dev && in->e[i].ino == e.ino)
                return 0;
    } else {
        if (!(e.canon = gk_canonical_path(file)))
            return -1;
        for (size_t i = 0; i < in->n; i++)
            if (!in->e[i].has_id && !strcmp(in->e[i].canon, e.canon)) {
                free(e.canon);
                return 0;
            }
    }
    if (in->n == in->cap) {
        size_t cap = in->cap ? 2 * in->cap : 16;
        entry *ne = realloc(in->e, cap * sizeof *ne);
        if (!ne) {
            free(e.canon);
            return -1;
        }
        in->e = ne, in->cap = cap;
    }
    e.input = strdup(input);
    e.file = strdup(file);
    if (!e.input || !e.file) {
        free(e.input), free(e.file), free(e.canon);
        return -1;
    }
    in->e[in->n++] = e;
    return 1;
}

static int is_regular(const char *name)
{
    struct stat st;
    return stat(name, &st) == 0 && S_ISREG(st.st_mode);
}

/* Virtual file systems whose files live inside a local file. */
static const char *const archives[] = {"/vsizip/", "/vsitar/", "/vsigzip/",
                                       "/vsi7z/",  "/vsirar/", "/vsisubfile/"};

static int add_name(gk_inputs *in, const char *input, const char *name, int depth);

/* The local file that rest begins with (an archive's path followed by the
 * member's), added; nothing when there is none. */
static int add_container(gk_inputs *in, const char *input, const char *rest, int depth)
{
    if (*rest == '{') { /* /vsizip/{/path/with.zip}/member */
        const char *close = strchr(rest, '}');
        if (!close)
            return 0;
        char *inner = CPLStrdup(CPLSPrintf("%.*s", (int)(close - rest - 1), rest + 1));
        int r = add_name(in, input, inner, depth + 1);
        CPLFree(inner);
        return r;
    }
    if (!strncmp(rest, "/vsi", 4)) /* nested: /vsizip//vsigzip/... */
        return add_name(in, input, rest, depth + 1);
    char *buf = CPLStrdup(rest);
    int r = 0;
    for (;;) {
        if (is_regular(buf)) {
            r = add_entry(in, input, buf);
            break;
        }
        char *slash = strrchr(buf, '/');
        if (!slash || slash == buf)
            break;
        *slash = '\0';
    }
    CPLFree(buf);
    return r;
}

/* "GPKG:a.gpkg:layer", "CSV:pts.csv": the prefix's length (with the colon),
 * 0 for none. One letter before the colon is a Windows drive, not a driver. */
static size_t driver_prefix(const char *name)
{
    size_t k = 0;
    while (isalnum((unsigned char)name[k]) || name[k] == '_')
        k++;
    return k > 1 && name[k] == ':' && isalpha((unsigned char)name[0]) ? k + 1 : 0;
}

/* The files name stands for without opening it: itself, the archive it is
 * inside, the file behind a driver prefix. New entries: > 0. */
static int add_name(gk_inputs *in, const char *input, const char *name, int depth)
{
    if (depth > 8 || !*name)
        return 0;
    if (!strncmp(name, "/vsimem/", 8))
        return add_entry(in, input, name);
    for (size_t a = 0; a < sizeof archives / sizeof *archives; a++) {
        size_t len = strlen(archives[a]);
        if (strncmp(name, archives[a], len))
            continue;
        const char *rest = name + len;
        if (!strcmp(archives[a], "/vsisubfile/")) { /* /vsisubfile/offset_size,file */
            const char *comma = strchr(rest, ',');
            if (!comma)
                return 0;
            rest = comma + 1;
        }
        return add_container(in, input, rest, depth);
    }
    if (!strncmp(name, "/vsi", 4)) /* a remote or streamed file: nothing local */
        return 0;
    struct stat st;
    if (stat(name, &st) == 0)
        return add_entry(in, input, name);
    size_t pre = driver_prefix(name);
    if (pre) {
        /* GPKG:a.gpkg:layer -> a.gpkg; the name may be quoted */
        char *buf = CPLStrdup(name + pre);
        size_t len = strlen(buf);
        if (len >= 2 && buf[0] == '"') {
            char *q = strchr(buf + 1, '"');
            if (q) {
                *q = '\0';
                memmove(buf, buf + 1, strlen(buf + 1) + 1);
            }
        }
        int r = 0;
        for (;;) {
            if (!strncmp(buf, "/vsi", 4) || stat(buf, &st) == 0 || driver_prefix(buf)) {
                r = add_name(in, input, buf, depth + 1);
                if (r)
                    break;
            }
            char *colon = strrchr(buf, ':');
            if (!colon)
                break;
            *colon = '\0';
        }
        CPLFree(buf);
        if (r)
            return r;
    }
    return add_entry(in, input, name); /* no such file (yet): by its canonical path */
}

/* f is a side-car of ds (same directory and stem, or ds's name and more:
 * x.tif.aux.xml): not a dataset to follow. */
static int is_sidecar(const char *ds, const char *f)
{
    if (!strncmp(f, ds, strlen(ds)))
        return 1;
    char *a = CPLStrdup(CPLResetExtension(ds, ""));
    char *b = CPLStrdup(CPLResetExtension(f, ""));
    int same = !strcmp(a, b);
    CPLFree(a);
    CPLFree(b);
    return same;
}

/* Side-cars that drivers read beside a file without always listing them
 * (GDAL 3.6's CSV lists no .csvt, GML no .xsd or .gfs): replacing one
 * changes what the input reads. */
static const char *const stem_sidecars[] = {"csvt", "prj", "xsd", "gfs", "cpg",
                                            "qix",  "shx", "dbf", "sbn", "sbx"};
static const char *const name_sidecars[] = {".aux.xml", ".ovr", ".msk"};

static int add_sidecars(gk_inputs *in, const char *input, const char *name)
{
    if (!strncmp(name, "/vsi", 4) || !is_regular(name))
        return GK_OK;
    for (size_t i = 0; i < sizeof stem_sidecars / sizeof *stem_sidecars; i++) {
        const char *f = CPLResetExtension(name, stem_sidecars[i]);
        if (is_regular(f) && add_entry(in, input, f) < 0)
            return GK_ERR_NOMEM;
    }
    for (size_t i = 0; i < sizeof name_sidecars / sizeof *name_sidecars; i++) {
        const char *f = CPLSPrintf("%s%s", name, name_sidecars[i]);
        if (is_regular(f) && add_entry(in, input, f) < 0)
            return GK_ERR_NOMEM;
    }
    return GK_OK;
}

/* Every file of the dataset GDAL opens from name (as a vector, else as a
 * raster: a CSV opened as both lists nothing); the datasets among them (a
 * VRT's sources) followed. */
static int add_dataset(gk_inputs *in, const char *input, const char *name, char **open_options,
                       int depth)
{
    if (depth > GK_INPUTS_DEPTH)
        return GK_OK;
    CPLPushErrorHandler(CPLQuietErrorHandler);
    GDALDatasetH ds = GDALOpenEx(name, GDAL_OF_VECTOR | GDAL_OF_READONLY, NULL,
                                 (const char *const *)open_options, NULL);
    if (!ds)
        ds = GDALOpenEx(name, GDAL_OF_RASTER | GDAL_OF_READONLY, NULL,
                        (const char *const *)open_options, NULL);
    char **files = ds ? GDALGetFileList(ds) : NULL;
    if (ds)
        GDALClose(ds);
    CPLPopErrorHandler();
    CPLErrorReset();
    int rc = add_sidecars(in, input, name);
    for (char **f = files; f && *f && rc == GK_OK; f++) {
        int r = add_name(in, input, *f, 0);
        if (r < 0)
            rc = GK_ERR_NOMEM;
        else if (r > 0 && strcmp(*f, name) && !is_sidecar(name, *f))
            rc = add_dataset(in, input, *f, NULL, depth + 1);
    }
    CSLDestroy(files);
    return rc;
}

/* A remote or streamed source (/vsicurl/, /vsis3/, /vsistdin/, a URL):
 * no local file is in it, and opening it again costs a download. */
static int is_remote(const char *name)
{
    if (strstr(name, "://"))
        return 1;
    if (strncmp(name, "/vsi", 4) || !strncmp(name, "/vsimem/", 8))
        return 0;
    for (size_t a = 0; a < sizeof archives / sizeof *archives; a++)
        if (!strncmp(name, archives[a], strlen(archives[a])))
            return is_remote(name + strlen(archives[a]));
    return 1;
}

int gk_inputs_add(gk_inputs *in, const char *name, char **open_options)
{
    if (!in || !name || !*name || is_remote(name))
        return GK_OK;
    size_t before = in->n;
    if (add_name(in, name, name, 0) < 0)
        return GK_ERR_NOMEM;
    size_t named = in->n;
    if (GDALGetDriverCount() == 0)
        GDALAllRegister();
    int rc = add_dataset(in, name, name, open_options, 0);
    /* a name GDAL lists no files for (CSV:pts.csv) or that is inside an
     * archive: the side-cars of the file behind it */
    for (size_t i = before; rc == GK_OK && i < named; i++)
        if (strcmp(in->e[i].file, name) && in->e[i].has_id)
            rc = add_dataset(in, name, in->e[i].file, NULL, 1);
    return rc;
}

int gk_inputs_add_file(gk_inputs *in, const char *name)
{
    if (!in || !name || !*name)
        return GK_OK;
    return add_name(in, name, name, 0) < 0 ? GK_ERR_NOMEM : GK_OK;
}

const char *gk_inputs_owner(const gk_inputs *in, const char *path, const char **file)
{
    if (!in || !path)
        return NULL;
    struct stat st;
    const entry *hit = NULL;
    if (strncmp(path, "/vsi", 4) && stat(path, &st) == 0) {
        for (size_t i = 0; i < in->n && !hit; i++)
            if (in->e[i].has_id && in->e[i].dev == st.st_dev && in->e[i].ino == st.st_ino)
                hit = &in->e[i];
    } else {
        char *c = gk_canonical_path(path);
        for (size_t i = 0; c && i < in->n && !hit; i++)
            if (!in->e[i].has_id && !strcmp(in->e[i].canon, c))
                hit = &in->e[i];
        free(c);
    }
    if (hit && file)
        *file = hit->file;
    return hit ? hit->input : NULL;
}
