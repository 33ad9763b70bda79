/* SPDX-License-Identifier: MIT */
/*
 * test_ridges_input.c - the -a strings of `gridkit ridges` (canonical
 * strings that parse back to themselves, each bad value an error naming its
 * key) and gk_ridges() on bad or degenerate input: fewer than 3 points, all
 * points at one place, NaN coordinates, exactly collinear points (a
 * segment, which must work), an iteration cap, cancelling.
 */
#include "gk_check.h"
#include "gridkit_ridges.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void round_trip(gk_context *ctx, const char *spec, int dim)
{
    gk_ridges_method *m = gk_ridges_parse(ctx, spec, dim);
    CHECKF(m != NULL, "%s: %s", spec, gk_errmsg(ctx));
    if (!m)
        return;
    char first[1024];
    snprintf(first, sizeof first, "%s", gk_ridges_method_string(m));
    gk_ridges_method *again = gk_ridges_parse(ctx, first, dim);
    CHECKF(again && !strcmp(first, gk_ridges_method_string(again)), "%s -> %s -> %s", spec, first,
           again ? gk_ridges_method_string(again) : gk_errmsg(ctx));
    gk_ridges_method_free(again);
    gk_ridges_method_free(m);
}

/* spec must fail, the message naming `word`. */
static void bad_spec(gk_context *ctx, const char *spec, const char *word)
{
    gk_error_clear(ctx);
    gk_ridges_method *m = gk_ridges_parse(ctx, spec, 2);
    CHECKF(m == NULL, "%s parsed", spec);
    CHECKF(gk_errno(ctx) == GK_ERR_ARG, "%s: code %d", spec, gk_errno(ctx));
    CHECKF(strstr(gk_errmsg(ctx), word) != NULL, "%s: message '%s' does not name %s", spec,
           gk_errmsg(ctx), word);
    gk_ridges_method_free(m);
}

static void parser(gk_context *ctx)
{
    const char *good[] = {"curve",
                          "curve:r1=8.34",
                          "curve:r1=8.34:r2=16.68",
                          "curve:r1=3.689:gap=0",
                          "curve:r2=10",
                          "CURVE:R1=2:max_iter=5",
                          "curve:r1=1:min_length=20:simplify=0.5:max_rounds=7",
                          "density",
                          "density:bandwidth=2",
                          "density:bandwidth=2:threshold=0.05:threshold_mode=absolute:seeds=mesh",
                          "density:spacing=0.3:tolerance=0.001:cutoff=3:angle=30:min_length=0",
                          "density:max_iter=50:simplify=1"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        round_trip(ctx, good[i], 2);
        round_trip(ctx, good[i], 3);
    }
    gk_ridges_method *m = gk_ridges_parse(ctx, "curve:r1=8.34", 2);
    CHECK(m && !strcmp(gk_ridges_method_name(m), "curve"));
    CHECKF(m && !strcmp(gk_ridges_method_string(m), "curve:r1=8.34:r2=16.68:gap=33.36:"
                                                    "max_iter=1000:max_rounds=100:"
                                                    "min_length=0:simplify=0"),
           "%s", m ? gk_ridges_method_string(m) : "");
    gk_ridges_method_free(m);
    m = gk_ridges_parse(ctx, "curve", 2);
    CHECKF(m && strstr(gk_ridges_method_string(m), "r1=auto:r2=auto:gap=auto"), "%s",
           m ? gk_ridges_method_string(m) : "");
    gk_ridges_method_free(m);
    m = gk_ridges_parse(ctx, "density:bandwidth=2", 2);
    CHECK(m && !strcmp(gk_ridges_method_name(m), "density"));
    CHECKF(m && strstr(gk_ridges_method_string(m), ":spacing=1:") &&
               strstr(gk_ridges_method_string(m), ":min_length=8:"),
           "%s", m ? gk_ridges_method_string(m) : "");
    gk_ridges_method_free(m);
    bad_spec(ctx, "curve:r1=0", "r1");
    bad_spec(ctx, "curve:r1=-1", "r1");
    bad_spec(ctx, "curve:r1=abc", "r1");
    bad_spec(ctx, "curve:r1=inf", "r1");
    bad_spec(ctx, "curve:r1=5:r2=4", "r2");
    bad_spec(ctx, "curve:r3=1", "r3");
    bad_spec(ctx, "curve:gap=-1", "gap");
    bad_spec(ctx, "curve:max_iter=0", "max_iter");
    bad_spec(ctx, "curve:max_rounds=2.5", "max_rounds");
    bad_spec(ctx, "curve:bandwidth=1", "bandwidth");
    bad_spec(ctx, "curve:r1", "r1");
    bad_spec(ctx, "ridge:r1=1", "ridge");
    bad_spec(ctx, "density:bandwidth=0", "bandwidth");
    bad_spec(ctx, "density:bandwidth=nan", "bandwidth");
    bad_spec(ctx, "density:tolerance=1", "tolerance");
    bad_spec(ctx, "density:tolerance=0", "tolerance");
    bad_spec(ctx, "density:threshold=-0.1", "threshold");
    bad_spec(ctx, "density:angle=0", "angle");
    bad_spec(ctx, "density:angle=91", "angle");
    bad_spec(ctx, "density:seeds=grid", "seeds");
    bad_spec(ctx, "density:threshold_mode=max", "threshold_mode");
    bad_spec(ctx, "density:r1=2", "r1");
    /* a subnormal is called what it is (it was "not a finite number") */
    bad_spec(ctx, "density:bandwidth=5e-324", "bandwidth=5e-324 is below 2.2250738585072014e-308");
    bad_spec(ctx, "curve:r1=1e-400", "r1=1e-400 is below 2.2250738585072014e-308");
    bad_spec(ctx, "curve:r1=1e400", "r1=1e400 is beyond");
    /* walks that could not end in time, refused with the bound */
    bad_spec(ctx, "density:tolerance=1e-300",
             "tolerance=1e-300 must be from 2.220446049250313e-16");
    bad_spec(ctx, "density:max_iter=1000000001", "from 1 to 1000000");
    round_trip(ctx, "density:tolerance=2.220446049250313e-16:max_iter=1000000", 2);
    round_trip(ctx, "curve:max_iter=1000000000", 2);
    /* defaults that overflow (gap = 2 r2, r2 = 2 r1, min_length = 4 h) read
     * back: they were written as "inf", which does not parse */
    round_trip(ctx, "curve:r2=1e308", 2);
    round_trip(ctx, "curve:r1=1e308", 3);
    round_trip(ctx, "density:bandwidth=1e308", 2);
    CHECK(gk_ridges_parse(ctx, "curve", 4) == NULL && gk_errno(ctx) == GK_ERR_ARG);
    const char *help = gk_ridges_methods_help();
    CHECK(strstr(help, "curve:r1=") && strstr(help, "density:bandwidth=") &&
          strstr(help, "max_rounds") && strstr(help, "threshold_mode"));
}

/* gk_ridges on pts must fail with code, the message naming word. */
static void bad_points(gk_context *ctx, gk_points *pts, int code, const char *word)
{
    gk_ridges_method *m = gk_ridges_parse(ctx, "curve:r1=1", 2);
    gk_error_clear(ctx);
    gk_lines *l = gk_ridges(ctx, pts, m, 2, NULL, NULL);
    CHECKF(l == NULL && gk_errno(ctx) == code, "%zu points: code %d", gk_points_count(pts),
           gk_errno(ctx));
    CHECKF(strstr(gk_errmsg(ctx), word) != NULL, "message '%s' does not say '%s'", gk_errmsg(ctx),
           word);
    gk_lines_free(l);
    gk_ridges_method_free(m);
}

static int cancel_at_once(double complete, const char *msg, void *user)
{
    (void)complete, (void)msg;
    (*(int *)user)++;
    return 0;
}

/* 201 samples of the segment (0, 0) - (100, 50) exactly, plus extra. */
static gk_points *collinear(gk_context *ctx)
{
    gk_points *pts = gk_points_new(ctx);
    for (int i = 0; i <= 200; i++)
        gk_points_add(pts, 0.5 * i, 0.25 * i, 0.0);
    return pts;
}

/* One open line along the segment, its ends within r1 of the true ones. */
static void check_segment(gk_context *ctx, gk_points *pts, const char *spec, double tol)
{
    gk_ridges_method *m = gk_ridges_parse(ctx, spec, 2);
    gk_lines *l = m ? gk_ridges(ctx, pts, m, 2, NULL, NULL) : NULL;
    CHECKF(l != NULL, "%s: %s", spec, gk_errmsg(ctx));
    if (l) {
        CHECKF(l->n_lines == 1 && !l->closed[0], "%s: %zu lines", spec, l->n_lines);
        size_t a = l->start[0], b = l->start[l->n_lines] - 1;
        for (size_t i = a; i <= b; i++) /* on the line y = x / 2 (to rounding) */
            CHECKF(fabs(l->y[i] - 0.5 * l->x[i]) < 1e-9, "%s: vertex %zu off", spec, i);
        CHECKF(hypot(l->x[a], l->y[a]) <= tol && hypot(l->x[b] - 100, l->y[b] - 50) <= tol,
               "%s: ends (%g %g) (%g %g)", spec, l->x[a], l->y[a], l->x[b], l->y[b]);
    }
    gk_lines_free(l);
    gk_ridges_method_free(m);
}

static void degenerate(gk_context *ctx)
{
    gk_points *pts = gk_points_new(ctx);
    bad_points(ctx, pts, GK_ERR_NO_POINTS, "at least 3");
    gk_points_add(pts, 1, 2, 0);
    gk_points_add(pts, 3, 4, 0);
    bad_points(ctx, pts, GK_ERR_NO_POINTS, "at least 3");
    gk_points_add(pts, NAN, 4, 0); /* NaN: skipped, still 2 */
    bad_points(ctx, pts, GK_ERR_NO_POINTS, "1 skipped");
    gk_points_free(pts);
    pts = gk_points_new(ctx);
    for (int i = 0; i < 100; i++)
        gk_points_add(pts, 7.5, -3.25, 0);
    bad_points(ctx, pts, GK_ERR_ARG, "same place");
    gk_points_free(pts);

    /* exactly collinear, evenly spaced 0.56 apart: r1 given, and estimated
     * (no noise: the floor of 6 spacings); an end representative settles
     * inside its end by up to r1 / 2 + one spacing < r1. */
    pts = collinear(ctx);
    check_segment(ctx, pts, "curve:r1=2", 2.0);
    check_segment(ctx, pts, "curve", 6.0 * 0.56);
    gk_points_add(pts, NAN, 1, 0);
    gk_points_add(pts, 1, INFINITY, 0);
    gk_ridges_method *m = gk_ridges_parse(ctx, "curve:r1=2", 2);
    gk_lines *l = gk_ridges(ctx, pts, m, 2, NULL, NULL);
    CHECKF(l && l->n_lines == 1 && l->warning && strstr(l->warning, "2 points with NaN"), "NaN: %s",
           l && l->warning ? l->warning : gk_errmsg(ctx));
    gk_lines_free(l);
    /* 3-D needs z: a NaN z is a skipped point too */
    l = gk_ridges(ctx, pts, m, 3, NULL, NULL);
    CHECKF(l && l->dim == 3 && l->z && l->n_lines == 1, "3-D: %s", gk_errmsg(ctx));
    gk_lines_free(l);

    /* samples too far apart for r1: no line, and a warning says so */
    gk_points *far = gk_points_new(ctx);
    for (int i = 0; i < 3; i++)
        gk_points_add(far, 100.0 * i, 0, 0);
    l = gk_ridges(ctx, far, m, 2, NULL, NULL);
    CHECKF(l && l->n_lines == 0 && l->warning && strstr(l->warning, "no line found"), "far: %s",
           l && l->warning ? l->warning : gk_errmsg(ctx));
    gk_lines_free(l);
    gk_points_free(far);
    gk_ridges_method_free(m);

    /* a cap that is hit says which, its value and how to raise it */
    m = gk_ridges_parse(ctx, "curve:r1=2:max_iter=1:max_rounds=1", 2);
    l = gk_ridges(ctx, pts, m, 2, NULL, NULL);
    CHECKF(l && l->warning && strstr(l->warning, "max_iter=1") &&
               strstr(l->warning, "max_rounds=1") && strstr(l->warning, "raise"),
           "cap: %s", l && l->warning ? l->warning : "(none)");
    gk_lines_free(l);
    gk_ridges_method_free(m);

    int calls = 0;
    m = gk_ridges_parse(ctx, "curve:r1=2", 2);
    l = gk_ridges(ctx, pts, m, 2, cancel_at_once, &calls);
    CHECK(l == NULL && gk_errno(ctx) == GK_ERR_CANCELLED && calls == 1);
    gk_ridges_method_free(m);
    gk_points_free(pts);
}

int main(void)
{
    gk_context *ctx = gk_context_new();
    gk_context_request_device(ctx, "cpu");
    parser(ctx);
    degenerate(ctx);
    gk_context_free(ctx);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
