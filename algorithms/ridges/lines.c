/* SPDX-License-Identifier: MIT */
/*
 * lines.c - a method's graph into gk_lines (gk_graph_lines): chains
 * (lines_chains.c), short ones pruned, Douglas-Peucker (lines_simplify.c),
 * each oriented and the lines sorted so that the output depends on the
 * geometry only, then their samples (lines_support.c).
 *
 * Orientation: an open line starts at its lexicographically smaller end
 * (x, then y, then z); a ring starts at its lexicographically smallest
 * vertex and goes on towards the smaller of that vertex's two neighbours.
 * Order: by the first vertex, then the second, ... (lexicographic), then
 * fewer vertices first, then the order the chains were walked in.
 */
#include "lines.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

typedef struct {
    size_t first, n; /* into kv */
    int closed;
    double density;
    size_t walk; /* the chain's index: the last tie-break */
} piece;

typedef struct {
    const double *v;
    int dim;
    const uint32_t *kv;
    const piece *pc;
} order_ctx;

static int vcmp(const double *v, int dim, uint32_t a, uint32_t b)
{
    for (int k = 0; k < dim; k++) {
        double x = v[(size_t)a * dim + k], y = v[(size_t)b * dim + k];
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

static double chain_length(const double *v, int dim, const uint32_t *idx, size_t n)
{
    double len = 0.0;
    for (size_t i = 1; i < n; i++) {
        double d2 = 0.0;
        for (int k = 0; k < dim; k++) {
            double d = v[(size_t)idx[i] * dim + k] - v[(size_t)idx[i - 1] * dim + k];
            d2 += d * d;
        }
        len += sqrt(d2);
    }
    return len;
}

static void reverse(uint32_t *a, size_t n)
{
    for (size_t i = 0; i < n / 2; i++) {
        uint32_t t = a[i];
        a[i] = a[n - 1 - i];
        a[n - 1 - i] = t;
    }
}

/* The orientation rules of the file's comment; a ring's last == first. A
 * loop that leaves a junction and comes back keeps the junction as its ends
 * (ring = 0), only its direction is chosen. */
static void orient(const double *v, int dim, uint32_t *a, size_t n, int closed, int ring)
{
    if (!closed) {
        if (n > 1 && vcmp(v, dim, a[n - 1], a[0]) < 0)
            reverse(a, n);
        return;
    }
    size_t m = n - 1, s = 0; /* distinct vertices; the smallest */
    if (m < 3)
        return;
    if (ring) {
        for (size_t i = 1; i < m; i++)
            if (vcmp(v, dim, a[i], a[s]) < 0)
                s = i;
        reverse(a, s); /* rotate left by s: three reversals */
        reverse(a + s, m - s);
        reverse(a, m);
    }
    if (vcmp(v, dim, a[m - 1], a[1]) < 0)
        reverse(a + 1, m - 1);
    a[m] = a[0];
}

static int piece_cmp(const order_ctx *o, const piece *p, const piece *q)
{
    size_t n = p->n < q->n ? p->n : q->n;
    for (size_t i = 0; i < n; i++) {
        int c = vcmp(o->v, o->dim, o->kv[p->first + i], o->kv[q->first + i]);
        if (c)
            return c;
    }
    if (p->n != q->n)
        return p->n < q->n ? -1 : 1;
    return p->walk < q->walk ? -1 : p->walk > q->walk;
}

/* Stable merge sort of the pieces (qsort takes no context). */
static int sort_pieces(const order_ctx *o, piece *a, size_t n)
{
    piece *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!tmp)
        return GK_ERR_NOMEM;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = piece_cmp(o, &a[j], &a[i]) < 0 ? a[j++] : a[i++];
            while (i < mid)
                tmp[k++] = a[i++];
            while (j < hi)
                tmp[k++] = a[j++];
        }
        memcpy(a, tmp, n * sizeof *a);
    }
    free(tmp);
    return GK_OK;
}

/* Pruned and simplified chains: pieces over kv (room for every chain vertex). */
static size_t make_pieces(const gk_ridge_graph *g, const gk_chains *ch, const int *deg,
                          double min_length, double simplify, uint32_t *kv, piece *pc,
                          unsigned char *keep)
{
    size_t np = 0, used = 0;
    for (size_t c = 0; c < ch->n; c++) {
        const uint32_t *idx = ch->v + ch->start[c];
        size_t n = ch->start[c + 1] - ch->start[c];
        int free_end = deg[idx[0]] == 1 || deg[idx[n - 1]] == 1;
        if (min_length > 0 && (ch->closed[c] || free_end) &&
            chain_length(g->v, g->dim, idx, n) < min_length)
            continue; /* short chain or spur; a link between junctions stays */
        double dens = NAN;
        if (g->density) {
            size_t m = ch->closed[c] ? n - 1 : n;
            dens = 0.0;
            for (size_t i = 0; i < m; i++)
                dens += g->density[idx[i]];
            dens /= (double)m;
        }
        gk_simplify(g->v, g->dim, idx, n, simplify, keep);
        size_t kept = 0;
        for (size_t i = 0; i < n; i++)
            kept += keep[i];
        if (ch->closed[c] && kept < 4) /* a ring needs 3 distinct vertices */
            memset(keep, 1, n);
        piece *p = &pc[np++];
        *p = (piece){used, 0, ch->closed[c], dens, c};
        for (size_t i = 0; i < n; i++)
            if (keep[i])
                kv[used + p->n++] = idx[i];
        used += p->n;
        orient(g->v, g->dim, kv + p->first, p->n, p->closed, deg[idx[0]] == 2);
    }
    return np;
}

static gk_lines *lines_alloc(int dim, size_t n_lines, size_t nv)
{
    gk_lines *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->dim = dim;
    l->n_lines = n_lines;
    l->start = malloc((n_lines + 1) * sizeof *l->start);
    l->x = malloc((nv + 1) * sizeof *l->x);
    l->y = malloc((nv + 1) * sizeof *l->y);
    l->z = dim == 3 ? malloc((nv + 1) * sizeof *l->z) : NULL;
    l->length = malloc((n_lines + 1) * sizeof *l->length);
    l->n_support = malloc((n_lines + 1) * sizeof *l->n_support);
    l->closed = malloc((n_lines + 1) * sizeof *l->closed);
    l->mean_density = malloc((n_lines + 1) * sizeof *l->mean_density);
    l->width = malloc((n_lines + 1) * sizeof *l->width);
    if (!l->start || !l->x || !l->y || (dim == 3 && !l->z) || !l->length || !l->n_support ||
        !l->closed || !l->mean_density || !l->width) {
        gk_lines_free(l);
        return NULL;
    }
    return l;
}

static gk_lines *assemble(const gk_ridge_graph *g, const uint32_t *kv, const piece *pc, size_t np)
{
    size_t nv = 0;
    for (size_t i = 0; i < np; i++)
        nv += pc[i].n;
    gk_lines *l = lines_alloc(g->dim, np, nv);
    if (!l)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < np; i++) {
        l->start[i] = k;
        for (size_t j = 0; j < pc[i].n; j++, k++) {
            const double *p = g->v + (size_t)kv[pc[i].first + j] * g->dim;
            l->x[k] = p[0];
            l->y[k] = p[1];
            if (g->dim == 3)
                l->z[k] = p[2];
        }
        l->length[i] = chain_length(g->v, g->dim, kv + pc[i].first, pc[i].n);
        l->closed[i] = pc[i].closed;
        l->mean_density[i] = pc[i].density;
    }
    l->start[np] = k;
    return l;
}

gk_lines *gk_graph_lines(gk_context *ctx, const gk_ridge_graph *g, const gk_cloud *c,
                         double support, double min_length, double simplify)
{
    gk_chains ch = {0};
    int *deg = NULL;
    if (gk_chains_build(g, &ch, &deg)) {
        gk_error(ctx, GK_ERR_NOMEM, "ridges: out of memory building lines");
        return NULL;
    }
    uint32_t *kv = malloc((ch.len + 1) * sizeof *kv);
    piece *pc = malloc((ch.n + 1) * sizeof *pc);
    unsigned char *keep = malloc(ch.len + 1);
    gk_lines *l = NULL;
    if (kv && pc && keep) {
        size_t np = make_pieces(g, &ch, deg, min_length, simplify, kv, pc, keep);
        order_ctx o = {g->v, g->dim, kv, pc};
        if (sort_pieces(&o, pc, np) == GK_OK)
            l = assemble(g, kv, pc, np);
    }
    if (l && gk_lines_support(l, c, support, gk_ridges_threads(ctx))) {
        gk_lines_free(l);
        l = NULL;
    }
    if (!l)
        gk_error(ctx, GK_ERR_NOMEM, "ridges: out of memory building lines");
    gk_chains_free(&ch);
    free(deg);
    free(kv);
    free(pc);
    free(keep);
    return l;
}

void gk_ridge_graph_free(gk_ridge_graph *g)
{
    if (!g)
        return;
    free(g->v);
    free(g->density);
    free(g->e);
    g->v = g->density = NULL;
    g->e = NULL;
    g->n_v = g->n_e = 0;
}
