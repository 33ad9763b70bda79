/* SPDX-License-Identifier: MIT */
/*
 * cpu_share.c - the CPU cores' share of a GPU run: the tile queue and its
 * helper thread (cpu_share.h).
 *
 * The rule: the helper takes a slice only when, at the rates measured so far
 * (the GPU's from its finished tiles, the CPU's from its slices, before the
 * first from device_choice.c's model), it would finish the slice, with half
 * again as margin, before the GPUs finish what is left without it. A slice
 * is sized to about SLICE_S on the helper's cores, so the run can end at
 * most about one slice later than the GPUs alone would. The helper also
 * stays out where it could add little (a CPU rate below MIN_SHARE of the
 * GPUs') or where building the CPU's index would take a large part of the
 * GPUs' remaining time.
 *
 * The slices' results are kept and handed to the sink after the helper's
 * last slice: the bottom rows they fill are those the GPUs reach last, so
 * the writer's partly written strips stay as few as without the helper.
 */
#include "cpu_share.h"

#include "device.h"
#include "method.h"

#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLICE_S 0.05     /* seconds a slice should take on the helper's cores */
#define MARGIN 1.5       /* the slice's time, times this, must fit in the GPUs' rest */
#define MIN_SHARE 0.03   /* the CPU's rate against the GPUs' below which it stays out */
#define SETUP_SHARE 0.25 /* the index's build at most this part of the GPUs' rest */
#define SUB_W 32         /* columns of a helper thread's piece of a slice */
/* a late start's slice before the GPU comes: short, so that the GPU, once
 * there, waits little for the one in flight */
#define FRONT_S 0.02

typedef struct slice {
    gk_tile t;
    uint64_t nodata;
    double *values; /* nbands planes of t.w x t.h */
    struct slice *next;
} slice;

struct gk_share {
    gk_job *job;
    const gk_grid *g;
    int y0, y1; /* the rows of g the run covers */
    int tw, th, ntx, gpu_threads, helpers, force;
    int cores;  /* every core of the run: a late start's helper before the GPU is on */
    int late;   /* a late start: the helper begins at the front (cpu_share.h) */
    int gpu_on; /* late: the GPU threads take tiles */
    long long ntiles;
    pthread_mutex_t mu;
    /* tiles [front, back] are left; the helper has taken front_rows rows off
     * the top of tile front (late start) and back_rows off the bottom of
     * tile back */
    long long front, back;
    int front_rows, back_rows;
    /* rates: finished GPU tiles (nodes, seconds of the threads computing
     * them) and the helper's slices */
    double gpu_nodes, gpu_s, cpu_nodes, cpu_s;
    double late_nodes; /* the helper's front slices (a late start) */
    slice *done;
    int rows_forced;
    int have_pre; /* forced: a slice claimed before the run starts */
    gk_tile pre;
};

static int tile_rows(const gk_share *q, long long k)
{
    int y0 = q->y0 + (int)(k / q->ntx) * q->th;
    return y0 + q->th > q->y1 ? q->y1 - y0 : q->th;
}

static void tile_of(const gk_share *q, long long k, gk_tile *t)
{
    int tx = (int)(k % q->ntx), ty = (int)(k / q->ntx);
    gk_tile r = {q->g, tx * q->tw, q->y0 + ty * q->th, q->tw, q->th, gk_hit_threshold2(q->g)};
    if (r.x0 + r.w > q->g->nx)
        r.w = q->g->nx - r.x0;
    if (r.y0 + r.h > q->y1)
        r.h = q->y1 - r.y0;
    *t = r;
}

static int claim(gk_share *q, double cpu_rate, double setup_s, int first, gk_tile *t);

static int getenv_force(void)
{
    const char *e = getenv("GRIDKIT_CPU_SHARE");
    return e && !strcmp(e, "force");
}

static int helper_allowed(const gk_job *job)
{
    if (!job->gpu || (job->method->flags & GK_M_GPU_CPU_TAIL))
        return 0; /* linear's CPU share is its gpu_finish */
    if (!gk_device_job_shares(job))
        return 0; /* global kriging: one system, factorised on the GPU only */
    /* kriging within radius: its dense nodes have the cores already (H100,
     * 1 M points, 4096^2 within 40 m: a 1.4 % share made the run 7 % slower) */
    return !gk_device_job_uses_cpu(job) || getenv_force();
}

gk_share *gk_share_new(gk_job *job, const gk_grid *g, int y0, int rows, int tile_w, int tile_h,
                       int gpu_threads, int cpu_threads, int late)
{
    gk_share *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->job = job;
    q->g = g;
    q->y0 = y0;
    q->y1 = y0 + rows;
    q->tw = tile_w;
    q->th = tile_h;
    q->ntx = (g->nx + tile_w - 1) / tile_w;
    q->ntiles = (long long)q->ntx * ((rows + tile_h - 1) / tile_h);
    q->gpu_threads = gpu_threads;
    q->front = 0;
    q->back = q->ntiles - 1;
    pthread_mutex_init(&q->mu, NULL);
    const char *e = getenv("GRIDKIT_CPU_SHARE");
    q->force = getenv_force();
    const int off = e && !strcmp(e, "0");
    q->helpers = cpu_threads - gpu_threads;
    q->cores = cpu_threads;
    q->late = late;
    if (off || !(late || helper_allowed(job)) || q->helpers < (q->force ? 1 : 2))
        q->helpers = 0;
    /* forced (tests): the helper's first slices are its own before any GPU
     * thread starts, so that every run shares */
    const char *r = getenv("GRIDKIT_CPU_SHARE_ROWS");
    q->rows_forced = r && atoi(r) > 0 ? atoi(r) : 3;
    if (q->force && q->helpers)
        q->have_pre = claim(q, 0, 0, 1, &q->pre);
    return q;
}

void gk_share_free(gk_share *q)
{
    if (!q)
        return;
    while (q->done) {
        slice *s = q->done;
        q->done = s->next;
        free(s->values);
        free(s);
    }
    pthread_mutex_destroy(&q->mu);
    free(q);
}

int gk_share_has_helper(const gk_share *q) { return q->helpers > 0 || q->late; }

void gk_share_gpu_on(gk_share *q)
{
    pthread_mutex_lock(&q->mu);
    q->gpu_on = 1;
    pthread_mutex_unlock(&q->mu);
}

int gk_share_empty(gk_share *q)
{
    pthread_mutex_lock(&q->mu);
    int e = q->front > q->back;
    pthread_mutex_unlock(&q->mu);
    return e;
}

uint64_t gk_share_cpu_nodes(const gk_share *q) { return (uint64_t)(q->cpu_nodes + q->late_nodes); }

int gk_share_next(gk_share *q, gk_tile *t)
{
    int got = 0;
    pthread_mutex_lock(&q->mu);
    while (!got && q->front <= q->back) {
        long long k = q->front++;
        tile_of(q, k, t);
        t->y0 += q->front_rows; /* the helper had the rows above */
        t->h -= q->front_rows;
        q->front_rows = 0;
        if (k == q->back)
            t->h -= q->back_rows; /* the helper has the rows below */
        got = t->h > 0;
    }
    pthread_mutex_unlock(&q->mu);
    return got;
}

void gk_share_gpu_done(gk_share *q, const gk_tile *t, double seconds)
{
    pthread_mutex_lock(&q->mu);
    q->gpu_nodes += (double)t->w * t->h;
    q->gpu_s += seconds;
    pthread_mutex_unlock(&q->mu);
}

/* Nodes the GPUs have left (the helper's rows off), under q->mu. */
static double gpu_left(const gk_share *q)
{
    if (q->front > q->back)
        return 0;
    return (double)(q->back - q->front + 1) * q->tw * q->th -
           (double)(q->front_rows + q->back_rows) * q->tw;
}

/* A late start's slice of `rows` rows off the top of the first tile left:
 * 1 and *t, or 0 when the queue is empty. */
static int claim_front(gk_share *q, int rows, gk_tile *t)
{
    int got = 0;
    pthread_mutex_lock(&q->mu);
    while (!got && q->front <= q->back) {
        int left =
            tile_rows(q, q->front) - q->front_rows - (q->front == q->back ? q->back_rows : 0);
        if (left <= 0) { /* the tile is all taken */
            q->front++;
            q->front_rows = 0;
            continue;
        }
        if (rows > left)
            rows = left;
        tile_of(q, q->front, t);
        t->y0 += q->front_rows;
        t->h = rows;
        q->front_rows += rows;
        if (rows == left) {
            q->front++;
            q->front_rows = 0;
        }
        got = 1;
    }
    pthread_mutex_unlock(&q->mu);
    return got;
}

/* The helper's next slice off the bottom of the last tile left: 1 and *t, or
 * 0 when the rule (or the queue) says no. cpu_rate: nodes per second of the
 * helper's cores; setup_s: what it must build before its first slice. */
static int claim(gk_share *q, double cpu_rate, double setup_s, int first, gk_tile *t)
{
    int got = 0;
    pthread_mutex_lock(&q->mu);
    if (q->front <= q->back) {
        /* h: the tile's rows above the helper's; avail: those no one has */
        const int top = q->front == q->back ? q->front_rows : 0;
        int h = tile_rows(q, q->back) - q->back_rows, avail = h - top;
        int rows = q->force ? q->rows_forced : (int)ceil(cpu_rate * SLICE_S / q->tw);
        if (rows < 1)
            rows = 1;
        if (rows > avail)
            rows = avail;
        double nodes = (double)rows * q->tw;
        /* the GPUs' rate: their threads work side by side */
        double gpu_rate = q->gpu_s > 0 ? q->gpu_threads * q->gpu_nodes / q->gpu_s : 0;
        int pays = 0;
        if (q->force)
            pays = 1;
        else if (gpu_rate > 0 && cpu_rate > 0) {
            double rest = (gpu_left(q) - nodes) / gpu_rate;
            pays = MARGIN * nodes / cpu_rate + setup_s <= rest &&
                   (!first || (cpu_rate >= MIN_SHARE * gpu_rate && setup_s <= SETUP_SHARE * rest));
        }
        if (pays && rows > 0) {
            tile_of(q, q->back, t);
            t->y0 += h - rows;
            t->h = rows;
            q->back_rows += rows;
            if (q->back_rows + top >= tile_rows(q, q->back)) {
                q->back--;
                q->back_rows = 0;
            }
            got = 1;
        }
    }
    pthread_mutex_unlock(&q->mu);
    return got;
}

static int gpu_started(gk_share *q, int *queue_empty)
{
    pthread_mutex_lock(&q->mu);
    int started = q->gpu_s > 0;
    *queue_empty = q->front > q->back;
    pthread_mutex_unlock(&q->mu);
    return started;
}

/* A slice on the helper's cores, in pieces of SUB_W columns. */
static uint64_t compute_slice(gk_share *q, const gk_tile *t, double *out, gk_scratch *scr,
                              double *piece, int threads)
{
    const gk_job *job = q->job;
    gk_tile_fn fn = job->method->cpu_tile;
    const int nb = job->nbands, npieces = (t->w + SUB_W - 1) / SUB_W;
    const size_t T = (size_t)t->w * t->h;
    uint64_t nodata = 0;
    int failed = 0;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) reduction(+ : nodata) \
    reduction(| : failed)
    for (int p = 0; p < npieces; p++) {
        const int me = omp_get_thread_num();
        gk_tile s = *t;
        s.x0 = t->x0 + p * SUB_W;
        s.w = t->x0 + t->w - s.x0 < SUB_W ? t->x0 + t->w - s.x0 : SUB_W;
        double *buf = piece + (size_t)me * SUB_W * t->h * nb;
        uint64_t r = failed ? 0 : fn(job, &s, buf, &scr[me]);
        if (r == UINT64_MAX) {
            failed = 1;
            continue;
        }
        nodata += r;
        for (int b = 0; b < nb; b++)
            for (int j = 0; j < t->h; j++)
                memcpy(out + b * T + (size_t)j * t->w + (s.x0 - t->x0),
                       buf + ((size_t)b * t->h + j) * s.w, (size_t)s.w * sizeof *out);
    }
    return failed ? UINT64_MAX : nodata;
}

static void sleep_ms(double ms)
{
    struct timespec ts = {0, (long)(ms * 1e6)};
    nanosleep(&ts, NULL);
}

static int stopped(int *stop)
{
    int st;
#pragma omp atomic read
    st = *stop;
    return st;
}

/* Is a late start still without its GPU (the helper then takes the front)? */
static int gpu_off(gk_share *q)
{
    if (!q->late)
        return 0;
    pthread_mutex_lock(&q->mu);
    int off = !q->gpu_on;
    pthread_mutex_unlock(&q->mu);
    return off;
}

void gk_share_help(gk_share *q, int *stop, gk_share_deliver_fn deliver, void *user)
{
    gk_job *job = q->job;
    if (!q->helpers && !q->late)
        return;
    /* the model's rate until the first slice is measured */
    double setup_s = 0, node_s = 1.0;
    if (!q->force) {
        double x0, y0, x1, y1;
        gk_points_bounds(job->pts, &x0, &y0, &x1, &y1); /* a job has points */
        node_s = gk_algorithm_cpu_node_seconds(&job->alg, (double)job->pts->n,
                                               (x1 - x0) * (y1 - y0), &setup_s);
        if (!isfinite(node_s) || !(node_s > 0)) {
            if (!q->late)
                return;
            node_s = 1e-6; /* a late start computes anyway: a guess, then measured */
        }
        if (job->tree || job->cpu_prepared)
            setup_s = 0; /* built already (without one the model says 0) */
    }
    const int nb = job->nbands;
    const int team = q->cores > q->helpers ? q->cores : q->helpers;
    gk_scratch *scr = calloc((size_t)team, sizeof *scr);
    double *piece = malloc((size_t)team * SUB_W * q->th * nb * sizeof *piece);
    double *front = NULL;                /* a late start's front slice, handed over at once */
    double front_nodes = 0, front_s = 0; /* and the rate of every core on them */
    int front_rows_last = 0;
    /* one core left to the GPU's start (the driver's and the context's
     * set-up run on a thread of their own) */
    const int front_team = q->cores > 2 ? q->cores - 1 : q->cores;
    int first = 1, failed = !scr || !piece;
    while (!failed && !stopped(stop)) {
        if (gpu_off(q)) {
            /* a first slice of two rows measures the rate; then FRONT_S
             * each, growing at most twofold (the model can be far off) */
            double rate = front_s > 0 ? front_nodes / front_s : front_team / node_s;
            int rows = front_rows_last ? (int)ceil(rate * FRONT_S / q->tw) : 2;
            if (front_rows_last && rows > 2 * front_rows_last)
                rows = 2 * front_rows_last;
            rows = rows < 1 ? 1 : rows;
            front_rows_last = rows;
            gk_tile t;
            if (!claim_front(q, rows, &t))
                break; /* all done before the GPU came */
            if (!front && !(front = malloc((size_t)q->tw * q->th * nb * sizeof *front))) {
                failed = 1;
                break;
            }
            double t1 = omp_get_wtime();
            uint64_t nd = compute_slice(q, &t, front, scr, piece, front_team);
            front_nodes += (double)t.w * t.h;
            front_s += omp_get_wtime() - t1;
            q->late_nodes += (double)t.w * t.h;
            if (nd == UINT64_MAX) {
                failed = 1;
                break;
            }
            if (deliver(user, &t, nd, front))
                break;
            continue;
        }
        if (!q->helpers)
            break; /* no cores left beside the GPU threads */
        int empty;
        if (!q->force && !gpu_started(q, &empty)) { /* no GPU rate yet */
            if (empty)
                break;
            sleep_ms(0.5);
            continue;
        }
        double cpu_rate = q->cpu_s > 0  ? q->cpu_nodes / q->cpu_s
                          : front_s > 0 ? front_nodes / front_s * q->helpers / front_team
                                        : q->helpers / node_s;
        gk_tile t;
        if (q->have_pre) {
            t = q->pre;
            q->have_pre = 0;
        } else if (!claim(q, cpu_rate, first ? setup_s : 0, first, &t)) {
            break; /* the GPUs finish the rest first */
        }
        if (first && gk_device_cpu_index(job)) {
            failed = 1;
            break;
        }
        first = 0;
        double t1 = omp_get_wtime();
        slice *s = malloc(sizeof *s);
        double *v = malloc((size_t)t.w * t.h * nb * sizeof *v);
        if (!s || !v) {
            free(s);
            free(v);
            failed = 1;
            break;
        }
        s->t = t;
        s->values = v;
        s->nodata = compute_slice(q, &t, v, scr, piece, q->helpers);
        s->next = q->done;
        q->done = s;
        if (s->nodata == UINT64_MAX) {
            failed = 1;
            break;
        }
        q->cpu_nodes += (double)t.w * t.h;
        q->cpu_s += omp_get_wtime() - t1;
    }
    for (int i = 0; scr && i < team; i++)
        gk_scratch_free(&scr[i]);
    free(scr);
    free(piece);
    free(front);
    if (failed) {
        if (!stopped(stop)) {
#pragma omp atomic write
            *stop = GK_ERR_NOMEM;
        }
        return;
    }
    for (slice *s = q->done; s && !stopped(stop); s = s->next)
        if (deliver(user, &s->t, s->nodata, s->values))
            break;
}
