/* SPDX-License-Identifier: MIT */
/*
 * device_build.c - a job's GPU side: the job in the module's terms (the
 * row's gpu_describe), the module's jobs on every stream of every device
 * (device_job.h's gk_gpu_job), and its release. device.c and device_late.c
 * call it; it calls only the module (device_module.c).
 */
#include "device.h"
#include "device_job.h"
#include "method.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- jobs -------------------------------------------------------------- */

/* The GPU form of the job, or a reason why it has none yet. */
const char *gk_device_describe(const gk_job *job, gk_gpu_job_desc *d)
{
    const gk_algorithm *a = &job->alg;
    const gk_method *m = job->method;
    memset(d, 0, sizeof *d);
    d->n = job->pts->n;
    d->x = job->pts->x;
    d->y = job->pts->y;
    d->z = job->pts->z;
    d->power = a->power;
    d->smoothing = a->smoothing;
    d->max_points = a->max_points;
    d->min_points = a->min_points;
    d->nodata = a->nodata;
    d->single = a->precision == GK_PRECISION_SINGLE;
    d->quadtree_order = job->ties && !job->own_pts;
    if (!m || !m->gpu_describe)
        return "this algorithm has no GPU kernel yet";
    return m->gpu_describe(job, d);
}

/* Kriging within radius: beside each handle a job counting the points of
 * the window (a hair wider than the kriging's, so that a count within
 * dense_k means the kriging's window holds no more). Clones share the
 * points of their device's first count job. */
static int count_jobs(gk_gpu_job *g, const gk_gpu_job_desc *kd)
{
    gk_gpu_job_desc c = *kd;
    c.op = GK_GPU_COUNT;
    c.single = 0;
    c.max_points = c.min_points = 0;
    c.quad_min = c.quad_max = 0;
    c.r2 = kd->r2 * (1.0 + 1e-9);
    c.box_hx = kd->box_hx * (1.0 + 1e-9);
    c.box_hy = kd->box_hy * (1.0 + 1e-9);
    c.nodata = 0;
    g->dense_k = kd->max_points; /* gk_kriging_gpu's bound for a window */
    for (int k = 0; k < g->nh; k++) {
        int j = 0;
        while (j < k && g->hdev[j] != g->hdev[k])
            j++;
        g->ch[k] = j < k ? gk_device_module()->job_clone(g->ch[j], g->err, sizeof g->err)
                         : gk_device_module()->job_new(g->hdev[k], &c, g->err, sizeof g->err);
        if (!g->ch[k]) {
            while (k-- > 0)
                gk_device_module()->job_free(g->ch[k]);
            return -1;
        }
    }
    return 0;
}

int gk_device_streams_wanted(void)
{
    const char *se = getenv("GRIDKIT_GPU_STREAMS");
    return se && atoi(se) >= 1 && atoi(se) <= 8 ? atoi(se) : 2;
}

/* The GPU form of job d on `dev` ("auto" and "cuda": every usable GPU;
 * "cuda:N": that one), probed already: g, or NULL and the reason in why.
 * Touches neither the job nor its context (a late start builds it on a
 * thread of its own, device_late.c). *desc: what it runs on. */
void *gk_device_build(const gk_gpu_job_desc *dd, int code, int dev, int count_window,
                      const char *name, char *desc, size_t desc_cap, char *why, size_t why_cap)
{
    gk_gpu_job_desc d = *dd;
    int devs[GK_GPU_MAX_HANDLES], ndev = 1;
    devs[0] = dev;
    if (code <= GK_DEV_CUDA) {
        int count = gk_device_module()->device_count();
        for (int k = 1; k < count && ndev < GK_GPU_MAX_HANDLES; k++) {
            char nm[200], wy[600];
            if (!gk_device_probe(k, nm, sizeof nm, wy, sizeof wy))
                devs[ndev++] = k;
        }
    }
    int streams = gk_device_streams_wanted();
    if (d.op == GK_GPU_KRIGE_GLOBAL)
        streams = 1; /* each module job holds its own n x n factor */
    while (ndev * streams > GK_GPU_MAX_HANDLES)
        streams--;
    gk_gpu_job *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(why, why_cap, "out of memory");
        return NULL;
    }
    g->api = gk_device_module();
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->freed, NULL);
    int failed = 0;
    for (int s = 0; s < streams && !failed; s++)
        for (int k = 0; k < ndev; k++) {
            /* the first job of a GPU uploads the points; the others share them */
            void *h = s > 0 && g->nh > k
                          ? gk_device_module()->job_clone(g->h[k], g->err, sizeof g->err)
                          : NULL;
            if (!h)
                h = gk_device_module()->job_new(devs[k], &d, g->err, sizeof g->err);
            if (!h) { /* fewer streams than hoped: still a GPU job */
                failed = g->nh == 0;
                break;
            }
            g->hdev[g->nh] = devs[k];
            g->h[g->nh++] = h;
        }
    /* a bound of the kernel's, not the user's, on a window's points (kriging
     * within radius): count each node's window first */
    if (!failed && count_window && count_jobs(g, &d)) {
        for (int k = g->nh - 1; k >= 0; k--)
            gk_device_module()->job_free(g->h[k]);
        failed = 1;
    }
    if (failed) {
        snprintf(why, why_cap, "%s", g->err);
        pthread_cond_destroy(&g->freed);
        pthread_mutex_destroy(&g->lock);
        free(g);
        return NULL;
    }
    pthread_mutex_init(&g->tree_lock, NULL);
    g->op = d.op;
    g->err[0] = '\0';
    if (ndev == 1)
        snprintf(desc, desc_cap, "cuda:%d (%s)", dev, name);
    else
        snprintf(desc, desc_cap, "cuda:%d-%d (%d GPUs, the first %s)", devs[0], devs[ndev - 1],
                 ndev, name);
    return g;
}

/* Local kriging within radius: the windows' points are counted first. */
int gk_device_counts_window(const gk_job *job, const gk_gpu_job_desc *d)
{
    return d->window == GK_GPU_WIN_CIRCLE && job->alg.max_points == 0 && d->max_points > 0;
}

void gk_device_gpu_free(void *gpu)
{
    gk_gpu_job *g = gpu;
    if (!g)
        return;
    for (int k = g->nh - 1; k >= 0; k--) { /* clones before the jobs they share */
        g->api->job_free(g->h[k]);
        if (g->ch[k])
            g->api->job_free(g->ch[k]);
    }
    for (int k = 0; k < g->npool; k++)
        g->api->host_free((char *)g->pool[k] - 64);
    pthread_mutex_destroy(&g->tree_lock);
    pthread_cond_destroy(&g->freed);
    pthread_mutex_destroy(&g->lock);
    free(g);
}
