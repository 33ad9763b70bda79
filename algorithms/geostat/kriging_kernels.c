/* SPDX-License-Identifier: MIT */
/*
 * kriging_kernels.c - covariance columns, Cholesky and forward solves for
 * local kriging (see kriging_kernels.h).
 *
 * The model is dispatched once per column, not per pair: each structure is a
 * loop over the whole column, so Sph and the nugget vectorise (Exp and Gau
 * call exp per element). The operations per pair are gk_krige_cov's, except
 * h / range taken as h * (1 / range). The square root comes from
 * intrinsics (GCC does not vectorise sqrt() under -fmath-errno), correctly
 * rounded like sqrt(): every path gives the same doubles (the
 * tests run each with GRIDKIT_ISA).
 *
 * The factor is left-looking by columns: each element takes the products of
 * the columns before it off one at a time, in column order, then is scaled
 * by 1 / L_jj (tests/geostat/test_kriging_kernels.c holds every path to that
 * order, bit for bit). The portable body takes them four columns a pass; the
 * AVX2 one keeps a panel of four columns in registers, so that the columns
 * before it are loaded once for the four and their chains of subtractions
 * run side by side.
 */
#include "kriging_kernels.h"
#include "core/cpu_level.h"

#include <math.h>
#include <stdlib.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GK_KK_X86 1
#include <immintrin.h>
#else
#define GK_KK_X86 0
#endif

#define KK_INLINE static inline __attribute__((always_inline))

static int kk_isa = -1; /* 0 portable, 1 AVX2, 2 AVX-512 */

void gk_kk_init(void)
{
    if (kk_isa >= 0)
        return;
    int v = gk_cpu_level(); /* GRIDKIT_ISA caps it, so the tests run every path */
    kk_isa = v == GK_ISA_AVX512 ? 2 : v == GK_ISA_AVX2 ? 1 : 0;
}

/* All structures isotropic and of a type the column loops know. */
static int model_fast(const gk_krige_state *k)
{
    for (int s = 0; s < k->ns; s++) {
        gk_vm_type t = k->st[s].type;
        if (k->st[s].aniso ||
            !(t == GK_VM_NUG || t == GK_VM_SPH || t == GK_VM_EXP || t == GK_VM_GAU))
            return 0;
    }
    return 1;
}

/* ---- distances: h[i] = |p_i - c|, or -1 where p_i == c exactly ---------- */

KK_INLINE void dist_scalar(const double *restrict px, const double *restrict py, double cx,
                           double cy, double *restrict h, int n)
{
    for (int i = 0; i < n; i++) {
        double dx = px[i] - cx, dy = py[i] - cy;
        h[i] = (dx == 0.0 && dy == 0.0) ? -1.0 : sqrt(dx * dx + dy * dy);
    }
}

#if GK_KK_X86
__attribute__((target("avx2"))) static inline void dist_avx2(const double *restrict px,
                                                             const double *restrict py, double cx,
                                                             double cy, double *restrict h, int n)
{
    const __m256d vx = _mm256_set1_pd(cx), vy = _mm256_set1_pd(cy);
    const __m256d zero = _mm256_setzero_pd(), mone = _mm256_set1_pd(-1.0);
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256d dx = _mm256_sub_pd(_mm256_loadu_pd(px + i), vx);
        __m256d dy = _mm256_sub_pd(_mm256_loadu_pd(py + i), vy);
        __m256d r = _mm256_sqrt_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)));
        __m256d same =
            _mm256_and_pd(_mm256_cmp_pd(dx, zero, _CMP_EQ_OQ), _mm256_cmp_pd(dy, zero, _CMP_EQ_OQ));
        _mm256_storeu_pd(h + i, _mm256_blendv_pd(r, mone, same));
    }
    dist_scalar(px + i, py + i, cx, cy, h + i, n - i);
}

__attribute__((target("avx512f"))) static inline void dist_avx512(const double *restrict px,
                                                                  const double *restrict py,
                                                                  double cx, double cy,
                                                                  double *restrict h, int n)
{
    const __m512d vx = _mm512_set1_pd(cx), vy = _mm512_set1_pd(cy);
    const __m512d zero = _mm512_setzero_pd(), mone = _mm512_set1_pd(-1.0);
    for (int i = 0; i < n; i += 8) {
        __mmask8 lm = n - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - i)) - 1u);
        __m512d dx = _mm512_sub_pd(_mm512_maskz_loadu_pd(lm, px + i), vx);
        __m512d dy = _mm512_sub_pd(_mm512_maskz_loadu_pd(lm, py + i), vy);
        __m512d x = _mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy));
        /* the correctly rounded square root, as sqrt() gives: a reciprocal
         * estimate refined by Newton steps is faster but a few ulps off,
         * and the result must not depend on the CPU */
        __m512d r = _mm512_sqrt_pd(x);
        __mmask8 same =
            _mm512_cmp_pd_mask(dx, zero, _CMP_EQ_OQ) & _mm512_cmp_pd_mask(dy, zero, _CMP_EQ_OQ);
        _mm512_mask_storeu_pd(h + i, lm, _mm512_mask_mov_pd(r, same, mone));
    }
}
#endif

/* ---- the model over a column: out[i] = C(h[i]) ---------------------------- */

KK_INLINE void model_col(const gk_krige_state *k, const double *restrict h, double *restrict out,
                         int n)
{
    for (int i = 0; i < n; i++)
        out[i] = 0.0;
    for (int s = 0; s < k->ns; s++) {
        const gk_krige_struct *st = &k->st[s];
        /* u = h / a as a product: a division costs 4x more in vectors */
        const double ps = st->psill, a = st->range, ia = 1.0 / a;
        switch (st->type) {
        case GK_VM_NUG:
            for (int i = 0; i < n; i++)
                out[i] += ps;
            break;
        case GK_VM_SPH:
            for (int i = 0; i < n; i++) {
                double u = h[i] * ia;
                double v = ps * (u * (1.5 - 0.5 * u * u));
                out[i] += h[i] >= a ? ps : v;
            }
            break;
        case GK_VM_EXP:
            for (int i = 0; i < n; i++)
                out[i] += ps * (1.0 - exp(-h[i] * ia));
            break;
        default: /* GK_VM_GAU */
            for (int i = 0; i < n; i++) {
                double u = h[i] * ia;
                out[i] += ps * (1.0 - exp(-(u * u)));
            }
            break;
        }
    }
    const double A = k->A;
    for (int i = 0; i < n; i++)
        out[i] = h[i] < 0.0 ? A : A - out[i];
}

/* ---- the kernels, one body per instruction set ---------------------------- */

KK_INLINE void cov_lower_body(const gk_krige_state *k, const double *px, const double *py, int m,
                              double *L, int ld, double *h, int isa)
{
    for (int j = 0; j < m; j++) {
        double *c = L + (size_t)j * ld;
        c[j] = k->A;
        int n = m - j - 1;
        if (n <= 0)
            continue;
#if GK_KK_X86
        if (isa == 2)
            dist_avx512(px + j + 1, py + j + 1, px[j], py[j], h, n);
        else if (isa == 1)
            dist_avx2(px + j + 1, py + j + 1, px[j], py[j], h, n);
        else
#endif
            dist_scalar(px + j + 1, py + j + 1, px[j], py[j], h, n);
        model_col(k, h, c + j + 1, n);
    }
    (void)isa;
}

KK_INLINE void cov0_body(const gk_krige_state *k, const double *px, const double *py, int m,
                         double cx, double cy, double *c0, double *h, int isa)
{
#if GK_KK_X86
    if (isa == 2)
        dist_avx512(px, py, cx, cy, h, m);
    else if (isa == 1)
        dist_avx2(px, py, cx, cy, h, m);
    else
#endif
        dist_scalar(px, py, cx, cy, h, m);
    (void)isa;
    model_col(k, h, c0, m);
}

/* c[i] -= a0 l0[i] + ... for i < n, subtracting in the order given. */
KK_INLINE void axpy4(double *restrict c, const double *restrict l0, const double *restrict l1,
                     const double *restrict l2, const double *restrict l3, double a0, double a1,
                     double a2, double a3, int n)
{
    for (int i = 0; i < n; i++)
        c[i] = c[i] - a0 * l0[i] - a1 * l1[i] - a2 * l2[i] - a3 * l3[i];
}

KK_INLINE void axpy1(double *restrict c, const double *restrict l0, double a0, int n)
{
    for (int i = 0; i < n; i++)
        c[i] -= a0 * l0[i];
}

KK_INLINE void scale(double *restrict c, double s, int n)
{
    for (int i = 0; i < n; i++)
        c[i] *= s;
}

/* Rows and columns before p0 are the factor already (the leading block of a
 * Cholesky factor depends on the leading block of the matrix alone): the
 * columns before p0 get their rows from p0 on, element by element in the
 * operations a whole factorisation does, so the doubles are the same. */
KK_INLINE int chol_body(double *L, int m, int ld, double *inv, double tol, int p0)
{
    for (int j = 0; j < m; j++) {
        const int done = j < p0; /* its rows before p0 are the factor already */
        const int r0 = done ? p0 : j;
        if (r0 >= m)
            continue;
        double *c = L + (size_t)j * ld + r0; /* rows r0.. of column j */
        const double orig = c[0];            /* the diagonal, where r0 == j */
        int n = m - r0, q = 0;
        for (; q + 4 <= j; q += 4) {
            const double *l0 = L + (size_t)q * ld, *l1 = l0 + ld, *l2 = l1 + ld, *l3 = l2 + ld;
            axpy4(c, l0 + r0, l1 + r0, l2 + r0, l3 + r0, l0[j], l1[j], l2[j], l3[j], n);
        }
        for (; q < j; q++) {
            const double *l0 = L + (size_t)q * ld;
            axpy1(c, l0 + r0, l0[j], n);
        }
        if (done) {
            scale(c, inv[j], n);
            continue;
        }
        double s = c[0];
        if (!(s > tol * fabs(orig)))
            return -1;
        c[0] = sqrt(s);
        inv[j] = 1.0 / c[0];
        scale(c + 1, inv[j], n - 1);
    }
    return 0;
}

KK_INLINE void fwd_body(const double *L, int m, int ld, const double *inv, double *b)
{
    int j = 0;
    for (; j + 4 <= m; j += 4) {
        const double *l0 = L + (size_t)j * ld, *l1 = l0 + ld, *l2 = l1 + ld, *l3 = l2 + ld;
        /* the 4 x 4 diagonal block, then the rows below with four columns */
        double b0 = b[j] * inv[j];
        double b1 = (b[j + 1] - l0[j + 1] * b0) * inv[j + 1];
        double b2 = (b[j + 2] - l0[j + 2] * b0 - l1[j + 2] * b1) * inv[j + 2];
        double b3 = (b[j + 3] - l0[j + 3] * b0 - l1[j + 3] * b1 - l2[j + 3] * b2) * inv[j + 3];
        b[j] = b0, b[j + 1] = b1, b[j + 2] = b2, b[j + 3] = b3;
        int r = j + 4;
        axpy4(b + r, l0 + r, l1 + r, l2 + r, l3 + r, b0, b1, b2, b3, m - r);
    }
    for (; j < m; j++) {
        const double *l0 = L + (size_t)j * ld;
        double bj = b[j] * inv[j];
        b[j] = bj;
        axpy1(b + j + 1, l0 + j + 1, bj, m - j - 1);
    }
}

/* Distinct ints into increasing order by rank counting: m^2 compares, but
 * branch-free and vectorised, far cheaper than insertion for m ~ 32. */
KK_INLINE void sort_body(int *restrict v, int m, int *restrict tmp)
{
    for (int i = 0; i < m; i++) {
        int vi = v[i], r = 0;
        for (int j = 0; j < m; j++)
            r += v[j] < vi;
        tmp[r] = vi;
    }
    for (int i = 0; i < m; i++)
        v[i] = tmp[i];
}

/* The k first of n candidates by (d2, index), in that order: a candidate's
 * place is the number of candidates before it. */
KK_INLINE void select_body(const int *restrict cid, const double *restrict cd2, int n, int k,
                           int *restrict idx, double *restrict d2)
{
    for (int i = 0; i < n; i++) {
        double di = cd2[i];
        long lt = 0, eq = 0;
        for (int j = 0; j < n; j++) {
            lt += cd2[j] < di;
            eq += cd2[j] == di;
        }
        if (lt >= k)
            continue;
        if (eq > 1) { /* ties in distance: by index */
            int id = cid[i];
            for (int j = 0; j < n; j++)
                lt += cd2[j] == di && cid[j] < id;
            if (lt >= k)
                continue;
        }
        idx[lt] = cid[i];
        d2[lt] = di;
    }
}

#define KK_DEFINE(SUF, ATTR, ISA)                                                                  \
    ATTR static void cov_lower_##SUF(const gk_krige_state *k, const double *px, const double *py,  \
                                     int m, double *L, int ld, double *h)                          \
    {                                                                                              \
        cov_lower_body(k, px, py, m, L, ld, h, ISA);                                               \
    }                                                                                              \
    ATTR static void cov0_##SUF(const gk_krige_state *k, const double *px, const double *py,       \
                                int m, double cx, double cy, double *c0, double *h)                \
    {                                                                                              \
        cov0_body(k, px, py, m, cx, cy, c0, h, ISA);                                               \
    }                                                                                              \
    ATTR static void sort_##SUF(int *v, int m, int *tmp) { sort_body(v, m, tmp); }                 \
    ATTR static void select_##SUF(const int *cid, const double *cd2, int n, int k, int *idx,       \
                                  double *d2)                                                      \
    {                                                                                              \
        select_body(cid, cd2, n, k, idx, d2);                                                      \
    }                                                                                              \
    ATTR static void fwd_##SUF(const double *L, int m, int ld, const double *inv, double *b,       \
                               int nrhs, int ldb)                                                  \
    {                                                                                              \
        for (int r = 0; r < nrhs; r++)                                                             \
            fwd_body(L, m, ld, inv, b + (size_t)r * ldb);                                          \
    }

KK_DEFINE(portable, , 0)
static int chol_portable(double *L, int m, int ld, double *inv, double tol, int p0)
{
    return chol_body(L, m, ld, inv, tol, p0);
}
#if GK_KK_X86
KK_DEFINE(avx2, __attribute__((target("avx2"))), 1)
__attribute__((target("avx512f"))) static void sort_avx512(int *v, int m, int *tmp)
{
    sort_body(v, m, tmp);
}
__attribute__((target("avx512f"))) static void select_avx512(const int *cid, const double *cd2,
                                                             int n, int k, int *idx, double *d2)
{
    select_body(cid, cd2, n, k, idx, d2);
}
__attribute__((target("avx512f"))) static void cov0_avx512(const gk_krige_state *k,
                                                           const double *px, const double *py,
                                                           int m, double cx, double cy, double *c0,
                                                           double *h)
{
    cov0_body(k, px, py, m, cx, cy, c0, h, 2);
}
#endif

/* ---- AVX2: the factor in panels of registers ------------------------------ */
/* A panel of up to four columns, up to 12 rows at a time, stays in twelve
 * registers while the columns before it are subtracted one at a time: each
 * element takes the same products and subtractions, in the same order, as
 * chol_body's, so the doubles are the same; the loads of the earlier columns
 * are shared by the panel, and its four chains of subtractions overlap. */
#if GK_KK_X86
#define KK2 __attribute__((target("avx2")))
#define KK2_INLINE KK2 static inline __attribute__((always_inline))

/* lanes below n of a vector */
KK2_INLINE __m256i lanes_below(int n)
{
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3));
}

/* Rows [r, r + n) of the W columns j0.. (n <= 4 nv <= 12): each takes the
 * columns before j0 (their loads shared by the W columns, whose chains of
 * subtractions then run side by side), then the panel's earlier columns,
 * then is scaled by 1 / L_jj. With pivot (r == j0, columns not done), row
 * j0 + k of column k is its diagonal: checked against orig[k], then set.
 * Rows of a panel column above its diagonal are padding: they are
 * computed with the rest and stored, never read back as the factor. */
KK2_INLINE int chol_panel_avx2(double *L, int ld, double *inv, double tol, int j0, int r, int n,
                               int pivot, const double *orig, const int W, const int nv)
{
    const __m256i tail = lanes_below(n - 4 * (nv - 1));
    __m256d acc[4][3];
#pragma GCC unroll 4
    for (int k = 0; k < W; k++) {
        const double *c = L + (size_t)(j0 + k) * ld + r;
#pragma GCC unroll 3
        for (int v = 0; v < nv - 1; v++)
            acc[k][v] = _mm256_loadu_pd(c + 4 * v);
        acc[k][nv - 1] = _mm256_maskload_pd(c + 4 * (nv - 1), tail);
    }
    for (int q = 0; q < j0; q++) {
        const double *lq = L + (size_t)q * ld;
        __m256d l[3];
        /* rows past n read padding or the next column: finite or not,
         * those lanes are never stored */
#pragma GCC unroll 3
        for (int v = 0; v < nv; v++)
            l[v] = _mm256_loadu_pd(lq + r + 4 * v);
#pragma GCC unroll 4
        for (int k = 0; k < W; k++) {
            const __m256d a = _mm256_broadcast_sd(lq + j0 + k);
#pragma GCC unroll 3
            for (int v = 0; v < nv; v++)
                acc[k][v] = _mm256_sub_pd(acc[k][v], _mm256_mul_pd(a, l[v]));
        }
    }
#pragma GCC unroll 4
    for (int k = 0; k < W; k++) {
        const int j = j0 + k;
#pragma GCC unroll 4
        for (int kk = 0; kk < k; kk++) { /* the panel's columns before j, final */
            const __m256d a = _mm256_broadcast_sd(L + (size_t)(j0 + kk) * ld + j);
#pragma GCC unroll 3
            for (int v = 0; v < nv; v++)
                acc[k][v] = _mm256_sub_pd(acc[k][v], _mm256_mul_pd(a, acc[kk][v]));
        }
        double d = 0.0;
        if (pivot) {
            double row[4];
            _mm256_storeu_pd(row, acc[k][0]);
            if (!(row[k] > tol * fabs(orig[k])))
                return -1;
            d = sqrt(row[k]);
            inv[j] = 1.0 / d;
        }
        const __m256d iv = _mm256_set1_pd(inv[j]);
#pragma GCC unroll 3
        for (int v = 0; v < nv; v++)
            acc[k][v] = _mm256_mul_pd(acc[k][v], iv);
        if (pivot) {
            const __m256i at =
                _mm256_cmpeq_epi64(_mm256_set1_epi64x(k), _mm256_setr_epi64x(0, 1, 2, 3));
            acc[k][0] = _mm256_blendv_pd(acc[k][0], _mm256_set1_pd(d), _mm256_castsi256_pd(at));
        }
        double *c = L + (size_t)j * ld + r;
#pragma GCC unroll 3
        for (int v = 0; v < nv - 1; v++)
            _mm256_storeu_pd(c + 4 * v, acc[k][v]);
        _mm256_maskstore_pd(c + 4 * (nv - 1), tail, acc[k][nv - 1]);
    }
    return 0;
}

#define KK2_PANEL(W, NV) chol_panel_avx2(L, ld, inv, tol, j0, r, n, pivot, orig, W, NV)

/* Panels of up to four columns, never mixing columns done (before p0) with
 * columns to pivot; rows in chunks of 12 (twelve accumulators). */
KK2 static int chol_avx2(double *L, int m, int ld, double *inv, double tol, int p0)
{
    for (int j0 = 0; j0 < m;) {
        const int done = j0 < p0; /* rows before p0 are the factor already */
        int W = m - j0 < 4 ? m - j0 : 4;
        if (done && p0 - j0 < W)
            W = p0 - j0;
        double orig[4];
        for (int k = 0; k < W; k++)
            orig[k] = L[(size_t)(j0 + k) * ld + j0 + k];
        for (int r = done ? p0 : j0; r < m; r += 12) {
            int n = m - r < 12 ? m - r : 12, pivot = !done && r == j0, rc;
            switch ((W - 1) * 3 + (n + 3) / 4 - 1) { /* constant shapes: the loops unroll */
            case 0:
                rc = KK2_PANEL(1, 1);
                break;
            case 1:
                rc = KK2_PANEL(1, 2);
                break;
            case 2:
                rc = KK2_PANEL(1, 3);
                break;
            case 3:
                rc = KK2_PANEL(2, 1);
                break;
            case 4:
                rc = KK2_PANEL(2, 2);
                break;
            case 5:
                rc = KK2_PANEL(2, 3);
                break;
            case 6:
                rc = KK2_PANEL(3, 1);
                break;
            case 7:
                rc = KK2_PANEL(3, 2);
                break;
            case 8:
                rc = KK2_PANEL(3, 3);
                break;
            case 9:
                rc = KK2_PANEL(4, 1);
                break;
            case 10:
                rc = KK2_PANEL(4, 2);
                break;
            default:
                rc = KK2_PANEL(4, 3);
                break;
            }
            if (rc)
                return -1;
        }
        j0 += W;
    }
    return 0;
}
#endif

/* ---- AVX-512: the covariances over padded columns ---------------------------- */
/* Columns are computed in whole vectors of 8 rows from the block holding the
 * diagonal to m rounded up to 8: rows above the diagonal and below m are
 * padding that nothing reads back. The same doubles as the other paths: the
 * distance is the correctly rounded square root. */
#if GK_KK_X86
#define KK512 __attribute__((target("avx512f")))

KK512 static void cov_lower_avx512p(const gk_krige_state *k, const double *px, const double *py,
                                    int m, double *L, int ld, double *h)
{
    int mv = (m + 7) & ~7;
    for (int j = 0; j < m; j++) {
        int base = j & ~7;
        dist_avx512(px + base, py + base, px[j], py[j], h, mv - base);
        model_col(k, h, L + (size_t)j * ld + base, mv - base);
    }
}

#endif

/* ---- the k nearest as a set ---------------------------------------------------- */

/* (d2, index) order of candidates a and b: a before b? */
static inline int kk_before(const double *cd2, const int *cid, int a, int b)
{
    return cd2[a] < cd2[b] || (cd2[a] == cd2[b] && cid[a] < cid[b]);
}

static inline void kk_swap(double *cd2, int *cid, int a, int b)
{
    double td = cd2[a];
    int ti = cid[a];
    cd2[a] = cd2[b], cid[a] = cid[b];
    cd2[b] = td, cid[b] = ti;
}

double gk_kk_select_set(int *cid, double *cd2, int n, int k, int *idx)
{
    /* Quickselect on (d2, index), the keys distinct: afterwards the k first
     * are the k smallest (the only such set), in O(n) on average; the pivot
     * is the median of three, so the work is the same every run */
    const int t = k - 1; /* the rank that bounds the set */
    int lo = 0, hi = n - 1;
    /* few to leave out (a bound from the last node is tight): drop the
     * largest, one at a time, to the end; the same set */
    for (int end = n; 8 * (end - k) <= k && end > k; end--) {
        int w = 0;
        for (int i = 1; i < end; i++)
            if (kk_before(cd2, cid, w, i))
                w = i;
        kk_swap(cd2, cid, w, end - 1);
        lo = hi = 0; /* done when end reaches k */
    }
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (kk_before(cd2, cid, mid, lo))
            kk_swap(cd2, cid, mid, lo);
        if (kk_before(cd2, cid, hi, lo))
            kk_swap(cd2, cid, hi, lo);
        if (kk_before(cd2, cid, mid, hi))
            kk_swap(cd2, cid, mid, hi); /* the median of the three at hi: the pivot */
        int store = lo;
        for (int i = lo; i < hi; i++)
            if (kk_before(cd2, cid, i, hi))
                kk_swap(cd2, cid, i, store++);
        kk_swap(cd2, cid, store, hi); /* the pivot at its rank */
        if (store == t)
            break;
        if (store < t)
            lo = store + 1;
        else
            hi = store - 1;
    }
    double dk = cd2[0];
    for (int i = 0; i < k; i++) {
        idx[i] = cid[i];
        if (cd2[i] > dk)
            dk = cd2[i];
    }
    return dk;
}

/* ---- dispatch -------------------------------------------------------------- */

void gk_kk_cov_lower(const gk_krige_state *k, const double *px, const double *py, int m, double *L,
                     int ld, double *h)
{
    if (!model_fast(k)) {
        for (int j = 0; j < m; j++) {
            double *c = L + (size_t)j * ld;
            c[j] = k->A;
            for (int i = j + 1; i < m; i++)
                c[i] = gk_krige_cov(k, px[i] - px[j], py[i] - py[j]);
        }
        return;
    }
#if GK_KK_X86
    if (kk_isa == 2) {
        cov_lower_avx512p(k, px, py, m, L, ld, h);
        return;
    }
    if (kk_isa == 1) {
        cov_lower_avx2(k, px, py, m, L, ld, h);
        return;
    }
#endif
    cov_lower_portable(k, px, py, m, L, ld, h);
}

void gk_kk_cov0(const gk_krige_state *k, const double *px, const double *py, int m, double cx,
                double cy, double *c0, double *h)
{
    if (k->nb != 1 || !model_fast(k)) {
        for (int i = 0; i < m; i++)
            c0[i] = gk_krige_cov0(k, px[i] - cx, py[i] - cy);
        return;
    }
#if GK_KK_X86
    if (kk_isa == 2) {
        cov0_avx512(k, px, py, m, cx, cy, c0, h);
        return;
    }
    if (kk_isa == 1) {
        cov0_avx2(k, px, py, m, cx, cy, c0, h);
        return;
    }
#endif
    cov0_portable(k, px, py, m, cx, cy, c0, h);
}

/* The factor and the solves take the AVX2 bodies on AVX-512 too: the
 * AVX-512 ones (chol_avx512p, fwd1_avx512p) sum with FMA in another order,
 * and a result must be the same on every CPU. */
int gk_kk_chol(double *L, int m, int ld, double *inv, double tol)
{
    return gk_kk_chol_from(L, m, ld, inv, tol, 0);
}

int gk_kk_chol_from(double *L, int m, int ld, double *inv, double tol, int p0)
{
#if GK_KK_X86
    if (kk_isa >= 1)
        return chol_avx2(L, m, ld, inv, tol, p0);
#endif
    return chol_portable(L, m, ld, inv, tol, p0);
}

int gk_kk_cov_reusable(const gk_krige_state *k) { return k->nb == 1 && model_fast(k); }

void gk_kk_fwd(const double *L, int m, int ld, const double *inv, double *b, int nrhs, int ldb)
{
#if GK_KK_X86
    if (kk_isa >= 1) {
        fwd_avx2(L, m, ld, inv, b, nrhs, ldb);
        return;
    }
#endif
    fwd_portable(L, m, ld, inv, b, nrhs, ldb);
}

void gk_kk_sort_idx(int *v, int m, int *tmp)
{
#if GK_KK_X86
    if (kk_isa == 2) {
        sort_avx512(v, m, tmp);
        return;
    }
    if (kk_isa == 1) {
        sort_avx2(v, m, tmp);
        return;
    }
#endif
    sort_portable(v, m, tmp);
}

void gk_kk_select(const int *cid, const double *cd2, int n, int k, int *idx, double *d2)
{
#if GK_KK_X86
    if (kk_isa == 2) {
        select_avx512(cid, cd2, n, k, idx, d2);
        return;
    }
    if (kk_isa == 1) {
        select_avx2(cid, cd2, n, k, idx, d2);
        return;
    }
#endif
    select_portable(cid, cd2, n, k, idx, d2);
}
