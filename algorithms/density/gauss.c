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
 * Points are summed in input order, so the bytes depend on the inputs only.
 * IFGT, FFT and mode=relative are later work (a clear error for now).
 */
#include "core/method.h"
#include "search/index.h"
#include "search/kdtree.h"
#include "search/neighbours.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

enum { GAUSS_DIRECT, GAUSS_CUTOFF };

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int gauss_node(const gk_job *job, double nx, double ny, double hit2, gk_scratch *s,
                      double *v)
{
    (void)hit2;
    const gk_algorithm *a = &job->alg;
    const double sig = a->gauss.sigma, c = 1.0 / (2.0 * sig * sig);
    const double *x = job->pts->x, *y = job->pts->y, *z = job->pts->z;
    double sum = 0.0, den = 0.0;
    if (a->gauss.method == GAUSS_DIRECT) {
        for (size_t k = 0; k < job->pts->n; k++) {
            double dx = nx - x[k], dy = ny - y[k];
            double e = exp(-(dx * dx + dy * dy) * c);
            sum += z[k] * e, den += e;
        }
    } else {
        /* widened: rounding may keep an extra point (harmless), never drop one */
        const double r2 = a->gauss.rc * a->gauss.rc * (1.0 + 1e-9);
        size_t n = gk_kdtree_radius(job->tree, nx, ny, r2, s->idx, s->d2, s->cap);
        if (n > s->cap) {
            if (gk_scratch_reserve(s, n))
                return -1;
            n = gk_kdtree_radius(job->tree, nx, ny, r2, s->idx, s->d2, s->cap);
        }
        qsort(s->idx, n, sizeof *s->idx, cmp_int); /* input order: a fixed sum */
        for (size_t i = 0; i < n; i++) {
            int k = s->idx[i];
            double dx = nx - x[k], dy = ny - y[k];
            double e = exp(-(dx * dx + dy * dy) * c);
            sum += z[k] * e, den += e;
        }
    }
    if (a->gauss.smooth) { /* Nadaraya-Watson; no kernel mass here: nodata */
        if (!(den > 0))
            return 0;
        *v = sum / den;
        return 1;
    }
    if (a->gauss.normalize)
        sum /= 2.0 * M_PI * sig * sig;
    *v = sum;
    return 1;
}

static uint64_t gauss_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    return gk_nb_run_tile(job, t, out, s, gauss_node);
}

/* ---- its keys ----------------------------------------------------------- */

static void gauss_canonical(gk_algorithm *a, double sumabs)
{
    gk_strbuf sb = {a->canonical, sizeof a->canonical, 0};
    /* auto is cutoff for now; no bandwidth: Scott's rule, until prepare sets it */
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
 * canonical string with the bound; then the tree (cutoff only). */
static int gauss_prepare(gk_job *job)
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
    if (a->gauss.method == GAUSS_CUTOFF)
        return gk_method_tree(job);
    return GK_OK;
}

static double gauss_cost(const gk_algorithm *a, double n, double area, double *setup_ns)
{
    if (a->gauss.method == GAUSS_DIRECT) {
        *setup_ns = 0;
        return 300.0 + 15.0 * n;
    }
    *setup_ns = n * GK_NS_TREE_PER_POINT;
    double r = isfinite(a->gauss.rc) ? a->gauss.rc : 0.0;
    double k = area > 0 && r > 0 ? n * M_PI * r * r / area : n;
    return 300.0 + 40.0 * (k < n ? k : n);
}

const gk_method gk_method_gauss = {
    .name = "gauss",
    .kind = GK_ALG_GAUSS,
    .summary = "Gaussian kernel density / Gauss transform with a guaranteed absolute error",
    .own_keys = "bandwidth, epsilon, mode=absolute, method=auto|direct|cutoff, normalize=yes|no, "
                "nodata",
    .flags = GK_M_Z_WEIGHT,
    .parse = gauss_parse,
    .prepare = gauss_prepare,
    .cpu_index = gk_index_tree,
    .cpu_tile = gauss_tile,
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
    .prepare = gauss_prepare,
    .cpu_index = gk_index_tree,
    .cpu_tile = gauss_tile,
    .cost_ns = gauss_cost,
};
