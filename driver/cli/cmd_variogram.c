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
#include "lib/grid_options.h"
#include "lib/gridkit_lib.h"
#include "io/output_check.h"
#include "cli/plot_variogram.h"
#include "io/replace_output.h"
#include "io/vmodel_json.h"

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
    "variogram(z ~ 1), and optionally a weighted least-squares model fit as gstat's\n"
    "fit.variogram().\n"
    "\n"
    "Source options (as gridkit grid): -l LAYER, -where EXPR, -sql SQL,\n"
    "  -spat XMIN YMIN XMAX YMAX, -clipsrc ..., -zfield FIELD, -z_increase V,\n"
    "  -z_multiply V, -oo NAME=VALUE, --threads N\n"
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
    "                     \"model\", \"fit\"}, readable by -a kriging:variogram=FILE\n"
    "  -o FILE            write to FILE instead of stdout\n"
    "  --plot FILE        chart of the variogram and the model (.png or .svg)\n";

typedef struct {
    gk_vgm_options vo;
    const char *model; /* --model FILE.json */
    const char *fit, *nugget, *psill, *range, *kappa, *anis, *format, *out, *plot;
    int method, no_fit;
} vgm_args;

static int parse_num(gk_context *ctx, const char *opt, const char *s, double *v)
{
    char *end;
    if (!s || !*s)
        return gk_error(ctx, GK_ERR_ARG, "%s: missing number", opt);
    double d = strtod(s, &end);
    while (*end == ' ')
        end++;
    if (*end != '\0' || !isfinite(d))
        return gk_error(ctx, GK_ERR_ARG, "%s: '%s' is not a number", opt, s);
    *v = d;
    return GK_OK;
}

/* comma-separated numbers; returns the count or -1 on error */
static int parse_list(gk_context *ctx, const char *opt, const char *s, double *v, int max)
{
    int n = 0;
    char buf[64];
    const char *p = s;
    while (1) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len >= sizeof buf || n >= max) {
            gk_error(ctx, GK_ERR_ARG, "%s: too many or too long values in '%s'", opt, s);
            return -1;
        }
        memcpy(buf, p, len);
        buf[len] = '\0';
        if (parse_num(ctx, opt, buf, &v[n]))
            return -1;
        n++;
        if (!c)
            break;
        p = c + 1;
    }
    return n;
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
        static const char *const own[] = {"--cutoff",     "--width",  "--lags",   "--estimator",
                                          "--direction",  "--tolerance", "--bandwidth", "--fit",
                                          "--fit-method", "--nugget", "--psill",  "--range",
                                          "--kappa",      "--anis",   "--format", "-o",
                                          "--plot", "-of", "--output-format", "--model"};
        int k, is_own = -1;
        for (k = 0; k < (int)(sizeof own / sizeof own[0]); k++)
            if (!strcmp(a, own[k]))
                is_own = k;
        if (is_own < 0) {
            if (!strcmp(a, "--no-fit")) {
                va->no_fit = 1;
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
            if (!(rc = parse_num(ctx, a, val, &va->vo.cutoff)) && va->vo.cutoff <= 0)
                rc = gk_error(ctx, GK_ERR_ARG, "--cutoff must be positive, not %s", val);
            break;
        case 1:
            if (!(rc = parse_num(ctx, a, val, &va->vo.width)) && va->vo.width <= 0)
                rc = gk_error(ctx, GK_ERR_ARG, "--width must be positive, not %s", val);
            break;
        case 2:
            if (!(rc = parse_num(ctx, a, val, &d)) && (d < 1 || d > 1e6 || d != floor(d)))
                rc = gk_error(ctx, GK_ERR_ARG, "--lags must be a whole number >= 1, not %s", val);
            va->vo.nlags = (int)d;
            break;
        case 3:
            if (!strcmp(val, "matheron"))
                va->vo.estimator = GK_VGM_MATHERON;
            else if (!strcmp(val, "cressie"))
                va->vo.estimator = GK_VGM_CRESSIE;
            else
                rc = gk_error(ctx, GK_ERR_ARG, "--estimator: '%s' is not matheron or cressie",
                              val);
            break;
        case 4: {
            int n = parse_list(ctx, a, val, va->vo.azimuth, GK_VGM_MAX_DIRECTIONS);
            if (n < 0)
                rc = gk_errno(ctx);
            va->vo.ndir = n < 0 ? 0 : n;
            break;
        }
        case 5:
            if (!(rc = parse_num(ctx, a, val, &va->vo.tol_hor)) &&
                (va->vo.tol_hor <= 0 || va->vo.tol_hor > 180))
                rc = gk_error(ctx, GK_ERR_ARG, "--tolerance must be in (0, 180], not %s", val);
            break;
        case 6:
            if (!(rc = parse_num(ctx, a, val, &va->vo.bandwidth)) && va->vo.bandwidth <= 0)
                rc = gk_error(ctx, GK_ERR_ARG, "--bandwidth must be positive, not %s", val);
            break;
        case 7: va->fit = val; break;
        case 8:
            if (!(rc = parse_num(ctx, a, val, &d)) && d != 1 && d != 2 && d != 6 && d != 7)
                rc = gk_error(ctx, GK_ERR_ARG, "--fit-method must be 1, 2, 6 or 7, not %s", val);
            va->method = (int)d;
            break;
        case 9: va->nugget = val; break;
        case 10: va->psill = val; break;
        case 11: va->range = val; break;
        case 12: va->kappa = val; break;
        case 13: va->anis = val; break;
        case 14:
        case 17:
        case 18:
            if (strcmp(val, "table") && strcmp(val, "csv") && strcmp(val, "json"))
                rc = gk_error(ctx, GK_ERR_ARG, "%s: '%s' is not table, csv or json", a, val);
            va->format = val;
            break;
        case 15: va->out = val; break;
        case 16: {
            size_t L = strlen(val);
            if (L < 5 || (strcasecmp(val + L - 4, ".png") && strcasecmp(val + L - 4, ".svg")))
                rc = gk_error(ctx, GK_ERR_ARG, "--plot %s: the file name must end in .png or .svg",
                              val);
            va->plot = val;
            break;
        }
        case 19: va->model = val; break;
        }
        if (rc) {
            free(r);
            return rc;
        }
    }
    if (!va->format)
        va->format = "table";
    if (va->model && va->fit)
        return free(r), gk_error(ctx, GK_ERR_ARG, "give either --fit or --model, not both");
    if (!va->fit && (va->nugget || va->psill || va->range || va->kappa || va->anis))
        return free(r), gk_error(ctx, GK_ERR_ARG,
                                 "--nugget, --psill, --range, --kappa and --anis need --fit MODEL");
    if (va->no_fit && !va->fit && !va->model)
        return free(r), gk_error(ctx, GK_ERR_ARG, "--no-fit needs --fit MODEL or --model FILE");
    *rest = r;
    *nrest = nr;
    return GK_OK;
}

/* The model of --fit and the start values. */
static int build_model(gk_context *ctx, const vgm_args *va, gk_vmodel *m)
{
    memset(m, 0, sizeof *m);
    char names[256];
    if (strlen(va->fit) >= sizeof names)
        return gk_error(ctx, GK_ERR_ARG, "--fit: model list too long");
    strcpy(names, va->fit);
    int nug = -1;
    for (char *tok = strtok(names, ",+ "); tok; tok = strtok(NULL, ",+ ")) {
        if (m->n >= GK_VM_MAX_STRUCTURES)
            return gk_error(ctx, GK_ERR_ARG, "--fit: at most %d structures", GK_VM_MAX_STRUCTURES);
        gk_vm_structure *s = &m->s[m->n];
        if (gk_vm_type_from_name(tok, &s->type))
            return gk_error(ctx, GK_ERR_ARG,
                            "--fit: unknown variogram model '%s' (use Nug, Sph, Exp, Gau, Mat, "
                            "Ste, Exc, Cir, Pen, Lin, Pow, Hol)",
                            tok);
        if (s->type == GK_VM_NUG) {
            if (nug >= 0)
                return gk_error(ctx, GK_ERR_ARG, "--fit: Nug listed twice");
            nug = m->n;
        }
        s->psill = NAN;
        s->range = s->type == GK_VM_NUG ? 0.0 : NAN;
        s->kappa = 0.5;
        s->anis_angle = 0.0;
        s->anis_ratio = 1.0;
        m->n++;
    }
    if (m->n == 0)
        return gk_error(ctx, GK_ERR_ARG, "--fit: no model given");
    if (va->nugget) {
        double v = 0.0;
        if (parse_num(ctx, "--nugget", va->nugget, &v))
            return gk_errno(ctx);
        if (v < 0)
            return gk_error(ctx, GK_ERR_ARG, "--nugget must be >= 0, not %s", va->nugget);
        if (nug < 0) { /* prepend, as vgm(..., nugget) puts it first */
            if (m->n >= GK_VM_MAX_STRUCTURES)
                return gk_error(ctx, GK_ERR_ARG, "--fit: at most %d structures",
                                GK_VM_MAX_STRUCTURES);
            memmove(&m->s[1], &m->s[0], m->n * sizeof m->s[0]);
            m->n++;
            nug = 0;
            m->s[0] = (gk_vm_structure){GK_VM_NUG, v, 0.0, 0.5, 0.0, 1.0};
        }
        m->s[nug].psill = v;
    }
    int idx[GK_VM_MAX_STRUCTURES], ns = 0;
    for (int i = 0; i < m->n; i++)
        if (m->s[i].type != GK_VM_NUG)
            idx[ns++] = i;
    struct {
        const char *opt, *val;
        int what;
    } lists[3] = {{"--psill", va->psill, 0}, {"--range", va->range, 1}, {"--kappa", va->kappa, 2}};
    for (int l = 0; l < 3; l++) {
        if (!lists[l].val)
            continue;
        double v[GK_VM_MAX_STRUCTURES];
        int n = parse_list(ctx, lists[l].opt, lists[l].val, v, GK_VM_MAX_STRUCTURES);
        if (n < 0)
            return gk_errno(ctx);
        if (n != ns && !(n == 1 && lists[l].what == 2))
            return gk_error(ctx, GK_ERR_ARG,
                            "%s: %d value%s for %d non-nugget structure%s", lists[l].opt, n,
                            n == 1 ? "" : "s", ns, ns == 1 ? "" : "s");
        for (int k = 0; k < ns; k++) {
            double x = v[n == 1 ? 0 : k];
            gk_vm_structure *s = &m->s[idx[k]];
            if (lists[l].what == 0) {
                if (x < 0)
                    return gk_error(ctx, GK_ERR_ARG, "--psill must be >= 0, not %.15g", x);
                s->psill = x;
            } else if (lists[l].what == 1) {
                if (x < 0 || (x == 0 && s->type != GK_VM_LIN))
                    return gk_error(ctx, GK_ERR_ARG, "--range must be positive, not %.15g", x);
                s->range = x;
            } else {
                s->kappa = x;
            }
        }
    }
    if (va->anis) {
        double v[2];
        int n = parse_list(ctx, "--anis", va->anis, v, 2);
        if (n < 0)
            return gk_errno(ctx);
        if (n != 2)
            return gk_error(ctx, GK_ERR_ARG, "--anis needs ANGLE,RATIO");
        if (!(v[1] > 0 && v[1] <= 1) || !(v[0] >= 0 && v[0] < 360))
            return gk_error(ctx, GK_ERR_ARG,
                            "--anis: angle must be in [0, 360) and ratio in (0, 1], not %s",
                            va->anis);
        for (int k = 0; k < ns; k++) {
            m->s[idx[k]].anis_angle = v[0];
            m->s[idx[k]].anis_ratio = v[1];
        }
    }
    if (va->no_fit) {
        for (int i = 0; i < m->n; i++)
            if (isnan(m->s[i].psill) || isnan(m->s[i].range))
                return gk_error(ctx, GK_ERR_ARG,
                                "--no-fit: give every start value (--psill, --range, --nugget)");
        return gk_vmodel_check(ctx, m);
    }
    return GK_OK;
}

static void write_model_table(FILE *f, const gk_vmodel *m, const gk_fit_result *fr, int method)
{
    if (fr)
        fprintf(f, "# model: fit method %d, SSErr %.10g, %d iterations%s\n", method, fr->sserr,
                fr->iterations, fr->converged ? "" : ", NO CONVERGENCE");
    else
        fprintf(f, "# model (not fitted)\n");
    fprintf(f, "%5s %20s %20s %8s %8s %8s\n", "model", "psill", "range", "kappa", "ang1",
            "anis1");
    for (int i = 0; i < m->n; i++) {
        const gk_vm_structure *s = &m->s[i];
        fprintf(f, "%5s %20.12g %20.12g %8.4g %8.4g %8.4g\n", gk_vm_type_name(s->type), s->psill,
                s->range, s->kappa, s->anis_angle, s->anis_ratio);
    }
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
                        const gk_vmodel *m, const gk_fit_result *fr)
{
    int directional = va->vo.ndir > 0;
    if (!strcmp(va->format, "json")) {
        char *s = gk_vgm_to_json(v, m, fr);
        if (!s)
            return -1;
        fputs(s, f);
        fputc('\n', f);
        free(s);
    } else if (!strcmp(va->format, "csv")) {
        fprintf(f, "np,dist,gamma%s\n", directional ? ",dir.hor" : "");
        write_rows(f, v, directional, "%.0f,%.17g,%.17g", ",%.17g");
        if (m)
            write_model_table(stderr, m, fr, va->method);
    } else {
        fprintf(f, "# %zu points, cutoff %.10g, width %.10g, %s estimator\n", npts, v->cutoff,
                v->width, va->vo.estimator == GK_VGM_CRESSIE ? "Cressie-Hawkins" : "Matheron");
        fprintf(f, "%8s %20s %20s%s\n", "np", "dist", "gamma", directional ? "  dir.hor" : "");
        write_rows(f, v, directional, "%8.0f %20.12g %20.12g", " %8g");
        if (m) {
            fputc('\n', f);
            write_model_table(f, m, fr, va->method);
        }
    }
    return ferror(f) ? -1 : 0;
}

static int run(gk_context *ctx, int argc, char **argv)
{
    vgm_args va;
    char **rest = NULL;
    int nrest = 0;
    gk_grid_options *o = NULL;
    gk_source_points sp = {0};
    gk_vgm v = {0};
    gk_vmodel model;
    gk_fit_result fr;
    char *out = NULL, *plot = NULL; /* the files -o and --plot write (io/output_check.h) */
    int have_model = 0, fitted = 0;
    int rc = parse_args(ctx, argc, argv, &va, &rest, &nrest);
    if (rc)
        goto done;
    if (va.fit && (rc = build_model(ctx, &va, &model)))
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
    /* outputs checked before the work: no input, no device, FIFO or link */
    const char *inputs[3] = {o->src, o->clipsrc, va.model};
    /* under MPI every rank sums its pairs; rank 0 alone fits and writes */
    const gk_world *world = gk_world_get();
    const int rank = gk_world_rank(world);
    if (rank == 0 &&
        ((va.out && !(out = gk_output_prepare(ctx, "-o", va.out, inputs, 3))) ||
         (va.plot && !(plot = gk_output_prepare(ctx, "--plot", va.plot, inputs, 3))))) {
        rc = gk_errno(ctx);
        goto done;
    }
    if (out && plot && gk_output_same_name(out, plot)) {
        rc = gk_error(ctx, GK_ERR_ARG, "-o %s and --plot %s are the same file", va.out, va.plot);
        goto done;
    }
    if ((rc = gk_grid_options_apply_threads(ctx, o)))
        goto done;
    if ((rc = gk_grid_options_read_points(ctx, o, 1, &sp)))
        goto done;
    if (sp.n_layers != 1) {
        rc = gk_error(ctx, GK_ERR_ARG, "%s: %d layers selected; choose one with -l",
                      gk_grid_options_source(o), sp.n_layers);
        goto done;
    }
    const gk_points *pts = sp.layers[0].pts;
    if ((rc = gk_world_variogram(ctx, world, pts, &va.vo, &v)) || rank > 0)
        goto done;
    if (va.fit || va.model) {
        have_model = 1;
        if (!va.no_fit) {
            gk_fit_options fo = {va.method, 1, 1};
            if ((rc = gk_variogram_fit(ctx, &v, -1, &model, &fo, &fr)))
                goto done;
            fitted = 1;
            if (!fr.converged)
                fprintf(stderr, "gridkit variogram: warning: no convergence after %d iterations\n",
                        fr.iterations);
        }
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
    int wr = write_output(f, &va, &v, gk_points_count(pts), have_model ? &model : NULL,
                          fitted ? &fr : NULL);
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
        snprintf(sub, sizeof sub, "(%zu points, %s)", gk_points_count(pts),
                 va.vo.estimator == GK_VGM_CRESSIE ? "Cressie-Hawkins" : "Matheron");
        rc = gk_plot_variogram(ctx, plot, &v, have_model ? &model : NULL, sub);
    }
done:
    free(out);
    free(plot);
    gk_vgm_free(&v);
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
