/* SPDX-License-Identifier: MIT */
/*
 * world.c - gridkit's processes under MPI (world.h): finding the launcher,
 * loading the MPI module, the GPU of each rank, and agreeing on outcomes.
 */
#include "mpi/world.h"
#include "mpi/mpi_abi.h"
#include "gridkit.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct gk_world {
    const gk_mpi_api *api;
    int rank, size, local_rank, local_size;
    char host[256];
};

static gk_world world;
static int started;        /* MPI initialised (even as a world of one) */
static int failure_agreed; /* an agreement has ended in a failure */
static pthread_t early_gpu;
static int early_gpu_started;

/* The launcher's word: ranks asked for, 0 when not launched by MPI, -1
 * when launched but the count is not in the environment. */
static int launched_ranks(void)
{
    static const char *size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE",
                                      "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof size_vars / sizeof *size_vars; i++) {
        const char *v = getenv(size_vars[i]);
        if (v && *v)
            return atoi(v) > 0 ? atoi(v) : -1;
    }
    if (getenv("PMIX_RANK") || getenv("PMI_RANK"))
        return -1;
    return 0;
}

static void *open_module(char *why, size_t cap)
{
    const char *env = getenv("GRIDKIT_MPI_MODULE");
    void *h = NULL;
    char path[4096];
    if (env && *env) {
        h = dlopen(env, RTLD_NOW | RTLD_GLOBAL);
        if (!h)
            snprintf(why, cap, "%s", dlerror());
        return h;
    }
    if (gk_module_locate(GK_MPI_MODULE_NAME, path, sizeof path) == 0) {
        if (!(h = dlopen(path, RTLD_NOW | RTLD_GLOBAL)))
            snprintf(why, cap, "%s", dlerror());
        return h;
    }
#ifdef GK_HAVE_MPI_MODULE
    snprintf(why, cap, "%s was not found (looked in %.2000s; GRIDKIT_MPI_MODULE names it)",
             GK_MPI_MODULE_NAME, path);
#else
    snprintf(why, cap,
             "gridkit was built without MPI (%s is made with -DGRIDKIT_WITH_MPI=ON and "
             "libopenmpi-dev)",
             GK_MPI_MODULE_NAME);
#endif
    return h;
}

/* One GPU per rank of a host, by local rank, unless the user chose. */
static void assign_gpu(int local_rank, int local_size)
{
    if (local_size <= 1 || local_rank < 0 || getenv("CUDA_VISIBLE_DEVICES"))
        return;
    int n = gk_host_gpu_count();
    if (n > 0) {
        char v[16];
        snprintf(v, sizeof v, "%d", local_rank % n);
        setenv("CUDA_VISIBLE_DEVICES", v, 1);
    }
}

/* The launcher's local rank and ranks on this host, where it says them
 * before MPI starts (Open MPI, MPICH's Hydra); 0 when it does not. */
static int launcher_local(int *local_rank, int *local_size)
{
    static const char *vars[][2] = {{"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
                                    {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"}};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *r = getenv(vars[i][0]), *n = getenv(vars[i][1]);
        if (r && *r && n && *n && atoi(n) > 0) {
            *local_rank = atoi(r);
            *local_size = atoi(n);
            return 1;
        }
    }
    return 0;
}

static void *warm_gpu(void *spec)
{
    gk_device_warm_up(spec);
    return NULL;
}

/* MPI's start takes a quarter of a second, the GPU's as long: they overlap
 * where the command asks for CUDA (under auto the points decide later). */
static void start_gpu_early(const char *spec)
{
    if (!spec || strncmp(spec, "cuda", 4))
        return;
    int local_rank, local_size;
    if (!launcher_local(&local_rank, &local_size))
        return;
    assign_gpu(local_rank, local_size);
    early_gpu_started = pthread_create(&early_gpu, NULL, warm_gpu, (void *)spec) == 0;
}

/* Every rank on one host under Open MPI's mpirun: its shared-memory
 * transport (pml ob1) unless the user chose one. Probing the network
 * transports (pml cm: PSM2, OFI) took 0.2 s of MPI_Init's 0.25 s on the GPU
 * hosts, for a fabric one host does not use. Every rank decides the same. */
static void one_host_transport(void)
{
    const char *size = getenv("OMPI_COMM_WORLD_SIZE"),
               *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    if (size && local && atoi(size) > 0 && atoi(size) == atoi(local))
        setenv("OMPI_MCA_pml", "ob1", 0); /* 0: the user's, where set */
}

int gk_world_start(const char *gpu_spec)
{
    int asked = launched_ranks();
    if (asked == 0)
        return 0;
    start_gpu_early(gpu_spec);
    one_host_transport();
    char why[2600] = "";
    void *h = open_module(why, sizeof why);
    gk_mpi_entry_fn entry = NULL;
    if (h)
        *(void **)&entry = dlsym(h, GK_MPI_ENTRY);
    const gk_mpi_api *api = entry ? entry() : NULL;
    if (h && (!api || api->abi_version != GK_MPI_ABI_VERSION))
        snprintf(why, sizeof why, "%s does not match this gridkit (ABI %d, expected %d)",
                 GK_MPI_MODULE_NAME, api ? api->abi_version : -1, GK_MPI_ABI_VERSION);
    if (!api || api->abi_version != GK_MPI_ABI_VERSION) {
        if (asked == 1)
            return 0; /* mpirun -n 1: one process, as without mpirun */
        fprintf(stderr, "gridkit: started by an MPI launcher%s, but cannot run as its ranks: %s\n",
                asked > 1 ? " for several ranks" : "", why);
        return 1;
    }
    gk_world w = {api, 0, 1, 0, 1, ""};
    if (api->init(&w.rank, &w.size, &w.local_rank, &w.local_size, w.host, sizeof w.host, why,
                  sizeof why)) {
        fprintf(stderr, "gridkit: MPI did not start: %s\n", why);
        return 1;
    }
    world = w;
    started = 1;
    /* no CPU share beside a rank's GPU (engine's cpu_share.c): the host's
     * cores belong to all its ranks, and a node's value then never depends
     * on which device a race gave it to */
    if (w.size > 1 && !getenv("GRIDKIT_CPU_SHARE"))
        setenv("GRIDKIT_CPU_SHARE", "0", 1);
    /* one GPU per rank of a host (set already where the GPU started early) */
    assign_gpu(w.local_rank, w.local_size);
    return 0;
}

int gk_world_finish(int rc)
{
    if (early_gpu_started)
        pthread_join(early_gpu, NULL);
    early_gpu_started = 0;
    if (started)
        world.api->finalize();
    started = 0;
    return rc;
}

const gk_world *gk_world_get(void) { return started && world.size > 1 ? &world : NULL; }
int gk_world_rank(const gk_world *w) { return w ? w->rank : 0; }
int gk_world_size(const gk_world *w) { return w ? w->size : 1; }

int gk_world_local_size(const gk_world *w) { return w ? w->local_size : 1; }
const char *gk_world_host(const gk_world *w) { return w ? w->host : ""; }

int gk_world_send(const gk_world *w, int dest, int tag, const void *buf, size_t n)
{
    return w->api->send(dest, tag, buf, n);
}

int gk_world_recv(const gk_world *w, int src, int tag, void *buf, size_t n)
{
    size_t got = 0;
    if (w->api->recv(src, tag, buf, n, &got))
        return -1;
    return got == n ? 0 : -1;
}

int gk_world_recv_any(const gk_world *w, int src, int tag, int *got_src, int *got_tag, void **buf,
                      size_t *n)
{
    *buf = NULL;
    *n = 0;
    if (w->api->probe(src, tag, got_src, got_tag, n))
        return -1;
    *buf = malloc(*n ? *n : 1);
    if (!*buf)
        return -1;
    size_t got = 0;
    if (w->api->recv(*got_src, *got_tag, *buf, *n, &got) || got != *n) {
        free(*buf);
        *buf = NULL;
        return -1;
    }
    return 0;
}

int gk_world_waiting(const gk_world *w, int src, int tag)
{
    int flag = 0, s, t;
    size_t n;
    if (w->api->iprobe(src, tag, &flag, &s, &t, &n))
        return -1;
    return flag != 0;
}

int gk_world_bcast(const gk_world *w, void *buf, size_t n, int root)
{
    return w->api->bcast(buf, n, root);
}

void gk_world_abort(const gk_world *w, int code) { w->api->abort(code); }

/* An outcome on the wire: the code, the rank and its message. */
typedef struct {
    int32_t rc, rank;
    char host[64];
    char msg[1000];
} outcome;

int gk_world_failure_agreed(void) { return failure_agreed; }

int gk_world_agree(const gk_world *w, gk_context *ctx, int rc)
{
    if (!w)
        return rc;
    outcome mine = {rc, w->rank, "", ""};
    snprintf(mine.host, sizeof mine.host, "%.63s", w->host);
    if (rc)
        snprintf(mine.msg, sizeof mine.msg, "%s", gk_errno(ctx) ? gk_errmsg(ctx) : "failed");
    outcome first = mine;
    if (w->rank == 0) {
        /* every rank's, in rank order: the lowest failing one is reported */
        for (int r = 1; r < w->size; r++) {
            outcome o;
            if (gk_world_recv(w, r, GK_TAG_AGREE, &o, sizeof o)) {
                o.rc = GK_ERR_IO;
                o.rank = r;
                o.host[0] = '\0';
                snprintf(o.msg, sizeof o.msg, "no word from this rank (MPI failed)");
            }
            if (!first.rc && o.rc)
                first = o;
        }
    } else if (gk_world_send(w, 0, GK_TAG_AGREE, &mine, sizeof mine)) {
        gk_world_abort(w, 1);
    }
    if (gk_world_bcast(w, &first, sizeof first, 0))
        gk_world_abort(w, 1);
    if (first.rc)
        failure_agreed = 1;
    if (first.rc) {
        if (first.rank == w->rank)
            return first.rc; /* ctx has its own message */
        first.msg[sizeof first.msg - 1] = '\0';
        first.host[sizeof first.host - 1] = '\0';
        return gk_error(ctx, first.rc, "rank %d of %d (%s): %s", (int)first.rank, w->size,
                        first.host[0] ? first.host : "?", first.msg);
    }
    return GK_OK;
}
