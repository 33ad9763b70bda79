/* SPDX-License-Identifier: MIT */
/*
 * geostat/kriging_local.c - kriging with a local neighbourhood: the points
 * a node selects and its system, gstat's rules (docs/dev/geostatistics.md,
 * 'Local neighbourhoods'):
 *
 *  - the max_points (nmax) nearest within radius (maxdist, inclusive), ties by
 *    input order; all points within radius when max_points = 0;
 *  - fewer than min_points (nmin): an empty neighbourhood, which is nodata,
 *    except for simple kriging, where gstat returns the mean and C(0);
 *  - max_points_per_quadrant (omax): of that selection, the omax nearest per
 *    quadrant, with gstat's pinwheel rule for points on the axes.
 *
 * Per node the system is assembled on the selected points in input order, so
 * that neighbouring nodes with the same selection (the usual case when the
 * grid is finer than the data) reuse the factorisation: then only the
 * right-hand side costs anything. Any other selection is factorised from
 * scratch, so that a node's doubles depend on its selection alone, not on
 * the path through the tile (an O(m^2) update of the previous factor would
 * round differently from one tiling to the next). The dense work
 * (covariances, Cholesky, solves) is in kriging_kernels.c, the selection
 * in local_select.c. A singular system (coincident points and no nugget, collinear
 * points under a linear drift, fewer points than drift terms) gives nodata
 * and is counted, as gstat skips it with a warning. Nothing here allocates
 * per node: everything lives in the thread's scratch.
 */
#include "core/method.h"
#include "kriging.h"
#include "kriging_kernels.h"
#include "local_select.h"
#include "search/index.h"
#include "search/neighbours.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The per-thread workspace, carved out of the scratch's second buffers: the
 * tile's node covariates first (stable when the rest is re-laid out), then
 * the system for up to M points. */
typedef struct {
    int M;               /* capacity in points */
    size_t head;         /* doubles before the system (node covariates, node x, y) */
    double *L;           /* M x M, column-major lower triangle (kriging_kernels.h) */
    double *inv;         /* M: 1 / diag(L) */
    double *w;           /* M: L^-1 z (or L^-1 (z - mean)); B follows it */
    double *B;           /* P columns of M: L^-1 F */
    double *a;           /* M: L^-1 c0 */
    double *px, *py, *h; /* M each: the selection's coordinates, scratch */
    gk_local_prev pv, pvrow;             /* the last search, and the first of the row */
    double *S, *Sinv, *Btw, *f0, *r, *t; /* P x P, P, P, P, P, P */
    /* cache: the last factorised selection */
    int *cidx; /* in factor order (sorted by index) */
    int *sidx; /* the same set sorted by index, to diff against */
    long cm;
    int valid, singular;
    double ox, oy, sc; /* drift origin and scale of the cached selection */
    /* what the next selection reuses (a pair's covariance is the same double
     * in any system; the factor's leading block depends on the matrix's
     * leading block alone): the same doubles as computing everything.
     * A point keeps its slot of Ac while it stays selected, so that only
     * the points new to a selection cost a column of covariances. */
    double *Ac;        /* M x M, both triangles: Ac[a * M + b] = C(slot a, slot b) */
    int *slot, *cslot; /* M each: the selection's slots, and cidx's */
    int *used;         /* M: scratch, the slots kept */
    int ac_valid;      /* Ac holds cidx[0..cm)'s, in cslot */
    int l_valid;       /* L holds cidx[0..cm)'s whole factor */
    int *pos;          /* M: a selected point's place in the previous set, or -1 */
    double *tmpv;      /* M: scratch */
} kws;

static int ws_layout(kws *ws, gk_scratch *s, int M)
{
    const int P = GK_KRIGE_MAX_P;
    M = (M + 7) & ~7; /* whole vectors of 8 (kriging_kernels.h) */
    size_t need = ws->head + 2 * (size_t)M * M + (size_t)M * (8 + P) + (size_t)P * P + 5 * P;
    if (need < (size_t)M)
        need = (size_t)M;
    if (gk_scratch_reserve2(s, need))
        return -1;
    double *p = s->d2b + ws->head;
    ws->M = M;
    ws->L = p, p += (size_t)M * M;
    ws->inv = p, p += M;
    ws->a = p, p += M;
    ws->px = p, p += M;
    ws->py = p, p += M;
    ws->h = p, p += M;
    ws->w = p, p += M;
    ws->B = p, p += (size_t)M * P;
    ws->S = p, p += (size_t)P * P;
    ws->Sinv = p, p += P;
    ws->Btw = p, p += P;
    ws->f0 = p, p += P;
    ws->r = p, p += P;
    ws->t = p, p += P;
    ws->Ac = p, p += (size_t)M * M;
    ws->tmpv = p;
    ws->cidx = s->idx2;
    ws->sidx = s->idx2 + M; /* idx2 holds as many ints as d2b doubles (>= 2 M^2) */
    ws->pos = s->idx2 + 2 * M;
    ws->slot = s->idx2 + 3 * M;
    ws->cslot = s->idx2 + 4 * M;
    ws->used = s->idx2 + 5 * M;
    ws->valid = ws->ac_valid = ws->l_valid = 0;
    return 0;
}

static void finish(const gk_job *job, const gk_krige_state *k, kws *ws, long m);
static void schur(const gk_krige_state *k, kws *ws, long m);

/* The covariances of the selection into Ac, by slot: for each point new to
 * it one column over every point (a distance is the same double either way
 * round: (-d)^2 = d^2), written to its slot's row and column; the kept
 * points' pairs are there already. Without reuse, all pairs. */
static void covariances(const gk_krige_state *k, kws *ws, long m, int reuse)
{
    int M = ws->M;
    double *Ac = ws->Ac;
    const int *slot = ws->slot;
    if (!reuse) { /* slots are positions: the lower triangle, mirrored */
        gk_kk_cov_lower(k, ws->px, ws->py, (int)m, Ac, M, ws->h);
        for (long j = 0; j < m; j++)
            for (long i = j + 1; i < m; i++)
                Ac[(size_t)i * M + j] = Ac[(size_t)j * M + i];
        return;
    }
    for (long r = 0; r < m; r++) {
        if (ws->pos[r] >= 0)
            continue;
        double *col = ws->tmpv, *row = Ac + (size_t)slot[r] * M;
        gk_kk_cov0(k, ws->px, ws->py, (int)m, ws->px[r], ws->py[r], col, ws->h);
        for (long i = 0; i < m; i++) {
            row[slot[i]] = col[i];
            Ac[(size_t)slot[i] * M + slot[r]] = col[i];
        }
        row[slot[r]] = k->A;
    }
}

/* Factorises the system of the selection idx[0..m) (sorted by index). What
 * the previous selection shares with it (its pairs' covariances, the
 * leading block of its factor) is taken over, not computed again: the
 * doubles are those of a factorisation from scratch. */
static void factorise(const gk_job *job, const gk_krige_state *k, kws *ws, const int *idx, long m)
{
    const double *X = job->pts->x, *Y = job->pts->y;
    int M = ws->M, p = k->p;
    int reuse = ws->ac_valid && gk_kk_cov_reusable(k);
    long p0 = 0;
    if (reuse) {
        long a = 0, cm = ws->cm;
        for (long i = 0; i < m; i++) {
            while (a < cm && ws->cidx[a] < idx[i])
                a++;
            ws->pos[i] = a < cm && ws->cidx[a] == idx[i] ? (int)a : -1;
        }
        if (ws->l_valid)
            while (p0 < m && ws->pos[p0] == p0)
                p0++;
        /* kept points keep their slots; new ones take the free ones */
        memset(ws->used, 0, (size_t)M * sizeof *ws->used);
        for (long i = 0; i < m; i++)
            if (ws->pos[i] >= 0) {
                ws->slot[i] = ws->cslot[ws->pos[i]];
                ws->used[ws->slot[i]] = 1;
            }
        int f = 0;
        for (long i = 0; i < m; i++)
            if (ws->pos[i] < 0) {
                while (ws->used[f])
                    f++;
                ws->slot[i] = f++;
            }
    } else {
        for (long i = 0; i < m; i++)
            ws->slot[i] = (int)i;
    }
    memcpy(ws->cidx, idx, (size_t)m * sizeof *idx);
    memcpy(ws->sidx, idx, (size_t)m * sizeof *idx);
    ws->cm = m;
    ws->valid = 1;
    ws->singular = 0;
    for (long i = 0; i < m; i++) {
        ws->px[i] = X[idx[i]];
        ws->py[i] = Y[idx[i]];
    }
    for (long i = m; i < ((m + 7) & ~7L); i++) { /* padding the kernels read */
        ws->px[i] = ws->px[m - 1];
        ws->py[i] = ws->py[m - 1];
    }
    covariances(k, ws, m, reuse);
    memcpy(ws->cslot, ws->slot, (size_t)m * sizeof *ws->slot);
    for (long j = 0; j < m; j++) { /* the factor's rows from p0 (and j) on */
        long r0 = j > p0 ? j : p0;
        const double *o = ws->Ac + (size_t)ws->slot[j] * M;
        double *c = ws->L + (size_t)j * M;
        for (long i = r0; i < m; i++)
            c[i] = o[ws->slot[i]];
    }
    ws->ac_valid = 1;
    int bad = gk_kk_chol_from(ws->L, (int)m, M, ws->inv, GK_KRIGE_CHOL_TOL, (int)p0);
    ws->l_valid = !bad;
    if (bad || (p > 0 && m < p)) {
        ws->singular = 1;
        return;
    }
    finish(job, k, ws, m);
}

/* Given the factor of the selection ws->cidx[0..m), the solves and the drift part. */
static void finish(const gk_job *job, const gk_krige_state *k, kws *ws, long m)
{
    const double *X = job->pts->x, *Y = job->pts->y, *Z = job->pts->z;
    int M = ws->M, p = k->p;
    size_t n = job->pts->n;
    const int *idx = ws->cidx;
    for (long i = 0; i < m; i++)
        ws->w[i] = Z[idx[i]] - (k->type == GK_KRIGE_SIMPLE ? k->mean : 0.0);
    if (p == 0) {
        gk_kk_fwd(ws->L, (int)m, M, ws->inv, ws->w, 1, M);
        return;
    }
    /* Drift origin and scale: the selection's centroid and extent (a
     * constant drift, ordinary kriging's, has no use for them). */
    double ox = 0.0, oy = 0.0, sc = k->poly == 0 ? 1.0 : 0.0;
    if (k->poly > 0) {
        for (long i = 0; i < m; i++)
            ox += X[idx[i]], oy += Y[idx[i]];
        ox /= (double)m;
        oy /= (double)m;
        for (long i = 0; i < m; i++) {
            double ex = X[idx[i]] - ox, ey = Y[idx[i]] - oy, d = sqrt(ex * ex + ey * ey);
            if (d > sc)
                sc = d;
        }
    }
    if (!(sc > 0))
        sc = 1.0;
    ws->ox = ox, ws->oy = oy, ws->sc = sc;
    int np = 1 + k->poly;
    double f[6];
    for (long i = 0; i < m; i++) {
        gk_krige_poly(k->poly, (X[idx[i]] - ox) / sc, (Y[idx[i]] - oy) / sc, f);
        for (int c = 0; c < np; c++)
            ws->B[(size_t)c * M + i] = f[c];
        for (int r = 0; r < k->nr; r++)
            ws->B[(size_t)(np + r) * M + i] = k->gpts[(size_t)r * n + idx[i]];
    }
    /* z and the drift columns in one pass (w and B are adjacent) */
    gk_kk_fwd(ws->L, (int)m, M, ws->inv, ws->w, 1 + p, M);
    schur(k, ws, m);
}

/* S = B'B (lower), its factor, and B'w, from w and B. */
static void schur(const gk_krige_state *k, kws *ws, long m)
{
    int M = ws->M, p = k->p;
    for (int c = 0; c < p; c++) {
        const double *bc = ws->B + (size_t)c * M;
        for (int d = 0; d <= c; d++) {
            const double *bd = ws->B + (size_t)d * M;
            double s = 0.0;
            for (long i = 0; i < m; i++)
                s += bc[i] * bd[i];
            ws->S[c * p + d] = s;
        }
        double s = 0.0;
        for (long i = 0; i < m; i++)
            s += bc[i] * ws->w[i];
        ws->Btw[c] = s;
    }
    if (gk_krige_chol(ws->S, p, p, ws->Sinv, GK_KRIGE_SCHUR_TOL))
        ws->singular = 1;
}

/* One node: 1 with est/var, 0 nodata, 2 singular (nodata, counted), -1 no memory. */
static int local_node(const gk_job *job, const gk_krige_state *k, kws *ws, gk_scratch *s, double nx,
                      double ny, const double *g0, double *est, double *var)
{
    const gk_local_nb nb = {job->alg.max_points, job->alg.min_points,
                            job->alg.max_points_per_quadrant,
                            gk_krige_params_of(&job->alg)->maxdist};
    long m = gk_local_select(job, &nb, nx, ny, s, &ws->pv);
    if (m < 0)
        return -1;
    if (m == 0) {
        if (k->type != GK_KRIGE_SIMPLE)
            return 0;
        *est = k->mean; /* gstat: an empty simple kriging neighbourhood gives the mean */
        *var = k->c00;
        return 1;
    }
    int *idx = s->idx;
    if (m <= 128) {
        int tmp[128];
        gk_kk_sort_idx(idx, (int)m, tmp);
    } else
        qsort(idx, (size_t)m, sizeof *idx, cmp_int);
    if (m > ws->M) {
        int M = ws->M ? ws->M : 16;
        while (M < m)
            M *= 2;
        if (ws_layout(ws, s, M))
            return -1;
        idx = s->idx;
    }
    /* A new selection is factorised from scratch: updating the previous
     * factor (O(m^2)) would round differently along each path through the
     * grid, and the result must not depend on the tiling. */
    if (!(ws->valid && ws->cm == m && memcmp(ws->sidx, idx, (size_t)m * sizeof *idx) == 0))
        factorise(job, k, ws, idx, m);
    if (ws->singular)
        return 2;

    int M = ws->M, p = k->p;
    double *av = ws->a;
    gk_kk_cov0(k, ws->px, ws->py, (int)m, nx, ny, av, ws->h);
    gk_kk_fwd(ws->L, (int)m, M, ws->inv, av, 1, M);
    double aw = 0.0, aa = 0.0;
    for (long i = 0; i < m; i++) {
        aw += av[i] * ws->w[i];
        aa += av[i] * av[i];
    }
    if (p == 0) {
        *est = k->mean + aw;
        *var = k->c00 - aa;
    } else {
        gk_krige_f0(k, (nx - ws->ox) / ws->sc, (ny - ws->oy) / ws->sc, ws->sc, g0, ws->f0);
        for (int c = 0; c < p; c++) {
            const double *bc = ws->B + (size_t)c * M;
            double sb = 0.0;
            for (long i = 0; i < m; i++)
                sb += bc[i] * av[i];
            ws->r[c] = ws->f0[c] - sb;
            ws->t[c] = ws->r[c];
        }
        gk_krige_fwd(ws->S, p, p, ws->Sinv, ws->t);
        gk_krige_bwd(ws->S, p, p, ws->Sinv, ws->t);
        double tb = 0.0, rt = 0.0;
        for (int c = 0; c < p; c++) {
            tb += ws->t[c] * ws->Btw[c];
            rt += ws->r[c] * ws->t[c];
        }
        *est = aw + tb;
        *var = k->c00 - aa + rt;
    }
    if (*var < 0.0) /* rounding at a datum: the variance is 0 there */
        *var = 0.0;
    if (!isfinite(*est) || !isfinite(*var))
        return 2;
    return 1;
}

uint64_t gk_krige_local_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s,
                             size_t head)
{
    const gk_krige_state *k = gk_krige_of(job);
    const gk_grid *g = t->g;
    size_t T = (size_t)t->w * t->h;
    double nodata = job->alg.nodata;
    int want_var = job->nbands > 1;
    uint64_t nod = 0, sing = 0;

    kws ws;
    memset(&ws, 0, sizeof ws);
    ws.head = head;
    int M0 = job->alg.max_points;
    if (M0 <= 0 || (size_t)M0 > job->pts->n)
        M0 = job->pts->n < 16 ? (int)job->pts->n : 16;
    if (M0 < 1)
        M0 = 1;
    if (ws_layout(&ws, s, M0))
        return UINT64_MAX;
    if (gk_krige_tile_start(job, t, out, s))
        return T;

    double g0[GK_KRIGE_MAX_DRIFT_RASTERS];
    for (int j = 0; j < t->h; j++) {
        double ny = gk_grid_node_y(g, t->y0 + j);
        for (int i = 0; i < t->w; i++) {
            double nx = gk_grid_node_x(g, t->x0 + i);
            size_t q = (size_t)j * t->w + i;
            double est = nodata, var = nodata;
            int ok = 1;
            for (int r = 0; r < k->nr; r++) {
                g0[r] = s->d2b[(size_t)r * T + q]; /* re-read: the scratch may move */
                if (!isfinite(g0[r]))
                    ok = 0;
            }
            int rc = 0;
            if (ok) {
                if (i == 0) /* the row's start is nearer the last row's */
                    ws.pv = ws.pvrow;
                rc = local_node(job, k, &ws, s, nx, ny, g0, &est, &var);
                if (i == 0)
                    ws.pvrow = ws.pv;
            }
            if (rc < 0)
                return UINT64_MAX;
            if (rc == 1) {
                gk_krige_put(out, T, q, want_var, est, var);
            } else {
                gk_krige_put(out, T, q, want_var, nodata, nodata);
                nod++;
                if (rc == 2)
                    sing++;
            }
        }
    }
    gk_job_add_singular(job, sing);
    return nod;
}
