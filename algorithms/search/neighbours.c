/* SPDX-License-Identifier: MIT */
/* neighbours.c - neighbourhood selection shared by the search-based algorithms. */
#include "neighbours.h"

#include <math.h>

void gk_nb_ellipse_box(const gk_ellipse *e, double *hx, double *hy)
{
    if (e->r1 == 0.0 || e->r2 == 0.0) {
        /* degenerate ellipse: gdal_grid's test accepts the whole axis line */
        *hx = INFINITY;
        *hy = INFINITY;
        return;
    }
    double c = e->cos_a, s = e->sin_a;
    double a = e->r1 * e->r1, b = e->r2 * e->r2;
    *hx = sqrt(a * c * c + b * s * s) * (1.0 + 1e-9);
    *hy = sqrt(a * s * s + b * c * c) * (1.0 + 1e-9);
}

/* Runs a tree query, growing the scratch and asking again when it overflowed. */
#define GATHER(call)                                                                               \
    do {                                                                                           \
        size_t m_ = (call);                                                                        \
        if (m_ > s->cap) {                                                                         \
            if (gk_scratch_reserve(s, m_ + m_ / 4) != GK_OK)                                       \
                return GK_NB_NOMEM;                                                                \
            m_ = (call);                                                                           \
        }                                                                                          \
        n = m_;                                                                                    \
    } while (0)

long gk_nb_ellipse(const gk_job *job, double nx, double ny, gk_scratch *s)
{
    const gk_ellipse *e = &job->ell;
    size_t n;
    if (e->all) {
        size_t np = job->pts->n;
        if (np > s->cap && gk_scratch_reserve(s, np) != GK_OK)
            return GK_NB_NOMEM;
        const double *x = job->pts->x, *y = job->pts->y;
        for (size_t i = 0; i < np; i++) {
            double dx = x[i] - nx, dy = y[i] - ny;
            s->idx[i] = (int)i;
            s->d2[i] = dx * dx + dy * dy;
        }
        return (long)np;
    }
    double hx, hy;
    gk_nb_ellipse_box(e, &hx, &hy);
    GATHER(gk_kdtree_box(job->tree, nx, ny, hx, hy, s->idx, s->d2, s->cap));
    /* keep the points the exact ellipse test accepts */
    const double *x = job->pts->x, *y = job->pts->y;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        int id = s->idx[i];
        if (gk_ellipse_contains(e, x[id] - nx, y[id] - ny)) {
            s->idx[m] = id;
            s->d2[m] = s->d2[i];
            m++;
        }
    }
    return (long)m;
}

long gk_nb_circle(const gk_job *job, double nx, double ny, double r2, gk_scratch *s)
{
    size_t n;
    GATHER(gk_kdtree_radius(job->tree, nx, ny, r2, s->idx, s->d2, s->cap));
    return (long)n;
}

/* ---- ordering by (d2, idx) -------------------------------------------------- */

static inline int before(double da, int ia, double db, int ib)
{
    return da < db || (da == db && ia < ib);
}

static inline void swap2(int *idx, double *d2, size_t a, size_t b)
{
    int ti = idx[a];
    idx[a] = idx[b];
    idx[b] = ti;
    double td = d2[a];
    d2[a] = d2[b];
    d2[b] = td;
}

static void insertion_sort(int *idx, double *d2, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        int id = idx[i];
        double d = d2[i];
        size_t j = i;
        while (j > 0 && before(d, id, d2[j - 1], idx[j - 1])) {
            idx[j] = idx[j - 1];
            d2[j] = d2[j - 1];
            j--;
        }
        idx[j] = id;
        d2[j] = d;
    }
}

/* Hoare-style partition around the median of three; keys are unique (the
 * index breaks ties), so the pivot ends at its final place. */
static size_t partition(int *idx, double *d2, size_t lo, size_t hi)
{
    size_t mid = lo + (hi - lo) / 2, last = hi - 1;
    if (before(d2[mid], idx[mid], d2[lo], idx[lo]))
        swap2(idx, d2, mid, lo);
    if (before(d2[last], idx[last], d2[lo], idx[lo]))
        swap2(idx, d2, last, lo);
    if (before(d2[last], idx[last], d2[mid], idx[mid]))
        swap2(idx, d2, last, mid);
    /* pivot (median) to last */
    swap2(idx, d2, mid, last);
    double pd = d2[last];
    int pi = idx[last];
    size_t store = lo;
    for (size_t i = lo; i < last; i++) {
        if (before(d2[i], idx[i], pd, pi)) {
            swap2(idx, d2, i, store);
            store++;
        }
    }
    swap2(idx, d2, store, last);
    return store;
}

static void quick_sort(int *idx, double *d2, size_t lo, size_t hi, int depth)
{
    while (hi - lo > 24) {
        if (depth-- == 0) {
            /* pathological pivots (not expected): finish by insertion */
            insertion_sort(idx + lo, d2 + lo, hi - lo);
            return;
        }
        size_t p = partition(idx, d2, lo, hi);
        /* recurse into the smaller side */
        if (p - lo < hi - p - 1) {
            quick_sort(idx, d2, lo, p, depth);
            lo = p + 1;
        } else {
            quick_sort(idx, d2, p + 1, hi, depth);
            hi = p;
        }
    }
    insertion_sort(idx + lo, d2 + lo, hi - lo);
}

void gk_nb_sort(int *idx, double *d2, size_t n)
{
    if (n > 1)
        quick_sort(idx, d2, 0, n, 64);
}

size_t gk_nb_nearest(int *idx, double *d2, size_t n, size_t k)
{
    if (k == 0 || k >= n) {
        gk_nb_sort(idx, d2, n);
        return n;
    }
    /* quickselect the k smallest to the front, then sort them */
    size_t lo = 0, hi = n;
    while (hi - lo > 24) {
        size_t p = partition(idx, d2, lo, hi);
        if (p == k)
            break;
        if (p < k)
            lo = p + 1;
        else
            hi = p;
    }
    if (hi - lo <= 24 && lo < k)
        insertion_sort(idx + lo, d2 + lo, hi - lo);
    gk_nb_sort(idx, d2, k);
    return k;
}

int gk_nb_first_hit(const int *idx, const double *d2, size_t n, double s2, double hit2)
{
    int best = -1;
    for (size_t i = 0; i < n; i++)
        if (d2[i] + s2 < hit2 && (best < 0 || idx[i] < best))
            best = idx[i];
    return best;
}

int gk_nb_hit_sorted(const gk_job *job, const gk_ellipse *ell, double nx, double ny, const int *idx,
                     const double *d2, int m, int k, double s2, double hit2, gk_scratch *s)
{
    if (m <= 0 || !(d2[0] + s2 < hit2))
        return -1; /* the nearest is no hit: none is */
    int best = -1, h = 0;
    while (h < m && d2[h] + s2 < hit2) {
        if (best < 0 || idx[h] < best)
            best = idx[h];
        h++;
    }
    if (h < k)
        return best; /* every hit is in the answer */
    /* k hits: there may be more, with smaller indices (the lookup sees
     * those k as well) */
    return gk_nb_window_hit(job, ell, nx, ny, INFINITY, s2, hit2, s);
}

/* ---- per-quadrant round robin ------------------------------------------------ */

/* The round robin over the quadrants' sorted lists qi/qd[start[q] ..
 * start[q] + cnt[q]): q0, q1, q2, q3, q0, ..., a quadrant skipped when
 * exhausted or at perq, until limit; written to idx/d2 in the order taken.
 * -1 when a quadrant gave fewer than min_per_q. */
static long round_robin(const int *qi, const double *qd, const size_t start[4], const size_t cnt[4],
                        size_t limit, size_t perq, int min_per_q, int *idx, double *d2)
{
    size_t taken[4] = {0, 0, 0, 0};
    size_t m = 0;
    while (m < limit) {
        int progressed = 0;
        for (int q = 0; q < 4 && m < limit; q++) {
            if (taken[q] >= cnt[q] || taken[q] >= perq)
                continue;
            size_t j = start[q] + taken[q];
            idx[m] = qi[j];
            d2[m] = qd[j];
            m++;
            taken[q]++;
            progressed = 1;
        }
        if (!progressed)
            break;
    }
    if (min_per_q > 0)
        for (int q = 0; q < 4; q++)
            if (taken[q] < (size_t)min_per_q)
                return -1;
    return (long)m;
}

long gk_nb_quadrants(const gk_job *job, double nx, double ny, int *idx, double *d2, size_t n,
                     int max_points, int min_per_q, int max_per_q, gk_scratch *s)
{
    if (n > s->cap2 && gk_scratch_reserve2(s, n) != GK_OK)
        return GK_NB_NOMEM;
    const double *x = job->pts->x, *y = job->pts->y;
    size_t cnt[4] = {0, 0, 0, 0};
    unsigned char q_of_small[256];
    /* quadrant per candidate; recomputed in the scatter pass when n is large */
    for (size_t i = 0; i < n; i++) {
        int id = idx[i];
        int q = (x[id] - nx >= 0.0) | ((y[id] - ny >= 0.0) << 1);
        if (i < sizeof q_of_small)
            q_of_small[i] = (unsigned char)q;
        cnt[q]++;
    }
    size_t start[4], pos[4];
    start[0] = 0;
    for (int q = 1; q < 4; q++)
        start[q] = start[q - 1] + cnt[q - 1];
    for (int q = 0; q < 4; q++)
        pos[q] = start[q];
    for (size_t i = 0; i < n; i++) {
        int id = idx[i];
        int q = i < sizeof q_of_small ? q_of_small[i]
                                      : ((x[id] - nx >= 0.0) | ((y[id] - ny >= 0.0) << 1));
        s->idx2[pos[q]] = id;
        s->d2b[pos[q]] = d2[i];
        pos[q]++;
    }
    size_t limit = max_points > 0 ? (size_t)max_points : (size_t)-1;
    size_t perq = max_per_q > 0 ? (size_t)max_per_q : (size_t)-1;
    /* a quadrant gives at most `keep`: only its keep nearest need their
     * order (selected, then sorted: the same prefix as a full sort, the
     * order being total), which with a wide window is most of the work */
    size_t keep = perq < limit ? perq : limit;
    for (int q = 0; q < 4; q++)
        gk_nb_nearest(s->idx2 + start[q], s->d2b + start[q], cnt[q], keep < cnt[q] ? keep : 0);
    return round_robin(s->idx2, s->d2b, start, cnt, limit, perq, min_per_q, idx, d2);
}

static int in_ellipse(const void *e, double dx, double dy)
{
    return gk_ellipse_contains(e, dx, dy);
}

long gk_nb_quadrants_knn(const gk_job *job, double nx, double ny, double r2, const gk_ellipse *ell,
                         int max_points, int min_per_q, int max_per_q, gk_scratch *s)
{
    size_t limit = max_points > 0 ? (size_t)max_points : (size_t)-1;
    size_t perq = max_per_q > 0 ? (size_t)max_per_q : (size_t)-1;
    size_t keep = perq < limit ? perq : limit;
    if (keep > (size_t)1 << 24)
        return GK_NB_NOMEM; /* no bound: gk_nb_quadrants' case */
    size_t out = 4 * keep < limit ? 4 * keep : limit;
    if ((4 * keep > s->cap2 && gk_scratch_reserve2(s, 4 * keep) != GK_OK) ||
        (out > s->cap && gk_scratch_reserve(s, out) != GK_OK))
        return GK_NB_NOMEM;
    size_t start[4], cnt[4];
    for (int q = 0; q < 4; q++) {
        start[q] = (size_t)q * keep;
        cnt[q] =
            (size_t)gk_kdtree_knn_quadrant(job->tree, nx, ny, q, ell ? in_ellipse : NULL, ell,
                                           (int)keep, r2, s->idx2 + start[q], s->d2b + start[q]);
    }
    return round_robin(s->idx2, s->d2b, start, cnt, limit, perq, min_per_q, s->idx, s->d2);
}

int gk_nb_quadrants_bounded(const gk_algorithm *a, int honours_max)
{
    /* the k-d tree's lists win while they are short: with ~310 points a
     * quadrant (1 M points, radius 200 in 10 km), 0.07 s against 0.70 s
     * gathered at 16 a quadrant, 0.41 s at 128, 0.75 s at 256, 0.93 s at 512 */
    const int maxp = honours_max ? a->max_points : 0, perq = a->max_points_per_quadrant;
    const int keep = perq > 0 && (maxp <= 0 || perq < maxp) ? perq : maxp;
    return gk_nb_has_quadrants(a) && keep > 0 && keep <= 128;
}

long gk_nb_ellipse_quadrants(const gk_job *job, double nx, double ny, int honours_max,
                             gk_scratch *s)
{
    const gk_algorithm *a = &job->alg;
    const gk_ellipse *e = &job->ell;
    const int maxp = honours_max ? a->max_points : 0;
    if (e->all || !(e->r1 > 0.0) || !(e->r2 > 0.0) || !gk_nb_quadrants_bounded(a, honours_max)) {
        long n = gk_nb_ellipse(job, nx, ny, s);
        if (n < 0)
            return n;
        return gk_nb_quadrants(job, nx, ny, s->idx, s->d2, (size_t)n, maxp,
                               a->min_points_per_quadrant, a->max_points_per_quadrant, s);
    }
    /* the disc around the ellipse, a little larger: the exact test decides */
    double r = e->r1 > e->r2 ? e->r1 : e->r2;
    return gk_nb_quadrants_knn(job, nx, ny, r * r * (1.0 + 1e-9), e, maxp,
                               a->min_points_per_quadrant, a->max_points_per_quadrant, s);
}

int gk_nb_window_hit(const gk_job *job, const gk_ellipse *ell, double nx, double ny, double r2,
                     double s2, double hit2, gk_scratch *s)
{
    if (!(s2 < hit2))
        return -1; /* d2 + s2 >= s2: no point is a hit */
    for (;;) {     /* d2 + s2 < hit2 implies d2 < hit2 */
        size_t got = gk_kdtree_radius(job->tree, nx, ny, hit2, s->idx2, s->d2b, s->cap2);
        if (got > s->cap2) {
            if (gk_scratch_reserve2(s, got) != GK_OK)
                return (int)GK_NB_NOMEM;
            continue;
        }
        const double *x = job->pts->x, *y = job->pts->y;
        int best = -1;
        for (size_t i = 0; i < got; i++) {
            int id = s->idx2[i];
            if (s->d2b[i] <= r2 && s->d2b[i] + s2 < hit2 && (best < 0 || id < best) &&
                (!ell || gk_ellipse_contains(ell, x[id] - nx, y[id] - ny)))
                best = id;
        }
        return best;
    }
}

uint64_t gk_nb_run_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s,
                        gk_node_fn fn)
{
    uint64_t nodata = 0;
    double nd = job->alg.nodata;
    for (int j = 0; j < t->h; j++) {
        double ny = gk_grid_node_y(t->g, t->y0 + j);
        double *row = out + (size_t)j * t->w;
        for (int i = 0; i < t->w; i++) {
            double nx = gk_grid_node_x(t->g, t->x0 + i), v;
            int r = fn(job, nx, ny, t->hit2, s, &v);
            if (r > 0) {
                row[i] = v;
            } else if (r == 0) {
                row[i] = nd;
                nodata++;
            } else {
                return UINT64_MAX;
            }
        }
    }
    return nodata;
}
