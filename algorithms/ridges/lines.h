/* SPDX-License-Identifier: MIT */
/*
 * lines.h - between the files of the line builder (gk_graph_lines):
 * lines_chains.c walks the graph into chains, lines_simplify.c simplifies
 * them, lines_support.c gives each line its samples, lines.c does the rest.
 */
#ifndef GK_RIDGES_LINES_H
#define GK_RIDGES_LINES_H

#include "ridges_util.h"

/* Chains of graph vertices: chain i is v[start[i] .. start[i+1]-1]. */
typedef struct {
    size_t n, len, cap_v; /* chains, vertices, room */
    size_t *start;        /* n + 1 */
    uint32_t *v;
    int *closed; /* n */
} gk_chains;

/* The chains of g: from each end (degree 1) and junction (degree >= 3), in
 * vertex order and, per vertex, neighbour order, to the next end or
 * junction; then each remaining cycle from its lowest vertex, its first
 * vertex repeated at the end. deg gets each vertex's degree (n_v, malloc).
 * GK_OK or GK_ERR_NOMEM. */
int gk_chains_build(const gk_ridge_graph *g, gk_chains *ch, int **deg);
void gk_chains_free(gk_chains *ch);

/* Douglas-Peucker over the n points idx[0 .. n-1] (coordinates in v, dim
 * each), ends kept: keep[i] = 1 for the kept points. Iterative, the first
 * farthest point splits. */
void gk_simplify(const double *v, int dim, const uint32_t *idx, size_t n, double tol,
                 unsigned char *keep);

/* n_support and width of every line: each sample to its nearest segment
 * within support (ties: the lower line, then the lower segment). GK_OK or
 * GK_ERR_NOMEM. */
int gk_lines_support(gk_lines *l, const gk_cloud *c, double support, int threads);

/* Squared distance of x to the segment a-b. */
double gk_seg_d2(const double *x, const double *a, const double *b, int dim);

#endif
