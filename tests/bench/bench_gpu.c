/* SPDX-License-Identifier: MIT */
/*
 * bench_gpu.c - GPU against CPU timings on generated points (no GDAL).
 *
 *   bench_gpu [points] [grid] [idw_grid]     defaults 1048576 4096 1024
 *   bench_gpu tune [k]                       kNN kernel variants (GPU only)
 *   bench_gpu krige                          kriging kernel variants (GPU only)
 *                                            and the variogram
 *   bench_gpu engine                         whole grids through the tile engine
 *                                            (every visible GPU)
 *   bench_gpu big                            more than 64 neighbours (a warp's
 *                                            list, kriging's block per node) and
 *                                            more than 16 a quadrant
 *
 *   bench_gpu docs-check                     (no GPU) every row of the first
 *                                            table has its figures in the docs
 *
 * GK_BENCH_ONLY=TEXT runs only the cases whose spec holds TEXT.
 *
 * The guard (bench_docs.h): each GPU figure is printed beside the one
 * docs/benchmarks.md gives for its row (GK_BENCH_DOCS=FILE for another
 * file), flagged SLOWER when more than 20% slower; the exit status is 3
 * when any was.
 *
 * Kriging cases (estimate and variance, two bands) compare with the CPU on
 * a 1024^2 grid of the same extent and scale its time per node; the
 * variogram (all pairs, 20 lags, gstat's default cutoff) compares with the
 * CPU on the first 65,536 points and scales its time per pair. Last, an end
 * to end breakdown: points in host memory to a float raster in host memory.
 *
 * Uniform random points in a 10 km square (z = a smooth surface plus noise),
 * gridded to grid x grid nodes by the local algorithms and to idw_grid^2
 * nodes by invdist over all points (the CPU takes a smaller grid there and
 * both report point-node pairs per second). GPU: job set-up (upload and
 * index), kernel time from CUDA events (points already on the GPU; median of
 * 3 after a warm-up) and the wall time of the tile call (kernels + copy of
 * the doubles back). CPU: every core through the tile engine. The largest
 * difference GPU - CPU is printed relative to the data range.
 */
#include "core/device.h"
#include "core/quadtree_order.h"
#include "gridkit.h"
#include "gridkit_geostat.h"
#include "bench_docs.h"
#include "bench_util.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    const char *spec;
    int single;
    int gpu_n, cpu_n; /* grid sizes; 0 = the local grid */
    const char *env;  /* GRIDKIT_GPU_IDW_PAIRED setting, or NULL */
    double pad;       /* the grid reaches this far beyond the points' square */
} bench_case;

/* GPU kernel time (median of 3 after a warm-up) of spec on an n x n grid. */
static double gpu_kernel_ms(gk_context *ctx, const gk_points *pts, const char *spec, int single,
                            int n)
{
    gk_algorithm *alg = gk_algorithm_parse(ctx, spec);
    gk_algorithm_set_precision(alg, single ? GK_PRECISION_SINGLE : GK_PRECISION_DOUBLE);
    gk_job *job = gk_job_new(ctx, pts, alg);
    gk_grid g = {0.0, 10000.0, 0.0, 10000.0, n, n};
    int nb = job ? gk_job_bands(job) : 1;
    double *v = malloc((size_t)n * n * nb * sizeof *v), kt[3] = {-1, -1, -1};
    if (job && gk_device_job_on_gpu(job)) {
        gk_job_compute_window(job, &g, 0, 0, n, n, v);
        for (int r = 0; r < 3; r++) {
            gk_job_compute_window(job, &g, 0, 0, n, n, v);
            kt[r] = gk_device_last_kernel_ms(job);
        }
    }
    qsort(kt, 3, sizeof *kt, cmp_d);
    free(v);
    gk_job_free(job);
    gk_algorithm_free(alg);
    return kt[1];
}

#define KRIGE16 "kriging:model=Exp:psill=1:range=1500:nugget=0.001:max_points=16"
#define KRIGE_R25 "kriging:model=Exp:psill=1:range=1500:nugget=0.001:radius=25"
#define KRIGE_R40 "kriging:model=Exp:psill=1:range=1500:nugget=0.001:radius=40"
#define KRIGE32 "kriging:model=Exp:psill=1:range=1500:nugget=0.001:max_points=32"
#define KRIGE_BIG(k) "kriging:model=Exp:psill=1:range=1500:nugget=0.001:max_points=" #k

/* All-pairs variogram: the GPU on every point, the CPU (and the GPU again,
 * for the comparison) on the first ncpu. */
static void bench_variogram(const gk_points *pts, size_t ncpu)
{
    gk_context *gc = gk_context_new(), *cc = gk_context_new();
    gk_context_set_device(gc, "cuda");
    gk_context_set_device(cc, "cpu");
    gk_vgm_options o;
    memset(&o, 0, sizeof o);
    o.nlags = 20;
    size_t n = gk_points_count(pts);
    gk_vgm v, a, b;
    double t0 = now();
    if (gk_variogram(gc, pts, &o, &v)) {
        printf("variogram on the GPU failed: %s\n", gk_errmsg(gc));
        return;
    }
    double wall = now() - t0, kms = gk_device_last_variogram_ms();
    double pairs = 0.5 * (double)n * (double)(n - 1);
    gk_points *sub = gk_points_new(cc);
    for (size_t i = 0; i < ncpu && i < n; i++)
        gk_points_add(sub, gk_points_x(pts)[i], gk_points_y(pts)[i], gk_points_z(pts)[i]);
    t0 = now();
    gk_variogram(cc, sub, &o, &a);
    double tc = now() - t0;
    gk_variogram(gc, sub, &o, &b);
    int npeq = 1;
    double eg = 0, ed = 0;
    for (int k = 0; k < a.nlags; k++) {
        npeq &= a.np[k] == b.np[k];
        if (a.np[k] > 0) {
            eg = fmax(eg, fabs(a.gamma[k] - b.gamma[k]) / fabs(a.gamma[k]));
            ed = fmax(ed, fabs(a.dist[k] - b.dist[k]) / fabs(a.dist[k]));
        }
    }
    double pc = 0.5 * (double)ncpu * (double)(ncpu - 1);
    printf("variogram %zu points, 20 lags, cutoff %.0f: GPU kernel %.1f ms (%.3g pairs/s), "
           "wall %.1f ms (upload included) on %s\n",
           n, v.cutoff, kms, pairs / (kms * 1e-3), wall * 1e3, gk_device_last_variogram_device());
    printf("  CPU on %zu points: %.1f ms (%.3g pairs/s; all pairs would take %.0f s); GPU on "
           "them: np %s, gamma rel diff %.2e, dist rel diff %.2e\n",
           ncpu, tc * 1e3, pc / tc, pairs / (pc / tc), npeq ? "equal" : "DIFFER", eg, ed);
    gk_vgm_free(&v);
    gk_vgm_free(&a);
    gk_vgm_free(&b);
    gk_points_free(sub);
    gk_context_free(gc);
    gk_context_free(cc);
}

/* the guard's figures (bench_docs.h): NULL when the docs cannot be read */
static bench_docs *docs;
static int compared, flagged;

/* Points in host memory to a float raster in host memory, one tile. */
static void end_to_end(gk_context *ctx, const gk_points *pts, const char *spec, int single, int n)
{
    gk_algorithm *alg = gk_algorithm_parse(ctx, spec);
    gk_algorithm_set_precision(alg, single ? GK_PRECISION_SINGLE : GK_PRECISION_DOUBLE);
    gk_context_set_device(ctx, "cuda");
    gk_grid g = {0.0, 10000.0, 0.0, 10000.0, n, n};
    size_t ncell = (size_t)n * n;
    float *f = malloc(2 * ncell * sizeof *f);
    memset(f, 0, 2 * ncell * sizeof *f); /* touch the pages outside the timing */
    double t0 = now();
    gk_job *job = gk_job_new(ctx, pts, alg);
    double t1 = now();
    /* Float32 pixels as a Float32 file takes them: converted on the device */
    gk_job_compute_window_typed(job, &g, 0, 0, n, n, GK_VALUES_FLOAT32, f);
    double t3 = now(), kms = gk_device_last_kernel_ms(job);
    int nb = gk_job_bands(job);
    gk_job_free(job);
    printf("  %-62s %-6s %6.1f ms = upload+index %6.1f | kernel %6.1f | to float and copy back "
           "%d band%s (floats) %5.1f\n",
           spec, single ? "single" : "double", (t3 - t0) * 1e3, (t1 - t0) * 1e3, kms, nb,
           nb > 1 ? "s" : " ", (t3 - t1) * 1e3 - kms);
    if (docs) {
        const char *prec = single ? "single" : "double";
        printf("  %-62s", "");
        bench_docs_compare(docs, spec, prec, "total", (t3 - t0) * 1e3, &compared, &flagged);
        bench_docs_compare(docs, spec, prec, "upload + index", (t1 - t0) * 1e3, &compared,
                           &flagged);
        printf("\n");
    }
    free(f);
    gk_algorithm_free(alg);
}

/* gdal_grid's tie order alone, on every core (part of invdistnn's set-up on
 * either device), the points' coordinates in that order included; median
 * of 3, fresh buffers each time as a job has */
static void tie_order(const gk_points *pts)
{
    const size_t n = gk_points_count(pts);
    double t[3];
    for (int r = 0; r < 3; r++) {
        uint32_t *o = malloc(n * sizeof *o);
        double *ox = malloc(n * sizeof *ox), *oy = malloc(n * sizeof *oy);
        double t0 = now();
        gk_gdal_quadtree_order(gk_points_x(pts), gk_points_y(pts), n, o, ox, oy, NULL, 0);
        t[r] = (now() - t0) * 1e3;
        free(o), free(ox), free(oy);
    }
    qsort(t, 3, sizeof *t, cmp_d);
    printf("gdal_grid's tie order alone, %zu points, %d threads: %.1f ms\n", n, omp_get_num_procs(),
           t[1]);
    /* the GPU's (what invdistnn's GPU set-up runs), the points on it already */
    const gk_gpu_api *api = gk_device_module();
    uint32_t *o = malloc(n * sizeof *o);
    char err[256];
    for (int r = 0; r < 3 && o && api; r++)
        if (api->quadtree_order(0, gk_points_x(pts), gk_points_y(pts), n, o, &t[r], err,
                                sizeof err))
            t[r] = NAN;
    free(o);
    qsort(t, 3, sizeof *t, cmp_d);
    printf("gdal_grid's tie order alone on the GPU, %zu points: %.2f ms\n", n, t[1]);
}

/* the row's name in the tables: its spec, and what sets the variants apart */
static void case_label(const bench_case *bc, char *label, size_t size)
{
    snprintf(label, size, "%s%s%s", bc->spec, bc->env ? " (one rcp/pair)" : "",
             bc->pad > 0 ? " (wider grid)" : "");
}

/* the guard's last line; 3 when a figure was more than 20% slower */
static int guard_summary(const char *path)
{
    if (!docs)
        return 0;
    printf("guard: %d of %d figures more than %.0f%% slower than %s%s\n", flagged, compared,
           (BENCH_DOCS_SLACK - 1.0) * 100.0, path, flagged ? " (SLOWER above)" : "");
    bench_docs_free(docs);
    return flagged ? 3 : 0;
}

static void tune_krige(gk_context *ctx, const gk_points *pts)
{
    static const struct {
        const char *spec, *env;
        int single;
    } v[] = {
        {KRIGE16, "", 1},
        {KRIGE16, "GRIDKIT_GPU_KRIGE_G=1", 1},
        {KRIGE16, "GRIDKIT_GPU_KRIGE_FASTF=0", 1},
        {KRIGE16, "", 0},
        {KRIGE16, "GRIDKIT_GPU_KRIGE_G=1", 0},
        {KRIGE32, "", 1},
        {KRIGE32, "GRIDKIT_GPU_KRIGE_G=1", 1},
        {KRIGE32, "GRIDKIT_GPU_KRIGE_S64=1", 1},
        {KRIGE32, "", 0},
        {KRIGE32, "GRIDKIT_GPU_KRIGE_G=1", 0},
        {KRIGE16 ":drift=linear", "", 0},
        {KRIGE16 ":drift=linear", "", 1},
        {KRIGE16, "GRIDKIT_GPU_KRIGE_MODE=2", 1},
    };
    static const char *vars[] = {"GRIDKIT_GPU_KRIGE_G", "GRIDKIT_GPU_KRIGE_FASTF",
                                 "GRIDKIT_GPU_KRIGE_S64", "GRIDKIT_GPU_KRIGE_MODE"};
    printf("kriging kernels, 4096^2, kernel ms (default: the search, then a lane group per "
           "node; variants by environment)\n");
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        for (size_t e = 0; e < sizeof vars / sizeof *vars; e++)
            unsetenv(vars[e]);
        char env[64];
        snprintf(env, sizeof env, "%s", v[i].env);
        char *eq = strchr(env, '=');
        if (eq) {
            *eq = '\0';
            setenv(env, eq + 1, 1);
        }
        printf("  %-64s %-6s %-26s: %8.2f ms\n", v[i].spec, v[i].single ? "single" : "double",
               v[i].env[0] ? v[i].env : "(default)",
               gpu_kernel_ms(ctx, pts, v[i].spec, v[i].single, 4096));
        fflush(stdout);
    }
    for (size_t e = 0; e < sizeof vars / sizeof *vars; e++)
        unsetenv(vars[e]);
}

/* Whole grids through the tile engine (tiles, streams, every visible GPU),
 * wall time of gk_job_run into a raster in host memory; median of 3. */
static void bench_engine(gk_context *ctx, const gk_points *pts)
{
    static const struct {
        const char *spec;
        int single, n;
    } v[] = {
        {"invdistnn:radius=200:max_points=16", 0, 4096},
        {"invdist", 1, 1024},
        {KRIGE16, 1, 4096},
        {KRIGE16, 0, 4096},
        {KRIGE32, 1, 4096},
        /* every point within radius (gstat's maxdist): ~20 points a node at
         * 25 m; at 40 m ~50, and the nodes with more than 64 on the CPU */
        {KRIGE_R25, 0, 4096},
        {KRIGE_R40, 0, 4096},
        {"kriging:model=Exp:psill=1:range=1500:nugget=0.001:max_points=64", 0, 4096},
    };
    gk_context_set_device(ctx, "cuda");
    printf("through the tile engine (all visible GPUs), wall ms, median of 3:\n");
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        gk_algorithm *alg = gk_algorithm_parse(ctx, v[i].spec);
        gk_algorithm_set_precision(alg, v[i].single ? GK_PRECISION_SINGLE : GK_PRECISION_DOUBLE);
        gk_job *job = gk_job_new(ctx, pts, alg);
        int n = v[i].n, nb = job ? gk_job_bands(job) : 1;
        gk_grid g = {0.0, 10000.0, 0.0, 10000.0, n, n};
        raster r = {malloc((size_t)n * n * nb * sizeof(double)), n};
        memset(r.v, 0, (size_t)n * n * nb * sizeof(double));
        /* the GPUs alone, then with the CPU cores' share where it pays */
        for (int share = 0; share < 2; share++) {
            setenv("GRIDKIT_CPU_SHARE", share ? "auto" : "0", 1);
            double t[3] = {-1, -1, -1};
            uint64_t shared = 0;
            if (job && gk_device_job_on_gpu(job)) {
                gk_job_run(job, &g, 0, 0, sink, &r, NULL, NULL); /* warm-up */
                for (int k = 0; k < 3; k++) {
                    double t0 = now();
                    gk_job_run(job, &g, 0, 0, sink, &r, NULL, NULL);
                    t[k] = (now() - t0) * 1e3;
                    shared += job->shared_nodes;
                }
            }
            qsort(t, 3, sizeof *t, cmp_d);
            printf("  %-64s %-6s %4d^2 on %s, %d streams%s: %8.1f ms", v[i].spec,
                   v[i].single ? "single" : "double", n, gk_context_device_name(ctx),
                   job ? gk_device_streams(job) : 0, share ? ", CPU share on " : ", CPU share off",
                   t[1]);
            if (share)
                printf(" (CPU took %.1f%% of the nodes)", 100.0 * shared / (3.0 * n * n));
            printf("\n");
        }
        unsetenv("GRIDKIT_CPU_SHARE");
        fflush(stdout);
        free(r.v);
        gk_job_free(job);
        gk_algorithm_free(alg);
    }
    /* the radius cases on the CPU cores alone: 512^2 of the same extent,
     * scaled per node to 4096^2 */
    static const char *cpu[] = {KRIGE_R25, KRIGE_R40};
    gk_context *cc = gk_context_new();
    gk_context_set_device(cc, "cpu");
    for (size_t i = 0; i < sizeof cpu / sizeof *cpu; i++) {
        gk_algorithm *alg = gk_algorithm_parse(cc, cpu[i]);
        gk_job *job = gk_job_new(cc, pts, alg);
        int n = 512, nb = job ? gk_job_bands(job) : 1;
        gk_grid g = {0.0, 10000.0, 0.0, 10000.0, n, n};
        raster r = {malloc((size_t)n * n * nb * sizeof(double)), n};
        double t0 = now();
        if (job)
            gk_job_run(job, &g, 0, 0, sink, &r, NULL, NULL);
        printf("  %-64s double CPU, %d threads: %8.1f ms (4096^2, scaled from 512^2)\n", cpu[i],
               omp_get_num_procs(), (now() - t0) * 1e3 * 64.0);
        free(r.v);
        gk_job_free(job);
        gk_algorithm_free(alg);
    }
    gk_context_free(cc);
}

static void tune(gk_context *ctx, const gk_points *pts, int k)
{
    char spec[128];
    snprintf(spec, sizeof spec, "invdistnn:radius=200:max_points=%d", k);
    printf("tuning %s on 4096^2: kernel ms by block width, blocks/SM (K<=16), points/bin\n", spec);
    static const char *bx[] = {"32", "8"}, *ppb[] = {"1", "1.5", "2", "3", "4"};
    setenv("GRIDKIT_GPU_KNN_WARP", "0", 1);
    for (int a = 0; a < 2; a++) {
        setenv("GRIDKIT_GPU_KNN_BX", bx[a], 1);
        setenv("GRIDKIT_GPU_PPB", "2", 1);
        printf("  thread per node, block width %-2s, 2 points/bin: %7.2f ms\n", bx[a],
               gpu_kernel_ms(ctx, pts, spec, 0, 4096));
    }
    setenv("GRIDKIT_GPU_KNN_WARP", "1", 1);
    for (int c = 0; c < 5; c++) {
        setenv("GRIDKIT_GPU_PPB", ppb[c], 1);
        printf("  warp lockstep, %-3s points/bin: %7.2f ms\n", ppb[c],
               gpu_kernel_ms(ctx, pts, spec, 0, 4096));
        fflush(stdout);
    }
    unsetenv("GRIDKIT_GPU_KNN_WARP");
    unsetenv("GRIDKIT_GPU_KNN_BX");
    unsetenv("GRIDKIT_GPU_KNN_MINB");
    unsetenv("GRIDKIT_GPU_PPB");
}

int main(int argc, char **argv)
{
    int docs_check = argc > 1 && !strcmp(argv[1], "docs-check");
    const char *docs_path =
        getenv("GK_BENCH_DOCS") ? getenv("GK_BENCH_DOCS") : "docs/benchmarks.md";
    docs = bench_docs_load(docs_path);
    if (docs_check && !docs)
        return 1;
    int kriging = argc > 1 && !strcmp(argv[1], "krige");
    int big = argc > 1 && !strcmp(argv[1], "big");
    int tuning = kriging || (argc > 1 && (!strcmp(argv[1], "tune") || !strcmp(argv[1], "vgm") ||
                                          !strcmp(argv[1], "engine")));
    size_t np = docs_check                    ? 1
                : argc > 1 && !tuning && !big ? strtoull(argv[1], NULL, 10)
                                              : 1048576;
    int grid = argc > 2 && !tuning && !big ? atoi(argv[2]) : 4096;
    int idw_grid = argc > 3 ? atoi(argv[3]) : 1024;
    gk_context *ctx = gk_context_new();
    gk_points *pts = gk_points_new(ctx);
    gk_points_reserve(pts, np);
    double zmin = INFINITY, zmax = -INFINITY;
    for (size_t i = 0; i < np; i++) {
        double x = 10000.0 * urand(), y = 10000.0 * urand();
        double z = sin(6e-4 * x) + cos(5e-4 * y) + 0.1 * urand();
        gk_points_add(pts, x, y, z);
        zmin = fmin(zmin, z);
        zmax = fmax(zmax, z);
    }
    double zrange = zmax - zmin;
    if (!docs_check && gk_context_set_device(ctx, "cuda")) {
        printf("no usable GPU: %s\n", gk_errmsg(ctx));
        return 1;
    }
    if (argc > 1 && !strcmp(argv[1], "engine")) {
        bench_engine(ctx, pts);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "vgm")) { /* the variogram only */
        bench_variogram(pts, 65536);
        return 0;
    }
    if (kriging) {
        tune_krige(ctx, pts);
        bench_variogram(pts, 65536);
        return 0;
    }
    if (tuning) {
        tune(ctx, pts, argc > 2 ? atoi(argv[2]) : 16);
        return 0;
    }
    int cpu_grid_idw = 64;
    const bench_case cases[] = {
        {"invdistnn:radius=200:max_points=16", 0, 0, 0, NULL, 0},
        {"invdistnn:radius=200:max_points=12", 0, 0, 0, NULL, 0},
        {"invdist", 1, idw_grid, cpu_grid_idw, NULL, 0},
        {"invdist", 1, idw_grid, 0, "0", 0},
        {"invdist", 0, idw_grid / 2, cpu_grid_idw / 2, NULL, 0},
        {"invdist:power=3", 1, idw_grid / 2, cpu_grid_idw / 2, NULL, 0},
        {"invdist:power=3", 0, idw_grid / 4, cpu_grid_idw / 4, NULL, 0},
        {"average:radius1=25:radius2=25", 0, 0, 0, NULL, 0},
        {"nearest", 0, 0, 0, NULL, 0},
        /* linear: setup includes the triangulation (the CPU's); the tile's
         * wall time includes the CPU locating the nodes no triangle took */
        {"linear", 0, 0, 0, NULL, 0},
        {"linear:radius=0", 0, 0, 0, NULL, 0},
        {"count:radius1=50:radius2=50", 0, 0, 0, NULL, 0},
        {KRIGE16, 0, 0, 1024, NULL, 0},
        {KRIGE16, 1, 0, 1024, NULL, 0},
        {KRIGE32, 1, 0, 1024, NULL, 0},
        {KRIGE32, 0, 0, 1024, NULL, 0},
        {KRIGE16 ":drift=linear", 0, 0, 1024, NULL, 0},
        /* a thread a node fits its 32 nearest (kriging's search) */
        {"polynomial:degree=2:max_points=32", 0, 0, 1024, NULL, 0},
        /* a warp a node solves its 50 nearest's system (53 unknowns) */
        {"rbf:neighbors=50", 0, 0, 256, NULL, 0},
    };
    /* k above 64: the CPU on a smaller grid of the same extent, per node */
    const bench_case big_cases[] = {
        {"invdistnn:radius=200:max_points=128", 0, 0, 1024, NULL, 0},
        {"invdistnn:radius=200:max_points=128", 1, 0, 1024, NULL, 0},
        {"invdistnn:radius=300:max_points=512", 0, 0, 512, NULL, 0},
        {"aidw:k=128:radius1=200:radius2=200:max_points=128", 0, 0, 1024, NULL, 0},
        {KRIGE_BIG(100), 0, 2048, 512, NULL, 0},
        {KRIGE_BIG(100), 1, 2048, 512, NULL, 0},
        {KRIGE_BIG(40) ":max_points_per_quadrant=10", 0, 0, 1024, NULL, 0},
        {KRIGE_BIG(256), 0, 512, 128, NULL, 0},
        /* per quadrant: 16 kept (quad_kernel's registers), 32 (a list each) */
        {"invdistnn:radius=200:max_points=64:max_points_per_quadrant=16", 0, 0, 1024, NULL, 0},
        {"invdistnn:radius=200:max_points=128:max_points_per_quadrant=32", 0, 0, 1024, NULL, 0},
        {"average:radius1=200:radius2=200:max_points_per_quadrant=32", 0, 0, 1024, NULL, 0},
        /* beyond the shared-memory lists' old limits (~2800 points within
         * 300, ~11300 within 600): 4096 a warp in shared memory, 10000 in
         * global memory; 1000 a quadrant (4 lists of 1000) */
        {"invdistnn:radius=300:max_points=4096", 0, 256, 128, NULL, 0},
        {"invdistnn:radius=600:max_points=10000", 0, 128, 64, NULL, 0},
        {"average:radius1=300:radius2=300:max_points_per_quadrant=1000", 0, 256, 128, NULL, 0},
        /* omax over every point: each quadrant's 8 nearest of the million
         * (the CPU sorts the million per node) */
        {"kriging:model=Exp:psill=1:range=1500:nugget=0.001:max_points_per_quadrant=8", 0, 512, 16,
         NULL, 0},
        /* the same on a grid 2 km wider each side: half its nodes see
         * empty quadrants, which are skipped, not searched to the last point */
        {"kriging:model=Exp:psill=1:range=1500:nugget=0.001:max_points_per_quadrant=8", 0, 512, 64,
         NULL, 2000.0},
        /* the nearest points with no radius, on the points' square and on
         * that wider grid: the rings of a node beyond the points stop by
         * its distance to them, not by their growth along the edge */
        {"nearest", 0, 1024, 128, NULL, 0},
        {"nearest", 0, 1024, 128, NULL, 2000.0},
        {KRIGE16, 0, 1024, 128, NULL, 0},
        {KRIGE16, 0, 1024, 128, NULL, 2000.0},
        /* every point within 140 (~620 a node): GRIDKIT_GPU_KRIGE_DENSE_K
         * decides which nodes the GPU solves */
        {"kriging:model=Exp:psill=1:range=1500:nugget=0.001:radius=140", 0, 64, 32, NULL, 0},
    };
    const bench_case *cs = big ? big_cases : cases;
    const size_t ncs = big ? sizeof big_cases / sizeof *big_cases : sizeof cases / sizeof *cases;
    if (docs_check) { /* each row of the first table has its three GPU figures there */
        int missing = 0;
        for (size_t c = 0; c < ncs; c++) {
            char label[160];
            case_label(&cs[c], label, sizeof label);
            const char *prec = cs[c].single ? "single" : "double";
            static const char *const col[] = {"GPU setup", "GPU kernel", "GPU tile"};
            for (int k = 0; k < 3; k++)
                if (isnan(bench_docs_ms(docs, label, prec, col[k]))) {
                    printf("%s: no '%s' figure for `%s` | %s\n", docs_path, col[k], label, prec);
                    missing++;
                }
        }
        printf("%s: %d of %zu rows' GPU figures missing\n", docs_path, missing, 3 * ncs);
        bench_docs_free(docs);
        return missing != 0;
    }
    if (!docs)
        printf("guard off: no figures to compare with (%s)\n", docs_path);
    printf("%zu points, local grid %d^2, invdist grid %d^2 (GPU) / %d^2 (CPU)\n", np, grid,
           idw_grid, cpu_grid_idw);
    printf("%-38s %-6s %6s | %9s %10s %10s | %9s %10s | %8s %9s %9s\n", "algorithm", "prec", "grid",
           "gpu setup", "gpu kernel", "gpu tile", "cpu setup", "cpu run", "speedup", "pairs/s g",
           "max diff");
    const char *only = getenv("GK_BENCH_ONLY"); /* cases whose spec holds this */
    for (size_t c = 0; c < ncs; c++) {
        const bench_case *bc = &cs[c];
        if (only && !strstr(bc->spec, only))
            continue;
        int gn = bc->gpu_n ? bc->gpu_n : grid;
        int cn = bc->cpu_n >= 0 ? (bc->cpu_n ? bc->cpu_n : grid) : 0;
        if (bc->env)
            setenv("GRIDKIT_GPU_IDW_PAIRED", bc->env, 1);
        else
            unsetenv("GRIDKIT_GPU_IDW_PAIRED");
        gk_algorithm *alg = gk_algorithm_parse(ctx, bc->spec);
        gk_algorithm_set_precision(alg, bc->single ? GK_PRECISION_SINGLE : GK_PRECISION_DOUBLE);
        /* GPU */
        const double lo = -bc->pad, hi = 10000.0 + bc->pad;
        gk_grid g = {lo, hi, lo, hi, gn, gn};
        gk_context_set_device(ctx, "cuda");
        /* set-up: the median of 3 fresh jobs (one varies by a few ms) */
        double st[3] = {0, 0, 0}, t0;
        gk_job *job = NULL;
        for (int r = 0; r < 3; r++) {
            gk_job_free(job);
            t0 = now();
            job = gk_job_new(ctx, pts, alg);
            st[r] = now() - t0;
            if (!job)
                break;
        }
        qsort(st, 3, sizeof *st, cmp_d);
        double t_gsetup = st[1];
        if (!job || !gk_device_job_on_gpu(job)) {
            printf("%-38s GPU job failed: %s %s\n", bc->spec, gk_errmsg(ctx),
                   gk_context_device_name(ctx));
            return 1;
        }
        size_t ncell = (size_t)gn * gn;
        double *gv = malloc(ncell * gk_job_bands(job) * sizeof *gv);
        double kt[3], wt[3];
        gk_job_compute_window(job, &g, 0, 0, gn, gn, gv); /* warm-up */
        for (int r = 0; r < 3; r++) {
            t0 = now();
            if (gk_job_compute_window(job, &g, 0, 0, gn, gn, gv)) {
                printf("GPU failed: %s\n", gk_errmsg(ctx));
                return 1;
            }
            wt[r] = (now() - t0) * 1e3;
            kt[r] = gk_device_last_kernel_ms(job);
        }
        qsort(kt, 3, sizeof *kt, cmp_d);
        qsort(wt, 3, sizeof *wt, cmp_d);
        gk_job_free(job);
        /* CPU (skipped for the variant rows) */
        double t_csetup = 0, t_cpu = 0, maxdiff = 0;
        if (!bc->env) {
            gk_grid gc = {lo, hi, lo, hi, cn, cn};
            gk_context_set_device(ctx, "cpu");
            t0 = now();
            gk_job *cj = gk_job_new(ctx, pts, alg);
            t_csetup = now() - t0;
            double *cv = malloc((size_t)cn * cn * sizeof *cv);
            raster r = {cv, cn};
            t0 = now();
            gk_job_run(cj, &gc, 0, 0, sink, &r, NULL, NULL);
            t_cpu = now() - t0;
            gk_job_free(cj);
            /* the same nodes on the GPU (the CPU grid may be smaller) */
            double *gv2 = gv;
            if (cn != gn) {
                gk_context_set_device(ctx, "cuda");
                gk_job *j2 = gk_job_new(ctx, pts, alg);
                gk_job_compute_window(j2, &gc, 0, 0, cn, cn, gv);
                gk_job_free(j2);
            }
            for (size_t i = 0; i < (size_t)cn * cn; i++) {
                double d = fabs(gv2[i] - cv[i]);
                if (!(d <= maxdiff) && !(isnan(gv2[i]) && isnan(cv[i])))
                    maxdiff = d;
            }
            free(cv);
        }
        double pairs = (double)ncell * (double)np;
        int all_pairs = !strncmp(bc->spec, "invdist", 7) && strncmp(bc->spec, "invdistnn", 9);
        double cpu_per_cell = cn ? t_cpu / ((double)cn * cn) : 0;
        double speed = t_cpu > 0 ? cpu_per_cell * ncell / (kt[1] * 1e-3) : 0;
        char label[160];
        case_label(bc, label, sizeof label);
        printf("%-38s %-6s %6d | %7.1fms %8.2fms %8.2fms | %7.1fms %8.1fms | %7.0fx %9.3g %9.2g\n",
               label, bc->single ? "single" : "double", gn, t_gsetup * 1e3, kt[1], wt[1],
               t_csetup * 1e3, t_cpu * 1e3, speed, all_pairs ? pairs / (kt[1] * 1e-3) : 0.0,
               maxdiff / zrange);
        if (docs) {
            const char *prec = bc->single ? "single" : "double";
            printf("%-38s", "  guard:");
            if (!big)
                bench_docs_compare(docs, label, prec, "GPU setup", t_gsetup * 1e3, &compared,
                                   &flagged);
            bench_docs_compare(docs, label, prec, "GPU kernel", kt[1], &compared, &flagged);
            if (!big)
                bench_docs_compare(docs, label, prec, "GPU tile", wt[1], &compared, &flagged);
            printf("\n");
        }
        if (all_pairs && !bc->env && cn != gn)
            printf("%-38s CPU %d^2: %.3g pairs/s\n", "", cn, (double)cn * cn * np / t_cpu);
        free(gv);
        gk_algorithm_free(alg);
        fflush(stdout);
    }
    if (big)
        return guard_summary(docs_path);
    bench_variogram(pts, 65536);
    tie_order(pts);
    printf("end to end, %d^2 (first call of a fresh job: module loaded already):\n", grid);
    end_to_end(ctx, pts, "invdistnn:radius=200:max_points=16", 0, grid);
    end_to_end(ctx, pts, KRIGE16, 0, grid);
    end_to_end(ctx, pts, KRIGE16, 1, grid);
    end_to_end(ctx, pts, KRIGE16 ":variance=no", 1, grid);
    gk_points_free(pts);
    gk_context_free(ctx);
    return guard_summary(docs_path);
}
