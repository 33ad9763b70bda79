/* SPDX-License-Identifier: MIT */
/*
 * density_link.c - converged walkers to a graph (docs/ridges.md, density ridges): merged
 * within 0.1 h, each linked to its nearest neighbour ahead and its nearest
 * behind along its own tangent, within the link distance and the angle,
 * or across a gap of up to twice that between two ends (link_edges), then
 * cleaned (density_mst.c, density_prune.c). Using the vertex's own tangent only lets a
 * branch's end reach across to the trunk, which makes junctions.
 */
#include "ridges/density.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const double *x, *t;
    int dim;
    uint32_t self;
    double r2, g2, c2;        /* link and gap distances and cos(angle), squared */
    uint32_t best[2], far[2]; /* ahead, behind: within link; within gap, aligned both ways */
    double bd2[2], fd2[2];
} link_search;

static void take(uint32_t *best, double *bd2, uint32_t j, double d2)
{
    if (d2 < *bd2 || (d2 == *bd2 && j < *best)) {
        *bd2 = d2;
        *best = j;
    }
}

static int link_visit(uint32_t j, void *user)
{
    link_search *s = user;
    if (j == s->self)
        return 0;
    const double *a = s->x + (size_t)s->self * (size_t)s->dim,
                 *b = s->x + (size_t)j * (size_t)s->dim;
    const double *t = s->t + (size_t)s->self * (size_t)s->dim,
                 *tj = s->t + (size_t)j * (size_t)s->dim;
    double d2 = 0.0, dot = 0.0, dotj = 0.0;
    for (int k = 0; k < s->dim; k++) {
        double d = b[k] - a[k];
        d2 += d * d;
        dot += d * t[k];
        dotj += d * tj[k];
    }
    if (!(d2 <= s->g2) || !(dot * dot >= s->c2 * d2) || d2 == 0.0)
        return 0;
    int side = dot < 0.0;
    if (d2 <= s->r2)
        take(&s->best[side], &s->bd2[side], j, d2);
    else if (dotj * dotj >= s->c2 * d2)
        take(&s->far[side], &s->fd2[side], j, d2);
    return 0;
}

static int u32pair_cmp(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* The side of j's tangent that i lies on (0 ahead, 1 behind). */
static int side_of(const double *x, const double *t, int dim, uint32_t j, uint32_t i)
{
    double dot = 0.0;
    for (int k = 0; k < dim; k++)
        dot += (x[(size_t)i * (size_t)dim + k] - x[(size_t)j * (size_t)dim + k]) *
               t[(size_t)j * (size_t)dim + k];
    return dot < 0.0;
}

/* Nearest aligned neighbours ahead and behind within link (near), and, for
 * a side with none, within gap aligned with both tangents (far). */
static int link_search_all(const double *x, const double *t, int dim, size_t n, double link,
                           double gap, double cos_angle, int threads, uint32_t *near, uint32_t *far)
{
    gk_scms_bins b;
    if (gk_scms_bins_build(&b, dim, n, x, NULL, gap))
        return 1;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 256)
    for (long i = 0; i < (long)n; i++) {
        link_search s = {x,
                         t,
                         dim,
                         (uint32_t)i,
                         link * link,
                         gap * gap,
                         cos_angle * cos_angle,
                         {UINT32_MAX, UINT32_MAX},
                         {UINT32_MAX, UINT32_MAX},
                         {INFINITY, INFINITY},
                         {INFINITY, INFINITY}};
        gk_scms_bins_visit(&b, x + (size_t)i * (size_t)dim, link_visit, &s);
        for (int k = 0; k < 2; k++) {
            near[2 * i + k] = s.best[k];
            far[2 * i + k] = s.far[k];
        }
    }
    gk_scms_bins_free(&b);
    return 0;
}

/* The links of the n vertices (x, t): each to its near neighbours, and
 * across a gap (link < d <= gap) where both sides have none nearer: two
 * ends facing each other along the ridge, not a fringe bump's end reaching
 * the trunk. Up to 2 n edges, sorted and unique. */
static int link_edges(const double *x, const double *t, int dim, size_t n, double link, double gap,
                      double cos_angle, int threads, uint32_t **e, size_t *n_e)
{
    uint32_t *near = malloc((2 * n + 1) * sizeof(uint32_t)),
             *far = malloc((2 * n + 1) * sizeof(uint32_t));
    *e = malloc((2 * n + 1) * 2 * sizeof(uint32_t));
    int rc = !near || !far || !*e ||
             link_search_all(x, t, dim, n, link, gap, cos_angle, threads, near, far);
    uint32_t *E = *e;
    for (size_t i = 0; !rc && i < n; i++)
        for (int k = 0; k < 2; k++) {
            uint32_t j = near[2 * i + k], a = (uint32_t)i;
            if (j == UINT32_MAX && far[2 * i + k] != UINT32_MAX &&
                near[2 * (size_t)far[2 * i + k] + side_of(x, t, dim, far[2 * i + k], a)] ==
                    UINT32_MAX)
                j = far[2 * i + k];
            E[4 * i + 2 * k] = j == UINT32_MAX ? UINT32_MAX : (a < j ? a : j);
            E[4 * i + 2 * k + 1] = j == UINT32_MAX ? UINT32_MAX : (a < j ? j : a);
        }
    free(near);
    free(far);
    if (rc)
        return 1;
    qsort(E, 2 * n, 2 * sizeof(uint32_t), u32pair_cmp);
    size_t m = 0;
    for (size_t i = 0; i < 2 * n; i++) {
        if (E[2 * i] == UINT32_MAX ||
            (m && E[2 * m - 2] == E[2 * i] && E[2 * m - 1] == E[2 * i + 1]))
            continue;
        E[2 * m] = E[2 * i];
        E[2 * m + 1] = E[2 * i + 1];
        m++;
    }
    *n_e = m;
    return 0;
}

/* The kept walkers (keep[i]) as compact arrays x, t, density. */
static size_t compact(const gk_walkers *w, const uint8_t *keep, double *x, double *t, double *den)
{
    size_t n = 0, d = (size_t)w->dim;
    for (size_t i = 0; i < w->n; i++) {
        if (!keep[i])
            continue;
        memcpy(x + n * d, w->x + i * d, d * sizeof(double));
        memcpy(t + n * d, w->t + i * d, d * sizeof(double));
        den[n++] = w->density[i];
    }
    return n;
}

/* out gets the vertices with an edge (in order) and the edges renumbered. */
static int assemble(const double *x, const double *den, int dim, size_t n, uint32_t *e, size_t n_e,
                    gk_ridge_graph *out)
{
    uint32_t *map = malloc((n + 1) * sizeof(uint32_t));
    if (!map)
        return 1;
    for (size_t i = 0; i < n; i++)
        map[i] = UINT32_MAX;
    for (size_t i = 0; i < 2 * n_e; i++)
        map[e[i]] = 0;
    size_t nv = 0;
    for (size_t i = 0; i < n; i++)
        if (map[i] == 0)
            map[i] = (uint32_t)nv++;
    out->v = malloc((nv + 1) * (size_t)dim * sizeof(double));
    out->density = malloc((nv + 1) * sizeof(double));
    if (!out->v || !out->density) {
        free(map);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        if (map[i] != UINT32_MAX) {
            memcpy(out->v + (size_t)map[i] * (size_t)dim, x + i * (size_t)dim,
                   (size_t)dim * sizeof(double));
            out->density[map[i]] = den[i];
        }
    for (size_t i = 0; i < 2 * n_e; i++)
        e[i] = map[e[i]];
    qsort(e, n_e, 2 * sizeof(uint32_t), u32pair_cmp);
    out->dim = dim;
    out->n_v = nv;
    out->e = e;
    out->n_e = n_e;
    free(map);
    return 0;
}

int gk_density_link(gk_context *ctx, const gk_walkers *w, double h, double link, double cos_angle,
                    double loop_min, double spur, int threads, gk_ridge_graph *out)
{
    size_t d = (size_t)w->dim, n_e = 0;
    uint8_t *keep = malloc(w->n + 1);
    double *x = malloc((w->n + 1) * d * sizeof(double)),
           *t = malloc((w->n + 1) * d * sizeof(double));
    double *den = malloc((w->n + 1) * sizeof(double));
    uint32_t *e = NULL;
    memset(out, 0, sizeof *out);
    out->dim = w->dim;
    int rc = !keep || !x || !t || !den || gk_density_dedup(w, 0.1 * h, keep);
    size_t n = rc ? 0 : compact(w, keep, x, t, den);
    if (!rc && n >= 2)
        rc = link_edges(x, t, w->dim, n, link, 2.0 * link, cos_angle, threads, &e, &n_e) ||
             gk_density_clean(x, w->dim, n, e, &n_e, loop_min) ||
             gk_density_prune(x, w->dim, n, e, &n_e, spur) ||
             assemble(x, den, w->dim, n, e, n_e, out);
    free(keep);
    free(x);
    free(t);
    free(den);
    if (rc || out->e != e)
        free(e);
    if (rc) {
        free(out->v);
        free(out->density);
        memset(out, 0, sizeof *out);
        return gk_error(ctx, GK_ERR_NOMEM, "density: out of memory linking %zu ridge points", w->n);
    }
    return GK_OK;
}
