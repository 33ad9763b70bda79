/* SPDX-License-Identifier: MIT */
/*
 * density_mst.c - `density`'s graph clean-up: per component a minimum
 * spanning tree (Kruskal; ties by vertex indices) drops the short cycles
 * that linking dense ridge points makes; an edge outside the tree comes
 * back when the cycle it closes, through what is kept so far, is longer
 * than loop_min (a ring, not a triangle of neighbours). Edges are tried in
 * Kruskal's order, so the result depends on the vertices only.
 */
#include "ridges/density.h"

#include <stdlib.h>

typedef struct {
    double len;
    uint32_t u, v;
} wedge;

static int wedge_cmp(const void *a, const void *b)
{
    const wedge *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    if (x->u != y->u)
        return x->u < y->u ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

static uint32_t uf_find(uint32_t *par, uint32_t a)
{
    while (par[a] != a) {
        par[a] = par[par[a]];
        a = par[a];
    }
    return a;
}

typedef struct {
    size_t *off, *used; /* adjacency: vertex a's edges adj[off[a] .. off[a] + used[a]) */
    uint32_t *adj;
    double *alen;
    double *dist; /* the search's distances, valid where stamp == the search's */
    uint32_t *stamp, cur;
    wedge *heap; /* (distance, vertex) in len, u */
    size_t hn, hcap;
} graph;

static void adj_add(graph *g, uint32_t a, uint32_t b, double len)
{
    size_t s = g->off[a] + g->used[a]++;
    g->adj[s] = b;
    g->alen[s] = len;
    s = g->off[b] + g->used[b]++;
    g->adj[s] = a;
    g->alen[s] = len;
}

static int heap_push(graph *g, double d, uint32_t v)
{
    if (g->hn == g->hcap) {
        size_t cap = g->hcap ? 2 * g->hcap : 256;
        wedge *h = realloc(g->heap, cap * sizeof(wedge));
        if (!h)
            return 1;
        g->heap = h;
        g->hcap = cap;
    }
    size_t i = g->hn++;
    while (i > 0 && g->heap[(i - 1) / 2].len > d) {
        g->heap[i] = g->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    g->heap[i] = (wedge){d, v, 0};
    return 0;
}

static wedge heap_pop(graph *g)
{
    wedge top = g->heap[0], last = g->heap[--g->hn];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= g->hn)
            break;
        if (c + 1 < g->hn && g->heap[c + 1].len < g->heap[c].len)
            c++;
        if (!(g->heap[c].len < last.len))
            break;
        g->heap[i] = g->heap[c];
        i = c;
    }
    if (g->hn)
        g->heap[i] = last;
    return top;
}

/* Is b within path length lim of a? 1 yes, 0 no, -1 out of memory. */
static int within(graph *g, uint32_t a, uint32_t b, double lim)
{
    g->cur++;
    g->hn = 0;
    g->stamp[a] = g->cur;
    g->dist[a] = 0.0;
    if (heap_push(g, 0.0, a))
        return -1;
    while (g->hn) {
        wedge t = heap_pop(g);
        if (t.u == b)
            return 1;
        if (t.len > g->dist[t.u])
            continue;
        for (size_t s = g->off[t.u]; s < g->off[t.u] + g->used[t.u]; s++) {
            uint32_t w = g->adj[s];
            double d = t.len + g->alen[s];
            if (d > lim || (g->stamp[w] == g->cur && g->dist[w] <= d))
                continue;
            g->stamp[w] = g->cur;
            g->dist[w] = d;
            if (heap_push(g, d, w))
                return -1;
        }
    }
    return 0;
}

static void graph_free(graph *g)
{
    free(g->off);
    free(g->used);
    free(g->adj);
    free(g->alen);
    free(g->dist);
    free(g->stamp);
    free(g->heap);
}

static int graph_init(graph *g, size_t n, const wedge *we, size_t m)
{
    *g = (graph){0};
    g->off = calloc(n + 1, sizeof(size_t));
    g->used = calloc(n + 1, sizeof(size_t));
    g->adj = malloc((2 * m + 1) * sizeof(uint32_t));
    g->alen = malloc((2 * m + 1) * sizeof(double));
    g->dist = malloc((n + 1) * sizeof(double));
    g->stamp = calloc(n + 1, sizeof(uint32_t));
    if (!g->off || !g->used || !g->adj || !g->alen || !g->dist || !g->stamp)
        return 1;
    for (size_t i = 0; i < m; i++) {
        g->off[we[i].u + 1]++;
        g->off[we[i].v + 1]++;
    }
    for (size_t i = 0; i < n; i++)
        g->off[i + 1] += g->off[i];
    return 0;
}

/* Kruskal: tree edges to the front of we (their count in *nt), the others
 * after them in order. */
static int kruskal(wedge *we, size_t m, size_t n, size_t *nt)
{
    uint32_t *par = malloc((n + 1) * sizeof(uint32_t));
    wedge *rest = malloc((m + 1) * sizeof(wedge));
    if (!par || !rest) {
        free(par);
        free(rest);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        par[i] = (uint32_t)i;
    size_t t = 0, r = 0;
    for (size_t i = 0; i < m; i++) {
        uint32_t a = uf_find(par, we[i].u), b = uf_find(par, we[i].v);
        if (a == b) {
            rest[r++] = we[i];
            continue;
        }
        par[a > b ? a : b] = a < b ? a : b;
        we[t++] = we[i];
    }
    for (size_t i = 0; i < r; i++)
        we[t + i] = rest[i];
    *nt = t;
    free(par);
    free(rest);
    return 0;
}

int gk_density_clean(const double *x, int dim, size_t n, uint32_t *e, size_t *n_e, double loop_min)
{
    size_t m = *n_e, nt = 0, out = 0;
    wedge *we = malloc((m + 1) * sizeof(wedge));
    if (!we)
        return 1;
    for (size_t i = 0; i < m; i++) {
        const double *a = x + (size_t)e[2 * i] * (size_t)dim,
                     *b = x + (size_t)e[2 * i + 1] * (size_t)dim;
        double d2 = 0.0;
        for (int k = 0; k < dim; k++)
            d2 += (a[k] - b[k]) * (a[k] - b[k]);
        we[i] = (wedge){sqrt(d2), e[2 * i], e[2 * i + 1]};
    }
    qsort(we, m, sizeof(wedge), wedge_cmp);
    graph g = {0};
    int rc = kruskal(we, m, n, &nt);
    if (!rc)
        rc = graph_init(&g, n, we, m);
    for (size_t i = 0; !rc && i < m; i++) {
        if (i >= nt) {
            int w = within(&g, we[i].u, we[i].v, loop_min - we[i].len);
            if (w < 0)
                rc = 1;
            if (w != 0)
                continue;
        }
        adj_add(&g, we[i].u, we[i].v, we[i].len);
        e[2 * out] = we[i].u;
        e[2 * out + 1] = we[i].v;
        out++;
    }
    graph_free(&g);
    free(we);
    *n_e = out;
    return rc;
}
