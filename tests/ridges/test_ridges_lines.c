/* SPDX-License-Identifier: MIT */
/*
 * test_ridges_lines.c - the family's pieces on hand-made input, where the
 * answer is known exactly: the line builder (gk_graph_lines: chains,
 * junctions, rings, pruning, Douglas-Peucker, orientation and order, support
 * and width (also for a support tiny beside the lines), mean density, independence of vertex numbering) and curve's
 * order step (rings closed by gap bridging, no triangles, closest first).
 */
#include "gk_check.h"
#include "ridges/curve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A graph from coordinates (2-D) and edges, vertex i renumbered perm[i]. */
static void make_graph(gk_ridge_graph *g, const double *xy, size_t nv, const uint32_t *e, size_t ne,
                       const uint32_t *perm)
{
    g->dim = 2;
    g->n_v = nv;
    g->v = malloc(2 * nv * sizeof *g->v);
    g->density = NULL;
    g->n_e = ne;
    g->e = malloc(2 * ne * sizeof *g->e);
    for (size_t i = 0; i < nv; i++) {
        uint32_t k = perm ? perm[i] : (uint32_t)i;
        g->v[2 * k] = xy[2 * i];
        g->v[2 * k + 1] = xy[2 * i + 1];
    }
    for (size_t i = 0; i < 2 * ne; i++) /* edges listed backwards under a permutation */
        g->e[i] = perm ? perm[e[2 * ne - 1 - i]] : e[i];
}

static gk_cloud no_samples = {2, 0, NULL};

/* line li's vertex k is (x, y) */
static int vertex_is(const gk_lines *l, size_t li, size_t k, double x, double y)
{
    size_t i = l->start[li] + k;
    return i < l->start[li + 1] && l->x[i] == x && l->y[i] == y;
}

/* A junction at (0, 0) with three arms, and a hexagon apart. */
static const double Y_XY[] = {0, 0, 1, 0, 2, 0, 3, 0, -1, 1, -2, 2, 0, -1, 0, -2, 0, -3, 0, -4,
                              /* hexagon, vertices 10 .. 15 */
                              20, 0, 25, 3, 30, 0, 30, -6, 25, -9, 20, -6};
static const uint32_t Y_E[] = {0, 1, 1, 2,  2,  3,  0,  4,  4,  5,  0,  6,  6,  7,  7,
                               8, 8, 9, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15, 10};

static void junction_and_ring(gk_context *ctx)
{
    gk_ridge_graph g;
    make_graph(&g, Y_XY, 16, Y_E, 15, NULL);
    gk_lines *l = gk_graph_lines(ctx, &g, &no_samples, 1.0, 0.0, 0.0);
    CHECK(l && l->n_lines == 4);
    if (l && l->n_lines == 4) {
        /* arms start at their smaller end; lines sorted by first vertex */
        CHECK(vertex_is(l, 0, 0, -2, 2) && vertex_is(l, 0, 2, 0, 0) && !l->closed[0]);
        CHECK(vertex_is(l, 1, 0, 0, -4) && vertex_is(l, 1, 4, 0, 0) && !l->closed[1]);
        CHECK(vertex_is(l, 2, 0, 0, 0) && vertex_is(l, 2, 3, 3, 0) && !l->closed[2]);
        /* the ring from its smallest vertex towards the smaller neighbour, closed */
        CHECK(l->closed[3] && l->start[4] - l->start[3] == 7);
        CHECK(vertex_is(l, 3, 0, 20, -6) && vertex_is(l, 3, 1, 20, 0) &&
              vertex_is(l, 3, 6, 20, -6));
        CHECK_NEAR(l->length[2], 3.0, 1e-15);
        CHECK_NEAR(l->length[0], 2.0 * sqrt(2.0), 1e-15);
        CHECK(isnan(l->mean_density[0]));
    }
    /* the same lines, byte for byte, whatever the vertices' numbering */
    uint32_t perm[16];
    for (uint32_t i = 0; i < 16; i++)
        perm[i] = (i * 7 + 3) % 16;
    gk_ridge_graph h;
    make_graph(&h, Y_XY, 16, Y_E, 15, perm);
    gk_lines *m = gk_graph_lines(ctx, &h, &no_samples, 1.0, 0.0, 0.0);
    CHECK(l && m && l->n_lines == m->n_lines && l->start[l->n_lines] == m->start[m->n_lines]);
    if (l && m && l->start[l->n_lines] == m->start[m->n_lines]) {
        size_t nv = l->start[l->n_lines];
        CHECK(!memcmp(l->x, m->x, nv * sizeof(double)) && !memcmp(l->y, m->y, nv * sizeof(double)));
        CHECK(!memcmp(l->start, m->start, (l->n_lines + 1) * sizeof(size_t)));
    }
    gk_lines_free(m);
    gk_ridge_graph_free(&h);
    gk_lines_free(l);
    /* min_length 2.9: the arm of 2.83 (a spur: its far end is free) goes, the
     * ring (36) and the arms of 3 and 4 stay */
    l = gk_graph_lines(ctx, &g, &no_samples, 1.0, 2.9, 0.0);
    CHECK(l && l->n_lines == 3 && vertex_is(l, 0, 0, 0, -4));
    gk_lines_free(l);
    /* mean density of the vertices (the ring's repeat not counted twice) */
    g.density = malloc(16 * sizeof *g.density);
    for (int i = 0; i < 16; i++)
        g.density[i] = i;
    l = gk_graph_lines(ctx, &g, &no_samples, 1.0, 0.0, 0.0);
    CHECK(l && l->n_lines == 4 && l->mean_density[0] == (0 + 4 + 5) / 3.0 &&
          l->mean_density[3] == (10 + 11 + 12 + 13 + 14 + 15) / 6.0);
    gk_lines_free(l);
    gk_ridge_graph_free(&g);
}

/* Two junctions joined by a short link, two long arms each: the link stays. */
static void junction_link(gk_context *ctx)
{
    const double xy[] = {0, 0, 1, 0, -5, 5, -5, -5, 6, 5, 6, -5};
    const uint32_t e[] = {0, 1, 0, 2, 0, 3, 1, 4, 1, 5};
    gk_ridge_graph g;
    make_graph(&g, xy, 6, e, 5, NULL);
    gk_lines *l = gk_graph_lines(ctx, &g, &no_samples, 1.0, 3.0, 0.0);
    CHECK(l && l->n_lines == 5);
    gk_lines_free(l);
    gk_ridge_graph_free(&g);
}

/* Douglas-Peucker, and each sample to its nearest segment within support. */
static void simplify_and_support(gk_context *ctx)
{
    const double xy[] = {10, 0, 3, 0.05, 2, -0.1, 1, 0.1, 0, 0};
    const uint32_t e[] = {0, 1, 1, 2, 2, 3, 3, 4};
    gk_ridge_graph g;
    make_graph(&g, xy, 5, e, 4, NULL);
    double s[] = {5, 1, 5, -2, 2, 0.5, 20, 0, -1, 0, 5, 3.5};
    gk_cloud c = {2, 6, s};
    gk_lines *l = gk_graph_lines(ctx, &g, &c, 3.0, 0.0, 0.5);
    CHECK(l && l->n_lines == 1 && l->start[1] == 2);
    if (l && l->start[1] == 2) {
        CHECK(vertex_is(l, 0, 0, 0, 0) && vertex_is(l, 0, 1, 10, 0) && l->length[0] == 10.0);
        /* within 3: (5, 1), (5, -2), (2, 0.5), (-1, 0) at 1, 2, 0.5, 1 */
        CHECK(l->n_support[0] == 4 && l->width[0] == 4.5 / 4);
    }
    gk_lines_free(l);
    l = gk_graph_lines(ctx, &g, &c, 3.0, 0.0, 0.05); /* every bend above 0.05 stays */
    CHECK(l && l->start[1] == 5 && vertex_is(l, 0, 1, 1, 0.1));
    gk_lines_free(l);
    gk_ridge_graph_free(&g);
}

/* A support tiny beside the lines (1e-6 on a line 2e4 long): the same
 * answer, in bounded memory (once, entries every support along the line:
 * 2e10 of them). */
static void tiny_support(gk_context *ctx)
{
    const double xy[] = {-1e4, 0, 0, 0, 1e4, 0};
    const uint32_t e[] = {0, 1, 1, 2};
    gk_ridge_graph g;
    make_graph(&g, xy, 3, e, 2, NULL);
    double s[] = {5000, 5e-7, -3000, -2.5e-7, 7000, 2e-6, 1e4 + 5e-7, 0};
    gk_cloud c = {2, 4, s};
    gk_lines *l = gk_graph_lines(ctx, &g, &c, 1e-6, 0.0, 0.0);
    CHECK(l && l->n_lines == 1);
    if (l) /* within 1e-6: the first, second and fourth; coordinates of
            * 1e4 hold a distance to about 1e-12 */
        CHECK(l->n_support[0] == 3 && fabs(l->width[0] - 1.25e-6 / 3) < 1e-12);
    gk_lines_free(l);
    gk_ridge_graph_free(&g);
}

static size_t order_edges(const double *s, size_t m, double r2, double gap, uint32_t **e)
{
    size_t ne = 0;
    CHECK(gk_curve_order(s, m, 2, r2, gap, e, &ne) == GK_OK);
    return ne;
}

static int has_edge(const uint32_t *e, size_t ne, uint32_t p, uint32_t q)
{
    for (size_t i = 0; i < ne; i++)
        if ((e[2 * i] == p && e[2 * i + 1] == q) || (e[2 * i] == q && e[2 * i + 1] == p))
            return 1;
    return 0;
}

static void order(void)
{
    /* 11 of 12 points of a circle (radius 10, 5.18 apart; the missing one
     * leaves ends 10 apart): pairs within r2 = 6 make a chain; a gap of 12
     * closes it into a ring, a gap of 8 or 0 does not */
    double s[24];
    for (int i = 0; i < 11; i++)
        s[2 * i] = 10 * cos(M_PI / 6 * i), s[2 * i + 1] = 10 * sin(M_PI / 6 * i);
    uint32_t *e = NULL;
    CHECK(order_edges(s, 11, 6, 12, &e) == 11 && has_edge(e, 11, 0, 10));
    free(e);
    CHECK(order_edges(s, 11, 6, 8, &e) == 10);
    free(e);
    CHECK(order_edges(s, 11, 6, 0, &e) == 10);
    free(e);
    /* three mutually within r2: the longest edge goes, and bridging does not
     * put it back (a triangle) */
    double t[] = {0, 0, 5, 0, 2.5, 4};
    size_t ne = order_edges(t, 3, 5, 10, &e);
    CHECK(ne == 2 && !has_edge(e, ne, 0, 1));
    free(e);
    /* closest pair first: end (5, 0) takes (5, 5.3) at 5.3, not (10.5, 0) at 5.5 */
    double u[] = {0, 0, 5, 0, 10.5, 0, 15.5, 0, 5, 5.3, 5, 10.3};
    ne = order_edges(u, 6, 5.2, 8, &e);
    CHECK(ne == 4 && has_edge(e, ne, 1, 4) && !has_edge(e, ne, 1, 2) && has_edge(e, ne, 2, 3));
    free(e);
}

int main(void)
{
    gk_context *ctx = gk_context_new();
    junction_and_ring(ctx);
    junction_link(ctx);
    simplify_and_support(ctx);
    tiny_support(ctx);
    order();
    gk_context_free(ctx);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
