/* SPDX-License-Identifier: MIT */
/*
 * density/heatmap.c - QGIS's Heatmap (Kernel Density Estimation), value for
 * value: at every node the sum over the points within radius of
 * weight * K(d), K one of QGIS 3.22's five kernels (qgskde.cpp), raw or
 * "scaled" by QGIS's normalising constants (quartic's constant is QGIS's
 * too, though it makes the kernel's integral 7.25, not 1: docs/heatmap.md).
 * Weights are z: -zfield, or 1 for every point without it (GK_M_Z_WEIGHT).
 * A node with no point within radius (d <= radius) is nodata, as QGIS
 * leaves it. Each node sums its points in the bins' order
 * (density/density_sum.h), on the CPU and the GPU alike, so the bytes
 * depend on the inputs only.
 */
#include "core/double_edge.h"
#include "core/method.h"
#include "density/density_bins.h"
#include "density/density_sum.h"

/* Its parameters (the algorithm's own). */
typedef struct {
    double radius, decay;
    int kernel, scaled;
} heat_params;
GK_ALG_OWN_FITS(heat_params);
#define HEAT(a) GK_ALG_OWN(heat_params, a)

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const char *const KERNELS[GK_HM_N] = {"quartic", "triangular", "uniform", "triweight",
                                             "epanechnikov"};

/* QGIS's processing algorithm takes decay in [-100, 100] */
#define HM_DECAY_MAX 100.0

typedef struct {
    const gk_dens_bins *b;
    const gk_algorithm *a;
    gk_ds_heat_k k;
    const double *nx, *ny;
    int w, h;
    double *sum;
    int *hit;
} heat_acc;

/* One row of a point's disc, branch-free (a node outside adds nothing and
 * keeps its bits); element-wise IEEE operations give the scalar loop's
 * bits at any vector width. */
#define HEAT_ROW(K)                                                                                \
    for (int i = i0; i <= i1; i++) {                                                               \
        const double dx = nx[i] - px;                                                              \
        const double d2 = dx * dx + dy * dy;                                                       \
        const double t = z * gk_ds_heat(&k, K, d2);                                                \
        const int in = d2 <= k.d2max;                                                              \
        sum[i] = in ? sum[i] + t : sum[i];                                                         \
        hit[i] |= in;                                                                              \
    }

/* Adds the points [p0, p1) to the tile: each point's rows within reach,
 * and on each row the columns its disc may cover; the test (QGIS's
 * sqrt(dx^2 + dy^2) <= r, as d2 <= d2max) and the kernel are density_sum.h's. A node sees
 * its points in bin order, as on the GPU. */
GK_DS_CLONES static void heat_run(size_t p0, size_t p1, void *arg)
{
    heat_acc *A = arg;
    const gk_dens_bins *b = A->b;
    const int w = A->w, h = A->h, kernel = HEAT(A->a)->kernel;
    const double r = HEAT(A->a)->radius;
    /* slack for the ranges only: a node they keep is still tested exactly */
    const double rs = r * (1.0 + 1e-9);
    const double x0 = A->nx[0], y0 = A->ny[0];
    const double cw = w > 1 ? A->nx[1] - x0 : 1.0, ch = h > 1 ? A->ny[1] - y0 : -1.0;
    const double icw = 1.0 / cw, ich = 1.0 / ch;
    const gk_ds_heat_k k = A->k;
    const double *restrict nx = A->nx;
    for (size_t p = p0; p < p1; p++) {
        const double px = b->x[p], py = b->y[p], z = b->z[p];
        double fa = floor((py + rs - y0) * ich) - 1.0, fb = ceil((py - rs - y0) * ich) + 1.0;
        if (!(fa <= h) || !(fb >= 0))
            continue;
        int j0 = fa > 0 ? (int)fa : 0, j1 = fb < h - 1 ? (int)fb : h - 1;
        for (int j = j0; j <= j1; j++) {
            const double dy = A->ny[j] - py;
            if (fabs(dy) > rs)
                continue;
            const double hw = sqrt(fmax(rs * rs - dy * dy, 0.0)) * (1.0 + 1e-9) + 1e-9 * rs;
            double ga = floor((px - hw - x0) * icw) - 1.0, gb = ceil((px + hw - x0) * icw) + 1.0;
            if (!(ga <= w) || !(gb >= 0))
                continue;
            int i0 = ga > 0 ? (int)ga : 0, i1 = gb < w - 1 ? (int)gb : w - 1;
            double *restrict sum = A->sum + (size_t)j * w;
            int *restrict hit = A->hit + (size_t)j * w;
            switch (kernel) { /* a loop each, so that each vectorises */
            case GK_HM_QUARTIC:
                HEAT_ROW(GK_HM_QUARTIC);
                break;
            case GK_HM_TRIANGULAR:
                HEAT_ROW(GK_HM_TRIANGULAR);
                break;
            case GK_HM_UNIFORM:
                HEAT_ROW(GK_HM_UNIFORM);
                break;
            case GK_HM_TRIWEIGHT:
                HEAT_ROW(GK_HM_TRIWEIGHT);
                break;
            default:
                HEAT_ROW(GK_HM_EPANECHNIKOV);
                break;
            }
        }
    }
}

/* A node no point reaches (d <= radius) is nodata, as QGIS leaves it. */
static uint64_t heatmap_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    const gk_algorithm *a = &job->alg;
    const int w = t->w, h = t->h;
    const size_t ncell = (size_t)w * h;
    if (gk_scratch_reserve(s, (size_t)(w + h)) || gk_scratch_reserve2(s, ncell))
        return UINT64_MAX;
    heat_acc A = {.b = gk_dens_bins_of(job), .a = a, .w = w, .h = h, .sum = out, .hit = s->idx2};
    A.k = gk_ds_heat_init(HEAT(a)->kernel, HEAT(a)->scaled, HEAT(a)->decay, HEAT(a)->radius);
    double *nx = s->d2, *ny = nx + w;
    A.nx = nx, A.ny = ny;
    memset(out, 0, ncell * sizeof *out);
    memset(A.hit, 0, ncell * sizeof *A.hit);
    gk_dens_tile_nodes(t, nx, ny);
    const double reach = HEAT(a)->radius * (1.0 + 1e-9);
    gk_dens_tile_runs(gk_dens_bins_of(job), nx, w, ny, h, reach, reach, heat_run, &A);
    uint64_t nodata = 0;
    for (size_t k = 0; k < ncell; k++)
        if (!A.hit[k])
            out[k] = a->nodata, nodata++;
    return nodata;
}

/* A node's sum is at most sum|w| times the kernel's largest value (1, or
 * decay at the circle when decay > 1) times the scaled constant: beyond
 * the largest double it would be written as infinity, so it is refused. */
static int heatmap_build(gk_job *job)
{
    const gk_algorithm *a = &job->alg;
    const gk_points *p = job->pts;
    double sumabs = 0.0;
    for (size_t i = 0; i < p->n; i++)
        sumabs += fabs(p->z[i]);
    const gk_ds_heat_k k =
        gk_ds_heat_init(HEAT(a)->kernel, HEAT(a)->scaled, HEAT(a)->decay, HEAT(a)->radius);
    const double top = sumabs * fmax(1.0, fabs(HEAT(a)->decay)) * (k.scale != 0.0 ? k.scale : 1.0);
    if (!(top <= DBL_MAX))
        return gk_error(job->ctx, GK_ERR_ARG,
                        "-a %s: a cell's sum could reach sum|w| = %.15g times the kernel's "
                        "largest value%s, beyond the largest double (%.15g): give a larger "
                        "radius, output=raw or smaller weights",
                        a->canonical, sumabs, k.scale != 0.0 ? " and the scaled constant" : "",
                        DBL_MAX);
    gk_dens_state *st = gk_dens_state_make(job);
    if (!st)
        return GK_ERR_NOMEM;
    return gk_dens_bins_build(job->ctx, p, HEAT(a)->radius * (1.0 + 1e-9), 4, &st->bins);
}

/* ---- its keys ----------------------------------------------------------- */

static void heatmap_canonical(gk_algorithm *a)
{
    gk_strbuf sb = {a->canonical, sizeof a->canonical, 0};
    gk_strbuf_add(&sb, "heatmap:radius=%.17g:kernel=%s", HEAT(a)->radius, KERNELS[HEAT(a)->kernel]);
    if (HEAT(a)->kernel == GK_HM_TRIANGULAR) /* the only kernel with a decay */
        gk_strbuf_add(&sb, ":decay=%.17g", HEAT(a)->decay);
    gk_strbuf_add(&sb, ":output=%s:nodata=%.17g", HEAT(a)->scaled ? "scaled" : "raw", a->nodata);
}

/* Whether radius r can be computed with: r^2 and 1/r^2 normal doubles (u^2
 * = d^2 (1/r^2) then errs by at most 2^-1074 / r^2 <= 2^-52 where d^2 is
 * subnormal; the circle test d^2 <= r^2 keeps its bits), and with
 * output=scaled the kernel's constant (C / (pi r^2), in QGIS's order of
 * operations) normal too: an overflow in it made it 0, which reads as
 * "raw". */
static int heat_radius_ok(const gk_algorithm *a, double r)
{
    const double r2 = r * r;
    if (!isnormal(r2) || !isnormal(1.0 / r2))
        return 0;
    const gk_ds_heat_k k = gk_ds_heat_init(HEAT(a)->kernel, HEAT(a)->scaled, HEAT(a)->decay, r);
    const int has_scale =
        HEAT(a)->scaled && !(HEAT(a)->kernel == GK_HM_TRIANGULAR && HEAT(a)->decay < 0);
    return !has_scale || isnormal(k.scale);
}

static int heat_radius_ok_v(const void *a, double r) { return heat_radius_ok(a, r); }

static int heatmap_parse(gk_context *ctx, const char *spec, char *rest, gk_algorithm *a)
{
    HEAT(a)->radius = NAN;
    HEAT(a)->kernel = GK_HM_QUARTIC;
    int decay_given = 0;
    char *save = rest;
    const char *key, *val;
    int more;
    while ((more = gk_param_next(ctx, spec, &save, &key, &val)) > 0) {
        double num;
        if (!strcasecmp(key, "kernel")) {
            int k = 0;
            while (k < GK_HM_N && strcasecmp(val, KERNELS[k]))
                k++;
            if (k == GK_HM_N)
                return gk_error(ctx, GK_ERR_ARG,
                                "-a %s: kernel: unknown kernel '%s' (known: quartic, "
                                "triangular, uniform, triweight, epanechnikov)",
                                spec, val);
            HEAT(a)->kernel = k;
        } else if (!strcasecmp(key, "output")) {
            if (!strcasecmp(val, "raw"))
                HEAT(a)->scaled = 0;
            else if (!strcasecmp(val, "scaled"))
                HEAT(a)->scaled = 1;
            else
                return gk_error(ctx, GK_ERR_ARG,
                                "-a %s: output: unknown output '%s' (raw or scaled)", spec, val);
        } else if (!strcasecmp(key, "radius") || !strcasecmp(key, "decay") ||
                   !strcasecmp(key, "nodata")) {
            int nrc = gk_param_number(key, val, &num);
            if (nrc)
                return gk_error(ctx, GK_ERR_ARG, "-a %s: %s: '%s' %s", spec, key, val,
                                gk_param_number_why(nrc));
            if (!strcasecmp(key, "radius"))
                HEAT(a)->radius = num;
            else if (!strcasecmp(key, "decay"))
                HEAT(a)->decay = num, decay_given = 1;
            else
                a->nodata = num, a->nodata_given = 1;
        } else {
            return gk_error(ctx, GK_ERR_ARG,
                            "-a %s: algorithm heatmap has no parameter '%s' (radius, kernel, "
                            "decay, output, nodata)",
                            spec, key);
        }
    }
    if (more < 0)
        return GK_ERR_ARG;
    double r = HEAT(a)->radius, d = HEAT(a)->decay;
    if (!(r > 0) || !isfinite(r))
        return gk_error(ctx, GK_ERR_ARG,
                        "-a %s: radius: the kernel's radius is required, finite and > 0", spec);
    if (!isfinite(d) || d < -HM_DECAY_MAX || d > HM_DECAY_MAX)
        return gk_error(ctx, GK_ERR_ARG, "-a %s: decay must be within [-100, 100] (QGIS's range)",
                        spec);
    if (decay_given && HEAT(a)->kernel != GK_HM_TRIANGULAR)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a %s: decay: the %s kernel has none (decay is the triangular "
                        "kernel's value at the radius)",
                        spec, KERNELS[HEAT(a)->kernel]);
    if (!heat_radius_ok(a, r))
        return gk_error(ctx, GK_ERR_ARG,
                        "-a %s: radius=%.15g is outside [%.15g, %.15g], where r^2, 1/r^2%s are "
                        "normal doubles; beyond it the kernel's arithmetic under- or overflows",
                        spec, r, gk_double_edge(heat_radius_ok_v, a, 1.0, 0.0),
                        gk_double_edge(heat_radius_ok_v, a, 1.0, INFINITY),
                        HEAT(a)->scaled ? " and the scaled kernel's constant" : "");
    if (!isfinite(a->nodata) && !isnan(a->nodata))
        return gk_error(ctx, GK_ERR_ARG, "-a %s: nodata must be finite", spec);
    heatmap_canonical(a);
    return GK_OK;
}

/* One core: ~5 ns a point within the radius (1 M points, 4096^2 nodes,
 * radius 50 m over 10 km: 7 s of CPU for 1.3e9 terms); binning ~20 ns a
 * point. */
static double heatmap_cost(const gk_algorithm *a, double n, double area, double *setup_ns)
{
    *setup_ns = 20.0 * n;
    double k = area > 0 ? n * M_PI * HEAT(a)->radius * HEAT(a)->radius / area : n;
    return 100.0 + 5.0 * (k < n ? k : n);
}

/* QGIS's Heatmap, given a pixel size, widens the layer's extent by the radius. */
static double heatmap_margin(const gk_algorithm *a) { return HEAT(a)->radius; }

static const char *heatmap_gpu(const gk_job *job, gk_gpu_job_desc *d)
{
    const gk_algorithm *a = &job->alg;
    if (!gk_dens_bins_of(job))
        return "heatmap without its bins";
    d->op = GK_GPU_HEATMAP;
    gk_dens_gpu_bins(gk_dens_bins_of(job), d);
    d->p.dens.r = d->p.dens.ry = HEAT(a)->radius;
    d->p.dens.kernel = HEAT(a)->kernel;
    d->p.dens.scaled = HEAT(a)->scaled;
    d->p.dens.decay = HEAT(a)->decay;
    return NULL;
}

const gk_method gk_method_heatmap = {
    .name = "heatmap",
    .kind = GK_ALG_HEATMAP,
    .summary = "kernel density of the points, weights from z or 1 (QGIS's Heatmap)",
    .own_keys = "radius, kernel=quartic|triangular|uniform|triweight|epanechnikov, decay, "
                "output=raw|scaled, nodata",
    .flags = GK_M_Z_WEIGHT,
    .parse = heatmap_parse,
    .build = heatmap_build,
    .release = gk_dens_release,
    .cpu_index = gk_dens_cpu_index,
    .cpu_tile = heatmap_tile,
    .gpu_describe = heatmap_gpu,
    .cost_ns = heatmap_cost,
    .pixel_extent_margin = heatmap_margin,
};
