/* SPDX-License-Identifier: MIT */
/*
 * kriging.h - state shared by the kriging files (kriging_prepare.c: the
 * job's preparation; kriging_local.c: local neighbourhoods; kriging_global.c:
 * one system for all points; kriging.c: tiles and the registry's row).
 *
 * Every system is solved in the GLS form (docs/dev/geostatistics.md,
 * 'The GLS form') with a
 * Cholesky factor C = L L' and the Schur complement S = F'C^-1 F of the drift:
 * simple kriging has no drift (p = 0), ordinary kriging F = 1, universal
 * kriging F = [1, x, y (, x^2, y^2, xy)] in centred, scaled coordinates, plus
 * one column per external drift (standardised). Unbounded models (Pow, Lin
 * without range) use the pseudo-covariance A - gamma(h) ('Unbounded models').
 */
#ifndef GK_KRIGING_H
#define GK_KRIGING_H

#include "core/gk_internal.h"
#include "core/gpu_abi.h"
#include "gridkit_geostat.h"
#include "vmodel_internal.h"
#include <math.h>

/* Kriging (kriging_prepare.c, kriging_global.c): model, drift and, for a
 * global neighbourhood, the factorised system, prepared once; freed by
 * gk_job_free. */
int gk_kriging_prepare(gk_job *job);
void gk_kriging_free(gk_job *job);
uint64_t gk_kriging_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s);
/* A tile with a local neighbourhood (kriging_local.c); head: the doubles of
 * the scratch's second buffer before the system (the node covariates). */
uint64_t gk_krige_local_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s,
                             size_t head);
/* Once the tile's workspace is reserved: its node covariates; -1 when the
 * tile cannot be kriged (drift awaited or not sampled, a singular global
 * system), with every node nodata (kriging.c). */
int gk_krige_tile_start(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s);
/* Node q of a tile of T nodes: its estimate, and its variance in the second
 * band when there is one. */
static inline void gk_krige_put(double *out, size_t T, size_t q, int want_var, double est,
                                double var)
{
    out[q] = est;
    if (want_var)
        out[T + q] = var;
}
/* External drift: the standardised covariates at the tile's nodes into g0
 * (nr blocks of w h, then 2 w h of workspace); -1 when the sampler fails. */
int gk_kriging_covariates(const gk_job *job, const gk_tile *t, double *g0);
/* The GPU's form of a kriging job, its state, and the covariates of a tile
 * (kriging_gpu.c). */
const char *gk_kriging_gpu(const gk_job *job, gk_gpu_job_desc *d);
int gk_kriging_gpu_params(const gk_job *job, gk_gpu_krige *g);
int gk_kriging_gpu_covariates(const gk_job *job, const gk_tile *t, double **g0);

/* A model in the compact form "Nug(0.05)+Sph(0.59,897)[@angle/ratio]"
 * (model=, models=; vmodel_compact.c); GK_OK or an error in ctx. */
int gk_vmodel_parse_compact(gk_context *ctx, const char *s, gk_vmodel *m);

/* Indicator kriging's keys in kriging's grammar (indicator.c): key=val as
 * gk_sim_key answers; after the keys, the checks that make the algorithm
 * indicator kriging's; its part of the canonical string. */
int gk_ik_key(gk_context *ctx, const char *key, const char *val, gk_ik_params *ik);
int gk_ik_finish(gk_context *ctx, gk_algorithm *a);
void gk_ik_canonical(const gk_ik_params *ik, gk_strbuf *sb);

/* Parses the key=value tokens after "kriging" (strtok_r state in save). */
int gk_kriging_parse(gk_context *ctx, const char *spec, char *save, gk_algorithm *a);
/* The row's bands: the estimate, and the variance unless variance=no. */
int gk_kriging_bands(const gk_algorithm *alg);
const char *gk_kriging_band_name(const gk_algorithm *alg, int i);

#define GK_KRIGE_MAX_P (1 + 5 + GK_KRIGE_MAX_DRIFT_RASTERS)
/* A system is singular when a pivot falls below this times its original
 * diagonal entry: the covariances' factor, the drift's Schur complement. */
#define GK_KRIGE_CHOL_TOL 1e-12
#define GK_KRIGE_SCHUR_TOL 1e-11
#define GK_KRIGE_MAX_DISCR 16

typedef struct gk_krige_global gk_krige_global;

/* A structure ready for fast evaluation: anisotropy rotation precomputed. */
typedef struct {
    const gk_vm_structure *s;
    gk_vm_type type;
    double psill, range;
    int aniso;
    double ca, sa, f; /* gstat's transform: t0 = ca dx + sa dy, t1 = f (-sa dx + ca dy) */
} gk_krige_struct;

/* Kriging's parameters (the algorithm's own; gridkit_geostat.h's type). */
GK_ALG_OWN_FITS(gk_kriging_params);
static inline gk_kriging_params *gk_krige_params_of(const gk_algorithm *a)
{
    return GK_ALG_OWN(gk_kriging_params, a);
}

typedef struct gk_krige_state {
    gk_vmodel model; /* the model in use (fitted when model=auto) */
    int ns;
    gk_krige_struct st[GK_VM_MAX_STRUCTURES];
    gk_krige_type type;
    double mean; /* simple kriging */
    double A;    /* C(h) = A - gamma(h): the sill, or a pseudo-sill when unbounded */
    double c00;  /* C(0), or gstat's block-to-block average */
    int nb;      /* 1 (point) or 16 discretisation points */
    double bdx[GK_KRIGE_MAX_DISCR], bdy[GK_KRIGE_MAX_DISCR], bw[GK_KRIGE_MAX_DISCR];
    int poly;     /* polynomial drift columns after the constant: 0, 2 or 5 */
    int nr;       /* external drift columns */
    int p;        /* drift columns: 0 (simple) or 1 + poly + nr */
    double *gpts; /* nr blocks of n standardised covariates at the points */
    double gmean[GK_KRIGE_MAX_DRIFT_RASTERS], gscale[GK_KRIGE_MAX_DRIFT_RASTERS];
    gk_drift_sampler_fn sampler;
    void *sampler_user;
    int ready;  /* 0 while external drift is awaited (gk_job_set_drift) */
    int global; /* one system for all points */
    gk_krige_global *g;
    int global_singular; /* that system is singular: every node is nodata */
} gk_krige_state;

/* Kriging's state, the job's (made by gk_kriging_prepare). */
static inline gk_krige_state *gk_krige_of(const gk_job *job)
{
    return (gk_krige_state *)job->state;
}

/* Covariance (or pseudo-covariance) at separation (dx, dy): A - gamma, with
 * gamma evaluated as gk_vmodel_gamma does (same operations, so the same
 * doubles), the common models inline and the anisotropy precomputed. */
static inline double gk_krige_cov(const gk_krige_state *k, double dx, double dy)
{
    if (dx == 0.0 && dy == 0.0)
        return k->A;
    double hiso = sqrt(dx * dx + dy * dy), g = 0.0;
    for (int i = 0; i < k->ns; i++) {
        const gk_krige_struct *st = &k->st[i];
        double h = hiso;
        if (st->aniso) {
            double t0 = st->ca * dx + st->sa * dy;
            double t1 = st->f * (-st->sa * dx + st->ca * dy);
            h = sqrt(t0 * t0 + t1 * t1);
        }
        double a = st->range, u;
        switch (st->type) {
        case GK_VM_NUG:
            g += st->psill;
            break;
        case GK_VM_SPH:
            if (h >= a) {
                g += st->psill;
            } else {
                u = h / a;
                g += st->psill * (u * (1.5 - 0.5 * u * u));
            }
            break;
        case GK_VM_EXP:
            g += st->psill * (1.0 - exp(-h / a));
            break;
        case GK_VM_GAU:
            u = h / a;
            g += st->psill * (1.0 - exp(-(u * u)));
            break;
        default:
            g += st->psill * gk_vm_unit(st->s, h, a);
        }
    }
    return k->A - g;
}

/* Point-to-target covariance: C(x - x0), or its average over the block
 * discretisation around x0. */
static inline double gk_krige_cov0(const gk_krige_state *k, double dx, double dy)
{
    if (k->nb == 1)
        return gk_krige_cov(k, dx, dy);
    double c = 0.0;
    for (int b = 0; b < k->nb; b++)
        c += k->bw[b] * gk_krige_cov(k, dx - k->bdx[b], dy - k->bdy[b]);
    return c;
}

/* Drift row at offset (u, v) from the drift origin, already scaled:
 * f = [1, u, v, u^2, v^2, uv, g...] (the g are written by the caller). */
static inline void gk_krige_poly(int poly, double u, double v, double *f)
{
    f[0] = 1.0;
    if (poly >= 2) {
        f[1] = u;
        f[2] = v;
    }
    if (poly == 5) {
        f[3] = u * u;
        f[4] = v * v;
        f[5] = u * v;
    }
}

/* Drift at the target: the polynomial at the node, or its block average;
 * the covariates g0 (nr values) at the node. */
void gk_krige_f0(const gk_krige_state *k, double u0, double v0, double scale, const double *g0,
                 double *f0);

/* Small dense kernels (row-major lower triangle, leading dimension ld).
 * chol: in place, 1/diagonal to inv; returns 0, or -1 when a pivot is below
 * tol times the original diagonal entry (singular for our purposes). */
int gk_krige_chol(double *a, int n, int ld, double *inv, double tol);
/* Solves L y = b in place. */
void gk_krige_fwd(const double *l, int n, int ld, const double *inv, double *b);
/* Solves L' y = b in place. */
void gk_krige_bwd(const double *l, int n, int ld, const double *inv, double *b);

/* The drift's frame (kriging_prepare.c): the points' centroid and their
 * largest distance from it (1 when 0), so that polynomial terms are O(1). */
void gk_drift_frame(const double *x, const double *y, size_t n, double *ox, double *oy, double *sc);
/* A covariate's mean and spread (population) at n points, to standardise
 * it: 0; 1 when value *bad is not finite; 2 when it is constant there. */
int gk_covariate_scale(const double *g, size_t n, double *mean, double *sd, size_t *bad);

/* Global neighbourhood (kriging_global.c). */
int gk_krige_global_build(gk_job *job);
void gk_krige_global_free(gk_krige_global *g);
/* Nodes per block (at most `nodes`) for gk_krige_global_block. */
size_t gk_krige_global_block_cols(const gk_job *job, size_t nodes);
/* m nodes at once: est[c] and, when var is not NULL, var[c] (non-finite where
 * the system fails); g0: nr blocks of covariates, block r at g0 + r * ldg.
 * ws: (n + GK_KRIGE_MAX_P + 2) m + 2 n doubles. */
/* Cross-validation of a global job in closed form (crossval.h): the points
 * member[start[f] .. start[f + 1]) of each fold f with f % parts == part get
 * pred[i] and var[i] (NaN where the other folds cannot fit them). */
int gk_krige_global_cv(const gk_job *job, int nfold, const size_t *start, const size_t *member,
                       int part, int parts, int threads, double *pred, double *var);
void gk_krige_global_block(const gk_job *job, int m, const double *x0, const double *y0,
                           const double *g0, size_t ldg, double *est, double *var, double *ws);

#endif
