/* test_algorithms.c - the k-d tree against brute force, the neighbourhood
 * selection, and every search-based algorithm on hand-checked cases and
 * against independent brute-force implementations written here.
 *
 *   test_algorithms          run the tests
 *   test_algorithms bench    time k-NN / radius queries on 200k points */
#include "idw/aidw.h"
#include "idw/idw.h"
#include "window/window.h"
#include "search/bucket_grid.h"
#include "core/gk_internal.h"
#include "search/kdtree.h"
#include "search/neighbours.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gk_check.h"

/* ---- deterministic random numbers ------------------------------------------- */

static unsigned long long rng_state = 88172645463325252ULL;
static double urand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}
static double nrand(void)
{
    double u = urand() + 1e-300, v = urand();
    return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

/* ---- point sets ------------------------------------------------------------- */

typedef struct {
    size_t n;
    double *x, *y, *z;
} pset;

static void pset_alloc(pset *p, size_t n)
{
    p->n = n;
    p->x = malloc((n ? n : 1) * sizeof *p->x);
    p->y = malloc((n ? n : 1) * sizeof *p->y);
    p->z = malloc((n ? n : 1) * sizeof *p->z);
}
static void pset_free(pset *p)
{
    free(p->x);
    free(p->y);
    free(p->z);
}

/* uniform points on [0, 100)^2, snapped to a 0.5 lattice so that equal
 * distances (ties) are common */
static void make_uniform(pset *p, size_t n)
{
    pset_alloc(p, n);
    for (size_t i = 0; i < n; i++) {
        p->x[i] = floor(urand() * 200.0) * 0.5;
        p->y[i] = floor(urand() * 200.0) * 0.5;
        p->z[i] = urand() * 100.0;
    }
}

/* Gaussian clusters, plus exact duplicates of earlier points */
static void make_clustered(pset *p, size_t n)
{
    pset_alloc(p, n);
    double cx[6], cy[6];
    for (int c = 0; c < 6; c++) {
        cx[c] = urand() * 100.0;
        cy[c] = urand() * 100.0;
    }
    for (size_t i = 0; i < n; i++) {
        if (i > 10 && urand() < 0.2) {
            size_t j = (size_t)(urand() * (double)i);
            p->x[i] = p->x[j];
            p->y[i] = p->y[j];
        } else {
            int c = (int)(urand() * 6.0);
            p->x[i] = cx[c] + nrand() * 2.0;
            p->y[i] = cy[c] + nrand() * 2.0;
        }
        p->z[i] = urand() * 100.0;
    }
}

/* ---- brute-force references --------------------------------------------------- */

typedef struct {
    double d2;
    int idx;
} cand;

static int cand_cmp(const void *a, const void *b)
{
    const cand *p = a, *q = b;
    if (p->d2 != q->d2)
        return p->d2 < q->d2 ? -1 : 1;
    return (p->idx > q->idx) - (p->idx < q->idx);
}

static int int_cmp(const void *a, const void *b)
{
    int p = *(const int *)a, q = *(const int *)b;
    return (p > q) - (p < q);
}

static double bf_d2(const pset *p, size_t i, double cx, double cy)
{
    double dx = p->x[i] - cx, dy = p->y[i] - cy;
    return dx * dx + dy * dy;
}

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
                int m = gk_kdtree_knn_quadrant(t, cx, cy, pin ? q | GK_KD_CLOSED : q,
                                               pin ? keep_pinwheel : NULL, &q, k, INFINITY, idx,
                                               d2);
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

static void test_kdtree(void)
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
    gk_kdtree_free(t);
    pset_free(&p);
}

/* ---- sorting and quadrant selection ---------------------------------------------- */

static void test_sort(void)
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

/* ---- hand-built jobs ---------------------------------------------------------- */

static gk_context *ctx;

typedef struct {
    gk_points *pts;
    gk_job job;
} tjob;

static gk_algorithm alg_of(gk_alg_kind kind)
{
    gk_algorithm a;
    memset(&a, 0, sizeof a);
    a.kind = kind;
    a.power = 2.0;
    a.nodata = -9999.0;
    a.aidw_k = 10;
    const double al[5] = {1.5, 2.0, 2.5, 3.0, 3.5};
    memcpy(a.aidw_alpha, al, sizeof al);
    a.aidw_rmin = 0.0;
    a.aidw_rmax = 2.0;
    return a;
}

static void tjob_init(tjob *tj, const double *x, const double *y, const double *z, size_t n,
                      const gk_algorithm *a)
{
    tj->pts = gk_points_new(ctx);
    for (size_t i = 0; i < n; i++)
        gk_points_add(tj->pts, x[i], y[i], z ? z[i] : 0.0);
    memset(&tj->job, 0, sizeof tj->job);
    tj->job.ctx = ctx;
    tj->job.pts = tj->pts;
    tj->job.alg = *a;
    gk_ellipse_init(&tj->job.ell, a->radius1, a->radius2, a->angle);
    tj->job.tree = gk_kdtree_build(tj->pts->x, tj->pts->y, n);
    if (a->kind == GK_ALG_AIDW)
        CHECK(gk_aidw_prepare(&tj->job) == GK_OK);
}

static void tjob_free(tjob *tj)
{
    gk_kdtree_free(tj->job.tree);
    gk_points_free(tj->pts);
}

static gk_tile_fn fn_of(gk_alg_kind k)
{
    switch (k) {
    case GK_ALG_INVDIST:
        return gk_invdist_tile;
    case GK_ALG_INVDISTNN:
        return gk_invdistnn_tile;
    case GK_ALG_AVERAGE:
        return gk_average_tile;
    case GK_ALG_NEAREST:
        return gk_nearest_tile;
    case GK_ALG_AIDW:
        return gk_aidw_tile;
    default:
        return gk_metrics_tile;
    }
}

#define HIT2 1e-12

/* Value of the single node (x, y); *nodata set when the node got no value. */
static double node_value(tjob *tj, double x, double y, int *nodata)
{
    gk_grid g = {x - 0.5, x + 0.5, y - 0.5, y + 0.5, 1, 1};
    gk_tile t = {&g, 0, 0, 1, 1, HIT2};
    gk_scratch s = {0};
    double v = NAN;
    uint64_t nd = fn_of(tj->job.alg.kind)(&tj->job, &t, &v, &s);
    gk_scratch_free(&s);
    *nodata = nd == 1;
    if (nd == 1)
        CHECK(v == tj->job.alg.nodata);
    return v;
}

/* One-shot: build, evaluate one node, free. */
static double eval1(const gk_algorithm *a, const double *x, const double *y, const double *z,
                    size_t n, double nx, double ny, int *nodata)
{
    tjob tj;
    tjob_init(&tj, x, y, z, n, a);
    double v = node_value(&tj, nx, ny, nodata);
    tjob_free(&tj);
    return v;
}

static void test_invdist(void)
{
    const double x[] = {0, 1, 3}, y[] = {0, 0, 0}, z[] = {1, 3, 10};
    gk_algorithm a = alg_of(GK_ALG_INVDIST);
    a.radius1 = a.radius2 = 2;
    int nd;
    /* (3,0) is 2.5 away: outside; the other two are equally near */
    CHECK_NEAR(eval1(&a, x, y, z, 3, 0.5, 0, &nd), 2.0, 1e-14);
    CHECK(!nd);
    a.power = 3; /* node (0.25, 0): weights 64 and 64/27 -> 15/14 */
    CHECK_NEAR(eval1(&a, x, y, z, 3, 0.25, 0, &nd), 15.0 / 14.0, 1e-14);
    a.power = 2;
    a.smoothing = 1; /* equal smoothed distances */
    CHECK_NEAR(eval1(&a, x, y, z, 3, 0.25, 0, &nd), (1 / 1.0625 + 3 / 1.5625) / (1 / 1.0625 + 1 / 1.5625),
               1e-14);
    a.smoothing = 0;
    a.min_points = 3;
    eval1(&a, x, y, z, 3, 0.5, 0, &nd);
    CHECK(nd);
    a.min_points = 0;
    /* exact hit */
    CHECK(eval1(&a, x, y, z, 3, 1, 0, &nd) == 3.0);

    /* max_points: the NEAREST inside the ellipse, not the first in file order */
    const double x2[] = {1.5, 0.2, -0.3, 0.1}, y2[] = {0, 0, 0, 1.9}, z2[] = {10, 2, 4, 50};
    a.max_points = 2;
    double w1 = 1 / 0.04, w2 = 1 / 0.09;
    CHECK_NEAR(eval1(&a, x2, y2, z2, 4, 0, 0, &nd), (2 * w1 + 4 * w2) / (w1 + w2), 1e-14);
    /* ellipse (not circle) path of the same rule */
    a.radius1 = 2;
    a.radius2 = 2.5;
    CHECK_NEAR(eval1(&a, x2, y2, z2, 4, 0, 0, &nd), (2 * w1 + 4 * w2) / (w1 + w2), 1e-14);
    a.radius2 = 2;
    /* ties at max_points: the lower index wins */
    const double x3[] = {1, 0, -1}, y3[] = {0, 1, 0}, z3[] = {5, 7, 9};
    a.max_points = 1;
    CHECK(eval1(&a, x3, y3, z3, 3, 0, 0, &nd) == 5.0);
    a.max_points = 0;

    /* coincident points: the first in input order is the hit */
    const double x4[] = {5, 1, 2, 1}, y4[] = {5, 0, 2, 0}, z4[] = {1, 3, 4, 7};
    CHECK(eval1(&a, x4, y4, z4, 4, 1, 0, &nd) == 3.0);
    a.max_points = 1; /* also through the k-NN path */
    CHECK(eval1(&a, x4, y4, z4, 4, 1, 0, &nd) == 3.0);
    const double x5[] = {1, 1, 1}, y5[] = {0, 0, 0}, z5[] = {8, 3, 4};
    CHECK(eval1(&a, x5, y5, z5, 3, 1, 0, &nd) == 8.0);
    const double x6[] = {1, 1, 1, 1}, y6[] = {0, 0, 0, 0}, z6[] = {8, 3, 4, 6};
    a.max_points = 2; /* all k answers are hits: index 0 still wins */
    CHECK(eval1(&a, x6, y6, z6, 4, 1, 0, &nd) == 8.0);

    /* rotated ellipse: r1 = 3 along the x axis turned by 90 degrees */
    const double x7[] = {2, 0}, y7[] = {0, 2}, z7[] = {5, 9};
    a.max_points = 0;
    a.radius1 = 3;
    a.radius2 = 1;
    CHECK(eval1(&a, x7, y7, z7, 2, 0, 0, &nd) == 5.0);
    a.angle = 90;
    CHECK(eval1(&a, x7, y7, z7, 2, 0, 0, &nd) == 9.0);
    a.angle = 0;
    eval1(&a, x7, y7, z7, 2, 10, 10, &nd);
    CHECK(nd);
}

static void test_invdistnn(void)
{
    const double x[] = {1, 0, -1.2, 0, 2}, y[] = {0, 1, 0, -1.4, 2}, z[] = {1, 2, 3, 4, 100};
    gk_algorithm a = alg_of(GK_ALG_INVDISTNN);
    a.radius1 = a.radius2 = 1.5;
    a.max_points = 2;
    int nd;
    CHECK_NEAR(eval1(&a, x, y, z, 5, 0, 0, &nd), 1.5, 1e-14);
    a.max_points = 3;
    CHECK_NEAR(eval1(&a, x, y, z, 5, 0, 0, &nd), 183.0 / 97.0, 1e-14);
    a.max_points = 0;
    CHECK_NEAR(eval1(&a, x, y, z, 5, 0, 0, &nd),
               (1 + 2 + 3 / 1.44 + 4 / 1.96) / (2 + 1 / 1.44 + 1 / 1.96), 1e-14);
    a.max_points = 12;
    a.min_points = 5;
    eval1(&a, x, y, z, 5, 0, 0, &nd);
    CHECK(nd);
    a.min_points = 0;
    a.max_points = 1; /* tie between index 0 and 1 */
    CHECK(eval1(&a, x, y, z, 5, 0, 0, &nd) == 1.0);
    a.power = 1;
    a.max_points = 12;
    CHECK_NEAR(eval1(&a, x, y, z, 5, 0, 0, &nd),
               (1 + 2 + 3 / 1.2 + 4 / 1.4) / (2 + 1 / 1.2 + 1 / 1.4), 1e-14);
    CHECK(eval1(&a, x, y, z, 5, 2, 2, &nd) == 100.0); /* hit */
}

/* Quadrants around (0, 0): q0 SW {A, B}, q1 SE {C}, q2 NW {D}, q3 NE {E, G, F}. */
static const double QX[] = {-1, -2, 1, -0.5, 0, 1, 0.5};
static const double QY[] = {-1, -2, -0.5, 0, 0.5, 1, 0.5};
static const double QZ[] = {1, 2, 3, 4, 5, 6, 7}; /* A B C D E F G */

static void test_quadrants(void)
{
    int nd;
    gk_algorithm a = alg_of(GK_ALG_AVERAGE);
    a.radius1 = a.radius2 = 5;
    a.min_points_per_quadrant = 1;
    CHECK_NEAR(eval1(&a, QX, QY, QZ, 7, 0, 0, &nd), 4.0, 1e-14); /* all seven */
    a.max_points = 5;                                             /* A C D E B */
    CHECK_NEAR(eval1(&a, QX, QY, QZ, 7, 0, 0, &nd), 3.0, 1e-14);
    a.max_points = 6; /* A C D E B G: G is nearer than F */
    a.max_points_per_quadrant = 2;
    CHECK_NEAR(eval1(&a, QX, QY, QZ, 7, 0, 0, &nd), 22.0 / 6.0, 1e-14);
    a.max_points = 0;
    a.max_points_per_quadrant = 1; /* A C D E */
    CHECK_NEAR(eval1(&a, QX, QY, QZ, 7, 0, 0, &nd), 13.0 / 4.0, 1e-14);
    a.max_points_per_quadrant = 0;
    a.min_points_per_quadrant = 2; /* SE and NW have one each */
    eval1(&a, QX, QY, QZ, 7, 0, 0, &nd);
    CHECK(nd);
    /* max_points reached before the quadrant minimum is met: nodata */
    a.min_points_per_quadrant = 1;
    a.max_points = 3;
    eval1(&a, QX, QY, QZ, 7, 0, 0, &nd);
    CHECK(nd);
    a.max_points = 0;

    /* the selection order itself */
    tjob tj;
    a.min_points_per_quadrant = 0;
    a.max_points_per_quadrant = 5;
    tjob_init(&tj, QX, QY, QZ, 7, &a);
    gk_scratch s = {0};
    long n = gk_nb_ellipse(&tj.job, 0, 0, &s);
    CHECK(n == 7);
    n = gk_nb_quadrants(&tj.job, 0, 0, s.idx, s.d2, (size_t)n, 0, 0, 5, &s);
    const int order[] = {0, 2, 3, 4, 1, 6, 5}; /* A C D E B G F */
    CHECK(n == 7);
    for (int i = 0; i < 7 && n == 7; i++)
        CHECK(s.idx[i] == order[i]);
    gk_scratch_free(&s);
    tjob_free(&tj);

    /* metrics ignore max_points */
    a = alg_of(GK_ALG_COUNT);
    a.radius1 = a.radius2 = 5;
    a.max_points = 5;
    a.max_points_per_quadrant = 2; /* A B C D E G */
    CHECK(eval1(&a, QX, QY, QZ, 7, 0, 0, &nd) == 6.0);
    a.kind = GK_ALG_MAXIMUM;
    a.max_points_per_quadrant = 1; /* A C D E */
    CHECK(eval1(&a, QX, QY, QZ, 7, 0, 0, &nd) == 5.0);
    a.kind = GK_ALG_AVERAGE_DISTANCE;
    CHECK_NEAR(eval1(&a, QX, QY, QZ, 7, 0, 0, &nd),
               (sqrt(2.0) + sqrt(1.25) + 0.5 + 0.5) / 4.0, 1e-14);
    a.kind = GK_ALG_COUNT;
    a.max_points_per_quadrant = 0;
    a.min_points_per_quadrant = 2;
    eval1(&a, QX, QY, QZ, 7, 0, 0, &nd);
    CHECK(nd); /* count: the quadrant minimum still makes it nodata */

    /* invdistnn with quadrants: A C D E */
    a = alg_of(GK_ALG_INVDISTNN);
    a.radius1 = a.radius2 = 5;
    a.max_points = 4;
    a.min_points_per_quadrant = 1;
    CHECK_NEAR(eval1(&a, QX, QY, QZ, 7, 0, 0, &nd), 38.9 / 9.3, 1e-14);
    /* invdist with per-quadrant keys behaves as invdistnn with the limits */
    a.kind = GK_ALG_INVDIST;
    CHECK_NEAR(eval1(&a, QX, QY, QZ, 7, 0, 0, &nd), 38.9 / 9.3, 1e-14);
}

/* The bounded per-quadrant selection straight from the k-d tree
 * (gk_nb_ellipse_quadrants, gk_nb_quadrants_knn) equals the gathered one
 * (gk_nb_ellipse, then gk_nb_quadrants: the path the gdal_grid conformance
 * cases check), point for point and in order: points on a lattice (ties in
 * distance, points on the axes through nodes on lattice points) plus random
 * ones and duplicates, circles and rotated ellipses, every limit. */
static void test_quadrants_knn(void)
{
    enum { NL = 21 * 21, NR = 300, N = NL + NR + 20 };
    static double x[N], y[N], z[N];
    unsigned r = 12345;
    for (int i = 0; i < NL; i++) {
        x[i] = i % 21;
        y[i] = i / 21;
    }
    for (int i = NL; i < NL + NR; i++) {
        r = r * 1103515245u + 12345u;
        x[i] = (r >> 8) % 200000 / 10000.0;
        r = r * 1103515245u + 12345u;
        y[i] = (r >> 8) % 200000 / 10000.0;
    }
    for (int i = NL + NR; i < N; i++) { /* duplicates of lattice points */
        x[i] = x[(i * 37) % NL];
        y[i] = y[(i * 37) % NL];
    }
    for (int i = 0; i < N; i++)
        z[i] = i;
    static const double radii[][3] = {{3, 3, 0}, {4, 2, 30}, {2.5, 5, 90}, {6, 6, 0}};
    static const int limits[][3] = {/* max_points, min per quadrant, max per quadrant */
                                    {0, 0, 2}, {5, 0, 0}, {7, 1, 3}, {12, 0, 1},
                                    {0, 2, 5}, {40, 0, 16}, {3, 1, 0}};
    int bad = 0, cases = 0;
    for (size_t e = 0; e < sizeof radii / sizeof *radii; e++)
        for (size_t l = 0; l < sizeof limits / sizeof *limits; l++) {
            gk_algorithm a = alg_of(GK_ALG_AVERAGE);
            a.radius1 = radii[e][0];
            a.radius2 = radii[e][1];
            a.angle = radii[e][2];
            a.max_points = limits[l][0];
            a.min_points_per_quadrant = limits[l][1];
            a.max_points_per_quadrant = limits[l][2];
            tjob tj;
            tjob_init(&tj, x, y, z, N, &a);
            gk_scratch s1 = {0}, s2 = {0};
            for (int k = 0; k < 60; k++) {
                /* nodes on lattice points, half-way between them, anywhere */
                double nx = k < 20 ? k % 7 * 3 : k < 40 ? 0.5 + k % 9 * 2 : 20.0 * k / 61.0;
                double ny = k < 20 ? k % 5 * 4 : k < 40 ? 0.5 + k % 6 * 3 : 20.0 * (k % 13) / 13.0;
                long n1 = gk_nb_ellipse(&tj.job, nx, ny, &s1);
                if (n1 >= 0)
                    n1 = gk_nb_quadrants(&tj.job, nx, ny, s1.idx, s1.d2, (size_t)n1, a.max_points,
                                         a.min_points_per_quadrant, a.max_points_per_quadrant,
                                         &s1);
                long n2 = gk_nb_ellipse_quadrants(&tj.job, nx, ny, 1, &s2);
                int same = n1 == n2;
                for (long i = 0; same && i < n1; i++)
                    same = s1.idx[i] == s2.idx[i] && s1.d2[i] == s2.d2[i];
                /* the circle's form (invdistnn), where the ellipse is one */
                if (radii[e][0] == radii[e][1] && gk_nb_quadrants_bounded(&a, 1)) {
                    double r2 = a.radius1 * a.radius1;
                    long n4 = gk_nb_circle(&tj.job, nx, ny, r2, &s1);
                    if (n4 >= 0)
                        n4 = gk_nb_quadrants(&tj.job, nx, ny, s1.idx, s1.d2, (size_t)n4,
                                             a.max_points, a.min_points_per_quadrant,
                                             a.max_points_per_quadrant, &s1);
                    long n3 = gk_nb_quadrants_knn(&tj.job, nx, ny, r2, NULL, a.max_points,
                                                  a.min_points_per_quadrant,
                                                  a.max_points_per_quadrant, &s2);
                    same = same && n3 == n4;
                    for (long i = 0; same && i < n4; i++)
                        same = s1.idx[i] == s2.idx[i] && s1.d2[i] == s2.d2[i];
                }
                bad += !same;
                cases++;
            }
            gk_scratch_free(&s1);
            gk_scratch_free(&s2);
            tjob_free(&tj);
        }
    CHECK(cases == 4 * 7 * 60);
    if (bad)
        fprintf(stderr, "quadrants from the k-d tree: %d of %d nodes differ\n", bad, cases);
    CHECK(bad == 0);
}

static void test_average_nearest(void)
{
    int nd;
    const double x[] = {2, 0}, y[] = {0, 2}, z[] = {5, 9};
    gk_algorithm a = alg_of(GK_ALG_AVERAGE);
    CHECK(eval1(&a, x, y, z, 2, 0, 0, &nd) == 7.0); /* no radius: all */
    a.radius1 = 3;
    a.radius2 = 1;
    CHECK(eval1(&a, x, y, z, 2, 0, 0, &nd) == 5.0);
    a.angle = 90;
    CHECK(eval1(&a, x, y, z, 2, 0, 0, &nd) == 9.0);
    a.min_points = 2;
    eval1(&a, x, y, z, 2, 0, 0, &nd);
    CHECK(nd);

    /* nearest honours the radius (gdal_grid's quadtree path does not) */
    a = alg_of(GK_ALG_NEAREST);
    const double x1[] = {1.27}, y1[] = {0}, z1[] = {42};
    a.radius1 = a.radius2 = 1;
    eval1(&a, x1, y1, z1, 1, 0, 0, &nd);
    CHECK(nd);
    a.radius1 = a.radius2 = 0;
    CHECK(eval1(&a, x1, y1, z1, 1, 0, 0, &nd) == 42.0);
    /* ties: the last in input order */
    const double x2[] = {1, -1, 3, 1}, y2[] = {0, 0, 3, 0}, z2[] = {1, 2, 3, 4};
    CHECK(eval1(&a, x2, y2, z2, 3, 0, 0, &nd) == 2.0);
    CHECK(eval1(&a, x2, y2, z2, 4, 0, 0, &nd) == 4.0);
    a.radius1 = a.radius2 = 5;
    CHECK(eval1(&a, x2, y2, z2, 4, 0, 0, &nd) == 4.0);
    /* a narrow ellipse: the nearest point overall is outside it */
    const double x3[] = {2, 0}, y3[] = {0, 1}, z3[] = {1, 2};
    a.radius1 = 3;
    a.radius2 = 0.5;
    CHECK(eval1(&a, x3, y3, z3, 2, 0, 0, &nd) == 1.0);
    a.radius1 = a.radius2 = 0;
    CHECK(eval1(&a, x3, y3, z3, 2, 0, 0, &nd) == 2.0);
}

static void test_metrics(void)
{
    int nd;
    const double x[] = {0, 3, 0, 10}, y[] = {0, 0, 4, 10}, z[] = {1, 4, 10, 0};
    gk_algorithm a = alg_of(GK_ALG_MINIMUM);
    a.radius1 = a.radius2 = 5;
    CHECK(eval1(&a, x, y, z, 4, 0, 0, &nd) == 1.0);
    eval1(&a, x, y, z, 4, 100, 100, &nd);
    CHECK(nd);
    a.kind = GK_ALG_MAXIMUM;
    CHECK(eval1(&a, x, y, z, 4, 0, 0, &nd) == 10.0);
    a.kind = GK_ALG_RANGE;
    CHECK(eval1(&a, x, y, z, 4, 0, 0, &nd) == 9.0);
    a.kind = GK_ALG_COUNT;
    CHECK(eval1(&a, x, y, z, 4, 0, 0, &nd) == 3.0);
    CHECK(eval1(&a, x, y, z, 4, 100, 100, &nd) == 0.0 && !nd); /* empty: 0 */
    a.min_points = 4;
    eval1(&a, x, y, z, 4, 0, 0, &nd);
    CHECK(nd);
    a.min_points = 0;
    a.kind = GK_ALG_AVERAGE_DISTANCE;
    CHECK_NEAR(eval1(&a, x, y, z, 4, 0, 0, &nd), 7.0 / 3.0, 1e-14);
    a.kind = GK_ALG_AVERAGE_DISTANCE_PTS; /* pairs 3, 4, 5 */
    CHECK_NEAR(eval1(&a, x, y, z, 4, 0, 0, &nd), 4.0, 1e-14);
    const double xa[] = {0, 1}, ya[] = {0, 0};
    CHECK_NEAR(eval1(&a, xa, ya, NULL, 2, 0.5, 0, &nd), 1.0, 1e-14); /* not 0.5 */
    eval1(&a, xa, ya, NULL, 1, 0, 0, &nd);
    CHECK(nd);
    a.radius1 = a.radius2 = 0; /* all four */
    a.kind = GK_ALG_COUNT;
    CHECK(eval1(&a, x, y, z, 4, 0, 0, &nd) == 4.0);
    a.kind = GK_ALG_RANGE;
    CHECK(eval1(&a, x, y, z, 4, 0, 0, &nd) == 10.0);
}

/* ---- aidw --------------------------------------------------------------------- */

static void test_aidw(void)
{
    gk_algorithm a = alg_of(GK_ALG_AIDW);
    /* alpha: 1.5, 2, 2.5, 3, 3.5 through mu = 0.1 ... 0.9 */
    CHECK_NEAR(gk_aidw_alpha(&a, 0.0), 1.5, 1e-14);
    CHECK_NEAR(gk_aidw_alpha(&a, 0.1), 1.5, 1e-14);
    CHECK_NEAR(gk_aidw_alpha(&a, 0.2), 1.75, 1e-14);
    CHECK_NEAR(gk_aidw_alpha(&a, 0.3), 2.0, 1e-14);
    CHECK_NEAR(gk_aidw_alpha(&a, 0.4), 2.25, 1e-14); /* alpha2/alpha3, not alpha1 */
    CHECK_NEAR(gk_aidw_alpha(&a, 0.6), 2.75, 1e-14);
    CHECK_NEAR(gk_aidw_alpha(&a, 0.8), 3.25, 1e-14);
    CHECK_NEAR(gk_aidw_alpha(&a, 0.9), 3.5, 1e-14);
    CHECK_NEAR(gk_aidw_alpha(&a, 1.0), 3.5, 1e-14);
    a.aidw_alpha[1] = 7.0; /* only the 0.1-0.5 neighbourhood moves */
    CHECK_NEAR(gk_aidw_alpha(&a, 0.4), 0.5 * 7.0 + 0.5 * 2.5, 1e-14);
    CHECK_NEAR(gk_aidw_alpha(&a, 0.2), 0.5 * 1.5 + 0.5 * 7.0, 1e-14);
    CHECK_NEAR(gk_aidw_alpha(&a, 0.6), 2.75, 1e-14);
    a.aidw_alpha[1] = 2.0;
    /* membership: cosine between r_min = 0 and r_max = 2 */
    CHECK(gk_aidw_mu(&a, 0.0) == 0.0);
    CHECK(gk_aidw_mu(&a, -1.0) == 0.0);
    CHECK_NEAR(gk_aidw_mu(&a, 1.0), 0.5, 1e-14);
    CHECK_NEAR(gk_aidw_mu(&a, 0.5), 0.5 - 0.5 * sqrt(0.5), 1e-14);
    CHECK(gk_aidw_mu(&a, 2.0) == 1.0);
    CHECK(gk_aidw_mu(&a, 5.0) == 1.0);
    a.aidw_rmin = 1.0;
    a.aidw_rmax = 3.0;
    CHECK_NEAR(gk_aidw_mu(&a, 2.0), 0.5, 1e-14);
    a.aidw_rmin = 0.0;
    a.aidw_rmax = 2.0;

    /* r_exp of the unit square's corners: 1 / (2 sqrt(4 / 1)) = 0.25 */
    const double xs[] = {0, 1, 0, 1}, ys[] = {0, 0, 1, 1}, zs[] = {1, 2, 3, 4};
    tjob tj;
    a.aidw_k = 2;
    tjob_init(&tj, xs, ys, zs, 4, &a);
    CHECK_NEAR(tj.job.aidw_r_exp, 0.25, 1e-15);
    int nd;
    /* centre: r_obs = sqrt(0.5), R = 2.83 -> mu 1 -> alpha 3.5; all equidistant */
    CHECK_NEAR(node_value(&tj, 0.5, 0.5, &nd), 2.5, 1e-14);
    CHECK(node_value(&tj, 1, 1, &nd) == 4.0); /* exact hit */
    tjob_free(&tj);

    /* against an independent implementation: random points, all-points IDW */
    pset p;
    make_clustered(&p, 300);
    for (int pass = 0; pass < 2; pass++) {
        a = alg_of(GK_ALG_AIDW);
        a.aidw_k = 7;
        if (pass == 1) {
            a.radius1 = a.radius2 = 15;
            a.max_points = 20;
        }
        tjob_init(&tj, p.x, p.y, p.z, p.n, &a);
        double bx0 = INFINITY, bx1 = -INFINITY, by0 = INFINITY, by1 = -INFINITY;
        for (size_t i = 0; i < p.n; i++) {
            bx0 = fmin(bx0, p.x[i]);
            bx1 = fmax(bx1, p.x[i]);
            by0 = fmin(by0, p.y[i]);
            by1 = fmax(by1, p.y[i]);
        }
        double rexp = 1.0 / (2.0 * sqrt((double)p.n / ((bx1 - bx0) * (by1 - by0))));
        CHECK_NEAR(tj.job.aidw_r_exp, rexp, 1e-13);
        cand *c = malloc(p.n * sizeof *c);
        int bad = 0, seen[5] = {0};
        for (int q = 0; q < 200; q++) {
            double nx = bx0 + urand() * (bx1 - bx0), ny = by0 + urand() * (by1 - by0);
            for (size_t i = 0; i < p.n; i++) {
                c[i].d2 = bf_d2(&p, i, nx, ny);
                c[i].idx = (int)i;
            }
            qsort(c, p.n, sizeof *c, cand_cmp);
            double robs = 0;
            for (int i = 0; i < 7; i++)
                robs += sqrt(c[i].d2);
            robs /= 7;
            double R = robs / rexp, mu;
            if (R <= 0)
                mu = 0;
            else if (R >= 2)
                mu = 1;
            else
                mu = 0.5 - 0.5 * cos(M_PI * R / 2);
            /* alpha by explicit segments */
            double alpha;
            if (mu <= 0.1)
                alpha = 1.5;
            else if (mu <= 0.3)
                alpha = 1.5 + (mu - 0.1) / 0.2 * 0.5;
            else if (mu <= 0.5)
                alpha = 2.0 * (1 - 5 * (mu - 0.3)) + 5 * 2.5 * (mu - 0.3);
            else if (mu <= 0.7)
                alpha = 2.5 + (mu - 0.5) / 0.2 * 0.5;
            else if (mu < 0.9)
                alpha = 3.0 + (mu - 0.7) / 0.2 * 0.5;
            else
                alpha = 3.5;
            seen[mu <= 0.1 ? 0 : mu <= 0.3 ? 1 : mu <= 0.5 ? 2 : mu < 0.9 ? 3 : 4]++;
            double num = 0, den = 0;
            size_t used = pass == 0 ? p.n : 0;
            if (pass == 1)
                while (used < 20 && used < p.n && c[used].d2 <= 15.0 * 15.0)
                    used++;
            for (size_t i = 0; i < used; i++) {
                double w = pow(sqrt(c[i].d2), -alpha);
                num += w * p.z[c[i].idx];
                den += w;
            }
            double want = num / den;
            int ndf;
            double got = node_value(&tj, nx, ny, &ndf);
            if (used == 0 ? !ndf : (ndf || !(fabs(got - want) <= 1e-11 * (1 + fabs(want)))))
                bad++;
        }
        free(c);
        CHECK(bad == 0);
        if (pass == 0) /* the random nodes cover several membership ranges */
            CHECK(seen[0] + seen[1] + seen[2] > 0 && seen[3] + seen[4] > 0);
        tjob_free(&tj);
    }
    pset_free(&p);
}

/* ---- whole tiles against brute force ----------------------------------------------- */

static int bf_inside(const gk_ellipse *e, double dx, double dy)
{
    return gk_ellipse_contains(e, dx, dy);
}

/* Brute-force value of one node; returns 0 for nodata. */
static int bf_node(const gk_algorithm *a, const gk_ellipse *e, const pset *p, double nx,
                   double ny, double *v, cand *c)
{
    size_t n = 0;
    double s2 = a->smoothing * a->smoothing;
    for (size_t i = 0; i < p->n; i++) {
        double dx = p->x[i] - nx, dy = p->y[i] - ny;
        int in = a->kind == GK_ALG_INVDISTNN ? dx * dx + dy * dy <= a->radius1 * a->radius1
                                             : bf_inside(e, dx, dy);
        if (in) {
            c[n].d2 = dx * dx + dy * dy;
            c[n].idx = (int)i;
            n++;
        }
    }
    switch (a->kind) {
    case GK_ALG_INVDIST:
    case GK_ALG_INVDISTNN: {
        for (size_t i = 0; i < n; i++) /* c is in input order here */
            if (c[i].d2 + s2 < HIT2) {
                *v = p->z[c[i].idx];
                return 1;
            }
        qsort(c, n, sizeof *c, cand_cmp);
        size_t m = a->max_points > 0 && (size_t)a->max_points < n ? (size_t)a->max_points : n;
        if (m == 0 || m < (size_t)a->min_points)
            return 0;
        double num = 0, den = 0;
        for (size_t i = 0; i < m; i++) {
            double w = pow(c[i].d2 + s2, -a->power / 2);
            num += w * p->z[c[i].idx];
            den += w;
        }
        *v = num / den;
        return 1;
    }
    case GK_ALG_AVERAGE: {
        if (n == 0 || n < (size_t)a->min_points)
            return 0;
        double sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += p->z[c[i].idx];
        *v = sum / n;
        return 1;
    }
    case GK_ALG_NEAREST: {
        if (n == 0)
            return 0;
        size_t b = 0;
        for (size_t i = 1; i < n; i++)
            if (c[i].d2 <= c[b].d2)
                b = i; /* input order: <= keeps the last */
        *v = p->z[c[b].idx];
        return 1;
    }
    case GK_ALG_COUNT:
        *v = (double)n;
        return 1;
    case GK_ALG_AVERAGE_DISTANCE_PTS: {
        if (n < 2)
            return 0;
        double sum = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++)
                sum += sqrt(bf_d2(p, c[j].idx, p->x[c[i].idx], p->y[c[i].idx]));
        *v = sum / (n * (n - 1) / 2.0);
        return 1;
    }
    default:
        return 0;
    }
}

static void test_tiles_vs_bruteforce(void)
{
    pset sets[2];
    make_uniform(&sets[0], 1500);
    make_clustered(&sets[1], 1500);
    struct {
        gk_alg_kind kind;
        double r1, r2, angle, power, smoothing;
        int max_points, min_points;
    } cases[] = {
        {GK_ALG_INVDIST, 4, 4, 0, 2, 0, 0, 0},
        {GK_ALG_INVDIST, 4, 4, 0, 2, 0, 12, 3},
        {GK_ALG_INVDIST, 6, 2.5, 30, 3, 0.5, 10, 0},
        {GK_ALG_INVDIST, 5, 5, 45, 1.5, 0, 8, 0},
        {GK_ALG_INVDISTNN, 3, 3, 0, 2, 0, 12, 0},
        {GK_ALG_INVDISTNN, 3, 3, 0, 2.5, 0.2, 0, 2},
        {GK_ALG_INVDISTNN, 5, 5, 0, 2, 0, 100, 0},
        {GK_ALG_AVERAGE, 3, 5, 20, 2, 0, 0, 2},
        {GK_ALG_NEAREST, 2, 2, 0, 2, 0, 0, 0},
        {GK_ALG_NEAREST, 4, 1, 60, 2, 0, 0, 0},
        {GK_ALG_NEAREST, 0, 0, 0, 2, 0, 0, 0},
        {GK_ALG_COUNT, 3, 2, 10, 2, 0, 0, 0},
        {GK_ALG_AVERAGE_DISTANCE_PTS, 2, 2, 0, 2, 0, 0, 0},
    };
    int ncases = (int)(sizeof cases / sizeof cases[0]);
    gk_grid g = {-3.3, 103.3, -2.1, 102.7, 47, 41};
    double *out = malloc((size_t)g.nx * g.ny * sizeof *out);
    cand *c = malloc(1500 * sizeof *c);
    for (int si = 0; si < 2; si++) {
        for (int ci = 0; ci < ncases; ci++) {
            gk_algorithm a = alg_of(cases[ci].kind);
            a.radius1 = cases[ci].r1;
            a.radius2 = cases[ci].r2;
            a.angle = cases[ci].angle;
            a.power = cases[ci].power;
            a.smoothing = cases[ci].smoothing;
            a.max_points = cases[ci].max_points;
            a.min_points = cases[ci].min_points;
            tjob tj;
            tjob_init(&tj, sets[si].x, sets[si].y, sets[si].z, sets[si].n, &a);
            /* two tiles over the grid to exercise offsets */
            gk_scratch s = {0};
            int hw = g.nx / 2;
            double *left = malloc((size_t)hw * g.ny * sizeof *left);
            double *right = malloc((size_t)(g.nx - hw) * g.ny * sizeof *right);
            gk_tile t1 = {&g, 0, 0, hw, g.ny, HIT2}, t2 = {&g, hw, 0, g.nx - hw, g.ny, HIT2};
            uint64_t nd = fn_of(a.kind)(&tj.job, &t1, left, &s);
            nd += fn_of(a.kind)(&tj.job, &t2, right, &s);
            gk_scratch_free(&s);
            for (int j = 0; j < g.ny; j++) {
                for (int i = 0; i < hw; i++)
                    out[j * g.nx + i] = left[j * hw + i];
                for (int i = hw; i < g.nx; i++)
                    out[j * g.nx + i] = right[j * (g.nx - hw) + i - hw];
            }
            free(left);
            free(right);
            int bad = 0;
            uint64_t bnd = 0;
            for (int j = 0; j < g.ny; j++) {
                for (int i = 0; i < g.nx; i++) {
                    double v, nx = gk_grid_node_x(&g, i), ny = gk_grid_node_y(&g, j);
                    int ok = bf_node(&a, &tj.job.ell, &sets[si], nx, ny, &v, c);
                    double got = out[j * g.nx + i];
                    if (!ok) {
                        bnd++;
                        if (got != a.nodata)
                            bad++;
                    } else if (!(fabs(got - v) <= 1e-12 * (1 + fabs(v)))) {
                        if (bad < 3)
                            fprintf(stderr, "  node %d,%d: got %.17g want %.17g\n", i, j, got, v);
                        bad++;
                    }
                }
            }
            if (bad || nd != bnd)
                fprintf(stderr, "tiles: set %d case %d (kind %d): %d bad nodes, nodata %llu vs %llu\n",
                        si, ci, (int)a.kind, bad, (unsigned long long)nd,
                        (unsigned long long)bnd);
            CHECK(bad == 0);
            CHECK(nd == bnd);
            tjob_free(&tj);
        }
    }
    free(out);
    free(c);
    pset_free(&sets[0]);
    pset_free(&sets[1]);
}

/* ---- bucket-grid fast path of the window statistics ------------------------------- */

/* Reference for the window statistics: every point through gk_ellipse_contains. */
static int bg_ref(const gk_algorithm *a, const gk_ellipse *e, const pset *p, double nx,
                  double ny, double *v, int *in)
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
static long bg_check(const pset *p, gk_points *pts, const gk_grid *g, gk_alg_kind kind,
                     double r1, double r2, double angle, int min_points, double *out, int *in,
                     const char *what)
{
    gk_algorithm a = alg_of(kind);
    a.radius1 = r1;
    a.radius2 = r2;
    a.angle = angle;
    a.min_points = min_points;
    gk_job *job = gk_job_new(ctx, pts, &a);
    CHECK(job && job->bg && !job->tree);
    if (!job || !job->bg) {
        gk_job_free(job);
        return 0;
    }
    int exact = kind != GK_ALG_AVERAGE && kind != GK_ALG_AVERAGE_DISTANCE &&
                kind != GK_ALG_AVERAGE_DISTANCE_PTS;
    long tested = 0;
    double win[23 * 70];
    /* every mode must give mode 0's bytes (issue 22: sums exact, or one
     * order of addition, whatever the method, the tiling or the CPU) */
    size_t nn = (size_t)g->nx * g->ny;
    double *first = malloc(nn * sizeof *first);
    /* per-node scans (portable, AVX-512), then the row sweep and the tile
     * stamp (AVX-512 only: on a CPU without it, modes 1 to 4 are the
     * portable scan again); mode 4 stamps windows 23 x 70 of the grid, so
     * that tiles start at other nodes than 0 and hold two strips of rows */
    for (int mode = 0; mode < 5; mode++) {
        int simd = mode >= 1, sweep = mode >= 2 ? mode - 1 : 0;
        gk_bg_use_simd(job->bg, simd);
        gk_bg_force_method(job->bg, mode <= 1 ? GK_BG_SCAN : mode == 2 ? GK_BG_SWEEP : GK_BG_STAMP);
        if (mode < 4) {
            CHECK(gk_job_compute_window(job, g, 0, 0, g->nx, g->ny, out) == GK_OK);
        } else {
            for (int y0 = 0; y0 < g->ny; y0 += 70)
                for (int x0 = 0; x0 < g->nx; x0 += 23) {
                    int w = g->nx - x0 < 23 ? g->nx - x0 : 23, h = g->ny - y0 < 70 ? g->ny - y0 : 70;
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
                int ok = bg_ref(&a, &job->ell, p, gk_grid_node_x(g, i), gk_grid_node_y(g, j), &v,
                                in);
                int same = !ok ? got == a.nodata
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

static void test_bucket_grid(void)
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
    const gk_alg_kind kinds[] = {GK_ALG_AVERAGE, GK_ALG_COUNT, GK_ALG_MINIMUM,
                                 GK_ALG_MAXIMUM, GK_ALG_RANGE, GK_ALG_AVERAGE_DISTANCE,
                                 GK_ALG_AVERAGE_DISTANCE_PTS};
    const struct {
        double r1, r2, angle;
        int min_points;
    } ells[] = {
        {5, 5, 0, 0},   {5, 3, 30, 0},    {7, 2, -65, 2},   {4, 4, 45, 0},
        {6, 0.004, 10, 0}, {1000, 1000, 0, 0}, {0.3, 0.3, 0, 0}, {13, 5, 90, 4},
        {3, 4, 36.869897645844021, 0}, {6, 0.015, 10, 0}, {2.5, 2.5, 180, 1},
    };
    int nk = (int)(sizeof kinds / sizeof kinds[0]), ne = (int)(sizeof ells / sizeof ells[0]);
    gk_context_set_device(ctx, "cpu");
    int *in = malloc(4000 * sizeof *in);
    double *out = malloc(4000 * 9 * sizeof *out);
    long tested = 0;
    for (int si = 0; si < NSETS; si++) {
        /* nodes on the integer lattice (so lattice points sit on the boundaries),
         * reaching past the points */
        gk_grid g = {off[si] - 5.5, off[si] + 45.5, 10 * off[si] - 5.5, 10 * off[si] + 45.5, 51,
                     51};
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
        CHECK(job && !job->bg && job->tree);
        gk_job_free(job);
        a = alg_of(GK_ALG_COUNT);
        a.radius1 = a.radius2 = 5;
        a.min_points_per_quadrant = 1;
        job = gk_job_new(ctx, pts, &a);
        CHECK(job && !job->bg && job->tree);
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
    gk_grid g = {1e9 - 3 * q - q / 2, 1e9 + 6 * q - q / 2, 1e9 - q / 2, 1e9 + 4000 * q - q / 2, 9,
                 4000};
    tested += bg_check(&line, pts, &g, GK_ALG_COUNT, 8 * q, 8 * q, 0, 0, out, in, "tiny radius");
    tested += bg_check(&line, pts, &g, GK_ALG_AVERAGE, 8 * q, 3 * q, 25, 0, out, in,
                       "tiny radius");
    gk_points_free(pts);
    pset_free(&line);

    CHECK(tested > 100000);
    free(in);
    free(out);
    for (int si = 0; si < NSETS; si++)
        pset_free(&sets[si]);
}

/* ---- benchmark ------------------------------------------------------------------- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* One window statistic on the bucket grid over g in the engine's 256 x 256
 * tiles: ns per node of the per-node scan (AVX-512, portable) and of the row
 * sweep where it runs, and which one the rule picks. */
static void bench_window(gk_points *pts, gk_alg_kind kind, double r, const gk_grid *g,
                         const char *what, double *out)
{
    gk_algorithm a = alg_of(kind);
    a.radius1 = a.radius2 = r;
    double t0 = now();
    gk_job *job = gk_job_new(ctx, pts, &a);
    double t1 = now();
    if (!job || !job->bg) {
        gk_job_free(job);
        return;
    }
    const char *name[] = {"avx-512", "generic", "row sweep", "tile stamp"};
    int sweeps = kind == GK_ALG_AVERAGE || kind == GK_ALG_COUNT;
    for (int mode = 0; mode < 2 + 2 * sweeps; mode++) {
        gk_bg_use_simd(job->bg, mode != 1);
        gk_bg_force_method(job->bg, mode <= 1 ? GK_BG_SCAN : mode == 2 ? GK_BG_SWEEP : GK_BG_STAMP);
        double t2 = now();
        for (int y0 = 0; y0 < g->ny; y0 += 256)
            for (int x0 = 0; x0 < g->nx; x0 += 256)
                gk_job_compute_window(job, g, x0, y0, x0 + 256 > g->nx ? g->nx - x0 : 256,
                                      y0 + 256 > g->ny ? g->ny - y0 : 256, out);
        double t3 = now();
        printf("%s radius %g, %s (bucket grid, %s): prepare %.1f ms, %.0f ns/node\n",
               gk_algorithm_name(&a), r, what, name[mode], (t1 - t0) * 1e3,
               (t3 - t2) / ((double)g->nx * g->ny) * 1e9);
    }
    gk_bg_force_method(job->bg, -1);
    int m = gk_bg_method(job->bg, &job->ell, g,
                         kind == GK_ALG_COUNT ? GK_BG_COUNT : kind == GK_ALG_AVERAGE ? GK_BG_SUM_Z : -1);
    printf("  (the rule picks the %s)\n",
           m == GK_BG_STAMP ? "tile stamp" : m == GK_BG_SWEEP ? "row sweep" : "per-node scan");
    gk_job_free(job);
}

static int bench(void)
{
    size_t n = 200000;
    pset p;
    pset_alloc(&p, n);
    for (size_t i = 0; i < n; i++) {
        p.x[i] = urand() * 1000.0;
        p.y[i] = urand() * 1000.0;
        p.z[i] = urand();
    }
    double t0 = now();
    gk_kdtree *t = gk_kdtree_build(p.x, p.y, n);
    double t1 = now();
    printf("build %zu points: %.1f ms\n", n, (t1 - t0) * 1e3);
    int idx[64];
    double d2[64];
    int nq = 1000000;
    double sink = 0;
    /* grid-ordered queries, as the tiles issue them */
    int side = 1000;
    t0 = now();
    for (int q = 0; q < nq; q++) {
        double cx = (q % side + 0.5), cy = (q / side + 0.5);
        int m = gk_kdtree_knn(t, cx, cy, 12, INFINITY, idx, d2);
        sink += d2[m - 1];
    }
    t1 = now();
    printf("12-NN (grid order): %.0f ns/query\n", (t1 - t0) / nq * 1e9);
    t0 = now();
    for (int q = 0; q < nq; q++) {
        double cx = urand() * 1000.0, cy = urand() * 1000.0;
        int m = gk_kdtree_knn(t, cx, cy, 12, INFINITY, idx, d2);
        sink += d2[m - 1];
    }
    t1 = now();
    printf("12-NN (random order): %.0f ns/query\n", (t1 - t0) / nq * 1e9);
    t0 = now();
    for (int q = 0; q < nq; q++) {
        double cx = (q % side + 0.5), cy = (q / side + 0.5);
        sink += gk_kdtree_nearest(t, cx, cy, INFINITY, d2);
    }
    t1 = now();
    printf("nearest: %.0f ns/query\n", (t1 - t0) / nq * 1e9);
    int *bi = malloc(4096 * sizeof *bi);
    double *bd = malloc(4096 * sizeof *bd);
    t0 = now();
    for (int q = 0; q < nq; q++) {
        double cx = (q % side + 0.5), cy = (q / side + 0.5);
        sink += (double)gk_kdtree_radius(t, cx, cy, 100.0, bi, bd, 4096); /* ~63 points */
    }
    t1 = now();
    printf("radius 10 (~63 pts): %.0f ns/query\n", (t1 - t0) / nq * 1e9);
    free(bi);
    free(bd);

    /* invdistnn tile throughput */
    gk_algorithm a = alg_of(GK_ALG_INVDISTNN);
    a.radius1 = a.radius2 = 20;
    a.max_points = 12;
    tjob tj;
    tjob_init(&tj, p.x, p.y, p.z, n, &a);
    gk_grid g = {0, 1000, 0, 1000, 1000, 1000};
    double *out = malloc(sizeof *out * 1000 * 1000);
    gk_scratch s = {0};
    gk_tile tile = {&g, 0, 0, 1000, 1000, HIT2};
    t0 = now();
    gk_invdistnn_tile(&tj.job, &tile, out, &s);
    t1 = now();
    printf("invdistnn max_points=12 1000x1000 tile: %.0f ns/node\n", (t1 - t0) / 1e6 * 1e9);
    gk_scratch_free(&s);
    tjob_free(&tj);

    /* window statistics on the bucket grid: radius 10 (~63 points a node),
     * then the sweep against the per-node scan as the chord shrinks to a cell */
    gk_points *pts = gk_points_new(ctx);
    for (size_t i = 0; i < n; i++)
        gk_points_add(pts, p.x[i], p.y[i], p.z[i]);
    gk_context_set_threads(ctx, 1);
    const gk_alg_kind bk[] = {GK_ALG_AVERAGE, GK_ALG_COUNT,   GK_ALG_RANGE,   GK_ALG_AVERAGE_DISTANCE,
                              GK_ALG_AVERAGE, GK_ALG_AVERAGE, GK_ALG_AVERAGE, GK_ALG_AVERAGE,
                              GK_ALG_AVERAGE, GK_ALG_AVERAGE, GK_ALG_COUNT};
    const double br[] = {10, 10, 10, 10, 40, 20, 4, 2, 1, 0.5, 0.25};
    for (int k = 0; k < (int)(sizeof br / sizeof br[0]); k++)
        bench_window(pts, bk[k], br[k], &g, "cell 1", out);
    /* nodes sparser than the points: 4 units a cell */
    gk_grid g4 = {0, 1000, 0, 1000, 250, 250};
    bench_window(pts, GK_ALG_AVERAGE, 1, &g4, "cell 4", out);
    gk_points_free(pts);
    /* issue 4's end-to-end case in cells: 1,048,576 points on 4096^2 nodes
     * (0.0625 a cell), radius 25 m over 2.44 m cells (10.24 cells) */
    pts = gk_points_new(ctx);
    for (size_t i = 0; i < 62500; i++)
        gk_points_add(pts, urand() * 1000.0, urand() * 1000.0, urand());
    bench_window(pts, GK_ALG_AVERAGE, 10.24, &g, "0.0625 points a cell, issue 4's case", out);
    gk_points_free(pts);
    free(out);
    printf("(%g)\n", sink);
    gk_kdtree_free(t);
    pset_free(&p);
    return 0;
}

int main(int argc, char **argv)
{
    ctx = gk_context_new();
    if (argc > 1 && !strcmp(argv[1], "bench")) {
        int rc = bench();
        gk_context_free(ctx);
        return rc;
    }
    test_kdtree();
    test_sort();
    test_invdist();
    test_invdistnn();
    test_quadrants();
    test_quadrants_knn();
    test_average_nearest();
    test_metrics();
    test_aidw();
    test_tiles_vs_bruteforce();
    test_bucket_grid();
    gk_context_free(ctx);
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
