/* SPDX-License-Identifier: MIT */
/*
 * device_choice.c - --device auto: is the GPU worth starting for this grid?
 *
 * Starting CUDA costs about 0.23 s (driver, then the device context) and
 * shutting it down at exit another 0.1 s (H100, CUDA 13, docs/benchmarks.md);
 * the reading of the points hides only part of the start. A grid the CPU
 * cores finish in less than that is quicker without the GPU: average over a
 * 25 m window, 1 M points to 4096^2, computes in about 0.05 s on 16 cores
 * against 0.33 s of CUDA's start and end alone. The model below is a rough upper bound of
 * the CPU time from per-node costs measured on that machine's cores (bench_gpu,
 * CPU columns); it only needs to be right about which side of 0.3 s a job is.
 */
#include "device.h"
#include "method.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>

/* What the GPU costs a run before its first tile, in seconds. */
#define GK_GPU_FIXED_S 0.3

int gk_cost_window(const gk_algorithm *a, double n, double area, double *win, double *k)
{
    gk_ellipse e;
    gk_ellipse_init(&e, a->radius1, a->radius2, a->angle);
    /* points in a node's window, for uniform points over their bounding box */
    *win = e.all ? n : fmin(n, n * M_PI * e.r1 * e.r2 / area);
    *k = a->max_points > 0 ? fmin(*win, (double)a->max_points) : *win;
    return e.all;
}

/* An ordered selection from the k-d tree: per node a search of the window
 * and the k best of its points. */
double gk_cost_select_ns(double k, double win) { return 300.0 + 80.0 * k + 3.0 * win; }

/* One core's nanoseconds: *setup for the CPU's index, and per node (the
 * return value; INFINITY when the model has no figure). */
static double cost_ns(const gk_algorithm *a, double n, double area, double *setup_ns)
{
    *setup_ns = 0;
    if (!(n > 0) || !(area > 0) || !isfinite(area))
        return INFINITY;
    const gk_method *m = gk_method_of(a->kind);
    if (!m || !m->cost_ns)
        return INFINITY; /* no figure: auto keeps the GPU (gk_algorithm_may_use_gpu) */
    double setup = 0, node = m->cost_ns(a, n, area, &setup);
    if (!isfinite(node))
        return INFINITY;
    *setup_ns = setup;
    return node;
}

double gk_algorithm_cpu_seconds(const gk_algorithm *a, double n, double area, double nodes,
                                int threads)
{
    if (!(nodes > 0) || threads < 1)
        return INFINITY;
    double setup, node = cost_ns(a, n, area, &setup);
    return 1e-9 * (setup + nodes * node / threads);
}

double gk_algorithm_cpu_node_seconds(const gk_algorithm *a, double n, double area, double *setup_s)
{
    double setup, node = cost_ns(a, n, area, &setup);
    *setup_s = 1e-9 * setup;
    return 1e-9 * node;
}

int gk_context_auto_device(gk_context *ctx, const gk_algorithm *a, double n_points, double area,
                           double nodes)
{
    ctx->auto_cpu[0] = '\0';
    int threads = ctx->threads > 0 ? ctx->threads : omp_get_num_procs();
    double s = gk_algorithm_cpu_seconds(a, n_points, area, nodes, threads);
    if (!(s < GK_GPU_FIXED_S))
        return 1;
    /* the advice only where there is a GPU to take it */
    snprintf(ctx->auto_cpu, sizeof ctx->auto_cpu, "%s: about %.2f s on %d CPU thread%s%s",
             gk_algorithm_name(a), s < 0.01 ? 0.01 : s, threads, threads > 1 ? "s" : "",
             gk_host_gpu_count() > 0 ? ", less than starting the GPU takes; --device cuda to use it"
                                     : "");
    return 0;
}
