/* bench_cv.c - cross-validation at scale, core only (no GDAL, so it runs on
 * the GPU machines too): leave-one-out and k-fold of N uniform points in a
 * 10 km square (z = a smooth surface + noise, as bench_vs_gstat.py), with
 * nearest and local ordinary kriging nmax=20. Not a test.
 *
 *     bench_cv [N] [threads] [nfold (0: leave-one-out)]
 */
#include "gridkit.h"
#include "gridkit_geostat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
    printf("%zu points, %d threads, %s\n", n, threads,
           nfold ? "k-fold" : "leave-one-out");
    for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
        gk_algorithm *alg = gk_algorithm_parse(ctx, specs[k]);
        gk_cv_result r;
        double t0 = now();
        int rc = alg ? gk_crossval(ctx, pts, alg, nfold, 1, &r) : -1;
        double t1 = now();
        if (rc) {
            fprintf(stderr, "%s: %s\n", specs[k], gk_errmsg(ctx));
            return 1;
        }
        printf("%-66s %-8s %8.3f s  rmse %.6f  msdr %.4f  failed %zu\n", specs[k], r.method,
               t1 - t0, r.rmse, r.msdr, r.n_failed);
        gk_cv_result_free(&r);
        gk_algorithm_free(alg);
    }
    gk_points_free(pts);
    gk_context_free(ctx);
    return 0;
}
