/* SPDX-License-Identifier: MIT */
/* lines_chains.c - a graph's chains and rings (lines.h). */
#include "lines.h"

#include <stdlib.h>

typedef struct {
    size_t *off;         /* n_v + 1 */
    uint32_t *nb;        /* 2 n_e: neighbour per slot, sorted per vertex */
    uint32_t *edge;      /* 2 n_e: the edge of each slot */
    unsigned char *used; /* n_e */
} csr;

static void csr_free(csr *a)
{
    free(a->off);
    free(a->nb);
    free(a->edge);
    free(a->used);
}

static int csr_build(const gk_ridge_graph *g, csr *a, int *deg)
{
    size_t ne = g->n_e;
    a->off = calloc(g->n_v + 1, sizeof *a->off);
    a->nb = malloc((2 * ne + 1) * sizeof *a->nb);
    a->edge = malloc((2 * ne + 1) * sizeof *a->edge);
    a->used = calloc(ne + 1, 1);
    if (!a->off || !a->nb || !a->edge || !a->used)
        return GK_ERR_NOMEM;
    for (size_t e = 0; e < 2 * ne; e++)
        a->off[g->e[e] + 1]++;
    for (size_t v = 0; v < g->n_v; v++) {
        deg[v] = (int)a->off[v + 1];
        a->off[v + 1] += a->off[v];
    }
    size_t *fill = malloc((g->n_v + 1) * sizeof *fill);
    if (!fill)
        return GK_ERR_NOMEM;
    for (size_t v = 0; v <= g->n_v; v++)
        fill[v] = a->off[v];
    for (size_t e = 0; e < ne; e++)
        for (int s = 0; s < 2; s++) {
            uint32_t v = g->e[2 * e + s];
            a->nb[fill[v]] = g->e[2 * e + 1 - s];
            a->edge[fill[v]++] = (uint32_t)e;
        }
    free(fill);
    for (size_t v = 0; v < g->n_v; v++) /* by neighbour, then edge: insertion sort */
        for (size_t i = a->off[v] + 1; i < a->off[v + 1]; i++)
            for (size_t j = i;
                 j > a->off[v] && (a->nb[j - 1] > a->nb[j] ||
                                   (a->nb[j - 1] == a->nb[j] && a->edge[j - 1] > a->edge[j]));
                 j--) {
                uint32_t t = a->nb[j], u = a->edge[j];
                a->nb[j] = a->nb[j - 1], a->edge[j] = a->edge[j - 1];
                a->nb[j - 1] = t, a->edge[j - 1] = u;
            }
    return GK_OK;
}

static int push(gk_chains *ch, uint32_t v)
{
    size_t len = ch->len;
    if (len == ch->cap_v) {
        size_t cap = ch->cap_v ? 2 * ch->cap_v : 256;
        uint32_t *bigger = realloc(ch->v, cap * sizeof *bigger);
        if (!bigger)
            return GK_ERR_NOMEM;
        ch->v = bigger;
        ch->cap_v = cap;
    }
    ch->v[len] = v;
    ch->len = len + 1;
    return GK_OK;
}

/* From v along slot s until an end, a junction or a used edge. */
static int walk(const csr *a, const int *deg, uint32_t v, size_t s, gk_chains *ch)
{
    int rc = push(ch, v);
    while (rc == GK_OK) {
        uint32_t e = a->edge[s], w = a->nb[s];
        a->used[e] = 1;
        rc = push(ch, w);
        if (rc || deg[w] != 2)
            break;
        size_t t = a->off[w] + (a->edge[a->off[w]] == e);
        if (a->used[a->edge[t]])
            break; /* back at the start of a ring */
        s = t;
    }
    if (rc)
        return rc;
    ch->closed[ch->n] = ch->v[ch->len - 1] == v; /* a ring, or a loop at a junction */
    ch->n++;
    ch->start[ch->n] = ch->len;
    return GK_OK;
}

static int walks(const gk_ridge_graph *g, const csr *a, const int *deg, gk_chains *ch, int rings)
{
    for (uint32_t v = 0; v < g->n_v; v++) {
        if (!rings && (deg[v] == 2 || deg[v] == 0))
            continue;
        for (size_t s = a->off[v]; s < a->off[v + 1]; s++) {
            if (a->used[a->edge[s]])
                continue;
            int rc = walk(a, deg, v, s, ch);
            if (rc)
                return rc;
        }
    }
    return GK_OK;
}

int gk_chains_build(const gk_ridge_graph *g, gk_chains *ch, int **deg)
{
    csr a = {0};
    ch->n = ch->cap_v = ch->len = 0;
    ch->v = NULL;
    /* at most one chain per edge */
    ch->start = malloc((g->n_e + 2) * sizeof *ch->start);
    ch->closed = malloc((g->n_e + 1) * sizeof *ch->closed);
    *deg = malloc((g->n_v + 1) * sizeof **deg);
    int rc = ch->start && ch->closed && *deg ? csr_build(g, &a, *deg) : GK_ERR_NOMEM;
    if (rc == GK_OK) {
        ch->start[0] = 0;
        rc = walks(g, &a, *deg, ch, 0);
    }
    if (rc == GK_OK)
        rc = walks(g, &a, *deg, ch, 1);
    csr_free(&a);
    if (rc) {
        gk_chains_free(ch);
        free(*deg);
        *deg = NULL;
    }
    return rc;
}

void gk_chains_free(gk_chains *ch)
{
    free(ch->start);
    free(ch->v);
    free(ch->closed);
    ch->start = NULL;
    ch->v = NULL;
    ch->closed = NULL;
}
