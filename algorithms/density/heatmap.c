/*
 * density/heatmap.c - QGIS's Heatmap (Kernel Density Estimation), value for
 * value: at every node the sum over the points within radius of
 * weight * K(d), K one of QGIS 3.22's five kernels (qgskde.cpp), raw or
 * "scaled" by QGIS's normalising constants (quartic's constant is QGIS's
 * too, though it makes the kernel's integral 7.25, not 1: docs/heatmap.md).
 * Weights are z: -zfield, or 1 for every point without it (GK_M_Z_WEIGHT).
 * A node with no point within radius (d <= radius) is nodata, as QGIS
 * leaves it. Points are summed in input order, so the bytes depend on the
 * inputs only.
 */
#include "core/method.h"
#include "search/index.h"
#include "search/kdtree.h"
#include "search/neighbours.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

enum { HM_QUARTIC, HM_TRIANGULAR, HM_UNIFORM, HM_TRIWEIGHT, HM_EPANECHNIKOV, HM_N };
static const char *const KERNELS[HM_N] = {"quartic", "triangular", "uniform", "triweight",
                                          "epanechnikov"};

/* QGIS's processing algorithm takes decay in [-100, 100] */
#define HM_DECAY_MAX 100.0

/* The kernel at distance d <= r, written as QGIS writes it so that the
 * rounding is the same (pow(x, 2) is exact; pow(x, 3) is glibc's). */
static double hm_kernel(int kernel, int scaled, double decay, double d, double r)
{
    double u = d / r;
    switch (kernel) {
    case HM_UNIFORM:
        return scaled ? 2. / (M_PI * r) * (0.5 / r) : 1.0;
    case HM_QUARTIC: {
        double v = pow(1. - pow(u, 2), 2);
        return scaled ? 116. / (5. * M_PI * pow(r, 2)) * (15. / 16.) * v : v;
    }
    case HM_TRIWEIGHT: {
        double v = pow(1. - pow(u, 2), 3);
        return scaled ? 128. / (35. * M_PI * pow(r, 2)) * (35. / 32.) * v : v;
    }
    case HM_EPANECHNIKOV: {
        double v = 1. - pow(u, 2);
        return scaled ? 8. / (3. * M_PI * pow(r, 2)) * (3. / 4.) * v : v;
    }
    default: { /* triangular; a negative decay is never scaled (QGIS's "coolmap") */
        double v = 1. - (1. - decay) * u;
        if (scaled && decay >= 0)
            return 3. / ((1. + 2. * decay) * M_PI * pow(r, 2)) * v;
        return v;
    }
    }
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int heatmap_node(const gk_job *job, double nx, double ny, double hit2, gk_scratch *s,
                        double *v)
{
    (void)hit2;
    const gk_algorithm *a = &job->alg;
    const double r = a->heat.radius;
    /* a hair wider than r^2, then QGIS's own test on sqrt(dx^2 + dy^2) */
    const double r2 = r * r * (1.0 + 1e-12);
    size_t n = gk_kdtree_radius(job->tree, nx, ny, r2, s->idx, s->d2, s->cap);
    if (n > s->cap) {
        if (gk_scratch_reserve(s, n))
            return -1;
        n = gk_kdtree_radius(job->tree, nx, ny, r2, s->idx, s->d2, s->cap);
    }
    if (n == 0)
        return 0;
    qsort(s->idx, n, sizeof *s->idx, cmp_int); /* input order: a fixed sum */
    const double *x = job->pts->x, *y = job->pts->y, *z = job->pts->z;
    double sum = 0.0;
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        int k = s->idx[i];
        double dx = nx - x[k], dy = ny - y[k];
        double d = sqrt(dx * dx + dy * dy);
        if (d > r)
            continue;
        sum += z[k] * hm_kernel(a->heat.kernel, a->heat.scaled, a->heat.decay, d, r);
        any = 1;
    }
    if (!any)
        return 0;
    *v = sum;
    return 1;
}

static uint64_t heatmap_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    return gk_nb_run_tile(job, t, out, s, heatmap_node);
}

/* ---- its keys ----------------------------------------------------------- */

static void heatmap_canonical(gk_algorithm *a)
{
    gk_strbuf sb = {a->canonical, sizeof a->canonical, 0};
    gk_strbuf_add(&sb, "heatmap:radius=%.17g:kernel=%s:decay=%.17g:output=%s:nodata=%.17g",
                  a->heat.radius, KERNELS[a->heat.kernel], a->heat.decay,
                  a->heat.scaled ? "scaled" : "raw", a->nodata);
}

static int heatmap_parse(gk_context *ctx, const char *spec, char *rest, gk_algorithm *a)
{
    a->heat.radius = NAN;
    a->heat.kernel = HM_QUARTIC;
    char *save = rest;
    for (char *tok = strtok_r(NULL, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            return gk_error(ctx, GK_ERR_ARG, "-a %s: '%s' is not key=value", spec, tok);
        *eq = '\0';
        const char *key = tok, *val = eq + 1;
        double num;
        if (!strcasecmp(key, "kernel")) {
            int k = 0;
            while (k < HM_N && strcasecmp(val, KERNELS[k]))
                k++;
            if (k == HM_N)
                return gk_error(ctx, GK_ERR_ARG,
                                "-a %s: kernel: unknown kernel '%s' (known: quartic, "
                                "triangular, uniform, triweight, epanechnikov)",
                                spec, val);
            a->heat.kernel = k;
        } else if (!strcasecmp(key, "output")) {
            if (!strcasecmp(val, "raw"))
                a->heat.scaled = 0;
            else if (!strcasecmp(val, "scaled"))
                a->heat.scaled = 1;
            else
                return gk_error(ctx, GK_ERR_ARG,
                                "-a %s: output: unknown output '%s' (raw or scaled)", spec, val);
        } else if (!strcasecmp(key, "radius") || !strcasecmp(key, "decay") ||
                   !strcasecmp(key, "nodata")) {
            if (gk_param_number(key, val, &num))
                return gk_error(ctx, GK_ERR_ARG, "-a %s: %s: '%s' is not a number", spec, key,
                                val);
            if (!strcasecmp(key, "radius"))
                a->heat.radius = num;
            else if (!strcasecmp(key, "decay"))
                a->heat.decay = num;
            else
                a->nodata = num, a->nodata_given = 1;
        } else {
            return gk_error(ctx, GK_ERR_ARG,
                            "-a %s: algorithm heatmap has no parameter '%s' (radius, kernel, "
                            "decay, output, nodata)",
                            spec, key);
        }
    }
    double r = a->heat.radius, d = a->heat.decay;
    if (!(r > 0) || !isfinite(r))
        return gk_error(ctx, GK_ERR_ARG,
                        "-a %s: radius: the kernel's radius is required, finite and > 0", spec);
    if (!isfinite(d) || d < -HM_DECAY_MAX || d > HM_DECAY_MAX)
        return gk_error(ctx, GK_ERR_ARG, "-a %s: decay must be within [-100, 100] (QGIS's range)",
                        spec);
    if (!isfinite(a->nodata) && !isnan(a->nodata))
        return gk_error(ctx, GK_ERR_ARG, "-a %s: nodata must be finite", spec);
    heatmap_canonical(a);
    return GK_OK;
}

static double heatmap_cost(const gk_algorithm *a, double n, double area, double *setup_ns)
{
    *setup_ns = n * GK_NS_TREE_PER_POINT;
    double k = area > 0 ? n * M_PI * a->heat.radius * a->heat.radius / area : n;
    return 300.0 + 30.0 * (k < n ? k : n);
}

const gk_method gk_method_heatmap = {
    .name = "heatmap",
    .kind = GK_ALG_HEATMAP,
    .summary = "kernel density of the points, weights from z or 1 (QGIS's Heatmap)",
    .own_keys = "radius, kernel=quartic|triangular|uniform|triweight|epanechnikov, decay, "
                "output=raw|scaled, nodata",
    .flags = GK_M_Z_WEIGHT,
    .parse = heatmap_parse,
    .prepare = gk_method_tree,
    .cpu_index = gk_index_tree,
    .cpu_tile = heatmap_tile,
    .cost_ns = heatmap_cost,
};
