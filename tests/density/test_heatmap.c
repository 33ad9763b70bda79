/* test_heatmap.c - `-a heatmap` against values worked out by hand from QGIS
 * 3.22's kernel formulas (docs/heatmap.md), every kernel, raw and scaled,
 * with and without weights; its bad input; the same bytes for any thread
 * count and tile size. Public API only. */
#include "density_check.h"
#include "gk_check.h"
#include "gridkit.h"

#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Around the node (0, 0) with radius 5: a point at u = d/r = 0.6 (1 - u^2 =
 * 0.64), one at u = 0.8 (0.36) and one on the circle (u = 1, still inside,
 * as QGIS's test is d > r), plus one outside. */
static const double PX[] = {0, 4, 3, 6}, PY[] = {3, 0, 4, 0}, PW[] = {2, 0.5, 3, 7};
enum { NP = 4 };

static gk_context *ctx;

/* The value at (0, 0) of a one-cell grid, or at (100, 0) (no point: nodata). */
static double value_at(const char *spec, int weighted, double cx)
{
    gk_points *pts = gk_points_new(ctx);
    for (int i = 0; i < NP; i++)
        gk_points_add(pts, PX[i], PY[i], weighted ? PW[i] : 1.0);
    gk_algorithm *a = gk_algorithm_parse(ctx, spec);
    CHECKF(a != NULL, "%s: %s", spec, gk_errmsg(ctx));
    double v = NAN;
    if (a) {
        gk_job *job = gk_job_new(ctx, pts, a);
        gk_grid g = {cx - 1, cx + 1, -1, 1, 1, 1};
        CHECK(job && gk_job_compute_window(job, &g, 0, 0, 1, 1, &v) == GK_OK);
        gk_job_free(job);
        gk_algorithm_free(a);
    }
    gk_points_free(pts);
    return v;
}

static void hand_values(void)
{
    /* sums over (0,3), (4,0), (3,4) of the raw kernels, unweighted and with
     * weights 2, 0.5, 3 (the point at (6,0) is outside) */
    struct {
        const char *spec;
        double one, w, norm; /* raw sums; the scaled constant times pi r^2 */
    } K[] = {
        {"heatmap:radius=5:kernel=quartic", 0.4096 + 0.1296, 2 * 0.4096 + 0.5 * 0.1296,
         116. / 5. * 15. / 16.},
        {"heatmap:radius=5:kernel=triweight", 0.262144 + 0.046656, 2 * 0.262144 + 0.5 * 0.046656,
         4.0},
        {"heatmap:radius=5:kernel=epanechnikov", 0.64 + 0.36, 2 * 0.64 + 0.5 * 0.36, 2.0},
        {"heatmap:radius=5:kernel=uniform", 3, 2 + 0.5 + 3, 1.0},
        {"heatmap:radius=5:kernel=triangular", 0.4 + 0.2, 2 * 0.4 + 0.5 * 0.2, 3.0},
        {"heatmap:radius=5:kernel=triangular:decay=0.5", 0.7 + 0.6 + 0.5,
         2 * 0.7 + 0.5 * 0.6 + 3 * 0.5, 3.0 / 2.0},
    };
    char spec[128];
    /* a few roundings in each kernel and sum: 1e-13 relative is far above them */
    for (size_t k = 0; k < sizeof K / sizeof K[0]; k++) {
        CHECK_REL(value_at(K[k].spec, 0, 0), K[k].one, 1e-13);
        CHECK_REL(value_at(K[k].spec, 1, 0), K[k].w, 1e-13);
        snprintf(spec, sizeof spec, "%s:output=scaled", K[k].spec);
        CHECK_REL(value_at(spec, 0, 0), K[k].one * K[k].norm / (M_PI * 25), 1e-13);
        CHECK_REL(value_at(spec, 1, 0), K[k].w * K[k].norm / (M_PI * 25), 1e-13);
        snprintf(spec, sizeof spec, "%s:nodata=-9999", K[k].spec);
        CHECK(value_at(spec, 1, 100) == -9999);
    }
    /* a negative decay is never scaled (QGIS): 1 - 2u = -0.2, -0.6, -1 */
    CHECK_REL(value_at("heatmap:radius=5:kernel=triangular:decay=-1:output=scaled", 0, 0), -1.8,
              1e-13);
    /* radius 1 around the node: nothing within, so nodata (default 0) */
    CHECK(value_at("heatmap:radius=1:nodata=-1", 0, 0) == -1);
}

static void bad_input(void)
{
    const char *bad[][2] = {
        {"heatmap", "radius"},
        {"heatmap:radius=0", "radius"},
        {"heatmap:radius=-2", "radius"},
        {"heatmap:radius=nan", "radius"},
        {"heatmap:radius=inf", "radius"},
        {"heatmap:radius=1:kernel=gaussian", "kernel"},
        {"heatmap:radius=1:output=percent", "output"},
        {"heatmap:radius=1:decay=100.5", "decay"},
        {"heatmap:radius=1:decay=-101", "decay"},
        {"heatmap:radius=1:decay=nan", "decay"},
        {"heatmap:radius=1:power=2", "power"},
        {"heatmap:radius=x", "radius"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gk_algorithm *a = gk_algorithm_parse(ctx, bad[i][0]);
        CHECKF(!a && gk_errno(ctx) == GK_ERR_ARG && strstr(gk_errmsg(ctx), bad[i][1]),
               "%s: %s", bad[i][0], gk_errmsg(ctx));
        gk_algorithm_free(a);
        gk_error_clear(ctx);
    }
    /* the canonical string parses back to itself */
    gk_algorithm *a = gk_algorithm_parse(ctx, "heatmap:kernel=Triangular:decay=0.25:radius=2.5");
    CHECK(a != NULL);
    if (a) {
        gk_algorithm *b = gk_algorithm_parse(ctx, gk_algorithm_string(a));
        CHECK(b && !strcmp(gk_algorithm_string(a), gk_algorithm_string(b)));
        CHECK(!gk_algorithm_needs_z(a) && gk_algorithm_z_is_weight(a));
        gk_algorithm_free(b);
        gk_algorithm_free(a);
    }
}


static void same_bytes(void)
{
    enum { N = 3000, NX = 97, NY = 61 };
    gk_points *pts = gk_points_new(ctx);
    unsigned long long s = 12345;
    for (int i = 0; i < N; i++) {
        double c[3];
        for (int k = 0; k < 3; k++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            c[k] = (double)(s >> 11) / 9007199254740992.0;
        }
        /* clustered in a corner, so that nodes see a few to hundreds of points */
        gk_points_add(pts, 1000 * c[0] * c[0], 600 * c[1] * c[1], 0.1 + c[2]);
    }
    gk_grid g = {0, 1000, 0, 600, NX, NY};
    const char *specs[] = {"heatmap:radius=40", "heatmap:radius=60:kernel=triangular:decay=0.3:output=scaled"};
    for (int k = 0; k < 2; k++)
        same_bytes_over(ctx, pts, &g, specs[k]);
    gk_points_free(pts);
}

int main(void)
{
    ctx = gk_context_new();
    hand_values();
    bad_input();
    same_bytes();
    gk_context_free(ctx);
    printf("test_heatmap: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
