/* SPDX-License-Identifier: MIT */
/*
 * test_gpu.c - the GPU backend against the CPU on the same inputs.
 *
 * Everywhere: the device option's syntax, GRIDKIT_DEVICE, and that "auto"
 * falls back to the CPU (with the reason in the device name) and "cuda"
 * fails cleanly when no GPU is usable. Where a GPU is usable: every
 * algorithm with a GPU kernel, through the tile engine and through odd
 * windows, equal to the CPU within 1e-9 (relative to the larger of the value
 * and the data range) in double precision and 1e-5 of the data range in
 * single; linear also bit for bit. Global kriging (cuSOLVER) is also held
 * against a reference of the test's own (long double), which is checked
 * against the CPU first, so that machines whose CPU build has no LAPACK
 * still check it. Exits 77 (ctest: skipped) when there is no GPU.
 *
 * One program from a file per family (gpu_harness.h lists them); this one
 * holds the device option, the CPU's share of a GPU run, split tiles, one
 * stream, odd windows and Float32 tiles converted on the GPU, and main, which runs the families in a fixed
 * order: 614 comparisons where a GPU is usable (`grep -c "^ok "` on the
 * output counts them).
 */
#include "gpu_harness.h"

#include "core/device.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The CPU cores' share of a GPU run (GRIDKIT_CPU_SHARE=force: slices of a
 * few rows off the last tiles, the first claimed before the GPU starts, the
 * rest raced for): the CPU's values within the tolerances, whoever computed
 * which node, and some nodes computed by the CPU in every run. */
static void test_cpu_share(const dataset *u, const dataset *l)
{
    static const char *specs[] = {
        "invdistnn:radius=400:max_points=16",
        "invdist:power=3:smoothing=5",
        "invdist:radius1=600:radius2=300:angle=30:max_points=10",
        "nearest",
        "average:radius1=300:radius2=300",
        "count:radius1=250:radius2=250",
        "average_distance_pts:radius1=300:radius2=300",
        "aidw:radius1=400:radius2=400:max_points=12",
        "kriging:model=Exp:psill=60:range=500:nugget=5:max_points=16",
        "kriging:model=Sph:psill=60:range=800:nugget=5:max_points=40:min_points=3",
        "kriging:model=Exp:psill=60:range=700:nugget=5:radius=320", /* every point within radius */
        "kriging:drift_raster=a:model=Exp:psill=60:range=500:nugget=5:max_points=12",
    };
    setenv("GRIDKIT_CPU_SHARE", "force", 1);
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        for (int single = 0; single < 2; single++) {
            last_shared = 0;
            compare_krige(specs[i], single, u, 1);
            CHECKF(last_shared > 0, "%s: the CPU took no share", specs[i]);
        }
    }
    setenv("GRIDKIT_CPU_SHARE_ROWS", "1", 1);
    compare_krige("invdistnn:radius=2.5:max_points=12", 0, l, 1);
    CHECKF(last_shared > 0, "lattice: the CPU took no share");
    setenv("GRIDKIT_CPU_SHARE_ROWS", "50", 1); /* whole tiles and more */
    compare_krige("kriging:model=Exp:psill=10:range=5:nugget=1:max_points=12", 0, l, 1);
    CHECKF(last_shared > 0, "lattice: the CPU took no share");
    unsetenv("GRIDKIT_CPU_SHARE_ROWS");
    /* off: nothing shared */
    setenv("GRIDKIT_CPU_SHARE", "0", 1);
    compare_krige("invdistnn:radius=400:max_points=16", 0, u, 1);
    CHECKF(last_shared == 0, "GRIDKIT_CPU_SHARE=0, yet %llu nodes on the CPU",
           (unsigned long long)last_shared);
    unsetenv("GRIDKIT_CPU_SHARE");
}

/* Split tiles, one stream per GPU, odd windows: the engine's paths around
 * the kernels. */
static void test_engine(const dataset *u)
{
    static const char *split[] = {
        "invdistnn:radius=400:max_points=16",
        "invdist",
        "kriging:model=Exp:psill=60:range=500:nugget=5:max_points=16",
    };
    for (size_t i = 0; i < NCASES(split); i++)
        test_split(split[i], u);
    setenv("GRIDKIT_GPU_STREAMS", "1", 1);
    compare(split[0], 0, u, 1);
    compare_krige(split[2], 0, u, 1);
    unsetenv("GRIDKIT_GPU_STREAMS");
    const gpu_case windows[] = {
        {"invdist", u, 0},
        {"invdist", u, 1},
        {"invdistnn:radius=400:max_points=16", u, 0},
        {"average:radius1=300:radius2=300", u, 0},
        {"kriging:model=Exp:psill=60:range=500:nugget=5:max_points=16:variance=no", u, 0},
    };
    windows_cases(windows, NCASES(windows));
}

/* Float32 tiles converted on the GPU (gk_job_run_typed, compute_window_typed):
 * bit for bit the host's conversion (gk_value_to_float32, GDALCopyWords's
 * rule) of the same job's doubles, also where values overflow a float or
 * fall to its subnormals (z scaled), where a tile is split, and where the
 * CPU finishes a tile (linear, kriging's dense nodes: converted on the host). */
static int sink_f32(void *user, int x0, int y0, int w, int h, int nbands, const void *v)
{
    raster2 *r = user; /* r->v holds floats here */
    float *out = (float *)r->v;
    const float *in = v;
    const size_t plane = (size_t)r->nx * r->ny;
    for (int b = 0; b < nbands; b++)
        for (int j = 0; j < h; j++)
            memcpy(out + b * plane + (size_t)(y0 + j) * r->nx + x0,
                   in + (size_t)b * w * h + (size_t)j * w, (size_t)w * sizeof *in);
    return 0;
}

static void float32_case(const char *spec, int single, const dataset *d, double zscale, int split)
{
    gk_context *ctx = gk_context_new();
    gk_context_set_device(ctx, "cuda");
    gk_algorithm *alg = gk_algorithm_parse(ctx, spec);
    gk_algorithm_set_precision(alg, single ? GK_PRECISION_SINGLE : GK_PRECISION_DOUBLE);
    const size_t n = gk_points_count(d->pts);
    const double *px = gk_points_x(d->pts), *py = gk_points_y(d->pts), *pz = gk_points_z(d->pts);
    gk_points *p = gk_points_new(ctx);
    for (size_t i = 0; p && i < n; i++)
        gk_points_add(p, px[i], py[i], pz[i] * zscale);
    if (split)
        setenv("GRIDKIT_GPU_TILE_MEM", "40000", 1);
    setenv("GRIDKIT_CPU_SHARE", "0", 1); /* the two runs' tiles all on the GPU */
    gk_job *job = alg && p ? gk_job_new(ctx, p, alg) : NULL;
    const gk_grid *g = &d->g;
    const int nb = job ? gk_job_bands(job) : 1;
    const size_t T = (size_t)g->nx * g->ny * nb;
    /* the doubles of the same tiles: single precision works from a tile's
     * own origin, so a window and the engine's tiles may differ in the last
     * bits (within test_gpu's tolerances) */
    double *dv = malloc(T * sizeof *dv), *dt = malloc(T * sizeof *dt);
    float *want = malloc(T * sizeof *want), *tiles = malloc(T * sizeof *tiles),
          *win = malloc(T * sizeof *win);
    int rc = !job || !dv || !dt || !want || !tiles || !win || nb > 2;
    if (!rc)
        rc = gk_job_compute_window(job, g, 0, 0, g->nx, g->ny, dv) ||
             gk_job_compute_window_typed(job, g, 0, 0, g->nx, g->ny, GK_VALUES_FLOAT32, win);
    if (!rc) {
        raster2 r = {(double *)tiles, g->nx, g->ny}, rd = {dt, g->nx, g->ny};
        rc = gk_job_run_typed(job, g, 0, g->ny, 0, 0, 0, GK_VALUES_FLOAT32, sink_f32, &r, NULL,
                              NULL) ||
             gk_job_run(job, g, 0, 0, sink2, &rd, NULL, NULL);
    }
    unsetenv("GRIDKIT_GPU_TILE_MEM");
    unsetenv("GRIDKIT_CPU_SHARE");
    CHECKF(!rc, "%s (z x %g): %s", spec, zscale, gk_errmsg(ctx));
    if (!rc) {
        size_t bad = 0, inf = 0, sub = 0;
        for (size_t i = 0; i < T; i++) {
            want[i] = gk_value_to_float32(dv[i]);
            const float wt = gk_value_to_float32(dt[i]);
            bad += memcmp(&want[i], &win[i], sizeof(float)) != 0;
            bad += memcmp(&wt, &tiles[i], sizeof(float)) != 0;
            inf += isinf(want[i]) != 0;
            sub += want[i] != 0 && fabsf(want[i]) < FLT_MIN;
        }
        const int needs_inf = zscale > 1, needs_sub = zscale < 1;
        const int ok = bad == 0 && (!needs_inf || inf > 0) && (!needs_sub || sub > 0) &&
                       (!split || gk_device_tile_splits(job) > 0);
        CHECKF(ok,
               "%s (z x %g%s): %zu Float32 values differ from the host's conversion (%zu "
               "infinite, %zu subnormal)",
               spec, zscale, split ? ", split" : "", bad, inf, sub);
        printf("%s %-60s %s z x %-6g%s Float32 on the device: %zu differ, %zu inf, %zu subnormal\n",
               ok ? "ok  " : "FAIL", spec, single ? "single" : "double", zscale,
               split ? " split" : "", bad, inf, sub);
    }
    free(dv);
    free(dt);
    free(want);
    free(tiles);
    free(win);
    gk_job_free(job);
    gk_points_free(p);
    gk_algorithm_free(alg);
    gk_context_free(ctx);
}

static void test_float32(const dataset *u)
{
    static const char *specs[] = {
        "invdistnn:radius=400:max_points=16",
        "invdist:power=2",
        "average:radius1=300:radius2=300",
        "kriging:model=Exp:psill=60:range=500:nugget=5:max_points=16", /* 2 bands */
        "kriging:model=Exp:psill=60:range=700:nugget=5:radius=320",    /* dense nodes: host */
        "linear", /* finished on the CPU: host */
    };
    for (size_t i = 0; i < NCASES(specs); i++) {
        float32_case(specs[i], 0, u, 1.0, 0);
        float32_case(specs[i], 0, u, 1e37, 0);  /* past FLT_MAX: infinity, as GDAL */
        float32_case(specs[i], 0, u, 1e-41, 0); /* subnormal floats */
    }
    float32_case(specs[1], 1, u, 1.0, 0);
    float32_case(specs[0], 0, u, 1e37, 1);
    float32_case(specs[3], 0, u, 1.0, 1);
}

static void test_device_option(void)
{
    gk_context *ctx = gk_context_new();
    CHECKF(gk_context_set_device(ctx, "bogus") == GK_ERR_ARG, "bad spec accepted");
    CHECKF(strstr(gk_errmsg(ctx), "bogus") != NULL, "message: %s", gk_errmsg(ctx));
    CHECKF(gk_context_set_device(ctx, "cuda:x") == GK_ERR_ARG, "cuda:x accepted");
    CHECKF(gk_context_set_device(ctx, "cpu") == GK_OK, "cpu refused");
    CHECKF(gk_context_set_device(ctx, "auto") == GK_OK, "auto refused");
    CHECKF(gk_context_set_device(ctx, NULL) == GK_OK, "NULL refused");
    int rc = gk_context_set_device(ctx, "cuda:999");
    CHECKF(rc == GK_ERR_UNSUPPORTED, "cuda:999 gave %d", rc);

    /* GRIDKIT_DEVICE when no device is set */
    gk_points *p = gk_points_new(ctx);
    gk_points_add(p, 0, 0, 1);
    gk_points_add(p, 1, 1, 2);
    gk_algorithm *alg = gk_algorithm_parse(ctx, "nearest");
    setenv("GRIDKIT_DEVICE", "cpu", 1);
    gk_job *job = gk_job_new(ctx, p, alg);
    CHECKF(job && !strcmp(gk_context_device_name(ctx), "cpu"), "GRIDKIT_DEVICE=cpu: %s",
           gk_context_device_name(ctx));
    gk_job_free(job);
    setenv("GRIDKIT_DEVICE", "nonsense", 1);
    job = gk_job_new(ctx, p, alg);
    CHECKF(!job && gk_errno(ctx) == GK_ERR_ARG, "GRIDKIT_DEVICE=nonsense accepted");
    gk_job_free(job);
    unsetenv("GRIDKIT_DEVICE");
    /* auto always works: the GPU, or the CPU with the reason */
    job = gk_job_new(ctx, p, alg);
    CHECKF(job != NULL, "auto: %s", gk_errmsg(ctx));
    printf("auto runs on: %s\n", gk_context_device_name(ctx));
    gk_job_free(job);
    gk_algorithm_free(alg);
    gk_points_free(p);
    gk_context_free(ctx);
}

/* --device auto leaves the GPU unstarted where the CPU cores finish sooner
 * than CUDA starts and stops (~0.33 s on the H100 machine), by the model of
 * algorithms/core/device_choice.c. The cases are the runs of docs/benchmarks.md:
 * 1 M points over a 10 km square to 4096^2, 16 cores. */
static void test_auto_choice(void)
{
    gk_context *ctx = gk_context_new();
    gk_context_set_threads(ctx, 16);
    const double n = 1048576, area = 1e8, nodes = 4096.0 * 4096.0;
    struct {
        const char *spec;
        double n, nodes;
        int threads, gpu;
    } c[] = {
        /* 0.1 s on 16 cores (measured): the CPU */
        {"average:radius1=25:radius2=25", n, nodes, 16, 0},
        /* on 2 cores it takes ~0.5 s: the GPU */
        {"average:radius1=25:radius2=25", n, nodes, 2, 1},
        /* invdistnn k = 16: 1.5 s on 16 cores against 7 ms on the GPU */
        {"invdistnn:radius=200:max_points=16", n, nodes, 16, 1},
        {"kriging:model=Exp:psill=1:range=1500:max_points=16", n, nodes, 16, 1},
        /* every point for every node */
        {"invdist:power=2", n, 1024.0 * 1024.0, 16, 1},
        /* meuse-sized: 155 points to 256^2 */
        {"invdistnn:radius=500:max_points=16", 155, 65536, 16, 0},
        {"nearest", 155, 65536, 2, 0},
        /* 1 M points need a k-d tree on the CPU (~0.7 s) */
        {"nearest", n, 65536, 16, 1},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        gk_algorithm *a = gk_algorithm_parse(ctx, c[i].spec);
        gk_context_set_threads(ctx, c[i].threads);
        int gpu = gk_context_auto_device(ctx, a, c[i].n, area, c[i].nodes);
        CHECKF(gpu == c[i].gpu, "auto for %s, %.0f points, %.0f nodes, %d threads: %s (%.3f s)",
               c[i].spec, c[i].n, c[i].nodes, c[i].threads, gpu ? "GPU" : "CPU",
               gk_algorithm_cpu_seconds(a, c[i].n, area, c[i].nodes, c[i].threads));
        gk_algorithm_free(a);
    }
    /* the choice reaches the job, with its reason; no estimate, no choice */
    gk_points *p = gk_points_new(ctx);
    gk_points_add(p, 0, 0, 1);
    gk_points_add(p, 1, 1, 2);
    gk_algorithm *a = gk_algorithm_parse(ctx, "nearest");
    CHECKF(gk_context_auto_device(ctx, a, 2, 1, 100) == 0, "2 points: GPU");
    gk_job *job = gk_job_new(ctx, p, a);
    CHECKF(job && !strncmp(gk_context_device_name(ctx), "cpu (nearest: about", 19), "device: %s",
           gk_context_device_name(ctx));
    gk_job_free(job);
    CHECKF(gk_context_auto_device(ctx, a, 0, 0, 0) == 1, "no estimate, yet the CPU chosen");
    job = gk_job_new(ctx, p, a);
    CHECKF(job && !strstr(gk_context_device_name(ctx), "nearest: about"), "stale choice: %s",
           gk_context_device_name(ctx));
    gk_job_free(job);
    gk_algorithm_free(a);
    gk_points_free(p);
    gk_context_free(ctx);
}

/* GK_TEST_GPU_ONLY=a,b: only the families named (their function's name
 * without test_), so that a slow build (coverage) can run them side by
 * side in several processes; unset: all of them, in this order. */
static int family_wanted(const char *name)
{
    const char *only = getenv("GK_TEST_GPU_ONLY");
    if (!only || !*only)
        return 1;
    size_t n = strlen(name);
    for (const char *p = only; (p = strstr(p, name)); p += n)
        if ((p == only || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}
#define FAMILY(name, call)                                                                         \
    do {                                                                                           \
        if (family_wanted(name))                                                                   \
            call;                                                                                  \
    } while (0)

int main(void)
{
    seed_datasets(88172645463325252ULL); /* the data sets these tests were written with */
    test_device_option();
    test_auto_choice();
    test_global_reference();

    gk_context *ctx = gk_context_new();
    if (gk_context_set_device(ctx, "cuda") != GK_OK) {
        CHECKF(gk_errno(ctx) == GK_ERR_UNSUPPORTED, "cuda: code %d", gk_errno(ctx));
        printf("no usable GPU (%s): GPU comparisons skipped\n", gk_errmsg(ctx));
        gk_context_free(ctx);
        return failures ? 1 : 77;
    }
    dataset u = make_utm(ctx), l = make_lattice(ctx), sm = make_small(ctx);

    FAMILY("quadtree_order", test_quadtree_order());
    FAMILY("gpu_basic", test_gpu_basic(&u, &l));
    FAMILY("extra", test_extra(&u, &l, &sm));
    FAMILY("big_k", test_big_k(&u, &l, &sm));
    FAMILY("krige_basic", test_krige_basic(&u, &l));
    FAMILY("quadrants", test_quadrants(&u, &l));
    FAMILY("far_nodes", test_far_nodes(&u));
    FAMILY("radius_kriging", test_radius_kriging(&u, &l));
    FAMILY("models", test_models(&u, &l));
    FAMILY("drift_block", test_drift_block(&u, &l));
    FAMILY("cpu_share", test_cpu_share(&u, &l));
    FAMILY("global", test_global(&l));
    FAMILY("variograms", test_variograms(&u, &l));
    FAMILY("engine", test_engine(&u));
    FAMILY("float32", test_float32(&u));
    FAMILY("linear", test_linear(ctx, &u, &l, &sm));
    FAMILY("natural", test_natural(ctx, &u, &l, &sm));
    FAMILY("shepard", test_shepard(&u, &l, &sm));
    FAMILY("polynomial", test_polynomial(ctx, &u, &l, &sm));
    FAMILY("rbf", test_rbf(&u, &l, &sm));
    FAMILY("rst", test_rst(&l, &sm));
    FAMILY("surface", test_surface(&u, &l, &sm));
    FAMILY("simulation", test_simulation(&u, &l, &sm));
    FAMILY("indicator", test_indicator(&u, &l));
    FAMILY("ridges", test_ridges(ctx));
    FAMILY("density", test_density(&u, &l, &sm));
    FAMILY("crossval", test_crossval(&u, &l));

    gk_points_free(u.pts);
    gk_points_free(l.pts);
    gk_points_free(sm.pts);
    gk_context_free(ctx);
    printf("%s\n", failures ? "FAILED" : "all GPU comparisons passed");
    return failures ? 1 : 0;
}
