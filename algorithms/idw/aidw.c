/* SPDX-License-Identifier: MIT */
/* idw/aidw.c - adaptive inverse distance weighting (Lu & Wong 2008; see
 * docs/dev/geostatistics.md, 'Adaptive IDW'). Per node the power follows the local point
 * pattern: R = (mean distance to the k nearest points) / r_exp, where r_exp is
 * the mean nearest-neighbour distance expected for a random pattern of the same
 * density. Unlike the published GPU code, the 0.3-0.5 segment uses alpha2 and
 * alpha3, and a point on the node is an exact hit instead of a division by 0. */
#include "aidw.h"
#include "idw.h"
#include "search/gpu_window.h"
#include "search/index.h"
#include "search/neighbours.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double gk_aidw_mu(const gk_algorithm *a, double R)
{
    if (!(R > gk_aidw_of(a)->rmin)) /* also NaN */
        return 0.0;
    if (R >= gk_aidw_of(a)->rmax)
        return 1.0;
    return 0.5 - 0.5 * cos(M_PI * (R - gk_aidw_of(a)->rmin) /
                           (gk_aidw_of(a)->rmax - gk_aidw_of(a)->rmin));
}

double gk_aidw_alpha(const gk_algorithm *a, double mu)
{
    const double *al = gk_aidw_of(a)->alpha;
    if (!(mu > 0.1))
        return al[0];
    if (mu >= 0.9)
        return al[4];
    double u = (mu - 0.1) / 0.2; /* in (0, 4) */
    int seg = (int)u;
    if (seg > 3)
        seg = 3;
    double f = u - seg;
    return al[seg] * (1.0 - f) + al[seg + 1] * f;
}

int gk_aidw_prepare(gk_job *job)
{
    const gk_points *p = job->pts;
    size_t n = p->n;
    if (n == 0)
        return gk_error(job->ctx, GK_ERR_NO_POINTS, "aidw: no points");
    if (gk_aidw_of(&job->alg)->k < 1)
        return gk_error(job->ctx, GK_ERR_ARG, "aidw: k must be >= 1 (got %d)",
                        gk_aidw_of(&job->alg)->k);
    if (!(gk_aidw_of(&job->alg)->rmax > gk_aidw_of(&job->alg)->rmin))
        return gk_error(job->ctx, GK_ERR_ARG,
                        "aidw: r_max (%.15g) must be larger than r_min (%.15g)",
                        gk_aidw_of(&job->alg)->rmax, gk_aidw_of(&job->alg)->rmin);
    if (!job->tree && !job->gpu) { /* the GPU keeps its own index */
        job->tree = gk_kdtree_build(p->x, p->y, n);
        if (!job->tree)
            return gk_error(job->ctx, GK_ERR_NOMEM,
                            "aidw: out of memory building the index of %zu points", n);
    }
    gk_aidw_state *st = job->state ? job->state : malloc(sizeof *st);
    if (!st)
        return gk_error(job->ctx, GK_ERR_NOMEM, "aidw: out of memory");
    st->r_exp = gk_aidw_r_exp(p);
    job->state = st;
    return GK_OK;
}

void gk_aidw_release(gk_job *job)
{
    free(job->state);
    job->state = NULL;
}

double gk_aidw_r_exp(const gk_points *p)
{
    size_t n = p->n;
    double x0 = p->x[0], x1 = x0, y0 = p->y[0], y1 = y0;
    for (size_t i = 1; i < n; i++) {
        x0 = p->x[i] < x0 ? p->x[i] : x0;
        x1 = p->x[i] > x1 ? p->x[i] : x1;
        y0 = p->y[i] < y0 ? p->y[i] : y0;
        y1 = p->y[i] > y1 ? p->y[i] : y1;
    }
    double area = (x1 - x0) * (y1 - y0);
    if (!(area > 0.0)) {
        /* collinear points have no area: use the square on the longer side */
        double l = (x1 - x0) > (y1 - y0) ? (x1 - x0) : (y1 - y0);
        area = l * l;
    }
    /* r_exp = 1 / (2 sqrt(n / A)); 0 when every point coincides */
    return area > 0.0 ? 0.5 * sqrt(area / (double)n) : 0.0;
}

/* The power at (nx, ny), from the k nearest points (uses s->idx / s->d2). */
static int local_alpha(const gk_job *job, double nx, double ny, gk_scratch *s, double *alpha)
{
    const gk_algorithm *a = &job->alg;
    int k = gk_aidw_of(a)->k;
    if ((size_t)k > s->cap && gk_scratch_reserve(s, (size_t)k) != GK_OK)
        return -1;
    int got = gk_kdtree_knn(job->tree, nx, ny, k, INFINITY, s->idx, s->d2);
    if (got == 0)
        return 0;
    double sum = 0.0;
    for (int i = 0; i < got; i++)
        sum += sqrt(s->d2[i]);
    double r_obs = sum / got;
    double R;
    const double r_exp = ((const gk_aidw_state *)job->state)->r_exp;
    if (r_exp > 0.0)
        R = r_obs / r_exp;
    else
        R = r_obs > 0.0 ? INFINITY : 0.0;
    *alpha = gk_aidw_alpha(a, gk_aidw_mu(a, R));
    return 1;
}

static int aidw_node(const gk_job *job, double nx, double ny, double hit2, gk_scratch *s, double *v)
{
    double alpha;
    int r = local_alpha(job, nx, ny, s, &alpha);
    if (r <= 0)
        return r;
    if (!job->ell.all)
        return gk_idw_ellipse_node(job, nx, ny, alpha, hit2, s, v);
    /* every point, in input order: the first exact hit wins */
    const double *x = job->pts->x, *y = job->pts->y, *z = job->pts->z;
    size_t n = job->pts->n;
    double s2 = job->alg.smoothing * job->alg.smoothing;
    double num = 0.0, den = 0.0, e = -0.5 * alpha;
    for (size_t i = 0; i < n; i++) {
        double dx = x[i] - nx, dy = y[i] - ny;
        double r2 = dx * dx + dy * dy + s2;
        if (r2 < hit2) {
            *v = z[i];
            return 1;
        }
        double w = alpha == 2.0 ? 1.0 / r2 : pow(r2, e);
        num += w * z[i];
        den += w;
    }
    if (den == 0.0)
        return 0;
    *v = num / den;
    return 1;
}

uint64_t gk_aidw_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    return gk_nb_run_tile(job, t, out, s, aidw_node);
}

/* ---- the registry's row ------------------------------------------------ */

static void aidw_defaults(gk_algorithm *a)
{
    gk_aidw_of(a)->k = 10;
    const double alpha[5] = {1.5, 2.0, 2.5, 3.0, 3.5};
    memcpy(gk_aidw_of(a)->alpha, alpha, sizeof alpha);
    gk_aidw_of(a)->rmin = 0.0;
    gk_aidw_of(a)->rmax = 2.0;
}

static int aidw_check(gk_context *ctx, const char *spec, gk_algorithm *a)
{
    if (gk_aidw_of(a)->k < 1)
        return gk_error(ctx, GK_ERR_ARG, "-a %s: k must be >= 1", spec);
    if (!(gk_aidw_of(a)->rmax > gk_aidw_of(a)->rmin))
        return gk_error(ctx, GK_ERR_ARG, "-a %s: r_max must be larger than r_min", spec);
    for (int i = 0; i < 5; i++)
        if (!isfinite(gk_aidw_of(a)->alpha[i]) || gk_aidw_of(a)->alpha[i] < 0)
            return gk_error(ctx, GK_ERR_ARG, "-a %s: alpha%d must be >= 0", spec, i + 1);
    return GK_OK;
}

static void aidw_canonical(const gk_algorithm *a, gk_strbuf *sb)
{
    gk_strbuf_add(sb,
                  ":k=%d:alpha1=%.17g:alpha2=%.17g:alpha3=%.17g:alpha4=%.17g:alpha5=%.17g:"
                  "r_min=%.17g:r_max=%.17g:smoothing=%.17g",
                  gk_aidw_of(a)->k, gk_aidw_of(a)->alpha[0], gk_aidw_of(a)->alpha[1],
                  gk_aidw_of(a)->alpha[2], gk_aidw_of(a)->alpha[3], gk_aidw_of(a)->alpha[4],
                  gk_aidw_of(a)->rmin, gk_aidw_of(a)->rmax, a->smoothing);
}

static int aidw_prepare(gk_job *job)
{
    int rc = gk_method_tree(job);
    return rc ? rc : gk_aidw_prepare(job);
}

static const char *aidw_gpu(const gk_job *job, gk_gpu_job_desc *d)
{
    const gk_algorithm *a = &job->alg;
    const char *no = gk_gpu_desc_ellipse(job, d);
    if (no)
        return no;
    if (gk_aidw_of(a)->k < 1 || gk_aidw_of(a)->k > GK_GPU_MAX_LIST_K)
        return "aidw with k above " GK_STR(GK_GPU_MAX_LIST_K) " has no GPU kernel";
    if (!(gk_aidw_of(a)->rmax > gk_aidw_of(a)->rmin))
        return "aidw needs r_max > r_min";
    d->op = GK_GPU_AIDW;
    d->p.aidw.k = gk_aidw_of(a)->k;
    memcpy(d->p.aidw.alpha, gk_aidw_of(a)->alpha, sizeof d->p.aidw.alpha);
    d->p.aidw.rmin = gk_aidw_of(a)->rmin;
    d->p.aidw.rmax = gk_aidw_of(a)->rmax;
    d->p.aidw.r_exp = gk_aidw_r_exp(job->pts);
    if (job->ell.all)
        return NULL; /* every point: max_points, min_points and quadrants unused */
    if (gk_nb_has_quadrants(a))
        return "aidw with per-quadrant keys has no GPU kernel yet";
    return gk_idw_gpu_limits(a);
}

static double aidw_cost(const gk_algorithm *a, double n, double area, double *setup_ns)
{
    double win, k;
    gk_cost_window(a, n, area, &win, &k);
    *setup_ns = n * GK_NS_TREE_PER_POINT;
    return 300.0 + 80.0 * (gk_aidw_of(a)->k > k ? gk_aidw_of(a)->k : k);
}

/* k, alpha1..alpha5, r_min, r_max: keys of its own in gdal_grid's grammar. */
static int aidw_key(gk_context *ctx, const char *alg, const char *key, double v, gk_algorithm *a)
{
    if (!strcmp(key, "k"))
        return gk_param_count(ctx, alg, key, v, &gk_aidw_of(a)->k);
    if (!strncmp(key, "alpha", 5))
        gk_aidw_of(a)->alpha[key[5] - '1'] = v;
    else if (!strcmp(key, "r_min"))
        gk_aidw_of(a)->rmin = v;
    else
        gk_aidw_of(a)->rmax = v;
    return GK_OK;
}

const gk_method gk_method_aidw = {
    .name = "aidw",
    .kind = GK_ALG_AIDW,
    .summary = "adaptive inverse distance: the power follows the local point density",
    .keys =
        GK_KEY_SMOOTHING | GK_KEY_ELLIPSE | GK_KEY_MAX_POINTS | GK_KEY_MIN_POINTS | GK_KEY_NODATA,
    .own_keys = "k, alpha1, alpha2, alpha3, alpha4, alpha5, r_min, r_max",
    .own_key = aidw_key,
    .defaults = aidw_defaults,
    .check = aidw_check,
    .canonical = aidw_canonical,
    .prepare = aidw_prepare,
    .release = gk_aidw_release,
    .cpu_index = gk_index_tree,
    .cpu_tile = gk_aidw_tile,
    .gpu_describe = aidw_gpu,
    .cost_ns = aidw_cost,
};
