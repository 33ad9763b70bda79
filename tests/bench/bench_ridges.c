/* SPDX-License-Identifier: MIT */
/*
 * bench_ridges.c - ridges on the GPU against the same machine's CPU cores,
 * in one run (docs/benchmarks.md, "Ridges"): a noisy 2-D spiral and a noisy
 * 3-D helix, both methods, whole pipeline (gk_ridges: points in, lines out).
 * Checks that curve's lines are the same bytes on both devices and reports
 * density's largest vertex difference, and how far the GPU's vertices lie
 * from the true curve (median and largest, in units of the noise sigma;
 * the bounds of tests/ridges at a million points: median within 0.5 sigma,
 * largest within r2 + sigma = 5 sigma).
 *
 *   bench_ridges [N] [curve|density|both]      (N default 1000000)
 *   GRIDKIT_BENCH_THREADS=16: the CPU's threads (default: every core)
 */
#include "bench/bench_util.h"
#include "gridkit_ridges.h"

#include <math.h>

#define GK_PI 3.14159265358979323846
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Standard normal by Box-Muller from the shared generator. */
static double gauss(void)
{
    double u = urand(), v = urand();
    if (u < 1e-300)
        u = 1e-300;
    return sqrt(-2.0 * log(u)) * cos(2.0 * GK_PI * v);
}

/* Archimedean spiral r = 10 t, t in [pi, 5 pi] (arms 63 apart, about 1,200
 * long), or a helix of radius 100 and pitch 126 over three turns; noise
 * sigma 4.17 on every coordinate (the reference's spiral case). */
static gk_points *cloud(gk_context *ctx, size_t n, int helix)
{
    gk_points *p = gk_points_new(ctx);
    urand_seed(helix ? 77 : 41);
    for (size_t i = 0; i < n; i++) {
        double t, x, y, z = 0.0;
        if (helix) {
            t = 6.0 * GK_PI * urand();
            x = 100.0 * cos(t);
            y = 100.0 * sin(t);
            z = 20.0 * t + 4.17 * gauss();
        } else {
            /* uniform in arc length, near enough: t = sqrt of a uniform in [t0^2, t1^2] */
            double t0 = GK_PI, t1 = 5.0 * GK_PI;
            t = sqrt(t0 * t0 + (t1 * t1 - t0 * t0) * urand());
            x = 10.0 * t * cos(t);
            y = 10.0 * t * sin(t);
        }
        gk_points_add(p, x + 4.17 * gauss(), y + 4.17 * gauss(), z);
    }
    return p;
}

/* The true curve, densely: m points of the spiral or the helix. */
static double *truth(int helix, size_t m)
{
    double *t = malloc(3 * m * sizeof *t);
    for (size_t i = 0; t && i < m; i++) {
        double u = (double)i / (double)(m - 1);
        if (helix) {
            double a = 6.0 * GK_PI * u;
            t[3 * i] = 100.0 * cos(a);
            t[3 * i + 1] = 100.0 * sin(a);
            t[3 * i + 2] = 20.0 * a;
        } else {
            double a = GK_PI + 4.0 * GK_PI * u;
            t[3 * i] = 10.0 * a * cos(a);
            t[3 * i + 1] = 10.0 * a * sin(a);
            t[3 * i + 2] = 0.0;
        }
    }
    return t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median and largest distance of l's vertices to the true curve, in sigma;
 * 1 when within the bounds above. */
static int quality(const gk_lines *l, int helix, double sigma, double *med, double *worst)
{
    const size_t m = 200000;
    double *t = truth(helix, m);
    size_t nv = l ? l->start[l->n_lines] : 0;
    double *d = malloc((nv + 1) * sizeof *d);
    *med = *worst = NAN;
    if (!t || !d || nv == 0) {
        free(t);
        free(d);
        return 0;
    }
    for (size_t v = 0; v < nv; v++) {
        double best = INFINITY;
        for (size_t i = 0; i < m; i++) {
            double dx = l->x[v] - t[3 * i], dy = l->y[v] - t[3 * i + 1];
            double dz = l->z ? l->z[v] - t[3 * i + 2] : 0.0;
            double d2 = dx * dx + dy * dy + dz * dz;
            best = d2 < best ? d2 : best;
        }
        d[v] = sqrt(best) / sigma;
    }
    qsort(d, nv, sizeof *d, cmp_double);
    *med = d[nv / 2];
    *worst = d[nv - 1];
    free(t);
    free(d);
    return *med <= 0.5 && *worst <= 5.0;
}

typedef struct {
    double s;
    gk_lines *l;
    char device[160];
} run_result;

static run_result run(const char *device, int threads, const gk_points *p, const char *spec,
                      int dim)
{
    run_result r = {0};
    gk_context *ctx = gk_context_new();
    gk_context_set_threads(ctx, threads);
    if (gk_context_set_device(ctx, device) != GK_OK) {
        snprintf(r.device, sizeof r.device, "unavailable: %s", gk_errmsg(ctx));
        gk_context_free(ctx);
        r.s = NAN;
        return r;
    }
    gk_ridges_method *m = gk_ridges_parse(ctx, spec, dim);
    double t0 = now();
    r.l = m ? gk_ridges(ctx, p, m, dim, NULL, NULL) : NULL;
    r.s = now() - t0;
    snprintf(r.device, sizeof r.device, "%s", r.l ? gk_context_device_name(ctx) : gk_errmsg(ctx));
    gk_ridges_method_free(m);
    gk_context_free(ctx);
    return r;
}

/* Largest difference between two sets of lines' vertices, or INFINITY when
 * their shapes differ; *same: byte for byte equal. */
static double compare(const gk_lines *a, const gk_lines *b, int *same)
{
    *same = 0;
    if (!a || !b || a->n_lines != b->n_lines || a->start[a->n_lines] != b->start[b->n_lines])
        return INFINITY;
    size_t nv = a->start[a->n_lines];
    double d = 0.0;
    for (size_t i = 0; i < nv; i++) {
        d = fmax(d, fabs(a->x[i] - b->x[i]));
        d = fmax(d, fabs(a->y[i] - b->y[i]));
        if (a->z)
            d = fmax(d, fabs(a->z[i] - b->z[i]));
    }
    *same = !memcmp(a->x, b->x, nv * sizeof(double)) && !memcmp(a->y, b->y, nv * sizeof(double)) &&
            (!a->z || !memcmp(a->z, b->z, nv * sizeof(double))) &&
            !memcmp(a->start, b->start, (a->n_lines + 1) * sizeof(size_t));
    return d;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    const char *which = argc > 2 ? argv[2] : "both";
    const char *te = getenv("GRIDKIT_BENCH_THREADS");
    int threads = te ? atoi(te) : 0;
    gk_context *ctx = gk_context_new();
    int bad = 0;
    static const struct {
        const char *name, *spec;
        int helix;
    } cases[] = {
        {"spiral 2-D", "curve:r1=8.34:r2=16.68", 0},
        {"helix 3-D", "curve:r1=8.34:r2=16.68", 1},
        {"spiral 2-D", "density:bandwidth=4.17", 0},
        {"helix 3-D", "density:bandwidth=4.17", 1},
    };
    printf("%-11s %-40s %9s %9s %8s %7s  %s\n", "case", "-a", "cpu s", "gpu s", "cpu/gpu", "lines",
           "cpu == gpu");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        if (strcmp(which, "both") && strncmp(cases[c].spec, which, strlen(which)))
            continue;
        gk_points *p = cloud(ctx, n, cases[c].helix);
        int dim = cases[c].helix ? 3 : 2;
        run_result g = run("cuda", threads, p, cases[c].spec, dim);
        run_result cpu = run("cpu", threads, p, cases[c].spec, dim);
        int same = 0;
        double d = compare(cpu.l, g.l, &same);
        printf("%-11s %-40s %9.3f %9.3f %8.1f %7zu  %s (largest vertex difference %.3g)\n",
               cases[c].name, cases[c].spec, cpu.s, g.s, cpu.s / g.s, cpu.l ? cpu.l->n_lines : 0,
               same ? "same bytes" : "differ", d);
        double med, worst;
        int good = quality(g.l ? g.l : cpu.l, cases[c].helix, 4.17, &med, &worst);
        bad += !good || (g.l && !(same || d < 1e-9));
        printf("            gpu: %s\n            cpu: %s\n", g.device, cpu.device);
        printf("            to the true curve: median %.3f sigma, largest %.3f sigma: %s\n", med,
               worst, good ? "within the bounds" : "OUTSIDE the bounds");
        gk_lines_free(g.l);
        gk_lines_free(cpu.l);
        gk_points_free(p);
    }
    gk_context_free(ctx);
    return bad ? 1 : 0;
}
