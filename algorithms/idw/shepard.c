/* SPDX-License-Identifier: MIT */
/*
 * idw/shepard.c - -a shepard: the modified quadratic Shepard method (Renka
 * 1988, ACM TOMS algorithm 660, QSHEP2D; Surfer's "Modified Shepard's
 * Method", SAGA's "Modified Quadratic Shepard").
 *
 *   Q(P) = sum_k W_k(P) Q_k(P) / sum_k W_k(P),
 *   W_k = ((R_k - d_k)+ / (R_k d_k))^2,
 *
 * Q_k a quadratic through point k fitted by weighted least squares to its
 * quadratic_points (NQ, 13) nearest, R_k the radius that holds its
 * weight_points (NW, 19) nearest. Each point's fit follows QSHEP2's steps,
 * so that its results are SAGA's to rounding: neighbours ranked by
 * distance (equal distances, within 1e-5 relative, taken together; ties by
 * input order here, by its cell scan there), at most 40 of them; the rows
 * weighted (R_q - d) / (R_q d), the quadratic columns scaled by the mean
 * squared distance; Givens rotations one row at a time; an ill-conditioned
 * system (a diagonal entry of R below 0.01 / R_q) grows by the next
 * neighbours, and at 40 its second derivatives are damped (Marquardt).
 *
 * Where QSHEP2 stops with an error, this defines an answer: coincident
 * points are one node (their values' mean at that node, and each fits its
 * quadratic to the others); a point whose neighbours are all on a line
 * keeps the damped fit if that is well-conditioned, else a plane, else a
 * constant (its own value: plain Shepard there); fewer than 6 points fit
 * what they can. smoothing = s > 0 (gdal_grid's invdist key) puts
 * sqrt(d^2 + s^2) for d in the weights W_k: the surface then no longer
 * passes through the points. A node within no point's radius is nodata.
 *
 * The fits are made once, on threads, each point's on its own; a node sums
 * its points by cell (a grid over the points of edge half the largest
 * radius) then input order, which the points alone fix: the same bytes for
 * any threads and tiles.
 */
#include "shepard_node.h"
#include "core/method.h"
#include "search/index.h"
#include "search/kdtree.h"
#include "search/knn_bins.h"
#include "search/neighbours.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define SH_LMAX 40   /* neighbours a fit may use (QSHEP2's bound) */
#define SH_RTOL 1e-5 /* distances closer than this, relative, are equal */
#define SH_DTOL 0.01 /* R's diagonal times R_q below this: ill-conditioned */
#define SH_SF 1.0    /* Marquardt damping of the second derivatives */

typedef struct {
    int nq, nw;
} shepard_params;
GK_ALG_OWN_FITS(shepard_params);

static shepard_params *params_of(gk_algorithm *a) { return GK_ALG_OWN(shepard_params, a); }
static const shepard_params *cparams_of(const gk_algorithm *a)
{
    return GK_ALG_OWN(const shepard_params, a);
}

/* The nodal functions: Q_k(x, y) = a0 dx^2 + a1 dx dy + a2 dy^2 + a3 dx +
 * a4 dy + f_k with (dx, dy) = (x, y) - point k; rsq = R_k^2. */
typedef struct {
    double (*a)[5];
    double *rsq, rmax;
    double *f; /* each point's value: the mean of the points at its place */
    /* the evaluation's cells (edge cs, over the points' box, nx by ny): the
     * points of cell c at [start[c], start[c + 1]) of the arrays below, by
     * cell then input order, each point's terms beside it */
    double x0, y0, cs;
    long cnx, cny;
    size_t *start;
    double *cx, *cy, *crsq, *cf, (*ca)[5];
} shepard_state;

static const shepard_state *state_of(const gk_job *job) { return job->state; }

/* ---- one point's fit (QSHEP2's steps) ------------------------------------ */

/* LINPACK's Givens rotation zeroing b against a: a becomes r; c, s. */
static void givens(double *a, double *b, double *c, double *s)
{
    const double aa = *a, bb = *b;
    if (fabs(aa) > fabs(bb)) {
        const double u = aa + aa, v = bb / u, r = sqrt(0.25 + v * v) * u;
        *c = aa / r;
        *s = v * (*c + *c);
        *b = *s;
        *a = r;
    } else if (bb == 0.0) {
        *c = 1.0;
        *s = 0.0;
    } else {
        const double u = bb + bb, v = aa / u;
        *a = sqrt(0.25 + v * v) * u;
        *s = bb / *a;
        *c = v * (*s + *s);
        *b = *c != 0.0 ? 1.0 / *c : 1.0;
    }
}

static void rotate(int n, double c, double s, double *x, double *y)
{
    if (n <= 0 || (c == 1.0 && s == 0.0))
        return;
    for (int i = 0; i < n; i++) {
        const double xi = x[i], yi = y[i];
        x[i] = c * xi + s * yi;
        y[i] = -s * xi + c * yi;
    }
}

/* The row of neighbour (dx, dy, df) under radius r: zero outside it. */
static void setup_row(double dx, double dy, double df, double av, double avsq, double r,
                      double *row)
{
    const double d = sqrt(dx * dx + dy * dy);
    if (d <= 0.0 || d >= r) {
        memset(row, 0, 6 * sizeof *row);
        return;
    }
    const double w = (r - d) / r / d, w1 = w / av, w2 = w / avsq;
    row[0] = dx * dx * w2;
    row[1] = dx * dy * w2;
    row[2] = dy * dy * w2;
    row[3] = dx * w1;
    row[4] = dy * w1;
    row[5] = df * w;
}

/* Adds row (6 entries, in B[irow]) to the triangle B[0..irow) by rotations. */
static void add_row(double B[6][6], int irow)
{
    for (int j = 0; j < irow; j++) {
        double c, s;
        givens(&B[j][j], &B[irow][j], &c, &s);
        rotate(5 - j, c, s, &B[j][j + 1], &B[irow][j + 1]);
    }
}

static double diag_min(double B[6][6])
{
    double m = fabs(B[0][0]);
    for (int j = 1; j < 5; j++)
        m = fmin(m, fabs(B[j][j]));
    return m;
}

/* Point k's nodal function and radius from its neighbours nb[0..L) (by
 * distance, coincident points left out), d2 their squared distances.
 * Returns 0, or 1 when no quadratic fits (coefficients then from lower
 * forms, a[] filled either way). prefix: the list is the start of a longer
 * one (at most SH_LMAX), and -1 is returned where the fit would reach its
 * end: what it returns otherwise is what the whole list gives. */
static int fit_point(const gk_points *p, const double *f, int k, const int *nb, const double *d2,
                     int L, int prefix, int nq, int nw, double a[5], double *rsq)
{
    memset(a, 0, 5 * sizeof *a);
    if (L == 0 && prefix)
        return -1;
    if (L == 0) { /* alone: a constant, everywhere (plain Shepard weights) */
        *rsq = INFINITY;
        return 1;
    }
    const int lmax = L, nqw = nq > nw ? nq : nw;
    double rs = 0.0, rsold, sum = 0.0, rws = 0.0, rq = 0.0, avsq = 0.0;
    int lnp = 0, neq = 0;
    for (;;) {
        sum += rs;
        if (lnp == lmax && prefix)
            return -1;
        if (lnp == lmax) { /* every neighbour in: 10% past the last */
            if (rws == 0.0)
                rws = 1.1 * rs;
            if (rq == 0.0) {
                neq = lmax;
                rq = sqrt(1.1 * rs);
                avsq = sum / neq;
            }
            break;
        }
        lnp++;
        rsold = rs;
        rs = d2[lnp - 1];
        if ((rs - rsold) / rs >= SH_RTOL) {
            if (rws == 0.0 && lnp > nw)
                rws = rs;
            if (rq == 0.0 && lnp > nq) {
                neq = lnp - 1;
                rq = sqrt(rs);
                avsq = sum / neq;
            }
            if (lnp > nqw)
                break;
        }
    }
    *rsq = rws;
    if (L < 5) /* fewer neighbours than unknowns: a plane or a constant below */
        goto lower;
    const double av = sqrt(avsq);
    double B[6][6];
    memset(B, 0, sizeof B);
    for (int i = 1;; i++) {
        const int np = nb[i - 1], irow = i < 6 ? i - 1 : 5;
        setup_row(p->x[np] - p->x[k], p->y[np] - p->y[k], f[np] - f[k], av, avsq, rq, B[irow]);
        if (i > 1)
            add_row(B, irow);
        if (i < neq)
            continue;
        if (diag_min(B) * rq < SH_DTOL) {
            if (prefix && neq == lmax)
                return -1;     /* the whole list would damp */
            if (neq == lmax) { /* damp the second derivatives */
                for (int e = 0; e < 3; e++) {
                    memset(B[5], 0, sizeof B[5]);
                    B[5][e] = SH_SF;
                    for (int j = e; j < 5; j++) {
                        double c, s;
                        givens(&B[j][j], &B[5][j], &c, &s);
                        rotate(5 - j, c, s, &B[j][j + 1], &B[5][j + 1]);
                    }
                }
                if (diag_min(B) * rq < SH_DTOL)
                    goto lower;
            } else { /* more equations, a wider radius */
                int more = 0;
                while (!more) {
                    rsold = rs;
                    neq++;
                    if (neq == lmax && prefix)
                        return -1; /* the whole list would grow on */
                    if (neq == lmax) {
                        rq = sqrt(1.1 * rs);
                        more = 1;
                    } else if (neq == lnp) {
                        lnp++;
                        rs = d2[lnp - 1];
                        if ((rs - rsold) / rs >= SH_RTOL)
                            rq = sqrt(rs), more = 1;
                    } else {
                        rs = d2[neq];
                        if ((rs - rsold) / rs >= SH_RTOL)
                            rq = sqrt(rs), more = 1;
                    }
                }
                continue;
            }
        }
        for (int j = 4; j >= 0; j--) { /* back substitution */
            double t = 0.0;
            for (int m = j + 1; m < 5; m++)
                t += B[j][m] * a[m];
            a[j] = (B[j][5] - t) / B[j][j];
        }
        for (int j = 0; j < 3; j++)
            a[j] /= avsq;
        a[3] /= av;
        a[4] /= av;
        return 0;
    }
lower:
    /* the neighbours on a line (or too few): the least-squares plane through
     * point k if they carry one, else the constant f_k, from all of them */
    if (prefix)
        return -1;
    {
        double sxx = 0, sxy = 0, syy = 0, sxf = 0, syf = 0;
        for (int i = 0; i < L && i < SH_LMAX; i++) {
            const int np = nb[i];
            const double dx = p->x[np] - p->x[k], dy = p->y[np] - p->y[k], df = f[np] - f[k];
            sxx += dx * dx, sxy += dx * dy, syy += dy * dy, sxf += dx * df, syf += dy * df;
        }
        const double det = sxx * syy - sxy * sxy;
        memset(a, 0, 5 * sizeof *a);
        if (det > 1e-12 * sxx * syy) {
            a[3] = (sxf * syy - syf * sxy) / det;
            a[4] = (syf * sxx - sxf * sxy) / det;
        }
    }
    return 1;
}

/* ---- the method ---------------------------------------------------------- */

static void shepard_release(gk_job *job)
{
    shepard_state *st = job->state;
    if (st) {
        free(st->a);
        free(st->rsq);
        free(st->f);
        free(st->start);
        free(st->cx);
        free(st->cy);
        free(st->crsq);
        free(st->cf);
        free(st->ca);
        free(st);
    }
    job->state = NULL;
}

/* The evaluation's cells: edge rmax / 2 (larger where that would make more than
 * about 4 cells a point), the points copied in cell order. */
static int build_cells(gk_job *job, shepard_state *st)
{
    const gk_points *p = job->pts;
    const size_t n = p->n;
    double x1 = -INFINITY, y1 = -INFINITY;
    st->x0 = st->y0 = INFINITY;
    for (size_t i = 0; i < n; i++) {
        st->x0 = fmin(st->x0, p->x[i]), x1 = fmax(x1, p->x[i]);
        st->y0 = fmin(st->y0, p->y[i]), y1 = fmax(y1, p->y[i]);
    }
    double cs = st->rmax > 0 ? 0.5 * st->rmax : fmax(x1 - st->x0, y1 - st->y0) + 1.0;
    while ((floor((x1 - st->x0) / cs) + 1) * (floor((y1 - st->y0) / cs) + 1) > 4.0 * (double)n + 16)
        cs *= 2.0;
    st->cs = cs;
    st->cnx = (long)floor((x1 - st->x0) / cs) + 1;
    st->cny = (long)floor((y1 - st->y0) / cs) + 1;
    const size_t ncell = (size_t)st->cnx * (size_t)st->cny;
    size_t *cell = malloc((n ? n : 1) * sizeof *cell);
    st->start = calloc(ncell + 1, sizeof *st->start);
    st->cx = malloc((n ? n : 1) * sizeof *st->cx);
    st->cy = malloc((n ? n : 1) * sizeof *st->cy);
    st->crsq = malloc((n ? n : 1) * sizeof *st->crsq);
    st->cf = malloc((n ? n : 1) * sizeof *st->cf);
    st->ca = malloc((n ? n : 1) * sizeof *st->ca);
    if (!cell || !st->start || !st->cx || !st->cy || !st->crsq || !st->cf || !st->ca) {
        free(cell);
        return gk_error(job->ctx, GK_ERR_NOMEM, "shepard: out of memory for %zu points", n);
    }
    for (size_t i = 0; i < n; i++) { /* counting sort, stable: input order in a cell */
        long ix = (long)floor((p->x[i] - st->x0) / cs), iy = (long)floor((p->y[i] - st->y0) / cs);
        ix = ix < 0 ? 0 : ix >= st->cnx ? st->cnx - 1 : ix;
        iy = iy < 0 ? 0 : iy >= st->cny ? st->cny - 1 : iy;
        cell[i] = (size_t)iy * (size_t)st->cnx + (size_t)ix;
        st->start[cell[i] + 1]++;
    }
    for (size_t c = 0; c < ncell; c++)
        st->start[c + 1] += st->start[c];
    size_t *at = cell; /* reused: each point's slot, made from a running copy */
    size_t *next = malloc((ncell ? ncell : 1) * sizeof *next);
    if (!next) {
        free(cell);
        return gk_error(job->ctx, GK_ERR_NOMEM, "shepard: out of memory for %zu points", n);
    }
    memcpy(next, st->start, ncell * sizeof *next);
    for (size_t i = 0; i < n; i++) {
        const size_t k = next[at[i]]++;
        st->cx[k] = p->x[i], st->cy[k] = p->y[i], st->crsq[k] = st->rsq[i];
        st->cf[k] = st->f[i];
        memcpy(st->ca[k], st->a[i], sizeof st->ca[k]);
    }
    free(next);
    free(cell);
    return GK_OK;
}

/* The job's k-d tree, built where first needed (ties the bins cannot order,
 * coincident points: rare), on any thread; NULL when out of memory. */
static const gk_kdtree *lazy_tree(gk_job *job)
{
    const gk_kdtree *t;
#pragma omp critical(gk_shepard_tree)
    {
        if (!job->tree)
            gk_index_tree(job);
        t = job->tree;
    }
    return t;
}

/* The k nearest points to (x, y), sorted by (d^2, index) as the k-d tree
 * answers: from the bins (quicker for k about 40), asked for one more to
 * see that the k-th is not tied with a point left out, and their ties put
 * in index order; from the tree where it is, or without bins. idx and d2
 * hold k + 1. -1: no memory for the tree. */
static int nearest(gk_job *job, const gk_knn_bins *kb, double x, double y, int k, int *idx,
                   double *d2)
{
    const int m = kb ? gk_knn_bins_knn(kb, x, y, k + 1, INFINITY, idx, d2) : 0;
    if (!kb || (m == k + 1 && d2[k] == d2[k - 1])) {
        const gk_kdtree *t = lazy_tree(job);
        return t ? gk_kdtree_knn(t, x, y, k, INFINITY, idx, d2) : -1;
    }
    const int got = m < k ? m : k;
    for (int i = 1; i < got; i++) { /* equal distances by index */
        const int v = idx[i];
        int j = i;
        for (; j > 0 && d2[j - 1] == d2[i] && idx[j - 1] > v; j--)
            idx[j] = idx[j - 1];
        idx[j] = v;
    }
    return got;
}

/* Point k's value: the mean of the points at its place, in input order (so
 * that coincident points are one node); 0, 1 with more of them than room,
 * 2 out of memory. */
static int point_value(gk_job *job, const gk_knn_bins *kb, long k, double *f)
{
    const gk_points *p = job->pts;
    int idx[SH_LMAX + 64];
    double d2[SH_LMAX + 64];
    /* alone at its place (the bins' nearest other point is not there) */
    if (kb && gk_knn_bins_knn(kb, p->x[k], p->y[k], 2, INFINITY, idx, d2) < 2)
        d2[1] = INFINITY;
    if (kb && d2[1] > 0.0) {
        *f = 0.0 + p->z[k]; /* the sum below, of one */
        return 0;
    }
    /* the points at distance 0 only (k among them), by index */
    const gk_kdtree *t = lazy_tree(job);
    if (!t)
        return 2;
    const int m = gk_kdtree_knn(t, p->x[k], p->y[k], SH_LMAX + 64, 0.0, idx, d2);
    if (m == SH_LMAX + 64)
        return 1;
    double s = 0.0;
    for (int i = 0; i < m; i++)
        s += p->z[idx[i]];
    *f = s / m;
    return 0;
}

static int shepard_prepare(gk_job *job)
{
    const gk_points *p = job->pts;
    const size_t n = p->n;
    const shepard_params *sp = cparams_of(&job->alg);
    shepard_state *st = calloc(1, sizeof *st);
    if (!st || !(st->a = malloc((n ? n : 1) * sizeof *st->a)) ||
        !(st->rsq = malloc((n ? n : 1) * sizeof *st->rsq)) ||
        !(st->f = malloc((n ? n : 1) * sizeof *st->f))) {
        if (st) {
            free(st->a);
            free(st->rsq);
            free(st);
        }
        return gk_error(job->ctx, GK_ERR_NOMEM, "shepard: out of memory for %zu points", n);
    }
    job->state = st;
    const int threads = job->ctx->threads > 0 ? job->ctx->threads : omp_get_num_procs();
    int failed = 0, nomem = 0;
    /* bins for the neighbours (the tree where they cannot say) */
    gk_knn_bins *kb = gk_knn_bins_build(p->x, p->y, n, threads);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 256) reduction(| : failed, nomem)
    for (long k = 0; k < (long)n; k++) {
        const int r = point_value(job, kb, k, &st->f[k]);
        failed |= r == 1;
        nomem |= r == 2;
    }
    double rmax = 0.0;
    /* the first list: what the fit reads without trouble (its NQ and NW
     * nearest past ties, k itself), the whole one where it reads further */
    const int nqw = sp->nq > sp->nw ? sp->nq : sp->nw;
    const int first = nqw + 4 < SH_LMAX + 1 ? nqw + 4 : SH_LMAX + 1;
#pragma omp parallel num_threads(threads) reduction(| : failed, nomem) reduction(max : rmax)
    {
        /* one more than the most asked for: nearest() asks the bins for k + 1 */
        int idx[SH_LMAX + 65], nb[SH_LMAX];
        double d2[SH_LMAX + 65], nd[SH_LMAX];
#pragma omp for schedule(dynamic, 256)
        for (long k = 0; k < (long)n; k++) {
            /* k itself and its SH_LMAX nearest; more where points at its
             * place took some of them (the k nearest of the tree are a
             * prefix of its k + j nearest: the same neighbours) */
            int want = first, m, L, skip, r = -1;
            for (;;) {
                m = nearest(job, kb, p->x[k], p->y[k], want, idx, d2);
                if (m < 0)
                    break;
                L = skip = 0;
                for (int i = 0; i < m && L < SH_LMAX; i++) {
                    if (d2[i] == 0.0) { /* k itself, and the points at its place */
                        skip++;
                        continue;
                    }
                    nb[L] = idx[i], nd[L] = d2[i], L++;
                }
                const int whole = L == SH_LMAX || m < want || want == SH_LMAX + 64;
                if (!whole && want < SH_LMAX + 1) { /* the short list, if it is enough */
                    r = fit_point(p, st->f, (int)k, nb, nd, L, 1, sp->nq, sp->nw, st->a[k],
                                  &st->rsq[k]);
                    if (r >= 0)
                        break;
                    want = SH_LMAX + 1;
                    continue;
                }
                if (whole)
                    break;
                want = SH_LMAX + 64;
            }
            if (m < 0) {
                nomem = 1;
                continue;
            }
            if (r < 0 && skip == m && m == want) { /* only coincident points in reach */
                failed = 1;
                continue;
            }
            if (r < 0)
                fit_point(p, st->f, (int)k, nb, nd, L, 0, sp->nq, sp->nw, st->a[k], &st->rsq[k]);
            rmax = fmax(rmax, st->rsq[k]);
        }
    }
    gk_knn_bins_free(kb);
    if (nomem)
        return gk_error(job->ctx, GK_ERR_NOMEM,
                        "shepard: out of memory for the search tree of %zu points", n);
    if (failed)
        return gk_error(job->ctx, GK_ERR_ARG,
                        "shepard: more than %d points at one place: merge them first",
                        SH_LMAX + 63);
    st->rmax = sqrt(rmax);
    return isfinite(st->rmax) ? build_cells(job, st) : GK_OK;
}

/* The evaluation's cells as shepard_node.h's node reads them. */
static gk_sh_cells cells_of(const gk_job *job)
{
    const shepard_state *st = state_of(job);
    const gk_sh_cells C = {st->x0,
                           st->y0,
                           st->cs,
                           st->rmax,
                           job->alg.smoothing * job->alg.smoothing,
                           st->cnx,
                           st->cny,
                           st->start,
                           st->cx,
                           st->cy,
                           st->crsq,
                           st->cf,
                           (const double(*)[5])st->ca};
    return C;
}

/* One node: 1 with *v, 0 nodata. The points whose radius may hold it are
 * those of the cells within rmax, summed by cell then input order (the
 * cells are the points' alone: fixed sums; shepard_node.h, the GPU's too);
 * a point alone has an unbounded radius: then every point, in input order. */
static int shepard_node(const gk_job *job, double nx, double ny, double hit2, gk_scratch *s,
                        double *v)
{
    const shepard_state *st = state_of(job);
    (void)hit2, (void)s;
    if (isfinite(st->rmax)) {
        const gk_sh_cells C = cells_of(job);
        return gk_sh_node(&C, nx, ny, v);
    }
    const double s2 = job->alg.smoothing * job->alg.smoothing;
    double sw = 0.0, swq = 0.0;
    const gk_points *p = job->pts;
    for (size_t k = 0; k < p->n; k++)
        if (gk_sh_add(p->x[k], p->y[k], st->rsq[k], st->f[k], st->a[k], nx, ny, s2, &sw, &swq, v))
            return 1;
    if (sw == 0.0)
        return 0;
    *v = swq / sw;
    return 1;
}

static uint64_t shepard_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    return gk_nb_run_tile(job, t, out, s, shepard_node);
}

/* The GPU sums the nodes with the same code (gpu/shepard.cu); a single
 * nodal function of unbounded radius (one point) stays on the CPU. */
static const char *shepard_gpu(const gk_job *job, gk_gpu_job_desc *d)
{
    const shepard_state *st = state_of(job);
    if (!st || !isfinite(st->rmax))
        return "one point's radius is unbounded (every node sums every point)";
    const gk_sh_cells C = cells_of(job);
    d->op = GK_GPU_SHEPARD;
    d->p.shep.n = job->pts->n;
    d->p.shep.x0 = C.x0, d->p.shep.y0 = C.y0, d->p.shep.cs = C.cs;
    d->p.shep.rmax = C.rmax, d->p.shep.s2 = C.s2;
    d->p.shep.cnx = C.cnx, d->p.shep.cny = C.cny;
    d->p.shep.start = C.start;
    d->p.shep.cx = C.cx, d->p.shep.cy = C.cy, d->p.shep.crsq = C.crsq, d->p.shep.cf = C.cf;
    d->p.shep.ca = st->ca[0];
    return NULL;
}

static void shepard_defaults(gk_algorithm *a)
{
    params_of(a)->nq = 13;
    params_of(a)->nw = 19;
}

static int shepard_key(gk_context *ctx, const char *alg, const char *key, double v, gk_algorithm *a)
{
    int *out = !strcmp(key, "quadratic_points") ? &params_of(a)->nq : &params_of(a)->nw;
    return gk_param_count(ctx, alg, key, v, out);
}

static int shepard_check(gk_context *ctx, const char *spec, gk_algorithm *a)
{
    const shepard_params *p = cparams_of(a);
    if (p->nq < 5 || p->nq > SH_LMAX)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a %s: quadratic_points=%d must be from 5 to %d (the quadratic has 5 "
                        "coefficients besides the point's value)",
                        spec, p->nq, SH_LMAX);
    if (p->nw < 1 || p->nw > SH_LMAX)
        return gk_error(ctx, GK_ERR_ARG, "-a %s: weight_points=%d must be from 1 to %d", spec,
                        p->nw, SH_LMAX);
    return GK_OK;
}

static void shepard_canonical(const gk_algorithm *a, gk_strbuf *sb)
{
    gk_strbuf_add(sb, ":quadratic_points=%d:weight_points=%d:smoothing=%.17g", cparams_of(a)->nq,
                  cparams_of(a)->nw, a->smoothing);
}

const gk_method gk_method_shepard = {
    .name = "shepard",
    .kind = GK_ALG_SHEPARD,
    .summary = "modified quadratic Shepard (Renka's QSHEP2D, as SAGA and Surfer): a weighted "
               "sum of local quadratics through the points",
    .keys = GK_KEY_SMOOTHING | GK_KEY_NODATA,
    .own_keys = "quadratic_points, weight_points",
    .own_key = shepard_key,
    .defaults = shepard_defaults,
    .check = shepard_check,
    .canonical = shepard_canonical,
    .build = shepard_prepare, /* before the device: the GPU sums its fits */
    .release = shepard_release,
    .cpu_index = gk_index_tree,
    .cpu_tile = shepard_tile,
    .gpu_describe = shepard_gpu,
};
