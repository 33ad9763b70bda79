/* SPDX-License-Identifier: MIT */
/*
 * density_prune.c - hairs off the ridge graph: a chain from an end (degree
 * 1) to a junction (degree >= 3) shorter than max_len is dropped. A vertex
 * beside the ridge links ahead and behind into it, and the clean-up's tree
 * keeps one of the two edges: a hair one or two vertices long, which would
 * split the line it touches at a junction. Below h such a branch is beneath
 * what the kernel resolves; up to the lines' min_length it is dropped here
 * (density.c), where the chain it touches then runs on through the old
 * junction. All hairs are measured on the graph as given, so the result
 * does not depend on any order.
 */
#include "ridges/density.h"

#include <stdlib.h>

typedef struct {
    size_t *off;
    uint32_t *adj; /* edge index of each slot */
    uint32_t *deg;
} incid;

static int incid_build(incid *g, size_t n, const uint32_t *e, size_t m)
{
    g->off = calloc(n + 2, sizeof(size_t));
    g->deg = calloc(n + 1, sizeof(uint32_t));
    g->adj = malloc((2 * m + 1) * sizeof(uint32_t));
    if (!g->off || !g->deg || !g->adj)
        return 1;
    for (size_t i = 0; i < 2 * m; i++)
        g->deg[e[i]]++;
    for (size_t i = 0; i < n; i++)
        g->off[i + 1] = g->off[i] + g->deg[i];
    size_t *fill = calloc(n + 1, sizeof(size_t));
    if (!fill)
        return 1;
    for (size_t i = 0; i < 2 * m; i++)
        g->adj[g->off[e[i]] + fill[e[i]]++] = (uint32_t)(i / 2);
    free(fill);
    return 0;
}

/* Marks the edges of the hair from end v when it reaches a junction within max_len. */
static void hair(const incid *g, const double *x, int dim, const uint32_t *e, uint32_t v,
                 double max_len, uint8_t *drop)
{
    uint32_t prev_e = UINT32_MAX, first = v;
    double len = 0.0;
    for (size_t steps = 0; g->deg[v] <= 2; steps++) {
        uint32_t k = g->adj[g->off[v]];
        if (k == prev_e)
            k = g->adj[g->off[v] + 1];
        if ((g->deg[v] == 1 && steps > 0) || len > max_len)
            return; /* another end: a short chain, not a hair (lines.c's min_length) */
        uint32_t w = e[2 * k] == v ? e[2 * k + 1] : e[2 * k];
        double d2 = 0.0;
        for (int j = 0; j < dim; j++) {
            double d = x[(size_t)w * (size_t)dim + j] - x[(size_t)v * (size_t)dim + j];
            d2 += d * d;
        }
        len += sqrt(d2);
        prev_e = k;
        v = w;
    }
    if (len >= max_len)
        return;
    v = first;
    prev_e = UINT32_MAX;
    while (g->deg[v] <= 2) {
        uint32_t k = g->adj[g->off[v]];
        if (k == prev_e)
            k = g->adj[g->off[v] + 1];
        drop[k] = 1;
        prev_e = k;
        v = e[2 * k] == v ? e[2 * k + 1] : e[2 * k];
    }
}

int gk_density_prune(const double *x, int dim, size_t n, uint32_t *e, size_t *n_e, double max_len)
{
    size_t m = *n_e, out = 0;
    incid g = {NULL, NULL, NULL};
    uint8_t *drop = calloc(m + 1, 1);
    int rc = !drop || incid_build(&g, n, e, m);
    for (size_t v = 0; !rc && v < n; v++)
        if (g.deg[v] == 1)
            hair(&g, x, dim, e, (uint32_t)v, max_len, drop);
    for (size_t i = 0; !rc && i < m; i++)
        if (!drop[i]) {
            e[2 * out] = e[2 * i];
            e[2 * out + 1] = e[2 * i + 1];
            out++;
        }
    if (!rc)
        *n_e = out;
    free(g.off);
    free(g.deg);
    free(g.adj);
    free(drop);
    return rc;
}
