/* SPDX-License-Identifier: MIT */
/*
 * device_module.c - the bottom of the GPU backend: the device a context
 * asks for (--device, GRIDKIT_DEVICE), the CUDA module (gridkit_cuda.so)
 * loaded with dlopen() once per process, and each device's probe. The core
 * never links CUDA: a build or a machine without it computes on the CPU.
 */
#include "device.h"
#include "gpu_abi.h"
#include "method.h"

#include <dirent.h>
#include <dlfcn.h>
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

int gk_host_gpu_count(void)
{
    DIR *d = opendir("/dev");
    int n = 0;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (!strncmp(e->d_name, "nvidia", 6) && e->d_name[6] >= '0' && e->d_name[6] <= '9' &&
            strspn(e->d_name + 6, "0123456789") == strlen(e->d_name + 6))
            n++;
    closedir(d);
    return n;
}

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
static char mod_reason[1400];
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
    char path[4096], why[1200] = "";
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
    if (env && *env) {
        h = try_open(env, why, sizeof why);
        if (!h && !why[0])
            snprintf(why, sizeof why, "was not found at GRIDKIT_GPU_MODULE=%s", env);
    }
    /* 2. where an installed or a build tree keeps it (module_path.c) */
    else if (gk_module_locate(GK_GPU_MODULE_NAME, path, sizeof path) == 0)
        h = try_open(path, why, sizeof why);
    else
#ifdef GK_HAVE_CUDA_MODULE
        snprintf(why, sizeof why, "was not found (looked in %.1100s)", path);
#else
        snprintf(why, sizeof why, "is not part of this build (nvcc was not found when it was built)");
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

const gk_gpu_api *gk_device_module(void) { return mod_api; }
