/* SPDX-License-Identifier: MIT */
/*
 * linear/delaunay_strips.c - the Delaunay triangulation of many points on
 * several threads (delaunay.c's gk_delaunay from 3 threads on).
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
 * points, whose tie rules then apply.
 */
#include "delaunay_sweep.h"
#include "core/big_alloc.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

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

/* The coordinates of idx[0..m): x in [0, m), y in [m, 2m); NULL when out
 * of memory. */
static double *gather_xy(int m, const int *idx, const double *x, const double *y)
{
    double *lx = malloc(2 * (size_t)(m > 0 ? m : 1) * sizeof *lx);
    if (!lx)
        return NULL;
    double *ly = lx + m;
    for (int i = 0; i < m; i++) {
        lx[i] = x[idx[i]];
        ly[i] = y[idx[i]];
    }
    return lx;
}

/* The vertices of idx[0..m) triangulated by the sweep, in global numbers. */
static int dt_sweep_subset(int m, const int *idx, const double *x, const double *y,
                           gk_triangulation *out, gk_dt_info *info)
{
    double *lx = gather_xy(m, idx, x, y);
    if (!lx)
        return GK_ERR_NOMEM;
    double *ly = lx + m;
    int rc = gk_dt_sweep(m, lx, ly, out, info);
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
 * 1: give up, -1: no memory. The checks run in the sweep's numbering, where
 * a triangle's points are near the previous triangle's in memory. */
static int strip_sweep(dt_strip *q, const double *x, const double *y, double lo, double hi,
                       unsigned char *inS)
{
    if (q->m < 3) {
        for (int i = 0; i < q->m; i++)
            inS[q->idx[i]] = 1;
        return 0;
    }
    double *lx = gather_xy(q->m, q->idx, x, y);
    if (!lx)
        return -1;
    gk_dt_info info;
    gk_dt_order ord;
    int r = gk_dt_sweep_ordered(q->m, lx, lx + q->m, &q->tri, &info, &ord), ret = 0;
    free(lx);
    if (r == GK_ERR_NOMEM) {
        ret = -1;
    } else if (r != GK_OK) { /* collinear: every point goes to S */
        for (int i = 0; i < q->m; i++)
            inS[q->idx[i]] = 1;
    } else if (info.skipped > 0 || info.zeros > 0) {
        ret = 1; /* coincident or cocircular points: the sweep's ties decide */
    } else {
        int nt = q->tri.n_tri, ns = 0;
        const int *V = q->tri.vertex, *N = q->tri.neighbor, *gid = ord.order;
        const double *P = ord.xy;
        q->settled = malloc((size_t)nt);
        q->sid = malloc((size_t)nt * sizeof *q->sid);
        if (!q->settled || !q->sid)
            ret = -1;
        for (int t = 0; t < nt && ret == 0; t++) {
            const int *v = V + 3 * (size_t)t;
            q->settled[t] = (unsigned char)circle_inside(P + 2 * (size_t)v[0], P + 2 * (size_t)v[1],
                                                         P + 2 * (size_t)v[2], lo, hi);
            q->sid[t] = q->settled[t] ? ns++ : -1;
        }
        for (int t = 0; t < nt && ret == 0; t++) {
            const int *v = V + 3 * (size_t)t, *nb = N + 3 * (size_t)t;
            /* S: the vertices of unsettled triangles and of the strip's hull
             * (the triangles between the strips' hulls join those). */
            for (int k = 0; k < 3; k++)
                if (!q->settled[t] || nb[(k + 1) % 3] < 0 || nb[(k + 2) % 3] < 0)
                    inS[q->idx[gid[v[k]]]] = 1;
            if (!q->settled[t])
                continue;
            const double *a = P + 2 * (size_t)v[0], *b = P + 2 * (size_t)v[1];
            const double *c = P + 2 * (size_t)v[2];
            for (int k = 0; k < 3; k++) {
                int u = nb[k];
                if (u > t && q->settled[u]) {
                    int o = apex(V, u, v[(k + 1) % 3], v[(k + 2) % 3]);
                    if (gk_incircle(a, b, c, P + 2 * (size_t)o) >= 0)
                        ret = 1;
                }
            }
        }
        q->nsettled = ns;
        for (size_t k = 0; k < 3 * (size_t)nt; k++)
            q->tri.vertex[k] = q->idx[gid[q->tri.vertex[k]]];
    }
    free(ord.order);
    free(ord.xy);
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
            int o = gk_orient(pa, pb, pc), c1 = dir_class(pa, pb), c2 = dir_class(pb, pc);
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
/* One join of strips: its input, the strips, S (the points near the seams)
 * with its own triangulation TS, and the links between the strips' settled
 * triangles and TS's free region. */
typedef struct {
    int m;          /* points */
    const int *idx; /* their global numbers, ascending */
    const double *x, *y;
    int n_all; /* the size of the global numbering */
    const double *cuts;
    int K, depth, nth;
    dt_strip *st;
    int *sidx, *cnt;
    unsigned char *inS; /* in S; later, a vertex of the result */
    int mS, *Sidx;      /* S, ascending */
    gk_triangulation TS;
    int *vtS;                 /* per point of S: a triangle of TS at it */
    int *rlink;               /* per half-edge of TS on a barrier: the settled triangle beyond */
    unsigned char *bar, *inR; /* TS's barrier half-edges; its free triangles */
    int *rid;                 /* TS's free triangles' numbers in the result */
    int *stack;
    int base[65], nset, nR; /* strip s's settled triangles from base[s]; counts */
} dt_join;

static void join_free(dt_join *J)
{
    if (J->st)
        strips_free(J->st, J->K);
    free(J->sidx);
    free(J->cnt);
    free(J->inS);
    free(J->Sidx);
    free(J->TS.vertex);
    free(J->TS.neighbor);
    free(J->vtS);
    free(J->rlink);
    free(J->bar);
    free(J->inR);
    free(J->rid);
    free(J->stack);
}

static int dt_strips(int m, const int *idx, const double *x, const double *y, int n_all,
                     const double *cuts, int K, int depth, int nth, gk_triangulation *out);

/* The strip of abscissa xv: the number of cuts <= xv (K <= 64), by a
 * binary search without branches (they would be mispredicted half the time). */
static inline int strip_at(const double *cuts, int K, double xv)
{
    int a = 0;
    for (int step = 32; step > 0; step >>= 1)
        a += (a + step < K && cuts[a + step - 1] <= xv) ? step : 0;
    return a;
}

/* Points into strips, each in ascending order (a stable counting sort). */
static void strips_partition(dt_join *J)
{
    int m = J->m, K = J->K, nth = J->nth;
    const int *idx = J->idx;
    const double *x = J->x, *cuts = J->cuts;
    dt_strip *st = J->st;
    int *sidx = J->sidx, *cnt = J->cnt;
    unsigned char *strip_of = malloc((size_t)m); /* the first pass's answers; NULL: search again */
#pragma omp parallel num_threads(nth)
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        int lo = (int)((long long)m * t / T), hi = (int)((long long)m * (t + 1) / T);
        /* the thread's counts on its own stack: in cnt, the threads' rows
         * share cache lines, and every increment would bounce them */
        int c[64] = {0};
        for (int pass = 0; pass < 2; pass++) {
            for (int i = lo; i < hi; i++) {
                int a = strip_of && pass == 1 ? strip_of[i] : strip_at(cuts, K, x[idx[i]]);
                if (pass == 0) {
                    if (strip_of)
                        strip_of[i] = (unsigned char)a;
                    c[a]++;
                } else {
                    sidx[c[a]++] = idx[i];
                }
            }
            if (pass == 1)
                break;
            memcpy(cnt + (size_t)t * K, c, (size_t)K * sizeof *c);
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
            } /* the single's implied barrier: every thread's offsets are set */
            memcpy(c, cnt + (size_t)t * K, (size_t)K * sizeof *c);
        }
    }
    free(strip_of);
}

/* Each strip by the sweep; settled triangles; S. */
static int strips_sweep(dt_join *J)
{
    int K = J->K, nth = J->nth;
    const double *x = J->x, *y = J->y, *cuts = J->cuts;
    dt_strip *st = J->st;
    unsigned char *inS = J->inS;
    int give_up = 0, nomem = 0;
#pragma omp parallel for num_threads(nth) schedule(dynamic, 1) reduction(| : give_up, nomem)
    for (int s = 0; s < K; s++) {
        double lo = s > 0 ? cuts[s - 1] : -INFINITY, hi = s < K - 1 ? cuts[s] : INFINITY;
        int r = strip_sweep(&st[s], x, y, lo, hi, inS);
        nomem |= r < 0;
        give_up |= r > 0;
    }
    if (nomem || give_up)
        return nomem ? GK_ERR_NOMEM : GK_DT_PAR_GIVE_UP;
    return GK_OK;
}

/* S, ascending; too little settled: no gain, give up. */
static int collect_S(dt_join *J)
{
    int m = J->m, K = J->K, nth = J->nth;
    const int *idx = J->idx;
    const unsigned char *inS = J->inS;
    int *cnt = J->cnt;
    int mS = 0;
#pragma omp parallel for num_threads(nth) schedule(static) reduction(+ : mS)
    for (int i = 0; i < m; i++)
        mS += inS[idx[i]];
    if (mS > m / 2 || mS < 3)
        return GK_DT_PAR_GIVE_UP;
    int *Sidx = J->Sidx = malloc((size_t)mS * sizeof *Sidx);
    if (!Sidx)
        return GK_ERR_NOMEM;
    J->mS = mS;
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
    return GK_OK;
}

/* S's own triangulation: by strips again (cut half way between the cuts),
 * else by the sweep. */
static int triangulate_S(dt_join *J)
{
    int K = J->K, nth = J->nth, mS = J->mS, depth = J->depth, n_all = J->n_all;
    const int *Sidx = J->Sidx;
    const double *x = J->x, *y = J->y, *cuts = J->cuts;
    int rc = GK_DT_PAR_GIVE_UP;
    if (depth == 0 && K > 2 && mS >= GK_DT_PAR_MIN / 4) {
        /* S lies along the cuts: cut it half way between them. */
        double *c2 = malloc((size_t)(K - 2) * sizeof *c2);
        if (!c2)
            return GK_ERR_NOMEM;
        for (int s = 0; s < K - 2; s++)
            c2[s] = 0.5 * (cuts[s] + cuts[s + 1]);
        rc = dt_strips(mS, Sidx, x, y, n_all, c2, K - 1, depth + 1, nth, &J->TS);
        free(c2);
    }
    if (rc == GK_DT_PAR_GIVE_UP) {
        gk_dt_info info;
        rc = dt_sweep_subset(mS, Sidx, x, y, &J->TS, &info);
        if (rc == GK_OK && info.skipped > 0)
            rc = GK_DT_PAR_GIVE_UP;
        else if (rc != GK_OK && rc != GK_ERR_NOMEM)
            rc = GK_DT_PAR_GIVE_UP;
    }
    return rc;
}

/* Where the settled triangles meet S's: links both ways, and barriers the
 * flood (free_region) does not cross. */
static int link_settled(dt_join *J)
{
    int K = J->K, nth = J->nth, mS = J->mS;
    const int *Sidx = J->Sidx;
    const unsigned char *inS = J->inS;
    const gk_triangulation TS = J->TS;
    dt_strip *st = J->st;
    int ntS = TS.n_tri;
    int *vtS = J->vtS = malloc((size_t)J->n_all * sizeof *vtS);
    int *rlink = J->rlink = malloc(3 * (size_t)ntS * sizeof *rlink);
    unsigned char *bar = J->bar = calloc(3 * (size_t)ntS, 1);
    J->inR = calloc((size_t)ntS, 1);
    J->rid = malloc((size_t)ntS * sizeof *J->rid);
    J->stack = malloc(((size_t)ntS + 1) * sizeof *J->stack);
    if (!vtS || !rlink || !bar || !J->inR || !J->rid || !J->stack)
        return GK_ERR_NOMEM;
    for (int i = 0; i < mS; i++)
        vtS[Sidx[i]] = -1;
    for (size_t h = 0; h < 3 * (size_t)ntS; h++)
        rlink[h] = -1; /* set on the far side of each barrier */
    for (int t = 0; t < ntS; t++)
        for (int k = 0; k < 3; k++)
            vtS[TS.vertex[3 * (size_t)t + k]] = t;
    int *base = J->base, nset = 0, bad = 0;
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
    J->nset = nset;
    return bad ? GK_DT_PAR_GIVE_UP : GK_OK;
}

/* The triangles of S beyond strip q's barriers (its settled triangles'
 * links), in the order of its triangles, into out (NULL: only counted). */
static size_t barrier_seeds(const dt_strip *q, int *out)
{
    size_t c = 0;
    if (!q->settled)
        return 0;
    for (int t = 0; t < q->tri.n_tri; t++)
        if (q->settled[t])
            for (int k = 0; k < 3; k++) {
                int nb = q->tri.neighbor[3 * (size_t)t + k];
                if (nb <= -2) {
                    if (out)
                        out[c] = (-2 - nb) / 3;
                    c++;
                }
            }
    return c;
}

/* The free region: S's triangles reached from the barriers' far sides. */
static void free_region(dt_join *J)
{
    int K = J->K, nset = J->nset, ntS = J->TS.n_tri;
    const gk_triangulation TS = J->TS;
    dt_strip *st = J->st;
    const unsigned char *bar = J->bar;
    unsigned char *inR = J->inR;
    int *rid = J->rid, *stack = J->stack;
    int sp = 0, nR = 0;
    /* The seeds: each strip's scanned on a thread of its own (most of the
     * time here), then taken in strip order, each once, as one pass would. */
    size_t *at = calloc((size_t)K + 1, sizeof *at);
    int *seed = NULL;
    if (at) {
#pragma omp parallel for num_threads(J->nth) schedule(dynamic, 1)
        for (int s = 0; s < K; s++)
            at[s + 1] = barrier_seeds(&st[s], NULL);
        for (int s = 0; s < K; s++)
            at[s + 1] += at[s];
        seed = malloc((at[K] + 1) * sizeof *seed);
    }
    if (seed) {
#pragma omp parallel for num_threads(J->nth) schedule(dynamic, 1)
        for (int s = 0; s < K; s++)
            barrier_seeds(&st[s], seed + at[s]);
        for (size_t i = 0; i < at[K]; i++)
            if (!inR[seed[i]]) {
                inR[seed[i]] = 1;
                stack[sp++] = seed[i];
            }
    } else { /* no memory for the list: the same seeds in one pass */
        for (int s = 0; s < K; s++)
            for (int t = 0; st[s].settled && t < st[s].tri.n_tri; t++)
                for (int k = 0; st[s].settled[t] && k < 3; k++) {
                    int nb = st[s].tri.neighbor[3 * (size_t)t + k];
                    if (nb <= -2 && !inR[(-2 - nb) / 3]) {
                        inR[(-2 - nb) / 3] = 1;
                        stack[sp++] = (-2 - nb) / 3;
                    }
                }
    }
    free(seed);
    free(at);
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
    J->nR = nR;
}

/* The result: settled triangles strip by strip, then S's free ones; *bad
 * when an edge is claimed twice or a point is no vertex. */
static int assemble(dt_join *J, gk_triangulation *out, int *bad_out)
{
    int m = J->m, K = J->K, nth = J->nth, nset = J->nset, nR = J->nR, ntS = J->TS.n_tri;
    const int *idx = J->idx;
    const gk_triangulation TS = J->TS;
    dt_strip *st = J->st;
    const unsigned char *bar = J->bar, *inR = J->inR;
    const int *rlink = J->rlink, *rid = J->rid, *base = J->base;
    unsigned char *inS = J->inS;
    int bad = 0;
    int nt = nset + nR;
    out->vertex = gk_big_alloc(3 * (size_t)nt * sizeof *out->vertex);
    out->neighbor = gk_big_alloc(3 * (size_t)nt * sizeof *out->neighbor);
    if (!out->vertex || !out->neighbor)
        return GK_ERR_NOMEM;
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
    *bad_out = bad;
    return GK_OK;
}

/* Is the joined triangulation valid where the strips meet (bad: already
 * known not to be)? */
static int seams_ok(dt_join *J, const gk_triangulation *out, int bad)
{
    int m = J->m, nth = J->nth, nset = J->nset, nt = out->n_tri;
    const int *idx = J->idx;
    const double *x = J->x, *y = J->y;
    int *vtS = J->vtS;
    /* The seams: S's free triangles counter-clockwise, their neighbours
     * mutual and their edges strictly Delaunay; then the Euler count and
     * the hull. (Inside a strip the sweep's triangulation holds.) */
#pragma omp parallel for num_threads(nth) schedule(static) reduction(| : bad)
    for (int r = nset; r < nt; r++) {
        const int *v = out->vertex + 3 * (size_t)r;
        double P[3][2] = {{x[v[0]], y[v[0]]}, {x[v[1]], y[v[1]]}, {x[v[2]], y[v[2]]}};
        if (gk_orient(P[0], P[1], P[2]) <= 0)
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
            if ((u < nset || u > r) && gk_incircle(P[0], P[1], P[2], po) >= 0)
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
    return !bad;
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
    dt_join J = {.m = m,
                 .idx = idx,
                 .x = x,
                 .y = y,
                 .n_all = n_all,
                 .cuts = cuts,
                 .K = K,
                 .depth = depth,
                 .nth = nth};
    J.st = calloc((size_t)K, sizeof *J.st);
    J.sidx = gk_big_alloc((size_t)m * sizeof *J.sidx);
    J.cnt = calloc((size_t)nth * K + 1, sizeof *J.cnt);
    J.inS = calloc((size_t)n_all, 1);
    int rc = GK_ERR_NOMEM, bad = 0;
    if (J.st && J.sidx && J.cnt && J.inS) {
        strips_partition(&J);
        rc = strips_sweep(&J);
    }
    if (rc == GK_OK)
        rc = collect_S(&J);
    if (rc == GK_OK)
        rc = triangulate_S(&J);
    if (rc == GK_OK)
        rc = link_settled(&J);
    if (rc == GK_OK) {
        free_region(&J);
        rc = assemble(&J, out, &bad);
    }
    if (rc == GK_OK && !seams_ok(&J, out, bad))
        rc = GK_DT_PAR_GIVE_UP;
    if (rc != GK_OK) {
        free(out->vertex);
        free(out->neighbor);
        out->vertex = out->neighbor = NULL;
        out->n_tri = 0;
    }
    join_free(&J);
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
