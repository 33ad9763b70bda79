/* SPDX-License-Identifier: MIT */
/*
 * ridges.c - gk_ridges(): the points checked and interleaved into a cloud,
 * the method's graph (curve.c, density.c), the graph's lines (lines.c).
 */
#include "ridges_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The points with finite coordinates, interleaved; *skipped the others. */
static int make_cloud(gk_context *ctx, const gk_points *pts, int dim, gk_cloud *c, size_t *skipped)
{
    size_t n = gk_points_count(pts);
    const double *x = gk_points_x(pts), *y = gk_points_y(pts), *z = gk_points_z(pts);
    c->dim = dim;
    c->n = 0;
    c->p = malloc((n ? n : 1) * dim * sizeof *c->p);
    if (!c->p)
        return gk_error(ctx, GK_ERR_NOMEM, "ridges: out of memory for %zu points", n);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i]) || (dim == 3 && !isfinite(z[i])))
            continue;
        double *p = c->p + c->n++ * dim;
        p[0] = x[i];
        p[1] = y[i];
        if (dim == 3)
            p[2] = z[i];
    }
    *skipped = n - c->n;
    return GK_OK;
}

/* Fewer than 3 points, too many, or all at one place: an error. */
static int check_cloud(gk_context *ctx, const gk_cloud *c, size_t skipped)
{
    if (c->n < 3)
        return gk_error(ctx, GK_ERR_NO_POINTS,
                        "ridges: %zu point%s with finite coordinates (%zu skipped for NaN or "
                        "infinite ones); at least 3 are needed to trace a line",
                        c->n, c->n == 1 ? "" : "s", skipped);
    if (c->n > INT32_MAX)
        return gk_error(ctx, GK_ERR_UNSUPPORTED, "ridges: %zu points; at most %d are supported",
                        c->n, INT32_MAX);
    for (size_t i = 1; i < c->n; i++)
        if (memcmp(c->p + i * c->dim, c->p, c->dim * sizeof *c->p))
            return GK_OK;
    return gk_error(ctx, GK_ERR_ARG,
                    "ridges: all %zu points are at the same place (%.15g, %.15g%s); no line passes "
                    "through a single place",
                    c->n, c->p[0], c->p[1], c->dim == 3 ? ", ..." : "");
}

/* Extents within [2^-64, 2^65) run as they are; others in a frame scaled
 * by a power of two to an extent in [1, 2): exact (a power of two changes
 * only the exponent), so that the methods' squares, cubes and sixth powers
 * of lengths (variances, their determinants) stay within double's range
 * at any scale, and a ring at 1e-100 is traced as at 1. */
#define FRAME_MIN_EXP (-64)
#define FRAME_MAX_EXP 64

typedef struct {
    int e;           /* the run's coordinates are the points' times 2^-e */
    int flat[3];     /* an axis where every point has one value: 0 in the frame */
    double value[3]; /* that value */
} ridge_frame;

/* The frame of cloud c, and c moved into it. */
static void frame_in(gk_cloud *c, ridge_frame *f)
{
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, half = 0.0;
    memset(f, 0, sizeof *f);
    for (int k = 0; k < c->dim; k++) {
        lo[k] = hi[k] = c->p[k];
        for (size_t i = 1; i < c->n; i++) {
            double v = c->p[i * (size_t)c->dim + k];
            lo[k] = v < lo[k] ? v : lo[k];
            hi[k] = v > hi[k] ? v : hi[k];
        }
        half = fmax(half, hi[k] / 2 - lo[k] / 2); /* never overflows */
    }
    if (!(half > 0.0))
        return;
    const int e = ilogb(half) + 1; /* half in [2^(e-1), 2^e): the extent in [2^e, 2^(e+1)) */
    if (e >= FRAME_MIN_EXP && e <= FRAME_MAX_EXP)
        return;
    f->e = e;
    for (int k = 0; k < c->dim; k++)
        if ((f->flat[k] = lo[k] == hi[k]))
            f->value[k] = lo[k];
    for (size_t i = 0; i < c->n; i++)
        for (int k = 0; k < c->dim; k++) {
            double *v = c->p + i * (size_t)c->dim + k;
            *v = f->flat[k] ? 0.0 : ldexp(*v, -e);
        }
}

/* A length key of m into the frame: its square must be a normal double
 * there (the methods compare squared distances with it), else an error
 * with the range in the points' units. v <= 0 (auto, off) is left. */
static int frame_length(gk_context *ctx, const gk_ridges_method *m, const char *key, double *v)
{
    if (!(*v > 0.0))
        return GK_OK;
    const double f = ldexp(*v, -m->scale_exp);
    if (isnormal(f * f)) {
        *v = f;
        return GK_OK;
    }
    return gk_error(ctx, GK_ERR_ARG,
                    "-a %s: %s=%.15g is outside [%.15g, %.15g], where its square is a normal "
                    "double%s; beyond it the method's arithmetic under- or overflows",
                    gk_ridges_method_name(m), key, *v, ldexp(1.0, -511 + m->scale_exp),
                    ldexp(1.0, 511 + m->scale_exp),
                    m->scale_exp ? " in these points' frame (coordinates scaled by a power of "
                                   "two to an extent of 1)"
                                 : "");
}

/* m's keys into the frame (ms, a copy of m): lengths by 2^-e, an absolute
 * density threshold (per unit^dim) by 2^(dim e). */
static int frame_method(gk_context *ctx, const gk_ridges_method *m, const ridge_frame *f,
                        gk_ridges_method *ms)
{
    *ms = *m;
    ms->scale_exp = f->e;
    int rc = GK_OK;
    if (m->kind == GK_RIDGE_CURVE) {
        rc = rc ? rc : frame_length(ctx, ms, "r1", &ms->r1);
        rc = rc ? rc : frame_length(ctx, ms, "r2", &ms->r2);
        rc = rc ? rc : frame_length(ctx, ms, "gap", &ms->gap);
    } else {
        rc = rc ? rc : frame_length(ctx, ms, "bandwidth", &ms->bandwidth);
        rc = rc ? rc : frame_length(ctx, ms, "spacing", &ms->spacing);
        if (!rc && m->threshold_absolute && m->threshold > 0.0) {
            ms->threshold = ldexp(m->threshold, m->dim * f->e);
            if (!isnormal(ms->threshold))
                rc = gk_error(ctx, GK_ERR_ARG,
                              "-a density: threshold=%.15g (absolute, per unit^%d) is beyond "
                              "what a double holds in these points' frame (coordinates scaled "
                              "by 2^%d to an extent of 1)",
                              m->threshold, m->dim, -f->e);
        }
    }
    rc = rc ? rc : frame_length(ctx, ms, "min_length", &ms->min_length);
    rc = rc ? rc : frame_length(ctx, ms, "simplify", &ms->simplify);
    return rc;
}

/* The lines back into the points' units: coordinates, lengths and widths
 * by 2^e, densities by 2^-dim e; a density a double cannot hold there is
 * NaN (null), counted in *lost. */
static void frame_out(gk_lines *l, const ridge_frame *f, size_t *lost)
{
    *lost = 0;
    if (!f->e)
        return;
    double *co[3] = {l->x, l->y, l->z};
    const size_t nv = l->start[l->n_lines];
    for (int k = 0; k < l->dim; k++)
        for (size_t i = 0; i < nv; i++)
            co[k][i] = f->flat[k] ? f->value[k] : ldexp(co[k][i], f->e);
    for (size_t i = 0; i < l->n_lines; i++) {
        l->length[i] = ldexp(l->length[i], f->e);
        l->width[i] = ldexp(l->width[i], f->e);
        if (l->mean_density && !isnan(l->mean_density[i])) {
            double d = ldexp(l->mean_density[i], -l->dim * f->e);
            if (!isnormal(d) && l->mean_density[i] != 0.0)
                d = NAN, ++*lost;
            l->mean_density[i] = d;
        }
    }
}

/* The method's warning and notes of skipped points and of no line found,
 * as one text ("; " between parts). */
static char *join_warning(char *w, size_t skipped, size_t n_lines, size_t lost)
{
    if (!skipped && n_lines && !lost)
        return w;
    char note[640];
    gk_strbuf sb = {note, sizeof note, 0};
    note[0] = '\0';
    if (skipped)
        gk_strbuf_add(&sb, "ridges: %zu points with NaN or infinite coordinates skipped", skipped);
    if (!n_lines)
        gk_strbuf_add(&sb,
                      "%sridges: no line found (too few samples close together for the "
                      "method's radii)",
                      skipped ? "; " : "");
    if (lost)
        gk_strbuf_add(&sb,
                      "%sridges: mean_density left null on %zu line(s): at these points' "
                      "scale the density (per unit^dim) is beyond what a double holds",
                      skipped || !n_lines ? "; " : "", lost);
    size_t len = (w ? strlen(w) + 2 : 0) + strlen(note) + 1;
    char *out = malloc(len);
    if (out)
        snprintf(out, len, "%s%s%s", w ? w : "", w ? "; " : "", note);
    free(w);
    return out;
}

static gk_lines *lines_of(gk_context *ctx, const gk_cloud *c, gk_ridges_method *m, char **warning,
                          gk_progress_fn progress, void *user)
{
    gk_ridge_graph g = {0};
    double t = 0.0;
    gk_ridges_prof(NULL, &t);
    int rc = m->kind == GK_RIDGE_CURVE ? gk_curve_graph(ctx, c, m, &g, warning, progress, user)
                                       : gk_density_graph(ctx, c, m, &g, warning, progress, user);
    if (rc)
        return NULL;
    double support, min_length;
    if (m->kind == GK_RIDGE_CURVE) {
        support = m->r2 > 0 ? m->r2 : 2.0 * m->r1;
        min_length = m->min_length > 0 ? m->min_length : 0.0;
    } else {
        support = 3.0 * m->bandwidth;
        min_length = m->min_length >= 0 ? m->min_length : 4.0 * m->bandwidth;
    }
    gk_ridges_prof("graph", &t);
    gk_lines *l = gk_graph_lines(ctx, &g, c, support, min_length, m->simplify);
    gk_ridges_prof("lines", &t);
    gk_ridge_graph_free(&g);
    return l;
}

gk_lines *gk_ridges(gk_context *ctx, const gk_points *pts, gk_ridges_method *m, int dim,
                    gk_progress_fn progress, void *progress_user)
{
    if (!pts || !m) {
        gk_error(ctx, GK_ERR_ARG, "ridges: no %s given", pts ? "method" : "points");
        return NULL;
    }
    if (dim != 2 && dim != 3) {
        gk_error(ctx, GK_ERR_ARG, "ridges: dimension %d is neither 2 nor 3", dim);
        return NULL;
    }
    m->dim = dim;
    gk_cloud c;
    size_t skipped = 0, lost = 0;
    char *warning = NULL;
    if (make_cloud(ctx, pts, dim, &c, &skipped))
        return NULL;
    gk_lines *l = NULL;
    ridge_frame f = {0};
    gk_ridges_method ms;
    int rc = check_cloud(ctx, &c, skipped);
    if (rc == GK_OK) {
        frame_in(&c, &f);
        rc = frame_method(ctx, m, &f, &ms);
    }
    if (rc == GK_OK && progress && !progress(0.0, "ridges", progress_user))
        rc = gk_error(ctx, GK_ERR_CANCELLED, "ridges: cancelled");
    if (rc == GK_OK)
        l = lines_of(ctx, &c, &ms, &warning, progress, progress_user);
    free(c.p);
    if (!l) {
        free(warning);
        return NULL;
    }
    /* what the run estimated, in the points' units; the given keys as given */
    if (!m->r1_given)
        m->r1 = ldexp(ms.r1, f.e);
    if (!m->bandwidth_given)
        m->bandwidth = ldexp(ms.bandwidth, f.e);
    frame_out(l, &f, &lost);
    l->warning = join_warning(warning, skipped, l->n_lines, lost);
    gk_ridges_canonical(m);
    if (progress && !progress(1.0, "ridges: done", progress_user)) {
        gk_lines_free(l);
        gk_error(ctx, GK_ERR_CANCELLED, "ridges: cancelled");
        return NULL;
    }
    return l;
}
