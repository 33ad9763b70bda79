/* SPDX-License-Identifier: MIT */
/*
 * cells.h - a uniform grid of cells over points in 2 or 3 dimensions, with a
 * linked list of items per cell (ridges' neighbour searches: curve's
 * choose, evolve, decimate and order, the lines' support).
 *
 * Items are inserted one by one (choose adds representatives as it goes);
 * a query visits every item of the cells that the box [p - r, p + r]
 * touches, and the caller tests the exact distance. Points outside the
 * grid's box are kept in its border cells, so queries stay correct.
 */
#ifndef GK_RIDGES_CELLS_H
#define GK_RIDGES_CELLS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int dim;
    double lo[3];
    double h;  /* cell edge (may exceed the one asked for: see gk_cells_init) */
    long n[3]; /* cells per axis; n[2] = 1 in 2-D */
    size_t ncell;
    int32_t *head; /* ncell: the last item inserted into the cell, or -1 */
    int32_t *next; /* per item: the one inserted before it into its cell, or -1 */
    size_t cap;    /* items: indices 0 .. cap - 1 */
} gk_cells;

/* A grid over [lo, hi] (dim values each) with cells of edge h for items
 * 0 .. cap - 1. Where that makes more than max(4 cap, 4096) cells the edge
 * grows until it does not (queries stay exact, only slower). GK_OK or
 * GK_ERR_NOMEM. */
int gk_cells_init(gk_cells *g, int dim, const double *lo, const double *hi, double h, size_t cap);
void gk_cells_free(gk_cells *g);
/* Only the geometry (no lists): cells of edge h, grown until there are at
 * most max_cells. */
void gk_cells_geometry(gk_cells *g, int dim, const double *lo, const double *hi, double h,
                       double max_cells);
/* Empties every cell. */
void gk_cells_clear(gk_cells *g);

static inline long gk_cells_axis(const gk_cells *g, int k, double v)
{
    double c = (v - g->lo[k]) / g->h;
    if (!(c >= 0)) /* NaN lands in cell 0 too */
        return 0;
    if (c >= (double)(g->n[k] - 1))
        return g->n[k] - 1;
    return (long)c;
}

static inline size_t gk_cells_index(const gk_cells *g, const long *c)
{
    return ((size_t)c[2] * (size_t)g->n[1] + (size_t)c[1]) * (size_t)g->n[0] + (size_t)c[0];
}

/* The cell of point p. */
static inline size_t gk_cells_of(const gk_cells *g, const double *p)
{
    long c[3] = {0, 0, 0};
    for (int k = 0; k < g->dim; k++)
        c[k] = gk_cells_axis(g, k, p[k]);
    return gk_cells_index(g, c);
}

static inline void gk_cells_insert(gk_cells *g, int32_t item, const double *p)
{
    size_t c = gk_cells_of(g, p);
    g->next[item] = g->head[c];
    g->head[c] = item;
}

/* Walks the items of the cells around a point:
 *   gk_cells_iter it; for (int32_t i = gk_cells_first(g, p, r, &it); i >= 0;
 *        i = gk_cells_next(g, &it)) ... */
typedef struct {
    long a[3], b[3], c[3];
    int32_t item;
} gk_cells_iter;

static inline int32_t gk_cells_step(const gk_cells *g, gk_cells_iter *it)
{
    while (it->item < 0) {
        if (++it->c[0] > it->b[0]) {
            it->c[0] = it->a[0];
            if (++it->c[1] > it->b[1]) {
                it->c[1] = it->a[1];
                if (++it->c[2] > it->b[2])
                    return -1;
            }
        }
        it->item = g->head[gk_cells_index(g, it->c)];
    }
    return it->item;
}

static inline int32_t gk_cells_first(const gk_cells *g, const double *p, double r,
                                     gk_cells_iter *it)
{
    for (int k = 0; k < 3; k++) {
        it->a[k] = k < g->dim ? gk_cells_axis(g, k, p[k] - r) : 0;
        it->b[k] = k < g->dim ? gk_cells_axis(g, k, p[k] + r) : 0;
        it->c[k] = it->a[k];
    }
    it->item = g->head[gk_cells_index(g, it->c)];
    return gk_cells_step(g, it);
}

static inline int32_t gk_cells_next(const gk_cells *g, gk_cells_iter *it)
{
    it->item = g->next[it->item];
    return gk_cells_step(g, it);
}

/* The bounding box of n interleaved points (dim values each). */
void gk_cells_bounds(const double *p, size_t n, int dim, double *lo, double *hi);

#endif
