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
 * its points in the search tree's order, which the points alone fix: the
 * same bytes for any threads and tiles.
 */
#include "core/method.h"
#include "search/index.h"
#include "search/kdtree.h"
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
 * forms, a[] filled either way). */
static int fit_point(const gk_points *p, const double *f, int k, const int *nb, const double *d2,
                     int L, int nq, int nw, double a[5], double *rsq)
{
    memset(a, 0, 5 * sizeof *a);
    if (L == 0) { /* alone: a constant, everywhere (plain Shepard weights) */
        *rsq = INFINITY;
        return 1;
    }
    const int lmax = L, nqw = nq > nw ? nq : nw;
    double rs = 0.0, rsold, sum = 0.0, rws = 0.0, rq = 0.0, avsq = 0.0;
    int lnp = 0, neq = 0;
    for (;;) {
        sum += rs;
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
     * point k if they carry one, else the constant f_k */
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
        free(st);
    }
    job->state = NULL;
}

static int shepard_prepare(gk_job *job)
{
    const gk_points *p = job->pts;
    const size_t n = p->n;
    if (gk_index_tree(job))
        return gk_error(job->ctx, GK_ERR_NOMEM,
                        "shepard: out of memory for the search tree of %zu points", n);
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
    int failed = 0;
    /* each point's value: the mean of the points at its place (in input
     * order), so that coincident points are one node */
#pragma omp parallel num_threads(threads) reduction(| : failed)
    {
        int idx[SH_LMAX + 64], at_k[SH_LMAX + 64];
        double d2[SH_LMAX + 64];
#pragma omp for schedule(dynamic, 256)
        for (long k = 0; k < (long)n; k++) {
            /* the coincident points first: they rank before every other */
            int m = gk_kdtree_knn(job->tree, p->x[k], p->y[k], SH_LMAX + 64, INFINITY, idx, d2);
            double s = 0.0;
            int c = 0;
            for (int i = 0; i < m && d2[i] == 0.0; i++)
                at_k[c++] = idx[i];
            if (c == m && m == SH_LMAX + 64) { /* more coincident points than room */
                failed = 1;
                continue;
            }
            for (int i = 0; i < c; i++) /* idx of equal d2 come by index: a fixed order */
                s += p->z[at_k[i]];
            st->f[k] = s / c;
        }
    }
    double rmax = 0.0;
#pragma omp parallel num_threads(threads) reduction(| : failed) reduction(max : rmax)
    {
        int idx[SH_LMAX + 64], nb[SH_LMAX];
        double d2[SH_LMAX + 64], nd[SH_LMAX];
#pragma omp for schedule(dynamic, 256)
        for (long k = 0; k < (long)n; k++) {
            int want = SH_LMAX + 64, m;
            m = gk_kdtree_knn(job->tree, p->x[k], p->y[k], want, INFINITY, idx, d2);
            int L = 0, skip = 0;
            for (int i = 0; i < m && L < SH_LMAX; i++) {
                if (d2[i] == 0.0) { /* k itself, and the points at its place */
                    skip++;
                    continue;
                }
                nb[L] = idx[i], nd[L] = d2[i], L++;
            }
            if (skip == m && m == want) { /* only coincident points in reach */
                failed = 1;
                continue;
            }
            fit_point(p, st->f, (int)k, nb, nd, L, sp->nq, sp->nw, st->a[k], &st->rsq[k]);
            rmax = fmax(rmax, st->rsq[k]);
        }
    }
    if (failed)
        return gk_error(job->ctx, GK_ERR_ARG,
                        "shepard: more than %d points at one place: merge them first",
                        SH_LMAX + 63);
    st->rmax = sqrt(rmax);
    return GK_OK;
}

/* One node: 1 with *v, 0 nodata, -1 out of memory. */
static int shepard_node(const gk_job *job, double nx, double ny, double hit2, gk_scratch *s,
                        double *v)
{
    const shepard_state *st = state_of(job);
    const gk_points *p = job->pts;
    const double s2 = job->alg.smoothing * job->alg.smoothing;
    (void)hit2;
    /* the points whose radius may hold the node, in the search tree's order,
     * which the points alone fix (kdtree.h: the same layout for any thread
     * count): fixed sums. A point alone has an unbounded radius: then every
     * point, in input order. */
    size_t n;
    if (!isfinite(st->rmax)) {
        if (gk_scratch_reserve(s, p->n))
            return -1;
        for (n = 0; n < p->n; n++)
            s->idx[n] = (int)n;
    } else {
        for (;;) {
            n = gk_kdtree_radius(job->tree, nx, ny, st->rmax * st->rmax, s->idx, s->d2, s->cap);
            if (n <= s->cap)
                break;
            if (gk_scratch_reserve(s, n))
                return -1;
        }
    }
    double sw = 0.0, swq = 0.0;
    for (size_t i = 0; i < n; i++) {
        const int k = s->idx[i];
        const double dx = nx - p->x[k], dy = ny - p->y[k], ds = dx * dx + dy * dy + s2;
        const double rs = st->rsq[k];
        if (!(ds < rs))
            continue;
        if (ds == 0.0) { /* on the point: its value (its place's mean) */
            *v = st->f[k];
            return 1;
        }
        double w;
        if (isinf(rs)) {
            w = 1.0 / ds;
        } else { /* ((R - d) / (R d))^2 as QSHEP2 writes it */
            const double rds = rs * ds, rd = sqrt(rds);
            w = (rs + ds - rd - rd) / rds;
        }
        const double *a = st->a[k];
        sw += w;
        swq += w * (a[0] * dx * dx + a[1] * dx * dy + a[2] * dy * dy + a[3] * dx + a[4] * dy +
                    st->f[k]);
    }
    if (sw == 0.0)
        return 0;
    *v = swq / sw;
    return 1;
}

static uint64_t shepard_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    return gk_nb_run_tile(job, t, out, s, shepard_node);
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
    .prepare = shepard_prepare,
    .release = shepard_release,
    .cpu_index = gk_index_tree,
    .cpu_tile = shepard_tile,
};
