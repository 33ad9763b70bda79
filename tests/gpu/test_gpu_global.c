/* SPDX-License-Identifier: MIT */
/* test_gpu_global.c - global kriging (max_points=0, no radius: cuSOLVER on
 * the GPU) against a reference of the test's own (long double), which is
 * checked against the CPU first, so that machines whose CPU build has no
 * global kriging still check the GPU; against the CPU too where it has it
 * (part of test_gpu). */
#include "gpu_harness.h"

#include "core/device.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An independent reference: the textbook GLS system (dual form, Schur
 * complement of the drift) in long double with unblocked Cholesky, for
 * machines whose CPU build has no LAPACK (it then has no global kriging)
 * and checked against the CPU where it has one. */
typedef struct {
    const char *spec;
    int type;    /* 0 ordinary, 1 simple, 2 universal with a linear drift */
    double mean; /* simple */
    /* 'E'xp, 'S'ph, 'G'au, 'M'at and S'T'e at kappa 3/2 (closed forms), e'X'c
     * at kappa 1.3, 'C'ir, 'P'en, 'L'in (range 0: unbounded), 'W' Pow, 'H'ol */
    char model;
    double psill, range, nugget;
    double angle, ratio; /* gstat's anisotropy; ratio 1: none */
} gref;

/* gamma at distance h > 0, the nugget included */
static long double ref_gamma(const gref *r, long double h)
{
    const long double pi = 3.14159265358979323846264L;
    long double u = h / r->range, t, g;
    switch (r->model) {
    case 'E':
        g = 1.0L - expl(-u);
        break;
    case 'G':
        g = 1.0L - expl(-u * u);
        break;
    case 'M': /* 1 - 2^(1-k) / Gamma(k) u^k K_k(u) at k = 3/2 */
        g = 1.0L - (1.0L + u) * expl(-u);
        break;
    case 'T': /* the same in t = 2 sqrt(k) u */
        t = 2.0L * sqrtl(1.5L) * u;
        g = 1.0L - (1.0L + t) * expl(-t);
        break;
    case 'X':
        g = 1.0L - expl(-powl(u, 1.3L));
        break;
    case 'C':
        g = u >= 1.0L ? 1.0L : 2.0L / pi * (u * sqrtl(1.0L - u * u) + asinl(u));
        break;
    case 'P':
        g = u >= 1.0L ? 1.0L : u * (1.875L - 1.25L * u * u + 0.375L * u * u * u * u);
        break;
    case 'L':
        g = r->range == 0.0 ? h : u >= 1.0L ? 1.0L : u;
        break;
    case 'W':
        g = powl(h, r->range);
        break;
    case 'H':
        g = 1.0L - sinl(u) / u;
        break;
    default:
        g = u >= 1.0L ? 1.0L : u * (1.5L - 0.5L * u * u);
    }
    return r->psill * g + r->nugget;
}

/* C(0): the sill, or for an unbounded model a pseudo-sill above every gamma
 * of the test's extents (estimates and variances do not depend on it) */
static long double ref_sill(const gref *r)
{
    if (r->model == 'W' || (r->model == 'L' && r->range == 0.0))
        return 2.0L * ref_gamma(r, 3000.0L);
    return (long double)r->psill + r->nugget;
}

static long double ref_cov(const gref *r, double dx, double dy)
{
    if (dx == 0.0 && dy == 0.0)
        return ref_sill(r);
    long double h;
    if (r->ratio != 1.0) { /* gstat: angle clockwise from north, minor axis ratio */
        long double a = (r->angle < 270.0 ? 90.0L - r->angle : 450.0L - r->angle) *
                        (3.14159265358979323846264L / 180.0L);
        long double t0 = cosl(a) * dx + sinl(a) * dy;
        long double t1 = (-sinl(a) * dx + cosl(a) * dy) / r->ratio;
        h = sqrtl(t0 * t0 + t1 * t1);
    } else {
        h = sqrtl((long double)dx * dx + (long double)dy * dy);
    }
    return ref_sill(r) - ref_gamma(r, h);
}

/* In-place lower Cholesky (row-major, n x n); 0, or -1 when not positive definite. */
static int ref_chol(long double *a, int n)
{
    for (int j = 0; j < n; j++) {
        long double s = a[(size_t)j * n + j];
        for (int k = 0; k < j; k++)
            s -= a[(size_t)j * n + k] * a[(size_t)j * n + k];
        if (!(s > 1e-13L * a[(size_t)j * n + j]))
            return -1;
        s = sqrtl(s);
        a[(size_t)j * n + j] = s;
        for (int i = j + 1; i < n; i++) {
            long double t = a[(size_t)i * n + j];
            for (int k = 0; k < j; k++)
                t -= a[(size_t)i * n + k] * a[(size_t)j * n + k];
            a[(size_t)i * n + j] = t / s;
        }
    }
    return 0;
}

static void ref_fwd(const long double *l, int n, long double *b)
{
    for (int i = 0; i < n; i++) {
        long double t = b[i];
        for (int k = 0; k < i; k++)
            t -= l[(size_t)i * n + k] * b[k];
        b[i] = t / l[(size_t)i * n + i];
    }
}

static void ref_bwd(const long double *l, int n, long double *b)
{
    for (int i = n - 1; i >= 0; i--) {
        long double t = b[i];
        for (int k = i + 1; k < n; k++)
            t -= l[(size_t)k * n + i] * b[k];
        b[i] = t / l[(size_t)i * n + i];
    }
}

/* Both bands (estimate, then variance or zeros) over d's grid, or NULL when
 * the system is singular. */
static double *ref_global(const gref *r, const dataset *d, int want_var)
{
    const int n = (int)gk_points_count(d->pts), p = r->type == 0 ? 1 : r->type == 2 ? 3 : 0;
    const double *X = gk_points_x(d->pts), *Y = gk_points_y(d->pts), *Z = gk_points_z(d->pts);
    const size_t N = (size_t)d->g.nx * d->g.ny;
    long double *L = malloc((size_t)n * n * sizeof *L), *B = malloc((size_t)n * 4 * sizeof *B);
    long double *a = malloc((size_t)n * sizeof *a), *dual = malloc((size_t)n * sizeof *dual);
    double *out = malloc(2 * N * sizeof *out);
    long double S[9] = {0}, beta[3] = {0}, xm = 0, ym = 0, sc = 0;
    for (int i = 0; i < n; i++)
        xm += X[i], ym += Y[i];
    xm /= n, ym /= n;
    for (int i = 0; i < n; i++)
        sc = fmaxl(sc, fmaxl(fabsl(X[i] - xm), fabsl(Y[i] - ym)));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            L[(size_t)i * n + j] = ref_cov(r, X[i] - X[j], Y[i] - Y[j]);
    if (ref_chol(L, n)) {
        free(L), free(B), free(a), free(dual), free(out);
        return NULL;
    }
    /* B = L^-1 F (column c at B + c n), dual = L^-1 (z - mean) */
    for (int i = 0; i < n; i++) {
        dual[i] = Z[i] - (r->type == 1 ? r->mean : 0.0);
        B[i] = 1.0L;
        B[n + i] = (X[i] - xm) / sc;
        B[2 * n + i] = (Y[i] - ym) / sc;
    }
    ref_fwd(L, n, dual);
    for (int c = 0; c < p; c++)
        ref_fwd(L, n, B + (size_t)c * n);
    if (p) { /* S = B'B (its Cholesky in place), beta = S^-1 B'dual */
        for (int c = 0; c < p; c++) {
            for (int e = 0; e < p; e++) {
                long double s = 0;
                for (int i = 0; i < n; i++)
                    s += B[(size_t)c * n + i] * B[(size_t)e * n + i];
                S[c * p + e] = s;
            }
            for (int i = 0; i < n; i++)
                beta[c] += B[(size_t)c * n + i] * dual[i];
        }
        if (ref_chol(S, p)) {
            free(L), free(B), free(a), free(dual), free(out);
            return NULL;
        }
        ref_fwd(S, p, beta);
        ref_bwd(S, p, beta);
        for (int c = 0; c < p; c++)
            for (int i = 0; i < n; i++)
                dual[i] -= B[(size_t)c * n + i] * beta[c];
    }
    ref_bwd(L, n, dual);
    for (size_t q = 0; q < N; q++) {
        double x0 = gk_grid_node_x(&d->g, (int)(q % d->g.nx));
        double y0 = gk_grid_node_y(&d->g, (int)(q / d->g.nx));
        long double f0[3] = {1.0L, (x0 - xm) / sc, (y0 - ym) / sc}, e = 0, v = 0;
        for (int i = 0; i < n; i++) {
            a[i] = ref_cov(r, X[i] - x0, Y[i] - y0);
            e += a[i] * dual[i];
        }
        for (int c = 0; c < p; c++)
            e += f0[c] * beta[c];
        if (p == 0)
            e += r->mean;
        if (want_var) {
            ref_fwd(L, n, a);
            v = ref_sill(r);
            for (int i = 0; i < n; i++)
                v -= a[i] * a[i];
            long double rr[3], t[3];
            for (int c = 0; c < p; c++) {
                long double s = 0;
                for (int i = 0; i < n; i++)
                    s += B[(size_t)c * n + i] * a[i];
                rr[c] = t[c] = f0[c] - s;
            }
            if (p) {
                ref_fwd(S, p, t);
                ref_bwd(S, p, t);
                for (int c = 0; c < p; c++)
                    v += rr[c] * t[c];
            }
            if (v < 0)
                v = 0;
        }
        out[q] = (double)e;
        out[N + q] = (double)v;
    }
    free(L), free(B), free(a), free(dual);
    return out;
}

/* Scattered points with a smooth trend, from a generator of their own (the
 * other data sets' stay as they were). */
static dataset make_global(gk_context *ctx, int n, unsigned long long seed)
{
    dataset d = {.name = "global", .pts = gk_points_new(ctx)};
    for (int i = 0; i < n; i++) {
        double x = 1000.0 * grand(&seed), y = 600.0 * grand(&seed);
        double z = 10.0 + 0.01 * x - 0.005 * y + 4.0 * sin(x / 150.0) * cos(y / 110.0) +
                   2.0 * grand(&seed);
        gk_points_add(d.pts, x, y, z);
    }
    set_zrange(&d);
    gk_grid g = {-50.0, 1050.0, -30.0, 630.0, 41, 29};
    d.g = g;
    return d;
}

/* Does this build's CPU have global kriging? Where it has none, the GPU is
 * held against the test's own reference only. */
static int cpu_global_kriging(void)
{
    gk_context *ctx = gk_context_new();
    gk_points *p = gk_points_new(ctx);
    gk_points_add(p, 0, 0, 1);
    gk_points_add(p, 1, 0, 2);
    gk_points_add(p, 0, 1, 3);
    gk_algorithm *alg = gk_algorithm_parse(ctx, "kriging:model=Exp:psill=1:range=1");
    gk_context_set_device(ctx, "cpu");
    gk_job *job = gk_job_new(ctx, p, alg);
    int ok = job != NULL;
    if (!ok)
        printf("the CPU has no global kriging (%s): GPU global kriging is checked against the "
               "test's own reference\n",
               gk_errmsg(ctx));
    gk_job_free(job);
    gk_algorithm_free(alg);
    gk_points_free(p);
    gk_context_free(ctx);
    return ok;
}

/* device ("cpu" or "cuda") against the reference, and against the CPU where
 * it has global kriging. */
static void compare_global(const char *device, const gref *r, int single, const dataset *d,
                           int have_cpu)
{
    char gn[800] = "", cn[800] = "";
    uint64_t gs = 0, cs = 0;
    const int want_var = strstr(r->spec, "variance=no") == NULL;
    double *ref = ref_global(r, d, want_var);
    CHECKF(ref != NULL, "%s: the reference found the system singular", r->spec);
    double *g = run2(device, r->spec, single, d, gn, sizeof gn, &gs);
    int on_gpu = !strncmp(gn, "cuda", 4);
    CHECKF(on_gpu == !strcmp(device, "cuda"), "%s: ran on '%s'", r->spec, gn);
    if (ref && g)
        check_bands(r->spec, " vs ref", single, d, ref, g, 0, gs, on_gpu);
    if (have_cpu && g && strcmp(device, "cpu")) {
        double *c = run2("cpu", r->spec, single, d, cn, sizeof cn, &cs);
        if (c)
            check_bands(r->spec, " vs cpu", single, d, c, g, cs, gs, on_gpu);
        free(c);
    }
    free(ref);
    free(g);
}

/* A singular system (coincident points, with or without nugget): every node
 * nodata and counted singular, on the GPU as on the CPU. */
static void compare_global_singular(const char *spec, const dataset *d, int have_cpu)
{
    char gn[800] = "", cn[800] = "";
    uint64_t gs = 0, cs = 0;
    size_t n = (size_t)d->g.nx * d->g.ny, bad = 0;
    double *g = run2("cuda", spec, 0, d, gn, sizeof gn, &gs);
    if (!g)
        return;
    CHECKF(!strncmp(gn, "cuda", 4), "%s: ran on '%s'", spec, gn);
    for (size_t i = 0; i < 2 * n; i++)
        bad += g[i] != -9999.0;
    bad += gs != n;
    if (have_cpu) {
        double *c = run2("cpu", spec, 0, d, cn, sizeof cn, &cs);
        if (c)
            for (size_t i = 0; i < 2 * n; i++)
                bad += c[i] != g[i];
        bad += cs != gs;
        free(c);
    }
    printf("%-4s %-66s singular: %llu of %zu nodes (cpu %llu)%s\n", bad ? "FAIL" : "ok", spec,
           (unsigned long long)gs, n, (unsigned long long)cs, bad ? " <--" : "");
    if (bad)
        failures++;
    free(g);
}

/* Odd windows through gk_job_compute_window against the reference. */
static void compare_global_windows(const gref *r, const dataset *d)
{
    double *ref = ref_global(r, d, 1);
    gk_context *gc = gk_context_new();
    gk_algorithm *alg = gk_algorithm_parse(gc, r->spec);
    gk_context_set_device(gc, "cuda");
    gk_job *jg = gk_job_new(gc, d->pts, alg);
    CHECKF(jg && !strncmp(gk_context_device_name(gc), "cuda", 4), "%s: windows on '%s': %s",
           r->spec, gk_context_device_name(gc), gk_errmsg(gc));
    const int win[][4] = {{0, 0, 1, 1}, {d->g.nx - 7, d->g.ny - 3, 7, 3}, {5, 11, 33, 17}};
    size_t N = (size_t)d->g.nx * d->g.ny, bad = 0;
    double vmax = 0;
    for (size_t i = 0; ref && i < N; i++)
        vmax = fmax(vmax, ref[N + i]);
    for (int k = 0; k < 3 && jg && ref; k++) {
        int w = win[k][2], h = win[k][3];
        double *b = malloc((size_t)w * h * 2 * sizeof *b);
        int rb = gk_job_compute_window(jg, &d->g, win[k][0], win[k][1], w, h, b);
        CHECKF(rb == GK_OK, "%s window %d: %s", r->spec, k, gk_errmsg(gc));
        for (int j = 0; j < h && rb == GK_OK; j++)
            for (int i = 0; i < w; i++) {
                size_t q = (size_t)(win[k][1] + j) * d->g.nx + win[k][0] + i, o = (size_t)j * w + i;
                double e0 = fabs(b[o] - ref[q]) / fmax(fabs(ref[q]), d->zrange);
                double e1 = fabs(b[(size_t)w * h + o] - ref[N + q]) / vmax;
                bad += !(e0 <= 1e-9) + !(e1 <= 1e-9);
            }
        free(b);
    }
    printf("%-4s %-66s odd windows, %zu values differ\n", bad ? "FAIL" : "ok", r->spec, bad);
    if (bad)
        failures++;
    gk_job_free(jg);
    gk_algorithm_free(alg);
    gk_context_free(gc);
    free(ref);
}

/* A GPU too small for the tiles (GRIDKIT_GPU_TILE_MEM): split tiles, blocks
 * of a few nodes, the same values. */
static void compare_global_split(const gref *r, const dataset *d0)
{
    dataset d = *d0;
    gk_grid g = {-50.0, 1050.0, -30.0, 630.0, 101, 71};
    d.g = g;
    double *ref = ref_global(r, &d, 1);
    gk_context *gc = gk_context_new();
    gk_algorithm *alg = gk_algorithm_parse(gc, r->spec);
    gk_context_set_device(gc, "cuda");
    setenv("GRIDKIT_GPU_TILE_MEM", "40000", 1);
    gk_job *jg = gk_job_new(gc, d.pts, alg);
    size_t N = (size_t)g.nx * g.ny, bad = 0;
    double *b = malloc(2 * N * sizeof *b), vmax = 0;
    int rb = jg ? gk_job_compute_window(jg, &g, 0, 0, g.nx, g.ny, b) : -1;
    unsetenv("GRIDKIT_GPU_TILE_MEM");
    CHECKF(rb == GK_OK, "%s: split run failed: %s", r->spec, gk_errmsg(gc));
    uint64_t splits = jg ? gk_device_tile_splits(jg) : 0;
    for (size_t i = 0; ref && i < N; i++)
        vmax = fmax(vmax, ref[N + i]);
    for (size_t q = 0; ref && rb == GK_OK && q < N; q++) {
        double e0 = fabs(b[q] - ref[q]) / fmax(fabs(ref[q]), d.zrange);
        double e1 = fabs(b[N + q] - ref[N + q]) / vmax;
        bad += !(e0 <= 1e-9) + !(e1 <= 1e-9);
    }
    bad += splits == 0;
    printf("%-4s %-66s split %llu times, %zu values differ\n", bad ? "FAIL" : "ok", r->spec,
           (unsigned long long)splits, bad);
    if (bad)
        failures++;
    free(b);
    gk_job_free(jg);
    gk_algorithm_free(alg);
    gk_context_free(gc);
    free(ref);
}

/* Without cuSOLVER (GRIDKIT_GPU_CUSOLVER naming no library; run before any
 * global job has loaded it) "auto" computes on the CPU and says why. */
static void test_global_no_cusolver(const dataset *d)
{
    setenv("GRIDKIT_GPU_CUSOLVER", "/nonexistent/libcusolver.so.12", 1);
    gk_context *ctx = gk_context_new();
    gk_algorithm *alg = gk_algorithm_parse(ctx, "kriging:model=Exp:psill=20:range=200:nugget=2");
    gk_context_set_device(ctx, "auto");
    gk_job *job = gk_job_new(ctx, d->pts, alg); /* NULL where the CPU has no LAPACK */
    const char *name = gk_context_device_name(ctx);
    int ok = !strncmp(name, "cpu", 3) && strstr(name, "cuSOLVER") != NULL;
    printf("%-4s global kriging without cuSOLVER runs on: %s\n", ok ? "ok" : "FAIL", name);
    if (!ok)
        failures++;
    gk_job_free(job);
    gk_algorithm_free(alg);
    gk_context_free(ctx);
    unsetenv("GRIDKIT_GPU_CUSOLVER");
}

static const gref global_cases[] = {
    {"kriging:model=Exp:psill=20:range=200:nugget=2", 0, 0, 'E', 20, 200, 2, 0, 1},
    {"kriging:model=Exp:psill=20:range=200", 0, 0, 'E', 20, 200, 0, 0, 1},
    {"kriging:model=Gau:psill=20:range=150:nugget=1", 0, 0, 'G', 20, 150, 1, 0, 1},
    {"kriging:model=Sph:psill=20:range=300:nugget=1:anis_angle=30:anis_ratio=0.5", 0, 0, 'S', 20,
     300, 1, 30, 0.5},
    {"kriging:type=simple:mean=10:model=Sph:psill=20:range=250:nugget=1", 1, 10, 'S', 20, 250, 1, 0,
     1},
    {"kriging:type=simple:mean=10:model=Exp:psill=20:range=150", 1, 10, 'E', 20, 150, 0, 0, 1},
    {"kriging:drift=linear:model=Exp:psill=20:range=300:nugget=2", 2, 0, 'E', 20, 300, 2, 0, 1},
    {"kriging:drift=linear:model=Sph:psill=20:range=400", 2, 0, 'S', 20, 400, 0, 0, 1},
    {"kriging:model=Exp:psill=20:range=200:nugget=2:variance=no", 0, 0, 'E', 20, 200, 2, 0, 1},
    /* the other model types */
    {"kriging:model=Mat:psill=20:range=60:kappa=1.5:nugget=1", 0, 0, 'M', 20, 60, 1, 0, 1},
    {"kriging:model=Ste:psill=20:range=150:kappa=1.5:nugget=1:anis_angle=30:anis_ratio=0.5", 0, 0,
     'T', 20, 150, 1, 30, 0.5},
    {"kriging:drift=linear:model=Exc:psill=20:range=150:kappa=1.3:nugget=2", 2, 0, 'X', 20, 150, 2,
     0, 1},
    {"kriging:model=Cir:psill=20:range=300:nugget=1:anis_angle=120:anis_ratio=0.6", 0, 0, 'C', 20,
     300, 1, 120, 0.6},
    {"kriging:type=simple:mean=10:model=Pen:psill=20:range=350", 1, 10, 'P', 20, 350, 0, 0, 1},
    /* (bounded Lin is no covariance in 2-D: definite here at a short range) */
    {"kriging:model=Lin:psill=20:range=100:nugget=1", 0, 0, 'L', 20, 100, 1, 0, 1},
    {"kriging:model=Lin:psill=0.02:range=0:nugget=1", 0, 0, 'L', 0.02, 0, 1, 0, 1},
    {"kriging:drift=linear:model=Pow:psill=0.5:range=1.2:nugget=2", 2, 0, 'W', 0.5, 1.2, 2, 0, 1},
    {"kriging:model=Hol:psill=20:range=60:nugget=2", 0, 0, 'H', 20, 60, 2, 0, 1},
};
#define N_GLOBAL_CASES (sizeof global_cases / sizeof *global_cases)

/* Above 46,340 points (cuSOLVER's 64-bit API; the CPU's LAPACK stops there):
 * two clusters of 25,000 points farther apart than the range of a
 * compact-support model, so that the covariances across are exact zeros and
 * simple kriging near one cluster is simple kriging with its points alone,
 * which the GPU solves with the 32-bit API. 20 GB of GPU memory. */
static void test_global_large(void)
{
    const char *spec = "kriging:type=simple:mean=10:model=Sph:psill=16:range=200:nugget=1";
    gk_context *ctx = gk_context_new();
    dataset one = {.name = "one cluster", .pts = gk_points_new(ctx)};
    dataset two = {.name = "two clusters", .pts = gk_points_new(ctx)};
    unsigned long long seed = 0x2545F4914F6CDD1DULL;
    double zmin = INFINITY, zmax = -INFINITY;
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 25000; i++) {
            double x = 1000.0 * grand(&seed), y = 1000.0 * grand(&seed) + 5000.0 * c;
            double z = 10.0 + 3.0 * sin(x / 90.0) * cos(y / 70.0) + grand(&seed);
            gk_points_add(two.pts, x, y, z);
            if (c == 0) {
                gk_points_add(one.pts, x, y, z);
                zmin = fmin(zmin, z);
                zmax = fmax(zmax, z);
            }
        }
    one.zrange = two.zrange = zmax - zmin;
    gk_grid g = {0.0, 1000.0, 0.0, 1000.0, 33, 33}; /* over the first cluster */
    one.g = two.g = g;
    char n1[800] = "", n2[800] = "";
    uint64_t s1 = 0, s2 = 0;
    double *r1 = run2("cuda", spec, 0, &one, n1, sizeof n1, &s1);
    double *r2 = run2("cuda", spec, 0, &two, n2, sizeof n2, &s2);
    if (r1 && r2) {
        CHECKF(!strncmp(n1, "cuda", 4) && !strncmp(n2, "cuda", 4), "%s: ran on '%s' and '%s'", spec,
               n1, n2);
        check_bands(spec, " 50000 vs 25000 points", 0, &two, r1, r2, s1, s2,
                    !strncmp(n2, "cuda", 4));
    }
    free(r1);
    free(r2);
    gk_points_free(one.pts);
    gk_points_free(two.pts);
    gk_context_free(ctx);
}

/* The reference against the CPU (where it has LAPACK): runs without a GPU. */
void test_global_reference(void)
{
    if (!cpu_global_kriging())
        return;
    gk_context *ctx = gk_context_new();
    dataset d = make_global(ctx, 300, 0x9E3779B97F4A7C15ULL);
    for (size_t i = 0; i < N_GLOBAL_CASES; i++)
        compare_global("cpu", &global_cases[i], 0, &d, 0);
    gk_points_free(d.pts);
    gk_context_free(ctx);
}

void test_global(const dataset *lattice)
{
    int have_cpu = cpu_global_kriging();
    gk_context *ctx = gk_context_new();
    dataset d = make_global(ctx, 300, 0x9E3779B97F4A7C15ULL);
    /* global_cases' rows run again: blocks of 37 nodes, a little GPU memory */
    static const int cols37[] = {3, 4, 7, 0}, little_mem[] = {4, 6};
    test_global_no_cusolver(&d);
    for (size_t i = 0; i < N_GLOBAL_CASES; i++)
        compare_global("cuda", &global_cases[i], 0, &d, have_cpu);
    /* --precision single: global kriging stays double */
    compare_global("cuda", &global_cases[6], 1, &d, have_cpu);
    /* blocks of 37 nodes: several solves a tile, most starting past row 0
     * (points ordered by y, compact-support models) */
    setenv("GRIDKIT_GPU_KG_COLS", "37", 1);
    for (size_t i = 0; i < NCASES(cols37); i++)
        compare_global("cuda", &global_cases[cols37[i]], 0, &d, have_cpu);
    unsetenv("GRIDKIT_GPU_KG_COLS");
    /* a GPU with little memory: blocks of 16 nodes, then split tiles */
    setenv("GRIDKIT_GPU_TILE_MEM", "40000", 1);
    for (size_t i = 0; i < NCASES(little_mem); i++)
        compare_global("cuda", &global_cases[little_mem[i]], 0, &d, have_cpu);
    unsetenv("GRIDKIT_GPU_TILE_MEM");
    compare_global_split(&global_cases[6], &d);
    compare_global_windows(&global_cases[6], &d);
    compare_global_windows(&global_cases[3], &d);
    /* the lattice's coincident points: singular with or without nugget */
    static const char *singular[] = {
        "kriging:model=Exp:psill=10:range=5:nodata=-9999",
        "kriging:model=Exp:psill=10:range=5:nugget=1:nodata=-9999",
        "kriging:drift=linear:model=Sph:psill=10:range=8:nodata=-9999",
    };
    for (size_t i = 0; i < NCASES(singular); i++)
        compare_global_singular(singular[i], lattice, have_cpu);
    /* a nested model of the other types: against the CPU only */
    if (have_cpu)
        compare_krige("kriging:model=Nug(1)+Sph(10,300)+Mat(10,100,2.5)@45/0.5+Pow(0.01,1)", 0, &d,
                      1);
    /* cuSOLVER's and cuBLAS's 64-bit API (above 46,340 points), forced */
    setenv("GRIDKIT_GPU_KG_X64", "1", 1);
    for (size_t i = 0; i < N_GLOBAL_CASES; i++)
        compare_global("cuda", &global_cases[i], 0, &d, have_cpu);
    setenv("GRIDKIT_GPU_KG_COLS", "37", 1);
    compare_global("cuda", &global_cases[3], 0, &d, have_cpu);
    unsetenv("GRIDKIT_GPU_KG_COLS");
    compare_global_split(&global_cases[6], &d);
    unsetenv("GRIDKIT_GPU_KG_X64");
    test_global_large();
    /* quadratic drift, blocks and external drift: against the CPU only
     * (covariates NaN left of x = 0: nodata there, not singular) */
    if (have_cpu) {
        const gpu_case extended[] = {
            {"kriging:drift=quadratic:model=Exp:psill=20:range=300:nugget=2", &d, 0},
            {"kriging:drift=quadratic:model=Sph:psill=20:range=400", &d, 0},
            {"kriging:model=Exp:psill=20:range=200:nugget=2:block=40x25", &d, 0},
            {"kriging:type=simple:mean=10:model=Sph:psill=20:range=250:nugget=1:block=30", &d, 0},
            {"kriging:drift=quadratic:model=Exp:psill=20:range=300:nugget=2:block=30", &d, 0},
            {"kriging:drift_raster=a:model=Exp:psill=20:range=200:nugget=2", &d, 0},
            {"kriging:drift=linear:drift_raster=a:drift_raster=b:model=Sph:psill=20:range=400:"
             "nugget=1",
             &d, 0},
            {"kriging:drift_raster=a:model=Exp:psill=20:range=200:nugget=2:variance=no", &d, 1},
            {"kriging:drift=quadratic:drift_raster=a:drift_raster=b:drift_raster=c:"
             "drift_raster=d:model=Exp:psill=20:range=300:nugget=2:block=30",
             &d, 0},
        };
        krige_cases(extended, NCASES(extended));
        setenv("GRIDKIT_GPU_KG_COLS", "37", 1);
        compare_krige("kriging:drift_raster=a:drift_raster=b:model=Sph:psill=20:range=250", 0, &d,
                      1);
        unsetenv("GRIDKIT_GPU_KG_COLS");
    }
    /* with a radius, max_points=0 is local: every point within the radius */
    compare_krige("kriging:model=Exp:psill=20:range=200:nugget=2:radius=150", 0, &d, 1);
    gk_points_free(d.pts);
    gk_context_free(ctx);
}
