/*
 * device.c - the core side of the GPU backend: which device a job runs on,
 * loading the CUDA module (gridkit_cuda.so) with dlopen() on first use, and
 * handing tiles to it. The core never links CUDA: a build or a machine
 * without it simply computes on the CPU. The core prints nothing; the reason
 * for a fallback is part of gk_context_device_name().
 */
#include "device.h"
#include "gpu_abi.h"
#include "method.h"
#include "to_float32.h"

#include <dlfcn.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef GK_GPU_MODULE_NAME
#define GK_GPU_MODULE_NAME "gridkit_cuda.so"
#endif

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
    int last;      /* handle of the last finished tile (its kernel time) */
    int krige_set; /* kriging parameters handed over (before the first tile) */
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


/* ---- the request ------------------------------------------------------- */

static int parse_spec(const char *spec, int *code)
{
    if (!strcmp(spec, "auto"))
        *code = GK_DEV_AUTO;
    else if (!strcmp(spec, "cpu"))
        *code = GK_DEV_CPU;
    else if (!strcmp(spec, "cuda") || !strcmp(spec, "gpu"))
        *code = GK_DEV_CUDA;
    else if (!strncmp(spec, "cuda:", 5) && spec[5]) {
        char *end;
        long n = strtol(spec + 5, &end, 10);
        if (*end || n < 0 || n > 1000 || spec[5] == '-' || spec[5] == '+')
            return -1;
        *code = GK_DEV_CUDA + 1 + (int)n;
    } else
        return -1;
    return 0;
}

/* ---- the module (loaded once per process) ------------------------------ */

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const gk_gpu_api *mod_api;
static char mod_reason[600];
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
#define MAX_PROBED 64
static int probed[MAX_PROBED]; /* 0 unknown, 1 usable, -1 not */
static char probe_msg[MAX_PROBED][256];
/* gk_device_probe_done's answer, read without waiting on a probe under way */
static atomic_int probe_finished[MAX_PROBED];

static void *try_open(const char *path, char *why, size_t cap)
{
    if (access(path, R_OK) != 0)
        return NULL;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        snprintf(why, cap, "%s", dlerror());
    return h;
}

static void load_module(void)
{
    char path[4096], why[400] = "";
    void *h = NULL;
    /* tests: a GPU that takes this many milliseconds longer to start (a late
     * start's paths on any machine) */
    const char *delay = getenv("GRIDKIT_GPU_START_DELAY");
    if (delay && atoi(delay) > 0) {
        struct timespec ts = {atoi(delay) / 1000, (long)(atoi(delay) % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    /* 1. GRIDKIT_GPU_MODULE: an explicit override wins */
    const char *env = getenv("GRIDKIT_GPU_MODULE");
    if (env && *env)
        h = try_open(env, why, sizeof why);
    /* 2. next to the executable (build trees, relocated installs) */
    if (!h) {
        ssize_t len = readlink("/proc/self/exe", path, sizeof path - 64);
        if (len > 0) {
            path[len] = '\0';
            char *slash = strrchr(path, '/');
            if (slash) {
                snprintf(slash + 1, sizeof path - (size_t)(slash + 1 - path), "%s",
                         GK_GPU_MODULE_NAME);
                h = try_open(path, why, sizeof why);
            }
        }
    }
    /* 3. the install lib dir */
#ifdef GK_INSTALL_LIBDIR
    if (!h)
        h = try_open(GK_INSTALL_LIBDIR "/" GK_GPU_MODULE_NAME, why, sizeof why);
#endif
    if (!h) {
        snprintf(mod_reason, sizeof mod_reason, "the CUDA module %s %s", GK_GPU_MODULE_NAME,
                 why[0] ? why : "was not found");
        return;
    }
    gk_gpu_entry_fn entry;
    *(void **)&entry = dlsym(h, GK_GPU_ENTRY);
    const gk_gpu_api *api = entry ? entry() : NULL;
    if (!api || api->abi_version != GK_GPU_ABI_VERSION) {
        snprintf(mod_reason, sizeof mod_reason,
                 "the CUDA module does not match this gridkit (ABI %d, expected %d)",
                 api ? api->abi_version : -1, GK_GPU_ABI_VERSION);
        dlclose(h);
        return;
    }
    mod_api = api; /* kept loaded for the life of the process */
}

/* Usable device dev? 0, or -1 with the reason in why. */
int gk_device_probe(int dev, char *name, size_t name_cap, char *why, size_t why_cap)
{
    pthread_once(&load_once, load_module);
    if (!mod_api) {
        if (dev >= 0 && dev < MAX_PROBED)
            atomic_store(&probe_finished[dev], 1);
        snprintf(why, why_cap, "%s", mod_reason);
        return -1;
    }
    if (dev >= MAX_PROBED) {
        snprintf(why, why_cap, "cuda:%d: no such device", dev);
        return -1;
    }
    pthread_mutex_lock(&probe_lock);
    if (!probed[dev]) {
        char nm[200] = "", er[256] = "";
        int rc = mod_api->probe(dev, nm, sizeof nm, er, sizeof er);
        probed[dev] = rc ? -1 : 1;
        snprintf(probe_msg[dev], sizeof probe_msg[dev], "%s", rc ? er : nm);
    }
    int ok = probed[dev] > 0;
    atomic_store(&probe_finished[dev], 1);
    if (ok)
        snprintf(name, name_cap, "%s", probe_msg[dev]);
    else
        snprintf(why, why_cap, "%s", probe_msg[dev]);
    pthread_mutex_unlock(&probe_lock);
    return ok ? 0 : -1;
}

int gk_device_probe_done(int dev)
{
    if (dev < 0 || dev >= MAX_PROBED)
        return 1; /* the probe answers at once */
    return atomic_load(&probe_finished[dev]);
}

int gk_context_set_device(gk_context *ctx, const char *spec)
{
    int code = GK_DEV_UNSET;
    if (spec && parse_spec(spec, &code))
        return gk_error(ctx, GK_ERR_ARG, "--device: '%s' is not auto, cpu, cuda or cuda:N", spec);
    if (code >= GK_DEV_CUDA) {
        int dev = code > GK_DEV_CUDA ? code - GK_DEV_CUDA - 1 : 0;
        char name[200], why[600];
        if (gk_device_probe(dev, name, sizeof name, why, sizeof why))
            return gk_error(ctx, GK_ERR_UNSUPPORTED, "--device %s: no usable GPU: %s", spec, why);
    }
    ctx->device = code; /* a refused request leaves the previous one */
    return GK_OK;
}

int gk_context_request_device(gk_context *ctx, const char *spec)
{
    int code = GK_DEV_UNSET;
    if (spec && parse_spec(spec, &code))
        return gk_error(ctx, GK_ERR_ARG, "--device: '%s' is not auto, cpu, cuda or cuda:N", spec);
    ctx->device = code;
    return GK_OK;
}

void gk_device_warm_up(const char *spec)
{
    int code = GK_DEV_AUTO;
    if (!spec || !*spec)
        spec = getenv("GRIDKIT_DEVICE");
    if (spec && *spec && parse_spec(spec, &code))
        return; /* the job reports the bad spec */
    if (code == GK_DEV_CPU)
        return;
    int dev = code > GK_DEV_CUDA ? code - GK_DEV_CUDA - 1 : 0;
    char name[200], why[600];
    (void)gk_device_probe(dev, name, sizeof name, why, sizeof why);
}

int gk_algorithm_may_use_gpu(const gk_algorithm *a)
{
    const gk_method *m = gk_method_of(a->kind);
    if (!m || !m->gpu_describe || (m->flags & GK_M_GPU_EXPLICIT))
        return 0;
    return m->gpu_possible ? m->gpu_possible(a) : 1;
}

const char *gk_context_device_name(gk_context *ctx)
{
    return ctx->device_name[0] ? ctx->device_name : "cpu";
}

/* The context's request, else GRIDKIT_DEVICE's, else auto; an error in ctx
 * when GRIDKIT_DEVICE cannot be read. */
int gk_device_requested(gk_context *ctx, int *code)
{
    *code = ctx->device;
    if (*code != GK_DEV_UNSET)
        return GK_OK;
    const char *env = getenv("GRIDKIT_DEVICE");
    *code = GK_DEV_AUTO;
    if (env && *env && parse_spec(env, code))
        return gk_error(ctx, GK_ERR_ARG, "GRIDKIT_DEVICE: '%s' is not auto, cpu, cuda or cuda:N",
                        env);
    return GK_OK;
}

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
        g->ch[k] = j < k ? mod_api->job_clone(g->ch[j], g->err, sizeof g->err)
                         : mod_api->job_new(g->hdev[k], &c, g->err, sizeof g->err);
        if (!g->ch[k]) {
            while (k-- > 0)
                mod_api->job_free(g->ch[k]);
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
        int count = mod_api->device_count();
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
    g->api = mod_api;
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->freed, NULL);
    int failed = 0;
    for (int s = 0; s < streams && !failed; s++)
        for (int k = 0; k < ndev; k++) {
            /* the first job of a GPU uploads the points; the others share them */
            void *h = s > 0 && g->nh > k ? mod_api->job_clone(g->h[k], g->err, sizeof g->err)
                                        : NULL;
            if (!h)
                h = mod_api->job_new(devs[k], &d, g->err, sizeof g->err);
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
            mod_api->job_free(g->h[k]);
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
static int tile_on_handle(const gk_job *job, const gk_gpu_tile *gt, double *out,
                          uint64_t *nodata, uint64_t *singular, int counting)
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
    int rc = g->api->tile(counting ? g->ch[k] : g->h[k], gt, out, nodata, singular, err,
                          sizeof err);
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
        snprintf(g->err, sizeof g->err, "out of GPU memory even for a %d x %d tile", gt.w,
                 gt.h);
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
    uint64_t rb =
        ra >= GK_DEVICE_FAILED ? ra : tile_split(job, b, bb, nbands, singular, counting);
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

static int is_nodata(double v, double nodata)
{
    return v == nodata || (isnan(v) && isnan(nodata));
}

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
            gk_tile one = {t->g, t->x0 + (int)(q % (size_t)t->w),
                           t->y0 + (int)(q / (size_t)t->w), 1, 1, t->hit2};
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
        gk_gpu_tile gt = {.xmin = 0, .xmax = 1, .ymin = 0, .ymax = 1, .nx = (int)w, .ny = (int)h,
                          .w = (int)w, .h = (int)h, .qx = qx + done, .qy = qy + done,
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
    gk_gpu_tile gt = {.xmin = t->g->xmin, .xmax = t->g->xmax, .ymin = t->g->ymin,
                      .ymax = t->g->ymax, .nx = t->g->nx,     .ny = t->g->ny,
                      .x0 = t->x0,        .y0 = t->y0,        .w = t->w,
                      .h = t->h,          .hit2 = t->hit2};
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
    if (singular) {
        gk_job *jw = (gk_job *)job;
#pragma omp atomic
        jw->singular_nodes += singular;
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

double gk_device_last_kernel_ms(const gk_job *job)
{
    gk_gpu_job *g = job->gpu;
    return g ? g->api->last_kernel_ms(g->h[g->last]) : -1.0;
}

const gk_gpu_api *gk_device_module(void) { return mod_api; }
