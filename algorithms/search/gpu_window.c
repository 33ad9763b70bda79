/* SPDX-License-Identifier: MIT */
/* search/gpu_window.c - the search window of a job for the GPU module. */
#include "gpu_window.h"
#include "core/method.h"
#include "neighbours.h"

const char *gk_gpu_desc_ellipse(const gk_job *job, gk_gpu_job_desc *d)
{
    const gk_ellipse *e = &job->ell;
    d->window = e->all ? GK_GPU_WIN_ALL : GK_GPU_WIN_ELLIPSE;
    if (e->all)
        return NULL;
    if (e->r1 == 0.0 || e->r2 == 0.0)
        return "a degenerate search ellipse has no GPU kernel";
    d->e_r1 = e->r1;
    d->e_r2 = e->r2;
    d->e_cos = e->cos_a;
    d->e_sin = e->sin_a;
    gk_nb_ellipse_box(e, &d->box_hx, &d->box_hy);
    return NULL;
}

/* The box a hair wider than the circle: rounding never loses a point the
 * kernel's exact test accepts. */
void gk_gpu_desc_circle(gk_gpu_job_desc *d, double r)
{
    d->window = GK_GPU_WIN_CIRCLE;
    d->r2 = r * r;
    d->box_hx = d->box_hy = r * (1.0 + 1e-9);
}

const char *gk_gpu_desc_quadrants(const gk_algorithm *a, int honours_max, gk_gpu_job_desc *d)
{
    d->quad_min = a->min_points_per_quadrant;
    d->quad_max = a->max_points_per_quadrant;
    d->max_points = honours_max ? a->max_points : 0;
    int keep = d->quad_max;
    if (d->max_points > 0 && (keep == 0 || d->max_points < keep))
        keep = d->max_points;
    if (keep > GK_GPU_MAX_LIST_K)
        return "per-quadrant search keeping more than " GK_STR(
            GK_GPU_MAX_LIST_K) " points per quadrant has no GPU kernel";
    return NULL;
}
