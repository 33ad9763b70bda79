/* SPDX-License-Identifier: MIT */
/*
 * curve_order.c - curve's order: the representatives into a graph of
 * degree at most 2 (paths and rings).
 *
 * 1. Every pair within r2 is an edge (decimate leaves at most 2 others
 *    within r2 of each); a triangle that forms (three mutually close
 *    representatives) loses its longest edge.
 * 2. Gap bridging, the reference's fix of Rupniewski's under-specified join:
 *    pairs of representatives of degree <= 1 within `gap`, p != q, not
 *    already an edge, are joined closest first (ties: lower p, then lower q),
 *    each only while both ends are still free and the join makes no
 *    triangle; joining the two ends of one chain closes a ring.
 */
#include "curve.h"

#include "cells.h"
#include "curve_step.h"

#include <stdlib.h>

#define NONE UINT32_MAX

typedef struct {
    uint32_t *nb; /* 2 per representative, NONE where free */
} adj;

static int degree(const adj *a, uint32_t p)
{
    return (a->nb[2 * p] != NONE) + (a->nb[2 * p + 1] != NONE);
}

static int linked(const adj *a, uint32_t p, uint32_t q)
{
    return a->nb[2 * p] == q || a->nb[2 * p + 1] == q;
}

static void link(adj *a, uint32_t p, uint32_t q)
{
    a->nb[2 * p + (a->nb[2 * p] != NONE)] = q;
    a->nb[2 * q + (a->nb[2 * q] != NONE)] = p;
}

static void unlink_one(adj *a, uint32_t p, uint32_t q)
{
    if (a->nb[2 * p] == q) {
        a->nb[2 * p] = a->nb[2 * p + 1];
        a->nb[2 * p + 1] = NONE;
    } else if (a->nb[2 * p + 1] == q) {
        a->nb[2 * p + 1] = NONE;
    }
}

/* Would p - q close a triangle (a common neighbour)? */
static int common_neighbour(const adj *a, uint32_t p, uint32_t q)
{
    for (int i = 0; i < 2; i++) {
        uint32_t x = a->nb[2 * p + i];
        if (x != NONE && linked(a, q, x))
            return 1;
    }
    return 0;
}

/* Step 1: pairs within r2, then triangles broken at their longest edge. */
static void close_pairs(const double *s, size_t m, int dim, double r2, const gk_cells *g, adj *a)
{
    const double lim = r2 * r2;
    for (size_t p = 0; p < m; p++) {
        gk_cells_iter it;
        for (int32_t q = gk_cells_first(g, s + p * dim, r2, &it); q >= 0; q = gk_cells_next(g, &it))
            if ((size_t)q > p && gk_cs_d2(s + p * dim, s + (size_t)q * dim, dim) <= lim &&
                degree(a, (uint32_t)p) < 2 && degree(a, (uint32_t)q) < 2)
                link(a, (uint32_t)p, (uint32_t)q);
    }
    for (uint32_t p = 0; p < m; p++) {
        uint32_t b = a->nb[2 * p], c = a->nb[2 * p + 1];
        if (b == NONE || c == NONE || !linked(a, b, c))
            continue;
        /* the longest of p-b, p-c, b-c goes; equal lengths: the later pair */
        uint32_t e[3][2] = {{p, b}, {p, c}, {b, c}};
        int worst = 0;
        double wd = -1.0;
        for (int k = 0; k < 3; k++) {
            double d2 = gk_cs_d2(s + (size_t)e[k][0] * dim, s + (size_t)e[k][1] * dim, dim);
            if (d2 >= wd) {
                wd = d2;
                worst = k;
            }
        }
        unlink_one(a, e[worst][0], e[worst][1]);
        unlink_one(a, e[worst][1], e[worst][0]);
    }
}

typedef struct {
    double d2;
    uint32_t p, q;
} cand;

static int cand_cmp(const void *x, const void *y)
{
    const cand *a = x, *b = y;
    if (a->d2 != b->d2)
        return a->d2 < b->d2 ? -1 : 1;
    if (a->p != b->p)
        return a->p < b->p ? -1 : 1;
    return a->q < b->q ? -1 : a->q > b->q;
}

/* Step 2: the free ends within gap, closest first. */
static int bridge(const double *s, size_t m, int dim, double gap, adj *a)
{
    gk_cells g;
    double lo[3], hi[3];
    gk_cells_bounds(s, m, dim, lo, hi);
    if (gk_cells_init(&g, dim, lo, hi, gap, m))
        return GK_ERR_NOMEM;
    for (size_t p = 0; p < m; p++)
        if (degree(a, (uint32_t)p) <= 1)
            gk_cells_insert(&g, (int32_t)p, s + p * dim);
    size_t nc = 0, cap = 64;
    cand *c = malloc(cap * sizeof *c);
    const double lim = gap * gap;
    for (size_t p = 0; c && p < m; p++) {
        if (degree(a, (uint32_t)p) > 1)
            continue;
        gk_cells_iter it;
        for (int32_t q = gk_cells_first(&g, s + p * dim, gap, &it); c && q >= 0;
             q = gk_cells_next(&g, &it)) {
            double d2 = gk_cs_d2(s + p * dim, s + (size_t)q * dim, dim);
            if ((size_t)q <= p || d2 > lim || linked(a, (uint32_t)p, (uint32_t)q))
                continue;
            if (nc == cap) {
                cand *bigger = realloc(c, 2 * cap * sizeof *c);
                if (!bigger)
                    free(c);
                c = bigger;
                cap *= 2;
            }
            if (c)
                c[nc++] = (cand){d2, (uint32_t)p, (uint32_t)q};
        }
    }
    gk_cells_free(&g);
    if (!c)
        return GK_ERR_NOMEM;
    qsort(c, nc, sizeof *c, cand_cmp);
    for (size_t k = 0; k < nc; k++) {
        uint32_t p = c[k].p, q = c[k].q;
        if (degree(a, p) <= 1 && degree(a, q) <= 1 && !linked(a, p, q) &&
            !common_neighbour(a, p, q))
            link(a, p, q);
    }
    free(c);
    return GK_OK;
}

static int edges_out(const adj *a, size_t m, uint32_t **e, size_t *n_e)
{
    size_t n = 0;
    for (uint32_t p = 0; p < m; p++)
        for (int i = 0; i < 2; i++)
            n += a->nb[2 * p + i] != NONE && a->nb[2 * p + i] > p;
    *e = malloc((n ? n : 1) * 2 * sizeof **e);
    if (!*e)
        return GK_ERR_NOMEM;
    *n_e = 0;
    for (uint32_t p = 0; p < m; p++)
        for (int i = 0; i < 2; i++) {
            uint32_t q = a->nb[2 * p + i];
            if (q != NONE && q > p) {
                (*e)[2 * *n_e] = p;
                (*e)[2 * *n_e + 1] = q;
                (*n_e)++;
            }
        }
    return GK_OK;
}

int gk_curve_order(const double *s, size_t m, int dim, double r2, double gap, uint32_t **e,
                   size_t *n_e)
{
    *e = NULL;
    *n_e = 0;
    adj a = {malloc((m ? m : 1) * 2 * sizeof(uint32_t))};
    if (!a.nb)
        return GK_ERR_NOMEM;
    for (size_t k = 0; k < 2 * m; k++)
        a.nb[k] = NONE;
    gk_cells g;
    double lo[3], hi[3];
    gk_cells_bounds(s, m, dim, lo, hi);
    int rc = gk_cells_init(&g, dim, lo, hi, r2, m);
    if (rc == GK_OK) {
        for (size_t p = 0; p < m; p++)
            gk_cells_insert(&g, (int32_t)p, s + p * dim);
        close_pairs(s, m, dim, r2, &g, &a);
        gk_cells_free(&g);
        if (gap > 0)
            rc = bridge(s, m, dim, gap, &a);
    }
    if (rc == GK_OK)
        rc = edges_out(&a, m, e, n_e);
    free(a.nb);
    return rc;
}
