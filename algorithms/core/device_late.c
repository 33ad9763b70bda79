/* SPDX-License-Identifier: MIT */
/*
 * device_late.c - a late start (gk_context_set_gpu_late): a job made under
 * "auto" while the GPU is still starting does not wait for it. Its thread
 * here waits for the start (gk_device_probe) while the job is prepared for
 * the CPU, then builds the GPU side from the prepared job (uploads the
 * points); the engine's GPU threads adopt it when it is ready
 * (gk_device_late_poll) and take the tiles the cores have not begun
 * (cpu_share.h). The job's memory is read only while building: a job freed
 * before then leaves the thread to end alone.
 */
#include "device.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LATE_PROBING, LATE_BUILDING, LATE_DONE, LATE_ADOPTED };

struct gk_device_late {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t described_cv;
    int state, cancelled, described;
    gk_gpu_job_desc d; /* the prepared job's GPU form (described) */
    int code, dev, count_window;
    void *g;        /* LATE_DONE: the GPU side, or NULL */
    char desc[400]; /* what it runs on, */
    char why[600];  /* or why not */
};

static void late_free(gk_device_late *L)
{
    pthread_cond_destroy(&L->described_cv);
    pthread_mutex_destroy(&L->mu);
    free(L);
}

static void *late_main(void *arg)
{
    gk_device_late *L = arg;
    char name[200];
    int usable = !gk_device_probe(L->dev, name, sizeof name, L->why, sizeof L->why);
    pthread_mutex_lock(&L->mu);
    while (!L->described && !L->cancelled)
        pthread_cond_wait(&L->described_cv, &L->mu);
    if (L->cancelled) { /* the job is gone: its points too */
        pthread_mutex_unlock(&L->mu);
        late_free(L);
        return NULL;
    }
    L->state = LATE_BUILDING;
    pthread_mutex_unlock(&L->mu);
    void *g = NULL;
    if (usable) {
        g = gk_device_build(&L->d, L->code, L->dev, L->count_window, name, L->desc, sizeof L->desc,
                            L->why, sizeof L->why);
    } else {
        char tmp[sizeof L->why];
        snprintf(tmp, sizeof tmp, "%s", L->why);
        snprintf(L->why, sizeof L->why, "no usable GPU: %.580s", tmp);
    }
    pthread_mutex_lock(&L->mu);
    L->g = g;
    L->state = LATE_DONE;
    pthread_mutex_unlock(&L->mu);
    return NULL;
}

int gk_device_late_begin(gk_job *job, int code, int dev)
{
    gk_device_late *L = calloc(1, sizeof *L);
    if (!L)
        return GK_ERR_NOMEM;
    L->code = code;
    L->dev = dev;
    pthread_mutex_init(&L->mu, NULL);
    pthread_cond_init(&L->described_cv, NULL);
    if (pthread_create(&L->th, NULL, late_main, L)) {
        late_free(L);
        return GK_ERR_INTERNAL;
    }
    job->late = L;
    return GK_OK;
}

/* Ends a start that will build nothing: the thread frees it. */
static void late_cancel(gk_device_late *L)
{
    pthread_mutex_lock(&L->mu);
    L->cancelled = 1;
    pthread_cond_signal(&L->described_cv);
    pthread_mutex_unlock(&L->mu);
    pthread_detach(L->th);
}

int gk_device_late_start(gk_job *job)
{
    gk_device_late *L = job->late;
    if (!L || job->gpu)
        return GK_OK;
    /* described now: the CPU's preparation made what some GPU forms read
     * (density's bins, the points in gdal_grid's order) */
    gk_gpu_job_desc d;
    if (gk_device_describe(job, &d)) {
        job->late = NULL;
        late_cancel(L);
        return GK_OK; /* the CPU alone */
    }
    pthread_mutex_lock(&L->mu);
    L->d = d;
    L->count_window = gk_device_counts_window(job, &d);
    L->described = 1;
    pthread_cond_signal(&L->described_cv);
    pthread_mutex_unlock(&L->mu);
    return GK_OK;
}

int gk_device_late_poll(gk_job *job)
{
    gk_device_late *L = job->late;
    if (!L)
        return job->gpu ? 1 : -1;
    pthread_mutex_lock(&L->mu);
    int r = 0;
    if (L->state == LATE_DONE) {
        if (L->g) {
            job->gpu = L->g;
            L->g = NULL;
            L->state = LATE_ADOPTED;
            snprintf(job->ctx->device_name, sizeof job->ctx->device_name, "%s", L->desc);
        } else {
            snprintf(job->ctx->device_name, sizeof job->ctx->device_name, "cpu (%s)", L->why);
            r = -1;
        }
    }
    if (L->state == LATE_ADOPTED)
        r = 1;
    pthread_mutex_unlock(&L->mu);
    return r;
}

int gk_device_late_pending(const gk_job *job) { return job->late != NULL && !job->gpu; }

int gk_device_late_failed(gk_job *job)
{
    gk_device_late *L = job->late;
    if (!L)
        return 0;
    pthread_mutex_lock(&L->mu);
    int failed = L->state == LATE_DONE && !L->g;
    pthread_mutex_unlock(&L->mu);
    return failed;
}

void gk_device_late_end(gk_job *job)
{
    gk_device_late *L = job->late;
    if (!L)
        return;
    job->late = NULL;
    pthread_mutex_lock(&L->mu);
    if (L->state == LATE_PROBING) { /* still starting: it will read nothing of the job's */
        L->cancelled = 1;
        pthread_cond_signal(&L->described_cv);
        pthread_mutex_unlock(&L->mu);
        pthread_detach(L->th);
        return;
    }
    pthread_mutex_unlock(&L->mu);
    pthread_join(L->th, NULL);
    gk_device_gpu_free(L->g); /* built, never adopted */
    late_free(L);
}
