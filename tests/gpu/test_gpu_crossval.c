/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_crossval.c - cross-validation of local kriging on the GPU (its
 * kernels leave each fold out of their search) against the CPU's holdout
 * (a k-d tree view skipping the fold): leave-one-out and k-fold, the fused
 * and the two-phase kernels, drift, blocks, anisotropy, a model solved in
 * double, a radius with min_points, and the lattice's ties and duplicates;
 * predictions and variances within check_bands' tolerances, the same
 * failed points, and the GPU named.
 */
#include "gpu_harness.h"

#include "geostat/crossval.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int run_cv(const char *device, const char *spec, int single, const dataset *d, int nfold,
                  gk_cv_result *res)
{
    gk_context *ctx = gk_context_new();
    gk_algorithm *a = gk_algorithm_parse(ctx, spec);
    int rc = GK_ERR_ARG;
    if (a) {
        if (single)
            gk_algorithm_set_precision(a, GK_PRECISION_SINGLE);
        rc = gk_context_set_device(ctx, device);
        if (!rc)
            rc = gk_crossval_with(ctx, d->pts, a, nfold, 7u, 0, 1, GK_CV_AUTO, res);
    }
    if (rc)
        printf("     %s on %s: %s\n", spec, device, gk_errmsg(ctx));
    gk_algorithm_free(a);
    gk_context_free(ctx);
    return rc;
}

static void compare_cv(const char *spec, int single, const dataset *d, int nfold)
{
    gk_cv_result c, g;
    int rc = run_cv("cpu", spec, single, d, nfold, &c);
    int rg = run_cv("cuda", spec, single, d, nfold, &g);
    char what[64];
    snprintf(what, sizeof what, "cv %s nfold %d", d->name, nfold);
    if (rc || rg) {
        printf("FAIL %-66s %s: cpu rc %d, gpu rc %d\n", spec, what, rc, rg);
        failures++;
        if (!rc)
            gk_cv_result_free(&c);
        if (!rg)
            gk_cv_result_free(&g);
        return;
    }
    size_t n = c.n, bad = 0, first = 0;
    double vmax = 0.0, worst[2] = {0, 0};
    for (size_t i = 0; i < n; i++)
        if (isfinite(c.variance[i]))
            vmax = fmax(vmax, fabs(c.variance[i]));
    for (int b = 0; b < 2; b++)
        for (size_t i = 0; i < n; i++) {
            double x = b ? c.variance[i] : c.predicted[i], y = b ? g.variance[i] : g.predicted[i];
            if (same_nodata(x, y))
                continue;
            double scale = b ? vmax : d->zrange;
            double e = fabs(x - y) / (single ? scale : fmax(fabs(x), scale));
            if (!(e <= (single ? 1e-5 : 1e-9)) && !bad++)
                first = i;
            if (!(e <= worst[b]))
                worst[b] = e;
        }
    int on_gpu = !strncmp(g.device, "cuda", 4) && !strcmp(c.device, "cpu");
    int same_way = !strcmp(g.method, "holdout") && !strcmp(c.method, "holdout");
    int ok = !bad && on_gpu && same_way && c.n_failed == g.n_failed;
    printf("%-4s %-66s %-6s %s est %.2e var %.2e failed %zu/%zu%s\n", ok ? "ok" : "FAIL", spec,
           single ? "single" : "double", what, worst[0], worst[1], c.n_failed, g.n_failed,
           ok ? "" : " <--");
    if (!ok) {
        printf("     %zu differ (first: point %zu, cpu %.17g gpu %.17g); devices %s / %s; "
               "methods %s / %s\n",
               bad, first, c.predicted[first], g.predicted[first], c.device, g.device, c.method,
               g.method);
        failures++;
    }
    gk_cv_result_free(&c);
    gk_cv_result_free(&g);
}

void test_crossval(const dataset *u, const dataset *l)
{
    /* u: 20,000 points over 10 km; the fused kernel (33..64 and <= 8
     * neighbours) and the two-phase ones (<= 16, <= 32) */
    static const char *us[] = {
        "kriging:model=Exp:psill=60:range=500:nugget=5:max_points=16",
        "kriging:model=Sph:psill=600:range=1500:max_points=32",
        "kriging:model=Exp:psill=60:range=500:nugget=5:max_points=48",
        "kriging:model=Gau:psill=600:range=900:nugget=2:max_points=8",
        "kriging:type=simple:mean=100:model=Exp:psill=600:range=800:nugget=5:max_points=12",
        "kriging:drift=linear:model=Exp:psill=60:range=700:nugget=5:max_points=20:radius=400:"
        "min_points=6",
        "kriging:drift=quadratic:model=Exp:psill=60:range=700:nugget=5:max_points=24",
        "kriging:model=Exp:psill=60:range=500:nugget=5:max_points=8:block=50x50",
        "kriging:drift=linear:model=Sph:psill=600:range=1200:nugget=1:anis_angle=30:"
        "anis_ratio=0.5:max_points=16:block=120x40",
        "kriging:model=Mat:psill=60:range=300:kappa=1.5:nugget=5:max_points=20:anis_angle=30:"
        "anis_ratio=0.5",
    };
    for (size_t k = 0; k < sizeof us / sizeof *us; k++)
        compare_cv(us[k], 0, u, 0);
    compare_cv(us[0], 0, u, 10);
    compare_cv(us[1], 1, u, 0);
    compare_cv(us[5], 0, u, 7);
    /* the lattice: equidistant candidates (ties by input order on both) and
     * duplicates with other values (the held-out point's twin stays in) */
    static const char *ls[] = {
        "kriging:model=Exp:psill=10:range=5:nugget=1:max_points=8",
        "kriging:model=Exp:psill=10:range=5:nugget=1:max_points=16:radius=2.5:min_points=5",
        "kriging:type=simple:mean=0:model=Sph:psill=10:range=6:nugget=1:max_points=6:radius=1.2",
    };
    for (size_t k = 0; k < sizeof ls / sizeof *ls; k++) {
        compare_cv(ls[k], 0, l, 0);
        compare_cv(ls[k], 0, l, 5);
    }
}
