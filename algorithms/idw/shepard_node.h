/* SPDX-License-Identifier: MIT */
/*
 * shepard_node.h - one node of `shepard` (shepard.c): the weighted sum of the
 * nodal functions whose radius holds it, over the points of the cells within
 * the largest radius, by cell then input order. Shared with the CUDA module
 * (gpu/shepard.cu) so that both sum with the same operations in the same
 * order: compiled without contraction on both sides (ISO C; nvcc
 * -fmad=false), the GPU's values are the CPU's bits.
 */
#ifndef GK_SHEPARD_NODE_H
#define GK_SHEPARD_NODE_H

#include <math.h>
#include <stddef.h>

#ifdef __CUDACC__
#define GK_SH_FN static inline __host__ __device__
#else
#define GK_SH_FN static inline
#endif

/* The points in cells of edge cs over the points' box (cnx by cny, from
 * x0, y0): those of cell c at [start[c], start[c + 1]), by cell then input
 * order, each with its squared radius, its value and its quadratic's terms. */
typedef struct {
    double x0, y0, cs, rmax, s2; /* s2: smoothing squared */
    long cnx, cny;
    const size_t *start;
    const double *cx, *cy, *crsq, *cf;
    const double (*ca)[5];
} gk_sh_cells;

/* Point k's term at (nx, ny): its weight into *sw, its weighted value into
 * *swq; 1 when the node is on the point (then *hit is its value). */
GK_SH_FN int gk_sh_add(double px, double py, double rs, double f, const double *a, double nx,
                       double ny, double s2, double *sw, double *swq, double *hit)
{
    const double dx = nx - px, dy = ny - py, ds = dx * dx + dy * dy + s2;
    if (!(ds < rs))
        return 0;
    if (ds == 0.0) { /* on the point: its value (its place's mean) */
        *hit = f;
        return 1;
    }
    double w;
    if (isinf(rs)) {
        w = 1.0 / ds;
    } else { /* ((R - d) / (R d))^2 as QSHEP2 writes it */
        const double rds = rs * ds, rd = sqrt(rds);
        w = (rs + ds - rd - rd) / rds;
    }
    *sw += w;
    *swq += w * (a[0] * dx * dx + a[1] * dx * dy + a[2] * dy * dy + a[3] * dx + a[4] * dy + f);
    return 0;
}

/* A node, the largest radius finite: 1 with *v, 0 nodata (no radius holds it). */
GK_SH_FN int gk_sh_node(const gk_sh_cells *C, double nx, double ny, double *v)
{
    double sw = 0.0, swq = 0.0;
    const double r = C->rmax;
    long ix0 = (long)floor((nx - r - C->x0) / C->cs), ix1 = (long)floor((nx + r - C->x0) / C->cs);
    long iy0 = (long)floor((ny - r - C->y0) / C->cs), iy1 = (long)floor((ny + r - C->y0) / C->cs);
    ix0 = ix0 < 0 ? 0 : ix0, iy0 = iy0 < 0 ? 0 : iy0;
    ix1 = ix1 >= C->cnx ? C->cnx - 1 : ix1, iy1 = iy1 >= C->cny ? C->cny - 1 : iy1;
    for (long iy = iy0; iy <= iy1; iy++) {
        const size_t row = (size_t)iy * (size_t)C->cnx;
        for (size_t k = C->start[row + (size_t)ix0];
             ix0 <= ix1 && k < C->start[row + (size_t)ix1 + 1]; k++)
            if (gk_sh_add(C->cx[k], C->cy[k], C->crsq[k], C->cf[k], C->ca[k], nx, ny, C->s2, &sw,
                          &swq, v))
                return 1;
    }
    if (sw == 0.0)
        return 0;
    *v = swq / sw;
    return 1;
}

#endif
