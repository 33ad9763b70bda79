/* SPDX-License-Identifier: MIT */
/*
 * bucket_grid.c - uniform bucket grid for the window statistics (see
 * bucket_grid.h). Built once per job: a counting sort of the points by
 * bucket (stable, so input order survives within a bucket) into SoA copies,
 * on the context's threads.
 *
 * Exactness: a point is tested with the very expression of
 * gk_ellipse_contains (products in the same order, no FMA), so the fast path
 * includes exactly the points the k-d tree path includes; the spans only
 * decide which points get tested, and they are widened by a margin far
 * above any rounding of the geometry below.
 */
#include "bucket_grid_impl.h"
#include "core/method.h"
#include "core/cpu_level.h"
#include "neighbours.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int gk_bg_wanted(const gk_job *job) { return !job->gpu && gk_bg_suits(&job->alg, &job->ell); }

int gk_bg_suits(const gk_algorithm *a, const gk_ellipse *e)
{
    if (e->all || !(e->r1 > 0.0) || !(e->r2 > 0.0) || !isfinite(e->rmax))
        return 0;
    const gk_method *m = gk_method_of(a->kind);
    if (!m || !(m->flags & GK_M_WINDOW_STAT))
        return 0;
    /* every point of the window, in any order: no per-quadrant limits, no
     * max_points (of the window statistics, a row's keys say which take them) */
    if ((m->keys & GK_KEY_QUADRANT) &&
        (a->min_points_per_quadrant > 0 || a->max_points_per_quadrant > 0))
        return 0;
    return !(m->keys & GK_KEY_MAX_POINTS) || a->max_points <= 0;
}

void gk_bg_free(gk_bucket_grid *g)
{
    if (!g)
        return;
    free(g->start);
    free(g->x);
    free(g->y);
    free(g->z);
    free(g);
}

/* VL for the tile stamp's 8-lane integer indices; every AVX-512 CPU but Xeon Phi */
static int have_avx512(void) { return gk_cpu_level() == GK_ISA_AVX512; }

/* bucket_grid_impl.h's condition: E - q + log2(n) <= 102, with every z a
 * multiple of 2^q and below 2^E (no z, or only zeros: trivially). */
static int exact_sums(const double *z, size_t n)
{
    int E = INT_MIN, q = INT_MAX;
    for (size_t i = 0; i < n; i++) {
        if (z[i] == 0.0 || !isfinite(z[i]))
            continue;
        int e;
        double m = frexp(fabs(z[i]), &e);    /* |z| = m 2^e, m in [0.5, 1) */
        uint64_t M = (uint64_t)ldexp(m, 53); /* exact: 53 bits */
        int lo = e - 53 + __builtin_ctzll(M);
        E = e > E ? e : E;
        q = lo < q ? lo : q;
    }
    if (E == INT_MIN)
        return 1;
    int lg = 0;
    while (lg < 64 && ((size_t)1 << lg) < n + 1)
        lg++;
    return (long)E - q + lg <= 102;
}

/* Bucket side: about PER_BUCKET points a bucket (a span then fills a few
 * vectors), but at least rmax / (GK_BG_MAXROWS / 2 - 2) so that an ellipse
 * spans few enough rows, at most about the ellipse's diameter (larger buckets
 * only add candidates), and never more buckets than about 2 per point. */
#define PER_BUCKET 12.0

static double bucket_side(double w, double h, size_t n, double rmax)
{
    double area = w * h;
    double b;
    if (area > 0.0)
        b = sqrt(PER_BUCKET * area / (double)n);
    else
        b = PER_BUCKET * (w > h ? w : h) / (double)n; /* points on a line */
    if (b > 2.0 * rmax)
        b = 2.0 * rmax;
    double bmin = rmax / (GK_BG_MAXROWS / 2 - 2);
    if (b < bmin)
        b = bmin;
    /* bucket count bound: (w/b + 1)(h/b + 1) <= 2n + O(sqrt n) */
    double cap = fmin(2.0 * (double)n + 16.0, 1e9);
    while (b > 0.0 && (w / b + 1.0) * (h / b + 1.0) > cap)
        b *= 1.25;
    if (!(b > 0.0))
        b = 1.0; /* every point at one place */
    return b;
}

/* Threads for the sort: each keeps a counter per bucket, so fewer where the
 * buckets are many; one for small inputs. */
static int sort_threads(const gk_job *job, size_t n, size_t nb)
{
    int t = job->ctx->threads > 0 ? job->ctx->threads : omp_get_num_procs();
    if (n < 65536)
        return 1;
    while (t > 1 && (double)t * (double)nb > 2.0 * (double)n + 1048576.0)
        t--;
    return t < 1 ? 1 : t;
}

int gk_bg_build(const gk_job *job, gk_bucket_grid **out)
{
    *out = NULL;
    const gk_points *p = job->pts;
    const size_t n = p->n;
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
#pragma omp parallel for reduction(min : xmin, ymin) reduction(max : xmax, ymax) if (n > 65536)
    for (size_t i = 0; i < n; i++) {
        xmin = p->x[i] < xmin ? p->x[i] : xmin;
        xmax = p->x[i] > xmax ? p->x[i] : xmax;
        ymin = p->y[i] < ymin ? p->y[i] : ymin;
        ymax = p->y[i] > ymax ? p->y[i] : ymax;
    }
    gk_bucket_grid *g = calloc(1, sizeof *g);
    if (!g)
        return gk_error(job->ctx, GK_ERR_NOMEM, "out of memory building the bucket grid");
    double w = xmax - xmin, h = ymax - ymin;
    g->b = bucket_side(w, h, n, job->ell.rmax);
    g->inv = 1.0 / g->b;
    g->x0 = xmin;
    g->y0 = ymin;
    g->nbx = (int)(w * g->inv) + 1;
    g->nby = (int)(h * g->inv) + 1;
    g->n = n;
    double amax = fmax(fmax(fabs(xmin), fabs(xmax)), fmax(fabs(ymin), fabs(ymax)));
    g->margin = 1e-12 * amax;
    g->simd = have_avx512();
    g->exact = exact_sums(p->z, n);
    g->method = -1;
    const size_t nb = (size_t)g->nbx * (size_t)g->nby;
    const int T = sort_threads(job, n, nb);
    g->start = calloc(nb + 1, sizeof *g->start);
    int *key = malloc(n * sizeof *key);
    int *cur = calloc((size_t)T * nb, sizeof *cur); /* per thread, per bucket */
    g->x = malloc(n * sizeof *g->x);
    g->y = malloc(n * sizeof *g->y);
    g->z = malloc(n * sizeof *g->z);
    if (!g->start || !key || !cur || !g->x || !g->y || !g->z) {
        free(key);
        free(cur);
        gk_bg_free(g);
        return gk_error(job->ctx, GK_ERR_NOMEM, "out of memory building the bucket grid");
    }
    /* A counting sort by bucket, stable (input order within a bucket, as the
     * window statistics' sums expect): thread t counts and later scatters its
     * own contiguous share of the points, behind the shares before it. */
#pragma omp parallel num_threads(T)
    {
        const int t = omp_get_thread_num();
        const size_t lo = n * (size_t)t / (size_t)T, hi = n * (size_t)(t + 1) / (size_t)T;
        int *c = cur + (size_t)t * nb;
        for (size_t i = lo; i < hi; i++) {
            int col = bg_col(g, p->x[i]), row = bg_row(g, p->y[i]);
            col = col < 0 ? 0 : col >= g->nbx ? g->nbx - 1 : col;
            row = row < 0 ? 0 : row >= g->nby ? g->nby - 1 : row;
            key[i] = row * g->nbx + col;
            c[key[i]]++;
        }
#pragma omp barrier
        /* each thread's offset within a bucket; start[k + 1] = bucket size */
#pragma omp for
        for (size_t k = 0; k < nb; k++) {
            int s = 0;
            for (int u = 0; u < T; u++) {
                int v = cur[(size_t)u * nb + k];
                cur[(size_t)u * nb + k] = s;
                s += v;
            }
            g->start[k + 1] = s;
        }
#pragma omp single
        for (size_t k = 0; k < nb; k++)
            g->start[k + 1] += g->start[k];
#pragma omp for
        for (size_t k = 0; k < nb; k++)
            for (int u = 0; u < T; u++)
                cur[(size_t)u * nb + k] += g->start[k];
        for (size_t i = lo; i < hi; i++) {
            int d = c[key[i]]++;
            g->x[d] = p->x[i];
            g->y[d] = p->y[i];
            g->z[d] = p->z[i];
        }
    }
    free(cur);
    free(key);
    *out = g;
    return GK_OK;
}

const double *gk_bg_x(const gk_bucket_grid *g) { return g->x; }
const double *gk_bg_y(const gk_bucket_grid *g) { return g->y; }
void gk_bg_use_simd(gk_bucket_grid *g, int on) { g->simd = on && have_avx512(); }

/* ---- spans ------------------------------------------------------------------ */

void gk_bg_rows_init(const gk_bucket_grid *g, const gk_ellipse *e, double ny, gk_bg_rows *rows)
{
    double hx, hy;
    gk_nb_ellipse_box(e, &hx, &hy);
    double m = 1e-6 * e->rmax + g->margin + 1e-12 * fabs(ny);
    int r0 = bg_row(g, ny - hy - m), r1 = bg_row(g, ny + hy + m);
    r0 = r0 < 0 ? 0 : r0;
    r1 = r1 >= g->nby ? g->nby - 1 : r1;
    rows->r0 = r0;
    rows->nrows = r1 >= r0 ? r1 - r0 + 1 : 0;
    rows->box = rows->nrows > GK_BG_MAXROWS; /* only with a huge margin: the box */
    if (rows->box) {
        rows->lo[0] = -hx - m;
        rows->hi[0] = hx + m;
        return;
    }

    double r1s = e->r1 * e->r1, r2s = e->r2 * e->r2, c = e->cos_a, s = e->sin_a;
    /* very eccentric ellipses: the box (the formulas below lose precision) */
    int tight = fmin(e->r1, e->r2) >= 1e-3 * e->rmax;
    /* a dx^2 + 2 h dx dy + b dy^2 <= 1; the x interval at dy is
     * (-h dy +- sqrt(a - dy^2 / (r1^2 r2^2))) / a, its right end is largest
     * at dy = t (concave), its left end smallest at dy = -t (convex) */
    double a = c * c / r1s + s * s / r2s, h = c * s * (1.0 / r1s - 1.0 / r2s);
    double det = 1.0 / (r1s * r2s);
    double t = c * s * (r1s - r2s) / sqrt(r1s * c * c + r2s * s * s);
    for (int k = 0; k < rows->nrows; k++) {
        if (!tight) {
            rows->lo[k] = -hx - m;
            rows->hi[k] = hx + m;
            continue;
        }
        /* the bucket row's dy range, widened, within the ellipse's */
        double ylo = g->y0 + (double)(r0 + k) * g->b - ny - m;
        double yhi = g->y0 + (double)(r0 + k + 1) * g->b - ny + m;
        ylo = ylo < -hy ? -hy : ylo;
        yhi = yhi > hy ? hy : yhi;
        if (ylo > yhi) { /* only rounding can bring this: the whole box */
            rows->lo[k] = -hx - m;
            rows->hi[k] = hx + m;
            continue;
        }
        double yr = t < ylo ? ylo : t > yhi ? yhi : t;
        double yl = -t < ylo ? ylo : -t > yhi ? yhi : -t;
        double dr = a - yr * yr * det, dl = a - yl * yl * det;
        double xr = (-h * yr + sqrt(dr > 0.0 ? dr : 0.0)) / a;
        double xl = (-h * yl - sqrt(dl > 0.0 ? dl : 0.0)) / a;
        rows->lo[k] = (xl < -hx ? -hx : xl) - m;
        rows->hi[k] = (xr > hx ? hx : xr) + m;
    }
}

/* Span [*i0, *i1) of bucket row k of rows for the node at nx; 0 when empty. */
static inline int span(const gk_bucket_grid *g, const gk_bg_rows *rows, int k, double nx, int *i0,
                       int *i1)
{
    int kk = rows->box ? 0 : k;
    int c0 = bg_col(g, nx + rows->lo[kk]), c1 = bg_col(g, nx + rows->hi[kk]);
    c0 = c0 < 0 ? 0 : c0;
    c1 = c1 >= g->nbx ? g->nbx - 1 : c1;
    if (c0 > c1)
        return 0;
    const int *st = g->start + (size_t)(rows->r0 + k) * (size_t)g->nbx;
    *i0 = st[c0];
    *i1 = st[c1 + 1];
    return *i1 > *i0;
}

size_t gk_bg_candidates(const gk_bucket_grid *g, const gk_bg_rows *rows, double nx)
{
    size_t n = 0;
    int i0, i1;
    for (int k = 0; k < rows->nrows; k++)
        if (span(g, rows, k, nx, &i0, &i1))
            n += (size_t)(i1 - i0);
    return n;
}

/* ---- portable kernels --------------------------------------------------------- */

/* Four lanes in GCC's vector extension (SSE2 pairs, or AVX), lane-wise IEEE
 * operations as node512's: the same doubles at any vector width. */
typedef double bg_v4 __attribute__((vector_size(32)));
typedef long long bg_m4 __attribute__((vector_size(32)));

/* Doubles only (the count too, exact far beyond any span) and one select per
 * reduction, so that GCC vectorises the masked sums (sqrt's errno keeps the
 * distance sum scalar). */
#if GK_BG_X86 && !GK_TSAN
__attribute__((target_clones("avx2", "default")))
#endif
static void
node_generic(const gk_bucket_grid *g, const ell_k *e, const gk_bg_rows *rows, double nx, double ny,
             int what, gk_bg_acc *acc)
{
    const double *x = g->x, *y = g->y, *z = g->z;
    const double c = e->c, s = e->s, A = e->A, B = e->B, C = e->C;
    double cnt = 0.0, sum = 0.0, lo = INFINITY, hi = -INFINITY;
    double lh[8] = {0}, ll[8] = {0};                     /* per lane: a sum (of distances) */
    bg_v4 vh[2] = {{0}}, vl[2] = {{0}}, cntv[2] = {{0}}; /* lanes 0-3, 4-7: sum of z, count */
    int i0, i1;
    for (int k = 0; k < rows->nrows; k++) {
        if (!span(g, rows, k, nx, &i0, &i1))
            continue;
        switch (what) {
        case GK_BG_COUNT:
#pragma omp simd reduction(+ : cnt)
            for (int i = i0; i < i1; i++) {
                double dx = x[i] - nx, dy = y[i] - ny;
                double rx = dx * c + dy * s, ry = dy * c - dx * s;
                cnt += A * rx * rx + B * ry * ry <= C ? 1.0 : 0.0;
            }
            break;
        case GK_BG_SUM_Z: /* node512's lanes: point i0 + 8 v + l in lane l */
            for (int i = i0; i < i1; i += 8) {
                double xt[8], yt[8], zt[8];
                const double *X = x + i, *Y = y + i, *Z = z + i;
                if (i1 - i < 8) { /* the tail: lanes past i1 far away, never inside */
                    for (int l = 0; l < 8; l++) {
                        xt[l] = i + l < i1 ? x[i + l] : INFINITY;
                        yt[l] = i + l < i1 ? y[i + l] : INFINITY;
                        zt[l] = i + l < i1 ? z[i + l] : 0.0;
                    }
                    X = xt, Y = yt, Z = zt;
                }
                for (int hh = 0; hh < 2; hh++) { /* lanes 0-3, then 4-7 */
                    bg_v4 px, py, pz;
                    memcpy(&px, X + 4 * hh, sizeof px);
                    memcpy(&py, Y + 4 * hh, sizeof py);
                    memcpy(&pz, Z + 4 * hh, sizeof pz);
                    bg_v4 dx = px - nx, dy = py - ny;
                    bg_v4 rx = dx * c + dy * s, ry = dy * c - dx * s;
                    bg_m4 in = A * rx * rx + B * ry * ry <= C;
                    bg_v4 one = {1.0, 1.0, 1.0, 1.0};
                    cntv[hh] += (bg_v4)((bg_m4)one & in);
                    /* bg_dd_add, lane by lane, kept where the point is inside */
                    bg_v4 h = vh[hh], t = h + pz, bb = t - h;
                    bg_v4 e = (h - (t - bb)) + (pz - bb);
                    e += vl[hh];
                    bg_v4 h2 = t + e, b2 = h2 - t;
                    bg_v4 l2 = (t - (h2 - b2)) + (e - b2);
                    vh[hh] = (bg_v4)((in & (bg_m4)h2) | (~in & (bg_m4)h));
                    vl[hh] = (bg_v4)((in & (bg_m4)l2) | (~in & (bg_m4)vl[hh]));
                }
            }
            break;
        case GK_BG_MINMAX_Z:
#pragma omp simd reduction(+ : cnt) reduction(min : lo) reduction(max : hi)
            for (int i = i0; i < i1; i++) {
                double dx = x[i] - nx, dy = y[i] - ny;
                double rx = dx * c + dy * s, ry = dy * c - dx * s;
                double t = A * rx * rx + B * ry * ry, q = z[i];
                double w = t <= C ? 1.0 : 0.0;
                double ql = t <= C ? q : INFINITY, qh = t <= C ? q : -INFINITY;
                cnt += w;
                lo = ql < lo ? ql : lo;
                hi = qh > hi ? qh : hi;
            }
            break;
        default: /* node512's lanes and its fold, so that every CPU adds alike */
            for (int i = i0; i < i1; i += 8)
                for (int l = 0; l < 8 && i + l < i1; l++) {
                    double dx = x[i + l] - nx, dy = y[i + l] - ny;
                    double rx = dx * c + dy * s, ry = dy * c - dx * s;
                    if (A * rx * rx + B * ry * ry <= C) {
                        cnt += 1.0;
                        lh[l] += sqrt(dx * dx + dy * dy);
                    }
                }
            break;
        }
    }
    if (what == GK_BG_SUM_Z) {
        for (int l = 0; l < 8; l++) {
            lh[l] = vh[l / 4][l % 4], ll[l] = vl[l / 4][l % 4];
            cnt += cntv[l / 4][l % 4]; /* whole numbers: exact in any order */
        }
        sum = bg_dd_fold8(lh, ll);
    } else if (what == GK_BG_SUM_DIST)
        sum = ((lh[0] + lh[4]) + (lh[2] + lh[6])) + ((lh[1] + lh[5]) + (lh[3] + lh[7]));
    acc->n = (long)cnt;
    acc->sum = sum;
    acc->lo = lo;
    acc->hi = hi;
}

/* ---- AVX-512 kernels ---------------------------------------------------------- */
#if GK_BG_X86
/* One node; `what` and `rot` are constants in each caller so that the unused
 * work folds away. rot == 0 is angle 0 (cos 1, sin 0 exactly): then
 * dx*1 + dy*0 == dx and dy*1 - dx*0 == dy bit for bit (up to the sign of a
 * zero, which squaring drops), so the test is unchanged without the rotation. */
__attribute__((target("avx512f"), always_inline)) static inline void
node512(const gk_bucket_grid *g, const ell_k *e, const gk_bg_rows *rows, double nx, double ny,
        const int what, const int rot, gk_bg_acc *acc)
{
    const double *x = g->x, *y = g->y, *z = g->z;
    const __m512d NX = _mm512_set1_pd(nx), NY = _mm512_set1_pd(ny);
    const __m512d Cc = _mm512_set1_pd(e->c), Ss = _mm512_set1_pd(e->s);
    const __m512d A = _mm512_set1_pd(e->A), B = _mm512_set1_pd(e->B), C = _mm512_set1_pd(e->C);
    const __m512i one = _mm512_set1_epi64(1);
    __m512i cnt = _mm512_setzero_si512();
    __m512d sum = _mm512_setzero_pd(), sl = _mm512_setzero_pd();
    __m512d lo = _mm512_set1_pd(INFINITY), hi = _mm512_set1_pd(-INFINITY);
    int i0, i1;
    for (int k = 0; k < rows->nrows; k++) {
        if (!span(g, rows, k, nx, &i0, &i1))
            continue;
        for (long i = i0; i < i1; i += 8) {
            __mmask8 m = i1 - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (i1 - i)) - 1);
            __m512d dx = _mm512_sub_pd(_mm512_maskz_loadu_pd(m, x + i), NX);
            __m512d dy = _mm512_sub_pd(_mm512_maskz_loadu_pd(m, y + i), NY);
            /* rx = dx c + dy s, ry = dy c - dx s; q = A rx rx + B ry ry: no FMA */
            __m512d rx = dx, ry = dy;
            if (rot) {
                rx = _mm512_add_pd(_mm512_mul_pd(dx, Cc), _mm512_mul_pd(dy, Ss));
                ry = _mm512_sub_pd(_mm512_mul_pd(dy, Cc), _mm512_mul_pd(dx, Ss));
            }
            __m512d q = _mm512_add_pd(_mm512_mul_pd(_mm512_mul_pd(A, rx), rx),
                                      _mm512_mul_pd(_mm512_mul_pd(B, ry), ry));
            __mmask8 in = _mm512_mask_cmp_pd_mask(m, q, C, _CMP_LE_OQ);
            cnt = _mm512_mask_add_epi64(cnt, in, cnt, one);
            if (what == GK_BG_SUM_Z) { /* bg_dd_add, lane by lane */
                __m512d q = _mm512_maskz_loadu_pd(in, z + i);
                __m512d t = _mm512_add_pd(sum, q), bb = _mm512_sub_pd(t, sum);
                __m512d e =
                    _mm512_add_pd(_mm512_sub_pd(sum, _mm512_sub_pd(t, bb)), _mm512_sub_pd(q, bb));
                e = _mm512_add_pd(e, sl);
                __m512d h2 = _mm512_add_pd(t, e), b2 = _mm512_sub_pd(h2, t);
                __m512d l2 =
                    _mm512_add_pd(_mm512_sub_pd(t, _mm512_sub_pd(h2, b2)), _mm512_sub_pd(e, b2));
                sum = _mm512_mask_mov_pd(sum, in, h2);
                sl = _mm512_mask_mov_pd(sl, in, l2);
            } else if (what == GK_BG_MINMAX_Z) {
                __m512d Z = _mm512_maskz_loadu_pd(in, z + i);
                lo = _mm512_mask_min_pd(lo, in, Z, lo);
                hi = _mm512_mask_max_pd(hi, in, Z, hi);
            } else if (what == GK_BG_SUM_DIST) {
                __m512d d2 = _mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy));
                sum = _mm512_mask_add_pd(sum, in, sum, _mm512_sqrt_pd(d2));
            }
        }
    }
    acc->n = (long)_mm512_reduce_add_epi64(cnt);
    if (what == GK_BG_SUM_Z) {
        double h8[8], l8[8];
        _mm512_storeu_pd(h8, sum);
        _mm512_storeu_pd(l8, sl);
        acc->sum = bg_dd_fold8(h8, l8);
    } else {
        acc->sum = _mm512_reduce_add_pd(sum); /* ((0 4)(2 6))((1 5)(3 7)), as the scan's */
    }
    acc->lo = _mm512_reduce_min_pd(lo);
    acc->hi = _mm512_reduce_max_pd(hi);
}

#define NODE512(name, what, rot)                                                                   \
    __attribute__((target("avx512f"))) static void name(const gk_bucket_grid *g, const ell_k *e,   \
                                                        const gk_bg_rows *r, double nx, double ny, \
                                                        gk_bg_acc *acc)                            \
    {                                                                                              \
        node512(g, e, r, nx, ny, what, rot, acc);                                                  \
    }
NODE512(node512_count, GK_BG_COUNT, 1)
NODE512(node512_sum, GK_BG_SUM_Z, 1)
NODE512(node512_minmax, GK_BG_MINMAX_Z, 1)
NODE512(node512_dist, GK_BG_SUM_DIST, 1)
NODE512(node512_count0, GK_BG_COUNT, 0)
NODE512(node512_sum0, GK_BG_SUM_Z, 0)
NODE512(node512_minmax0, GK_BG_MINMAX_Z, 0)
NODE512(node512_dist0, GK_BG_SUM_DIST, 0)

typedef void (*node512_fn)(const gk_bucket_grid *, const ell_k *, const gk_bg_rows *, double,
                           double, gk_bg_acc *);
static const node512_fn node512_table[2][4] = {
    {node512_count0, node512_sum0, node512_minmax0, node512_dist0},
    {node512_count, node512_sum, node512_minmax, node512_dist},
};
#endif

void gk_bg_node(const gk_bucket_grid *g, const gk_ellipse *e, const gk_bg_rows *rows, double nx,
                double ny, int what, gk_bg_acc *acc)
{
    ell_k k;
    ell_consts(e, &k);
#if GK_BG_X86
    if (g->simd) {
        int rot = !(k.c == 1.0 && k.s == 0.0);
        node512_table[rot][what < 0 || what > 3 ? 3 : what](g, &k, rows, nx, ny, acc);
        return;
    }
#endif
    node_generic(g, &k, rows, nx, ny, what, acc);
}

size_t gk_bg_gather(const gk_bucket_grid *g, const gk_ellipse *e, const gk_bg_rows *rows, double nx,
                    double ny, int *pos)
{
    size_t m = 0;
    int i0, i1;
    for (int k = 0; k < rows->nrows; k++) {
        if (!span(g, rows, k, nx, &i0, &i1))
            continue;
        for (int i = i0; i < i1; i++)
            if (gk_ellipse_contains(e, g->x[i] - nx, g->y[i] - ny))
                pos[m++] = i;
    }
    return m;
}
