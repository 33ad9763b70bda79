/* SPDX-License-Identifier: MIT */
/*
 * gridkit_main.c - the `gridkit` program: process set-up, GDAL's generic
 * options and the dispatch to a command (cmd_<name>.c).
 *
 *   gridkit grid [gdal_grid's arguments] SRC DST
 *   gridkit variogram SRC [options]
 *   gridkit cv SRC -a ALGORITHM [options]
 *   gridkit ridges SRC DST -a METHOD [options]
 *   gridkit --version | --help
 */
#include "cli/commands.h"
#include "io/cancel_cleanup.h"
#include "lib/gridkit_lib.h"
#include "mpi/world.h"

#include <cpl_string.h>
#include <dlfcn.h>
#include <gdal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* OpenBLAS, loaded with libgdal (through Armadillo), starts a thread per
 * core as it loads, and they spin for about 0.1 s waiting for work: a third
 * of a short run, taken from the threads reading points (16 cores:
 * 0.03-0.05 s more to read a million). gridkit calls no BLAS (its dense
 * kernels keep one order of operations on every CPU), so the pool is never
 * used: this process stops it. Nothing happens with another BLAS. */
static void stop_blas_threads(void)
{
    void (*set_threads)(int);
    int (*shutdown)(void);
    *(void **)&set_threads = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
    *(void **)&shutdown = dlsym(RTLD_DEFAULT, "blas_thread_shutdown_");
    if (set_threads && shutdown) {
        set_threads(1);
        shutdown(); /* OpenBLAS starts it again by itself if ever asked for threads */
    }
}

/* SQLite keeps memory statistics under one process-wide mutex taken on
 * every allocation. With a connection per core reading a GeoPackage
 * (io/read_gpkg.c) that mutex is where they wait: on 16 cores, opening the
 * connections took 15 ms instead of 1 and reading a million points 0.03 s
 * instead of 0.012. Neither gridkit nor GDAL reads those statistics. Only
 * possible before SQLite starts, so here, first thing; if something has
 * started it already, nothing changes. (The plugin cannot: GDAL's process
 * owns the setting.) */
static void sqlite_without_statistics(void) { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

static void usage(FILE *f)
{
    fprintf(f,
            "gridkit %s - scattered points to rasters, a faster gdal_grid\n\n"
            "Commands:\n"
            "  gridkit grid [gdal_grid arguments] SRC DST   grid points into a raster\n"
            "  gridkit variogram SRC [options]              experimental variogram, model fit\n"
            "  gridkit cv SRC -a ALGORITHM [options]        leave-one-out cross-validation\n"
            "  gridkit ridges SRC DST -a METHOD [options]   ridge lines of a point cloud\n"
            "                                               (gridkit ridges --help)\n"
            "  gridkit --version | --help\n\n",
            GK_VERSION_STRING);
    fputs(gk_grid_usage(), f);
}

/* GDAL's generic options (--config K V, --debug, --help-general, --formats),
 * except two that gridkit's commands use for themselves: --version, and
 * --format (variogram and cv output), which GDAL would take as "describe a
 * driver". Those are kept aside and put back after GDAL's pass. */
static int general_options(int argc, char ***argv)
{
    char **mine = NULL, **rest = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = (*argv)[i];
        if (i > 0 && !strcmp(a, "--format") && i + 1 < argc) {
            mine = CSLAddString(mine, a);
            mine = CSLAddString(mine, (*argv)[++i]);
        } else if (i > 0 && !strcmp(a, "--version")) {
            mine = CSLAddString(mine, a);
        } else {
            rest = CSLAddString(rest, a);
        }
    }
    /* GDAL returns a new list and leaves the one it was given to the caller. */
    char **given = rest;
    int n = GDALGeneralCmdLineProcessor(CSLCount(rest), &rest, 0);
    if (rest != given)
        CSLDestroy(given);
    if (n < 1) {
        CSLDestroy(rest);
        CSLDestroy(mine);
        return n;
    }
    /* Put --version first (it is a top-level flag), --format after the command. */
    char **out = NULL;
    for (int i = 0; i < n; i++) {
        out = CSLAddString(out, rest[i]);
        if (i == 0)
            for (char **m = mine; m && *m; m++)
                if (!strcmp(*m, "--version"))
                    out = CSLAddString(out, *m);
    }
    for (char **m = mine; m && *m; m++)
        if (strcmp(*m, "--version"))
            out = CSLAddString(out, *m);
    CSLDestroy(rest);
    CSLDestroy(mine);
    *argv = out;
    return CSLCount(out);
}

/* The --device that grid or cv will use (their own parsing reports a bad
 * one), so that under mpirun the GPU can start while MPI does. */
static const char *device_arg(int argc, char **argv)
{
    int cmd = 0;
    for (int i = 1; i < argc && !cmd; i++)
        if (!strcmp(argv[i], "grid") || !strcmp(argv[i], "cv"))
            cmd = i;
    if (!cmd)
        return NULL;
    const char *spec = getenv("GRIDKIT_DEVICE");
    for (int i = cmd + 1; i < argc; i++)
        if (!strcmp(argv[i], "--device") && i + 1 < argc)
            spec = argv[++i];
    return spec;
}

/* a sanitizer's build (gcc's macros, clang's features) or a coverage build
 * (scripts/coverage.sh defines GK_EXIT_NORMALLY): exit as usual, so that
 * their reports and counters are written */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(GK_EXIT_NORMALLY)
#define GK_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                         \
    __has_feature(memory_sanitizer)
#define GK_SANITIZED 1
#endif
#endif
#ifndef GK_SANITIZED
#define GK_SANITIZED 0
#endif

int main(int argc, char **argv)
{
    /* under mpirun: MPI starts before any thread of gridkit's computing, and
     * each rank gets its GPU */
    if (gk_world_start(device_arg(argc, argv)))
        return gk_world_finish(1);
    stop_blas_threads();
    sqlite_without_statistics();
    gk_cancel_install(); /* Ctrl-C, kill, a closed terminal: no temporary stays */
    GDALAllRegister();
    argc = general_options(argc, &argv);
    if (argc < 1)
        return gk_world_finish(argc == 0 ? 0 : 1);
    int rc;
    if (argc < 2) {
        usage(stderr);
        rc = 1;
    } else if (!strcmp(argv[1], "--version")) {
        printf("gridkit %s (GDAL %s)\n", GK_VERSION_STRING, GDALVersionInfo("RELEASE_NAME"));
        rc = 0;
    } else if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        rc = 0;
    } else if (!strcmp(argv[1], "grid")) {
        rc = gk_cmd_grid(argc - 2, argv + 2);
    } else if (!strcmp(argv[1], "variogram")) {
        rc = gk_cmd_variogram(argc - 2, argv + 2);
    } else if (!strcmp(argv[1], "cv")) {
        rc = gk_cmd_cv(argc - 2, argv + 2);
    } else if (!strcmp(argv[1], "ridges")) {
        rc = gk_cmd_ridges(argc - 2, argv + 2);
    } else {
        fprintf(stderr, "gridkit: unknown command '%s'\n\n", argv[1]);
        usage(stderr);
        rc = 1;
    }
    CSLDestroy(argv);
    GDALDestroyDriverManager();
    rc = gk_world_finish(rc);
#if !GK_SANITIZED
    /* Every file is closed and renamed by now: the exit handlers and the
     * destructors of libgdal's 130 libraries and the GPU module only cost
     * time (0.02-0.04 s a run, H200 host). Sanitizer builds exit normally,
     * for their leak checks. */
    fflush(NULL);
    _exit(rc);
#else
    return rc;
#endif
}
