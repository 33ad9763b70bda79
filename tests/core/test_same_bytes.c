/* SPDX-License-Identifier: MIT */
/*
 * test_same_bytes.c - every algorithm's raster is a function of its inputs
 * only: the same bytes with 1, 2 and 7 threads, with the
 * engine's tiles of several shapes (square, one row, one column, thin
 * strips), and through gk_job_compute_window on whole and odd windows (what
 * the GDAL plugin's blocks call), on three data sets (uniform, clustered
 * with duplicates, a lattice at UTM-sized coordinates). Bytes, not values:
 * a 1-ulp difference fails. Every method of the registry must have a spec
 * here (a new one without fails).
 *
 *   test_same_bytes [--write FILE | --compare FILE]
 *
 * --write saves a digest of each reference raster, --compare checks them:
 * ctest runs it once natively and again with GRIDKIT_ISA=avx2 and =portable,
 * so that the AVX-512, AVX2 and portable kernels must agree to the byte.
 */
#include "gridkit.h"
#include "gk_check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- data sets (a fixed generator: no libc rand) ---------------------------- */

static uint64_t lcg_state;
static double unif(void)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(lcg_state >> 11) / 9007199254740992.0;
}

typedef struct {
    const char *name;
    gk_points *pts;
    gk_grid g;
} dataset;

static double field(double x, double y)
{
    return 10.0 + 3.0 * sin(x / 170.0) * cos(y / 230.0) + 0.004 * x - 0.002 * y;
}

static void make_uniform(gk_context *ctx, dataset *d)
{
    lcg_state = 1;
    d->name = "uniform";
    d->pts = gk_points_new(ctx);
    for (int i = 0; i < 400; i++) {
        double x = 1000.0 * unif(), y = 1000.0 * unif();
        gk_points_add(d->pts, x, y, field(x, y) + 0.3 * (unif() - 0.5));
    }
    d->g = (gk_grid){-20.0, 1030.0, -10.0, 1015.0, 61, 47};
}

/* five clusters, every fifth point repeated exactly with another value */
static void make_clustered(gk_context *ctx, dataset *d)
{
    lcg_state = 7;
    d->name = "clustered";
    d->pts = gk_points_new(ctx);
    const double cx[5] = {150, 800, 500, 220, 760}, cy[5] = {200, 150, 520, 830, 790};
    for (int i = 0; i < 300; i++) {
        int c = i % 5;
        double x = cx[c] + 90.0 * (unif() - 0.5), y = cy[c] + 70.0 * (unif() - 0.5);
        double z = field(x, y) + (unif() - 0.5);
        gk_points_add(d->pts, x, y, z);
        if (i % 5 == 0)
            gk_points_add(d->pts, x, y, z + 0.25);
    }
    d->g = (gk_grid){0.0, 1000.0, 0.0, 1000.0, 53, 59};
}

/* a 15 x 15 lattice of 60 m at UTM coordinates: ties everywhere, large offsets */
static void make_lattice(gk_context *ctx, dataset *d)
{
    d->name = "lattice";
    d->pts = gk_points_new(ctx);
    for (int j = 0; j < 15; j++)
        for (int i = 0; i < 15; i++) {
            double x = 500000.0 + 60.0 * i, y = 4100000.0 + 60.0 * j;
            gk_points_add(d->pts, x, y, field(60.0 * i, 60.0 * j));
        }
    d->g = (gk_grid){499990.0, 500860.0, 4099980.0, 4100850.0, 57, 45};
}

/* ---- runs --------------------------------------------------------------------- */

typedef struct {
    const gk_grid *g;
    int nb;
    double *out;
} sink_ctx;

static int sink(void *user, int x0, int y0, int w, int h, int nbands, const double *v)
{
    sink_ctx *s = user;
    size_t plane = (size_t)s->g->nx * s->g->ny;
    for (int b = 0; b < nbands; b++)
        for (int r = 0; r < h; r++)
            memcpy(s->out + b * plane + (size_t)(y0 + r) * s->g->nx + x0,
                   v + (size_t)b * w * h + (size_t)r * w, (size_t)w * sizeof *v);
    return 0;
}

/* the whole grid through the engine with tiles of tw x th on `threads` threads */
static int run_engine(gk_context *ctx, const dataset *d, const char *spec, int threads, int tw,
                      int th, double **out, int *nb)
{
    gk_context_set_threads(ctx, threads);
    gk_algorithm *alg = gk_algorithm_parse(ctx, spec);
    gk_job *job = alg ? gk_job_new(ctx, d->pts, alg) : NULL;
    int rc = GK_ERR_INTERNAL;
    if (job) {
        *nb = gk_job_bands(job);
        *out = malloc((size_t)*nb * d->g.nx * d->g.ny * sizeof **out);
        sink_ctx s = {&d->g, *nb, *out};
        rc = gk_job_run(job, &d->g, tw, th, sink, &s, NULL, NULL);
    }
    if (rc)
        fprintf(stderr, "%s %s: %s\n", d->name, spec, gk_errmsg(ctx));
    gk_job_free(job);
    gk_algorithm_free(alg);
    return rc;
}

/* the whole grid as windows of ww x wh (from a corner offset), as the plugin asks */
static int run_windows(gk_context *ctx, const dataset *d, const char *spec, int ww, int wh,
                       double *out)
{
    gk_context_set_threads(ctx, 1);
    gk_algorithm *alg = gk_algorithm_parse(ctx, spec);
    gk_job *job = alg ? gk_job_new(ctx, d->pts, alg) : NULL;
    int rc = job ? GK_OK : GK_ERR_INTERNAL;
    const gk_grid *g = &d->g;
    size_t plane = (size_t)g->nx * g->ny;
    int nb = job ? gk_job_bands(job) : 1;
    double *win = malloc((size_t)nb * ww * wh * sizeof *win);
    for (int y0 = 0; !rc && y0 < g->ny; y0 += wh)
        for (int x0 = 0; !rc && x0 < g->nx; x0 += ww) {
            int w = x0 + ww > g->nx ? g->nx - x0 : ww, h = y0 + wh > g->ny ? g->ny - y0 : wh;
            rc = gk_job_compute_window(job, g, x0, y0, w, h, win);
            for (int b = 0; !rc && b < nb; b++)
                for (int r = 0; r < h; r++)
                    memcpy(out + b * plane + (size_t)(y0 + r) * g->nx + x0,
                           win + (size_t)b * w * h + (size_t)r * w, (size_t)w * sizeof *win);
        }
    if (rc)
        fprintf(stderr, "%s %s windows %dx%d: %s\n", d->name, spec, ww, wh, gk_errmsg(ctx));
    free(win);
    gk_job_free(job);
    gk_algorithm_free(alg);
    return rc;
}

/* Float32 tiles (gk_job_run_typed) and windows: each value the double run's
 * converted by gk_value_to_float32, whatever the threads and tiles */
static int sink_f32(void *user, int x0, int y0, int w, int h, int nbands, const void *v)
{
    sink_ctx *s = user;
    float *out = (float *)s->out;
    const float *in = v;
    size_t plane = (size_t)s->g->nx * s->g->ny;
    for (int b = 0; b < nbands; b++)
        for (int r = 0; r < h; r++)
            memcpy(out + b * plane + (size_t)(y0 + r) * s->g->nx + x0,
                   in + (size_t)b * w * h + (size_t)r * w, (size_t)w * sizeof *in);
    return 0;
}

static void check_float32(gk_context *ctx, const dataset *d, const char *spec, const double *ref,
                          int nb)
{
    const gk_grid *g = &d->g;
    const size_t n = (size_t)nb * g->nx * g->ny;
    float *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    float *win = malloc((size_t)nb * 23 * 70 * sizeof *win);
    gk_context_set_threads(ctx, 7);
    gk_algorithm *alg = gk_algorithm_parse(ctx, spec);
    gk_job *job = alg ? gk_job_new(ctx, d->pts, alg) : NULL;
    if (!want || !got || !win || !job) {
        CHECK(!"float32 run could not start");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        want[i] = gk_value_to_float32(ref[i]);
    /* a type that is neither: refused, with the type in the message */
    checks++;
    if (gk_job_compute_window_typed(job, g, 0, 0, 1, 1, (gk_value_type)7, win) != GK_ERR_ARG ||
        gk_job_run_typed(job, g, 0, g->ny, 0, 0, 0, (gk_value_type)7, sink_f32, NULL, NULL, NULL) !=
            GK_ERR_ARG ||
        !strstr(gk_errmsg(ctx), "value type 7")) {
        failures++;
        fprintf(stderr, "FAIL %s %s: an unknown value type was not refused\n", d->name, spec);
    }
    for (int how = 0; how < 2; how++) {
        memset(got, 0, n * sizeof *got);
        int rc = GK_OK;
        if (how == 0) {
            sink_ctx s = {g, nb, (double *)got};
            rc = gk_job_run_typed(job, g, 0, g->ny, 13, 200, 0, GK_VALUES_FLOAT32, sink_f32, &s,
                                  NULL, NULL);
        } else {
            for (int y0 = 0; !rc && y0 < g->ny; y0 += 70)
                for (int x0 = 0; !rc && x0 < g->nx; x0 += 23) {
                    int w = x0 + 23 > g->nx ? g->nx - x0 : 23,
                        h = y0 + 70 > g->ny ? g->ny - y0 : 70;
                    rc = gk_job_compute_window_typed(job, g, x0, y0, w, h, GK_VALUES_FLOAT32, win);
                    for (int b = 0; !rc && b < nb; b++)
                        for (int r = 0; r < h; r++)
                            memcpy(got + (size_t)b * g->nx * g->ny + (size_t)(y0 + r) * g->nx + x0,
                                   win + (size_t)b * w * h + (size_t)r * w,
                                   (size_t)w * sizeof *win);
                }
        }
        checks++;
        if (rc || memcmp(got, want, n * sizeof *got)) {
            failures++;
            fprintf(stderr, "FAIL %s %s: Float32 %s differ from the doubles converted (%s)\n",
                    d->name, spec, how ? "windows" : "tiles", rc ? gk_errmsg(ctx) : "values");
        }
    }
done:
    gk_job_free(job);
    gk_algorithm_free(alg);
    free(want);
    free(got);
    free(win);
}

static int first_difference(const double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(a + i, b + i, sizeof *a))
            return (int)i;
    return -1;
}

static void compare(const dataset *d, const char *spec, const char *how, const double *ref,
                    const double *got, int nb)
{
    size_t n = (size_t)nb * d->g.nx * d->g.ny;
    int k = first_difference(ref, got, n);
    checks++;
    if (k >= 0) {
        failures++;
        size_t ndiff = 0;
        for (size_t i = 0; i < n; i++)
            ndiff += memcmp(ref + i, got + i, sizeof *ref) != 0;
        fprintf(stderr, "FAIL %s %s (%s): %zu of %zu values differ; first at %d: %.17g vs %.17g\n",
                d->name, spec, how, ndiff, n, k, ref[k], got[k]);
    }
}

/* FNV-1a over the bytes */
static uint64_t digest(const double *v, size_t n)
{
    const unsigned char *p = (const unsigned char *)v;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n * sizeof *v; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static const char *const specs[] = {
    "invdist",
    "invdist:power=3:smoothing=5:radius1=300:radius2=200:angle=30:max_points=10:min_points=2",
    "invdist:power=2:radius1=250:radius2=250:max_points=8:min_points_per_quadrant=1",
    "invdistnn:power=2:radius=250:max_points=12:min_points=3", "average:radius1=150:radius2=150",
    "average:radius1=40:radius2=40", "average:radius1=200:radius2=100:angle=20:min_points=2",
    "average:radius1=160:radius2=160:max_points=5", "nearest:radius1=100:radius2=100",
    "minimum:radius1=150:radius2=150", "maximum:radius1=150:radius2=120:angle=45",
    "range:radius1=150:radius2=150", "count:radius1=150:radius2=150",
    "average_distance:radius1=200:radius2=200", "average_distance_pts:radius1=200:radius2=200",
    "linear", "linear:radius=100", "aidw",
    "kriging:model=Sph:psill=1:range=300:nugget=0.1:max_points=16",
    "kriging:type=universal:drift=linear:model=Exp:psill=1:range=250:max_points=20",
    "kriging:type=simple:mean=10:model=Gau:psill=1:range=200:nugget=0.05:radius=300",
    /* global: every point in one system, the variance from L^-1 c0 per node */
    "kriging:model=Sph:psill=0.59:range=897:nugget=0.05",
    "kriging:model=Exp:psill=1:range=300:nugget=0.1",
    "kriging:type=universal:drift=linear:model=Sph:psill=1:range=400:nugget=0.1",
    /* densities: QGIS's kernels, the Gauss transform's ways, kernel regression */
    "heatmap:radius=120", "heatmap:radius=90:kernel=triweight:output=scaled",
    "gauss:bandwidth=60:method=direct", "gauss:bandwidth=60:method=cutoff:epsilon=1e-6",
    "gauss:bandwidth_x=80:bandwidth_y=40:angle=30", "gauss:bandwidth=60:method=ifgt:epsilon=1e-4",
    "gauss:bandwidth=60:method=fft:epsilon=1e-4", "gauss:bandwidth=60:mode=relative:epsilon=1e-3",
    "kernel_smooth:bandwidth=70",
    /* local and global polynomials: neighbourhoods, weights, the trend surface */
    "polynomial:degree=2:max_points=24", "polynomial:degree=1:radius=150:weight=power:power=2",
    "polynomial:degree=3:max_points=40:max_points_per_quadrant=10",
    "polynomial:degree=1:max_points=30:weight=gauss:bandwidth=60", "polynomial:degree=2",
    /* modified quadratic Shepard: its nodal functions made on threads */
    "shepard", "shepard:quadratic_points=20:weight_points=10:smoothing=5",
    /* natural neighbours: walks from each row's seed, sums in the points' numbering */
    "natural", "natural:type=laplace:radius=-1", "natural:radius=80",
    "natural:type=sibson_c1", /* its gradients fitted on threads */
    /* radial basis functions: the global system factorised on threads (smoothing: the
     * data sets hold coincident points), local systems */
    "rbf:smoothing=0.01", "rbf:kernel=cubic:neighbors=30",
    "rbf:kernel=gaussian:epsilon=0.01:smoothing=0.1",
    /* GRASS's regularized spline with tension: one system, factorised on threads */
    "rst", "rst:tension=20:smooth=0.5:dmin=5:npmin=100:segmax=10000",
    "rst:segmax=20:npmin=60:dmin=2", /* v.surf.rst's segments, solved on threads */
    "rst:segmax=20:npmin=60:dmin=2:derivatives=slope,aspect,mcurvature", /* carried per segment */
    "rst:segmax=10000:derivatives=slope,aspect,pcurvature,tcurvature,mcurvature",
    /* GMT's surface: the whole grid swept on threads (a wavefront up to 4, colour
     * by colour beyond), the same order */
    "surface", "surface:tension=0.4:btension=0.1:lower=data:upper=data",
    /* sequential Gaussian simulation: weights on threads, realizations shared
     * among them, summaries per node; the noise keyed by seed, realization
     * and node */
    "simulation:model=Exp:psill=1:range=300:nsim=3:seed=5",
    "simulation:type=simple:model=Sph:psill=1:range=200:transform=normal_score:nsim=4:"
    "path=random:summary=mean,var,p>0,q90:realizations=yes",
    /* indicator kriging: one kriging job a cut-off, the order relations per node */
    "indicator:model=Sph:psill=0.2:range=250:nugget=0.02:max_points=16:indicator=9,10,11",
    /* indicator simulation: a system a cut-off, the classes drawn per realization */
    "simulation:model=Sph:psill=0.2:range=250:max_points=12:indicator=9,10,11:nsim=2:"
    "summary=mean,p<10:realizations=yes",
};

/* Every method of the registry has a spec above: a method added without one
 * fails here (the same bytes are promised for all). */
static void every_method_has_a_spec(void)
{
    const int nspecs = (int)(sizeof specs / sizeof *specs);
    for (int i = 0; i < gk_n_algorithms(); i++) {
        const char *name = gk_algorithm_name_at(i);
        size_t len = strlen(name);
        int found = 0;
        for (int si = 0; si < nspecs; si++)
            found |= strncmp(specs[si], name, len) == 0 &&
                     (specs[si][len] == ':' || specs[si][len] == '\0');
        CHECKF(found, "method %s has no case in test_same_bytes's specs", name);
    }
}

int main(int argc, char **argv)
{
    FILE *wr = NULL, *cmp = NULL;
    if (argc == 3 && !strcmp(argv[1], "--write"))
        wr = fopen(argv[2], "w");
    else if (argc == 3 && !strcmp(argv[1], "--compare"))
        cmp = fopen(argv[2], "r");
    if (argc > 1 && !wr && !cmp) {
        fprintf(stderr, "usage: test_same_bytes [--write FILE | --compare FILE] (%s: %s)\n",
                argc == 3 ? argv[2] : "", argc == 3 ? "cannot open" : "bad arguments");
        return 2;
    }
    every_method_has_a_spec();
    gk_context *ctx = gk_context_new();
    dataset ds[3];
    make_uniform(ctx, &ds[0]);
    make_clustered(ctx, &ds[1]);
    make_lattice(ctx, &ds[2]);
    /* engine runs: threads x tile shapes; windows: what the plugin's blocks ask */
    static const struct {
        int threads, tw, th;
    } eng[] = {{2, 0, 0}, {7, 0, 0}, {1, 7, 5}, {2, 64, 1}, {7, 1, 64}, {7, 13, 200}, {2, 3, 3}};
    static const int win[][2] = {{1000, 1000}, {23, 70}, {17, 5}, {1, 1}};
    const int nspecs = (int)(sizeof specs / sizeof *specs);
    for (int di = 0; di < 3; di++) {
        const dataset *d = &ds[di];
        for (int si = 0; si < nspecs; si++) {
            const char *spec = specs[si];
            double *ref = NULL;
            int nb = 0;
            if (run_engine(ctx, d, spec, 1, 0, 0, &ref, &nb)) {
                CHECK(!"reference run failed");
                free(ref);
                continue;
            }
            uint64_t h = digest(ref, (size_t)nb * d->g.nx * d->g.ny);
            if (wr)
                fprintf(wr, "%016llx %s %s\n", (unsigned long long)h, d->name, spec);
            if (cmp) {
                char line[512], want[512];
                if (!fgets(line, sizeof line, cmp))
                    line[0] = 0;
                snprintf(want, sizeof want, "%016llx %s %s\n", (unsigned long long)h, d->name,
                         spec);
                checks++;
                if (strcmp(line, want)) {
                    failures++;
                    fprintf(stderr, "FAIL %s %s: digest %s, native run: %s", d->name, spec, want,
                            line);
                }
            }
            for (size_t e = 0; e < sizeof eng / sizeof *eng; e++) {
                double *got = NULL;
                int nb2 = 0;
                char how[64];
                snprintf(how, sizeof how, "%d threads, tiles %dx%d", eng[e].threads, eng[e].tw,
                         eng[e].th);
                if (run_engine(ctx, d, spec, eng[e].threads, eng[e].tw, eng[e].th, &got, &nb2))
                    CHECK(!"engine run failed");
                else if (nb2 == nb)
                    compare(d, spec, how, ref, got, nb);
                free(got);
            }
            check_float32(ctx, d, spec, ref, nb);
            double *got = malloc((size_t)nb * d->g.nx * d->g.ny * sizeof *got);
            for (size_t w = 0; w < sizeof win / sizeof *win; w++) {
                /* 1 x 1 windows only on the small specs' cost */
                if (win[w][0] == 1 && strstr(spec, "kriging") && !strstr(spec, "max_points"))
                    continue;
                char how[64];
                snprintf(how, sizeof how, "windows %dx%d", win[w][0], win[w][1]);
                if (run_windows(ctx, d, spec, win[w][0], win[w][1], got))
                    CHECK(!"window run failed");
                else
                    compare(d, spec, how, ref, got, nb);
            }
            free(got);
            free(ref);
        }
    }
    for (int di = 0; di < 3; di++)
        gk_points_free(ds[di].pts);
    gk_context_free(ctx);
    if (wr && fclose(wr)) {
        fprintf(stderr, "cannot write %s\n", argv[2]);
        failures++;
    }
    if (cmp)
        fclose(cmp);
    printf("same_bytes: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
