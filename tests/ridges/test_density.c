/* SPDX-License-Identifier: MIT */
/* test_density.c - `density` (algorithms/ridges/density.c) at the graph
 * level: ridge vertices of noisy synthetic curves against the true curve,
 * rings kept as cycles, the same bits on 1 and 3 threads, bad input.
 *
 * The bounds, for noise sigma and bandwidth h (tau^2 = sigma^2 + h^2, the
 * smoothed profile's variance across the curve):
 *  - median distance <= 0.25 tau + bend: a straight ridge of the smoothed
 *    density is unbiased, and its place scatters by about tau / sqrt(k)
 *    for the k ~ 2 h n / L samples that carry it (>= 16 here, so < tau / 4);
 *    a ring of radius R has its ridge tau^2 / (2 R) inside (the smoothed
 *    ring's maximum; the "bend" term).
 *  - Hausdorff (both ways) <= 2 tau + bend: the scatter's tail at the
 *    vertices, and an open curve's ends, where the density halves over a
 *    distance tau and the relative threshold trims the last stretch.
 */
#include "gk_check.h"
#include "ridge_graph_util.h"
#include "ridges_synth.h"
#include "ridges/density.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static gk_ridges_method defaults(double h)
{
    gk_ridges_method m;
    memset(&m, 0, sizeof m);
    m.kind = GK_RIDGE_DENSITY;
    m.bandwidth = h;
    m.bandwidth_given = h > 0.0;
    m.threshold = 0.1;
    m.tolerance = 1e-4;
    m.max_iter_scms = 200;
    m.cutoff = 4.0;
    m.angle = 45.0;
    return m;
}

static void graph_free(gk_ridge_graph *g)
{
    free(g->v);
    free(g->density);
    free(g->e);
    memset(g, 0, sizeof *g);
}

typedef struct {
    const char *name;
    int ncurves;
    synth_curve c[2];
    size_t n;
    double sigma, h, bend;
    int rings, comps; /* expected cycles and components */
} scene;

/* Runs density on the scene's samples and checks the bounds above. */
static void run_scene(scene *s, int mesh)
{
    int dim = s->c[0].dim;
    double *p = malloc(s->n * (size_t)dim * sizeof(double));
    size_t per = s->n / (size_t)s->ncurves;
    for (int j = 0; j < s->ncurves; j++)
        synth_sample(&s->c[j], j + 1 < s->ncurves ? per : s->n - per * (size_t)j, s->sigma,
                     p + per * (size_t)j * (size_t)dim);
    gk_context *ctx = gk_context_new();
    gk_cloud cl = {dim, s->n, p};
    gk_ridges_method m = defaults(s->h);
    m.seeds_mesh = mesh;
    gk_ridge_graph g;
    char *warn = NULL;
    int rc = gk_density_graph(ctx, &cl, &m, &g, &warn, NULL, NULL);
    CHECKF(rc == GK_OK, "%s: %s", s->name, gk_errmsg(ctx));
    double h = m.bandwidth, tau = sqrt(s->sigma * s->sigma + h * h), med, haus, cover, *kv;
    size_t cyc, nk, nc = components(&g, 4.0 * h, &cyc, &kv, &nk);
    synth_quality(s->c, s->ncurves, kv, nk, &med, &haus, &cover);
    if (getenv("GK_DEBUG_DUMP")) {
        char fn[256];
        snprintf(fn, sizeof fn, "%s/%s_%d.txt", getenv("GK_DEBUG_DUMP"), s->name, mesh);
        FILE *f = fopen(fn, "w");
        fprintf(f, "%d %zu %zu %zu\n", dim, s->n, g.n_v, g.n_e);
        for (size_t i = 0; i < s->n * (size_t)dim; i++)
            fprintf(f, "%.17g\n", p[i]);
        for (size_t i = 0; i < g.n_v * (size_t)dim; i++)
            fprintf(f, "%.17g\n", g.v[i]);
        for (size_t i = 0; i < 2 * g.n_e; i++)
            fprintf(f, "%u\n", g.e[i]);
        fclose(f);
    }
    printf("%-10s %s h=%.3f sigma=%.2f tau=%.3f: %zu vertices (%zu in %zu components of >= 4 h, "
           "%zu with a cycle) %zu edges; median %.3f max %.3f cover %.3f%s%s\n",
           s->name, mesh ? "mesh" : "data", h, s->sigma, tau, g.n_v, nk, nc, cyc, g.n_e, med, haus,
           cover, warn ? "; " : "", warn ? warn : "");
    CHECKF(med <= 0.25 * tau + s->bend, "%s: median %g", s->name, med);
    CHECKF(haus <= 2.0 * tau + s->bend, "%s: Hausdorff (ridge to curve) %g", s->name, haus);
    CHECKF(cover <= 2.0 * tau + s->bend, "%s: Hausdorff (curve to ridge) %g", s->name, cover);
    CHECKF(nc == (size_t)s->comps, "%s: %zu components", s->name, nc);
    CHECKF(cyc == (size_t)s->rings, "%s: %zu cycles", s->name, cyc);
    free(warn);
    free(kv);
    graph_free(&g);
    gk_context_free(ctx);
    free(p);
}

static void test_scenes(void)
{
    double circ[3] = {0.0, 0.0, 50.0}, seg[4] = {0.0, 0.0, 100.0, 0.0}, spi[2] = {20.0, 12.0};
    double c2[3] = {0.0, 0.0, 30.0}, s2[4] = {60.0, -30.0, 60.0, 30.0}, hel[2] = {30.0, 8.0};
    synth_state = 24;
    scene sc[] = {
        {"circle",
         1,
         {synth_make(f_circle, circ, 0.0, 2.0 * M_PI, 4000, 2)},
         2000,
         3.0,
         0.0,
         0.0,
         1,
         1},
        {"segment", 1, {synth_make(f_line, seg, 0.0, 1.0, 2000, 2)}, 1000, 2.17, 0.0, 0.0, 0, 1},
        {"spiral",
         1,
         {synth_make(f_spiral, spi, 0.0, 4.0 * M_PI, 8000, 2)},
         4000,
         4.17,
         0.0,
         0.0,
         0,
         1},
        {"two curves",
         2,
         {synth_make(f_circle, c2, 0.0, 2.0 * M_PI, 4000, 2),
          synth_make(f_line, s2, 0.0, 1.0, 2000, 2)},
         2400,
         1.5,
         0.0,
         0.0,
         1,
         2},
        {"helix 3-D",
         1,
         {synth_make(f_helix, hel, 0.0, 4.0 * M_PI, 8000, 3)},
         3000,
         2.0,
         0.0,
         0.0,
         0,
         1},
    };
    for (size_t i = 0; i < sizeof sc / sizeof sc[0]; i++) {
        /* bend: tau^2 / (2 R) at the tightest radius (spiral: its start, 20; helix: 30 + pitch) */
        double R = i == 0 ? 50.0 : i == 2 ? 20.0 : i == 3 ? 30.0 : i == 4 ? 32.0 : INFINITY;
        double t2 = 4.0 * sc[i].sigma * sc[i].sigma; /* tau^2 for h up to sigma * sqrt(3) */
        sc[i].bend = t2 / (2.0 * R);
        run_scene(&sc[i], 0);
        if (i == 0 || i == 4) /* seeds=mesh in 2-D and 3-D */
            run_scene(&sc[i], 1);
        for (int j = 0; j < sc[i].ncurves; j++)
            synth_free(&sc[i].c[j]);
    }
}

/* The same points on 1 and 3 threads: the same graph, bit for bit. */
static void test_threads(void)
{
    double spi[2] = {20.0, 12.0};
    synth_curve c = synth_make(f_spiral, spi, 0.0, 4.0 * M_PI, 8000, 2);
    size_t n = 3000;
    double *p = malloc(n * 2 * sizeof(double));
    synth_state = 7;
    synth_sample(&c, n, 4.17, p);
    gk_cloud cl = {2, n, p};
    gk_ridge_graph g[2];
    for (int k = 0; k < 2; k++) {
        gk_context *ctx = gk_context_new();
        gk_context_set_threads(ctx, k ? 3 : 1);
        gk_ridges_method m = defaults(0.0);
        char *warn = NULL;
        CHECK(gk_density_graph(ctx, &cl, &m, &g[k], &warn, NULL, NULL) == GK_OK);
        free(warn);
        gk_context_free(ctx);
    }
    CHECK_EQ_SZ(g[1].n_v, g[0].n_v);
    CHECK_EQ_SZ(g[1].n_e, g[0].n_e);
    if (g[0].n_v == g[1].n_v && g[0].n_e == g[1].n_e) {
        CHECK(memcmp(g[0].v, g[1].v, g[0].n_v * 2 * sizeof(double)) == 0);
        CHECK(memcmp(g[0].density, g[1].density, g[0].n_v * sizeof(double)) == 0);
        CHECK(memcmp(g[0].e, g[1].e, g[0].n_e * 2 * sizeof(uint32_t)) == 0);
    }
    graph_free(&g[0]);
    graph_free(&g[1]);
    synth_free(&c);
    free(p);
}

/* The default bandwidth measures the noise: on a straight band of sigma
 * 2.17 (the width of the noisy segment in docs/ridges.md's example) and a
 * 3-D helix of sigma 2, within 20 % (the
 * local PCA truncates the profile at ~4 sigma, -3 %; 512 centres of ~100
 * points each leave a few % of scatter in the median). */
static void test_bandwidth_rule(void)
{
    double seg[4] = {0.0, 0.0, 100.0, 0.0}, hel[2] = {30.0, 8.0};
    synth_curve c = synth_make(f_line, seg, 0.0, 1.0, 2000, 2);
    synth_curve hx = synth_make(f_helix, hel, 0.0, 4.0 * M_PI, 8000, 3);
    double *p = malloc(3000 * 3 * sizeof(double));
    synth_state = 11;
    synth_sample(&c, 1000, 2.17, p);
    gk_cloud cl = {2, 1000, p};
    double h = gk_density_bandwidth(&cl, 2);
    printf("bandwidth rule: segment sigma 2.17 -> h %.3f\n", h);
    CHECK(h >= 0.8 * 2.17 && h <= 1.2 * 2.17);
    synth_sample(&hx, 3000, 2.0, p);
    gk_cloud c3 = {3, 3000, p};
    h = gk_density_bandwidth(&c3, 2);
    printf("bandwidth rule: helix sigma 2 -> h %.3f\n", h);
    CHECK(h >= 0.8 * 2.0 && h <= 1.2 * 2.0);
    /* noise-free samples 1.118 apart on a line: the floor, 8 spacings (the
     * spacing estimate 2 r / count, count = 2 floor(r / spacing) + 1 >= 5
     * points within r, is within 25 % of the spacing) */
    for (size_t i = 0; i < 200; i++) {
        p[2 * i] = (double)i;
        p[2 * i + 1] = 0.5 * (double)i;
    }
    gk_cloud cf = {2, 200, p};
    h = gk_density_bandwidth(&cf, 2);
    printf("bandwidth rule: clean line, spacing 1.118 -> h %.3f\n", h);
    CHECK(h >= 0.75 * 8.0 * 1.118 && h <= 1.25 * 8.0 * 1.118);
    synth_free(&c);
    synth_free(&hx);
    free(p);
}

static void expect_error(const char *what, gk_ridges_method m, const double *p, size_t n,
                         const char *needle)
{
    gk_context *ctx = gk_context_new();
    gk_cloud cl = {2, n, (double *)p};
    gk_ridge_graph g;
    char *warn = NULL;
    int rc = gk_density_graph(ctx, &cl, &m, &g, &warn, NULL, NULL);
    CHECKF(rc == GK_ERR_ARG, "%s: rc %d", what, rc);
    CHECKF(strstr(gk_errmsg(ctx), needle) != NULL, "%s: message '%s'", what, gk_errmsg(ctx));
    CHECKF(g.n_v == 0 && g.v == NULL && warn == NULL, "%s: output left", what);
    gk_context_free(ctx);
}

static void test_bad_input(void)
{
    double p[40];
    for (int i = 0; i < 20; i++) {
        p[2 * i] = i;
        p[2 * i + 1] = (i * 7) % 5;
    }
    gk_ridges_method m = defaults(1.0);
    m.bandwidth = 0.0;
    expect_error("bandwidth 0", m, p, 20, "bandwidth");
    m.bandwidth = NAN;
    expect_error("bandwidth NaN", m, p, 20, "bandwidth");
    m.bandwidth = -2.0;
    expect_error("bandwidth < 0", m, p, 20, "bandwidth");
    double tol[3] = {0.0, 1.0, -1e-3};
    for (int i = 0; i < 3; i++) {
        m = defaults(1.0);
        m.tolerance = tol[i];
        expect_error("tolerance", m, p, 20, "tolerance");
    }
    m = defaults(1.0);
    m.threshold = -0.1;
    expect_error("threshold < 0", m, p, 20, "threshold");
    m = defaults(1.0);
    m.angle = 0.0;
    expect_error("angle 0", m, p, 20, "angle");
    m = defaults(1.0);
    m.bandwidth = INFINITY;
    expect_error("bandwidth inf", m, p, 20, "bandwidth=inf: must be a finite number > 0");
    m = defaults(1.0);
    m.threshold = INFINITY;
    expect_error("threshold inf", m, p, 20, "threshold=inf: must be >= 0");
    m = defaults(1.0);
    m.threshold = 1.5; /* relative: a fraction of the largest density */
    expect_error("threshold > 1, relative", m, p, 20, "threshold=1.5: must be >= 0");
    m = defaults(1.0);
    m.angle = 90.5;
    expect_error("angle > 90", m, p, 20, "angle=90.5: must be in (0, 90]");
    const double cut[2] = {0.0, INFINITY};
    for (int i = 0; i < 2; i++) {
        m = defaults(1.0);
        m.cutoff = cut[i];
        expect_error("cutoff", m, p, 20, "cutoff=");
    }
    const int iters[2] = {0, GK_SCMS_ITER_MAX + 1};
    for (int i = 0; i < 2; i++) {
        m = defaults(1.0);
        m.max_iter_scms = iters[i];
        expect_error("max_iter", m, p, 20, "max_iter=");
    }
    const double sp[2] = {NAN, -INFINITY};
    for (int i = 0; i < 2; i++) {
        m = defaults(1.0);
        m.spacing = sp[i];
        expect_error("spacing", m, p, 20, "spacing=");
    }
    {
        gk_context *dctx = gk_context_new();
        gk_cloud c4 = {4, 10, p}; /* 10 points of 4 coordinates */
        gk_ridge_graph g4;
        char *w4 = NULL;
        m = defaults(1.0);
        CHECK(gk_density_graph(dctx, &c4, &m, &g4, &w4, NULL, NULL) == GK_ERR_ARG);
        CHECKF(strstr(gk_errmsg(dctx), "points of 4 dimensions (2 or 3 expected)"), "%s",
               gk_errmsg(dctx));
        gk_context_free(dctx);
    }
    m = defaults(1.0);
    expect_error("2 points", m, p, 2, "at least 3");
    double same[10] = {3, 4, 3, 4, 3, 4, 3, 4, 3, 4};
    expect_error("identical", m, same, 5, "identical");
    m = defaults(0.0);
    expect_error("identical, estimated h", m, same, 5, "identical");
    p[7] = NAN;
    expect_error("NaN point", defaults(1.0), p, 20, "point 3");
    p[7] = 1.0;
    /* collinear points are a valid input: one straight ridge */
    for (int i = 0; i < 20; i++)
        p[2 * i + 1] = 2.0 * p[2 * i];
    gk_context *ctx = gk_context_new();
    gk_cloud cl = {2, 20, p};
    gk_ridge_graph g;
    char *warn = NULL;
    m = defaults(0.0);
    CHECKF(gk_density_graph(ctx, &cl, &m, &g, &warn, NULL, NULL) == GK_OK, "%s", gk_errmsg(ctx));
    CHECK(g.n_e >= 1);
    free(warn);
    graph_free(&g);
    gk_context_free(ctx);
}

/* threshold_mode=absolute against the densities it reports, and max_iter's
 * warning. The density is a probability density (integral 1): on the
 * circle (2,000 points, radius 50, sigma 3) the ridge's is about
 * 1 / (2 pi R sqrt(2 pi) tau) = 2.4e-4, so an absolute threshold of 1 keeps
 * nothing, and one at half the largest vertex density keeps the vertices
 * above it only. */
static void test_modes(void)
{
    double circ[3] = {0.0, 0.0, 50.0};
    synth_curve c = synth_make(f_circle, circ, 0.0, 2.0 * M_PI, 4000, 2);
    double *p = malloc(2000 * 2 * sizeof(double));
    synth_state = 3;
    synth_sample(&c, 2000, 3.0, p);
    gk_cloud cl = {2, 2000, p};
    gk_context *ctx = gk_context_new();
    gk_ridges_method m = defaults(0.0);
    gk_ridge_graph g;
    char *warn = NULL;
    CHECK(gk_density_graph(ctx, &cl, &m, &g, &warn, NULL, NULL) == GK_OK);
    double top = 0.0, expect = 1.0 / (2.0 * M_PI * 50.0 * sqrt(2.0 * M_PI) *
                                      sqrt(9.0 + m.bandwidth * m.bandwidth));
    for (size_t i = 0; i < g.n_v; i++)
        top = fmax(top, g.density[i]);
    printf("modes: largest vertex density %.3e (a smooth ring's ridge: %.3e)\n", top, expect);
    CHECK(top > expect && top < 2.0 * expect); /* the noise's bumps lift the largest */
    graph_free(&g);
    free(warn);
    warn = NULL;
    m = defaults(0.0);
    m.threshold_absolute = 1;
    m.threshold = 1.0;
    CHECK(gk_density_graph(ctx, &cl, &m, &g, &warn, NULL, NULL) == GK_OK && g.n_v == 0);
    graph_free(&g);
    free(warn);
    warn = NULL;
    m.threshold = 0.5 * top;
    CHECK(gk_density_graph(ctx, &cl, &m, &g, &warn, NULL, NULL) == GK_OK && g.n_v > 0);
    double low = INFINITY;
    for (size_t i = 0; i < g.n_v; i++)
        low = fmin(low, g.density[i]);
    CHECK(low >= 0.5 * top);
    graph_free(&g);
    free(warn);
    warn = NULL;
    m = defaults(0.0);
    m.max_iter_scms = 1;
    CHECK(gk_density_graph(ctx, &cl, &m, &g, &warn, NULL, NULL) == GK_OK);
    CHECKF(warn && strstr(warn, "max_iter=1"), "warning: %s", warn ? warn : "(none)");
    free(warn);
    graph_free(&g);
    gk_context_free(ctx);
    synth_free(&c);
    free(p);
}

/* Progress: the fractions never go back and end at 1; a callback that
 * returns 0 at its first call (the bandwidth), at the walkers or at the
 * last (the lines linked) stops the run with GK_ERR_CANCELLED and no
 * graph. */
typedef struct {
    double last, stop_at;
    int calls, back;
} prog_t;

static int prog(double f, const char *note, void *user)
{
    (void)note;
    prog_t *p = user;
    p->back |= f < p->last;
    p->last = f;
    p->calls++;
    return f < p->stop_at;
}

static void test_progress(void)
{
    double circ[3] = {0.0, 0.0, 50.0};
    synth_curve c = synth_make(f_circle, circ, 0.0, 2.0 * M_PI, 4000, 2);
    double *p = malloc(400 * 2 * sizeof(double));
    synth_state = 5;
    synth_sample(&c, 400, 2.0, p);
    gk_cloud cl = {2, 400, p};
    const double stops[] = {2.0, 0.05, 0.5, 1.0};
    for (int k = 0; k < 4; k++) {
        gk_context *ctx = gk_context_new();
        gk_ridges_method m = defaults(6.0);
        gk_ridge_graph g;
        memset(&g, 0, sizeof g);
        char *warn = NULL;
        prog_t pr = {0.0, stops[k], 0, 0};
        int rc = gk_density_graph(ctx, &cl, &m, &g, &warn, prog, &pr);
        if (k == 0) {
            CHECKF(rc == GK_OK && g.n_e > 0 && pr.last == 1.0 && !pr.back && pr.calls >= 3,
                   "progress: rc %d, last %g, %d calls", rc, pr.last, pr.calls);
        } else {
            CHECKF(rc == GK_ERR_CANCELLED && strstr(gk_errmsg(ctx), "cancelled") &&
                       pr.last >= stops[k] && g.n_v == 0,
                   "stop at %g: rc %d, last %g, %zu vertices", stops[k], rc, pr.last, g.n_v);
        }
        free(warn);
        graph_free(&g);
        gk_context_free(ctx);
    }
    free(p);
    synth_free(&c);
}

int main(void)
{
    test_bandwidth_rule();
    test_bad_input();
    test_progress();
    test_scenes();
    test_threads();
    test_modes();
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
