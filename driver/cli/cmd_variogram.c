/* SPDX-License-Identifier: MIT */
/*
 * cmd_variogram.c - `gridkit variogram`: sample variogram of a point source
 * (gstat's variogram()), optionally a model fit (fit.variogram()), written
 * as a table, CSV or JSON, and optionally plotted.
 *
 * Our own flags are taken out of argv; the rest (source options as for
 * `gridkit grid`) goes to gk_grid_options_new().
 */
#include "mpi/world_geostat.h"
#include "io/cancel_cleanup.h"
#include "cli/commands.h"
#include "cli/progress.h"
#include "lib/grid_options.h"
#include "lib/gridkit_lib.h"
#include "io/output_check.h"
#include "cli/plot_variogram.h"
#include "io/replace_output.h"
#include "io/vmodel_json.h"
#include "cli/variogram_fit_args.h"
#include "cli/variogram_trend.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const char *usage_text =
    "Usage: gridkit variogram SRC [source options] [variogram options] [fit options]\n"
    "                         [--format table|csv|json] [-o FILE] [--plot FILE.png|FILE.svg]\n"
    "\n"
    "Sample variogram of the points of SRC (any OGR source or XYZ file), as gstat's\n"
    "variogram(z ~ 1) (or of a trend's residuals, variogram(z ~ x + y)), and optionally\n"
    "a weighted least-squares model fit as gstat's fit.variogram().\n"
    "\n"
    "Source options (as gridkit grid): -l LAYER, -where EXPR, -sql SQL,\n"
    "  -spat XMIN YMIN XMAX YMAX, -clipsrc ..., -zfield FIELD, -z_increase V,\n"
    "  -z_multiply V, -oo NAME=VALUE, --threads N, -q (no progress on stderr)\n"
    "\n"
    "Variogram options:\n"
    "  --cutoff D         largest pair distance (default: 1/3 of the bounding-box diagonal)\n"
    "  --width W          lag class width (default: cutoff / lags)\n"
    "  --lags N           number of lag classes when --width is not given (default 15)\n"
    "                     classes are [0,W], (W,2W], ... as in gstat\n"
    "  --estimator matheron|cressie   (default matheron; cressie = Cressie-Hawkins)\n"
    "  --direction AZ[,AZ...]   directional variograms, azimuths in degrees clockwise\n"
    "                     from north (up to 16)\n"
    "  --tolerance DEG    angular half-tolerance (default 90 / number of directions)\n"
    "  --bandwidth B      GSLIB-style maximum distance across the direction (default none)\n"
    "  --drift linear|quadratic   the variogram of the residuals of an ordinary least-\n"
    "                     squares trend in x, y (quadratic: also x^2, xy, y^2), as gstat's\n"
    "                     variogram(z ~ x + y): the model universal kriging\n"
    "                     (-a kriging:type=universal:drift=...) needs\n"
    "  --drift-raster FILE  a covariate of the trend, the raster sampled at the points as\n"
    "                     kriging's drift_raster= (gstat's variogram(z ~ cov)); up to 4,\n"
    "                     with or without --drift\n"
    "  --drift-resample nearest|bilinear   how --drift-raster is sampled (default nearest)\n"
    "  --normal-score     the variogram of the values' normal scores (GSLIB's nscore): the\n"
    "                     model simulation with transform=normal_score needs\n"
    "  --indicator C      the variogram of the indicator I(z < C), gstat's\n"
    "                     variogram(I(z < C) ~ 1): a model of indicator kriging's models=\n"
    "\n"
    "Fit options:\n"
    "  --fit MODEL[,MODEL...]  fit a nested model: the sum of the listed structures,\n"
    "                     e.g. --fit Sph (spherical, no nugget), --fit Nug,Sph (nugget +\n"
    "                     spherical, like gstat's vgm(psill, \"Sph\", range, nugget)).\n"
    "                     Models: Nug Sph Exp Gau Mat Ste Exc Cir Pen Lin Pow Hol.\n"
    "  --nugget V         start value of the nugget (adds a Nug structure if not listed)\n"
    "  --psill V[,V...]   start partial sills of the non-nugget structures, in order\n"
    "  --range V[,V...]   start ranges (gstat's range parameter) of those structures\n"
    "  --kappa K[,K...]   kappa of Mat, Ste, Exc (default 0.5, as gstat)\n"
    "  --anis ANGLE,RATIO geometric anisotropy of the non-nugget structures\n"
    "                     (major axis azimuth, minor/major ratio; as gstat's anis)\n"
    "  --fit-best MODEL[,MODEL...]  fit each listed model with a nugget and keep the\n"
    "                     smallest SSErr, as gstat's fit.variogram(v, vgm(c(\"Exp\",\"Sph\")))\n"
    "                     (\"Nug\" alone: a pure nugget; \"Sph+Exp\": nested); --nugget,\n"
    "                     --kappa and --anis apply to every candidate\n"
    "  --fit-kappa [K,K...]  fit Mat and Ste structures with each kappa and keep the\n"
    "                     smallest SSErr (gstat's fit.kappa); without a list gstat's\n"
    "                     0.3, 0.4, ..., 5 (--fit-kappa=K,K... also works)\n"
    "  --fit-method 1|2|6|7   weights N_j, N_j/gamma(h_j)^2, none, N_j/h_j^2 (default 7)\n"
    "  --model FILE.json  start from the model of a JSON file (as --format json writes,\n"
    "                     or a bare array of {\"model\",\"psill\",\"range\",...})\n"
    "  --no-fit           use the given parameters as they are (plot/print a model)\n"
    "  Start values not given are gstat's defaults (vgm_fill_na): range = max class\n"
    "  distance / 3, nugget = mean gamma of the first 3 classes, partial sill = mean\n"
    "  gamma of the last 5 classes / number of non-nugget structures.\n"
    "\n"
    "Output:\n"
    "  --format table|csv|json   (also -of / --output-format)\n"
    "                     table (default) on stdout; csv: np,dist,gamma[,dir.hor]\n"
    "                     (the fitted model goes to stderr); json: {\"experimental\",\n"
    "                     \"model\", \"fit\"[, \"trend\"]}, readable by\n"
    "                     -a kriging:variogram=FILE\n"
    "  -o FILE            write to FILE instead of stdout\n"
    "  --plot FILE        chart of the variogram and the model (.png or .svg)\n";

typedef struct {
    gk_vgm_options vo;
    gk_vgm_fit_args fa; /* --fit, --fit-best and their start values */
    const char *model;  /* --model FILE.json */
    const char *format, *out, *plot;
    int method;
    /* --drift, --drift-raster, --drift-resample: the variogram of the residuals */
    gk_drift_type drift;
    int n_drift_rasters, drift_bilinear;
    const char *drift_raster[GK_KRIGE_MAX_DRIFT_RASTERS];
    int normal_score; /* --normal-score: the variogram of the values' normal scores */
    int have_indicator; /* --indicator C: the variogram of I(z < C) */
    double indicator;
} vgm_args;

/* --fit-kappa takes the next argument as its list when it is one: a number
 * first ("1.5,2", ".5", "-1" for the error), not an option or a file name. */
static int looks_like_list(const char *s)
{
    if (*s == '-' || *s == '+')
        s++;
    return (*s >= '0' && *s <= '9') || (*s == '.' && s[1] >= '0' && s[1] <= '9');
}

static int parse_args(gk_context *ctx, int argc, char **argv, vgm_args *va, char ***rest,
                      int *nrest)
{
    memset(va, 0, sizeof *va);
    va->method = 7;
    char **r = calloc((size_t)argc + 1, sizeof(char *));
    if (!r)
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory");
    int nr = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int nv = gk_grid_option_values(a, argv, i, argc);
        if (nv > 0) {
            if (i + nv >= argc) {
                free(r);
                return gk_error(ctx, GK_ERR_ARG, "%s needs %d value%s", a, nv, nv > 1 ? "s" : "");
            }
            for (int k = 0; k <= nv; k++)
                r[nr++] = argv[i + k];
            i += nv;
            continue;
        }
        if (!strcmp(a, "--fit-kappa") || !strncmp(a, "--fit-kappa=", 12)) {
            /* gstat's fit.kappa = TRUE without a list, a numeric vector with one */
            if (a[11] == '=') {
                va->fa.fit_kappa = a + 12;
                if (!*va->fa.fit_kappa) {
                    free(r);
                    return gk_error(ctx, GK_ERR_ARG, "--fit-kappa=: the kappa list is empty");
                }
            } else {
                va->fa.fit_kappa = i + 1 < argc && looks_like_list(argv[i + 1]) ? argv[++i] : "";
            }
            continue;
        }
        static const char *const own[] = {
            "--cutoff",     "--width",     "--lags",          "--estimator",
            "--direction",  "--tolerance", "--bandwidth",     "--fit",
            "--fit-method", "--nugget",    "--psill",         "--range",
            "--kappa",      "--anis",      "--format",        "-o",
            "--plot",       "-of",         "--output-format", "--model",
            "--fit-best",   "--drift",     "--drift-raster",  "--drift-resample"};
        int k, is_own = -1;
        for (k = 0; k < (int)(sizeof own / sizeof own[0]); k++)
            if (!strcmp(a, own[k]))
                is_own = k;
        if (is_own < 0) {
            if (!strcmp(a, "--no-fit")) {
                va->fa.no_fit = 1;
                continue;
            }
            if (!strcmp(a, "--normal-score")) {
                va->normal_score = 1;
                continue;
            }
            if (!strcmp(a, "--indicator")) {
                char *end;
                if (i + 1 >= argc ||
                    (va->indicator = strtod(argv[i + 1], &end), end == argv[i + 1]) || *end ||
                    !isfinite(va->indicator)) {
                    free(r);
                    return gk_error(ctx, GK_ERR_ARG, "--indicator needs a cut-off (a number)");
                }
                va->have_indicator = 1;
                i++;
                continue;
            }
            r[nr++] = argv[i];
            continue;
        }
        if (i + 1 >= argc) {
            free(r);
            return gk_error(ctx, GK_ERR_ARG, "%s needs a value", a);
        }
        const char *val = argv[++i];
        int rc = GK_OK;
        double d = 0.0;
        switch (is_own) {
        case 0:
            if (!(rc = gk_vgm_parse_num(ctx, a, val, &va->vo.cutoff)) && va->vo.cutoff <= 0)
                rc = gk_error(ctx, GK_ERR_ARG, "--cutoff must be positive, not %s", val);
            break;
        case 1:
            if (!(rc = gk_vgm_parse_num(ctx, a, val, &va->vo.width)) && va->vo.width <= 0)
                rc = gk_error(ctx, GK_ERR_ARG, "--width must be positive, not %s", val);
            break;
        case 2:
            if (!(rc = gk_vgm_parse_num(ctx, a, val, &d)) && (d < 1 || d > 1e6 || d != floor(d)))
                rc = gk_error(ctx, GK_ERR_ARG,
                              "--lags must be a whole number from 1 to 1000000, not %s", val);
            va->vo.nlags = (int)d;
            break;
        case 3:
            if (!strcmp(val, "matheron"))
                va->vo.estimator = GK_VGM_MATHERON;
            else if (!strcmp(val, "cressie"))
                va->vo.estimator = GK_VGM_CRESSIE;
            else
                rc = gk_error(ctx, GK_ERR_ARG, "--estimator: '%s' is not matheron or cressie", val);
            break;
        case 4: {
            int n = gk_vgm_parse_list(ctx, a, val, va->vo.azimuth, GK_VGM_MAX_DIRECTIONS);
            if (n < 0)
                rc = gk_errno(ctx);
            va->vo.ndir = n < 0 ? 0 : n;
            break;
        }
        case 5:
            if (!(rc = gk_vgm_parse_num(ctx, a, val, &va->vo.tol_hor)) &&
                (va->vo.tol_hor <= 0 || va->vo.tol_hor > 180))
                rc = gk_error(ctx, GK_ERR_ARG, "--tolerance must be in (0, 180], not %s", val);
            break;
        case 6:
            if (!(rc = gk_vgm_parse_num(ctx, a, val, &va->vo.bandwidth)) && va->vo.bandwidth <= 0)
                rc = gk_error(ctx, GK_ERR_ARG, "--bandwidth must be positive, not %s", val);
            break;
        case 7:
            va->fa.fit = val;
            break;
        case 8:
            if (!(rc = gk_vgm_parse_num(ctx, a, val, &d)) && d != 1 && d != 2 && d != 6 && d != 7)
                rc = gk_error(ctx, GK_ERR_ARG, "--fit-method must be 1, 2, 6 or 7, not %s", val);
            va->method = (int)d;
            break;
        case 9:
            va->fa.nugget = val;
            break;
        case 10:
            va->fa.psill = val;
            break;
        case 11:
            va->fa.range = val;
            break;
        case 12:
            va->fa.kappa = val;
            break;
        case 13:
            va->fa.anis = val;
            break;
        case 14:
        case 17:
        case 18:
            if (strcmp(val, "table") && strcmp(val, "csv") && strcmp(val, "json"))
                rc = gk_error(ctx, GK_ERR_ARG, "%s: '%s' is not table, csv or json", a, val);
            va->format = val;
            break;
        case 15:
            va->out = val;
            break;
        case 16: {
            size_t L = strlen(val);
            if (L < 5 || (strcasecmp(val + L - 4, ".png") && strcasecmp(val + L - 4, ".svg")))
                rc = gk_error(ctx, GK_ERR_ARG, "--plot %s: the file name must end in .png or .svg",
                              val);
            va->plot = val;
            break;
        }
        case 19:
            va->model = val;
            break;
        case 20:
            va->fa.fit_best = val;
            break;
        case 21:
            if (!strcmp(val, "linear"))
                va->drift = GK_DRIFT_LINEAR;
            else if (!strcmp(val, "quadratic"))
                va->drift = GK_DRIFT_QUADRATIC;
            else if (!strcmp(val, "none"))
                va->drift = GK_DRIFT_NONE;
            else
                rc = gk_error(ctx, GK_ERR_ARG,
                              "--drift: '%s' is not linear or quadratic (a raster: "
                              "--drift-raster FILE)",
                              val);
            break;
        case 22:
            if (va->n_drift_rasters >= GK_KRIGE_MAX_DRIFT_RASTERS)
                rc = gk_error(ctx, GK_ERR_ARG, "--drift-raster: at most %d rasters",
                              GK_KRIGE_MAX_DRIFT_RASTERS);
            else
                va->drift_raster[va->n_drift_rasters++] = val;
            break;
        case 23:
            if (!strcmp(val, "bilinear") || !strcmp(val, "nearest"))
                va->drift_bilinear = val[0] == 'b';
            else
                rc = gk_error(ctx, GK_ERR_ARG, "--drift-resample: '%s' is not nearest or bilinear",
                              val);
            break;
        }
        if (rc) {
            free(r);
            return rc;
        }
    }
    if (!va->format)
        va->format = "table";
    const gk_vgm_fit_args *fa = &va->fa;
    const char *why = NULL;
    if (fa->fit && fa->fit_best)
        why = "give either --fit or --fit-best, not both";
    else if (va->model && (fa->fit || fa->fit_best))
        why = "give either --fit, --fit-best or --model, not two of them";
    else if (!fa->fit && !fa->fit_best &&
             (fa->nugget || fa->psill || fa->range || fa->kappa || fa->anis))
        why = "--nugget, --psill, --range, --kappa and --anis need --fit MODEL or --fit-best LIST";
    else if (fa->no_fit && !fa->fit && !va->model)
        why = "--no-fit needs --fit MODEL or --model FILE";
    else if (fa->fit_kappa && !fa->fit && !fa->fit_best && !va->model)
        why = "--fit-kappa needs a model to fit: --fit Mat (or Ste), --fit-best or --model";
    else if (fa->fit_kappa && fa->no_fit)
        why = "--fit-kappa fits; it cannot go with --no-fit";
    if (why)
        return free(r), gk_error(ctx, GK_ERR_ARG, "%s", why);
    *rest = r;
    *nrest = nr;
    return GK_OK;
}

static void write_model_table(FILE *f, const gk_vmodel *m, const gk_vgm_report *rep, int method)
{
    const gk_fit_result *fr = rep->fit;
    if (fr)
        fprintf(f, "# model: fit method %d, SSErr %.10g, %d iterations%s\n", method, fr->sserr,
                fr->iterations, fr->converged ? "" : ", NO CONVERGENCE");
    else
        fprintf(f, "# model (not fitted)\n");
    if (fr && rep->ncand > 0) {
        fprintf(f, "# kept the smallest SSErr of %d candidates:\n", rep->ncand);
        for (int c = 0; c < rep->ncand; c++) {
            char name[128];
            gk_vmodel_names(&rep->cand[c], name, sizeof name);
            if (isfinite(rep->cand_fit[c].sserr))
                fprintf(f, "#   %-16s SSErr %.10g%s\n", name, rep->cand_fit[c].sserr,
                        c == rep->kept ? "  (kept)" : "");
            else
                fprintf(f, "#   %-16s could not be fitted\n", name);
        }
    }
    if (fr && rep->nkappa > 0)
        for (int i = 0; i < m->n; i++)
            if (m->s[i].type == GK_VM_MAT || m->s[i].type == GK_VM_STE) {
                fprintf(f, "# kappa %.10g: the smallest SSErr of %d values tried\n", m->s[i].kappa,
                        rep->nkappa);
                break;
            }
    fprintf(f, "%5s %20s %20s %8s %8s %8s\n", "model", "psill", "range", "kappa", "ang1", "anis1");
    for (int i = 0; i < m->n; i++) {
        const gk_vm_structure *s = &m->s[i];
        fprintf(f, "%5s %20.12g %20.12g %8.4g %8.4g %8.4g\n", gk_vm_type_name(s->type), s->psill,
                s->range, s->kappa, s->anis_angle, s->anis_ratio);
    }
}

/* "1 + x + y + dist.tif": the trend's terms, as gstat's formula would list them. */
static void trend_terms(const vgm_args *va, char *buf, size_t room)
{
    const char *poly = va->drift == GK_DRIFT_LINEAR      ? " + x + y"
                       : va->drift == GK_DRIFT_QUADRATIC ? " + x + y + x^2 + x*y + y^2"
                                                         : "";
    int w = snprintf(buf, room, "1%s", poly);
    for (int k = 0; k < va->n_drift_rasters && w >= 0 && (size_t)w < room; k++)
        w += snprintf(buf + w, room - (size_t)w, " + %s", va->drift_raster[k]);
}

/* The sample variogram, a line per lag and direction: np, dist, gamma in
 * fmt, then the direction in dir_fmt where there are directions. */
static void write_rows(FILE *f, const gk_vgm *v, int directional, const char *fmt,
                       const char *dir_fmt)
{
    for (int a = 0; a < v->ndir; a++)
        for (int k = 0; k < v->nlags; k++) {
            size_t q = (size_t)a * v->nlags + k;
            fprintf(f, fmt, v->np[q], v->dist[q], v->gamma[q]);
            if (directional)
                fprintf(f, dir_fmt, v->azimuth[a]);
            fputc('\n', f);
        }
}

static int write_output(FILE *f, const vgm_args *va, const gk_vgm *v, size_t npts,
                        const gk_vmodel *m, const gk_vgm_report *rep)
{
    int directional = va->vo.ndir > 0;
    if (!strcmp(va->format, "json")) {
        char *s = gk_vgm_to_json(v, m, rep);
        if (!s)
            return -1;
        fputs(s, f);
        fputc('\n', f);
        free(s);
    } else if (!strcmp(va->format, "csv")) {
        fprintf(f, "np,dist,gamma%s\n", directional ? ",dir.hor" : "");
        write_rows(f, v, directional, "%.0f,%.17g,%.17g", ",%.17g");
        if (m)
            write_model_table(stderr, m, rep, va->method);
    } else {
        fprintf(f, "# %zu points, cutoff %.10g, width %.10g, %s estimator\n", npts, v->cutoff,
                v->width, va->vo.estimator == GK_VGM_CRESSIE ? "Cressie-Hawkins" : "Matheron");
        if (rep->drift || rep->n_rasters) {
            char terms[1400];
            trend_terms(va, terms, sizeof terms);
            fprintf(f, "# residuals of the ordinary least-squares trend z ~ %s\n", terms);
        }
        fprintf(f, "%8s %20s %20s%s\n", "np", "dist", "gamma", directional ? "  dir.hor" : "");
        write_rows(f, v, directional, "%8.0f %20.12g %20.12g", " %8g");
        if (m) {
            fputc('\n', f);
            write_model_table(f, m, rep, va->method);
        }
    }
    return ferror(f) ? -1 : 0;
}

/* The fit: one model (--fit, --model), or the best of the candidates of
 * --fit-best, each tried with every kappa of --fit-kappa where it has Mat
 * or Ste (gk_variogram_fit_best, gstat's fit.variogram with a model list and
 * fit.kappa). */
static int fit_models(gk_context *ctx, const vgm_args *va, const gk_vgm *v, gk_vmodel *model,
                      gk_vmodel *cand, int ncand, gk_fit_result *cand_fit, gk_vgm_report *rep,
                      gk_fit_result *fr)
{
    gk_fit_options fo = {va->method, 1, 1};
    double *kappa = NULL;
    int nkappa = 0, rc;
    if (va->fa.fit_kappa && (rc = gk_vgm_kappa_list(ctx, va->fa.fit_kappa, &kappa, &nkappa)))
        return rc;
    if (!va->fa.fit_best && !nkappa) {
        rc = gk_variogram_fit(ctx, v, -1, model, &fo, fr);
    } else {
        int one = !va->fa.fit_best, kept = -1;
        if (one) { /* --fit or --model with --fit-kappa: a list of one */
            cand[0] = *model;
            ncand = 1;
        }
        int with_kappa = 0;
        for (int c = 0; c < ncand; c++)
            for (int i = 0; i < cand[c].n; i++)
                with_kappa |= cand[c].s[i].type == GK_VM_MAT || cand[c].s[i].type == GK_VM_STE;
        if (nkappa && !with_kappa)
            rc = gk_error(ctx, GK_ERR_ARG,
                          "--fit-kappa: the kappa search is for Mat and Ste structures and %s "
                          "none (--fit Nug,Mat, or Mat or Ste among --fit-best's candidates)",
                          one ? "the model has" : "the candidates have");
        else
            rc =
                gk_variogram_fit_best(ctx, v, -1, cand, ncand, kappa, nkappa, &fo, cand_fit, &kept);
        if (!rc) {
            *model = cand[kept];
            *fr = cand_fit[kept];
            rep->nkappa = nkappa;
            if (!one) {
                rep->ncand = ncand;
                rep->kept = kept;
                rep->cand = cand;
                rep->cand_fit = cand_fit;
            }
        }
    }
    free(kappa);
    if (rc)
        return rc;
    rep->fit = fr;
    if (!fr->converged)
        fprintf(stderr, "gridkit variogram: warning: no convergence after %d iterations\n",
                fr->iterations);
    return GK_OK;
}

static int run(gk_context *ctx, int argc, char **argv)
{
    vgm_args va;
    char **rest = NULL;
    int nrest = 0;
    gk_grid_options *o = NULL;
    gk_source_points sp = {0};
    gk_points *resid = NULL; /* --drift: the points with their residuals */
    gk_vgm v = {0};
    gk_vmodel model, cand[GK_VM_MAX_CANDIDATES];
    gk_fit_result fr, cand_fit[GK_VM_MAX_CANDIDATES];
    gk_vgm_report rep;
    memset(&rep, 0, sizeof rep);
    int ncand = 0;
    char *out = NULL, *plot = NULL; /* the files -o and --plot write (io/output_check.h) */
    gk_inputs *inputs = NULL;
    int have_model = 0;
    int rc = parse_args(ctx, argc, argv, &va, &rest, &nrest);
    if (rc)
        goto done;
    if (va.fa.fit && (rc = gk_vgm_build_model(ctx, &va.fa, &model)))
        goto done;
    if (va.fa.fit_best && (rc = gk_vgm_build_candidates(ctx, &va.fa, cand, &ncand)))
        goto done;
    if (va.model && (rc = gk_vmodel_read_json(ctx, va.model, &model)))
        goto done;
    o = gk_grid_options_new(ctx, nrest, rest);
    if (!o) {
        rc = 1;
        goto done;
    }
    if (gk_grid_options_destination(o)) {
        rc = gk_error(ctx, GK_ERR_ARG, "unexpected argument '%s' (one source only; try --help)",
                      gk_grid_options_destination(o));
        goto done;
    }
    /* under MPI every rank sums its pairs; rank 0 alone fits and writes */
    const gk_world *world = gk_world_get();
    const int rank = gk_world_rank(world);
    /* outputs checked before the work: no input, no device, FIFO or link */
    if (rank == 0 && (va.out || va.plot)) {
        if (!(inputs = gk_grid_inputs(ctx, o, NULL)) ||
            gk_inputs_add_file(inputs, va.model) != GK_OK) {
            rc = gk_error(ctx, GK_ERR_NOMEM, "out of memory listing the inputs");
            goto done;
        }
        for (int k = 0; k < va.n_drift_rasters && !rc; k++)
            rc = gk_inputs_add(inputs, va.drift_raster[k], NULL);
        if (rc || (va.out && !(out = gk_output_prepare(ctx, "-o", va.out, inputs))) ||
            (va.plot && !(plot = gk_output_prepare(ctx, "--plot", va.plot, inputs)))) {
            rc = rc ? gk_error(ctx, rc, "out of memory listing the inputs") : gk_errno(ctx);
            goto done;
        }
    }
    if (out && plot && gk_output_same_name(out, plot)) {
        rc = gk_error(ctx, GK_ERR_ARG, "-o %s and --plot %s are the same file", va.out, va.plot);
        goto done;
    }
    if ((rc = gk_grid_options_apply_threads(ctx, o)))
        goto done;
    if ((rc = gk_world_read_points(gk_world_get(), ctx, o, 1, &sp)))
        goto done;
    if (sp.n_layers != 1) {
        rc = gk_error(ctx, GK_ERR_ARG, "%s: %d layers selected; choose one with -l",
                      gk_grid_options_source(o), sp.n_layers);
        goto done;
    }
    const gk_points *pts = sp.layers[0].pts;
    if (va.drift != GK_DRIFT_NONE || va.n_drift_rasters > 0) {
        /* every rank takes the same residuals from the same points */
        if ((rc = gk_vgm_trend_points(ctx, gk_grid_options_source(o), pts, va.drift,
                                      va.n_drift_rasters, va.drift_raster, va.drift_bilinear,
                                      &resid)))
            goto done;
        pts = resid;
        rep.drift = va.drift == GK_DRIFT_LINEAR      ? "linear"
                    : va.drift == GK_DRIFT_QUADRATIC ? "quadratic"
                                                     : NULL;
        rep.n_rasters = va.n_drift_rasters;
        rep.rasters = va.drift_raster;
    }
    if (va.have_indicator) {
        if (resid || va.normal_score) {
            rc = gk_error(ctx, GK_ERR_ARG,
                          "--indicator goes with neither --drift nor --normal-score");
            goto done;
        }
        /* the values indicator kriging kriges for this cut-off: I(z < C) */
        const size_t n = gk_points_count(pts);
        double *x, *y, *z;
        size_t below = 0;
        if (!(resid = gk_points_new(ctx)) || gk_points_extend(resid, n, &x, &y, &z)) {
            rc = gk_error(ctx, GK_ERR_NOMEM, "out of memory");
            goto done;
        }
        memcpy(x, gk_points_x(pts), n * sizeof *x);
        memcpy(y, gk_points_y(pts), n * sizeof *y);
        for (size_t i = 0; i < n; i++)
            below += (z[i] = gk_points_z(pts)[i] < va.indicator ? 1.0 : 0.0) != 0;
        if (below == 0 || below == n) {
            rc = gk_error(ctx, GK_ERR_ARG, "--indicator %g: %s of the %zu values %s below it",
                          va.indicator, below ? "all" : "none", n, below ? "are" : "is");
            goto done;
        }
        pts = resid;
    }
    if (va.normal_score) {
        if (resid) {
            rc = gk_error(ctx, GK_ERR_ARG,
                          "--normal-score and --drift: simulation with transform=normal_score "
                          "has no drift");
            goto done;
        }
        /* the values simulation's transform=normal_score kriges */
        const size_t n = gk_points_count(pts);
        double *x, *y, *z;
        if (!(resid = gk_points_new(ctx)) || gk_points_extend(resid, n, &x, &y, &z)) {
            rc = gk_error(ctx, GK_ERR_NOMEM, "out of memory");
            goto done;
        }
        memcpy(x, gk_points_x(pts), n * sizeof *x);
        memcpy(y, gk_points_y(pts), n * sizeof *y);
        if ((rc = gk_normal_scores(ctx, gk_points_z(pts), n, z))) {
            gk_error(ctx, rc, "%s: %s", gk_grid_options_source(o), gk_errmsg(ctx));
            goto done;
        }
        pts = resid;
    }
    gk_note_progress_state ps = {{0, 0}, "variogram"};
    rc = gk_world_variogram(ctx, world, pts, &va.vo, o->quiet ? NULL : gk_term_progress_notes, &ps,
                            &v);
    gk_term_progress_end(&ps.term);
    if (rc || rank > 0)
        goto done;
    if (va.fa.fit || va.fa.fit_best || va.model) {
        have_model = 1;
        if (!va.fa.no_fit &&
            (rc = fit_models(ctx, &va, &v, &model, cand, ncand, cand_fit, &rep, &fr)))
            goto done;
    }
    /* output: a table under a temporary name, renamed when complete */
    FILE *f = stdout;
    char *tmp = NULL;
    if (out) {
        tmp = gk_output_temp_name(out, "", NULL);
        if (!tmp) {
            rc = gk_error(ctx, GK_ERR_NOMEM, "-o %s: out of memory", va.out);
            goto done;
        }
        f = gk_output_open_temp(ctx, "-o", va.out, tmp);
        if (!f) {
            rc = gk_errno(ctx);
            free(tmp);
            goto done;
        }
        gk_cancel_watch(tmp);
    }
    int wr = write_output(f, &va, &v, gk_points_count(pts), have_model ? &model : NULL, &rep);
    if (out) {
        int werr = wr ? errno : 0;
        if (fclose(f) != 0 && !werr)
            werr = errno ? errno : EIO;
        if (wr || werr) {
            unlink(tmp);
            gk_cancel_forget(tmp);
            rc = gk_error(ctx, GK_ERR_IO, "-o %s: cannot write the file: %s", va.out,
                          strerror(werr ? werr : EIO));
        } else {
            rc = gk_output_commit_file(ctx, "-o", tmp, out);
        }
        free(tmp);
        if (rc)
            goto done;
    } else if (wr || fflush(stdout)) {
        rc = gk_error(ctx, GK_ERR_IO, "cannot write to standard output");
        goto done;
    }
    if (va.plot) {
        char sub[128];
        snprintf(sub, sizeof sub, "(%zu points, %s%s)", gk_points_count(pts),
                 va.vo.estimator == GK_VGM_CRESSIE ? "Cressie-Hawkins" : "Matheron",
                 resid ? ", trend residuals" : "");
        rc = gk_plot_variogram(ctx, plot, &v, have_model ? &model : NULL, sub);
    }
done:
    free(out);
    free(plot);
    gk_inputs_free(inputs);
    gk_vgm_free(&v);
    gk_points_free(resid);
    gk_source_points_free(&sp);
    gk_grid_options_free(o);
    free(rest);
    return rc;
}

int gk_cmd_variogram(int argc, char **argv)
{
    if (argc == 0) {
        fputs(usage_text, stderr);
        return 1;
    }
    return gk_cli_run("variogram", usage_text, "failed", run, argc, argv);
}
