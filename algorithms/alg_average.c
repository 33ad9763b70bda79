/* alg_average.c - moving average of Z inside the search ellipse (gdal_grid's
 * average), with the per-quadrant selection (which honours max_points). */
#include "neighbours.h"

static int average_node(const gk_job *job, double nx, double ny, double hit2, gk_scratch *s,
                        double *v)
{
    (void)hit2;
    const gk_algorithm *a = &job->alg;
    long n = gk_nb_ellipse(job, nx, ny, s);
    if (n < 0)
        return -1;
    if (gk_nb_has_quadrants(a)) {
        n = gk_nb_quadrants(job, nx, ny, s->idx, s->d2, (size_t)n, a->max_points,
                            a->min_points_per_quadrant, a->max_points_per_quadrant, s);
        if (n == GK_NB_NOMEM)
            return -1;
        if (n < 0)
            return 0;
    }
    if (n == 0 || n < a->min_points)
        return 0;
    const double *z = job->pts->z;
    double sum = 0.0;
    for (long i = 0; i < n; i++)
        sum += z[s->idx[i]];
    *v = sum / (double)n;
    return 1;
}

uint64_t gk_average_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    return gk_nb_run_tile(job, t, out, s, average_node);
}
