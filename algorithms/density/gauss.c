/*
 * density/gauss.c - the Gaussian kernel sum at every node,
 *     G(x) = sum_i w_i exp(-|x - p_i|^2 / (2 sigma^2)),
 * sigma being the bandwidth (spatstat's sigma); normalize=yes divides by
 * 2 pi sigma^2, the weighted density per unit area without edge correction
 * (spatstat's density.ppp(X, sigma, weights, edge=FALSE)). Weights are z
 * (-zfield), or 1 for every point (GK_M_Z_WEIGHT); any sign is fine.
 *
 * method=direct sums every point; method=cutoff (and auto, for now) only
 * those within r_c = sigma sqrt(2 ln(1/E)). The guarantee, mode=absolute:
 * a dropped point has d > r_c, so exp(-d^2/(2 sigma^2)) < exp(-r_c^2/(2
 * sigma^2)) = exp(-ln(1/E)) = E, and its term is below E |w_i|; summing
 * over the dropped points, |cutoff - exact| < E sum_{dropped} |w_i| <= E
 * sum_i |w_i| (for normalize=yes the same bound over 2 pi sigma^2). The
 * search radius is widened by a hair, so rounding in d^2 only keeps more
 * points, never fewer. Floating-point rounding of the sum itself adds about
 * n * 2^-52 sum|w|, far below E for E >= 1e-12 and n <= 1e6.
 *
 * The kernel is a product of an x and a y factor (density/density_sum.h),
 * so a tile computes each point's factors once per column and row and each
 * node's term is one product; cutoff drops a point whose |dx| or |dy|
 * exceeds r_c (a square that holds the disc: the bound above stands). Each
 * node sums its points in the bins' order, on the CPU and the GPU alike, so
 * the bytes depend on the inputs only. The exponential's error (2 ulp) adds
 * about 4.4e-16 sum|w|. IFGT, FFT and mode=relative are later work (a clear
 * error for now).
 */
#include "core/method.h"
#include "density/density_bins.h"
#include "density/density_sum.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

enum { GAUSS_DIRECT, GAUSS_CUTOFF };

/* The reach of a point: method=direct none; cutoff r_c, widened by a hair
 * so that rounding in dx only keeps more points, never fewer. */
static double gauss_reach(const gk_algorithm *a)
{
    return a->gauss.method == GAUSS_DIRECT ? INFINITY : a->gauss.rc * (1.0 + 1e-9);
}

/* Points per chunk whose factors a tile keeps at once. */
#define GS_CHUNK 64

typedef struct {
    const gk_dens_bins *b;
    const double *nx, *ny;
    int w, h, smooth;
    double c, r;
    double *ex, *ey; /* GS_CHUNK * w, GS_CHUNK * h */
    int *span;       /* GS_CHUNK * 4: columns and rows with a non-zero factor */
    size_t pending[GS_CHUNK]; /* the chunk's points, in bin order */
    int m;
    double *num, *den;
} gauss_acc;

/* The index range [*lo, *hi] of nodes v0 + k step (k < m) that may lie within
 * r of p, with a node of slack each side (the exact test is the factor's). */
static void node_span(double p, double r, double v0, double step, int m, int *lo, int *hi)
{
    double a = (p - r - v0) / step, b = (p + r - v0) / step;
    if (a > b) {
        double t = a;
        a = b, b = t;
    }
    a = floor(a) - 1.0, b = ceil(b) + 1.0;
    a = a > 0.0 ? a : 0.0;
    b = b < (double)(m - 1) ? b : (double)(m - 1);
    if (!(a <= b))
        *lo = 1, *hi = 0;
    else
        *lo = (int)a, *hi = (int)b;
}

/* One axis's factors of a point over the tile's nodes v (zero outside
 * [*lo, *hi], which shrinks to the non-zero ones). */
static void axis_factors(double p, const double *v, int m, double c, double r, double step,
                         double *f, int *lo, int *hi)
{
    node_span(p, r, v[0], step, m, lo, hi);
    int a = *hi + 1, b = *lo - 1;
    for (int k = *lo; k <= *hi; k++) {
        f[k] = gk_ds_gauss1(v[k] - p, c, r);
        if (f[k] != 0.0) {
            a = k < a ? k : a;
            b = k;
        }
    }
    *lo = a, *hi = b;
}

/* Adds the chunk of pending points to the tile's sums: each point's x
 * factors over the columns and y factors over the rows, then row by row the
 * products. For every node the points come in bin order, as on the GPU. */
GK_DS_CLONES static void gauss_flush(gauss_acc *A)
{
    const gk_dens_bins *b = A->b;
    const int w = A->w, h = A->h, m = A->m;
    const double stepx = w > 1 ? A->nx[1] - A->nx[0] : 1.0;
    const double stepy = h > 1 ? A->ny[1] - A->ny[0] : -1.0;
    int jlo = h, jhi = -1;
    for (int c = 0; c < m; c++) {
        const size_t q = A->pending[c];
        int *sp = A->span + 4 * c;
        axis_factors(b->y[q], A->ny, h, A->c, A->r, stepy, A->ey + (size_t)c * h, &sp[2],
                     &sp[3]);
        if (sp[2] <= sp[3])
            axis_factors(b->x[q], A->nx, w, A->c, A->r, stepx, A->ex + (size_t)c * w, &sp[0],
                         &sp[1]);
        if (sp[2] > sp[3] || sp[0] > sp[1]) {
            sp[2] = h, sp[3] = -1; /* reaches no node */
            continue;
        }
        jlo = sp[2] < jlo ? sp[2] : jlo;
        jhi = sp[3] > jhi ? sp[3] : jhi;
    }
    A->m = 0;
    for (int j = jlo; j <= jhi; j++) {
        double *num = A->num + (size_t)j * w, *den = A->den ? A->den + (size_t)j * w : NULL;
        for (int c = 0; c < m; c++) {
            const int *sp = A->span + 4 * c;
            if (j < sp[2] || j > sp[3])
                continue;
            const double e = A->ey[(size_t)c * h + j];
            if (e == 0.0)
                continue; /* adds +0.0 or -0.0 on the GPU: the same bits */
            const double wy = b->z[A->pending[c]] * e;
            const double *ex = A->ex + (size_t)c * w;
            for (int i = sp[0]; i <= sp[1]; i++)
                num[i] = num[i] + wy * ex[i];
            if (den)
                for (int i = sp[0]; i <= sp[1]; i++)
                    den[i] = den[i] + e * ex[i];
        }
    }
}

/* The points [p0, p1) join the pending chunk, flushed when full. */
static void gauss_run(size_t p0, size_t p1, void *arg)
{
    gauss_acc *A = arg;
    for (size_t p = p0; p < p1; p++) {
        A->pending[A->m++] = p;
        if (A->m == GS_CHUNK)
            gauss_flush(A);
    }
}

static uint64_t gauss_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    const gk_algorithm *a = &job->alg;
    const int w = t->w, h = t->h, smooth = a->gauss.smooth;
    const size_t ncell = (size_t)w * h;
    if (gk_scratch_reserve(s, (size_t)(w + h) * (GS_CHUNK + 1) + 4 * GS_CHUNK) ||
        (smooth && gk_scratch_reserve2(s, ncell)))
        return UINT64_MAX;
    gauss_acc A = {.b = job->dbins, .w = w, .h = h, .smooth = smooth};
    double *nx = s->d2, *ny = nx + w;
    A.nx = nx, A.ny = ny;
    A.ex = ny + h;
    A.ey = A.ex + (size_t)GS_CHUNK * w;
    A.span = s->idx;
    A.c = 1.0 / (2.0 * a->gauss.sigma * a->gauss.sigma);
    A.r = gauss_reach(a);
    A.num = out;
    A.den = smooth ? s->d2b : NULL;
    memset(out, 0, ncell * sizeof *out);
    if (A.den)
        memset(A.den, 0, ncell * sizeof *A.den);
    gk_dens_tile_nodes(t, nx, ny);
    gk_dens_tile_runs(job->dbins, nx, w, ny, h, A.r, gauss_run, &A);
    if (A.m)
        gauss_flush(&A);
    uint64_t nodata = 0;
    if (smooth) { /* Nadaraya-Watson; no kernel mass at a node: nodata */
        for (size_t k = 0; k < ncell; k++) {
            if (A.den[k] > 0)
                out[k] = out[k] / A.den[k];
            else
                out[k] = a->nodata, nodata++;
        }
    } else if (a->gauss.normalize) {
        const double area = 2.0 * M_PI * a->gauss.sigma * a->gauss.sigma;
        for (size_t k = 0; k < ncell; k++)
            out[k] = out[k] / area;
    }
    return nodata;
}

/* ---- its keys ----------------------------------------------------------- */

static void gauss_canonical(gk_algorithm *a, double sumabs)
{
    gk_strbuf sb = {a->canonical, sizeof a->canonical, 0};
    /* auto is cutoff for now; no bandwidth: Scott's rule, until build sets it */
    gk_strbuf_add(&sb, "%s", a->gauss.smooth ? "kernel_smooth" : "gauss");
    if (!isnan(a->gauss.sigma))
        gk_strbuf_add(&sb, ":bandwidth=%.17g", a->gauss.sigma);
    gk_strbuf_add(&sb, ":epsilon=%.17g:mode=absolute:method=%s", a->gauss.epsilon,
                  a->gauss.method == GAUSS_DIRECT ? "direct" : "cutoff");
    if (!a->gauss.smooth)
        gk_strbuf_add(&sb, ":normalize=%s", a->gauss.normalize ? "yes" : "no");
    if (a->gauss.method == GAUSS_CUTOFF && !isnan(a->gauss.sigma))
        gk_strbuf_add(&sb, ":cutoff_radius=%.17g", a->gauss.rc);
    if (sumabs >= 0 && !a->gauss.smooth) {
        double b = a->gauss.epsilon * sumabs;
        if (a->gauss.normalize)
            b /= 2.0 * M_PI * a->gauss.sigma * a->gauss.sigma;
        gk_strbuf_add(&sb, ":bound=%.6g", a->gauss.method == GAUSS_DIRECT ? 0.0 : b);
    }
    gk_strbuf_add(&sb, ":nodata=%.17g", a->nodata);
}

static int gauss_parse_any(gk_context *ctx, const char *spec, char *rest, gk_algorithm *a,
                           int smooth)
{
    const char *name = smooth ? "kernel_smooth" : "gauss";
    a->gauss.smooth = smooth;
    a->gauss.sigma = NAN;
    a->gauss.rc = NAN;
    a->gauss.epsilon = 1e-6;
    a->gauss.method = GAUSS_CUTOFF;
    a->gauss.method_auto = 1;
    a->gauss.normalize = 1;
    char *save = rest;
    for (char *tok = strtok_r(NULL, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            return gk_error(ctx, GK_ERR_ARG, "-a %s: '%s' is not key=value", spec, tok);
        *eq = '\0';
        const char *key = tok, *val = eq + 1;
        double num;
        if (!strcasecmp(key, "method")) {
            if (!strcasecmp(val, "auto"))
                a->gauss.method = GAUSS_CUTOFF, a->gauss.method_auto = 1;
            else if (!strcasecmp(val, "direct"))
                a->gauss.method = GAUSS_DIRECT, a->gauss.method_auto = 0;
            else if (!strcasecmp(val, "cutoff"))
                a->gauss.method = GAUSS_CUTOFF, a->gauss.method_auto = 0;
            else if (!strcasecmp(val, "ifgt") || !strcasecmp(val, "fft"))
                return gk_error(ctx, GK_ERR_ARG,
                                "-a %s: method: '%s' is not implemented yet (auto, direct, "
                                "cutoff)",
                                spec, val);
            else
                return gk_error(ctx, GK_ERR_ARG,
                                "-a %s: method: unknown method '%s' (auto, direct, cutoff)", spec,
                                val);
        } else if (!strcasecmp(key, "mode")) {
            if (!strcasecmp(val, "relative"))
                return gk_error(ctx, GK_ERR_ARG,
                                "-a %s: mode: 'relative' is not implemented yet (absolute)", spec);
            if (strcasecmp(val, "absolute"))
                return gk_error(ctx, GK_ERR_ARG, "-a %s: mode: unknown mode '%s' (absolute)",
                                spec, val);
        } else if (!smooth && !strcasecmp(key, "normalize")) {
            if (!strcasecmp(val, "yes"))
                a->gauss.normalize = 1;
            else if (!strcasecmp(val, "no"))
                a->gauss.normalize = 0;
            else
                return gk_error(ctx, GK_ERR_ARG, "-a %s: normalize: '%s' is not yes or no", spec,
                                val);
        } else if (!strcasecmp(key, "cutoff_radius") || !strcasecmp(key, "bound")) {
            /* reported by the canonical string; recomputed, so read back and ignored */
        } else if (!strcasecmp(key, "bandwidth") || !strcasecmp(key, "epsilon") ||
                   !strcasecmp(key, "nodata")) {
            if (gk_param_number(key, val, &num))
                return gk_error(ctx, GK_ERR_ARG, "-a %s: %s: '%s' is not a number", spec, key,
                                val);
            if (!strcasecmp(key, "bandwidth")) {
                if (!(num > 0) || !isfinite(num))
                    return gk_error(ctx, GK_ERR_ARG,
                                    "-a %s: bandwidth: must be finite and > 0 (got '%s')", spec,
                                    val);
                a->gauss.sigma = num;
            } else if (!strcasecmp(key, "epsilon")) {
                if (!(num > 0 && num < 1))
                    return gk_error(ctx, GK_ERR_ARG,
                                    "-a %s: epsilon: must be within (0, 1) (got '%s')", spec, val);
                a->gauss.epsilon = num;
            } else {
                a->nodata = num, a->nodata_given = 1;
            }
        } else {
            return gk_error(ctx, GK_ERR_ARG,
                            "-a %s: algorithm %s has no parameter '%s' (bandwidth, epsilon, "
                            "mode, method%s, nodata)",
                            spec, name, key, smooth ? "" : ", normalize");
        }
    }
    if (!isfinite(a->nodata) && !isnan(a->nodata))
        return gk_error(ctx, GK_ERR_ARG, "-a %s: nodata must be finite", spec);
    if (isfinite(a->gauss.sigma))
        a->gauss.rc = a->gauss.sigma * sqrt(2.0 * log(1.0 / a->gauss.epsilon));
    gauss_canonical(a, -1);
    return GK_OK;
}

static int gauss_parse(gk_context *ctx, const char *spec, char *rest, gk_algorithm *a)
{
    return gauss_parse_any(ctx, spec, rest, a, 0);
}

static int kernel_smooth_parse(gk_context *ctx, const char *spec, char *rest, gk_algorithm *a)
{
    return gauss_parse_any(ctx, spec, rest, a, 1);
}

/* Scott's rule when no bandwidth was given, the cut-off radius, the
 * canonical string with the bound; then the bins (before the device is
 * chosen: the GPU takes them too). */
static int gauss_build(gk_job *job)
{
    gk_algorithm *a = &job->alg;
    const gk_points *p = job->pts;
    size_t n = p->n;
    if (isnan(a->gauss.sigma)) {
        /* sigma_x = sd_x n^(-1/6), sigma_y likewise; isotropic: sqrt(sigma_x sigma_y) */
        double mx = 0, my = 0, sx = 0, sy = 0;
        for (size_t i = 0; i < n; i++)
            mx += p->x[i], my += p->y[i];
        if (n)
            mx /= (double)n, my /= (double)n;
        for (size_t i = 0; i < n; i++)
            sx += (p->x[i] - mx) * (p->x[i] - mx), sy += (p->y[i] - my) * (p->y[i] - my);
        double s = n > 1 ? sqrt(sqrt(sx / (double)(n - 1)) * sqrt(sy / (double)(n - 1))) *
                               pow((double)n, -1.0 / 6.0)
                         : 0.0;
        if (!(s > 0) || !isfinite(s))
            return gk_error(job->ctx, GK_ERR_ARG,
                            "-a %s: bandwidth: cannot be estimated from %zu points (Scott's "
                            "rule needs >= 2 points spread in both x and y); give bandwidth=",
                            a->gauss.smooth ? "kernel_smooth" : "gauss", n);
        a->gauss.sigma = s;
        a->gauss.rc = s * sqrt(2.0 * log(1.0 / a->gauss.epsilon));
    }
    double sumabs = 0;
    for (size_t i = 0; i < n; i++)
        sumabs += fabs(p->z[i]);
    gauss_canonical(a, sumabs);
    return gk_dens_bins_build(job->ctx, p, gauss_reach(a), &job->dbins);
}

/* One core: ~0.6 ns a product over the square of side 2 r_c (1 M points,
 * 4096^2 nodes, sigma 50 m over 10 km: 28 s of CPU on this project's EPYC
 * for 4.7e10 products); binning ~20 ns a point. */
static double gauss_cost(const gk_algorithm *a, double n, double area, double *setup_ns)
{
    *setup_ns = 20.0 * n;
    double r = a->gauss.method == GAUSS_CUTOFF && isfinite(a->gauss.rc) ? a->gauss.rc : INFINITY;
    double k = area > 0 && isfinite(r) ? n * 4.0 * r * r / area : n;
    return 100.0 + 0.6 * (k < n ? k : n);
}

static const char *gauss_gpu(const gk_job *job, gk_gpu_job_desc *d)
{
    const gk_algorithm *a = &job->alg;
    if (!job->dbins)
        return "gauss without its bins";
    d->op = GK_GPU_GAUSS;
    gk_dens_gpu_bins(job->dbins, d);
    d->dens_r = gauss_reach(a);
    d->dens_c = 1.0 / (2.0 * a->gauss.sigma * a->gauss.sigma);
    d->dens_div = !a->gauss.smooth && a->gauss.normalize
                      ? 2.0 * M_PI * a->gauss.sigma * a->gauss.sigma
                      : 0.0;
    d->dens_smooth = a->gauss.smooth;
    return NULL;
}

const gk_method gk_method_gauss = {
    .name = "gauss",
    .kind = GK_ALG_GAUSS,
    .summary = "Gaussian kernel density / Gauss transform with a guaranteed absolute error",
    .own_keys = "bandwidth, epsilon, mode=absolute, method=auto|direct|cutoff, normalize=yes|no, "
                "nodata",
    .flags = GK_M_Z_WEIGHT,
    .parse = gauss_parse,
    .build = gauss_build,
    .release = gk_dens_release,
    .cpu_index = gk_dens_cpu_index,
    .cpu_tile = gauss_tile,
    .gpu_describe = gauss_gpu,
    .cost_ns = gauss_cost,
};

/* Nadaraya-Watson regression from the same sums: sum K z / sum K, nodata
 * where sum K is 0 (every point beyond the cut-off, or underflow). With
 * cutoff, numerator and denominator are each within E sum|z| and E n of
 * exact; the ratio's error is (|dN| + |N/D| |dD|) / D', so it is only
 * small where the kernel mass D' is not (docs/heatmap.md). */
const gk_method gk_method_kernel_smooth = {
    .name = "kernel_smooth",
    .kind = GK_ALG_KERNEL_SMOOTH,
    .summary = "Nadaraya-Watson Gaussian kernel regression of z (sum K z / sum K)",
    .own_keys = "bandwidth, epsilon, mode=absolute, method=auto|direct|cutoff, nodata",
    .parse = kernel_smooth_parse,
    .build = gauss_build,
    .release = gk_dens_release,
    .cpu_index = gk_dens_cpu_index,
    .cpu_tile = gauss_tile,
    .gpu_describe = gauss_gpu,
    .cost_ns = gauss_cost,
};
