/*
 * ridges.c - gk_ridges(): the points checked and interleaved into a cloud,
 * the method's graph (curve.c, density.c), the graph's lines (lines.c).
 */
#include "ridges_util.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int gk_ridges_threads(const gk_context *ctx)
{
    int t = gk_context_threads(ctx);
    return t > 0 ? t : omp_get_num_procs();
}

void gk_lines_free(gk_lines *l)
{
    if (!l)
        return;
    free(l->start);
    free(l->x);
    free(l->y);
    free(l->z);
    free(l->length);
    free(l->n_support);
    free(l->closed);
    free(l->mean_density);
    free(l->width);
    free(l->warning);
    free(l);
}

/* The points with finite coordinates, interleaved; *skipped the others. */
static int make_cloud(gk_context *ctx, const gk_points *pts, int dim, gk_cloud *c,
                      size_t *skipped)
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
                    "ridges: all %zu points are at the same place (%g, %g%s); no line passes "
                    "through a single place", c->n, c->p[0], c->p[1], c->dim == 3 ? ", ..." : "");
}

/* The method's warning and notes of skipped points and of no line found,
 * as one text ("; " between parts). */
static char *join_warning(char *w, size_t skipped, size_t n_lines)
{
    if (!skipped && n_lines)
        return w;
    char note[320];
    gk_strbuf sb = {note, sizeof note, 0};
    note[0] = '\0';
    if (skipped)
        gk_strbuf_add(&sb, "ridges: %zu points with NaN or infinite coordinates skipped",
                      skipped);
    if (!n_lines)
        gk_strbuf_add(&sb, "%sridges: no line found (too few samples close together for the "
                      "method's radii)", skipped ? "; " : "");
    size_t len = (w ? strlen(w) + 2 : 0) + strlen(note) + 1;
    char *out = malloc(len);
    if (out)
        snprintf(out, len, "%s%s%s", w ? w : "", w ? "; " : "", note);
    free(w);
    return out;
}

void gk_ridges_prof(const char *what, double *t)
{
    static int on = -1;
    if (on < 0) {
        const char *e = getenv("GRIDKIT_RIDGES_PROFILE");
        on = e && *e && strcmp(e, "0");
    }
    if (!on)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    if (what && *t > 0.0)
        fprintf(stderr, "ridges: %s: %.4f s\n", what, now - *t);
    *t = now;
}

static gk_lines *lines_of(gk_context *ctx, const gk_cloud *c, gk_ridges_method *m, char **warning,
                          gk_progress_fn progress, void *user)
{
    gk_ridge_graph g = {0};
    double t = 0.0;
    gk_ridges_prof(NULL, &t);
    int rc = m->kind == GK_RIDGE_CURVE
                 ? gk_curve_graph(ctx, c, m, &g, warning, progress, user)
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
    size_t skipped = 0;
    char *warning = NULL;
    if (make_cloud(ctx, pts, dim, &c, &skipped))
        return NULL;
    gk_lines *l = NULL;
    int rc = check_cloud(ctx, &c, skipped);
    if (rc == GK_OK && progress && !progress(0.0, "ridges", progress_user))
        rc = gk_error(ctx, GK_ERR_CANCELLED, "ridges: cancelled");
    if (rc == GK_OK)
        l = lines_of(ctx, &c, m, &warning, progress, progress_user);
    free(c.p);
    if (!l) {
        free(warning);
        return NULL;
    }
    l->warning = join_warning(warning, skipped, l->n_lines);
    gk_ridges_canonical(m);
    if (progress && !progress(1.0, "ridges: done", progress_user)) {
        gk_lines_free(l);
        gk_error(ctx, GK_ERR_CANCELLED, "ridges: cancelled");
        return NULL;
    }
    return l;
}
