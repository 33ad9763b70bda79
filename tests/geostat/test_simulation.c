/* SPDX-License-Identifier: MIT */
/*
 * test_simulation.c - sequential Gaussian simulation (-a kriging:...:nsim=N)
 * against what it must reproduce, statistically, and against itself:
 *
 *  - the data at their nodes, in every realization;
 *  - with every node and datum in each neighbourhood, the simulation is the
 *    exact sequential decomposition of the conditional distribution: over
 *    500 realizations the mean is simple kriging's estimate within 4
 *    Monte-Carlo standard errors at every node, the variance its variance
 *    within 4 standard errors of a variance at every node and within 10 %
 *    on average;
 *  - the realizations' variogram is the model's within 10 % up to the range;
 *  - with transform=normal_score the realizations' histogram is the data's
 *    (Kolmogorov-Smirnov at 1 %);
 *  - the summary bands are the realizations' mean, variance and
 *    frequencies; the same bytes for any threads, windows, batches and
 *    chunks of weights;
 *  - bad keys and data are refused with a message.
 * Kriging's estimate and variance come from -a kriging (checked against
 * gstat in the kriging tests); gstat's own simulation is compared in
 * sim_gstat.py.
 */
#define _POSIX_C_SOURCE 200809L
#include "gk_check.h"
#include "gk_run.h"
#include "gridkit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static gk_context *ctx;
static unsigned long long lcg = 4242;

static int run(const char *spec, const gk_points *p, const gk_grid *g, double *out)
{
    return gk_test_run(ctx, spec, p, g, out, NULL);
}

/* ---- the data at their nodes ------------------------------------------------ */

static void test_honours_data(void)
{
    gk_points *p = gk_points_new(ctx);
    /* on node centres of a 30 x 20 grid of unit cells over [0,30] x [0,20] */
    for (int k = 0; k < 25; k++)
        gk_points_add(p, (k * 7 % 30) + 0.5, (k * 3 % 20) + 0.5, 10 + 3 * gk_test_urand(&lcg));
    const gk_grid g = {0, 30, 0, 20, 30, 20};
    const char *specs[] = {
        "kriging:model=Sph:psill=2:range=8:nsim=6:seed=5",
        "kriging:type=simple:mean=11:model=Exp:psill=2:range=4:nsim=6:seed=5:path=random",
        "kriging:model=Gau:psill=1:range=5:nugget=0.1:nsim=6:transform=normal_score:zmin=5:zmax=20",
    };
    double *out = malloc(sizeof(double) * 600 * 6);
    for (size_t s = 0; s < sizeof specs / sizeof *specs; s++) {
        CHECKF(run(specs[s], p, &g, out) == 6, "%s", specs[s]);
        int bad = 0;
        for (int k = 0; k < 25; k++) {
            const int i = k * 7 % 30, j = 19 - (k * 3 % 20);
            for (int b = 0; b < 6; b++)
                bad += out[b * 600 + j * 30 + i] != gk_points_z(p)[k];
        }
        int nonfinite = 0;
        for (int q = 0; q < 600 * 6; q++)
            nonfinite += !isfinite(out[q]);
        CHECKF(!bad && !nonfinite, "%s: %d data not honoured, %d values not finite", specs[s], bad,
               nonfinite);
    }
    free(out);
    gk_points_free(p);
}

/* ---- exact with global neighbourhoods ---------------------------------------- */

static void test_exact_moments(void)
{
    gk_points *p = gk_points_new(ctx);
    for (int k = 0; k < 14; k++)
        gk_points_add(p, 16 * gk_test_urand(&lcg), 16 * gk_test_urand(&lcg),
                      0.5 + gk_test_urand(&lcg));
    const gk_grid g = {0, 16, 0, 16, 16, 16};
    enum { N = 256, R = 500 };
    double *sims = malloc(sizeof(double) * N * R), kr[2 * N];
    const char *model = "type=simple:mean=0.8:model=Sph:psill=0.3:range=7:nugget=0.01";
    char spec[256];
    snprintf(spec, sizeof spec, "kriging:%s", model);
    CHECK(run(spec, p, &g, kr) == 2);
    snprintf(spec, sizeof spec, "kriging:%s:max_points=300:nsim=%d:seed=11", model, R);
    CHECK(run(spec, p, &g, sims) == R);
    int mean_bad = 0, var_bad = 0;
    double ratio = 0.0;
    for (int n = 0; n < N; n++) {
        double m = 0.0, s2 = 0.0;
        for (int r = 0; r < R; r++)
            m += sims[(size_t)r * N + n];
        m /= R;
        for (int r = 0; r < R; r++)
            s2 += (sims[(size_t)r * N + n] - m) * (sims[(size_t)r * N + n] - m);
        s2 /= R - 1;
        const double v = kr[N + n];
        if (fabs(m - kr[n]) > 4 * sqrt(v / R)) {
            if (mean_bad++ < 5)
                fprintf(stderr, "node %d: mean %.5f, kriging %.5f, se %.5f\n", n, m, kr[n],
                        sqrt(v / R));
        }
        if (fabs(s2 - v) > 4 * v * sqrt(2.0 / (R - 1))) {
            if (var_bad++ < 5)
                fprintf(stderr, "node %d: variance %.5f, kriging %.5f\n", n, s2, v);
        }
        ratio += s2 / v / N;
    }
    CHECKF(mean_bad == 0, "%d of %d nodes' means off the kriging estimate", mean_bad, N);
    CHECKF(var_bad == 0, "%d of %d nodes' variances off the kriging variance", var_bad, N);
    CHECKF(fabs(ratio - 1) < 0.10, "mean variance ratio %.4f", ratio);
    free(sims);
    gk_points_free(p);
}

/* ---- the variogram ---------------------------------------------------------- */

static double sph(double h, double c, double a)
{
    if (h >= a)
        return c;
    const double u = h / a;
    return c * (1.5 * u - 0.5 * u * u * u);
}

static void test_variogram(void)
{
    gk_points *p = gk_points_new(ctx);
    for (int k = 0; k < 4; k++)
        gk_points_add(p, 120 * gk_test_urand(&lcg), 120 * gk_test_urand(&lcg),
                      gk_test_urand(&lcg) - 0.5);
    const gk_grid g = {0, 120, 0, 120, 120, 120};
    enum { N = 120 * 120, R = 40, L = 16 };
    double *out = malloc(sizeof(double) * N * R);
    const double range = 16, c = 1.0;
    CHECK(run("kriging:type=simple:mean=0:model=Sph:psill=1:range=16:max_points=16:nsim=40:seed=3",
              p, &g, out) == R);
    double gx[L + 1] = {0}, gy[L + 1] = {0};
    for (int r = 0; r < R; r++) {
        const double *v = out + (size_t)r * N;
        for (int h = 1; h <= L; h++) {
            double sx = 0, sy = 0;
            for (int j = 0; j < 120; j++)
                for (int i = 0; i + h < 120; i++) {
                    const double dx = v[j * 120 + i + h] - v[j * 120 + i];
                    const double dy = v[(i + h) * 120 + j] - v[i * 120 + j];
                    sx += dx * dx, sy += dy * dy;
                }
            gx[h] += sx / (2.0 * 120 * (120 - h)) / R;
            gy[h] += sy / (2.0 * 120 * (120 - h)) / R;
        }
    }
    for (int h = 1; h <= L; h++) {
        const double m = sph(h, c, range);
        CHECKF(fabs(gx[h] / m - 1) < 0.10 && fabs(gy[h] / m - 1) < 0.10,
               "lag %d: gamma %.4f (x) %.4f (y), model %.4f", h, gx[h], gy[h], m);
    }
    free(out);
    gk_points_free(p);
}

/* ---- the histogram under the normal-score transform -------------------------- */

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_normal_score(void)
{
    enum { ND = 300, NX = 60, N = NX * NX, R = 50 };
    gk_points *p = gk_points_new(ctx);
    double z[ND];
    for (int k = 0; k < ND; k++) {
        /* lognormal values, a skewed histogram */
        const double u1 = gk_test_urand(&lcg) + 1e-12, u2 = gk_test_urand(&lcg);
        z[k] = exp(0.8 * sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2));
        gk_points_add(p, 60 * gk_test_urand(&lcg), 60 * gk_test_urand(&lcg), z[k]);
    }
    const gk_grid g = {0, 60, 0, 60, NX, NX};
    double *out = malloc(sizeof(double) * N * R);
    CHECK(run("kriging:type=simple:model=Exp:psill=1:range=6:transform=normal_score:nsim=50:"
              "seed=9:zmin=0:zmax=30",
              p, &g, out) == R);
    qsort(z, ND, sizeof *z, cmp_d);
    qsort(out, (size_t)N * R, sizeof *out, cmp_d);
    /* the largest gap between the two distribution functions */
    double D = 0;
    size_t a = 0;
    for (int k = 0; k < ND; k++) {
        while (a < (size_t)N * R && out[a] <= z[k])
            a++;
        const double fs = (double)a / ((double)N * R);
        D = fmax(D, fmax(fabs(fs - (k + 1.0) / ND), fabs(fs - (double)k / ND)));
    }
    CHECKF(D < 1.63 / sqrt(ND), "Kolmogorov-Smirnov D = %.4f, critical %.4f", D, 1.63 / sqrt(ND));
    CHECKF(out[0] >= 0 && out[(size_t)N * R - 1] <= 30, "values %g .. %g beyond zmin, zmax", out[0],
           out[(size_t)N * R - 1]);
    free(out);
    gk_points_free(p);
}

/* ---- summary bands and the same bytes ------------------------------------------ */

static void test_summary_and_bytes(void)
{
    gk_points *p = gk_points_new(ctx);
    for (int k = 0; k < 60; k++)
        gk_points_add(p, 50 * gk_test_urand(&lcg), 40 * gk_test_urand(&lcg),
                      2 + gk_test_urand(&lcg) * gk_test_urand(&lcg) * 5);
    const gk_grid g = {0, 50, 0, 40, 50, 40};
    enum { N = 2000, R = 30 };
    const char *base[] = {"kriging:model=Sph:psill=1:range=12:nsim=30:seed=77",
                          "kriging:model=Exp:psill=1:range=9:transform=normal_score:nsim=30:"
                          "seed=78:path=random:zmax=9"};
    double *real = malloc(sizeof(double) * N * (R + 6)), *sum = malloc(sizeof(double) * N * 6);
    double *other = malloc(sizeof(double) * N * (R + 6));
    for (int s = 0; s < 2; s++) {
        char spec[400];
        snprintf(spec, sizeof spec, "%s:summary=mean,var,p>3,p<2.5,q10,q90:realizations=yes",
                 base[s]);
        CHECK(run(spec, p, &g, real) == R + 6);
        int bad_mean = 0, bad_var = 0, bad_p = 0, bad_q = 0;
        for (int n = 0; n < N; n++) {
            double m = 0, s2 = 0;
            int above = 0, below = 0;
            for (int r = 0; r < R; r++) {
                const double v = real[(size_t)r * N + n];
                m += v;
                above += v > 3;
                below += v < 2.5;
            }
            m /= R;
            for (int r = 0; r < R; r++)
                s2 += (real[(size_t)r * N + n] - m) * (real[(size_t)r * N + n] - m);
            s2 /= R - 1;
            const double *b = real + (size_t)R * N;
            /* the bands are floats */
            bad_mean += fabs(b[n] - m) > 1e-6 * fmax(1, fabs(m));
            bad_var += fabs(b[N + n] - s2) > 1e-6 * fmax(1e-3, s2);
            bad_p += b[2 * N + n] != (float)((double)above / R) ||
                     b[3 * N + n] != (float)((double)below / R);
            bad_q += !(b[4 * N + n] <= b[5 * N + n]);
        }
        CHECKF(!bad_mean && !bad_var && !bad_p && !bad_q,
               "%s: summary bands differ from the realizations at %d (mean) %d (var) %d (p) %d "
               "(q10 > q90) nodes",
               base[s], bad_mean, bad_var, bad_p, bad_q);

        /* the summary alone, in batches of 7 realizations, weights in
         * chunks of 100 positions, on 1, 2 and 7 threads: the same bytes */
        snprintf(spec, sizeof spec, "%s:summary=mean,var,p>3,p<2.5,q10,q90", base[s]);
        const int threads[] = {1, 2, 7};
        for (int t = 0; t < 3; t++) {
            gk_context_set_threads(ctx, threads[t]);
            setenv("GRIDKIT_SIM_BATCH", t ? "7" : "", 1);
            setenv("GRIDKIT_SIM_CHUNK", t == 2 ? "100" : "", 1);
            CHECK(run(spec, p, &g, sum) == 6);
            CHECKF(!memcmp(sum, real + (size_t)R * N, sizeof(double) * N * 6),
                   "%s: summary on %d threads (batches, chunks) differs", base[s], threads[t]);
        }
        unsetenv("GRIDKIT_SIM_BATCH");
        unsetenv("GRIDKIT_SIM_CHUNK");
        /* realizations on 1 and 7 threads, and a window of the grid */
        snprintf(spec, sizeof spec, "%s", base[s]);
        gk_context_set_threads(ctx, 1);
        CHECK(run(spec, p, &g, other) == R);
        CHECKF(!memcmp(other, real, sizeof(double) * N * R), "%s: 1 thread differs", base[s]);
        gk_context_set_threads(ctx, 7);
        gk_algorithm *a = gk_algorithm_parse(ctx, spec);
        gk_job *job = a ? gk_job_new(ctx, p, a) : NULL;
        CHECK(job && gk_job_compute_window(job, &g, 13, 9, 20, 17, other) == GK_OK);
        int diff = 0;
        for (int r = 0; r < R; r++)
            for (int j = 0; j < 17; j++)
                for (int i = 0; i < 20; i++)
                    diff += other[(size_t)r * 340 + j * 20 + i] !=
                            real[(size_t)r * N + (9 + j) * 50 + 13 + i];
        CHECKF(diff == 0, "%s: a window differs at %d values", base[s], diff);
        gk_job_free(job);
        gk_algorithm_free(a);
        gk_context_set_threads(ctx, 0);
        /* realizations 11 to 30 alone (first=10) are those of the whole run */
        char part[420];
        snprintf(part, sizeof part, "%s:first=10", base[s]);
        *strstr(part, "nsim=30") = '\0';
        snprintf(part + strlen(part), sizeof part - strlen(part), "nsim=20%s",
                 strstr(base[s], "nsim=30") + 7);
        strcat(part, ":first=10");
        CHECK(run(part, p, &g, other) == 20);
        CHECKF(!memcmp(other, real + (size_t)10 * N, sizeof(double) * N * 20),
               "%s: realizations 11-30 with first=10 differ", base[s]);
        /* another seed, other values */
        char seed2[420];
        snprintf(seed2, sizeof seed2, "%s1", base[s]);
        CHECK(run(seed2, p, &g, other) == R);
        CHECK(memcmp(other, real, sizeof(double) * N * R) != 0);
    }
    free(real), free(sum), free(other);
    gk_points_free(p);
}

/* ---- duplicates, and the grid beyond the data ------------------------------------ */

static void test_duplicates(void)
{
    gk_points *p = gk_points_new(ctx);
    gk_points_add(p, 2.5, 2.5, 1.0);
    gk_points_add(p, 2.5, 2.5, 3.0); /* the same place: merged into 2 */
    gk_points_add(p, 7.3, 5.1, 4.0);
    gk_points_add(p, 7.3, 5.1, 4.0);
    const gk_grid g = {0, 10, 0, 10, 10, 10};
    double out[400];
    gk_algorithm *a = gk_algorithm_parse(ctx, "kriging:model=Exp:psill=1:range=3:nsim=4");
    gk_job *job = a ? gk_job_new(ctx, p, a) : NULL;
    CHECK(job && gk_job_compute_window(job, &g, 0, 0, 10, 10, out) == GK_OK);
    CHECK(job && gk_job_warning(job) && strstr(gk_job_warning(job), "2 points"));
    int bad = 0;
    for (int q = 0; q < 400; q++)
        bad += !isfinite(out[q]);
    CHECK(bad == 0);
    CHECK(out[7 * 10 + 2] == 2.0 && out[100 + 7 * 10 + 2] == 2.0);
    gk_job_free(job);
    gk_algorithm_free(a);
    gk_points_free(p);
}

/* ---- bad input --------------------------------------------------------------------- */

static void refused(const char *spec, const gk_points *p, const char *want)
{
    gk_algorithm *a = gk_algorithm_parse(ctx, spec);
    gk_job *job = a ? gk_job_new(ctx, p, a) : NULL;
    int rc = GK_OK;
    if (job) {
        double out[100 * 64];
        const gk_grid g = {0, 10, 0, 10, 10, 10};
        rc = gk_job_compute_window(job, &g, 0, 0, 10, 10, out);
    }
    CHECKF((!a || !job || rc) && strstr(gk_errmsg(ctx), want), "%s: got '%s', want '%s'", spec,
           (!a || !job || rc) ? gk_errmsg(ctx) : "(ran)", want);
    gk_job_free(job);
    gk_algorithm_free(a);
    gk_error_clear(ctx);
}

static void test_bad_input(void)
{
    gk_points *p = gk_points_new(ctx), *flat = gk_points_new(ctx);
    for (int k = 0; k < 10; k++) {
        gk_points_add(p, k + 0.3, 9 - k * 0.7, k);
        gk_points_add(flat, k + 0.3, 9 - k * 0.7, 5);
    }
    const char *m = "kriging:model=Sph:psill=1:range=4";
    char s[256];
#define R(tail, pts, want) (snprintf(s, sizeof s, "%s:%s", m, tail), refused(s, pts, want))
    R("nsim=0", p, "nsim=0 must be a whole number from 1 to 100000");
    R("nsim=1e9", p, "from 1 to 100000");
    R("nsim=2.5", p, "whole number");
    R("nsim=10:seed=-3", p, "seed=-3");
    R("nsim=10:summary=q100", p, "between 0 and 100");
    R("nsim=10:summary=median", p, "'median' is not mean");
    R("nsim=10:summary=p>", p, "needs a number");
    R("nsim=1:summary=var", p, "needs nsim=2");
    R("nsim=10:realizations=no", p, "needs summary=");
    R("seed=4", p, "give nsim=N");
    R("nsim=10:drift=linear", p, "universal kriging and drifts are not simulated");
    R("nsim=10:block=2x2", p, "block= is not simulated");
    R("nsim=10:max_points=2000", p, "at most max_points=1024");
    R("nsim=10:min_points=3", p, "min_points and max_points_per_quadrant are not used");
    R("nsim=10:zmin=0", p, "transform=normal_score's tails");
    R("nsim=10:transform=normal_score:zmin=3", p, "zmin=3 is above the smallest value 0");
    R("nsim=10:transform=normal_score:zmax=3", p, "zmax=3 is below the largest value 9");
    R("nsim=10:transform=normal_score", flat, "values that differ");
    R("nsim=10:transform=lognormal", p, "transform=lognormal must be normal_score or none");
    R("nsim=70000", p, "more bands than a raster holds");
    refused("kriging:model=Pow:psill=1:range=1.5:nsim=3", p, "must be bounded");
    refused("kriging:model=auto:nsim=3:transform=normal_score", p, "--normal-score");
    gk_points_free(p);
    gk_points_free(flat);
#undef R
}

int main(void)
{
    ctx = gk_context_new();
    test_honours_data();
    test_exact_moments();
    test_variogram();
    test_normal_score();
    test_summary_and_bytes();
    test_duplicates();
    test_bad_input();
    gk_context_free(ctx);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
