/*
 * delaunay.c - Delaunay triangulation by a radial sweep ("sweep-hull").
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
 *
 * On 3 or more threads, large inputs are first cut into vertical strips,
 * swept in parallel and joined (see "in parallel: strips" below); the join
 * is kept only where it is provably the sweep's own triangulation, i.e. the
 * Delaunay triangulation is unique, so the result never depends on the
 * number of threads.
 */
#ifdef GK_DELAUNAY_TEST_DEFER
/* Test build (tests/linear/delaunay.cmake): every GK_DELAUNAY_TEST_DEFER-th point
 * is moved to the end of the sweep, so the inside-the-hull path is exercised. */
#define gk_delaunay gk_delaunay_deferred
#define gk_orient_exact gk_orient_exact_deferred
#define gk_delaunay_strips gk_delaunay_strips_deferred
#endif
#include "delaunay.h"

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

GK_COLD static int incircle_exact(const double *a, const double *b, const double *c,
                                  const double *d)
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

/* > 0 when a, b, c turn counter-clockwise, < 0 clockwise, 0 collinear. */
static inline int orient(const double *a, const double *b, const double *c)
{
    return gk_orient(a, b, c);
}

/* > 0 when d is inside the circle through a, b, c (counter-clockwise). */
static inline int incircle(const double *a, const double *b, const double *c, const double *d)
{
    double adx = a[0] - d[0], ady = a[1] - d[1];
    double bdx = b[0] - d[0], bdy = b[1] - d[1];
    double cdx = c[0] - d[0], cdy = c[1] - d[1];
    double bdxcdy = bdx * cdy, cdxbdy = cdx * bdy, al = adx * adx + ady * ady;
    double cdxady = cdx * ady, adxcdy = adx * cdy, bl = bdx * bdx + bdy * bdy;
    double adxbdy = adx * bdy, bdxady = bdx * ady, cl = cdx * cdx + cdy * cdy;
    double det = al * (bdxcdy - cdxbdy) + bl * (cdxady - adxcdy) + cl * (adxbdy - bdxady);
    double perm = (fabs(bdxcdy) + fabs(cdxbdy)) * al + (fabs(cdxady) + fabs(adxcdy)) * bl +
                  (fabs(adxbdy) + fabs(bdxady)) * cl;
    double bound = (10.0 + 96.0 * GK_EPS) * GK_EPS * perm;
    if (det > bound)
        return 1;
    if (-det > bound)
        return -1;
    return incircle_exact(a, b, c, d);
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
    int *stack;       /* edges to legalize (depth <= flips around one apex < n) */
    long zeros;       /* cocircular quadruples met (exact incircle 0) */
} dt_state;

static inline int e_next(int e)
{
    return e % 3 == 2 ? e - 2 : e + 1;
}
static inline int e_prev(int e)
{
    return e % 3 == 0 ? e + 2 : e - 1;
}
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
            int ic = incircle(PT(d, a), PT(d, b), PT(d, p1), PT(d, p2));
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
        int o = orient(PT(d, V(ed)), PT(d, V(e_next(ed))), PT(d, p));
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
static int *sweep_order(int n, const double *x, const double *y, double cx, double cy,
                        double dmax, uint64_t *w)
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

/* What the sweep met, besides its result. */
typedef struct {
    const char *why; /* the reason of an error */
    long zeros;      /* cocircular quadruples met */
    int skipped;     /* points not inserted (coincident with an earlier one) */
} dt_info;

static int sweep_fail(gk_triangulation *tri, dt_info *info, int code, const char *why)
{
    free(tri->vertex);
    free(tri->neighbor);
    tri->vertex = tri->neighbor = NULL;
    tri->n_tri = 0;
    info->why = why;
    return code;
}

/* The sweep over n finite points (3 <= n <= INT_MAX / 6). */
static int dt_sweep(int n, const double *x, const double *y, gk_triangulation *tri, dt_info *info)
{
    tri->n_tri = 0;
    tri->vertex = tri->neighbor = NULL;
    info->why = NULL;
    info->zeros = 0;
    info->skipped = 0;
    if (n < 3)
        return sweep_fail(tri, info, GK_ERR_ARG, "fewer than 3 points");
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
        return sweep_fail(tri, info, GK_ERR_ARG, "all points coincide");
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
        if (orient(sa, sb, sc) == 0)
            continue;
        best = r2;
        i2 = i;
        ccx = cx;
        ccy = cy;
    }
    if (i2 < 0)
        return sweep_fail(tri, info, GK_ERR_ARG, "all points are collinear");
    double hcx = x[i0] + ccx, hcy = y[i0] + ccy;
    if (!isfinite(hcx) || !isfinite(hcy)) { /* a near-flat seed: any centre will do */
        hcx = ox;
        hcy = oy;
    }

    /* Memory is allocated in few blocks, reused across phases (first-touch
     * page faults are a visible part of the run time):
     *  w:  the sort (2n words), then order (n ints) + hull lists (3n ints);
     *  xy: coordinates in sweep order, then the output vertex array;
     *  vh: the half-edges, then the output neighbour array. */
    size_t maxe = 6 * (size_t)n; /* 3 per triangle, at most 2n - 5 triangles */
    uint64_t *w = malloc(2 * (size_t)n * sizeof *w);
    double *xy = malloc(3 * (size_t)n * sizeof *xy); /* 2n coordinates; 6n ints at the end */
    int *stack = malloc(((size_t)n + 16) * sizeof *stack);
    int hsize = (int)ceil(sqrt((double)n));
    int *hash = malloc((size_t)hsize * sizeof *hash);
    int *vh = malloc(2 * maxe * sizeof *vh);
    dt_state d = {0};
    int rc = GK_OK, *order = NULL, *hull = NULL;
    if (!w || !xy || !stack || !hash || !vh) {
        rc = GK_ERR_NOMEM;
        goto done;
    }
    {
        /* The farthest bbox corner bounds the squared distances of the keys. */
        double fx = fmax(fabs(xmin - hcx), fabs(xmax - hcx));
        double fy = fmax(fabs(ymin - hcy), fabs(ymax - hcy));
        order = sweep_order(n, x, y, hcx, hcy, fx * fx + fy * fy, w);
        hull = order + n;
    }
#ifdef GK_DELAUNAY_TEST_DEFER
    {
        int *tmp = malloc((size_t)n * sizeof *tmp), m = 0;
        if (!tmp) {
            rc = GK_ERR_NOMEM;
            goto done;
        }
        for (int k = 0; k < n; k++)
            if (k % GK_DELAUNAY_TEST_DEFER != 1)
                tmp[m++] = order[k];
        for (int k = 0; k < n; k++)
            if (k % GK_DELAUNAY_TEST_DEFER == 1)
                tmp[m++] = order[k];
        memcpy(order, tmp, (size_t)n * sizeof *tmp);
        free(tmp);
    }
#endif
    int s0 = -1, s1 = -1, s2 = -1;
    for (int k = 0; k < n; k++) {
        int i = order[k];
        xy[2 * (size_t)k] = x[i];
        xy[2 * (size_t)k + 1] = y[i];
        if (i == i0)
            s0 = k;
        else if (i == i1)
            s1 = k;
        else if (i == i2)
            s2 = k;
    }
    d.xy = xy;
    d.vh = vh;
    d.hnext = hull;
    d.hprev = hull + n;
    d.htri = hull + 2 * (size_t)n;
    d.hash = hash;
    d.hsize = hsize;
    d.hcx = hcx;
    d.hcy = hcy;
    d.stack = stack;
    if (orient(PT(&d, s0), PT(&d, s1), PT(&d, s2)) < 0) {
        int t = s1;
        s1 = s2;
        s2 = t;
    }
    for (int k = 0; k < hsize; k++)
        hash[k] = -1;
    add_tri(&d, s0, s1, s2);
    d.hnext[s0] = s1, d.hnext[s1] = s2, d.hnext[s2] = s0;
    d.hprev[s0] = s2, d.hprev[s1] = s0, d.hprev[s2] = s1;
    d.htri[s0] = 0, d.htri[s1] = 1, d.htri[s2] = 2;
    hash[hash_key(&d, PT(&d, s0))] = s0;
    hash[hash_key(&d, PT(&d, s1))] = s1;
    hash[hash_key(&d, PT(&d, s2))] = s2;
    int last = s0; /* a vertex known to be on the hull */

    for (int p = 0; p < n; p++) {
        if (p == s0 || p == s1 || p == s2)
            continue;
        const double *pp = PT(&d, p);
        int key = hash_key(&d, pp), s = last;
        for (int j = 0; j < hsize; j++) {
            int v = hash[(key + j) % hsize];
            if (v >= 0 && d.hnext[v] != v) {
                s = v;
                break;
            }
        }
        /* First hull edge that sees p (strictly), starting just before s. */
        int start = d.hprev[s], e = start;
        while (orient(PT(&d, e), PT(&d, d.hnext[e]), pp) >= 0) {
            e = d.hnext[e];
            if (e == start) {
                e = -1;
                break;
            }
        }
        if (e < 0) {
            int in = insert_inside(&d, p, s);
            if (in < 0) {
                rc = GK_ERR_INTERNAL;
                goto done;
            }
            info->skipped += in == 0;
            continue;
        }
        int u = e, w = d.hnext[e];
        int t = add_tri(&d, u, p, w);
        pair(&d, t + 2, d.htri[u]);
        d.htri[u] = t;
        d.htri[p] = t + 1;
        legalize(&d, t + 2);
        for (;;) { /* forward along the hull */
            int q = d.hnext[w];
            if (orient(PT(&d, w), PT(&d, q), pp) >= 0)
                break;
            t = add_tri(&d, w, p, q);
            pair(&d, t, d.htri[p]);
            pair(&d, t + 2, d.htri[w]);
            d.htri[p] = t + 1;
            legalize(&d, t + 2);
            d.hnext[w] = w;
            w = q;
        }
        for (;;) { /* backward */
            int v = d.hprev[u];
            if (orient(PT(&d, v), PT(&d, u), pp) >= 0)
                break;
            t = add_tri(&d, v, p, u);
            pair(&d, t + 1, d.htri[u]);
            pair(&d, t + 2, d.htri[v]);
            d.htri[v] = t;
            legalize(&d, t + 2);
            d.hnext[u] = u;
            u = v;
        }
        d.hprev[p] = u;
        d.hnext[u] = p;
        d.hnext[p] = w;
        d.hprev[w] = p;
        hash[key] = p;
        hash[hash_key(&d, PT(&d, u))] = u;
        last = p;
    }

    /* Back to input indices; neighbour k is across the edge opposite vertex k,
     * i.e. half-edge k + 1. The neighbours are compacted into vh in place
     * (triangle t writes [3t, 3t+3) after reading [6t, 6t+6)). */
    int *vout = (int *)xy; /* 3 nt <= 6n ints fit in 3n doubles */
    for (int t = 0; t < d.nt; t++) {
        const int *q = vh + 6 * (size_t)t;
        int v0 = q[0], h0 = q[1], v1 = q[2], h1 = q[3], v2 = q[4], h2 = q[5];
        int *v = vout + 3 * (size_t)t, *h = vh + 3 * (size_t)t;
        v[0] = order[v0];
        v[1] = order[v1];
        v[2] = order[v2];
        h[0] = h1 >= 0 ? h1 / 3 : -1;
        h[1] = h2 >= 0 ? h2 / 3 : -1;
        h[2] = h0 >= 0 ? h0 / 3 : -1;
    }
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

#ifndef GK_DELAUNAY_TEST_DEFER
#include <omp.h>

/* ---- in parallel: strips ------------------------------------------------- *
 *
 * The points are cut into vertical strips, each triangulated by the sweep on
 * its own thread. A triangle whose circumcircle lies inside its strip's slab
 * holds no point of another strip either, so it is in the Delaunay
 * triangulation of all points ("settled"). The others, near the cuts, are
 * replaced: S, the vertices of the unsettled triangles and of each strip's
 * hull (every vertex of the region the settled triangles leave free), is
 * triangulated on its own (by strips again, cut half way between the first
 * cuts, then by the sweep), and of its triangles those in the free region
 * are kept (a flood fill from the settled triangles' free edges, which are
 * Delaunay edges of S too). Where the triangulation is unique, i.e. no four
 * points lie on an empty circle, that is exactly the sweep's triangulation,
 * up to numbering. Uniqueness is checked (every interior edge strictly
 * Delaunay), and so are the seams (orientation, mutual neighbours, each
 * point a vertex, Euler count, one convex hull); anything else (cocircular
 * or coincident points, too little settled) goes to the sweep over all
 * points, whose tie rules then apply. */

#define GK_DT_PAR_MIN 65536 /* fewer points: the sweep alone */
#define GK_DT_PAR_GIVE_UP (-1000)

/* The triangle of tri that has the half-edge u -> v, as its neighbour slot
 * (3t + k: the edge opposite vertex k), or -1; vt[u] is a triangle at u. */
static int find_half_edge(const gk_triangulation *tri, const int *vt, int u, int v)
{
    int t0 = vt[u];
    if (t0 < 0)
        return -1;
    for (int dir = 0; dir < 2; dir++) {
        int t = t0;
        for (int step = 0; step <= tri->n_tri; step++) {
            const int *q = tri->vertex + 3 * (size_t)t;
            int k = q[0] == u ? 0 : q[1] == u ? 1 : q[2] == u ? 2 : -1;
            if (k < 0)
                return -1;
            if (q[(k + 1) % 3] == v)
                return 3 * t + (k + 2) % 3;
            /* counter-clockwise round u first, then clockwise */
            t = tri->neighbor[3 * (size_t)t + (dir == 0 ? (k + 1) % 3 : (k + 2) % 3)];
            if (t < 0 || t == t0)
                break;
        }
    }
    return -1;
}

/* Is the circumcircle of a, b, c (counter-clockwise) strictly inside lo < x < hi,
 * with a margin far above the roundoff of the centre? */
static int circle_inside(const double *a, const double *b, const double *c, double lo, double hi)
{
    double bx = b[0] - a[0], by = b[1] - a[1], cx = c[0] - a[0], cy = c[1] - a[1];
    double p = bx * cy, q = by * cx, den = p - q;
    if (!(den > 1e-6 * (fabs(p) + fabs(q)))) /* a sliver: its centre is uncertain */
        return 0;
    double bl = bx * bx + by * by, cl = cx * cx + cy * cy;
    double ux = (cy * bl - by * cl) / (2.0 * den), uy = (bx * cl - cx * bl) / (2.0 * den);
    double r = sqrt(ux * ux + uy * uy), x = a[0] + ux;
    double m = 1e-8 * r + 1e-14 * (fabs(a[0]) + fabs(ux));
    return x - r - m > lo && x + r + m < hi;
}

typedef struct {
    int m;                /* points */
    int *idx;             /* their global numbers, ascending */
    gk_triangulation tri; /* global numbers */
    unsigned char *settled;
    int *sid; /* settled: number among the strip's settled; else -1 */
    int nsettled;
} dt_strip;

static int dt_strips(int m, const int *idx, const double *x, const double *y, int n_all,
                     const double *cuts, int K, int depth, int nth, gk_triangulation *out);

/* The vertices of idx[0..m) triangulated by the sweep, in global numbers. */
static int dt_sweep_subset(int m, const int *idx, const double *x, const double *y,
                           gk_triangulation *out, dt_info *info)
{
    double *lx = malloc(2 * (size_t)(m > 0 ? m : 1) * sizeof *lx);
    if (!lx)
        return GK_ERR_NOMEM;
    double *ly = lx + m;
    for (int i = 0; i < m; i++) {
        lx[i] = x[idx[i]];
        ly[i] = y[idx[i]];
    }
    int rc = dt_sweep(m, lx, ly, out, info);
    free(lx);
    if (rc == GK_OK)
        for (size_t k = 0; k < 3 * (size_t)out->n_tri; k++)
            out->vertex[k] = idx[out->vertex[k]];
    return rc;
}

static void strips_free(dt_strip *st, int K)
{
    for (int s = 0; s < K; s++) {
        free(st[s].tri.vertex);
        free(st[s].tri.neighbor);
        free(st[s].settled);
        free(st[s].sid);
    }
    free(st);
}

/* The apex of triangle u (of tri) opposite its edge {a, b}. */
static int apex(const int *vertex, int u, int a, int b)
{
    const int *w = vertex + 3 * (size_t)u;
    return w[0] != a && w[0] != b ? w[0] : w[1] != a && w[1] != b ? w[1] : w[2];
}

/* One strip: the sweep on its points (local numbers, then global), settled
 * triangles, S, and the edges between settled triangles checked strictly
 * Delaunay (where they are not, the triangulation is not unique). 0: fine,
 * 1: give up, -1: no memory. */
static int strip_sweep(dt_strip *q, const double *x, const double *y, double lo, double hi,
                       unsigned char *inS)
{
    if (q->m < 3) {
        for (int i = 0; i < q->m; i++)
            inS[q->idx[i]] = 1;
        return 0;
    }
    double *lx = malloc(2 * (size_t)q->m * sizeof *lx), *ly = lx + q->m;
    if (!lx)
        return -1;
    for (int i = 0; i < q->m; i++) {
        lx[i] = x[q->idx[i]];
        ly[i] = y[q->idx[i]];
    }
    dt_info info;
    int r = dt_sweep(q->m, lx, ly, &q->tri, &info), ret = 0;
    if (r == GK_ERR_NOMEM) {
        ret = -1;
    } else if (r != GK_OK) { /* collinear: every point goes to S */
        for (int i = 0; i < q->m; i++)
            inS[q->idx[i]] = 1;
    } else if (info.skipped > 0 || info.zeros > 0) {
        ret = 1; /* coincident or cocircular points: the sweep's ties decide */
    } else {
        int nt = q->tri.n_tri, ns = 0;
        const int *V = q->tri.vertex, *N = q->tri.neighbor;
        q->settled = malloc((size_t)nt);
        q->sid = malloc((size_t)nt * sizeof *q->sid);
        if (!q->settled || !q->sid)
            ret = -1;
        for (int t = 0; t < nt && ret == 0; t++) {
            const int *v = V + 3 * (size_t)t;
            double a[2] = {lx[v[0]], ly[v[0]]}, b[2] = {lx[v[1]], ly[v[1]]};
            double c[2] = {lx[v[2]], ly[v[2]]};
            q->settled[t] = (unsigned char)circle_inside(a, b, c, lo, hi);
            q->sid[t] = q->settled[t] ? ns++ : -1;
        }
        for (int t = 0; t < nt && ret == 0; t++) {
            const int *v = V + 3 * (size_t)t, *nb = N + 3 * (size_t)t;
            /* S: the vertices of unsettled triangles and of the strip's hull
             * (the triangles between the strips' hulls join those). */
            for (int k = 0; k < 3; k++)
                if (!q->settled[t] || nb[(k + 1) % 3] < 0 || nb[(k + 2) % 3] < 0)
                    inS[q->idx[v[k]]] = 1;
            if (!q->settled[t])
                continue;
            double a[2] = {lx[v[0]], ly[v[0]]}, b[2] = {lx[v[1]], ly[v[1]]};
            double c[2] = {lx[v[2]], ly[v[2]]};
            for (int k = 0; k < 3; k++) {
                int u = nb[k];
                if (u > t && q->settled[u]) {
                    int o = apex(V, u, v[(k + 1) % 3], v[(k + 2) % 3]);
                    const double d[2] = {lx[o], ly[o]};
                    if (incircle(a, b, c, d) >= 0)
                        ret = 1;
                }
            }
        }
        q->nsettled = ns;
        for (size_t k = 0; k < 3 * (size_t)nt; k++)
            q->tri.vertex[k] = q->idx[q->tri.vertex[k]];
    }
    free(lx);
    return ret;
}

/* Angle class of direction a -> b, counter-clockwise from +x, in 8 steps. */
static int dir_class(const double *a, const double *b)
{
    int sx = (b[0] > a[0]) - (b[0] < a[0]), sy = (b[1] > a[1]) - (b[1] < a[1]);
    static const int cls[3][3] = {{5, 6, 7}, {4, -1, 0}, {3, 2, 1}}; /* [sy + 1][sx + 1] */
    return cls[sy + 1][sx + 1];
}

/* The joined triangulation's hull: one cycle of left turns, once round; h
 * hull edges, next[] (all -1 at its vertices) as scratch. 0 also when out
 * of memory (the caller gives up either way). */
static int hull_ok(const gk_triangulation *tri, const double *x, const double *y, int *next,
                   long *h, int nth)
{
    int nt = tri->n_tri, cap = nt + 3, nh = 0, ok = 1;
    int *he = malloc(2 * (size_t)cap * sizeof *he); /* hull edges a -> b */
    if (!he)
        return 0;
#pragma omp parallel for num_threads(nth) schedule(static)
    for (int t = 0; t < nt; t++)
        for (int k = 0; k < 3; k++)
            if (tri->neighbor[3 * (size_t)t + k] < 0) {
                int j;
#pragma omp atomic capture
                j = nh++;
                if (j < cap) {
                    he[2 * j] = tri->vertex[3 * (size_t)t + (k + 1) % 3];
                    he[2 * j + 1] = tri->vertex[3 * (size_t)t + (k + 2) % 3];
                }
            }
    ok = nh > 0 && nh < cap;
    for (int j = 0; j < nh && ok; j++) {
        ok &= next[he[2 * j]] < 0; /* one hull edge leaves each hull vertex */
        next[he[2 * j]] = he[2 * j + 1];
    }
    if (ok) {
        int start = he[0], a = start, b = next[a], wraps = 0;
        long len = 0;
        do {
            int c = b >= 0 ? next[b] : -1;
            if (c < 0) {
                ok = 0;
                break;
            }
            const double pa[2] = {x[a], y[a]}, pb[2] = {x[b], y[b]}, pc[2] = {x[c], y[c]};
            int o = orient(pa, pb, pc), c1 = dir_class(pa, pb), c2 = dir_class(pb, pc);
            if (o < 0 || (o == 0 && c1 != c2))
                ok = 0;
            wraps += c2 < c1;
            a = b;
            b = c;
            len++;
        } while (ok && a != start && len <= nh);
        ok = ok && a == start && len == nh && wraps == 1;
    }
    free(he);
    *h = nh;
    return ok;
}

/* The Delaunay triangulation of idx[0..m) (ascending global numbers) by K
 * strips at cuts[0..K-2]; triangles in global numbers, neighbours as the
 * sweep's. GK_OK, GK_ERR_NOMEM, or GK_DT_PAR_GIVE_UP (the caller uses the
 * sweep instead). n_all: the size of the global numbering. */
static int dt_strips(int m, const int *idx, const double *x, const double *y, int n_all,
                     const double *cuts, int K, int depth, int nth, gk_triangulation *out)
{
    out->n_tri = 0;
    out->vertex = out->neighbor = NULL;
    dt_strip *st = calloc((size_t)K, sizeof *st);
    int *sidx = malloc((size_t)m * sizeof *sidx);
    int *cnt = calloc((size_t)nth * K + 1, sizeof *cnt);
    unsigned char *inS = calloc((size_t)n_all, 1);
    int rc = GK_OK, *Sidx = NULL, *vtS = NULL, *rlink = NULL, *rid = NULL, *stack = NULL;
    unsigned char *bar = NULL, *inR = NULL;
    gk_triangulation TS = {0, NULL, NULL};
    if (!st || !sidx || !cnt || !inS) {
        rc = GK_ERR_NOMEM;
        goto done;
    }
    /* Points into strips, each in ascending order (a stable counting sort). */
#pragma omp parallel num_threads(nth)
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        int lo = (int)((long long)m * t / T), hi = (int)((long long)m * (t + 1) / T);
        int *c = cnt + (size_t)t * K;
        for (int pass = 0; pass < 2; pass++) {
            for (int i = lo; i < hi; i++) {
                double xv = x[idx[i]];
                int a = 0, b = K - 1; /* strip = number of cuts <= x */
                while (a < b) {
                    int mid = (a + b) / 2;
                    if (cuts[mid] <= xv)
                        a = mid + 1;
                    else
                        b = mid;
                }
                if (pass == 0)
                    c[a]++;
                else
                    sidx[c[a]++] = idx[i];
            }
            if (pass == 1)
                break;
#pragma omp barrier
#pragma omp single
            {
                int sum = 0;
                for (int s = 0; s < K; s++) {
                    st[s].idx = sidx + sum;
                    for (int u = 0; u < T; u++) {
                        int v = cnt[(size_t)u * K + s];
                        cnt[(size_t)u * K + s] = sum;
                        sum += v;
                    }
                    st[s].m = sum - (int)(st[s].idx - sidx);
                }
            }
        }
    }

    /* Each strip by the sweep; settled triangles; S. */
    int give_up = 0, nomem = 0;
#pragma omp parallel for num_threads(nth) schedule(dynamic, 1) reduction(| : give_up, nomem)
    for (int s = 0; s < K; s++) {
        double lo = s > 0 ? cuts[s - 1] : -INFINITY, hi = s < K - 1 ? cuts[s] : INFINITY;
        int r = strip_sweep(&st[s], x, y, lo, hi, inS);
        nomem |= r < 0;
        give_up |= r > 0;
    }
    if (nomem || give_up) {
        rc = nomem ? GK_ERR_NOMEM : GK_DT_PAR_GIVE_UP;
        goto done;
    }

    /* S, ascending; too little settled: no gain, give up. */
    int mS = 0;
#pragma omp parallel for num_threads(nth) schedule(static) reduction(+ : mS)
    for (int i = 0; i < m; i++)
        mS += inS[idx[i]];
    if (mS > m / 2 || mS < 3) {
        rc = GK_DT_PAR_GIVE_UP;
        goto done;
    }
    Sidx = malloc((size_t)mS * sizeof *Sidx);
    if (!Sidx) {
        rc = GK_ERR_NOMEM;
        goto done;
    }
    memset(cnt, 0, ((size_t)nth * K + 1) * sizeof *cnt);
#pragma omp parallel num_threads(nth)
    { /* in order: counts per thread's chunk, then each chunk's place */
        int t = omp_get_thread_num(), T = omp_get_num_threads(), c = 0;
        int lo = (int)((long long)m * t / T), hi = (int)((long long)m * (t + 1) / T);
        for (int i = lo; i < hi; i++)
            c += inS[idx[i]];
        cnt[t + 1] = c;
#pragma omp barrier
        int j = 0;
        for (int u = 0; u <= t; u++)
            j += cnt[u];
        for (int i = lo; i < hi; i++)
            if (inS[idx[i]])
                Sidx[j++] = idx[i];
    }
    rc = GK_DT_PAR_GIVE_UP;
    if (depth == 0 && K > 2 && mS >= GK_DT_PAR_MIN / 4) {
        /* S lies along the cuts: cut it half way between them. */
        double *c2 = malloc((size_t)(K - 2) * sizeof *c2);
        if (!c2) {
            rc = GK_ERR_NOMEM;
            goto done;
        }
        for (int s = 0; s < K - 2; s++)
            c2[s] = 0.5 * (cuts[s] + cuts[s + 1]);
        rc = dt_strips(mS, Sidx, x, y, n_all, c2, K - 1, depth + 1, nth, &TS);
        free(c2);
    }
    if (rc == GK_DT_PAR_GIVE_UP) {
        dt_info info;
        rc = dt_sweep_subset(mS, Sidx, x, y, &TS, &info);
        if (rc == GK_OK && info.skipped > 0)
            rc = GK_DT_PAR_GIVE_UP;
        else if (rc != GK_OK && rc != GK_ERR_NOMEM)
            rc = GK_DT_PAR_GIVE_UP;
    }
    if (rc != GK_OK)
        goto done;

    /* Where the settled triangles meet S's: links both ways, and barriers
     * the flood below does not cross. */
    int ntS = TS.n_tri;
    vtS = malloc((size_t)n_all * sizeof *vtS);
    rlink = malloc(3 * (size_t)ntS * sizeof *rlink);
    bar = calloc(3 * (size_t)ntS, 1);
    inR = calloc((size_t)ntS, 1);
    rid = malloc((size_t)ntS * sizeof *rid);
    stack = malloc(((size_t)ntS + 1) * sizeof *stack);
    if (!vtS || !rlink || !bar || !inR || !rid || !stack) {
        rc = GK_ERR_NOMEM;
        goto done;
    }
    for (int i = 0; i < mS; i++)
        vtS[Sidx[i]] = -1;
    for (size_t h = 0; h < 3 * (size_t)ntS; h++)
        rlink[h] = -1; /* set on the far side of each barrier */
    for (int t = 0; t < ntS; t++)
        for (int k = 0; k < 3; k++)
            vtS[TS.vertex[3 * (size_t)t + k]] = t;
    int base[65], nset = 0, bad = 0;
    for (int s = 0; s < K; s++) {
        base[s] = nset;
        nset += st[s].nsettled;
    }
#pragma omp parallel for num_threads(nth) schedule(dynamic, 1) reduction(| : bad)
    for (int s = 0; s < K; s++) {
        dt_strip *q = &st[s];
        for (int t = 0; t < q->tri.n_tri && !bad; t++) {
            if (!q->settled[t])
                continue;
            const int *v = q->tri.vertex + 3 * (size_t)t;
            for (int k = 0; k < 3; k++) {
                int *nb = q->tri.neighbor + 3 * (size_t)t + k;
                if (*nb >= 0 && q->settled[*nb]) {
                    *nb = base[s] + q->sid[*nb];
                    continue;
                }
                int u = v[(k + 1) % 3], w = v[(k + 2) % 3]; /* the edge u -> w */
                int ho = inS[u] && inS[w] ? find_half_edge(&TS, vtS, w, u) : -1;
                int hi = inS[u] && inS[w] ? find_half_edge(&TS, vtS, u, w) : -1;
                if (ho < 0) {
                    if (*nb >= 0 || hi < 0)
                        bad = 1; /* S's triangulation lacks the edge or its far side */
                    *nb = -1;    /* else: on the hull of all points */
                    continue;
                }
                rlink[ho] = base[s] + q->sid[t];
#pragma omp atomic write
                bar[ho] = 1;
                if (hi >= 0) {
#pragma omp atomic write
                    bar[hi] = 1;
                }
                *nb = -2 - ho;
            }
        }
    }
    if (bad) {
        rc = GK_DT_PAR_GIVE_UP;
        goto done;
    }
    /* The free region: S's triangles reached from the barriers' far sides. */
    int sp = 0, nR = 0;
    for (int s = 0; s < K; s++) {
        dt_strip *q = &st[s];
        for (int t = 0; t < q->tri.n_tri; t++)
            if (q->settled && q->settled[t])
                for (int k = 0; k < 3; k++) {
                    int nb = q->tri.neighbor[3 * (size_t)t + k];
                    if (nb <= -2 && !inR[(-2 - nb) / 3]) {
                        inR[(-2 - nb) / 3] = 1;
                        stack[sp++] = (-2 - nb) / 3;
                    }
                }
    }
    if (nset == 0) /* nothing settled: S is everything */
        for (int t = 0; t < ntS; t++)
            inR[t] = 1;
    while (sp > 0) {
        int t = stack[--sp];
        for (int k = 0; k < 3; k++) {
            int u = TS.neighbor[3 * (size_t)t + k];
            if (!bar[3 * (size_t)t + k] && u >= 0 && !inR[u]) {
                inR[u] = 1;
                stack[sp++] = u;
            }
        }
    }
    for (int t = 0; t < ntS; t++)
        rid[t] = inR[t] ? nset + nR++ : -1;

    /* The result: settled triangles strip by strip, then S's free ones. */
    int nt = nset + nR;
    out->vertex = malloc(3 * (size_t)nt * sizeof *out->vertex);
    out->neighbor = malloc(3 * (size_t)nt * sizeof *out->neighbor);
    if (!out->vertex || !out->neighbor) {
        rc = GK_ERR_NOMEM;
        goto done;
    }
    out->n_tri = nt;
    unsigned char *cov = inS; /* reused: every point must be a vertex */
#pragma omp parallel for num_threads(nth) schedule(static)
    for (int i = 0; i < m; i++)
        cov[idx[i]] = 0;
#pragma omp parallel for num_threads(nth) schedule(dynamic, 1) reduction(| : bad)
    for (int s = 0; s < K; s++) {
        dt_strip *q = &st[s];
        for (int t = 0; t < q->tri.n_tri; t++) {
            if (!q->settled[t])
                continue;
            size_t o = 3 * (size_t)(base[s] + q->sid[t]);
            for (int k = 0; k < 3; k++) {
                int nb = q->tri.neighbor[3 * (size_t)t + k];
                out->vertex[o + k] = q->tri.vertex[3 * (size_t)t + k];
                out->neighbor[o + k] = nb >= -1 ? nb : rid[(-2 - nb) / 3];
                if (nb <= -2 && (rid[(-2 - nb) / 3] < 0 || rlink[-2 - nb] != base[s] + q->sid[t]))
                    bad = 1; /* two settled triangles claim one edge */
                cov[q->tri.vertex[3 * (size_t)t + k]] = 1;
            }
        }
    }
    for (int t = 0; t < ntS; t++) {
        if (!inR[t])
            continue;
        size_t o = 3 * (size_t)rid[t];
        for (int k = 0; k < 3; k++) {
            size_t h = 3 * (size_t)t + k;
            int u = TS.neighbor[h];
            out->vertex[o + k] = TS.vertex[h];
            cov[TS.vertex[h]] = 1;
            if (bar[h]) {
                out->neighbor[o + k] = rlink[h];
                bad |= rlink[h] < 0; /* a barrier's settled side inside the free region */
            } else {
                out->neighbor[o + k] = u < 0 ? -1 : rid[u];
                bad |= u >= 0 && rid[u] < 0;
            }
        }
    }
#pragma omp parallel for num_threads(nth) schedule(static) reduction(| : bad)
    for (int i = 0; i < m; i++)
        bad |= !cov[idx[i]];
    /* The seams: S's free triangles counter-clockwise, their neighbours
     * mutual and their edges strictly Delaunay; then the Euler count and
     * the hull. (Inside a strip the sweep's triangulation holds.) */
#pragma omp parallel for num_threads(nth) schedule(static) reduction(| : bad)
    for (int r = nset; r < nt; r++) {
        const int *v = out->vertex + 3 * (size_t)r;
        double P[3][2] = {{x[v[0]], y[v[0]]}, {x[v[1]], y[v[1]]}, {x[v[2]], y[v[2]]}};
        if (orient(P[0], P[1], P[2]) <= 0)
            bad = 1;
        for (int k = 0; k < 3; k++) {
            int u = out->neighbor[3 * (size_t)r + k], a = v[(k + 1) % 3], b = v[(k + 2) % 3];
            if (u < 0)
                continue;
            const int *w = out->vertex + 3 * (size_t)u;
            int j = w[0] == b ? 0 : w[1] == b ? 1 : w[2] == b ? 2 : -1; /* b -> a in u */
            if (j < 0 || w[(j + 1) % 3] != a || out->neighbor[3 * (size_t)u + (j + 2) % 3] != r) {
                bad = 1;
                continue;
            }
            const double po[2] = {x[w[(j + 2) % 3]], y[w[(j + 2) % 3]]};
            if ((u < nset || u > r) && incircle(P[0], P[1], P[2], po) >= 0)
                bad = 1;
        }
    }
    long h = 0;
    if (!bad) {
#pragma omp parallel for num_threads(nth) schedule(static)
        for (int i = 0; i < m; i++)
            vtS[idx[i]] = -1; /* scratch for the hull walk */
        bad = !hull_ok(out, x, y, vtS, &h, nth) || (long)nt != 2L * m - 2 - h;
    }
    if (bad)
        rc = GK_DT_PAR_GIVE_UP;

done:
    if (rc != GK_OK) {
        free(out->vertex);
        free(out->neighbor);
        out->vertex = out->neighbor = NULL;
        out->n_tri = 0;
    }
    if (st)
        strips_free(st, K);
    free(sidx);
    free(cnt);
    free(inS);
    free(Sidx);
    free(TS.vertex);
    free(TS.neighbor);
    free(vtS);
    free(rlink);
    free(bar);
    free(inR);
    free(rid);
    free(stack);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double p = *(const double *)a, q = *(const double *)b;
    return p < q ? -1 : p > q;
}

/* All n points by strips: 1 with the triangulation in tri, 0 when the sweep
 * must do it (tri empty), -1 out of memory. */
int gk_delaunay_strips(int n, const double *x, const double *y, int strips, int threads,
                       gk_triangulation *tri)
{
    tri->n_tri = 0;
    tri->vertex = tri->neighbor = NULL;
    int K = strips < 2 ? 2 : strips > 64 ? 64 : strips, nth = threads < 1 ? 1 : threads;
    if (n < 3 * K)
        return 0;
    /* Cuts at x quantiles of a regular sample. */
    int ns = n < 16384 ? n : 16384;
    double *sample = malloc((size_t)ns * sizeof *sample), *cuts = malloc((size_t)K * sizeof *cuts);
    int *idx = malloc((size_t)n * sizeof *idx);
    if (!sample || !cuts || !idx) {
        free(sample);
        free(cuts);
        free(idx);
        return -1;
    }
    for (int i = 0; i < ns; i++)
        sample[i] = x[(size_t)i * n / ns];
    qsort(sample, ns, sizeof *sample, cmp_double);
    for (int s = 0; s < K - 1; s++)
        cuts[s] = sample[(size_t)(s + 1) * ns / K];
    free(sample);
#pragma omp parallel for num_threads(nth) schedule(static)
    for (int i = 0; i < n; i++)
        idx[i] = i;
    int rc = dt_strips(n, idx, x, y, n, cuts, K, 0, nth, tri);
    free(cuts);
    free(idx);
    if (rc == GK_ERR_NOMEM)
        return -1;
    if (rc != GK_OK)
        return 0;
    return 1;
}

#endif

static int fail(gk_context *ctx, gk_triangulation *tri, int code, const char *msg, int n)
{
    free(tri->vertex);
    free(tri->neighbor);
    tri->vertex = tri->neighbor = NULL;
    tri->n_tri = 0;
    return gk_error(ctx, code, "Delaunay triangulation of %d points: %s", n, msg);
}

int gk_delaunay(gk_context *ctx, int n, const double *x, const double *y, gk_triangulation *tri)
{
    tri->n_tri = 0;
    tri->vertex = tri->neighbor = NULL;
    if (n < 3)
        return fail(ctx, tri, GK_ERR_ARG, "fewer than 3 points", n);
    if (n > INT_MAX / 6)
        return fail(ctx, tri, GK_ERR_NOMEM, "too many points", n);
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i]) || !isfinite(y[i]))
            return fail(ctx, tri, GK_ERR_ARG, "a point has a non-finite coordinate", n);
#ifndef GK_DELAUNAY_TEST_DEFER
    int nth = ctx ? gk_context_threads(ctx) : 0;
    if (nth <= 0)
        nth = omp_get_num_procs();
    /* The strips cost about 1.7 times the sweep's CPU time: a gain from 3 threads. */
    if (nth >= 3 && n >= GK_DT_PAR_MIN) {
        int r = gk_delaunay_strips(n, x, y, nth, nth, tri);
        if (r > 0)
            return GK_OK;
        if (r < 0)
            return fail(ctx, tri, GK_ERR_NOMEM, "out of memory", n);
    }
#endif
    dt_info info;
    int rc = dt_sweep(n, x, y, tri, &info);
    if (rc != GK_OK)
        return fail(ctx, tri, rc, info.why, n);
    return GK_OK;
}
