/* SPDX-License-Identifier: MIT */
/*
 * geostat/kriging_gpu.c - a kriging job in the GPU module's terms
 * (core/gpu_abi.h): which kernel takes it, and the prepared model and drift
 * handed over before the first tile.
 */
#include "kriging.h"
#include "core/method.h"
#include "search/gpu_window.h"

#include <stdlib.h>
#include <string.h>

#define GK_GPU_MAX_QUAD_K 512 /* four quadrants' lists in one system */
_Static_assert(4 * GK_GPU_MAX_QUAD_K == GK_GPU_MAX_K, "a system of four quadrants' lists");

/* Kriging over every point within radius runs as the GPU's local kriging of
 * this many nearest; nodes whose window holds more go to the CPU. The GPU
 * factors systems of any size up to GK_GPU_MAX_K in panels
 * (gpu/kriging_big.cu): ~620 points a node, 129 ms for 64^2 nodes
 * on an H100 against 3.06 s with the nodes above 512 on the 16 cores.
 * GRIDKIT_GPU_KRIGE_DENSE_K sets it (tests of the split). */
static int krige_radius_k(void)
{
    const char *e = getenv("GRIDKIT_GPU_KRIGE_DENSE_K");
    int k = e && *e ? atoi(e) : GK_GPU_MAX_K;
    return k < 1 ? 1 : k > GK_GPU_MAX_K ? GK_GPU_MAX_K : k;
}

/* Kriging: what the fused local kernel and the global one (every point in
 * one system, cuSOLVER) cover; every variogram model type is (the model may
 * still be fitted later, by gk_kriging_prepare). */
const char *gk_kriging_gpu(const gk_job *job, gk_gpu_job_desc *d)
{
    const gk_algorithm *a = &job->alg;
    const gk_kriging_params *kp = gk_krige_params_of(a);
    const int omax = a->max_points_per_quadrant;
    /* kriging_prepare.c's k->global */
    const int global = a->max_points == 0 && kp->maxdist == 0 && omax == 0;
    if (!global && a->max_points > GK_GPU_MAX_K)
        return "kriging with max_points above " GK_STR(GK_GPU_MAX_K) " has no GPU kernel";
    /* omax filters the max_points nearest, which are every point here: the
     * GPU searches each quadrant's omax nearest instead */
    const int every = omax > 0 && a->max_points == 0 && kp->maxdist == 0;
    if (every && omax > GK_GPU_MAX_QUAD_K)
        return "kriging with max_points_per_quadrant above " GK_STR(
            GK_GPU_MAX_QUAD_K) " and no max_points or radius has no GPU kernel";
    /* global: double precision whatever --precision says; above 46340 points
     * cuSOLVER's 64-bit API, where the GPU's memory holds the n x n matrix
     * (krige_global.cu; job_new says why not) */
    if (global) {
        d->op = GK_GPU_KRIGE_GLOBAL;
        d->max_points = d->min_points = 0;
        d->window = GK_GPU_WIN_ALL;
        return NULL;
    }
    d->op = GK_GPU_KRIGE;
    /* every point within radius: the krige_radius_k() nearest are all of
     * them where the window holds no more (counted first, gk_device_tile) */
    d->max_points = a->max_points > 0 ? a->max_points
                    : kp->maxdist > 0 ? krige_radius_k()
                                      : 4 * omax; /* omax over every point */
    d->quad_max = every ? omax : 0;
    d->min_points = a->min_points;
    if (kp->maxdist > 0)
        gk_gpu_desc_circle(d, kp->maxdist);
    else
        d->window = GK_GPU_WIN_ALL;
    return NULL;
}

/* The kriging state (ready after gk_kriging_prepare) in the module's terms. */
int gk_kriging_gpu_params(const gk_job *job, gk_gpu_krige *g)
{
    const gk_krige_state *k = gk_krige_of(job);
    if (!k || k->nb < 1 || k->nb > GK_GPU_KRIGE_MAX_DISCR || k->nr > GK_GPU_KRIGE_MAX_P - 6 ||
        (k->nr > 0 && !k->gpts) || k->ns < 1 || k->ns > GK_GPU_KRIGE_MAX_STRUCT)
        return -1;
    memset(g, 0, sizeof *g);
    g->p = k->p;
    g->nbands = job->nbands;
    g->poly = k->poly;
    g->nr = k->nr;
    g->gpts = k->gpts;
    g->nb = k->nb;
    for (int b = 0; b < k->nb; b++) {
        g->bdx[b] = k->bdx[b];
        g->bdy[b] = k->bdy[b];
        g->bw[b] = k->bw[b];
    }
    g->ns = k->ns;
    for (int i = 0; i < k->ns; i++) {
        const gk_krige_struct *st = &k->st[i];
        gk_gpu_vstruct *o = &g->st[i];
        switch (st->type) {
        case GK_VM_NUG:
            o->type = GK_GPU_V_NUG;
            break;
        case GK_VM_SPH:
            o->type = GK_GPU_V_SPH;
            break;
        case GK_VM_EXP:
            o->type = GK_GPU_V_EXP;
            break;
        case GK_VM_GAU:
            o->type = GK_GPU_V_GAU;
            break;
        case GK_VM_MAT:
            o->type = GK_GPU_V_MAT;
            break;
        case GK_VM_STE:
            o->type = GK_GPU_V_STE;
            break;
        case GK_VM_EXC:
            o->type = GK_GPU_V_EXC;
            break;
        case GK_VM_CIR:
            o->type = GK_GPU_V_CIR;
            break;
        case GK_VM_PEN:
            o->type = GK_GPU_V_PEN;
            break;
        case GK_VM_LIN:
            o->type = GK_GPU_V_LIN;
            break;
        case GK_VM_POW:
            o->type = GK_GPU_V_POW;
            break;
        case GK_VM_HOL:
            o->type = GK_GPU_V_HOL;
            break;
        default:
            return -1;
        }
        o->kappa = st->s->kappa;
        o->aniso = st->aniso;
        o->psill = st->psill;
        o->range = st->range;
        o->ca = st->ca;
        o->sa = st->sa;
        o->f = st->f;
    }
    g->A = k->A;
    g->c00 = k->c00;
    g->mean = k->mean;
    g->omax = job->alg.max_points_per_quadrant;
    return 0;
}

/* External drift: the standardised covariates at the tile's nodes (nr
 * blocks of w h), as the CPU's tile samples them; a tile without them (the
 * drift missing, or the sampler failed) is nodata, as on the CPU. */
int gk_kriging_gpu_covariates(const gk_job *job, const gk_tile *t, double **g0)
{
    const gk_krige_state *k = gk_krige_of(job);
    *g0 = NULL;
    if (!k || k->nr == 0)
        return 0;
    if (!k->ready)
        return 1;
    size_t T = (size_t)t->w * t->h;
    double *buf = malloc((size_t)(k->nr + 2) * T * sizeof *buf);
    if (!buf)
        return -1;
    if (gk_kriging_covariates(job, t, buf)) {
        free(buf);
        return 1;
    }
    *g0 = buf;
    return 0;
}
