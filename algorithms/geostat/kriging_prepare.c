/* SPDX-License-Identifier: MIT */
/*
 * geostat/kriging_prepare.c - a kriging job's preparation, once before its
 * tiles: the variogram model (fitted when model=auto) with its anisotropy
 * precomputed, the (pseudo-)sill, gstat's block discretisation, the drift's
 * terms, and the external drift: its covariates at the points (standardised)
 * and at a tile's nodes. A global neighbourhood's system is factorised here
 * too (kriging_global.c).
 */
#include "kriging.h"
#include "kriging_kernels.h"
#include "gridkit_geostat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* gstat's 4-point Gauss-Legendre rule on [-1/2, 1/2] (block.c). */
static const double GAUSS_X[4] = {-0.4305681558, -0.1699905218, 0.1699905218, 0.4305681558};
static const double GAUSS_W[4] = {0.1739274226, 0.3260725774, 0.3260725774, 0.1739274226};

/* ---- preparation --------------------------------------------------------- */

/* model=auto: gstat's sample variogram with its defaults, and a nugget plus
 * a spherical or an exponential structure fitted by fit.variogram's default
 * (method 7); the one with the smaller weighted SSErr is kept (the candidate
 * list of gk_variogram_fit_best, fit.variogram(v, vgm(c("Sph", "Exp")))). */
static int fit_auto(gk_context *ctx, const gk_points *pts, gk_vmodel *out)
{
    gk_vgm_options vo;
    memset(&vo, 0, sizeof vo);
    gk_vgm v;
    memset(&v, 0, sizeof v);
    if (gk_variogram(ctx, pts, &vo, &v))
        return gk_error(ctx, gk_errno(ctx), "model=auto: %s", gk_errmsg(ctx));
    gk_vmodel cand[2];
    int ncand = 0, kept = -1;
    gk_fit_options fo = {7, 1, 1};
    int rc = gk_vm_candidates(ctx, "Sph,Exp", cand, 2, &ncand);
    if (!rc)
        rc = gk_variogram_fit_best(ctx, &v, 0, cand, ncand, NULL, 0, &fo, NULL, &kept);
    gk_vgm_free(&v);
    if (rc)
        return gk_error(ctx, GK_ERR_ARG,
                        "model=auto: %s: give model= or variogram=", gk_errmsg(ctx));
    *out = cand[kept];
    return GK_OK;
}

static double nugget_of(const gk_vmodel *m)
{
    double c = 0.0;
    for (int i = 0; i < m->n; i++)
        if (m->s[i].type == GK_VM_NUG)
            c += m->s[i].psill;
    return c;
}

int gk_kriging_prepare(gk_job *job)
{
    gk_context *ctx = job->ctx;
    const gk_kriging_params *kp = gk_krige_params_of(&job->alg);
    const gk_algorithm *a = &job->alg;
    const gk_points *pts = job->pts;
    gk_krige_state *k = calloc(1, sizeof *k);
    if (!k)
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory");
    job->state = k;
    job->nbands = kp->variance ? 2 : 1;

    if (kp->variogram_file[0] && kp->model.n == 0)
        return gk_error(ctx, GK_ERR_ARG,
                        "kriging: variogram=%s was not read (the caller must load it with "
                        "gk_kriging_set_model)",
                        kp->variogram_file);
    k->model = kp->model;
    if (kp->model_auto && fit_auto(ctx, pts, &k->model))
        return gk_errno(ctx);
    if (gk_vmodel_check(ctx, &k->model))
        return gk_errno(ctx);
    k->ns = k->model.n;
    for (int i = 0; i < k->ns; i++) {
        const gk_vm_structure *s = &k->model.s[i];
        gk_krige_struct *st = &k->st[i];
        st->s = s;
        st->type = s->type;
        st->psill = s->psill;
        st->range = s->range;
        st->aniso = !(s->anis_ratio == 1.0 || s->type == GK_VM_NUG);
        if (st->aniso) { /* as gk_vm_distance (gstat's get_tm, 2-D) */
            double p = s->anis_angle;
            double alpha = (p < 270.0 ? 90.0 - p : 450.0 - p) * (M_PI / 180.0);
            st->sa = sin(alpha);
            st->ca = cos(alpha);
            st->f = 1.0 / (s->anis_ratio > 1e-30 ? s->anis_ratio : 1e-30);
        }
    }
    k->type = kp->type;
    k->mean = kp->mean;
    gk_kk_init();

    double x0, y0, x1, y1;
    if (gk_points_bounds(pts, &x0, &y0, &x1, &y1))
        return gk_errno(ctx);
    double diag = hypot(x1 - x0, y1 - y0);
    if (gk_vmodel_bounded(&k->model)) {
        k->A = gk_vmodel_sill(&k->model);
        if (!(k->A > 0))
            return gk_error(ctx, GK_ERR_ARG, "kriging: the variogram model has a zero sill");
    } else {
        if (k->type == GK_KRIGE_SIMPLE)
            return gk_error(ctx, GK_ERR_ARG,
                            "kriging: simple kriging needs a bounded variogram model");
        /* A pseudo-sill above any semivariance met between the points (and
         * the targets near them): weights and variances do not depend on it. */
        double minratio = 1.0;
        for (int i = 0; i < k->model.n; i++)
            if (k->model.s[i].anis_ratio < minratio)
                minratio = k->model.s[i].anis_ratio;
        double h = (diag > 0 ? diag : 1.0) * 2.0 / minratio;
        k->A = 2.0 * gk_vmodel_gamma_h(&k->model, h);
        if (!(k->A > 0) || !isfinite(k->A))
            k->A = 1.0;
    }

    /* Block discretisation: gstat's 4 x 4 Gauss points and weights. */
    k->nb = 1;
    k->bw[0] = 1.0;
    double nug = nugget_of(&k->model);
    if (kp->block_w > 0) {
        k->nb = 16;
        for (int i = 0, b = 0; i < 4; i++)
            for (int j = 0; j < 4; j++, b++) {
                k->bdx[b] = kp->block_w * GAUSS_X[i];
                k->bdy[b] = kp->block_h * GAUSS_X[j];
                k->bw[b] = GAUSS_W[i] * GAUSS_W[j];
            }
        /* Block-to-block average; like gstat, the nugget does not enter it. */
        double c = 0.0;
        for (int b = 0; b < 16; b++)
            for (int e = 0; e < 16; e++)
                c += k->bw[b] * k->bw[e] *
                     (b == e ? k->A - nug
                             : gk_krige_cov(k, k->bdx[b] - k->bdx[e], k->bdy[b] - k->bdy[e]));
        k->c00 = c;
    } else {
        k->c00 = k->A;
    }

    k->poly = kp->drift == GK_DRIFT_LINEAR ? 2 : kp->drift == GK_DRIFT_QUADRATIC ? 5 : 0;
    k->nr = kp->n_drift_rasters;
    k->p = k->type == GK_KRIGE_SIMPLE ? 0 : 1 + k->poly + k->nr;
    /* The drift's coefficients must be estimable: at least as many points as terms. */
    if (pts->n < (size_t)k->p)
        return gk_error(ctx, GK_ERR_ARG,
                        "kriging: %zu point%s for a drift of %d terms: give at least %d points "
                        "or a simpler drift",
                        pts->n, pts->n == 1 ? "" : "s", k->p, k->p);
    if (a->max_points > 0 && a->max_points < k->p)
        return gk_error(ctx, GK_ERR_ARG, "kriging: max_points=%d is fewer than the %d drift terms",
                        a->max_points, k->p);
    k->ready = k->nr == 0;
    k->global = a->max_points == 0 && kp->maxdist == 0 && a->max_points_per_quadrant == 0;
    /* on the GPU, the module factorises the system (krige_global.cu) */
    if (k->global && k->ready && !job->gpu && gk_krige_global_build(job))
        return gk_errno(ctx);
    return GK_OK;
}

void gk_kriging_free(gk_job *job)
{
    gk_krige_state *k = job->state;
    if (!k)
        return;
    gk_krige_global_free(k->g);
    free(k->gpts);
    free(k);
    job->state = NULL;
}

int gk_covariate_scale(const double *g, size_t n, double *mean, double *sd, size_t *bad)
{
    double s = 0.0, s2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(g[i])) {
            *bad = i;
            return 1;
        }
        s += g[i];
    }
    double m = s / (double)n;
    for (size_t i = 0; i < n; i++)
        s2 += (g[i] - m) * (g[i] - m);
    *mean = m;
    *sd = sqrt(s2 / (double)n);
    return *sd > 1e-12 * (fabs(m) + 1e-300) ? 0 : 2;
}

int gk_job_set_drift(gk_job *job, int n_drift, const double *values, gk_drift_sampler_fn sampler,
                     void *user)
{
    gk_context *ctx = job->ctx;
    gk_krige_state *k = gk_krige_of(job);
    if (job->alg.kind != GK_ALG_KRIGING || !k)
        return gk_error(ctx, GK_ERR_ARG, "external drift is for kriging only");
    if (n_drift != k->nr)
        return gk_error(ctx, GK_ERR_ARG,
                        "kriging: %d external drift variables given, the algorithm has %d "
                        "drift_raster= keys",
                        n_drift, k->nr);
    if (n_drift == 0)
        return GK_OK;
    if (!values || !sampler)
        return gk_error(ctx, GK_ERR_ARG, "kriging: external drift needs values and a sampler");
    size_t n = job->pts->n;
    free(k->gpts);
    k->gpts = malloc((size_t)n_drift * n * sizeof *k->gpts);
    if (!k->gpts)
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory for the external drift");
    /* Standardised covariates: same predictions, a better conditioned S. */
    for (int r = 0; r < n_drift; r++) {
        const double *g = values + (size_t)r * n;
        double mean, sd;
        size_t i;
        int bad = gk_covariate_scale(g, n, &mean, &sd, &i);
        if (bad == 1)
            return gk_error(ctx, GK_ERR_ARG,
                            "kriging: drift variable %d has no value at point %zu (%.15g, "
                            "%.15g)",
                            r + 1, i + 1, job->pts->x[i], job->pts->y[i]);
        if (bad)
            return gk_error(ctx, GK_ERR_ARG,
                            "kriging: drift variable %d is constant at the data points: it "
                            "cannot be told apart from the mean",
                            r + 1);
        k->gmean[r] = mean;
        k->gscale[r] = sd;
        for (size_t q = 0; q < n; q++)
            k->gpts[(size_t)r * n + q] = (g[q] - mean) / sd;
    }
    k->sampler = sampler;
    k->sampler_user = user;
    k->ready = 1;
    if (k->global && !job->gpu) { /* on the GPU: krige_global.cu, at the first tile */
        gk_krige_global_free(k->g);
        k->g = NULL;
        k->global_singular = 0;
        if (gk_krige_global_build(job))
            return gk_errno(ctx);
    }
    return GK_OK;
}
