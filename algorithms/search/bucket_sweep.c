/*
 * bucket_sweep.c - the row sweep over the bucket grid (bucket_grid.h) for
 * average and count, and the cost model that picks the scan, the sweep or
 * the tile stamp (bucket_stamp.c) for a job.
 */
#include "bucket_grid_impl.h"
#include "neighbours.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- row sweep ------------------------------------------------------------------ */

/* A point's chord over a row of nodes holds an interval of nodes: the ends
 * are found with the exact test, and the nodes between them need none. That
 * is exact, not approximate: along a row the test's quadratic is convex,
 * so a node between two accepted ones lies inside by at least a * cell^2
 * (a its dx^2 coefficient, the ellipse scaled to 1), far above the test's
 * rounding (about 20 u (rmax / rmin)^2) wherever sweep_flat holds; elsewhere
 * every node of the chord is tested. Counts go to a difference array (exact:
 * integers), sums straight into the nodes of the interval, so no sum is
 * formed by subtraction. Eight points at a time find their chords; each
 * point inside the band then costs one 8-lane test and its additions.
 * AVX-512 only: without it the per-node scan is as fast. */

void gk_bg_force_method(gk_bucket_grid *g, int method) { g->method = method; }

/* Which is fastest, by cost models fitted to test_algorithms' bench (one
 * core, uniform points, ns per node; within 10-25% on its cases): the sweep
 * pays for each candidate of the bucket rows it reads and each point of the
 * band it places, plus the points inside; the stamp for each point near a
 * tile (its rows taken 8 at a time, whole vectors even for one row) and each
 * row of a point it places; the scan for the candidates of a node's spans.
 * With the mean density: 20 points a node within 10 cells
 * stamps, 20 against 35 (sweep) and 58 (scan) ns a node; chords of a cell
 * or two sweep (13 against 21); 250 points a node (radius 20 cells) stamps,
 * 113 against 195 (scan) and 207; nodes sparser than the points scan. */
int gk_bg_method(const gk_bucket_grid *g, const gk_ellipse *e, const gk_grid *grid, int what)
{
    if (!g->simd || (what != GK_BG_COUNT && what != GK_BG_SUM_Z))
        return GK_BG_SCAN;
    /* sums: the stamp only where they are exact, and never the sweep (its
     * sums are plain, in the points' order): same bytes as the scan */
    if (what == GK_BG_SUM_Z && !g->exact)
        return GK_BG_SCAN;
    if (g->method >= 0)
        return what == GK_BG_SUM_Z && g->method == GK_BG_SWEEP ? GK_BG_SCAN : g->method;
    double hx, hy;
    gk_nb_ellipse_box(e, &hx, &hy);
    double rho = (double)g->n / ((double)g->nbx * (double)g->nby * g->b * g->b);
    double cw = (grid->xmax - grid->xmin) / grid->nx, ch = (grid->ymax - grid->ymin) / grid->ny;
    double rows = rho * (2.0 * hy + g->b) * cw, band = rho * 2.0 * hy * cw;
    double inside = rho * M_PI * e->r1 * e->r2, cand = rho * (2.0 * hy + g->b) * (2.0 * hx + g->b);
    double near = rho * cw * ch; /* points a node */
    double sweep = 1.6 * rows + 23.0 * band + 0.2 * inside + 2.5, scan = 0.37 * cand + 24.0;
    double stamp = 2.5 + 58.0 * near + 13.0 * band;
    if (stamp < sweep && stamp < scan)
        return GK_BG_STAMP;
    if (what == GK_BG_SUM_Z)
        return stamp < scan ? GK_BG_STAMP : GK_BG_SCAN;
    return sweep < scan ? GK_BG_SWEEP : GK_BG_SCAN;
}

/* Node arrays: w + 1 (the difference array's end) padded to blocks of 8,
 * aligned to 64 bytes; the nodes' x has 8 more each side for the end
 * windows. */
static size_t sweep_pad(int w) { return ((size_t)w + 8) & ~(size_t)7; }
/* A sum array's stride: sweep_add may load and store (unchanged) up to 64
 * doubles past the row. */
static size_t sweep_stride(int w) { return sweep_pad(w) + 64; }
size_t gk_bg_sweep_scratch(int w) { return sweep_pad(w) + sweep_stride(w) + sweep_pad(w + 16) + 8; }

#if GK_BG_X86
/* The test at nodes L..L+3 (bits 0-3) and R-3..R (bits 4-7). */
__attribute__((target("avx512f"))) static inline unsigned
sweep_ends(const ell_k *e, const double *xs, int L, int R, double px, double dys, double dyc)
{
    __m512d X = _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_loadu_pd(xs + L)),
                                   _mm256_loadu_pd(xs + R - 3), 1);
    __m512d dx = _mm512_sub_pd(_mm512_set1_pd(px), X);
    __m512d rx = _mm512_add_pd(_mm512_mul_pd(dx, _mm512_set1_pd(e->c)), _mm512_set1_pd(dys));
    __m512d ry = _mm512_sub_pd(_mm512_set1_pd(dyc), _mm512_mul_pd(dx, _mm512_set1_pd(e->s)));
    __m512d q = _mm512_add_pd(_mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(e->A), rx), rx),
                              _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(e->B), ry), ry));
    return (unsigned)_mm512_cmp_pd_mask(q, _mm512_set1_pd(e->C), _CMP_LE_OQ);
}

/* sum[na..nb] += q over K whole aligned blocks from na's (K covers the
 * longest chord), masked by index, without a branch: loaded and stored
 * whole, so that the next point's load of a block is forwarded. */
__attribute__((target("avx512f"))) static inline void sweep_add(double *sum, int na, int nb,
                                                                double q, int K)
{
    const __m512d Q = _mm512_set1_pd(q);
    const __m512i A = _mm512_set1_epi64(na), B = _mm512_set1_epi64(nb);
    const int b0 = na & ~7;
    __m512i idx = _mm512_add_epi64(_mm512_set1_epi64(b0), _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
    const __m512i EIGHT = _mm512_set1_epi64(8);
    for (int u = 0; u < K; u++) {
        __mmask8 m = _mm512_cmpge_epi64_mask(idx, A) & _mm512_cmple_epi64_mask(idx, B);
        __m512d v = _mm512_load_pd(sum + b0 + 8 * u);
        _mm512_store_pd(sum + b0 + 8 * u, _mm512_mask_add_pd(v, m, v, Q));
        idx = _mm512_add_epi64(idx, EIGHT);
    }
}

/* What sweep_point needs of its row. */
typedef struct {
    ell_k k;
    int fast; /* ends by windows, interior untested */
    int w;    /* nodes in the row */
    int K;    /* blocks of 8 that sweep_add covers */
} sweep_geo;

/* One point whose widened chord reaches nodes flo..fhi (local, unrounded):
 * its interval of nodes, by the end windows where g->fast, else by testing
 * each node. */
__attribute__((target("avx512f"))) static inline void
sweep_point(const sweep_geo *G, const double *xs, double px, double dy, double q, double flo,
            double fhi, const int what, double *cnt, double *sum)
{
    const int w = G->w;
    const double dys = dy * G->k.s, dyc = dy * G->k.c;
    if (G->fast) {
        /* windows [L, L+3] and [R-3, R] within xs[-8 .. w+7]; a chord
         * reaching past the row needs no test at that end */
        int L = flo < -4.0 ? -4 : (int)floor(flo);
        int R = fhi > (double)(w + 2) ? w + 3 : (int)fhi + 1;
        unsigned mk = sweep_ends(&G->k, xs, L, R, px, dys, dyc);
        if ((mk & 0xfu) && (mk & 0xf0u)) {
            int na = flo < -4.0 ? 0 : L + __builtin_ctz(mk & 0xfu);
            int nb = fhi > (double)(w + 2) ? w - 1 : R - 3 + (31 - __builtin_clz(mk >> 4));
            na = na < 0 ? 0 : na;
            nb = nb > w - 1 ? w - 1 : nb;
            if (na > nb)
                return;
            cnt[na] += 1.0;
            cnt[nb + 1] -= 1.0;
            if (what == GK_BG_SUM_Z) {
                if (nb - na < 8 * G->K - 7)
                    sweep_add(sum, na, nb, q, G->K);
                else
                    for (int n = na; n <= nb; n++)
                        sum[n] += q;
            }
            return;
        }
        if (!mk && R - L <= 7)
            return; /* no node inside */
        /* not as the windows expect: test every node */
    }
    int na = flo <= 0.0 ? 0 : (int)flo;
    int nb = fhi >= (double)(w - 1) ? w - 1 : (int)fhi + 1;
    nb = nb > w - 1 ? w - 1 : nb;
    for (int n = na; n <= nb; n++) {
        if (!ell_in(&G->k, px - xs[n], dys, dyc))
            continue;
        cnt[n] += 1.0;
        cnt[n + 1] -= 1.0;
        if (what == GK_BG_SUM_Z)
            sum[n] += q;
    }
}

__attribute__((target("avx512f"), always_inline)) static inline void
sweep_row(const gk_bucket_grid *g, const gk_ellipse *e, const gk_grid *grid, int x0, int w,
          double ny, const int what, double *cnt, double *sum, double *xs)
{
    const size_t wp = sweep_pad(w), ws = sweep_stride(w);
    for (size_t i = 0; i < wp; i++)
        cnt[i] = 0.0;
    if (what == GK_BG_SUM_Z)
        for (size_t i = 0; i < ws; i++)
            sum[i] = 0.0;
    for (int i = -8; i < w + 8; i++)
        xs[i] = gk_grid_node_x(grid, x0 + i); /* the node's own x, bit for bit */
    sweep_geo G;
    G.w = w;
    bg_chord ch;
    bg_chord_init(e, &ch);
    const double hx = ch.hx, hy = ch.hy;
    const double m = 1e-6 * e->rmax + g->margin + 1e-12 * fabs(ny); /* as gk_bg_rows_init */
    int r0 = bg_row(g, ny - hy - m), r1 = bg_row(g, ny + hy + m);
    int c0 = bg_col(g, xs[0] - hx - m), c1 = bg_col(g, xs[w - 1] + hx + m);
    r0 = r0 < 0 ? 0 : r0;
    r1 = r1 >= g->nby ? g->nby - 1 : r1;
    c0 = c0 < 0 ? 0 : c0;
    c1 = c1 >= g->nbx ? g->nbx - 1 : c1;

    ell_consts(e, &G.k);
    const double cw = (grid->xmax - grid->xmin) / grid->nx;
    /* Ends by windows of 4 nodes: the first node inside lies within 3 of
     * the widened chord's left end while the widening is under a quarter
     * cell; interior nodes untested where sweep_flat holds. */
    G.fast = ch.tight && sweep_flat(e, cw) && m < 0.25 * cw;
    /* blocks of 8 that a chord of up to 2 hx / cw + 3 nodes meets (more: a loop) */
    double kk = (2.0 * hx / cw + 3.0 + 7.0) / 8.0 + 1.0;
    G.K = kk > 8.0 ? 8 : (int)kk;

    const __m512d NY = _mm512_set1_pd(ny), M = _mm512_set1_pd(m), HY = _mm512_set1_pd(hy);
    const __m512d ZERO = _mm512_setzero_pd(), W = _mm512_set1_pd((double)w);
    const double *PX = g->x, *PY = g->y, *PZ = g->z;
    double flo[8], fhi[8], dyv[8];
    for (int r = r0; r <= r1 && c0 <= c1; r++) {
        const int *st = g->start + (size_t)r * (size_t)g->nbx;
        const int i1 = st[c1 + 1];
        for (int i = st[c0]; i < i1; i += 8) {
            __mmask8 valid = i1 - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (i1 - i)) - 1);
            __m512d DY = _mm512_sub_pd(_mm512_maskz_loadu_pd(valid, PY + i), NY);
            __m512d ady = _mm512_abs_pd(DY);
            __mmask8 band = _mm512_mask_cmp_pd_mask(valid, ady, _mm512_add_pd(HY, M), _CMP_LE_OQ);
            if (!band)
                continue;
            __m512d lo, hi;
            bg_chord8(&ch, _mm512_maskz_loadu_pd(valid, PX + i), DY, M, grid->xmin, cw, x0, &lo,
                      &hi);
            __mmask8 hit = band & _mm512_cmp_pd_mask(hi, ZERO, _CMP_GE_OQ) &
                           _mm512_cmp_pd_mask(lo, W, _CMP_LT_OQ);
            if (!hit)
                continue;
            _mm512_storeu_pd(flo, lo);
            _mm512_storeu_pd(fhi, hi);
            _mm512_storeu_pd(dyv, DY);
            for (unsigned bits = hit; bits; bits &= bits - 1) {
                int j = __builtin_ctz(bits);
                sweep_point(&G, xs, PX[i + j], dyv[j], PZ[i + j], flo[j], fhi[j], what, cnt, sum);
            }
        }
    }
    double run = 0.0; /* the counts from their differences */
    for (int n = 0; n < w; n++) {
        run += cnt[n];
        cnt[n] = run;
    }
}

__attribute__((target("avx512f"))) static void sweep_count(const gk_bucket_grid *g,
                                                           const gk_ellipse *e, const gk_grid *grid,
                                                           int x0, int w, double ny, double *cnt,
                                                           double *sum, double *xs)
{
    sweep_row(g, e, grid, x0, w, ny, GK_BG_COUNT, cnt, sum, xs);
}

__attribute__((target("avx512f"))) static void sweep_sum(const gk_bucket_grid *g,
                                                         const gk_ellipse *e, const gk_grid *grid,
                                                         int x0, int w, double ny, double *cnt,
                                                         double *sum, double *xs)
{
    sweep_row(g, e, grid, x0, w, ny, GK_BG_SUM_Z, cnt, sum, xs);
}
#endif

void gk_bg_sweep(const gk_bucket_grid *g, const gk_ellipse *e, const gk_grid *grid, int x0, int w,
                 double ny, int what, double *buf, gk_bg_sweep_out *out)
{
    const size_t wp = sweep_pad(w);
    double *cnt = (double *)(((uintptr_t)buf + 63) & ~(uintptr_t)63);
    double *sum = cnt + wp, *xs = sum + sweep_stride(w) + 8;
    out->n = cnt;
    out->sum = sum;
#if GK_BG_X86
    if (what == GK_BG_COUNT)
        sweep_count(g, e, grid, x0, w, ny, cnt, sum, xs);
    else
        sweep_sum(g, e, grid, x0, w, ny, cnt, sum, xs);
#else
    (void)g, (void)e, (void)grid, (void)x0, (void)ny, (void)what, (void)xs; /* never wanted */
#endif
}
