/* SPDX-License-Identifier: MIT */
/*
 * test_indicator.c - indicator kriging (-a kriging:...:indicator=c1,c2,...): each
 * band is ordinary kriging of the indicator I(z < c) (order=none: the same
 * doubles as -a kriging on the indicators), GSLIB's order relations (order=cdf,
 * clip) as ordrel.for states them, the bands' names, and the refusals. gstat's
 * values are compared in gstat/ik_compare.py.
 */
#include "gk_check.h"
#include "gk_run.h"
#include "gridkit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static gk_context *ctx;
static unsigned long long lcg = 99;

static void test_bands(void)
{
    enum { ND = 80, NX = 30, NY = 25, T = NX * NY, C = 3 };
    gk_points *p = gk_points_new(ctx), *ind[C];
    const double cut[C] = {1.5, 2.5, 3.2};
    double x[ND], y[ND], z[ND];
    for (int k = 0; k < ND; k++) {
        x[k] = 30 * gk_test_urand(&lcg), y[k] = 25 * gk_test_urand(&lcg);
        z[k] = 1 + 3 * gk_test_urand(&lcg) * gk_test_urand(&lcg) + 0.05 * x[k];
        gk_points_add(p, x[k], y[k], z[k]);
    }
    for (int c = 0; c < C; c++) {
        ind[c] = gk_points_new(ctx);
        for (int k = 0; k < ND; k++)
            gk_points_add(ind[c], x[k], y[k], z[k] < cut[c] ? 1 : 0);
    }
    const gk_grid g = {0, 30, 0, 25, NX, NY};
    static double none[C * T], cdf[C * T], clip[C * T], one[T];
    const char *m = "model=Sph:psill=0.2:range=9:nugget=0.02:max_points=12";
    char spec[256];
    snprintf(spec, sizeof spec, "kriging:%s:indicator=1.5,2.5,3.2:order=none", m);
    CHECK(gk_test_run(ctx, spec, p, &g, none, NULL) == C);
    int differ = 0;
    for (int c = 0; c < C; c++) {
        snprintf(spec, sizeof spec, "kriging:%s:variance=no:nodata=nan", m);
        CHECK(gk_test_run(ctx, spec, ind[c], &g, one, NULL) == 1);
        differ += memcmp(one, none + c * T, sizeof one) != 0;
    }
    CHECKF(differ == 0, "%d bands differ from kriging of the indicator", differ);
    snprintf(spec, sizeof spec, "kriging:%s:indicator=1.5,2.5,3.2", m);
    CHECK(gk_test_run(ctx, spec, p, &g, cdf, NULL) == C);
    snprintf(spec, sizeof spec, "indicator:%s:indicator=1.5,2.5,3.2:order=clip", m);
    CHECK(gk_test_run(ctx, spec, p, &g, clip, NULL) == C);
    /* ordrel.for: clip, then the mean of the upward and downward passes */
    int bad_cdf = 0, bad_clip = 0, fixed = 0;
    for (int q = 0; q < T; q++) {
        double v[C], up[C], dn[C];
        for (int c = 0; c < C; c++)
            v[c] = fmin(1, fmax(0, none[c * T + q]));
        for (int c = 0; c < C; c++)
            up[c] = c ? fmax(up[c - 1], v[c]) : v[c];
        for (int c = C - 1; c >= 0; c--)
            dn[c] = c < C - 1 ? fmin(dn[c + 1], v[c]) : v[c];
        for (int c = 0; c < C; c++) {
            bad_cdf += fabs(cdf[c * T + q] - 0.5 * (up[c] + dn[c])) > 1e-15;
            bad_clip += clip[c * T + q] != v[c];
            fixed += cdf[c * T + q] != none[c * T + q];
            bad_cdf += c && cdf[c * T + q] < cdf[(c - 1) * T + q];
        }
    }
    CHECKF(!bad_cdf && !bad_clip, "order relations: %d (cdf) %d (clip) values off", bad_cdf,
           bad_clip);
    CHECKF(fixed > 0, "no value needed a correction: the case does not test it");
    /* names */
    gk_algorithm *a = gk_algorithm_parse(ctx, spec);
    CHECK(a && gk_algorithm_bands(a) == 3 && !strcmp(gk_algorithm_band_name(a, 1), "P(z<2.5)"));
    /* the canonical string parses to itself */
    gk_algorithm *b = a ? gk_algorithm_parse(ctx, gk_algorithm_string(a)) : NULL;
    CHECK(b && !strcmp(gk_algorithm_string(a), gk_algorithm_string(b)));
    gk_algorithm_free(a);
    gk_algorithm_free(b);
    for (int c = 0; c < C; c++)
        gk_points_free(ind[c]);
    gk_points_free(p);
}

/* Sequential indicator simulation: the data at their nodes, every value in
 * [zmin, zmax], the proportion below each cut-off the data's (within three
 * standard errors of a proportion of the data), the same bytes on 1 and 3
 * threads. */
static void test_simulation(void)
{
    enum { ND = 400, NX = 60, N = NX * NX, R = 20, C = 3 };
    gk_points *p = gk_points_new(ctx);
    double z[ND];
    for (int k = 0; k < ND; k++) {
        z[k] = exp(1.2 * (gk_test_urand(&lcg) + gk_test_urand(&lcg) + gk_test_urand(&lcg) - 1.5));
        /* on every third node centre */
        gk_points_add(p, (k % 20) * 3 + 0.5, (k / 20) * 3 + 0.5, z[k]);
    }
    const double cut[C] = {0.6, 1.0, 1.7};
    const gk_grid g = {0, 60, 0, 60, NX, NX};
    static double out[N * R], other[N * R];
    const char *spec = "kriging:model=Exp:psill=0.2:range=6:nugget=0.01:max_points=16:"
                       "indicator=0.6,1,1.7:nsim=20:seed=4:zmin=0.05:zmax=8";
    gk_context_set_threads(ctx, 1);
    CHECK(gk_test_run(ctx, spec, p, &g, out, NULL) == R);
    gk_context_set_threads(ctx, 3);
    CHECK(gk_test_run(ctx, spec, p, &g, other, NULL) == R);
    gk_context_set_threads(ctx, 0);
    CHECK(!memcmp(out, other, sizeof out));
    int bad_data = 0, out_of_range = 0;
    for (int k = 0; k < ND; k++) {
        const int i = (k % 20) * 3, j = 59 - (k / 20) * 3;
        for (int r = 0; r < R; r++)
            bad_data += out[(size_t)r * N + j * NX + i] != (double)(float)z[k] &&
                        out[(size_t)r * N + j * NX + i] != z[k];
    }
    for (size_t q = 0; q < (size_t)N * R; q++)
        out_of_range += !(out[q] >= 0.05 && out[q] <= 8);
    CHECKF(bad_data == 0 && out_of_range == 0, "%d data not honoured, %d values out of range",
           bad_data, out_of_range);
    for (int c = 0; c < C; c++) {
        double pd = 0, ps = 0;
        for (int k = 0; k < ND; k++)
            pd += z[k] < cut[c];
        pd /= ND;
        for (size_t q = 0; q < (size_t)N * R; q++)
            ps += out[q] < cut[c];
        ps /= (double)N * R;
        CHECKF(fabs(ps - pd) < 3 * sqrt(pd * (1 - pd) / ND),
               "below %g: %.4f of the simulated values, %.4f of the data", cut[c], ps, pd);
    }
    gk_points_free(p);
}

static void refused(const char *spec, const gk_points *p, const char *want)
{
    gk_algorithm *a = gk_algorithm_parse(ctx, spec);
    gk_job *job = a ? gk_job_new(ctx, p, a) : NULL;
    CHECKF(!job && strstr(gk_errmsg(ctx), want), "%s: got '%s', want '%s'", spec,
           job ? "(ran)" : gk_errmsg(ctx), want);
    gk_job_free(job);
    gk_algorithm_free(a);
    gk_error_clear(ctx);
}

static void test_bad_input(void)
{
    gk_points *p = gk_points_new(ctx);
    for (int k = 0; k < 10; k++)
        gk_points_add(p, k + 0.3, 9 - k * 0.7, k);
    refused("kriging:model=Sph:psill=1:range=4:indicator=3,2", p, "must increase");
    refused("kriging:model=Sph:psill=1:range=4:indicator=3,3", p, "must increase");
    refused("kriging:model=Sph:psill=1:range=4:indicator=3,x", p, "finite numbers");
    refused("kriging:model=Sph:psill=1:range=4:indicator=3,", p, "ends with a comma");
    refused("kriging:model=Sph:psill=1:range=4:indicator=0", p, "no value is below the cut-off 0");
    refused("kriging:model=Sph:psill=1:range=4:indicator=2,20", p, "every value is below");
    refused("kriging:indicator=2,5:models=Sph(1,4)", p, "gives 1 models for 2 cut-offs");
    refused("kriging:indicator=2:models=Sph(1,4):model=Exp:psill=1:range=2", p, "no model=");
    refused("kriging:model=Sph:psill=1:range=4:indicator=2:nsim=5:transform=normal_score", p,
            "takes no transform=");
    refused("kriging:model=Sph:psill=1:range=4:indicator=2:nsim=5:summary=q10", p,
            "with indicator= give p<c bands");
    refused("kriging:type=simple:mean=3:model=Sph:psill=1:range=4:indicator=2", p,
            "ordinary kriging of the indicators");
    refused("kriging:model=Sph:psill=1:range=4:order=cdf", p, "give indicator=");
    refused("indicator:model=Sph:psill=1:range=4", p, "give the cut-offs");
    refused("kriging:model=Sph:psill=1:range=4:indicator=2:order=up", p, "cdf, clip or none");
    gk_points_free(p);
}

int main(void)
{
    ctx = gk_context_new();
    test_bands();
    test_simulation();
    test_bad_input();
    gk_context_free(ctx);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
