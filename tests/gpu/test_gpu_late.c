/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_late.c - a late start (gk_context_set_gpu_late): a job made under
 * "auto" while the GPU is still starting begins on the CPU cores, and the
 * GPU takes the rest from where they are once it is ready.
 *
 * The GPU's start is slowed (GRIDKIT_GPU_START_DELAY, before the module is
 * first loaded: its own program), and a warm-up thread starts it as
 * `gridkit grid` does. Then:
 *   - a job freed while the GPU is still starting: no wait for it, no crash;
 *   - a job run meanwhile: every node once, in order of rows for the sink.
 *     Where a GPU is usable, it joined: the device name says which share the
 *     cores took (more than none, less than all), and the values are the
 *     CPU's within test_gpu's tolerance (1e-9 of the data range, double);
 *     where none is, the cores took the whole grid, bit for bit the CPU's.
 * One data set a process (the delay is the module's first load): `uniform`
 * (invdistnn, doubles) or `lattice` (average with its ties, Float32 tiles).
 */
#include "gk_check.h"
#include "gridkit.h"

#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the grid: about a million nodes per core, so that the cores are still
 * at it when the GPU comes */
static int NX, NY;

typedef struct {
    int nx, ny, nb, is_float;
    void *out;
    unsigned char *seen;
    int twice;
} sink_ctx;

static void place(sink_ctx *s, int x0, int y0, int w, int h, int nbands, const void *v)
{
    const size_t es = s->is_float ? sizeof(float) : sizeof(double);
    const size_t plane = (size_t)s->nx * s->ny;
    for (int b = 0; b < nbands; b++)
        for (int r = 0; r < h; r++)
            memcpy((char *)s->out + (b * plane + (size_t)(y0 + r) * s->nx + x0) * es,
                   (const char *)v + ((size_t)b * w * h + (size_t)r * w) * es, (size_t)w * es);
    for (int r = 0; r < h; r++)
        for (int c = 0; c < w; c++)
            s->twice |= s->seen[(size_t)(y0 + r) * s->nx + x0 + c]++ != 0;
}

static int sink_d(void *user, int x0, int y0, int w, int h, int nbands, const double *v)
{
    place(user, x0, y0, w, h, nbands, v);
    return 0;
}

static int sink_f(void *user, int x0, int y0, int w, int h, int nbands, const void *v)
{
    place(user, x0, y0, w, h, nbands, v);
    return 0;
}

static void *warm(void *arg)
{
    (void)arg;
    gk_device_warm_up("auto");
    return NULL;
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static double unif(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static gk_points *uniform(gk_context *ctx, size_t n)
{
    gk_points *p = gk_points_new(ctx);
    for (size_t i = 0; i < n; i++) {
        double x = 10000 * unif(), y = 10000 * unif();
        gk_points_add(p, x, y, 100 + 50 * sin(x / 900) * cos(y / 700) + unif());
    }
    return p;
}

static gk_points *lattice(gk_context *ctx)
{
    gk_points *p = gk_points_new(ctx);
    for (int j = 0; j < 300; j++)
        for (int i = 0; i < 300; i++)
            gk_points_add(p, 100 + 33.0 * i, 100 + 33.0 * j, (double)((i * 7 + j * 13) % 29));
    return p;
}

/* spec over pts on the CPU alone, as doubles */
static double *cpu_run(const gk_points *pts, const char *spec, const gk_grid *g)
{
    gk_context *ctx = gk_context_new();
    gk_context_set_device(ctx, "cpu");
    gk_algorithm *alg = gk_algorithm_parse(ctx, spec);
    gk_job *job = alg ? gk_job_new(ctx, pts, alg) : NULL;
    double *out = malloc((size_t)NX * NY * sizeof *out);
    unsigned char *seen = calloc((size_t)NX * NY, 1);
    sink_ctx s = {NX, NY, 1, 0, out, seen, 0};
    int rc = job && out && seen ? gk_job_run(job, g, 0, 0, sink_d, &s, NULL, NULL) : -1;
    CHECKF(rc == 0, "%s on the CPU: %s", spec, gk_errmsg(ctx));
    free(seen);
    gk_job_free(job);
    gk_algorithm_free(alg);
    gk_context_free(ctx);
    if (rc) {
        free(out);
        return NULL;
    }
    return out;
}

/* One late run; 1 when a GPU took part. */
static int late_run(const gk_points *pts, const char *name, const char *spec, const gk_grid *g,
                    double zrange, int as_float)
{
    gk_context *ctx = gk_context_new();
    gk_context_set_gpu_late(ctx, 1);
    gk_context_request_device(ctx, "auto");
    gk_algorithm *alg = gk_algorithm_parse(ctx, spec);
    gk_job *job = alg ? gk_job_new(ctx, pts, alg) : NULL;
    const size_t n = (size_t)NX * NY;
    void *out = malloc(n * sizeof(double));
    unsigned char *seen = calloc(n, 1);
    sink_ctx s = {NX, NY, 1, as_float, out, seen, 0};
    int rc = -1;
    if (job && out && seen)
        rc = as_float ? gk_job_run_typed(job, g, 0, NY, 0, 0, GK_SINK_CONCURRENT, GK_VALUES_FLOAT32,
                                         sink_f, &s, NULL, NULL)
                      : gk_job_run_ex(job, g, 0, 0, GK_SINK_CONCURRENT, sink_d, &s, NULL, NULL);
    const char *dev = gk_context_device_name(ctx);
    const int on_gpu = !strncmp(dev, "cuda", 4);
    CHECKF(rc == 0, "%s %s: %s", name, spec, gk_errmsg(ctx));
    double *ref = rc == 0 ? cpu_run(pts, spec, g) : NULL; /* after: the run began late */
    if (ref) {
        size_t missing = 0, bad = 0;
        for (size_t i = 0; i < n; i++)
            missing += seen[i] == 0;
        double worst = 0;
        for (size_t i = 0; i < n; i++) {
            double got = as_float ? (double)((float *)out)[i] : ((double *)out)[i];
            double want = as_float ? (double)gk_value_to_float32(ref[i]) : ref[i];
            if (!on_gpu) {
                bad += memcmp(&got, &want, sizeof got) != 0 && !(isnan(got) && isnan(want));
            } else {
                double e = fabs(got - want) / zrange;
                worst = e > worst ? e : worst;
                bad += !(e <= (as_float ? 1e-6 : 1e-9));
            }
        }
        CHECKF(!missing && !s.twice, "%s %s: %zu nodes missing, some twice: %d", name, spec,
               missing, s.twice);
        CHECKF(!bad, "%s %s (%s): %zu of %zu values differ from the CPU's (%s)", name, spec,
               as_float ? "Float32" : "doubles", bad, n, dev);
        /* a GPU that joined says what the cores took meanwhile */
        const char *took = strstr(dev, "the CPU cores took ");
        double pct = took ? atof(took + strlen("the CPU cores took ")) : -1;
        CHECKF(!on_gpu || (pct > 0 && pct < 100), "%s: the device name gives no share: %s", name,
               dev);
        CHECKF(on_gpu || strstr(dev, "cpu ("), "%s: device name %s", name, dev);
        CHECKF(!on_gpu || took, "%s: not a late start: %s", name, dev);
        printf("%s %-8s %-44s %-7s %s; worst %.2g\n", bad || missing || s.twice ? "FAIL" : "ok  ",
               name, spec, as_float ? "Float32" : "doubles", dev, worst);
    }
    free(ref);
    free(out);
    free(seen);
    gk_job_free(job);
    gk_algorithm_free(alg);
    gk_context_free(ctx);
    return on_gpu;
}

int main(int argc, char **argv)
{
    const int lat = argc > 1 && !strcmp(argv[1], "lattice");
    if (argc > 1 && !lat && strcmp(argv[1], "uniform")) {
        fprintf(stderr, "usage: test_gpu_late [uniform|lattice]\n");
        return 2;
    }
    setenv("GRIDKIT_GPU_START_DELAY", "300", 1);
    pthread_t th;
    if (pthread_create(&th, NULL, warm, NULL)) {
        fprintf(stderr, "no thread\n");
        return 1;
    }
    const int cores = omp_get_num_procs();
    NX = NY = (int)sqrt(1048576.0 * (cores < 1 ? 1 : cores > 32 ? 32 : cores));
    gk_context *ctx = gk_context_new();
    gk_points *pts = lat ? lattice(ctx) : uniform(ctx, 200000);
    const gk_grid g = {0, 10000, 0, 10000, NX, NY};
    const char *spec =
        lat ? "average:radius1=80:radius2=80" : "invdistnn:power=2:radius=300:max_points=16";

    /* a job freed while the GPU starts: its start is left to end alone */
    {
        gk_context *c2 = gk_context_new();
        gk_context_set_gpu_late(c2, 1);
        gk_algorithm *alg = gk_algorithm_parse(c2, spec);
        gk_job *job = gk_job_new(c2, pts, alg);
        CHECKF(job, "job: %s", gk_errmsg(c2));
        gk_job_free(job);
        gk_algorithm_free(alg);
        gk_context_free(c2);
    }
    int gpu = late_run(pts, lat ? "lattice" : "uniform", spec, &g, lat ? 28.0 : 150.0, lat);
    pthread_join(th, NULL);
    gk_points_free(pts);
    gk_context_free(ctx);
    printf("%s (%s)\n", failures ? "FAILED" : "late start passed",
           gpu ? "a GPU joined" : "no GPU: the cores took the grid");
    return failures ? 1 : 0;
}
