/* SPDX-License-Identifier: MIT */
/* idw/invdistnn.c - inverse distance to a power over the nearest neighbours
 * within a circle (gdal_grid's invdistnn), with its per-quadrant variant.
 * Ties in distance are broken by index: the job's points are in gdal_grid's
 * quadtree order (core/job_ties.c), so ties fall as in gdal_grid. */
#include "idw.h"
#include "search/gpu_window.h"
#include "search/index.h"
#include "search/knn_bins.h"
#include "search/neighbours.h"

#include <stdio.h>

/* The k nearest from the bins, the points as given (lazy ties,
 * core/gk_internal.h). Where no two of them are equally far (the k-th and
 * the next included) and at most one is an exact hit, the answer is the
 * ordered job's as it is; where some are, each group of equal distances
 * (the k-th's whole, or every hit) is put in gdal_grid's order by
 * gk_knn_bins_before. 1 or 0 as gk_idwnn_node, -1 out of memory, 2: the
 * order is wanted whole (too many comparisons here, or one undecided). */
#define IDWNN_TIES 2
#define IDWNN_MAX_CMPS 4096 /* a thread's comparisons before the order is built whole */
static int idwnn_bins(const gk_job *job, double nx, double ny, double r2, double s2, double hit2,
                      gk_scratch *s, double *v)
{
    const gk_algorithm *a = &job->alg;
    const int k = a->max_points;
    const size_t n = job->pts->n;
    size_t want = (size_t)k + 1;
    int got;
    for (;;) {
        if (want > s->cap && gk_scratch_reserve(s, want) != GK_OK)
            return -1;
        got = gk_knn_bins_knn(job->kbins, nx, ny, (int)want, r2, s->idx, s->d2);
        if ((size_t)got < want || want >= n)
            break;
        /* every hit, and every point as far as the k-th, must be seen */
        const double last = s->d2[got - 1];
        if (!(last + s2 < hit2) && last != s->d2[k - 1])
            break;
        want = 2 * want < n ? 2 * want : n;
    }
    int hits = 0, tied = 0;
    while (hits < got && s->d2[hits] + s2 < hit2)
        hits++;
    for (int j = 1; j < got && !tied; j++)
        tied = s->d2[j] == s->d2[j - 1];
    if (hits > 1 || tied) {
        s->tie_nodes++;
        if (s->tie_cmps > IDWNN_MAX_CMPS)
            return IDWNN_TIES;
    }
    if (hits > 0) { /* the first hit in the order */
        int best = s->idx[0];
        for (int j = 1; j < hits; j++) {
            const int c = gk_knn_bins_before(job->kbins, s->idx[j], best);
            s->tie_cmps++;
            if (c < 0)
                return IDWNN_TIES;
            best = c ? s->idx[j] : best;
        }
        *v = job->pts->z[best];
        return 1;
    }
    const int m = got < k ? got : k;
    for (int lo = 0; tied && lo < m;) { /* each run of equal distances in the order */
        int hi = lo + 1;
        while (hi < got && s->d2[hi] == s->d2[lo])
            hi++;
        for (int j = lo + 1; j < hi; j++) {
            const int id = s->idx[j];
            int t = j;
            while (t > lo) {
                const int c = gk_knn_bins_before(job->kbins, id, s->idx[t - 1]);
                s->tie_cmps++;
                if (c < 0)
                    return IDWNN_TIES;
                if (!c)
                    break;
                s->idx[t] = s->idx[t - 1];
                t--;
            }
            s->idx[t] = id;
        }
        lo = hi;
    }
    if (m == 0 || m < (a->min_points > 0 ? a->min_points : 0))
        return 0;
    return gk_idw_sum(job->pts->z, s->idx, s->d2, (size_t)m, s2, a->power, v);
}

int gk_idwnn_node(const gk_job *job, double nx, double ny, double radius, double hit2,
                  gk_scratch *s, double *v)
{
    if (job->kbins && !job->own_pts) { /* lazy ties (core/gk_internal.h) */
        const gk_job *view = __atomic_load_n(&job->tie_view, __ATOMIC_ACQUIRE);
        s->nodes++;
        /* where ties are common (lattices), the ordered job answers all */
        if (!view || s->tie_nodes * 8 < s->nodes) {
            const double sm = job->alg.smoothing;
            int rc = idwnn_bins(job, nx, ny, radius * radius, sm * sm, hit2, s, v);
            if (rc != IDWNN_TIES)
                return rc;
            if (!view && !(view = gk_index_tie_view((gk_job *)job)))
                return -1;
        }
        return gk_idwnn_node(view, nx, ny, radius, hit2, s, v);
    }
    const gk_algorithm *a = &job->alg;
    const double *z = job->pts->z;
    double s2 = a->smoothing * a->smoothing;
    double r2 = radius * radius;
    int k = a->max_points > 0 ? a->max_points : 0;
    size_t m;

    if (k > 0 && !gk_nb_has_quadrants(a)) {
        /* the common case: one bounded k-NN query, nothing gathered */
        if ((size_t)k > s->cap && gk_scratch_reserve(s, (size_t)k) != GK_OK)
            return -1;
        int got = gk_kdtree_knn(job->tree, nx, ny, k, r2, s->idx, s->d2);
        int hit = gk_nb_hit_sorted(job, NULL, nx, ny, s->idx, s->d2, got, k, s2, hit2, s);
        if (hit == (int)GK_NB_NOMEM)
            return -1;
        if (hit >= 0) {
            *v = z[hit];
            return 1;
        }
        m = (size_t)got;
    } else if (gk_nb_quadrants_bounded(a, 1)) {
        /* per quadrant, each bounded: four k-NN queries, nothing gathered */
        int hit = gk_nb_window_hit(job, NULL, nx, ny, r2, s2, hit2, s);
        if (hit == (int)GK_NB_NOMEM)
            return -1;
        if (hit >= 0) {
            *v = z[hit];
            return 1;
        }
        long q = gk_nb_quadrants_knn(job, nx, ny, r2, NULL, k, a->min_points_per_quadrant,
                                     a->max_points_per_quadrant, s);
        if (q == GK_NB_NOMEM)
            return -1;
        if (q < 0)
            return 0;
        m = (size_t)q;
    } else {
        /* every point in the circle (max_points = 0 here, unless per quadrant) */
        long n = gk_nb_circle(job, nx, ny, r2, s);
        if (n < 0)
            return -1;
        return gk_idw_gathered(job, nx, ny, (size_t)n, a->power, hit2, s, v);
    }
    if (m == 0 || m < (size_t)(a->min_points > 0 ? a->min_points : 0))
        return 0;
    return gk_idw_sum(z, s->idx, s->d2, m, s2, a->power, v);
}

static int invdistnn_node(const gk_job *job, double nx, double ny, double hit2, gk_scratch *s,
                          double *v)
{
    return gk_idwnn_node(job, nx, ny, job->alg.radius1, hit2, s, v);
}

uint64_t gk_invdistnn_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    return gk_nb_run_tile(job, t, out, s, invdistnn_node);
}

/* ---- the registry's row ------------------------------------------------ */

static void invdistnn_defaults(gk_algorithm *a)
{
    a->radius1 = a->radius2 = 1.0;
    a->max_points = 12;
}

static int invdistnn_check(gk_context *ctx, const char *spec, gk_algorithm *a)
{
    if (!(a->radius1 > 0))
        return gk_error(ctx, GK_ERR_ARG, "-a %s: invdistnn needs radius > 0", spec);
    return GK_OK;
}

/* power and smoothing, then the circle as gdal_grid's radius= */
static void invdistnn_canonical(const gk_algorithm *a, gk_strbuf *sb)
{
    gk_idw_canonical(a, sb);
    gk_strbuf_add(sb, ":radius=%.17g", a->radius1);
}

static const char *invdistnn_gpu(const gk_job *job, gk_gpu_job_desc *d)
{
    const gk_algorithm *a = &job->alg;
    d->op = GK_GPU_IDW_KNN;
    gk_gpu_desc_circle(d, a->radius1);
    if (gk_nb_has_quadrants(a))
        return gk_gpu_desc_quadrants(a, 1, d);
    return gk_idw_gpu_limits(a);
}

static double invdistnn_cost(const gk_algorithm *a, double n, double area, double *setup_ns)
{
    double win, k;
    gk_cost_window(a, n, area, &win, &k);
    *setup_ns = n * GK_NS_TREE_PER_POINT;
    return 300.0 + 80.0 * k;
}

/* The common case asks only k-NN questions, whose sorted answers do not
 * depend on the index's shape: without equal distances they do not depend
 * on the order of the points either, so the CPU settles gdal_grid's ties
 * only where a query meets some (the bins, idwnn_bins), and where the
 * points are ordered (cross-validation) takes the tree of that order.
 * max_points=0 sums a circle's points in the tree's order, and the
 * per-quadrant paths ask radius questions too: the selected tree there. */
static int knn_only(const gk_algorithm *a) { return a->max_points > 0 && !gk_nb_has_quadrants(a); }

static int invdistnn_index(gk_job *job)
{
    if (job->lazy_ties && !job->own_pts)
        return gk_index_knn_bins(job);
    return knn_only(&job->alg) ? gk_index_tree_knn(job) : gk_index_tree(job);
}

static int invdistnn_tree(gk_job *job)
{
    if (job->gpu)
        return GK_OK; /* the GPU keeps its own index */
    if (invdistnn_index(job))
        return gk_error(job->ctx, GK_ERR_NOMEM,
                        "out of memory building the spatial index of %zu points", job->pts->n);
    return GK_OK;
}

static gk_cv_method invdistnn_cv(const gk_algorithm *a, size_t ntrain, const char **why,
                                 const char **avoid)
{
    (void)ntrain;
    if (gk_idw_limited(a))
        return GK_CV_HOLDOUT;
    *why = "without max_points: every fold rebuilds its search";
    *avoid = GK_CV_AVOID_MAX_K;
    return GK_CV_REBUILD;
}

const gk_method gk_method_invdistnn = {
    .name = "invdistnn",
    .kind = GK_ALG_INVDISTNN,
    .summary = "inverse distance to a power with nearest-neighbour search (gdal_grid)",
    .keys = GK_KEY_POWER | GK_KEY_SMOOTHING | GK_KEY_RADIUS | GK_KEY_MAX_POINTS |
            GK_KEY_MIN_POINTS | GK_KEY_NODATA | GK_KEY_QUADRANT,
    .defaults = invdistnn_defaults,
    .check = invdistnn_check,
    .canonical = invdistnn_canonical,
    .prepare = invdistnn_tree,
    .cpu_index = invdistnn_index,
    .quadtree_ties = gk_ties_always,
    .lazy_ties = knn_only,
    .cpu_tile = gk_invdistnn_tile,
    .gpu_describe = invdistnn_gpu,
    .cost_ns = invdistnn_cost,
    .cv_way = invdistnn_cv,
};
