/* SPDX-License-Identifier: MIT */
/* test_delaunay.c - the core's Delaunay triangulation (algorithms/linear/delaunay.c):
 * validity on hard inputs, equality with GDAL's (qhull) on points in general
 * position, and timings. GK_DELAUNAY_BENCH=1 adds 200k / 1M timings vs GDAL. */
#define _POSIX_C_SOURCE 200809L
#include "linear/delaunay.h"
#include "io/triangulate_gdal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gk_check.h"

/* The same source built with every 3rd point moved to the end of the sweep
 * (tests/linear/delaunay.cmake), so inside-the-hull insertion gets exercised. */
int gk_delaunay_deferred(gk_context *ctx, int n, const double *x, const double *y,
                         gk_triangulation *tri);

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (rng >> 11) * (1.0 / 9007199254740992.0);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* ---- independent exact predicates (fma products, grow-expansion sums) ---- */

#define XMAX 4096
static void tsum(double a, double b, double *s, double *e)
{
    double x = a + b, bv = x - a, av = x - bv;
    *s = x;
    *e = (a - av) + (b - bv);
}
/* e += b (exact); e nonoverlapping, increasing. */
static int grow(double *e, int n, double b)
{
    double q = b, h;
    int m = 0;
    for (int i = 0; i < n; i++) {
        tsum(q, e[i], &q, &h);
        if (h != 0.0)
            e[m++] = h;
    }
    if (q != 0.0)
        e[m++] = q;
    return m;
}
static int add(double *e, int n, const double *f, int fn, double sign)
{
    for (int i = 0; i < fn; i++)
        n = grow(e, n, sign * f[i]);
    return n;
}
/* out = e * f (out must not alias). */
static int mul(const double *e, int en, const double *f, int fn, double *out)
{
    int n = 0;
    for (int i = 0; i < en; i++)
        for (int j = 0; j < fn; j++) {
            double p = e[i] * f[j], err = fma(e[i], f[j], -p);
            n = grow(out, n, err);
            n = grow(out, n, p);
        }
    return n;
}
static int diff(double a, double b, double *h)
{
    int n = 0;
    n = grow(h, n, a);
    return grow(h, n, -b);
}
static int xsign(const double *e, int n) { return n == 0 ? 0 : (e[n - 1] > 0 ? 1 : -1); }

static int x_orient(double ax, double ay, double bx, double by, double cx, double cy)
{
    double l = (ax - cx) * (by - cy), r = (ay - cy) * (bx - cx);
    if (fabs(l - r) > 1e-12 * (fabs(l) + fabs(r)))
        return l - r > 0 ? 1 : -1;
    double d1[2], d2[2], d3[2], d4[2], p[8], q[8], s[16];
    int n1 = diff(ax, cx, d1), n2 = diff(by, cy, d2), n3 = diff(ay, cy, d3), n4 = diff(bx, cx, d4);
    int np = mul(d1, n1, d2, n2, p), nq = mul(d3, n3, d4, n4, q);
    int ns = add(s, 0, p, np, 1.0);
    ns = add(s, ns, q, nq, -1.0);
    return xsign(s, ns);
}

static int x_incircle(const double *x, const double *y, int a, int b, int c, int d)
{
    double adx = x[a] - x[d], ady = y[a] - y[d], bdx = x[b] - x[d], bdy = y[b] - y[d];
    double cdx = x[c] - x[d], cdy = y[c] - y[d];
    double al = adx * adx + ady * ady, bl = bdx * bdx + bdy * bdy, cl = cdx * cdx + cdy * cdy;
    double t1 = bdx * cdy - cdx * bdy, t2 = cdx * ady - adx * cdy, t3 = adx * bdy - bdx * ady;
    double det = al * t1 + bl * t2 + cl * t3;
    double perm = al * (fabs(bdx * cdy) + fabs(cdx * bdy)) +
                  bl * (fabs(cdx * ady) + fabs(adx * cdy)) +
                  cl * (fabs(adx * bdy) + fabs(bdx * ady));
    if (fabs(det) > 1e-12 * perm)
        return det > 0 ? 1 : -1;
    static double D[6][2], P[8], Q[8], L[64], C[64], T[XMAX], S[XMAX];
    int nd[6], idx[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        nd[2 * k] = diff(x[idx[k]], x[d], D[2 * k]);
        nd[2 * k + 1] = diff(y[idx[k]], y[d], D[2 * k + 1]);
    }
    int ns = 0;
    for (int k = 0; k < 3; k++) {
        int i = 2 * k, j = 2 * ((k + 1) % 3), m = 2 * ((k + 2) % 3);
        /* lift(k) * (dx(k+1) dy(k+2) - dx(k+2) dy(k+1)) */
        int nl = 0, nc = 0, np, nq;
        np = mul(D[i], nd[i], D[i], nd[i], P);
        nl = add(L, nl, P, np, 1.0);
        np = mul(D[i + 1], nd[i + 1], D[i + 1], nd[i + 1], P);
        nl = add(L, nl, P, np, 1.0);
        np = mul(D[j], nd[j], D[m + 1], nd[m + 1], P);
        nq = mul(D[m], nd[m], D[j + 1], nd[j + 1], Q);
        nc = add(C, nc, P, np, 1.0);
        nc = add(C, nc, Q, nq, -1.0);
        int nt = mul(L, nl, C, nc, T);
        ns = add(S, ns, T, nt, 1.0);
    }
    return xsign(S, ns);
}

/* ---- validation ---------------------------------------------------------- */

static int cmp_int3(const void *a, const void *b)
{
    const int *p = a, *q = b;
    for (int k = 0; k < 3; k++)
        if (p[k] != q[k])
            return p[k] < q[k] ? -1 : 1;
    return 0;
}
static int cmp_i64(const void *a, const void *b)
{
    int64_t p = *(const int64_t *)a, q = *(const int64_t *)b;
    return p < q ? -1 : p > q;
}
static const double *g_x, *g_y;
static int cmp_xy(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    if (g_x[i] != g_x[j])
        return g_x[i] < g_x[j] ? -1 : 1;
    if (g_y[i] != g_y[j])
        return g_y[i] < g_y[j] ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* rep[i]: the first of the points coincident with i. Returns the number of
 * distinct points. */
static int first_occurrences(int n, const double *x, const double *y, int *rep)
{
    int *id = malloc(n * sizeof *id), m = 0;
    for (int i = 0; i < n; i++)
        id[i] = i;
    g_x = x, g_y = y;
    qsort(id, n, sizeof *id, cmp_xy);
    for (int k = 0, first = -1; k < n; k++) {
        int i = id[k];
        if (k == 0 || x[i] != x[id[k - 1]] || y[i] != y[id[k - 1]]) {
            first = i; /* ties sorted by index: the first in input order */
            m++;
        }
        rep[i] = first;
    }
    free(id);
    return m;
}

/* Convex hull area (monotone chain; collinear points dropped: same area). */
static double hull_area(int n, const double *x, const double *y, double ox, double oy)
{
    int *id = malloc(n * sizeof *id), *h = malloc(2 * (n + 1) * sizeof *h), k = 0;
    for (int i = 0; i < n; i++)
        id[i] = i;
    g_x = x, g_y = y;
    qsort(id, n, sizeof *id, cmp_xy);
    for (int t = 0; t < n; t++) { /* lower hull */
        int i = id[t];
        while (k >= 2 &&
               x_orient(x[h[k - 2]], y[h[k - 2]], x[h[k - 1]], y[h[k - 1]], x[i], y[i]) <= 0)
            k--;
        h[k++] = i;
    }
    for (int t = n - 2, lo = k + 1; t >= 0; t--) { /* upper hull */
        int i = id[t];
        while (k >= lo &&
               x_orient(x[h[k - 2]], y[h[k - 2]], x[h[k - 1]], y[h[k - 1]], x[i], y[i]) <= 0)
            k--;
        h[k++] = i;
    }
    k--; /* the first point closes the cycle */
    double a = 0.0;
    for (int t = 0; t < k; t++) {
        int i = h[t], j = h[(t + 1) % k];
        a += (x[i] - ox) * (y[j] - oy) - (x[j] - ox) * (y[i] - oy);
    }
    free(id);
    free(h);
    return 0.5 * a;
}

/* Every property of a valid Delaunay triangulation of the distinct points;
 * strict: of coincident points, the first in input order is the vertex. */
static void validate(const char *name, int n, const double *x, const double *y,
                     const gk_triangulation *tri, int strict)
{
    int nt = tri->n_tri, *v = tri->vertex, *nb = tri->neighbor, bad = 0;
    int *rep = malloc(n * sizeof *rep), *used = malloc(n * sizeof *used);
    for (int i = 0; i < n; i++)
        used[i] = -1;
    int nd = first_occurrences(n, x, y, rep);
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (int i = 0; i < n; i++) {
        xmin = fmin(xmin, x[i]), xmax = fmax(xmax, x[i]);
        ymin = fmin(ymin, y[i]), ymax = fmax(ymax, y[i]);
    }
    double ox = 0.5 * (xmin + xmax), oy = 0.5 * (ymin + ymax), area = 0.0;
    int64_t *edges = malloc(3 * (size_t)nt * sizeof *edges);
    int hull_edges = 0;
    for (int t = 0; t < nt && bad < 10; t++) {
        const int *tv = v + 3 * t;
        for (int k = 0; k < 3; k++) {
            int i = tv[k];
            if (i < 0 || i >= n || (strict && rep[i] != i) ||
                (used[rep[i]] >= 0 && used[rep[i]] != i)) {
                CHECKF(0, "%s: triangle %d has vertex %d (out of range or a duplicate)", name, t,
                       i);
                bad++;
                goto next;
            }
            used[rep[i]] = i;
        }
        if (x_orient(x[tv[0]], y[tv[0]], x[tv[1]], y[tv[1]], x[tv[2]], y[tv[2]]) <= 0) {
            CHECKF(0, "%s: triangle %d not counter-clockwise with positive area", name, t);
            bad++;
        }
        area += 0.5 * ((x[tv[1]] - x[tv[0]]) * (y[tv[2]] - y[tv[0]]) -
                       (y[tv[1]] - y[tv[0]]) * (x[tv[2]] - x[tv[0]]));
        for (int k = 0; k < 3; k++) {
            int a = tv[(k + 1) % 3], b = tv[(k + 2) % 3], u = nb[3 * t + k];
            edges[3 * t + k] = a < b ? (int64_t)a * n + b : (int64_t)b * n + a;
            if (u < 0) {
                hull_edges++;
                continue;
            }
            if (u >= nt) {
                CHECKF(0, "%s: neighbour %d out of range", name, u);
                bad++;
                continue;
            }
            /* u must hold the edge b -> a opposite some vertex w, and name t back. */
            int ku = -1;
            for (int j = 0; j < 3; j++)
                if (v[3 * u + (j + 1) % 3] == b && v[3 * u + (j + 2) % 3] == a)
                    ku = j;
            if (ku < 0 || nb[3 * u + ku] != t) {
                CHECKF(0, "%s: triangles %d/%d: neighbours not symmetric", name, t, u);
                bad++;
                continue;
            }
            int w = v[3 * u + ku];
            if (x_incircle(x, y, tv[0], tv[1], tv[2], w) > 0) {
                CHECKF(0, "%s: edge %d-%d not locally Delaunay", name, a, b);
                bad++;
            }
        }
    next:;
    }
    if (bad == 0) {
        qsort(edges, 3 * (size_t)nt, sizeof *edges, cmp_i64);
        int once = 0;
        for (size_t i = 0; i < 3 * (size_t)nt;) {
            size_t j = i;
            while (j < 3 * (size_t)nt && edges[j] == edges[i])
                j++;
            CHECKF(j - i <= 2, "%s: an edge is shared by %zu triangles", name, j - i);
            once += j - i == 1;
            i = j;
        }
        CHECKF(once == hull_edges, "%s: %d edges used once, %d hull edges", name, once, hull_edges);
        int nused = 0;
        for (int i = 0; i < n; i++)
            nused += used[i] >= 0;
        CHECKF(nused == nd, "%s: %d distinct points, %d vertices", name, nd, nused);
        /* The hull is one cycle, so hull vertices = hull edges. */
        CHECKF(nt == 2 * nd - hull_edges - 2, "%s: %d triangles, expected 2*%d - %d - 2", name, nt,
               nd, hull_edges);
        /* Positive triangles, manifold edges and total area = hull area: no overlap. */
        double ha = hull_area(n, x, y, ox, oy);
        CHECKF(fabs(area - ha) <= 1e-9 * ha, "%s: triangle area %.17g, hull area %.17g", name, area,
               ha);
    }
    free(edges);
    free(rep);
    free(used);
}

/* Triangles as sorted vertex triples, sorted. */
static int *canonical(const gk_triangulation *tri)
{
    int *c = malloc(3 * (size_t)tri->n_tri * sizeof *c);
    for (int t = 0; t < tri->n_tri; t++) {
        int a = tri->vertex[3 * t], b = tri->vertex[3 * t + 1], d = tri->vertex[3 * t + 2], s;
        if (a > b)
            s = a, a = b, b = s;
        if (b > d)
            s = b, b = d, d = s;
        if (a > b)
            s = a, a = b, b = s;
        c[3 * t] = a, c[3 * t + 1] = b, c[3 * t + 2] = d;
    }
    qsort(c, tri->n_tri, 3 * sizeof *c, cmp_int3);
    return c;
}

static void same_triangles(const char *name, const gk_triangulation *a, const gk_triangulation *b)
{
    CHECKF(a->n_tri == b->n_tri, "%s: %d vs %d triangles", name, a->n_tri, b->n_tri);
    if (a->n_tri != b->n_tri)
        return;
    int *ca = canonical(a), *cb = canonical(b);
    int diffs = 0;
    for (int t = 0; t < a->n_tri; t++)
        diffs += cmp_int3(ca + 3 * t, cb + 3 * t) != 0;
    CHECKF(diffs == 0, "%s: %d triangles differ", name, diffs);
    free(ca);
    free(cb);
}

static void tri_free(gk_triangulation *t)
{
    free(t->vertex);
    free(t->neighbor);
    t->vertex = t->neighbor = NULL;
}

/* Triangulates, validates, also with the deferred build; against GDAL if asked. */
static void run_case(gk_context *ctx, const char *name, int n, const double *x, const double *y,
                     int vs_gdal)
{
    gk_triangulation t, d, g;
    double t0 = now();
    int rc = gk_delaunay(ctx, n, x, y, &t);
    double t1 = now();
    CHECKF(rc == GK_OK, "%s: gk_delaunay: %s", name, gk_errmsg(ctx));
    if (rc != GK_OK)
        return;
    validate(name, n, x, y, &t, 1);
    char dname[128];
    snprintf(dname, sizeof dname, "%s (deferred)", name);
    rc = gk_delaunay_deferred(ctx, n, x, y, &d);
    CHECKF(rc == GK_OK, "%s: %s", dname, gk_errmsg(ctx));
    if (rc == GK_OK) {
        /* Deferring breaks the input-order rule for coincident points. */
        validate(dname, n, x, y, &d, 0);
        if (vs_gdal)
            same_triangles(dname, &t, &d); /* Delaunay is unique in general position */
        tri_free(&d);
    }
    if (vs_gdal) {
        rc = gk_gdal_triangulate(NULL, n, x, y, &g);
        CHECKF(rc == GK_OK, "%s: GDAL failed", name);
        if (rc == GK_OK) {
            same_triangles(name, &t, &g);
            tri_free(&g);
        }
    }
    printf("%-34s n=%-7d %7d triangles  %8.2f ms\n", name, n, t.n_tri, 1e3 * (t1 - t0));
    tri_free(&t);
}

static void random_case(gk_context *ctx, const char *name, int n, double ox, double oy, double w,
                        int vs_gdal)
{
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (int i = 0; i < n; i++) {
        x[i] = ox + w * urand();
        y[i] = oy + w * urand();
    }
    run_case(ctx, name, n, x, y, vs_gdal);
    free(x);
    free(y);
}

static void test_duplicates(gk_context *ctx)
{
    int n = 6000, m = 1500;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (int i = 0; i < m; i++) {
        x[i] = 100.0 * urand();
        y[i] = 100.0 * urand();
    }
    for (int i = m; i < n; i++) { /* copies of earlier points, and of copies */
        int j = (int)(urand() * i);
        x[i] = x[j];
        y[i] = y[j];
    }
    /* Shuffle so the first occurrence is not always the lowest pool index. */
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(urand() * (i + 1));
        double s = x[i];
        x[i] = x[j], x[j] = s;
        s = y[i], y[i] = y[j], y[j] = s;
    }
    run_case(ctx, "random with duplicates", n, x, y, 0);
    /* A -0.0 / 0.0 pair and triple copies of the hull corners. */
    double sx[9] = {0.0, -0.0, 1, 1, 0, 1, 0.5, 0.25, 1},
           sy[9] = {0.0, 0.0, 0, 1, 1, 1, 0.5, 0.6, 0};
    run_case(ctx, "signed zero and corner copies", 9, sx, sy, 0);
    free(x);
    free(y);
}

static void grid_case(gk_context *ctx, const char *name, int nx, int ny, double ox, double oy,
                      double step, int shuffle)
{
    int n = nx * ny;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            x[j * nx + i] = ox + i * step;
            y[j * nx + i] = oy + j * step;
        }
    for (int i = n - 1; shuffle && i > 0; i--) {
        int j = (int)(urand() * (i + 1));
        double s = x[i];
        x[i] = x[j], x[j] = s;
        s = y[i], y[i] = y[j], y[j] = s;
    }
    run_case(ctx, name, n, x, y, 0);
    free(x);
    free(y);
}

static void test_near_collinear(gk_context *ctx)
{
    int n = 3000;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    /* Points on y = 0.3 x + 0.1 in double arithmetic (off the exact line by
     * roundoff), a few perturbed by 1e-13, and 2 points well off the line. */
    for (int i = 0; i < n - 2; i++) {
        x[i] = 1000.0 * urand();
        y[i] = 0.3 * x[i] + 0.1 + (i % 7 == 0 ? 1e-13 * (urand() - 0.5) : 0.0);
    }
    x[n - 2] = 500.0, y[n - 2] = 300.0;
    x[n - 1] = 200.0, y[n - 1] = -100.0;
    run_case(ctx, "near-collinear + 2 apexes", n, x, y, 0);
    /* Exactly collinear (integers) plus one apex: a fan. */
    for (int i = 0; i < n - 1; i++) {
        x[i] = i;
        y[i] = 2 * i;
    }
    x[n - 1] = 10.0, y[n - 1] = 0.0;
    run_case(ctx, "collinear integers + apex", n, x, y, 0);
    /* Near-cocircular: points on a circle (rounded) and its centre. */
    for (int i = 0; i < n - 1; i++) {
        double a = 6.283185307179586 * i / (n - 1);
        x[i] = 500000.0 + 1000.0 * cos(a);
        y[i] = 5000000.0 + 1000.0 * sin(a);
    }
    x[n - 1] = 500000.0, y[n - 1] = 5000000.0;
    run_case(ctx, "circle (UTM)", n, x, y, 0);
    free(x);
    free(y);
}

static void test_refused(gk_context *ctx)
{
    gk_triangulation t;
    double x[4] = {0, 1, 2, 3}, y[4] = {0, 1, 2, 3};
    CHECKF(gk_delaunay(ctx, 4, x, y, &t) == GK_ERR_ARG && t.n_tri == 0 && !t.vertex,
           "collinear input must be refused");
    CHECKF(gk_delaunay(ctx, 2, x, y, &t) == GK_ERR_ARG && t.n_tri == 0, "2 points refused");
    double cx[5] = {7, 7, 7, 7, 7}, cy[5] = {1, 1, 1, 1, 1};
    CHECKF(gk_delaunay(ctx, 5, cx, cy, &t) == GK_ERR_ARG && t.n_tri == 0, "coincident refused");
    /* 3 distinct points, one duplicated: one triangle. */
    double dx[4] = {0, 1, 0, 1}, dy[4] = {0, 0, 1, 0};
    CHECKF(gk_delaunay(ctx, 4, dx, dy, &t) == GK_OK && t.n_tri == 1, "one triangle");
    if (t.n_tri == 1)
        CHECKF(t.vertex[0] != 3 && t.vertex[1] != 3 && t.vertex[2] != 3,
               "the first of coincident points is the vertex");
    tri_free(&t);
    double nx[3] = {0, NAN, 1}, ny[3] = {0, 1, 1};
    CHECKF(gk_delaunay(ctx, 3, nx, ny, &t) == GK_ERR_ARG, "NaN refused");
}

/* The parallel path (strips joined) against the sweep: the same triangles
 * whenever it answers; it must answer on points in general position and
 * hand back (0) on cocircular or coincident ones, whose ties the sweep decides. */
static void strips_case(const char *name, int n, const double *x, const double *y, int must)
{
    gk_context *one = gk_context_new();
    gk_context_set_threads(one, 1); /* the sweep alone */
    gk_triangulation t, p;
    int rc = gk_delaunay(one, n, x, y, &t);
    CHECKF(rc == GK_OK, "%s: sweep: %s", name, gk_errmsg(one));
    static const int ks[] = {2, 3, 5, 16, 64};
    int done = 0;
    double tp = 0.0;
    for (size_t i = 0; rc == GK_OK && i < sizeof ks / sizeof *ks; i++) {
        double t0 = now();
        int r = gk_delaunay_strips(n, x, y, ks[i], 2, &p);
        tp = now() - t0;
        char nm[160];
        snprintf(nm, sizeof nm, "%s (%d strips)", name, ks[i]);
        CHECKF(r == 1 || r == 0, "%s: strips returned %d", nm, r);
        if (must)
            CHECKF(r == 1, "%s: the strips gave up on points in general position", nm);
        if (r == 1) {
            done++;
            validate(nm, n, x, y, &p, 1);
            same_triangles(nm, &t, &p);
            tri_free(&p);
        } else {
            CHECKF(p.n_tri == 0 && !p.vertex && !p.neighbor, "%s: gave up but left triangles", nm);
        }
    }
    printf("%-34s n=%-7d strips joined %d of 5 times (64 strips: %.2f ms)\n", name, n, done,
           1e3 * tp);
    if (rc == GK_OK)
        tri_free(&t);
    gk_context_free(one);
}

static void test_strips(void)
{
    int n = 150000;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (int i = 0; i < n; i++)
        x[i] = 1000.0 * urand(), y[i] = 1000.0 * urand();
    strips_case("strips: random", n, x, y, 1);
    for (int i = 0; i < n; i++)
        x[i] = 500000.0 + 10000.0 * urand(), y[i] = 5000000.0 + 10000.0 * urand();
    strips_case("strips: random UTM", n, x, y, 1);
    for (int i = 0; i < n; i++)
        x[i] = 10.25 + 0.02 * urand(), y[i] = 45.5 + 0.01 * urand();
    strips_case("strips: random lat/lon", n, x, y, 1);
    for (int i = 0; i < n; i++) /* wide and flat */
        x[i] = 1e6 * urand(), y[i] = 10.0 * urand();
    strips_case("strips: 1e6 x 10", n, x, y, 1);
    for (int i = 0; i < n; i++) { /* clusters of very different density */
        int c = i % 7;
        double r = (c + 1) * (c + 1) * urand(), a = 6.283185307179586 * urand();
        x[i] = 100.0 * c + r * cos(a) * (i % 3 ? 1.0 : 30.0);
        y[i] = 50.0 * (c % 3) + r * sin(a);
    }
    strips_case("strips: clusters", n, x, y, 0);
    for (int i = 0; i < n; i++) /* shared x: points on 300 columns */
        x[i] = (double)(int)(300.0 * urand()), y[i] = 1000.0 * urand();
    strips_case("strips: 300 columns", n, x, y, 0);
    for (int i = 0; i < n; i++) /* integers: cocircular quadruples */
        x[i] = (double)(int)(400.0 * urand()), y[i] = (double)(int)(400.0 * urand());
    strips_case("strips: random integers", n, x, y, 0);
    int nx = 380; /* nx * nx <= n */
    for (int i = 0; i < nx * nx; i++)
        x[i] = i % nx, y[i] = i / nx;
    strips_case("strips: integer grid", nx * nx, x, y, 0);
    for (int i = 0; i < n; i++) { /* every point twice */
        x[i] = i % 2 ? x[i - 1] : 1000.0 * urand();
        y[i] = i % 2 ? y[i - 1] : 1000.0 * urand();
    }
    strips_case("strips: duplicates", n, x, y, 0);
    for (int i = 0; i < n; i++) { /* half on the line x = 0: cuts at 0, strips empty */
        x[i] = i % 2 ? 0.0 : 1.0 + 999.0 * urand();
        y[i] = 1000.0 * urand();
    }
    strips_case("strips: half on one line", n, x, y, 0);
    for (int i = 0; i < n; i++) /* two lines: every strip collinear */
        x[i] = (double)(i % 2), y[i] = 1000.0 * urand();
    strips_case("strips: two lines", n, x, y, 0);
    free(x);
    free(y);
    /* gk_delaunay takes the strips on several threads: against GDAL. */
    gk_context *four = gk_context_new();
    gk_context_set_threads(four, 4);
    random_case(four, "random 100k on 4 threads", 100000, 500000.0, 5000000.0, 10000.0, 1);
    gk_context_free(four);
}

static void bench(gk_context *ctx, int n)
{
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (int i = 0; i < n; i++) {
        x[i] = 500000.0 + 10000.0 * urand();
        y[i] = 5000000.0 + 10000.0 * urand();
    }
    gk_triangulation t, g;
    double t0 = now();
    int rc = gk_delaunay(ctx, n, x, y, &t);
    double t1 = now();
    int rg = gk_gdal_triangulate(NULL, n, x, y, &g);
    double t2 = now();
    CHECKF(rc == GK_OK && rg == GK_OK, "bench %d", n);
    if (rc == GK_OK && rg == GK_OK)
        same_triangles("bench", &t, &g);
    printf("bench n=%d: gk_delaunay %.3f s, GDAL (qhull) %.3f s\n", n, t1 - t0, t2 - t1);
    tri_free(&t);
    tri_free(&g);
    free(x);
    free(y);
}

int main(void)
{
    gk_context *ctx = gk_context_new();
    test_refused(ctx);
    random_case(ctx, "random 1k", 1000, 0.0, 0.0, 1.0, 1);
    random_case(ctx, "random 50k", 50000, -3.0, 7.0, 1000.0, 1);
    random_case(ctx, "random 50k UTM offset", 50000, 500000.0, 5000000.0, 10000.0, 1);
    random_case(ctx, "random 20k lat/lon 0.02 deg box", 20000, 10.25, 45.5, 0.02, 1);
    test_duplicates(ctx);
    grid_case(ctx, "integer grid 150x150", 150, 150, 0.0, 0.0, 1.0, 0);
    grid_case(ctx, "integer grid 120x80 shuffled", 120, 80, -60.0, 1000.0, 1.0, 1);
    grid_case(ctx, "UTM grid 100x100 step 0.5", 100, 100, 500000.0, 5000000.0, 0.5, 1);
    grid_case(ctx, "lat/lon grid 1e-4 apart", 120, 120, 10.0, 45.0, 1e-4, 1);
    test_near_collinear(ctx);
    test_strips();
    {
        int n = 200000;
        double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
        for (int i = 0; i < n; i++)
            x[i] = 1000.0 * urand(), y[i] = 1000.0 * urand();
        gk_triangulation t;
        double t0 = now();
        CHECKF(gk_delaunay(ctx, n, x, y, &t) == GK_OK, "200k");
        printf("gk_delaunay, 200k random points: %.3f s\n", now() - t0);
        tri_free(&t);
        free(x);
        free(y);
    }
    const char *b = getenv("GK_DELAUNAY_BENCH");
    if (b && *b && *b != '0') {
        bench(ctx, 200000);
        bench(ctx, 1000000);
    }
    gk_context_free(ctx);
    if (failures)
        fprintf(stderr, "%d failure(s) of %d checks\n", failures, checks);
    else
        printf("all delaunay tests passed (%d checks)\n", checks);
    return failures ? 1 : 0;
}
