/* SPDX-License-Identifier: MIT */
/*
 * write_vector.c - a vector output written safely (see write_vector.h).
 *
 * Life of an output: driver and name checked, the old dataset's files
 * listed (replacing it deletes them: none may be an input) -> the
 * temporary "<stem>.gridkit-tmp-<pid><.ext>" created -> the caller's layer
 * -> closed, read back -> every "<tmp stem>.*" checked against the inputs,
 * old dst aside, renamed in, old files deleted (replace_output.h).
 */
#define _XOPEN_SOURCE 700
#include "io/write_vector.h"
#include "io/cancel_cleanup.h"
#include "io/output_check.h"
#include "io/replace_output.h"

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <cpl_vsi.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The date drivers stamp into files (GeoPackage's gpkg_contents.last_change)
 * when the user sets none: a fixed one, so that the same input gives the
 * same bytes. */
#define GK_VECTOR_DATE "1970-01-01T00:00:00.000Z"

/* GDAL's messages while the output is open: the temporary's names put
 * back to the destination's, failures kept for our own message. */
typedef struct {
    char tmp[1024], dst[1024];   /* paths */
    char tmp_f[512], dst_f[512]; /* file names */
    char tmp_s[512], dst_s[512]; /* stems (a CSV's layer is named so) */
    char last[2048];             /* the last failure, renamed */
    int n_fail;
} msg_names;

struct gk_vector_out {
    gk_context *ctx;
    const char *what;
    const gk_inputs *inputs;
    GDALDriverH driver;
    GDALDatasetH ds;
    char *dst; /* the file to replace (a link's target) */
    char *tmp;
    char **old_files; /* the files of the dataset now at dst */
    char *date_before;
    int date_pinned, pushed;
    msg_names names;
};

/* ---- messages ------------------------------------------------------------- */

static void replace_in(char *buf, size_t cap, const char *from, const char *to)
{
    size_t fl = strlen(from), tl = strlen(to);
    if (!fl)
        return;
    for (char *p = strstr(buf, from); p; p = strstr(p + tl, from)) {
        size_t rest = strlen(p + fl);
        if ((size_t)(p - buf) + tl + rest + 1 > cap)
            return;
        memmove(p + tl, p + fl, rest + 1);
        memcpy(p, to, tl);
    }
}

static void rename_msg(const msg_names *m, const char *msg, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", msg ? msg : "");
    replace_in(buf, cap, m->tmp, m->dst);
    replace_in(buf, cap, m->tmp_f, m->dst_f);
    replace_in(buf, cap, m->tmp_s, m->dst_s);
}

static void CPL_STDCALL on_gdal_message(CPLErr cls, CPLErrorNum no, const char *msg)
{
    msg_names *m = CPLGetErrorHandlerUserData();
    char buf[2048];
    rename_msg(m, msg, buf, sizeof buf);
    if (cls >= CE_Failure) {
        snprintf(m->last, sizeof m->last, "%s", buf);
        m->n_fail++;
        return;
    }
    CPLDefaultErrorHandler(cls, no, buf);
}

static void set_names(msg_names *m, const char *tmp, const char *dst)
{
    memset(m, 0, sizeof *m);
    snprintf(m->tmp, sizeof m->tmp, "%s", tmp);
    snprintf(m->dst, sizeof m->dst, "%s", dst);
    snprintf(m->tmp_f, sizeof m->tmp_f, "%s", CPLGetFilename(tmp));
    snprintf(m->dst_f, sizeof m->dst_f, "%s", CPLGetFilename(dst));
    snprintf(m->tmp_s, sizeof m->tmp_s, "%s", CPLGetBasename(tmp));
    snprintf(m->dst_s, sizeof m->dst_s, "%s", CPLGetBasename(dst));
}

const char *gk_vector_out_reason(const gk_vector_out *v, char *buf, size_t cap)
{
    char gdal[2048], disk[600];
    gdal[0] = '\0';
    if (v->names.n_fail)
        snprintf(gdal, sizeof gdal, "%s", v->names.last);
    else if (CPLGetLastErrorType() >= CE_Failure)
        rename_msg(&v->names, CPLGetLastErrorMsg(), gdal, sizeof gdal);
    gk_output_disk_note(v->dst, disk, sizeof disk);
    /* a driver's words on a full disk ("no such table") are no reason */
    if (*disk)
        snprintf(buf, cap, ": %s%s%s%s", disk, *gdal ? " (GDAL: " : "", gdal, *gdal ? ")" : "");
    else
        snprintf(buf, cap, "%s%s", *gdal ? ": " : "", gdal);
    return buf;
}

/* ---- the driver ------------------------------------------------------------- */

static int creates_vectors(GDALDriverH d)
{
    return d && GDALGetMetadataItem(d, GDAL_DCAP_VECTOR, NULL) &&
           GDALGetMetadataItem(d, GDAL_DCAP_CREATE, NULL);
}

static int lists_extension(GDALDriverH d, const char *ext)
{
    const char *exts = GDALGetMetadataItem(d, GDAL_DMD_EXTENSIONS, NULL);
    if (!exts)
        exts = GDALGetMetadataItem(d, GDAL_DMD_EXTENSION, NULL);
    char **list = exts ? CSLTokenizeString(exts) : NULL;
    int hit = CSLFindString(list, ext) >= 0;
    CSLDestroy(list);
    return hit;
}

static GDALDriverH choose_driver(gk_context *ctx, const char *what, const char *dst,
                                 const char *format)
{
    const char *ext = CPLGetExtension(dst);
    GDALDriverH d = NULL;
    if (format) {
        d = GDALGetDriverByName(format);
        if (!d) {
            gk_error(ctx, GK_ERR_ARG,
                     "-of %s: GDAL has no such driver (ogrinfo --formats lists them)", format);
            return NULL;
        }
    } else if (!*ext) {
        d = GDALGetDriverByName("GPKG");
    } else {
        for (int i = 0; i < GDALGetDriverCount() && !d; i++)
            if (creates_vectors(GDALGetDriver(i)) && lists_extension(GDALGetDriver(i), ext))
                d = GDALGetDriver(i);
        if (!d) {
            gk_error(ctx, GK_ERR_ARG,
                     "%s %s: no vector driver of this GDAL writes '.%s' files; name it .gpkg, "
                     ".shp, .geojson, .fgb, .csv, .kml or .gml, or give -of",
                     what, dst, ext);
            return NULL;
        }
    }
    if (!d) {
        gk_error(ctx, GK_ERR_UNSUPPORTED, "this GDAL has no GPKG driver: give -of");
        return NULL;
    }
    const char *name = GDALGetDriverShortName(d);
    if (!creates_vectors(d)) {
        gk_error(ctx, GK_ERR_ARG,
                 "-of %s: not an OGR vector driver that creates files (e.g. GPKG, \"ESRI "
                 "Shapefile\", FlatGeobuf, GeoJSON)",
                 name);
        return NULL;
    }
    if (!gk_output_driver_writes_files(d)) {
        gk_error(ctx, GK_ERR_ARG,
                 "-of %s: this driver writes no file, and gridkit writes its output to a file "
                 "(e.g. GPKG, FlatGeobuf, GeoJSON)",
                 name);
        return NULL;
    }
    /* a write-only format (PGDUMP) would fail the read back at commit,
     * after all the work */
    if (!GDALGetMetadataItem(d, GDAL_DCAP_OPEN, NULL)) {
        gk_error(ctx, GK_ERR_ARG,
                 "-of %s: GDAL cannot read this format back, and gridkit reads every output "
                 "back before it takes its name (e.g. GPKG, FlatGeobuf, GeoJSON)",
                 name);
        return NULL;
    }
    if (EQUAL(name, "ESRI Shapefile") && !EQUAL(ext, "shp")) {
        gk_error(ctx, GK_ERR_ARG,
                 "%s %s: a shapefile's name must end in .shp (else GDAL makes a folder)", what,
                 dst);
        return NULL;
    }
    return d;
}

/* ---- open ------------------------------------------------------------------- */

static void pop_messages(gk_vector_out *v)
{
    if (v->pushed)
        CPLPopErrorHandler();
    v->pushed = 0;
}

static void out_free(gk_vector_out *v)
{
    if (!v)
        return;
    pop_messages(v);
    if (v->date_pinned)
        CPLSetThreadLocalConfigOption("OGR_CURRENT_DATE", v->date_before);
    CPLFree(v->date_before);
    gk_cancel_forget(v->tmp);
    CSLDestroy(v->old_files);
    free(v->dst);
    free(v->tmp);
    free(v);
}

/* GeoPackage's dates from OGR_CURRENT_DATE: ours for this thread while the
 * file is written, unless the user set one. */
static void pin_date(gk_vector_out *v)
{
    if (CPLGetConfigOption("OGR_CURRENT_DATE", NULL))
        return;
    const char *before = CPLGetThreadLocalConfigOption("OGR_CURRENT_DATE", NULL);
    v->date_before = before ? CPLStrdup(before) : NULL;
    CPLSetThreadLocalConfigOption("OGR_CURRENT_DATE", GK_VECTOR_DATE);
    v->date_pinned = 1;
}

/* The files of the dataset at dst (replacing it deletes them), none an
 * input. */
static int list_old(gk_vector_out *v)
{
    VSIStatBufL st;
    if (VSIStatL(v->dst, &st) != 0)
        return GK_OK;
    v->old_files = gk_output_old_files(v->dst);
    for (char **f = v->old_files; *f; f++)
        if (gk_output_not_input(v->ctx, v->what, v->dst, *f, v->inputs))
            return gk_errno(v->ctx);
    return GK_OK;
}

gk_vector_out *gk_vector_out_open(gk_context *ctx, const char *what, const char *dst,
                                  const char *format, const gk_inputs *inputs)
{
    if (!dst || !*dst) {
        gk_error(ctx, GK_ERR_ARG, "%s: no file name", what);
        return NULL;
    }
    if (GDALGetDriverCount() == 0)
        GDALAllRegister();
    /* an input first: the most important thing to say */
    if (gk_output_not_input(ctx, what, dst, dst, inputs))
        return NULL;
    GDALDriverH drv = choose_driver(ctx, what, dst, format);
    if (!drv)
        return NULL;
    char *path = gk_output_prepare(ctx, what, dst, inputs);
    if (!path)
        return NULL;
    gk_vector_out *v = calloc(1, sizeof *v);
    if (!v || !(v->tmp = gk_output_temp_name(path, "", NULL))) {
        gk_error(ctx, GK_ERR_NOMEM, "out of memory opening %s", dst);
        free(path);
        out_free(v);
        return NULL;
    }
    v->ctx = ctx, v->what = what, v->inputs = inputs, v->driver = drv, v->dst = path;
    if (list_old(v)) {
        out_free(v);
        return NULL;
    }
    /* watched before it exists: a signal the moment it is made removes it.
     * Claimed as a new regular file (no planted link written through), then
     * given back to the driver, which may refuse to create over a file. */
    gk_cancel_watch(v->tmp);
    if (gk_output_claim(ctx, what, dst, v->tmp) != GK_OK) {
        gk_cancel_forget(v->tmp);
        free(v->tmp);
        v->tmp = NULL;
        out_free(v);
        return NULL;
    }
    unlink(v->tmp);
    pin_date(v);
    set_names(&v->names, v->tmp, v->dst);
    CPLPushErrorHandlerEx(on_gdal_message, &v->names);
    v->pushed = 1;
    CPLErrorReset();
    v->ds = GDALCreate(drv, v->tmp, 0, 0, 0, GDT_Unknown, NULL);
    char why[1400];
    if (!v->ds) {
        gk_error(ctx, GK_ERR_IO, "cannot create %s%s", dst,
                 gk_vector_out_reason(v, why, sizeof why));
        gk_vector_out_abort(v);
        return NULL;
    }
    /* a folder (OpenFileGDB, MVT): not a file gridkit can replace whole */
    struct stat st;
    if (lstat(v->tmp, &st) == 0 && S_ISDIR(st.st_mode)) {
        gk_error(ctx, GK_ERR_ARG,
                 "%s %s: the %s driver writes a folder, and gridkit replaces only files; choose "
                 "a format that writes one file (GPKG, FlatGeobuf, GeoJSON, ...)",
                 what, dst, GDALGetDriverShortName(drv));
        gk_vector_out_abort(v);
        return NULL;
    }
    return v;
}

GDALDatasetH gk_vector_out_dataset(const gk_vector_out *v) { return v->ds; }

const char *gk_vector_out_path(const gk_vector_out *v) { return v->dst; }

gk_context *gk_vector_out_context(const gk_vector_out *v) { return v->ctx; }

const char *gk_vector_out_driver(const gk_vector_out *v)
{
    return GDALGetDriverShortName(v->driver);
}

OGRLayerH gk_vector_out_layer(gk_vector_out *v, const char *name, OGRSpatialReferenceH srs,
                              OGRwkbGeometryType type, char **options)
{
    CPLErrorReset();
    v->names.n_fail = 0;
    OGRLayerH l = GDALDatasetCreateLayer(v->ds, name, srs, type, options);
    if (!l) {
        char why[1400];
        gk_error(v->ctx, GK_ERR_IO, "%s %s: cannot create the layer %s%s", v->what, v->dst, name,
                 gk_vector_out_reason(v, why, sizeof why));
    }
    return l;
}

/* ---- commit ----------------------------------------------------------------- */

/* The last feature read back agrees with what was written: its integer and
 * string fields (real ones are rounded by text formats), its vertex count. */
static int same_feature(OGRFeatureH got, OGRFeatureH want)
{
    OGRFeatureDefnH wd = OGR_F_GetDefnRef(want), gd = OGR_F_GetDefnRef(got);
    for (int i = 0; i < OGR_FD_GetFieldCount(wd); i++) {
        OGRFieldDefnH f = OGR_FD_GetFieldDefn(wd, i);
        OGRFieldType t = OGR_Fld_GetType(f);
        if (t != OFTInteger && t != OFTInteger64 && t != OFTString)
            continue;
        int j = OGR_FD_GetFieldIndex(gd, OGR_Fld_GetNameRef(f));
        if (j < 0) /* a format that cannot hold the field */
            continue;
        int ws = OGR_F_IsFieldSetAndNotNull(want, i), gs = OGR_F_IsFieldSetAndNotNull(got, j);
        if (ws != gs)
            return 0;
        if (ws && strcmp(OGR_F_GetFieldAsString(want, i), OGR_F_GetFieldAsString(got, j)))
            return 0;
    }
    OGRGeometryH wg = OGR_F_GetGeometryRef(want), gg = OGR_F_GetGeometryRef(got);
    if (wg && gg && OGR_G_GetPointCount(wg) != OGR_G_GetPointCount(gg))
        return 0;
    return 1;
}

/* The file at tmp holds the layer as written. Drivers that write through
 * SQLite (GPKG) report every failed write; the others (GeoJSON, CSV, KML,
 * GML, ...) may lose the end of a file on a full disk and say nothing, so
 * their file is read back. */
static int verify(gk_vector_out *v, GIntBig n_features, OGRFeatureH last, int transactional)
{
    if (transactional)
        return GK_OK;
    char why[1400];
    v->names.n_fail = 0;
    CPLErrorReset();
    GDALDatasetH ds = GDALOpenEx(v->tmp, GDAL_OF_VECTOR | GDAL_OF_READONLY, NULL, NULL, NULL);
    OGRLayerH l = ds && GDALDatasetGetLayerCount(ds) > 0 ? GDALDatasetGetLayer(ds, 0) : NULL;
    if (!l) {
        int rc = gk_error(v->ctx, GK_ERR_IO, "%s %s: the file written cannot be read back%s",
                          v->what, v->dst, gk_vector_out_reason(v, why, sizeof why));
        if (ds)
            GDALClose(ds);
        return rc;
    }
    /* every feature counted; the last one written found among them (a
     * format with a spatial index, FlatGeobuf, keeps its own order) */
    GIntBig n = 0;
    int found = !last;
    OGRFeatureH f;
    while ((f = OGR_L_GetNextFeature(l))) {
        n++;
        found = found || same_feature(f, last);
        OGR_F_Destroy(f);
    }
    int ok = n == n_features && !v->names.n_fail && found;
    GDALClose(ds);
    if (ok)
        return GK_OK;
    return gk_error(v->ctx, GK_ERR_IO,
                    "%s %s: the file written is incomplete (%lld of %lld features read back%s)%s",
                    v->what, v->dst, (long long)n, (long long)n_features,
                    n == n_features ? ", the last one written not among them" : "",
                    gk_vector_out_reason(v, why, sizeof why));
}

/* Every file of the temporary dataset, side-cars included ("<tmp stem>.*":
 * a shapefile's .prj is not always in its file list, GML's .xsd never),
 * and the name each takes beside dst. */
static void temp_files(const gk_vector_out *v, char ***from, char ***to)
{
    const char *te = CPLGetExtension(v->tmp), *de = CPLGetExtension(v->dst);
    size_t dl = strlen(v->dst) - (*de ? strlen(de) + 1 : 0);
    char *dir = CPLStrdup(CPLGetPath(v->tmp));
    const char *tname = CPLGetFilename(v->tmp);
    size_t tsl = strlen(tname) - (*te ? strlen(te) + 1 : 0);
    char **entries = VSIReadDir(*dir ? dir : ".");
    *from = *to = NULL;
    for (char **e = entries; e && *e; e++) {
        if (strncmp(*e, tname, tsl) || ((*e)[tsl] != '.' && (*e)[tsl] != '\0'))
            continue;
        *from = CSLAddString(*from, CPLFormFilename(*dir ? dir : NULL, *e, NULL));
        *to = CSLAddString(*to, CPLSPrintf("%.*s%s", (int)dl, v->dst, *e + tsl));
    }
    CSLDestroy(entries);
    CPLFree(dir);
}

/* The new files take their names, dst last but first-checked; the old
 * dataset aside meanwhile (replace_output.h). */
static int rename_in(gk_vector_out *v, char **from, char **to)
{
    gk_context *ctx = v->ctx;
    for (char **t = to; t && *t; t++) /* no rename may replace an input file */
        if (gk_output_not_input(ctx, v->what, v->dst, *t, v->inputs))
            return gk_errno(ctx);
    char *aside = NULL;
    gk_cancel_hold(); /* not with the old file aside and the new one unnamed */
    int rc = gk_output_aside(ctx, v->dst, &aside);
    char **moved = NULL;
    for (int i = 0; rc == GK_OK && from && from[i]; i++) {
        if (rename(from[i], to[i]) != 0)
            rc = gk_error(ctx, GK_ERR_IO, "%s %s: cannot rename %s to %s: %s", v->what, v->dst,
                          from[i], to[i], strerror(errno));
        else
            moved = CSLAddString(moved, to[i]);
    }
    if (rc == GK_OK)
        gk_output_drop_old(v->dst, aside, v->old_files, moved);
    else if (aside)
        gk_output_restore(ctx, v->dst, aside);
    gk_cancel_release();
    CSLDestroy(moved);
    free(aside);
    return rc;
}

int gk_vector_out_commit(gk_vector_out *v, GIntBig n_features, OGRFeatureH last)
{
    if (!v)
        return GK_ERR_ARG;
    gk_context *ctx = v->ctx;
    char why[1400];
    const int transactional = GDALDatasetTestCapability(v->ds, ODsCTransactions);
    v->names.n_fail = 0;
    CPLErrorReset();
    GDALClose(v->ds);
    v->ds = NULL;
    int rc = GK_OK;
    if (v->names.n_fail || CPLGetLastErrorType() >= CE_Failure)
        rc = gk_error(ctx, GK_ERR_IO, "%s %s: writing it failed%s", v->what, v->dst,
                      gk_vector_out_reason(v, why, sizeof why));
    struct stat st;
    if (rc == GK_OK && lstat(v->tmp, &st) != 0)
        rc = gk_error(ctx, GK_ERR_IO, "%s %s: the %s driver wrote no file", v->what, v->dst,
                      GDALGetDriverShortName(v->driver));
    if (rc == GK_OK)
        rc = verify(v, n_features, last, transactional);
    char **from = NULL, **to = NULL;
    if (rc == GK_OK) {
        temp_files(v, &from, &to);
        /* the main file last in, so that a reader never sees it without its
         * side-cars: it sorts anywhere in the directory listing */
        int k = CSLFindString(from, v->tmp);
        if (k >= 0 && from[k + 1]) {
            char *f = from[k], *t = to[k];
            int n = CSLCount(from);
            memmove(from + k, from + k + 1, (size_t)(n - k - 1) * sizeof *from);
            memmove(to + k, to + k + 1, (size_t)(n - k - 1) * sizeof *to);
            from[n - 1] = f, to[n - 1] = t;
        }
        rc = rename_in(v, from, to);
    }
    CSLDestroy(from);
    CSLDestroy(to);
    if (rc != GK_OK) {
        gk_vector_out_abort(v);
        return rc;
    }
    out_free(v);
    return GK_OK;
}

void gk_vector_out_abort(gk_vector_out *v)
{
    if (!v)
        return;
    CPLPushErrorHandler(CPLQuietErrorHandler);
    if (v->ds)
        GDALClose(v->ds);
    v->ds = NULL;
    struct stat st;
    if (v->tmp && lstat(v->tmp, &st) == 0 && S_ISDIR(st.st_mode))
        VSIRmdirRecursive(v->tmp); /* a driver's folder under our claimed name */
    else if (v->tmp) {
        char **from = NULL, **to = NULL;
        temp_files(v, &from, &to);
        for (char **f = from; f && *f; f++)
            if (lstat(*f, &st) == 0 && S_ISREG(st.st_mode))
                unlink(*f);
        CSLDestroy(from);
        CSLDestroy(to);
    }
    CPLPopErrorHandler();
    out_free(v);
}
