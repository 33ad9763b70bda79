/* SPDX-License-Identifier: MIT */
/*
 * cmd_cv.c - `gridkit cv`: leave-one-out or k-fold cross-validation of any
 * algorithm on the points `gridkit grid` would read (algorithms/geostat/crossval.c),
 * a summary on stdout and optionally the per-point residuals as a vector layer.
 */
#include "cli/commands.h"
#include "cli/plot_cv.h"
#include "cli/progress.h"
#include "gridkit_geostat.h"
#include "io/cancel_cleanup.h"
#include "io/drift_raster.h"
#include "io/output_check.h"
#include "io/replace_output.h"
#include "io/write_vector.h"
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
           "    [--format=text|json] [-o FILE] [--plot FILE.png|FILE.svg] [--threads N]\n"
           "    [--device auto|cpu|cuda[:N]]\n"
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
           "when none). --plot FILE draws observed against predicted (with the 1:1 line)\n"
           "and a bubble map of the residuals, as PNG or SVG by extension.\n"
           "Source options as `gridkit grid`; the first layer is used.\n"
           "GDAL's progress on stderr (-q: none), after a line saying why, when the folds\n"
           "take the slow way (a job rebuilt per fold) for more than a few seconds.\n";
}

/* ---- own options ---------------------------------------------------------- */

typedef struct {
    int nfold; /* 0: leave-one-out */
    unsigned seed;
    int json;
    const char *out;
    const char *plot; /* --plot FILE.png|FILE.svg */
} cv_opts;

static int parse_count(gk_context *ctx, const char *opt, const char *s, long long lo, long long hi,
                       long long *v)
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
                  !strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--plot");
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
        } else if (!strcmp(a, "--plot")) {
            if (co->plot)
                return gk_error(ctx, GK_ERR_ARG, "%s given twice", a);
            co->plot = v;
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
    const char *bad = o->format             ? "-of"
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
        fprintf(f, "{\"n\":%zu,\"n_failed\":%zu,\"n_points\":%zu,", r->n - r->n_failed, r->n_failed,
                r->n);
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

static int set_real(OGRFeatureH f, int i, double v)
{
    if (isfinite(v))
        OGR_F_SetFieldDouble(f, i, v);
    else
        OGR_F_SetFieldNull(f, i);
    return i + 1;
}

/* Point i's residual as a feature of defn (fields in the order made). */
static OGRFeatureH residual_feature(OGRFeatureDefnH defn, const gk_cv_result *r, size_t i)
{
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
    return f;
}

/* Fills the temporary dataset; GK_OK or an error naming dst. */
static int fill_layer(gk_context *ctx, gk_vector_out *v, const char *dst, const char *srs_wkt,
                      const gk_cv_result *r, OGRFeatureDefnH *defn)
{
    OGRSpatialReferenceH srs = NULL;
    if (srs_wkt) {
        srs = OSRNewSpatialReference(srs_wkt);
        if (srs)
            OSRSetAxisMappingStrategy(srs, OAMS_TRADITIONAL_GIS_ORDER);
    }
    char **lco = NULL;
    if (!strcmp(gk_vector_out_driver(v), "CSV"))
        lco = CSLAddString(lco, "GEOMETRY=AS_XY");
    OGRLayerH lyr = gk_vector_out_layer(v, CPLGetBasename(dst), srs, wkbPoint, lco);
    CSLDestroy(lco);
    if (srs)
        OSRDestroySpatialReference(srs);
    if (!lyr)
        return gk_errno(ctx);
    char why[1400];
    static const char *const names[] = {"observed", "predicted", "variance", "residual", "zscore"};
    for (int k = 0; k < 6; k++) {
        OGRFieldDefnH fd = OGR_Fld_Create(k < 5 ? names[k] : "fold", k < 5 ? OFTReal : OFTInteger);
        OGRErr e = OGR_L_CreateField(lyr, fd, TRUE);
        OGR_Fld_Destroy(fd);
        if (e != OGRERR_NONE)
            return gk_error(ctx, GK_ERR_IO, "-o %s: cannot create field %s%s", dst,
                            k < 5 ? names[k] : "fold", gk_vector_out_reason(v, why, sizeof why));
    }
    GDALDatasetH ds = gk_vector_out_dataset(v);
    int tx = GDALDatasetTestCapability(ds, ODsCTransactions) &&
             GDALDatasetStartTransaction(ds, FALSE) == OGRERR_NONE;
    *defn = OGR_L_GetLayerDefn(lyr);
    for (size_t i = 0; i < r->n; i++) {
        OGRFeatureH f = residual_feature(*defn, r, i);
        CPLErrorReset();
        OGRErr e = OGR_L_CreateFeature(lyr, f);
        OGR_F_Destroy(f);
        if (e != OGRERR_NONE)
            return gk_error(ctx, GK_ERR_IO, "-o %s: writing point %zu failed%s", dst, i + 1,
                            gk_vector_out_reason(v, why, sizeof why));
    }
    if (tx && GDALDatasetCommitTransaction(ds) != OGRERR_NONE)
        return gk_error(ctx, GK_ERR_IO, "-o %s: commit failed%s", dst,
                        gk_vector_out_reason(v, why, sizeof why));
    return GK_OK;
}

/* Writes the residuals as every output is written (io/write_vector.h):
 * a failed run never leaves a half-written file, nor destroys an existing
 * one. */
static int write_residuals(gk_context *ctx, const char *dst, const gk_inputs *inputs,
                           const char *srs_wkt, const gk_cv_result *r)
{
    gk_vector_out *v = gk_vector_out_open(ctx, "-o", dst, NULL, inputs);
    if (!v)
        return gk_errno(ctx);
    OGRFeatureDefnH defn = NULL;
    int rc = fill_layer(ctx, v, dst, srs_wkt, r, &defn);
    if (rc) {
        gk_vector_out_abort(v);
        return rc;
    }
    OGRFeatureH last = r->n ? residual_feature(defn, r, r->n - 1) : NULL;
    rc = gk_vector_out_commit(v, (GIntBig)r->n, last);
    if (last)
        OGR_F_Destroy(last);
    return rc;
}

/* --plot's name, checked before the work as the chart checks it after */
static int plot_name_ok(gk_context *ctx, const char *path)
{
    const char *dot = strrchr(path, '.');
    if (dot && (!strcasecmp(dot, ".png") || !strcasecmp(dot, ".svg")))
        return GK_OK;
    return gk_error(ctx, GK_ERR_ARG, "--plot %s: the file name must end in .png or .svg", path);
}

/* The chart: the algorithm as title, the statistics below it. */
static int plot_cv(gk_context *ctx, const char *path, const gk_cv_result *r, const char *alg)
{
    char title[300], sub[400];
    snprintf(title, sizeof title, "Cross-validation of %.260s", alg);
    const char *how = r->nfold >= (int)r->n ? "leave-one-out" : "folds";
    int k = snprintf(sub, sizeof sub, "%zu points", r->n - r->n_failed);
    if (r->n_failed)
        k += snprintf(sub + k, sizeof sub - (size_t)k, " (%zu without a prediction)", r->n_failed);
    if (r->nfold >= (int)r->n)
        k += snprintf(sub + k, sizeof sub - (size_t)k, ", %s", how);
    else
        k += snprintf(sub + k, sizeof sub - (size_t)k, ", %d %s", r->nfold, how);
    snprintf(sub + k, sizeof sub - (size_t)k, "; mean error %.4g, RMSE %.4g, correlation %.3f",
             r->mean_error, r->rmse, r->cor);
    return gk_plot_cv(ctx, path, r, title, sub);
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
    cv_opts co = {0, 1u, 0, NULL, NULL};
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory");
    int nr = 0;
    gk_grid_options *o = NULL;
    gk_algorithm *alg = NULL;
    gk_source_points sp = {0};
    gk_cv_result res = {0};
    char *srs = NULL, *out = NULL, *plot = NULL;
    gk_inputs *inputs = NULL;
    gk_drift_rasters *dr = NULL; /* drift_raster= */
    double *dv = NULL;           /* their values at the points */
    int rc = split_args(ctx, argc, argv, &co, &nr, rest);
    if (rc)
        goto done;
    if (!(o = gk_grid_options_new(ctx, nr, rest))) {
        rc = gk_errno(ctx);
        goto done;
    }
    if ((rc = reject_grid_only(ctx, o)))
        goto done;
    if (!(alg = gk_algorithm_clone(o->alg))) {
        rc = gk_error(ctx, GK_ERR_NOMEM, "out of memory");
        goto done;
    }
    gk_algorithm_set_precision(alg, o->precision);
    const gk_kriging_params *kp = gk_algorithm_kriging(alg);
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
    /* every input, so that -o is none of them (checked before the work) */
    if ((co.out || co.plot) && rank == 0 &&
        (!(inputs = gk_grid_inputs(ctx, o, kp)) ||
         (co.out && !(out = gk_output_prepare(ctx, "-o", co.out, inputs))) ||
         (co.plot && !(plot = gk_output_prepare(ctx, "--plot", co.plot, inputs))))) {
        rc = gk_errno(ctx);
        goto done;
    }
    if (out && plot && !strcmp(out, plot)) {
        rc = gk_error(ctx, GK_ERR_ARG, "-o and --plot are the same file (%s)", co.out);
        goto done;
    }
    if (plot && (rc = plot_name_ok(ctx, co.plot)))
        goto done;
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
    /* kriging with external drift: the rasters at the points, and their sampler
     * for the held-out places (gridkit grid's sampling, nearest or bilinear) */
    gk_cv_drift drift = {0};
    if (kp && kp->n_drift_rasters) {
        if (!(dr = gk_drift_rasters_open_kriging(ctx, kp)) ||
            !(dv = malloc((size_t)kp->n_drift_rasters * n * sizeof *dv))) {
            rc = dr ? gk_error(ctx, GK_ERR_NOMEM, "out of memory") : gk_errno(ctx);
            goto done;
        }
        if ((rc = gk_drift_rasters_at_points(ctx, dr, pts, dv)))
            goto done;
        drift = (gk_cv_drift){kp->n_drift_rasters, dv, gk_drift_rasters_sample, dr};
    }
    gk_note_progress_state ps = {{0, 0}, "cv"};
    rc = gk_world_crossval(ctx, world, pts, alg, co.nfold, co.seed,
                           drift.n_drift ? &drift : NULL,
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
        fprintf(stderr,
                "gridkit cv: warning: %zu of %zu points got no prediction (nodata); the "
                "statistics use the other %zu\n",
                res.n_failed, res.n, res.n - res.n_failed);
    if (out && (rc = write_residuals(ctx, out, inputs, srs ? srs : sp.srs_wkt, &res)))
        goto done;
    if (plot && (rc = plot_cv(ctx, plot, &res, gk_algorithm_string(alg))))
        goto done;
    print_summary(stdout, &res, gk_algorithm_string(alg), co.json);
    if (fflush(stdout) != 0)
        rc = gk_error(ctx, GK_ERR_IO, "writing the summary failed: %s", strerror(errno));
done:
    gk_inputs_free(inputs);
    gk_drift_rasters_close(dr);
    free(dv);
    gk_cv_result_free(&res);
    gk_source_points_free(&sp);
    gk_algorithm_free(alg);
    gk_grid_options_free(o);
    CPLFree(srs);
    free(out);
    free(plot);
    free(rest);
    return rc;
}

int gk_cmd_cv(int argc, char **argv)
{
    return gk_cli_run("cv", cv_usage(), "cross-validation failed", run, argc, argv);
}
