/* SPDX-License-Identifier: MIT */
/* test_search.c - the k-d tree against brute force (k nearest, radius,
 * pinwheel quadrants), the neighbour sorting and quadrant selection, and the
 * bucket grid's window statistics against every point (part of
 * test_algorithms). */
#include "core/algo_harness.h"
#include "core/quadtree_order.h"
#include "search/kdtree.h"
#include "search/knn_bins.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- k-d tree tests ------------------------------------------------------------ */

/* gstat's pinwheel quadrant of (dx, dy) (select.c): points on an axis go to
 * one quadrant each way round */
static int pinwheel(double dx, double dy)
{
    int x = dy < 0 ? dx > 0 : dx >= 0;
    int y = dx < 0 ? dy >= 0 : dy > 0;
    return x | (y << 1);
}

static int keep_pinwheel(const void *q, double dx, double dy)
{
    return pinwheel(dx, dy) == *(const int *)q;
}

static void test_kdtree_set(const pset *p, const char *name)
{
    gk_kdtree *t = gk_kdtree_build(p->x, p->y, p->n);
    CHECK(t != NULL);
    CHECK(gk_kdtree_size(t) == p->n);
    size_t n = p->n;
    int *idx = malloc((n + 1) * sizeof *idx), *ref = malloc((n + 1) * sizeof *ref);
    double *d2 = malloc((n + 1) * sizeof *d2);
    cand *all = malloc((n + 1) * sizeof *all);
    int bad_radius = 0, bad_box = 0, bad_knn = 0, bad_quad = 0, bad_nn = 0;
    for (int qi = 0; qi < 300; qi++) {
        double cx, cy;
        if (qi % 3 == 0 && n > 0) { /* on a data point */
            size_t j = (size_t)(urand() * (double)n);
            cx = p->x[j];
            cy = p->y[j];
        } else if (qi % 3 == 1) { /* on the lattice: many ties */
            cx = floor(urand() * 220.0 - 10.0) * 0.5;
            cy = floor(urand() * 220.0 - 10.0) * 0.5;
        } else {
            cx = urand() * 120.0 - 10.0;
            cy = urand() * 120.0 - 10.0;
        }
        for (size_t i = 0; i < n; i++) {
            all[i].d2 = bf_d2(p, i, cx, cy);
            all[i].idx = (int)i;
        }

        /* radius, including a too-small buffer first */
        double r = qi % 7 == 0 ? 0.0 : urand() * 8.0;
        double r2 = r * r;
        size_t cnt = 0;
        for (size_t i = 0; i < n; i++)
            if (all[i].d2 <= r2)
                ref[cnt++] = (int)i;
        size_t got = gk_kdtree_radius(t, cx, cy, r2, idx, d2, cnt ? cnt - 1 : 0);
        if (got != cnt)
            bad_radius++;
        got = gk_kdtree_radius(t, cx, cy, r2, idx, d2, n);
        if (got != cnt) {
            bad_radius++;
        } else {
            for (size_t i = 0; i < got; i++)
                if (d2[i] != all[idx[i]].d2)
                    bad_radius++;
            qsort(idx, got, sizeof *idx, int_cmp);
            if (got && memcmp(idx, ref, got * sizeof *idx))
                bad_radius++;
        }

        /* box */
        double hx = urand() * 6.0, hy = qi % 5 == 0 ? 0.0 : urand() * 6.0;
        cnt = 0;
        for (size_t i = 0; i < n; i++)
            if (fabs(p->x[i] - cx) <= hx && fabs(p->y[i] - cy) <= hy)
                ref[cnt++] = (int)i;
        got = gk_kdtree_box(t, cx, cy, hx, hy, idx, d2, n);
        if (got != cnt) {
            bad_box++;
        } else {
            for (size_t i = 0; i < got; i++)
                if (d2[i] != all[idx[i]].d2)
                    bad_box++;
            qsort(idx, got, sizeof *idx, int_cmp);
            if (got && memcmp(idx, ref, got * sizeof *idx))
                bad_box++;
        }

        /* k nearest, sorted by (d2, index) */
        qsort(all, n, sizeof *all, cand_cmp);
        /* up to 128 the sorted-array path, above it the heap */
        static const int ks[] = {1, 3, 12, 33, 100, 150, 400};
        for (int ki = 0; ki < 7; ki++) {
            int k = ks[ki];
            double lim = (qi & 1) ? INFINITY : urand() * (k > 100 ? 100.0 : 25.0);
            int want = 0;
            while (want < k && (size_t)want < n && all[want].d2 <= lim)
                want++;
            int m = gk_kdtree_knn(t, cx, cy, k, lim, idx, d2);
            if (m != want) {
                bad_knn++;
                continue;
            }
            for (int i = 0; i < m; i++)
                if (idx[i] != all[i].idx || d2[i] != all[i].d2)
                    bad_knn++;
        }

        /* one quadrant's k nearest: gdal_grid's quadrants (dx >= 0, dy >= 0),
         * and gstat's pinwheel ones through keep, the tree visiting only the
         * closed quadrant's boxes (GK_KD_CLOSED) */
        for (int q = 0; q < 4; q++)
            for (int pin = 0; pin < 2; pin++) {
                int k = ks[(qi + q) % 7], want = 0;
                for (size_t i = 0; i < n && want < k; i++) {
                    double dx = p->x[all[i].idx] - cx, dy = p->y[all[i].idx] - cy;
                    int in = pin ? pinwheel(dx, dy) : (dx >= 0.0) | ((dy >= 0.0) << 1);
                    if (in == q)
                        ref[want++] = all[i].idx;
                }
                int m =
                    gk_kdtree_knn_quadrant(t, cx, cy, pin ? q | GK_KD_CLOSED : q,
                                           pin ? keep_pinwheel : NULL, &q, k, INFINITY, idx, d2);
                if (m != want) {
                    bad_quad++;
                    continue;
                }
                for (int i = 0; i < m; i++)
                    if (idx[i] != ref[i] || d2[i] != bf_d2(p, (size_t)ref[i], cx, cy))
                        bad_quad++;
            }

        /* nearest: ties to the last in input order */
        double lim = (qi & 1) ? INFINITY : urand() * 9.0;
        int want = -1;
        double wd = 0;
        for (size_t i = 0; i < n; i++) {
            double d = bf_d2(p, i, cx, cy);
            if (d <= lim && (want < 0 || d < wd || (d == wd && (int)i > want))) {
                want = (int)i;
                wd = d;
            }
        }
        double gd = -1;
        int gi = gk_kdtree_nearest(t, cx, cy, lim, &gd);
        if (gi != want || (gi >= 0 && gd != wd))
            bad_nn++;
    }
    if (bad_radius || bad_box || bad_knn || bad_quad || bad_nn)
        fprintf(stderr,
                "kdtree %s (n=%zu): mismatches radius %d box %d knn %d quadrant %d nearest %d\n",
                name, n, bad_radius, bad_box, bad_knn, bad_quad, bad_nn);
    CHECK(bad_radius == 0);
    CHECK(bad_box == 0);
    CHECK(bad_knn == 0);
    CHECK(bad_quad == 0);
    CHECK(bad_nn == 0);
    free(idx);
    free(ref);
    free(d2);
    free(all);
    gk_kdtree_free(t);
}

void test_kdtree(void)
{
    static const size_t sizes[] = {0, 1, 5, 17, 100, 3000};
    for (int i = 0; i < 6; i++) {
        pset p;
        make_uniform(&p, sizes[i]);
        test_kdtree_set(&p, "uniform");
        pset_free(&p);
        make_clustered(&p, sizes[i]);
        test_kdtree_set(&p, "clustered");
        pset_free(&p);
    }
    /* every point the same: one big leaf, ties everywhere */
    pset p;
    pset_alloc(&p, 200);
    for (size_t i = 0; i < 200; i++) {
        p.x[i] = 3.0;
        p.y[i] = 4.0;
        p.z[i] = (double)i;
    }
    test_kdtree_set(&p, "coincident");
    gk_kdtree *t = gk_kdtree_build(p.x, p.y, p.n);
    double d2;
    CHECK(gk_kdtree_nearest(t, 0, 0, INFINITY, &d2) == 199); /* last in input order */
    CHECK(d2 == 25.0);
    int idx[5];
    double dd[5];
    CHECK(gk_kdtree_knn(t, 0, 0, 5, INFINITY, idx, dd) == 5);
    CHECK(idx[0] == 0 && idx[4] == 4); /* first in input order */
    CHECK(gk_kdtree_knn(t, 0, 0, 5, 24.9, idx, dd) == 0);
    CHECK(gk_kdtree_nearest(t, 0, 0, 24.9, &d2) == -1);
    /* a NaN or negative reach, k <= 0, no tree: nothing found, nothing written */
    int ix[1] = {-7};
    double dx[1] = {-7.0};
    CHECK(gk_kdtree_radius(t, 3, 4, -1.0, ix, dx, 1) == 0);
    CHECK(gk_kdtree_radius(t, 3, 4, NAN, ix, dx, 1) == 0);
    CHECK(gk_kdtree_box(t, 3, 4, -1.0, 1.0, ix, dx, 1) == 0);
    CHECK(gk_kdtree_box(t, 3, 4, 1.0, NAN, ix, dx, 1) == 0);
    CHECK(gk_kdtree_knn(t, 3, 4, 0, INFINITY, ix, dx) == 0);
    CHECK(gk_kdtree_knn(t, 3, 4, 1, NAN, ix, dx) == 0);
    CHECK(gk_kdtree_knn_quadrant(t, 3, 4, 0, NULL, NULL, -1, INFINITY, ix, dx) == 0);
    CHECK(gk_kdtree_knn_quadrant(t, 3, 4, 0, NULL, NULL, 1, -2.0, ix, dx) == 0);
    CHECK(gk_kdtree_nearest(t, 3, 4, NAN, dx) == -1);
    CHECK(gk_kdtree_nearest(NULL, 3, 4, 1.0, dx) == -1);
    CHECK(gk_kdtree_knn(NULL, 3, 4, 1, 1.0, ix, dx) == 0);
    CHECK(gk_kdtree_radius(NULL, 3, 4, 1.0, ix, dx, 1) == 0);
    CHECK(gk_kdtree_box(NULL, 3, 4, 1.0, 1.0, ix, dx, 1) == 0);
    CHECK(gk_kdtree_size(NULL) == 0);
    CHECK(ix[0] == -7 && dx[0] == -7.0);
    /* the nearest without its distance asked for */
    CHECK(gk_kdtree_nearest(t, 3, 4, 0.0, NULL) == 199);
    gk_kdtree_free(t);
    pset_free(&p);
}

/* The trees' data sets: 0 uniform, 1 clustered with exact duplicates, 2 a
 * lattice with each place twice, 3 forty places holding every point. */
static void make_kind(pset *p, size_t n, int kind)
{
    if (kind == 0) {
        make_uniform(p, n);
        return;
    }
    if (kind == 1) {
        make_clustered(p, n);
        for (size_t i = 0; i < n; i += 7)
            p->x[i] = p->x[i / 2], p->y[i] = p->y[i / 2];
        return;
    }
    pset_alloc(p, n);
    for (size_t i = 0; i < n; i++) {
        p->z[i] = 0;
        if (kind == 2)
            p->x[i] = (double)(i / 2 % 300) * 0.25, p->y[i] = (double)(i / 600) * 0.25;
        else
            p->x[i] = (double)(i % 40), p->y[i] = 50.0;
    }
}

/* The tree built by several threads (subtrees side by side above 32768 points)
 * answers every query as the one-thread tree does, and both as brute force
 * on a sample: uniform points, clustered points with exact duplicates, a
 * lattice (make_kind 0-2). */
void test_kdtree_threads(void)
{
    const size_t n = 150000;
    for (int kind = 0; kind < 3; kind++) {
        pset p;
        make_kind(&p, n, kind);
        gk_kdtree *t1 = gk_kdtree_build_threads(p.x, p.y, n, 1);
        int bad = 0;
        /* the most threads first: LLVM's libomp (the sanitizer builds') leaks
         * a team it grows */
        for (int th = 7; th >= 2; th -= 5) {
            gk_kdtree *t = gk_kdtree_build_threads(p.x, p.y, n, th);
            CHECK(t != NULL && t1 != NULL);
            for (int q = 0; t && t1 && q < 400; q++) {
                double cx = urand() * 110.0 - 5.0, cy = urand() * 110.0 - 5.0;
                int a[40], b[40];
                double da[40], db[40];
                int k = 1 + q % 40;
                int ga = gk_kdtree_knn(t, cx, cy, k, INFINITY, a, da);
                int gb = gk_kdtree_knn(t1, cx, cy, k, INFINITY, b, db);
                bad += ga != gb || memcmp(a, b, (size_t)ga * sizeof *a) ||
                       memcmp(da, db, (size_t)ga * sizeof *da);
                if (q % 50 == 0) { /* the nearest against every point */
                    double best = INFINITY;
                    int bi = -1;
                    for (size_t i = 0; i < n; i++) {
                        double e = bf_d2(&p, i, cx, cy);
                        if (e < best)
                            best = e, bi = (int)i;
                    }
                    bad += ga < 1 || a[0] != bi || da[0] != best;
                }
            }
            gk_kdtree_free(t);
        }
        CHECKF(bad == 0, "k-d tree on several threads, data %d: %d queries differ", kind, bad);
        gk_kdtree_free(t1);
        pset_free(&p);
    }
}

/* A tree that follows gdal_grid's quadtree (gk_kdtree_build_levels, what
 * invdistnn's CPU path uses): its k-NN and nearest answers are the selected
 * tree's, on points in the quadtree's order, for uniform, clustered (with
 * duplicates), lattice and one-place data, and for any threads. */
void test_kdtree_levels(void)
{
    const size_t n = 70000; /* above both builds' thresholds for sharing the work */
    for (int kind = 0; kind < 4; kind++) {
        pset p;
        make_kind(&p, n, kind);
        uint32_t *order = malloc(n * sizeof *order);
        double *ox = malloc(n * sizeof *ox), *oy = malloc(n * sizeof *oy);
        uint8_t *lev = malloc(n);
        CHECK(!gk_gdal_quadtree_order(p.x, p.y, n, order, ox, oy, lev, 2));
        gk_kdtree *sel = gk_kdtree_build_threads(ox, oy, n, 1);
        int bad = 0;
        for (int th = 7; th >= 1; th -= 6) {
            gk_kdtree *t = gk_kdtree_build_levels(ox, oy, lev, n, th);
            CHECK(t != NULL && sel != NULL);
            for (int q = 0; t && sel && q < 600; q++) {
                double cx = urand() * 110.0 - 5.0, cy = urand() * 110.0 - 5.0;
                int a[64], b[64];
                double da[64], db[64];
                int k = 1 + q % 64;
                double r2 = q % 3 ? INFINITY : 9.0;
                int ga = gk_kdtree_knn(t, cx, cy, k, r2, a, da);
                int gb = gk_kdtree_knn(sel, cx, cy, k, r2, b, db);
                bad += ga != gb || memcmp(a, b, (size_t)ga * sizeof *a) ||
                       memcmp(da, db, (size_t)ga * sizeof *da);
                double ea, eb;
                bad += gk_kdtree_nearest(t, cx, cy, INFINITY, &ea) !=
                           gk_kdtree_nearest(sel, cx, cy, INFINITY, &eb) ||
                       ea != eb;
            }
            gk_kdtree_free(t);
        }
        CHECKF(bad == 0, "k-d tree from the quadtree's levels, data %d: %d queries differ", kind,
               bad);
        gk_kdtree_free(sel);
        free(order), free(ox), free(oy), free(lev);
        pset_free(&p);
    }
}

/* The bins' k nearest (search/knn_bins.h, invdistnn's CPU index) are the
 * k-d tree's: the same distances, and the same points wherever no two are
 * equally far; for uniform, clustered (with duplicates), lattice and
 * one-place data, nodes in and around the points, within a radius or not,
 * and bins built on one thread or several. */
void test_knn_bins(void)
{
    const size_t n = 70000;
    for (int kind = 0; kind < 4; kind++) {
        pset p;
        make_kind(&p, n, kind);
        gk_kdtree *t = gk_kdtree_build_threads(p.x, p.y, n, 1);
        int bad = 0, ties = 0;
        for (int th = 7; th >= 1; th -= 6) {
            gk_knn_bins *b = gk_knn_bins_build(p.x, p.y, n, th);
            CHECK(b != NULL && t != NULL);
            for (int q = 0; b && t && q < 600; q++) {
                double cx = urand() * 130.0 - 15.0, cy = urand() * 130.0 - 15.0;
                int a[65], c[65];
                double da[65], dc[65];
                int k = 1 + q % 65;
                double r2 = q % 3 ? INFINITY : 9.0;
                int ga = gk_knn_bins_knn(b, cx, cy, k, r2, a, da);
                int gc = gk_kdtree_knn(t, cx, cy, k, r2, c, dc);
                int tied = 0;
                for (int j = 1; j < gc; j++)
                    tied |= dc[j] == dc[j - 1];
                ties += tied;
                bad += ga != gc || memcmp(da, dc, (size_t)gc * sizeof *da) ||
                       (!tied && memcmp(a, c, (size_t)gc * sizeof *a));
            }
            gk_knn_bins_free(b);
        }
        CHECKF(bad == 0, "k-NN bins, data %d: %d queries differ from the k-d tree", kind, bad);
        CHECKF(kind < 2 || ties > 0, "k-NN bins, data %d: no query met a tie", kind);
        /* two points' order without the order: gdal_grid's quadtree's, or
         * undecided (-1) within its bound; pairs near each other (ties are
         * between neighbours) and anywhere */
        uint32_t *order = malloc(n * sizeof *order), *rank = malloc(n * sizeof *rank);
        CHECK(!gk_gdal_quadtree_order(p.x, p.y, n, order, NULL, NULL, NULL, 2));
        for (size_t i = 0; i < n; i++)
            rank[order[i]] = (uint32_t)i;
        gk_knn_bins *b = gk_knn_bins_build(p.x, p.y, n, 2);
        int wrong = 0, decided = 0;
        for (int q = 0; b && q < 3000; q++) {
            int i = (int)(urand() * n), j = (int)(urand() * n);
            if (q % 2) { /* a neighbour of i */
                int nb[8];
                double nd[8];
                int g = gk_knn_bins_knn(b, p.x[i], p.y[i], 8, INFINITY, nb, nd);
                j = nb[g - 1];
            }
            if (i == j)
                continue;
            int c = gk_knn_bins_before(b, i, j);
            decided += c >= 0;
            wrong += c >= 0 && c != (rank[i] < rank[j]);
        }
        CHECKF(wrong == 0, "k-NN bins, data %d: %d pairs against gdal_grid's order", kind, wrong);
        CHECKF(kind == 3 || decided > 2500, "k-NN bins, data %d: %d of 3000 pairs decided", kind,
               decided);
        gk_knn_bins_free(b);
        free(order), free(rank);
        gk_kdtree_free(t);
        pset_free(&p);
    }
}

/* ---- sorting and quadrant selection ---------------------------------------------- */

void test_sort(void)
{
    enum { N = 1000 };
    int idx[N];
    double d2[N];
    for (int i = 0; i < N; i++) {
        idx[i] = (i * 7919) % N;
        d2[i] = floor(urand() * 30.0); /* many ties */
    }
    int idx2[N];
    double d2b[N];
    memcpy(idx2, idx, sizeof idx);
    memcpy(d2b, d2, sizeof d2);
    gk_nb_sort(idx, d2, N);
    int ok = 1;
    for (int i = 1; i < N; i++)
        if (d2[i] < d2[i - 1] || (d2[i] == d2[i - 1] && idx[i] <= idx[i - 1]))
            ok = 0;
    CHECK(ok);
    /* nearest 37 of the unsorted copy: the same as the first 37 sorted */
    size_t m = gk_nb_nearest(idx2, d2b, N, 37);
    CHECK(m == 37);
    CHECK(memcmp(idx2, idx, 37 * sizeof *idx) == 0);
    int first = gk_nb_first_hit(idx, d2, N, 0.0, 0.5);
    /* smallest index among d2 == 0 */
    int want = -1;
    for (int i = 0; i < N; i++)
        if (d2[i] == 0.0 && (want < 0 || idx[i] < want))
            want = idx[i];
    CHECK(first == want);
}

/* ---- bucket-grid fast path of the window statistics ------------------------------- */

/* Reference for the window statistics: every point through gk_ellipse_contains. */
static int bg_ref(const gk_algorithm *a, const gk_ellipse *e, const pset *p, double nx, double ny,
                  double *v, int *in)
{
    long n = 0;
    double sum = 0, dsum = 0, lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < p->n; i++) {
        double dx = p->x[i] - nx, dy = p->y[i] - ny;
        if (!gk_ellipse_contains(e, dx, dy))
            continue;
        in[n++] = (int)i;
        sum += p->z[i];
        dsum += sqrt(dx * dx + dy * dy);
        lo = p->z[i] < lo ? p->z[i] : lo;
        hi = p->z[i] > hi ? p->z[i] : hi;
    }
    if (n < a->min_points)
        return 0;
    switch (a->kind) {
    case GK_ALG_COUNT:
        *v = (double)n;
        return 1;
    case GK_ALG_AVERAGE:
        *v = sum / (double)n;
        return n > 0;
    case GK_ALG_MINIMUM:
        *v = lo;
        return n > 0;
    case GK_ALG_MAXIMUM:
        *v = hi;
        return n > 0;
    case GK_ALG_RANGE:
        *v = hi - lo;
        return n > 0;
    case GK_ALG_AVERAGE_DISTANCE:
        *v = dsum / (double)n;
        return n > 0;
    case GK_ALG_AVERAGE_DISTANCE_PTS: {
        if (n < 2)
            return 0;
        double s = 0;
        for (long i = 0; i < n; i++)
            for (long j = i + 1; j < n; j++)
                s += sqrt(bf_d2(p, (size_t)in[j], p->x[in[i]], p->y[in[i]]));
        *v = s / ((double)n * (double)(n - 1) / 2.0);
        return 1;
    }
    default:
        return 0;
    }
}

/* Integer lattice (many points exactly on the boundary of integer radii),
 * with an offset (UTM-like coordinates) and duplicates. */
static void make_lattice(pset *p, size_t n, double off)
{
    pset_alloc(p, n);
    for (size_t i = 0; i < n; i++) {
        if (i > 5 && urand() < 0.1) {
            size_t j = (size_t)(urand() * (double)i);
            p->x[i] = p->x[j];
            p->y[i] = p->y[j];
        } else {
            p->x[i] = off + floor(urand() * 41.0);
            p->y[i] = 10.0 * off + floor(urand() * 41.0);
        }
        p->z[i] = floor(urand() * 1000.0) - 500.0;
    }
}

/* One job on the bucket grid against bg_ref at every node of g, with the
 * AVX-512 kernels, the portable ones, the row sweep and the tile stamp;
 * returns the nodes compared. */
static long bg_check(const pset *p, gk_points *pts, const gk_grid *g, gk_alg_kind kind, double r1,
                     double r2, double angle, int min_points, double *out, int *in,
                     const char *what)
{
    gk_algorithm a = alg_of(kind);
    a.radius1 = r1;
    a.radius2 = r2;
    a.angle = angle;
    a.min_points = min_points;
    gk_job *job = gk_job_new(ctx, pts, &a);
    CHECK(job && gk_window_bg(job) && !job->tree);
    if (!job || !gk_window_bg(job)) {
        gk_job_free(job);
        return 0;
    }
    int exact = kind != GK_ALG_AVERAGE && kind != GK_ALG_AVERAGE_DISTANCE &&
                kind != GK_ALG_AVERAGE_DISTANCE_PTS;
    long tested = 0;
    double win[23 * 70];
    /* every mode must give mode 0's bytes (sums exact, or one order of
     * addition, whatever the method, the tiling or the CPU) */
    size_t nn = (size_t)g->nx * g->ny;
    double *first = malloc(nn * sizeof *first);
    /* per-node scans (portable, AVX-512), then the row sweep and the tile
     * stamp (AVX-512 only: on a CPU without it, modes 1 to 4 are the
     * portable scan again); mode 4 stamps windows 23 x 70 of the grid, so
     * that tiles start at other nodes than 0 and hold two strips of rows */
    for (int mode = 0; mode < 5; mode++) {
        int simd = mode >= 1, sweep = mode >= 2 ? mode - 1 : 0;
        gk_bg_use_simd(gk_window_bg(job), simd);
        gk_bg_force_method(gk_window_bg(job), mode <= 1   ? GK_BG_SCAN
                                              : mode == 2 ? GK_BG_SWEEP
                                                          : GK_BG_STAMP);
        if (mode < 4) {
            CHECK(gk_job_compute_window(job, g, 0, 0, g->nx, g->ny, out) == GK_OK);
        } else {
            for (int y0 = 0; y0 < g->ny; y0 += 70)
                for (int x0 = 0; x0 < g->nx; x0 += 23) {
                    int w = g->nx - x0 < 23 ? g->nx - x0 : 23,
                        h = g->ny - y0 < 70 ? g->ny - y0 : 70;
                    CHECK(gk_job_compute_window(job, g, x0, y0, w, h, win) == GK_OK);
                    for (int j = 0; j < h; j++)
                        memcpy(out + (size_t)(y0 + j) * g->nx + x0, win + (size_t)j * w,
                               (size_t)w * sizeof *win);
                }
        }
        int bad = 0;
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                double v = 0, got = out[j * g->nx + i];
                int ok =
                    bg_ref(&a, &job->ell, p, gk_grid_node_x(g, i), gk_grid_node_y(g, j), &v, in);
                int same = !ok     ? got == a.nodata
                           : exact ? got == v
                                   : fabs(got - v) <= 1e-12 * (1.0 + fabs(v));
                if (!same && bad++ < 3)
                    fprintf(stderr,
                            "bucket grid: %s kind %d r1 %g r2 %g angle %g simd %d method %d "
                            "node %d,%d: got %.17g want %.17g (%s)\n",
                            what, (int)kind, r1, r2, angle, simd, sweep, i, j, got, v,
                            ok ? "value" : "nodata");
                tested++;
            }
        CHECK(bad == 0);
        if (mode == 0) {
            memcpy(first, out, nn * sizeof *out);
        } else if (memcmp(first, out, nn * sizeof *out)) {
            size_t k = 0;
            while (!memcmp(first + k, out + k, sizeof *out))
                k++;
            fprintf(stderr,
                    "bucket grid: %s kind %d r1 %g r2 %g angle %g mode %d differs from the "
                    "portable scan at node %zu: %.17g against %.17g\n",
                    what, (int)kind, r1, r2, angle, mode, k, out[k], first[k]);
            CHECK(!"the same bytes from every method");
        }
    }
    free(first);
    gk_job_free(job);
    return tested;
}

static gk_points *points_of(const pset *p)
{
    gk_points *pts = gk_points_new(ctx);
    for (size_t i = 0; i < p->n; i++)
        gk_points_add(pts, p->x[i], p->y[i], p->z[i]);
    return pts;
}

void test_bucket_grid(void)
{
    enum { NSETS = 6 };
    pset sets[NSETS];
    double off[NSETS] = {0, 0, 0, 500000.0, 0, 0};
    make_lattice(&sets[0], 900, 0.0);
    make_uniform(&sets[1], 1200);
    make_clustered(&sets[2], 1200);
    make_lattice(&sets[3], 900, 500000.0);
    /* points on a line (an empty bounding box area) and a single point */
    pset_alloc(&sets[4], 200);
    for (size_t i = 0; i < 200; i++) {
        sets[4].x[i] = floor(urand() * 40.0);
        sets[4].y[i] = 20.0;
        sets[4].z[i] = urand();
    }
    pset_alloc(&sets[5], 1);
    sets[5].x[0] = 20.0;
    sets[5].y[0] = 17.0;
    sets[5].z[0] = 3.5;
    const gk_alg_kind kinds[] = {GK_ALG_AVERAGE,
                                 GK_ALG_COUNT,
                                 GK_ALG_MINIMUM,
                                 GK_ALG_MAXIMUM,
                                 GK_ALG_RANGE,
                                 GK_ALG_AVERAGE_DISTANCE,
                                 GK_ALG_AVERAGE_DISTANCE_PTS};
    const struct {
        double r1, r2, angle;
        int min_points;
    } ells[] = {
        {5, 5, 0, 0},      {5, 3, 30, 0},      {7, 2, -65, 2},
        {4, 4, 45, 0},     {6, 0.004, 10, 0},  {1000, 1000, 0, 0},
        {0.3, 0.3, 0, 0},  {13, 5, 90, 4},     {3, 4, 36.869897645844021, 0},
        {6, 0.015, 10, 0}, {2.5, 2.5, 180, 1},
    };
    int nk = (int)(sizeof kinds / sizeof kinds[0]), ne = (int)(sizeof ells / sizeof ells[0]);
    gk_context_set_device(ctx, "cpu");
    int *in = malloc(4000 * sizeof *in);
    double *out = malloc(4000 * 9 * sizeof *out);
    long tested = 0;
    for (int si = 0; si < NSETS; si++) {
        /* nodes on the integer lattice (so lattice points sit on the boundaries),
         * reaching past the points */
        gk_grid g = {
            off[si] - 5.5, off[si] + 45.5, 10 * off[si] - 5.5, 10 * off[si] + 45.5, 51, 51};
        if (si == 1 || si == 2)
            g = (gk_grid){-3.3, 103.3, -2.1, 102.7, 37, 31};
        gk_points *pts = points_of(&sets[si]);
        char what[32];
        snprintf(what, sizeof what, "set %d", si);
        for (int ki = 0; ki < nk; ki++)
            for (int ei = 0; ei < ne; ei++) {
                if (kinds[ki] == GK_ALG_AVERAGE_DISTANCE_PTS && ells[ei].r1 > 100)
                    continue; /* quadratic in the points */
                tested += bg_check(&sets[si], pts, &g, kinds[ki], ells[ei].r1, ells[ei].r2,
                                   ells[ei].angle, ells[ei].min_points, out, in, what);
            }
        /* the ordered selections keep the k-d tree */
        gk_algorithm a = alg_of(GK_ALG_AVERAGE);
        a.radius1 = a.radius2 = 5;
        a.max_points = 4;
        gk_job *job = gk_job_new(ctx, pts, &a);
        CHECK(job && !gk_window_bg(job) && job->tree);
        gk_job_free(job);
        a = alg_of(GK_ALG_COUNT);
        a.radius1 = a.radius2 = 5;
        a.min_points_per_quadrant = 1;
        job = gk_job_new(ctx, pts, &a);
        CHECK(job && !gk_window_bg(job) && job->tree);
        gk_job_free(job);
        gk_points_free(pts);
    }
    /* a tiny radius on large coordinates: the rounding margin spans more bucket
     * rows than get their own extents (the box path) */
    pset line;
    pset_alloc(&line, 1000);
    const double q = ldexp(1.0, -20);
    for (size_t i = 0; i < line.n; i++) {
        line.x[i] = 1e9 + q * floor(urand() * 3.0);
        line.y[i] = 1e9 + q * floor(urand() * 4000.0);
        line.z[i] = floor(urand() * 100.0);
    }
    gk_points *pts = points_of(&line);
    gk_grid g = {
        1e9 - 3 * q - q / 2, 1e9 + 6 * q - q / 2, 1e9 - q / 2, 1e9 + 4000 * q - q / 2, 9, 4000};
    tested += bg_check(&line, pts, &g, GK_ALG_COUNT, 8 * q, 8 * q, 0, 0, out, in, "tiny radius");
    tested += bg_check(&line, pts, &g, GK_ALG_AVERAGE, 8 * q, 3 * q, 25, 0, out, in, "tiny radius");
    gk_points_free(pts);
    pset_free(&line);

    CHECK(tested > 100000);
    free(in);
    free(out);
    for (int si = 0; si < NSETS; si++)
        pset_free(&sets[si]);
}
