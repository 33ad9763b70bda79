/*
 * density/gauss_relative.c - gauss with mode=relative: |computed - exact|
 * <= E exact at every node, for weights >= 0 (a sum that can cancel has no
 * relative bound). A cut-off radius per node, from its nearest point of
 * positive weight j at distance d_j: the exact value is at least
 * L = w_j exp(-d_j^2 / (2 sigma^2)), and the points beyond R, with
 *     R^2 = d_j^2 + 2 sigma^2 ln(sum w / (E w_j)),
 * add less than sum w exp(-R^2 / (2 sigma^2)) = E L <= E exact. The sum is
 * taken relative to d_j, sum w exp(-(d^2 - d_j^2) / (2 sigma^2)), and
 * multiplied by exp(-d_j^2 / (2 sigma^2)) last, so that a node far from
 * every point keeps its relative accuracy down to double's least normal
 * (about 1e-308). method=direct takes R infinite. Positive terms: rounding
 * adds about n 2^-53 relative. The CPU only (a k-d tree query a node; the
 * GPU declines), in input order: the same bytes for any tiling.
 */
#include "core/method.h"
#include "density/density_sum.h"
#include "density/gauss.h"
#include "search/index.h"
#include "search/kdtree.h"
#include "search/neighbours.h"

#include <math.h>
#include <stdlib.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* The nearest points a node looks through for one of positive weight. */
#define GR_NEAR 16

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* A node by summing every point: the fallback when none of the nearest
 * GR_NEAR has a positive weight. */
static double all_points(const gk_job *job, double nx, double ny, double c)
{
    const gk_points *p = job->pts;
    double best = INFINITY;
    for (size_t k = 0; k < p->n; k++)
        if (p->z[k] > 0) {
            double dx = nx - p->x[k], dy = ny - p->y[k];
            best = fmin(best, dx * dx + dy * dy);
        }
    if (!isfinite(best))
        return 0.0;
    double s = 0.0;
    for (size_t k = 0; k < p->n; k++)
        if (p->z[k] > 0) {
            double dx = nx - p->x[k], dy = ny - p->y[k];
            s = s + p->z[k] * gk_ds_exp(-(dx * dx + dy * dy - best) * c);
        }
    return s * gk_ds_exp(-best * c);
}

static int relative_node(const gk_job *job, double nx, double ny, double hit2, gk_scratch *s,
                         double *v)
{
    (void)hit2;
    const gk_algorithm *a = &job->alg;
    const gk_points *p = job->pts;
    const double sig = a->gauss.sigma, c = 1.0 / (2.0 * sig * sig);
    double sum = 0.0;
    if (a->gauss.sumw > 0) {
        int n = gk_kdtree_knn(job->tree, nx, ny, GR_NEAR, INFINITY, s->idx, s->d2);
        int j = 0;
        while (j < n && !(p->z[s->idx[j]] > 0))
            j++;
        if (j == n) {
            sum = all_points(job, nx, ny, c);
        } else {
            const double dj2 = s->d2[j], wj = p->z[s->idx[j]];
            double r2 = INFINITY;
            if (a->gauss.method != GK_GAUSS_DIRECT)
                r2 = (dj2 + 2.0 * sig * sig * log(a->gauss.sumw / (a->gauss.epsilon * wj))) *
                     (1.0 + 1e-9); /* widened: rounding keeps more points, never fewer */
            size_t m = isfinite(r2) ? gk_kdtree_radius(job->tree, nx, ny, r2, s->idx, s->d2,
                                                        s->cap)
                                    : p->n;
            if (m > s->cap) {
                if (gk_scratch_reserve(s, m))
                    return -1;
                m = gk_kdtree_radius(job->tree, nx, ny, r2, s->idx, s->d2, s->cap);
            }
            if (isfinite(r2))
                qsort(s->idx, m, sizeof *s->idx, cmp_int); /* input order: a fixed sum */
            for (size_t i = 0; i < m; i++) {
                size_t k = isfinite(r2) ? (size_t)s->idx[i] : i;
                if (!(p->z[k] > 0))
                    continue;
                double dx = nx - p->x[k], dy = ny - p->y[k];
                double e = dx * dx + dy * dy - dj2;
                sum = sum + p->z[k] * gk_ds_exp(-(e > 0 ? e : 0.0) * c);
            }
            sum = sum * gk_ds_exp(-dj2 * c);
        }
    }
    if (a->gauss.normalize)
        sum = sum / (2.0 * M_PI * sig * sig);
    *v = sum;
    return 1;
}

uint64_t gk_gauss_relative_tile(const gk_job *job, const gk_tile *t, double *out,
                                gk_scratch *s)
{
    if (gk_scratch_reserve(s, GR_NEAR))
        return UINT64_MAX;
    return gk_nb_run_tile(job, t, out, s, relative_node);
}

int gk_gauss_relative_build(gk_job *job)
{
    gk_algorithm *a = &job->alg;
    const gk_points *p = job->pts;
    double sumw = 0.0;
    for (size_t k = 0; k < p->n; k++) {
        if (p->z[k] < 0)
            return gk_error(job->ctx, GK_ERR_ARG,
                            "-a gauss: mode=relative needs weights >= 0 (a sum of mixed signs "
                            "can cancel, and then no relative bound exists); point %zu has "
                            "weight %g: use mode=absolute",
                            k + 1, p->z[k]);
        sumw += p->z[k];
    }
    a->gauss.sumw = sumw;
    return gk_method_tree(job);
}
