/* SPDX-License-Identifier: MIT */
/*
 * bucket_sweep.c - the row sweep over the bucket grid (bucket_grid.h) for
 * count, and the cost model that picks the scan, the sweep or the tile
 * stamp (bucket_stamp.c) for a job.
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
 * integers). Eight points at a time find their chords; each point inside
 * the band then costs one 8-lane test and two additions. Counts only: sums
 * would be added in the points' order, not the scan's (other last bits).
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
size_t gk_bg_sweep_scratch(int w) { return sweep_pad(w) + sweep_pad(w + 16) + 8; }

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

/* What sweep_point needs of its row. */
typedef struct {
    ell_k k;
    int fast; /* ends by windows, interior untested */
    int w;    /* nodes in the row */
} sweep_geo;

/* One point whose widened chord reaches nodes flo..fhi (local, unrounded):
 * its interval of nodes, by the end windows where g->fast, else by testing
 * each node. */
__attribute__((target("avx512f"))) static inline void
sweep_point(const sweep_geo *G, const double *xs, double px, double dy, double flo, double fhi,
            double *cnt)
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
    }
}

__attribute__((target("avx512f"))) static void sweep_row(const gk_bucket_grid *g,
                                                         const gk_ellipse *e, const gk_grid *grid,
                                                         int x0, int w, double ny, double *cnt,
                                                         double *xs)
{
    const size_t wp = sweep_pad(w);
    for (size_t i = 0; i < wp; i++)
        cnt[i] = 0.0;
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

    const __m512d NY = _mm512_set1_pd(ny), M = _mm512_set1_pd(m), HY = _mm512_set1_pd(hy);
    const __m512d ZERO = _mm512_setzero_pd(), W = _mm512_set1_pd((double)w);
    const double *PX = g->x, *PY = g->y;
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
                sweep_point(&G, xs, PX[i + j], dyv[j], flo[j], fhi[j], cnt);
            }
        }
    }
    double run = 0.0; /* the counts from their differences */
    for (int n = 0; n < w; n++) {
        run += cnt[n];
        cnt[n] = run;
    }
}

#endif

void gk_bg_sweep(const gk_bucket_grid *g, const gk_ellipse *e, const gk_grid *grid, int x0, int w,
                 double ny, double *buf, gk_bg_sweep_out *out)
{
    double *cnt = (double *)(((uintptr_t)buf + 63) & ~(uintptr_t)63);
    double *xs = cnt + sweep_pad(w) + 8;
    out->n = cnt;
#if GK_BG_X86
    sweep_row(g, e, grid, x0, w, ny, cnt, xs);
#else
    (void)g, (void)e, (void)grid, (void)x0, (void)ny, (void)xs; /* never wanted */
#endif
}
