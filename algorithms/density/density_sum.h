/* SPDX-License-Identifier: MIT */
/*
 * density_sum.h - the arithmetic of one (node, point) term of heatmap,
 * gauss and kernel_smooth (density/heatmap.c, density/gauss.c), shared with
 * the CUDA module (gpu/density.cu) so that CPU and GPU give the same bits:
 * both compile it without contraction (ISO C mode; nvcc -fmad=false), and
 * the exponential is this file's own, not libm's or CUDA's, whose last bits
 * differ.
 *
 * The order of a node's sum is the points' bin order (density_bins.h),
 * gauss's in segments of GK_DS_SEG points (below):
 * ascending bin row, bin column, input index; a tile visits the bins near it
 * in that order, and a point that does not reach the node adds nothing
 * (skipping it and adding +0.0 give the same bits), so neither the tiling
 * nor the device changes a value.
 */
#ifndef GK_DENSITY_SUM_H
#define GK_DENSITY_SUM_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define GK_DS_HD static inline __host__ __device__
#else
#define GK_DS_HD static inline
#endif

#define GK_DS_PI 3.14159265358979323846

/* gauss's sums come in segments of the bin order: a node's value is the sum,
 * segment after segment from 0.0, of each segment's own sum of its terms
 * from 0.0 (a segment with none adds 0.0). The GPU can then split a small
 * grid's work by segments (gpu/density.cu) and still give the same bits. */
#define GK_DS_SEG 4096

/* exp(x) for x <= 0, within about 2 ulp: x = k ln2 + r with |r| <= ln2 / 2
 * (Cody and Waite's two-part ln2, whose high part has 20 zero bits, so k
 * ln2_hi is exact), a degree-13 Taylor polynomial in r (truncation below
 * 5e-18 relative), then 2^k built from its bits; results below 2^-1022 are
 * scaled in two steps, so they round once. Below -745.2 the value is under
 * half the least subnormal: 0. fused: the polynomial's steps as fma (one
 * rounding each, the same on every CPU and GPU; half the operations where
 * the hardware has it); a constant, so each caller gets one form. */
GK_DS_HD double gk_ds_exp_form(double x, int fused)
{
    if (!(x > -745.2))
        return 0.0;
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    double k = floor(x * 1.44269504088896338700 + 0.5);
    double r = (x - k * ln2_hi) - k * ln2_lo;
#define GK_DS_STEP(cc) p = fused ? fma(p, r, (cc)) : p * r + (cc)
    double p = 1.0 / 6227020800.0;
    GK_DS_STEP(1.0 / 479001600.0);
    GK_DS_STEP(1.0 / 39916800.0);
    GK_DS_STEP(1.0 / 3628800.0);
    GK_DS_STEP(1.0 / 362880.0);
    GK_DS_STEP(1.0 / 40320.0);
    GK_DS_STEP(1.0 / 5040.0);
    GK_DS_STEP(1.0 / 720.0);
    GK_DS_STEP(1.0 / 120.0);
    GK_DS_STEP(1.0 / 24.0);
    GK_DS_STEP(1.0 / 6.0);
    GK_DS_STEP(0.5);
    GK_DS_STEP(1.0);
    GK_DS_STEP(1.0);
#undef GK_DS_STEP
    int e = (int)k; /* in [-1075, 1] */
    int extra = 0;
    if (e < -1020) /* p in [0.7, 1.42]: keep 2^e normal, then one rounding */
        extra = 1, e += 54;
    uint64_t bits = (uint64_t)(e + 1023) << 52;
    double s;
    memcpy(&s, &bits, sizeof s);
    p = p * s;
    if (extra)
        p = p * 5.5511151231257827e-17; /* 2^-54 */
    return p;
}

GK_DS_HD double gk_ds_exp(double x) { return gk_ds_exp_form(x, 0); }

/* Gaussian factor of one axis: exp(-dx^2 c), c = 1 / (2 sigma^2), or 0
 * beyond the cut-off r (INFINITY: none). The 2-D kernel is the product of
 * the two axes' factors, so a tile's nodes share each point's factors.
 * The fused exponential: the factors are most of the GPU's work. */
GK_DS_HD double gk_ds_gauss1(double dx, double c, double r)
{
    return fabs(dx) <= r ? gk_ds_exp_form(-(dx * dx) * c, 1) : 0.0;
}

/* gauss method=ifgt (density/gauss_ifgt.c): a cluster's series at b = (bx,
 * by), sum C_(i, j) bx^i by^j over i + j < P, the coefficients c by the
 * power of y, then of x (C_(i, j) at j (2 P - j + 1) / 2 + i; T of them).
 * Horner's rule in bx within each power of y, then in by: no arrays, so a
 * GPU thread keeps it in registers. */
GK_DS_HD double gk_ds_ifgt_series(const double *c, int P, int T, double bx, double by)
{
    const double *q = c + T;
    double e = 0.0;
    for (int j = P - 1; j >= 0; j--) {
        const int len = P - j;
        q -= len;
        double s = q[len - 1];
        for (int i = len - 2; i >= 0; i--)
            s = s * bx + q[i];
        e = e * by + s;
    }
    return e;
}

/* The bins of density_bins.h (origin o, side, nb of them) that can hold a
 * point within r of [lo, hi] (r may be INFINITY): [*b0, *b1], empty when
 * *b0 > *b1. Widened by a hair, so that rounding here never loses a point
 * (a bin is floor((x - o) / side)); the exact test is the term's own. */
GK_DS_HD void gk_ds_bin_span(double lo, double hi, double r, double o, double side, int nb, int *b0,
                             int *b1)
{
    double m = 1e-9 * (fabs(lo) + fabs(hi) + fabs(o) + side);
    double f0 = floor((lo - r - m - o) / side), f1 = floor((hi + r + m - o) / side);
    f0 = f0 > 0.0 ? f0 : 0.0; /* also NaN */
    f1 = f1 < (double)(nb - 1) ? f1 : (double)(nb - 1);
    if (!(f0 <= f1) || f0 > (double)(nb - 1) || f1 < 0.0) {
        *b0 = 1, *b1 = 0;
        return;
    }
    *b0 = (int)f0, *b1 = (int)f1;
}

/* gauss mode=relative at a node (nx, ny) (density/gauss_relative.c), the
 * CPU's and a GPU thread's alike: the points of positive weight, sorted
 * into bins (x, y, z in bin order; start: nbx * nby + 1 offsets; bin (i, j)
 * is [x0 + i side, ...) x [y0 + j side, ...)). The nearest point j (the
 * largest weight among equally near ones) at d_j^2 = best bounds the exact
 * value below by w_j exp(-best c); a point whose e = exp(-(d^2 - best) c)
 * is below thr = E w_j / sum w adds less than E w_j exp(-best c) z_i / sum
 * w, so dropping every such point loses less than E times the exact value.
 * The kept terms z e are summed in bin order and scaled by exp(-best c)
 * last, so that a node far from every point keeps its relative accuracy.
 * c = 1 / (2 sigma^2); direct: every point kept. Returns the sum (0 without
 * points). */
typedef struct {
    const double *x, *y, *z;
    const int *start;
    int nbx, nby;
    double x0, y0, side;
} gk_ds_bins_view;

GK_DS_HD double gk_ds_relative(const gk_ds_bins_view *b, double nx, double ny, double c, double eps,
                               double sumw, int direct)
{
    /* the nearest: rings of bins about the node's (clamped) bin, until a
     * ring's least distance exceeds the best so far */
    const double fi = floor((nx - b->x0) / b->side), fj = floor((ny - b->y0) / b->side);
    const int ci = fi < 0 ? 0 : fi > b->nbx - 1 ? b->nbx - 1 : (int)fi;
    const int cj = fj < 0 ? 0 : fj > b->nby - 1 ? b->nby - 1 : (int)fj;
    const int rmax = b->nbx > b->nby ? b->nbx : b->nby;
    double best = INFINITY, wj = 0.0;
    for (int rho = 0; rho < rmax; rho++) {
        const double lb = (rho - 1) * b->side;
        if (rho > 1 && lb * lb > best)
            break;
        for (int j = cj - rho; j <= cj + rho; j++) {
            if (j < 0 || j >= b->nby)
                continue;
            const int edge = j == cj - rho || j == cj + rho;
            for (int i = ci - rho; i <= ci + rho; i += edge ? 1 : 2 * rho) {
                if (i >= 0 && i < b->nbx)
                    for (int p = b->start[j * b->nbx + i]; p < b->start[j * b->nbx + i + 1]; p++) {
                        const double dx = nx - b->x[p], dy = ny - b->y[p];
                        const double d2 = dx * dx + dy * dy;
                        if (d2 < best || (d2 == best && b->z[p] > wj))
                            best = d2, wj = b->z[p];
                    }
            }
        }
    }
    if (!(best < INFINITY))
        return 0.0;
    /* the points that may pass the threshold: within a radius from log,
     * widened (the threshold itself decides) */
    const double thr = eps * wj / sumw;
    int i0 = 0, i1 = b->nbx - 1, j0 = 0, j1 = b->nby - 1;
    if (!direct) {
        const double r = sqrt((best + log(1.0 / thr) / c) * (1.0 + 1e-6)) + 1e-9 * b->side;
        gk_ds_bin_span(nx, nx, r, b->x0, b->side, b->nbx, &i0, &i1);
        gk_ds_bin_span(ny, ny, r, b->y0, b->side, b->nby, &j0, &j1);
    }
    double sum = 0.0;
    for (int j = j0; j <= j1 && i0 <= i1; j++)
        for (int p = b->start[j * b->nbx + i0]; p < b->start[j * b->nbx + i1 + 1]; p++) {
            const double dx = nx - b->x[p], dy = ny - b->y[p];
            const double e2 = dx * dx + dy * dy - best;
            const double e = gk_ds_exp(-(e2 > 0 ? e2 : 0.0) * c);
            if (direct || e >= thr)
                sum = sum + b->z[p] * e;
        }
    return sum * gk_ds_exp(-best * c);
}

/* QGIS's heatmap kernels (density/heatmap.c). A point counts at a node when
 * QGIS's sqrt(dx^2 + dy^2) <= r, which is d2 <= d2max for the largest
 * d2max that passes (sqrt is monotone): no square root there. The kernels
 * but triangular are functions of u^2 = d2 / r^2, taken as d2 * (1 / r^2);
 * QGIS's constant factor (its "scaled" normalisation, in its order of
 * operations) is computed once. The values differ from QGIS's formula by
 * an ulp or two, far inside the 1e-9 promised (QGIS writes Float32). */
enum {
    GK_HM_QUARTIC,
    GK_HM_TRIANGULAR,
    GK_HM_UNIFORM,
    GK_HM_TRIWEIGHT,
    GK_HM_EPANECHNIKOV,
    GK_HM_N
};

typedef struct {
    double r, decay, inv_r2, d2max;
    double scale; /* 0: raw values */
} gk_ds_heat_k;

GK_DS_HD gk_ds_heat_k gk_ds_heat_init(int kernel, int scaled, double decay, double r)
{
    gk_ds_heat_k k;
    k.r = r, k.decay = decay;
    k.inv_r2 = 1.0 / (r * r);
    double s = r * r; /* r is finite and > 0 (the parser's check) */
    while (s > 0 && sqrt(s) > r)
        s = nextafter(s, 0.0);
    while (s < DBL_MAX && sqrt(nextafter(s, INFINITY)) <= r)
        s = nextafter(s, INFINITY);
    k.d2max = s;
    k.scale = 0.0;
    if (scaled) {
        switch (kernel) {
        case GK_HM_UNIFORM:
            k.scale = 2. / (GK_DS_PI * r) * (0.5 / r);
            break;
        case GK_HM_QUARTIC:
            k.scale = 116. / (5. * GK_DS_PI * (r * r)) * (15. / 16.);
            break;
        case GK_HM_TRIWEIGHT:
            k.scale = 128. / (35. * GK_DS_PI * (r * r)) * (35. / 32.);
            break;
        case GK_HM_EPANECHNIKOV:
            k.scale = 8. / (3. * GK_DS_PI * (r * r)) * (3. / 4.);
            break;
        default: /* a negative decay is never scaled (QGIS's "coolmap") */
            if (decay >= 0)
                k.scale = 3. / ((1. + 2. * decay) * GK_DS_PI * (r * r));
            break;
        }
    }
    return k;
}

/* The kernel at squared distance d2 <= d2max, kernel K (a constant where
 * the caller's loop is one kernel's). */
GK_DS_HD double gk_ds_heat(const gk_ds_heat_k *k, int K, double d2)
{
    double v;
    switch (K) {
    case GK_HM_UNIFORM:
        v = 1.0;
        break;
    case GK_HM_QUARTIC: {
        double t = 1. - d2 * k->inv_r2;
        v = t * t;
        break;
    }
    case GK_HM_TRIWEIGHT: {
        double t = 1. - d2 * k->inv_r2;
        v = t * t * t;
        break;
    }
    case GK_HM_EPANECHNIKOV:
        v = 1. - d2 * k->inv_r2;
        break;
    default: /* triangular */
        v = 1. - (1. - k->decay) * (sqrt(d2) / k->r);
        break;
    }
    return k->scale != 0.0 ? k->scale * v : v;
}

#endif
