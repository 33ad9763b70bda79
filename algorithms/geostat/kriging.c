/*
 * geostat/kriging.c - kriging: the job's preparation (model, drift, block
 * discretisation) and local neighbourhoods, gstat's rules (geostatistics.md
 * sections 5 and 6):
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
 * round differently from one tiling to the next). The dense work (covariances, Cholesky,
 * solves) is in kriging_kernels.c. The k nearest of a node are searched
 * within a bound from the thread's previous node (its k-th distance plus the
 * step), by a radius query and a ranking of the few candidates. A singular system (coincident points and no
 * nugget, collinear points under a linear drift, fewer points than drift
 * terms) gives nodata and is counted, as gstat skips it with a warning.
 * Nothing here allocates per node: everything lives in the thread's scratch.
 */
#include "kriging.h"
#include "kriging_kernels.h"
#include "core/method.h"
#include "search/index.h"
#include "search/neighbours.h"
#include "gridkit_geostat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* gstat's 4-point Gauss-Legendre rule on [-1/2, 1/2] (block.c). */
static const double GAUSS_X[4] = {-0.4305681558, -0.1699905218, 0.1699905218, 0.4305681558};
static const double GAUSS_W[4] = {0.1739274226, 0.3260725774, 0.3260725774, 0.1739274226};

#define CHOL_TOL 1e-12 /* pivot / original diagonal below this: singular */
#define SCHUR_TOL 1e-11

/* ---- small dense kernels ----------------------------------------------- */

/* Dot product with four partial sums (vectorises without -ffast-math). */
static inline double dot(const double *x, const double *y, int n)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int k = 0;
    for (; k + 4 <= n; k += 4) {
        s0 += x[k] * y[k];
        s1 += x[k + 1] * y[k + 1];
        s2 += x[k + 2] * y[k + 2];
        s3 += x[k + 3] * y[k + 3];
    }
    for (; k < n; k++)
        s0 += x[k] * y[k];
    return (s0 + s2) + (s1 + s3);
}

int gk_krige_chol(double *a, int n, int ld, double *inv, double tol)
{
    for (int i = 0; i < n; i++) {
        double *ri = a + (size_t)i * ld;
        for (int j = 0; j < i; j++) {
            const double *rj = a + (size_t)j * ld;
            ri[j] = (ri[j] - dot(ri, rj, j)) * inv[j];
        }
        double d = ri[i], s = d - dot(ri, ri, i);
        if (!(s > tol * fabs(d)))
            return -1;
        ri[i] = sqrt(s);
        inv[i] = 1.0 / ri[i];
    }
    return 0;
}

void gk_krige_fwd(const double *l, int n, int ld, const double *inv, double *b)
{
    for (int i = 0; i < n; i++) {
        b[i] = (b[i] - dot(l + (size_t)i * ld, b, i)) * inv[i];
    }
}

void gk_krige_bwd(const double *l, int n, int ld, const double *inv, double *b)
{
    for (int i = n - 1; i >= 0; i--) {
        b[i] *= inv[i];
        double bi = b[i];
        const double *ri = l + (size_t)i * ld;
        for (int k = 0; k < i; k++)
            b[k] -= ri[k] * bi;
    }
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

/* ---- preparation --------------------------------------------------------- */

/* model=auto: gstat's sample variogram with its defaults, and a nugget plus
 * a spherical or an exponential structure fitted by fit.variogram's default
 * (method 7); the one with the smaller weighted SSErr is kept. */
static int fit_auto(gk_context *ctx, const gk_points *pts, gk_vmodel *out)
{
    gk_vgm_options vo;
    memset(&vo, 0, sizeof vo);
    gk_vgm v;
    memset(&v, 0, sizeof v);
    if (gk_variogram(ctx, pts, &vo, &v))
        return gk_error(ctx, gk_errno(ctx), "model=auto: %s", gk_errmsg(ctx));
    static const gk_vm_type cand[] = {GK_VM_SPH, GK_VM_EXP};
    double best = INFINITY;
    char why[512] = "";
    for (size_t c = 0; c < sizeof cand / sizeof cand[0]; c++) {
        gk_vmodel m;
        memset(&m, 0, sizeof m);
        m.n = 2;
        m.s[0] = (gk_vm_structure){GK_VM_NUG, NAN, 0, 0, 0, 1};
        m.s[1] = (gk_vm_structure){cand[c], NAN, NAN, 0, 0, 1};
        gk_fit_options fo = {7, 1, 1};
        gk_fit_result fr;
        memset(&fr, 0, sizeof fr);
        if (gk_variogram_fit(ctx, &v, 0, &m, &fo, &fr)) {
            snprintf(why, sizeof why, "%s", gk_errmsg(ctx));
            gk_error_clear(ctx);
            continue;
        }
        if (fr.sserr < best && m.n >= 1) {
            best = fr.sserr;
            *out = m;
        }
    }
    gk_vgm_free(&v);
    if (!isfinite(best))
        return gk_error(ctx, GK_ERR_ARG,
                        "model=auto: no variogram model could be fitted (%s): give model= or "
                        "variogram=",
                        why[0] ? why : "no lag class with pairs");
    return GK_OK;
}

static double nugget_of(const gk_vmodel *m)
{
    double c = 0.0;
    for (int i = 0; i < m->n; i++)
        if (m->s[i].type == GK_VM_NUG)
            c += m->s[i].psill;
    return c;
}

int gk_kriging_prepare(gk_job *job)
{
    gk_context *ctx = job->ctx;
    const gk_kriging_params *kp = &job->alg.krige;
    const gk_algorithm *a = &job->alg;
    const gk_points *pts = job->pts;
    gk_krige_state *k = calloc(1, sizeof *k);
    if (!k)
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory");
    job->krige = k;
    job->nbands = kp->variance ? 2 : 1;

    if (kp->variogram_file[0] && kp->model.n == 0)
        return gk_error(ctx, GK_ERR_ARG,
                        "kriging: variogram=%s was not read (the caller must load it with "
                        "gk_kriging_set_model)",
                        kp->variogram_file);
    k->model = kp->model;
    if (kp->model_auto && fit_auto(ctx, pts, &k->model))
        return gk_errno(ctx);
    if (gk_vmodel_check(ctx, &k->model))
        return gk_errno(ctx);
    k->ns = k->model.n;
    for (int i = 0; i < k->ns; i++) {
        const gk_vm_structure *s = &k->model.s[i];
        gk_krige_struct *st = &k->st[i];
        st->s = s;
        st->type = s->type;
        st->psill = s->psill;
        st->range = s->range;
        st->aniso = !(s->anis_ratio == 1.0 || s->type == GK_VM_NUG);
        if (st->aniso) { /* as gk_vm_distance (gstat's get_tm, 2-D) */
            double p = s->anis_angle;
            double alpha = (p < 270.0 ? 90.0 - p : 450.0 - p) * (M_PI / 180.0);
            st->sa = sin(alpha);
            st->ca = cos(alpha);
            st->f = 1.0 / (s->anis_ratio > 1e-30 ? s->anis_ratio : 1e-30);
        }
    }
    k->type = kp->type;
    k->mean = kp->mean;
    gk_kk_init();

    double x0, y0, x1, y1;
    if (gk_points_bounds(pts, &x0, &y0, &x1, &y1))
        return gk_errno(ctx);
    double diag = hypot(x1 - x0, y1 - y0);
    if (gk_vmodel_bounded(&k->model)) {
        k->A = gk_vmodel_sill(&k->model);
        if (!(k->A > 0))
            return gk_error(ctx, GK_ERR_ARG, "kriging: the variogram model has a zero sill");
    } else {
        if (k->type == GK_KRIGE_SIMPLE)
            return gk_error(ctx, GK_ERR_ARG,
                            "kriging: simple kriging needs a bounded variogram model");
        /* A pseudo-sill above any semivariance met between the points (and
         * the targets near them): weights and variances do not depend on it. */
        double minratio = 1.0;
        for (int i = 0; i < k->model.n; i++)
            if (k->model.s[i].anis_ratio < minratio)
                minratio = k->model.s[i].anis_ratio;
        double h = (diag > 0 ? diag : 1.0) * 2.0 / minratio;
        k->A = 2.0 * gk_vmodel_gamma_h(&k->model, h);
        if (!(k->A > 0) || !isfinite(k->A))
            k->A = 1.0;
    }

    /* Block discretisation: gstat's 4 x 4 Gauss points and weights. */
    k->nb = 1;
    k->bw[0] = 1.0;
    double nug = nugget_of(&k->model);
    if (kp->block_w > 0) {
        k->nb = 16;
        for (int i = 0, b = 0; i < 4; i++)
            for (int j = 0; j < 4; j++, b++) {
                k->bdx[b] = kp->block_w * GAUSS_X[i];
                k->bdy[b] = kp->block_h * GAUSS_X[j];
                k->bw[b] = GAUSS_W[i] * GAUSS_W[j];
            }
        /* Block-to-block average; like gstat, the nugget does not enter it. */
        double c = 0.0;
        for (int b = 0; b < 16; b++)
            for (int e = 0; e < 16; e++)
                c += k->bw[b] * k->bw[e] *
                     (b == e ? k->A - nug
                             : gk_krige_cov(k, k->bdx[b] - k->bdx[e], k->bdy[b] - k->bdy[e]));
        k->c00 = c;
    } else {
        k->c00 = k->A;
    }

    k->poly = kp->drift == GK_DRIFT_LINEAR ? 2 : kp->drift == GK_DRIFT_QUADRATIC ? 5 : 0;
    k->nr = kp->n_drift_rasters;
    k->p = k->type == GK_KRIGE_SIMPLE ? 0 : 1 + k->poly + k->nr;
    /* The drift's coefficients must be estimable: at least as many points as terms. */
    if (pts->n < (size_t)k->p)
        return gk_error(ctx, GK_ERR_ARG,
                        "kriging: %zu point%s for a drift of %d terms: give at least %d points "
                        "or a simpler drift",
                        pts->n, pts->n == 1 ? "" : "s", k->p, k->p);
    if (a->max_points > 0 && a->max_points < k->p)
        return gk_error(ctx, GK_ERR_ARG,
                        "kriging: max_points=%d is fewer than the %d drift terms", a->max_points,
                        k->p);
    k->ready = k->nr == 0;
    k->global = a->max_points == 0 && kp->maxdist == 0 && a->max_points_per_quadrant == 0;
    /* on the GPU, the module factorises the system (krige_global.cu) */
    if (k->global && k->ready && !job->gpu && gk_krige_global_build(job))
        return gk_errno(ctx);
    return GK_OK;
}

void gk_kriging_free(gk_job *job)
{
    gk_krige_state *k = job->krige;
    if (!k)
        return;
    gk_krige_global_free(k->g);
    free(k->gpts);
    free(k);
    job->krige = NULL;
}

const gk_vmodel *gk_job_kriging_model(const gk_job *job)
{
    return job->krige ? &job->krige->model : NULL;
}

int gk_job_set_drift(gk_job *job, int n_drift, const double *values, gk_drift_sampler_fn sampler,
                     void *user)
{
    gk_context *ctx = job->ctx;
    gk_krige_state *k = job->krige;
    if (job->alg.kind != GK_ALG_KRIGING || !k)
        return gk_error(ctx, GK_ERR_ARG, "external drift is for kriging only");
    if (n_drift != k->nr)
        return gk_error(ctx, GK_ERR_ARG,
                        "kriging: %d external drift variables given, the algorithm has %d "
                        "drift_raster= keys",
                        n_drift, k->nr);
    if (n_drift == 0)
        return GK_OK;
    if (!values || !sampler)
        return gk_error(ctx, GK_ERR_ARG, "kriging: external drift needs values and a sampler");
    size_t n = job->pts->n;
    free(k->gpts);
    k->gpts = malloc((size_t)n_drift * n * sizeof *k->gpts);
    if (!k->gpts)
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory for the external drift");
    /* Standardised covariates: same predictions, a better conditioned S. */
    for (int r = 0; r < n_drift; r++) {
        const double *g = values + (size_t)r * n;
        double s = 0.0, s2 = 0.0;
        for (size_t i = 0; i < n; i++) {
            if (!isfinite(g[i]))
                return gk_error(ctx, GK_ERR_ARG,
                                "kriging: drift variable %d has no value at point %zu (%.15g, "
                                "%.15g)",
                                r + 1, i + 1, job->pts->x[i], job->pts->y[i]);
            s += g[i];
        }
        double mean = s / (double)n;
        for (size_t i = 0; i < n; i++)
            s2 += (g[i] - mean) * (g[i] - mean);
        double sd = sqrt(s2 / (double)n);
        if (!(sd > 1e-12 * (fabs(mean) + 1e-300)))
            return gk_error(ctx, GK_ERR_ARG,
                            "kriging: drift variable %d is constant at the data points: it "
                            "cannot be told apart from the mean",
                            r + 1);
        k->gmean[r] = mean;
        k->gscale[r] = sd;
        for (size_t i = 0; i < n; i++)
            k->gpts[(size_t)r * n + i] = (g[i] - mean) / sd;
    }
    k->sampler = sampler;
    k->sampler_user = user;
    k->ready = 1;
    if (k->global && !job->gpu) { /* on the GPU: krige_global.cu, at the first tile */
        gk_krige_global_free(k->g);
        k->g = NULL;
        k->global_singular = 0;
        if (gk_krige_global_build(job))
            return gk_errno(ctx);
    }
    return GK_OK;
}

/* ---- local neighbourhoods -------------------------------------------------- */

/* gstat's quadrant of (dx, dy) = point - target (select.c, "pinwheel"). */
static inline int quadrant(double dx, double dy)
{
    int x = dy < 0 ? dx > 0 : dx >= 0;
    int y = dx < 0 ? dy >= 0 : dy > 0;
    return x | (y << 1);
}

/* The last k-nearest search of a thread: its node and the squared distance
 * of its k-th point, so that the next search starts with a bound. */
typedef struct {
    int valid;
    double x, y, d2k;
} knn_prev;

static int in_quadrant(const void *q, double dx, double dy)
{
    return quadrant(dx, dy) == *(const int *)q;
}

/* max_points_per_quadrant over every point (no max_points, no radius): each
 * quadrant's omax nearest straight from the k-d tree, merged by (d2, index),
 * which is the filter's answer over the whole set sorted (select_points's
 * general path sorts all n points a node: seconds at a million). The count
 * before the filter, for min_points, is every point. Pinwheel quadrant q lies
 * in the closed quadrant q, whose boxes alone the tree visits: a node beyond
 * the points' hull finds its empty quadrants at once. */
static long select_every_quadrant(const gk_job *job, double nx, double ny, gk_scratch *s)
{
    const size_t n = job->pts->n;
    if (n < (size_t)job->alg.min_points)
        return 0;
    size_t k = (size_t)job->alg.max_points_per_quadrant;
    if (k > n)
        k = n;
    if (gk_scratch_reserve(s, 8 * k))
        return -1;
    int *qi = s->idx + 4 * k, got[4], at[4] = {0, 0, 0, 0};
    double *qd = s->d2 + 4 * k;
    for (int q = 0; q < 4; q++)
        got[q] = gk_kdtree_knn_quadrant(job->tree, nx, ny, q | GK_KD_CLOSED, in_quadrant, &q,
                                        (int)k, INFINITY, qi + q * k, qd + q * k);
    long m = 0;
    for (;;) {
        int b = -1;
        for (int q = 0; q < 4; q++) {
            if (at[q] == got[q])
                continue;
            if (b < 0) {
                b = q;
                continue;
            }
            size_t c = q * k + at[q], o = b * k + at[b];
            if (qd[c] < qd[o] || (qd[c] == qd[o] && qi[c] < qi[o]))
                b = q;
        }
        if (b < 0)
            return m;
        s->idx[m] = qi[b * k + at[b]];
        s->d2[m] = qd[b * k + at[b]];
        at[b]++;
        m++;
    }
}

/* The selection around (nx, ny) into s->idx[0..m), sorted by (d2, index).
 * Returns m (0 when fewer than min_points), or -1 when out of memory. */
static long select_points(const gk_job *job, double nx, double ny, gk_scratch *s, knn_prev *pv)
{
    const gk_algorithm *a = &job->alg;
    const gk_kriging_params *kp = &a->krige;
    double r2 = kp->maxdist > 0 ? kp->maxdist * kp->maxdist : INFINITY;
    long m;
    if (a->max_points_per_quadrant > 0 && a->max_points == 0 && kp->maxdist == 0)
        return select_every_quadrant(job, nx, ny, s);
    if (a->max_points > 0 || kp->maxdist == 0) {
        size_t kmax = a->max_points > 0 ? (size_t)a->max_points : job->pts->n;
        if (kmax > job->pts->n)
            kmax = job->pts->n;
        size_t capc = 4 * kmax + 16; /* candidates from a radius search */
        if (gk_scratch_reserve(s, kmax + capc))
            return -1;
        /* The previous node's k points lie within its k-th distance plus the
         * step, so that bound (with slack for rounding) loses none of the k
         * nearest and prunes the search; too few found: search again. */
        double b2 = r2;
        if (pv->valid) {
            double r = sqrt(pv->d2k) + hypot(nx - pv->x, ny - pv->y);
            b2 = r * r * (1.0 + 1e-9);
            if (!(b2 < r2))
                b2 = r2;
        }
        m = -1;
        if (pv->valid && kmax <= 128) {
            /* Near the previous node the bound is tight: the points within
             * it, ranked, are cheaper than the k-nearest search's insertions. */
            size_t nc = gk_kdtree_radius(job->tree, nx, ny, b2, s->idx + kmax, s->d2 + kmax, capc);
            if (nc >= kmax && nc <= capc) {
                gk_kk_select(s->idx + kmax, s->d2 + kmax, (int)nc, (int)kmax, s->idx, s->d2);
                m = (long)kmax;
            }
        }
        if (m < 0)
            m = gk_kdtree_knn(job->tree, nx, ny, (int)kmax, b2, s->idx, s->d2);
        if ((size_t)m < kmax && b2 < r2)
            m = gk_kdtree_knn(job->tree, nx, ny, (int)kmax, r2, s->idx, s->d2);
        pv->valid = (size_t)m == kmax;
        if (pv->valid) {
            pv->x = nx;
            pv->y = ny;
            pv->d2k = s->d2[m - 1];
        }
    } else {
        m = gk_nb_circle(job, nx, ny, r2, s);
        if (m == GK_NB_NOMEM)
            return -1;
        gk_nb_sort(s->idx, s->d2, (size_t)m);
    }
    if (m < a->min_points)
        return 0;
    int omax = a->max_points_per_quadrant;
    if (omax > 0) {
        int cnt[4] = {0, 0, 0, 0};
        long o = 0;
        for (long i = 0; i < m; i++) {
            int q = quadrant(job->pts->x[s->idx[i]] - nx, job->pts->y[s->idx[i]] - ny);
            if (cnt[q] < omax) {
                cnt[q]++;
                s->idx[o] = s->idx[i];
                s->d2[o] = s->d2[i];
                o++;
            }
        }
        m = o;
    }
    return m;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The per-thread workspace, carved out of the scratch's second buffers: the
 * tile's node covariates first (stable when the rest is re-laid out), then
 * the system for up to M points. */
typedef struct {
    int M;           /* capacity in points */
    size_t head;     /* doubles before the system (node covariates, node x, y) */
    double *L;       /* M x M, column-major lower triangle (kriging_kernels.h) */
    double *inv;     /* M: 1 / diag(L) */
    double *w;       /* M: L^-1 z (or L^-1 (z - mean)); B follows it */
    double *B;       /* P columns of M: L^-1 F */
    double *a;       /* M: L^-1 c0 */
    double *px, *py, *h; /* M each: the selection's coordinates, scratch */
    knn_prev pv, pvrow; /* the last search, and the first of the row */
    double *S, *Sinv, *Btw, *f0, *r, *t; /* P x P, P, P, P, P, P */
    /* cache: the last factorised selection */
    int *cidx;       /* in factor order (sorted by index) */
    int *sidx;       /* the same set sorted by index, to diff against */
    long cm;
    int valid, singular;
    double ox, oy, sc; /* drift origin and scale of the cached selection */
    /* what the next selection reuses (a pair's covariance is the same double
     * in any system; the factor's leading block depends on the matrix's
     * leading block alone): the same doubles as computing everything */
    double *Ac, *Acn;   /* M x M: the covariances of cidx's set, and the next */
    int ac_valid;       /* Ac holds cidx[0..cm)'s */
    int l_valid;        /* L holds cidx[0..cm)'s whole factor */
    int *pos;           /* M: a selected point's place in the previous set, or -1 */
    double *nxs, *nys, *tmpv; /* M each: the points not in the previous set */
} kws;

static int ws_layout(kws *ws, gk_scratch *s, int M)
{
    const int P = GK_KRIGE_MAX_P;
    M = (M + 7) & ~7; /* whole vectors of 8 (kriging_kernels.h) */
    size_t need = ws->head + 3 * (size_t)M * M + (size_t)M * (9 + P) + (size_t)P * P + 5 * P;
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
    ws->Acn = p, p += (size_t)M * M;
    ws->nxs = p, p += M;
    ws->nys = p, p += M;
    ws->tmpv = p;
    ws->cidx = s->idx2;
    ws->sidx = s->idx2 + M; /* idx2 holds as many ints as d2b doubles (>= M^2) */
    ws->pos = s->idx2 + 2 * M;
    ws->valid = ws->ac_valid = ws->l_valid = 0;
    return 0;
}

static void finish(const gk_job *job, const gk_krige_state *k, kws *ws, long m);
static void schur(const gk_krige_state *k, kws *ws, long m);

/* The covariances of the selection idx[0..m) into ws->Acn: copied from ws->Ac
 * for the pairs of the previous selection (pos[]), in runs; for each new
 * point one column over every point (a distance is the same double either
 * way round: (-d)^2 = d^2), written to its row and its column. */
static void covariances(const gk_krige_state *k, kws *ws, long m, int reuse)
{
    int M = ws->M;
    double *An = ws->Acn;
    if (!reuse) {
        gk_kk_cov_lower(k, ws->px, ws->py, (int)m, An, M, ws->h);
        return;
    }
    const int *pos = ws->pos;
    for (long j = 0; j < m; j++) {
        double *c = An + (size_t)j * M;
        c[j] = k->A;
        if (pos[j] < 0)
            continue;
        const double *o = ws->Ac + (size_t)pos[j] * M;
        for (long i = j + 1; i < m;) { /* runs of old points, consecutive in both */
            if (pos[i] < 0) {
                i++;
                continue;
            }
            long e = i + 1;
            while (e < m && pos[e] == pos[e - 1] + 1)
                e++;
            memcpy(c + i, o + pos[i], (size_t)(e - i) * sizeof *c);
            i = e;
        }
    }
    for (long r = 0; r < m; r++) {
        if (pos[r] >= 0)
            continue;
        double *col = ws->tmpv;
        gk_kk_cov0(k, ws->px, ws->py, (int)m, ws->px[r], ws->py[r], col, ws->h);
        for (long j = 0; j < r; j++) /* row r of the columns before it */
            An[(size_t)j * M + r] = col[j];
        memcpy(An + (size_t)r * M + r + 1, col + r + 1, (size_t)(m - r - 1) * sizeof *col);
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
    for (long j = 0; j < m; j++) { /* the factor's rows from p0 (and j) on */
        long r0 = j > p0 ? j : p0;
        memcpy(ws->L + (size_t)j * M + r0, ws->Acn + (size_t)j * M + r0,
               (size_t)(m - r0) * sizeof(double));
    }
    double *t = ws->Ac;
    ws->Ac = ws->Acn, ws->Acn = t;
    ws->ac_valid = 1;
    int bad = gk_kk_chol_from(ws->L, (int)m, M, ws->inv, CHOL_TOL, (int)p0);
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
    /* Drift origin and scale: the selection's centroid and extent. */
    double ox = 0.0, oy = 0.0, sc = 0.0;
    for (long i = 0; i < m; i++)
        ox += X[idx[i]], oy += Y[idx[i]];
    ox /= (double)m;
    oy /= (double)m;
    for (long i = 0; i < m; i++) {
        double ex = X[idx[i]] - ox, ey = Y[idx[i]] - oy, d = sqrt(ex * ex + ey * ey);
        if (d > sc)
            sc = d;
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
    if (gk_krige_chol(ws->S, p, p, ws->Sinv, SCHUR_TOL))
        ws->singular = 1;
}

/* One node: 1 with est/var, 0 nodata, 2 singular (nodata, counted), -1 no memory. */
static int local_node(const gk_job *job, const gk_krige_state *k, kws *ws, gk_scratch *s,
                      double nx, double ny, const double *g0, double *est,
                      double *var)
{
    long m = select_points(job, nx, ny, s, &ws->pv);
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
     * grid, and the result must not depend on the tiling (issue 22). */
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

int gk_kriging_covariates(const gk_job *job, const gk_tile *t, double *g0)
{
    const gk_krige_state *k = job->krige;
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

uint64_t gk_kriging_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    gk_krige_state *k = job->krige;
    const gk_grid *g = t->g;
    size_t T = (size_t)t->w * t->h;
    double nodata = job->alg.nodata;
    int want_var = job->nbands > 1;
    uint64_t nod = 0, sing = 0;

    kws ws;
    memset(&ws, 0, sizeof ws);
    ws.head = (size_t)k->nr * T + (k->nr ? 2 * T : 0);
    int M0 = job->alg.max_points;
    if (M0 <= 0 || (size_t)M0 > job->pts->n)
        M0 = job->pts->n < 16 ? (int)job->pts->n : 16;
    if (M0 < 1)
        M0 = 1;
    size_t gcols = 0; /* global: nodes per block */
    if (k->global) {
        /* the block's right-hand sides, node x, y, estimates and variances */
        gcols = gk_krige_global_block_cols(job, T);
        size_t need = ws.head + (job->pts->n + GK_KRIGE_MAX_P + 6) * gcols + 2 * job->pts->n;
        if (gk_scratch_reserve2(s, need))
            return UINT64_MAX;
    } else if (ws_layout(&ws, s, M0)) {
        return UINT64_MAX;
    }

    int tile_ok = k->ready && !k->global_singular;
    /* nr blocks of T, at the head of the workspace */
    if (tile_ok && k->nr > 0 && gk_kriging_covariates(job, t, s->d2b))
        tile_ok = 0;
    if (!tile_ok) {
        for (size_t q = 0; q < T * job->nbands; q++)
            out[q] = nodata;
        if (k->global_singular) {
#pragma omp atomic
            ((gk_job *)job)->singular_nodes += T;
        }
        return T;
    }

    if (k->global) {
        double *bx = s->d2b + ws.head, *by = bx + gcols, *be = by + gcols, *bv = be + gcols;
        double *bws = bv + gcols;
        for (size_t q0 = 0; q0 < T; q0 += gcols) {
            int m = (int)(T - q0 < gcols ? T - q0 : gcols);
            for (int c = 0; c < m; c++) {
                size_t q = q0 + (size_t)c;
                bx[c] = gk_grid_node_x(g, t->x0 + (int)(q % (size_t)t->w));
                by[c] = gk_grid_node_y(g, t->y0 + (int)(q / (size_t)t->w));
            }
            gk_krige_global_block(job, m, bx, by, s->d2b + q0, T, be, want_var ? bv : NULL, bws);
            for (int c = 0; c < m; c++) {
                size_t q = q0 + (size_t)c;
                int ok = 1;
                for (int r = 0; r < k->nr; r++)
                    if (!isfinite(s->d2b[(size_t)r * T + q]))
                        ok = 0;
                if (ok && isfinite(be[c]) && (!want_var || isfinite(bv[c]))) {
                    out[q] = be[c];
                    if (want_var)
                        out[T + q] = bv[c];
                    continue;
                }
                out[q] = nodata;
                if (want_var)
                    out[T + q] = nodata;
                nod++;
                sing += ok;
            }
        }
        if (sing) {
#pragma omp atomic
            ((gk_job *)job)->singular_nodes += sing;
        }
        return nod;
    }

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
                out[q] = est;
                if (want_var)
                    out[T + q] = var;
            } else {
                out[q] = nodata;
                if (want_var)
                    out[T + q] = nodata;
                nod++;
                if (rc == 2)
                    sing++;
            }
        }
    }
    if (sing) {
#pragma omp atomic
        ((gk_job *)job)->singular_nodes += sing;
    }
    return nod;
}

/* ---- the registry's row ------------------------------------------------ */

static int kriging_prepare(gk_job *job)
{
    int rc = gk_method_tree(job);
    return rc ? rc : gk_kriging_prepare(job);
}

/* Global kriging with external drift rasters has no GPU path (the drift at
 * every node of one system). */
static int kriging_gpu_possible(const gk_algorithm *a)
{
    return !(a->krige.n_drift_rasters > 0 && a->max_points == 0);
}

static double kriging_cost(const gk_algorithm *a, double n, double area, double *setup_ns)
{
    double win, k;
    gk_cost_window(a, n, area, &win, &k);
    if (a->max_points <= 0 && !(a->krige.maxdist > 0))
        return INFINITY; /* one system of every point */
    if (a->max_points <= 0) /* every point within maxdist */
        k = fmin(n, n * M_PI * a->krige.maxdist * a->krige.maxdist / area);
    *setup_ns = n * GK_NS_TREE_PER_POINT;
    return 500.0 + 28.0 * k * k;
}

/* gstat's grammar (kriging_params.c); the neighbourhood is nmax = max_points,
 * nmin = min_points, omax = max_points_per_quadrant, maxdist its own. */
const gk_method gk_method_kriging = {
    .name = "kriging",
    .kind = GK_ALG_KRIGING,
    .parse = gk_kriging_parse,
    .prepare = kriging_prepare,
    .release = gk_kriging_free,
    .cpu_index = gk_index_tree,
    .cpu_tile = gk_kriging_tile,
    .gpu_describe = gk_kriging_gpu,
    .gpu_possible = kriging_gpu_possible,
    .gpu_krige = gk_kriging_gpu_params,
    .gpu_inputs = gk_kriging_gpu_covariates,
    .cost_ns = kriging_cost,
};
