/* SPDX-License-Identifier: MIT */
/* cells.c - the uniform cell grid of cells.h. */
#include "cells.h"

#include "gridkit.h"

#include <math.h>
#include <stdlib.h>

void gk_cells_geometry(gk_cells *g, int dim, const double *lo, const double *hi, double h,
                       double max_cells)
{
    double span_max = 0.0;
    for (int k = 0; k < dim; k++)
        span_max = fmax(span_max, hi[k] - lo[k]);
    if (!(h > 0) || !isfinite(h))
        h = span_max > 0 ? span_max : 1.0;
    for (;;) {
        double cells = 1.0;
        for (int k = 0; k < dim; k++)
            cells *= floor((hi[k] - lo[k]) / h) + 1.0;
        if (cells <= max_cells)
            break;
        h *= 1.5; /* coarser cells: more items per query, same answers */
    }
    g->dim = dim;
    g->h = h;
    g->ncell = 1;
    for (int k = 0; k < 3; k++) {
        g->lo[k] = k < dim ? lo[k] : 0.0;
        g->n[k] = k < dim ? (long)(floor((hi[k] - lo[k]) / h) + 1.0) : 1;
        g->ncell *= (size_t)g->n[k];
    }
}

int gk_cells_init(gk_cells *g, int dim, const double *lo, const double *hi, double h, size_t cap)
{
    gk_cells_geometry(g, dim, lo, hi, h, fmax(4.0 * (double)cap, 4096.0));
    g->cap = cap;
    g->head = malloc(g->ncell * sizeof *g->head);
    g->next = malloc((cap ? cap : 1) * sizeof *g->next);
    if (!g->head || !g->next) {
        gk_cells_free(g);
        return GK_ERR_NOMEM;
    }
    gk_cells_clear(g);
    return GK_OK;
}

void gk_cells_free(gk_cells *g)
{
    free(g->head);
    free(g->next);
    g->head = NULL;
    g->next = NULL;
}

void gk_cells_clear(gk_cells *g)
{
    for (size_t c = 0; c < g->ncell; c++)
        g->head[c] = -1;
}

void gk_cells_bounds(const double *p, size_t n, int dim, double *lo, double *hi)
{
    for (int k = 0; k < dim; k++) {
        lo[k] = n ? p[k] : 0.0;
        hi[k] = n ? p[k] : 0.0;
    }
    for (size_t i = 1; i < n; i++)
        for (int k = 0; k < dim; k++) {
            double v = p[i * dim + k];
            lo[k] = v < lo[k] ? v : lo[k];
            hi[k] = v > hi[k] ? v : hi[k];
        }
}
