/* SPDX-License-Identifier: MIT */
/* test_gpu_ridges.c - ridges on the GPU against the CPU: curve's lines the
 * same bytes (evolve's arithmetic is shared, ridges/curve_step.h), density's
 * vertices within the stated tolerance (exp() may differ in the last bit),
 * on several clouds: a 2-D spiral, a 3-D helix, a circle, a lattice with
 * duplicates (many equal distances: the tie rule decides). */
#include "gpu_harness.h"

#include "gridkit_ridges.h"

#include <math.h>

#define GK_PI 3.14159265358979323846
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* standard normal (Box-Muller) from the harness's uniform generator */
static double gauss(unsigned long long *s)
{
    double u = grand(s), v = grand(s);
    return sqrt(-2.0 * log(u > 1e-300 ? u : 1e-300)) * cos(2.0 * GK_PI * v);
}

typedef struct {
    const char *name;
    gk_points *p;
    int dim;
    double sigma;
} cloud;

static cloud make_cloud(gk_context *ctx, const char *name, size_t n, unsigned long long seed)
{
    cloud c = {name, gk_points_new(ctx), 2, 4.17};
    unsigned long long s = seed;
    for (size_t i = 0; i < n; i++) {
        double u = (double)i / (double)n, x, y, z = 0.0;
        if (!strcmp(name, "spiral")) {
            double t = sqrt(GK_PI * GK_PI + 24.0 * GK_PI * GK_PI * u);
            x = 10.0 * t * cos(t);
            y = 10.0 * t * sin(t);
        } else if (!strcmp(name, "helix")) {
            double t = 6.0 * GK_PI * u;
            x = 100.0 * cos(t);
            y = 100.0 * sin(t);
            z = 20.0 * t + c.sigma * gauss(&s);
            c.dim = 3;
        } else if (!strcmp(name, "circle")) {
            x = 200.0 * cos(2.0 * GK_PI * u);
            y = 200.0 * sin(2.0 * GK_PI * u);
        } else { /* a lattice band, 1 m spacing, every point twice: exact ties */
            x = (double)((i / 2) % 400);
            y = (double)((i / 2) / 400 % 6);
            gk_points_add(c.p, x, y, 0.0);
            continue;
        }
        gk_points_add(c.p, x + c.sigma * gauss(&s), y + c.sigma * gauss(&s), z);
    }
    return c;
}

static gk_lines *ridges_on(const char *device, const cloud *c, const char *spec, char *dev,
                           size_t cap)
{
    gk_context *ctx = gk_context_new();
    gk_lines *l = NULL;
    gk_ridges_method *m = NULL;
    if (gk_context_set_device(ctx, device) == GK_OK && (m = gk_ridges_parse(ctx, spec, c->dim)))
        l = gk_ridges(ctx, c->p, m, c->dim, NULL, NULL);
    snprintf(dev, cap, "%s", l ? gk_context_device_name(ctx) : gk_errmsg(ctx));
    gk_ridges_method_free(m);
    gk_context_free(ctx);
    return l;
}

/* tol 0: byte for byte; else the largest vertex difference allowed */
static void compare_lines(const cloud *c, const char *spec, double tol)
{
    char dc[300], dg[300];
    gk_lines *a = ridges_on("cpu", c, spec, dc, sizeof dc);
    gk_lines *b = ridges_on("cuda", c, spec, dg, sizeof dg);
    int ok = a && b && !strncmp(dg, "cuda", 4) && a->n_lines == b->n_lines &&
             a->start[a->n_lines] == b->start[b->n_lines] &&
             !memcmp(a->start, b->start, (a->n_lines + 1) * sizeof(size_t));
    double d = ok ? 0.0 : INFINITY;
    if (ok) {
        size_t nv = a->start[a->n_lines];
        for (size_t i = 0; i < nv; i++) {
            d = fmax(d, fmax(fabs(a->x[i] - b->x[i]), fabs(a->y[i] - b->y[i])));
            if (a->z)
                d = fmax(d, fabs(a->z[i] - b->z[i]));
        }
        if (tol == 0.0)
            ok = !memcmp(a->x, b->x, nv * sizeof(double)) &&
                 !memcmp(a->y, b->y, nv * sizeof(double)) &&
                 (!a->z || !memcmp(a->z, b->z, nv * sizeof(double))) &&
                 !memcmp(a->n_support, b->n_support, a->n_lines * sizeof(uint64_t));
        else
            ok = d <= tol;
    }
    printf("%s ridges %-7s %-28s %zu lines, %s (largest vertex difference %.3g) [%s]\n",
           ok ? "ok  " : "FAIL", c->name, spec, a ? a->n_lines : 0,
           tol == 0.0 ? "same bytes" : "within tolerance", d, dg);
    CHECK(ok);
    gk_lines_free(a);
    gk_lines_free(b);
}

void test_ridges(gk_context *ctx)
{
    cloud cs[] = {make_cloud(ctx, "spiral", 20000, 11), make_cloud(ctx, "helix", 20000, 12),
                  make_cloud(ctx, "circle", 5000, 13), make_cloud(ctx, "lattice", 4800, 14)};
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        const char *curve = i == 3 ? "curve:r1=2:r2=4" : "curve:r1=8.34:r2=16.68";
        compare_lines(&cs[i], curve, 0.0);
        if (i == 3)
            continue;
        /* density: the walkers' sums differ only by exp()'s last bit, far
         * below the convergence tolerance (1e-4 bandwidths): 1e-3 of the
         * bandwidth bounds the vertex difference with room for the
         * tolerance's own spread */
        compare_lines(&cs[i], "density:bandwidth=4.17", 1e-3 * 4.17);
        gk_points_free(cs[i].p);
    }
    gk_points_free(cs[3].p);
}
