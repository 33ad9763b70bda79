/* SPDX-License-Identifier: MIT */
/* window/average.c - moving average of Z inside the search ellipse (gdal_grid's
 * average), with the per-quadrant selection (which honours max_points).
 * Without max_points or quadrant keys the job has a bucket grid: a tile is
 * stamped point by point (where its sums are exact) or a node is a masked
 * vector sum over a few spans, whichever its cost model says is fastest
 * (bucket_sweep.c's gk_bg_method). */
#include "window.h"
#include "search/bucket_grid.h"
#include "search/index.h"
#include "search/neighbours.h"

static int average_node(const gk_job *job, double nx, double ny, double hit2, gk_scratch *s,
                        double *v)
{
    (void)hit2;
    const gk_algorithm *a = &job->alg;
    long n = gk_nb_has_quadrants(a) ? gk_nb_ellipse_quadrants(job, nx, ny, 1, s)
                                    : gk_nb_ellipse(job, nx, ny, s);
    if (n == GK_NB_NOMEM)
        return -1;
    if (n < 0)
        return 0; /* a quadrant under its minimum */
    if (n == 0 || n < a->min_points)
        return 0;
    const double *z = job->pts->z;
    double sum = 0.0;
    for (long i = 0; i < n; i++)
        sum += z[s->idx[i]];
    *v = sum / (double)n;
    return 1;
}

static uint64_t average_bg_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    const gk_algorithm *a = &job->alg;
    uint64_t nodata = 0;
    const int method = gk_bg_method(gk_window_bg(job), &job->ell, t->g, GK_BG_SUM_Z);
    if (method == GK_BG_STAMP) {
        const size_t sb = gk_bg_stamp_scratch(t->w), nn = (size_t)t->w * (size_t)t->h;
        if (gk_scratch_reserve(s, sb + nn) != GK_OK)
            return UINT64_MAX;
        double *cnt = s->d2 + sb;
        gk_bg_stamp(gk_window_bg(job), &job->ell, t->g, t->x0, t->y0, t->w, t->h, GK_BG_SUM_Z,
                    s->d2, cnt, out);
        for (size_t i = 0; i < nn; i++) {
            if (cnt[i] == 0.0 || cnt[i] < (double)a->min_points) {
                out[i] = a->nodata;
                nodata++;
            } else {
                out[i] /= cnt[i];
            }
        }
        return nodata;
    }
    gk_bg_rows rows;
    for (int j = 0; j < t->h; j++) {
        double ny = gk_grid_node_y(t->g, t->y0 + j);
        double *row = out + (size_t)j * t->w;
        gk_bg_rows_init(gk_window_bg(job), &job->ell, ny, &rows);
        for (int i = 0; i < t->w; i++) {
            double nx = gk_grid_node_x(t->g, t->x0 + i);
            gk_bg_acc acc;
            gk_bg_node(gk_window_bg(job), &job->ell, &rows, nx, ny, GK_BG_SUM_Z, &acc);
            if (acc.n == 0 || acc.n < a->min_points) {
                row[i] = a->nodata;
                nodata++;
            } else {
                row[i] = acc.sum / (double)acc.n;
            }
        }
    }
    return nodata;
}

uint64_t gk_average_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    if (gk_window_bg(job))
        return average_bg_tile(job, t, out, s);
    return gk_nb_run_tile(job, t, out, s, average_node);
}

/* ---- the registry's row ------------------------------------------------ */

static const char *average_gpu(const gk_job *job, gk_gpu_job_desc *d)
{
    return gk_window_gpu(job, d, GK_GPU_AVERAGE, 1);
}

const gk_method gk_method_average = {
    .name = "average",
    .kind = GK_ALG_AVERAGE,
    .summary = "moving average of the points in the search ellipse (gdal_grid)",
    .keys = GK_WINDOW_KEYS | GK_KEY_MAX_POINTS | GK_KEY_QUADRANT,
    .flags = GK_M_WINDOW_STAT,
    .quadtree_ties = gk_ties_quadrants,
    .prepare = gk_window_prepare,
    .release = gk_window_release,
    .cpu_index = gk_index_tree,
    .cpu_tile = gk_average_tile,
    .gpu_describe = average_gpu,
    .cost_ns = gk_window_cost,
};
