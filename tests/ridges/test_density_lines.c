/* SPDX-License-Identifier: MIT */
/* test_density_lines.c - `density` end to end through gk_ridges(): the
 * lines of noisy synthetic curves (ridges_synth.h) against the truth.
 *
 * Bounds (sigma: noise; h: the bandwidth used, here the default rule's,
 * about 0.9 sigma; tau^2 = sigma^2 + h^2), as in test_density.c for the
 * graph, since the lines are its chains: median distance of the line
 * vertices <= 0.25 tau + tau^2 / (2 R) (scatter of the ridge, and a ring's
 * ridge lying tau^2 / (2 R) inside), Hausdorff both ways <= 2 tau + the
 * same bend term. One line per curve, closed for the rings. Width (mean
 * distance of a line's samples) near the mean absolute noise across it,
 * sigma sqrt(2 / pi) in 2-D, sigma sqrt(pi / 2) in 3-D, within 25 % (the
 * support cuts at 3 h ~ 2.7 sigma, -3 %; the ridge's scatter adds a few
 * %). n_support >= 95 % of the samples (beyond 2.7 sigma lie 0.7 % in 2-D,
 * 2.6 % in 3-D; the ends lose a few more). */
#include "gk_check.h"
#include "ridges_synth.h"
#include "gridkit_ridges.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const char *name;
    int nc;
    synth_curve c[2];
    size_t n;
    double sigma, R; /* R: the tightest radius of curvature (INFINITY: straight) */
    size_t lines, closed;
    int no_width; /* clean samples: h (the spacing floor) >> sigma; width = the ridge's scatter */
} scene;

static void run(scene *s)
{
    int dim = s->c[0].dim;
    double *p = malloc(s->n * 3 * sizeof(double));
    size_t per = s->n / (size_t)s->nc;
    for (int j = 0; j < s->nc; j++)
        synth_sample(&s->c[j], j + 1 < s->nc ? per : s->n - per * (size_t)j, s->sigma,
                     p + per * (size_t)j * (size_t)dim);
    gk_context *ctx = gk_context_new();
    gk_points *pts = gk_points_new(ctx);
    for (size_t i = 0; i < s->n; i++)
        gk_points_add(pts, p[i * (size_t)dim], p[i * (size_t)dim + 1],
                      dim == 3 ? p[i * (size_t)dim + 2] : 0.0);
    gk_ridges_method *m = gk_ridges_parse(ctx, "density", dim);
    gk_lines *l = m ? gk_ridges(ctx, pts, m, dim, NULL, NULL) : NULL;
    CHECKF(l != NULL, "%s: %s", s->name, gk_errmsg(ctx));
    if (l) {
        const char *ms = gk_ridges_method_string(m), *b = strstr(ms, "bandwidth=");
        double h = b ? atof(b + 10) : 0.0, tau = sqrt(s->sigma * s->sigma + h * h);
        double bend = tau * tau / (2.0 * s->R), med, haus, cover;
        size_t nv = l->start[l->n_lines], closed = 0;
        double *v = malloc((nv + 1) * 3 * sizeof(double)), wsum = 0.0;
        uint64_t sup = 0;
        for (size_t i = 0; i < nv; i++) {
            v[i * (size_t)dim] = l->x[i];
            v[i * (size_t)dim + 1] = l->y[i];
            if (dim == 3)
                v[i * (size_t)dim + 2] = l->z[i];
        }
        for (size_t i = 0; i < l->n_lines; i++) {
            closed += l->closed[i] != 0;
            sup += l->n_support[i];
            wsum += l->width[i] * (double)l->n_support[i];
            CHECKF(l->mean_density[i] > 0.0 && isfinite(l->mean_density[i]), "%s: mean_density %g",
                   s->name, l->mean_density[i]);
        }
        synth_quality(s->c, s->nc, v, nv, &med, &haus, &cover);
        double width = sup ? wsum / (double)sup : 0.0;
        double wexp = s->sigma * (dim == 2 ? sqrt(2.0 / M_PI) : sqrt(M_PI / 2.0));
        printf("%-10s %s: %zu lines (%zu closed), %zu vertices; median %.3f Hausdorff %.3f / %.3f; "
               "width %.3f (noise %.3f), support %.1f %%%s%s\n",
               s->name, ms, l->n_lines, closed, nv, med, haus, cover, width, wexp,
               100.0 * (double)sup / (double)s->n, l->warning ? "; " : "",
               l->warning ? l->warning : "");
        /* 3-D: the ridge's end may fork; lines.c keeps the two sides of a
         * junction whose third branch it pruned as two lines, so one more */
        CHECKF((l->n_lines == s->lines || (dim == 3 && l->n_lines == s->lines + 1)) &&
                   closed == s->closed,
               "%s: %zu lines, %zu closed", s->name, l->n_lines, closed);
        CHECKF(med <= 0.25 * tau + bend, "%s: median %g", s->name, med);
        CHECKF(haus <= 2.0 * tau + bend && cover <= 2.0 * tau + bend, "%s: Hausdorff %g / %g",
               s->name, haus, cover);
        CHECKF(s->no_width || fabs(width - wexp) <= 0.25 * wexp, "%s: width %g", s->name, width);
        CHECKF((double)sup >= 0.95 * (double)s->n, "%s: support %llu", s->name,
               (unsigned long long)sup);
        free(v);
    }
    gk_lines_free(l);
    gk_ridges_method_free(m);
    gk_points_free(pts);
    gk_context_free(ctx);
    free(p);
}

int main(void)
{
    double circ[3] = {0.0, 0.0, 50.0}, seg[4] = {0.0, 0.0, 100.0, 0.0}, spi[2] = {20.0, 12.0};
    double c2[3] = {0.0, 0.0, 30.0}, s2[4] = {60.0, -30.0, 60.0, 30.0}, hel[2] = {30.0, 8.0};
    synth_state = 99;
    scene sc[] = {
        {"circle",
         1,
         {synth_make(f_circle, circ, 0.0, 2.0 * M_PI, 4000, 2)},
         2000,
         3.0,
         50.0,
         1,
         1,
         0},
        {"segment", 1, {synth_make(f_line, seg, 0.0, 1.0, 2000, 2)}, 1000, 2.17, INFINITY, 1, 0, 0},
        {"spiral",
         1,
         {synth_make(f_spiral, spi, 0.0, 4.0 * M_PI, 8000, 2)},
         4000,
         4.17,
         18.0,
         1,
         0,
         0},
        {"two curves",
         2,
         {synth_make(f_circle, c2, 0.0, 2.0 * M_PI, 4000, 2),
          synth_make(f_line, s2, 0.0, 1.0, 2000, 2)},
         2400,
         1.5,
         30.0,
         2,
         1,
         0},
        {"helix 3-D",
         1,
         {synth_make(f_helix, hel, 0.0, 4.0 * M_PI, 8000, 3)},
         3000,
         2.0,
         32.0,
         1,
         0,
         0},
        /* 300 samples ~1 apart, noise 0.1 % of the length: h is the floor of
         * 8 spacings (density_bandwidth.c); still one closed line */
        {"clean ring",
         1,
         {synth_make(f_circle, circ, 0.0, 2.0 * M_PI, 4000, 2)},
         300,
         0.31,
         50.0,
         1,
         1,
         1},
    };
    for (size_t i = 0; i < sizeof sc / sizeof sc[0]; i++) {
        run(&sc[i]);
        for (int j = 0; j < sc[i].nc; j++)
            synth_free(&sc[i].c[j]);
    }
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
