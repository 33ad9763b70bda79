/* SPDX-License-Identifier: MIT */
/* window/metrics.c - gdal_grid's data metrics inside the search ellipse: minimum,
 * maximum, range, count, average_distance and average_distance_pts.
 * Per-quadrant keys select points as for average but never stop at max_points
 * (gdal_grid's metrics options have no max_points); average_distance_pts has no
 * per-quadrant variant and averages over distinct pairs i < j
 * (docs/dev/gdal_grid.md, 'average_distance_pts counts distinct pairs').
 * Without quadrant keys the job has a bucket grid (bucket_grid.c): a node is a
 * masked vector count / sum / min / max over a few spans. */
#include "window.h"
#include "search/bucket_grid.h"
#include "search/index.h"
#include "search/neighbours.h"

#include <math.h>

static int metrics_node(const gk_job *job, double nx, double ny, double hit2, gk_scratch *s,
                        double *v)
{
    (void)hit2;
    const gk_algorithm *a = &job->alg;
    const int quads = a->kind != GK_ALG_AVERAGE_DISTANCE_PTS && gk_nb_has_quadrants(a);
    long n = quads ? gk_nb_ellipse_quadrants(job, nx, ny, 0, s) : gk_nb_ellipse(job, nx, ny, s);
    if (n == GK_NB_NOMEM)
        return -1;
    if (n < 0)
        return 0; /* a quadrant under its minimum */
    if (n < a->min_points)
        return 0;
    const int *idx = s->idx;
    const double *z = job->pts->z;
    switch (a->kind) {
    case GK_ALG_COUNT:
        *v = (double)n; /* empty is a count of 0, not nodata */
        return 1;
    case GK_ALG_MINIMUM:
    case GK_ALG_MAXIMUM:
    case GK_ALG_RANGE: {
        if (n == 0)
            return 0;
        double lo = z[idx[0]], hi = lo;
        for (long i = 1; i < n; i++) {
            double q = z[idx[i]];
            lo = q < lo ? q : lo;
            hi = q > hi ? q : hi;
        }
        *v = a->kind == GK_ALG_MINIMUM ? lo : a->kind == GK_ALG_MAXIMUM ? hi : hi - lo;
        return 1;
    }
    case GK_ALG_AVERAGE_DISTANCE: {
        if (n == 0)
            return 0;
        double sum = 0.0;
        for (long i = 0; i < n; i++)
            sum += sqrt(s->d2[i]);
        *v = sum / (double)n;
        return 1;
    }
    case GK_ALG_AVERAGE_DISTANCE_PTS: {
        if (n < 2)
            return 0;
        const double *x = job->pts->x, *y = job->pts->y;
        double sum = 0.0;
        for (long i = 0; i < n; i++) {
            double xi = x[idx[i]], yi = y[idx[i]];
            for (long j = i + 1; j < n; j++) {
                double dx = x[idx[j]] - xi, dy = y[idx[j]] - yi;
                sum += sqrt(dx * dx + dy * dy);
            }
        }
        *v = sum / ((double)n * (double)(n - 1) / 2.0);
        return 1;
    }
    default:
        return 0;
    }
}

/* average_distance_pts on the bucket grid: 1 with *v, 0 nodata, -1 no memory. */
static int pairs_bg_node(const gk_job *job, const gk_bg_rows *rows, double nx, double ny,
                         gk_scratch *s, double *v)
{
    const gk_bucket_grid *g = gk_window_bg(job);
    size_t cand = gk_bg_candidates(g, rows, nx);
    if (cand > s->cap && gk_scratch_reserve(s, cand) != GK_OK)
        return -1;
    long n = (long)gk_bg_gather(g, &job->ell, rows, nx, ny, s->idx);
    if (n < job->alg.min_points || n < 2)
        return 0;
    const double *x = gk_bg_x(g), *y = gk_bg_y(g);
    const int *pos = s->idx;
    double sum = 0.0;
    for (long i = 0; i < n; i++) {
        double xi = x[pos[i]], yi = y[pos[i]];
        for (long j = i + 1; j < n; j++) {
            double dx = x[pos[j]] - xi, dy = y[pos[j]] - yi;
            sum += sqrt(dx * dx + dy * dy);
        }
    }
    *v = sum / ((double)n * (double)(n - 1) / 2.0);
    return 1;
}

static uint64_t metrics_bg_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    const gk_algorithm *a = &job->alg;
    int what = a->kind == GK_ALG_COUNT              ? GK_BG_COUNT
               : a->kind == GK_ALG_AVERAGE_DISTANCE ? GK_BG_SUM_DIST
               : a->kind == GK_ALG_MINIMUM || a->kind == GK_ALG_MAXIMUM || a->kind == GK_ALG_RANGE
                   ? GK_BG_MINMAX_Z
                   : -1;
    uint64_t nodata = 0;
    gk_bg_rows rows;
    const int method =
        what >= 0 ? gk_bg_method(gk_window_bg(job), &job->ell, t->g, what) : GK_BG_SCAN;
    if (method == GK_BG_STAMP) { /* count only */
        const size_t sbn = gk_bg_stamp_scratch(t->w);
        if (gk_scratch_reserve2(s, sbn) != GK_OK)
            return UINT64_MAX;
        gk_bg_stamp(gk_window_bg(job), &job->ell, t->g, t->x0, t->y0, t->w, t->h, what, s->d2b, out,
                    NULL);
        for (size_t i = 0; i < (size_t)t->w * (size_t)t->h; i++)
            if (!(out[i] >= (double)a->min_points)) {
                out[i] = a->nodata;
                nodata++;
            }
        return nodata;
    }
    const int sweep = method == GK_BG_SWEEP;
    double *sb = NULL;
    if (sweep) {
        if (gk_scratch_reserve2(s, gk_bg_sweep_scratch(t->w)) != GK_OK)
            return UINT64_MAX;
        sb = s->d2b;
    }
    for (int j = 0; j < t->h; j++) {
        double ny = gk_grid_node_y(t->g, t->y0 + j);
        double *row = out + (size_t)j * t->w;
        gk_bg_sweep_out sw;
        if (sweep)
            gk_bg_sweep(gk_window_bg(job), &job->ell, t->g, t->x0, t->w, ny, sb, &sw);
        else
            gk_bg_rows_init(gk_window_bg(job), &job->ell, ny, &rows);
        for (int i = 0; i < t->w; i++) {
            double nx = gk_grid_node_x(t->g, t->x0 + i), v = 0.0;
            int r;
            if (what < 0) {
                r = pairs_bg_node(job, &rows, nx, ny, s, &v);
                if (r < 0)
                    return UINT64_MAX;
            } else {
                gk_bg_acc acc;
                if (sweep) /* count only */
                    acc = (gk_bg_acc){(long)sw.n[i], 0.0, INFINITY, -INFINITY};
                else
                    gk_bg_node(gk_window_bg(job), &job->ell, &rows, nx, ny, what, &acc);
                /* count: empty is a count of 0, not nodata; the others need a point */
                r = acc.n >= a->min_points && (acc.n > 0 || what == GK_BG_COUNT);
                if (what == GK_BG_COUNT)
                    v = (double)acc.n;
                else if (what == GK_BG_SUM_DIST)
                    v = acc.sum / (double)acc.n;
                else
                    v = a->kind == GK_ALG_MINIMUM   ? acc.lo
                        : a->kind == GK_ALG_MAXIMUM ? acc.hi
                                                    : acc.hi - acc.lo;
            }
            if (r) {
                row[i] = v;
            } else {
                row[i] = a->nodata;
                nodata++;
            }
        }
    }
    return nodata;
}

uint64_t gk_metrics_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    if (gk_window_bg(job))
        return metrics_bg_tile(job, t, out, s);
    return gk_nb_run_tile(job, t, out, s, metrics_node);
}

/* ---- the registry's rows ----------------------------------------------- */

#define METRIC_GPU(fn, op)                                                                         \
    static const char *fn(const gk_job *job, gk_gpu_job_desc *d)                                   \
    {                                                                                              \
        return gk_window_gpu(job, d, op, 0);                                                       \
    }
METRIC_GPU(minimum_gpu, GK_GPU_MINIMUM)
METRIC_GPU(maximum_gpu, GK_GPU_MAXIMUM)
METRIC_GPU(range_gpu, GK_GPU_RANGE)
METRIC_GPU(count_gpu, GK_GPU_COUNT)
METRIC_GPU(average_distance_gpu, GK_GPU_AVERAGE_DISTANCE)
METRIC_GPU(average_distance_pts_gpu, GK_GPU_AVERAGE_DISTANCE_PTS)

/* The metrics take no max_points (gdal_grid's data metrics). */
#define METRIC_ROW(id, nm, k, summ, extra_keys, extra_flags, gpu)                                  \
    const gk_method id = {                                                                         \
        .name = nm,                                                                                \
        .kind = k,                                                                                 \
        .summary = summ,                                                                           \
        .keys = GK_WINDOW_KEYS | (extra_keys),                                                     \
        .flags = GK_M_WINDOW_STAT | (extra_flags),                                                 \
        .quadtree_ties = gk_ties_quadrants,                                                        \
        .prepare = gk_window_prepare,                                                              \
        .release = gk_window_release,                                                              \
        .cpu_index = gk_index_tree,                                                                \
        .cpu_tile = gk_metrics_tile,                                                               \
        .gpu_describe = gpu,                                                                       \
        .cost_ns = gk_window_cost,                                                                 \
    }
METRIC_ROW(gk_method_minimum, "minimum", GK_ALG_MINIMUM,
           "smallest value in the search ellipse (gdal_grid)", GK_KEY_QUADRANT, 0, minimum_gpu);
METRIC_ROW(gk_method_maximum, "maximum", GK_ALG_MAXIMUM,
           "largest value in the search ellipse (gdal_grid)", GK_KEY_QUADRANT, 0, maximum_gpu);
METRIC_ROW(gk_method_range, "range", GK_ALG_RANGE,
           "largest minus smallest value in the search ellipse (gdal_grid)", GK_KEY_QUADRANT, 0,
           range_gpu);
METRIC_ROW(gk_method_count, "count", GK_ALG_COUNT,
           "number of points in the search ellipse (gdal_grid)", GK_KEY_QUADRANT, GK_M_NO_Z,
           count_gpu);
METRIC_ROW(gk_method_average_distance, "average_distance", GK_ALG_AVERAGE_DISTANCE,
           "mean distance from the node to the points in the search ellipse (gdal_grid)",
           GK_KEY_QUADRANT, GK_M_NO_Z, average_distance_gpu);
/* average_distance_pts ignores per-quadrant keys (gdal_grid takes none) */
METRIC_ROW(gk_method_average_distance_pts, "average_distance_pts", GK_ALG_AVERAGE_DISTANCE_PTS,
           "mean distance between the points in the search ellipse (gdal_grid)", 0, GK_M_NO_Z,
           average_distance_pts_gpu);
