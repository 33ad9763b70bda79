/* SPDX-License-Identifier: MIT */
/*
 * density/gauss.c - the Gaussian kernel sum at every node,
 *     G(x) = sum_i w_i exp(-|x - p_i|^2 / (2 sigma^2)),
 * sigma being the bandwidth (spatstat's sigma); normalize=yes divides by
 * 2 pi sigma^2, the weighted density per unit area without edge correction
 * (spatstat's density.ppp(X, sigma, weights, edge=FALSE)). Weights are z
 * (-zfield), or 1 for every point (GK_M_Z_WEIGHT); any sign is fine.
 *
 * method=direct sums every point; method=cutoff only those within r_c =
 * sigma sqrt(2 ln(1/E)); method=auto the cut-off or, where the cut-off
 * keeps many points, the IFGT when a fixed cost model (density/gauss.h)
 * says it is cheaper. The guarantee, mode=absolute:
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
 * node's term is one fused multiply-add (C's fma, the GPU's __fma_rn: one
 * rounding on every device); cutoff drops a point whose |dx| or |dy|
 * exceeds r_c (a square that holds the disc: the bound above stands). Each
 * node sums its points in the bins' order, on the CPU and the GPU alike, so
 * the bytes depend on the inputs only. The exponential's error (2 ulp) adds
 * about 4.4e-16 sum|w|. Elliptical kernels (bandwidth_x, bandwidth_y,
 * angle): unturned still a product of factors; turned, a term a pair.
 * mode=relative (|error| <= E exact, weights >= 0) is
 * density/gauss_relative.c, method=ifgt density/gauss_ifgt.c, method=fft
 * (binned, a looser bound) density/gauss_fft.c.
 */
#include "core/double_edge.h"
#include "core/method.h"
#include "density/density_bins.h"
#include "density/density_sum.h"
#include "density/gauss.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* The kernel, exp(-Q / 2) with Q = u^2 / sigma_x^2 + v^2 / sigma_y^2 in
 * axes (u, v) turned by angle from (x, y). */
static double gs_sy(const gk_algorithm *a)
{
    return isnan(gk_gauss_of(a)->sigma_y) ? gk_gauss_of(a)->sigma : gk_gauss_of(a)->sigma_y;
}
static int gs_rotated(const gk_algorithm *a) { return gk_gauss_of(a)->angle != 0.0; }
/* ln(1/E): cutoff drops the points with Q / 2 > ln(1/E), whose terms are below E. */
static double gs_log(const gk_algorithm *a) { return log(1.0 / gk_gauss_of(a)->epsilon); }

/* Whether a bandwidth can be computed with: 2 sigma^2 and c = 1 / (2
 * sigma^2) normal doubles, so that exp(-d^2 c) keeps double precision (a
 * subnormal d^2 errs by at most 2^-1074 c <= 2^-52) and the density's 2 pi
 * sigma_x sigma_y is finite and normal. Beyond it c is infinite (a point on
 * a node gave 0 x inf = NaN, then 0) or loses its bits. */
static int gs_sigma_ok(const void *unused, double s)
{
    (void)unused;
    const double t = 2.0 * s * s;
    return isnormal(t) && isnormal(1.0 / t);
}

/* The error for a bandwidth outside gs_sigma_ok's range; what names it. */
static int gs_sigma_error(gk_context *ctx, const char *spec, const char *what, double s)
{
    return gk_error(ctx, GK_ERR_ARG,
                    "-a %s: %s%.15g is outside [%.15g, %.15g], where 2 sigma^2 and 1 / (2 "
                    "sigma^2) are normal doubles; beyond it the kernel's exponent under- or "
                    "overflows",
                    spec, what, s, gk_double_edge(gs_sigma_ok, NULL, 1.0, 0.0),
                    gk_double_edge(gs_sigma_ok, NULL, 1.0, INFINITY));
}

/* The reach of a point in x and in y: method=direct none; cutoff the half
 * extents of the ellipse Q / 2 = ln(1/E) (sigma sqrt(2 ln(1/E)) unturned),
 * widened by a hair so that rounding in dx only keeps more points, never
 * fewer. */
static void gauss_reach(const gk_algorithm *a, double *rx, double *ry)
{
    if (gk_gauss_of(a)->method == GK_GAUSS_DIRECT) {
        *rx = *ry = INFINITY;
        return;
    }
    const double k = sqrt(2.0 * gs_log(a)) * (1.0 + 1e-9), sx = gk_gauss_of(a)->sigma,
                 sy = gs_sy(a);
    if (!gs_rotated(a)) {
        *rx = sx * k, *ry = sy * k;
        return;
    }
    const double t = gk_gauss_of(a)->angle * (M_PI / 180.0), c = cos(t), s = sin(t);
    *rx = k * sqrt(sx * sx * c * c + sy * sy * s * s);
    *ry = k * sqrt(sx * sx * s * s + sy * sy * c * c);
}

/* Points per chunk whose factors a tile keeps at once. */
#define GS_CHUNK 64

typedef struct {
    const gk_dens_bins *b;
    const double *nx, *ny;
    int w, h;
    double cx, cy, rx, ry;      /* 1 / (2 sigma^2) and the reach, a factor per axis */
    int rotated;                /* turned: no factors, a term a pair (gauss_flush_turned) */
    double cu, cv, ca, sa, lim; /* its 1 / (2 sigma^2), cos, sin and the cut-off of Q / 2 */
    double *ex, *ey;            /* GS_CHUNK * w, GS_CHUNK * h */
    int *span;                  /* GS_CHUNK * 4: columns and rows with a non-zero factor */
    size_t pending[GS_CHUNK];   /* the chunk's points, in bin order */
    int m;
    size_t seg;                /* the segment (density_sum.h) being summed into num, den */
    int dirty;                 /* num, den hold something since the last fold */
    double *tot_num, *tot_den; /* the segments' sums, summed */
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
 * [*lo, *hi], which shrinks to the non-zero ones). Inlined into
 * gauss_flush's clones, so that its fma is the instruction. */
#ifdef __GNUC__
__attribute__((always_inline))
#endif
static inline void
axis_factors(double p, const double *v, int m, double c, double r, double step, double *f, int *lo,
             int *hi)
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
        axis_factors(b->y[q], A->ny, h, A->cy, A->ry, stepy, A->ey + (size_t)c * h, &sp[2], &sp[3]);
        if (sp[2] <= sp[3])
            axis_factors(b->x[q], A->nx, w, A->cx, A->rx, stepx, A->ex + (size_t)c * w, &sp[0],
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
                num[i] = fma(wy, ex[i], num[i]);
            if (den)
                for (int i = sp[0]; i <= sp[1]; i++)
                    den[i] = fma(e, ex[i], den[i]);
        }
    }
}

/* A turned kernel is not a product of an x and a y factor: each pending
 * point's term at each node of its box, exp(-Q / 2) where Q / 2 <= lim
 * (else 0: the bound above), in the same order as gauss_flush (and the
 * GPU's gauss_turned_f64). */
static void gauss_flush_turned(gauss_acc *A)
{
    const gk_dens_bins *b = A->b;
    const int w = A->w, h = A->h, m = A->m;
    const double stepx = w > 1 ? A->nx[1] - A->nx[0] : 1.0;
    const double stepy = h > 1 ? A->ny[1] - A->ny[0] : -1.0;
    A->m = 0;
    for (int c = 0; c < m; c++) {
        const size_t q = A->pending[c];
        const double px = b->x[q], py = b->y[q], z = b->z[q];
        int i0, i1, j0, j1;
        node_span(px, A->rx, A->nx[0], stepx, w, &i0, &i1);
        node_span(py, A->ry, A->ny[0], stepy, h, &j0, &j1);
        for (int j = j0; j <= j1 && i0 <= i1; j++) {
            const double dy = A->ny[j] - py;
            double *num = A->num + (size_t)j * w, *den = A->den ? A->den + (size_t)j * w : NULL;
            for (int i = i0; i <= i1; i++) {
                const double dx = A->nx[i] - px;
                const double u = A->ca * dx + A->sa * dy, v = A->ca * dy - A->sa * dx;
                const double q2 = u * u * A->cu + v * v * A->cv;
                if (!(q2 <= A->lim))
                    continue;
                const double e = gk_ds_exp(-q2);
                num[i] = num[i] + z * e;
                if (den)
                    den[i] = den[i] + e;
            }
        }
    }
}

static void gauss_flush_any(gauss_acc *A)
{
    if (A->rotated)
        gauss_flush_turned(A);
    else
        gauss_flush(A);
    A->dirty = 1;
}

/* A segment's sums into the totals (density_sum.h's GK_DS_SEG). */
static void gauss_fold(gauss_acc *A)
{
    const size_t ncell = (size_t)A->w * A->h;
    for (size_t k = 0; k < ncell; k++) {
        A->tot_num[k] = A->tot_num[k] + A->num[k];
        A->num[k] = 0.0;
    }
    if (A->den)
        for (size_t k = 0; k < ncell; k++) {
            A->tot_den[k] = A->tot_den[k] + A->den[k];
            A->den[k] = 0.0;
        }
    A->dirty = 0;
}

/* The points [p0, p1) join the pending chunk, flushed when full; a new
 * segment first closes the last. */
static void gauss_run(size_t p0, size_t p1, void *arg)
{
    gauss_acc *A = arg;
    for (size_t p = p0; p < p1; p++) {
        if (p / GK_DS_SEG != A->seg) {
            if (A->m)
                gauss_flush_any(A);
            if (A->dirty)
                gauss_fold(A);
            A->seg = p / GK_DS_SEG;
        }
        A->pending[A->m++] = p;
        if (A->m == GS_CHUNK)
            gauss_flush_any(A);
    }
}

/* The sums over the points (direct, cutoff) of a tile. */
static uint64_t gauss_sum_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    const gk_algorithm *a = &job->alg;
    const int w = t->w, h = t->h, smooth = gk_gauss_of(a)->smooth;
    const size_t ncell = (size_t)w * h;
    if (gk_scratch_reserve(s, (size_t)(w + h) * (GS_CHUNK + 1) + 4 * GS_CHUNK) ||
        gk_scratch_reserve2(s, (smooth ? 3 : 1) * ncell))
        return UINT64_MAX;
    gauss_acc A = {.b = gk_dens_bins_of(job), .w = w, .h = h};
    double *nx = s->d2, *ny = nx + w;
    A.nx = nx, A.ny = ny;
    A.ex = ny + h;
    A.ey = A.ex + (size_t)GS_CHUNK * w;
    A.span = s->idx;
    const double sx = gk_gauss_of(a)->sigma, sy = gs_sy(a);
    A.cx = 1.0 / (2.0 * sx * sx);
    A.cy = 1.0 / (2.0 * sy * sy);
    gauss_reach(a, &A.rx, &A.ry);
    if ((A.rotated = gs_rotated(a))) {
        const double t = gk_gauss_of(a)->angle * (M_PI / 180.0);
        A.cu = A.cx, A.cv = A.cy, A.ca = cos(t), A.sa = sin(t);
        A.lim = gk_gauss_of(a)->method == GK_GAUSS_DIRECT ? INFINITY : gs_log(a) * (1.0 + 1e-9);
    }
    A.tot_num = out;
    A.num = s->d2b;
    A.tot_den = smooth ? s->d2b + ncell : NULL;
    A.den = smooth ? s->d2b + 2 * ncell : NULL;
    A.seg = SIZE_MAX;
    memset(s->d2b, 0, (smooth ? 3 : 1) * ncell * sizeof *s->d2b);
    memset(out, 0, ncell * sizeof *out);
    gk_dens_tile_nodes(t, nx, ny);
    gk_dens_tile_runs(gk_dens_bins_of(job), nx, w, ny, h, A.rx, A.ry, gauss_run, &A);
    if (A.m)
        gauss_flush_any(&A);
    if (A.dirty)
        gauss_fold(&A);
    uint64_t nodata = 0;
    if (smooth) { /* Nadaraya-Watson; no kernel mass at a node: nodata */
        for (size_t k = 0; k < ncell; k++) {
            if (A.tot_den[k] > 0)
                out[k] = out[k] / A.tot_den[k];
            else
                out[k] = a->nodata, nodata++;
        }
    } else if (gk_gauss_of(a)->normalize) {
        const double area = 2.0 * M_PI * sx * sy;
        for (size_t k = 0; k < ncell; k++)
            out[k] = out[k] / area;
    }
    return nodata;
}

static uint64_t gauss_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    const gk_algorithm *a = &job->alg;
    if (gk_gauss_of(a)->relative)
        return gk_gauss_relative_tile(job, t, out, s);
    if (gk_gauss_of(a)->method == GK_GAUSS_IFGT)
        return gk_ifgt_tile(job, t, out, s);
    if (gk_gauss_of(a)->method == GK_GAUSS_FFT)
        return gk_gauss_fft_tile(job, t, out, s, gauss_sum_tile);
    return gauss_sum_tile(job, t, out, s);
}

/* ---- its keys ----------------------------------------------------------- */

static void gauss_canonical(gk_algorithm *a, double sumabs)
{
    gk_strbuf sb = {a->canonical, sizeof a->canonical, 0};
    /* no bandwidth: Scott's rule, until build sets it */
    gk_strbuf_add(&sb, "%s", gk_gauss_of(a)->smooth ? "kernel_smooth" : "gauss");
    const int iso = isnan(gk_gauss_of(a)->sigma_y) && gk_gauss_of(a)->angle == 0.0;
    if (!isnan(gk_gauss_of(a)->sigma) && iso)
        gk_strbuf_add(&sb, ":bandwidth=%.17g", gk_gauss_of(a)->sigma);
    else if (!iso)
        gk_strbuf_add(&sb, ":bandwidth_x=%.17g:bandwidth_y=%.17g:angle=%.17g",
                      gk_gauss_of(a)->sigma, gs_sy(a), gk_gauss_of(a)->angle);
    const char *m = gk_gauss_of(a)->method == GK_GAUSS_DIRECT ? "direct"
                    : gk_gauss_of(a)->method == GK_GAUSS_IFGT ? "ifgt"
                    : gk_gauss_of(a)->method == GK_GAUSS_FFT  ? "fft"
                                                              : "cutoff";
    /* auto stays auto (read back, it chooses again, the same way), and
     * says what it chose once build has */
    gk_strbuf_add(&sb, ":epsilon=%.17g:mode=%s:method=%s", gk_gauss_of(a)->epsilon,
                  gk_gauss_of(a)->relative ? "relative" : "absolute",
                  gk_gauss_of(a)->method_auto ? "auto" : m);
    if (gk_gauss_of(a)->method_auto && sumabs >= 0)
        gk_strbuf_add(&sb, ":chosen=%s", m);
    if (!gk_gauss_of(a)->smooth)
        gk_strbuf_add(&sb, ":normalize=%s", gk_gauss_of(a)->normalize ? "yes" : "no");
    if (gk_gauss_of(a)->relative) {
        /* a cut-off per node; the bound is E times each node's value */
        if (sumabs >= 0)
            gk_strbuf_add(&sb, ":bound=relative");
    } else if (gk_gauss_of(a)->method == GK_GAUSS_IFGT && gk_gauss_of(a)->ifgt_k > 0) {
        /* its choice, and the bound it predicts (below the promised one) */
        double pb = gk_gauss_of(a)->ifgt_bound * sumabs;
        if (gk_gauss_of(a)->normalize)
            pb /= 2.0 * M_PI * gk_gauss_of(a)->sigma * gk_gauss_of(a)->sigma;
        gk_strbuf_add(&sb,
                      ":clusters=%d:order=%d:min_order=%d:cluster_radius=%.9g:reach=%.9g:"
                      "predicted=%.6g",
                      gk_gauss_of(a)->ifgt_k, gk_gauss_of(a)->ifgt_p, gk_gauss_of(a)->ifgt_pmin,
                      gk_gauss_of(a)->ifgt_rx, gk_gauss_of(a)->ifgt_ry, pb);
    } else if (gk_gauss_of(a)->method == GK_GAUSS_FFT) {
        /* the lattice's steps, at most a quarter sigma; its bound below */
        gk_strbuf_add(&sb, ":lattice=sigma/4");
    } else if (gk_gauss_of(a)->method == GK_GAUSS_CUTOFF && !isnan(gk_gauss_of(a)->sigma)) {
        if (iso) {
            gk_strbuf_add(&sb, ":cutoff_radius=%.17g", gk_gauss_of(a)->rc);
        } else { /* the half extents of the ellipse kept */
            double rx, ry;
            gauss_reach(a, &rx, &ry);
            gk_strbuf_add(&sb, ":cutoff_x=%.9g:cutoff_y=%.9g", rx, ry);
        }
    }
    if (sumabs >= 0 && !gk_gauss_of(a)->smooth && !gk_gauss_of(a)->relative) {
        double b = (gk_gauss_of(a)->epsilon +
                    (gk_gauss_of(a)->method == GK_GAUSS_FFT ? GK_GAUSS_FFT_BINNING : 0.0)) *
                   sumabs;
        if (gk_gauss_of(a)->normalize)
            b /= 2.0 * M_PI * gk_gauss_of(a)->sigma * gs_sy(a);
        gk_strbuf_add(&sb, ":bound=%.6g", gk_gauss_of(a)->method == GK_GAUSS_DIRECT ? 0.0 : b);
    }
    gk_strbuf_add(&sb, ":nodata=%.17g", a->nodata);
}

static int gauss_parse_any(gk_context *ctx, const char *spec, char *rest, gk_algorithm *a,
                           int smooth)
{
    const char *name = smooth ? "kernel_smooth" : "gauss";
    gk_gauss_of(a)->smooth = smooth;
    gk_gauss_of(a)->sigma = gk_gauss_of(a)->sigma_y = NAN;
    gk_gauss_of(a)->angle = 0.0;
    gk_gauss_of(a)->rc = NAN;
    double bw = NAN, bx = NAN, by = NAN;
    int angle_given = 0;
    gk_gauss_of(a)->epsilon = 1e-6;
    gk_gauss_of(a)->method = GK_GAUSS_CUTOFF;
    gk_gauss_of(a)->method_auto = 1;
    gk_gauss_of(a)->normalize = 1;
    char *save = rest;
    const char *key, *val;
    int more;
    while ((more = gk_param_next(ctx, spec, &save, &key, &val)) > 0) {
        double num;
        if (!strcasecmp(key, "method")) {
            if (!strcasecmp(val, "auto"))
                gk_gauss_of(a)->method = GK_GAUSS_CUTOFF, gk_gauss_of(a)->method_auto = 1;
            else if (!strcasecmp(val, "direct"))
                gk_gauss_of(a)->method = GK_GAUSS_DIRECT, gk_gauss_of(a)->method_auto = 0;
            else if (!strcasecmp(val, "cutoff"))
                gk_gauss_of(a)->method = GK_GAUSS_CUTOFF, gk_gauss_of(a)->method_auto = 0;
            else if (!strcasecmp(val, "ifgt"))
                gk_gauss_of(a)->method = GK_GAUSS_IFGT, gk_gauss_of(a)->method_auto = 0;
            else if (!strcasecmp(val, "fft"))
                gk_gauss_of(a)->method = GK_GAUSS_FFT, gk_gauss_of(a)->method_auto = 0;
            else
                return gk_error(ctx, GK_ERR_ARG,
                                "-a %s: method: unknown method '%s' (auto, direct, cutoff, ifgt, "
                                "fft)",
                                spec, val);
        } else if (!strcasecmp(key, "mode")) {
            if (!strcasecmp(val, "relative"))
                gk_gauss_of(a)->relative = 1;
            else if (!strcasecmp(val, "absolute"))
                gk_gauss_of(a)->relative = 0;
            else
                return gk_error(ctx, GK_ERR_ARG,
                                "-a %s: mode: unknown mode '%s' (absolute, relative)", spec, val);
        } else if (!smooth && !strcasecmp(key, "normalize")) {
            if (!strcasecmp(val, "yes"))
                gk_gauss_of(a)->normalize = 1;
            else if (!strcasecmp(val, "no"))
                gk_gauss_of(a)->normalize = 0;
            else
                return gk_error(ctx, GK_ERR_ARG, "-a %s: normalize: '%s' is not yes or no", spec,
                                val);
        } else if (!strcasecmp(key, "cutoff_radius") || !strcasecmp(key, "cutoff_x") ||
                   !strcasecmp(key, "cutoff_y") || !strcasecmp(key, "bound") ||
                   !strcasecmp(key, "clusters") || !strcasecmp(key, "order") ||
                   !strcasecmp(key, "min_order") || !strcasecmp(key, "cluster_radius") ||
                   !strcasecmp(key, "reach") || !strcasecmp(key, "predicted") ||
                   !strcasecmp(key, "chosen") || !strcasecmp(key, "lattice")) {
            /* reported by the canonical string; recomputed, so read back and ignored */
        } else if (!strcasecmp(key, "bandwidth") || !strcasecmp(key, "bandwidth_x") ||
                   !strcasecmp(key, "bandwidth_y") || !strcasecmp(key, "angle") ||
                   !strcasecmp(key, "epsilon") || !strcasecmp(key, "nodata")) {
            int nrc = gk_param_number(key, val, &num);
            if (nrc)
                return gk_error(ctx, GK_ERR_ARG, "-a %s: %s: '%s' %s", spec, key, val,
                                gk_param_number_why(nrc));
            if (!strncasecmp(key, "bandwidth", 9)) {
                if (!(num > 0) || !isfinite(num))
                    return gk_error(ctx, GK_ERR_ARG, "-a %s: %s: must be finite and > 0 (got '%s')",
                                    spec, key, val);
                if (!gs_sigma_ok(NULL, num)) {
                    char what[32];
                    snprintf(what, sizeof what, "%s=", key);
                    return gs_sigma_error(ctx, spec, what, num);
                }
                *(key[9] == '\0' ? &bw : tolower((unsigned char)key[10]) == 'x' ? &bx : &by) = num;
            } else if (!strcasecmp(key, "angle")) {
                if (!isfinite(num) || fabs(num) > 360.0)
                    return gk_error(ctx, GK_ERR_ARG,
                                    "-a %s: angle: must be within [-360, 360] degrees (got '%s')",
                                    spec, val);
                gk_gauss_of(a)->angle = num, angle_given = 1;
            } else if (!strcasecmp(key, "epsilon")) {
                if (!(num > 0 && num < 1))
                    return gk_error(ctx, GK_ERR_ARG,
                                    "-a %s: epsilon: must be within (0, 1) (got '%s')", spec, val);
                gk_gauss_of(a)->epsilon = num;
            } else {
                a->nodata = num, a->nodata_given = 1;
            }
        } else {
            return gk_error(ctx, GK_ERR_ARG,
                            "-a %s: algorithm %s has no parameter '%s' (bandwidth, "
                            "bandwidth_x, bandwidth_y, angle, epsilon, mode, method%s, nodata)",
                            spec, name, key, smooth ? "" : ", normalize");
        }
    }
    if (more < 0)
        return GK_ERR_ARG;
    if (!isfinite(a->nodata) && !isnan(a->nodata))
        return gk_error(ctx, GK_ERR_ARG, "-a %s: nodata must be finite", spec);
    /* bandwidth sets both axes; bandwidth_x and bandwidth_y override it */
    gk_gauss_of(a)->sigma = isnan(bx) ? bw : bx;
    gk_gauss_of(a)->sigma_y = isnan(by) ? bw : by;
    if (isnan(gk_gauss_of(a)->sigma) != isnan(gk_gauss_of(a)->sigma_y))
        return gk_error(ctx, GK_ERR_ARG,
                        "-a %s: bandwidth_x and bandwidth_y go together (or give bandwidth for "
                        "both)",
                        spec);
    if (angle_given && isnan(bx) && isnan(by))
        return gk_error(ctx, GK_ERR_ARG,
                        "-a %s: angle needs bandwidth_x and bandwidth_y (it turns an elliptical "
                        "kernel; bandwidth alone, or Scott's rule, is a circle)",
                        spec);
    if (gk_gauss_of(a)->sigma_y == gk_gauss_of(a)->sigma)
        gk_gauss_of(a)->sigma_y = NAN; /* isotropic */
    if (gk_gauss_of(a)->method == GK_GAUSS_IFGT &&
        (smooth || gk_gauss_of(a)->relative || !isnan(gk_gauss_of(a)->sigma_y) ||
         gk_gauss_of(a)->angle != 0.0))
        return gk_error(ctx, GK_ERR_ARG,
                        "-a %s: method=ifgt takes gauss with an isotropic bandwidth and "
                        "mode=absolute for now",
                        spec);
    if (gk_gauss_of(a)->method == GK_GAUSS_FFT &&
        (smooth || gk_gauss_of(a)->relative || gk_gauss_of(a)->angle != 0.0))
        return gk_error(ctx, GK_ERR_ARG,
                        "-a %s: method=fft takes gauss with mode=absolute and an unturned "
                        "kernel (no angle)",
                        spec);
    if (gk_gauss_of(a)->relative && smooth)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a %s: mode=relative is gauss's (a ratio of sums: use mode=absolute)",
                        spec);
    if (gk_gauss_of(a)->relative &&
        (!isnan(gk_gauss_of(a)->sigma_y) || gk_gauss_of(a)->angle != 0.0))
        return gk_error(ctx, GK_ERR_ARG,
                        "-a %s: mode=relative takes an isotropic bandwidth for now (no "
                        "bandwidth_x, bandwidth_y or angle)",
                        spec);
    if (isfinite(gk_gauss_of(a)->sigma))
        gk_gauss_of(a)->rc = gk_gauss_of(a)->sigma * sqrt(2.0 * log(1.0 / gk_gauss_of(a)->epsilon));
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

/* method=auto's cost of the cut-off a node (density/gauss.h's model): the
 * points in a node's cut-off box, for points spread evenly over their
 * bounding box and nodes over it too. */
static double gauss_cut_ns(const gk_points *p, double rx, double ry)
{
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    if (p->n)
        gk_points_bounds(p, &xmin, &ymin, &xmax, &ymax);
    const double k =
        (double)p->n * gk_gauss_overlap(rx, xmax - xmin) * gk_gauss_overlap(ry, ymax - ymin);
    return k * GK_GAUSS_NS_PAIR;
}

/* auto weighs the IFGT where it applies (gauss, isotropic, absolute) and
 * the cut-off keeps many points a node: below GS_AUTO_MIN points no plan
 * of the IFGT is cheaper (its least series costs more). */
#define GS_AUTO_MIN 256
static int gauss_auto_tries_ifgt(const gk_algorithm *a, const gk_points *p, double rx, double ry)
{
    if (!gk_gauss_of(a)->method_auto || gk_gauss_of(a)->smooth || gk_gauss_of(a)->relative ||
        gs_rotated(a) || !isnan(gk_gauss_of(a)->sigma_y))
        return 0;
    return gauss_cut_ns(p, rx, ry) >= GS_AUTO_MIN * GK_GAUSS_NS_PAIR;
}

/* Scott's rule when no bandwidth was given, the cut-off radius, the
 * canonical string with the bound; then the bins (before the device is
 * chosen: the GPU takes them too). */
static int gauss_build(gk_job *job)
{
    gk_algorithm *a = &job->alg;
    const gk_points *p = job->pts;
    size_t n = p->n;
    if (isnan(gk_gauss_of(a)->sigma)) {
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
                            gk_gauss_of(a)->smooth ? "kernel_smooth" : "gauss", n);
        if (!gs_sigma_ok(NULL, s))
            return gs_sigma_error(job->ctx, gk_gauss_of(a)->smooth ? "kernel_smooth" : "gauss",
                                  "Scott's rule's bandwidth (from the points' spread) ", s);
        gk_gauss_of(a)->sigma = s;
        gk_gauss_of(a)->rc = s * sqrt(2.0 * log(1.0 / gk_gauss_of(a)->epsilon));
    }
    double sumabs = 0;
    for (size_t i = 0; i < n; i++)
        sumabs += fabs(p->z[i]);
    /* a node's sum is at most sum|w| (over 2 pi sigma_x sigma_y): beyond
     * the largest double it would be written as infinity */
    const double top = gk_gauss_of(a)->smooth || !gk_gauss_of(a)->normalize
                           ? sumabs
                           : sumabs / (2.0 * M_PI * gk_gauss_of(a)->sigma * gs_sy(a));
    if (!(top <= DBL_MAX))
        return gk_error(job->ctx, GK_ERR_ARG,
                        "-a %s: a cell's value could reach sum|w| = %.15g%s, beyond the largest "
                        "double (%.15g): give a larger bandwidth, normalize=no or smaller weights",
                        gk_gauss_of(a)->smooth ? "kernel_smooth" : "gauss", sumabs,
                        gk_gauss_of(a)->normalize && !gk_gauss_of(a)->smooth
                            ? " over 2 pi sigma_x sigma_y"
                            : "",
                        DBL_MAX);
    gauss_canonical(a, sumabs);
    if (gk_gauss_of(a)->relative)
        return gk_gauss_relative_build(job);
    double rx, ry;
    gauss_reach(a, &rx, &ry);
    if (gk_gauss_of(a)->method == GK_GAUSS_IFGT || gauss_auto_tries_ifgt(a, p, rx, ry)) {
        /* auto: the IFGT when its plan costs a node less than the cut-off */
        int rc =
            gk_ifgt_build(job, gk_gauss_of(a)->method_auto ? gauss_cut_ns(p, rx, ry) : INFINITY);
        if (rc == GK_OK) {
            gk_gauss_of(a)->method = GK_GAUSS_IFGT;
            gauss_canonical(a, sumabs); /* with its clusters, order and bound */
            return rc;
        }
        if (rc != GK_IFGT_TAKE_CUTOFF)
            return rc;
    }
    gk_dens_state *st = gk_dens_state_make(job);
    if (!st)
        return GK_ERR_NOMEM;
    if (gk_gauss_of(a)->method == GK_GAUSS_FFT && !(st->fft = gk_gauss_fft_new()))
        return gk_error(job->ctx, GK_ERR_NOMEM, "out of memory");
    return gk_dens_bins_build(job->ctx, p, fmax(rx, ry), 8, &st->bins);
}

/* One core: ~0.6 ns a product over the square of side 2 r_c (1 M points,
 * 4096^2 nodes, sigma 50 m over 10 km: 28 s of CPU on this project's EPYC
 * for 4.7e10 products); binning ~20 ns a point. */
static double gauss_cost(const gk_algorithm *a, double n, double area, double *setup_ns)
{
    *setup_ns = 20.0 * n;
    if (gk_gauss_of(a)->relative) { /* a nearest search a node, a term a point within ~r_c */
        double r2 = isnan(gk_gauss_of(a)->sigma)
                        ? INFINITY
                        : 2.0 * gk_gauss_of(a)->sigma * gk_gauss_of(a)->sigma *
                              log((n + 1) / gk_gauss_of(a)->epsilon);
        double k = area > 0 ? n * M_PI * r2 / area : n;
        return 300.0 + 40.0 * (k < n ? k : n);
    }
    if (gk_gauss_of(a)->method == GK_GAUSS_IFGT &&
        gk_gauss_of(a)->ifgt_k > 0) { /* its plan's cost */
        const double t = gk_gauss_of(a)->ifgt_p * (gk_gauss_of(a)->ifgt_p + 1) / 2.0,
                     k = gk_gauss_of(a)->ifgt_k;
        *setup_ns = n * (k * GK_IFGT_NS_CLUSTER + 4.0 * t * GK_IFGT_NS_UNIT);
        return 100.0 + k * (2.0 * t + 40.0) * GK_IFGT_NS_UNIT;
    }
    double rx = INFINITY, ry = INFINITY;
    if (!isnan(gk_gauss_of(a)->sigma))
        gauss_reach(a, &rx, &ry);
    double k = area > 0 && isfinite(rx) ? n * 4.0 * rx * ry / area : n;
    return 100.0 + 0.6 * (k < n ? k : n);
}

static const char *gauss_gpu(const gk_job *job, gk_gpu_job_desc *d)
{
    const gk_algorithm *a = &job->alg;
    const double sx = gk_gauss_of(a)->sigma, sy = gs_sy(a);
    d->op = GK_GPU_GAUSS;
    d->p.dens.div =
        !gk_gauss_of(a)->smooth && gk_gauss_of(a)->normalize ? 2.0 * M_PI * sx * sy : 0.0;
    d->p.dens.smooth = gk_gauss_of(a)->smooth;
    if (gk_gauss_of(a)->relative) { /* density_sum.h's gk_ds_relative, a thread a node */
        if (!gk_dens_bins_of(job))
            return "mode=relative without its bins";
        gk_dens_gpu_bins(gk_dens_bins_of(job), d);
        d->p.dens.form = GK_GPU_GS_RELATIVE;
        d->p.dens.c = 1.0 / (2.0 * sx * sx);
        d->p.dens.eps = gk_gauss_of(a)->epsilon, d->p.dens.sumw = gk_gauss_of(a)->sumw;
        d->p.dens.direct = gk_gauss_of(a)->method == GK_GAUSS_DIRECT;
        return NULL;
    }
    if (gk_gauss_of(a)->method == GK_GAUSS_IFGT) {
        if (!gk_gauss_ifgt_of(job))
            return "ifgt without its expansions";
        gk_ifgt_gpu_desc(gk_gauss_ifgt_of(job), d);
        return NULL;
    }
    if (!gk_dens_bins_of(job))
        return "gauss without its bins";
    gk_dens_gpu_bins(gk_dens_bins_of(job), d);
    gauss_reach(a, &d->p.dens.r, &d->p.dens.ry);
    d->p.dens.c = 1.0 / (2.0 * sx * sx);
    d->p.dens.cy = 1.0 / (2.0 * sy * sy);
    d->p.dens.form = GK_GPU_GS_FACTORS;
    if (gk_gauss_of(a)->method == GK_GAUSS_FFT) /* the lattice's plan comes with each tile's grid */
        d->p.dens.form = GK_GPU_GS_FFT, d->p.dens.sx = sx, d->p.dens.sy = sy;
    if (gs_rotated(a)) { /* as gauss_tile sets up gauss_flush_turned */
        const double t = gk_gauss_of(a)->angle * (M_PI / 180.0);
        d->p.dens.form = GK_GPU_GS_TURNED;
        d->p.dens.ca = cos(t), d->p.dens.sa = sin(t);
        d->p.dens.lim =
            gk_gauss_of(a)->method == GK_GAUSS_DIRECT ? INFINITY : gs_log(a) * (1.0 + 1e-9);
    }
    return NULL;
}

static void gauss_release(gk_job *job)
{
    gk_dens_state *s = job->state;
    if (s) {
        gk_ifgt_free(s->ifgt);
        gk_gauss_fft_free(s->fft);
    }
    gk_dens_release(job);
}

static int gauss_cpu_index(gk_job *job)
{
    if (gk_gauss_of(&job->alg)->method == GK_GAUSS_IFGT)
        return gk_gauss_ifgt_of(job) ? GK_OK : GK_ERR_NOMEM;
    return gk_dens_cpu_index(job);
}

const gk_method gk_method_gauss = {
    .name = "gauss",
    .kind = GK_ALG_GAUSS,
    .summary = "Gaussian kernel density / Gauss transform with a guaranteed absolute or "
               "relative error",
    .own_keys = "bandwidth, bandwidth_x, bandwidth_y, angle, epsilon, mode=absolute|relative, "
                "method=auto|direct|cutoff|ifgt|fft, normalize=yes|no, "
                "nodata",
    .flags = GK_M_Z_WEIGHT,
    .parse = gauss_parse,
    .build = gauss_build,
    .release = gauss_release,
    .cpu_index = gauss_cpu_index,
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
    .own_keys = "bandwidth, bandwidth_x, bandwidth_y, angle, epsilon, mode=absolute, "
                "method=auto|direct|cutoff, nodata",
    .parse = kernel_smooth_parse,
    .build = gauss_build,
    .release = gauss_release,
    .cpu_index = gauss_cpu_index,
    .cpu_tile = gauss_tile,
    .gpu_describe = gauss_gpu,
    .cost_ns = gauss_cost,
};
