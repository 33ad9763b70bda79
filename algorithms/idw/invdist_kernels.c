/* SPDX-License-Identifier: MIT */
/*
 * invdist_kernels.c - inverse distance to a power over every point (gdal_grid's
 * default algorithm, no search window): the brute-force sum of n points per node.
 *
 * Double precision (default): the weight 1/r^2 by a correctly rounded
 * division and eight partial sums, the same bytes on every CPU (sum_p2_body).
 * Single precision (--precision single): coordinates relative to the tile
 * centre and Z relative to its mean, so float keeps ~1e-7 relative accuracy
 * even on UTM northings where gdal_grid's float32 path loses ~0.5 in Z.
 * Partial sums are folded into doubles every block of points.
 *
 * Four nodes of a row are computed together: a node's dy^2 per point is shared
 * by the row and precomputed, so a pair costs one subtract and one FMA before
 * the reciprocal.
 */
#include "idw.h"
#include "core/cpu_level.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GK_HAVE_X86 1
#include <immintrin.h>
#else
#define GK_HAVE_X86 0
#endif

#define NODES 4 /* nodes of a row per pass over the points */

/* ---- portable kernels ------------------------------------------------- */

/* p = 2: sums of w z and w over n points for NODES nodes (exact hits are
 * handled per tile by mark_hits, not per pair). One order of operations on
 * every CPU (docs/reliability.md): w = 1 / (d d + dy2) by a correctly rounded division,
 * eight partial sums by point index mod 8 (the lanes of GCC's vector
 * extension: four SSE2 pairs, two AVX or one AVX-512 register, the same
 * lane-wise IEEE operations), folded in a fixed tree. A reciprocal estimate
 * refined by Newton steps was faster on AVX-512 but a few ulps off. */
typedef double id_v8 __attribute__((vector_size(64)));

static inline __attribute__((always_inline)) void sum_p2_body(const double *x, const double *dy2,
                                                              const double *z, size_t n,
                                                              const double *cx, const int nn,
                                                              int nodes, double *swz, double *sw)
{
    /* nn nodes a pass (a constant where inlined): each node's sums are the
     * same doubles whatever nn, only the registers they need differ */
    id_v8 a[NODES], b[NODES];
    for (int k = 0; k < nn; k++)
        a[k] = b[k] = (id_v8){0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        id_v8 X, D, Z;
        memcpy(&X, x + i, sizeof X);
        memcpy(&D, dy2 + i, sizeof D);
        memcpy(&Z, z + i, sizeof Z);
        for (int k = 0; k < nn; k++) {
            id_v8 d = X - cx[k];
            id_v8 w = 1.0 / (d * d + D);
            a[k] += w * Z;
            b[k] += w;
        }
    }
    for (int k = 0; k < nn; k++) /* the tail: lane l takes point i + l */
        for (size_t t = i; t < n; t++) {
            double d = x[t] - cx[k];
            double w = 1.0 / (d * d + dy2[t]);
            a[k][t - i] += w * z[t];
            b[k][t - i] += w;
        }
    for (int k = 0; k < nodes && k < nn; k++) {
        id_v8 u = a[k], v = b[k];
        swz[k] = ((u[0] + u[4]) + (u[2] + u[6])) + ((u[1] + u[5]) + (u[3] + u[7]));
        sw[k] = ((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7]));
    }
}

static void sum_p2_portable(const double *x, const double *dy2, const double *z, size_t n,
                            const double *cx, int nodes, double *swz, double *sw)
{
    sum_p2_body(x, dy2, z, n, cx, NODES, nodes, swz, sw);
}

#if GK_HAVE_X86
/* AVX2 in intrinsics: the generic vector type under a target attribute
 * compiled to lane-by-lane inserts and spills (half SSE2's speed on a Zen
 * 3). Lanes 0-3 and 4-7 of the portable kernel are two registers here; the
 * same operations (a multiply and an add, never fused: -ffp-contract=off),
 * the same tail and the same fold, so the same bytes. */
__attribute__((target("avx2"))) static void sum_p2_avx2(const double *x, const double *dy2,
                                                        const double *z, size_t n, const double *cx,
                                                        int nodes, double *swz, double *sw)
{
    for (int k0 = 0; k0 < nodes; k0 += 2) {
        const int nn = nodes - k0 < 2 ? nodes - k0 : 2;
        __m256d a[2][2], b[2][2], c[2];
        for (int k = 0; k < 2; k++) {
            a[k][0] = a[k][1] = b[k][0] = b[k][1] = _mm256_setzero_pd();
            c[k] = _mm256_set1_pd(cx[k0 + (k < nn ? k : 0)]);
        }
        const __m256d one = _mm256_set1_pd(1.0);
        size_t i = 0;
        for (; i + 8 <= n; i += 8)
            for (int h = 0; h < 2; h++) {
                const __m256d X = _mm256_loadu_pd(x + i + 4 * h);
                const __m256d D = _mm256_loadu_pd(dy2 + i + 4 * h);
                const __m256d Z = _mm256_loadu_pd(z + i + 4 * h);
                for (int k = 0; k < 2; k++) {
                    __m256d d = _mm256_sub_pd(X, c[k]);
                    __m256d w = _mm256_div_pd(one, _mm256_add_pd(_mm256_mul_pd(d, d), D));
                    a[k][h] = _mm256_add_pd(a[k][h], _mm256_mul_pd(w, Z));
                    b[k][h] = _mm256_add_pd(b[k][h], w);
                }
            }
        for (int k = 0; k < nn; k++) {
            double u[8], v[8];
            _mm256_storeu_pd(u, a[k][0]), _mm256_storeu_pd(u + 4, a[k][1]);
            _mm256_storeu_pd(v, b[k][0]), _mm256_storeu_pd(v + 4, b[k][1]);
            for (size_t t = i; t < n; t++) { /* the tail: lane l takes point i + l */
                double d = x[t] - cx[k0 + k];
                double w = 1.0 / (d * d + dy2[t]);
                u[t - i] += w * z[t];
                v[t - i] += w;
            }
            swz[k0 + k] = ((u[0] + u[4]) + (u[2] + u[6])) + ((u[1] + u[5]) + (u[3] + u[7]));
            sw[k0 + k] = ((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7]));
        }
    }
}

__attribute__((target("avx512f"))) static void sum_p2_avx512(const double *x, const double *dy2,
                                                             const double *z, size_t n,
                                                             const double *cx, int nodes,
                                                             double *swz, double *sw)
{
    sum_p2_body(x, dy2, z, n, cx, NODES, nodes, swz, sw);
}
#endif

static void sum_p2_generic(const double *x, const double *dy2, const double *z, size_t n,
                           const double *cx, int nodes, double *swz, double *sw)
{
#if GK_HAVE_X86
    int level = gk_cpu_level();
    if (level == GK_ISA_AVX512) {
        sum_p2_avx512(x, dy2, z, n, cx, nodes, swz, sw);
        return;
    }
    if (level == GK_ISA_AVX2) {
        sum_p2_avx2(x, dy2, z, n, cx, nodes, swz, sw);
        return;
    }
#endif
    sum_p2_portable(x, dy2, z, n, cx, nodes, swz, sw);
}

/* Any power: w = (r^2 / rmin^2)^(-p/2), rmin the node's nearest distance.
 * The scale cancels in the quotient; unscaled, r^-200 underflows to 0 for
 * every point beyond ~35 units (nodata where gdal_grid has a value) and
 * overflows to inf below ~0.03 (NaN). Scaled, the nearest weighs 1 and only
 * weights negligible against it can underflow. */
static void sum_pow_generic(const double *x, const double *dy2, const double *z, size_t n,
                            const double *cx, int nodes, double half_p, double *swz, double *sw)
{
    for (int k = 0; k < nodes; k++) {
        double a = 0, b = 0, c = cx[k], rmin = INFINITY;
        for (size_t i = 0; i < n; i++) {
            double d = x[i] - c;
            rmin = fmin(rmin, d * d + dy2[i]);
        }
        if (!(rmin > 0) || !isfinite(rmin))
            rmin = 1.0; /* 0: an exact hit, handled by the caller */
        for (size_t i = 0; i < n; i++) {
            double d = x[i] - c;
            double w = pow((d * d + dy2[i]) / rmin, -half_p);
            a += w * z[i];
            b += w;
        }
        swz[k] = a;
        sw[k] = b;
    }
}

/* ---- AVX-512 kernels -------------------------------------------------- */
#if GK_HAVE_X86
/* Single precision, p = 2, 16 lanes; sums folded into double every 1024 points. */
__attribute__((target("avx512f"))) static void sum_p2_f32_avx512(const float *x, const float *dy2,
                                                                 const float *z, size_t n,
                                                                 const float *cx, double *swz,
                                                                 double *sw)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 c[NODES];
    double dwz[NODES] = {0}, dw[NODES] = {0};
    for (int k = 0; k < NODES; k++)
        c[k] = _mm512_set1_ps(cx[k]);
    for (size_t b = 0; b < n; b += 1024) {
        size_t e_ = n - b < 1024 ? n - b : 1024;
        __m512 awz[NODES], aw[NODES];
        for (int k = 0; k < NODES; k++)
            awz[k] = aw[k] = _mm512_setzero_ps();
        for (size_t i = b; i < b + e_; i += 16) {
            size_t left = b + e_ - i;
            __mmask16 m = left >= 16 ? 0xffff : (__mmask16)((1u << left) - 1);
            __m512 X = _mm512_maskz_loadu_ps(m, x + i);
            __m512 D = _mm512_maskz_loadu_ps(m, dy2 + i);
            __m512 Z = _mm512_maskz_loadu_ps(m, z + i);
            for (int k = 0; k < NODES; k++) {
                __m512 d = _mm512_sub_ps(X, c[k]);
                __m512 r2 = _mm512_fmadd_ps(d, d, D);
                __m512 r = _mm512_rcp14_ps(r2);
                __m512 e = _mm512_fnmadd_ps(r2, r, one);
                r = _mm512_fmadd_ps(r, e, r);
                awz[k] = _mm512_mask3_fmadd_ps(r, Z, awz[k], m);
                aw[k] = _mm512_mask_add_ps(aw[k], m, aw[k], r);
            }
        }
        for (int k = 0; k < NODES; k++) {
            __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(awz[k]));
            __m512d hi = _mm512_cvtps_pd(
                _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(awz[k]), 1)));
            dwz[k] += _mm512_reduce_add_pd(_mm512_add_pd(lo, hi));
            lo = _mm512_cvtps_pd(_mm512_castps512_ps256(aw[k]));
            hi = _mm512_cvtps_pd(
                _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(aw[k]), 1)));
            dw[k] += _mm512_reduce_add_pd(_mm512_add_pd(lo, hi));
        }
    }
    for (int k = 0; k < NODES; k++) {
        swz[k] = dwz[k];
        sw[k] = dw[k];
    }
}

static int have_avx512(void) { return gk_cpu_level() == GK_ISA_AVX512; }

/* Single precision, p = 2, AVX2: 8 lanes, two nodes a pass (the registers
 * hold four sums and the points), the reciprocal estimate refined by one
 * Newton step (AVX2's estimate has 12 bits, AVX-512's 14: within float's
 * last bits either way); sums folded into double every 1024 points. */
__attribute__((target("avx2,fma"))) static void sum_p2_f32_avx2(const float *x, const float *dy2,
                                                                const float *z, size_t n,
                                                                const float *cx, int nodes,
                                                                double *swz, double *sw)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (int k0 = 0; k0 < nodes; k0 += 2) {
        const int nn = nodes - k0 < 2 ? nodes - k0 : 2;
        __m256 c[2];
        double dwz[2] = {0, 0}, dw[2] = {0, 0};
        for (int k = 0; k < 2; k++)
            c[k] = _mm256_set1_ps(cx[k0 + (k < nn ? k : 0)]);
        for (size_t b = 0; b < n; b += 1024) {
            size_t e_ = n - b < 1024 ? n - b : 1024;
            __m256 awz[2], aw[2];
            for (int k = 0; k < 2; k++)
                awz[k] = aw[k] = _mm256_setzero_ps();
            size_t i = b;
            for (; i + 8 <= b + e_; i += 8) { /* whole vectors */
                __m256 X = _mm256_loadu_ps(x + i);
                __m256 D = _mm256_loadu_ps(dy2 + i);
                __m256 Z = _mm256_loadu_ps(z + i);
                for (int k = 0; k < 2; k++) {
                    __m256 d = _mm256_sub_ps(X, c[k]);
                    __m256 r2 = _mm256_fmadd_ps(d, d, D);
                    __m256 r = _mm256_rcp_ps(r2);
                    __m256 e = _mm256_fnmadd_ps(r2, r, one);
                    r = _mm256_fmadd_ps(r, e, r);
                    awz[k] = _mm256_fmadd_ps(r, Z, awz[k]);
                    aw[k] = _mm256_add_ps(aw[k], r);
                }
            }
            if (i < b + e_) { /* the last points of the block, masked */
                __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(b + e_ - i)), lane);
                __m256 X = _mm256_maskload_ps(x + i, m);
                __m256 D = _mm256_maskload_ps(dy2 + i, m);
                __m256 Z = _mm256_maskload_ps(z + i, m);
                __m256 fm = _mm256_castsi256_ps(m);
                for (int k = 0; k < 2; k++) {
                    __m256 d = _mm256_sub_ps(X, c[k]);
                    __m256 r2 = _mm256_fmadd_ps(d, d, D);
                    __m256 r = _mm256_rcp_ps(r2);
                    __m256 e = _mm256_fnmadd_ps(r2, r, one);
                    r = _mm256_and_ps(_mm256_fmadd_ps(r, e, r), fm); /* lanes past n: 0 */
                    awz[k] = _mm256_fmadd_ps(r, Z, awz[k]);
                    aw[k] = _mm256_add_ps(aw[k], r);
                }
            }
            for (int k = 0; k < 2; k++) {
                float u[8], v[8];
                _mm256_storeu_ps(u, awz[k]), _mm256_storeu_ps(v, aw[k]);
                double su = 0, sv = 0;
                for (int l = 0; l < 8; l++)
                    su += u[l], sv += v[l];
                dwz[k] += su, dw[k] += sv;
            }
        }
        for (int k = 0; k < nn; k++)
            swz[k0 + k] = dwz[k], sw[k0 + k] = dw[k];
    }
}

static int have_avx2(void) { return gk_cpu_level() == GK_ISA_AVX2; }
#endif

/* Portable single precision (no AVX2): the same algebra in 8 explicit
 * lanes, as the vector kernels sum, so that its accuracy (and its bytes)
 * do not depend on whether the compiler vectorises it (a plain float sum of
 * 1024 terms errs several times more: -O1 builds failed the 1e-6 bound). */
static void sum_p2_f32_generic(const float *x, const float *dy2, const float *z, size_t n,
                               const float *cx, int nodes, double *swz, double *sw)
{
    enum { L = 8 };
    for (int k = 0; k < nodes; k++) {
        double dwz = 0, dw = 0;
        const float ck = cx[k];
        for (size_t b = 0; b < n; b += 1024) {
            size_t e = b + (n - b < 1024 ? n - b : 1024);
            float a[L] = {0}, c[L] = {0};
            size_t i = b;
            for (; i + L <= e; i += L)
                for (int l = 0; l < L; l++) {
                    float d = x[i + l] - ck;
                    float w = 1.0f / (d * d + dy2[i + l]);
                    a[l] += w * z[i + l];
                    c[l] += w;
                }
            for (int l = 0; i + (size_t)l < e; l++) { /* the block's last points */
                float d = x[i + l] - ck;
                float w = 1.0f / (d * d + dy2[i + l]);
                a[l] += w * z[i + l];
                c[l] += w;
            }
            double sa = 0, sc = 0;
            for (int l = 0; l < L; l++)
                sa += a[l], sc += c[l];
            dwz += sa;
            dw += sc;
        }
        swz[k] = dwz;
        sw[k] = dw;
    }
}

/* ---- what invdist_far.c shares ------------------------------------------- */

void gk_invdist_sums_f32(const float *x, const float *dy2, const float *z, size_t n,
                         const float *cx, int nodes, double *swz, double *sw)
{
#if GK_HAVE_X86
    if (have_avx512()) { /* four nodes always: the others repeat the last */
        float c4[NODES];
        double a[NODES], b[NODES];
        for (int k = 0; k < NODES; k++)
            c4[k] = cx[k < nodes ? k : nodes - 1];
        sum_p2_f32_avx512(x, dy2, z, n, c4, a, b);
        for (int k = 0; k < nodes; k++)
            swz[k] = a[k], sw[k] = b[k];
        return;
    }
    if (have_avx2()) {
        sum_p2_f32_avx2(x, dy2, z, n, cx, nodes, swz, sw);
        return;
    }
#endif
    sum_p2_f32_generic(x, dy2, z, n, cx, nodes, swz, sw);
}

void gk_invdist_exact(const gk_points *p, double s2, double cx, double cy, double *swz, double *sw)
{
    double *dy2 = malloc((p->n ? p->n : 1) * sizeof *dy2);
    double a = 0, b = 0;
    if (dy2) {
        for (size_t i = 0; i < p->n; i++) {
            double d = p->y[i] - cy;
            dy2[i] = d * d + s2;
        }
        sum_p2_generic(p->x, dy2, p->z, p->n, &cx, 1, &a, &b);
    } else { /* no memory for the row: nodata rather than a guess */
        a = b = NAN;
    }
    free(dy2);
    *swz = a, *sw = b;
}

/* ---- tile driver ------------------------------------------------------ */

/* Exact hits, found once per tile instead of tested per pair: a point within
 * the hit distance (a millionth of a cell) of a node rounds to that node, so
 * one pass over the points marks, for each node of the tile, the first point
 * in input order that hits it (gdal_grid's rule), or -1. */
void gk_invdist_mark_hits(const gk_points *p, const gk_tile *t, double s2, int *hit)
{
    const gk_grid *g = t->g;
    const double cw = (g->xmax - g->xmin) / g->nx, ch = (g->ymax - g->ymin) / g->ny;
    for (long k = 0; k < (long)t->w * t->h; k++)
        hit[k] = -1;
    if (s2 >= t->hit2)
        return;
    for (size_t i = 0; i < p->n; i++) {
        double fx = (p->x[i] - g->xmin) / cw - 0.5, fy = (g->ymax - p->y[i]) / ch - 0.5;
        double ix = floor(fx + 0.5) - t->x0, iy = floor(fy + 0.5) - t->y0;
        if (!(ix >= 0 && ix < t->w && iy >= 0 && iy < t->h))
            continue;
        int c = (int)ix, r = (int)iy;
        double dx = p->x[i] - gk_grid_node_x(g, t->x0 + c);
        double dy = p->y[i] - gk_grid_node_y(g, t->y0 + r);
        int *h = &hit[(size_t)r * t->w + c];
        if (*h < 0 && dx * dx + dy * dy + s2 < t->hit2)
            *h = (int)i;
    }
}

uint64_t gk_invdist_all_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    const gk_points *p = job->pts;
    const size_t n = p->n;
    const double s2 = job->alg.smoothing * job->alg.smoothing;
    const double half_p = 0.5 * job->alg.power;
    const double nodata = job->alg.nodata;
    const int is_p2 = job->alg.power == 2.0;
    const int single = is_p2 && job->alg.precision == GK_PRECISION_SINGLE;
    uint64_t n_nodata = 0;
    if (gk_scratch_reserve(s, n) || gk_scratch_reserve2(s, (size_t)t->w * t->h))
        return UINT64_MAX;
    double *dy2 = s->d2;
    int *hit = s->idx2;
    gk_invdist_mark_hits(p, t, s2, hit);
    float *xf = NULL, *zf = NULL, *dyf = NULL;
    double ox = 0, zc = 0;
    if (single) {
        if (gk_scratch_reserve_f(s, 3 * n))
            return UINT64_MAX;
        xf = s->f;
        zf = s->f + n;
        dyf = s->f + 2 * n;
        ox = gk_grid_node_x(t->g, t->x0 + t->w / 2);
        double zmin = INFINITY, zmax = -INFINITY;
        for (size_t i = 0; i < n; i++) {
            zmin = fmin(zmin, p->z[i]);
            zmax = fmax(zmax, p->z[i]);
        }
        zc = 0.5 * (zmin + zmax);
        for (size_t i = 0; i < n; i++) {
            xf[i] = (float)(p->x[i] - ox);
            zf[i] = (float)(p->z[i] - zc);
        }
    }

    for (int j = 0; j < t->h; j++) {
        const double cy = gk_grid_node_y(t->g, t->y0 + j);
        for (size_t i = 0; i < n; i++) {
            double d = p->y[i] - cy;
            dy2[i] = d * d + s2;
        }
        if (single)
            for (size_t i = 0; i < n; i++)
                dyf[i] = (float)dy2[i];
        for (int i0 = 0; i0 < t->w; i0 += NODES) {
            int nodes = t->w - i0 < NODES ? t->w - i0 : NODES;
            double cx[NODES], swz[NODES], sw[NODES];
            for (int k = 0; k < NODES; k++)
                cx[k] = gk_grid_node_x(t->g, t->x0 + i0 + (k < nodes ? k : nodes - 1));
            if (single) {
                float cxf[NODES];
                for (int k = 0; k < NODES; k++)
                    cxf[k] = (float)(cx[k] - ox);
#if GK_HAVE_X86
                if (have_avx512())
                    sum_p2_f32_avx512(xf, dyf, zf, n, cxf, swz, sw);
                else if (have_avx2())
                    sum_p2_f32_avx2(xf, dyf, zf, n, cxf, nodes, swz, sw);
                else
#endif
                    sum_p2_f32_generic(xf, dyf, zf, n, cxf, nodes, swz, sw);
                for (int k = 0; k < nodes; k++)
                    swz[k] += zc * sw[k];
            } else if (is_p2) {
                sum_p2_generic(p->x, dy2, p->z, n, cx, nodes, swz, sw);
            } else {
                sum_pow_generic(p->x, dy2, p->z, n, cx, nodes, half_p, swz, sw);
            }
            for (int k = 0; k < nodes; k++) {
                size_t o = (size_t)j * t->w + i0 + k;
                if (hit[o] >= 0) {
                    out[o] = p->z[hit[o]];
                    continue;
                }
                /* float can round a near point onto the node (infinite weight)
                 * that is no hit in double: redo that node exactly. */
                if (single && !(isfinite(sw[k]) && isfinite(swz[k])))
                    sum_p2_generic(p->x, dy2, p->z, n, &cx[k], 1, &swz[k], &sw[k]);
                if (sw[k] > 0 && isfinite(sw[k])) {
                    out[o] = swz[k] / sw[k];
                } else {
                    out[o] = nodata;
                    n_nodata++;
                }
            }
        }
    }
    return n_nodata;
}
