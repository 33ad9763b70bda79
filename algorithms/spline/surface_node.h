/* SPDX-License-Identifier: MIT */
/*
 * surface_node.h - one node's update and the ghost rows and columns of
 * `surface` (surface_solve.c), shared with the CUDA module (gpu/surface.cu)
 * so that both do the same operations in the same order: compiled without
 * contraction on both sides (ISO C; nvcc -fmad=false), the GPU's grid is the
 * CPU's bits. The equations are GMT's surface's (src/surface.c): the
 * 12-neighbour stencil with tension, Briggs's form towards a datum
 * off the node, and the edge conditions.
 */
#ifndef GK_SURFACE_NODE_H
#define GK_SURFACE_NODE_H

#include "core/gpu_abi.h"

#include <math.h>
#include <stddef.h>

#ifdef __CUDACC__
#define GK_SURF_FN static inline __host__ __device__
#else
#define GK_SURF_FN static inline
#endif

/* the 12 neighbours, GMT's order */
enum { GK_SN_N2, GK_SN_NW, GK_SN_N1, GK_SN_NE, GK_SN_W2, GK_SN_W1,
       GK_SN_E1, GK_SN_E2, GK_SN_SW, GK_SN_S1, GK_SN_SE, GK_SN_S2 };
enum { GK_SURF_FREE = 0, GK_SURF_FIXED = 5 }; /* 1..4: the quadrant of the node's datum */

/* The arrays' layout: a row (ghosts included, nx + 4 columns) is five runs of
 * gk_surf_run_len entries, run m holding the columns cc = c + 2 with cc mod 5
 * = m in order, so that a colour's nodes of a row, and each of their
 * neighbours, are contiguous (vector loads on the CPU, coalesced ones on the
 * GPU). */
GK_SURF_FN int gk_surf_run_len(const gk_gpu_surface *s) { return (s->nx + 4 + 4) / 5; }

/* Entries a row takes. */
GK_SURF_FN size_t gk_surf_pitch(const gk_gpu_surface *s) { return 5 * (size_t)gk_surf_run_len(s); }

/* Node (r, c)'s index; r and c from -2 (ghosts) to ny + 1, nx + 1. */
GK_SURF_FN size_t gk_surf_at(const gk_gpu_surface *s, int r, int c)
{
    const int cc = c + 2;
    return (size_t)(r + 2) * gk_surf_pitch(s) + (size_t)(cc % 5) * gk_surf_run_len(s) +
           (size_t)(cc / 5);
}

/* Neighbour k's row and column steps (tables in constants, four bits each by
 * k, plus 2: the same on host and device). */
GK_SURF_FN int gk_surf_dr(int k) { return (int)((0x433322221110ULL >> (4 * k)) & 15u) - 2; }
GK_SURF_FN int gk_surf_dc(int k) { return (int)((0x232143103212ULL >> (4 * k)) & 15u) - 2; }

/* The index of neighbour k of node (r, c). For a colour's first node of a
 * row (column gk_surf_first_col), neighbour k of the colour's node j there
 * is this + j (the layout's runs). */
GK_SURF_FN size_t gk_surf_nb(const gk_gpu_surface *s, int r, int c, int k)
{
    return gk_surf_at(s, r + gk_surf_dr(k), c + gk_surf_dc(k));
}

/* The nodes A-D of Briggs's figure A-1 for a datum in quadrant q (1-4):
 * NW W1 S1 SE, SW S1 E1 NE, SE E1 N1 NW, NE N1 W1 SW. */
GK_SURF_FN int gk_surf_quad_node(int q, int k)
{
    return (int)((0x8523126A3698A951ULL >> (4 * (4 * (q - 1) + k))) & 15u);
}

/* A bound v (z units) at final node (fc, fr), in the residuals' units. */
GK_SURF_FN double gk_surf_bound(const gk_gpu_surface *s, double v, double fc, double fr)
{
    return (v - (s->icept + s->sx * fc + s->sy * fr)) * s->rzrms;
}

/* The twelve terms summed as a tree (short chains: the sweeps are bound by
 * the adds' latency), in one fixed order. */
GK_SURF_FN double gk_surf_sum12(const double *t)
{
    return (((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]))) +
           ((t[8] + t[9]) + (t[10] + t[11]));
}

/* The over-relaxed value from the old one and the equation's. */
GK_SURF_FN double gk_surf_relax(const gk_gpu_surface *s, double old, double v)
{
    return old * (1.0 - s->relax) + v * s->relax;
}

/* A node's new value (its status st not fixed) from its old value and its
 * twelve neighbours' (nbv, in GMT's order), bi its Briggs row, (fc, fr) its
 * final-grid position (for the bounds); *change gets |new - old|. */
GK_SURF_FN double gk_surf_update(const gk_gpu_surface *s, const double *nbv, double old,
                                 unsigned char st, int32_t bi, double fc, double fr, double *change)
{
    const double *cf = s->coef[st == GK_SURF_FREE];
    double t[12];
    for (int k = 0; k < 12; k++)
        t[k] = nbv[k] * cf[k];
    double v = gk_surf_sum12(t);
    if (st != GK_SURF_FREE) {
        const double *b = s->b + 6 * (size_t)bi;
        double sb = 0.0;
        for (int k = 0; k < 4; k++)
            sb += b[k] * nbv[gk_surf_quad_node(st, k)];
        v = (v + s->a0c2 * (sb + b[4])) * b[5];
    }
    v = gk_surf_relax(s, old, v);
    if (s->lower || s->upper) {
        if (s->lower && v < gk_surf_bound(s, s->lo, fc, fr))
            v = gk_surf_bound(s, s->lo, fc, fr);
        else if (s->upper && v > gk_surf_bound(s, s->hi, fc, fr))
            v = gk_surf_bound(s, s->hi, fc, fr);
    }
    *change = fabs(v - old);
    return v;
}

/* Node (r, c)'s new value (its status not fixed), from u as it is. */
GK_SURF_FN double gk_surf_node(const gk_gpu_surface *s, const double *u, int r, int c,
                               double *change)
{
    const size_t n = gk_surf_at(s, r, c);
    double nbv[12];
    for (int k = 0; k < 12; k++)
        nbv[k] = u[gk_surf_nb(s, r, c, k)];
    return gk_surf_update(s, nbv, u[n], s->st[n], s->bi[n], c * s->rx, (s->ny - 1 - r) * s->ry,
                          change);
}

/* The first colour's column of row r (colour k: col + 2 r = k mod 5). */
GK_SURF_FN int gk_surf_first_col(int colour, int r) { return ((colour - 2 * r) % 5 + 5) % 5; }

/* The edge conditions (GMT's surface_set_BCs), in three steps each of
 * whose entries may be set in any order: step 0 the first ghost row (entry
 * i < nx: column i) and column (i - nx: row); step 1 the four corners (i
 * = 0); step 2 the second ghost row and column. (1 - T) d2u/dn2 + T du/dn =
 * 0 on the edges, d2u/dxdy = 0 at the corners, d(D2 u)/dn = 0. */
GK_SURF_FN int gk_surf_bc_entries(const gk_gpu_surface *s, int step)
{
    return step == 1 ? 1 : s->nx + s->ny;
}

GK_SURF_FN void gk_surf_bc(const gk_gpu_surface *s, double *u, int step, int i)
{
    const int nx = s->nx, ny = s->ny;
    const double a = s->alpha, tb = s->btension;
#define GK_U(r, c) u[gk_surf_at(s, r, c)]
    if (step == 0) {
        if (i < nx) {
            const double yden = 2 * a * (1.0 - tb) + tb;
            const double y0c = 4 * a * (1.0 - tb) / yden, y1c = (tb - 2 * a * (1.0 - tb)) / yden;
            GK_U(ny, i) = y0c * GK_U(ny - 1, i) + y1c * GK_U(ny - 2, i);
            GK_U(-1, i) = y0c * GK_U(0, i) + y1c * GK_U(1, i);
        } else {
            const int r = i - nx;
            const double x0c = 4.0 * (1.0 - tb) / (2.0 - tb), x1c = (3 * tb - 2.0) / (2.0 - tb);
            GK_U(r, -1) = x1c * GK_U(r, 1) + x0c * GK_U(r, 0);
            GK_U(r, nx) = x1c * GK_U(r, nx - 2) + x0c * GK_U(r, nx - 1);
        }
    } else if (step == 1) {
        GK_U(ny, -1) = GK_U(ny, 1) + GK_U(ny - 2, -1) - GK_U(ny - 2, 1);
        GK_U(-1, -1) = GK_U(-1, 1) + GK_U(1, -1) - GK_U(1, 1);
        GK_U(ny, nx) = GK_U(ny, nx - 2) + GK_U(ny - 2, nx) - GK_U(ny - 2, nx - 2);
        GK_U(-1, nx) = GK_U(-1, nx - 2) + GK_U(1, nx) - GK_U(1, nx - 2);
    } else if (i < nx) {
        const int c = i;
        const double em2 = 1.0 / (a * a), tpem2 = 2.0 + 2.0 * em2;
        GK_U(ny + 1, c) = GK_U(ny - 3, c) +
                          em2 * (GK_U(ny - 2, c - 1) + GK_U(ny - 2, c + 1) - GK_U(ny, c - 1) -
                                 GK_U(ny, c + 1)) +
                          tpem2 * (GK_U(ny, c) - GK_U(ny - 2, c));
        GK_U(-2, c) = GK_U(2, c) +
                      em2 * (GK_U(1, c - 1) + GK_U(1, c + 1) - GK_U(-1, c - 1) - GK_U(-1, c + 1)) +
                      tpem2 * (GK_U(-1, c) - GK_U(1, c));
    } else {
        const int r = i - nx;
        const double ep2 = a * a, tpep2 = 2.0 + 2.0 * ep2;
        GK_U(r, -2) = GK_U(r, 2) +
                      ep2 * (GK_U(r - 1, 1) + GK_U(r + 1, 1) - GK_U(r - 1, -1) - GK_U(r + 1, -1)) +
                      tpep2 * (GK_U(r, -1) - GK_U(r, 1));
        GK_U(r, nx + 1) = GK_U(r, nx - 3) +
                          ep2 * (GK_U(r - 1, nx - 2) + GK_U(r + 1, nx - 2) - GK_U(r - 1, nx) -
                                 GK_U(r + 1, nx)) +
                          tpep2 * (GK_U(r, nx) - GK_U(r, nx - 2));
    }
#undef GK_U
}

#endif
