/* SPDX-License-Identifier: MIT */
/* search/knn_bins.c - k nearest points from a uniform bin grid (knn_bins.h). */
#include "knn_bins.h"

#include "core/quadtree_split.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct gk_knn_bins {
    size_t n;
    int nbx, nby;
    double x0, y0, x1, y1; /* the points' extent */
    double bs, ibs;        /* a bin's side, and its inverse */
    double margin;         /* how far rounding may put a point outside its bin */
    int *start;            /* nbx * nby + 1: bin (i, j) at j * nbx + i */
    double *xy;            /* the points by bin, x and y side by side */
    int *id;               /* their input indices */
    const double *px, *py; /* the points as given */
};

#define KB_PAR ((size_t)1 << 15)
#define KB_PPB 2.0 /* points a bin: k = 16 over 4M points took 8% longer at 4, 35% at 8 */
#define KB_CHUNKS 64

static int bin_of(double v, double g0, double ib, int nb)
{
    double f = floor((v - g0) * ib);
    if (!(f >= 0.0))
        return 0;
    if (f >= (double)(nb - 1))
        return nb - 1;
    return (int)f;
}

void gk_knn_bins_free(gk_knn_bins *b)
{
    if (!b)
        return;
    free(b->start), free(b->xy), free(b->id);
    free(b);
}

/* The points by bin row in fixed chunks (rows are few: their counts per
 * chunk are small), then each row by bin on its own, the rows side by
 * side: a bin's points in input order, whatever the threads. */
gk_knn_bins *gk_knn_bins_build(const double *x, const double *y, size_t n, int threads)
{
    gk_knn_bins *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    const int nt = threads > 0 ? threads : omp_get_num_procs();
    const int par = n >= KB_PAR && nt > 1;
    double x0 = n ? x[0] : 0, y0 = n ? y[0] : 0, x1 = x0, y1 = y0;
#pragma omp parallel for if (par) num_threads(nt) reduction(min : x0, y0) reduction(max : x1, y1)
    for (size_t i = 0; i < n; i++) {
        x0 = x[i] < x0 ? x[i] : x0, x1 = x[i] > x1 ? x[i] : x1;
        y0 = y[i] < y0 ? y[i] : y0, y1 = y[i] > y1 ? y[i] : y1;
    }
    /* about KB_PPB points a bin; no more than about 4 n bins */
    const double W = x1 - x0, H = y1 - y0, cap = 4.0 * (double)n + 16.0;
    double bs = sqrt(fmax(W, 1e-300) * fmax(H, 1e-300) * KB_PPB / (double)(n ? n : 1));
    if (!(W > 0) || !(H > 0))
        bs = fmax(W, H) * KB_PPB / (double)(n ? n : 1);
    int nbx = 1, nby = 1;
    if (bs > 0 && isfinite(bs)) {
        while ((ceil(W / bs) + 1.0) * (ceil(H / bs) + 1.0) > cap || W / bs > 32767.0 ||
               H / bs > 32767.0)
            bs *= 1.5;
        nbx = (int)fmax(1.0, ceil(W / bs));
        nby = (int)fmax(1.0, ceil(H / bs));
    } else {
        bs = 1.0;
    }
    b->n = n, b->nbx = nbx, b->nby = nby;
    b->px = x, b->py = y;
    b->x0 = x0, b->y0 = y0, b->x1 = x1, b->y1 = y1;
    b->bs = bs, b->ibs = 1.0 / bs;
    b->margin = 1e-9 * bs + 1e-14 * (fabs(x0) + fabs(y0) + fabs(x1) + fabs(y1));
    const size_t nbins = (size_t)nbx * nby;
    b->start = calloc(nbins + 1, sizeof *b->start);
    b->xy = malloc((n ? n : 1) * 2 * sizeof *b->xy);
    b->id = malloc((n ? n : 1) * sizeof *b->id);
    int *row = malloc((n ? n : 1) * sizeof *row);
    int *rid = malloc((n ? n : 1) * sizeof *rid); /* the points by row */
    size_t *rc = calloc((size_t)KB_CHUNKS * nby, sizeof *rc);
    size_t *rstart = calloc((size_t)nby + 1, sizeof *rstart);
    if (!b->start || !b->xy || !b->id || !row || !rid || !rc || !rstart) {
        free(row), free(rid), free(rc), free(rstart);
        gk_knn_bins_free(b);
        return NULL;
    }
#pragma omp parallel for if (par) num_threads(nt) schedule(static)
    for (int t = 0; t < KB_CHUNKS; t++) {
        const size_t lo = n * (size_t)t / KB_CHUNKS, hi = n * (size_t)(t + 1) / KB_CHUNKS;
        size_t *c = rc + (size_t)t * nby;
        for (size_t i = lo; i < hi; i++)
            c[row[i] = bin_of(y[i], y0, b->ibs, nby)]++;
    }
    size_t at = 0;
    for (int r = 0; r < nby; r++) {
        rstart[r] = at;
        for (int t = 0; t < KB_CHUNKS; t++) {
            size_t m = rc[(size_t)t * nby + r];
            rc[(size_t)t * nby + r] = at;
            at += m;
        }
    }
    rstart[nby] = at;
#pragma omp parallel for if (par) num_threads(nt) schedule(static)
    for (int t = 0; t < KB_CHUNKS; t++) {
        const size_t lo = n * (size_t)t / KB_CHUNKS, hi = n * (size_t)(t + 1) / KB_CHUNKS;
        size_t *c = rc + (size_t)t * nby;
        for (size_t i = lo; i < hi; i++)
            rid[c[row[i]]++] = (int)i;
    }
    int failed = 0;
#pragma omp parallel if (par) num_threads(nt) reduction(| : failed)
    {
        size_t *cnt = malloc(((size_t)nbx + 1) * sizeof *cnt);
        failed = !cnt;
#pragma omp for schedule(dynamic, 16)
        for (int r = 0; r < nby; r++) {
            if (failed)
                continue;
            const size_t lo = rstart[r], hi = rstart[r + 1];
            memset(cnt, 0, (size_t)nbx * sizeof *cnt);
            for (size_t q = lo; q < hi; q++)
                cnt[bin_of(x[rid[q]], x0, b->ibs, nbx)]++;
            size_t a = lo;
            for (int c = 0; c < nbx; c++) {
                size_t m = cnt[c];
                b->start[(size_t)r * nbx + c] = (int)a;
                cnt[c] = a;
                a += m;
            }
            for (size_t q = lo; q < hi; q++) {
                const int i = rid[q];
                const size_t p = cnt[bin_of(x[i], x0, b->ibs, nbx)]++;
                b->xy[2 * p] = x[i], b->xy[2 * p + 1] = y[i], b->id[p] = i;
            }
        }
        free(cnt);
    }
    b->start[nbins] = (int)n;
    free(row), free(rid), free(rc), free(rstart);
    if (failed) {
        gk_knn_bins_free(b);
        return NULL;
    }
    return b;
}

/* the points [p0, p1) into the k best, ascending (cnt so far) */
static void visit(const gk_knn_bins *b, int p0, int p1, double cx, double cy, int k, double r2max,
                  int *cnt, int *idx, double *d2)
{
    int m = *cnt;
    for (int p = p0; p < p1; p++) {
        const double dx = b->xy[2 * p] - cx, dy = b->xy[2 * p + 1] - cy, e = dx * dx + dy * dy;
        if (e > r2max || (m == k && !(e < d2[k - 1])))
            continue;
        int j = m < k ? m++ : k - 1;
        while (j > 0 && d2[j - 1] > e) {
            d2[j] = d2[j - 1], idx[j] = idx[j - 1];
            j--;
        }
        d2[j] = e, idx[j] = b->id[p];
    }
    *cnt = m;
}

/* The squared distance to points beyond a side at least d away (clamped at
 * 0) and o away along the other axis. Squared, not hypot(): hypot's care
 * for overflow made invdistnn 7-15% slower, and the 1e-12 margin the
 * caller takes covers the few ulps of this sum. */
static inline double side2(double d, double o)
{
    d = fmax(d, 0.0);
    return d * d + o * o;
}

int gk_knn_bins_knn(const gk_knn_bins *b, double cx, double cy, int k, double r2max, int *idx,
                    double *d2)
{
    if (k <= 0 || b->n == 0)
        return 0;
    const int nbx = b->nbx, nby = b->nby;
    const int bx = bin_of(cx, b->x0, b->ibs, nbx), by = bin_of(cy, b->y0, b->ibs, nby);
    /* every point is at least this far: the distance to the points' box */
    const double gx = fmax(fmax(b->x0 - cx, cx - b->x1), 0.0);
    const double gy = fmax(fmax(b->y0 - cy, cy - b->y1), 0.0);
    const double g = sqrt(gx * gx + gy * gy) * (1.0 - 1e-12);
    if (g * g > r2max)
        return 0;
    int cnt = 0;
    for (int r = 0;; r++) {
        /* ring r: its bottom and top rows whole, then the side bins */
        const int xa = bx - r < 0 ? 0 : bx - r, xb = bx + r >= nbx ? nbx - 1 : bx + r;
        for (int s = 0; s < (r ? 2 : 1); s++) {
            const int yy = s ? by + r : by - r;
            if (yy >= 0 && yy < nby)
                visit(b, b->start[(size_t)yy * nbx + xa], b->start[(size_t)yy * nbx + xb + 1], cx,
                      cy, k, r2max, &cnt, idx, d2);
        }
        if (r > 0)
            for (int yy = by - r + 1 < 0 ? 0 : by - r + 1; yy <= by + r - 1 && yy < nby; yy++)
                for (int s = 0; s < 2; s++) {
                    const int xx = s ? bx + r : bx - r;
                    if (xx >= 0 && xx < nbx)
                        visit(b, b->start[(size_t)yy * nbx + xx],
                              b->start[(size_t)yy * nbx + xx + 1], cx, cy, k, r2max, &cnt, idx, d2);
                }
        /* the points not visited lie in bins beyond one side of the ring;
         * off the points' extent, also that far from it along the other
         * axis, so that a node off the extent stops as soon as one near it
         * does */
        const double m = b->margin;
        const double dl = bx - r > 0 ? cx - (b->x0 + (bx - r) * b->bs) - m : INFINITY;
        const double dr = bx + r < nbx - 1 ? (b->x0 + (bx + r + 1) * b->bs) - cx - m : INFINITY;
        const double db = by - r > 0 ? cy - (b->y0 + (by - r) * b->bs) - m : INFINITY;
        const double dt = by + r < nby - 1 ? (b->y0 + (by + r + 1) * b->bs) - cy - m : INFINITY;
        double lb2;
        if (gx == 0.0 && gy == 0.0) { /* inside: the nearest side alone */
            const double d = fmax(fmin(fmin(dl, dr), fmin(db, dt)), 0.0);
            lb2 = d * d;
        } else {
            lb2 = fmin(fmin(side2(dl, gy), side2(dr, gy)), fmin(side2(db, gx), side2(dt, gx)));
        }
        if (lb2 == INFINITY)
            break; /* every bin visited */
        lb2 = fmax(lb2 * (1.0 - 2e-12), g * g);
        if (lb2 > r2max || (cnt == k && lb2 > d2[k - 1]))
            break;
    }
    return cnt;
}

/* ---- gdal_grid's order of two points -------------------------------------- */

/* the tree's levels at most (boxes halve ~60 times an axis from 1e4 to 1 ulp) */
#define KB_MAX_DEPTH 2048
#define KB_BUDGET (1L << 17) /* bins and points looked at for one comparison */

typedef struct {
    qt_cuts k;
    unsigned char c; /* the quarter taken */
} kb_step;

/* does (x, y) take the path? */
static int on_path(const kb_step *path, int depth, double x, double y)
{
    for (int l = 0; l < depth; l++)
        if (qt_quarter(&path[l].k, x, y) != path[l].c)
            return 0;
    return 1;
}

/* More than QT_CAPACITY points take the path to the node of box? 1 or 0;
 * -1 once the budget is spent. The node's points lie in its box; the bins
 * one wider than the box's take any that rounding put next door. */
static int count_in(const gk_knn_bins *b, const qt_box *box, const kb_step *path, int depth, int i0,
                    int i1, int j0, int j1, long *budget)
{
    i0 = i0 < 0 ? 0 : i0, j0 = j0 < 0 ? 0 : j0;
    i1 = i1 >= b->nbx ? b->nbx - 1 : i1, j1 = j1 >= b->nby ? b->nby - 1 : j1;
    int cnt = 0;
    for (int j = j0; j <= j1; j++) {
        const int p0 = b->start[(size_t)j * b->nbx + i0],
                  p1 = b->start[(size_t)j * b->nbx + i1 + 1];
        *budget -= (i1 - i0 + 1) + (p1 - p0);
        if (*budget < 0)
            return -1;
        for (int p = p0; p < p1; p++) {
            const double x = b->xy[2 * p], y = b->xy[2 * p + 1];
            if (qt_holds(box, x, y) && on_path(path, depth, x, y) && ++cnt > QT_CAPACITY)
                return 1;
        }
    }
    return 0;
}

static int more_than_capacity(const gk_knn_bins *b, const qt_box *box, const kb_step *path,
                              int depth, long *budget)
{
    const int i0 = bin_of(box->minx, b->x0, b->ibs, b->nbx) - 1;
    const int i1 = bin_of(box->maxx, b->x0, b->ibs, b->nbx) + 1;
    const int j0 = bin_of(box->miny, b->y0, b->ibs, b->nby) - 1;
    const int j1 = bin_of(box->maxy, b->y0, b->ibs, b->nby) + 1;
    /* first the bins about the box's centre, which the node's own region
     * holds (its edges may lie where a sibling takes the points): a large
     * node shows its 9 points there */
    const int ic = (i0 + i1) / 2, jc = (j0 + j1) / 2;
    if (i1 - i0 > 6 || j1 - j0 > 6) {
        int c = count_in(b, box, path, depth, ic - 2, ic + 2, jc - 2, jc + 2, budget);
        if (c)
            return c;
    }
    return count_in(b, box, path, depth, i0, i1, j0, j1, budget);
}

static int rank5(unsigned char c) { return c == 4 ? 0 : c + 1; }

int gk_knn_bins_before(const gk_knn_bins *b, int i, int j)
{
    const double xi = b->px[i], yi = b->py[i], xj = b->px[j], yj = b->py[j];
    kb_step *path = malloc(64 * sizeof *path);
    int cap = 64, rc = -1;
    long budget = KB_BUDGET;
    qt_box box = {b->x0, b->y0, b->x1, b->y1}; /* the root: the points' box */
    for (int d = 0; path && d < KB_MAX_DEPTH; d++) {
        const int splits =
            d == 0 ? b->n > QT_CAPACITY : more_than_capacity(b, &box, path, d, &budget);
        if (splits < 0)
            break;
        if (d == cap) {
            kb_step *np = realloc(path, 2 * (size_t)cap * sizeof *path);
            if (!np)
                break;
            path = np, cap *= 2;
        }
        kb_step *st = &path[d];
        if (!splits || !qt_quarters(&box, &st->k)) { /* a leaf: input order */
            rc = i < j;
            break;
        }
        const unsigned char ci = qt_quarter(&st->k, xi, yi), cj = qt_quarter(&st->k, xj, yj);
        if (ci != cj) { /* a node lists its own points, then its quarters in order */
            rc = rank5(ci) < rank5(cj);
            break;
        }
        if (ci == 4) { /* both the node's own points (cannot happen to points) */
            rc = i < j;
            break;
        }
        st->c = ci;
        box = st->k.q[ci];
    }
    free(path);
    return rc;
}
