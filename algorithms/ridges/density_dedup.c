/* SPDX-License-Identifier: MIT */
/*
 * density_dedup.c - converged walkers merged: in walker order, a walker
 * within delta of one already kept is dropped (so the kept ones are at
 * least delta apart, and the result is the same on any thread count).
 * The kept walkers are found through cells of side delta: a cell holds at
 * most a few of them, however many walkers converged there. The cells are
 * a dense array where the walkers' box has few enough of them (seeds=data
 * on a million samples: 0.5 s with the hash's scattered probes), else a
 * hash.
 */
#include "ridges/density.h"

#include <stdlib.h>

typedef struct {
    size_t cap; /* power of two (hash) or the cells' count (dense) */
    int dense;  /* 1: slot = the cell's offset in the box lo .. lo + nc */
    int64_t lo[3], nc[3];
    int64_t *cell;  /* cap * 3 (hash only) */
    uint32_t *head; /* cap: first kept walker of the cell, UINT32_MAX: empty slot */
    uint32_t *next; /* per walker: the next kept one of its cell */
} cell_hash;

static uint64_t cell_mix(const int64_t *c)
{
    uint64_t k = (uint64_t)c[0] * 0x9E3779B97F4A7C15ull ^ (uint64_t)c[1] * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)c[2] * 0x165667B19E3779F9ull;
    return k ^ (k >> 29);
}

/* The slot of cell c: its own, or the empty one where it would go; cap
 * for a cell outside a dense box (which holds no walker). */
static size_t hash_slot(const cell_hash *h, const int64_t *c)
{
    if (h->dense) {
        size_t s = 0;
        for (int k = 2; k >= 0; k--) {
            int64_t o = c[k] - h->lo[k];
            if (o < 0 || o >= h->nc[k])
                return h->cap;
            s = s * (size_t)h->nc[k] + (size_t)o;
        }
        return s;
    }
    size_t s = (size_t)cell_mix(c) & (h->cap - 1);
    while (h->head[s] != UINT32_MAX &&
           (h->cell[3 * s] != c[0] || h->cell[3 * s + 1] != c[1] || h->cell[3 * s + 2] != c[2]))
        s = (s + 1) & (h->cap - 1);
    return s;
}

static void cell_of(const double *x, int dim, double delta, int64_t *c)
{
    c[2] = 0;
    for (int k = 0; k < dim; k++) {
        double f = floor(x[k] / delta);
        c[k] = (int64_t)(f < -4e18 ? -4e18 : f > 4e18 ? 4e18 : f);
    }
}

/* Is a kept walker within delta of x? */
static int near_kept(const cell_hash *h, const double *xs, int dim, const double *x,
                     const int64_t *c, double d2max)
{
    int64_t n[3];
    int zr = dim == 3;
    for (int64_t dz = -zr; dz <= zr; dz++)
        for (int64_t dy = -1; dy <= 1; dy++)
            for (int64_t dx = -1; dx <= 1; dx++) {
                n[0] = c[0] + dx;
                n[1] = c[1] + dy;
                n[2] = c[2] + dz;
                size_t slot = hash_slot(h, n);
                if (slot == h->cap)
                    continue;
                for (uint32_t j = h->head[slot]; j != UINT32_MAX; j = h->next[j]) {
                    double d2 = 0.0;
                    for (int k = 0; k < dim; k++) {
                        double d = xs[(size_t)j * (size_t)dim + k] - x[k];
                        d2 += d * d;
                    }
                    if (d2 <= d2max)
                        return 1;
                }
            }
    return 0;
}

/* Dense cells when the walkers' box has at most 8 n + 4096 of them. */
static void choose_layout(const gk_walkers *w, double delta, cell_hash *h)
{
    int64_t hi[3] = {0, 0, 0}, c[3];
    h->lo[0] = h->lo[1] = h->lo[2] = 0;
    for (size_t i = 0; i < w->n; i++) {
        cell_of(w->x + i * (size_t)w->dim, w->dim, delta, c);
        for (int k = 0; k < 3; k++) {
            if (i == 0 || c[k] < h->lo[k])
                h->lo[k] = c[k];
            if (i == 0 || c[k] > hi[k])
                hi[k] = c[k];
        }
    }
    double cells = 1.0;
    for (int k = 0; k < 3; k++) {
        h->nc[k] = hi[k] - h->lo[k] + 1;
        cells *= (double)h->nc[k];
    }
    h->dense = w->n > 0 && cells <= 8.0 * (double)w->n + 4096.0;
    if (h->dense)
        h->cap = (size_t)cells;
    else
        while (h->cap < 2 * w->n)
            h->cap *= 2;
}

int gk_density_dedup(const gk_walkers *w, double delta, uint8_t *keep)
{
    cell_hash h = {16, 0, {0, 0, 0}, {1, 1, 1}, NULL, NULL, NULL};
    choose_layout(w, delta, &h);
    h.cell = h.dense ? NULL : malloc(h.cap * 3 * sizeof(int64_t));
    h.head = malloc(h.cap * sizeof(uint32_t));
    h.next = malloc((w->n ? w->n : 1) * sizeof(uint32_t));
    if ((!h.dense && !h.cell) || !h.head || !h.next) {
        free(h.cell);
        free(h.head);
        free(h.next);
        return 1;
    }
    for (size_t s = 0; s < h.cap; s++)
        h.head[s] = UINT32_MAX;
    for (size_t i = 0; i < w->n; i++) {
        const double *x = w->x + i * (size_t)w->dim;
        int64_t c[3];
        cell_of(x, w->dim, delta, c);
        keep[i] = !near_kept(&h, w->x, w->dim, x, c, delta * delta);
        if (!keep[i])
            continue;
        size_t s = hash_slot(&h, c);
        if (!h.dense && h.head[s] == UINT32_MAX)
            for (int k = 0; k < 3; k++)
                h.cell[3 * s + k] = c[k];
        h.next[i] = h.head[s];
        h.head[s] = (uint32_t)i;
    }
    free(h.cell);
    free(h.head);
    free(h.next);
    return 0;
}
