/* SPDX-License-Identifier: MIT */
/* ridge_graph_util.h - a ridge graph's components, for the ridges tests. */
#ifndef RIDGE_GRAPH_UTIL_H
#define RIDGE_GRAPH_UTIL_H

#include "ridges/ridges.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Connected components of g whose edges add up to at least min_length
 * (what gk_graph_lines keeps, its default min_length being 4 h), how many
 * of them hold a cycle, and their vertices (malloc()ed, in *kept). The
 * others are fragments: side bumps of the noise, 2-6 vertices long. */
static inline size_t components(const gk_ridge_graph *g, double min_length, size_t *cyclic,
                                double **kept, size_t *n_kept)
{
    size_t n = g->n_v, d = (size_t)g->dim, nc = 0;
    uint32_t *par = malloc((n + 1) * sizeof(uint32_t));
    size_t *ne = calloc(n + 1, sizeof(size_t)), *nv = calloc(n + 1, sizeof(size_t));
    double *len = calloc(n + 1, sizeof(double));
    for (size_t i = 0; i < n; i++)
        par[i] = (uint32_t)i;
    for (size_t i = 0; i < g->n_e; i++) {
        uint32_t a = g->e[2 * i], b = g->e[2 * i + 1];
        while (par[a] != a)
            a = par[a];
        while (par[b] != b)
            b = par[b];
        par[a > b ? a : b] = a < b ? a : b;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t a = (uint32_t)i;
        while (par[a] != a)
            a = par[a];
        par[i] = a;
        nv[a]++;
    }
    for (size_t i = 0; i < g->n_e; i++) {
        const double *a = g->v + g->e[2 * i] * d, *b = g->v + g->e[2 * i + 1] * d;
        double s = 0.0;
        for (size_t k = 0; k < d; k++)
            s += (a[k] - b[k]) * (a[k] - b[k]);
        ne[par[g->e[2 * i]]]++;
        len[par[g->e[2 * i]]] += sqrt(s);
    }
    *cyclic = 0;
    *kept = malloc((n + 1) * d * sizeof(double));
    *n_kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (len[par[i]] >= min_length)
            memcpy(*kept + (*n_kept)++ * d, g->v + i * d, d * sizeof(double));
        if (nv[i] == 0 || len[i] < min_length)
            continue;
        nc++;
        *cyclic += ne[i] >= nv[i];
    }
    free(par);
    free(ne);
    free(nv);
    free(len);
    return nc;
}

#endif
