/* SPDX-License-Identifier: MIT */
/*
 * spline/surface.c - -a surface: GMT 6.4's continuous-curvature splines in
 * tension (gmt surface -r; Smith & Wessel 1990), with its names: tension
 * (-T, interior and edges), btension (-Tb), converge (-C, z units), maxiter
 * (-N), relax (-Z), aspect (-A), lower and upper (-Ll, -Lu: a value or
 * "data").
 *
 * The surface is a property of the whole grid, not of a node's
 * neighbourhood: the first tile of a grid solves it (surface_solve.c, on the
 * context's threads) and every tile copies its part, so tiles, strips and
 * processes see the same grid.
 */
#include "core/method.h"
#include "surface_solve.h"

#include <omp.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
    double tension, btension, converge, relax, aspect, lower, upper;
    int maxiter, btension_given, lower_mode, upper_mode;
    double cv_cell; /* cross-validation's cells (0: the points' mean spacing) */
    int cv;         /* set by cross-validation (surface_cv_adjust) */
} surface_params;
GK_ALG_OWN_FITS(surface_params);

static surface_params *params_of(gk_algorithm *a) { return GK_ALG_OWN(surface_params, a); }
static const surface_params *cparams_of(const gk_algorithm *a)
{
    return GK_ALG_OWN(const surface_params, a);
}

/* ---- parameters -------------------------------------------------------- */

static int limit_key(gk_context *ctx, const char *k, const char *val, int *mode, double *v)
{
    if (!strcasecmp(val, "data")) {
        *mode = GK_SURF_LIMIT_DATA;
        return GK_OK;
    }
    if (gk_param_finite(ctx, "surface", k, val, v))
        return GK_ERR_ARG;
    *mode = GK_SURF_LIMIT_VALUE;
    return GK_OK;
}

static int key(gk_context *ctx, const char *spec, const char *k, const char *val, gk_algorithm *a)
{
    surface_params *p = params_of(a);
    double d;
    if (!strcasecmp(k, "lower"))
        return limit_key(ctx, k, val, &p->lower_mode, &p->lower);
    if (!strcasecmp(k, "upper"))
        return limit_key(ctx, k, val, &p->upper_mode, &p->upper);
    if (gk_param_finite(ctx, "surface", k, val, &d))
        return GK_ERR_ARG;
    if (!strcasecmp(k, "tension") || !strcasecmp(k, "btension")) {
        if (!(d >= 0 && d < 1))
            return gk_error(ctx, GK_ERR_ARG, "-a surface: %s=%s must be from 0 to below 1", k,
                            val);
        if (!strcasecmp(k, "tension"))
            p->tension = d;
        else
            p->btension = d, p->btension_given = 1;
    } else if (!strcasecmp(k, "converge")) {
        if (!(d >= 0))
            return gk_error(ctx, GK_ERR_ARG,
                            "-a surface: converge=%s must be >= 0 (z units; 0: 1e-4 of the "
                            "residuals' rms)",
                            val);
        p->converge = d;
    } else if (!strcasecmp(k, "maxiter")) {
        if (gk_param_count(ctx, "surface", k, d, &p->maxiter))
            return GK_ERR_ARG;
        if (p->maxiter < 1 || p->maxiter > 100000000)
            return gk_error(ctx, GK_ERR_ARG, "-a surface: maxiter=%s must be from 1 to 1e8", val);
    } else if (!strcasecmp(k, "relax")) {
        if (!(d > 0 && d < 2))
            return gk_error(ctx, GK_ERR_ARG, "-a surface: relax=%s must be between 0 and 2",
                            val);
        p->relax = d;
    } else if (!strcasecmp(k, "cv_cell")) {
        if (!(d >= 0))
            return gk_error(ctx, GK_ERR_ARG, "-a surface: cv_cell=%s must be >= 0", val);
        p->cv_cell = d;
    } else if (!strcasecmp(k, "aspect")) {
        if (!(d > 0))
            return gk_error(ctx, GK_ERR_ARG, "-a surface: aspect=%s must be > 0", val);
        p->aspect = d;
    } else {
        return gk_error(ctx, GK_ERR_ARG,
                        "-a %s: algorithm surface has no parameter '%s' (tension, btension, "
                        "converge, maxiter, relax, aspect, lower, upper, cv_cell)",
                        spec, k);
    }
    return GK_OK;
}

static void add_limit(gk_strbuf *sb, const char *k, int mode, double v)
{
    if (mode == GK_SURF_LIMIT_DATA)
        gk_strbuf_add(sb, ":%s=data", k);
    else if (mode == GK_SURF_LIMIT_VALUE)
        gk_strbuf_add(sb, ":%s=%.17g", k, v);
}

static void canonical(gk_algorithm *a)
{
    const surface_params *p = cparams_of(a);
    gk_strbuf sb = {a->canonical, sizeof a->canonical, 0};
    gk_strbuf_add(&sb,
                  "surface:tension=%.17g:btension=%.17g:converge=%.17g:maxiter=%d:relax=%.17g:"
                  "aspect=%.17g",
                  p->tension, p->btension, p->converge, p->maxiter, p->relax, p->aspect);
    add_limit(&sb, "lower", p->lower_mode, p->lower);
    add_limit(&sb, "upper", p->upper_mode, p->upper);
    if (p->cv_cell > 0)
        gk_strbuf_add(&sb, ":cv_cell=%.17g", p->cv_cell);
}

static int surface_parse(gk_context *ctx, const char *spec, char *save, gk_algorithm *a)
{
    surface_params *p = params_of(a);
    memset(p, 0, sizeof *p);
    p->maxiter = 500; /* GMT's defaults */
    p->relax = 1.4;
    p->aspect = 1.0;
    if (gk_param_pairs(ctx, spec, save, a, key))
        return GK_ERR_ARG;
    if (!p->btension_given) /* GMT's -T<t> sets both */
        p->btension = p->tension;
    if (p->lower_mode == GK_SURF_LIMIT_VALUE && p->upper_mode == GK_SURF_LIMIT_VALUE &&
        !(p->lower < p->upper))
        return gk_error(ctx, GK_ERR_ARG, "-a %s: lower must be below upper", spec);
    canonical(a);
    return GK_OK;
}

/* ---- the method ---------------------------------------------------------- */

typedef struct {
    gk_grid g;
    double *v; /* g's nodes, row 0 north */
} solved;

typedef struct {
    pthread_mutex_t mu;
    solved *s; /* one a grid asked for */
    int ns;
} surface_state;

static void surface_release(gk_job *job)
{
    surface_state *st = job->state;
    if (st) {
        for (int k = 0; k < st->ns; k++)
            free(st->s[k].v);
        free(st->s);
        pthread_mutex_destroy(&st->mu);
        free(st);
    }
    job->state = NULL;
}

static int surface_build(gk_job *job)
{
    surface_state *st = calloc(1, sizeof *st);
    if (!st || pthread_mutex_init(&st->mu, NULL)) {
        free(st);
        return gk_error(job->ctx, GK_ERR_NOMEM, "surface: out of memory");
    }
    job->state = st;
    return GK_OK;
}

static const double *values_of(surface_state *st, const gk_grid *g)
{
    const double *v = NULL;
    for (int k = 0; k < st->ns && !v; k++)
        if (!memcmp(&st->s[k].g, g, sizeof *g))
            v = st->s[k].v;
    return v;
}

/* Cross-validation asks for grids of one cell around a held-out point, on
 * which no surface can be solved: the points' surface over their box (and
 * the cell's) on cells of cv_cell, or of their mean spacing, read at the
 * node bilinearly, as gmt surface then grdtrack would. */
static int cv_values(gk_job *job, const gk_grid *g, const gk_surface_params *sp, double *v)
{
    const gk_points *pts = job->pts;
    const surface_params *p = cparams_of(&job->alg);
    double x0 = g->xmin, x1 = g->xmax, y0 = g->ymin, y1 = g->ymax;
    for (size_t k = 0; k < pts->n; k++) {
        x0 = fmin(x0, pts->x[k]), x1 = fmax(x1, pts->x[k]);
        y0 = fmin(y0, pts->y[k]), y1 = fmax(y1, pts->y[k]);
    }
    double h = p->cv_cell;
    if (!(h > 0))
        h = sqrt((x1 - x0) * (y1 - y0) / (double)(pts->n ? pts->n : 1));
    if (!(h > 0))
        h = fmax(x1 - x0, y1 - y0) / 16;
    if (!(h > 0))
        return gk_error(job->ctx, GK_ERR_ARG,
                        "surface: cross-validation needs the points spread over an area (give "
                        "cv_cell=)");
    int nx = (int)ceil((x1 - x0) / h), ny = (int)ceil((y1 - y0) / h);
    nx = nx < 3 ? 3 : nx, ny = ny < 3 ? 3 : ny;
    if ((double)nx * ny > 16e6)
        return gk_error(job->ctx, GK_ERR_ARG,
                        "surface: cross-validation's grid of %dx%d cells of %g is too large "
                        "(give a larger cv_cell=)",
                        nx, ny, h);
    /* centred on the box, whole cells */
    const double cx = 0.5 * (x0 + x1), cy = 0.5 * (y0 + y1);
    const gk_grid G = {
        cx - 0.5 * nx * h, cx + 0.5 * nx * h, cy - 0.5 * ny * h, cy + 0.5 * ny * h, nx, ny};
    double *all = malloc((size_t)nx * ny * sizeof *all);
    if (!all)
        return gk_error(job->ctx, GK_ERR_NOMEM, "surface: out of memory");
    int rc = gk_surface_solve(job->ctx, pts, &G, sp, all, NULL);
    for (int j = 0; !rc && j < g->ny; j++)
        for (int i = 0; i < g->nx; i++) {
            /* bilinear between the four cell centres around the node (in the
             * outer half cells, the nearest four's, extended) */
            const double fx = (gk_grid_node_x(g, i) - G.xmin) / h - 0.5;
            const double fy = (G.ymax - gk_grid_node_y(g, j)) / h - 0.5;
            const int a = fx < 0 ? 0 : fx >= nx - 1 ? nx - 2 : (int)fx;
            const int b = fy < 0 ? 0 : fy >= ny - 1 ? ny - 2 : (int)fy;
            const double tx = fx - a, ty = fy - b;
            const double *r0 = all + (size_t)b * nx, *r1 = r0 + nx;
            const double top = r0[a] + tx * (r0[a + 1] - r0[a]);
            const double bot = r1[a] + tx * (r1[a + 1] - r1[a]);
            v[(size_t)j * g->nx + i] = top + ty * (bot - top);
        }
    free(all);
    return rc;
}

/* Before grid g's tiles: its surface, once (any thread; the others wait). */
static int surface_grid(gk_job *job, const gk_grid *g)
{
    surface_state *st = job->state;
    const surface_params *p = cparams_of(&job->alg);
    int rc = GK_OK;
    pthread_mutex_lock(&st->mu);
    if (!values_of(st, g) && !p->cv && (rc = gk_surface_check_size(job->ctx, g))) {
        pthread_mutex_unlock(&st->mu);
        return rc;
    }
    if (!values_of(st, g)) {
        const gk_surface_params sp = {.tension = p->tension,
                                      .btension = p->btension,
                                      .converge = p->converge,
                                      .relax = p->relax,
                                      .aspect = p->aspect,
                                      .maxiter = p->maxiter,
                                      .lower_mode = p->lower_mode,
                                      .upper_mode = p->upper_mode,
                                      .lower = p->lower,
                                      .upper = p->upper,
                                      .threads = gk_context_threads(job->ctx) > 0
                                                     ? gk_context_threads(job->ctx)
                                                     : omp_get_num_procs(),
                                      .ctx = job->ctx};
        solved *grown = realloc(st->s, (size_t)(st->ns + 1) * sizeof *grown);
        double *v = malloc((size_t)g->nx * g->ny * sizeof *v);
        if (grown)
            st->s = grown;
        if (!grown || !v) {
            free(v);
            rc = gk_error(job->ctx, GK_ERR_NOMEM, "-a surface: out of memory for a %dx%d grid",
                          g->nx, g->ny);
        } else {
            gk_surface_info info = {0};
            info.converged = 1;
            rc = p->cv ? cv_values(job, g, &sp, v)
                       : gk_surface_solve(job->ctx, job->pts, g, &sp, v, &info);
            if (rc) {
                free(v);
            } else {
                st->s[st->ns++] = (solved){*g, v};
                char conv[160] = "", unused[200] = "";
                if (!info.converged)
                    snprintf(conv, sizeof conv,
                             "the sweeps stopped at maxiter=%d before the largest change fell "
                             "to converge (raise maxiter)",
                             p->maxiter);
                if (info.unusable)
                    snprintf(unused, sizeof unused,
                             "%zu of %zu points in the grid are not the nearest of their node "
                             "and were not used (GMT: pre-process with blockmean)",
                             info.unusable, info.used + info.unusable);
                if (*conv || *unused)
                    snprintf(job->warning, sizeof job->warning, "surface: %s%s%s", conv,
                             *conv && *unused ? "; " : "", unused);
            }
        }
    }
    pthread_mutex_unlock(&st->mu);
    return rc;
}

static uint64_t surface_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *scr)
{
    (void)scr;
    surface_state *st = job->state;
    pthread_mutex_lock(&st->mu);
    const double *v = values_of(st, t->g);
    pthread_mutex_unlock(&st->mu);
    if (!v)
        return UINT64_MAX; /* surface_grid ran before the tiles: not here */
    for (int j = 0; j < t->h; j++)
        memcpy(out + (size_t)j * t->w, v + (size_t)(t->y0 + j) * t->g->nx + t->x0,
               (size_t)t->w * sizeof *out);
    return 0;
}

static void surface_cv_adjust(gk_algorithm *a) { params_of(a)->cv = 1; }

const gk_method gk_method_surface = {
    .name = "surface",
    .kind = GK_ALG_SURFACE,
    .summary = "continuous-curvature splines in tension as GMT's surface computes them "
               "(minimum curvature at tension 0)",
    .parse = surface_parse,
    .own_keys = "tension, btension, converge, maxiter, relax, aspect, lower, upper, cv_cell",
    .build = surface_build,
    .release = surface_release,
    .cpu_tile = surface_tile,
    .grid_prepare = surface_grid,
    .cv_adjust = surface_cv_adjust,
};
