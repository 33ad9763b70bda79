/* idw/invdistnn.c - inverse distance to a power over the nearest neighbours
 * within a circle (gdal_grid's invdistnn), with its per-quadrant variant.
 * Ties in distance are broken by index: the job's points are in gdal_grid's
 * quadtree order (core/engine.c), so ties fall as in gdal_grid. */
#include "idw.h"
#include "search/gpu_window.h"
#include "search/index.h"
#include "search/neighbours.h"

#include <stdio.h>

int gk_idwnn_node(const gk_job *job, double nx, double ny, double radius, double hit2,
                  gk_scratch *s, double *v)
{
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
        long n = gk_nb_circle(job, nx, ny, r2, s);
        if (n < 0)
            return -1;
        int hit = gk_nb_first_hit(s->idx, s->d2, (size_t)n, s2, hit2);
        if (hit >= 0) {
            *v = z[hit];
            return 1;
        }
        if (gk_nb_has_quadrants(a)) {
            long q = gk_nb_quadrants(job, nx, ny, s->idx, s->d2, (size_t)n, k,
                                     a->min_points_per_quadrant, a->max_points_per_quadrant, s);
            if (q == GK_NB_NOMEM)
                return -1;
            if (q < 0)
                return 0;
            m = (size_t)q;
        } else {
            m = (size_t)n; /* max_points = 0: all of them */
        }
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
 * depend on the tree's shape: the tree of the order the job already has.
 * max_points=0 sums a circle's points in the tree's order, and the
 * per-quadrant paths ask radius questions too: the selected tree there. */
static int knn_only(const gk_job *job)
{
    return job->alg.max_points > 0 && !gk_nb_has_quadrants(&job->alg);
}

static int invdistnn_tree(gk_job *job)
{
    return knn_only(job) ? gk_method_tree_knn(job) : gk_method_tree(job);
}

static int invdistnn_index(gk_job *job)
{
    return knn_only(job) ? gk_index_tree_knn(job) : gk_index_tree(job);
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
    .cpu_tile = gk_invdistnn_tile,
    .gpu_describe = invdistnn_gpu,
    .cost_ns = invdistnn_cost,
};
