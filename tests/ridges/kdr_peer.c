/* SPDX-License-Identifier: MIT */
/* kdr_peer.c - gridkit's side of ridges_kdr (kdr_peer.sh), on 2,000 points
 * (fixed seed) of one of two scenes:
 *   circle  radius 50, sigma 2.5 (0.8 % of its length)
 *   spiral  r = 10 + 6 t, t in [0, 4 pi] (length ~600, turns 38 apart),
 *           sigma 3 (0.5 %)
 *   kdr_peer ours SCENE WORK     points.csv, h.txt (the default bandwidth),
 *                                ours.csv: the vertices of density's lines
 *   kdr_peer compare SCENE WORK  ours.csv against ks.csv (kdr_peer.R) and
 *                                the truth
 * The bounds are at compare_check's comment. */
#include "gk_check.h"
#include "gridkit_ridges.h"
#include "ridges_synth.h"

#include <omp.h>
#include <string.h>

#define PEER_N 2000

static int spiral; /* the scene: 0 circle, 1 spiral */

static double peer_sigma(void) { return spiral ? 3.0 : 2.5; }

static synth_curve peer_curve(void)
{
    static const double circ[3] = {0.0, 0.0, 50.0}, spi[2] = {10.0, 6.0};
    return spiral ? synth_make(f_spiral, spi, 0.0, 4.0 * M_PI, 8000, 2)
                  : synth_make(f_circle, circ, 0.0, 2.0 * M_PI, 4000, 2);
}

static char *path(const char *work, const char *name)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", work, name);
    return buf;
}

static void write_csv(const char *fn, const double *p, size_t n)
{
    FILE *f = fopen(fn, "w");
    for (size_t i = 0; f && i < n; i++)
        fprintf(f, "%.17g,%.17g\n", p[2 * i], p[2 * i + 1]);
    if (f)
        fclose(f);
}

static double *read_csv(const char *fn, size_t *n)
{
    FILE *f = fopen(fn, "r");
    size_t cap = 1024;
    double *p = malloc(cap * 2 * sizeof(double)), x, y;
    *n = 0;
    while (f && fscanf(f, " %lf , %lf", &x, &y) == 2) {
        if (*n == cap)
            p = realloc(p, (cap *= 2) * 2 * sizeof(double));
        p[2 * *n] = x;
        p[2 * (*n)++ + 1] = y;
    }
    if (f)
        fclose(f);
    return p;
}

/* The line vertices of `gridkit ridges -a density` (gk_ridges: the graph,
 * then gk_graph_lines' pruning), with the bandwidth the rule chose. */
static int ours(const char *work)
{
    synth_curve c = peer_curve();
    double *p = malloc(PEER_N * 2 * sizeof(double));
    synth_state = 2024;
    synth_sample(&c, PEER_N, peer_sigma(), p);
    write_csv(path(work, "points.csv"), p, PEER_N);
    gk_context *ctx = gk_context_new();
    gk_points *pts = gk_points_new(ctx);
    for (size_t i = 0; i < PEER_N; i++)
        gk_points_add(pts, p[2 * i], p[2 * i + 1], 0.0);
    gk_ridges_method *m = gk_ridges_parse(ctx, "density", 2);
    double t0 = omp_get_wtime();
    gk_lines *l = gk_ridges(ctx, pts, m, 2, NULL, NULL);
    double t1 = omp_get_wtime();
    CHECKF(l != NULL, "%s", gk_errmsg(ctx));
    if (l) {
        const char *ms = gk_ridges_method_string(m), *hb = strstr(ms, "bandwidth=");
        size_t nv = l->start[l->n_lines], closed = 0;
        double *v = malloc((nv + 1) * 2 * sizeof(double));
        for (size_t i = 0; i < nv; i++) {
            v[2 * i] = l->x[i];
            v[2 * i + 1] = l->y[i];
        }
        for (size_t i = 0; i < l->n_lines; i++)
            closed += l->closed[i] != 0;
        printf("gridkit %s: %zu line(s) (%zu closed), %zu vertices, %.3f s%s%s\n", ms, l->n_lines,
               closed, nv, t1 - t0, l->warning ? "; " : "", l->warning ? l->warning : "");
        CHECK(l->n_lines == 1 && closed == (size_t)!spiral);
        write_csv(path(work, "ours.csv"), v, nv);
        FILE *f = fopen(path(work, "h.txt"), "w");
        fprintf(f, "%.17g\n", hb ? atof(hb + 10) : 0.0);
        fclose(f);
        free(v);
    }
    gk_lines_free(l);
    gk_ridges_method_free(m);
    gk_points_free(pts);
    gk_context_free(ctx);
    synth_free(&c);
    free(p);
    return failures != 0;
}

/* The bounds. Both find the ridge of the same kernel density (H = h^2 I);
 * they differ in ks's Hessian of p against our -grad^2 log p (the same
 * tangent on a straight Gaussian profile, a difference of order
 * tau^2 / R in the bend), in ks's Hessian taken from a binned estimate on
 * its 151 x 151 grid (~0.7 h apart here), in ks stopping when its largest
 * move is below 0.001 IQR (~0.07) and our kernel cut at 4 h (terms below
 * 3e-4). ks's points lie ~0.2 apart along its ridge, so a point on the
 * same curve is within ~0.1 of one of them. Hence: our vertices within
 * 0.1 h of ks's ridge points at the median, and 0.5 h at worst on a closed
 * curve (the sparse stretches, where both ridges wander most); an open
 * curve's ends add tau, the distance over which the density fades there,
 * which each threshold cuts at its own place (ks: seeds below its kde's
 * lowest 1 %; ours: walkers below 10 % of the largest density). Quality
 * against the true curve: our median no worse than ks's + 0.05 h
 * (statistical scatter of two estimates of the same ridge), our Hausdorff
 * no worse than ks's + 0.25 h (ours are the lines, after their pruning;
 * ks's points as it returns them, its spurious side points included). */
static void compare_check(double h, double tau, double dm, double dx, double om, double oh,
                          double km, double kh)
{
    double dmax = 0.5 * h + (spiral ? tau : 0.0);
    CHECKF(dm <= 0.1 * h, "median distance to ks's ridge %g > 0.1 h", dm);
    CHECKF(dx <= dmax, "largest distance to ks's ridge %g > %g", dx, dmax);
    CHECKF(om <= km + 0.05 * h, "median to the truth %g worse than ks's %g", om, km);
    CHECKF(oh <= kh + 0.25 * h, "Hausdorff to the truth %g worse than ks's %g", oh, kh);
}

/* Median and largest distance from each of a's n points to the nearest of b's m. */
static void nearest(const double *a, size_t n, const double *b, size_t m, double *med, double *mx)
{
    double *d = malloc((n + 1) * sizeof(double));
    *mx = 0.0;
    for (size_t i = 0; i < n; i++) {
        double best = INFINITY;
        for (size_t j = 0; j < m; j++)
            best = fmin(best, hypot(a[2 * i] - b[2 * j], a[2 * i + 1] - b[2 * j + 1]));
        d[i] = best;
        *mx = fmax(*mx, best);
    }
    qsort(d, n, sizeof(double), synth_dcmp);
    *med = n ? d[n / 2] : INFINITY;
    free(d);
}

static int compare(const char *work)
{
    size_t no, nk;
    double *o = read_csv(path(work, "ours.csv"), &no), *k = read_csv(path(work, "ks.csv"), &nk);
    double h = 0.0;
    FILE *f = fopen(path(work, "h.txt"), "r");
    if (!f || fscanf(f, "%lf", &h) != 1)
        h = 0.0;
    if (f)
        fclose(f);
    CHECK(no > 100 && nk > 100 && h > 0.0);
    synth_curve c = peer_curve();
    double om, oh, oc, km, kh, kc, dm, dx;
    synth_quality(&c, 1, o, no, &om, &oh, &oc);
    synth_quality(&c, 1, k, nk, &km, &kh, &kc);
    nearest(o, no, k, nk, &dm, &dx);
    double tau = sqrt(peer_sigma() * peer_sigma() + h * h);
    printf("h = %.4f, tau = %.4f\n", h, tau);
    printf("gridkit to ks::kdr: median %.4f, max %.4f (%zu vs %zu points)\n", dm, dx, no, nk);
    printf("to the true curve:  gridkit median %.4f Hausdorff %.4f (ridge->curve %.4f, "
           "curve->ridge %.4f)\n",
           om, fmax(oh, oc), oh, oc);
    printf("                    ks::kdr median %.4f Hausdorff %.4f (ridge->curve %.4f, "
           "curve->ridge %.4f)\n",
           km, fmax(kh, kc), kh, kc);
    compare_check(h, tau, dm, dx, om, fmax(oh, oc), km, fmax(kh, kc));
    free(o);
    free(k);
    synth_free(&c);
    return failures != 0;
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "ours") && strcmp(argv[1], "compare")) ||
        (strcmp(argv[2], "circle") && strcmp(argv[2], "spiral"))) {
        fprintf(stderr, "usage: kdr_peer ours|compare circle|spiral WORK\n");
        return 2;
    }
    spiral = strcmp(argv[2], "spiral") == 0;
    printf("[%s]\n", argv[2]);
    int rc = strcmp(argv[1], "ours") ? compare(argv[3]) : ours(argv[3]);
    printf("%d checks, %d failures\n", checks, failures);
    return rc;
}
