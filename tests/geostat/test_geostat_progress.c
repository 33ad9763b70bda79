/* SPDX-License-Identifier: MIT */
/* test_geostat_progress.c - progress and cancel of the long geostatistics
 * calls (gk_crossval_part_ex, gk_variogram_blocks_ex): the callback sees 0
 * first, then shares that never go back, and 1 last; a callback that returns
 * 0 stops the work with GK_ERR_CANCELLED and an empty result; and the
 * results are the same bytes as without a callback, for every way the folds
 * and the pairs are computed, on 1 and 3 threads. */
#include "gridkit.h"
#include "gridkit_geostat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gk_check.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static gk_points *scattered(gk_context *ctx, size_t n)
{
    gk_points *p = gk_points_new(ctx);
    for (size_t i = 0; i < n; i++) {
        double x = 1000.0 * urand(), y = 800.0 * urand();
        gk_points_add(p, x, y, 5.0 + sin(x / 90.0) * cos(y / 70.0) + 0.3 * urand());
    }
    return p;
}

/* What a callback saw; stop_at: the call (0-based) that returns 0, or -1. */
typedef struct {
    int calls, stop_at, bad_order, messages;
    double first, last;
} seen;

static int record(double complete, const char *message, void *user)
{
    seen *s = user;
    if (s->calls == 0)
        s->first = complete;
    else if (complete < s->last || complete < 0.0 || complete > 1.0)
        s->bad_order++;
    s->last = complete;
    s->messages += message != NULL;
    return s->calls++ != s->stop_at;
}

static int same_bits(const double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof a[i]) && !(isnan(a[i]) && isnan(b[i])))
            return 0;
    return 1;
}

static void cv_case(const gk_points *pts, const char *spec, int nfold, int threads, int part,
                    int parts)
{
    gk_context *ctx = gk_context_new();
    gk_context_set_threads(ctx, threads);
    gk_algorithm *alg = gk_algorithm_parse(ctx, spec);
    CHECKF(alg, "%s: %s", spec, gk_errmsg(ctx));
    if (!alg) {
        gk_context_free(ctx);
        return;
    }
    gk_cv_result plain, watched;
    int r0 = gk_crossval_part(ctx, pts, alg, nfold, 7, part, parts, &plain);
    seen s = {0, -1, 0, 0, NAN, NAN};
    int r1 = gk_crossval_part_ex(ctx, pts, alg, nfold, 7, part, parts, record, &s, &watched);
    CHECKF(r0 == 0 && r1 == 0, "%s nfold %d: %d %d %s", spec, nfold, r0, r1, gk_errmsg(ctx));
    if (r0 == 0 && r1 == 0) {
        size_t n = plain.n;
        CHECKF(same_bits(plain.predicted, watched.predicted, n) &&
                   same_bits(plain.variance, watched.variance, n) &&
                   !strcmp(plain.method, watched.method),
               "%s nfold %d threads %d: other predictions with a progress callback", spec, nfold,
               threads);
        CHECKF(s.calls >= 2 && s.first == 0.0 && s.last == 1.0 && !s.bad_order && s.messages == 0,
               "%s nfold %d threads %d part %d/%d (%s): %d calls, first %g, last %g, %d out of "
               "order, %d messages",
               spec, nfold, threads, part, parts, watched.method, s.calls, s.first, s.last,
               s.bad_order, s.messages);
    }
    gk_cv_result_free(&plain);
    gk_cv_result_free(&watched);
    /* cancelled at the first call and at a later one: an error, no result */
    for (int at = 0; at < 2; at++) {
        /* the first call, or the second (global kriging's last) */
        seen c = {0, at, 0, 0, NAN, NAN};
        gk_error_clear(ctx);
        int rc = gk_crossval_part_ex(ctx, pts, alg, nfold, 7, part, parts, record, &c, &watched);
        CHECKF(rc == GK_ERR_CANCELLED && strstr(gk_errmsg(ctx), "cancelled") && watched.n == 0 &&
                   !watched.predicted,
               "%s nfold %d: cancel at call %d gave %d \"%s\" (%d calls)", spec, nfold, c.stop_at,
               rc, gk_errmsg(ctx), c.calls);
        CHECKF(c.calls == c.stop_at + 1, "%s: %d calls after a cancel at call %d", spec, c.calls,
               c.stop_at);
        gk_cv_result_free(&watched);
    }
    gk_algorithm_free(alg);
    gk_context_free(ctx);
}

static void vgm_case(const gk_points *pts, const gk_vgm_options *o, int threads, int part,
                     int parts, const char *what)
{
    gk_context *ctx = gk_context_new();
    gk_context_set_threads(ctx, threads);
    gk_vgm_blocks a, b;
    int r0 = gk_variogram_blocks(ctx, pts, o, part, parts, GK_VGM_CPU, &a);
    seen s = {0, -1, 0, 0, NAN, NAN};
    int r1 = gk_variogram_blocks_ex(ctx, pts, o, part, parts, GK_VGM_CPU, record, &s, &b);
    CHECKF(r0 == 0 && r1 == 0, "%s: %d %d %s", what, r0, r1, gk_errmsg(ctx));
    if (r0 == 0 && r1 == 0) {
        CHECKF(a.bytes == b.bytes && !memcmp(a.data, b.data, a.bytes),
               "%s threads %d: other sums with a progress callback", what, threads);
        CHECKF(s.calls >= 2 && s.first == 0.0 && s.last == 1.0 && !s.bad_order && s.messages == 0,
               "%s threads %d part %d/%d: %d calls, first %g, last %g, %d out of order, %d "
               "messages",
               what, threads, part, parts, s.calls, s.first, s.last, s.bad_order, s.messages);
        if (parts == 1) { /* merged: gk_variogram's numbers */
            gk_vgm v, w;
            int rv = gk_variogram(ctx, pts, o, &v), rw = gk_variogram_merge(ctx, pts, o, &b, &w);
            size_t m = (size_t)v.ndir * (size_t)v.nlags;
            CHECKF(rv == 0 && rw == 0 && v.nlags == w.nlags && same_bits(v.gamma, w.gamma, m) &&
                       same_bits(v.np, w.np, m) && same_bits(v.dist, w.dist, m),
                   "%s: merged sums differ from gk_variogram's", what);
            gk_vgm_free(&v);
            gk_vgm_free(&w);
        }
    }
    gk_vgm_blocks_free(&a);
    gk_vgm_blocks_free(&b);
    for (int at = 0; at < 2; at++) {
        seen c = {0, at, 0, 0, NAN, NAN}; /* the first call, or the second */
        gk_error_clear(ctx);
        int rc = gk_variogram_blocks_ex(ctx, pts, o, part, parts, GK_VGM_CPU, record, &c, &b);
        CHECKF(rc == GK_ERR_CANCELLED && strstr(gk_errmsg(ctx), "cancelled") && !b.data &&
                   b.nblocks == 0,
               "%s: cancel at call %d gave %d \"%s\"", what, c.stop_at, rc, gk_errmsg(ctx));
        gk_vgm_blocks_free(&b);
    }
    gk_context_free(ctx);
}

int main(void)
{
    gk_context *ctx = gk_context_new();
    gk_points *pts = scattered(ctx, 400);
    /* holdout (nearest, invdist with a window, local kriging), a job per
     * fold (invdist with a radius alone, linear, kriging's model=auto) and
     * global kriging's closed form; leave-one-out and 7 folds */
    static const char *const specs[] = {
        "nearest",
        "invdist:radius=150:max_points=12",
        "kriging:model=Exp:psill=0.5:range=200:nugget=0.05:max_points=16",
        "invdist:radius=150",
        "linear",
        "kriging:model=auto:max_points=16",
        "kriging:model=Exp:psill=0.5:range=200:nugget=0.05"};
    for (size_t k = 0; k < sizeof specs / sizeof *specs; k++)
        for (int threads = 1; threads <= 3; threads += 2) {
            if (!strstr(specs[k], "auto")) /* 400 refits: k-fold is enough */
                cv_case(pts, specs[k], 0, threads, 0, 1);
            cv_case(pts, specs[k], 7, threads, 0, 1);
        }
    /* one process's share under MPI: its own points, 0 to 1 */
    cv_case(pts, "nearest", 0, 2, 1, 3);
    cv_case(pts, "invdist:radius=150", 7, 2, 2, 3);

    /* the variogram: every pair (default cutoff), the k-d tree (a short
     * cutoff on more than 2000 points), directions */
    gk_points *many = scattered(ctx, 3000);
    gk_vgm_options o;
    memset(&o, 0, sizeof o);
    for (int threads = 1; threads <= 3; threads += 2) {
        vgm_case(pts, &o, threads, 0, 1, "omnidirectional");
        vgm_case(many, &o, threads, 0, 1, "omnidirectional, 3000 points");
        vgm_case(many, &o, threads, 1, 2, "omnidirectional, part 1 of 2");
        gk_vgm_options t = o;
        t.cutoff = 60;
        vgm_case(many, &t, threads, 0, 1, "k-d tree");
        gk_vgm_options d = o;
        d.ndir = 2;
        d.azimuth[0] = 0;
        d.azimuth[1] = 45;
        vgm_case(many, &d, threads, 0, 1, "two directions");
    }
    gk_points_free(many);
    gk_points_free(pts);
    gk_context_free(ctx);
    printf("%s (%d checks)\n", failures ? "FAILED" : "ok", checks);
    return failures != 0;
}
