/* SPDX-License-Identifier: MIT */
/* gpu_harness.c - the comparisons every GPU test file makes: a job on the
 * CPU and on the GPU over the same data, through the tile engine, odd windows
 * and split tiles, and the test's data sets. */
#include "gpu_harness.h"

#include "core/device.h"
#include "bench/bench_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int failures, checks;
uint64_t last_dense, last_shared;

/* spec in the precision asked for; NULL (a failure counted, ctx freed) when
 * it does not parse. */
static gk_algorithm *parse_alg(gk_context *ctx, const char *spec, int single)
{
    gk_algorithm *alg = gk_algorithm_parse(ctx, spec);
    if (!alg) {
        printf("FAIL parse %s: %s\n", spec, gk_errmsg(ctx));
        failures++;
        gk_context_free(ctx);
        return NULL;
    }
    gk_algorithm_set_precision(alg, single ? GK_PRECISION_SINGLE : GK_PRECISION_DOUBLE);
    return alg;
}

uint64_t last_lowered;

/* Runs spec on one device over the whole grid; NULL when the job fails. */
double *run(const char *device, const char *spec, int single, const dataset *d, char *devname,
            size_t cap)
{
    gk_context *ctx = gk_context_new();
    gk_algorithm *alg = parse_alg(ctx, spec, single);
    if (!alg)
        return NULL;
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
            gk_run_stats st;
            memset(&st, 0, sizeof st);
            gk_job_stats(job, &st);
            last_lowered = st.lowered_nodes;
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

int same_nodata(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

/* Compares the GPU with the CPU on one algorithm and data set. */
void compare(const char *spec, int single, const dataset *d, int expect_gpu)
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
    CHECKF(on_gpu == expect_gpu, "%s: ran on '%s'", spec, gpu_name);
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

double ked_value(int r, double s, double x, double y)
{
    return r == 0   ? sin(x / (97.0 * s)) * cos(y / (113.0 * s))
           : r == 1 ? cos((x + 2.0 * y) / (61.0 * s))
           : r == 2 ? sin((x - y) / (41.0 * s)) + 0.5 * cos(y / (29.0 * s))
                    : cos(x / (53.0 * s)) * sin((x + y) / (71.0 * s));
}

int ked_sampler(void *user, size_t n, const double *x, const double *y, double *out)
{
    const ked_cov *c = user;
    for (int r = 0; r < c->nr; r++)
        for (size_t i = 0; i < n; i++)
            out[(size_t)r * n + i] = x[i] < c->xmin ? NAN : ked_value(r, c->s, x[i], y[i]);
    return 0;
}

/* The covariates at the points (no NaN there: points left of xmin keep theirs). */
int set_covariates(gk_job *job, const dataset *d, const ked_cov *c)
{
    size_t n = gk_points_count(d->pts);
    const double *x = gk_points_x(d->pts), *y = gk_points_y(d->pts);
    double *gv = malloc((size_t)c->nr * n * sizeof *gv);
    for (int r = 0; r < c->nr; r++)
        for (size_t i = 0; i < n; i++)
            gv[(size_t)r * n + i] = ked_value(r, c->s, x[i], y[i]);
    int rc = gk_job_set_drift(job, c->nr, gv, ked_sampler, (void *)c);
    free(gv);
    return rc;
}

/* The covariates of a data set: one per drift_raster= key of spec. */
ked_cov ked_of(const char *spec, const dataset *d)
{
    ked_cov c = {0, 1.0, 500000.0};
    for (const char *q = spec; (q = strstr(q, "drift_raster=")) != NULL; q++)
        c.nr++;
    if (!strcmp(d->name, "lattice"))
        c.s = 0.01, c.xmin = 0.75;
    else if (!strcmp(d->name, "global"))
        c.xmin = 0.0;
    return c;
}

/* The CPU job and the GPU job of one algorithm, with their contexts. */
static void free_job_pair(gk_job *jc, gk_job *jg, gk_algorithm *alg, gk_context *cc, gk_context *gc)
{
    gk_job_free(jc);
    gk_job_free(jg);
    gk_algorithm_free(alg);
    gk_context_free(cc);
    gk_context_free(gc);
}

/* The same algorithm through gk_job_compute_window on odd windows. */
void compare_windows(const char *spec, int single, const dataset *d)
{
    gk_context *cc = gk_context_new(), *gc = gk_context_new();
    gk_algorithm *alg = gk_algorithm_parse(cc, spec);
    gk_algorithm_set_precision(alg, single ? GK_PRECISION_SINGLE : GK_PRECISION_DOUBLE);
    gk_context_set_device(cc, "cpu");
    gk_context_set_device(gc, "cuda");
    gk_job *jc = gk_job_new(cc, d->pts, alg), *jg = gk_job_new(gc, d->pts, alg);
    ked_cov kc = ked_of(spec, d);
    if (kc.nr > 0) /* external drift: the same covariates on both */
        CHECKF(jc && jg && !set_covariates(jc, d, &kc) && !set_covariates(jg, d, &kc),
               "%s: external drift: %s / %s", spec, gk_errmsg(cc), gk_errmsg(gc));
    const int win[][4] = {{0, 0, 1, 1}, {d->g.nx - 7, d->g.ny - 3, 7, 3}, {5, 11, 33, 17}};
    for (int k = 0; k < 3; k++) {
        int w = win[k][2], h = win[k][3];
        double *a = malloc((size_t)w * h * sizeof *a), *b = malloc((size_t)w * h * sizeof *b);
        int ra = gk_job_compute_window(jc, &d->g, win[k][0], win[k][1], w, h, a);
        int rb = gk_job_compute_window(jg, &d->g, win[k][0], win[k][1], w, h, b);
        CHECKF(ra == GK_OK && rb == GK_OK, "%s window %d: %s / %s", spec, k, gk_errmsg(cc),
               gk_errmsg(gc));
        for (int i = 0; i < w * h && !ra && !rb; i++) {
            double tol = single ? 1e-5 * d->zrange : 1e-9 * fmax(fabs(a[i]), d->zrange);
            CHECKF(same_nodata(a[i], b[i]) || fabs(a[i] - b[i]) <= tol,
                   "%s window %d node %d: cpu %.17g gpu %.17g", spec, k, i, a[i], b[i]);
        }
        free(a);
        free(b);
    }
    free_job_pair(jc, jg, alg, cc, gc);
}

int sink2(void *user, int x0, int y0, int w, int h, int nbands, const double *values)
{
    raster2 *r = user;
    for (int b = 0; b < nbands && b < 2; b++)
        for (int j = 0; j < h; j++)
            memcpy(r->v + (size_t)b * r->nx * r->ny + (size_t)(y0 + j) * r->nx + x0,
                   values + (size_t)b * w * h + (size_t)j * w, w * sizeof(double));
    return 0;
}

double *run2(const char *device, const char *spec, int single, const dataset *d, char *devname,
             size_t cap, uint64_t *singular)
{
    gk_context *ctx = gk_context_new();
    gk_algorithm *alg = parse_alg(ctx, spec, single);
    if (!alg)
        return NULL;
    double *v = NULL;
    gk_context_set_device(ctx, device);
    gk_job *job = gk_job_new(ctx, d->pts, alg);
    ked_cov kc = ked_of(spec, d);
    if (job && kc.nr > 0 && set_covariates(job, d, &kc)) {
        gk_job_free(job);
        job = NULL;
    }
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
        last_dense = gk_device_dense_nodes(job);
        last_shared = job->shared_nodes;
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
 * relative to the largest variance; the same nodata and singular counts.
 * c: the reference (the CPU), g: the GPU; 2 n values each. */
void check_bands(const char *spec, const char *vs, int single, const dataset *d, const double *c,
                 const double *g, uint64_t cs, uint64_t gs, int on_gpu)
{
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
    printf("%-4s %-66s %-6s %-8s est %.2e var %.2e singular %llu/%llu%s%s\n", bad ? "FAIL" : "ok",
           spec, single ? "single" : "double", on_gpu ? "gpu" : "cpu", worst[0], worst[1],
           (unsigned long long)cs, (unsigned long long)gs, vs, bad ? " <--" : "");
    if (bad) {
        printf("     %zu values differ; first at %zu: ref %.17g gpu %.17g\n", bad, worst_at,
               c[worst_at], g[worst_at]);
        failures++;
    }
}

void compare_krige(const char *spec, int single, const dataset *d, int expect_gpu)
{
    char cn[800] = "", gn[800] = "";
    uint64_t cs = 0, gs = 0;
    double *c = run2("cpu", spec, single, d, cn, sizeof cn, &cs);
    double *g = run2("cuda", spec, single, d, gn, sizeof gn, &gs);
    if (c && g) {
        int on_gpu = !strncmp(gn, "cuda", 4);
        CHECKF(on_gpu == expect_gpu, "%s: ran on '%s'", spec, gn);
        check_bands(spec, "", single, d, c, g, cs, gs, on_gpu);
    }
    free(c);
    free(g);
}

void seed_datasets(unsigned long long seed) { urand_seed(seed); }

void set_zrange(dataset *d)
{
    double zmin = INFINITY, zmax = -INFINITY;
    for (size_t i = 0; i < gk_points_count(d->pts); i++) {
        zmin = fmin(zmin, gk_points_z(d->pts)[i]);
        zmax = fmax(zmax, gk_points_z(d->pts)[i]);
    }
    d->zrange = zmax > zmin ? zmax - zmin : 1.0;
}

dataset make_utm(gk_context *ctx)
{
    dataset d = {.name = "utm", .pts = gk_points_new(ctx)};
    int n = 20000;
    for (int i = 0; i < n; i++) {
        double x = 500000.0 + 10000.0 * urand(), y = 5000000.0 + 10000.0 * urand();
        double z = 100.0 + 50.0 * sin(x / 900.0) * cos(y / 1300.0) + 5.0 * urand();
        gk_points_add(d.pts, x, y, z);
    }
    set_zrange(&d);
    gk_grid g = {499800.0, 510300.0, 4999900.0, 5010150.0, 157, 131};
    d.g = g;
    return d;
}

/* Integer lattice with duplicates; nodes fall on lattice points (exact hits)
 * and many distances tie exactly (ties by input order). Z of mixed sign. */
dataset make_lattice(gk_context *ctx)
{
    dataset d = {.name = "lattice", .pts = gk_points_new(ctx)};
    for (int j = 0; j <= 40; j++)
        for (int i = 0; i <= 40; i++) {
            if ((i * 7 + j * 3) % 11 == 0)
                continue; /* holes */
            double z = sin(i * 0.7) * 10.0 + cos(j * 0.3) * 7.0;
            gk_points_add(d.pts, i, j, z);
            if ((i + j) % 9 == 0) /* a duplicate with another Z */
                gk_points_add(d.pts, i, j, z + 3.0);
        }
    set_zrange(&d);
    gk_grid g = {-0.25, 40.25, -0.25, 40.25, 81, 81}; /* nodes at 0, 0.5, 1, ... */
    d.g = g;
    return d;
}

/* Few points on a small grid: the windowless pair statistic is O(n^2) a node. */
dataset make_small(gk_context *ctx)
{
    dataset d = {.name = "small", .pts = gk_points_new(ctx)};
    for (int i = 0; i < 300; i++) {
        double x = 1000.0 * urand(), y = 600.0 * urand(), z = 20.0 * urand() - 5.0;
        gk_points_add(d.pts, x, y, z);
    }
    set_zrange(&d);
    gk_grid g = {-50.0, 1050.0, -30.0, 630.0, 41, 29};
    d.g = g;
    return d;
}

/* A GPU with too little memory for a tile (simulated with
 * GRIDKIT_GPU_TILE_MEM) computes it in halves, with the same result; one
 * stream per GPU gives the same result as several. */
void test_split(const char *spec, const dataset *d)
{
    gk_context *cc = gk_context_new(), *gc = gk_context_new();
    gk_algorithm *alg = gk_algorithm_parse(cc, spec);
    gk_context_set_device(cc, "cpu");
    gk_context_set_device(gc, "cuda");
    setenv("GRIDKIT_GPU_TILE_MEM", "40000", 1);
    gk_job *jc = gk_job_new(cc, d->pts, alg), *jg = gk_job_new(gc, d->pts, alg);
    ked_cov kc = ked_of(spec, d);
    if (kc.nr > 0) /* external drift: a split tile takes its part of the covariates */
        CHECKF(jc && jg && !set_covariates(jc, d, &kc) && !set_covariates(jg, d, &kc),
               "%s: external drift: %s / %s", spec, gk_errmsg(cc), gk_errmsg(gc));
    int w = d->g.nx, h = d->g.ny, nb = jc ? gk_job_bands(jc) : 1;
    double *a = malloc((size_t)w * h * nb * sizeof *a), *b = malloc((size_t)w * h * nb * sizeof *b);
    int ra = jc ? gk_job_compute_window(jc, &d->g, 0, 0, w, h, a) : -1;
    int rb = jg ? gk_job_compute_window(jg, &d->g, 0, 0, w, h, b) : -1;
    unsetenv("GRIDKIT_GPU_TILE_MEM");
    CHECKF(ra == GK_OK && rb == GK_OK, "%s: split run failed: %s", spec, gk_errmsg(gc));
    if (ra == GK_OK && rb == GK_OK) {
        uint64_t splits = gk_device_tile_splits(jg);
        size_t bad = 0;
        for (size_t i = 0; i < (size_t)w * h * nb; i++) {
            double e = fabs(a[i] - b[i]) / fmax(fabs(a[i]), d->zrange);
            bad += !(e <= 1e-9) && !(a[i] == b[i]);
        }
        CHECKF(splits > 0, "%s: no tile was split under a 40000-byte limit", spec);
        CHECKF(bad == 0, "%s: %zu of %zu values differ after splitting", spec, bad,
               (size_t)w * h * nb);
        printf("%s %-60s split %llu times, %zu values differ\n", bad || !splits ? "FAIL" : "ok  ",
               spec, (unsigned long long)splits, bad);
    }
    free(a);
    free(b);
    free_job_pair(jc, jg, alg, cc, gc);
}

/* xorshift64 on a state of the caller's: the global, linear and large data
 * sets draw from generators of their own (the others' stay as they were). */
double grand(unsigned long long *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* ---- tables of cases -------------------------------------------------------- */

void compare_each(const char *const *specs, size_t n, int single, const dataset *d)
{
    for (size_t i = 0; i < n; i++)
        compare(specs[i], single, d, 1);
}

void krige_each(const char *const *specs, size_t n, int single, const dataset *d)
{
    for (size_t i = 0; i < n; i++)
        compare_krige(specs[i], single, d, 1);
}

void compare_cases(const gpu_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        compare(c[i].spec, c[i].single, c[i].d, 1);
}

void krige_cases(const gpu_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        compare_krige(c[i].spec, c[i].single, c[i].d, 1);
}

void windows_cases(const gpu_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        compare_windows(c[i].spec, c[i].single, c[i].d);
}

/* compare(), then every node bit for bit (the methods whose GPU code is the
 * CPU's, uncontracted: linear, natural, shepard); exact 0: the count of
 * nodes that differ is printed, not failed. */
void compare_bits(const char *spec, const dataset *d, int exact)
{
    char cn[800] = "", gn[800] = "";
    compare(spec, 0, d, 1);
    double *c = run("cpu", spec, 0, d, cn, sizeof cn);
    double *g = run("cuda", spec, 0, d, gn, sizeof gn);
    if (c && g) {
        size_t n = (size_t)d->g.nx * d->g.ny, diff = 0, first = 0;
        for (size_t i = 0; i < n; i++)
            if (memcmp(c + i, g + i, sizeof *c) && !(isnan(c[i]) && isnan(g[i])))
                if (!diff++)
                    first = i;
        printf("%-4s %-66s %s: %zu of %zu nodes not bit-identical\n", diff && exact ? "FAIL" : "ok",
               spec, d->name, diff, n);
        if (diff && exact) {
            printf("     first at node (%zu, %zu): cpu %.17g gpu %.17g\n", first % d->g.nx,
                   first / d->g.nx, c[first], g[first]);
            failures++;
        }
    } else {
        printf("FAIL %-66s %s: a run failed\n", spec, d->name);
        failures++;
    }
    free(c);
    free(g);
}

/* That the GPU took the nodes, not the CPU after it (the methods whose CPU
 * finishes a GPU tile: linear, natural): the nodes left to the CPU are
 * within lo..hi of the grid's (fractions). */
void cpu_rest_share(const char *spec, const dataset *d, double lo, double hi)
{
    gk_context *gc = gk_context_new();
    gk_algorithm *alg = gk_algorithm_parse(gc, spec);
    gk_context_set_device(gc, "cuda");
    gk_job *jg = gk_job_new(gc, d->pts, alg);
    size_t n = (size_t)d->g.nx * d->g.ny;
    double *v = malloc(n * sizeof *v);
    int rc = jg ? gk_job_compute_window(jg, &d->g, 0, 0, d->g.nx, d->g.ny, v) : -1;
    CHECKF(rc == GK_OK, "%s: %s", spec, gk_errmsg(gc));
    if (rc == GK_OK) {
        double f = (double)gk_device_linear_rest(jg) / (double)n;
        int ok = f >= lo && f <= hi;
        printf("%-4s %-66s %s: %.4f of the nodes left to the CPU (%g .. %g)\n", ok ? "ok" : "FAIL",
               spec, d->name, f, lo, hi);
        failures += !ok;
    }
    free(v);
    gk_job_free(jg);
    gk_algorithm_free(alg);
    gk_context_free(gc);
}
