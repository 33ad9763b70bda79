/* idw/invdist.c - inverse distance to a power with a search ellipse.
 * Without a search window the SIMD kernels of invdist_kernels.c run.
 * Differences from gdal_grid 3.6: max_points takes the max_points NEAREST
 * points inside the ellipse (gdal_grid takes the first in file order), and
 * per-quadrant keys keep their limits (3.11 behaviour); docs/dev/gdal_grid.md,
 * 'invdist max_points takes the nearest' and 'Per-quadrant limits with
 * invdist are kept'. */
#include "idw.h"
#include "search/gpu_window.h"
#include "search/index.h"
#include "search/neighbours.h"

#include <stdio.h>

/* Keeps the points of idx/d2[0..m) inside the ellipse; returns how many. */
static int keep_inside(const gk_job *job, double nx, double ny, int *idx, double *d2, int m)
{
    const double *x = job->pts->x, *y = job->pts->y;
    int k = 0;
    for (int i = 0; i < m; i++) {
        if (gk_ellipse_contains(&job->ell, x[idx[i]] - nx, y[idx[i]] - ny)) {
            idx[k] = idx[i];
            d2[k] = d2[i];
            k++;
        }
    }
    return k;
}

int gk_idw_ellipse_node(const gk_job *job, double nx, double ny, double p, double hit2,
                        gk_scratch *s, double *v)
{
    const gk_algorithm *a = &job->alg;
    const gk_ellipse *e = &job->ell;
    const double *z = job->pts->z;
    double s2 = a->smoothing * a->smoothing;
    int k = a->max_points > 0 ? a->max_points : 0;
    size_t minp = a->min_points > 0 ? (size_t)a->min_points : 0;
    int quads = gk_nb_has_quadrants(a);
    size_t m;

    if (k > 0 && !quads && !e->all && e->r1 == e->r2 && e->r1 > 0.0) {
        /* circle: k-NN in a slightly larger disc, then the exact ellipse test.
         * If that test rejects one of k answers, others may be missing: gather. */
        if ((size_t)k > s->cap && gk_scratch_reserve(s, (size_t)k) != GK_OK)
            return -1;
        double r2 = e->r1 * e->r1 * (1.0 + 1e-9);
        int got = gk_kdtree_knn(job->tree, nx, ny, k, r2, s->idx, s->d2);
        int in = keep_inside(job, nx, ny, s->idx, s->d2, got);
        if (in == got || got < k) {
            int hit = gk_nb_hit_sorted(job, e, nx, ny, s->idx, s->d2, in, k, s2, hit2, s);
            if (hit == (int)GK_NB_NOMEM)
                return -1;
            if (hit >= 0) {
                *v = z[hit];
                return 1;
            }
            if (in == 0 || (size_t)in < minp)
                return 0;
            return gk_idw_sum(z, s->idx, s->d2, (size_t)in, s2, p, v);
        }
    }

    long n = gk_nb_ellipse(job, nx, ny, s);
    if (n < 0)
        return -1;
    int hit = gk_nb_first_hit(s->idx, s->d2, (size_t)n, s2, hit2);
    if (hit >= 0) {
        *v = z[hit];
        return 1;
    }
    if (quads) {
        long q = gk_nb_quadrants(job, nx, ny, s->idx, s->d2, (size_t)n, k,
                                 a->min_points_per_quadrant, a->max_points_per_quadrant, s);
        if (q == GK_NB_NOMEM)
            return -1;
        if (q < 0)
            return 0;
        m = (size_t)q;
    } else if (k > 0) {
        m = gk_nb_nearest(s->idx, s->d2, (size_t)n, (size_t)k);
    } else {
        m = (size_t)n;
    }
    if (m == 0 || m < minp)
        return 0;
    return gk_idw_sum(z, s->idx, s->d2, m, s2, p, v);
}

static int invdist_node(const gk_job *job, double nx, double ny, double hit2, gk_scratch *s,
                        double *v)
{
    return gk_idw_ellipse_node(job, nx, ny, job->alg.power, hit2, s, v);
}

/* invdist with per-quadrant keys is invdistnn (parse.c remaps it; kept here
 * for jobs built by hand): radius1, default 1. */
static int invdist_quadrant_node(const gk_job *job, double nx, double ny, double hit2,
                                 gk_scratch *s, double *v)
{
    double r = job->alg.radius1 > 0.0 ? job->alg.radius1 : 1.0;
    return gk_idwnn_node(job, nx, ny, r, hit2, s, v);
}

uint64_t gk_invdist_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    if (gk_nb_has_quadrants(&job->alg))
        return gk_nb_run_tile(job, t, out, s, invdist_quadrant_node);
    if (job->ell.all)
        return gk_invdist_all_tile(job, t, out, s);
    return gk_nb_run_tile(job, t, out, s, invdist_node);
}

/* ---- the registry's row ------------------------------------------------ */

/* gdal_grid remaps invdist with per-quadrant keys to invdistnn (with the
 * limits forwarded, as GDAL 3.11 does). */
static int invdist_adjust(gk_context *ctx, const char *spec, const gk_parse_seen *seen,
                          gk_algorithm *a)
{
    if (!seen->quadrant)
        return GK_OK;
    if (a->radius1 != a->radius2 || a->angle != 0)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a %s: per-quadrant search needs a circle (radius1 = radius2, angle = 0)",
                        spec);
    a->kind = GK_ALG_INVDISTNN;
    if (a->radius1 == 0)
        a->radius1 = a->radius2 = 1.0;
    if (!seen->max_points)
        a->max_points = 12;
    return GK_OK;
}

void gk_idw_canonical(const gk_algorithm *a, gk_strbuf *sb)
{
    gk_strbuf_add(sb, ":power=%.17g:smoothing=%.17g", a->power, a->smoothing);
}

/* Without a window the kernels read the points in input order: no index. */
static int invdist_prepare(gk_job *job) { return job->ell.all ? GK_OK : gk_method_tree(job); }
static int invdist_cpu_index(gk_job *job) { return job->ell.all ? GK_OK : gk_index_tree(job); }

const char *gk_idw_gpu_limits(const gk_algorithm *a)
{
    if (a->max_points > GK_GPU_MAX_LIST_K)
        return "max_points above " GK_STR(GK_GPU_MAX_LIST_K) " has no GPU kernel";
    return NULL;
}

static const char *invdist_gpu(const gk_job *job, gk_gpu_job_desc *d)
{
    const gk_algorithm *a = &job->alg;
    if (gk_nb_has_quadrants(a)) { /* invdistnn in a circle, as on the CPU */
        gk_gpu_desc_circle(d, a->radius1 > 0.0 ? a->radius1 : 1.0);
        d->op = GK_GPU_IDW_KNN;
        return gk_gpu_desc_quadrants(a, 1, d);
    }
    if (job->ell.all) {
        d->window = GK_GPU_WIN_ALL;
        d->op = GK_GPU_INVDIST_ALL;
        return NULL;
    }
    const char *no = gk_gpu_desc_ellipse(job, d);
    if (no)
        return no;
    d->op = GK_GPU_IDW_KNN;
    return gk_idw_gpu_limits(&job->alg);
}

static double invdist_cost(const gk_algorithm *a, double n, double area, double *setup_ns)
{
    double win, k;
    if (gk_cost_window(a, n, area, &win, &k)) { /* every point, in input order */
        *setup_ns = 0;
        return 1.0 * n;
    }
    *setup_ns = n * GK_NS_TREE_PER_POINT;
    return gk_cost_select_ns(k, win);
}

/* Without a window its kernels read every point: no tree to hold a fold out of. */
static gk_cv_method invdist_cv(const gk_algorithm *a, size_t ntrain, const char **why,
                               const char **avoid)
{
    (void)ntrain;
    const int window = a->radius1 > 0 || a->radius2 > 0;
    if (gk_idw_limited(a) && window)
        return GK_CV_HOLDOUT;
    if (window) {
        *why = "with a radius and no max_points: every fold rebuilds its search";
        *avoid = GK_CV_AVOID_MAX_K;
    } else {
        *why = "without a radius: every fold copies the other folds' points, and every "
               "prediction reads them all";
        *avoid = "a search window (radius=R with max_points=K) uses one index";
    }
    return GK_CV_REBUILD;
}

const gk_method gk_method_invdist = {
    .name = "invdist",
    .kind = GK_ALG_INVDIST,
    .summary = "inverse distance to a power (gdal_grid)",
    .keys = GK_KEY_POWER | GK_KEY_SMOOTHING | GK_KEY_ELLIPSE | GK_KEY_MAX_POINTS |
            GK_KEY_MIN_POINTS | GK_KEY_NODATA | GK_KEY_QUADRANT,
    .adjust = invdist_adjust,
    .canonical = gk_idw_canonical,
    .prepare = invdist_prepare,
    .cpu_index = invdist_cpu_index,
    .cpu_tile = gk_invdist_tile,
    .gpu_describe = invdist_gpu,
    .cost_ns = invdist_cost,
    .cv_way = invdist_cv,
};
