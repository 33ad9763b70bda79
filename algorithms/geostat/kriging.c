/* SPDX-License-Identifier: MIT */
/*
 * geostat/kriging.c - kriging (docs/dev/geostatistics.md): a tile,
 * node by node with a local neighbourhood (kriging_local.c) or in blocks of
 * nodes against one system of all points (kriging_global.c), and the
 * registry's row: the family's entry. The job is prepared in
 * kriging_prepare.c; what every part shares is in kriging_system.c.
 */
#include "kriging.h"
#include "simulation.h"
#include "core/method.h"
#include "search/index.h"
#include "gridkit_geostat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A global neighbourhood: the tile's nodes in blocks against the one system. */
static uint64_t global_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s,
                            size_t head)
{
    const gk_krige_state *k = gk_krige_of(job);
    const gk_grid *g = t->g;
    size_t T = (size_t)t->w * t->h;
    double nodata = job->alg.nodata;
    int want_var = job->nbands > 1;
    uint64_t nod = 0, sing = 0;
    /* the block's right-hand sides, node x, y, estimates and variances */
    size_t gcols = gk_krige_global_block_cols(job, T);
    size_t need = head + (job->pts->n + GK_KRIGE_MAX_P + 6) * gcols + 2 * job->pts->n;
    if (gk_scratch_reserve2(s, need))
        return UINT64_MAX;
    if (gk_krige_tile_start(job, t, out, s))
        return T;

    double *bx = s->d2b + head, *by = bx + gcols, *be = by + gcols, *bv = be + gcols;
    double *bws = bv + gcols;
    for (size_t q0 = 0; q0 < T; q0 += gcols) {
        int m = (int)(T - q0 < gcols ? T - q0 : gcols);
        for (int c = 0; c < m; c++) {
            size_t q = q0 + (size_t)c;
            bx[c] = gk_grid_node_x(g, t->x0 + (int)(q % (size_t)t->w));
            by[c] = gk_grid_node_y(g, t->y0 + (int)(q / (size_t)t->w));
        }
        gk_krige_global_block(job, m, bx, by, s->d2b + q0, T, be, want_var ? bv : NULL, bws);
        for (int c = 0; c < m; c++) {
            size_t q = q0 + (size_t)c;
            int ok = 1;
            for (int r = 0; r < k->nr; r++)
                if (!isfinite(s->d2b[(size_t)r * T + q]))
                    ok = 0;
            if (ok && isfinite(be[c]) && (!want_var || isfinite(bv[c]))) {
                gk_krige_put(out, T, q, want_var, be[c], want_var ? bv[c] : nodata);
                continue;
            }
            gk_krige_put(out, T, q, want_var, nodata, nodata);
            nod++;
            sing += ok;
        }
    }
    gk_job_add_singular(job, sing);
    return nod;
}

uint64_t gk_kriging_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    const gk_krige_state *k = gk_krige_of(job);
    size_t T = (size_t)t->w * t->h;
    /* the node covariates (nr blocks of T, then node x, y) before the system */
    size_t head = (size_t)k->nr * T + (k->nr ? 2 * T : 0);
    if (k->global)
        return global_tile(job, t, out, s, head);
    return gk_krige_local_tile(job, t, out, s, head);
}

/* The model of a job of the family: kriging's, or the one a simulation
 * kriges with. */
const gk_vmodel *gk_job_kriging_model(const gk_job *job)
{
    const gk_krige_state *k = job->alg.kind == GK_ALG_KRIGING      ? gk_krige_of(job)
                              : job->alg.kind == GK_ALG_SIMULATION ? gk_sim_kriging_of(job)
                                                                   : NULL;
    return k ? &k->model : NULL;
}

/* ---- the registry's row ------------------------------------------------ */

static int kriging_prepare(gk_job *job)
{
    int rc = gk_method_tree(job);
    return rc ? rc : gk_kriging_prepare(job);
}

/* Global kriging with external drift rasters has no GPU path (the drift at
 * every node of one system). */
static int kriging_gpu_possible(const gk_algorithm *a)
{
    return !(gk_krige_params_of(a)->n_drift_rasters > 0 && a->max_points == 0);
}

static double kriging_cost(const gk_algorithm *a, double n, double area, double *setup_ns)
{
    double win, k;
    gk_cost_window(a, n, area, &win, &k);
    if (a->max_points <= 0 && !(gk_krige_params_of(a)->maxdist > 0))
        return INFINITY;    /* one system of every point */
    if (a->max_points <= 0) /* every point within maxdist */
        k = fmin(n,
                 n * M_PI * gk_krige_params_of(a)->maxdist * gk_krige_params_of(a)->maxdist / area);
    *setup_ns = n * GK_NS_TREE_PER_POINT;
    return 500.0 + 28.0 * k * k;
}

/* gstat's grammar (kriging_params.c); the neighbourhood is nmax = max_points,
 * nmin = min_points, omax = max_points_per_quadrant, maxdist its own. */
/* Cross-validation (geostat/crossval.c): where one index serves every fold,
 * where the closed form does, and why not elsewhere. */
static gk_cv_method kriging_cv(const gk_algorithm *a, size_t ntrain, const char **why,
                               const char **avoid)
{
    const gk_kriging_params *kp = gk_krige_params_of(a);
    int p = kp->type == GK_KRIGE_SIMPLE ? 0
                                        : 1 + (kp->drift == GK_DRIFT_LINEAR      ? 2
                                               : kp->drift == GK_DRIFT_QUADRATIC ? 5
                                                                                 : 0);
    /* refitted per fold (model=auto), standardised per fold (drift
     * rasters): the preparation depends on the points given */
    if (ntrain < (size_t)p)
        return GK_CV_REBUILD;
    if (kp->model_auto) {
        *why = "with model=auto: every fold fits its variogram again (as gstat's "
               "krige.cv) and rebuilds its search";
        *avoid = "give the model (model=..., or variogram=FILE.json from gridkit "
                 "variogram --fit) to predict every fold from one index";
        return GK_CV_REBUILD;
    }
    if (kp->n_drift_rasters > 0) {
        *why = "with drift rasters: every fold standardises them on its points and "
               "rebuilds its search";
        return GK_CV_REBUILD;
    }
    if (a->max_points == 0 && kp->maxdist == 0 && a->max_points_per_quadrant == 0) {
        if (kp->block_w == 0)
            return GK_CV_DUBRULE;
        *why = "in blocks over every point: every fold solves a system of its own";
        *avoid = GK_CV_AVOID_MAX_K;
        return GK_CV_REBUILD;
    }
    /* an unbounded model's pseudo-sill comes from the points' extent */
    if (gk_vmodel_bounded(&kp->model))
        return GK_CV_HOLDOUT;
    *why = "with an unbounded model (Lin, Pow): every fold takes its pseudo-sill from its "
           "own points and rebuilds its search";
    *avoid = "a bounded model uses one index";
    return GK_CV_REBUILD;
}

/* The GPU's kernels skip a fold in local kriging: up to 64 neighbours, no
 * per-quadrant search, no drift rasters (core/gpu_abi.h). */
static int kriging_cv_gpu(const gk_algorithm *a)
{
    return a->max_points >= 1 && a->max_points <= 64 && a->max_points_per_quadrant == 0 &&
           a->min_points_per_quadrant == 0 && gk_krige_params_of(a)->n_drift_rasters == 0;
}

/* Folds report their kriging variance, for the z-scores. */
static void kriging_cv_adjust(gk_algorithm *a) { gk_krige_params_of(a)->variance = 1; }

const gk_method gk_method_kriging = {
    .name = "kriging",
    .kind = GK_ALG_KRIGING,
    .summary = "simple, ordinary or universal kriging, with the kriging variance as a second band",
    .parse = gk_kriging_parse,
    .own_keys = "type=ordinary|simple|universal, model=Sph|Exp|Gau|...|auto, psill, range, "
                "nugget, kappa, anis_angle, anis_ratio, variogram=FILE.json, mean, "
                "drift=linear|quadratic, drift_raster=FILE, drift_resample=nearest|bilinear, "
                "max_points, min_points, radius, "
                "max_points_per_quadrant, block=WxH, variance=yes|no, nodata",
    .prepare = kriging_prepare,
    .release = gk_kriging_free,
    .cpu_index = gk_index_tree,
    .cpu_tile = gk_kriging_tile,
    .gpu_describe = gk_kriging_gpu,
    .gpu_possible = kriging_gpu_possible,
    .gpu_krige = gk_kriging_gpu_params,
    .gpu_inputs = gk_kriging_gpu_covariates,
    .cost_ns = kriging_cost,
    .cv_way = kriging_cv,
    .cv_gpu = kriging_cv_gpu,
    .cv_adjust = kriging_cv_adjust,
    .bands = gk_kriging_bands,
    .band_name = gk_kriging_band_name,
};
