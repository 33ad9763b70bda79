/* SPDX-License-Identifier: MIT */
/*
 * device_job.h - a job's GPU side (job->gpu), shared by the files of the
 * GPU backend: device_build.c makes and frees it, device.c runs its tiles,
 * device_late.c builds it on a thread of its own. Internal to core/.
 */
#ifndef GK_DEVICE_JOB_H
#define GK_DEVICE_JOB_H

#include "gpu_abi.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* A job on the GPUs: per device, GK_GPU_STREAMS module jobs (each with its
 * own stream, buffers and copy of the points), so that one tile's copies and
 * the sink's writing overlap another's kernels, and every visible GPU takes
 * tiles. Tiles go to whichever handle is free. */
#define GK_GPU_MAX_HANDLES 64
typedef struct {
    const gk_gpu_api *api;
    int nh;
    void *h[GK_GPU_MAX_HANDLES];
    int hdev[GK_GPU_MAX_HANDLES];
    int busy[GK_GPU_MAX_HANDLES];
    int last;        /* handle of the last finished tile (its kernel time) */
    int krige_set;   /* kriging parameters handed over (before the first tile) */
    uint64_t splits; /* tiles split because the GPU ran out of memory */
    /* kriging over every point within radius: count jobs beside h[] (the
     * window's points per node), the nodes with more than dense_k left to
     * the CPU, which builds its k-d tree for them on first need */
    void *ch[GK_GPU_MAX_HANDLES];
    int dense_k;
    gk_gpu_op op; /* the kernel the job runs */
    uint64_t dense_nodes;
    pthread_mutex_t tree_lock;
    uint64_t lin_rest; /* linear: nodes the GPU left to the CPU */
    pthread_mutex_t lock;
    pthread_cond_t freed;
    /* page-locked tile buffers kept for the job's next run: allocating and
     * freeing them (cudaFreeHost waits for the device) per run cost
     * milliseconds each, which MPI's strips (a run each) paid 64+ times */
#define GK_HOST_POOL 16
    void *pool[GK_HOST_POOL];
    size_t pool_bytes[GK_HOST_POOL];
    int npool;
    char err[512];
} gk_gpu_job;

#endif
