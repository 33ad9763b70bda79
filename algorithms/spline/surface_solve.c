/* SPDX-License-Identifier: MIT */
/*
 * spline/surface_solve.c - the equations of GMT 6.4's surface (src/surface.c;
 * Smith & Wessel 1990, appendix), solved on a cascade of grids.
 *
 * Away from data a node satisfies the 12-neighbour finite-difference form of
 * (1 - T) D4 u - T D2 u = 0; the node nearest a datum takes Briggs's
 * Taylor form towards it instead, or the datum itself (less the
 * plane between them) when it lies within 0.05 of a cell in x and y; two
 * ghost rows and columns carry the edge conditions. As in GMT
 * the data are first detrended by their least-squares plane (in node units)
 * and divided by the residuals' rms, and pixel registration is GMT's: nodes
 * at the cell centres plus one more column east and one more row north,
 * dropped at the end.
 *
 * The solution of those equations does not depend on how they are iterated,
 * so the sweep order is ours: five colours, (col + 2 row) mod 5, which no
 * node's stencil mixes, so that a colour's nodes are updated independently on
 * any number of threads and the result is the same for all. GMT sweeps in
 * place row by row (Gauss-Seidel); converged, both reach the same grid.
 * The coarser grids halve the cells per axis (any size, not only GMT's common
 * factors) and give the next grid its first guess, bilinearly.
 */
#include "core/gk_internal.h"
#include "surface_solve.h"
#include "core/device.h"
#include "surface_node.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CLOSENESS 0.05 /* a datum this close (in cells) fixes its node */

/* The data after detrending, in final-node units (col east, row up). */
typedef struct {
    size_t n;
    double *fc, *fr, *z;
    double icept, sx, sy; /* the plane, per final node */
    double zrms, rzrms;
    double dx, dy; /* the final cell */
} surf_data;

/* One grid of the cascade: its sweeps' description (the arrays, owned
 * here) and its nodes per axis. */
typedef struct {
    gk_gpu_surface s;
    double *u;
    unsigned char *st;
    int32_t *bi;
    double *b;
} level;

#define U(L, r, c) ((L)->u[gk_surf_at(&(L)->s, r, c)])

static void level_free(level *L)
{
    free(L->u), free(L->st), free(L->bi), free(L->b);
    memset(L, 0, sizeof *L);
}

/* GMT's surface_set_coefficients for tension t and the level's aspect. */
static void set_coefficients(gk_gpu_surface *s, double t)
{
    const double a = s->alpha, a2 = a * a, a4 = a2 * a2, loose = 1.0 - t;
    const double one_plus_e2 = 1.0 + a2;
    const double a0 = 1.0 / ((6 * a4 * loose + 10 * a2 * loose + 8 * loose - 2 * one_plus_e2) +
                             4 * t * one_plus_e2);
    s->a0c2 = 2.0 - t + 2 * loose * a2;
    double *c = s->coef[0], *f = s->coef[1];
    c[GK_SN_W2] = c[GK_SN_E2] = -loose;
    c[GK_SN_N2] = c[GK_SN_S2] = -loose * a4;
    f[GK_SN_W2] = f[GK_SN_E2] = -loose * a0;
    f[GK_SN_N2] = f[GK_SN_S2] = -loose * a4 * a0;
    c[GK_SN_W1] = c[GK_SN_E1] = 2 * loose * one_plus_e2;
    f[GK_SN_W1] = f[GK_SN_E1] = (2 * c[GK_SN_W1] + t) * a0;
    c[GK_SN_N1] = c[GK_SN_S1] = c[GK_SN_W1] * a2;
    f[GK_SN_N1] = f[GK_SN_S1] = f[GK_SN_W1] * a2;
    c[GK_SN_NW] = c[GK_SN_NE] = c[GK_SN_SW] = c[GK_SN_SE] = -2 * loose * a2;
    f[GK_SN_NW] = f[GK_SN_NE] = f[GK_SN_SW] = f[GK_SN_SE] = c[GK_SN_NW] * a0;
}

/* Briggs's coefficients for a datum at (xx, yy) cells in the first quadrant
 * (GMT's surface_solve_Briggs_coefficients, in doubles); a0c1 and a0c2 as
 * GMT's a0_const_1 and _2. */
static void briggs(double a0c1, double a0c2, double xx, double yy, double z, double b[6])
{
    const double s = xx + yy, inv1 = 1.0 / (1.0 + s), invd = inv1 / s;
    const double xx2 = xx * xx, yy2 = yy * yy;
    b[0] = (xx2 + 2.0 * xx * yy + xx - yy2 - yy) * invd;
    b[1] = 2.0 * (yy - xx + 1.0) * inv1;
    b[2] = 2.0 * (xx - yy + 1.0) * inv1;
    b[3] = (-xx2 + 2.0 * xx * yy - xx + yy2 + yy) * invd;
    const double b4 = 4.0 * invd;
    const double sum = b[0] + b[1] + b[2] + b[3] + b4;
    b[4] = b4 * z;
    b[5] = 1.0 / (a0c1 + a0c2 * sum);
}

/* Each node's nearest datum (GMT's surface_find_nearest_constraint): fixed
 * nodes take it, the others its quadrant and Briggs row. Ties: the earlier
 * point. 0, -1 out of memory. */
static int assign_data(level *L, const surf_data *d, double tension, int threads)
{
    gk_gpu_surface *S = &L->s;
    const int nx = S->nx, ny = S->ny;
    const size_t nn = (size_t)nx * ny;
    int32_t *best = malloc(nn * sizeof *best);
    double *bd2 = malloc(nn * sizeof *bd2);
    size_t *rowstart = malloc(((size_t)ny + 1) * sizeof *rowstart);
    int32_t *prow = malloc((d->n ? d->n : 1) * sizeof *prow);
    if (!best || !bd2 || !rowstart || !prow) {
        free(best), free(bd2), free(rowstart), free(prow);
        return -1;
    }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t k = 0; k < nn; k++)
        best[k] = -1;
    const double hx = S->rx * d->dx, hy = S->ry * d->dy;
    /* each point's node row here (-1: none) */
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t k = 0; k < d->n; k++) {
        const double rup = floor(d->fr[k] / S->ry + 0.5), col = floor(d->fc[k] / S->rx + 0.5);
        prow[k] = rup >= 0 && rup < ny && col >= 0 && col < nx ? ny - 1 - (int32_t)rup : -1;
    }
    /* each thread its slab of rows, every point in order: the earlier of two
     * equally near points wins, for any number of threads */
#pragma omp parallel num_threads(threads)
    {
        const int nt = omp_get_num_threads(), t = omp_get_thread_num();
        const int r0 = (int)((long long)ny * t / nt), r1 = (int)((long long)ny * (t + 1) / nt);
        for (size_t k = 0; k < d->n; k++) {
            const int r = prow[k];
            if (r < r0 || r >= r1)
                continue;
            const double fr = d->fr[k] / S->ry, rup = floor(fr + 0.5);
            const double fc = d->fc[k] / S->rx, col = floor(fc + 0.5);
            const size_t node = (size_t)r * nx + (size_t)col;
            const double ex = (fc - col) * hx, ey = (fr - rup) * hy, e2 = ex * ex + ey * ey;
            if (best[node] < 0 || e2 < bd2[node]) {
                best[node] = (int32_t)k;
                bd2[node] = e2;
            }
        }
    }
    /* a Briggs row for each node with a datum, numbered row by row */
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int r = 0; r < ny; r++) {
        size_t m = 0;
        for (int c = 0; c < nx; c++)
            m += best[(size_t)r * nx + c] >= 0;
        rowstart[r + 1] = m;
    }
    rowstart[0] = 0;
    for (int r = 0; r < ny; r++)
        rowstart[r + 1] += rowstart[r];
    const size_t nb = rowstart[ny];
    free(L->b);
    L->b = malloc((nb ? nb : 1) * 6 * sizeof *L->b);
    if (!L->b) {
        free(best), free(bd2), free(rowstart), free(prow);
        return -1;
    }
    const double a2 = S->alpha * S->alpha, a0c1 = 2.0 * (1.0 - tension) * (1.0 + a2 * a2);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int r = 0; r < ny; r++) {
        size_t next = rowstart[r];
        for (int c = 0; c < nx; c++) {
            const size_t at = gk_surf_at(S, r, c);
            const int32_t k = best[(size_t)r * nx + c];
            L->st[at] = GK_SURF_FREE;
            L->bi[at] = -1;
            if (k < 0)
                continue;
            const size_t row_b = next++;
            const int rup = ny - 1 - r;
            const double dx = d->fc[k] / S->rx - c, dy = d->fr[k] / S->ry - rup;
            if (fabs(dx) < CLOSENESS && fabs(dy) < CLOSENESS) {
                /* the datum moved to the node: less the plane between them */
                double v = d->z[k] + d->rzrms * (d->sx * dx * S->rx + d->sy * dy * S->ry);
                if (S->lower || S->upper) {
                    const double fc = c * S->rx, fr = rup * S->ry;
                    if (S->lower && v < gk_surf_bound(S, S->lo, fc, fr))
                        v = gk_surf_bound(S, S->lo, fc, fr);
                    else if (S->upper && v > gk_surf_bound(S, S->hi, fc, fr))
                        v = gk_surf_bound(S, S->hi, fc, fr);
                }
                L->u[at] = v;
                L->st[at] = GK_SURF_FIXED;
                continue;
            }
            double xx, yy;
            int q;
            if (dy >= 0.0) {
                if (dx >= 0.0)
                    q = 1, xx = dx, yy = dy;
                else
                    q = 2, xx = dy, yy = -dx;
            } else {
                if (dx >= 0.0)
                    q = 4, xx = -dy, yy = dx;
                else
                    q = 3, xx = -dx, yy = -dy;
            }
            L->st[at] = (unsigned char)q;
            L->bi[at] = (int32_t)row_b;
            briggs(a0c1, S->a0c2, xx, yy, d->z[k], L->b + 6 * row_b);
        }
    }
    S->b = L->b, S->nb = nb;
    free(best), free(bd2), free(rowstart), free(prow);
    return 0;
}

/* The ghost rows and columns, step by step (surface_node.h). */
static void set_bcs(gk_gpu_surface *s, double *u)
{
    for (int step = 0; step < 3; step++)
        for (int i = 0; i < gk_surf_bc_entries(s, step); i++)
            gk_surf_bc(s, u, step, i);
}

/* Colour k's nodes j0 <= j < j1 of row r (the j-th: column first + 5 j):
 * the largest change. The free nodes' equation, the same for all, runs over
 * the row's contiguous runs (vector loads and arithmetic, the same
 * operations as gk_surf_node's in the same order: the same bits); the nodes
 * with a datum, and every node when bounds are set, take gk_surf_node. */
static double sweep_nodes(const gk_gpu_surface *s, double *u, int colour, int r, int j0, int j1)
{
    enum { CHUNK = 256 };
    double maxch = 0.0;
    const int first = gk_surf_first_col(colour, r);
    if (s->lower || s->upper) {
        for (int j = j0; j < j1; j++) {
            const int c = first + 5 * j;
            const size_t n = gk_surf_at(s, r, c);
            if (s->st[n] == GK_SURF_FIXED)
                continue;
            double ch;
            u[n] = gk_surf_node(s, u, r, c, &ch);
            maxch = ch > maxch ? ch : maxch;
        }
        return maxch;
    }
    const size_t n0 = gk_surf_at(s, r, first);
    const double *p[12];
    for (int k = 0; k < 12; k++)
        p[k] = u + gk_surf_nb(s, r, first, k);
    const double *restrict p0 = p[0], *restrict p1 = p[1], *restrict p2 = p[2];
    const double *restrict p3 = p[3], *restrict p4 = p[4], *restrict p5 = p[5];
    const double *restrict p6 = p[6], *restrict p7 = p[7], *restrict p8 = p[8];
    const double *restrict p9 = p[9], *restrict p10 = p[10], *restrict p11 = p[11];
    const double *cf = s->coef[1];
    double *u0 = u + n0;
    const unsigned char *st = s->st + n0;
    double vnew[CHUNK];
    for (int jb = j0; jb < j1; jb += CHUNK) {
        const int je = jb + CHUNK < j1 ? jb + CHUNK : j1;
        for (int j = jb; j < je; j++) {
            const double t[12] = {p0[j] * cf[0], p1[j] * cf[1], p2[j] * cf[2],   p3[j] * cf[3],
                                  p4[j] * cf[4], p5[j] * cf[5], p6[j] * cf[6],   p7[j] * cf[7],
                                  p8[j] * cf[8], p9[j] * cf[9], p10[j] * cf[10], p11[j] * cf[11]};
            vnew[j - jb] = gk_surf_relax(s, u0[j], gk_surf_sum12(t));
        }
        for (int j = jb; j < je; j++) {
            double ch;
            if (st[j] == GK_SURF_FREE) {
                ch = fabs(vnew[j - jb] - u0[j]);
                u0[j] = vnew[j - jb];
            } else if (st[j] != GK_SURF_FIXED) {
                double nbv[12];
                for (int k = 0; k < 12; k++)
                    nbv[k] = p[k][j];
                /* no bounds on this path: the position is not read */
                u0[j] = gk_surf_update(s, nbv, u0[j], st[j], s->bi[n0 + (size_t)j], 0.0, 0.0, &ch);
            } else {
                continue;
            }
            maxch = ch > maxch ? ch : maxch;
        }
    }
    return maxch;
}

/* The sweeps on the CPU's threads, until the largest change of a sweep is
 * at most s->limit or s->maxit sweeps. A sweep sets the ghosts, then updates
 * colour 0's nodes, then colour 1's, ... (what gpu/surface.cu does), here as
 * a wavefront that reads each row from memory once a sweep: at step t
 * colour k takes row t - 3k, whose stencil (rows r - 2 to r + 2) then holds
 * the lower colours' new values and the higher colours' old ones, as in
 * that order; the five rows of a step are independent, and so are a row's
 * nodes of one colour, which the threads share in column ranges. More
 * threads than WAVE_THREADS sweep colour after colour instead. */
#define WAVE_THREADS 4 /* the wavefront up to this many threads */

static void iterate(gk_gpu_surface *s, int threads)
{
    double *u = s->u;
    s->iterations = 0;
    s->converged = 0;
    /* a step's work (about nx nodes) must outweigh its barrier */
    if (s->nx < 256 || (size_t)s->nx * s->ny <= 65536)
        threads = 1;
    const int steps = s->ny + 12;
    while (s->iterations < s->maxit) {
        double maxch = 0.0;
        set_bcs(s, u);
        if (threads > WAVE_THREADS) {
            /* many threads: a barrier a step costs more than the memory it
             * saves; colour after colour over all rows, the same order */
            for (int colour = 0; colour < 5; colour++) {
#pragma omp parallel for num_threads(threads) schedule(static) reduction(max : maxch)
                for (int r = 0; r < s->ny; r++) {
                    const int first = gk_surf_first_col(colour, r);
                    const int m = first < s->nx ? (s->nx - first + 4) / 5 : 0;
                    const double ch = sweep_nodes(s, u, colour, r, 0, m);
                    if (ch > maxch)
                        maxch = ch;
                }
            }
        } else
#pragma omp parallel num_threads(threads) reduction(max : maxch)
        {
            const int nt = omp_get_num_threads(), tid = omp_get_thread_num();
            for (int t = 0; t < steps; t++) {
                for (int colour = 0; colour < 5; colour++) {
                    const int r = t - 3 * colour;
                    if (r < 0 || r >= s->ny)
                        continue;
                    /* this colour's nodes in row r, and this thread's share */
                    const int first = gk_surf_first_col(colour, r);
                    const int m = first < s->nx ? (s->nx - first + 4) / 5 : 0;
                    const int j0 = (int)((long long)m * tid / nt);
                    const int j1 = (int)((long long)m * (tid + 1) / nt);
                    const double ch = sweep_nodes(s, u, colour, r, j0, j1);
                    if (ch > maxch)
                        maxch = ch;
                }
                if (nt > 1) {
#pragma omp barrier
                }
            }
        }
        s->iterations++;
        if (maxch <= s->limit) {
            s->converged = 1;
            break;
        }
    }
}

static int level_alloc(level *L, int threads)
{
    const int rows = L->s.ny + 4;
    const size_t w = gk_surf_pitch(&L->s), nt = (size_t)rows * w;
    L->u = malloc(nt * sizeof *L->u);
    L->st = malloc(nt);
    L->bi = malloc(nt * sizeof *L->bi);
    L->s.u = L->u, L->s.st = L->st, L->s.bi = L->bi;
    if (!L->u || !L->st || !L->bi)
        return -1;
    /* zeros, written by the threads that sweep them */
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int r = 0; r < rows; r++) {
        memset(L->u + r * w, 0, w * sizeof *L->u);
        memset(L->st + r * w, 0, w);
        memset(L->bi + r * w, 0xff, w * sizeof *L->bi);
    }
    return 0;
}

/* The first guess of fine from coarse, bilinearly, both in final-node units. */
static void fill_from(level *fine, const level *coarse, int threads)
{
    const gk_gpu_surface *F = &fine->s, *C = &coarse->s;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int r = 0; r < F->ny; r++) {
        const double Y = (F->ny - 1 - r) * F->ry / C->ry;
        int j = (int)floor(Y);
        if (j > C->ny - 2)
            j = C->ny - 2;
        const double fy = Y - j;
        const int r0 = C->ny - 1 - j, r1 = r0 - 1; /* rows of j and j + 1 */
        for (int c = 0; c < F->nx; c++) {
            const double X = c * F->rx / C->rx;
            int i = (int)floor(X);
            if (i > C->nx - 2)
                i = C->nx - 2;
            const double fx = X - i;
            const double v0 = U(coarse, r0, i) + fx * (U(coarse, r0, i + 1) - U(coarse, r0, i));
            const double v1 = U(coarse, r1, i) + fx * (U(coarse, r1, i + 1) - U(coarse, r1, i));
            U(fine, r, c) = v0 + fy * (v1 - v0);
        }
    }
}

/* The least-squares plane in node units (GMT's surface_remove_planar_trend:
 * its closed form, and no plane when the system is singular). */
static void fit_plane(surf_data *d)
{
    double sx = 0, sy = 0, sz = 0, sxx = 0, sxy = 0, sxz = 0, syy = 0, syz = 0;
    const double n = (double)d->n;
    for (size_t k = 0; k < d->n; k++) {
        const double x = d->fc[k], y = d->fr[k], z = d->z[k];
        sx += x, sy += y, sz += z, sxx += x * x, sxy += x * y, sxz += x * z, syy += y * y,
            syz += y * z;
    }
    const double den = n * sxx * syy + 2 * sx * sy * sxy - n * sxy * sxy - sx * sx * syy -
                       sy * sy * sxx;
    d->icept = d->sx = d->sy = 0.0;
    if (den == 0.0)
        return;
    d->icept = (sz * sxx * syy + sx * sxy * syz + sy * sxy * sxz - sz * sxy * sxy -
                sx * sxz * syy - sy * syz * sxx) /
               den;
    d->sx = (n * sxz * syy + sz * sy * sxy + sy * sx * syz - n * sxy * syz - sz * sx * syy -
             sy * sy * sxz) /
            den;
    d->sy = (n * sxx * syz + sx * sy * sxz + sz * sx * sxy - n * sxy * sxz - sx * sx * syz -
             sz * sy * sxx) /
            den;
}

/* The data: points reaching a node of the (nx+1) x (ny+1) node grid, the
 * nearest of each final node kept (GMT's read and throw-away steps), in the
 * nodes' order. */
static int gather(gk_context *ctx, const gk_points *pts, const gk_grid *g, int NX, int NY,
                  surf_data *d, gk_surface_info *info, double *zmin, double *zmax, int threads)
{
    const double dx = (g->xmax - g->xmin) / g->nx, dy = (g->ymax - g->ymin) / g->ny;
    const size_t nn = (size_t)NX * NY, np = pts->n;
    int64_t *best = malloc(nn * sizeof *best);
    double *bd2 = malloc(nn * sizeof *bd2);
    int32_t *prow = malloc((np ? np : 1) * sizeof *prow);
    size_t *rowstart = malloc(((size_t)NY + 1) * sizeof *rowstart);
    if (!best || !bd2 || !prow || !rowstart) {
        free(best), free(bd2), free(prow), free(rowstart);
        return gk_error(ctx, GK_ERR_NOMEM, "-a surface: out of memory for a %dx%d grid", g->nx,
                        g->ny);
    }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t k = 0; k < nn; k++)
        best[k] = -1;
    /* each point's node row, -1 when it reaches no node (or its z is NaN) */
    size_t inside = 0;
    double lo = INFINITY, hi = -INFINITY;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : inside) \
    reduction(min : lo) reduction(max : hi)
    for (size_t k = 0; k < np; k++) {
        /* as the slabs compute them, to the bit */
        const double rup = floor(((pts->y[k] - g->ymin) / dy - 0.5) + 0.5);
        const double col = floor(((pts->x[k] - g->xmin) / dx - 0.5) + 0.5);
        const int in = isfinite(pts->z[k]) && rup >= 0 && rup < NY && col >= 0 && col < NX;
        prow[k] = in ? (int32_t)rup : -1;
        if (in) {
            inside++;
            lo = fmin(lo, pts->z[k]), hi = fmax(hi, pts->z[k]);
        }
    }
    /* each thread its slab of node rows, every point in order (ties: the
     * earlier point, for any number of threads) */
#pragma omp parallel num_threads(threads)
    {
        const int nt = omp_get_num_threads(), t = omp_get_thread_num();
        const int r0 = (int)((long long)NY * t / nt), r1 = (int)((long long)NY * (t + 1) / nt);
        for (size_t k = 0; k < np; k++) {
            if (prow[k] < r0 || prow[k] >= r1)
                continue;
            const double fc = (pts->x[k] - g->xmin) / dx - 0.5, col = floor(fc + 0.5);
            const double fr = (pts->y[k] - g->ymin) / dy - 0.5, rup = prow[k];
            const size_t node = (size_t)rup * NX + (size_t)col;
            /* GMT ranks a node's points by their distance to the cell's
             * south-west corner, half a cell from the node (its pixel
             * registration shifts the nodes but not the origin its sort
             * measures from) */
            const double ex = (fc - col + 0.5) * dx, ey = (fr - rup + 0.5) * dy;
            const double e2 = ex * ex + ey * ey;
            if (best[node] < 0 || e2 < bd2[node]) {
                best[node] = (int64_t)k;
                bd2[node] = e2;
            }
        }
    }
    *zmin = lo, *zmax = hi;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int r = 0; r < NY; r++) {
        size_t m = 0;
        for (int c = 0; c < NX; c++)
            m += best[(size_t)r * NX + c] >= 0;
        rowstart[r + 1] = m;
    }
    rowstart[0] = 0;
    for (int r = 0; r < NY; r++)
        rowstart[r + 1] += rowstart[r];
    const size_t n = rowstart[NY];
    info->outside = np - inside;
    info->unusable = inside - n;
    info->used = n;
    int rc = GK_OK;
    if (n == 0)
        rc = gk_error(ctx, GK_ERR_ARG,
                      "-a surface: none of the %zu points lies within half a cell of the grid "
                      "(or all their z are NaN)",
                      np);
    d->fc = rc ? NULL : malloc(n * sizeof *d->fc);
    d->fr = rc ? NULL : malloc(n * sizeof *d->fr);
    d->z = rc ? NULL : malloc(n * sizeof *d->z);
    if (!rc && (!d->fc || !d->fr || !d->z))
        rc = gk_error(ctx, GK_ERR_NOMEM, "-a surface: out of memory for %zu points", n);
    if (!rc) {
        /* in the order of the nodes, so that ties between levels' nearest
         * data resolve the same way for any input order of distinct points */
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int r = 0; r < NY; r++) {
            size_t at = rowstart[r];
            for (int c = 0; c < NX; c++) {
                const int64_t i = best[(size_t)r * NX + c];
                if (i < 0)
                    continue;
                d->fc[at] = (pts->x[i] - g->xmin) / dx - 0.5;
                d->fr[at] = (pts->y[i] - g->ymin) / dy - 0.5;
                d->z[at++] = pts->z[i];
            }
        }
        d->n = n;
        d->dx = dx, d->dy = dy;
    }
    free(best), free(bd2), free(prow), free(rowstart);
    return rc;
}

int gk_surface_check_size(gk_context *ctx, const gk_grid *g)
{
    /* the largest moment: the final grid's arrays (u, status, Briggs rows),
     * the gather's, the output and the caller's copy: about 70 bytes a node */
    const double need = 70.0 * ((double)g->nx + 1) * ((double)g->ny + 1);
    const double have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
    if (have > 0 && need > 0.8 * have)
        return gk_error(ctx, GK_ERR_NOMEM,
                        "-a surface: a %dx%d grid is solved whole and needs about %.1f GB, more "
                        "than this machine's %.1f GB of memory",
                        g->nx, g->ny, need / 1e9, have / 1e9);
    return GK_OK;
}

int gk_surface_solve(gk_context *ctx, const gk_points *pts, const gk_grid *g,
                     const gk_surface_params *p, double *out, gk_surface_info *info)
{
    gk_surface_info local;
    if (!info)
        info = &local;
    memset(info, 0, sizeof *info);
    /* GMT's pixel registration: one more node east and north */
    const int NX = g->nx + 1, NY = g->ny + 1;
    if (NX < 4 || NY < 4)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a surface: the grid must have at least 3x3 cells (GMT's 4 nodes a "
                        "side); it has %dx%d",
                        g->nx, g->ny);
    int rc0 = gk_surface_check_size(ctx, g);
    if (rc0)
        return rc0;
    const double t_start = omp_get_wtime();
    const int threads = p->threads > 0 ? p->threads : 1;
    surf_data d = {0};
    double zmin = 0.0, zmax = 0.0;
    int rc = gather(ctx, pts, g, NX, NY, &d, info, &zmin, &zmax, threads);
    if (rc) {
        free(d.fc), free(d.fr), free(d.z);
        return rc;
    }
    fit_plane(&d);
    double ssz = 0.0;
    for (size_t k = 0; k < d.n; k++) {
        d.z[k] -= d.icept + d.sx * d.fc[k] + d.sy * d.fr[k];
        ssz += d.z[k] * d.z[k];
    }
    d.zrms = sqrt(ssz / (double)d.n);
    level lv[32];
    int nl = 0;
    if (d.zrms < 1e-8) { /* GMT: the data lie on a plane, which is the answer */
        info->plane_only = 1;
        info->levels = 0;
        info->converged = 1;
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++)
                out[(size_t)j * g->nx + i] = d.icept + d.sx * i + d.sy * (NY - 2 - j);
        goto done;
    }
    d.rzrms = 1.0 / d.zrms;
    for (size_t k = 0; k < d.n; k++)
        d.z[k] *= d.rzrms;
    const int lower = p->lower_mode != GK_SURF_LIMIT_NONE;
    const int upper = p->upper_mode != GK_SURF_LIMIT_NONE;
    const double lo = p->lower_mode == GK_SURF_LIMIT_DATA ? zmin : p->lower;
    const double hi = p->upper_mode == GK_SURF_LIMIT_DATA ? zmax : p->upper;
    const double limit = (p->converge > 0 ? p->converge : 1e-4 * d.zrms) * d.rzrms;

    /* the cascade: cells halved per axis down to 3 */
    int cx = NX - 1, cy = NY - 1;
    for (;;) {
        gk_gpu_surface *S = &lv[nl++].s;
        memset(&lv[nl - 1], 0, sizeof lv[nl - 1]);
        S->nx = cx + 1, S->ny = cy + 1;
        S->rx = (double)(NX - 1) / cx, S->ry = (double)(NY - 1) / cy;
        const int ncx = cx > 3 ? (cx + 1) / 2 : cx, ncy = cy > 3 ? (cy + 1) / 2 : cy;
        if ((ncx == cx && ncy == cy) || nl == 32)
            break;
        cx = ncx < 3 ? 3 : ncx, cy = ncy < 3 ? 3 : ncy;
    }
    info->levels = nl;
    if (getenv("GRIDKIT_SURFACE_PROFILE"))
        fprintf(stderr, "data: %zu used, in %.1f ms\n", d.n, 1e3 * (omp_get_wtime() - t_start));
    for (int k = nl - 1; k >= 0; k--) {
        level *L = &lv[k];
        gk_gpu_surface *S = &L->s;
        /* the stencil's aspect on this grid's cells */
        S->alpha = p->aspect * S->rx / S->ry;
        S->btension = p->btension, S->relax = p->relax;
        S->lower = lower, S->upper = upper, S->lo = lo, S->hi = hi;
        S->icept = d.icept, S->sx = d.sx, S->sy = d.sy, S->rzrms = d.rzrms;
        const double ratio = S->rx > S->ry ? S->rx : S->ry;
        S->limit = limit / ratio;
        S->maxit = (long)p->maxiter * (long)ceil(ratio);
        const double t0 = omp_get_wtime();
        if (level_alloc(L, threads)) {
            rc = gk_error(ctx, GK_ERR_NOMEM, "-a surface: out of memory for a %dx%d grid", g->nx,
                          g->ny);
            goto done;
        }
        set_coefficients(S, p->tension);
        if (k < nl - 1) {
            fill_from(L, &lv[k + 1], threads);
            level_free(&lv[k + 1]);
        }
        if (assign_data(L, &d, p->tension, threads)) {
            rc = gk_error(ctx, GK_ERR_NOMEM, "-a surface: out of memory for a %dx%d grid", g->nx,
                          g->ny);
            goto done;
        }
        const double t1 = omp_get_wtime();
        /* the GPU's sweeps are the CPU's bits: either may take any level */
        const int gpu = p->ctx ? gk_device_surface(p->ctx, S) : 0;
        if (gpu < 0) {
            rc = ctx->err ? ctx->err : GK_ERR_UNSUPPORTED;
            goto done;
        }
        if (!gpu)
            iterate(S, threads);
        if (k == 0)
            info->iterations = (int)S->iterations, info->converged = S->converged;
        if (getenv("GRIDKIT_SURFACE_PROFILE"))
            fprintf(stderr,
                    "level %d: %dx%d, %ld sweeps, converged %d, %s: prepared in %.1f ms, swept "
                    "in %.1f ms (kernels %.1f ms)\n",
                    k, S->nx, S->ny, S->iterations, S->converged, gpu ? "GPU" : "CPU",
                    1e3 * (t1 - t0), 1e3 * (omp_get_wtime() - t1), gpu ? S->kernel_ms : 0.0);
    }
    /* the pixels: every node but the last column and the first row, with the
     * plane restored (and GMT's final clip to the bounds) */
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++) {
            double v = U(&lv[0], j + 1, i) * d.zrms + d.icept + d.sx * i + d.sy * (NY - 2 - j);
            if (lower && v < lo)
                v = lo;
            if (upper && v > hi)
                v = hi;
            out[(size_t)j * g->nx + i] = v;
        }
done:
    for (int k = 0; k < nl; k++)
        level_free(&lv[k]);
    free(d.fc), free(d.fr), free(d.z);
    return rc;
}
