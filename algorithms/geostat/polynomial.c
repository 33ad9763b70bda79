/* SPDX-License-Identifier: MIT */
/*
 * geostat/polynomial.c - -a polynomial: local and global polynomial surfaces
 * (Surfer's and ArcGIS's Local Polynomial, ArcGIS's Global Polynomial, the
 * trend surface), fitted by (weighted) least squares.
 *
 * A node's neighbourhood is gstat's (local_select.h: max_points, radius,
 * max_points_per_quadrant, min_points); with none of them every point is
 * used, once: the global fit is made when the job is prepared and evaluated
 * at each node. Unweighted, the value equals gstat's krige() with a formula
 * in the coordinates and no variogram (ordinary least squares, "trend
 * surface"). weight=power weights a point at distance d by (1 - d/R)^p, R
 * the search radius (Surfer's Local Polynomial); weight=gauss by
 * exp(-d^2 / (2 h^2)), h the bandwidth (a Gaussian kernel, as ArcGIS's).
 *
 * The terms are 1, u, v, u^2, uv, v^2, u^3, u^2 v, u v^2, v^3 up to the
 * degree, in coordinates centred on the node (on the points' centroid for
 * the global fit) and scaled by the neighbourhood's largest distance, so
 * that the value at the node is the constant term. The rows are taken in
 * input order and factorised by Householder QR: a node's doubles depend on
 * its neighbourhood alone, not on the path through the tile. A degree the
 * points cannot carry (fewer points than terms, collinear points: a column
 * of R below 1e-10 of its norm) falls back to the next lower degree, down
 * to the (weighted) mean, and is counted (gk_run_stats.lowered_nodes: the
 * band's metadata says how many); a node with no point of positive weight
 * is nodata.
 */
#include "core/method.h"
#include "kriging_kernels.h"
#include "local_select.h"
#include "polynomial_fit.h"
#include "search/gpu_window.h"
#include "search/index.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
    int degree;
    int weight;       /* GK_PF_W_* (polynomial_fit.h) */
    double power;     /* weight=power's exponent */
    double bandwidth; /* weight=gauss's h */
    double maxdist;   /* radius= (gstat's maxdist); 0: none */
    int have_power, have_bandwidth;
} poly_params;
GK_ALG_OWN_FITS(poly_params);

static poly_params *params_of(gk_algorithm *a) { return GK_ALG_OWN(poly_params, a); }
static const poly_params *cparams_of(const gk_algorithm *a)
{
    return GK_ALG_OWN(const poly_params, a);
}

static int n_terms(int degree) { return gk_pf_terms_of(degree); }

static int is_global(const gk_algorithm *a)
{
    return a->max_points == 0 && a->max_points_per_quadrant == 0 && cparams_of(a)->maxdist == 0;
}

/* ---- parameters -------------------------------------------------------- */

static int num(gk_context *ctx, const char *key, const char *s, double *out)
{
    return gk_param_finite(ctx, "polynomial", key, s, out);
}

static int count(gk_context *ctx, const char *key, const char *s, int *out)
{
    double v;
    return num(ctx, key, s, &v) ? GK_ERR_ARG : gk_param_count(ctx, "polynomial", key, v, out);
}

static int positive(gk_context *ctx, const char *key, const char *s, double *out)
{
    if (num(ctx, key, s, out))
        return GK_ERR_ARG;
    if (!(*out > 0))
        return gk_error(ctx, GK_ERR_ARG, "-a polynomial: %s=%s must be > 0", key, s);
    return GK_OK;
}

static int key(gk_context *ctx, const char *spec, const char *k, const char *val, gk_algorithm *a)
{
    poly_params *p = params_of(a);
    double d;
    if (!strcasecmp(k, "degree")) {
        if (num(ctx, k, val, &d))
            return GK_ERR_ARG;
        if (d != floor(d) || d < 0 || d > 3)
            return gk_error(ctx, GK_ERR_ARG, "-a polynomial: degree=%s must be 0, 1, 2 or 3", val);
        p->degree = (int)d;
    } else if (!strcasecmp(k, "weight")) {
        if (!strcasecmp(val, "none"))
            p->weight = GK_PF_W_NONE;
        else if (!strcasecmp(val, "power"))
            p->weight = GK_PF_W_POWER;
        else if (!strcasecmp(val, "gauss"))
            p->weight = GK_PF_W_GAUSS;
        else
            return gk_error(ctx, GK_ERR_ARG,
                            "-a polynomial: weight=%s must be none, power or gauss", val);
    } else if (!strcasecmp(k, "power")) {
        p->have_power = 1;
        return positive(ctx, "power", val, &p->power);
    } else if (!strcasecmp(k, "bandwidth")) {
        p->have_bandwidth = 1;
        return positive(ctx, "bandwidth", val, &p->bandwidth);
    } else if (!strcasecmp(k, "radius")) {
        return positive(ctx, "radius", val, &p->maxdist);
    } else if (!strcasecmp(k, "max_points")) {
        return count(ctx, "max_points", val, &a->max_points);
    } else if (!strcasecmp(k, "min_points")) {
        return count(ctx, "min_points", val, &a->min_points);
    } else if (!strcasecmp(k, "max_points_per_quadrant")) {
        return count(ctx, "max_points_per_quadrant", val, &a->max_points_per_quadrant);
    } else if (!strcasecmp(k, "nodata")) {
        a->nodata_given = 1;
        return num(ctx, "nodata", val, &a->nodata);
    } else {
        return gk_error(ctx, GK_ERR_ARG,
                        "-a %s: algorithm polynomial has no parameter '%s' (degree, weight, power, "
                        "bandwidth, max_points, min_points, radius, max_points_per_quadrant, "
                        "nodata)",
                        spec, k);
    }
    return GK_OK;
}

static int check(gk_context *ctx, gk_algorithm *a)
{
    poly_params *p = params_of(a);
    if (p->weight == GK_PF_W_POWER && !(p->maxdist > 0))
        return gk_error(ctx, GK_ERR_ARG,
                        "-a polynomial: weight=power weights by (1 - d/radius)^power: it needs "
                        "radius=");
    if (p->weight == GK_PF_W_GAUSS && !p->have_bandwidth)
        return gk_error(ctx, GK_ERR_ARG, "-a polynomial: weight=gauss needs bandwidth=");
    if (p->have_power && p->weight != GK_PF_W_POWER)
        return gk_error(ctx, GK_ERR_ARG, "-a polynomial: power= is for weight=power");
    if (p->have_bandwidth && p->weight != GK_PF_W_GAUSS)
        return gk_error(ctx, GK_ERR_ARG, "-a polynomial: bandwidth= is for weight=gauss");
    if (a->max_points && a->min_points > a->max_points)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a polynomial: min_points=%d is larger than max_points=%d", a->min_points,
                        a->max_points);
    return GK_OK;
}

static void canonical(gk_algorithm *a)
{
    const poly_params *p = cparams_of(a);
    gk_strbuf sb = {a->canonical, sizeof a->canonical, 0};
    static const char *const wname[] = {"none", "power", "gauss"};
    gk_strbuf_add(&sb, "polynomial:degree=%d:weight=%s", p->degree, wname[p->weight]);
    if (p->weight == GK_PF_W_POWER)
        gk_strbuf_add(&sb, ":power=%.17g", p->power);
    if (p->weight == GK_PF_W_GAUSS)
        gk_strbuf_add(&sb, ":bandwidth=%.17g", p->bandwidth);
    gk_strbuf_add(&sb, ":max_points=%d:min_points=%d", a->max_points, a->min_points);
    if (p->maxdist > 0)
        gk_strbuf_add(&sb, ":radius=%.17g", p->maxdist);
    if (a->max_points_per_quadrant)
        gk_strbuf_add(&sb, ":max_points_per_quadrant=%d", a->max_points_per_quadrant);
    gk_strbuf_add(&sb, ":nodata=%.17g", a->nodata);
}

static int poly_parse(gk_context *ctx, const char *spec, char *save, gk_algorithm *a)
{
    poly_params *p = params_of(a);
    memset(p, 0, sizeof *p);
    p->degree = 1;
    p->power = 2.0;
    a->max_points = a->min_points = a->max_points_per_quadrant = 0;
    if (gk_param_pairs(ctx, spec, save, a, key))
        return GK_ERR_ARG;
    if (check(ctx, a))
        return GK_ERR_ARG;
    canonical(a);
    return GK_OK;
}

/* ---- the fits (polynomial_fit.h) ------------------------------------------ */

/* The global fit (made by prepare), or a thread's last local set: its
 * points (in s->idx2, marked in mark), and its fit once made. */
typedef struct {
    int m;
    int slot; /* local fits: its place in the batch, -1 when fitted in f */
    gk_pf_set f;
    uint64_t *mark; /* local fits: the set's points, one bit each (NULL: none) */
} poly_last;

static void fit_set(const gk_points *pts, const int *idx, int m, int d, double *work, poly_last *f)
{
    gk_pf_fit_set(pts->x, pts->y, pts->z, idx, m, d, work, &f->f);
}

/* Unweighted local sets wait for their fits in batches of GK_PF_LANES of
 * one size, fitted side by side (gk_pf_fit_sets: a core's vector lanes,
 * about twice as fast as one at a time), and the nodes they serve wait
 * with them. A set's fit is the same bits in a batch or alone. */
enum { POLY_WAIT = 256 };
typedef struct {
    int n, m, cap; /* sets waiting, their size, room for sets of cap */
    int *idx;      /* GK_PF_LANES sets of m points, in index order */
    double *work;  /* gk_pf_fit_sets' */
    gk_pf_set f[GK_PF_LANES];
    int nw; /* nodes waiting */
    struct {
        size_t at; /* in the tile */
        double x, y;
        int set;
    } w[POLY_WAIT];
} poly_batch;

static int batch_room(poly_batch *b, int m)
{
    if (m <= b->cap)
        return 0;
    int *idx = realloc(b->idx, (size_t)GK_PF_LANES * m * sizeof *idx);
    if (idx)
        b->idx = idx;
    double *w = realloc(b->work, (size_t)GK_PF_LANES * (GK_PF_MAX_TERMS + 1) * m * sizeof *w);
    if (w)
        b->work = w;
    if (!idx || !w)
        return -1;
    b->cap = m;
    return 0;
}

/* A node's value from its set's fit: 1 with *v, 0 nodata. */
static int poly_value(const gk_pf_set *f, int degree, double nx, double ny, double *v, int *low)
{
    if (!f->terms)
        return 0;
    *v = gk_pf_eval(f, nx, ny);
    *low = f->degree < degree;
    return 1;
}

/* Fits the waiting sets, then writes the waiting nodes into out. */
static void batch_flush(const gk_job *job, poly_batch *b, poly_last *last, double *out,
                        uint64_t *nod, uint64_t *lowered)
{
    const gk_points *pts = job->pts;
    const int d = cparams_of(&job->alg)->degree;
    if (b->n == GK_PF_LANES)
        gk_pf_fit_sets(pts->x, pts->y, pts->z, b->idx, b->m, d, GK_PF_LANES, b->work, b->f);
    else
        for (int l = 0; l < b->n; l++)
            gk_pf_fit_sets(pts->x, pts->y, pts->z, b->idx + (size_t)l * b->m, b->m, d, 1, b->work,
                           b->f + l);
    for (int k = 0; k < b->nw; k++) {
        double v = job->alg.nodata;
        int low = 0;
        if (poly_value(&b->f[b->w[k].set], d, b->w[k].x, b->w[k].y, &v, &low) != 1 ||
            !isfinite(v)) {
            v = job->alg.nodata;
            (*nod)++;
        } else {
            *lowered += low;
        }
        out[b->w[k].at] = v;
    }
    if (last->slot >= 0)
        last->f = b->f[last->slot];
    last->slot = -1;
    b->n = b->nw = 0;
}

/* ---- the method ---------------------------------------------------------- */

static void poly_release(gk_job *job)
{
    free(job->state);
    job->state = NULL;
}

static int poly_prepare(gk_job *job)
{
    const gk_algorithm *a = &job->alg;
    const poly_params *p = cparams_of(a);
    if (!is_global(a) || p->weight != GK_PF_W_NONE)
        return gk_method_tree(job);
    /* the trend surface: one fit, centred on the points' centroid */
    const gk_points *pts = job->pts;
    const size_t n = pts->n;
    if (n > (size_t)INT32_MAX / (GK_PF_MAX_TERMS + 1))
        return gk_error(job->ctx, GK_ERR_NOMEM, "polynomial: %zu points are too many for one fit",
                        n);
    poly_last *g = calloc(1, sizeof *g);
    int *idx = malloc((n ? n : 1) * sizeof *idx);
    double *work = malloc((n ? n : 1) * (GK_PF_MAX_TERMS + 1) * sizeof *work);
    if (!g || !idx || !work) {
        free(g), free(idx), free(work);
        return gk_error(job->ctx, GK_ERR_NOMEM, "polynomial: out of memory for %zu points", n);
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = (int)i;
    if (n)
        fit_set(pts, idx, (int)n, p->degree, work, g);
    free(idx);
    free(work);
    job->state = g;
    return GK_OK;
}

static void insertion_sort(int *v, long m)
{
    for (long i = 1; i < m; i++) {
        int x = v[i];
        long j = i - 1;
        for (; j >= 0 && v[j] > x; j--)
            v[j + 1] = v[j];
        v[j + 1] = x;
    }
}

static void sort_ints(int *v, long m, int *tmp)
{
    if (m <= 128)
        gk_kk_sort_idx(v, (int)m, tmp);
    else
        insertion_sort(v, m); /* rare: a radius holding many points */
}

static int marked(const uint64_t *mark, int i) { return (int)(mark[i >> 6] >> (i & 63)) & 1; }

/* 1 when idx[0..m) is the last set (held[0..last->m), in input order), as
 * for most nodes. Otherwise 0, and it becomes the last set: idx in input
 * order (a set one step on keeps the points both hold in the order they
 * had, the few new ones merged in: cheaper than sorting it), held and the
 * marks with it. */
static int same_or_next(poly_last *last, int *held, int *idx, long m, int *tmp)
{
    enum { FEW = 8 };
    int fresh[FEW];
    long nf = 0, kept = 0;
    if (m == last->m) {
        for (long i = 0; i < m; i++) {
            if (marked(last->mark, idx[i]))
                kept++;
            else if (nf < FEW)
                fresh[nf++] = idx[i];
        }
        if (kept == m)
            return 1;
    }
    for (long i = 0; i < last->m; i++)
        last->mark[held[i] >> 6] &= ~(UINT64_C(1) << (held[i] & 63));
    for (long i = 0; i < m; i++)
        last->mark[idx[i] >> 6] |= UINT64_C(1) << (idx[i] & 63);
    if (m == last->m && kept + nf == m) {
        insertion_sort(fresh, nf); /* the few new ones in order */
        long o = 0, f = 0;
        for (long i = 0; i < m; i++) {
            const int h = held[i];
            if (!marked(last->mark, h))
                continue; /* left the set */
            while (f < nf && fresh[f] < h)
                idx[o++] = fresh[f++];
            idx[o++] = h;
        }
        while (f < nf)
            idx[o++] = fresh[f++];
    } else {
        sort_ints(idx, m, tmp); /* input order: the same set gives the same doubles */
    }
    memcpy(held, idx, (size_t)m * sizeof *idx);
    last->m = (int)m;
    return 0;
}

/* One node of a local fit: 1 with *v, 0 nodata, -1 out of memory, 2 waiting
 * in the batch for its set's fit (written to out[at] by batch_flush). */
static int local_node(const gk_job *job, const poly_params *p, gk_scratch *s, gk_local_prev *pv,
                      poly_last *last, poly_batch *b, double *out, size_t at, double nx, double ny,
                      double *v, int *lowered, uint64_t *nod, uint64_t *nlow)
{
    const gk_algorithm *a = &job->alg;
    const gk_local_nb nb = {a->max_points, a->min_points, a->max_points_per_quadrant, p->maxdist};
    long m = gk_local_select(job, &nb, nx, ny, s, pv);
    if (m <= 0)
        return (int)m;
    if (gk_scratch_reserve2(s, (size_t)m * (GK_PF_MAX_TERMS + 2) + 128))
        return -1;
    const gk_points *pts = job->pts;
    int *idx = s->idx, tmp[128];
    double *w = s->d2b, *work = s->d2b + m;
    if (p->weight == GK_PF_W_NONE) {
        if (!same_or_next(last, s->idx2, idx, m, tmp)) {
            if (b->n == GK_PF_LANES || (b->n && b->m != m))
                batch_flush(job, b, last, out, nod, nlow);
            if (batch_room(b, (int)m))
                return -1;
            memcpy(b->idx + (size_t)b->n * m, idx, (size_t)m * sizeof *idx);
            b->m = (int)m;
            last->slot = b->n++;
        }
        if (last->slot < 0)
            return poly_value(&last->f, p->degree, nx, ny, v, lowered);
        b->w[b->nw].at = at;
        b->w[b->nw].x = nx;
        b->w[b->nw].y = ny;
        b->w[b->nw].set = last->slot;
        if (++b->nw == POLY_WAIT)
            batch_flush(job, b, last, out, nod, nlow);
        return 2;
    }
    /* weighted: the weights are the node's, so is the fit (centred on it) */
    sort_ints(idx, m, tmp); /* input order: fixed sums */
    const int used = gk_pf_node_weighted(pts->x, pts->y, pts->z, idx, w, (int)m, nx, ny, p->weight,
                                         p->power, p->maxdist, p->bandwidth, p->degree, work, v);
    if (!used)
        return 0;
    *lowered = used < n_terms(p->degree);
    return 1;
}

static uint64_t poly_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    const gk_grid *g = t->g;
    const poly_params *p = cparams_of(&job->alg);
    const poly_last *gl = job->state;
    const double nodata = job->alg.nodata;
    uint64_t nod = 0, lowered = 0, fail = 0;
    gk_local_prev pv = {0}, pvrow = {0};
    poly_last last = {0};
    poly_batch *b = NULL;
    if (!gl && p->weight == GK_PF_W_NONE &&
        (!(last.mark = calloc((job->pts->n + 63) / 64 + 1, sizeof *last.mark)) ||
         !(b = calloc(1, sizeof *b)))) {
        free(last.mark);
        return UINT64_MAX;
    }
    last.slot = -1;
    for (int j = 0; j < t->h && !fail; j++) {
        const double ny = gk_grid_node_y(g, t->y0 + j);
        for (int i = 0; i < t->w; i++) {
            const double nx = gk_grid_node_x(g, t->x0 + i);
            const size_t at = (size_t)j * t->w + i;
            double v = nodata;
            int rc, low = 0;
            if (gl) {
                rc = poly_value(&gl->f, p->degree, nx, ny, &v, &low);
            } else {
                if (i == 0) /* the row's start is nearer the last row's */
                    pv = pvrow;
                rc =
                    local_node(job, p, s, &pv, &last, b, out, at, nx, ny, &v, &low, &nod, &lowered);
                if (i == 0)
                    pvrow = pv;
                if (rc < 0) {
                    fail = 1;
                    break;
                }
                if (rc == 2)
                    continue; /* batch_flush writes it */
            }
            if (rc != 1 || !isfinite(v)) {
                v = nodata;
                nod++;
            } else {
                lowered += low;
            }
            out[at] = v;
        }
    }
    if (b && !fail)
        batch_flush(job, b, &last, out, &nod, &lowered);
    if (b)
        free(b->idx), free(b->work), free(b);
    free(last.mark);
    if (fail)
        return UINT64_MAX;
    gk_job_add_lowered(job, lowered);
    return nod;
}

/* The local fits on the GPU (gpu/polynomial.cu, the same fit code): the
 * max_points nearest, as kriging's kernels search them. */
static const char *poly_gpu(const gk_job *job, gk_gpu_job_desc *d)
{
    const gk_algorithm *a = &job->alg;
    const poly_params *p = cparams_of(a);
    if (is_global(a))
        return "the global surface is one fit, evaluated on the CPU";
    if (a->max_points_per_quadrant > 0)
        return "max_points_per_quadrant has no GPU kernel";
    if (a->max_points < 1 || a->max_points > GK_GPU_POLY_MAX_K)
        return "the GPU takes max_points of 1 to " GK_STR(GK_GPU_POLY_MAX_K);
    d->op = GK_GPU_POLYNOMIAL;
    d->max_points = a->max_points;
    d->min_points = a->min_points;
    if (p->maxdist > 0)
        gk_gpu_desc_circle(d, p->maxdist);
    else
        d->window = GK_GPU_WIN_ALL;
    d->p.poly = (gk_gpu_poly){p->degree, p->weight, p->power, p->maxdist, p->bandwidth};
    return NULL;
}

const gk_method gk_method_polynomial = {
    .name = "polynomial",
    .kind = GK_ALG_POLYNOMIAL,
    .summary = "local or global (trend surface) polynomial of degree 0 to 3, by (weighted) least "
               "squares",
    .parse = poly_parse,
    .own_keys = "degree=0..3, weight=none|power|gauss, power, bandwidth, max_points, min_points, "
                "radius, max_points_per_quadrant, nodata",
    .prepare = poly_prepare,
    .release = poly_release,
    .cpu_index = gk_index_tree,
    .cpu_tile = poly_tile,
    .gpu_describe = poly_gpu,
    .flags = GK_M_GPU_COUNTS_LOWERED,
    .lowered_form = "a lower degree: too few points, or points on a line",
};
