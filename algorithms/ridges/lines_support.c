/* SPDX-License-Identifier: MIT */
/*
 * lines_support.c - each sample to its nearest line segment within the
 * support distance: the lines' n_support and width (lines.h).
 *
 * The segments are entered into cells at points every h along them; a
 * sample's nearest point on a segment within support lies within
 * support + h/2 of one of those points, so the cells within that radius
 * of the sample hold every candidate. h is the support, or longer where
 * the support is tiny beside the lines (a few entries per unit of work,
 * not the lines' length over the support). Samples are assigned on
 * threads, each on its own; the sums run in sample order.
 */
#include "lines.h"

#include "cells.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    size_t n_seg;
    size_t *seg_v; /* first vertex of each segment (the second follows it) */
    uint32_t *seg_line;
    double h; /* spacing of the entries along a segment */
    size_t n_ent;
    uint32_t *ent_seg; /* segment of each cell entry */
    double *ent_p;     /* entry positions, dim each */
} segs;

static void segs_free(segs *s)
{
    free(s->seg_v);
    free(s->seg_line);
    free(s->ent_seg);
    free(s->ent_p);
}

static double vtx(const gk_lines *l, size_t i, int k)
{
    return k == 0 ? l->x[i] : k == 1 ? l->y[i] : l->z[i];
}

static double seg_len(const gk_lines *l, size_t i)
{
    double len2 = 0;
    for (int d = 0; d < l->dim; d++)
        len2 += (vtx(l, i + 1, d) - vtx(l, i, d)) * (vtx(l, i + 1, d) - vtx(l, i, d));
    return sqrt(len2);
}

/* The segments and their entries (points every s->h along each), at most
 * about max_ent of them. */
static int segs_build(const gk_lines *l, double support, size_t max_ent, segs *s)
{
    const int dim = l->dim;
    size_t nv = l->start[l->n_lines];
    s->n_seg = nv >= l->n_lines ? nv - l->n_lines : 0;
    s->seg_v = malloc((s->n_seg + 1) * sizeof *s->seg_v);
    s->seg_line = malloc((s->n_seg + 1) * sizeof *s->seg_line);
    if (!s->seg_v || !s->seg_line)
        return GK_ERR_NOMEM;
    size_t k = 0;
    double total = 0.0;
    for (size_t li = 0; li < l->n_lines; li++)
        for (size_t i = l->start[li]; i + 1 < l->start[li + 1]; i++) {
            total += seg_len(l, i);
            s->seg_v[k] = i;
            s->seg_line[k++] = (uint32_t)li;
        }
    s->n_seg = k;
    s->h = support;
    if (total / support > (double)max_ent) /* each segment adds at most 2 more */
        s->h = total / (double)max_ent;
    size_t n_ent = 0;
    for (size_t g = 0; g < s->n_seg; g++)
        n_ent += (size_t)ceil(seg_len(l, s->seg_v[g]) / s->h) + 1;
    if (n_ent > INT32_MAX)
        return GK_ERR_NOMEM;
    s->ent_seg = malloc((n_ent + 1) * sizeof *s->ent_seg);
    s->ent_p = malloc((n_ent + 1) * dim * sizeof *s->ent_p);
    if (!s->ent_seg || !s->ent_p)
        return GK_ERR_NOMEM;
    s->n_ent = 0;
    for (size_t g = 0; g < s->n_seg; g++) {
        size_t i = s->seg_v[g];
        size_t steps = (size_t)ceil(seg_len(l, i) / s->h);
        for (size_t t = 0; t <= steps; t++) {
            double f = steps ? (double)t / (double)steps : 0.0;
            for (int d = 0; d < dim; d++)
                s->ent_p[s->n_ent * dim + d] = vtx(l, i, d) + f * (vtx(l, i + 1, d) - vtx(l, i, d));
            s->ent_seg[s->n_ent++] = (uint32_t)g;
        }
    }
    return GK_OK;
}

/* Sample p's nearest segment within support (UINT32_MAX: none), *d2 its distance. */
static uint32_t nearest(const gk_lines *l, const segs *s, const gk_cells *g, const double *p,
                        double support, double *d2)
{
    uint32_t best = UINT32_MAX;
    double bd2 = support * support;
    gk_cells_iter it;
    for (int32_t e = gk_cells_first(g, p, support + 0.5 * s->h, &it); e >= 0;
         e = gk_cells_next(g, &it)) {
        uint32_t sg = s->ent_seg[e];
        size_t i = s->seg_v[sg];
        double a[3], b[3];
        for (int d = 0; d < l->dim; d++)
            a[d] = vtx(l, i, d), b[d] = vtx(l, i + 1, d);
        double dd = gk_seg_d2(p, a, b, l->dim);
        if (dd < bd2 || (dd == bd2 && sg < best)) {
            bd2 = dd;
            best = sg;
        }
    }
    *d2 = bd2;
    return best;
}

static int assign(const gk_lines *l, const segs *s, const gk_cloud *c, double support, int threads,
                  uint32_t *owner, double *dist)
{
    gk_cells g;
    double lo[3], hi[3];
    gk_cells_bounds(s->ent_p, s->n_ent, l->dim, lo, hi);
    if (gk_cells_init(&g, l->dim, lo, hi, fmax(support, s->h), s->n_ent))
        return GK_ERR_NOMEM;
    for (size_t e = 0; e < s->n_ent; e++)
        gk_cells_insert(&g, (int32_t)e, s->ent_p + e * l->dim);
#pragma omp parallel for num_threads(threads) schedule(static, 4096) if (c->n >= 16384)
    for (long i = 0; i < (long)c->n; i++) {
        double d2;
        owner[i] = nearest(l, s, &g, c->p + (size_t)i * c->dim, support, &d2);
        dist[i] = owner[i] == UINT32_MAX ? 0.0 : sqrt(d2);
    }
    gk_cells_free(&g);
    return GK_OK;
}

int gk_lines_support(gk_lines *l, const gk_cloud *c, double support, int threads)
{
    for (size_t li = 0; li < l->n_lines; li++) {
        l->n_support[li] = 0;
        l->width[li] = 0.0;
    }
    if (!(support > 0) || l->n_lines == 0 || c->n == 0)
        return GK_OK;
    segs s = {0};
    uint32_t *owner = malloc(c->n * sizeof *owner);
    double *dist = malloc(c->n * sizeof *dist);
    int rc = owner && dist ? segs_build(l, support, 4 * (c->n + l->start[l->n_lines]) + 65536, &s)
                           : GK_ERR_NOMEM;
    if (rc == GK_OK && s.n_seg)
        rc = assign(l, &s, c, support, threads, owner, dist);
    if (rc == GK_OK && s.n_seg) {
        for (size_t i = 0; i < c->n; i++) /* in sample order: fixed sums */
            if (owner[i] != UINT32_MAX) {
                uint32_t li = s.seg_line[owner[i]];
                l->n_support[li]++;
                l->width[li] += dist[i];
            }
        for (size_t li = 0; li < l->n_lines; li++)
            if (l->n_support[li])
                l->width[li] /= (double)l->n_support[li];
    }
    segs_free(&s);
    free(owner);
    free(dist);
    return rc;
}
