/* SPDX-License-Identifier: MIT */
/*
 * device.c - the core side of the GPU backend, its top: a job attached to
 * its device (the module's loading and the request: device_module.c; the
 * job's GPU side built: device_build.c; a late start: device_late.c), and
 * its tiles handed to the module. The core never links CUDA: a build or a machine
 * without it simply computes on the CPU. The core prints nothing; the reason
 * for a fallback is part of gk_context_device_name().
 */
#include "device.h"
#include "device_job.h"
#include "gpu_abi.h"
#include "method.h"
#include "to_float32.h"

#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* May the CPU cores start the job while the GPU starts (gk_context_set_gpu_late)?
 * Not where a tile's values need both (kriging's dense windows, linear's
 * rest), nor global kriging's one system, nor cross-validation. */
static int late_eligible(const gk_job *job, const gk_gpu_job_desc *d, int code)
{
    return code == GK_DEV_AUTO && job->ctx->gpu_late && !job->ctx->cv_fold &&
           d->op != GK_GPU_KRIGE_GLOBAL && !gk_device_counts_window(job, d) &&
           !(job->method->flags & GK_M_GPU_CPU_TAIL);
}

int gk_device_job_attach(gk_job *job)
{
    gk_context *ctx = job->ctx;
    int code;
    if (gk_device_requested(ctx, &code))
        return GK_ERR_ARG;
    snprintf(ctx->device_name, sizeof ctx->device_name, "cpu");
    if (code == GK_DEV_CPU)
        return GK_OK;
    int explicit_gpu = code >= GK_DEV_CUDA;
    int dev = code > GK_DEV_CUDA ? code - GK_DEV_CUDA - 1 : 0;
    if (!explicit_gpu && ctx->auto_cpu[0]) {
        snprintf(ctx->device_name, sizeof ctx->device_name, "cpu (%s)", ctx->auto_cpu);
        return GK_OK;
    }

    gk_gpu_job_desc d;
    const char *no = gk_device_describe(job, &d);
    if (no) {
        snprintf(ctx->device_name, sizeof ctx->device_name, "cpu (%s: %s)",
                 gk_algorithm_name(&job->alg), no);
        return GK_OK;
    }
    if (ctx->cv_fold) { /* cross-validation: local kriging's kernels leave a fold out */
        if (d.op != GK_GPU_KRIGE || job->ties) {
            snprintf(ctx->device_name, sizeof ctx->device_name,
                     "cpu (cross-validation on the GPU: local kriging only)");
            return GK_OK;
        }
        d.group = ctx->cv_fold;
    }
    /* a method the GPU takes only when asked for by name (linear) */
    if ((job->method->flags & GK_M_GPU_EXPLICIT) && !explicit_gpu) {
        snprintf(ctx->device_name, sizeof ctx->device_name,
                 "cpu (%s: quicker on the CPU cores; --device cuda runs it on the GPU)",
                 gk_algorithm_name(&job->alg));
        return GK_OK;
    }
    /* the GPU still starting: the job is prepared for the CPU, which starts
     * the grid; the GPU joins when it is ready (device_late.c) */
    if (late_eligible(job, &d, code) && !gk_device_probe_done(dev) &&
        gk_device_late_begin(job, code, dev) == GK_OK) {
        snprintf(ctx->device_name, sizeof ctx->device_name, "cpu (the GPU was starting)");
        return GK_OK;
    }
    char name[200], why[600];
    if (gk_device_probe(dev, name, sizeof name, why, sizeof why)) {
        if (explicit_gpu)
            return gk_error(ctx, GK_ERR_UNSUPPORTED, "cuda:%d: no usable GPU: %s", dev, why);
        snprintf(ctx->device_name, sizeof ctx->device_name, "cpu (no usable GPU: %s)", why);
        return GK_OK;
    }
    char desc[400];
    gk_gpu_job *g = gk_device_build(&d, code, dev, gk_device_counts_window(job, &d), name, desc,
                                    sizeof desc, why, sizeof why);
    if (!g) {
        if (explicit_gpu)
            return gk_error(ctx, GK_ERR_UNSUPPORTED, "cuda:%d (%s): %s", dev, name, why);
        snprintf(ctx->device_name, sizeof ctx->device_name, "cpu (GPU %s failed: %.500s)", name,
                 why);
        return GK_OK;
    }
    job->gpu = g;
    snprintf(ctx->device_name, sizeof ctx->device_name, "%s", desc);
    return GK_OK;
}

int gk_device_job_on_gpu(const gk_job *job) { return job->gpu != NULL; }

int gk_device_streams(const gk_job *job)
{
    const gk_gpu_job *g = job->gpu;
    return g ? g->nh : 0;
}

/* One tile on a free handle: the module's code (0, GK_GPU_TILE_NOMEM, other). */
static int tile_on_handle(const gk_job *job, const gk_gpu_tile *gt, double *out, uint64_t *nodata,
                          uint64_t *singular, int counting)
{
    gk_gpu_job *g = job->gpu;
    pthread_mutex_lock(&g->lock);
    int k;
    for (;;) {
        for (k = 0; k < g->nh && g->busy[k]; k++)
            ;
        if (k < g->nh)
            break;
        pthread_cond_wait(&g->freed, &g->lock);
    }
    g->busy[k] = 1;
    pthread_mutex_unlock(&g->lock);
    char err[512] = "";
    int rc =
        g->api->tile(counting ? g->ch[k] : g->h[k], gt, out, nodata, singular, err, sizeof err);
    pthread_mutex_lock(&g->lock);
    g->busy[k] = 0;
    if (!rc)
        g->last = k;
    else if (rc != GK_GPU_TILE_NOMEM)
        snprintf(g->err, sizeof g->err, "cuda:%d: %s", g->hdev[k], err);
    pthread_cond_signal(&g->freed);
    pthread_mutex_unlock(&g->lock);
    return rc;
}

/* A tile the GPU has no memory for is computed as two halves, recursively;
 * every node's value depends on the node alone, so the result is the same.
 * out: nbands planes of gt.w x gt.h values of esz bytes (gt.out_float). */
static uint64_t tile_split(const gk_job *job, gk_gpu_tile gt, double *out, int nbands,
                           uint64_t *singular, int counting)
{
    uint64_t nodata = 0, sing = 0;
    int rc = tile_on_handle(job, &gt, out, &nodata, &sing, counting);
    if (!rc) {
        *singular += sing;
        return nodata;
    }
    if (rc != GK_GPU_TILE_NOMEM)
        return GK_DEVICE_FAILED;
    gk_gpu_job *g = job->gpu;
    if ((size_t)gt.w * gt.h <= 256) {
        pthread_mutex_lock(&g->lock);
        snprintf(g->err, sizeof g->err, "out of GPU memory even for a %d x %d tile", gt.w, gt.h);
        pthread_mutex_unlock(&g->lock);
        return GK_DEVICE_FAILED;
    }
    pthread_mutex_lock(&g->lock);
    g->splits++;
    pthread_mutex_unlock(&g->lock);
    gk_gpu_tile a = gt, b = gt;
    const int by_rows = gt.h >= gt.w || gt.qx != NULL;
    if (by_rows) { /* given points: always by rows (they are w a row) */
        a.h = gt.h / 2;
        b.y0 = gt.y0 + a.h;
        b.h = gt.h - a.h;
        if (gt.g0) /* its covariates: the same blocks, from row a.h */
            b.g0 = gt.g0 + (size_t)a.h * gt.g0_pitch;
        if (gt.qx) {
            size_t skip = (size_t)a.h * gt.w;
            b.y0 = 0;
            b.qx = gt.qx + skip;
            b.qy = gt.qy + skip;
            b.qgroup = gt.qgroup + skip;
        }
    } else {
        a.w = gt.w / 2;
        b.x0 = gt.x0 + a.w;
        b.w = gt.w - a.w;
        if (gt.g0)
            b.g0 = gt.g0 + a.w;
    }
    const size_t esz = gt.out_float ? sizeof(float) : sizeof(double);
    size_t na = (size_t)a.w * a.h, nb = (size_t)b.w * b.h;
    double *ba = malloc((na + nb) * nbands * sizeof *ba);
    if (!ba)
        return UINT64_MAX;
    double *bb = (double *)((unsigned char *)ba + na * nbands * esz);
    uint64_t ra = tile_split(job, a, ba, nbands, singular, counting);
    uint64_t rb = ra >= GK_DEVICE_FAILED ? ra : tile_split(job, b, bb, nbands, singular, counting);
    if (ra < GK_DEVICE_FAILED && rb < GK_DEVICE_FAILED) {
        /* back into the tile's row-major bands */
        const unsigned char *ca = (const unsigned char *)ba, *cb = (const unsigned char *)bb;
        for (int band = 0; band < nbands; band++)
            for (int r = 0; r < gt.h; r++) {
                unsigned char *dst =
                    (unsigned char *)out + ((size_t)band * gt.w * gt.h + (size_t)r * gt.w) * esz;
                if (by_rows) {
                    const gk_gpu_tile *sub = r < a.h ? &a : &b;
                    const unsigned char *src =
                        r < a.h ? ca + ((size_t)band * na + (size_t)r * a.w) * esz
                                : cb + ((size_t)band * nb + (size_t)(r - a.h) * b.w) * esz;
                    memcpy(dst, src, (size_t)sub->w * esz);
                } else {
                    memcpy(dst, ca + ((size_t)band * na + (size_t)r * a.w) * esz,
                           (size_t)a.w * esz);
                    memcpy(dst + (size_t)a.w * esz,
                           cb + ((size_t)band * nb + (size_t)r * b.w) * esz, (size_t)b.w * esz);
                }
            }
    }
    free(ba);
    if (ra >= GK_DEVICE_FAILED)
        return ra;
    if (rb >= GK_DEVICE_FAILED)
        return rb;
    return ra + rb;
}

static int is_nodata(double v, double nodata) { return v == nodata || (isnan(v) && isnan(nodata)); }

int gk_device_converts(const gk_job *job)
{
    /* not where the CPU finishes the tile's values (linear's rest, kriging's
     * dense nodes): those are converted after them */
    const gk_gpu_job *g = job->gpu;
    return g && !g->dense_k && !job->method->gpu_finish;
}

int gk_device_job_shares(const gk_job *job)
{
    const gk_gpu_job *g = job->gpu;
    return g && g->op != GK_GPU_KRIGE_GLOBAL;
}

int gk_device_job_uses_cpu(const gk_job *job)
{
    const gk_gpu_job *g = job->gpu;
    return g && g->dense_k > 0;
}

int gk_device_cpu_index(gk_job *job)
{
    if (job->cpu_prepared)
        return GK_OK; /* a late GPU's job: prepared for the CPU first */
    gk_gpu_job *g = job->gpu;
    const gk_method *m = job->method;
    if (!g || !m->cpu_index)
        return GK_OK; /* a CPU job has its index */
    pthread_mutex_lock(&g->tree_lock);
    int rc = gk_job_prepare_ties(job); /* the GPU ordered only its own copy */
    if (!rc)
        rc = m->cpu_index(job);
    pthread_mutex_unlock(&g->tree_lock);
    return rc;
}

/* Kriging within radius: the nodes whose window holds more points than the
 * GPU's kernel takes are computed again on the CPU, one node at a time; the
 * tile's nodata count follows. */
static uint64_t dense_nodes_on_cpu(const gk_job *job, const gk_tile *t, const double *cnt,
                                   double *out, uint64_t nodata)
{
    gk_gpu_job *g = job->gpu;
    const size_t T = (size_t)t->w * t->h;
    const double nd = job->alg.nodata;
    size_t dense = 0;
    for (size_t q = 0; q < T; q++)
        dense += cnt[q] > g->dense_k;
    if (!dense)
        return nodata;
    gk_job *jw = (gk_job *)job;
    if (gk_device_cpu_index(jw))
        return UINT64_MAX;
    /* on every core (the engine's GPU threads are few): gk_job_run allows a
     * nested level for GPU jobs */
    size_t *list = malloc(dense * sizeof *list);
    double *val = malloc(dense * 2 * sizeof *val);
    if (!list || !val) {
        free(list);
        free(val);
        return UINT64_MAX;
    }
    for (size_t q = 0, m = 0; q < T; q++)
        if (cnt[q] > g->dense_k)
            list[m++] = q;
    uint64_t cpu_nodata = 0;
    int failed = 0;
    const int threads = job->ctx->threads > 0 ? job->ctx->threads : omp_get_num_procs();
    const gk_tile_fn cpu_tile = job->method->cpu_tile;
#pragma omp parallel num_threads(threads) reduction(+ : cpu_nodata) reduction(| : failed)
    {
        gk_scratch s = {0};
#pragma omp for schedule(dynamic, 8)
        for (size_t m = 0; m < dense; m++) {
            size_t q = list[m];
            gk_tile one = {
                t->g,   t->x0 + (int)(q % (size_t)t->w), t->y0 + (int)(q / (size_t)t->w), 1, 1,
                t->hit2};
            uint64_t r = failed ? 0 : cpu_tile(jw, &one, val + 2 * m, &s);
            if (r == UINT64_MAX)
                failed = 1;
            else
                cpu_nodata += r;
        }
        gk_scratch_free(&s);
    }
    if (failed)
        nodata = UINT64_MAX;
    else {
        for (size_t m = 0; m < dense; m++) {
            size_t q = list[m];
            nodata -= is_nodata(out[q], nd);
            for (int b = 0; b < job->nbands; b++)
                out[(size_t)b * T + q] = val[2 * m + b];
        }
        nodata += cpu_nodata;
    }
    free(list);
    free(val);
#pragma omp atomic
    g->dense_nodes += dense;
    return nodata;
}

/* Kriging: the model and drift to every handle, once (on the first tile). */
static int krige_once(const gk_job *job)
{
    gk_gpu_job *g = job->gpu;
    const gk_method *m = job->method;
    if (!m->gpu_krige)
        return 0;
    pthread_mutex_lock(&g->lock);
    int rc = 0;
    if (!g->krige_set) {
        gk_gpu_krige kg;
        if (m->gpu_krige(job, &kg)) {
            snprintf(g->err, sizeof g->err, "kriging set-up the GPU kernel does not cover");
            rc = -1;
        } else {
            for (int k = 0; k < g->nh && !rc; k++)
                rc = g->api->krige_set(g->h[k], &kg, g->err, sizeof g->err);
            g->krige_set = !rc;
        }
    }
    pthread_mutex_unlock(&g->lock);
    return rc;
}

uint64_t gk_device_points(const gk_job *job, size_t nq, const double *qx, const double *qy,
                          const int *qgroup, double *out)
{
    if (krige_once(job))
        return GK_DEVICE_FAILED;
    const int nb = job->nbands;
    /* the full rows of 8 as one tile, the rest as a row of its own */
    size_t rows = nq / 8, rest = nq % 8, done = 0;
    uint64_t nodata = 0, singular = 0;
    double *buf = malloc((rows ? rows * 8 : rest) * nb * sizeof *buf);
    if (!buf)
        return UINT64_MAX;
    for (int part = 0; part < 2; part++) {
        size_t w = part ? rest : 8, h = part ? 1 : rows, cnt = w * h;
        if (!cnt)
            continue;
        gk_gpu_tile gt = {.xmin = 0,
                          .xmax = 1,
                          .ymin = 0,
                          .ymax = 1,
                          .nx = (int)w,
                          .ny = (int)h,
                          .w = (int)w,
                          .h = (int)h,
                          .qx = qx + done,
                          .qy = qy + done,
                          .qgroup = qgroup + done};
        uint64_t r = tile_split(job, gt, buf, nb, &singular, 0);
        if (r >= GK_DEVICE_FAILED) {
            free(buf);
            return r;
        }
        nodata += r;
        for (int b = 0; b < nb; b++)
            memcpy(out + (size_t)b * nq + done, buf + (size_t)b * cnt, cnt * sizeof *out);
        done += cnt;
    }
    free(buf);
    return nodata;
}

uint64_t gk_device_tile(const gk_job *job, const gk_tile *t, double *out, int want_float,
                        int *is_float)
{
    gk_gpu_job *g = job->gpu;
    gk_gpu_tile gt = {.xmin = t->g->xmin,
                      .xmax = t->g->xmax,
                      .ymin = t->g->ymin,
                      .ymax = t->g->ymax,
                      .nx = t->g->nx,
                      .ny = t->g->ny,
                      .x0 = t->x0,
                      .y0 = t->y0,
                      .w = t->w,
                      .h = t->h,
                      .hit2 = t->hit2};
    uint64_t singular = 0;
    double *g0 = NULL;
    const gk_method *m = job->method;
    *is_float = 0;
    if (m->gpu_inputs) {
        int rc = m->gpu_inputs(job, t, &g0);
        if (rc > 0) { /* the CPU's tile would be nodata too */
            size_t T = (size_t)t->w * t->h;
            if (want_float && gk_device_converts(job)) { /* out holds floats only */
                const float nd = gk_to_float32(job->alg.nodata);
                for (size_t q = 0; q < T * job->nbands; q++)
                    memcpy((float *)out + q, &nd, sizeof nd);
                *is_float = 1;
                return T;
            }
            for (size_t q = 0; q < T * job->nbands; q++)
                out[q] = job->alg.nodata;
            return T;
        }
        if (rc < 0)
            return UINT64_MAX;
        if (g0) {
            gt.g0 = g0;
            gt.g0_ld = (size_t)t->w * t->h;
            gt.g0_pitch = t->w;
        }
    }
    if (krige_once(job)) {
        free(g0);
        return GK_DEVICE_FAILED;
    }
    double *cnt = NULL;
    if (g->dense_k) { /* within radius: the points of each node's window first */
        uint64_t unused = 0;
        cnt = malloc((size_t)t->w * t->h * sizeof *cnt);
        uint64_t rc = cnt ? tile_split(job, gt, cnt, 1, &unused, 1) : UINT64_MAX;
        if (rc >= GK_DEVICE_FAILED) {
            free(cnt);
            free(g0);
            return rc;
        }
        double most = 1;
        for (size_t q = 0; q < (size_t)t->w * t->h; q++)
            most = fmax(most, cnt[q]);
        gt.max_points = most < g->dense_k ? (int)most : g->dense_k;
    }
    gt.out_float = *is_float = want_float && gk_device_converts(job);
    uint64_t nodata = tile_split(job, gt, out, job->nbands, &singular, 0);
    free(g0);
    if (cnt && nodata < GK_DEVICE_FAILED)
        nodata = dense_nodes_on_cpu(job, t, cnt, out, nodata);
    free(cnt);
    if (nodata >= GK_DEVICE_FAILED)
        return nodata;
    if (m->gpu_finish) { /* linear: the nodes no triangle took */
        uint64_t rest = 0;
        nodata = m->gpu_finish(job, t, out, &rest);
#pragma omp atomic
        g->lin_rest += rest;
    }
    if (singular) { /* kriging's singular systems, or polynomial's lower degrees */
        gk_job *jw = (gk_job *)job;
        uint64_t *c = m->flags & GK_M_GPU_COUNTS_LOWERED ? &jw->lowered_nodes : &jw->singular_nodes;
#pragma omp atomic
        *c += singular;
    }
    return nodata;
}

uint64_t gk_device_tile_splits(const gk_job *job)
{
    const gk_gpu_job *g = job->gpu;
    return g ? g->splits : 0;
}

uint64_t gk_device_dense_nodes(const gk_job *job)
{
    const gk_gpu_job *g = job->gpu;
    return g ? g->dense_nodes : 0;
}

uint64_t gk_device_linear_rest(const gk_job *job)
{
    const gk_gpu_job *g = job->gpu;
    return g ? g->lin_rest : 0;
}

void *gk_device_host_alloc(const gk_job *job, size_t bytes)
{
    gk_gpu_job *g = job->gpu;
    if (!g)
        return NULL;
    void *p = NULL;
    pthread_mutex_lock(&g->lock);
    for (int k = 0; k < g->npool; k++)
        if (g->pool_bytes[k] >= bytes) {
            p = g->pool[k];
            g->npool--;
            g->pool[k] = g->pool[g->npool];
            g->pool_bytes[k] = g->pool_bytes[g->npool];
            break;
        }
    pthread_mutex_unlock(&g->lock);
    if (p)
        return p;
    /* the size travels in front of the buffer, for the pool (64 bytes keep
     * the tile's doubles aligned as cudaMallocHost's) */
    char *b = g->api->host_alloc(bytes + 64);
    if (!b)
        return NULL;
    memcpy(b, &bytes, sizeof bytes);
    return b + 64;
}

void gk_device_host_free(const gk_job *job, void *p)
{
    gk_gpu_job *g = job->gpu;
    if (!g || !p)
        return;
    size_t bytes;
    memcpy(&bytes, (char *)p - 64, sizeof bytes);
    pthread_mutex_lock(&g->lock);
    int kept = g->npool < GK_HOST_POOL;
    if (kept) {
        g->pool[g->npool] = p;
        g->pool_bytes[g->npool] = bytes;
        g->npool++;
    }
    pthread_mutex_unlock(&g->lock);
    if (!kept)
        g->api->host_free((char *)p - 64);
}

const char *gk_device_error(const gk_job *job)
{
    gk_gpu_job *g = job->gpu;
    return g ? g->err : "";
}

void gk_device_job_free(gk_job *job)
{
    gk_device_late_end(job);
    gk_device_gpu_free(job->gpu);
    job->gpu = NULL;
}

double gk_device_last_kernel_ms(const gk_job *job)
{
    gk_gpu_job *g = job->gpu;
    return g ? g->api->last_kernel_ms(g->h[g->last]) : -1.0;
}
