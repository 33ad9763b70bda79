/* kdr_peer.c - gridkit's side of ridges_kdr (kdr_peer.sh): a noisy circle
 * (radius 50, sigma 2.5 = 0.8 % of its length, 2,000 points, fixed seed).
 *   kdr_peer ours WORK     points.csv, h.txt (the default bandwidth), and
 *                          ours.csv: density's vertices in components of
 *                          >= 4 h (what gk_graph_lines keeps)
 *   kdr_peer compare WORK  ours.csv against ks.csv (kdr_peer.R) and the truth
 * The bounds are at compare_check's comment. */
#include "gk_check.h"
#include "ridge_graph_util.h"
#include "ridge_synth.h"

#include <omp.h>

#define PEER_N 2000
#define PEER_SIGMA 2.5

static void f_circle(double t, double *x, const double *p)
{
    x[0] = p[2] * cos(t);
    x[1] = p[2] * sin(t);
}

static synth_curve peer_curve(void)
{
    static const double par[3] = {0.0, 0.0, 50.0};
    return synth_make(f_circle, par, 0.0, 2.0 * M_PI, 4000, 2);
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

static int ours(const char *work)
{
    synth_curve c = peer_curve();
    double *p = malloc(PEER_N * 2 * sizeof(double));
    synth_state = 2024;
    synth_sample(&c, PEER_N, PEER_SIGMA, p);
    write_csv(path(work, "points.csv"), p, PEER_N);
    gk_context *ctx = gk_context_new();
    gk_cloud cl = {2, PEER_N, p};
    gk_ridges_method m;
    memset(&m, 0, sizeof m);
    m.kind = GK_RIDGE_DENSITY;
    m.threshold = 0.1;
    m.tolerance = 1e-4;
    m.max_iter_scms = 200;
    m.cutoff = 4.0;
    m.angle = 45.0;
    gk_ridge_graph g;
    char *warn = NULL;
    double t0 = omp_get_wtime();
    CHECKF(gk_density_graph(ctx, &cl, &m, &g, &warn, NULL, NULL) == GK_OK, "%s", gk_errmsg(ctx));
    double t1 = omp_get_wtime();
    double *kv;
    size_t cyc, nk, nc = components(&g, 4.0 * m.bandwidth, &cyc, &kv, &nk);
    printf("gridkit density: h = %.4f (default rule), %zu vertices, %zu kept in %zu component(s), "
           "%.3f s%s%s\n", m.bandwidth, g.n_v, nk, nc, t1 - t0, warn ? "; " : "", warn ? warn : "");
    CHECK(nc == 1 && cyc == 1);
    write_csv(path(work, "ours.csv"), kv, nk);
    FILE *f = fopen(path(work, "h.txt"), "w");
    fprintf(f, "%.17g\n", m.bandwidth);
    fclose(f);
    free(kv);
    free(warn);
    free(g.v);
    free(g.density);
    free(g.e);
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
 * 3e-4). ks's points lie ~0.16 apart along its ridge, so a point on the
 * same curve is within ~0.08 of one of them. Hence: our vertices within
 * 0.1 h of ks's ridge points at the median and 0.5 h at worst (the sparse
 * stretches, where both ridges wander most). Quality against the true
 * circle: our median no worse than ks's + 0.05 h (statistical scatter of
 * two estimates of the same ridge), our Hausdorff no worse than ks's +
 * 0.25 h (ours is after the pruning rule of the lines, ks's as it returns
 * them, its spurious side points included). */
static void compare_check(double h, double tau, double dm, double dx, double om, double oh,
                          double km, double kh)
{
    (void)tau;
    CHECKF(dm <= 0.1 * h, "median distance to ks's ridge %g > 0.1 h", dm);
    CHECKF(dx <= 0.5 * h, "largest distance to ks's ridge %g > 0.5 h", dx);
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
    double tau = sqrt(PEER_SIGMA * PEER_SIGMA + h * h);
    printf("h = %.4f, tau = %.4f\n", h, tau);
    printf("gridkit to ks::kdr: median %.4f, max %.4f (%zu vs %zu points)\n", dm, dx, no, nk);
    printf("to the true circle: gridkit median %.4f Hausdorff %.4f (ridge->curve %.4f, "
           "curve->ridge %.4f)\n", om, fmax(oh, oc), oh, oc);
    printf("                    ks::kdr median %.4f Hausdorff %.4f (ridge->curve %.4f, "
           "curve->ridge %.4f)\n", km, fmax(kh, kc), kh, kc);
    compare_check(h, tau, dm, dx, om, fmax(oh, oc), km, fmax(kh, kc));
    free(o);
    free(k);
    synth_free(&c);
    return failures != 0;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "ours") && strcmp(argv[1], "compare"))) {
        fprintf(stderr, "usage: kdr_peer ours|compare WORK\n");
        return 2;
    }
    int rc = strcmp(argv[1], "ours") ? compare(argv[2]) : ours(argv[2]);
    printf("%d checks, %d failures\n", checks, failures);
    return rc;
}
