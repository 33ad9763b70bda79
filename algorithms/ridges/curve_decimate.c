/* SPDX-License-Identifier: MIT */
/*
 * curve_decimate.c - curve's decimate, with Rupniewski's sequential
 * semantics: one representative after the other in index order, each
 * removal seen by the tests that follow it (the parallel variants of the
 * CUDA study broke curves into pieces). Cells of edge 2 r2 keep each test
 * local.
 */
#include "curve.h"

#include "cells.h"
#include "curve_step.h"

#include <stdlib.h>

/* Alive representatives within r2 and within 2 r2 of j, j counted. */
static void count_near(const gk_cells *g, const double *s, int dim, const unsigned char *alive,
                       size_t j, double r2, int *n1, int *n2)
{
    const double *p = s + j * dim;
    const double lim1 = r2 * r2, rr = 2.0 * r2, lim2 = rr * rr;
    gk_cells_iter it;
    *n1 = *n2 = 0;
    for (int32_t q = gk_cells_first(g, p, rr, &it); q >= 0; q = gk_cells_next(g, &it)) {
        if (!alive[q])
            continue;
        double d2 = gk_cs_d2(p, s + (size_t)q * dim, dim);
        *n1 += d2 <= lim1;
        *n2 += d2 <= lim2;
    }
}

/* Sweeps until one removes nothing or fewer than 3 are left; the count removed. */
static size_t sweeps(const gk_cells *g, const double *s, size_t m, int dim, double r2,
                     unsigned char *alive)
{
    size_t left = m, removed = 0, before;
    do {
        before = removed;
        for (size_t j = 0; j < m && left >= 3; j++) {
            if (!alive[j])
                continue;
            int n1, n2;
            count_near(g, s, dim, alive, j, r2, &n1, &n2);
            if (n1 > 3 || n2 < 3) { /* crowded (not on a 1-D curve), or isolated */
                alive[j] = 0;
                left--;
                removed++;
            }
        }
    } while (removed != before && left >= 3);
    return removed;
}

size_t gk_curve_decimate(double *s, size_t *m, int dim, double r2)
{
    size_t n = *m;
    if (n < 3)
        return 0;
    gk_cells g;
    double lo[3], hi[3];
    gk_cells_bounds(s, n, dim, lo, hi);
    unsigned char *alive = malloc(n);
    if (!alive || gk_cells_init(&g, dim, lo, hi, 2.0 * r2, n)) {
        free(alive);
        return (size_t)-1;
    }
    for (size_t j = 0; j < n; j++) {
        alive[j] = 1;
        gk_cells_insert(&g, (int32_t)j, s + j * dim);
    }
    size_t removed = sweeps(&g, s, n, dim, r2, alive);
    size_t k = 0;
    for (size_t j = 0; j < n; j++)
        if (alive[j]) {
            for (int d = 0; d < dim; d++)
                s[k * dim + d] = s[j * dim + d];
            k++;
        }
    *m = k;
    gk_cells_free(&g);
    free(alive);
    return removed;
}
