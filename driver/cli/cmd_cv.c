/*
 * cmd_cv.c - `gridkit cv`: leave-one-out or k-fold cross-validation of any
 * algorithm on the points `gridkit grid` would read (algorithms/geostat/crossval.c),
 * a summary on stdout and optionally the per-point residuals as a vector layer.
 */
#include "mpi/world_points.h"
#include "cli/commands.h"
#include "cli/progress.h"
#include "gridkit_geostat.h"
#include "io/cancel_cleanup.h"
#include "io/output_check.h"
#include "io/replace_output.h"
#include "mpi/world_geostat.h"
#include "io/vmodel_json.h"
#include "lib/grid_options.h"

#include <cpl_conv.h>
#include <cpl_string.h>
#include <errno.h>
#include <gdal.h>
#include <limits.h>
#include <math.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *cv_usage(void)
{
    return "Usage: gridkit cv SRC -a algorithm[:key=value]* [--nfold K] [--seed S]\n"
           "    [--format=text|json] [-o FILE] [--threads N] [--device auto|cpu|cuda[:N]]\n"
           "    [-l layer] [-where expr] [-sql statement] [-spat xmin ymin xmax ymax]\n"
           "    [-clipsrc ...] [-clipsrcsql sql] [-clipsrclayer layer] [-clipsrcwhere expr]\n"
           "    [-zfield field] [-z_increase v] [-z_multiply v] [-oo NAME=VALUE]* [-a_srs srs]\n"
           "    [-q]\n"
           "\n"
           "Predicts every point from the others (leave-one-out, the default) or each of K\n"
           "random folds from the rest (--nfold K, partition drawn with --seed, default 1),\n"
           "with the same algorithm and parameters as `gridkit grid -a`. Prints n (points\n"
           "predicted), n_failed (no prediction), mean_error, rmse, mae, mean_z, var_z\n"
           "(R's var), msdr (mean z^2), cor; z-scores need a variance (kriging).\n"
           "--format json: one JSON object. -o FILE writes the points with observed,\n"
           "predicted, variance, residual, zscore, fold (driver from the extension, GPKG\n"
           "when none). Source options as `gridkit grid`; the first layer is used.\n"
           "GDAL's progress on stderr (-q: none), after a line saying why, when the folds\n"
           "take the slow way (a job rebuilt per fold) for more than a few seconds.\n";
}

/* ---- own options ---------------------------------------------------------- */

typedef struct {
    int nfold; /* 0: leave-one-out */
    unsigned seed;
    int json;
    const char *out;
} cv_opts;

static int parse_count(gk_context *ctx, const char *opt, const char *s, long long lo,
                       long long hi, long long *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || *end || errno == ERANGE)
        return gk_error(ctx, GK_ERR_ARG, "%s: '%s' is not a whole number", opt, s);
    if (x < lo || x > hi)
        return gk_error(ctx, GK_ERR_ARG, "%s: %s must be between %lld and %lld", opt, s, lo, hi);
    *v = x;
    return GK_OK;
}

/* Takes cv's own flags out of argv; the rest (kept, in order) go to the
 * gdal_grid-style parser. */
static int split_args(gk_context *ctx, int argc, char **argv, cv_opts *co, int *rest_argc,
                      char **rest)
{
    int nr = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        /* "--format=json" and "--json" too: GDAL's general option processor
         * claims a separate "--format NAME" before the command sees it. */
        if (!strncmp(a, "--format=", 9) || !strcmp(a, "--json")) {
            const char *v = a[2] == 'j' ? "json" : a + 9;
            if (strcmp(v, "json") && strcmp(v, "text"))
                return gk_error(ctx, GK_ERR_ARG, "--format: '%s' is not text or json", v);
            co->json = !strcmp(v, "json");
            continue;
        }
        int own = !strcmp(a, "--nfold") || !strcmp(a, "--seed") || !strcmp(a, "--format") ||
                  !strcmp(a, "-o") || !strcmp(a, "--output");
        if (!own) {
            rest[nr++] = argv[i];
            continue;
        }
        if (i + 1 >= argc)
            return gk_error(ctx, GK_ERR_ARG, "%s needs an argument (try --help)", a);
        const char *v = argv[++i];
        long long x;
        if (!strcmp(a, "--nfold")) {
            if (parse_count(ctx, a, v, 2, INT_MAX, &x))
                return gk_errno(ctx);
            co->nfold = (int)x;
        } else if (!strcmp(a, "--seed")) {
            if (parse_count(ctx, a, v, 0, UINT_MAX, &x))
                return gk_errno(ctx);
            co->seed = (unsigned)x;
        } else if (!strcmp(a, "--format")) {
            if (!strcmp(v, "json"))
                co->json = 1;
            else if (!strcmp(v, "text"))
                co->json = 0;
            else
                return gk_error(ctx, GK_ERR_ARG, "--format: '%s' is not text or json", v);
        } else {
            if (co->out)
                return gk_error(ctx, GK_ERR_ARG, "%s given twice", a);
            co->out = v;
        }
    }
    *rest_argc = nr;
    return GK_OK;
}

/* gdal_grid options that shape a raster mean nothing here: say so. */
static int reject_grid_only(gk_context *ctx, const gk_grid_options *o)
{
    const char *bad = o->format            ? "-of"
                      : o->type             ? "-ot"
                      : o->creation_options ? "-co"
                      : o->have_txe         ? "-txe"
                      : o->have_tye         ? "-tye"
                      : o->have_outsize     ? "-outsize"
                      : o->have_tr          ? "-tr"
                                            : NULL;
    if (bad)
        return gk_error(ctx, GK_ERR_ARG, "%s is a gridding option; cv writes no raster", bad);
    if (o->dst)
        return gk_error(ctx, GK_ERR_ARG,
                        "cv takes one source, got a second name '%s' (residuals: -o FILE)", o->dst);
    if (!o->algorithm)
        return gk_error(ctx, GK_ERR_ARG, "cv needs -a ALGORITHM (as gridkit grid -a)");
    return GK_OK;
}

/* ---- summary ---------------------------------------------------------------- */

static void json_number(FILE *f, const char *key, double v, int last)
{
    if (isfinite(v))
        fprintf(f, "\"%s\":%.17g%s", key, v, last ? "" : ",");
    else
        fprintf(f, "\"%s\":null%s", key, last ? "" : ",");
}

/* A statistic that cannot be computed (no variance, one prediction) reads
 * n/a, as JSON gives null, rather than nan. */
static void text_number(FILE *f, const char *key, double v)
{
    if (isfinite(v))
        fprintf(f, "%-11s %.10g\n", key, v);
    else
        fprintf(f, "%-11s n/a\n", key);
}

static void json_string(FILE *f, const char *key, const char *s)
{
    fprintf(f, "\"%s\":\"", key);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputs("\",", f);
}

static void print_summary(FILE *f, const gk_cv_result *r, const char *alg, int json)
{
    const char *method = r->method ? r->method : "rebuild";
    if (json) {
        /* n as gstat-side summaries count it: the predictions the statistics use */
        fprintf(f, "{\"n\":%zu,\"n_failed\":%zu,\"n_points\":%zu,", r->n - r->n_failed,
                r->n_failed, r->n);
        json_number(f, "mean_error", r->mean_error, 0);
        json_number(f, "rmse", r->rmse, 0);
        json_number(f, "mae", r->mae, 0);
        json_number(f, "mean_z", r->mean_z, 0);
        json_number(f, "var_z", r->var_z, 0);
        json_number(f, "cor", r->cor, 0);
        json_number(f, "msdr", r->msdr, 0);
        fprintf(f, "\"nfold\":%d,\"seed\":%u,", r->nfold, r->seed);
        json_string(f, "algorithm", alg);
        json_string(f, "method", method);
        json_string(f, "device", r->device[0] ? r->device : "cpu");
        fprintf(f, "\"leave_one_out\":%s}\n", (size_t)r->nfold == r->n ? "true" : "false");
        return;
    }
    fprintf(f, "algorithm   %s\n", alg);
    fprintf(f, "n           %zu (of %zu points)\n", r->n - r->n_failed, r->n);
    fprintf(f, "n_failed    %zu\n", r->n_failed);
    if ((size_t)r->nfold == r->n)
        fprintf(f, "nfold       %d (leave-one-out)\n", r->nfold);
    else
        fprintf(f, "nfold       %d (seed %u)\n", r->nfold, r->seed);
    fprintf(f, "method      %s (%s)\n", method,
            !strcmp(method, "holdout")   ? "one search index, each fold left out of the search"
            : !strcmp(method, "dubrule") ? "one kriging system, each fold in closed form"
                                         : "a job per fold on the other folds' points");
    fprintf(f, "device      %s\n", r->device[0] ? r->device : "cpu");
    text_number(f, "mean_error", r->mean_error);
    text_number(f, "rmse", r->rmse);
    text_number(f, "mae", r->mae);
    text_number(f, "mean_z", r->mean_z);
    text_number(f, "var_z", r->var_z);
    text_number(f, "msdr", r->msdr);
    text_number(f, "cor", r->cor);
}

/* ---- residuals out -------------------------------------------------------- */

/* Every file of the inputs (a shapefile's .dbf, .shx, .prj; a CSV's .csvt...),
 * for the overwrite check. */
static char **input_files(const char *const *protect, char **open_options)
{
    char **files = NULL;
    for (const char *const *p = protect; *p; p++) {
        files = CSLAddString(files, *p);
        CPLPushErrorHandler(CPLQuietErrorHandler);
        GDALDatasetH ds = GDALOpenEx(*p, GDAL_OF_VECTOR | GDAL_OF_READONLY, NULL,
                                     (const char *const *)open_options, NULL);
        CPLPopErrorHandler();
        if (!ds)
            continue;
        char **list = GDALGetFileList(ds);
        for (char **f = list; f && *f; f++)
            files = CSLAddString(files, *f);
        CSLDestroy(list);
        GDALClose(ds);
    }
    return files;
}

/* The input that name is (an existing file never is a new one), or NULL. */
static const char *is_input(char **inputs, const char *name)
{
    for (char **f = inputs; f && *f; f++)
        if (gk_output_same_file(name, *f)) /* a missing output is no input */
            return *f;
    return NULL;
}

/* The vector driver that creates files with dst's extension; GPKG without one. */
static GDALDriverH vector_driver(gk_context *ctx, const char *dst)
{
    const char *ext = CPLGetExtension(dst);
    if (!*ext)
        return GDALGetDriverByName("GPKG");
    for (int i = 0; i < GDALGetDriverCount(); i++) {
        GDALDriverH d = GDALGetDriver(i);
        if (!GDALGetMetadataItem(d, GDAL_DCAP_VECTOR, NULL) ||
            !GDALGetMetadataItem(d, GDAL_DCAP_CREATE, NULL))
            continue;
        const char *exts = GDALGetMetadataItem(d, GDAL_DMD_EXTENSIONS, NULL);
        if (!exts)
            exts = GDALGetMetadataItem(d, GDAL_DMD_EXTENSION, NULL);
        char **list = exts ? CSLTokenizeString(exts) : NULL;
        int hit = CSLFindString(list, ext) >= 0;
        CSLDestroy(list);
        if (hit)
            return d;
    }
    gk_error(ctx, GK_ERR_ARG,
             "-o %s: no vector driver writes '.%s' files (try .gpkg, .shp, .geojson, .csv)", dst,
             ext);
    return NULL;
}

static void delete_quietly(GDALDriverH drv, const char *name)
{
    CPLPushErrorHandler(CPLQuietErrorHandler);
    if (GDALDeleteDataset(drv, name) != CE_None)
        VSIUnlink(name);
    CPLPopErrorHandler();
}

static int set_real(OGRFeatureH f, int i, double v)
{
    if (isfinite(v))
        OGR_F_SetFieldDouble(f, i, v);
    else
        OGR_F_SetFieldNull(f, i);
    return i + 1;
}

/* Fills the temporary dataset; GK_OK or an error naming dst. */
static int fill_layer(gk_context *ctx, GDALDatasetH ds, GDALDriverH drv, const char *dst,
                      const char *srs_wkt, const gk_cv_result *r)
{
    OGRSpatialReferenceH srs = NULL;
    if (srs_wkt) {
        srs = OSRNewSpatialReference(srs_wkt);
        if (srs)
            OSRSetAxisMappingStrategy(srs, OAMS_TRADITIONAL_GIS_ORDER);
    }
    char **lco = NULL;
    if (!strcmp(GDALGetDriverShortName(drv), "CSV"))
        lco = CSLAddString(lco, "GEOMETRY=AS_XY");
    OGRLayerH lyr = GDALDatasetCreateLayer(ds, CPLGetBasename(dst), srs, wkbPoint, lco);
    CSLDestroy(lco);
    if (srs)
        OSRDestroySpatialReference(srs);
    if (!lyr)
        return gk_error(ctx, GK_ERR_IO, "-o %s: cannot create the layer: %s", dst,
                        CPLGetLastErrorMsg());
    static const char *const names[] = {"observed", "predicted", "variance", "residual", "zscore"};
    for (int k = 0; k < 5; k++) {
        OGRFieldDefnH fd = OGR_Fld_Create(names[k], OFTReal);
        OGRErr e = OGR_L_CreateField(lyr, fd, TRUE);
        OGR_Fld_Destroy(fd);
        if (e != OGRERR_NONE)
            return gk_error(ctx, GK_ERR_IO, "-o %s: cannot create field %s", dst, names[k]);
    }
    OGRFieldDefnH fd = OGR_Fld_Create("fold", OFTInteger);
    OGRErr e = OGR_L_CreateField(lyr, fd, TRUE);
    OGR_Fld_Destroy(fd);
    if (e != OGRERR_NONE)
        return gk_error(ctx, GK_ERR_IO, "-o %s: cannot create field fold", dst);

    int tx = GDALDatasetTestCapability(ds, ODsCTransactions) &&
             GDALDatasetStartTransaction(ds, FALSE) == OGRERR_NONE;
    OGRFeatureDefnH defn = OGR_L_GetLayerDefn(lyr);
    for (size_t i = 0; i < r->n; i++) {
        OGRFeatureH f = OGR_F_Create(defn);
        OGRGeometryH g = OGR_G_CreateGeometry(wkbPoint);
        OGR_G_SetPoint_2D(g, 0, r->x[i], r->y[i]);
        OGR_F_SetGeometryDirectly(f, g);
        int k = set_real(f, 0, r->observed[i]);
        k = set_real(f, k, r->predicted[i]);
        k = set_real(f, k, r->variance[i]);
        k = set_real(f, k, r->residual[i]);
        k = set_real(f, k, r->zscore[i]);
        OGR_F_SetFieldInteger(f, k, r->fold[i]);
        e = OGR_L_CreateFeature(lyr, f);
        OGR_F_Destroy(f);
        if (e != OGRERR_NONE)
            return gk_error(ctx, GK_ERR_IO, "-o %s: writing point %zu failed: %s", dst, i + 1,
                            CPLGetLastErrorMsg());
    }
    if (tx && GDALDatasetCommitTransaction(ds) != OGRERR_NONE)
        return gk_error(ctx, GK_ERR_IO, "-o %s: commit failed: %s", dst, CPLGetLastErrorMsg());
    return GK_OK;
}

/* Moves every file of the temporary dataset, side-cars included (GDAL 3.6
 * cannot rename vector datasets, and a shapefile's .prj is not always in its
 * file list): "<stem>.gridkit-tmp-<pid>.<rest>" -> "<stem>.<rest>". */
static int rename_files(gk_context *ctx, const char *tmp, const char *dst, char **inputs,
                        char ***moved)
{
    const char *te = CPLGetExtension(tmp), *de = CPLGetExtension(dst);
    size_t tl = strlen(tmp) - (*te ? strlen(te) + 1 : 0);
    size_t dl = strlen(dst) - (*de ? strlen(de) + 1 : 0);
    char *dir = CPLStrdup(CPLGetPath(tmp));
    const char *tstem = CPLGetFilename(tmp); /* in tmp: stays valid */
    size_t tsl = strlen(tstem) - (strlen(tmp) - tl);
    char **entries = VSIReadDir(*dir ? dir : ".");
    int rc = GK_OK, moved_main = 0;
    /* pass 0 checks every target, pass 1 renames */
    for (int pass = 0; pass < 2 && !rc; pass++) {
        for (char **e = entries; e && *e && !rc; e++) {
            if (strncmp(*e, tstem, tsl) != 0 || ((*e)[tsl] != '.' && (*e)[tsl] != '\0'))
                continue;
            char *from = CPLStrdup(CPLFormFilename(*dir ? dir : NULL, *e, NULL));
            char *to = CPLStrdup(CPLSPrintf("%.*s%s", (int)dl, dst, *e + tsl));
            const char *in = pass == 0 ? is_input(inputs, to) : NULL;
            if (in) /* first pass: no rename may replace an input file */
                rc = gk_error(ctx, GK_ERR_ARG, "refusing to overwrite input %s (output -o %s)",
                              in, dst);
            else if (pass == 1 && rename(from, to) != 0)
                rc = gk_error(ctx, GK_ERR_IO, "-o %s: cannot rename %s to %s: %s", dst, from, to,
                              strerror(errno));
            else if (pass == 1)
                *moved = CSLAddString(*moved, to);
            moved_main |= pass == 1 && !strcmp(*e, tstem);
            CPLFree(from);
            CPLFree(to);
        }
    }
    CSLDestroy(entries);
    CPLFree(dir);
    if (!rc && !moved_main && rename(tmp, dst) != 0)
        rc = gk_error(ctx, GK_ERR_IO, "-o %s: cannot rename %s to it: %s", dst, tmp,
                      strerror(errno));
    else if (!rc && !moved_main)
        *moved = CSLAddString(*moved, dst);
    return rc;
}

/* The finished dataset at tmp takes dst's place (io/replace_output.h);
 * old_files: the old dataset's files, dst included. */
static int replace_dst(gk_context *ctx, const char *tmp, const char *dst, char **inputs,
                       char **old_files)
{
    char *aside = NULL, **moved = NULL;
    gk_cancel_hold(); /* not with the old file aside and the new one unnamed */
    int rc = gk_output_aside(ctx, dst, &aside);
    if (rc == GK_OK) {
        rc = rename_files(ctx, tmp, dst, inputs, &moved);
        if (rc == GK_OK)
            gk_output_drop_old(dst, aside, old_files, moved);
        else
            gk_output_restore(ctx, dst, aside);
    }
    gk_cancel_release();
    CSLDestroy(moved);
    free(aside);
    return rc;
}

/* Writes under a temporary name, then replaces dst: a failed run never
 * leaves a half-written file, nor destroys an existing one. */
static int write_residuals(gk_context *ctx, const char *dst, char **inputs, const char *srs_wkt,
                           const gk_cv_result *r)
{
    /* dst, and every file of the dataset now at dst (replacing it deletes
     * them all), must not be an input */
    char **old_files = NULL;
    VSIStatBufL st;
    if (VSIStatL(dst, &st) == 0) {
        CPLPushErrorHandler(CPLQuietErrorHandler);
        GDALDatasetH ods = GDALOpenEx(dst, GDAL_OF_VECTOR | GDAL_OF_READONLY, NULL, NULL, NULL);
        CPLPopErrorHandler();
        if (ods) {
            old_files = GDALGetFileList(ods);
            GDALClose(ods);
        }
    }
    old_files = CSLAddString(old_files, dst);
    for (char **f = old_files; *f; f++) {
        const char *in = is_input(inputs, *f);
        if (in) {
            gk_error(ctx, GK_ERR_ARG, "refusing to overwrite input %s (output -o %s)", in, dst);
            CSLDestroy(old_files);
            return GK_ERR_ARG;
        }
    }
    GDALDriverH drv = vector_driver(ctx, dst);
    if (!drv) {
        CSLDestroy(old_files);
        return gk_errno(ctx);
    }
    char *tmp = gk_output_temp_name(dst, "", NULL);
    if (!tmp) {
        CSLDestroy(old_files);
        return gk_error(ctx, GK_ERR_NOMEM, "-o %s: out of memory", dst);
    }
    /* our temporary name taken by something else (a link planted in /tmp):
     * neither written through nor deleted */
    struct stat tst;
    if (lstat(tmp, &tst) == 0 && !S_ISREG(tst.st_mode)) {
        int rc = gk_error(ctx, GK_ERR_IO,
                          "-o %s: cannot create %s: something that is not a file of gridkit's "
                          "has that name; it is left as it is",
                          dst, tmp);
        free(tmp);
        CSLDestroy(old_files);
        return rc;
    }
    delete_quietly(drv, tmp);
    gk_cancel_watch(tmp);
    CPLErrorReset();
    GDALDatasetH ds = GDALCreate(drv, tmp, 0, 0, 0, GDT_Unknown, NULL);
    if (!ds) {
        int rc = gk_error(ctx, GK_ERR_IO, "-o %s: cannot create it (%s): %s", dst,
                          GDALGetDriverShortName(drv), CPLGetLastErrorMsg());
        delete_quietly(drv, tmp);
        gk_cancel_forget(tmp);
        free(tmp);
        CSLDestroy(old_files);
        return rc;
    }
    int rc = fill_layer(ctx, ds, drv, dst, srs_wkt, r);
    CPLErrorReset();
    GDALClose(ds);
    if (!rc && CPLGetLastErrorType() >= CE_Failure)
        rc = gk_error(ctx, GK_ERR_IO, "-o %s: closing failed: %s", dst, CPLGetLastErrorMsg());
    if (!rc)
        rc = replace_dst(ctx, tmp, dst, inputs, old_files);
    if (rc)
        delete_quietly(drv, tmp);
    gk_cancel_forget(tmp);
    CSLDestroy(old_files);
    free(tmp);
    return rc;
}

static char *srs_to_wkt(gk_context *ctx, const char *user)
{
    OGRSpatialReferenceH s = OSRNewSpatialReference(NULL);
    char *wkt = NULL;
    if (OSRSetFromUserInput(s, user) != OGRERR_NONE || OSRExportToWkt(s, &wkt) != OGRERR_NONE) {
        gk_error(ctx, GK_ERR_ARG, "-a_srs: cannot understand '%s'", user);
        CPLFree(wkt);
        wkt = NULL;
    }
    OSRDestroySpatialReference(s);
    return wkt;
}

/* ---- the command ------------------------------------------------------------ */

static int run(gk_context *ctx, int argc, char **argv)
{
    cv_opts co = {0, 1u, 0, NULL};
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory");
    int nr = 0;
    gk_grid_options *o = NULL;
    gk_algorithm *alg = NULL;
    gk_source_points sp = {0};
    gk_cv_result res = {0};
    char *srs = NULL, *out = NULL;
    int rc = split_args(ctx, argc, argv, &co, &nr, rest);
    if (rc)
        goto done;
    if (!(o = gk_grid_options_new(ctx, nr, rest))) {
        rc = gk_errno(ctx);
        goto done;
    }
    if ((rc = reject_grid_only(ctx, o)))
        goto done;
    if (!(alg = gk_algorithm_parse(ctx, o->algorithm))) {
        rc = gk_errno(ctx);
        goto done;
    }
    gk_algorithm_set_precision(alg, o->precision);
    /* every input, so that -o is none of them (checked before the work) */
    const char *protect[4 + GK_KRIGE_MAX_DRIFT_RASTERS] = {o->src, o->clipsrc, NULL};
    int np = 2;
    const gk_kriging_params *kp = gk_algorithm_kriging(alg);
    if (kp && kp->variogram_file[0])
        protect[np++] = kp->variogram_file;
    for (int k = 0; kp && k < kp->n_drift_rasters; k++)
        protect[np++] = kp->drift_raster[k];
    /* kriging: variogram=FILE.json is read here, as gridkit grid reads it */
    if (kp && kp->variogram_file[0]) {
        gk_vmodel vm;
        if ((rc = gk_vmodel_read_json(ctx, kp->variogram_file, &vm)) ||
            (rc = gk_kriging_set_model(ctx, alg, &vm)))
            goto done;
        kp = gk_algorithm_kriging(alg);
    }
    /* under MPI every rank computes its folds; rank 0 alone writes */
    const gk_world *world = gk_world_get();
    const int rank = gk_world_rank(world);
    if (co.out && rank == 0 && !(out = gk_output_prepare(ctx, "-o", co.out, protect, np))) {
        rc = gk_errno(ctx);
        goto done;
    }
    if ((rc = gk_grid_options_apply_threads(ctx, o)) ||
        (rc = gk_context_request_device(ctx, o->device)))
        goto done;
    if (o->a_srs && !(srs = srs_to_wkt(ctx, o->a_srs))) {
        rc = gk_errno(ctx);
        goto done;
    }

    if ((rc = gk_world_read_points(gk_world_get(), ctx, o, 1, &sp)))
        goto done;
    if (sp.n_layers > 1 && !o->quiet && rank == 0)
        fprintf(stderr, "gridkit cv: warning: %d layers read, cross-validating the first (%s)\n",
                sp.n_layers, sp.layers[0].name);
    const gk_points *pts = sp.layers[0].pts;
    size_t n = gk_points_count(pts);
    if (n < 2) {
        rc = gk_error(ctx, GK_ERR_NO_POINTS,
                      "%s: cross-validation needs at least 2 points, got %zu", o->src, n);
        goto done;
    }
    if (co.nfold && (size_t)co.nfold > n) {
        rc = gk_error(ctx, GK_ERR_ARG, "--nfold %d: more folds than points (%zu)", co.nfold, n);
        goto done;
    }
    gk_note_progress_state ps = {{0, 0}, "cv"};
    rc = gk_world_crossval(ctx, world, pts, alg, co.nfold, co.seed,
                           o->quiet ? NULL : gk_term_progress_notes, &ps, &res);
    gk_term_progress_end(&ps.term);
    if (rc) {
        gk_error(ctx, rc, "%s: %s", o->src, gk_errmsg(ctx)); /* name the input */
        goto done;
    }
    if (rank > 0)
        goto done;
    if (res.n_failed == res.n) {
        /* statistics of nothing (nan) are no result */
        rc = gk_error(ctx, GK_ERR_NO_POINTS,
                      "%s: none of the %zu points got a prediction from %s (singular systems: "
                      "coincident points? or fewer neighbours than min_points)",
                      o->src, res.n, gk_algorithm_string(alg));
        goto done;
    }
    if (res.n_failed && !o->quiet)
        fprintf(stderr, "gridkit cv: warning: %zu of %zu points got no prediction (nodata); the "
                        "statistics use the other %zu\n",
                res.n_failed, res.n, res.n - res.n_failed);
    if (out) {
        const char *inputs_of[3] = {o->src, o->clipsrc, NULL};
        char **inputs = input_files(inputs_of, o->open_options);
        rc = write_residuals(ctx, out, inputs, srs ? srs : sp.srs_wkt, &res);
        CSLDestroy(inputs);
        if (rc)
            goto done;
    }
    print_summary(stdout, &res, gk_algorithm_string(alg), co.json);
    if (fflush(stdout) != 0)
        rc = gk_error(ctx, GK_ERR_IO, "writing the summary failed: %s", strerror(errno));
done:
    gk_cv_result_free(&res);
    gk_source_points_free(&sp);
    gk_algorithm_free(alg);
    gk_grid_options_free(o);
    CPLFree(srs);
    free(out);
    free(rest);
    return rc;
}

int gk_cmd_cv(int argc, char **argv)
{
    return gk_cli_run("cv", cv_usage(), "cross-validation failed", run, argc, argv);
}
