/* SPDX-License-Identifier: MIT */
/*
 * geostat/simulation_node.h - a simulation node's neighbour search, shared
 * by the CPU (simulation_weights.c) and the GPU (gpu/simulation.cu): the K
 * nearest nodes before it on the path, by rings of cells around it, blocks
 * of nodes all later on the path skipped; ties by node number. One text:
 * the same neighbours on both.
 */
#ifndef GK_SIMULATION_NODE_H
#define GK_SIMULATION_NODE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define GK_SIMN_FN static inline __host__ __device__
#else
#define GK_SIMN_FN static inline
#endif

/* What the search reads: the grid, each node's rank on the path, and the
 * least rank of each block of block x block nodes (nbx blocks a row). */
typedef struct {
    int nx, ny, nbx, block;
    double cw, ch;
    const uint32_t *rank, *bmin;
} gk_simn_grid;

/* Candidate n at squared distance e into the K nearest so far, kept
 * ascending by (d2, n). */
GK_SIMN_FN void gk_simn_keep(uint32_t *idx, double *d2, int *cnt, int K, double e, uint32_t n)
{
    int c = *cnt;
    if (c == K) {
        if (e > d2[K - 1] || (e == d2[K - 1] && n > idx[K - 1]))
            return;
        c--;
    }
    int p = c;
    while (p > 0 && (d2[p - 1] > e || (d2[p - 1] == e && idx[p - 1] > n))) {
        d2[p] = d2[p - 1];
        idx[p] = idx[p - 1];
        p--;
    }
    d2[p] = e;
    idx[p] = n;
    *cnt = c + 1;
}

/* The K nearest nodes of rank below r around node (i, j), within bound
 * (squared), by rings of cells until no nearer one can come. Returns how
 * many, in idx and d2. */
GK_SIMN_FN int gk_simn_near_nodes(const gk_simn_grid *s, int i, int j, uint32_t r, double bound,
                                  int K, uint32_t *idx, double *d2)
{
    int cnt = 0;
    const double cell = s->cw < s->ch ? s->cw : s->ch;
    const int B = s->block;
    int far = i;
    if (s->nx - 1 - i > far)
        far = s->nx - 1 - i;
    if (j > far)
        far = j;
    if (s->ny - 1 - j > far)
        far = s->ny - 1 - j;
    for (int d = 1; d <= far; d++) {
        const double dm = d * cell, dm2 = dm * dm;
        if (dm2 > bound || (cnt == K && dm2 > d2[K - 1]))
            break;
        const int i0 = i - d < 0 ? 0 : i - d, i1 = i + d >= s->nx ? s->nx - 1 : i + d;
        for (int side = 0; side < 2; side++) { /* the rows j - d and j + d */
            const int jj = side ? j + d : j - d;
            if (jj < 0 || jj >= s->ny)
                continue;
            const uint32_t *rk = s->rank + (size_t)jj * s->nx;
            const uint32_t *bk = s->bmin + (size_t)(jj / B) * s->nbx;
            const double ey = (double)(jj - j) * s->ch, ey2 = ey * ey;
            for (int ii = i0; ii <= i1; ii++) {
                if (bk[ii / B] >= r) { /* none of its block before r */
                    ii |= B - 1;
                    continue;
                }
                if (rk[ii] < r) {
                    const double ex = (double)(ii - i) * s->cw, e = ex * ex + ey2;
                    if (e <= bound)
                        gk_simn_keep(idx, d2, &cnt, K, e, (uint32_t)((size_t)jj * s->nx + ii));
                }
            }
        }
        const int j0 = j - d + 1 < 0 ? 0 : j - d + 1;
        const int j1 = j + d - 1 >= s->ny ? s->ny - 1 : j + d - 1;
        for (int side = 0; side < 2; side++) { /* the columns i - d and i + d */
            const int ii = side ? i + d : i - d;
            if (ii < 0 || ii >= s->nx)
                continue;
            const double ex = (double)(ii - i) * s->cw, ex2 = ex * ex;
            const uint32_t *bk = s->bmin + ii / B;
            for (int jj = j0; jj <= j1; jj++) {
                if (bk[(size_t)(jj / B) * s->nbx] >= r) {
                    jj |= B - 1;
                    continue;
                }
                if (s->rank[(size_t)jj * s->nx + ii] < r) {
                    const double ey = (double)(jj - j) * s->ch, e = ex2 + ey * ey;
                    if (e <= bound)
                        gk_simn_keep(idx, d2, &cnt, K, e, (uint32_t)((size_t)jj * s->nx + ii));
                }
            }
        }
    }
    return cnt;
}

#endif
