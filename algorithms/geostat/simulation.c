/* SPDX-License-Identifier: MIT */
/*
 * geostat/simulation.c - sequential Gaussian simulation (docs/simulation.md):
 * -a kriging:...:nsim=N (or -a simulation:...), gstat's krige(nsim=) with a
 * known mean (simple kriging) or ordinary kriging in each neighbourhood.
 *
 * A realization is a property of the whole grid: the first tile of a grid
 * simulates it (any thread; the others wait) and every tile copies its
 * part, so tiles, strips and processes see the same values. The path and
 * the weights are shared by the realizations (simulation_weights.c); a
 * realization is then
 *
 *     y(node) = cst + sum_k w_k y(earlier node k) + sd * e(seed, r, node)
 *
 * along the path, with e a normal deviate that depends on the seed, the
 * realization and the node only (core/random.h): the same values for any
 * threads, tiles, ranks and batches. Values are held as floats between
 * nodes (as gstat and GSLIB hold them) and computed in doubles.
 *
 * Realizations are simulated in batches; with summary= only the summary's
 * accumulators stay between batches, so memory follows the batch, not N.
 * With indicator= (sequential indicator simulation) each cut-off has its
 * weights, and a node's value is drawn from its kriged, order-corrected
 * distribution (forward_ik). The weights may come from the GPU (fill), the
 * same bits.
 */
#include "simulation.h"
#include "core/method.h"
#include "core/device.h"
#include "core/random.h"
#include "normal_score.h"
#include "search/kdtree.h"

#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The weights kept across batches (beyond this they are recomputed per
 * batch, chunk by chunk), and what a summary's run may hold: its
 * accumulators, a chunk of weights and a batch of realizations. */
#define WEIGHT_BYTES (512.0 * 1024 * 1024)
#define SUMMARY_BYTES 1.75e9

typedef struct {
    gk_grid g;
    float *y; /* realizations: node-major, nsim per node (realizations=yes) */
    int32_t *datum;
    float *stats; /* summary: nstat planes */
} simulated;

typedef struct {
    gk_krige_state *k; /* kriging's state: the model */
    pthread_mutex_t mu;
    /* the data, duplicates merged: coordinates, values, values in
     * simulation's units (the normal scores) */
    size_t nd, merged;
    double *x, *y, *z, *v;
    gk_kdtree *tree;
    gk_nscore ns;
    double mean; /* simple kriging's mean, or the data's for a few neighbours */
    simulated *s;
    int ns_count;
    /* indicator simulation (indicator= with nsim=): each cut-off's kriging
     * state (its model) and the data's indicators and proportion below it;
     * the classes' outer ends */
    int ncut;
    double cut[GK_IK_MAX_CUTS];
    gk_krige_state *kc[GK_IK_MAX_CUTS];
    double *ind[GK_IK_MAX_CUTS];
    double prop[GK_IK_MAX_CUTS];
    double zlo, zhi;
} sim_state;

const gk_krige_state *gk_sim_kriging_of(const gk_job *job)
{
    const sim_state *st = job->state;
    return st ? st->k : NULL;
}

static const gk_sim_params *params_of(const gk_job *job)
{
    return &gk_krige_params_of(&job->alg)->sim;
}

static int threads_of(const gk_job *job)
{
    int t = gk_context_threads(job->ctx);
    return t > 0 ? t : omp_get_num_procs();
}

static void sim_release(gk_job *job)
{
    sim_state *st = job->state;
    if (!st)
        return;
    for (int i = 0; i < st->ns_count; i++) {
        free(st->s[i].y);
        free(st->s[i].datum);
        free(st->s[i].stats);
    }
    free(st->s);
    free(st->x), free(st->y), free(st->z), free(st->v);
    gk_kdtree_free(st->tree);
    gk_nscore_free(&st->ns);
    for (int c = 0; c < st->ncut; c++) {
        gk_job tmp = {.state = st->kc[c]};
        gk_kriging_free(&tmp);
        free(st->ind[c]);
    }
    pthread_mutex_destroy(&st->mu);
    job->state = st->k;
    gk_kriging_free(job); /* kriging's state */
    free(st);
    job->state = NULL;
}

typedef struct {
    double x, y, z;
} xyz;

static int cmp_xyz(const void *a, const void *b)
{
    const xyz *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->y != q->y)
        return p->y < q->y ? -1 : 1;
    return (p->z > q->z) - (p->z < q->z);
}

/* The data: points at one place merged (their mean: a system with both is
 * singular), sorted by (x, y). */
static int merge_data(gk_job *job, sim_state *st)
{
    const gk_points *p = job->pts;
    xyz *a = malloc((p->n ? p->n : 1) * sizeof *a);
    st->x = malloc((p->n ? p->n : 1) * sizeof *st->x);
    st->y = malloc((p->n ? p->n : 1) * sizeof *st->y);
    st->z = malloc((p->n ? p->n : 1) * sizeof *st->z);
    st->v = malloc((p->n ? p->n : 1) * sizeof *st->v);
    if (!a || !st->x || !st->y || !st->z || !st->v) {
        free(a);
        return gk_error(job->ctx, GK_ERR_NOMEM, "simulation: out of memory");
    }
    for (size_t i = 0; i < p->n; i++)
        a[i] = (xyz){p->x[i], p->y[i], p->z[i]};
    qsort(a, p->n, sizeof *a, cmp_xyz);
    size_t m = 0;
    for (size_t i = 0; i < p->n;) {
        size_t j = i + 1;
        double sum = a[i].z;
        while (j < p->n && a[j].x == a[i].x && a[j].y == a[i].y)
            sum += a[j++].z;
        st->x[m] = a[i].x;
        st->y[m] = a[i].y;
        st->z[m] = sum / (double)(j - i);
        st->merged += j - i - 1;
        m++;
        i = j;
    }
    st->nd = m;
    free(a);
    return GK_OK;
}

/* Indicator simulation: each cut-off's indicators of the (merged) data, its
 * kriging state from its model (models=, model=, or model=auto fitted on
 * its indicators), the classes' ends. */
static int indicator_prepare(gk_job *job, sim_state *st, double lo, double hi)
{
    const gk_kriging_params *kp = gk_krige_params_of(&job->alg);
    const gk_sim_params *sp = &kp->sim;
    const gk_ik_params *ik = &kp->ik;
    const gk_points *p = job->pts;
    st->zlo = sp->have_zmin ? sp->zmin : lo;
    st->zhi = sp->have_zmax ? sp->zmax : hi;
    if (st->zlo > lo || st->zhi < hi)
        return gk_error(job->ctx, GK_ERR_ARG,
                        "simulation: zmin= and zmax= must hold the data (%g to %g)", lo, hi);
    memcpy(st->v, st->z, st->nd * sizeof *st->v); /* nodes hold values of z */
    for (int c = 0; c < ik->ncut; c++) {
        const double cut = ik->cut[c];
        if (!(cut > lo) || !(cut <= hi))
            return gk_error(job->ctx, GK_ERR_ARG,
                            "indicator simulation: the cut-off %g has no values %s it (the data "
                            "are %g to %g)",
                            cut, cut > lo ? "above" : "below", lo, hi);
        st->cut[c] = cut;
        if (!(st->ind[c] = malloc(st->nd * sizeof *st->ind[c])))
            return gk_error(job->ctx, GK_ERR_NOMEM, "simulation: out of memory");
        st->ncut = c + 1;
        double below = 0.0;
        for (size_t i = 0; i < st->nd; i++)
            below += st->ind[c][i] = st->z[i] < cut ? 1.0 : 0.0;
        st->prop[c] = below / (double)st->nd;
        /* the cut-off's kriging state, on every point's indicator */
        gk_points *q = gk_points_new(job->ctx);
        double *x, *y, *z;
        if (!q || gk_points_extend(q, p->n, &x, &y, &z)) {
            gk_points_free(q);
            return gk_error(job->ctx, GK_ERR_NOMEM, "simulation: out of memory");
        }
        memcpy(x, p->x, p->n * sizeof *x);
        memcpy(y, p->y, p->n * sizeof *y);
        for (size_t i = 0; i < p->n; i++)
            z[i] = p->z[i] < cut ? 1.0 : 0.0;
        gk_job tmp = *job;
        tmp.pts = q;
        tmp.state = NULL;
        gk_kriging_params *k = gk_krige_params_of(&tmp.alg);
        memset(&k->sim, 0, sizeof k->sim);
        if (ik->nmodels) {
            k->model = ik->models[c];
            k->model_auto = 0;
        }
        int rc = gk_kriging_prepare(&tmp);
        st->kc[c] = tmp.state;
        gk_points_free(q);
        if (rc)
            return gk_error(job->ctx, rc, "indicator simulation, cut-off %g: %s", cut,
                            gk_errmsg(job->ctx));
        if (!gk_vmodel_bounded(&st->kc[c]->model))
            return gk_error(job->ctx, GK_ERR_ARG,
                            "indicator simulation, cut-off %g: the model must be bounded", cut);
    }
    return GK_OK;
}

static int sim_prepare(gk_job *job)
{
    const gk_kriging_params *kp = gk_krige_params_of(&job->alg);
    const gk_sim_params *sp = &kp->sim;
    int rc = gk_kriging_prepare(job); /* the model, its sill */
    sim_state *st = calloc(1, sizeof *st);
    if (!st) {
        gk_kriging_free(job);
        return gk_error(job->ctx, GK_ERR_NOMEM, "simulation: out of memory");
    }
    st->k = job->state;
    job->state = st;
    if (pthread_mutex_init(&st->mu, NULL)) {
        free(st);
        job->state = NULL;
        return gk_error(job->ctx, GK_ERR_NOMEM, "simulation: out of memory");
    }
    job->nbands = gk_sim_bands(&job->alg);
    if (rc)
        return rc;
    if (!gk_vmodel_bounded(&st->k->model))
        return gk_error(job->ctx, GK_ERR_ARG,
                        "simulation: the variogram model must be bounded (a covariance): "
                        "%s is not",
                        job->alg.canonical);
    if ((rc = merge_data(job, st)))
        return rc;
    if (st->nd == 0)
        return gk_error(job->ctx, GK_ERR_ARG, "simulation: no points with a value");
    double lo = st->z[0], hi = st->z[0], sum = 0.0;
    for (size_t i = 0; i < st->nd; i++) {
        lo = fmin(lo, st->z[i]), hi = fmax(hi, st->z[i]);
        sum += st->z[i];
    }
    if (kp->ik.ncut) {
        if ((rc = indicator_prepare(job, st, lo, hi)))
            return rc;
    } else if (sp->normal_score) {
        if (sp->have_zmin && sp->zmin > lo)
            return gk_error(job->ctx, GK_ERR_ARG,
                            "simulation: zmin=%g is above the smallest value %g", sp->zmin, lo);
        if (sp->have_zmax && sp->zmax < hi)
            return gk_error(job->ctx, GK_ERR_ARG,
                            "simulation: zmax=%g is below the largest value %g", sp->zmax, hi);
        if (!(hi > lo))
            return gk_error(job->ctx, GK_ERR_ARG,
                            "simulation: transform=normal_score needs values that differ (all "
                            "%zu are %g)",
                            st->nd, lo);
        /* the table of every point, as the variogram of the scores takes
         * it (gk_normal_scores); a merged point's score is its mean's */
        if (gk_nscore_build(job->pts->z, job->pts->n, sp->have_zmin ? sp->zmin : lo,
                            sp->have_zmax ? sp->zmax : hi, &st->ns))
            return gk_error(job->ctx, GK_ERR_NOMEM, "simulation: out of memory");
        for (size_t i = 0; i < st->nd; i++)
            st->v[i] = gk_nscore_forward(&st->ns, st->z[i]);
        st->mean = 0.0;
    } else {
        memcpy(st->v, st->z, st->nd * sizeof *st->v);
        st->mean = kp->type == GK_KRIGE_SIMPLE ? kp->mean : sum / (double)st->nd;
    }
    st->tree = gk_kdtree_build(st->x, st->y, st->nd);
    if (!st->tree)
        return gk_error(job->ctx, GK_ERR_NOMEM, "simulation: out of memory");
    if (st->merged)
        snprintf(job->warning, sizeof job->warning,
                 "simulation: %zu points at the place of another were merged into their mean",
                 st->merged);
    return GK_OK;
}

/* ---- one grid -------------------------------------------------------------- */

/* Path positions ahead whose neighbours' values forward fetches early. */
#define GK_SIM_AHEAD 4

/* Phase 2 of one batch: realizations [r0, r0 + B) along the path of the
 * weights' positions, into y (node-major, B per node), on threads that
 * share the realizations. */
static int forward(const gk_sim_geom *g, const gk_sim_weights *w, uint64_t seed, int r0, int B,
                   float *y, int threads)
{
    const int K = g->K;
    int fail = 0;
#pragma omp parallel num_threads(threads) reduction(| : fail)
    {
        const int T = omp_get_num_threads(), t = omp_get_thread_num();
        const int b0 = (int)((int64_t)B * t / T), b1 = (int)((int64_t)B * (t + 1) / T);
        const int nb = b1 - b0;
        /* a node's sums for this thread's realizations, neighbour after
         * neighbour (each value's additions in the weights' order) */
        double *restrict acc = nb > 0 ? malloc((size_t)nb * sizeof *acc) : NULL;
        uint64_t *row = nb > 0 ? malloc((size_t)nb * sizeof *row) : NULL;
        fail = nb > 0 && (!acc || !row);
        for (int b = 0; b < nb && row; b++) /* each realization's part of the noise's hash */
            row[b] = gk_random_row(seed, GK_SIM_STREAM_NOISE, (uint64_t)(r0 + b0 + b));
        for (uint32_t p = w->p0; p < w->p1 && acc && row; p++) {
            const size_t at = p - w->p0;
            const uint32_t node = g->path[p];
            const uint32_t *nbr = w->nb + at * K;
            const double *wk = w->w + at * K;
            const int nn = w->nn[at];
#if defined(__GNUC__) || defined(__clang__)
            /* the neighbours' values a few positions ahead: scattered over
             * the grid, each a cache miss the loads would otherwise wait for */
            if (p + GK_SIM_AHEAD < w->p1) {
                const size_t ah = at + GK_SIM_AHEAD;
                for (int q = 0; q < w->nn[ah]; q++) {
                    const char *r = (const char *)(y + (size_t)w->nb[ah * K + q] * B + b0);
                    for (size_t o = 0; o < (size_t)nb * sizeof *y; o += 64)
                        __builtin_prefetch(r + o);
                }
            }
#endif
            for (int b = 0; b < nb; b++)
                acc[b] = w->cst[at];
            for (int q = 0; q < nn; q++) {
                const double wq = wk[q];
                const float *restrict src = y + (size_t)nbr[q] * B + b0;
                for (int b = 0; b < nb; b++)
                    acc[b] += wq * (double)src[b];
            }
            float *dst = y + (size_t)node * B + b0;
            const double sd = w->sd[at];
            for (int b = 0; b < nb; b++) {
                const double e =
                    gk_normal_quantile(gk_random_uniform(gk_random_bits_at(row[b], node)));
                dst[b] = (float)(acc[b] + sd * e);
            }
        }
        free(acc), free(row);
    }
    return fail ? GK_ERR_NOMEM : GK_OK;
}

/* Indicator simulation's phase 2: at each node, each cut-off's probability
 * kriged from the neighbours' indicators (their values below the cut-off
 * or not), GSLIB's order relations, then one uniform draws the class and,
 * linearly, the value within it (the outer classes to zmin and zmax). */
static int forward_ik(const sim_state *st, const gk_sim_geom *g, const gk_sim_weights *w,
                      uint64_t seed, int r0, int B, float *y, int threads)
{
    const int K = g->K, nc = st->ncut;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int b = 0; b < B; b++) {
        double F[GK_IK_MAX_CUTS], up[GK_IK_MAX_CUTS];
        const uint64_t row = gk_random_row(seed, GK_SIM_STREAM_NOISE, (uint64_t)(r0 + b));
        for (uint32_t p = w[0].p0; p < w[0].p1; p++) {
            const size_t at = p - w[0].p0;
            const uint32_t node = g->path[p];
            for (int c = 0; c < nc; c++) {
                const uint32_t *nbr = w[c].nb + at * K;
                const double *wk = w[c].w + at * K;
                double v = w[c].cst[at];
                for (int q = 0; q < w[c].nn[at]; q++)
                    v += wk[q] * (y[(size_t)nbr[q] * B + b] < st->cut[c] ? 1.0 : 0.0);
                v = v < 0 ? 0 : v > 1 ? 1 : v;
                up[c] = c && up[c - 1] > v ? up[c - 1] : v;
                F[c] = v;
            }
            double dn = 1.0; /* ordrel: the mean of the upward and downward passes */
            for (int c = nc - 1; c >= 0; c--) {
                dn = c == nc - 1 ? F[c] : (dn < F[c] ? dn : F[c]);
                F[c] = 0.5 * (up[c] + dn);
            }
            const double u = gk_random_uniform(gk_random_bits_at(row, node));
            int c = 0;
            while (c < nc && !(u < F[c]))
                c++;
            const double flo = c ? F[c - 1] : 0.0, fhi = c < nc ? F[c] : 1.0;
            const double lo = c ? st->cut[c - 1] : st->zlo, hi = c < nc ? st->cut[c] : st->zhi;
            const double t = fhi > flo ? (u - flo) / (fhi - flo) : 0.5;
            /* as a float, still in its class (below its upper cut-off, not
             * below its lower one) */
            float f = (float)(lo + t * (hi - lo));
            while (c < nc && (double)f >= hi)
                f = nextafterf(f, -INFINITY);
            while (c > 0 && (double)f < lo)
                f = nextafterf(f, INFINITY);
            y[(size_t)node * B + b] = f;
        }
    }
    return GK_OK;
}

/* The weights of positions [p0, p1): on the GPU where the context takes
 * it there (core/device_calls.c's gk_device_sim_weights), else on the CPU's
 * threads. GK_OK, or an error. */
static int fill(gk_job *job, const gk_sim_geom *g, uint32_t p0, uint32_t p1, int threads,
                gk_sim_weights *w, uint64_t *lowered)
{
    const gk_krige_state *k = g->k;
    int exact = 1, ok = k->ns <= 8 && g->K <= 32;
    for (int i = 0; ok && i < k->ns; i++) {
        const gk_vm_type t = k->st[i].type;
        exact &= t == GK_VM_NUG || t == GK_VM_SPH;
        ok &= t == GK_VM_NUG || t == GK_VM_SPH || t == GK_VM_EXP || t == GK_VM_GAU;
    }
    if (ok && p1 > p0) {
        gk_gpu_sim s = {.nx = g->nx,
                        .ny = g->ny,
                        .xmin = g->g.xmin,
                        .ymax = g->g.ymax,
                        .cw = g->cw,
                        .ch = g->ch,
                        .path = g->path,
                        .rank = g->rank,
                        .bmin = g->bmin,
                        .nbx = g->nbx,
                        .block = GK_SIM_BLOCK,
                        .nd = g->nd,
                        .dx = g->dx,
                        .dy = g->dy,
                        .dv = g->dv,
                        .K = g->K,
                        .r2max = g->r2max,
                        .mean = g->mean,
                        .ordinary = g->ordinary,
                        .D = g->D,
                        .ctab = g->ctab,
                        .ns = k->ns,
                        .A = k->A,
                        .chol_tol = GK_KRIGE_CHOL_TOL,
                        .p0 = p0,
                        .p1 = p1,
                        .cst = w->cst,
                        .sd = w->sd,
                        .w = w->w,
                        .nn = w->nn,
                        .nb = w->nb};
        for (int i = 0; i < k->ns; i++) {
            const gk_krige_struct *st = &k->st[i];
            s.type[i] = (int)st->type, s.aniso[i] = st->aniso;
            s.psill[i] = st->psill, s.range[i] = st->range;
            s.ca[i] = st->ca, s.sa[i] = st->sa, s.f[i] = st->f;
        }
        const int on = gk_device_sim_weights(job->ctx, &s, exact);
        if (on < 0)
            return gk_errno(job->ctx);
        if (on) {
            w->p0 = p0, w->p1 = p1;
            if (lowered)
                *lowered += s.lowered;
            return GK_OK;
        }
    }
    if (gk_sim_weights_fill(g, p0, p1, threads, w, lowered))
        return gk_error(job->ctx, GK_ERR_NOMEM, "simulation: out of memory for the nodes' systems");
    return GK_OK;
}

/* A value of simulation's units in z's. */
static double to_z(const sim_state *st, const gk_sim_params *sp, double v)
{
    return sp->normal_score ? gk_nscore_back(&st->ns, v) : v;
}

/* The summary's accumulators: per node, Welford's mean and sum of squares
 * of z and (for quantiles under a transform) of the scores, and the counts
 * above or below each threshold; the realizations added in their order. */
typedef struct {
    double *mz, *sz, *my, *sy;
    uint32_t *cnt; /* per node, one for each p> or p< band */
    int nprob;
} accum;

static void accumulate(const sim_state *st, const gk_sim_params *sp, const gk_sim_geom *g,
                       const float *y, int r0, int B, accum *acc, int threads)
{
    const size_t N = (size_t)g->nx * g->ny;
    const int ns = sp->nstat;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t n = 0; n < (int64_t)N; n++) {
        double mz = acc->mz[n], sz = acc->sz[n];
        double my = acc->my ? acc->my[n] : 0.0, sy = acc->my ? acc->sy[n] : 0.0;
        const int32_t d = g->datum[n];
        for (int b = 0; b < B; b++) {
            const double v = y[(size_t)n * B + b];
            const double z = d >= 0 ? st->z[d] : to_z(st, sp, v);
            const double cnt = (double)(r0 + b + 1);
            double dz = z - mz;
            mz += dz / cnt;
            sz += dz * (z - mz);
            if (acc->my) {
                double dy = v - my;
                my += dy / cnt;
                sy += dy * (v - my);
            }
            for (int s = 0, k = 0; s < ns; s++)
                if (sp->stat[s] == GK_SIM_ABOVE || sp->stat[s] == GK_SIM_BELOW) {
                    if (sp->stat[s] == GK_SIM_ABOVE ? z > sp->stat_v[s] : z < sp->stat_v[s])
                        acc->cnt[(size_t)n * acc->nprob + k]++;
                    k++;
                }
        }
        acc->mz[n] = mz, acc->sz[n] = sz;
        if (acc->my)
            acc->my[n] = my, acc->sy[n] = sy;
    }
}

/* The summary's planes from the accumulators. A percentile is the normal
 * quantile of the node's values in simulation's units, back-transformed:
 * those values are normal across realizations (each is a linear function
 * of the same normal deviates), so this is the estimate of the quantile
 * with the least Monte-Carlo noise, not an order statistic. */
static void summarize(const sim_state *st, const gk_sim_params *sp, const gk_sim_geom *g,
                      const accum *acc, float *stats, int threads)
{
    const size_t N = (size_t)g->nx * g->ny;
    const int ns = sp->nstat, nsim = sp->nsim;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t n = 0; n < (int64_t)N; n++) {
        for (int s = 0, k = 0; s < ns; s++) {
            double v = 0.0;
            switch (sp->stat[s]) {
            case GK_SIM_MEAN:
                v = acc->mz[n];
                break;
            case GK_SIM_VAR:
                v = acc->sz[n] / (nsim - 1);
                break;
            case GK_SIM_ABOVE:
            case GK_SIM_BELOW:
                v = (double)acc->cnt[(size_t)n * acc->nprob + k++] / nsim;
                break;
            case GK_SIM_QUANTILE: {
                const double q = gk_normal_quantile(sp->stat_v[s] / 100.0);
                if (g->datum[n] >= 0)
                    v = st->z[g->datum[n]];
                else if (acc->my)
                    v = to_z(st, sp, acc->my[n] + sqrt(acc->sy[n] / (nsim > 1 ? nsim - 1 : 1)) * q);
                else
                    v = acc->mz[n] + sqrt(acc->sz[n] / (nsim > 1 ? nsim - 1 : 1)) * q;
                break;
            }
            }
            stats[(size_t)s * N + n] = (float)v;
        }
    }
}

/* The tests' knobs (tests/geostat/test_simulation.c): realizations per
 * batch and positions per chunk of weights at most this, to show that the
 * values do not depend on them. 0 when unset. */
static int env_count(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : 0;
}

static double physical_memory(void)
{
    return (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
}

static int simulate(gk_job *job, sim_state *st, const gk_grid *grid, simulated *out)
{
    gk_context *ctx = job->ctx;
    const gk_kriging_params *kp = gk_krige_params_of(&job->alg);
    const gk_sim_params *sp = &kp->sim;
    const int threads = threads_of(job);
    gk_sim_geom g = {.k = st->k,
                     .g = *grid,
                     .nx = grid->nx,
                     .ny = grid->ny,
                     .cw = (grid->xmax - grid->xmin) / grid->nx,
                     .ch = (grid->ymax - grid->ymin) / grid->ny,
                     .nd = st->nd,
                     .dx = st->x,
                     .dy = st->y,
                     .dv = st->v,
                     .tree = st->tree,
                     .K = job->alg.max_points,
                     .r2max = kp->maxdist > 0 ? kp->maxdist * kp->maxdist : INFINITY,
                     .ordinary = kp->type == GK_KRIGE_ORDINARY,
                     .mean = st->mean};
    const int nw = st->ncut ? st->ncut : 1; /* systems a node: one a cut-off */
    if (st->ncut)                           /* the first cut-off's in g, the others' in gc */
        g.k = st->kc[0], g.dv = st->ind[0], g.mean = st->prop[0], g.ordinary = 1;
    const size_t N = (size_t)g.nx * g.ny;
    const int keep_all = sp->realizations > 0;
    const int nsim = sp->nsim;
    accum acc = {0};
    int need_y_stats = 0;
    for (int s = 0; s < sp->nstat; s++) {
        need_y_stats |= sp->stat[s] == GK_SIM_QUANTILE && sp->normal_score;
        acc.nprob += sp->stat[s] == GK_SIM_ABOVE || sp->stat[s] == GK_SIM_BELOW;
    }
    const size_t per = ((size_t)job->alg.max_points * 12 + 18) * nw; /* a node's weights */
    double wcap = WEIGHT_BYTES;

    /* memory: the realizations whole, or batches of them */
    const double have = physical_memory();
    int B = nsim;
    if (keep_all) {
        const double need = 4.0 * N * nsim + 16.0 * N;
        if (have > 0 && need > 0.8 * have)
            return gk_error(ctx, GK_ERR_NOMEM,
                            "simulation: %d realizations of %dx%d nodes need %.1f GB, more than "
                            "this machine's %.1f GB: write summary=... with realizations=no, or "
                            "fewer realizations at a time (seed= the same, nsim= smaller)",
                            nsim, g.nx, g.ny, need / 1e9, have / 1e9);
    } else {
        /* the path, the accumulators, then a chunk of weights and as many
         * realizations as fit in the rest */
        const double fixed = N * (12.0 + 16.0 + (need_y_stats ? 16.0 : 0.0) + 4.0 * acc.nprob);
        double budget = SUMMARY_BYTES;
        if (have > 0 && budget > 0.5 * have)
            budget = 0.5 * have;
        wcap = (budget - fixed) / 3;
        wcap = wcap > WEIGHT_BYTES ? WEIGHT_BYTES : wcap < 64e6 ? 64e6 : wcap;
        if ((double)per * N < wcap)
            wcap = (double)per * N;
        double b = (budget - fixed - wcap) / (4.0 * N);
        B = b >= nsim ? nsim : b >= 1 ? (int)b : 1;
        const int cap = env_count("GRIDKIT_SIM_BATCH");
        if (cap > 0 && cap < B)
            B = cap;
        const double need = fixed + wcap + 4.0 * N * B + 4.0 * N * sp->nstat;
        if (have > 0 && need > 0.8 * have)
            return gk_error(ctx, GK_ERR_NOMEM,
                            "simulation: a %dx%d grid needs %.1f GB, more than this machine's "
                            "%.1f GB",
                            g.nx, g.ny, need / 1e9, have / 1e9);
    }
    int rc = gk_sim_path(ctx, &g, sp->seed, sp->path_random);
    if (rc) {
        gk_sim_path_free(&g);
        return rc;
    }
    gk_sim_geom gc[GK_IK_MAX_CUTS];
    gc[0] = g;
    for (int c = 1; c < nw; c++) {
        gc[c] = g;
        gc[c].k = st->kc[c], gc[c].dv = st->ind[c], gc[c].mean = st->prop[c];
        gc[c].ctab = NULL;
        if (!rc)
            rc = gk_sim_cov_table(ctx, &gc[c]);
    }

    uint32_t chunk = g.npath;
    if ((double)per * g.npath > wcap)
        chunk = (uint32_t)(wcap / per);
    const int ccap = env_count("GRIDKIT_SIM_CHUNK");
    if (ccap > 0 && (uint32_t)ccap < chunk)
        chunk = (uint32_t)ccap;
    if (chunk < 1)
        chunk = 1;
    const int kept = chunk >= g.npath; /* the weights once, for every batch */
    gk_sim_weights w[GK_IK_MAX_CUTS] = {{0}};
    float *y = malloc(N * (size_t)B * sizeof *y), *stats = NULL;
    const int need_acc = sp->nstat > 0;
    int bad = !y;
    for (int c = 0; c < nw; c++)
        bad = bad || gk_sim_weights_alloc(&w[c], chunk, g.K);
    if (!bad && need_acc) {
        acc.mz = calloc(N, sizeof *acc.mz);
        acc.sz = calloc(N, sizeof *acc.sz);
        acc.cnt = calloc(N * (size_t)(acc.nprob ? acc.nprob : 1), sizeof *acc.cnt);
        if (need_y_stats) {
            acc.my = calloc(N, sizeof *acc.my);
            acc.sy = calloc(N, sizeof *acc.sy);
        }
        bad = !acc.mz || !acc.sz || !acc.cnt || (need_y_stats && (!acc.my || !acc.sy));
    }
    uint64_t lowered = 0;
    if (bad && !rc)
        rc = gk_error(ctx, GK_ERR_NOMEM, "simulation: out of memory for %d realizations of %dx%d",
                      B, g.nx, g.ny);
    for (int c = 0; !rc && kept && c < nw; c++)
        rc = fill(job, &gc[c], 0, g.npath, threads, &w[c], &lowered);
    for (int r0 = 0; !rc && r0 < nsim; r0 += B) {
        const int nb = nsim - r0 < B ? nsim - r0 : B;
        /* the data's nodes hold the data */
        for (size_t n = 0; n < N; n++)
            if (g.datum[n] >= 0)
                for (int b = 0; b < nb; b++)
                    y[n * nb + b] = (float)st->v[g.datum[n]];
        for (uint32_t p0 = 0; !rc && p0 < g.npath; p0 += chunk) {
            const uint32_t p1 = g.npath - p0 < chunk ? g.npath : p0 + chunk;
            for (int c = 0; !rc && !kept && c < nw; c++)
                rc = fill(job, &gc[c], p0, p1, threads, &w[c], r0 ? NULL : &lowered);
            /* the noise of realization first + r0 + b */
            const int rn = sp->first + r0;
            if (!rc && (st->ncut ? forward_ik(st, &g, w, sp->seed, rn, nb, y, threads)
                                 : forward(&g, &w[0], sp->seed, rn, nb, y, threads)))
                rc = gk_error(ctx, GK_ERR_NOMEM, "simulation: out of memory");
        }
        if (!rc && need_acc)
            accumulate(st, sp, &g, y, r0, nb, &acc, threads);
    }
    /* the summary's planes once the batches' memory is free */
    for (int c = 0; c < nw; c++)
        gk_sim_weights_free(&w[c]);
    if (rc || !keep_all) {
        free(y);
        y = NULL;
    }
    if (!rc && need_acc) {
        if (!(stats = malloc(N * (size_t)sp->nstat * sizeof *stats)))
            rc = gk_error(ctx, GK_ERR_NOMEM, "simulation: out of memory for the summary");
        else
            summarize(st, sp, &g, &acc, stats, threads);
    }
    free(acc.mz), free(acc.sz), free(acc.my), free(acc.sy), free(acc.cnt);
    if (rc) {
        free(y);
        y = NULL;
    }
    free(g.path), free(g.rank), free(g.ctab), free(g.bmin);
    for (int c = 1; c < nw; c++)
        free(gc[c].ctab);
    if (rc) {
        free(g.datum);
        free(stats);
        return rc;
    }
    if (lowered)
        gk_job_add_lowered(job, lowered);
    *out = (simulated){*grid, y, g.datum, stats};
    return GK_OK;
}

static const simulated *simulated_of(sim_state *st, const gk_grid *g)
{
    for (int k = 0; k < st->ns_count; k++)
        if (!memcmp(&st->s[k].g, g, sizeof *g))
            return &st->s[k];
    return NULL;
}

/* Before grid g's tiles: its realizations, once (any thread; the others wait). */
static int sim_grid(gk_job *job, const gk_grid *g)
{
    sim_state *st = job->state;
    int rc = GK_OK;
    pthread_mutex_lock(&st->mu);
    if (!simulated_of(st, g)) {
        simulated *grown = realloc(st->s, (size_t)(st->ns_count + 1) * sizeof *grown);
        if (!grown) {
            rc = gk_error(job->ctx, GK_ERR_NOMEM, "simulation: out of memory");
        } else {
            st->s = grown;
            simulated one;
            rc = simulate(job, st, g, &one);
            if (!rc)
                st->s[st->ns_count++] = one;
        }
    }
    pthread_mutex_unlock(&st->mu);
    return rc;
}

static uint64_t sim_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *scr)
{
    (void)scr;
    sim_state *st = job->state;
    const gk_sim_params *sp = params_of(job);
    pthread_mutex_lock(&st->mu);
    const simulated *s = simulated_of(st, t->g);
    pthread_mutex_unlock(&st->mu);
    if (!s)
        return UINT64_MAX;
    const size_t T = (size_t)t->w * t->h, N = (size_t)t->g->nx * t->g->ny;
    const int nr = sp->realizations > 0 ? sp->nsim : 0;
    for (int j = 0; j < t->h; j++)
        for (int i = 0; i < t->w; i++) {
            const size_t n = (size_t)(t->y0 + j) * t->g->nx + (size_t)(t->x0 + i);
            const size_t q = (size_t)j * t->w + i;
            const int32_t d = s->datum[n];
            for (int b = 0; b < nr; b++)
                out[(size_t)b * T + q] = d >= 0 ? st->z[d] : to_z(st, sp, s->y[n * (size_t)nr + b]);
            for (int k = 0; k < sp->nstat; k++)
                out[(size_t)(nr + k) * T + q] = s->stats[(size_t)k * N + n];
        }
    return 0;
}

/* Cross-validation predicts held-out values: a draw is not a prediction. */
static gk_cv_method sim_cv(const gk_algorithm *a, size_t ntrain, const char **why,
                           const char **avoid)
{
    (void)a, (void)ntrain;
    *why = "draws realizations, not predictions";
    *avoid = "cross-validate the kriging it simulates (the same keys without nsim=)";
    return GK_CV_NONE;
}

const gk_method gk_method_simulation = {
    .name = "simulation",
    .kind = GK_ALG_SIMULATION,
    .summary = "sequential Gaussian simulation (kriging with nsim=N): realizations, or their "
               "mean, variance, probabilities and percentiles, as bands",
    .parse = gk_kriging_parse,
    .own_keys = "type=ordinary|simple, mean, model=Sph|Exp|Gau|..., psill, range, nugget, kappa, "
                "anis_angle, anis_ratio, variogram=FILE.json, max_points, radius, nsim, first, "
                "seed, "
                "transform=normal_score|none, zmin, zmax, path=multigrid|random, "
                "summary=mean|var|p>V|p<V|qP, realizations=yes|no, nodata",
    .prepare = sim_prepare,
    .release = sim_release,
    .cpu_tile = sim_tile,
    .grid_prepare = sim_grid,
    .cv_way = sim_cv,
    .bands = gk_sim_bands,
    .band_name = gk_sim_band_name,
    .lowered_form = "a system that was singular with all its neighbours and took fewer",
};
