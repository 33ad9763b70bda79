/* SPDX-License-Identifier: MIT */
/*
 * geostat/kriging_system.c - what every part of kriging shares, below them
 * all: the drift's frame, a node's right-hand side, the small dense factor
 * and solves on the drift's Schur complement, a tile's start and its nodes'
 * external-drift covariates, and the count of singular systems. kriging.c (the entry), kriging_local.c,
 * kriging_global.c and kriging_prepare.c call down to it, never back.
 */
#include "core/method.h"
#include "kriging.h"
#include "kriging_dense.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- small dense kernels ----------------------------------------------- */

/* the shared text (kriging_dense.h): the GPU's simulation runs it too */
int gk_krige_chol(double *a, int n, int ld, double *inv, double tol)
{
    return gk_kd_chol(a, n, ld, inv, tol);
}

void gk_krige_fwd(const double *l, int n, int ld, const double *inv, double *b)
{
    gk_kd_fwd(l, n, ld, inv, b);
}

void gk_krige_bwd(const double *l, int n, int ld, const double *inv, double *b)
{
    gk_kd_bwd(l, n, ld, inv, b);
}

void gk_krige_f0(const gk_krige_state *k, double u0, double v0, double scale, const double *g0,
                 double *f0)
{
    int np = 1 + k->poly;
    if (k->nb == 1 || k->poly == 0) {
        gk_krige_poly(k->poly, u0, v0, f0);
    } else {
        double f[6];
        for (int c = 0; c < np; c++)
            f0[c] = 0.0;
        for (int b = 0; b < k->nb; b++) {
            gk_krige_poly(k->poly, u0 + k->bdx[b] / scale, v0 + k->bdy[b] / scale, f);
            for (int c = 0; c < np; c++)
                f0[c] += k->bw[b] * f[c];
        }
    }
    for (int r = 0; r < k->nr; r++)
        f0[np + r] = g0[r];
}

int gk_kriging_covariates(const gk_job *job, const gk_tile *t, double *g0)
{
    const gk_krige_state *k = gk_krige_of(job);
    const size_t T = (size_t)t->w * t->h;
    double *xs = g0 + (size_t)k->nr * T, *ys = xs + T;
    for (int j = 0; j < t->h; j++)
        for (int i = 0; i < t->w; i++) {
            xs[(size_t)j * t->w + i] = gk_grid_node_x(t->g, t->x0 + i);
            ys[(size_t)j * t->w + i] = gk_grid_node_y(t->g, t->y0 + j);
        }
    if (k->sampler(k->sampler_user, T, xs, ys, g0))
        return -1;
    for (int r = 0; r < k->nr; r++)
        for (size_t q = 0; q < T; q++)
            g0[(size_t)r * T + q] = (g0[(size_t)r * T + q] - k->gmean[r]) / k->gscale[r];
    return 0;
}

int gk_krige_tile_start(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    const gk_krige_state *k = gk_krige_of(job);
    size_t T = (size_t)t->w * t->h;
    int tile_ok = k->ready && !k->global_singular;
    /* nr blocks of T, at the head of the workspace */
    if (tile_ok && k->nr > 0 && gk_kriging_covariates(job, t, s->d2b))
        tile_ok = 0;
    if (tile_ok)
        return 0;
    for (size_t q = 0; q < T * job->nbands; q++)
        out[q] = job->alg.nodata;
    if (k->global_singular)
        gk_job_add_singular(job, T);
    return -1;
}

/* ---- the drift's frame ------------------------------------------------- */

void gk_drift_frame(const double *x, const double *y, size_t n, double *ox, double *oy, double *sc)
{
    double cx = 0, cy = 0, r = 0;
    for (size_t i = 0; i < n; i++)
        cx += x[i], cy += y[i];
    cx /= (double)n;
    cy /= (double)n;
    for (size_t i = 0; i < n; i++)
        r = fmax(r, hypot(x[i] - cx, y[i] - cy));
    *ox = cx;
    *oy = cy;
    *sc = r > 0 ? r : 1.0;
}
