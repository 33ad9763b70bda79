/* SPDX-License-Identifier: MIT */
/* test_gauss.c - `-a gauss` against a long-double direct sum computed here
 * at every cell: uniform, clustered and lattice points, projected (1e5-1e6
 * m) and degree-like coordinates, methods direct and cutoff at several
 * epsilon, normalize yes and no, unit and signed weights; the promised
 * |gridkit - exact| <= epsilon * sum|w| (over 2 pi sigma^2 when
 * normalized); method=auto's choice; bad input; the same bytes for 1 to 4
 * threads and four tile shapes. */
#include "density/density_sum.h"
#include "density_check.h"
#include "gk_check.h"
#include "gridkit.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static gk_context *ctx;
static unsigned long long rng = 12345;
static double urand(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) / 9007199254740992.0;
}

enum { NX = 40, NY = 30 };

/* kind 0 uniform, 1 clustered, 2 lattice; over [x0, x0+L] x [y0, y0+0.75L] */
static int make(int kind, double x0, double y0, double L, int signed_w, double *x, double *y,
                double *w)
{
    int n = 0;
    if (kind == 2) {
        for (int j = 0; j < 30; j++)
            for (int i = 0; i < 40; i++, n++)
                x[n] = x0 + L * (i + 0.25) / 40, y[n] = y0 + 0.75 * L * (j + 0.25) / 30;
    } else {
        for (; n < 1500; n++) {
            double u = urand(), v = urand();
            if (kind == 1) /* three tight clusters */
                u = 0.2 + 0.3 * (n % 3) + 0.05 * (u - 0.5),
                v = 0.3 + 0.2 * (n % 3) + 0.05 * (v - 0.5);
            x[n] = x0 + L * u, y[n] = y0 + 0.75 * L * v;
        }
    }
    for (int i = 0; i < n; i++)
        w[i] = signed_w ? 4 * urand() - 1.5 : 1.0;
    return n;
}

/* The points of make() as a gk_points, and sum|w|. */
static gk_points *points_of(const double *x, const double *y, const double *w, int n,
                            double *sumabs)
{
    gk_points *pts = gk_points_new(ctx);
    *sumabs = 0;
    for (int i = 0; i < n; i++)
        gk_points_add(pts, x[i], y[i], w[i]), *sumabs += fabs(w[i]);
    return pts;
}

/* The exact sum at every node of g, in long double: sum w exp(-(u^2 / (2
 * sx^2) + v^2 / (2 sy^2))), (u, v) the offset turned by t radians (sx = sy,
 * t = 0: the isotropic kernel). */
static void exact_grid(const gk_grid *g, const double *x, const double *y, const double *w, int n,
                       long double sx, long double sy, long double t, long double *out)
{
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++) {
            long double cx = g->xmin + (i + 0.5L) * ((long double)(g->xmax - g->xmin) / g->nx);
            long double cy = g->ymax - (j + 0.5L) * ((long double)(g->ymax - g->ymin) / g->ny);
            long double sum = 0;
            for (int q = 0; q < n; q++) {
                long double dx = cx - x[q], dy = cy - y[q];
                long double u = dx * cosl(t) + dy * sinl(t), v = dy * cosl(t) - dx * sinl(t);
                sum += w[q] * expl(-(u * u / (2 * sx * sx) + v * v / (2 * sy * sy)));
            }
            out[j * g->nx + i] = sum;
        }
}

static void against_exact(void)
{
    static double x[2000], y[2000], w[2000];
    static double out[NX * NY];
    static long double exact[NX * NY];
    /* projected metres, then degree-like: the grid spans L, sigma = L/40 */
    const double origin[2][3] = {{5.0e5, 4.2e6, 2.0e4}, {10.3, 45.1, 0.2}};
    const char *method[] = {"direct", "cutoff", "auto", "ifgt"};
    const double eps[] = {1e-3, 1e-6, 1e-9};
    for (int o = 0; o < 2; o++)
        for (int kind = 0; kind < 3; kind++)
            for (int sw = 0; sw < 2; sw++) {
                double x0 = origin[o][0], y0 = origin[o][1], L = origin[o][2];
                int n = make(kind, x0, y0, L, sw, x, y, w);
                double sumabs;
                gk_points *pts = points_of(x, y, w, n, &sumabs);
                /* narrow for the cut-off; ifgt also wide, where it pays */
                double sigma = L / 40;
                gk_grid g = {x0, x0 + L, y0, y0 + 0.75 * L, NX, NY};
                exact_grid(&g, x, y, w, n, sigma, sigma, 0, exact);
                for (int m = 0; m < 4; m++)
                    for (int e = 0; e < 3; e++)
                        for (int nz = 0; nz < 2; nz++) {
                            char spec[256];
                            snprintf(spec, sizeof spec,
                                     "gauss:bandwidth=%.17g:epsilon=%g:method=%s:normalize=%s",
                                     sigma, eps[e], method[m], nz ? "yes" : "no");
                            gk_algorithm *a = gk_algorithm_parse(ctx, spec);
                            CHECKF(a != NULL, "%s: %s", spec, gk_errmsg(ctx));
                            if (!a)
                                continue;
                            gk_job *job = gk_job_new(ctx, pts, a);
                            CHECK(job &&
                                  gk_job_compute_window(job, &g, 0, 0, NX, NY, out) == GK_OK);
                            double scale = nz ? 1.0 / (2 * M_PI * sigma * sigma) : 1.0;
                            /* the promise, plus double rounding: each term's exp and the
                             * subtraction nx - x (an ulp of the coordinate, times
                             * d / sigma^2 <= 40 / sigma at most here) and n additions; all
                             * well below 1e-10 sum|w|, which is below every epsilon used */
                            double tol = (eps[e] + 1e-10 + n * 4 * DBL_EPSILON) * sumabs * scale;
                            double worst = 0;
                            for (int c = 0; c < NX * NY; c++) {
                                double err = fabs(out[c] - (double)(exact[c] * scale));
                                if (err > worst)
                                    worst = err;
                            }
                            CHECKF(worst <= tol,
                                   "%s (origin %d, kind %d, signed %d): error %g > %g", spec, o,
                                   kind, sw, worst, tol);
                            gk_job_free(job);
                            gk_algorithm_free(a);
                        }
                gk_points_free(pts);
            }
}

/* bandwidth_x, bandwidth_y, angle: exp(-(u^2 / (2 sx^2) + v^2 / (2 sy^2)))
 * in axes turned by angle, over 2 pi sx sy, against long double; unturned
 * (a product of factors) and turned (a term a pair), direct and cutoff,
 * within the same bound as the isotropic kernel; 1 and 2 threads alike. */
static void anisotropic(void)
{
    static double x[2000], y[2000], w[2000];
    static double out[NX * NY], out2[NX * NY];
    static long double exact[NX * NY];
    const double x0 = 5.0e5, y0 = 4.2e6, L = 2.0e4;
    int n = make(1, x0, y0, L, 1, x, y, w);
    gk_points *pts = gk_points_new(ctx);
    double sumabs = 0;
    for (int i = 0; i < n; i++)
        gk_points_add(pts, x[i], y[i], w[i]), sumabs += fabs(w[i]);
    gk_grid g = {x0, x0 + L, y0, y0 + 0.75 * L, NX, NY};
    const double shape[][3] = {{L / 40, L / 80, 0}, {L / 30, L / 90, 30}, {L / 50, L / 50, -45}};
    for (int k = 0; k < 3; k++) {
        const long double sx = shape[k][0], sy = shape[k][1], t = shape[k][2] * (M_PI / 180.0L);
        exact_grid(&g, x, y, w, n, sx, sy, t, exact);
        for (int c = 0; c < NX * NY; c++)
            exact[c] /= 2 * M_PI * sx * sy;
        for (int m = 0; m < 2; m++) {
            char spec[256];
            snprintf(spec, sizeof spec,
                     "gauss:bandwidth_x=%.17g:bandwidth_y=%.17g:angle=%g:epsilon=1e-6:method=%s",
                     shape[k][0], shape[k][1], shape[k][2], m ? "cutoff" : "direct");
            gk_algorithm *a = gk_algorithm_parse(ctx, spec);
            CHECKF(a != NULL, "%s: %s", spec, gk_errmsg(ctx));
            if (!a)
                continue;
            gk_context_set_threads(ctx, 1);
            gk_job *job = gk_job_new(ctx, pts, a);
            CHECK(job && gk_job_compute_window(job, &g, 0, 0, NX, NY, out) == GK_OK);
            gk_job_free(job);
            gk_context_set_threads(ctx, 2);
            job = gk_job_new(ctx, pts, a);
            CHECK(job && gk_job_compute_window(job, &g, 0, 0, NX, NY, out2) == GK_OK);
            gk_job_free(job);
            gk_context_set_threads(ctx, 0);
            CHECKF(!memcmp(out, out2, sizeof out), "%s: 1 and 2 threads differ", spec);
            /* as against_exact: the promise plus double rounding */
            double tol = (1e-6 + 1e-10 + n * 4 * DBL_EPSILON) * sumabs /
                         (2 * M_PI * shape[k][0] * shape[k][1]);
            double worst = 0;
            for (int c = 0; c < NX * NY; c++)
                worst = fmax(worst, fabs(out[c] - (double)exact[c]));
            CHECKF(worst <= tol, "%s: error %g > %g", spec, worst, tol);
            gk_algorithm_free(a);
        }
    }
    gk_points_free(pts);
}

/* mode=relative: |computed - exact| <= E exact at every node whose exact
 * value is a normal double, on a grid reaching 1.5 L beyond three tight
 * clusters (exact values down to about 1e-50 of the peak, where an
 * absolute bound says nothing), against long double; plus double rounding
 * of n positive terms, n 4 eps relative. cutoff and direct; 1 and 2 threads
 * give the same bytes; negative weights are refused at the job. */
static void relative(void)
{
    static double x[2000], y[2000], w[2000];
    static double out[NX * NY], out2[NX * NY];
    static long double exact[NX * NY];
    const double x0 = 5.0e5, y0 = 4.2e6, L = 2.0e4, sigma = L / 8;
    int n = make(1, x0, y0, L, 0, x, y, w);
    for (int i = 0; i < n; i++)
        w[i] = 0.5 + urand() * (i % 5 != 0); /* positive, every fifth 0.5 */
    w[7] = 0.0;                              /* a zero weight counts for nothing */
    gk_points *pts = gk_points_new(ctx);
    for (int i = 0; i < n; i++)
        gk_points_add(pts, x[i], y[i], w[i]);
    gk_grid g = {x0 - 1.5 * L, x0 + 2.5 * L, y0 - 1.5 * L, y0 + 2.25 * L, NX, NY};
    exact_grid(&g, x, y, w, n, sigma, sigma, 0, exact);
    long double smallest = 1;
    for (int c = 0; c < NX * NY; c++)
        smallest = fminl(smallest, exact[c]);
    CHECKF(smallest < 1e-40L && smallest > 1e-300L, "the test's grid reaches %Lg", smallest);
    const char *method[] = {"cutoff", "direct"};
    const double eps[] = {1e-3, 1e-9};
    for (int m = 0; m < 2; m++)
        for (int e = 0; e < 2; e++) {
            char spec[200];
            snprintf(spec, sizeof spec,
                     "gauss:bandwidth=%.17g:epsilon=%g:mode=relative:method=%s:normalize=no", sigma,
                     eps[e], method[m]);
            gk_algorithm *a = gk_algorithm_parse(ctx, spec);
            CHECKF(a != NULL, "%s: %s", spec, gk_errmsg(ctx));
            if (!a)
                continue;
            gk_context_set_threads(ctx, 1);
            gk_job *job = gk_job_new(ctx, pts, a);
            CHECK(job && gk_job_compute_window(job, &g, 0, 0, NX, NY, out) == GK_OK);
            CHECK(job && strstr(gk_job_algorithm_string(job), "bound=relative"));
            gk_job_free(job);
            gk_context_set_threads(ctx, 2);
            sink_t sk = {NX, out2};
            job = gk_job_new(ctx, pts, a);
            CHECK(job && gk_job_run(job, &g, 7, 5, sink, &sk, NULL, NULL) == GK_OK);
            gk_job_free(job);
            gk_context_set_threads(ctx, 0);
            CHECKF(!memcmp(out, out2, sizeof out), "%s: threads or tiles differ", spec);
            double worst = 0;
            for (int c = 0; c < NX * NY; c++)
                worst = fmax(worst, (double)(fabsl(out[c] - exact[c]) / exact[c]));
            CHECKF(worst <= eps[e] + n * 4 * DBL_EPSILON, "%s: relative error %g", spec, worst);
            gk_algorithm_free(a);
        }
    /* a negative weight: no relative bound exists */
    gk_points_add(pts, x0, y0, -1.0);
    gk_algorithm *a = gk_algorithm_parse(ctx, "gauss:bandwidth=100:mode=relative");
    gk_job *job = a ? gk_job_new(ctx, pts, a) : NULL;
    CHECKF(!job && gk_errno(ctx) == GK_ERR_ARG && strstr(gk_errmsg(ctx), "weights >= 0"), "%s",
           gk_errmsg(ctx));
    gk_error_clear(ctx);
    gk_job_free(job);
    gk_algorithm_free(a);
    gk_points_free(pts);
}

/* method=ifgt where it is meant for, a bandwidth wide against the points'
 * spread: within E sum|w| of long double at every node, expansions about
 * far fewer centres than points (it did expand), and the bound it predicts
 * not above the promised one. */
static void ifgt_wide(void)
{
    static double x[2000], y[2000], w[2000];
    static double out[NX * NY];
    static long double exact[NX * NY];
    const double x0 = 5.0e5, y0 = 4.2e6, L = 2.0e4;
    for (int kind = 0; kind < 2; kind++) {
        int n = make(kind, x0, y0, L, 1, x, y, w);
        double sumabs;
        gk_points *pts = points_of(x, y, w, n, &sumabs);
        gk_grid g = {x0, x0 + L, y0, y0 + 0.75 * L, NX, NY};
        const double sig[] = {L / 3, L / 6}, eps[] = {1e-6, 1e-9};
        for (int k = 0; k < 2; k++)
            for (int e = 0; e < 2; e++) {
                char spec[200];
                snprintf(spec, sizeof spec,
                         "gauss:bandwidth=%.17g:epsilon=%g:method=ifgt:normalize=no", sig[k],
                         eps[e]);
                gk_algorithm *a = gk_algorithm_parse(ctx, spec);
                gk_job *job = a ? gk_job_new(ctx, pts, a) : NULL;
                CHECKF(job && gk_job_compute_window(job, &g, 0, 0, NX, NY, out) == GK_OK, "%s: %s",
                       spec, gk_errmsg(ctx));
                if (job) {
                    const char *str = gk_job_algorithm_string(job), *c = strstr(str, "clusters=");
                    const char *pr = strstr(str, "predicted=");
                    CHECKF(c && atoi(c + 9) <= 64, "%s: %s", spec, str);
                    CHECKF(pr && atof(pr + 10) <= eps[e] * sumabs * 1.000001, "%s: %s", spec, str);
                    exact_grid(&g, x, y, w, n, sig[k], sig[k], 0, exact);
                    double worst = 0;
                    for (int c = 0; c < NX * NY; c++)
                        worst = fmax(worst, (double)fabsl(out[c] - exact[c]));
                    /* the promise plus double rounding of n terms */
                    CHECKF(worst <= (eps[e] + n * 4 * DBL_EPSILON) * sumabs, "%s: error %g > %g",
                           spec, worst, eps[e] * sumabs);
                }
                gk_job_free(job);
                gk_algorithm_free(a);
            }
        gk_points_free(pts);
    }
}

static void scott_default(void)
{
    /* 4 points at the corners of a 2 x 4 rectangle: sd_x = sqrt(4/3), sd_y = 2 sqrt(4/3)
     * (n - 1 in the variance), sigma = sqrt(sd_x sd_y) 4^(-1/6) */
    gk_points *pts = gk_points_new(ctx);
    gk_points_add(pts, 0, 0, 1), gk_points_add(pts, 2, 0, 1);
    gk_points_add(pts, 0, 4, 1), gk_points_add(pts, 2, 4, 1);
    gk_algorithm *a = gk_algorithm_parse(ctx, "gauss:normalize=no:method=direct");
    CHECK(a != NULL);
    gk_job *job = gk_job_new(ctx, pts, a);
    double v = NAN;
    gk_grid g = {0, 2, 0, 4, 1, 1}; /* its centre (1, 2): each point at d^2 = 5 */
    CHECK(job && gk_job_compute_window(job, &g, 0, 0, 1, 1, &v) == GK_OK);
    double s = sqrt(sqrt(4. / 3.) * 2 * sqrt(4. / 3.)) * pow(4, -1. / 6.);
    CHECK_REL(v, 4 * exp(-5 / (2 * s * s)), 1e-13);
    gk_job_free(job);
    gk_algorithm_free(a);
    /* one point: no spread, so a clear error asking for bandwidth */
    gk_points *one = gk_points_new(ctx);
    gk_points_add(one, 1, 1, 1);
    a = gk_algorithm_parse(ctx, "gauss");
    job = gk_job_new(ctx, one, a);
    CHECKF(!job && strstr(gk_errmsg(ctx), "bandwidth"), "%s", gk_errmsg(ctx));
    gk_job_free(job);
    gk_error_clear(ctx);
    gk_algorithm_free(a);
    gk_points_free(one);
    gk_points_free(pts);
}

static void bad_input(void)
{
    /* refused strings and round trips: tests/core/specs (test_parse) */
    gk_algorithm *a = gk_algorithm_parse(ctx, "gauss:bandwidth=2.5:epsilon=1e-4:normalize=no");
    CHECK(a != NULL);
    if (a) {
        CHECK(strstr(gk_algorithm_string(a), "cutoff_radius=") != NULL);
        CHECK(!gk_algorithm_needs_z(a) && gk_algorithm_z_is_weight(a));
    }
    gk_algorithm_free(a);
    /* an anisotropic kernel's string names both axes and the angle */
    a = gk_algorithm_parse(ctx, "gauss:bandwidth=3:bandwidth_y=1.5:angle=20");
    CHECK(a && strstr(gk_algorithm_string(a), "bandwidth_x=3:bandwidth_y=1.5:angle=20") != NULL);
    gk_algorithm_free(a);
}

/* The value at the node (0, 0) of points (x[i], y[i]) (y NULL: 0) of
 * weight w; NAN when spec does not parse or the job fails (the message in
 * ctx). */
static double node_value(const char *spec, const double *x, const double *y, int n, double w)
{
    gk_points *pts = gk_points_new(ctx);
    for (int i = 0; i < n; i++)
        gk_points_add(pts, x[i], y ? y[i] : 0.0, w);
    gk_algorithm *a = gk_algorithm_parse(ctx, spec);
    gk_job *job = a ? gk_job_new(ctx, pts, a) : NULL;
    double v = NAN;
    gk_grid g = {-1, 1, -1, 1, 1, 1};
    if (job && gk_job_compute_window(job, &g, 0, 0, 1, 1, &v) != GK_OK)
        v = NAN;
    gk_job_free(job);
    gk_algorithm_free(a);
    gk_points_free(pts);
    return v;
}

/* Bandwidths whose arithmetic under- or overflows are refused with the
 * range (bandwidth=1e-160:normalize=no:method=direct gave 0 where a point
 * on the node makes it 1, and said bound=0: 1 / (2 sigma^2) was infinite).
 * The range, worked out here: 2 sigma^2 and 1 / (2 sigma^2) normal, sigma
 * from 2^-511.5 to 2^510.5 (to a rounding); just inside, a point on the
 * node gives exactly 1 and one at sigma gives exp(-1/2). Scott's rule on a
 * cloud 1e-160 wide is refused likewise; a density that would pass the
 * largest double (ten points on a node at the smallest sigma) too. */
static void kernel_size(void)
{
    const double lo = ldexp(1, -511) / sqrt(2.0), hi = ldexp(1, 510) * sqrt(2.0);
    const char *bad[] = {"gauss:bandwidth=1e-160:normalize=no:method=direct",
                         "gauss:bandwidth_x=1e160:bandwidth_y=1", "kernel_smooth:bandwidth=1e-155",
                         "gauss:bandwidth=1e-300:mode=relative"};
    for (int k = 0; k < 4; k++) {
        gk_algorithm *a = gk_algorithm_parse(ctx, bad[k]);
        char w[60];
        snprintf(w, sizeof w, "%.6g", lo);
        CHECKF(!a && strstr(gk_errmsg(ctx), "bandwidth") && strstr(gk_errmsg(ctx), "outside") &&
                   strstr(gk_errmsg(ctx), "1.0547686614"),
               "%s: %s", bad[k], a ? "accepted" : gk_errmsg(ctx));
        gk_algorithm_free(a);
        gk_error_clear(ctx);
    }
    const double sig[] = {lo * 0.9999, lo * 1.0001, hi * 0.9999, hi * 1.0001};
    for (int k = 0; k < 4; k++) {
        char spec[160];
        snprintf(spec, sizeof spec, "gauss:bandwidth=%.17g:normalize=no:method=direct", sig[k]);
        const double x[] = {0.0, sig[k]};
        const double v = node_value(spec, x, NULL, 1, 1.0);
        const double v2 = node_value(spec, x + 1, NULL, 1, 1.0);
        if (k == 1 || k == 2)
            CHECKF(v == 1.0 && fabs(v2 - exp(-0.5)) <= 4e-16, "%s: %.17g %.17g: %s", spec, v, v2,
                   gk_errmsg(ctx));
        else
            CHECKF(isnan(v) && strstr(gk_errmsg(ctx), "outside"), "%s: %g %s", spec, v,
                   gk_errmsg(ctx));
        gk_error_clear(ctx);
    }
    /* 20 / (2 pi sigma^2) = 20 x 1.43e307 */
    double twenty[20] = {0};
    char spec[160];
    snprintf(spec, sizeof spec, "gauss:bandwidth=%.17g:method=direct", sig[1]);
    CHECKF(isnan(node_value(spec, twenty, NULL, 20, 1.0)) &&
               strstr(gk_errmsg(ctx), "largest double"),
           "%s: %s", spec, gk_errmsg(ctx));
    gk_error_clear(ctx);
    /* Scott's rule on points 1e-160 apart */
    double tx[6], ty[6];
    for (int i = 0; i < 6; i++)
        tx[i] = 1e-160 * i, ty[i] = 1e-160 * (i % 3);
    CHECKF(isnan(node_value("gauss", tx, ty, 6, 1.0)) && strstr(gk_errmsg(ctx), "Scott") &&
               strstr(gk_errmsg(ctx), "outside"),
           "Scott: %s", gk_errmsg(ctx));
    gk_error_clear(ctx);
}

/* angle turns an elliptical kernel: without bandwidth_x or bandwidth_y
 * (bandwidth alone, or Scott's rule) it is an error, as docs/heatmap.md
 * says, also angle=0; a subnormal number is called what it is. */
static void keys(void)
{
    const char *bad[][2] = {
        {"gauss:bandwidth=1:angle=30", "angle needs bandwidth_x"},
        {"gauss:angle=0:bandwidth=2", "angle needs bandwidth_x"},
        {"kernel_smooth:bandwidth=2:angle=10", "angle needs bandwidth_x"},
        {"gauss:bandwidth=5e-324", "bandwidth: '5e-324' is below 2.2250738585072014e-308"},
        {"gauss:epsilon=1e-310", "epsilon: '1e-310' is below 2.2250738585072014e-308"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gk_algorithm *a = gk_algorithm_parse(ctx, bad[i][0]);
        CHECKF(!a && strstr(gk_errmsg(ctx), bad[i][1]), "%s: %s", bad[i][0],
               a ? "accepted" : gk_errmsg(ctx));
        gk_algorithm_free(a);
        gk_error_clear(ctx);
    }
    gk_algorithm *a = gk_algorithm_parse(ctx, "gauss:angle=30:bandwidth=1:bandwidth_x=2");
    CHECKF(a && strstr(gk_algorithm_string(a), "bandwidth_x=2:bandwidth_y=1:angle=30"), "%s",
           a ? gk_algorithm_string(a) : gk_errmsg(ctx));
    gk_algorithm_free(a);
}

/* More refused strings, each by its cause: a key without a value, an angle
 * beyond a turn or not finite, an infinite nodata, method=fft or
 * mode=relative with a turned or elliptical kernel. The keys a string
 * reports (chosen=, lattice=) are read back and ignored. */
static double *grid_of(const gk_points *pts, const gk_grid *g, const char *spec, char *str,
                       size_t cap);

static void keys_refused(void)
{
    const char *bad[][2] = {
        {"gauss:bandwidth", "'bandwidth' is not key=value"},
        {"gauss:bandwidth_x=1:bandwidth_y=2:angle=400", "angle: must be within [-360, 360]"},
        {"gauss:bandwidth_x=1:bandwidth_y=2:angle=-361", "angle: must be within [-360, 360]"},
        {"gauss:bandwidth_x=1:bandwidth_y=2:angle=inf", "angle"},
        {"gauss:bandwidth=1:nodata=inf", "nodata"},
        {"gauss:bandwidth_x=1:bandwidth_y=2:angle=10:method=fft", "method=fft takes gauss"},
        {"gauss:bandwidth=2:mode=relative:method=fft", "method=fft takes gauss"},
        {"gauss:bandwidth_x=1:bandwidth_y=2:mode=relative", "mode=relative takes an isotropic"},
        {"gauss:bandwidth_x=2:bandwidth_y=2:angle=30:mode=relative",
         "mode=relative takes an isotropic"},
        {"gauss:bandwidth=2:mode=relative:method=ifgt", "method=ifgt takes gauss"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gk_algorithm *a = gk_algorithm_parse(ctx, bad[i][0]);
        CHECKF(!a && strstr(gk_errmsg(ctx), bad[i][1]), "%s: %s", bad[i][0],
               a ? "accepted" : gk_errmsg(ctx));
        gk_algorithm_free(a);
        gk_error_clear(ctx);
    }
    gk_algorithm *a = gk_algorithm_parse(ctx, "gauss:bandwidth=2:chosen=ifgt:lattice=sigma/4");
    CHECKF(a && strstr(gk_algorithm_string(a), "method=auto") &&
               !strstr(gk_algorithm_string(a), "lattice"),
           "%s", a ? gk_algorithm_string(a) : gk_errmsg(ctx));
    gk_algorithm_free(a);
}

/* method=auto where the IFGT does not apply (kernel_smooth, mode=relative,
 * an elliptical or turned kernel): the cut-off, the same bytes as
 * method=cutoff, with many points and a wide bandwidth (where gauss would
 * weigh the IFGT). What Scott's rule or the sums cannot take is refused
 * naming the method asked for. */
static void auto_not_ifgt(void)
{
    gk_points *pts = gk_points_new(ctx);
    for (int i = 0; i < 3000; i++)
        gk_points_add(pts, 1000 * urand(), 800 * urand(), 0.5 + urand());
    gk_grid g = {0, 1000, 0, 800, 20, 16};
    const char *specs[] = {"kernel_smooth:bandwidth=300", "gauss:bandwidth=300:mode=relative",
                           "gauss:bandwidth_x=300:bandwidth_y=200",
                           "gauss:bandwidth_x=300:bandwidth_y=200:angle=30"};
    for (int k = 0; k < 4; k++) {
        char cut[200], str[1024] = "";
        snprintf(cut, sizeof cut, "%s:method=cutoff", specs[k]);
        double *a = grid_of(pts, &g, specs[k], str, sizeof str);
        double *b = grid_of(pts, &g, cut, NULL, 0);
        CHECKF(a && b && !memcmp(a, b, sizeof(double) * 20 * 16), "%s: not the cut-off's bytes",
               specs[k]);
        CHECKF(!strstr(specs[k], "gauss:bandwidth=") || strstr(str, "method=auto"), "%s: %s",
               specs[k], str);
        free(a), free(b);
    }
    gk_points_free(pts);
    /* kernel_smooth by name: Scott's rule on one point, or on a cloud
     * 1e-160 wide; a weight sum beyond the largest double (not divided
     * by 2 pi sigma^2: no " over 2 pi" in the message) */
    double one = 1, tx[6], ty[6], big[2] = {0, 1};
    for (int i = 0; i < 6; i++)
        tx[i] = 1e-160 * i, ty[i] = 1e-160 * (i % 3);
    CHECKF(isnan(node_value("kernel_smooth", &one, &one, 1, 1.0)) &&
               strstr(gk_errmsg(ctx), "-a kernel_smooth: bandwidth: cannot be estimated from 1 "),
           "%s", gk_errmsg(ctx));
    gk_error_clear(ctx);
    CHECKF(isnan(node_value("kernel_smooth", tx, ty, 6, 1.0)) &&
               strstr(gk_errmsg(ctx), "kernel_smooth") && strstr(gk_errmsg(ctx), "Scott"),
           "%s", gk_errmsg(ctx));
    gk_error_clear(ctx);
    CHECKF(isnan(node_value("kernel_smooth:bandwidth=1", big, NULL, 2, 1e308)) &&
               strstr(gk_errmsg(ctx), "-a kernel_smooth: a cell's value could reach sum|w| = inf,"),
           "%s", gk_errmsg(ctx));
    gk_error_clear(ctx);
    CHECKF(isnan(node_value("gauss:bandwidth=1:normalize=no", big, NULL, 2, 1e308)) &&
               strstr(gk_errmsg(ctx), "sum|w| = inf, beyond"),
           "%s", gk_errmsg(ctx));
    gk_error_clear(ctx);
    /* Scott's rule where the spread overflows: sd of +-1e300 squared */
    double hx[3] = {-1e300, 1e300, 0}, hy[3] = {1e300, -1e300, 0};
    CHECKF(isnan(node_value("gauss", hx, hy, 3, 1.0)) &&
               strstr(gk_errmsg(ctx), "cannot be estimated from 3 points"),
           "%s", gk_errmsg(ctx));
    gk_error_clear(ctx);
}

/* The values of spec over g (NULL on failure; the job's string into str). */
static double *grid_of(const gk_points *pts, const gk_grid *g, const char *spec, char *str,
                       size_t cap)
{
    gk_algorithm *a = gk_algorithm_parse(ctx, spec);
    gk_job *job = a ? gk_job_new(ctx, pts, a) : NULL;
    double *out = malloc((size_t)g->nx * g->ny * sizeof *out);
    int ok = job && out && gk_job_compute_window(job, g, 0, 0, g->nx, g->ny, out) == GK_OK;
    CHECKF(ok, "%s: %s", spec, gk_errmsg(ctx));
    if (ok && str)
        snprintf(str, cap, "%s", gk_job_algorithm_string(job));
    gk_job_free(job);
    gk_algorithm_free(a);
    if (!ok)
        free(out), out = NULL;
    return out;
}

/* method=ifgt where no plan meets epsilon (a bandwidth narrow against the
 * spread; the clustered points at epsilon=1e-12): an error that says so and
 * asks for cutoff, not a job whose tiles have no expansions (it crashed);
 * method=auto on the same takes the cut-off. */
static void ifgt_no_plan(void)
{
    gk_points *uni = gk_points_new(ctx), *clu = gk_points_new(ctx);
    for (int i = 0; i < 5000; i++)
        gk_points_add(uni, 1000 * urand(), 1000 * urand(), 1.0);
    for (int i = 0; i < 5000; i++) /* three tight clusters over 100 x 100 */
        gk_points_add(clu, 20 + 30 * (i % 3) + 5 * (urand() - 0.5),
                      30 + 20 * (i % 3) + 5 * (urand() - 0.5), 1.0);
    const struct {
        gk_points *pts;
        const char *spec;
    } no[] = {{uni, "gauss:bandwidth=1:method=ifgt"},
              {clu, "gauss:bandwidth=10:method=ifgt:epsilon=1e-12"}};
    gk_grid g = {0, 1000, 0, 1000, 10, 10};
    double out[100];
    for (int k = 0; k < 2; k++) {
        gk_algorithm *a = gk_algorithm_parse(ctx, no[k].spec);
        CHECK(a != NULL);
        gk_job *job = a ? gk_job_new(ctx, no[k].pts, a) : NULL;
        int rc = job ? gk_job_compute_window(job, &g, 0, 0, 10, 10, out) : gk_errno(ctx);
        CHECKF(!job && rc == GK_ERR_ARG && strstr(gk_errmsg(ctx), "no plan meets epsilon") &&
                   strstr(gk_errmsg(ctx), "method=cutoff"),
               "%s: rc %d: %s", no[k].spec, rc, gk_errmsg(ctx));
        gk_job_free(job);
        gk_algorithm_free(a);
        gk_error_clear(ctx);
    }
    char str[1024] = "";
    double *v = grid_of(uni, &g, "gauss:bandwidth=1", str, sizeof str);
    CHECKF(v && strstr(str, "chosen=cutoff"), "auto: %s", str);
    free(v);
    gk_points_free(uni);
    gk_points_free(clu);
}

/* method=auto: the IFGT where the bandwidth is wide against the spread and
 * the points many, the cut-off where it is narrow; either within the bound
 * of the direct sum; and its string, read back, chooses the same way and
 * gives the same bytes (method=auto stays in it). */
static void auto_choice(void)
{
    enum { N = 20000, GX = 40, GY = 30 };
    const double L = 2.0e4, x0 = 3.0e5, y0 = 5.1e6;
    gk_points *pts = gk_points_new(ctx);
    double sumabs = 0;
    for (int i = 0; i < N; i++) {
        double w = urand() - 0.3;
        gk_points_add(pts, x0 + L * urand(), y0 + L * urand(), w);
        sumabs += fabs(w);
    }
    gk_grid g = {x0, x0 + L, y0, y0 + 0.75 * L, GX, GY};
    const double sig[] = {L / 3, L / 40};
    const char *want[] = {"chosen=ifgt", "chosen=cutoff"};
    for (int k = 0; k < 2; k++) {
        char spec[200], str[1024] = "", direct[200];
        snprintf(spec, sizeof spec, "gauss:bandwidth=%.17g:epsilon=1e-6:normalize=no", sig[k]);
        snprintf(direct, sizeof direct, "gauss:bandwidth=%.17g:method=direct:normalize=no", sig[k]);
        double *v = grid_of(pts, &g, spec, str, sizeof str), *d = grid_of(pts, &g, direct, NULL, 0);
        CHECKF(strstr(str, "method=auto") && strstr(str, want[k]), "%s: %s (want %s)", spec, str,
               want[k]);
        if (v && d) {
            double worst = 0;
            for (int c = 0; c < GX * GY; c++)
                worst = fmax(worst, fabs(v[c] - d[c]));
            CHECKF(worst <= (1e-6 + N * 4 * DBL_EPSILON) * sumabs, "%s: %g from direct > %g", spec,
                   worst, 1e-6 * sumabs);
        }
        double *again = str[0] ? grid_of(pts, &g, str, NULL, 0) : NULL;
        CHECKF(v && again && !memcmp(v, again, sizeof(double) * GX * GY),
               "%s read back as %s: other bytes", spec, str);
        free(v), free(d), free(again);
    }
    gk_points_free(pts);
}

/* method=fft against its own model in long double: the points binned
 * bilinearly onto the lattice (the grid's nodes refined m times, steps of at
 * most sigma / 4), each cell the lattice's sum times the kernel's taps
 * within the cut-off. The FFTs' rounding only (1e-12 of sum|w|); and
 * within the promised (E + 1/64) sum|w| of the exact Gaussian sum (here
 * 1.8e-4 to 1.5e-3 sum|w|: a bound for the worst case, the clustered points
 * come nearest). Cells coarser than 2 sigma, or a kernel too wide for
 * the FFTs: the cut-off's bytes. */
static void fft_model(void)
{
    static double x[2000], y[2000], w[2000];
    static double out[NX * NY], cut[NX * NY];
    static long double exact[NX * NY], model[NX * NY];
    const double x0 = 5.0e5, y0 = 4.2e6, L = 2.0e4, E = 1e-6;
    for (int kind = 0; kind < 3; kind++) {
        int n = make(kind, x0, y0, L, 1, x, y, w);
        double sumabs;
        gk_points *pts = points_of(x, y, w, n, &sumabs);
        gk_grid g = {x0, x0 + L, y0, y0 + 0.75 * L, NX, NY};
        const double cw = L / NX, ch = 0.75 * L / NY;
        /* sigma over the cells: a lattice of 1 (sigma = 4 cells) or 3 nodes a cell */
        const double sig[] = {4 * cw, 0.5 * cw + 0.1};
        for (int k = 0; k < 2; k++) {
            const double sx = sig[k], sy = sig[k];
            char spec[200];
            snprintf(spec, sizeof spec, "gauss:bandwidth=%.17g:epsilon=%g:method=fft:normalize=no",
                     sx, E);
            gk_algorithm *a = gk_algorithm_parse(ctx, spec);
            gk_job *job = a ? gk_job_new(ctx, pts, a) : NULL;
            CHECKF(job && gk_job_compute_window(job, &g, 0, 0, NX, NY, out) == GK_OK, "%s: %s",
                   spec, gk_errmsg(ctx));
            gk_job_free(job);
            gk_algorithm_free(a);
            /* the model */
            const int mx = (int)ceil(cw / (sx / 4)), my = (int)ceil(ch / (sy / 4));
            const double dx = cw / mx, dy = ch / my, rc = sx * sqrt(2 * log(1 / E)) * (1 + 1e-9);
            const int Rx = (int)floor(rc / dx), Ry = (int)floor(rc / dy);
            const double gx0 = x0 + 0.5 * cw, gy0 = y0 + 0.75 * L - 0.5 * ch;
            for (int c = 0; c < NX * NY; c++)
                model[c] = 0;
            for (int q = 0; q < n; q++) {
                const double u = (x[q] - gx0) / dx, v = (gy0 - y[q]) / dy;
                const double fu = floor(u), fv = floor(v), f = u - fu, gg = v - fv;
                for (int c = 0; c < 4; c++) {
                    const long kx = (long)fu + (c & 1), ly = (long)fv + (c >> 1);
                    const long double part =
                        (long double)w[q] * ((c & 1) ? f : 1 - f) * ((c >> 1) ? gg : 1 - gg);
                    for (int j = 0; j < NY; j++) {
                        const long ty = (long)my * j - ly;
                        if (ty < -Ry || ty > Ry)
                            continue;
                        const long double ey =
                            expl(-(ty * dy) * (long double)(ty * dy) / (2.0L * sy * sy));
                        for (int i = 0; i < NX; i++) {
                            const long tx = (long)mx * i - kx;
                            if (tx < -Rx || tx > Rx)
                                continue;
                            model[j * NX + i] +=
                                part * ey *
                                expl(-(tx * dx) * (long double)(tx * dx) / (2.0L * sx * sx));
                        }
                    }
                }
            }
            exact_grid(&g, x, y, w, n, sx, sy, 0, exact);
            double wm = 0, we = 0;
            for (int c = 0; c < NX * NY; c++) {
                wm = fmax(wm, (double)fabsl(out[c] - model[c]));
                we = fmax(we, (double)fabsl(out[c] - exact[c]));
            }
            CHECKF(wm <= 1e-12 * sumabs, "%s (kind %d): %g from its model", spec, kind, wm);
            CHECKF(we <= (E + 1.0 / 64) * sumabs, "%s (kind %d): %g from the exact sum (sum|w| %g)",
                   spec, kind, we, sumabs);
        }
        /* cells of 3 sigma, and a kernel of 3000 cells (FFTs over
         * GK_FFT_NMAX): the cut-off sum's bytes */
        const double wide[] = {cw / 3, 3000 * cw};
        for (int k = 0; k < 2; k++) {
            char fs[200], cs[200];
            snprintf(fs, sizeof fs, "gauss:bandwidth=%.17g:method=fft", wide[k]);
            snprintf(cs, sizeof cs, "gauss:bandwidth=%.17g:method=cutoff", wide[k]);
            gk_algorithm *fa = gk_algorithm_parse(ctx, fs), *ca = gk_algorithm_parse(ctx, cs);
            gk_job *fj = fa ? gk_job_new(ctx, pts, fa) : NULL;
            gk_job *cj = ca ? gk_job_new(ctx, pts, ca) : NULL;
            CHECKF(fj && cj && gk_job_compute_window(fj, &g, 0, 0, NX, NY, out) == GK_OK &&
                       gk_job_compute_window(cj, &g, 0, 0, NX, NY, cut) == GK_OK &&
                       !memcmp(out, cut, sizeof out),
                   "%s: not the cut-off's bytes", fs);
            gk_job_free(fj), gk_job_free(cj);
            gk_algorithm_free(fa), gk_algorithm_free(ca);
        }
        gk_points_free(pts);
    }
}

static void same_bytes(void)
{
    enum { N = 3000, GX = 97, GY = 61 };
    gk_points *pts = gk_points_new(ctx);
    for (int i = 0; i < N; i++) {
        double u = urand(), v = urand();
        gk_points_add(pts, 1000 * u * u, 600 * v * v, urand() - 0.3);
    }
    gk_grid g = {0, 1000, 0, 600, GX, GY};
    const char *specs[] = {"gauss:bandwidth=30",
                           "gauss:bandwidth=20:method=direct:normalize=no",
                           "kernel_smooth:bandwidth=25",
                           "gauss:bandwidth=300:method=ifgt",
                           "gauss:bandwidth=400",
                           "gauss:bandwidth=30:method=fft",
                           "gauss:bandwidth_x=20:bandwidth_y=45:method=fft:normalize=no"};
    for (int k = 0; k < 7; k++)
        same_bytes_over(ctx, pts, &g, specs[k]);
    gk_points_free(pts);
    /* enough points for the preparation's own threads (the bins counted in
     * chunks, auto's and ifgt's farthest-point clustering in chunks), with
     * duplicates: the same bytes for any threads there too */
    enum { M = 70000 };
    pts = gk_points_new(ctx);
    for (int i = 0; i < M; i++) {
        double u = urand(), v = urand(), w = urand() - 0.3;
        if (i % 9 == 0 && i > 0) /* a repeat of an earlier point */
            gk_points_add(pts, gk_points_x(pts)[i / 2], gk_points_y(pts)[i / 2], w);
        else
            gk_points_add(pts, 1000 * u * u * u, 600 * v * v, w);
    }
    gk_grid g2 = {0, 1000, 0, 600, 37, 23};
    const char *specs2[] = {"gauss:bandwidth=30", "gauss:bandwidth=300:method=ifgt",
                            "kernel_smooth:bandwidth=25"};
    for (int k = 0; k < 3; k++)
        same_bytes_over(ctx, pts, &g2, specs2[k]);
    gk_points_free(pts);
}

/* kernel_smooth: sum K z / sum K against long double, direct and cutoff; the
 * cutoff's numerator and denominator are each within E sum|z| and E n, so
 * the ratio within E (sum|z| + |r| n) / (D - E n) where D - E n > 0 */
static void kernel_smooth(void)
{
    static double x[2000], y[2000], z[2000], out[NX * NY];
    int n = make(1, 5.0e5, 4.2e6, 2.0e4, 1, x, y, z);
    gk_points *pts = gk_points_new(ctx);
    double sumabs = 0;
    for (int i = 0; i < n; i++)
        gk_points_add(pts, x[i], y[i], z[i]), sumabs += fabs(z[i]);
    double L = 2.0e4, sigma = L / 40;
    gk_grid g = {5.0e5, 5.0e5 + L, 4.2e6, 4.2e6 + 0.75 * L, NX, NY};
    const char *specs[] = {"direct", "cutoff"};
    for (int m = 0; m < 2; m++)
        for (double e = 1e-3; e > 1e-10; e *= 1e-3) {
            char spec[200];
            snprintf(spec, sizeof spec,
                     "kernel_smooth:bandwidth=%.17g:epsilon=%g:method=%s:nodata=-9999", sigma, e,
                     specs[m]);
            gk_algorithm *a = gk_algorithm_parse(ctx, spec);
            CHECKF(a && gk_algorithm_needs_z(a), "%s: %s", spec, gk_errmsg(ctx));
            gk_job *job = a ? gk_job_new(ctx, pts, a) : NULL;
            CHECK(job && gk_job_compute_window(job, &g, 0, 0, NX, NY, out) == GK_OK);
            int checked = 0, bad = 0;
            for (int j = 0; j < NY; j++)
                for (int i = 0; i < NX; i++) {
                    long double cx = 5.0e5 + (i + 0.5L) * (L / NX);
                    long double cy = 4.2e6 + 0.75L * L - (j + 0.5L) * (0.75L * L / NY);
                    long double N = 0, D = 0;
                    for (int k = 0; k < n; k++) {
                        long double dx = cx - x[k], dy = cy - y[k];
                        long double q = expl(-(dx * dx + dy * dy) / (2.0L * sigma * sigma));
                        N += z[k] * q, D += q;
                    }
                    double v = out[j * NX + i];
                    double ee = m ? e : 0; /* direct drops nothing */
                    double lo = (double)D - (ee + 1e-10) * n;
                    if (lo <= 0) { /* no usable bound: a value or nodata, never garbage */
                        CHECK(v == -9999 || isfinite(v));
                        continue;
                    }
                    double r = (double)(N / D);
                    /* plus 1e-10 per unit of sum|z| and n for double rounding, as above */
                    double tol = (ee + 1e-10) * (sumabs + fabs(r) * n) / lo;
                    checked++;
                    if (!(fabs(v - r) <= tol))
                        bad++;
                }
            CHECKF(bad == 0 && checked >= 100,
                   /* the bound is usable near clusters */ "%s: %d of %d cells off", spec, bad,
                   checked);
            gk_job_free(job);
            gk_algorithm_free(a);
        }
    gk_points_free(pts);
    gk_algorithm *a = gk_algorithm_parse(ctx, "kernel_smooth:bandwidth=1:normalize=yes");
    CHECKF(!a && strstr(gk_errmsg(ctx), "normalize"), "%s", gk_errmsg(ctx));
    gk_error_clear(ctx);
    gk_algorithm_free(a);
    /* far from the only point: beyond the cut-off, no kernel mass, nodata */
    gk_points *one = gk_points_new(ctx);
    gk_points_add(one, 0, 0, 5);
    a = gk_algorithm_parse(ctx, "kernel_smooth:bandwidth=1:nodata=-1");
    gk_job *job = gk_job_new(ctx, one, a);
    double v[2] = {0, 0};
    gk_grid g1 = {-0.5, 99.5, -0.5, 0.5, 2, 1}; /* centres (24.5, 0) and (74.5, 0) */
    CHECK(job && gk_job_compute_window(job, &g1, 0, 0, 2, 1, v) == GK_OK);
    CHECK(v[1] == -1);
    gk_job_free(job);
    gk_algorithm_free(a);
    gk_points_free(one);
}

/* The kernel's own exponential (density/density_sum.h, the CPU's and the
 * GPU's alike) against long double expl, in both forms (plain and with
 * fma, gauss's factors): within 2 ulp wherever the result is normal,
 * within one subnormal step below, 0 under half the least subnormal. 2 ulp
 * is the Taylor polynomial's Horner rounding (about 1.2 ulp measured) plus
 * the range reduction's. */
static void own_exp(void)
{
    for (int fused = 0; fused < 2; fused++) {
        double worst = 0;
        for (int k = 0; k <= 2000000; k++) {
            double x = -745.0 * k / 2000000.0;
            if (k % 7 == 3)
                x = -745.0 * urand();
            long double e = expl((long double)x);
            double v = gk_ds_exp_form(x, fused);
            if (e >= (long double)DBL_MIN) {
                double ulps = (double)fabsl(((long double)v - e) / (e * (long double)DBL_EPSILON));
                if (ulps > worst)
                    worst = ulps;
            } else {
                CHECKF(fabsl((long double)v - e) <= 0x1p-1074L, "exp(%.17g) = %g (subnormal)", x,
                       v);
            }
        }
        CHECKF(worst <= 2.0, "own exp (fused %d): %.3g ulp at worst", fused, worst);
        CHECK(gk_ds_exp_form(0.0, fused) == 1.0);
        CHECK(gk_ds_exp_form(-746.0, fused) == 0.0 && gk_ds_exp_form(-INFINITY, fused) == 0.0);
    }
}

int main(void)
{
    ctx = gk_context_new();
    bad_input();
    kernel_size();
    keys();
    keys_refused();
    auto_not_ifgt();
    scott_default();
    own_exp();
    anisotropic();
    relative();
    ifgt_wide();
    ifgt_no_plan();
    auto_choice();
    fft_model();
    same_bytes();
    against_exact();
    kernel_smooth();
    gk_context_free(ctx);
    printf("test_gauss: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
