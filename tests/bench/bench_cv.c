/* SPDX-License-Identifier: MIT */
/* bench_cv.c - cross-validation at scale, core only (no GDAL, so it runs on
 * the GPU machines too): leave-one-out and k-fold of N uniform points in a
 * 10 km square (z = a smooth surface + noise, as bench_vs_gstat.py), with
 * nearest and local ordinary kriging nmax=20, on each device given, side by
 * side (the later devices' predictions against the first's). Not a test.
 *
 *     bench_cv [N] [threads] [nfold (0: leave-one-out)] [devices, e.g. cpu,cuda]
 */
#include "gridkit.h"
#include "gridkit_geostat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static uint64_t rng = 42;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 1000000;
    int threads = argc > 2 ? atoi(argv[2]) : 0;
    int nfold = argc > 3 ? atoi(argv[3]) : 0;
    gk_context *ctx = gk_context_new();
    gk_context_set_threads(ctx, threads);
    gk_points *pts = gk_points_new(ctx);
    for (size_t i = 0; i < n; i++) {
        double u = urand(), v = urand();
        /* Box-Muller noise, sd 1 */
        double e = sqrt(-2.0 * log(1.0 - urand())) * cos(6.283185307179586 * urand());
        gk_points_add(pts, 500000.0 + 1e4 * u, 5000000.0 + 1e4 * v,
                      100.0 + 40.0 * sin(6.0 * u) * cos(5.0 * v) + 10.0 * u + e);
    }
    static const char *specs[] = {
        "nearest",
        "kriging:model=Sph:psill=500:range=3000:nugget=1:max_points=20",
    };
    char devs[256];
    snprintf(devs, sizeof devs, "%s", argc > 4 ? argv[4] : "cpu");
    printf("%zu points, %d threads, %s\n", n, threads, nfold ? "k-fold" : "leave-one-out");
    for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
        gk_algorithm *alg = gk_algorithm_parse(ctx, specs[k]);
        gk_cv_result first = {0};
        double t_first = 0;
        char list[256], *save = NULL;
        snprintf(list, sizeof list, "%s", devs);
        for (char *dev = strtok_r(list, ",", &save); dev; dev = strtok_r(NULL, ",", &save)) {
            gk_cv_result r;
            if (gk_context_set_device(ctx, dev)) {
                fprintf(stderr, "%s: %s\n", dev, gk_errmsg(ctx));
                return 1;
            }
            double t0 = now();
            int rc = alg ? gk_crossval(ctx, pts, alg, nfold, 1, &r) : -1;
            double t1 = now();
            if (rc) {
                fprintf(stderr, "%s: %s\n", specs[k], gk_errmsg(ctx));
                return 1;
            }
            printf("%-66s %-8s %8.3f s  rmse %.6f  msdr %.4f  failed %zu  on %s\n", specs[k],
                   r.method, t1 - t0, r.rmse, r.msdr, r.n_failed, r.device);
            if (!first.n) {
                first = r;
                t_first = t1 - t0;
                continue;
            }
            double worst = 0; /* relative to the larger of the value and 1 */
            for (size_t i = 0; i < r.n; i++)
                if (isfinite(first.predicted[i]) || isfinite(r.predicted[i]))
                    worst = fmax(worst, fabs(first.predicted[i] - r.predicted[i]) /
                                            fmax(fabs(first.predicted[i]), 1.0));
            printf("%-66s %.1fx the first device; predictions within %.2e (relative)\n", "",
                   t_first / (t1 - t0), worst);
            gk_cv_result_free(&r);
        }
        gk_cv_result_free(&first);
        gk_algorithm_free(alg);
    }
    gk_points_free(pts);
    gk_context_free(ctx);
    return 0;
}
