/* SPDX-License-Identifier: MIT */
/*
 * bucket_stamp.c - the tile stamp over the bucket grid (bucket_grid.h) for
 * average and count: the row sweep (bucket_sweep.c) a tile at a time.
 */
#include "bucket_grid_impl.h"
#include "neighbours.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The sweep turned round. Each point near a strip of rows takes 8 of its
 * rows at once: the chord of each (the sweep's widened chord, so never
 * shorter than the exact one) and then the exact test at the two nodes
 * where each end of the interval can lie; the nodes between are inside by
 * the sweep's convexity argument, and a lane whose tests do not settle its
 * ends tests every node of its chord. The two ends go into difference
 * arrays laid out node-major, so that a point's 8 rows are 8 distinct
 * addresses (gather, add, scatter: no conflict). Counts are whole numbers
 * in doubles (exact); sums are renormalised double-doubles, exact where the
 * grid's z allow (bucket_grid_impl.h), so that a node's sum is the exact sum
 * correctly rounded, whatever the tiling, never from a cancelling
 * subtraction; elsewhere the scan runs instead. Same points
 * as the scan and the sweep (test_algorithms checks all three against a
 * brute force); 20 points a node within 10 cells: 21 ns a node on one core against
 * the sweep's 34, and radius 20 cells 109 against 195 (scan). */

/* rows a strip: its three arrays stay in a core's L2 */
#define STAMP_SHIFT 6
#define STAMP_H (1 << STAMP_SHIFT)

size_t gk_bg_stamp_scratch(int w) { return 3 * (size_t)(w + 1) * STAMP_H + 2 * (STAMP_H + 8) + 8; }

#if GK_BG_X86
typedef struct {
    ell_k k;
    bg_chord ch;
    double cw, xmin;
    int fast, w, x0;
} stamp_geo;

/* (hi[i], lo[i]) += q: bg_dd_add */
static inline void dd_add1(double *hi, double *lo, size_t i, double q)
{
    bg_dd_add(&hi[i], &lo[i], q);
}

/* The same at 8 distinct indices. */
__attribute__((target("avx512f,avx512vl"))) static inline __m512d two_sum8(__m512d a, __m512d b,
                                                                           __m512d *e)
{
    __m512d s = _mm512_add_pd(a, b), bb = _mm512_sub_pd(s, a);
    *e = _mm512_add_pd(_mm512_sub_pd(a, _mm512_sub_pd(s, bb)), _mm512_sub_pd(b, bb));
    return s;
}

__attribute__((target("avx512f,avx512vl"))) static inline void
dd_add8(double *hi, double *lo, __mmask8 m, __m256i idx, __m512d q)
{
    __m512d H = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m, idx, hi, 8);
    __m512d L = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m, idx, lo, 8);
    __m512d e, l2;
    __m512d s = two_sum8(H, q, &e);
    e = _mm512_add_pd(e, L);
    __m512d h2 = two_sum8(s, e, &l2);
    _mm512_mask_i32scatter_pd(hi, m, idx, h2, 8);
    _mm512_mask_i32scatter_pd(lo, m, idx, l2, 8);
}

/* The exact test (ell_in's expression) at local node n (a whole number in
 * a double: x0 + n is then exact, and the node's x rounds as
 * gk_grid_node_x's) of each lane. */
__attribute__((target("avx512f,avx512vl"))) static inline __mmask8
stamp_in(const stamp_geo *G, __mmask8 m, __m512d n, __m512d px, __m512d dys, __m512d dyc)
{
    __m512d i = _mm512_add_pd(_mm512_set1_pd((double)G->x0), n);
    __m512d xn =
        _mm512_add_pd(_mm512_set1_pd(G->xmin),
                      _mm512_mul_pd(_mm512_add_pd(i, _mm512_set1_pd(0.5)), _mm512_set1_pd(G->cw)));
    __m512d dx = _mm512_sub_pd(px, xn);
    __m512d rx = _mm512_add_pd(_mm512_mul_pd(dx, _mm512_set1_pd(G->k.c)), dys);
    __m512d ry = _mm512_sub_pd(dyc, _mm512_mul_pd(dx, _mm512_set1_pd(G->k.s)));
    __m512d q = _mm512_add_pd(_mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(G->k.A), rx), rx),
                              _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(G->k.B), ry), ry));
    return _mm512_mask_cmp_pd_mask(m, q, _mm512_set1_pd(G->k.C), _CMP_LE_OQ);
}

/* One point over the strip's rows jlo..jhi (8 at a time). nyt/mt: the rows'
 * y and margin, NaN past the strip. */
__attribute__((target("avx512f,avx512vl"))) static void
stamp_point(const stamp_geo *G, const double *nyt, const double *mt, int jlo, int jhi, double px,
            double py, double q, const int what, double *cd, double *hd, double *ld)
{
    const int w = G->w;
    const __m512d PX = _mm512_set1_pd(px), ZERO = _mm512_setzero_pd(), ONE = _mm512_set1_pd(1.0);
    const __m512d HY = _mm512_set1_pd(G->ch.hy);
    const __m256i LANE = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
    for (int j = jlo; j <= jhi; j += 8) {
        __m512d M = _mm512_loadu_pd(mt + j);
        __m512d DY = _mm512_sub_pd(_mm512_set1_pd(py), _mm512_loadu_pd(nyt + j));
        __mmask8 band = _mm512_cmp_pd_mask(_mm512_abs_pd(DY), _mm512_add_pd(HY, M), _CMP_LE_OQ);
        if (!band)
            continue;
        __m512d lo, hi;
        bg_chord8(&G->ch, PX, DY, M, G->xmin, G->cw, G->x0, &lo, &hi);
        __mmask8 hit = band & _mm512_cmp_pd_mask(hi, ZERO, _CMP_GE_OQ) &
                       _mm512_cmp_pd_mask(lo, _mm512_set1_pd((double)w), _CMP_LT_OQ);
        if (!hit)
            continue;
        const __m512d dys = _mm512_mul_pd(DY, _mm512_set1_pd(G->k.s));
        const __m512d dyc = _mm512_mul_pd(DY, _mm512_set1_pd(G->k.c));
        __mmask8 slow = hit;
        if (G->fast) {
            const __m512d Lf =
                _mm512_max_pd(_mm512_roundscale_pd(lo, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC),
                              _mm512_set1_pd(-4.0));
            const __m512d Rf = _mm512_add_pd(
                _mm512_roundscale_pd(_mm512_min_pd(hi, _mm512_set1_pd((double)(w + 2))),
                                     _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC),
                ONE);
            /* The first node inside is L+1 or L+2 and the last
             * (nodes L and R-1 lie a cell beyond the widened chord): */
            const __m512d L1 = _mm512_add_pd(Lf, ONE), L2 = _mm512_add_pd(Lf, _mm512_set1_pd(2.0));
            const __m512d R2 = _mm512_sub_pd(Rf, _mm512_set1_pd(2.0)),
                          R3 = _mm512_sub_pd(Rf, _mm512_set1_pd(3.0));
            __mmask8 i1 = stamp_in(G, hit, L1, PX, dys, dyc),
                     i2 = stamp_in(G, hit, L2, PX, dys, dyc);
            __mmask8 j2 = stamp_in(G, hit, R2, PX, dys, dyc),
                     j3 = stamp_in(G, hit, R3, PX, dys, dyc);
            __m512d na = _mm512_mask_mov_pd(L2, i1, L1), nb = _mm512_mask_mov_pd(R3, j2, R2);
            __mmask8 mL = i1 | i2, mR = j2 | j3;
            na = _mm512_mask_mov_pd(na, _mm512_cmp_pd_mask(lo, _mm512_set1_pd(-4.0), _CMP_LT_OQ),
                                    ZERO);
            nb = _mm512_mask_mov_pd(
                nb, _mm512_cmp_pd_mask(hi, _mm512_set1_pd((double)(w + 2)), _CMP_GT_OQ),
                _mm512_set1_pd((double)(w - 1)));
            na = _mm512_max_pd(na, ZERO);
            nb = _mm512_min_pd(nb, _mm512_set1_pd((double)(w - 1)));
            __mmask8 good = hit & mL & mR;
            __mmask8 run = good & _mm512_cmp_pd_mask(na, nb, _CMP_LE_OQ);
            /* all four outside and nothing untested between them */
            __mmask8 none =
                hit & (__mmask8) ~(mL | mR) &
                _mm512_cmp_pd_mask(_mm512_sub_pd(Rf, Lf), _mm512_set1_pd(6.0), _CMP_LE_OQ);
            slow = hit & (__mmask8) ~(good | none);
            if (run) {
                __m256i row = _mm256_add_epi32(_mm256_set1_epi32(j), LANE);
                __m256i ia =
                    _mm256_add_epi32(_mm256_slli_epi32(_mm512_cvtpd_epi32(na), STAMP_SHIFT), row);
                __m256i ib = _mm256_add_epi32(
                    _mm256_slli_epi32(_mm512_cvtpd_epi32(_mm512_add_pd(nb, ONE)), STAMP_SHIFT),
                    row);
                __m512d c = _mm512_mask_i32gather_pd(ZERO, run, ia, cd, 8);
                _mm512_mask_i32scatter_pd(cd, run, ia, _mm512_add_pd(c, ONE), 8);
                c = _mm512_mask_i32gather_pd(ZERO, run, ib, cd, 8);
                _mm512_mask_i32scatter_pd(cd, run, ib, _mm512_sub_pd(c, ONE), 8);
                if (what == GK_BG_SUM_Z) {
                    dd_add8(hd, ld, run, ia, _mm512_set1_pd(q));
                    dd_add8(hd, ld, run, ib, _mm512_set1_pd(-q));
                }
            }
        }
        if (slow) { /* every node of the chord, as sweep_point does */
            double flo[8], fhi[8], ys[8], yc[8];
            _mm512_storeu_pd(flo, lo);
            _mm512_storeu_pd(fhi, hi);
            _mm512_storeu_pd(ys, dys);
            _mm512_storeu_pd(yc, dyc);
            for (unsigned bits = slow; bits; bits &= bits - 1) {
                int l = __builtin_ctz(bits), jj = j + l;
                int na = flo[l] <= 0.0 ? 0 : (int)flo[l];
                int nb = fhi[l] >= (double)(w - 1) ? w - 1 : (int)fhi[l] + 1;
                nb = nb > w - 1 ? w - 1 : nb;
                for (int n = na; n <= nb; n++) {
                    if (!ell_in(&G->k, px - (G->xmin + ((G->x0 + n) + 0.5) * G->cw), ys[l], yc[l]))
                        continue;
                    cd[(size_t)n * STAMP_H + jj] += 1.0;
                    cd[(size_t)(n + 1) * STAMP_H + jj] -= 1.0;
                    if (what == GK_BG_SUM_Z) {
                        dd_add1(hd, ld, (size_t)n * STAMP_H + jj, q);
                        dd_add1(hd, ld, (size_t)(n + 1) * STAMP_H + jj, -q);
                    }
                }
            }
        }
    }
}

__attribute__((target("avx512f,avx512vl"), always_inline)) static inline void
stamp_tile(const gk_bucket_grid *g, const gk_ellipse *e, const gk_grid *grid, int x0, int y0, int w,
           int h, const int what, double *buf, double *n_out, double *sum_out)
{
    const size_t cs = (size_t)(w + 1) * STAMP_H;
    double *cd = (double *)(((uintptr_t)buf + 63) & ~(uintptr_t)63);
    double *hd = cd + cs, *ld = hd + cs, *nyt = ld + cs, *mt = nyt + STAMP_H + 8;
    stamp_geo G;
    ell_consts(e, &G.k);
    bg_chord_init(e, &G.ch);
    G.cw = (grid->xmax - grid->xmin) / grid->nx; /* gk_grid_node_x's own step */
    G.xmin = grid->xmin;
    G.w = w;
    G.x0 = x0;
    const double xa = gk_grid_node_x(grid, x0), xb = gk_grid_node_x(grid, x0 + w - 1);
    const double dyn = (grid->ymin - grid->ymax) / grid->ny;
    for (int ys = 0; ys < h; ys += STAMP_H) {
        const int hs = h - ys < STAMP_H ? h - ys : STAMP_H;
        double mmax = 0.0;
        for (int j = 0; j < STAMP_H + 8; j++) {
            if (j < hs) {
                nyt[j] = gk_grid_node_y(grid, y0 + ys + j);
                mt[j] = 1e-6 * e->rmax + g->margin + 1e-12 * fabs(nyt[j]); /* as sweep_row */
                mmax = fmax(mmax, mt[j]);
            } else {
                nyt[j] = NAN;
                mt[j] = 0.0;
            }
        }
        G.fast = G.ch.tight && sweep_flat(e, G.cw) && mmax < 0.25 * G.cw;
        memset(cd, 0, cs * sizeof *cd);
        if (what == GK_BG_SUM_Z) {
            memset(hd, 0, cs * sizeof *hd);
            memset(ld, 0, cs * sizeof *ld);
        }
        const double ylo = nyt[hs - 1] - G.ch.hy - mmax, yhi = nyt[0] + G.ch.hy + mmax;
        const double xlo = xa - G.ch.hx - mmax, xhi = xb + G.ch.hx + mmax;
        int r0 = bg_row(g, ylo), r1 = bg_row(g, yhi), c0 = bg_col(g, xlo), c1 = bg_col(g, xhi);
        r0 = r0 < 0 ? 0 : r0;
        r1 = r1 >= g->nby ? g->nby - 1 : r1;
        c0 = c0 < 0 ? 0 : c0;
        c1 = c1 >= g->nbx ? g->nbx - 1 : c1;
        const double span = (G.ch.hy + mmax) / fabs(dyn) + 1e-3;
        const __m512d YLO = _mm512_set1_pd(ylo), YHI = _mm512_set1_pd(yhi);
        const __m512d XLO = _mm512_set1_pd(xlo), XHI = _mm512_set1_pd(xhi);
        for (int r = r0; r <= r1 && c0 <= c1; r++) {
            const int *st = g->start + (size_t)r * (size_t)g->nbx;
            const int i1 = st[c1 + 1];
            for (int i = st[c0]; i < i1; i += 8) {
                __mmask8 v = i1 - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (i1 - i)) - 1);
                __m512d Y = _mm512_maskz_loadu_pd(v, g->y + i),
                        X = _mm512_maskz_loadu_pd(v, g->x + i);
                v &= _mm512_cmp_pd_mask(Y, YLO, _CMP_GE_OQ) &
                     _mm512_cmp_pd_mask(Y, YHI, _CMP_LE_OQ) &
                     _mm512_cmp_pd_mask(X, XLO, _CMP_GE_OQ) &
                     _mm512_cmp_pd_mask(X, XHI, _CMP_LE_OQ);
                for (unsigned bits = v; bits; bits &= bits - 1) {
                    const int l = __builtin_ctz(bits);
                    const double py = g->y[i + l], tj = (py - nyt[0]) / dyn;
                    /* clamped as doubles: a NaN (a step that underflowed) takes
                     * every row, and the band test decides */
                    const double fa = floor(tj - span), fb = ceil(tj + span);
                    const int jlo = fa > 0.0 ? (fa < (double)hs ? (int)fa : hs) : 0;
                    const int jhi = fb < (double)(hs - 1) ? (fb > -1.0 ? (int)fb : -1) : hs - 1;
                    if (jlo <= jhi)
                        stamp_point(&G, nyt, mt, jlo, jhi, g->x[i + l], py, g->z[i + l], what, cd,
                                    hd, ld);
                }
            }
        }
        /* the running sums, 8 rows at a time, into the tile's row-major arrays
         * (indices from the block's first row, so that they fit 32 bits) */
        for (int rb = 0; rb < hs; rb += 8) {
            __mmask8 m = hs - rb >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (hs - rb)) - 1);
            const size_t row0 = (size_t)(ys + rb) * (size_t)w;
            __m256i oi =
                _mm256_mullo_epi32(_mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0), _mm256_set1_epi32(w));
            __m512d C = _mm512_setzero_pd(), SH = _mm512_setzero_pd(), SL = _mm512_setzero_pd();
            for (int n = 0; n < w; n++) {
                const size_t o = (size_t)n * STAMP_H + rb;
                C = _mm512_add_pd(C, _mm512_load_pd(cd + o));
                _mm512_mask_i32scatter_pd(n_out + row0, m, oi, C, 8);
                if (what == GK_BG_SUM_Z) {
                    /* bg_dd_add_dd */
                    __m512d dh = _mm512_load_pd(hd + o), dl = _mm512_load_pd(ld + o), err;
                    __m512d s1 = two_sum8(SH, dh, &err);
                    err = _mm512_add_pd(err, _mm512_add_pd(SL, dl));
                    SH = two_sum8(s1, err, &SL);
                    _mm512_mask_i32scatter_pd(sum_out + row0, m, oi, SH, 8);
                }
                oi = _mm256_add_epi32(oi, _mm256_set1_epi32(1));
            }
        }
    }
}

__attribute__((target("avx512f,avx512vl"))) static void
stamp_count(const gk_bucket_grid *g, const gk_ellipse *e, const gk_grid *grid, int x0, int y0,
            int w, int h, double *buf, double *n, double *sum)
{
    stamp_tile(g, e, grid, x0, y0, w, h, GK_BG_COUNT, buf, n, sum);
}
__attribute__((target("avx512f,avx512vl"))) static void
stamp_sum(const gk_bucket_grid *g, const gk_ellipse *e, const gk_grid *grid, int x0, int y0, int w,
          int h, double *buf, double *n, double *sum)
{
    stamp_tile(g, e, grid, x0, y0, w, h, GK_BG_SUM_Z, buf, n, sum);
}
#endif

void gk_bg_stamp(const gk_bucket_grid *g, const gk_ellipse *e, const gk_grid *grid, int x0, int y0,
                 int w, int h, int what, double *buf, double *n, double *sum)
{
#if GK_BG_X86
    if (what == GK_BG_COUNT)
        stamp_count(g, e, grid, x0, y0, w, h, buf, n, sum);
    else
        stamp_sum(g, e, grid, x0, y0, w, h, buf, n, sum);
#else
    (void)g, (void)e, (void)grid, (void)x0, (void)y0, (void)w, (void)h, (void)what, (void)buf;
    (void)n, (void)sum; /* never wanted */
#endif
}
