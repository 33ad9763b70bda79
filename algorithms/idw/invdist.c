/* SPDX-License-Identifier: MIT */
/* idw/invdist.c - inverse distance to a power with a search ellipse.
 * Without a search window the SIMD kernels of invdist_kernels.c run.
 * Differences from gdal_grid 3.6: max_points takes the max_points NEAREST
 * points inside the ellipse (gdal_grid takes the first in file order), and
 * per-quadrant keys keep their limits (3.11 behaviour); docs/dev/gdal_grid.md,
 * 'invdist max_points takes the nearest' and 'Per-quadrant limits with
 * invdist are kept'. */
#include "idw.h"
#include "search/gpu_window.h"
#include "search/index.h"
#include "search/neighbours.h"

#include <stdio.h>

static int invdist_node(const gk_job *job, double nx, double ny, double hit2, gk_scratch *s,
                        double *v)
{
    return gk_idw_ellipse_node(job, nx, ny, job->alg.power, hit2, s, v);
}

/* invdist with per-quadrant keys is invdistnn (parse.c remaps it; kept here
 * for jobs built by hand): radius1, default 1. */
static int invdist_quadrant_node(const gk_job *job, double nx, double ny, double hit2,
                                 gk_scratch *s, double *v)
{
    double r = job->alg.radius1 > 0.0 ? job->alg.radius1 : 1.0;
    return gk_idwnn_node(job, nx, ny, r, hit2, s, v);
}

uint64_t gk_invdist_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    if (gk_nb_has_quadrants(&job->alg))
        return gk_nb_run_tile(job, t, out, s, invdist_quadrant_node);
    if (job->ell.all) /* single precision with the far points interpolated where it applies */
        return gk_invdist_far_fits(job) ? gk_invdist_far_tile(job, t, out, s)
                                        : gk_invdist_all_tile(job, t, out, s);
    return gk_nb_run_tile(job, t, out, s, invdist_node);
}

/* ---- the registry's row ------------------------------------------------ */

/* gdal_grid remaps invdist with per-quadrant keys to invdistnn (with the
 * limits forwarded, as GDAL 3.11 does). */
static int invdist_adjust(gk_context *ctx, const char *spec, const gk_parse_seen *seen,
                          gk_algorithm *a)
{
    if (!seen->quadrant)
        return GK_OK;
    if (a->radius1 != a->radius2 || a->angle != 0)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a %s: per-quadrant search needs a circle (radius1 = radius2, angle = 0)",
                        spec);
    a->kind = GK_ALG_INVDISTNN;
    if (a->radius1 == 0)
        a->radius1 = a->radius2 = 1.0;
    if (!seen->max_points)
        a->max_points = 12;
    return GK_OK;
}

/* Without a window the kernels read the points in input order: no index. */
static int invdist_prepare(gk_job *job) { return job->ell.all ? GK_OK : gk_method_tree(job); }
static int invdist_cpu_index(gk_job *job) { return job->ell.all ? GK_OK : gk_index_tree(job); }

static const char *invdist_gpu(const gk_job *job, gk_gpu_job_desc *d)
{
    const gk_algorithm *a = &job->alg;
    if (gk_nb_has_quadrants(a)) { /* invdistnn in a circle, as on the CPU */
        gk_gpu_desc_circle(d, a->radius1 > 0.0 ? a->radius1 : 1.0);
        d->op = GK_GPU_IDW_KNN;
        return gk_gpu_desc_quadrants(a, 1, d);
    }
    if (job->ell.all) {
        d->window = GK_GPU_WIN_ALL;
        d->op = GK_GPU_INVDIST_ALL;
        return NULL;
    }
    const char *no = gk_gpu_desc_ellipse(job, d);
    if (no)
        return no;
    d->op = GK_GPU_IDW_KNN;
    return gk_idw_gpu_limits(&job->alg);
}

static double invdist_cost(const gk_algorithm *a, double n, double area, double *setup_ns)
{
    double win, k;
    if (gk_cost_window(a, n, area, &win, &k)) { /* every point, in input order */
        *setup_ns = 0;
        return 1.0 * n;
    }
    *setup_ns = n * GK_NS_TREE_PER_POINT;
    return gk_cost_select_ns(k, win);
}

/* Without a window its kernels read every point: no tree to hold a fold out of. */
static gk_cv_method invdist_cv(const gk_algorithm *a, size_t ntrain, const char **why,
                               const char **avoid)
{
    (void)ntrain;
    const int window = a->radius1 > 0 || a->radius2 > 0;
    if (gk_idw_limited(a) && window)
        return GK_CV_HOLDOUT;
    if (window) {
        *why = "with a radius and no max_points: every fold rebuilds its search";
        *avoid = GK_CV_AVOID_MAX_K;
    } else {
        *why = "without a radius: every fold copies the other folds' points, and every "
               "prediction reads them all";
        *avoid = "a search window (radius=R with max_points=K) uses one index";
    }
    return GK_CV_REBUILD;
}

const gk_method gk_method_invdist = {
    .name = "invdist",
    .kind = GK_ALG_INVDIST,
    .summary = "inverse distance to a power (gdal_grid)",
    .keys = GK_KEY_POWER | GK_KEY_SMOOTHING | GK_KEY_ELLIPSE | GK_KEY_MAX_POINTS |
            GK_KEY_MIN_POINTS | GK_KEY_NODATA | GK_KEY_QUADRANT,
    .adjust = invdist_adjust,
    .canonical = gk_idw_canonical,
    .prepare = invdist_prepare,
    .cpu_index = invdist_cpu_index,
    .cpu_tile = gk_invdist_tile,
    .gpu_describe = invdist_gpu,
    .cost_ns = invdist_cost,
    .cv_way = invdist_cv,
};
