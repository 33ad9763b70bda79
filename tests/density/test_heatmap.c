/* SPDX-License-Identifier: MIT */
/* test_heatmap.c - `-a heatmap` against values worked out by hand from QGIS
 * 3.22's kernel formulas (docs/heatmap.md), every kernel, raw and scaled,
 * with and without weights; its bad input; the same bytes for any thread
 * count and tile size. Public API only. */
#include "density_check.h"
#include "gk_check.h"
#include "gridkit.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Around the node (0, 0) with radius 5: a point at u = d/r = 0.6 (1 - u^2 =
 * 0.64), one at u = 0.8 (0.36) and one on the circle (u = 1, still inside,
 * as QGIS's test is d > r), plus one outside. */
static const double PX[] = {0, 4, 3, 6}, PY[] = {3, 0, 4, 0}, PW[] = {2, 0.5, 3, 7};
enum { NP = 4 };

static gk_context *ctx;

/* The value at (0, 0) of a one-cell grid, or at (100, 0) (no point: nodata). */
static double value_at(const char *spec, int weighted, double cx)
{
    gk_points *pts = gk_points_new(ctx);
    for (int i = 0; i < NP; i++)
        gk_points_add(pts, PX[i], PY[i], weighted ? PW[i] : 1.0);
    gk_algorithm *a = gk_algorithm_parse(ctx, spec);
    CHECKF(a != NULL, "%s: %s", spec, gk_errmsg(ctx));
    double v = NAN;
    if (a) {
        gk_job *job = gk_job_new(ctx, pts, a);
        gk_grid g = {cx - 1, cx + 1, -1, 1, 1, 1};
        CHECK(job && gk_job_compute_window(job, &g, 0, 0, 1, 1, &v) == GK_OK);
        gk_job_free(job);
        gk_algorithm_free(a);
    }
    gk_points_free(pts);
    return v;
}

static void hand_values(void)
{
    /* sums over (0,3), (4,0), (3,4) of the raw kernels, unweighted and with
     * weights 2, 0.5, 3 (the point at (6,0) is outside) */
    struct {
        const char *spec;
        double one, w, norm; /* raw sums; the scaled constant times pi r^2 */
    } K[] = {
        {"heatmap:radius=5:kernel=quartic", 0.4096 + 0.1296, 2 * 0.4096 + 0.5 * 0.1296,
         116. / 5. * 15. / 16.},
        {"heatmap:radius=5:kernel=triweight", 0.262144 + 0.046656, 2 * 0.262144 + 0.5 * 0.046656,
         4.0},
        {"heatmap:radius=5:kernel=epanechnikov", 0.64 + 0.36, 2 * 0.64 + 0.5 * 0.36, 2.0},
        {"heatmap:radius=5:kernel=uniform", 3, 2 + 0.5 + 3, 1.0},
        {"heatmap:radius=5:kernel=triangular", 0.4 + 0.2, 2 * 0.4 + 0.5 * 0.2, 3.0},
        {"heatmap:radius=5:kernel=triangular:decay=0.5", 0.7 + 0.6 + 0.5,
         2 * 0.7 + 0.5 * 0.6 + 3 * 0.5, 3.0 / 2.0},
    };
    char spec[128];
    /* a few roundings in each kernel and sum: 1e-13 relative is far above them */
    for (size_t k = 0; k < sizeof K / sizeof K[0]; k++) {
        CHECK_REL(value_at(K[k].spec, 0, 0), K[k].one, 1e-13);
        CHECK_REL(value_at(K[k].spec, 1, 0), K[k].w, 1e-13);
        snprintf(spec, sizeof spec, "%s:output=scaled", K[k].spec);
        CHECK_REL(value_at(spec, 0, 0), K[k].one * K[k].norm / (M_PI * 25), 1e-13);
        CHECK_REL(value_at(spec, 1, 0), K[k].w * K[k].norm / (M_PI * 25), 1e-13);
        snprintf(spec, sizeof spec, "%s:nodata=-9999", K[k].spec);
        CHECK(value_at(spec, 1, 100) == -9999);
    }
    /* a negative decay is never scaled (QGIS): 1 - 2u = -0.2, -0.6, -1 */
    CHECK_REL(value_at("heatmap:radius=5:kernel=triangular:decay=-1:output=scaled", 0, 0), -1.8,
              1e-13);
    /* radius 1 around the node: nothing within, so nodata (default 0) */
    CHECK(value_at("heatmap:radius=1:nodata=-1", 0, 0) == -1);
}

static void bad_input(void)
{
    /* refused strings and round trips: tests/core/specs (test_parse) */
    gk_algorithm *a = gk_algorithm_parse(ctx, "heatmap:kernel=Triangular:decay=0.25:radius=2.5");
    CHECK(a != NULL);
    if (a)
        CHECK(!gk_algorithm_needs_z(a) && gk_algorithm_z_is_weight(a));
    gk_algorithm_free(a);
}

/* The value at the node (0, 0) of points (x[i], 0) of weight w, or NAN
 * when spec does not parse or the job fails (the message in ctx). */
static double value_of(const char *spec, const double *x, int n, double w)
{
    gk_points *pts = gk_points_new(ctx);
    for (int i = 0; i < n; i++)
        gk_points_add(pts, x[i], 0.0, w);
    gk_algorithm *a = gk_algorithm_parse(ctx, spec);
    gk_job *job = a ? gk_job_new(ctx, pts, a) : NULL;
    double v = NAN;
    gk_grid g = {-1, 1, -1, 1, 1, 1};
    if (job && gk_job_compute_window(job, &g, 0, 0, 1, 1, &v) != GK_OK)
        v = NAN;
    gk_job_free(job);
    gk_algorithm_free(a);
    gk_points_free(pts);
    return v;
}

/* spec is refused while parsing, with a message holding each of want[] */
static void refused(const char *spec, const char *w1, const char *w2, const char *w3)
{
    gk_algorithm *a = gk_algorithm_parse(ctx, spec);
    const char *m = gk_errmsg(ctx);
    CHECKF(!a && gk_errno(ctx) == GK_ERR_ARG && strstr(m, w1) && (!w2 || strstr(m, w2)) &&
               (!w3 || strstr(m, w3)),
           "%s: %s (want %s, %s, %s)", spec, a ? "accepted" : m, w1, w2 ? w2 : "", w3 ? w3 : "");
    gk_algorithm_free(a);
    gk_error_clear(ctx);
}

/* Radii whose arithmetic under- or overflows (radius=1e-160 gave NaN at a
 * point on a node: 0 x 1/r^2 = 0 x inf; radius=1e154:output=scaled wrote
 * the raw sum, its constant 116 / (5 pi r^2) overflowing to 0, which
 * means "raw") are refused with the range, worked out here: r^2 and
 * 1/r^2 normal from 2^-511 to 2^511, and scaled quartic's 5 pi r^2 and
 * 116 / (5 pi r^2) finite from sqrt(116 / (5 pi DBL_MAX)) to
 * sqrt(DBL_MAX / (5 pi)). At the ends the kernel is exact: points at 0 and
 * r / 2 give 1 + (1 - 1/4)^2 = 1.5625. */
static void kernel_size(void)
{
    char spec[200], lo[40], hi[40];
    const double r0 = ldexp(1, -511), r1 = ldexp(1, 511);
    snprintf(lo, sizeof lo, "%.15g", r0);
    snprintf(hi, sizeof hi, "%.15g", r1);
    refused("heatmap:radius=1e-160", "radius=1e-160", lo, hi);
    refused("heatmap:radius=1e160:kernel=uniform", "radius=1e+160", lo, hi);
    snprintf(spec, sizeof spec, "heatmap:radius=%.17g", nextafter(r0, 0));
    refused(spec, "radius", lo, NULL);
    snprintf(spec, sizeof spec, "heatmap:radius=%.17g", nextafter(r1, INFINITY));
    refused(spec, "radius", hi, NULL);
    const double xs0[] = {0, r0 / 2}, xs1[] = {0, r1 / 2};
    snprintf(spec, sizeof spec, "heatmap:radius=%.17g", r0);
    CHECKF(value_of(spec, xs0, 2, 1.0) == 1.5625, "%s: %s", spec, gk_errmsg(ctx));
    snprintf(spec, sizeof spec, "heatmap:radius=%.17g", r1);
    CHECKF(value_of(spec, xs1, 2, 1.0) == 1.5625, "%s: %s", spec, gk_errmsg(ctx));

    refused("heatmap:radius=1e154:output=scaled", "radius=1e+154", "scaled", NULL);
    const double qlo = sqrt(116. / (5. * M_PI) / DBL_MAX), qhi = sqrt(DBL_MAX / (5. * M_PI));
    const double r[] = {qlo * 0.999, qlo * 1.001, qhi * 0.999, qhi * 1.001};
    for (int k = 0; k < 4; k++) {
        snprintf(spec, sizeof spec, "heatmap:radius=%.17g:output=scaled", r[k]);
        gk_algorithm *a = gk_algorithm_parse(ctx, spec);
        CHECKF((a != NULL) == (k == 1 || k == 2), "%s: %s", spec, a ? "accepted" : gk_errmsg(ctx));
        gk_algorithm_free(a);
        gk_error_clear(ctx);
        if (k == 1 || k == 2) { /* one point on the node: the constant itself */
            const double x0 = 0, c = 116. / (5. * M_PI * (r[k] * r[k])) * (15. / 16.);
            CHECK_REL(value_of(spec, &x0, 1, 1.0), c, 1e-15);
        }
    }
    /* ten points on the node near the lower end: 10 x 1.6e308 would be
     * written as infinity; refused, naming the sum */
    const double ten[10] = {0};
    snprintf(spec, sizeof spec, "heatmap:radius=%.17g:output=scaled", r[1]);
    CHECK(isnan(value_of(spec, ten, 10, 1.0)) && strstr(gk_errmsg(ctx), "sum|w|") &&
          strstr(gk_errmsg(ctx), "largest double"));
    gk_error_clear(ctx);
}

/* decay belongs to the triangular kernel (docs/heatmap.md): on another
 * kernel it is an error, whatever its place in the string; a subnormal
 * number is called what it is, not "not a number"; a subnormal nodata is a
 * value like any other. */
static void keys(void)
{
    refused("heatmap:radius=1:decay=0", "decay", "quartic", NULL);
    refused("heatmap:decay=0.5:radius=1:kernel=uniform", "decay", "uniform", NULL);
    gk_algorithm *a = gk_algorithm_parse(ctx, "heatmap:decay=0.5:radius=1:kernel=triangular");
    CHECKF(a && strstr(gk_algorithm_string(a), "decay=0.5"), "%s", a ? "" : gk_errmsg(ctx));
    gk_algorithm_free(a);
    a = gk_algorithm_parse(ctx, "heatmap:radius=2:kernel=epanechnikov");
    CHECK(a && !strstr(gk_algorithm_string(a), "decay"));
    gk_algorithm *b = a ? gk_algorithm_parse(ctx, gk_algorithm_string(a)) : NULL;
    CHECK(b && !strcmp(gk_algorithm_string(a), gk_algorithm_string(b)));
    gk_algorithm_free(b);
    gk_algorithm_free(a);
    refused("heatmap:radius=5e-324", "radius: '5e-324' is below 2.2250738585072014e-308", NULL,
            NULL);
    refused("heatmap:radius=1e999", "beyond", NULL, NULL);
    CHECK(value_at("heatmap:radius=1:nodata=5e-324", 0, 100) == 4.9406564584124654e-324);
}

static void same_bytes(void)
{
    enum { N = 3000, NX = 97, NY = 61 };
    gk_points *pts = gk_points_new(ctx);
    unsigned long long s = 12345;
    for (int i = 0; i < N; i++) {
        double c[3];
        for (int k = 0; k < 3; k++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            c[k] = (double)(s >> 11) / 9007199254740992.0;
        }
        /* clustered in a corner, so that nodes see a few to hundreds of points */
        gk_points_add(pts, 1000 * c[0] * c[0], 600 * c[1] * c[1], 0.1 + c[2]);
    }
    gk_grid g = {0, 1000, 0, 600, NX, NY};
    const char *specs[] = {"heatmap:radius=40",
                           "heatmap:radius=60:kernel=triangular:decay=0.3:output=scaled"};
    for (int k = 0; k < 2; k++)
        same_bytes_over(ctx, pts, &g, specs[k]);
    gk_points_free(pts);
}

int main(void)
{
    ctx = gk_context_new();
    hand_values();
    bad_input();
    kernel_size();
    keys();
    same_bytes();
    gk_context_free(ctx);
    printf("test_heatmap: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
