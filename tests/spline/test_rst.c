/* SPDX-License-Identifier: MIT */
/*
 * test_rst.c - -a rst in the core against exact expectations: with smooth=0
 * the surface passes through the data; two points give their mean halfway
 * (the constant carries it, the two coefficients cancel); z scales the
 * surface linearly (zscale); npmin moves the surface (through dnorm);
 * points within dmin of an earlier one are dropped, with a warning; a box
 * of no area is refused; the derivative bands do not depend on the windows,
 * nor v.surf.rst's segments (made for the whole grid), which refuse npmin
 * not above segmax and points too concentrated in one cell (v.surf.rst
 * itself: tests/spline/rst_grass.py).
 */
#include "gridkit.h"
#include "gridkit_geostat.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gk_check.h"
#include "gk_run.h"

static gk_context *ctx;

static double data_z(int i, int j) { return 100 + 10 * sin(0.7 * i) * cos(0.4 * j) + 2 * i; }

static gk_points *lattice_points(void)
{
    gk_points *p = gk_points_new(ctx);
    for (int i = 0; i < 10; i += 3)
        for (int j = 0; j < 10; j += 2)
            gk_points_add(p, 5 + 10 * i, 5 + 10 * j, data_z(i, j));
    return p;
}

static void honours_the_data(void)
{
    gk_grid g = {0, 100, 0, 100, 10, 10}; /* node centres 5, 15, ..., 95 */
    gk_points *p = lattice_points();
    double out[100];
    CHECK(gk_test_run(ctx, "rst:smooth=0:npmin=20", p, &g, out, NULL) == 1);
    for (int i = 0; i < 10; i += 3)
        for (int j = 0; j < 10; j += 2)
            CHECKF(fabs(out[(9 - j) * 10 + i] - data_z(i, j)) < 1e-9 * 100, "(%d, %d): %.17g", i, j,
                   out[(9 - j) * 10 + i]);
    /* smoothing leaves the data */
    CHECK(gk_test_run(ctx, "rst:smooth=2", p, &g, out, NULL) == 1);
    double far = 0;
    for (int i = 0; i < 10; i += 3)
        for (int j = 0; j < 10; j += 2)
            far = fmax(far, fabs(out[(9 - j) * 10 + i] - data_z(i, j)));
    CHECKF(far > 1e-3, "smooth=2 leaves the data (%g)", far);
    gk_points_free(p);
}

static void two_points_and_scales(void)
{
    gk_points *p = gk_points_new(ctx);
    gk_points_add(p, 10, 20, 3.0);
    gk_points_add(p, 50, 60, 11.0);
    gk_grid g = {20, 40, 30, 50, 1, 1}; /* one node, halfway */
    double v;
    CHECK(gk_test_run(ctx, "rst:tension=25:smooth=0.3:npmin=2", p, &g, &v, NULL) == 1);
    CHECK_NEAR(v, 7.0, 1e-13);
    gk_points_free(p);

    gk_grid g2 = {0, 100, 0, 100, 13, 11};
    double a[143], b[143], c[143];
    p = lattice_points();
    CHECK(gk_test_run(ctx, "rst:npmin=30", p, &g2, a, NULL) == 1);
    CHECK(gk_test_run(ctx, "rst:npmin=30:zscale=2.5", p, &g2, b, NULL) == 1);
    CHECK(gk_test_run(ctx, "rst:npmin=60", p, &g2, c, NULL) == 1);
    double worst = 0, moved = 0;
    for (int q = 0; q < 143; q++) {
        worst = fmax(worst, fabs(b[q] - 2.5 * a[q]) / fabs(2.5 * a[q]));
        moved = fmax(moved, fabs(c[q] - a[q]));
    }
    CHECKF(worst < 1e-12, "zscale=2.5: %g from 2.5 times the surface", worst);
    CHECKF(moved > 1e-6, "npmin moves the surface (%g)", moved);
    gk_points_free(p);
}

static void thinning_and_bad_input(void)
{
    gk_points *p = gk_points_new(ctx);
    gk_points_add(p, 10, 10, 1.0);
    gk_points_add(p, 10.5, 10, 50.0); /* within dmin=1 of the first: dropped */
    gk_points_add(p, 30, 12, 2.0);
    gk_points_add(p, 20, 40, 3.0);
    gk_points_add(p, 30, 12, 9.0); /* coincident: dropped even with dmin=0 */
    gk_grid g = {0, 50, 0, 50, 5, 5};
    double a[25], b[25];
    gk_algorithm *alg = gk_algorithm_parse(ctx, "rst:dmin=1:smooth=0");
    gk_job *job = alg ? gk_job_new(ctx, p, alg) : NULL;
    CHECK(job && gk_job_compute_window(job, &g, 0, 0, 5, 5, a) == 0);
    const char *w = job ? gk_job_warning(job) : NULL;
    CHECKF(w && strstr(w, "2 of 5 points dropped"), "warning: %s", w ? w : "(none)");
    gk_job_free(job);
    gk_algorithm_free(alg);
    /* the same doubles as the three kept points alone: the dropped ones lie in
     * their box and above their lowest z, so dnorm and zmin are the same */
    gk_points *k = gk_points_new(ctx);
    gk_points_add(k, 10, 10, 1.0);
    gk_points_add(k, 30, 12, 2.0);
    gk_points_add(k, 20, 40, 3.0);
    CHECK(gk_test_run(ctx, "rst:dmin=1:smooth=0", k, &g, b, NULL) == 1);
    CHECK(memcmp(a, b, sizeof a) == 0);
    gk_points_free(k);
    gk_points_free(p);

    p = gk_points_new(ctx);
    for (int i = 0; i < 6; i++)
        gk_points_add(p, 7.0, 3.0 + 5 * i, i);
    alg = gk_algorithm_parse(ctx, "rst");
    job = alg ? gk_job_new(ctx, p, alg) : NULL;
    int rc = job ? gk_job_compute_window(job, &g, 0, 0, 5, 5, a) : -1;
    CHECKF(rc != 0 && strstr(gk_errmsg(ctx), "no area"), "one x: %s", gk_errmsg(ctx));
    gk_job_free(job);
    gk_algorithm_free(alg);
    gk_points_free(p);
}

/* The derivative bands do not depend on where a window starts: a flat
 * node's mean curvature is the row's last non-flat one even when that node
 * is in another window (GRASS carries it along the row). */
static void derivatives_by_windows(void)
{
    enum { W = 23, H = 9, T = W * H };
    gk_grid g = {0, 100, 20, 60, W, H};
    gk_points *p = lattice_points();
    gk_algorithm *a =
        gk_algorithm_parse(ctx, "rst:npmin=30:zscale=0.01:derivatives=aspect,mcurvature");
    gk_job *job = a ? gk_job_new(ctx, p, a) : NULL;
    static double whole[3 * T], part[3 * 5 * H], split[3 * T];
    CHECK(job && gk_job_bands(job) == 3 && gk_job_compute_window(job, &g, 0, 0, W, H, whole) == 0);
    for (int x0 = 0; job && x0 < W; x0 += 5) {
        const int w = x0 + 5 <= W ? 5 : W - x0;
        CHECK(gk_job_compute_window(job, &g, x0, 0, w, H, part) == 0);
        for (int b = 0; b < 3; b++)
            for (int j = 0; j < H; j++)
                for (int i = 0; i < w; i++)
                    split[b * T + j * W + x0 + i] = part[b * w * H + j * w + i];
    }
    int flat = 0, sloped = 0;
    for (int q = 0; q < T; q++)
        flat += whole[T + q] == 0.0, sloped += whole[T + q] != 0.0;
    CHECKF(flat > 0 && sloped > 0, "flat %d, sloped %d nodes", flat, sloped);
    CHECK(memcmp(whole, split, sizeof whole) == 0);
    gk_job_free(job);
    gk_algorithm_free(a);

    /* partials=yes (v.surf.rst -d): the same nodes' aspect band holds -dz/dy,
     * whose sign gives the aspect's half (north-facing: aspect in (0, 180)),
     * and it is named so; a value that is no yes or no is refused */
    a = gk_algorithm_parse(ctx, "rst:npmin=30:zscale=0.01:derivatives=aspect:partials=yes");
    job = a ? gk_job_new(ctx, p, a) : NULL;
    static double raw[2 * T];
    CHECK(job && gk_job_bands(job) == 2 && gk_job_compute_window(job, &g, 0, 0, W, H, raw) == 0);
    CHECK(job && strstr(gk_job_algorithm_string(job), ":partials=yes") != NULL);
    int agree = 0, sloped2 = 0;
    for (int q = 0; job && q < T; q++)
        if (whole[T + q] != 0.0 && whole[T + q] != 180.0 && whole[T + q] != 360.0) {
            sloped2++;
            agree += (raw[T + q] > 0) == (whole[T + q] < 180.0);
        }
    CHECKF(sloped2 > 0 && agree == sloped2, "-dz/dy's sign and the aspect agree at %d of %d", agree,
           sloped2);
    gk_job_free(job);
    gk_algorithm_free(a);
    a = gk_algorithm_parse(ctx, "rst:derivatives=slope:partials=maybe");
    CHECKF(!a && strstr(gk_errmsg(ctx), "partials=maybe"), "partials=maybe: %s", gk_errmsg(ctx));
    gk_algorithm_free(a);
    /* partials without derivative bands would do nothing: refused */
    a = gk_algorithm_parse(ctx, "rst:partials=yes");
    CHECKF(!a && strstr(gk_errmsg(ctx), "derivatives="), "partials alone: %s", gk_errmsg(ctx));
    gk_algorithm_free(a);
    gk_points_free(p);
}

/* v.surf.rst's segments: made for the whole grid whatever window is asked;
 * its refusals. */
static void segments(void)
{
    enum { W = 31, H = 27, T = W * H };
    gk_grid g = {0, 310, 0, 270, W, H};
    gk_points *p = gk_points_new(ctx);
    unsigned long long s = 99;
    for (int i = 0; i < 400; i++) {
        const double x = 2 + 306 * gk_test_urand(&s), y = 2 + 266 * gk_test_urand(&s);
        gk_points_add(p, x, y, 50 + 0.1 * x - 0.05 * y + 5 * sin(x / 40) * cos(y / 30));
    }
    static double whole[T], part[T], split[T];
    gk_algorithm *a = gk_algorithm_parse(ctx, "rst:segmax=25:npmin=60:dmin=1");
    gk_job *job = a ? gk_job_new(ctx, p, a) : NULL;
    CHECK(job && gk_job_compute_window(job, &g, 0, 0, W, H, whole) == 0);
    for (int y0 = 0; job && y0 < H; y0 += 7)
        for (int x0 = 0; x0 < W; x0 += 6) {
            const int w = x0 + 6 <= W ? 6 : W - x0, h = y0 + 7 <= H ? 7 : H - y0;
            CHECK(gk_job_compute_window(job, &g, x0, y0, w, h, part) == 0);
            for (int j = 0; j < h; j++)
                memcpy(split + (size_t)(y0 + j) * W + x0, part + (size_t)j * w, w * sizeof *part);
        }
    CHECK(memcmp(whole, split, sizeof whole) == 0);
    /* a smooth surface: near the data's own range everywhere */
    double lo = INFINITY, hi = -INFINITY;
    for (int q = 0; q < T; q++)
        lo = fmin(lo, whole[q]), hi = fmax(hi, whole[q]);
    CHECKF(lo > 30 && hi < 90, "segments' range %g .. %g", lo, hi);
    gk_job_free(job);
    gk_algorithm_free(a);

    /* cross-validation: each fold one segment (a grid of one cell has no
     * segments to follow), the same as asking for one segment */
    gk_cv_result r1, r2;
    memset(&r1, 0, sizeof r1), memset(&r2, 0, sizeof r2);
    a = gk_algorithm_parse(ctx, "rst:segmax=25:npmin=60:dmin=1");
    gk_algorithm *one = gk_algorithm_parse(ctx, "rst:segmax=100000:npmin=60:dmin=1");
    CHECK(a && one && gk_crossval(ctx, p, a, 5, 7, &r1) == 0 &&
          gk_crossval(ctx, p, one, 5, 7, &r2) == 0 && r1.n_failed == 0 &&
          r1.rmse == r2.rmse && r1.rmse > 0);
    gk_cv_result_free(&r1), gk_cv_result_free(&r2);
    gk_algorithm_free(a), gk_algorithm_free(one);

    /* the derivatives in segments: the surface's band unchanged, and every
     * band the same whatever the windows (a flat node's mean curvature is
     * carried along its segment's row, which may start in another window);
     * zscale makes some nodes flat */
    {
        static double d1[3 * T], d2[3 * T], dpart[3 * 6 * 7], ds1[T];
        a = gk_algorithm_parse(ctx, "rst:segmax=25:npmin=60:dmin=1:zscale=0.01:"
                                    "derivatives=slope,mcurvature");
        gk_algorithm *plain = gk_algorithm_parse(ctx, "rst:segmax=25:npmin=60:dmin=1:zscale=0.01");
        job = a ? gk_job_new(ctx, p, a) : NULL;
        gk_job *pj = plain ? gk_job_new(ctx, p, plain) : NULL;
        CHECK(job && pj && gk_job_bands(job) == 3 &&
              gk_job_compute_window(job, &g, 0, 0, W, H, d1) == 0 &&
              gk_job_compute_window(pj, &g, 0, 0, W, H, ds1) == 0);
        CHECK(memcmp(d1, ds1, sizeof ds1) == 0);
        for (int y0 = 0; job && y0 < H; y0 += 7)
            for (int x0 = 0; x0 < W; x0 += 6) {
                const int w = x0 + 6 <= W ? 6 : W - x0, h = y0 + 7 <= H ? 7 : H - y0;
                CHECK(gk_job_compute_window(job, &g, x0, y0, w, h, dpart) == 0);
                for (int b = 0; b < 3; b++)
                    for (int j = 0; j < h; j++)
                        memcpy(d2 + b * T + (size_t)(y0 + j) * W + x0,
                               dpart + (size_t)b * w * h + (size_t)j * w, w * sizeof *dpart);
            }
        CHECK(memcmp(d1, d2, sizeof d1) == 0);
        int flat = 0, sloped = 0; /* slope's degrees: flat below atan(0.001) */
        for (int q = 0; q < T; q++)
            flat += d1[T + q] <= 0.0573, sloped += d1[T + q] > 0.0573 && d1[T + q] < 90;
        CHECKF(flat > 0 && sloped > 0 && flat + sloped == T, "flat %d, sloped %d of %d", flat,
               sloped, T);
        gk_job_free(job), gk_job_free(pj);
        gk_algorithm_free(a), gk_algorithm_free(plain);
    }

    /* npmin not above segmax with more than 2 npmin points */
    a = gk_algorithm_parse(ctx, "rst:segmax=25:npmin=20");
    job = a ? gk_job_new(ctx, p, a) : NULL;
    CHECKF(job && gk_job_compute_window(job, &g, 0, 0, 3, 3, part) != 0 &&
               strstr(gk_errmsg(ctx), "must be larger than segmax"),
           "npmin <= segmax: %s", gk_errmsg(ctx));
    gk_job_free(job);
    gk_algorithm_free(a);
    gk_points_free(p);

    /* more than segmax distinct points in one cell */
    p = gk_points_new(ctx);
    for (int i = 0; i < 60; i++)
        gk_points_add(p, 100 + 0.01 * i, 100 + 0.013 * (i % 7), i);
    a = gk_algorithm_parse(ctx, "rst:segmax=10:npmin=40");
    job = a ? gk_job_new(ctx, p, a) : NULL;
    CHECKF(job && gk_job_compute_window(job, &g, 0, 0, 3, 3, part) != 0 &&
               strstr(gk_errmsg(ctx), "too concentrated"),
           "one cell: %s", gk_errmsg(ctx));
    gk_job_free(job);
    gk_algorithm_free(a);
    gk_points_free(p);
}

int main(void)
{
    ctx = gk_context_new();
    gk_context_set_device(ctx, "cpu");
    honours_the_data();
    two_points_and_scales();
    thinning_and_bad_input();
    derivatives_by_windows();
    segments();
    gk_context_free(ctx);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
