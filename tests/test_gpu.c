/*
 * test_gpu.c - the GPU backend against the CPU on the same inputs.
 *
 * Everywhere: the device option's syntax, GRIDKIT_DEVICE, and that "auto"
 * falls back to the CPU (with the reason in the device name) and "cuda"
 * fails cleanly when no GPU is usable. Where a GPU is usable: every
 * algorithm with a GPU kernel, through the tile engine and through odd
 * windows, equal to the CPU within 1e-9 (relative to the larger of the value
 * and the data range) in double precision and 1e-5 of the data range in
 * single. Exits 77 (ctest: skipped) when there is no GPU.
 */
#include "gridkit.h"
#include "device.h"
#include "variogram.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static unsigned long long rng = 88172645463325252ULL;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

typedef struct {
    const char *name;
    gk_points *pts;
    gk_grid g;
    double zrange;
} dataset;

typedef struct {
    double *v;
    int nx;
} raster;

static int sink(void *user, int x0, int y0, int w, int h, int nbands, const double *values)
{
    (void)nbands;
    raster *r = user;
    for (int j = 0; j < h; j++)
        memcpy(r->v + (size_t)(y0 + j) * r->nx + x0, values + (size_t)j * w, w * sizeof(double));
    return 0;
}

/* Runs spec on one device over the whole grid; NULL when the job fails. */
static double *run(const char *device, const char *spec, int single, const dataset *d,
                   char *devname, size_t cap)
{
    gk_context *ctx = gk_context_new();
    gk_algorithm *alg = gk_algorithm_parse(ctx, spec);
    if (!alg) {
        printf("FAIL parse %s: %s\n", spec, gk_errmsg(ctx));
        failures++;
        gk_context_free(ctx);
        return NULL;
    }
    gk_algorithm_set_precision(alg, single ? GK_PRECISION_SINGLE : GK_PRECISION_DOUBLE);
    double *v = NULL;
    if (gk_context_set_device(ctx, device) == GK_OK) {
        gk_job *job = gk_job_new(ctx, d->pts, alg);
        if (job) {
            size_t n = (size_t)d->g.nx * d->g.ny;
            v = malloc(n * sizeof *v);
            for (size_t i = 0; i < n; i++)
                v[i] = -12345.678; /* poison: every node must be written */
            raster r = {v, d->g.nx};
            if (gk_job_run(job, &d->g, 64, 64, sink, &r, NULL, NULL)) {
                printf("FAIL run %s on %s: %s\n", spec, device, gk_errmsg(ctx));
                failures++;
                free(v);
                v = NULL;
            }
            snprintf(devname, cap, "%s", gk_context_device_name(ctx));
            gk_job_free(job);
        }
    }
    if (!v && gk_errno(ctx)) {
        printf("FAIL job %s on %s: %s\n", spec, device, gk_errmsg(ctx));
        failures++;
    }
    gk_algorithm_free(alg);
    gk_context_free(ctx);
    return v;
}

static int same_nodata(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

/* Compares the GPU with the CPU on one algorithm and data set. */
static void compare(const char *spec, int single, const dataset *d, int expect_gpu)
{
    char cpu_name[800] = "", gpu_name[800] = "";
    double *c = run("cpu", spec, single, d, cpu_name, sizeof cpu_name);
    double *g = run("cuda", spec, single, d, gpu_name, sizeof gpu_name);
    if (!c || !g) {
        free(c);
        free(g);
        return;
    }
    int on_gpu = !strncmp(gpu_name, "cuda", 4);
    CHECK(on_gpu == expect_gpu, "%s: ran on '%s'", spec, gpu_name);
    size_t n = (size_t)d->g.nx * d->g.ny, bad = 0;
    double worst = 0.0;
    size_t worst_at = 0;
    for (size_t i = 0; i < n; i++) {
        double a = c[i], b = g[i];
        if (a == -12345.678 || b == -12345.678) {
            bad++;
            continue;
        }
        if (same_nodata(a, b))
            continue;
        double tol = single ? 1e-5 * d->zrange : 1e-9 * fmax(fabs(a), d->zrange);
        double e = fabs(a - b) / (single ? d->zrange : fmax(fabs(a), d->zrange));
        if (!(fabs(a - b) <= tol))
            bad++;
        if (!(e <= worst)) {
            worst = e;
            worst_at = i;
        }
    }
    printf("%-4s %-66s %-6s %-8s max err %.2e (rel)%s\n", bad ? "FAIL" : "ok", spec,
           single ? "single" : "double", on_gpu ? "gpu" : "cpu", worst, bad ? " <--" : "");
    if (bad) {
        size_t i = worst_at;
        printf("     %zu of %zu nodes differ; worst at node (%zu, %zu): cpu %.17g gpu %.17g\n", bad,
               n, i % d->g.nx, i / d->g.nx, c[i], g[i]);
        failures++;
    }
    free(c);
    free(g);
}

/* The same algorithm through gk_job_compute_window on odd windows. */
static void compare_windows(const char *spec, int single, const dataset *d)
{
    gk_context *cc = gk_context_new(), *gc = gk_context_new();
    gk_algorithm *alg = gk_algorithm_parse(cc, spec);
    gk_algorithm_set_precision(alg, single ? GK_PRECISION_SINGLE : GK_PRECISION_DOUBLE);
    gk_context_set_device(cc, "cpu");
    gk_context_set_device(gc, "cuda");
    gk_job *jc = gk_job_new(cc, d->pts, alg), *jg = gk_job_new(gc, d->pts, alg);
    const int win[][4] = {{0, 0, 1, 1}, {d->g.nx - 7, d->g.ny - 3, 7, 3}, {5, 11, 33, 17}};
    for (int k = 0; k < 3; k++) {
        int w = win[k][2], h = win[k][3];
        double *a = malloc((size_t)w * h * sizeof *a), *b = malloc((size_t)w * h * sizeof *b);
        int ra = gk_job_compute_window(jc, &d->g, win[k][0], win[k][1], w, h, a);
        int rb = gk_job_compute_window(jg, &d->g, win[k][0], win[k][1], w, h, b);
        CHECK(ra == GK_OK && rb == GK_OK, "%s window %d: %s / %s", spec, k, gk_errmsg(cc),
              gk_errmsg(gc));
        for (int i = 0; i < w * h && !ra && !rb; i++) {
            double tol = single ? 1e-5 * d->zrange : 1e-9 * fmax(fabs(a[i]), d->zrange);
            CHECK(same_nodata(a[i], b[i]) || fabs(a[i] - b[i]) <= tol,
                  "%s window %d node %d: cpu %.17g gpu %.17g", spec, k, i, a[i], b[i]);
        }
        free(a);
        free(b);
    }
    gk_job_free(jc);
    gk_job_free(jg);
    gk_algorithm_free(alg);
    gk_context_free(cc);
    gk_context_free(gc);
}

/* Kriging: both bands (estimate, variance) of a whole-grid run. */
typedef struct {
    double *v;
    int nx, ny;
} raster2;

static int sink2(void *user, int x0, int y0, int w, int h, int nbands, const double *values)
{
    raster2 *r = user;
    for (int b = 0; b < nbands && b < 2; b++)
        for (int j = 0; j < h; j++)
            memcpy(r->v + (size_t)b * r->nx * r->ny + (size_t)(y0 + j) * r->nx + x0,
                   values + (size_t)b * w * h + (size_t)j * w, w * sizeof(double));
    return 0;
}

static double *run2(const char *device, const char *spec, int single, const dataset *d,
                    char *devname, size_t cap, uint64_t *singular)
{
    gk_context *ctx = gk_context_new();
    gk_algorithm *alg = gk_algorithm_parse(ctx, spec);
    double *v = NULL;
    if (!alg) {
        printf("FAIL parse %s: %s\n", spec, gk_errmsg(ctx));
        failures++;
        gk_context_free(ctx);
        return NULL;
    }
    gk_algorithm_set_precision(alg, single ? GK_PRECISION_SINGLE : GK_PRECISION_DOUBLE);
    gk_context_set_device(ctx, device);
    gk_job *job = gk_job_new(ctx, d->pts, alg);
    if (job) {
        size_t n = (size_t)d->g.nx * d->g.ny;
        v = malloc(2 * n * sizeof *v);
        for (size_t i = 0; i < 2 * n; i++)
            v[i] = -12345.678;
        raster2 r = {v, d->g.nx, d->g.ny};
        gk_run_stats st;
        memset(&st, 0, sizeof st);
        if (gk_job_run(job, &d->g, 64, 64, sink2, &r, NULL, NULL)) {
            printf("FAIL run %s on %s: %s\n", spec, device, gk_errmsg(ctx));
            failures++;
            free(v);
            v = NULL;
        }
        gk_job_stats(job, &st);
        *singular = st.singular_nodes;
        if (gk_job_bands(job) < 2)
            for (size_t i = 0; i < n; i++)
                v[n + i] = 0.0;
        snprintf(devname, cap, "%s", gk_context_device_name(ctx));
        gk_job_free(job);
    } else {
        printf("FAIL job %s on %s: %s\n", spec, device, gk_errmsg(ctx));
        failures++;
    }
    gk_algorithm_free(alg);
    gk_context_free(ctx);
    return v;
}

/* Estimate within 1e-9 (relative to the larger of the value and the data
 * range) in double, 1e-5 of the data range in single; the variance likewise
 * relative to the largest variance; the same nodata and singular counts. */
static void compare_krige(const char *spec, int single, const dataset *d, int expect_gpu)
{
    char cn[800] = "", gn[800] = "";
    uint64_t cs = 0, gs = 0;
    double *c = run2("cpu", spec, single, d, cn, sizeof cn, &cs);
    double *g = run2("cuda", spec, single, d, gn, sizeof gn, &gs);
    if (!c || !g) {
        free(c);
        free(g);
        return;
    }
    int on_gpu = !strncmp(gn, "cuda", 4);
    CHECK(on_gpu == expect_gpu, "%s: ran on '%s'", spec, gn);
    size_t n = (size_t)d->g.nx * d->g.ny, bad = 0, worst_at = 0;
    double vmax = 0.0, worst[2] = {0, 0};
    for (size_t i = 0; i < n; i++)
        if (isfinite(c[n + i]) && c[n + i] != -12345.678)
            vmax = fmax(vmax, fabs(c[n + i]));
    for (int b = 0; b < 2; b++) {
        double scale = b == 0 ? d->zrange : vmax;
        for (size_t i = 0; i < n; i++) {
            double x = c[b * n + i], y = g[b * n + i];
            if (x == -12345.678 || y == -12345.678) {
                bad++;
                continue;
            }
            if (same_nodata(x, y))
                continue;
            double den = single ? scale : fmax(fabs(x), scale);
            double e = fabs(x - y) / den;
            if (!(e <= (single ? 1e-5 : 1e-9))) {
                if (!bad)
                    worst_at = b * n + i;
                bad++;
            }
            if (!(e <= worst[b]))
                worst[b] = e;
        }
    }
    if (cs != gs)
        bad++;
    printf("%-4s %-66s %-6s %-8s est %.2e var %.2e singular %llu/%llu%s\n", bad ? "FAIL" : "ok",
           spec, single ? "single" : "double", on_gpu ? "gpu" : "cpu", worst[0], worst[1],
           (unsigned long long)cs, (unsigned long long)gs, bad ? " <--" : "");
    if (bad) {
        printf("     %zu values differ; first at %zu: cpu %.17g gpu %.17g\n", bad, worst_at,
               c[worst_at], g[worst_at]);
        failures++;
    }
    free(c);
    free(g);
}

/* The all-pairs variogram: np exactly, gamma within 1e-9, dist within 1e-7. */
static void compare_variogram(const dataset *d, int nlags, int ndir, int cressie, double bw)
{
    gk_context *cc = gk_context_new(), *gc = gk_context_new();
    gk_context_set_device(cc, "cpu");
    gk_context_set_device(gc, "cuda");
    gk_vgm_options o;
    memset(&o, 0, sizeof o);
    o.nlags = nlags;
    o.ndir = ndir;
    o.estimator = cressie ? GK_VGM_CRESSIE : GK_VGM_MATHERON;
    o.bandwidth = bw;
    for (int a = 0; a < ndir; a++)
        o.azimuth[a] = 45.0 * a;
    gk_vgm a, b;
    int ra = gk_variogram(cc, d->pts, &o, &a), rb = gk_variogram(gc, d->pts, &o, &b);
    CHECK(ra == GK_OK && rb == GK_OK, "variogram: %s / %s", gk_errmsg(cc), gk_errmsg(gc));
    if (ra == GK_OK && rb == GK_OK) {
        int bad = a.ndir != b.ndir || a.nlags != b.nlags;
        double eg = 0, ed = 0;
        for (int k = 0; !bad && k < a.ndir * a.nlags; k++) {
            if (a.np[k] != b.np[k])
                bad++;
            if (a.np[k] > 0) {
                eg = fmax(eg, fabs(a.gamma[k] - b.gamma[k]) / fabs(a.gamma[k]));
                ed = fmax(ed, fabs(a.dist[k] - b.dist[k]) / fabs(a.dist[k]));
            }
        }
        if (eg > 1e-9 || ed > 1e-7)
            bad++;
        printf("%-4s variogram %s %d lags %d dir%s bw %g on %-24s np %s, gamma %.2e, dist %.2e\n",
               bad ? "FAIL" : "ok", d->name, nlags, ndir, cressie ? " cressie" : "", bw,
               gk_device_last_variogram_device(), bad ? "DIFFER" : "equal", eg, ed);
        CHECK(!strncmp(gk_device_last_variogram_device(), "cuda", 4), "variogram ran on %s",
              gk_device_last_variogram_device());
        if (bad)
            failures++;
        gk_vgm_free(&a);
        gk_vgm_free(&b);
    }
    gk_context_free(cc);
    gk_context_free(gc);
}

static dataset make_utm(gk_context *ctx)
{
    dataset d = {.name = "utm", .pts = gk_points_new(ctx)};
    int n = 20000;
    double zmin = INFINITY, zmax = -INFINITY;
    for (int i = 0; i < n; i++) {
        double x = 500000.0 + 10000.0 * urand(), y = 5000000.0 + 10000.0 * urand();
        double z = 100.0 + 50.0 * sin(x / 900.0) * cos(y / 1300.0) + 5.0 * urand();
        gk_points_add(d.pts, x, y, z);
        zmin = fmin(zmin, z);
        zmax = fmax(zmax, z);
    }
    d.zrange = zmax - zmin;
    gk_grid g = {499800.0, 510300.0, 4999900.0, 5010150.0, 157, 131};
    d.g = g;
    return d;
}

/* Integer lattice with duplicates; nodes fall on lattice points (exact hits)
 * and many distances tie exactly (ties by input order). Z of mixed sign. */
static dataset make_lattice(gk_context *ctx)
{
    dataset d = {.name = "lattice", .pts = gk_points_new(ctx)};
    double zmin = INFINITY, zmax = -INFINITY;
    for (int j = 0; j <= 40; j++)
        for (int i = 0; i <= 40; i++) {
            if ((i * 7 + j * 3) % 11 == 0)
                continue; /* holes */
            double z = sin(i * 0.7) * 10.0 + cos(j * 0.3) * 7.0;
            gk_points_add(d.pts, i, j, z);
            if ((i + j) % 9 == 0) /* a duplicate with another Z */
                gk_points_add(d.pts, i, j, z + 3.0);
        }
    for (size_t i = 0; i < gk_points_count(d.pts); i++) {
        zmin = fmin(zmin, gk_points_z(d.pts)[i]);
        zmax = fmax(zmax, gk_points_z(d.pts)[i]);
    }
    d.zrange = zmax - zmin;
    gk_grid g = {-0.25, 40.25, -0.25, 40.25, 81, 81}; /* nodes at 0, 0.5, 1, ... */
    d.g = g;
    return d;
}

/* Few points on a small grid: the windowless pair statistic is O(n^2) a node. */
static dataset make_small(gk_context *ctx)
{
    dataset d = {.name = "small", .pts = gk_points_new(ctx)};
    double zmin = INFINITY, zmax = -INFINITY;
    for (int i = 0; i < 300; i++) {
        double x = 1000.0 * urand(), y = 600.0 * urand(), z = 20.0 * urand() - 5.0;
        gk_points_add(d.pts, x, y, z);
        zmin = fmin(zmin, z);
        zmax = fmax(zmax, z);
    }
    d.zrange = zmax - zmin;
    gk_grid g = {-50.0, 1050.0, -30.0, 630.0, 41, 29};
    d.g = g;
    return d;
}

/* average_distance_pts, aidw and the per-quadrant selection (GPU kernels of
 * gpu/window_kernels_extra.cuh). */
static void test_extra(const dataset *u, const dataset *l, const dataset *s)
{
    static const char *utm[] = {
        "average_distance_pts:radius1=300:radius2=300",
        "average_distance_pts:radius1=400:radius2=200:angle=30:min_points=5",
        "aidw:radius1=400:radius2=400:max_points=12",
        "aidw:k=5:smoothing=2:radius1=500:radius2=250:angle=30:max_points=16:min_points=3",
        "aidw:radius1=300:radius2=300",
        "aidw:k=20:alpha1=1:alpha5=4:r_min=0.2:r_max=1.5:radius1=400:radius2=400:max_points=8",
        "aidw:k=1:radius1=600:radius2=600:max_points=40:min_points=30",
        "invdistnn:radius=400:max_points=12:min_points_per_quadrant=1",
        "invdistnn:radius=500:max_points=16:max_points_per_quadrant=3",
        "invdistnn:radius=300:max_points=0:min_points_per_quadrant=2",
        "invdistnn:power=3:smoothing=2:radius=450:max_points=7:max_points_per_quadrant=16:"
        "min_points=5",
        "invdist:radius=400:min_points_per_quadrant=1:max_points_per_quadrant=2",
        "average:radius1=300:radius2=300:min_points_per_quadrant=1",
        "average:radius1=400:radius2=250:angle=30:max_points=10:max_points_per_quadrant=4:"
        "min_points_per_quadrant=1",
        "count:radius1=300:radius2=300:max_points_per_quadrant=5",
        "minimum:radius1=300:radius2=300:max_points_per_quadrant=2:min_points_per_quadrant=1",
        "maximum:radius1=350:radius2=200:angle=60:min_points_per_quadrant=2",
        "range:radius1=300:radius2=300:max_points_per_quadrant=1:min_points=3",
        "average_distance:radius1=300:radius2=300:max_points_per_quadrant=16",
    };
    static const char *lattice[] = {
        "average_distance_pts:radius1=2:radius2=2",
        "average_distance_pts:radius1=1:radius2=1:min_points=3",
        "aidw",
        "aidw:radius1=2.5:radius2=2.5:max_points=8",
        "aidw:k=4:radius1=2:radius2=1:angle=45",
        "aidw:smoothing=0.5:radius1=3:radius2=3:max_points=6",
        "invdistnn:radius=2.5:max_points=12:min_points_per_quadrant=1",
        "invdistnn:radius=2:max_points=0:max_points_per_quadrant=2",
        "invdistnn:radius=1.5:max_points=5:min_points_per_quadrant=1:max_points_per_quadrant=1",
        "average:radius1=2:radius2=2:max_points=6:max_points_per_quadrant=2",
        "count:radius1=1.5:radius2=1.5:min_points_per_quadrant=1",
        "range:radius1=2:radius2=2:max_points_per_quadrant=3:min_points_per_quadrant=1",
        "average_distance:radius1=2:radius2=1:angle=90:max_points_per_quadrant=2",
    };
    for (size_t i = 0; i < sizeof utm / sizeof *utm; i++)
        compare(utm[i], 0, u, 1);
    compare("aidw:radius1=400:radius2=400:max_points=12", 1, u, 1);
    for (size_t i = 0; i < sizeof lattice / sizeof *lattice; i++)
        compare(lattice[i], 0, l, 1);
    compare("average_distance_pts", 0, s, 1);
    compare("average_distance_pts:min_points=301", 0, s, 1);
    compare("aidw:k=7:smoothing=1", 0, s, 1);
    /* no GPU kernel: more than 16 points a quadrant */
    compare("count:radius1=300:radius2=300:max_points_per_quadrant=17", 0, u, 0);
    compare_windows("aidw:radius1=400:radius2=400:max_points=12", 0, u);
    compare_windows("aidw", 0, l);
    compare_windows("invdistnn:radius=400:max_points=12:min_points_per_quadrant=1", 0, u);
    compare_windows("average_distance_pts:radius1=300:radius2=300", 0, u);
    compare_windows("average_distance_pts", 0, s);
}

/* A GPU with too little memory for a tile (simulated with
 * GRIDKIT_GPU_TILE_MEM) computes it in halves, with the same result; one
 * stream per GPU gives the same result as several. */
static void test_split(const char *spec, const dataset *d)
{
    gk_context *cc = gk_context_new(), *gc = gk_context_new();
    gk_algorithm *alg = gk_algorithm_parse(cc, spec);
    gk_context_set_device(cc, "cpu");
    gk_context_set_device(gc, "cuda");
    setenv("GRIDKIT_GPU_TILE_MEM", "40000", 1);
    gk_job *jc = gk_job_new(cc, d->pts, alg), *jg = gk_job_new(gc, d->pts, alg);
    int w = d->g.nx, h = d->g.ny, nb = jc ? gk_job_bands(jc) : 1;
    double *a = malloc((size_t)w * h * nb * sizeof *a), *b = malloc((size_t)w * h * nb * sizeof *b);
    int ra = jc ? gk_job_compute_window(jc, &d->g, 0, 0, w, h, a) : -1;
    int rb = jg ? gk_job_compute_window(jg, &d->g, 0, 0, w, h, b) : -1;
    unsetenv("GRIDKIT_GPU_TILE_MEM");
    CHECK(ra == GK_OK && rb == GK_OK, "%s: split run failed: %s", spec, gk_errmsg(gc));
    if (ra == GK_OK && rb == GK_OK) {
        uint64_t splits = gk_device_tile_splits(jg);
        size_t bad = 0;
        for (size_t i = 0; i < (size_t)w * h * nb; i++) {
            double e = fabs(a[i] - b[i]) / fmax(fabs(a[i]), d->zrange);
            bad += !(e <= 1e-9) && !(a[i] == b[i]);
        }
        CHECK(splits > 0, "%s: no tile was split under a 40000-byte limit", spec);
        CHECK(bad == 0, "%s: %zu of %zu values differ after splitting", spec, bad,
              (size_t)w * h * nb);
        printf("%s %-60s split %llu times, %zu values differ\n", bad || !splits ? "FAIL" : "ok  ",
               spec, (unsigned long long)splits, bad);
    }
    free(a);
    free(b);
    gk_job_free(jc);
    gk_job_free(jg);
    gk_algorithm_free(alg);
    gk_context_free(cc);
    gk_context_free(gc);
}

static void test_device_option(void)
{
    gk_context *ctx = gk_context_new();
    CHECK(gk_context_set_device(ctx, "bogus") == GK_ERR_ARG, "bad spec accepted");
    CHECK(strstr(gk_errmsg(ctx), "bogus") != NULL, "message: %s", gk_errmsg(ctx));
    CHECK(gk_context_set_device(ctx, "cuda:x") == GK_ERR_ARG, "cuda:x accepted");
    CHECK(gk_context_set_device(ctx, "cpu") == GK_OK, "cpu refused");
    CHECK(gk_context_set_device(ctx, "auto") == GK_OK, "auto refused");
    CHECK(gk_context_set_device(ctx, NULL) == GK_OK, "NULL refused");
    int rc = gk_context_set_device(ctx, "cuda:999");
    CHECK(rc == GK_ERR_UNSUPPORTED, "cuda:999 gave %d", rc);

    /* GRIDKIT_DEVICE when no device is set */
    gk_points *p = gk_points_new(ctx);
    gk_points_add(p, 0, 0, 1);
    gk_points_add(p, 1, 1, 2);
    gk_algorithm *alg = gk_algorithm_parse(ctx, "nearest");
    setenv("GRIDKIT_DEVICE", "cpu", 1);
    gk_job *job = gk_job_new(ctx, p, alg);
    CHECK(job && !strcmp(gk_context_device_name(ctx), "cpu"), "GRIDKIT_DEVICE=cpu: %s",
          gk_context_device_name(ctx));
    gk_job_free(job);
    setenv("GRIDKIT_DEVICE", "nonsense", 1);
    job = gk_job_new(ctx, p, alg);
    CHECK(!job && gk_errno(ctx) == GK_ERR_ARG, "GRIDKIT_DEVICE=nonsense accepted");
    gk_job_free(job);
    unsetenv("GRIDKIT_DEVICE");
    /* auto always works: the GPU, or the CPU with the reason */
    job = gk_job_new(ctx, p, alg);
    CHECK(job != NULL, "auto: %s", gk_errmsg(ctx));
    printf("auto runs on: %s\n", gk_context_device_name(ctx));
    gk_job_free(job);
    gk_algorithm_free(alg);
    gk_points_free(p);
    gk_context_free(ctx);
}

int main(void)
{
    test_device_option();

    gk_context *ctx = gk_context_new();
    if (gk_context_set_device(ctx, "cuda") != GK_OK) {
        CHECK(gk_errno(ctx) == GK_ERR_UNSUPPORTED, "cuda: code %d", gk_errno(ctx));
        printf("no usable GPU (%s): GPU comparisons skipped\n", gk_errmsg(ctx));
        gk_context_free(ctx);
        return failures ? 1 : 77;
    }
    dataset u = make_utm(ctx), l = make_lattice(ctx), sm = make_small(ctx);

    static const char *both[] = {
        "invdist",
        "invdist:power=3:smoothing=5",
        "invdist:power=1",
        "invdistnn:radius=400:max_points=16",
        "invdistnn:radius=300:max_points=0:min_points=3",
        "invdistnn:power=3:smoothing=2:radius=500:max_points=40:min_points=20",
        "invdistnn:radius=250:max_points=1",
        "invdistnn:radius=700:max_points=64",
        "invdist:radius1=600:radius2=300:angle=30:max_points=10",
        "invdist:radius1=400:radius2=400:max_points=12:min_points=4",
        "invdist:radius1=300:radius2=500:angle=-15",
        "nearest",
        "nearest:radius1=150:radius2=150",
        "nearest:radius1=300:radius2=120:angle=60",
        "average:radius1=300:radius2=300",
        "average:radius1=500:radius2=200:angle=20:min_points=5",
        "count:radius1=250:radius2=250",
        "minimum:radius1=300:radius2=300",
        "maximum:radius1=300:radius2=200:angle=45",
        "range:radius1=300:radius2=300:min_points=3",
        "average_distance:radius1=300:radius2=300",
        "average",
    };
    static const char *lattice[] = {
        "invdist",
        "invdist:power=2:smoothing=0.5",
        "invdistnn:radius=2.5:max_points=12",
        "invdistnn:radius=1.5:max_points=4",
        "invdistnn:radius=3:max_points=0",
        "nearest",
        "nearest:radius1=1:radius2=1",
        "nearest:radius1=2:radius2=1:angle=45",
        "average:radius1=1.5:radius2=1.5",
        "count:radius1=1:radius2=1",
        "range:radius1=2:radius2=1:angle=90",
        "average_distance:radius1=2:radius2=2",
    };
    for (size_t i = 0; i < sizeof both / sizeof *both; i++)
        compare(both[i], 0, &u, 1);
    compare("invdist", 1, &u, 1);
    compare("invdist:power=3:smoothing=5", 1, &u, 1);
    compare("invdist:power=1", 1, &u, 1);
    compare("invdistnn:radius=400:max_points=16", 1, &u, 1);
    for (size_t i = 0; i < sizeof lattice / sizeof *lattice; i++)
        compare(lattice[i], 0, &l, 1);
    compare("invdist", 1, &l, 1);
    /* no GPU kernel yet: the CPU runs them, and says so */
    compare("invdistnn:radius=400:max_points=100", 0, &u, 0);
    test_extra(&u, &l, &sm);

    /* kriging (estimate and variance) */
    static const char *krige[] = {
        "kriging:model=Exp:psill=60:range=500:nugget=5:max_points=16",
        "kriging:model=Sph:psill=600:range=1500:max_points=32",
        "kriging:model=Gau:psill=600:range=900:nugget=2:max_points=8",
        "kriging:type=simple:mean=100:model=Exp:psill=600:range=800:nugget=5:max_points=12",
        "kriging:drift=linear:model=Exp:psill=60:range=700:nugget=5:max_points=20:radius=400:"
        "min_points=5",
        "kriging:model=Sph:psill=600:range=1200:nugget=1:anis_angle=30:anis_ratio=0.5:"
        "max_points=16",
        "kriging:model=Exp:psill=60:range=500:nugget=5:max_points=64",
        "kriging:model=Exp:psill=60:range=500:nugget=5:max_points=16:radius=120:min_points=4",
    };
    for (size_t i = 0; i < sizeof krige / sizeof *krige; i++)
        compare_krige(krige[i], 0, &u, 1);
    /* k = 24: the 32-lane solve with rows beyond the neighbours */
    compare_krige("kriging:model=Exp:psill=60:range=500:nugget=5:max_points=24", 0, &u, 1);
    compare_krige("kriging:model=Exp:psill=60:range=500:nugget=5:max_points=24", 1, &u, 1);
    /* the fused lane-group kernel (k > 32), forced for smaller k */
    setenv("GRIDKIT_GPU_KRIGE_MODE", "2", 1);
    compare_krige(krige[0], 0, &u, 1);
    compare_krige(krige[3], 0, &u, 1);
    compare_krige(krige[4], 1, &u, 1);
    unsetenv("GRIDKIT_GPU_KRIGE_MODE");
    compare_krige(krige[0], 1, &u, 1);
    compare_krige(krige[1], 1, &u, 1); /* Sph without nugget, k = 32: float's hardest case */
    compare_krige(krige[2], 1, &u, 1);
    compare_krige(krige[3], 1, &u, 1);
    compare_krige(krige[4], 1, &u, 1);
    compare_krige("kriging:model=Exp:psill=10:range=5:max_points=8", 0, &l, 1);
    compare_krige("kriging:model=Exp:psill=10:range=5:nugget=1:max_points=16", 0, &l, 1);
    compare_krige("kriging:type=simple:mean=0:model=Sph:psill=10:range=6:nugget=1:max_points=6:"
                  "radius=1.2",
                  0, &l, 1);
    /* no GPU kernel yet: the CPU runs them, and says so */
    compare_krige("kriging:model=Exp:psill=60:range=500:nugget=5:max_points=16:"
                  "max_points_per_quadrant=4",
                  0, &u, 0);
    compare_krige("kriging:model=Exp:psill=60:range=500:nugget=5:max_points=8:block=50x50", 0, &u,
                  0);
    compare_variogram(&u, 20, 0, 0, 0);
    compare_variogram(&u, 15, 4, 0, 0);
    compare_variogram(&u, 12, 2, 1, 300);
    compare_variogram(&l, 10, 0, 0, 0);
    compare_variogram(&l, 10, 4, 0, 0);

    test_split("invdistnn:radius=400:max_points=16", &u);
    test_split("invdist", &u);
    test_split("kriging:model=Exp:psill=60:range=500:nugget=5:max_points=16", &u);
    setenv("GRIDKIT_GPU_STREAMS", "1", 1);
    compare("invdistnn:radius=400:max_points=16", 0, &u, 1);
    compare_krige("kriging:model=Exp:psill=60:range=500:nugget=5:max_points=16", 0, &u, 1);
    unsetenv("GRIDKIT_GPU_STREAMS");
    compare_windows("invdist", 0, &u);
    compare_windows("invdist", 1, &u);
    compare_windows("invdistnn:radius=400:max_points=16", 0, &u);
    compare_windows("average:radius1=300:radius2=300", 0, &u);
    compare_windows("kriging:model=Exp:psill=60:range=500:nugget=5:max_points=16:variance=no", 0,
                    &u);

    gk_points_free(u.pts);
    gk_points_free(l.pts);
    gk_points_free(sm.pts);
    gk_context_free(ctx);
    printf("%s\n", failures ? "FAILED" : "all GPU comparisons passed");
    return failures ? 1 : 0;
}
