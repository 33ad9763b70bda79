/* SPDX-License-Identifier: MIT */
/*
 * geostat/local_select.c - the points a node selects under gstat's local
 * neighbourhood rules (local_select.h), shared by local kriging and the
 * local polynomials.
 */
#include "local_select.h"

#include "kriging_kernels.h"
#include "search/neighbours.h"

#include <math.h>

/* gstat's quadrant of (dx, dy) = point - target (select.c, "pinwheel"). */
static inline int quadrant(double dx, double dy)
{
    int x = dy < 0 ? dx > 0 : dx >= 0;
    int y = dx < 0 ? dy >= 0 : dy > 0;
    return x | (y << 1);
}

static int in_quadrant(const void *q, double dx, double dy)
{
    return quadrant(dx, dy) == *(const int *)q;
}

/* max_points_per_quadrant over every point (no max_points, no radius): each
 * quadrant's omax nearest straight from the k-d tree, merged by (d2, index),
 * which is the filter's answer over the whole set sorted (select_points's
 * general path sorts all n points a node: seconds at a million). The count
 * before the filter, for min_points, is every point. Pinwheel quadrant q lies
 * in the closed quadrant q, whose boxes alone the tree visits: a node beyond
 * the points' hull finds its empty quadrants at once. */
static long select_every_quadrant(const gk_job *job, const gk_local_nb *nb, double nx, double ny,
                                  gk_scratch *s)
{
    const size_t n = job->pts->n;
    if (n < (size_t)nb->min_points)
        return 0;
    size_t k = (size_t)nb->omax;
    if (k > n)
        k = n;
    if (gk_scratch_reserve(s, 8 * k))
        return -1;
    int *qi = s->idx + 4 * k, got[4], at[4] = {0, 0, 0, 0};
    double *qd = s->d2 + 4 * k;
    for (int q = 0; q < 4; q++)
        got[q] = gk_kdtree_knn_quadrant(job->tree, nx, ny, q | GK_KD_CLOSED, in_quadrant, &q,
                                        (int)k, INFINITY, qi + q * k, qd + q * k);
    long m = 0;
    for (;;) {
        int b = -1;
        for (int q = 0; q < 4; q++) {
            if (at[q] == got[q])
                continue;
            if (b < 0) {
                b = q;
                continue;
            }
            size_t c = q * k + at[q], o = b * k + at[b];
            if (qd[c] < qd[o] || (qd[c] == qd[o] && qi[c] < qi[o]))
                b = q;
        }
        if (b < 0)
            return m;
        s->idx[m] = qi[b * k + at[b]];
        s->d2[m] = qd[b * k + at[b]];
        at[b]++;
        m++;
    }
}

/* The points near a recent node, kept in the scratch after the selection's
 * own arrays (at c0): each id with its coordinates, and a head saying which
 * disk they fill. Along a row the next few nodes' bounds lie inside it, so
 * their candidates come from a scan of these few points instead of a walk
 * down the tree. The head is reset where the thread's searches begin afresh
 * (pv not valid: a new tile, or a failed bound), so a cache never outlives
 * the tree view (a cross-validation fold) it was filled from. */
enum { NEAR_STEPS = 4 }; /* the disk covers this many more steps */
static const double NEAR_TRY = 0.5; /* the tighter bound tried first: this part of a step */
static size_t near_cap(size_t capc) { return 2 * capc; }
static size_t near_need(size_t c0, size_t capc) { return c0 + 2 * near_cap(capc) + 3; }

/* The candidates within b2 of (nx, ny), the same set and squared distances
 * as gk_kdtree_radius gives (the same arithmetic on the same doubles; the
 * order may differ, which the set selection ignores); the count as it
 * returns it. cid and cd2 hold near_cap(capc): every point of the cache
 * may be written (no test in the scan), only capc are asked for. Where at
 * least k lie within the tighter bt2 only those are kept: the k nearest are
 * among them, and fewer are left to rank. */
static size_t near_radius(const gk_job *job, double nx, double ny, double b2, double bt2, size_t k,
                          double step, gk_scratch *s, size_t c0, int *cid, double *cd2, size_t capc)
{
    const size_t cap = near_cap(capc), head = c0 + 2 * cap;
    int *ci = s->idx + c0;
    double *cx = s->d2 + c0, *cy = cx + cap, *h = s->d2 + head;
    const double r = sqrt(b2);
    /* inside the disk (centre h[0], h[1], radius h[2]) with room for the
     * rounding of the distances, relative and to the coordinates' size */
    int fill = s->idx[head] < 0;
    if (!fill)
        fill = !(r + hypot(nx - h[0], ny - h[1]) + 1e-9 * (h[2] + fabs(nx) + fabs(ny)) <= h[2]);
    if (fill) {
        /* a hair wider than r even for a step of 0: r * r may round below b2 */
        const double rq = r + NEAR_STEPS * step + 2e-9 * (r + fabs(nx) + fabs(ny));
        size_t n = gk_kdtree_radius(job->tree, nx, ny, rq * rq, ci, cx, cap);
        if (n > cap) { /* too many to keep: this node searches the tree */
            s->idx[head] = -1;
            return gk_kdtree_radius(job->tree, nx, ny, b2, cid, cd2, capc);
        }
        for (size_t i = 0; i < n; i++) {
            cx[i] = job->pts->x[ci[i]];
            cy[i] = job->pts->y[ci[i]];
        }
        h[0] = nx, h[1] = ny, h[2] = rq;
        s->idx[head] = (int)n;
    }
    const size_t n = (size_t)s->idx[head];
    size_t m = 0, mt = 0;
    for (size_t i = 0; i < n; i++) {
        const double dx = cx[i] - nx, dy = cy[i] - ny;
        const double d = dx * dx + dy * dy;
        cid[m] = ci[i];
        cd2[m] = d;
        m += d <= b2;
        mt += d <= bt2;
    }
    if (mt < k || m > capc)
        return m;
    size_t o = 0;
    for (size_t i = 0; i < m; i++) {
        cid[o] = cid[i];
        cd2[o] = cd2[i];
        o += cd2[i] <= bt2;
    }
    return o;
}

long gk_local_select(const gk_job *job, const gk_local_nb *nb, double nx, double ny, gk_scratch *s,
                     gk_local_prev *pv)
{
    double r2 = nb->maxdist > 0 ? nb->maxdist * nb->maxdist : INFINITY;
    long m;
    if (nb->omax > 0 && nb->max_points == 0 && nb->maxdist == 0)
        return select_every_quadrant(job, nb, nx, ny, s);
    if (nb->max_points > 0 || nb->maxdist == 0) {
        size_t kmax = nb->max_points > 0 ? (size_t)nb->max_points : job->pts->n;
        if (kmax > job->pts->n)
            kmax = job->pts->n;
        size_t capc = 4 * kmax + 16; /* candidates from a radius search */
        /* up to 128 (ranked candidates, below): the candidates' room as the
         * cache's, then the points near a recent node */
        const int ranked = kmax <= 128;
        const size_t c0 = kmax + near_cap(capc);
        if (gk_scratch_reserve(s, ranked ? near_need(c0, capc) : 2 * kmax + capc))
            return -1;
        if (ranked && !pv->valid)
            s->idx[c0 + 2 * near_cap(capc)] = -1;
        /* The previous node's k points lie within its k-th distance plus the
         * step, so that bound (with slack for rounding) loses none of the k
         * nearest and prunes the search; too few found: search again. */
        double b2 = r2, bt2 = r2, step = 0.0;
        if (pv->valid) {
            step = hypot(nx - pv->x, ny - pv->y);
            double r = sqrt(pv->d2k) + step, rt = sqrt(pv->d2k) + NEAR_TRY * step;
            bt2 = rt * rt; /* below b2: those within it are among b2's */
            b2 = r * r * (1.0 + 1e-9);
            if (!(b2 < r2))
                b2 = r2;
            if (!(bt2 < b2))
                bt2 = b2;
        }
        m = -1;
        if (pv->valid && ranked) {
            /* Near the previous node the bound is tight: the points within
             * it, ranked, are cheaper than the k-nearest search's insertions. */
            size_t nc = near_radius(job, nx, ny, b2, bt2, kmax, step, s, c0, s->idx + kmax,
                                    s->d2 + kmax, capc);
            if (nc >= kmax && nc <= capc) {
                if (nb->omax > 0) { /* the filter takes them nearest first */
                    gk_kk_select(s->idx + kmax, s->d2 + kmax, (int)nc, (int)kmax, s->idx, s->d2);
                } else { /* the set is all that counts: it is sorted by index next */
                    s->d2[kmax - 1] =
                        gk_kk_select_set(s->idx + kmax, s->d2 + kmax, (int)nc, (int)kmax, s->idx);
                }
                m = (long)kmax;
            }
        }
        if (m < 0)
            m = gk_kdtree_knn(job->tree, nx, ny, (int)kmax, b2, s->idx, s->d2);
        if ((size_t)m < kmax && b2 < r2)
            m = gk_kdtree_knn(job->tree, nx, ny, (int)kmax, r2, s->idx, s->d2);
        pv->valid = (size_t)m == kmax;
        if (pv->valid) {
            pv->x = nx;
            pv->y = ny;
            pv->d2k = s->d2[m - 1];
        }
    } else {
        m = gk_nb_circle(job, nx, ny, r2, s);
        if (m == GK_NB_NOMEM)
            return -1;
        gk_nb_sort(s->idx, s->d2, (size_t)m);
    }
    if (m < nb->min_points)
        return 0;
    int omax = nb->omax;
    if (omax > 0) {
        int cnt[4] = {0, 0, 0, 0};
        long o = 0;
        for (long i = 0; i < m; i++) {
            int q = quadrant(job->pts->x[s->idx[i]] - nx, job->pts->y[s->idx[i]] - ny);
            if (cnt[q] < omax) {
                cnt[q]++;
                s->idx[o] = s->idx[i];
                s->d2[o] = s->d2[i];
                o++;
            }
        }
        m = o;
    }
    return m;
}
