/* SPDX-License-Identifier: MIT */
/*
 * delaunay_sweep.c - Delaunay triangulation by a radial sweep ("sweep-hull"),
 * below both gk_delaunay (delaunay.c) and the parallel strips
 * (delaunay_strips.c), which call it.
 *
 * A seed triangle is taken near the bbox centre; every other point is
 * inserted in order of distance from the seed's circumcentre, so it usually
 * lies outside the convex hull built so far: it is joined to the hull edges
 * it sees (found through a hash of the hull by angle) and Lawson flips restore
 * the Delaunay property. A point the order got wrong (inside the hull through
 * roundoff of the sort key) is located by a walk and inserted inside instead,
 * and a point coincident with a vertex is skipped, so no distinct point is
 * ever lost.
 *
 * Orientation and incircle are exact: a floating-point filter with Shewchuk's
 * error bounds, then expansion arithmetic (error-free sums and products) when
 * the filter cannot decide. So integer grids (cocircular quadruples),
 * slivers, lat/lon and UTM coordinates never invert a triangle or make a flip
 * loop. The predicates take the input coordinates as they are (the exact
 * stage also carries the roundoff of the differences), so they stay exact
 * at any offset; the seed choice and the sort keys use coordinates relative
 * to a local origin (bbox centre, first seed).
 *
 * Triangles are stored as half-edges: edge e of triangle e/3 runs from V(e)
 * to V(next(e)), counter-clockwise; H(e) is the opposite half-edge or -1 on
 * the hull (both in one array, for locality). Vertices are numbered in sweep
 * order internally (locality) and mapped back to input indices at the end.
 */
#include "delaunay_sweep.h"
#include "core/big_alloc.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__)
/* The error-free transformations (exact_predicates.h, which says so too) must
 * not be fused into fma. (GCC's ISO C mode does not contract; clang would.) */
#pragma STDC FP_CONTRACT OFF
#endif

/* ---- exact predicates --------------------------------------------------- */

/* The exact stages are rare: keep them out of the hot loops. */
#if defined(__GNUC__)
#define GK_COLD __attribute__((noinline, cold))
#else
#define GK_COLD
#endif

/* Error-free arithmetic and the orientation's exact stage: exact_predicates.h
 * (shared with the CUDA module). */
GK_COLD int gk_orient_exact(const double *a, const double *b, const double *c)
{
    return gk_orient_expansion(a, b, c);
}

/* lift * det, both of up to 16 terms; h holds 512. */
static int lift_times(int ndx, const double *dx, int ndy, const double *dy, int nd,
                      const double *det, double *h)
{
    double l[16], t1[32], t2[512], a[8], b[8], u1[4], u2[8];
    int na = exp_mul(ndx, dx, ndx, dx, a, u1, u2);
    int nb = exp_mul(ndy, dy, ndy, dy, b, u1, u2);
    int nl = exp_sum(na, a, nb, b, l);
    return exp_mul(nl, l, nd, det, h, t1, t2);
}

GK_COLD int gk_incircle_exact(const double *a, const double *b, const double *c, const double *d)
{
    double adx[2], ady[2], bdx[2], bdy[2], cdx[2], cdy[2];
    int nax = exp_diff(a[0], d[0], adx), nay = exp_diff(a[1], d[1], ady);
    int nbx = exp_diff(b[0], d[0], bdx), nby = exp_diff(b[1], d[1], bdy);
    int ncx = exp_diff(c[0], d[0], cdx), ncy = exp_diff(c[1], d[1], cdy);
    double bc[16], ca[16], ab[16];
    int nbc = exp_cross(nbx, bdx, ncy, cdy, ncx, cdx, nby, bdy, bc);
    int nca = exp_cross(ncx, cdx, nay, ady, nax, adx, ncy, cdy, ca);
    int nab = exp_cross(nax, adx, nby, bdy, nbx, bdx, nay, ady, ab);
    double ta[512], tb[512], tc[512], s1[1024], s2[1536];
    int n1 = lift_times(nax, adx, nay, ady, nbc, bc, ta);
    int n2 = lift_times(nbx, bdx, nby, bdy, nca, ca, tb);
    int n3 = lift_times(ncx, cdx, ncy, cdy, nab, ab, tc);
    int m = exp_sum(n1, ta, n2, tb, s1);
    m = exp_sum(m, s1, n3, tc, s2);
    return exp_sign(m, s2);
}

/* ---- the triangulation -------------------------------------------------- */

typedef struct {
    const double *xy; /* 2 per vertex, sweep order */
    int *vh;          /* 2 per half-edge: origin, opposite (-1 = hull) */
    int nt;           /* triangles so far */
    /* The hull, counter-clockwise: htri[v] is the half-edge v -> hnext[v];
     * hnext[v] == v marks a vertex no longer on the hull. */
    int *hnext, *hprev, *htri;
    int *hash, hsize; /* hull vertices by pseudo-angle around (hcx, hcy) */
    double hcx, hcy;
    int *stack; /* edges to legalize (depth <= flips around one apex < n) */
    long zeros; /* cocircular quadruples met (exact incircle 0) */
} dt_state;

static inline int e_next(int e) { return e % 3 == 2 ? e - 2 : e + 1; }
static inline int e_prev(int e) { return e % 3 == 0 ? e + 2 : e - 1; }
#define PT(d, v) ((d)->xy + 2 * (size_t)(v))
/* Origin and opposite of half-edge e (of the dt_state named d in scope). */
#define V(e) d->vh[2 * (size_t)(e)]
#define H(e) d->vh[2 * (size_t)(e) + 1]

static inline void pair(dt_state *d, int e, int f)
{
    H(e) = f;
    if (f >= 0)
        H(f) = e;
}

static int add_tri(dt_state *d, int a, int b, int c)
{
    int e = 3 * d->nt++;
    V(e) = a;
    V(e + 1) = b;
    V(e + 2) = c;
    H(e) = H(e + 1) = H(e + 2) = -1;
    return e;
}

static int hash_key(const dt_state *d, const double *p)
{
    /* Pseudo-angle in [0, 1], increasing counter-clockwise, like the hull. */
    double dx = p[0] - d->hcx, dy = p[1] - d->hcy, s = fabs(dx) + fabs(dy);
    double q = s > 0.0 ? dx / s : 0.0;
    int k = (int)((dy > 0.0 ? 3.0 - q : 1.0 + q) * 0.25 * d->hsize);
    return k >= d->hsize ? k - d->hsize : (k < 0 ? 0 : k);
}

/* Flips edge e if needed, and then every edge the flips expose opposite the same
 * apex, until each is locally Delaunay. Only strict incircle violations flip
 * (cocircular quadruples stay), so this ends and never inverts a triangle. */
static void legalize(dt_state *d, int e)
{
    int sp = 0;
    for (;;) {
        int f = H(e);
        if (f >= 0) {
            int e1 = e_next(e), e2 = e_prev(e), f1 = e_next(f), f2 = e_prev(f);
            int a = V(e), b = V(e1), p1 = V(e2), p2 = V(f2);
            int ic = gk_incircle(PT(d, a), PT(d, b), PT(d, p1), PT(d, p2));
            d->zeros += ic == 0;
            if (ic > 0) {
                /* (a, b, p1) + (b, a, p2) -> (p2, b, p1) + (p1, a, p2). */
                int he2 = H(e2), hf2 = H(f2);
                V(e) = p2;
                V(f) = p1;
                pair(d, e, hf2);
                if (hf2 < 0)
                    d->htri[p2] = e;
                pair(d, f, he2);
                if (he2 < 0)
                    d->htri[p1] = f;
                pair(d, e2, f2);
                /* Both new edges opposite p1: e (p2 -> b) now, f1 (a -> p2) later. */
                d->stack[sp++] = f1;
                continue;
            }
        }
        if (sp == 0)
            return;
        e = d->stack[--sp];
    }
}

/* p strictly inside triangle e/3: split it in three. */
static void split_triangle(dt_state *d, int p, int e)
{
    int e0 = e - e % 3, e1 = e0 + 1, e2 = e0 + 2;
    int a = V(e0), b = V(e1), c = V(e2);
    int hbc = H(e1), hca = H(e2);
    V(e2) = p; /* (a, b, p) */
    int t1 = add_tri(d, b, c, p), t2 = add_tri(d, c, a, p);
    pair(d, t1, hbc);
    if (hbc < 0)
        d->htri[b] = t1;
    pair(d, t2, hca);
    if (hca < 0)
        d->htri[c] = t2;
    pair(d, e1, t1 + 2);
    pair(d, e2, t2 + 1);
    pair(d, t1 + 1, t2 + 2);
    legalize(d, e0);
    legalize(d, t1);
    legalize(d, t2);
}

/* p on the inside of edge e (a -> b): split its one or two triangles. */
static void split_edge(dt_state *d, int p, int e)
{
    int e1 = e_next(e), e2 = e_prev(e), f = H(e);
    int a = V(e), c = V(e2);
    int b = V(e1);
    int hca = H(e2);
    V(e) = p; /* (p, b, c) */
    int t1 = add_tri(d, a, p, c);
    pair(d, t1 + 1, e2);
    pair(d, t1 + 2, hca);
    if (hca < 0)
        d->htri[c] = t1 + 2;
    if (f >= 0) {
        int f1 = e_next(f), f2 = e_prev(f), dv = V(f2), hdb = H(f2);
        V(f) = p; /* (p, a, dv) */
        int t3 = add_tri(d, b, p, dv);
        pair(d, f, t1);
        pair(d, e, t3);
        pair(d, f2, t3 + 1);
        pair(d, t3 + 2, hdb);
        if (hdb < 0)
            d->htri[dv] = t3 + 2;
        legalize(d, e1);
        legalize(d, t1 + 2);
        legalize(d, f1);
        legalize(d, t3 + 2);
    } else {
        /* A hull edge: p joins the hull between a and b. */
        H(e) = -1;
        d->htri[a] = t1;
        d->htri[p] = e;
        d->hnext[a] = p;
        d->hprev[p] = a;
        d->hnext[p] = b;
        d->hprev[b] = p;
        d->hash[hash_key(d, PT(d, p))] = p;
        legalize(d, e1);
        legalize(d, t1 + 2);
    }
}

/* Classifies p against triangle t: -1 crosses edge *e, 0 at a vertex,
 * 1 inside (*e = -1) or on edge *e. */
static int classify(const dt_state *d, int p, int t, int *e)
{
    int zero = -1, nzero = 0;
    for (int k = 0; k < 3; k++) {
        int ed = 3 * t + k;
        int o = gk_orient(PT(d, V(ed)), PT(d, V(e_next(ed))), PT(d, p));
        if (o < 0) {
            *e = ed;
            return -1;
        }
        if (o == 0) {
            zero = ed;
            nzero++;
        }
    }
    *e = zero;
    return nzero >= 2 ? 0 : 1;
}

/* p sees no hull edge: it is inside the hull (or a duplicate). Walk from a
 * hull triangle (a visibility walk ends in a Delaunay triangulation; the step
 * cap and the scan are insurance). 1 inserted, 0 duplicate, -1 failure. */
static int insert_inside(dt_state *d, int p, int start)
{
    int t = d->htri[start] / 3, e = -1, c = -2;
    for (long step = 0; step <= 4L * d->nt + 16; step++) {
        c = classify(d, p, t, &e);
        if (c >= 0)
            break;
        if (H(e) < 0)
            return -1; /* outside the hull after all */
        t = H(e) / 3;
    }
    for (int u = 0; c < 0 && u < d->nt; u++) {
        t = u;
        c = classify(d, p, t, &e);
    }
    if (c < 0)
        return -1;
    if (c == 0)
        return 0;
    if (e < 0)
        split_triangle(d, p, 3 * t);
    else
        split_edge(d, p, e);
    return 1;
}

/* Sweep order: by squared distance from (cx, cy), ties in input order (so the
 * first of coincident points is the one inserted). LSD radix sort of a 32-bit
 * key with the index in the low half, in w (2n words); the order is left in
 * place as ints at the start of w. dmax bounds every squared distance. */
static int *sweep_order(int n, const double *x, const double *y, double cx, double cy, double dmax,
                        uint64_t *w)
{
    uint64_t *a = w, *b = w + n;
    double scale = dmax > 0.0 ? 4294967040.0 / dmax : 0.0;
    for (int i = 0; i < n; i++) {
        double dx = x[i] - cx, dy = y[i] - cy, q = (dx * dx + dy * dy) * scale;
        a[i] = ((uint64_t)(uint32_t)(q < 4294967040.0 ? q : 4294967040.0) << 32) | (uint32_t)i;
    }
    size_t count[256];
    for (int shift = 32; shift < 64; shift += 8) { /* 4 passes: the result ends in a */
        memset(count, 0, sizeof count);
        for (int i = 0; i < n; i++)
            count[(a[i] >> shift) & 255]++;
        size_t sum = 0;
        for (int k = 0; k < 256; k++) {
            size_t c = count[k];
            count[k] = sum;
            sum += c;
        }
        for (int i = 0; i < n; i++)
            b[count[(a[i] >> shift) & 255]++] = a[i];
        uint64_t *t = a;
        a = b;
        b = t;
    }
    int *order = (int *)w; /* int k is written behind word k, already read */
    for (int i = 0; i < n; i++)
        order[i] = (int)(uint32_t)a[i];
    return order;
}

static int sweep_fail(gk_triangulation *tri, gk_dt_info *info, int code, const char *why)
{
    free(tri->vertex);
    free(tri->neighbor);
    tri->vertex = tri->neighbor = NULL;
    tri->n_tri = 0;
    info->why = why;
    return code;
}

/* The seed triangle: the point nearest the bbox centre, the nearest distinct
 * point to it, and the point that makes the smallest circumcircle with them;
 * the sweep's centre is that circle's. */
typedef struct {
    double xmin, xmax, ymin, ymax; /* the bbox */
    double hcx, hcy;               /* the centre of the sweep */
    int i0, i1, i2;                /* input indices */
} dt_seeds;

/* NULL, or why there is no seed triangle. */
static const char *sweep_seeds(int n, const double *x, const double *y, dt_seeds *sd)
{
    /* Local origin: the bbox centre; the first seed is the point nearest it. */
    double xmin = x[0], xmax = x[0], ymin = y[0], ymax = y[0];
    for (int i = 0; i < n; i++) {
        xmin = x[i] < xmin ? x[i] : xmin;
        xmax = x[i] > xmax ? x[i] : xmax;
        ymin = y[i] < ymin ? y[i] : ymin;
        ymax = y[i] > ymax ? y[i] : ymax;
    }
    double ox = 0.5 * (xmin + xmax), oy = 0.5 * (ymin + ymax);
    int i0 = 0, i1 = -1, i2 = -1;
    double best = INFINITY;
    for (int i = 0; i < n; i++) {
        double dx = x[i] - ox, dy = y[i] - oy, q = dx * dx + dy * dy;
        if (q < best) {
            best = q;
            i0 = i;
        }
    }
    /* Second seed: the nearest distinct point; third: the smallest circumcircle. */
    best = INFINITY;
    for (int i = 0; i < n; i++) {
        double dx = x[i] - x[i0], dy = y[i] - y[i0], q = dx * dx + dy * dy;
        if ((x[i] != x[i0] || y[i] != y[i0]) && q < best) {
            best = q;
            i1 = i;
        }
    }
    if (i1 < 0)
        return "all points coincide";
    double bx = x[i1] - x[i0], by = y[i1] - y[i0], ccx = 0.0, ccy = 0.0;
    best = INFINITY;
    const double sa[2] = {x[i0], y[i0]}, sb[2] = {x[i1], y[i1]};
    for (int i = 0; i < n; i++) {
        double ex = x[i] - x[i0], ey = y[i] - y[i0], den = bx * ey - by * ex;
        double cx = 0.0, cy = 0.0, r2 = INFINITY;
        if (den != 0.0) {
            double bl = bx * bx + by * by, el = ex * ex + ey * ey;
            cx = (ey * bl - by * el) * 0.5 / den;
            cy = (bx * el - ex * bl) * 0.5 / den;
            r2 = cx * cx + cy * cy;
            if (!(r2 < INFINITY))
                r2 = INFINITY; /* overflow or NaN */
        }
        /* Roundoff may call a triangle flat or not: the exact test decides. */
        if (!(r2 < best) && i2 >= 0)
            continue;
        const double sc[2] = {x[i], y[i]};
        if (gk_orient(sa, sb, sc) == 0)
            continue;
        best = r2;
        i2 = i;
        ccx = cx;
        ccy = cy;
    }
    if (i2 < 0)
        return "all points are collinear";
    double hcx = x[i0] + ccx, hcy = y[i0] + ccy;
    if (!isfinite(hcx) || !isfinite(hcy)) { /* a near-flat seed: any centre will do */
        hcx = ox;
        hcy = oy;
    }
    *sd = (dt_seeds){xmin, xmax, ymin, ymax, hcx, hcy, i0, i1, i2};
    return NULL;
}

#ifdef GK_DELAUNAY_TEST_DEFER
/* Every GK_DELAUNAY_TEST_DEFER-th point of the order to its end. */
static int defer_points(int n, int *order)
{
    int *tmp = malloc((size_t)n * sizeof *tmp), m = 0;
    if (!tmp)
        return GK_ERR_NOMEM;
    for (int k = 0; k < n; k++)
        if (k % GK_DELAUNAY_TEST_DEFER != 1)
            tmp[m++] = order[k];
    for (int k = 0; k < n; k++)
        if (k % GK_DELAUNAY_TEST_DEFER == 1)
            tmp[m++] = order[k];
    memcpy(order, tmp, (size_t)n * sizeof *tmp);
    free(tmp);
    return GK_OK;
}
#endif

/* The points in sweep order into d->xy (xy), and the seed triangle,
 * counter-clockwise, as the first hull; its vertices to seed. */
static void sweep_start(dt_state *d, int n, const double *x, const double *y, const int *order,
                        const dt_seeds *sd, double *xy, int *seed)
{
    int s0 = -1, s1 = -1, s2 = -1;
    for (int k = 0; k < n; k++) {
        int i = order[k];
        xy[2 * (size_t)k] = x[i];
        xy[2 * (size_t)k + 1] = y[i];
        if (i == sd->i0)
            s0 = k;
        else if (i == sd->i1)
            s1 = k;
        else if (i == sd->i2)
            s2 = k;
    }
    if (gk_orient(PT(d, s0), PT(d, s1), PT(d, s2)) < 0) {
        int t = s1;
        s1 = s2;
        s2 = t;
    }
    for (int k = 0; k < d->hsize; k++)
        d->hash[k] = -1;
    add_tri(d, s0, s1, s2);
    d->hnext[s0] = s1, d->hnext[s1] = s2, d->hnext[s2] = s0;
    d->hprev[s0] = s2, d->hprev[s1] = s0, d->hprev[s2] = s1;
    d->htri[s0] = 0, d->htri[s1] = 1, d->htri[s2] = 2;
    d->hash[hash_key(d, PT(d, s0))] = s0;
    d->hash[hash_key(d, PT(d, s1))] = s1;
    d->hash[hash_key(d, PT(d, s2))] = s2;
    seed[0] = s0;
    seed[1] = s1;
    seed[2] = s2;
}

/* p outside the hull, seeing hull edge e (and maybe more on either side):
 * a triangle on each edge it sees; p joins the hull in their place. */
static void hull_join(dt_state *d, int p, int e, int key)
{
    const double *pp = PT(d, p);
    int u = e, w = d->hnext[e];
    int t = add_tri(d, u, p, w);
    pair(d, t + 2, d->htri[u]);
    d->htri[u] = t;
    d->htri[p] = t + 1;
    legalize(d, t + 2);
    for (;;) { /* forward along the hull */
        int q = d->hnext[w];
        if (gk_orient(PT(d, w), PT(d, q), pp) >= 0)
            break;
        t = add_tri(d, w, p, q);
        pair(d, t, d->htri[p]);
        pair(d, t + 2, d->htri[w]);
        d->htri[p] = t + 1;
        legalize(d, t + 2);
        d->hnext[w] = w;
        w = q;
    }
    for (;;) { /* backward */
        int v = d->hprev[u];
        if (gk_orient(PT(d, v), PT(d, u), pp) >= 0)
            break;
        t = add_tri(d, v, p, u);
        pair(d, t + 1, d->htri[u]);
        pair(d, t + 2, d->htri[v]);
        d->htri[v] = t;
        legalize(d, t + 2);
        d->hnext[u] = u;
        u = v;
    }
    d->hprev[p] = u;
    d->hnext[u] = p;
    d->hnext[p] = w;
    d->hprev[w] = p;
    d->hash[key] = p;
    d->hash[hash_key(d, PT(d, u))] = u;
}

/* Inserts point p (sweep order); *last is a vertex known to be on the hull.
 * 1 inserted, 0 coincident with a vertex (skipped), -1 not located. */
static int sweep_add(dt_state *d, int p, int *last)
{
    const double *pp = PT(d, p);
    int key = hash_key(d, pp), s = *last;
    for (int j = 0; j < d->hsize; j++) {
        int v = d->hash[(key + j) % d->hsize];
        if (v >= 0 && d->hnext[v] != v) {
            s = v;
            break;
        }
    }
    /* First hull edge that sees p (strictly), starting just before s. */
    int start = d->hprev[s], e = start;
    while (gk_orient(PT(d, e), PT(d, d->hnext[e]), pp) >= 0) {
        e = d->hnext[e];
        if (e == start) {
            e = -1;
            break;
        }
    }
    if (e < 0)
        return insert_inside(d, p, s);
    hull_join(d, p, e, key);
    *last = p;
    return 1;
}

/* Back to input indices (order NULL: the sweep's numbering kept); neighbour
 * k is across the edge opposite vertex k, i.e. half-edge k + 1. The
 * neighbours are compacted into vh in place (triangle t writes [3t, 3t+3)
 * after reading [6t, 6t+6)). */
static void sweep_result(const dt_state *d, const int *order, int *vout)
{
    int *vh = d->vh;
    for (int t = 0; t < d->nt; t++) {
        const int *q = vh + 6 * (size_t)t;
        int v0 = q[0], h0 = q[1], v1 = q[2], h1 = q[3], v2 = q[4], h2 = q[5];
        int *v = vout + 3 * (size_t)t, *h = vh + 3 * (size_t)t;
        v[0] = order ? order[v0] : v0;
        v[1] = order ? order[v1] : v1;
        v[2] = order ? order[v2] : v2;
        h[0] = h1 >= 0 ? h1 / 3 : -1;
        h[1] = h2 >= 0 ? h2 / 3 : -1;
        h[2] = h0 >= 0 ? h0 / 3 : -1;
    }
}

int gk_dt_sweep(int n, const double *x, const double *y, gk_triangulation *tri, gk_dt_info *info)
{
    return gk_dt_sweep_ordered(n, x, y, tri, info, NULL);
}

int gk_dt_sweep_ordered(int n, const double *x, const double *y, gk_triangulation *tri,
                        gk_dt_info *info, gk_dt_order *ord)
{
    if (ord)
        ord->order = NULL, ord->xy = NULL;
    tri->n_tri = 0;
    tri->vertex = tri->neighbor = NULL;
    info->why = NULL;
    info->zeros = 0;
    info->skipped = 0;
    if (n < 3)
        return sweep_fail(tri, info, GK_ERR_ARG, "fewer than 3 points");
    dt_seeds sd;
    const char *why = sweep_seeds(n, x, y, &sd);
    if (why)
        return sweep_fail(tri, info, GK_ERR_ARG, why);

    /* Memory is allocated in few blocks, reused across phases (first-touch
     * page faults are a visible part of the run time):
     *  w:  the sort (2n words), then order (n ints) + hull lists (3n ints);
     *  xy: coordinates in sweep order, then the output vertex array;
     *  vh: the half-edges, then the output neighbour array. */
    size_t maxe = 6 * (size_t)n; /* 3 per triangle, at most 2n - 5 triangles */
    uint64_t *w = gk_big_alloc(2 * (size_t)n * sizeof *w);
    double *xy = gk_big_alloc(3 * (size_t)n * sizeof *xy); /* 2n coordinates; 6n ints at the end */
    int *stack = malloc(((size_t)n + 16) * sizeof *stack);
    int hsize = (int)ceil(sqrt((double)n));
    int *hash = malloc((size_t)hsize * sizeof *hash);
    int *vh = gk_big_alloc(2 * maxe * sizeof *vh);
    dt_state d = {0};
    int rc = GK_OK, *order = NULL, *hull = NULL;
    if (!w || !xy || !stack || !hash || !vh) {
        rc = GK_ERR_NOMEM;
        goto done;
    }
    {
        /* The farthest bbox corner bounds the squared distances of the keys. */
        double fx = fmax(fabs(sd.xmin - sd.hcx), fabs(sd.xmax - sd.hcx));
        double fy = fmax(fabs(sd.ymin - sd.hcy), fabs(sd.ymax - sd.hcy));
        order = sweep_order(n, x, y, sd.hcx, sd.hcy, fx * fx + fy * fy, w);
        hull = order + n;
    }
#ifdef GK_DELAUNAY_TEST_DEFER
    if ((rc = defer_points(n, order)) != GK_OK)
        goto done;
#endif
    d.xy = xy;
    d.vh = vh;
    d.hnext = hull;
    d.hprev = hull + n;
    d.htri = hull + 2 * (size_t)n;
    d.hash = hash;
    d.hsize = hsize;
    d.hcx = sd.hcx;
    d.hcy = sd.hcy;
    d.stack = stack;
    int seed[3];
    sweep_start(&d, n, x, y, order, &sd, xy, seed);
    int last = seed[0]; /* a vertex known to be on the hull */
    for (int p = 0; p < n; p++) {
        if (p == seed[0] || p == seed[1] || p == seed[2])
            continue;
        int in = sweep_add(&d, p, &last);
        if (in < 0) {
            rc = GK_ERR_INTERNAL;
            goto done;
        }
        info->skipped += in == 0;
    }
    int *vout = (int *)xy; /* 3 nt <= 6n ints fit in 3n doubles */
    if (ord) {             /* xy and order (at the start of w) go to the caller */
        vout = gk_big_alloc(3 * (size_t)d.nt * sizeof *vout);
        if (!vout) {
            rc = GK_ERR_NOMEM;
            goto done;
        }
        ord->order = order;
        ord->xy = xy;
        w = NULL;
    }
    sweep_result(&d, ord ? NULL : order, vout);
    tri->n_tri = d.nt;
    /* Handed over as they are (vh keeps its spare half): shrinking them with
     * realloc saves little and newer compilers flag the fallback as a
     * use-after-free. */
    tri->vertex = vout;
    tri->neighbor = vh;
    xy = NULL;
    vh = NULL;

done:
    free(w);
    free(xy);
    free(stack);
    free(hash);
    free(vh);
    info->zeros = d.zeros;
    if (rc == GK_ERR_NOMEM)
        return sweep_fail(tri, info, rc, "out of memory");
    if (rc != GK_OK)
        return sweep_fail(tri, info, rc, "a point could not be located (internal error)");
    return GK_OK;
}
