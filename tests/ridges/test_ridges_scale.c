/* SPDX-License-Identifier: MIT */
/*
 * test_ridges_scale.c - gk_ridges() at extreme coordinate scales: a noisy
 * ring of radius 100 (noise sigma 2) multiplied by 1e-300 ... 1e298 (the
 * last gives coordinates near +-1e300) must come out as at scale 1: one
 * closed line near the true circle, r1 and the bandwidth the scale-1 ones
 * times the scale, densities the scale-1 ones over the scale squared where
 * a double holds them (else null, with a warning). Before, at 1e-100 curve
 * made 3 open lines, from 1e90 density found no bandwidth, and at 1e298
 * curve's r1 was inf with no error. Also: an axis on which every point has
 * one value keeps it exactly; lengths and the cut-off that the arithmetic
 * cannot hold are refused naming the key at fault.
 */
#include "gk_check.h"
#include "gridkit_ridges.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

enum { N = 2000 };
static double RX[N], RY[N];

static uint64_t rng = 88172645463325252ull;
static double u01(void) /* (0, 1] */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return ((double)(rng >> 11) + 1.0) / 9007199254740992.0;
}

static void make_ring(void)
{
    for (int i = 0; i < N; i++) {
        double a = 2 * M_PI * u01(), g = sqrt(-2 * log(u01())) * cos(2 * M_PI * u01());
        RX[i] = (100 + 2 * g) * cos(a), RY[i] = (100 + 2 * g) * sin(a);
    }
}

/* The ring times s through spec; NULL on error (message in ctx). */
static gk_lines *ring_lines(gk_context *ctx, const char *spec, double s, char *method, size_t cap)
{
    gk_points *pts = gk_points_new(ctx);
    for (int i = 0; i < N; i++)
        gk_points_add(pts, RX[i] * s, RY[i] * s, 0.0);
    gk_ridges_method *m = gk_ridges_parse(ctx, spec, 2);
    gk_lines *l = m ? gk_ridges(ctx, pts, m, 2, NULL, NULL) : NULL;
    if (m)
        snprintf(method, cap, "%s", gk_ridges_method_string(m));
    gk_ridges_method_free(m);
    gk_points_free(pts);
    return l;
}

/* The value after "key=" in a method string. */
static double key_of(const char *method, const char *key)
{
    char pat[40];
    snprintf(pat, sizeof pat, ":%s=", key);
    const char *p = strstr(method, pat);
    return p ? strtod(p + strlen(pat), NULL) : NAN;
}

static void scales(gk_context *ctx)
{
    const char *spec[2] = {"curve", "density"}, *key[2] = {"r1", "bandwidth"};
    const double scale[] = {1, 1e-20, 1e-100, 1e90, 1e298, 1e-300};
    for (int k = 0; k < 2; k++) {
        double ref_len = NAN, ref_line = NAN, ref_density = NAN;
        for (size_t j = 0; j < sizeof scale / sizeof scale[0]; j++) {
            const double s = scale[j];
            char method[1024] = "";
            gk_lines *l = ring_lines(ctx, spec[k], s, method, sizeof method);
            CHECKF(l != NULL, "%s at %g: %s", spec[k], s, gk_errmsg(ctx));
            if (!l)
                continue;
            CHECKF(l->n_lines == 1 && l->closed[0], "%s at %g: %zu lines, closed %d", spec[k], s,
                   l->n_lines, l->n_lines ? l->closed[0] : -1);
            /* near the circle of radius 100, in the points' units: curve within r2 +
             * sigma (docs/ridges.md's bound; r2 = 2 r1), density within 3 sigma */
            const double len = key_of(method, key[k]);
            const double tol = k == 0 ? 2 * len / s + 2 : 6;
            double worst = 0;
            for (size_t v = 0; v < l->start[l->n_lines]; v++)
                worst = fmax(worst, fabs(hypot(l->x[v] / s, l->y[v] / s) - 100));
            CHECKF(worst <= tol, "%s at %g: a vertex %g off the circle (at most %g)", spec[k], s,
                   worst, tol);
            CHECKF(isfinite(len) && !strstr(method, "inf") && !strstr(method, "nan"),
                   "%s at %g: %s", spec[k], s, method);
            if (j == 0) {
                ref_len = len;
                ref_line = l->n_lines ? l->length[0] : NAN;
                ref_density = l->mean_density[0];
            }
            /* the same run as at scale 1, but for roundings in other mantissas */
            CHECKF(fabs(len / s - ref_len) <= 1e-6 * ref_len, "%s at %g: %s=%g, at 1 %g", spec[k],
                   s, key[k], len, ref_len);
            CHECKF(l->n_lines && fabs(l->length[0] / s - ref_line) <= 0.01 * ref_line,
                   "%s at %g: length %g, at 1 %g", spec[k], s, l->n_lines ? l->length[0] : 0,
                   ref_line);
            if (k == 1 && l->n_lines) {
                /* points per unit^2: the scale-1 value over s^2, or null where no double holds
                 * it (1e-300: about 1e597; 1e298: about 1e-599) */
                const double want = ref_density / (s * s);
                if (isnormal(want))
                    CHECKF(fabs(l->mean_density[0] - want) <= 0.05 * want,
                           "density at %g: mean_density %g, want %g", s, l->mean_density[0], want);
                else
                    CHECKF(isnan(l->mean_density[0]) && l->warning &&
                               strstr(l->warning, "mean_density left null on 1 line"),
                           "density at %g: mean_density %g (%s)", s, l->mean_density[0],
                           l->warning ? l->warning : "no warning");
            }
            gk_lines_free(l);
        }
    }
}

/* x = 1e300 for every point, y along 5e-118 with noise: the lines keep x
 * exactly (a flat axis is moved to 0 in the frame, not multiplied). */
static void flat_axis(gk_context *ctx)
{
    gk_points *pts = gk_points_new(ctx);
    for (int i = 0; i < 500; i++)
        gk_points_add(pts, 1e300, i * 1e-120 + 1e-122 * (u01() - 0.5), 0.0);
    for (int k = 0; k < 2; k++) {
        gk_ridges_method *m = gk_ridges_parse(ctx, k ? "density" : "curve", 2);
        gk_lines *l = m ? gk_ridges(ctx, pts, m, 2, NULL, NULL) : NULL;
        CHECKF(l && l->n_lines == 1 && !l->closed[0], "flat axis, %s: %s", k ? "density" : "curve",
               l ? "" : gk_errmsg(ctx));
        int exact = l != NULL;
        for (size_t v = 0; l && v < l->start[l->n_lines]; v++)
            exact = exact && l->x[v] == 1e300;
        CHECKF(exact, "flat axis: x moved off 1e300");
        CHECKF(l && l->n_lines && fabs(l->length[0] - 499e-120) <= 0.1 * 499e-120,
               "flat axis: length %g", l && l->n_lines ? l->length[0] : 0);
        gk_lines_free(l);
        gk_ridges_method_free(m);
    }
    gk_points_free(pts);
}

/* Keys the run cannot hold: each error names its key (the cut-off's was
 * blamed on the bandwidth), with the bound. */
static void refused(gk_context *ctx)
{
    const struct {
        const char *spec;
        double s;
        const char *want;
    } bad[] = {
        {"density:cutoff=1e-300", 1, "cutoff=1e-300 is too small for the points' extent"},
        {"density:bandwidth=1e-10", 1, "bandwidth=1e-10 is too small for the points' extent"},
        {"curve:r1=1e300", 1, "r1=1e+300 is outside [1.49166814624004e-154, 6.7039039649713e+153]"},
        {"density:bandwidth=1e-300", 1, "bandwidth=1e-300 is outside"},
        {"curve:r1=5:gap=1e200", 1, "gap=1e+200 is outside"},
        /* at 1e-100 the frame is 2^325 times the points' units */
        {"curve:r1=1e-260", 1e-100, "r1=1e-260 is outside"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char method[1024];
        gk_error_clear(ctx);
        gk_lines *l = ring_lines(ctx, bad[i].spec, bad[i].s, method, sizeof method);
        CHECKF(!l && gk_errno(ctx) == GK_ERR_ARG && strstr(gk_errmsg(ctx), bad[i].want),
               "%s at %g: %s", bad[i].spec, bad[i].s, l ? "ran" : gk_errmsg(ctx));
        gk_lines_free(l);
    }
}

int main(void)
{
    gk_context *ctx = gk_context_new();
    make_ring();
    scales(ctx);
    flat_axis(ctx);
    refused(ctx);
    gk_context_free(ctx);
    printf("test_ridges_scale: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
