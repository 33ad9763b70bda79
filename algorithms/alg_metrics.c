/* alg_metrics.c - gdal_grid's data metrics inside the search ellipse: minimum,
 * maximum, range, count, average_distance and average_distance_pts.
 * Per-quadrant keys select points as for average but never stop at max_points
 * (gdal_grid's metrics options have no max_points); average_distance_pts has no
 * per-quadrant variant and averages over distinct pairs i < j (gdal_grid.md
 * section 8, item 3). */
#include "neighbours.h"

#include <math.h>

static int metrics_node(const gk_job *job, double nx, double ny, double hit2, gk_scratch *s,
                        double *v)
{
    (void)hit2;
    const gk_algorithm *a = &job->alg;
    long n = gk_nb_ellipse(job, nx, ny, s);
    if (n < 0)
        return -1;
    if (a->kind != GK_ALG_AVERAGE_DISTANCE_PTS && gk_nb_has_quadrants(a)) {
        n = gk_nb_quadrants(job, nx, ny, s->idx, s->d2, (size_t)n, 0, a->min_points_per_quadrant,
                            a->max_points_per_quadrant, s);
        if (n == GK_NB_NOMEM)
            return -1;
        if (n < 0)
            return 0;
    }
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

uint64_t gk_metrics_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    return gk_nb_run_tile(job, t, out, s, metrics_node);
}
