/* SPDX-License-Identifier: MIT */
/*
 * grid_strips.c - strips of rows shared out among MPI ranks, written by
 * rank 0 or as parts (grid_strips.h).
 *
 * The exchange, worker rank r and rank 0:
 *   r -> 0  ASK, ASK              at the start (GK_STRIPS_AHEAD requests)
 *   0 -> r  STRIP k               (or -1: no more, or the run stops)
 *   r -> 0  DATA header(k, rc, singular counts) [+ the strip's values, in
 *           the output's type]
 *   0 -> r  STRIP k' ...          a DATA asks for another strip
 * A rank that fails sends a DATA with its code and takes the -1 that
 * follows; its message reaches the user through gk_world_agree(), which
 * every rank calls after the run.
 */
#define _POSIX_C_SOURCE 200809L
#include "lib/grid_strips.h"

#include <gdal.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STRIP_BYTES (32.0 * 1024 * 1024)
#define GK_STRIPS_HELD_MAX (1024.0 * 1024 * 1024)
/* The strips a rank asks rank 0 for: two requests are always outstanding
 * (two ASKs at first, then a DATA for each strip), so the next strip's
 * number is there when the current one is computed; rank 0 answers each
 * request once, the last two with -1. */
#define GK_STRIPS_AHEAD 2

int gk_strips_height(const gk_grid *g, int bands, int tile_h)
{
    if (tile_h < 1)
        tile_h = 1;
    double row = (double)g->nx * bands * sizeof(double);
    if (row * tile_h > STRIP_BYTES) {
        /* rows so wide that one tile's height passes the budget: fewer rows
         * (block rows then fill from several strips) */
        int h = (int)(STRIP_BYTES / row);
        h = h < 1 ? 1 : h;
        return h > g->ny ? g->ny : h;
    }
    int k = (int)(STRIP_BYTES / (row * tile_h));
    while (k > 1 && (g->ny + k * tile_h - 1) / (k * tile_h) < GK_STRIPS_MIN)
        k--;
    int h = k * tile_h;
    return h > g->ny ? g->ny : h;
}

char *gk_strips_part_name(const char *dir, const char *stem, int k)
{
    size_t n = strlen(dir) + strlen(stem) + 32;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s/%s-%06d.tif", dir, stem, k);
    return s;
}

/* ---- one strip ------------------------------------------------------------ */

typedef struct {
    double *buf; /* bands planes of nx x h */
    int nx, y0, h, plane0, planes;
} strip_sink;

/* A tile of one job into its planes of the strip (tiles never overlap). */
static int to_strip(void *user, int x0, int y0, int w, int h, int nbands, const double *v)
{
    const strip_sink *s = user;
    for (int b = 0; b < nbands; b++) {
        double *plane = s->buf + (size_t)(s->plane0 + b) * s->nx * s->h;
        for (int j = 0; j < h; j++)
            memcpy(plane + (size_t)(y0 - s->y0 + j) * s->nx + x0, v + ((size_t)b * h + j) * w,
                   (size_t)w * sizeof(double));
    }
    return 0;
}

/* Strip k's rows */
static void strip_rows(const gk_strips *s, int height, int k, int *y0, int *h)
{
    *y0 = k * height;
    *h = *y0 + height > s->g->ny ? s->g->ny - *y0 : height;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Computes strip k of every job into buf; adds their singular nodes (and
 * after them, n_jobs further, their lowered nodes).
 * Called by one thread of a rank at a time. */
static int compute_strip(gk_strips *s, int height, int k, double *buf, uint64_t *singular)
{
    double t0 = now_s();
    s->strips_done++;
    int y0, h;
    strip_rows(s, height, k, &y0, &h);
    for (int j = 0; j < s->n_jobs; j++) {
        strip_sink sk = {buf, s->g->nx, y0, h, j * s->planes, s->planes};
        int rc = gk_job_run_rows(s->jobs[j], s->g, y0, h, s->tile_w, s->tile_h, GK_SINK_CONCURRENT,
                                 to_strip, &sk, NULL, NULL);
        if (rc)
            return rc;
        gk_run_stats st;
        gk_job_stats(s->jobs[j], &st);
        singular[j] += st.singular_nodes;
        singular[s->n_jobs + j] += st.lowered_nodes;
    }
    s->compute_s += now_s() - t0;
    return GK_OK;
}

/* A thread that computes a rank's next strip while the rank writes or sends
 * the one before: the GPU (or the cores) never wait for the output. */
typedef struct {
    gk_strips *s;
    int height;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int threaded, have_job, done, quit, k, rc;
    double *buf;
    uint64_t *sg;
    void *wire; /* non-NULL: buf converted to the writer's wire type here too */
} computer;

static int wire_size(const gk_strips *s);

/* Doubles to the output's type, as GDALRasterIO would convert them, on the
 * rank's cores: one thread would hold up every strip behind it. */
static void to_wire(const gk_strips *s, const double *src, void *dst, size_t n)
{
    const size_t chunk = (size_t)1 << 18;
    const long pieces = (long)((n + chunk - 1) / chunk);
    const int vs = GDALGetDataTypeSizeBytes((GDALDataType)s->wire_type);
    int threads = gk_context_threads(s->ctx);
    threads = threads < 1 ? 1 : threads > 8 ? 8 : threads;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (long c = 0; c < pieces; c++) {
        size_t o = (size_t)c * chunk, len = n - o < chunk ? n - o : chunk;
        GDALCopyWords64(src + o, GDT_Float64, sizeof(double), (unsigned char *)dst + o * vs,
                        (GDALDataType)s->wire_type, vs, (GPtrDiff_t)len);
    }
}

/* Strip k, then (rank 0's own strips) its conversion to the output's type,
 * as other ranks' strips travel: done beside the writer, not inside it,
 * where it would hold up every strip behind it. */
static int computer_run(computer *c, int k)
{
    int rc = compute_strip(c->s, c->height, k, c->buf, c->sg);
    if (!rc && c->wire) {
        const gk_strips *s = c->s;
        int y0, h;
        strip_rows(s, c->height, k, &y0, &h);
        to_wire(s, c->buf, c->wire, (size_t)s->g->nx * h * s->n_jobs * s->planes);
    }
    return rc;
}

static void *computer_main(void *arg)
{
    computer *c = arg;
    pthread_mutex_lock(&c->mu);
    for (;;) {
        while (!c->have_job && !c->quit)
            pthread_cond_wait(&c->cv, &c->mu);
        if (c->quit)
            break;
        int k = c->k;
        pthread_mutex_unlock(&c->mu);
        int rc = computer_run(c, k);
        pthread_mutex_lock(&c->mu);
        c->rc = rc;
        c->have_job = 0;
        c->done = 1;
        pthread_cond_broadcast(&c->cv);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

static void computer_start(computer *c, gk_strips *s, int height)
{
    memset(c, 0, sizeof *c);
    c->s = s;
    c->height = height;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    /* without a thread, strips are computed in turn with the output */
    c->threaded = pthread_create(&c->th, NULL, computer_main, c) == 0;
}

/* Strip k into buf (and wire, if not NULL; its singular counts into sg,
 * zeroed here). */
static void computer_give(computer *c, int k, double *buf, void *wire, uint64_t *sg)
{
    memset(sg, 0, 2 * (size_t)c->s->n_jobs * sizeof *sg);
    pthread_mutex_lock(&c->mu);
    c->k = k;
    c->buf = buf;
    c->wire = wire;
    c->sg = sg;
    c->done = 0;
    c->have_job = 1;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    if (!c->threaded) {
        c->rc = computer_run(c, k);
        c->have_job = 0;
        c->done = 1;
    }
}

static int computer_wait(computer *c)
{
    pthread_mutex_lock(&c->mu);
    while (!c->done)
        pthread_cond_wait(&c->cv, &c->mu);
    int rc = c->rc;
    pthread_mutex_unlock(&c->mu);
    return rc;
}

static void computer_stop(computer *c)
{
    pthread_mutex_lock(&c->mu);
    c->quit = 1;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    if (c->threaded)
        pthread_join(c->th, NULL);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
}

/* Strip k as a part of its own (every band), under a temporary name and
 * renamed when whole, as any output. */
static int write_part(gk_strips *s, int height, int k, const double *buf)
{
    int y0, h;
    strip_rows(s, height, k, &y0, &h);
    char *name = gk_strips_part_name(s->parts_dir, s->parts_stem, k);
    if (!name)
        return gk_error(s->ctx, GK_ERR_NOMEM, "out of memory");
    gk_raster_spec spec = *s->part_spec;
    spec.dst = name;
    spec.nx = s->g->nx;
    spec.ny = h;
    spec.geotransform[3] = s->part_spec->geotransform[3] + y0 * s->part_spec->geotransform[5];
    gk_raster_writer *w = gk_raster_writer_open(s->ctx, &spec);
    int rc = w ? GK_OK : (gk_errno(s->ctx) ? gk_errno(s->ctx) : GK_ERR_IO);
    const int bands = s->n_jobs * s->planes;
    for (int b = 0; b < bands && !rc; b++)
        if (s->band_prepared && s->band_prepared[b])
            rc = gk_raster_writer_set_band_metadata(w, b + 1, "GRIDKIT_PREPARED",
                                                    s->band_prepared[b]);
    for (int b = 0; b < bands && !rc; b++)
        rc = gk_raster_writer_write(w, b + 1, 0, 0, s->g->nx, h, buf + (size_t)b * s->g->nx * h);
    if (w && !rc) {
        rc = gk_raster_writer_commit(w);
        w = NULL;
    }
    gk_raster_writer_abort(w);
    free(name);
    return rc;
}

/* Bytes of one value on the wire. */
static int wire_size(const gk_strips *s)
{
    return s->wire_type ? GDALGetDataTypeSizeBytes((GDALDataType)s->wire_type) : 8;
}

/* Strip k's planes to rank 0's writer: doubles (rank 0's own), or as they
 * travelled from another rank (wire, in the writer's wire type). */
static int write_strip(gk_strips *s, int height, int k, const void *vals, int wire)
{
    int y0, h, rc = GK_OK;
    strip_rows(s, height, k, &y0, &h);
    const int bands = s->n_jobs * s->planes, vs = wire ? wire_size(s) : (int)sizeof(double);
    for (int b = 0; b < bands && !rc; b++) {
        const void *plane = (const unsigned char *)vals + (size_t)b * s->g->nx * h * vs;
        rc = wire ? gk_raster_writer_write_wire(s->w, b + 1, 0, y0, s->g->nx, h, plane)
                  : gk_raster_writer_write(s->w, b + 1, 0, y0, s->g->nx, h, plane);
    }
    return rc;
}

/* ---- rank 0: strips handed out, in a window --------------------------------- */

typedef struct {
    gk_strips *s;
    int height, nstrips, window;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int next, low;       /* next strip to hand out; lowest unfinished */
    unsigned char *done; /* per strip */
    int stop;            /* a failure somewhere: hand out no more */
    int rows_done;
    uint64_t *singular; /* 2 * n_jobs: singular, then lowered */
    int local_rc;       /* rank 0's own strips */
    /* whether other ranks' strips pay: rank 0's seconds computing a strip
     * of its own, against its seconds taking one in from another rank */
    int local_n, remote_n;
    double local_s, remote_s;
} board;

/* Rank 0 writes every strip, whoever computed it; what a strip from another
 * rank costs it beyond that is the receiving. Where that is more than
 * computing the strip itself (a strip cheap to compute and large), rank 0
 * keeps the rest for itself: more ranks are then no slower than one. Under
 * mu. */
static int remote_pays(const board *bd)
{
    if (bd->local_n < 2 || bd->remote_n < 2)
        return 1;
    return bd->remote_s / bd->remote_n <= bd->local_s / bd->local_n;
}

/* The next strip for anyone, -1 when none is left or the run stops; with
 * wait, blocks while the window is full, else returns -2 then. Under mu. */
static int take(board *bd, int wait)
{
    for (;;) {
        if (bd->stop || bd->next >= bd->nstrips)
            return -1;
        if (bd->next < bd->low + bd->window)
            return bd->next++;
        if (!wait)
            return -2;
        pthread_cond_wait(&bd->cv, &bd->mu);
    }
}

static void finish(board *bd, int k, int h, const uint64_t *singular, int n_jobs)
{
    pthread_mutex_lock(&bd->mu);
    bd->done[k] = 1;
    while (bd->low < bd->nstrips && bd->done[bd->low])
        bd->low++;
    bd->rows_done += h;
    for (int j = 0; j < 2 * n_jobs; j++)
        bd->singular[j] += singular[j];
    pthread_cond_broadcast(&bd->cv);
    pthread_mutex_unlock(&bd->mu);
}

static void halt(board *bd)
{
    pthread_mutex_lock(&bd->mu);
    bd->stop = 1;
    pthread_cond_broadcast(&bd->cv);
    pthread_mutex_unlock(&bd->mu);
}

static int report(board *bd)
{
    gk_strips *s = bd->s;
    if (!s->progress)
        return 1;
    pthread_mutex_lock(&bd->mu);
    double f = (double)bd->rows_done / s->g->ny;
    pthread_mutex_unlock(&bd->mu);
    return s->progress(f, NULL, s->progress_user);
}

/* Rank 0's own strips (a thread beside the hub, or the whole run where
 * there is no world): strip k+1 is computed while strip k is written. */
static void *local_strips(void *arg)
{
    board *bd = arg;
    gk_strips *s = bd->s;
    const int bands = s->n_jobs * s->planes;
    const size_t vals = (size_t)s->g->nx * bd->height * bands;
    double *buf[2] = {malloc(vals * sizeof(double)), malloc(vals * sizeof(double))};
    uint64_t *sg[2] = {calloc(2 * (size_t)s->n_jobs, sizeof(uint64_t)),
                       calloc(2 * (size_t)s->n_jobs, sizeof(uint64_t))};
    /* converted beside the writer where the output is not doubles */
    const int convert = !s->parts_dir && s->wire_type && s->wire_type != GDT_Float64;
    void *wb[2] = {convert ? malloc(vals * wire_size(s)) : NULL,
                   convert ? malloc(vals * wire_size(s)) : NULL};
    int rc = buf[0] && buf[1] && sg[0] && sg[1] && (!convert || (wb[0] && wb[1]))
                 ? GK_OK
                 : gk_error(s->ctx, GK_ERR_NOMEM, "out of memory for a strip");
    computer c;
    computer_start(&c, s, bd->height);
    pthread_mutex_lock(&bd->mu);
    int k = rc ? -1 : take(bd, 1), cur = 0;
    pthread_mutex_unlock(&bd->mu);
    if (k >= 0)
        computer_give(&c, k, buf[cur], wb[cur], sg[cur]);
    double computed = 0;
    while (k >= 0) {
        rc = computer_wait(&c);
        if (rc)
            break;
        /* the next strip, if the window lets it through now: computed meanwhile */
        pthread_mutex_lock(&bd->mu);
        bd->local_n++;
        bd->local_s += s->compute_s - computed; /* the computer is idle: no race */
        computed = s->compute_s;
        int next = take(bd, 0);
        pthread_mutex_unlock(&bd->mu);
        if (next >= 0)
            computer_give(&c, next, buf[!cur], wb[!cur], sg[!cur]);
        rc = s->parts_dir ? write_part(s, bd->height, k, buf[cur])
             : convert    ? write_strip(s, bd->height, k, wb[cur], 1)
                          : write_strip(s, bd->height, k, buf[cur], 0);
        if (rc) {
            if (next >= 0)
                computer_wait(&c);
            break;
        }
        int y0, h;
        strip_rows(s, bd->height, k, &y0, &h);
        finish(bd, k, h, sg[cur], s->n_jobs);
        if (!s->world && !report(bd)) {
            rc = gk_error(s->ctx, GK_ERR_CANCELLED, "cancelled");
            if (next >= 0)
                computer_wait(&c);
            break;
        }
        if (next == -2) { /* the window was full until this strip was written */
            pthread_mutex_lock(&bd->mu);
            next = take(bd, 1);
            pthread_mutex_unlock(&bd->mu);
            if (next >= 0)
                computer_give(&c, next, buf[!cur], wb[!cur], sg[!cur]);
        }
        k = next;
        cur = !cur;
    }
    computer_stop(&c);
    if (rc)
        halt(bd);
    bd->local_rc = rc;
    free(buf[0]);
    free(buf[1]);
    free(wb[0]);
    free(wb[1]);
    free(sg[0]);
    free(sg[1]);
    return NULL;
}

/* A DATA message's header. */
typedef struct {
    int32_t strip, rc;
} data_head;

static size_t head_bytes(int n_jobs)
{
    return sizeof(data_head) + 2 * (size_t)n_jobs * sizeof(uint64_t); /* singular, lowered */
}

static int send_strip(const gk_world *w, int dest, int k)
{
    int32_t v = k;
    return gk_world_send(w, dest, GK_TAG_STRIP, &v, sizeof v);
}

/* Answers the waiting ranks the window lets through: a strip each, or -1
 * (that rank is finished). Non-zero when MPI fails. */
static int answer(board *bd, int *waiting, int *n_waiting, int *finished)
{
    int failed = 0;
    pthread_mutex_lock(&bd->mu);
    const int pays = remote_pays(bd);
    for (int i = 0; i < *n_waiting;) {
        int k = pays ? take(bd, 0) : -1;
        if (k == -2) {
            i++;
            continue;
        }
        failed |= send_strip(bd->s->world, waiting[i], k) != 0;
        if (k < 0)
            (*finished)++;
        waiting[i] = waiting[--*n_waiting];
    }
    pthread_mutex_unlock(&bd->mu);
    return failed;
}

/* Rank 0's main thread: hands out strips, takes the values in. */
static int hub(board *bd)
{
    gk_strips *s = bd->s;
    const gk_world *w = s->world;
    const int workers = gk_world_size(w) - 1, bands = s->n_jobs * s->planes;
    int *waiting = malloc((size_t)workers * GK_STRIPS_AHEAD * sizeof *waiting);
    int n_waiting = 0, finished = 0, rc = GK_OK, mpi_failed = 0;
    pthread_t local;
    int have_local = 0;
    if (!waiting)
        rc = gk_error(s->ctx, GK_ERR_NOMEM, "out of memory");
    else
        have_local = pthread_create(&local, NULL, local_strips, bd) == 0;
    if (!rc && !have_local)
        local_strips(bd); /* no thread: rank 0's strips first, then the others' */
    double last_report = 0;
    /* each worker's last GK_STRIPS_AHEAD answers are -1 */
    const int endings = workers * GK_STRIPS_AHEAD;
    while (finished < endings) {
        if (rc)
            halt(bd);
        if (answer(bd, waiting, &n_waiting, &finished))
            mpi_failed = 1;
        if (mpi_failed)
            break;
        if (finished == endings)
            break;
        /* only this exchange's tags: a rank done with its strips may
         * already have sent what comes next (gk_world_agree) */
        int tag = GK_TAG_DATA, got = gk_world_waiting(w, GK_WORLD_ANY, tag);
        if (got == 0) {
            tag = GK_TAG_ASK;
            got = gk_world_waiting(w, GK_WORLD_ANY, tag);
        }
        if (got < 0) {
            mpi_failed = 1;
            break;
        }
        if (!got) {
            struct timespec ts = {0, 200000}; /* 0.2 ms: the hub is no busy loop */
            nanosleep(&ts, NULL);
            double now = now_s();
            if (now - last_report > 0.1) {
                last_report = now;
                if (!report(bd) && !rc)
                    rc = gk_error(s->ctx, GK_ERR_CANCELLED, "cancelled");
            }
            continue;
        }
        int src;
        void *msg;
        size_t n;
        double t_in = now_s();
        if (gk_world_recv_any(w, GK_WORLD_ANY, tag, &src, &tag, &msg, &n)) {
            mpi_failed = 1;
            break;
        }
        double t_recv = now_s() - t_in;
        if (tag == GK_TAG_DATA) {
            data_head hd = {-1, GK_ERR_INTERNAL};
            if (n >= sizeof hd)
                memcpy(&hd, msg, sizeof hd);
            uint64_t *sg = (uint64_t *)((char *)msg + sizeof hd);
            int y0, h;
            /* that rank's next strip first: it computes while this one is written */
            waiting[n_waiting++] = src;
            if (hd.rc == GK_OK && answer(bd, waiting, &n_waiting, &finished))
                mpi_failed = 1;
            if (hd.rc == GK_OK && hd.strip >= 0 && hd.strip < bd->nstrips &&
                n >= head_bytes(s->n_jobs)) {
                strip_rows(s, bd->height, hd.strip, &y0, &h);
                size_t want = head_bytes(s->n_jobs) +
                              (s->parts_dir ? 0 : (size_t)s->g->nx * h * bands * wire_size(s));
                int wrc = n != want ? gk_error(s->ctx, GK_ERR_INTERNAL,
                                               "rank %d sent strip %d in %zu bytes, not %zu", src,
                                               hd.strip, n, want)
                          : s->parts_dir
                              ? GK_OK
                              : write_strip(s, bd->height, hd.strip,
                                            (const unsigned char *)msg + head_bytes(s->n_jobs), 1);
                if (wrc && !rc)
                    rc = wrc;
                else if (!wrc) {
                    finish(bd, hd.strip, h, sg, s->n_jobs);
                    pthread_mutex_lock(&bd->mu);
                    bd->remote_n++;
                    bd->remote_s += t_recv;
                    pthread_mutex_unlock(&bd->mu);
                }
            } else {
                halt(bd); /* that rank failed: it says why in gk_world_agree */
            }
        } else if (tag == GK_TAG_ASK) {
            waiting[n_waiting++] = src;
        }
        free(msg);
        if (rc)
            halt(bd);
    }
    if (mpi_failed) {
        /* the transport itself: no orderly stop is possible */
        fprintf(stderr, "gridkit: rank 0: MPI failed while sharing out the strips\n");
        gk_world_abort(w, 1);
    }
    if (have_local)
        pthread_join(local, NULL);
    free(waiting);
    if (!rc)
        rc = bd->local_rc;
    if (!rc && !report(bd))
        rc = gk_error(s->ctx, GK_ERR_CANCELLED, "cancelled");
    return rc;
}

/* ---- other ranks ------------------------------------------------------------ */

static int worker(gk_strips *s, int height)
{
    const gk_world *w = s->world;
    const int bands = s->n_jobs * s->planes;
    const size_t hb = head_bytes(s->n_jobs);
    const size_t vals = (size_t)s->g->nx * height * bands;
    /* values are computed as doubles; where the output's type is another,
     * they travel converted (GDALCopyWords, as rank 0's writer would):
     * half the bytes or less, and the conversion off rank 0 */
    const int convert = !s->parts_dir && s->wire_type && s->wire_type != GDT_Float64;
    const int vs = convert ? wire_size(s) : 8;
    char *msg[2] = {malloc(hb + vals * vs), malloc(hb + vals * vs)};
    double *dv[2];
    for (int i = 0; i < 2; i++)
        dv[i] = convert ? malloc(vals * sizeof(double)) : msg[i] ? (double *)(msg[i] + hb) : NULL;
    int rc = msg[0] && msg[1] && dv[0] && dv[1]
                 ? GK_OK
                 : gk_error(s->ctx, GK_ERR_NOMEM, "out of memory for a strip");
    for (int i = 0; i < GK_STRIPS_AHEAD; i++)
        if (gk_world_send(w, 0, GK_TAG_ASK, NULL, 0))
            gk_world_abort(w, 1);
    int outstanding = GK_STRIPS_AHEAD, queue[GK_STRIPS_AHEAD + 1], nq = 0;
    computer c;
    computer_start(&c, s, height);
    int cur = -1, slot = 0, busy = 0; /* the strip in hand, its buffer; computing it */
    for (;;) {
        /* replies already here, and as many as needed to have a strip */
        while (outstanding > 0 &&
               (nq == 0 && cur < 0 ? 1 : gk_world_waiting(w, 0, GK_TAG_STRIP) > 0)) {
            int32_t k;
            if (gk_world_recv(w, 0, GK_TAG_STRIP, &k, sizeof k))
                gk_world_abort(w, 1);
            outstanding--;
            if (k >= 0)
                queue[nq++] = k;
        }
        if (cur < 0 && nq > 0) {
            cur = queue[0];
            memmove(queue, queue + 1, (size_t)--nq * sizeof *queue);
            if (!rc) {
                computer_give(&c, cur, dv[slot], NULL, (uint64_t *)(msg[slot] + sizeof(data_head)));
                busy = 1;
            }
        }
        if (cur < 0)
            break; /* no strip left, every request answered */
        if (busy) {
            int crc = computer_wait(&c);
            busy = 0;
            if (!rc)
                rc = crc;
        }
        /* the next strip starts before this one leaves */
        int done_k = cur, done_slot = slot;
        cur = -1;
        if (nq > 0) {
            cur = queue[0];
            memmove(queue, queue + 1, (size_t)--nq * sizeof *queue);
            slot = !slot;
            if (!rc) {
                computer_give(&c, cur, dv[slot], NULL, (uint64_t *)(msg[slot] + sizeof(data_head)));
                busy = 1;
            }
        }
        if (!rc && s->parts_dir)
            rc = write_part(s, height, done_k, dv[done_slot]);
        int y0, h;
        strip_rows(s, height, done_k, &y0, &h);
        if (!rc && !s->parts_dir && convert) /* every band's plane, one after another */
            to_wire(s, dv[done_slot], msg[done_slot] + hb, (size_t)s->g->nx * h * bands);
        data_head hd = {done_k, rc};
        size_t n = hb;
        if (!rc && !s->parts_dir)
            n += (size_t)s->g->nx * h * bands * vs;
        int sent;
        if (msg[done_slot]) {
            memcpy(msg[done_slot], &hd, sizeof hd);
            if (rc) /* the counts of a failed strip are nobody's */
                memset(msg[done_slot] + sizeof hd, 0, hb - sizeof hd);
            sent = gk_world_send(w, 0, GK_TAG_DATA, msg[done_slot], n);
        } else /* no buffer: a bare header says this rank failed */
            sent = gk_world_send(w, 0, GK_TAG_DATA, &hd, sizeof hd);
        if (sent)
            gk_world_abort(w, 1);
        outstanding++;
    }
    if (busy)
        computer_wait(&c);
    computer_stop(&c);
    if (convert) {
        free(dv[0]);
        free(dv[1]);
    }
    free(msg[0]);
    free(msg[1]);
    return rc;
}

int gk_strips_run(gk_strips *s)
{
    const int ranks = gk_world_size(s->world), bands = s->n_jobs * s->planes;
    const int height = gk_strips_height(s->g, bands, s->tile_h);
    if (s->world && gk_world_rank(s->world) > 0)
        return worker(s, height);
    board bd = {0};
    bd.s = s;
    bd.height = height;
    bd.nstrips = (s->g->ny + height - 1) / height;
    /* strips in flight or finished but not yet written: rank 0 holds at
     * most about this many; two a rank keeps every rank busy, up to 1 GiB */
    double strip_bytes = (double)s->g->nx * height * bands * sizeof(double);
    bd.window = 2 * ranks + 2;
    if (bd.window > 4 && bd.window * strip_bytes > GK_STRIPS_HELD_MAX) {
        int fit = (int)(GK_STRIPS_HELD_MAX / strip_bytes);
        bd.window = fit > 4 ? fit : 4;
    }
    bd.done = calloc((size_t)bd.nstrips, 1);
    bd.singular = s->singular;
    pthread_mutex_init(&bd.mu, NULL);
    pthread_cond_init(&bd.cv, NULL);
    int rc;
    if (!bd.done)
        rc = gk_error(s->ctx, GK_ERR_NOMEM, "out of memory");
    else if (s->world)
        rc = hub(&bd);
    else {
        local_strips(&bd);
        rc = bd.local_rc;
    }
    pthread_mutex_destroy(&bd.mu);
    pthread_cond_destroy(&bd.cv);
    free(bd.done);
    return rc;
}
