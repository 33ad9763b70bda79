/* SPDX-License-Identifier: MIT */
/*
 * test_ridges.c - `curve` against known truth: synthetic curves made here
 * (ridges_synth.h), the lines measured against them (Hausdorff both ways,
 * median distance), their number and closed/open; the same bytes with 1, 2
 * and 3 threads; r1 estimated from the data near the reference's.
 *
 * The bounds, in units of the noise sigma, for r1 = 2 sigma in 2-D and
 * 2.5 sigma in 3-D (the same share of the noise beyond r1, curve_r1.c), or
 * the reference's own r1, and r2 = 2 r1:
 *  - median distance output -> truth <= 0.5 sigma and its 95th percentile
 *    <= sigma: a representative is the mean of the tens of samples of its
 *    ball (standard error about sigma / 5); chords between representatives
 *    at most r2 apart leave a sagitta r2^2 / (8 R), small against sigma on
 *    these radii R; at ends the one-sided ball shifts the mean by up to
 *    r1 / 2, on a few percent of the line.
 *  - Hausdorff output -> truth <= r2 + sigma: Rupniewski's rules keep the
 *    odd representative made in `choose` from a sample in the noise's
 *    fringe (when fewer than 3 others lie within r2 of it); order links it
 *    only to representatives within r2, which lie on the curve within
 *    sigma.
 *  - Hausdorff truth -> output <= r2 + r1: what the lines miss is at the
 *    curves' ends, where the last representative settles inside the end by
 *    about r1 / 2 and may be decimated (one spacing, at most r2).
 *  - width (mean distance of the supporting samples) near the mean absolute
 *    noise across the line: sigma sqrt(2 / pi) = 0.80 sigma in 2-D, sigma
 *    sqrt(pi / 2) = 1.25 sigma in 3-D (two directions across), within 20 %;
 *    n_support >= 97 % of the samples (within r2 >= 4 sigma of the line lie
 *    all but 0.05 % of them; the ends lose a few more).
 */
#include "gk_check.h"
#include "ridges_synth.h"

#include <stdio.h>
#include <string.h>

static double SP_A = 30.0, SP_B = 40.0; /* spiral radius 30 + 40 per turn, 2 turns */
static void spiral(double t, double *p, const double *par)
{
    (void)par;
    double th = 4.0 * M_PI * t, r = SP_A + SP_B * th / (2.0 * M_PI);
    p[0] = r * cos(th), p[1] = r * sin(th);
}
static void segment(double t, double *p, const double *par)
{
    (void)par, p[0] = 100.0 * t, p[1] = 0.0;
}
static void circle(double t, double *p, const double *par)
{
    (void)par;
    p[0] = 500.0 + 100.0 * cos(2 * M_PI * t), p[1] = -200.0 + 100.0 * sin(2 * M_PI * t);
}
static void sine(double t, double *p, const double *par)
{
    (void)par, p[0] = 400.0 * t, p[1] = 30.0 * sin(4.0 * M_PI * t);
}
static void helix(double t, double *p, const double *par)
{
    (void)par;
    double th = 4.0 * M_PI * t;
    p[0] = 50.0 * cos(th), p[1] = 50.0 * sin(th), p[2] = 60.0 * th / (2.0 * M_PI);
}
static void arc_a(double t, double *p, const double *par)
{
    (void)par, p[0] = 200.0 * t, p[1] = 20.0 * sin(M_PI * t);
}
static void arc_b(double t, double *p, const double *par)
{
    (void)par, p[0] = 50.0 + 150.0 * t, p[1] = 120.0 - 30.0 * t;
}

typedef struct {
    const char *name;
    int dim;
    synth_fn f[2]; /* t in [0, 1] */
    int nf;
    size_t n; /* samples per curve */
    double sigma;
    const char *spec;
    size_t lines; /* expected */
    int closed;
} test_case;

typedef struct {
    double r1; /* the r1 the run used (from the canonical string) */
    synth_lines_quality q;
    size_t lines;
} outcome;

static double r1_of(const char *canon)
{
    const char *s = strstr(canon, ":r1=");
    return s ? atof(s + 4) : NAN;
}

/* The case's curves as truths (4001 vertices each) in t, and their noisy
 * samples (seeded per curve). */
static gk_points *make_points(gk_context *ctx, const test_case *tc, synth_curve *t)
{
    gk_points *pts = gk_points_new(ctx);
    double *p = malloc(tc->n * 3 * sizeof *p);
    for (int j = 0; j < tc->nf; j++) {
        t[j] = synth_make(tc->f[j], NULL, 0.0, 1.0, 4001, tc->dim);
        synth_state = 1000 + (uint64_t)j;
        synth_sample(&t[j], tc->n, tc->sigma, p);
        for (size_t i = 0; i < tc->n; i++) {
            const double *q = p + i * (size_t)tc->dim;
            gk_points_add(pts, q[0], q[1], tc->dim == 3 ? q[2] : 0.0);
        }
    }
    free(p);
    return pts;
}

static void free_truths(synth_curve *t, int n)
{
    for (int j = 0; j < n; j++)
        synth_free(&t[j]);
}

static gk_lines *run(gk_context *ctx, gk_points *pts, const char *spec, int dim, int threads,
                     char *canon, size_t cap)
{
    gk_context_set_threads(ctx, threads);
    gk_ridges_method *m = gk_ridges_parse(ctx, spec, dim);
    CHECKF(m != NULL, "%s: %s", spec, gk_errmsg(ctx));
    if (!m)
        return NULL;
    gk_lines *l = gk_ridges(ctx, pts, m, dim, NULL, NULL);
    CHECKF(l != NULL, "%s: %s", spec, gk_errmsg(ctx));
    if (canon)
        snprintf(canon, cap, "%s", gk_ridges_method_string(m));
    gk_ridges_method_free(m);
    return l;
}

/* One case against its truth and the bounds of the file's comment. */
static outcome quality_case(gk_context *ctx, const test_case *tc, const char *spec)
{
    outcome o = {NAN, {0, 0, 0, 0}, 0};
    synth_curve t[2];
    gk_points *pts = make_points(ctx, tc, t);
    char canon[1024] = "";
    gk_lines *l = run(ctx, pts, spec, tc->dim, 0, canon, sizeof canon);
    if (l) {
        synth_lines_quality q = synth_measure_lines(l, t, tc->nf, tc->sigma / 4);
        double r1 = r1_of(canon), r2 = 2.0 * r1, sg = tc->sigma;
        uint64_t sup = 0;
        double width = 0;
        for (size_t i = 0; i < l->n_lines; i++) {
            sup += l->n_support[i];
            width += l->width[i] * (double)l->n_support[i];
        }
        width /= (double)sup;
        double total = (double)(tc->n * (size_t)tc->nf);
        printf("%-9s %-7s n=%-6zu r1=%5.2f sigma: lines %zu%s; distance to truth: median "
               "%.3f, p95 %.3f, Hausdorff out %.3f, in %.3f; width %.3f (sigma); support "
               "%.4f\n",
               tc->name, strstr(spec, "r1=") ? "" : "(est.)", tc->n * tc->nf, r1 / sg, l->n_lines,
               l->n_lines && l->closed[0] ? " closed" : "", q.median / sg, q.p95 / sg, q.h_out / sg,
               q.h_in / sg, width / sg, (double)sup / total);
        CHECKF(l->n_lines == tc->lines, "%s: %zu lines", tc->name, l->n_lines);
        for (size_t i = 0; i < l->n_lines; i++)
            CHECKF(l->closed[i] == tc->closed, "%s: line %zu closed=%d", tc->name, i, l->closed[i]);
        CHECKF(q.median <= 0.5 * sg, "%s: median %g", tc->name, q.median);
        CHECKF(q.p95 <= sg, "%s: 95th percentile %g", tc->name, q.p95);
        CHECKF(q.h_out <= r2 + sg, "%s: Hausdorff out %g", tc->name, q.h_out);
        CHECKF(q.h_in <= r2 + r1, "%s: Hausdorff in %g", tc->name, q.h_in);
        double w = tc->dim == 2 ? sqrt(2.0 / M_PI) : sqrt(M_PI / 2.0);
        CHECKF(fabs(width / sg - w) <= 0.2 * w, "%s: width %g sigma", tc->name, width / sg);
        CHECKF((double)sup >= 0.97 * total, "%s: support %g", tc->name, (double)sup / total);
        CHECKF(l->warning == NULL, "%s: warning %s", tc->name, l->warning);
        o = (outcome){r1, q, l->n_lines};
        gk_lines_free(l);
    }
    gk_points_free(pts);
    free_truths(t, tc->nf);
    return o;
}

static const test_case CASES[] = {
    /* the reference's seed cases */
    {"spiral", 2, {spiral}, 1, 20000, 4.17, "curve:r1=8.34:r2=16.68", 1, 0},
    {"segment", 2, {segment}, 1, 2000, 2.17, "curve:r1=3.689", 1, 0},
    /* noise 0.5 % of the length (628) */
    {"circle", 2, {circle}, 1, 5000, 3.0, "curve:r1=6", 1, 1},
    /* 120 apart at x = 50, far beyond gap = 4 r1 */
    {"two", 2, {arc_a, arc_b}, 2, 3000, 2.0, "curve:r1=4", 2, 0},
    /* length 470, noise 0.6 %, curvature radius 34 at the crests */
    {"sine", 2, {sine}, 1, 5000, 3.0, "curve:r1=6", 1, 0},
    /* length 640, noise 0.5 %; r1 = 2.5 sigma in 3-D */
    {"helix", 3, {helix}, 1, 10000, 3.0, "curve:r1=7.5", 1, 0},
    /* 1e5 samples */
    {"spiral1e5", 2, {spiral}, 1, 100000, 4.17, "curve:r1=8.34:r2=16.68", 1, 0},
};

/* Every array of two results, byte for byte. */
static int same_lines(const gk_lines *a, const gk_lines *b)
{
    if (!a || !b || a->n_lines != b->n_lines || a->dim != b->dim)
        return 0;
    size_t nl = a->n_lines, nv = a->start[nl];
    return !memcmp(a->start, b->start, (nl + 1) * sizeof *a->start) &&
           !memcmp(a->x, b->x, nv * sizeof(double)) && !memcmp(a->y, b->y, nv * sizeof(double)) &&
           (a->dim == 2 || !memcmp(a->z, b->z, nv * sizeof(double))) &&
           !memcmp(a->length, b->length, nl * sizeof(double)) &&
           !memcmp(a->n_support, b->n_support, nl * sizeof(uint64_t)) &&
           !memcmp(a->closed, b->closed, nl * sizeof(int)) &&
           !memcmp(a->width, b->width, nl * sizeof(double));
}

/* The same bytes with 1, 2 and 3 threads (r1 given, then estimated). */
static void same_bytes(gk_context *ctx, const test_case *tc, const char *spec)
{
    synth_curve t[2];
    gk_points *pts = make_points(ctx, tc, t);
    gk_lines *one = run(ctx, pts, spec, tc->dim, 1, NULL, 0);
    for (int th = 2; th <= 3; th++) {
        gk_lines *l = run(ctx, pts, spec, tc->dim, th, NULL, 0);
        CHECKF(same_lines(one, l), "%s %s: threads 1 and %d differ", tc->name, spec, th);
        gk_lines_free(l);
    }
    gk_lines_free(one);
    gk_points_free(pts);
    free_truths(t, tc->nf);
}

int main(void)
{
    gk_context *ctx = gk_context_new();
    gk_context_request_device(ctx, "cpu");
    size_t n_cases = sizeof CASES / sizeof CASES[0];
    for (size_t i = 0; i < n_cases; i++)
        quality_case(ctx, &CASES[i], CASES[i].spec);
    /* r1 estimated: the seed cases within 25 % of the reference's r1 (the
     * reference found 1.7-2 sigma to work; the rule aims at 2 sigma), and the
     * same quality bounds for every case (which then use the estimate; the
     * 1e5-point spiral once is enough for the test's time). */
    for (size_t i = 0; i + 1 < n_cases; i++) {
        outcome o = quality_case(ctx, &CASES[i], "curve");
        double ref =
            i < 2 ? r1_of(CASES[i].spec) : (CASES[i].dim == 2 ? 2.0 : 2.5) * CASES[i].sigma;
        CHECKF(o.r1 >= ref / 1.25 && o.r1 <= ref * 1.25, "%s: r1 estimated %g, reference %g",
               CASES[i].name, o.r1, ref);
    }
    /* enough samples for the threaded paths (curve_evolve.c's PAR_MIN) */
    same_bytes(ctx, &CASES[0], CASES[0].spec);
    test_case helix2 = CASES[5], circle2 = CASES[2];
    helix2.n = circle2.n = 20000;
    same_bytes(ctx, &helix2, "curve");
    same_bytes(ctx, &circle2, circle2.spec);
    gk_context_free(ctx);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
