/* SPDX-License-Identifier: MIT */
/*
 * density/gauss_relative.c - gauss with mode=relative: |computed - exact|
 * <= E exact at every node, for weights >= 0 (a sum that can cancel has no
 * relative bound). A cut-off per node, from its nearest point of positive
 * weight j at distance d_j: the exact value is at least
 * L = w_j exp(-d_j^2 / (2 sigma^2)), and a point whose term, relative to
 * d_j, is below E w_j / sum w is dropped; all of them together add less
 * than E L <= E exact. The sum is taken relative to d_j and multiplied by
 * exp(-d_j^2 / (2 sigma^2)) last, so that a node far from every point
 * keeps its relative accuracy down to double's least normal (about
 * 1e-308). method=direct keeps every point. Positive terms: rounding adds
 * about n 2^-53 relative.
 *
 * The arithmetic is density_sum.h's gk_ds_relative, over bins of the points
 * of positive weight, in bin order: the same bytes for any tiling, and on
 * the GPU (gpu/density.cu, a thread a node).
 */
#include "core/method.h"
#include "density/density_bins.h"
#include "density/density_sum.h"
#include "density/gauss.h"

#include <math.h>
#include <stdlib.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

void gk_gauss_relative_view(const gk_job *job, gk_ds_bins_view *v)
{
    const gk_dens_bins *b = gk_dens_bins_of(job);
    v->x = b->x, v->y = b->y, v->z = b->z, v->start = b->start;
    v->nbx = b->nbx, v->nby = b->nby, v->x0 = b->x0, v->y0 = b->y0, v->side = b->side;
}

uint64_t gk_gauss_relative_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    (void)s;
    const gk_algorithm *a = &job->alg;
    const double sig = gk_gauss_of(a)->sigma, c = 1.0 / (2.0 * sig * sig);
    const int direct = gk_gauss_of(a)->method == GK_GAUSS_DIRECT;
    gk_ds_bins_view v;
    gk_gauss_relative_view(job, &v);
    for (int j = 0; j < t->h; j++) {
        const double ny = gk_grid_node_y(t->g, t->y0 + j);
        for (int i = 0; i < t->w; i++) {
            double sum = gk_gauss_of(a)->sumw > 0 && gk_dens_bins_of(job)->n
                             ? gk_ds_relative(&v, gk_grid_node_x(t->g, t->x0 + i), ny, c,
                                              gk_gauss_of(a)->epsilon, gk_gauss_of(a)->sumw, direct)
                             : 0.0;
            if (gk_gauss_of(a)->normalize)
                sum = sum / (2.0 * M_PI * sig * sig);
            out[(size_t)j * t->w + i] = sum;
        }
    }
    return 0;
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
    gk_gauss_of(a)->sumw = sumw;
    /* the points of positive weight (a zero adds nothing), in bins of about
     * a typical cut-off's eighth */
    gk_points *pos = gk_points_new(job->ctx);
    if (!pos)
        return gk_error(job->ctx, GK_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < p->n; k++)
        if (p->z[k] > 0 && gk_points_add(pos, p->x[k], p->y[k], p->z[k])) {
            gk_points_free(pos);
            return gk_error(job->ctx, GK_ERR_NOMEM, "out of memory");
        }
    const double n = (double)(p->n > 2 ? p->n : 2);
    const double reach = gk_gauss_of(a)->sigma * sqrt(2.0 * log(n / gk_gauss_of(a)->epsilon));
    gk_dens_state *st = gk_dens_state_make(job);
    int rc = st ? gk_dens_bins_build(job->ctx, pos, reach, 8, &st->bins) : GK_ERR_NOMEM;
    gk_points_free(pos);
    return rc;
}
