/* SPDX-License-Identifier: MIT */
/* test_crossval_ways.c - the three ways gk_crossval predicts a fold
 * (geostat/crossval.h) give the rebuilt jobs' answers: "holdout" (one k-d
 * tree, the fold skipped in each search) the same doubles, byte for byte;
 * "dubrule" (global kriging's closed form) the same to rounding. On
 * scattered points, points with duplicates and a lattice, leave-one-out and
 * k-fold, 1 and 3 threads. */
#include "geostat/crossval.h"
#include "gridkit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gk_check.h"

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* A smooth field with noise, so that kriging's systems are well posed. */
static double field(double x, double y)
{
    return 10.0 + 3.0 * sin(x / 700.0) * cos(y / 500.0) + 0.002 * x + 0.5 * urand();
}

static gk_points *scattered(gk_context *ctx, size_t n, int dups)
{
    gk_points *p = gk_points_new(ctx);
    for (size_t i = 0; i < n; i++) {
        double x = 180000.0 + 4000.0 * urand(), y = 330000.0 + 3000.0 * urand();
        gk_points_add(p, x, y, field(x, y));
        if (dups && i % 17 == 0) /* a duplicate site, another value */
            gk_points_add(p, x, y, field(x, y));
    }
    return p;
}

static gk_points *lattice(gk_context *ctx)
{
    gk_points *p = gk_points_new(ctx);
    for (int j = 0; j < 15; j++)
        for (int i = 0; i < 15; i++)
            gk_points_add(p, 60.0 * i, 60.0 * j, field(60.0 * i, 60.0 * j));
    return p;
}

static int same_bits(const double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof a[i]) && !(isnan(a[i]) && isnan(b[i])))
            return 0;
    return 1;
}

/* Largest |a - b| relative to the data's spread, NaN where only one is NaN. */
static double max_rel(const double *a, const double *b, size_t n, double scale)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(a[i]) != isnan(b[i]))
            return NAN;
        if (!isnan(a[i]))
            m = fmax(m, fabs(a[i] - b[i]) / scale);
    }
    return m;
}

static void compare(const char *what, const gk_points *pts, const char *spec, int nfold,
                    gk_cv_method expect, int threads)
{
    gk_context *ctx = gk_context_new();
    gk_context_set_threads(ctx, threads);
    gk_algorithm *alg = gk_algorithm_parse(ctx, spec);
    if (!alg) {
        fprintf(stderr, "parse %s: %s\n", spec, gk_errmsg(ctx));
        CHECK(0);
        gk_context_free(ctx);
        return;
    }
    gk_cv_result fast, slow;
    int rf = gk_crossval_with(ctx, pts, alg, nfold, 7, 0, 1, GK_CV_AUTO, &fast);
    int rs = gk_crossval_with(ctx, pts, alg, nfold, 7, 0, 1, GK_CV_REBUILD, &slow);
    CHECK(rf == GK_OK && rs == GK_OK);
    if (rf || rs) {
        fprintf(stderr, "%s %s: %s\n", what, spec, gk_errmsg(ctx));
    } else {
        const char *want = expect == GK_CV_HOLDOUT   ? "holdout"
                           : expect == GK_CV_DUBRULE ? "dubrule"
                                                     : "rebuild";
        CHECK(!strcmp(fast.method, want));
        if (strcmp(fast.method, want))
            fprintf(stderr, "%s: %s, not %s\n", spec, fast.method, want);
        CHECK(!strcmp(slow.method, "rebuild"));
        size_t n = fast.n;
        if (expect != GK_CV_DUBRULE) {
            int ok = same_bits(fast.predicted, slow.predicted, n) &&
                     same_bits(fast.variance, slow.variance, n);
            CHECK(ok);
            if (!ok)
                fprintf(stderr, "%s %s nfold %d: holdout differs from rebuild\n", what, spec,
                        nfold);
        } else {
            /* The closed form and n solves of n-1 points differ by rounding:
             * a few hundred ulps of the systems' condition, far below the
             * data's noise (0.5). */
            double dp = max_rel(fast.predicted, slow.predicted, n, 1.0);
            double dv = max_rel(fast.variance, slow.variance, n, 1.0);
            CHECK(dp < 1e-9 && dv < 1e-9);
            if (!(dp < 1e-9 && dv < 1e-9))
                fprintf(stderr, "%s %s nfold %d: dubrule differs by %g (pred), %g (var)\n", what,
                        spec, nfold, dp, dv);
        }
        CHECK(fast.n_failed == slow.n_failed);
    }
    gk_cv_result_free(&fast);
    gk_cv_result_free(&slow);
    gk_algorithm_free(alg);
    gk_context_free(ctx);
}

static const char *holdout_specs[] = {
    "nearest",
    "nearest:radius1=150:radius2=150",
    "nearest:radius1=200:radius2=120:angle=30",
    "invdist:power=2:radius1=300:radius2=300:max_points=8",
    "invdist:power=3:radius1=400:radius2=250:angle=20:max_points=10:min_points=3",
    "invdist:power=2:smoothing=10:radius1=300:radius2=300:max_points=30",
    "invdistnn:power=2:radius=400:max_points=12:min_points=3",
    "invdistnn:power=2:radius=500:max_points=16:max_points_per_quadrant=3:"
    "min_points_per_quadrant=1",
    "kriging:model=Sph:psill=1.5:range=900:nugget=0.2:max_points=20",
    "kriging:model=Exp:psill=1.5:range=400:nugget=0.1:max_points=12:radius=600",
    "kriging:model=Sph:psill=1.5:range=900:nugget=0.2:max_points=16:"
    "max_points_per_quadrant=3",
    "kriging:type=simple:mean=11:model=Gau:psill=1.5:range=500:nugget=0.3:max_points=10",
    "kriging:type=universal:drift=linear:model=Sph:psill=1.5:range=900:nugget=0.2:"
    "max_points=24",
    "kriging:model=Sph:psill=1.5:range=900:nugget=0.2:max_points=12:block=40x40",
};

static const char *dubrule_specs[] = {
    "kriging:model=Sph:psill=1.5:range=900:nugget=0.2",
    "kriging:model=Exp:psill=1.5:range=600",
    "kriging:type=simple:mean=11:model=Sph:psill=1.5:range=900:nugget=0.2",
    "kriging:type=universal:drift=linear:model=Exp:psill=1.5:range=600:nugget=0.1",
    "kriging:type=universal:drift=quadratic:model=Sph:psill=1.5:range=900:nugget=0.2",
    "kriging:model=Pow:psill=0.01:range=1.5:nugget=0.2",
};

/* Where the way would not give the rebuilt answer, auto rebuilds. */
static const char *rebuild_specs[] = {
    "invdist:power=2:radius1=300:radius2=300", /* summed in the tree's order */
    "invdistnn:power=2:radius=300:max_points=0",
    "invdist:power=2",              /* no index at all */
    "invdist:power=2:max_points=8", /* no window: no index either */
    "kriging:model=Pow:psill=0.01:range=1.5:nugget=0.2:max_points=12", /* pseudo-sill */
    "kriging:model=auto:max_points=12",                                /* refitted per fold */
    "kriging:model=Sph:psill=1.5:range=900:nugget=0.2:block=40x40",
    "linear",
    "average:radius1=300:radius2=300",
};

int main(void)
{
    gk_context *ctx = gk_context_new();
    gk_points *sets[3] = {scattered(ctx, 600, 0), scattered(ctx, 300, 1), lattice(ctx)};
    const char *names[3] = {"scattered", "duplicates", "lattice"};
    for (int d = 0; d < 3; d++)
        for (size_t k = 0; k < sizeof holdout_specs / sizeof *holdout_specs; k++) {
            /* nearest and invdistnn break ties in gdal_grid's quadtree order,
             * of the points given: a lattice is cross-validated with the
             * whole set's order (docs/cv.md) */
            if (d == 2 && (!strncmp(holdout_specs[k], "nearest", 7) ||
                           !strncmp(holdout_specs[k], "invdistnn", 9)))
                continue;
            compare(names[d], sets[d], holdout_specs[k], 0, GK_CV_HOLDOUT, 3);
            compare(names[d], sets[d], holdout_specs[k], 7, GK_CV_HOLDOUT, 1);
        }
    for (int d = 0; d < 3; d++)
        for (size_t k = 0; k < sizeof dubrule_specs / sizeof *dubrule_specs; k++) {
            if (d == 1 && !strstr(dubrule_specs[k], "nugget"))
                continue; /* duplicates without a nugget: singular, both ways NaN */
            compare(names[d], sets[d], dubrule_specs[k], 0, GK_CV_DUBRULE, 3);
            compare(names[d], sets[d], dubrule_specs[k], 5, GK_CV_DUBRULE, 1);
        }
    for (size_t k = 0; k < sizeof rebuild_specs / sizeof *rebuild_specs; k++)
        compare("duplicates", sets[1], rebuild_specs[k], 5, GK_CV_REBUILD, 3);
    for (int d = 0; d < 3; d++)
        gk_points_free(sets[d]);
    gk_context_free(ctx);
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
