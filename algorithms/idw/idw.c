/* SPDX-License-Identifier: MIT */
/*
 * idw/idw.c - what the IDW family's rows share (idw.h), below them: the
 * weighted sum over a node's search ellipse (invdist, aidw), the canonical
 * string's power and smoothing, and the GPU's bound on max_points.
 * invdist.c, invdistnn.c and aidw.c call down to it.
 */
#include "idw.h"
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
    return gk_idw_gathered(job, nx, ny, (size_t)n, p, hit2, s, v);
}

int gk_idw_gathered(const gk_job *job, double nx, double ny, size_t n, double p, double hit2,
                    gk_scratch *s, double *v)
{
    const gk_algorithm *a = &job->alg;
    const double *z = job->pts->z;
    double s2 = a->smoothing * a->smoothing;
    int k = a->max_points > 0 ? a->max_points : 0;
    size_t m;
    int hit = gk_nb_first_hit(s->idx, s->d2, n, s2, hit2);
    if (hit >= 0) {
        *v = z[hit];
        return 1;
    }
    if (gk_nb_has_quadrants(a)) {
        long q = gk_nb_quadrants(job, nx, ny, s->idx, s->d2, n, k, a->min_points_per_quadrant,
                                 a->max_points_per_quadrant, s);
        if (q == GK_NB_NOMEM)
            return -1;
        if (q < 0)
            return 0;
        m = (size_t)q;
    } else if (k > 0) {
        m = gk_nb_nearest(s->idx, s->d2, n, (size_t)k);
    } else {
        m = n;
    }
    if (m == 0 || m < (size_t)(a->min_points > 0 ? a->min_points : 0))
        return 0;
    return gk_idw_sum(z, s->idx, s->d2, m, s2, p, v);
}

void gk_idw_canonical(const gk_algorithm *a, gk_strbuf *sb)
{
    gk_strbuf_add(sb, ":power=%.17g:smoothing=%.17g", a->power, a->smoothing);
}

const char *gk_idw_gpu_limits(const gk_algorithm *a)
{
    if (a->max_points > GK_GPU_MAX_LIST_K)
        return "max_points above " GK_STR(GK_GPU_MAX_LIST_K) " has no GPU kernel";
    return NULL;
}
