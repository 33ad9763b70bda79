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
#include "bucket_grid.h"
#include "neighbours.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GK_BG_X86 1
#include <immintrin.h>
#else
#define GK_BG_X86 0
#endif

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF /* the inclusion test must round as gk_ellipse_contains */
#endif

struct gk_bucket_grid {
    double x0, y0;   /* lower left corner of bucket (0, 0) */
    double b, inv;   /* bucket side and its inverse */
    int nbx, nby;
    int *start;      /* nbx * nby + 1 offsets into x, y, z */
    double *x, *y, *z;
    size_t n;
    double margin;   /* absolute widening of the spans (coordinates' rounding) */
    int simd;        /* AVX-512 kernels */
    int method;      /* gk_bg_force_method: a GK_BG_* method, or -1 for the rule */
};

/* Ellipse test constants, in gk_ellipse_contains' order of operations. */
typedef struct {
    double c, s, A, B, C; /* A = r2*r2, B = r1*r1, C = r1*r1*r2*r2 */
} ell_k;

static void ell_consts(const gk_ellipse *e, ell_k *k)
{
    k->c = e->cos_a;
    k->s = e->sin_a;
    k->A = e->r2 * e->r2;
    k->B = e->r1 * e->r1;
    k->C = e->r1 * e->r1 * e->r2 * e->r2;
}

int gk_bg_wanted(const gk_job *job)
{
    return !job->gpu && gk_bg_suits(&job->alg, &job->ell);
}

int gk_bg_suits(const gk_algorithm *a, const gk_ellipse *e)
{
    if (e->all || !(e->r1 > 0.0) || !(e->r2 > 0.0) || !isfinite(e->rmax))
        return 0;
    if (!gk_alg_is_window_statistic(a->kind))
        return 0;
    if (a->min_points_per_quadrant > 0 || a->max_points_per_quadrant > 0)
        return a->kind == GK_ALG_AVERAGE_DISTANCE_PTS; /* it ignores quadrant keys */
    return a->kind != GK_ALG_AVERAGE || a->max_points <= 0; /* only average takes max_points */
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

/* Bucket column of x: -1 left of the grid, nbx right of it. Monotone in x, so
 * a point never lies right of the column of any larger x. */
static inline int bg_col(const gk_bucket_grid *g, double x)
{
    double u = (x - g->x0) * g->inv;
    if (!(u >= 0.0))
        return -1;
    if (u >= (double)g->nbx)
        return g->nbx;
    return (int)u;
}

static inline int bg_row(const gk_bucket_grid *g, double y)
{
    double u = (y - g->y0) * g->inv;
    if (!(u >= 0.0))
        return -1;
    if (u >= (double)g->nby)
        return g->nby;
    return (int)u;
}

static int have_avx512(void)
{
#if GK_BG_X86
    __builtin_cpu_init();
    /* VL for the tile stamp's 8-lane integer indices; every AVX-512 CPU but Xeon Phi */
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") ? 1 : 0;
#else
    return 0;
#endif
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

int gk_bg_prepare(gk_job *job)
{
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
    job->bg = g;
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

/* Doubles only (the count too, exact far beyond any span) and one select per
 * reduction, so that GCC vectorises the masked sums (sqrt's errno keeps the
 * distance sum scalar). */
#if GK_BG_X86
__attribute__((target_clones("avx2", "default")))
#endif
static void node_generic(const gk_bucket_grid *g, const ell_k *e, const gk_bg_rows *rows,
                         double nx, double ny, int what, gk_bg_acc *acc)
{
    const double *x = g->x, *y = g->y, *z = g->z;
    const double c = e->c, s = e->s, A = e->A, B = e->B, C = e->C;
    double cnt = 0.0, sum = 0.0, lo = INFINITY, hi = -INFINITY;
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
        case GK_BG_SUM_Z:
#pragma omp simd reduction(+ : cnt) reduction(+ : sum)
            for (int i = i0; i < i1; i++) {
                double dx = x[i] - nx, dy = y[i] - ny;
                double rx = dx * c + dy * s, ry = dy * c - dx * s;
                double t = A * rx * rx + B * ry * ry, q = z[i];
                double w = t <= C ? 1.0 : 0.0, v = t <= C ? q : 0.0;
                cnt += w;
                sum += v;
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
        default:
            for (int i = i0; i < i1; i++) { /* scalar: sqrt's errno */
                double dx = x[i] - nx, dy = y[i] - ny;
                double rx = dx * c + dy * s, ry = dy * c - dx * s;
                if (A * rx * rx + B * ry * ry <= C) {
                    cnt += 1.0;
                    sum += sqrt(dx * dx + dy * dy);
                }
            }
            break;
        }
    }
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
    __m512d sum = _mm512_setzero_pd();
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
            if (what == GK_BG_SUM_Z) {
                sum = _mm512_mask_add_pd(sum, in, sum, _mm512_maskz_loadu_pd(in, z + i));
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
    acc->sum = _mm512_reduce_add_pd(sum);
    acc->lo = _mm512_reduce_min_pd(lo);
    acc->hi = _mm512_reduce_max_pd(hi);
}

#define NODE512(name, what, rot)                                                           \
    __attribute__((target("avx512f"))) static void name(const gk_bucket_grid *g,           \
                                                        const ell_k *e, const gk_bg_rows *r, \
                                                        double nx, double ny, gk_bg_acc *acc) \
    {                                                                                       \
        node512(g, e, r, nx, ny, what, rot, acc);                                           \
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

size_t gk_bg_gather(const gk_bucket_grid *g, const gk_ellipse *e, const gk_bg_rows *rows,
                    double nx, double ny, int *pos)
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
 * With the mean density: issue 4's case (20 points a node, 10 cells radius)
 * stamps, 20 against 35 (sweep) and 58 (scan) ns a node; chords of a cell
 * or two sweep (13 against 21); 250 points a node (radius 20 cells) stamps,
 * 113 against 195 (scan) and 207; nodes sparser than the points scan. */
int gk_bg_method(const gk_bucket_grid *g, const gk_ellipse *e, const gk_grid *grid, int what)
{
    if (!g->simd || (what != GK_BG_COUNT && what != GK_BG_SUM_Z))
        return GK_BG_SCAN;
    if (g->method >= 0)
        return g->method;
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
    return sweep < scan ? GK_BG_SWEEP : GK_BG_SCAN;
}

/* Node arrays: w + 1 (the difference array's end) padded to blocks of 8,
 * aligned to 64 bytes; the nodes' x has 8 more each side for the end
 * windows. */
static size_t sweep_pad(int w) { return ((size_t)w + 8) & ~(size_t)7; }
/* A sum array's stride: sweep_add may load and store (unchanged) up to 64
 * doubles past the row. */
static size_t sweep_stride(int w) { return sweep_pad(w) + 64; }
size_t gk_bg_sweep_scratch(int w)
{
    return sweep_pad(w) + sweep_stride(w) + sweep_pad(w + 16) + 8;
}

/* Interior nodes of a chord need no test (see above): the ellipse's dx^2
 * coefficient times the cell squared against the test's rounding, with a
 * wide safety factor. */
static int sweep_flat(const gk_ellipse *e, double cw)
{
    double r1s = e->r1 * e->r1, r2s = e->r2 * e->r2;
    double a = e->cos_a * e->cos_a / r1s + e->sin_a * e->sin_a / r2s;
    double q = e->rmax / fmin(e->r1, e->r2);
    return a * cw * cw >= 1e-9 * q * q;
}

#if GK_BG_X86
/* The exact test at node n (gk_ellipse_contains' expression; dys = dy * s and
 * dyc = dy * c are its own products, formed once per point). */
static inline int sweep_in(const ell_k *e, const double *xs, int n, double px, double dys,
                           double dyc)
{
    double dx = px - xs[n];
    double rx = dx * e->c + dys, ry = dyc - dx * e->s;
    return e->A * rx * rx + e->B * ry * ry <= e->C;
}

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
        if (!sweep_in(&G->k, xs, n, px, dys, dyc))
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
    double hx, hy;
    gk_nb_ellipse_box(e, &hx, &hy);
    const double m = 1e-6 * e->rmax + g->margin + 1e-12 * fabs(ny); /* as gk_bg_rows_init */
    int r0 = bg_row(g, ny - hy - m), r1 = bg_row(g, ny + hy + m);
    int c0 = bg_col(g, xs[0] - hx - m), c1 = bg_col(g, xs[w - 1] + hx + m);
    r0 = r0 < 0 ? 0 : r0;
    r1 = r1 >= g->nby ? g->nby - 1 : r1;
    c0 = c0 < 0 ? 0 : c0;
    c1 = c1 >= g->nbx ? g->nbx - 1 : c1;

    ell_consts(e, &G.k);
    /* The chord at dy, as in gk_bg_rows_init: a dx^2 + 2 h dx dy + b dy^2 <= 1
     * gives dx in (-h dy -+ sqrt(a - dy^2 det)) / a. Taken over dy +- m (the
     * rounding of dy and of the test) at the extreme ends, then widened by m. */
    const double c = G.k.c, s = G.k.s, r1s = e->r1 * e->r1, r2s = e->r2 * e->r2;
    const int tight = fmin(e->r1, e->r2) >= 1e-3 * e->rmax;
    const double a = c * c / r1s + s * s / r2s, h = c * s * (1.0 / r1s - 1.0 / r2s);
    const double t = c * s * (r1s - r2s) / sqrt(r1s * c * c + r2s * s * s);
    const double cw = (grid->xmax - grid->xmin) / grid->nx;
    /* Ends by windows of 4 nodes: the first node inside lies within 3 of
     * the widened chord's left end while the widening is under a quarter
     * cell; interior nodes untested where sweep_flat holds. */
    G.fast = tight && sweep_flat(e, cw) && m < 0.25 * cw;
    /* blocks of 8 that a chord of up to 2 hx / cw + 3 nodes meets (more: a loop) */
    double kk = (2.0 * hx / cw + 3.0 + 7.0) / 8.0 + 1.0;
    G.K = kk > 8.0 ? 8 : (int)kk;

    const __m512d NY = _mm512_set1_pd(ny), M = _mm512_set1_pd(m), HY = _mm512_set1_pd(hy);
    const __m512d HX = _mm512_set1_pd(hx), NHY = _mm512_set1_pd(-hy), NHX = _mm512_set1_pd(-hx);
    const __m512d T = _mm512_set1_pd(t), NT = _mm512_set1_pd(-t), Av = _mm512_set1_pd(a);
    const __m512d H = _mm512_set1_pd(h), DET = _mm512_set1_pd(1.0 / (r1s * r2s));
    const __m512d IA = _mm512_set1_pd(1.0 / a), ICW = _mm512_set1_pd(1.0 / cw);
    const __m512d OFF = _mm512_set1_pd(0.5 + (double)x0), XMIN = _mm512_set1_pd(grid->xmin);
    const __m512d ONE = _mm512_set1_pd(1.0), ZERO = _mm512_setzero_pd();
    const __m512d W = _mm512_set1_pd((double)w);
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
            __m512d xl = _mm512_sub_pd(NHX, M), xr = _mm512_add_pd(HX, M);
            if (tight) {
                __m512d ylo = _mm512_max_pd(_mm512_sub_pd(DY, M), NHY);
                __m512d yhi = _mm512_min_pd(_mm512_add_pd(DY, M), HY);
                __mmask8 ok = _mm512_cmp_pd_mask(ylo, yhi, _CMP_LE_OQ);
                __m512d yr = _mm512_min_pd(_mm512_max_pd(T, ylo), yhi);
                __m512d yl = _mm512_min_pd(_mm512_max_pd(NT, ylo), yhi);
                __m512d dr = _mm512_max_pd(_mm512_sub_pd(Av, _mm512_mul_pd(_mm512_mul_pd(yr, yr), DET)), ZERO);
                __m512d dl = _mm512_max_pd(_mm512_sub_pd(Av, _mm512_mul_pd(_mm512_mul_pd(yl, yl), DET)), ZERO);
                __m512d xrr = _mm512_mul_pd(_mm512_sub_pd(_mm512_sqrt_pd(dr), _mm512_mul_pd(H, yr)), IA);
                __m512d xll = _mm512_mul_pd(
                    _mm512_sub_pd(_mm512_sub_pd(ZERO, _mm512_mul_pd(H, yl)), _mm512_sqrt_pd(dl)), IA);
                xl = _mm512_mask_sub_pd(xl, ok, _mm512_max_pd(xll, NHX), M);
                xr = _mm512_mask_add_pd(xr, ok, _mm512_min_pd(xrr, HX), M);
            }
            __m512d X = _mm512_maskz_loadu_pd(valid, PX + i);
            __m512d lo = _mm512_sub_pd(
                _mm512_sub_pd(_mm512_mul_pd(_mm512_sub_pd(_mm512_sub_pd(X, xr), XMIN), ICW), OFF), ONE);
            __m512d hi = _mm512_add_pd(
                _mm512_sub_pd(_mm512_mul_pd(_mm512_sub_pd(_mm512_sub_pd(X, xl), XMIN), ICW), OFF), ONE);
            __mmask8 hit = band & _mm512_cmp_pd_mask(hi, ZERO, _CMP_GE_OQ) &
                           _mm512_cmp_pd_mask(lo, W, _CMP_LT_OQ);
            if (!hit)
                continue;
            _mm512_storeu_pd(flo, lo);
            _mm512_storeu_pd(fhi, hi);
            _mm512_storeu_pd(dyv, DY);
            for (unsigned bits = hit; bits; bits &= bits - 1) {
                int j = __builtin_ctz(bits);
                sweep_point(&G, xs, PX[i + j], dyv[j], PZ[i + j], flo[j], fhi[j], what, cnt,
                            sum);
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
                                                           const gk_ellipse *e,
                                                           const gk_grid *grid, int x0, int w,
                                                           double ny, double *cnt, double *sum,
                                                           double *xs)
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

/* ---- tile stamp ------------------------------------------------------------------ */

/* The sweep turned round: each point near a strip of rows finds, for 8 rows at
 * once, its chord's interval of nodes exactly as sweep_point does (the same
 * windows and tests), and marks its two ends in difference arrays laid out
 * node-major, so that a point's 8 rows are 8 distinct addresses (gather,
 * add, scatter, no conflict). Counts are integers in doubles (exact); sums
 * are double-double, so the running sums that undo them later are exact to
 * about 2^-104 of the points' |z| and the node's sum comes out correctly
 * rounded, never by a cancelling subtraction. */

/* rows a strip: its three arrays stay in a core's L2 */
#define STAMP_SHIFT 6
#define STAMP_H (1 << STAMP_SHIFT)

size_t gk_bg_stamp_scratch(int w)
{
    return 3 * (size_t)(w + 1) * STAMP_H + 2 * (STAMP_H + 8) + 8;
}

#if GK_BG_X86
typedef struct {
    ell_k k;
    double hx, hy, a, h, t, det, cw, xmin, cwx;
    int tight, fast, sym, w, x0;
} stamp_geo;

/* sum[i] += q in double-double (hi, lo): exact to lo's rounding */
static inline void dd_add1(double *hi, double *lo, size_t i, double q)
{
    double s = hi[i] + q, bb = s - hi[i];
    lo[i] += (hi[i] - (s - bb)) + (q - bb);
    hi[i] = s;
}

__attribute__((target("avx512f,avx512vl"))) static inline void
dd_add8(double *hi, double *lo, __mmask8 m, __m256i idx, __m512d q)
{
    __m512d H = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m, idx, hi, 8);
    __m512d L = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m, idx, lo, 8);
    __m512d s = _mm512_add_pd(H, q), bb = _mm512_sub_pd(s, H);
    __m512d err = _mm512_add_pd(_mm512_sub_pd(H, _mm512_sub_pd(s, bb)), _mm512_sub_pd(q, bb));
    _mm512_mask_i32scatter_pd(hi, m, idx, s, 8);
    _mm512_mask_i32scatter_pd(lo, m, idx, _mm512_add_pd(L, err), 8);
}

/* The exact test (sweep_in's expression) at local node n (a whole number in
 * a double: x0 + n is then exact, and the node's x rounds as
 * gk_grid_node_x's) of each lane. */
__attribute__((target("avx512f,avx512vl"))) static inline __mmask8
stamp_in(const stamp_geo *G, __mmask8 m, __m512d n, __m512d px, __m512d dys, __m512d dyc)
{
    __m512d i = _mm512_add_pd(_mm512_set1_pd((double)G->x0), n);
    __m512d xn = _mm512_add_pd(_mm512_set1_pd(G->xmin),
                               _mm512_mul_pd(_mm512_add_pd(i, _mm512_set1_pd(0.5)), _mm512_set1_pd(G->cwx)));
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
    const __m512d HX = _mm512_set1_pd(G->hx), HY = _mm512_set1_pd(G->hy);
    const __m512d NHX = _mm512_set1_pd(-G->hx), NHY = _mm512_set1_pd(-G->hy);
    const __m256i LANE = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
    for (int j = jlo; j <= jhi; j += 8) {
        __m512d M = _mm512_loadu_pd(mt + j);
        __m512d DY = _mm512_sub_pd(_mm512_set1_pd(py), _mm512_loadu_pd(nyt + j));
        __mmask8 band = _mm512_cmp_pd_mask(_mm512_abs_pd(DY), _mm512_add_pd(HY, M), _CMP_LE_OQ);
        if (!band)
            continue;
        __m512d xl = _mm512_sub_pd(NHX, M), xr = _mm512_add_pd(HX, M);
        if (G->tight) {
            const __m512d T = _mm512_set1_pd(G->t), NT = _mm512_set1_pd(-G->t);
            const __m512d Av = _mm512_set1_pd(G->a), H = _mm512_set1_pd(G->h);
            const __m512d DET = _mm512_set1_pd(G->det), IA = _mm512_set1_pd(1.0 / G->a);
            __m512d ylo = _mm512_max_pd(_mm512_sub_pd(DY, M), NHY);
            __m512d yhi = _mm512_min_pd(_mm512_add_pd(DY, M), HY);
            __mmask8 ok = _mm512_cmp_pd_mask(ylo, yhi, _CMP_LE_OQ);
            __m512d yr = _mm512_min_pd(_mm512_max_pd(T, ylo), yhi);
            __m512d yl = _mm512_min_pd(_mm512_max_pd(NT, ylo), yhi);
            __m512d dr = _mm512_max_pd(_mm512_sub_pd(Av, _mm512_mul_pd(_mm512_mul_pd(yr, yr), DET)), ZERO);
            __m512d qr = _mm512_sqrt_pd(dr), ql = qr;
            if (!G->sym) { /* a rotated ellipse's ends sit at different dy */
                __m512d dl = _mm512_max_pd(_mm512_sub_pd(Av, _mm512_mul_pd(_mm512_mul_pd(yl, yl), DET)), ZERO);
                ql = _mm512_sqrt_pd(dl);
            }
            __m512d xrr = _mm512_mul_pd(_mm512_sub_pd(qr, _mm512_mul_pd(H, yr)), IA);
            __m512d xll = _mm512_mul_pd(_mm512_sub_pd(_mm512_sub_pd(ZERO, _mm512_mul_pd(H, yl)), ql), IA);
            xl = _mm512_mask_sub_pd(xl, ok, _mm512_max_pd(xll, NHX), M);
            xr = _mm512_mask_add_pd(xr, ok, _mm512_min_pd(xrr, HX), M);
        }
        const __m512d XMIN = _mm512_set1_pd(G->xmin), ICW = _mm512_set1_pd(1.0 / G->cw);
        const __m512d OFF = _mm512_set1_pd(0.5 + (double)G->x0);
        __m512d lo = _mm512_sub_pd(
            _mm512_sub_pd(_mm512_mul_pd(_mm512_sub_pd(_mm512_sub_pd(PX, xr), XMIN), ICW), OFF), ONE);
        __m512d hi = _mm512_add_pd(
            _mm512_sub_pd(_mm512_mul_pd(_mm512_sub_pd(_mm512_sub_pd(PX, xl), XMIN), ICW), OFF), ONE);
        __mmask8 hit = band & _mm512_cmp_pd_mask(hi, ZERO, _CMP_GE_OQ) &
                       _mm512_cmp_pd_mask(lo, _mm512_set1_pd((double)w), _CMP_LT_OQ);
        if (!hit)
            continue;
        const __m512d dys = _mm512_mul_pd(DY, _mm512_set1_pd(G->k.s));
        const __m512d dyc = _mm512_mul_pd(DY, _mm512_set1_pd(G->k.c));
        __mmask8 slow = hit;
        if (G->fast) {
            const __m512d Lf = _mm512_max_pd(
                _mm512_roundscale_pd(lo, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC), _mm512_set1_pd(-4.0));
            const __m512d Rf = _mm512_add_pd(
                _mm512_roundscale_pd(_mm512_min_pd(hi, _mm512_set1_pd((double)(w + 2))),
                                     _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC),
                ONE);
            /* The first node inside is L+1 or L+2 and the last
             * (nodes L and R-1 lie a cell beyond the widened chord): */
            const __m512d L1 = _mm512_add_pd(Lf, ONE), L2 = _mm512_add_pd(Lf, _mm512_set1_pd(2.0));
            const __m512d R2 = _mm512_sub_pd(Rf, _mm512_set1_pd(2.0)), R3 = _mm512_sub_pd(Rf, _mm512_set1_pd(3.0));
            __mmask8 i1 = stamp_in(G, hit, L1, PX, dys, dyc), i2 = stamp_in(G, hit, L2, PX, dys, dyc);
            __mmask8 j2 = stamp_in(G, hit, R2, PX, dys, dyc), j3 = stamp_in(G, hit, R3, PX, dys, dyc);
            __m512d na = _mm512_mask_mov_pd(L2, i1, L1), nb = _mm512_mask_mov_pd(R3, j2, R2);
            __mmask8 mL = i1 | i2, mR = j2 | j3;
            na = _mm512_mask_mov_pd(na, _mm512_cmp_pd_mask(lo, _mm512_set1_pd(-4.0), _CMP_LT_OQ), ZERO);
            nb = _mm512_mask_mov_pd(nb, _mm512_cmp_pd_mask(hi, _mm512_set1_pd((double)(w + 2)), _CMP_GT_OQ),
                                    _mm512_set1_pd((double)(w - 1)));
            na = _mm512_max_pd(na, ZERO);
            nb = _mm512_min_pd(nb, _mm512_set1_pd((double)(w - 1)));
            __mmask8 good = hit & mL & mR;
            __mmask8 run = good & _mm512_cmp_pd_mask(na, nb, _CMP_LE_OQ);
            /* all four outside and nothing untested between them */
            __mmask8 none = hit & (__mmask8)~(mL | mR) &
                            _mm512_cmp_pd_mask(_mm512_sub_pd(Rf, Lf), _mm512_set1_pd(6.0), _CMP_LE_OQ);
            slow = hit & (__mmask8)~(good | none);
            if (run) {
                __m256i row = _mm256_add_epi32(_mm256_set1_epi32(j), LANE);
                __m256i ia = _mm256_add_epi32(
                    _mm256_slli_epi32(_mm512_cvtpd_epi32(na), STAMP_SHIFT), row);
                __m256i ib = _mm256_add_epi32(
                    _mm256_slli_epi32(_mm512_cvtpd_epi32(_mm512_add_pd(nb, ONE)), STAMP_SHIFT), row);
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
                    double dx = px - (G->xmin + ((G->x0 + n) + 0.5) * G->cwx);
                    double rx = dx * G->k.c + ys[l], ry = yc[l] - dx * G->k.s;
                    if (!(G->k.A * rx * rx + G->k.B * ry * ry <= G->k.C))
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
stamp_tile(const gk_bucket_grid *g, const gk_ellipse *e, const gk_grid *grid, int x0, int y0,
           int w, int h, const int what, double *buf, double *n_out, double *sum_out)
{
    const size_t cs = (size_t)(w + 1) * STAMP_H;
    double *cd = (double *)(((uintptr_t)buf + 63) & ~(uintptr_t)63);
    double *hd = cd + cs, *ld = hd + cs, *nyt = ld + cs, *mt = nyt + STAMP_H + 8;
    stamp_geo G;
    ell_consts(e, &G.k);
    gk_nb_ellipse_box(e, &G.hx, &G.hy);
    const double c = G.k.c, s = G.k.s, r1s = e->r1 * e->r1, r2s = e->r2 * e->r2;
    G.tight = fmin(e->r1, e->r2) >= 1e-3 * e->rmax;
    G.a = c * c / r1s + s * s / r2s;
    G.h = c * s * (1.0 / r1s - 1.0 / r2s);
    G.t = c * s * (r1s - r2s) / sqrt(r1s * c * c + r2s * s * s);
    G.det = 1.0 / (r1s * r2s);
    G.sym = G.t == 0.0; /* then yl == yr: one square root */
    G.cw = (grid->xmax - grid->xmin) / grid->nx;
    G.cwx = (grid->xmax - grid->xmin) / grid->nx;
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
        G.fast = G.tight && sweep_flat(e, G.cw) && mmax < 0.25 * G.cw;
        memset(cd, 0, cs * sizeof *cd);
        if (what == GK_BG_SUM_Z) {
            memset(hd, 0, cs * sizeof *hd);
            memset(ld, 0, cs * sizeof *ld);
        }
        const double ylo = nyt[hs - 1] - G.hy - mmax, yhi = nyt[0] + G.hy + mmax;
        const double xlo = xa - G.hx - mmax, xhi = xb + G.hx + mmax;
        int r0 = bg_row(g, ylo), r1 = bg_row(g, yhi), c0 = bg_col(g, xlo), c1 = bg_col(g, xhi);
        r0 = r0 < 0 ? 0 : r0;
        r1 = r1 >= g->nby ? g->nby - 1 : r1;
        c0 = c0 < 0 ? 0 : c0;
        c1 = c1 >= g->nbx ? g->nbx - 1 : c1;
        const double span = (G.hy + mmax) / fabs(dyn) + 1e-3;
        const __m512d YLO = _mm512_set1_pd(ylo), YHI = _mm512_set1_pd(yhi);
        const __m512d XLO = _mm512_set1_pd(xlo), XHI = _mm512_set1_pd(xhi);
        for (int r = r0; r <= r1 && c0 <= c1; r++) {
            const int *st = g->start + (size_t)r * (size_t)g->nbx;
            const int i1 = st[c1 + 1];
            for (int i = st[c0]; i < i1; i += 8) {
                __mmask8 v = i1 - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (i1 - i)) - 1);
                __m512d Y = _mm512_maskz_loadu_pd(v, g->y + i), X = _mm512_maskz_loadu_pd(v, g->x + i);
                v &= _mm512_cmp_pd_mask(Y, YLO, _CMP_GE_OQ) & _mm512_cmp_pd_mask(Y, YHI, _CMP_LE_OQ) &
                     _mm512_cmp_pd_mask(X, XLO, _CMP_GE_OQ) & _mm512_cmp_pd_mask(X, XHI, _CMP_LE_OQ);
                for (unsigned bits = v; bits; bits &= bits - 1) {
                    const int l = __builtin_ctz(bits);
                    const double py = g->y[i + l], tj = (py - nyt[0]) / dyn;
                    int jlo = (int)floor(tj - span), jhi = (int)ceil(tj + span);
                    jlo = jlo < 0 ? 0 : jlo;
                    jhi = jhi > hs - 1 ? hs - 1 : jhi;
                    if (jlo <= jhi)
                        stamp_point(&G, nyt, mt, jlo, jhi, g->x[i + l], py, g->z[i + l], what, cd,
                                    hd, ld);
                }
            }
        }
        /* the running sums, 8 rows at a time, into the tile's row-major arrays */
        for (int rb = 0; rb < hs; rb += 8) {
            __mmask8 m = hs - rb >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (hs - rb)) - 1);
            __m256i oi = _mm256_mullo_epi32(
                _mm256_add_epi32(_mm256_set1_epi32(ys + rb), _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0)),
                _mm256_set1_epi32(w));
            __m512d C = _mm512_setzero_pd(), SH = _mm512_setzero_pd(), SL = _mm512_setzero_pd();
            for (int n = 0; n < w; n++) {
                const size_t o = (size_t)n * STAMP_H + rb;
                C = _mm512_add_pd(C, _mm512_load_pd(cd + o));
                _mm512_mask_i32scatter_pd(n_out, m, oi, C, 8);
                if (what == GK_BG_SUM_Z) {
                    __m512d dh = _mm512_load_pd(hd + o), dl = _mm512_load_pd(ld + o);
                    __m512d s1 = _mm512_add_pd(SH, dh), bb = _mm512_sub_pd(s1, SH);
                    __m512d err = _mm512_add_pd(_mm512_sub_pd(SH, _mm512_sub_pd(s1, bb)),
                                                _mm512_sub_pd(dh, bb));
                    err = _mm512_add_pd(err, _mm512_add_pd(SL, dl));
                    SH = _mm512_add_pd(s1, err);
                    SL = _mm512_sub_pd(err, _mm512_sub_pd(SH, s1));
                    _mm512_mask_i32scatter_pd(sum_out, m, oi, SH, 8);
                }
                oi = _mm256_add_epi32(oi, _mm256_set1_epi32(1));
            }
        }
    }
}

__attribute__((target("avx512f,avx512vl"))) static void stamp_count(const gk_bucket_grid *g, const gk_ellipse *e,
                                                           const gk_grid *grid, int x0, int y0, int w,
                                                           int h, double *buf, double *n, double *sum)
{
    stamp_tile(g, e, grid, x0, y0, w, h, GK_BG_COUNT, buf, n, sum);
}
__attribute__((target("avx512f,avx512vl"))) static void stamp_sum(const gk_bucket_grid *g, const gk_ellipse *e,
                                                         const gk_grid *grid, int x0, int y0, int w,
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
