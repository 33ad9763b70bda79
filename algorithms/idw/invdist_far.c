/* SPDX-License-Identifier: MIT */
/*
 * idw/invdist_far.c - invdist over every point in single precision, with the
 * far points' sums interpolated instead of summed at every node.
 *
 * The grid is cut into blocks of FAR_B x FAR_B nodes, fixed on the whole
 * grid (not on the tiles, so that the result does not depend on them). For
 * a block, the points within FAR_M nodes of it are near: their weights are
 * summed at every node, as invdist_kernels.c does. The others are at least
 * FAR_M nodes away, where their sums (of w (z - zc) and of w) are smooth
 * over the block: they are summed exactly at FAR_Q x FAR_Q Chebyshev points
 * only, and interpolated to the nodes (barycentric form, first-kind
 * points). A far point's poles lie at least 3 half-widths from the block
 * (Bernstein ellipse parameter >= 3 + sqrt(10)), so the interpolation errs by
 * about 6.16^-10 ~ 1e-8 of the far sums, below float's own rounding: the
 * results stay within the 1e-6 of the data range --precision single promises
 * (tests/idw/test_idw.c). The work per block falls from nodes x n pairs to
 * about (FAR_Q^2 + nodes x share of near points) x n.
 *
 * Exact hits are the tile's (gk_invdist_mark_hits); a node where float
 * rounds a near point onto it (infinite weight) is redone in double.
 *
 * A tile that holds part of a block sums that block's Chebyshev points
 * again: the engine's tiles (multiples of 16) and the plugin's blocks (256)
 * cost at most one extra pass each; a library caller asking for many tiny
 * windows pays FAR_Q^2 sums over the far points per window and block.
 */
#include "idw.h"

#include <math.h>
#include <stdlib.h>

#define FAR_B 32 /* a block's side, in nodes */
#define FAR_M 48 /* a far point is more than this many nodes from the block (1.5 FAR_B) */
#define FAR_Q 10 /* Chebyshev points per axis */

int gk_invdist_far_fits(const gk_job *job)
{
    const gk_algorithm *a = &job->alg;
    return a->power == 2.0 && a->precision == GK_PRECISION_SINGLE && job->ell.all &&
           job->pts->n >= 2048;
}

/* The barycentric weights of x (in [-1, 1]) on the first-kind Chebyshev points:
 * L[k], summing to 1, with which a function's values there interpolate it at x. */
static void cheb_weights(double x, double *L)
{
    double t[FAR_Q], s = 0.0;
    for (int k = 0; k < FAR_Q; k++) {
        double th = (2.0 * k + 1.0) * M_PI / (2.0 * FAR_Q);
        t[k] = cos(th);
        if (x == t[k]) { /* on a point: its value */
            for (int j = 0; j < FAR_Q; j++)
                L[j] = j == k;
            return;
        }
        L[k] = ((k & 1) ? -sin(th) : sin(th)) / (x - t[k]);
        s += L[k];
    }
    for (int k = 0; k < FAR_Q; k++)
        L[k] /= s;
}

static double cheb_point(int k) { return cos((2.0 * k + 1.0) * M_PI / (2.0 * FAR_Q)); }

/* What a block needs: its points split near / far, in floats about its
 * centre. The two share n places: the near from the front, the far from the
 * back (the same memory as summing every point). */
typedef struct {
    float *x, *z, *dy; /* x - cx, z - zc, and a row's dy^2 + s^2 */
    double *y;         /* y - cy, in double (the rows' dy) */
    size_t nn, nf;     /* near: [0, nn); far: [n - nf, n) */
} far_split;

/* The sums at block (bi, bj)'s nodes inside tile t, into out (zc + sum/sum). */
static uint64_t far_block(const gk_job *job, const gk_tile *t, int bi, int bj, double zc,
                          const int *hit, far_split *sp, double *out)
{
    const gk_points *p = job->pts;
    const gk_grid *g = t->g;
    const double s2 = job->alg.smoothing * job->alg.smoothing, nodata = job->alg.nodata;
    const double cw = (g->xmax - g->xmin) / g->nx, ch = (g->ymax - g->ymin) / g->ny;
    const int c0 = bi * FAR_B, r0 = bj * FAR_B;
    /* the block's centre and half-widths (a block past the grid's edge too) */
    const double bcx = 0.5 * (gk_grid_node_x(g, c0) + gk_grid_node_x(g, c0 + FAR_B - 1));
    const double bcy = 0.5 * (gk_grid_node_y(g, r0) + gk_grid_node_y(g, r0 + FAR_B - 1));
    const double hx = 0.5 * FAR_B * cw, hy = 0.5 * FAR_B * ch;
    /* the margin in metres, FAR_M nodes of the longer side: 3 half-widths
     * of the block along either axis, whatever the cells' shape */
    const double m = FAR_M * (cw > ch ? cw : ch), nx_ = hx + m, ny_ = hy + m;

    const size_t n = p->n;
    sp->nn = sp->nf = 0;
    for (size_t i = 0; i < n; i++) {
        double dx = p->x[i] - bcx, dy = p->y[i] - bcy;
        size_t k = fabs(dx) <= nx_ && fabs(dy) <= ny_ ? sp->nn++ : n - ++sp->nf;
        sp->x[k] = (float)dx, sp->y[k] = dy, sp->z[k] = (float)(p->z[i] - zc);
    }
    float *xn = sp->x, *zn = sp->z, *dyn = sp->dy;
    float *xf = sp->x + (n - sp->nf), *zf = sp->z + (n - sp->nf), *dyf = sp->dy + (n - sp->nf);
    const double *yn = sp->y, *yf = sp->y + (n - sp->nf);

    /* the far sums at the Chebyshev points, a row of them at a time */
    double Fwz[FAR_Q][FAR_Q], Fw[FAR_Q][FAR_Q]; /* [y point][x point] */
    float cxq[FAR_Q];
    for (int a = 0; a < FAR_Q; a++)
        cxq[a] = (float)(hx * cheb_point(a));
    for (int b = 0; b < FAR_Q; b++) {
        if (sp->nf == 0) {
            for (int a = 0; a < FAR_Q; a++)
                Fwz[b][a] = Fw[b][a] = 0.0;
            continue;
        }
        const double yq = hy * cheb_point(b);
        for (size_t i = 0; i < sp->nf; i++) {
            double d = yf[i] - yq;
            dyf[i] = (float)(d * d + s2);
        }
        for (int a = 0; a < FAR_Q; a += 4) {
            int k = FAR_Q - a < 4 ? FAR_Q - a : 4;
            gk_invdist_sums_f32(xf, dyf, zf, sp->nf, cxq + a, k, &Fwz[b][a], &Fw[b][a]);
        }
    }

    /* the block's part of the tile */
    const int x0 = c0 > t->x0 ? c0 : t->x0, y0 = r0 > t->y0 ? r0 : t->y0;
    int x1 = c0 + FAR_B < t->x0 + t->w ? c0 + FAR_B : t->x0 + t->w;
    int y1 = r0 + FAR_B < t->y0 + t->h ? r0 + FAR_B : t->y0 + t->h;
    /* per column: the far sums interpolated along x at each y point */
    double Gwz[FAR_B][FAR_Q], Gw[FAR_B][FAR_Q];
    for (int c = x0; c < x1; c++) {
        double L[FAR_Q];
        cheb_weights((gk_grid_node_x(g, c) - bcx) / hx, L);
        for (int b = 0; b < FAR_Q; b++) {
            double u = 0, v = 0;
            for (int a = 0; a < FAR_Q; a++)
                u += L[a] * Fwz[b][a], v += L[a] * Fw[b][a];
            Gwz[c - c0][b] = u, Gw[c - c0][b] = v;
        }
    }
    uint64_t n_nodata = 0;
    for (int r = y0; r < y1; r++) {
        const double cy = gk_grid_node_y(g, r), ry = cy - bcy;
        double Ly[FAR_Q];
        cheb_weights(ry / hy, Ly);
        for (size_t i = 0; i < sp->nn; i++) {
            double d = yn[i] - ry;
            dyn[i] = (float)(d * d + s2);
        }
        for (int c = x0; c < x1; c += 4) {
            int k = x1 - c < 4 ? x1 - c : 4;
            float cx[4];
            double swz[4] = {0, 0, 0, 0}, sw[4] = {0, 0, 0, 0};
            for (int q = 0; q < 4; q++)
                cx[q] = (float)(gk_grid_node_x(g, c + (q < k ? q : k - 1)) - bcx);
            if (sp->nn)
                gk_invdist_sums_f32(xn, dyn, zn, sp->nn, cx, k, swz, sw);
            for (int q = 0; q < k; q++) {
                size_t o = (size_t)(r - t->y0) * t->w + (c + q - t->x0);
                if (hit[o] >= 0) {
                    out[o] = p->z[hit[o]];
                    continue;
                }
                double fwz = 0, fw = 0;
                for (int b = 0; b < FAR_Q; b++)
                    fwz += Ly[b] * Gwz[c + q - c0][b], fw += Ly[b] * Gw[c + q - c0][b];
                double wz = swz[q] + fwz, w = sw[q] + fw;
                if (isfinite(w) && isfinite(wz)) {
                    wz += zc * w;
                } else { /* float put a near point on the node: redo it in double */
                    gk_invdist_exact(p, s2, gk_grid_node_x(g, c + q), cy, &wz, &w);
                }
                if (w > 0 && isfinite(w)) {
                    out[o] = wz / w;
                } else {
                    out[o] = nodata;
                    n_nodata++;
                }
            }
        }
    }
    return n_nodata;
}

uint64_t gk_invdist_far_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    const gk_points *p = job->pts;
    const size_t n = p->n;
    const double s2 = job->alg.smoothing * job->alg.smoothing;
    if (gk_scratch_reserve(s, n) || gk_scratch_reserve2(s, (size_t)t->w * t->h) ||
        gk_scratch_reserve_f(s, 3 * n))
        return UINT64_MAX;
    int *hit = s->idx2;
    gk_invdist_mark_hits(p, t, s2, hit);
    /* z about the middle of its range, as invdist_kernels.c: float keeps its
     * relative accuracy on large z */
    double zmin = INFINITY, zmax = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        zmin = fmin(zmin, p->z[i]);
        zmax = fmax(zmax, p->z[i]);
    }
    const double zc = 0.5 * (zmin + zmax);
    far_split sp = {s->f, s->f + n, s->f + 2 * n, s->d2, 0, 0};
    uint64_t n_nodata = 0;
    for (int bj = t->y0 / FAR_B; bj * FAR_B < t->y0 + t->h; bj++)
        for (int bi = t->x0 / FAR_B; bi * FAR_B < t->x0 + t->w; bi++)
            n_nodata += far_block(job, t, bi, bj, zc, hit, &sp, out);
    return n_nodata;
}
