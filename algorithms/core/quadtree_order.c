/* SPDX-License-Identifier: MIT */
/*
 * quadtree_order.c - the depth-first order of gdal_grid's quadtree
 * (quadtree_order.h), from the rules of GDAL's CPLQuadTree (its default
 * insertion): a node holds up to 8 points; the 9th makes it split into four
 * children, which take its points back in the order they were listed, each
 * into the first child whose box holds it (boxes are closed and overlap); a
 * node whose children would equal it (no extent left) keeps every point. A
 * search lists a node's own points, then its children's, in child order.
 */
#include "core/quadtree_order.h"
#include "core/big_alloc.h"
#include "core/quadtree_split.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* The tree's shape does not depend on the order points arrive in: a node
 * splits once a ninth point reaches it (unless its quarters would equal
 * it), and a point always goes to the first quarter that holds it. Only the
 * order of a leaf's points does: input order (a split hands the node's
 * points down in the order it had them). So the depth-first order is built
 * top down, each node's points partitioned stably among its quarters: a
 * result of the points alone, whatever the threads.
 *
 * Points travel with their index as records, so that each level is a
 * sequential pass (indexing x and y through a permutation missed the cache
 * on every point); two buffers take turns, and a leaf writes its indices
 * (and coordinates) to their place in the order. Nodes of par_node()
 * points and more are split one at a time, each pass shared by the
 * threads in QT_CHUNKS fixed chunks; the smaller subtrees then run side by
 * side, each on one thread, at least 8 a thread (the quarters are 55% and
 * 45% of their parent's sides: subtrees of one level differ up to 2x). */
typedef struct {
    double x, y;
    uint32_t i;
} qt_rec;

#define QT_PAR_MIN ((size_t)1 << 16) /* fewer points: one thread */
#define QT_CHUNKS 64

static size_t par_node(size_t n, int nt)
{
    size_t m = n / (8 * (size_t)nt);
    return m > 4096 ? m : 4096;
}

/* Where a leaf's points go: their indices, and where wanted their
 * coordinates, from offset on. */
typedef struct {
    uint32_t *order;
    double *x, *y;
    uint8_t *lcp; /* gk_gdal_quadtree_order's tree levels, or NULL */
} qt_out;

static void leaf(const qt_rec *src, size_t n, const qt_out *o, size_t at)
{
    for (size_t k = 0; k < n; k++)
        o->order[at + k] = src[k].i;
    if (o->x)
        for (size_t k = 0; k < n; k++)
            o->x[at + k] = src[k].x, o->y[at + k] = src[k].y;
    if (o->lcp && n > 1)
        memset(o->lcp + at + 1, GK_QT_NO_SPLIT, n - 1); /* one leaf: no boundary */
}

/* A boundary of the binary form of the tree (a node's halves, then each
 * half's quarters) at depth 2 d (between halves) or 2 d + 1, kept below
 * GK_QT_NO_SPLIT (deeper boundaries saturate: still boundaries). */
static uint8_t level_of(size_t d2)
{
    return (uint8_t)(d2 < GK_QT_NO_SPLIT - 1 ? d2 : GK_QT_NO_SPLIT - 1);
}

/* The boundary before a group of points (quarter c of a node at depth d,
 * and g of that quarter's own quarters, 4 meaning a node's own points),
 * after the group (pc, pg) */
static uint8_t boundary(size_t d, int pc, int pg, int c, int g)
{
    if (pc != c)
        return level_of(pc == 4 || c == 4 || pc / 2 != c / 2 ? 2 * d : 2 * d + 1);
    return level_of(pg == 4 || g == 4 || pg / 2 != g / 2 ? 2 * d + 2 : 2 * d + 3);
}

/* Two levels in one pass: a node's points go to its quarters and, in each
 * quarter that splits too, on to that quarter's quarters, so each pass over
 * the points (the cost: they come from memory) does two levels' work. A
 * point's place is a bucket: quarter c (4 = in none, first), then within a
 * splitting quarter its quarter g (4 first again); bucket = 5 * rank(c) +
 * rank(g), rank(4) = 0. */
typedef struct {
    qt_cuts top, sub[4];
    int can_split[4]; /* the quarter's own quarters differ from it */
} qt_split2;

#define QT_B 25
static inline int rank5(int c) { return c == 4 ? 0 : c + 1; }

static inline unsigned char raw_key(const qt_split2 *sp, double x, double y)
{
    unsigned char c = qt_quarter(&sp->top, x, y);
    unsigned char g = c < 4 ? qt_quarter(&sp->sub[c], x, y) : 4;
    return (unsigned char)(5 * rank5(c) + rank5(g));
}

/* the bucket of each raw key, once the quarters' counts decide which split */
static void bucket_lut(const qt_split2 *sp, const size_t raw[QT_B], unsigned char lut[QT_B],
                       int split[4])
{
    for (int c = 0; c < 4; c++) {
        size_t m = 0;
        for (int g = 0; g < 5; g++)
            m += raw[5 * rank5(c) + g];
        split[c] = m > QT_CAPACITY && sp->can_split[c];
    }
    for (int r = 0; r < QT_B; r++) {
        int rc = r / 5; /* rank of c */
        int keep = rc > 0 && split[rc - 1];
        lut[r] = (unsigned char)(keep ? r : 5 * rc);
    }
}

/* src[0..n): a node's points in its order. They go to dst partitioned
 * stably by bucket; ch holds each one's raw key meanwhile. count[b]: how
 * many in bucket b; split[c]: whether quarter c was split too. */
static void partition(const qt_rec *src, qt_rec *dst, unsigned char *ch, size_t n,
                      const qt_split2 *sp, size_t count[QT_B], int split[4], int nt)
{
    unsigned char lut[QT_B];
    if (nt == 1) {
        size_t raw[QT_B] = {0};
        for (size_t k = 0; k < n; k++)
            raw[ch[k] = raw_key(sp, src[k].x, src[k].y)]++;
        bucket_lut(sp, raw, lut, split);
        size_t at[QT_B];
        for (int b = 0; b < QT_B; b++)
            count[b] = 0;
        for (int r = 0; r < QT_B; r++)
            count[lut[r]] += raw[r];
        at[0] = 0;
        for (int b = 1; b < QT_B; b++)
            at[b] = at[b - 1] + count[b - 1];
        for (size_t k = 0; k < n; k++)
            dst[at[lut[ch[k]]]++] = src[k];
        return;
    }
    size_t cc[QT_CHUNKS][QT_B];
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int t = 0; t < QT_CHUNKS; t++) {
        size_t lo = n * (size_t)t / QT_CHUNKS, hi = n * (size_t)(t + 1) / QT_CHUNKS;
        size_t c25[QT_B] = {0};
        for (size_t k = lo; k < hi; k++)
            c25[ch[k] = raw_key(sp, src[k].x, src[k].y)]++;
        for (int r = 0; r < QT_B; r++)
            cc[t][r] = c25[r];
    }
    size_t raw[QT_B] = {0};
    for (int t = 0; t < QT_CHUNKS; t++)
        for (int r = 0; r < QT_B; r++)
            raw[r] += cc[t][r];
    bucket_lut(sp, raw, lut, split);
    /* chunk t's first place in bucket b: behind the buckets before b and
     * behind chunks 0..t-1 in b */
    size_t ct[QT_CHUNKS][QT_B];
    for (int t = 0; t < QT_CHUNKS; t++) {
        for (int b = 0; b < QT_B; b++)
            ct[t][b] = 0;
        for (int r = 0; r < QT_B; r++)
            ct[t][lut[r]] += cc[t][r];
    }
    size_t at = 0;
    for (int b = 0; b < QT_B; b++) {
        count[b] = 0;
        for (int t = 0; t < QT_CHUNKS; t++) {
            size_t m = ct[t][b];
            ct[t][b] = at;
            at += m;
            count[b] += m;
        }
    }
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int t = 0; t < QT_CHUNKS; t++) {
        size_t lo = n * (size_t)t / QT_CHUNKS, hi = n * (size_t)(t + 1) / QT_CHUNKS;
        size_t atb[QT_B];
        for (int b = 0; b < QT_B; b++)
            atb[b] = ct[t][b];
        for (size_t k = lo; k < hi; k++)
            dst[atb[lut[ch[k]]]++] = src[k];
    }
}

/* A node: its points at src[0..n) (the other buffer at dst), its box, its
 * place at in the order. */
typedef struct {
    qt_rec *src, *dst;
    unsigned char *ch;
    size_t n, at, depth;
    qt_box box;
} qt_node;

typedef struct {
    qt_node *v;
    size_t n, cap;
} qt_list;

static int push(qt_list *l, qt_node nd)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        qt_node *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v, l->cap = cap;
    }
    l->v[l->n++] = nd;
    return 0;
}

/* a node found by a pass: a leaf at once, else handed to kids (a list, not
 * a recursion: a tree of clustered points is as deep as its boxes can
 * halve, hundreds of levels where coordinates span many magnitudes) */
static int next(qt_node kid, const qt_out *out, qt_list *kids)
{
    if (kid.n <= QT_CAPACITY) {
        leaf(kid.src, kid.n, out, kid.at); /* a leaf: its points stay in input order */
        return 0;
    }
    return push(kids, kid);
}

/* One node: a leaf's points to the order, else partitioned among its
 * quarters and their quarters (on nt threads), whose nodes go to next(). */
static int order_node(const qt_node *nd, const qt_out *out, int nt, qt_list *kids)
{
    qt_split2 sp;
    if (nd->n <= QT_CAPACITY || !qt_quarters(&nd->box, &sp.top)) {
        leaf(nd->src, nd->n, out, nd->at);
        return 0;
    }
    for (int c = 0; c < 4; c++)
        sp.can_split[c] = qt_quarters(&sp.top.q[c], &sp.sub[c]);
    size_t count[QT_B];
    int split2[4];
    partition(nd->src, nd->dst, nd->ch, nd->n, &sp, count, split2, nt);
    /* the points are now in dst, their next pass's source; the order of
     * buckets is the depth-first order: own points first */
    const size_t d = nd->depth;
    int pc = -1, pg = -1; /* the last group that had points */
#define GROUP(c_, g_, m_)                                                                          \
    do {                                                                                           \
        if ((m_) > 0) {                                                                            \
            if (out->lcp && pc >= 0)                                                               \
                out->lcp[nd->at + b] = boundary(d, pc, pg, c_, g_);                                \
            pc = (c_), pg = (g_);                                                                  \
        }                                                                                          \
    } while (0)
    size_t b = 0;
    GROUP(4, 4, count[0]);
    leaf(nd->dst, count[0], out, nd->at);
    b = count[0];
    for (int c = 0; c < 4; c++) {
        const int rc = 5 * (c + 1);
        if (!split2[c]) {
            GROUP(c, 4, count[rc]);
            qt_node kid = {nd->dst + b, nd->src + b,   nd->ch + b, count[rc],
                           nd->at + b,  nd->depth + 1, sp.top.q[c]};
            if (next(kid, out, kids))
                return -1;
            b += count[rc];
            continue;
        }
        GROUP(c, 4, count[rc]);
        leaf(nd->dst + b, count[rc], out, nd->at + b); /* the quarter's own points */
        b += count[rc];
        for (int g = 0; g < 4; g++) {
            size_t m = count[rc + g + 1];
            GROUP(c, g, m);
            qt_node kid = {nd->dst + b, nd->src + b,   nd->ch + b,    m,
                           nd->at + b,  nd->depth + 2, sp.sub[c].q[g]};
            if (next(kid, out, kids))
                return -1;
            b += m;
        }
    }
#undef GROUP
    return 0;
}

int gk_gdal_quadtree_order(const double *x, const double *y, size_t n, uint32_t *order, double *ox,
                           double *oy, uint8_t *lcp, int threads)
{
    if (n == 0)
        return 0;
    qt_rec *a = gk_big_alloc(n * sizeof *a), *b = gk_big_alloc(n * sizeof *b);
    unsigned char *ch = malloc(n);
    if (!a || !b || !ch) {
        free(a), free(b), free(ch);
        return -1;
    }
    const int par = n >= QT_PAR_MIN && threads != 1;
    const int nt = threads > 0 ? threads : omp_get_num_procs();
    qt_box root = {x[0], y[0], x[0], y[0]};
    double x0 = x[0], y0 = y[0], x1 = x[0], y1 = y[0];
#pragma omp parallel for if (par) num_threads(nt) reduction(min : x0, y0) reduction(max : x1, y1)
    for (size_t i = 0; i < n; i++) {
        a[i] = (qt_rec){x[i], y[i], (uint32_t)i};
        x0 = x[i] < x0 ? x[i] : x0;
        y0 = y[i] < y0 ? y[i] : y0;
        x1 = x[i] > x1 ? x[i] : x1;
        y1 = y[i] > y1 ? y[i] : y1;
    }
    root.minx = x0, root.miny = y0, root.maxx = x1, root.maxy = y1;
    const qt_out out = {order, ox, oy, lcp};
    if (lcp)
        lcp[0] = 0;
    /* the large nodes one at a time, their passes on every thread; then the
     * subtrees below them side by side */
    qt_list big = {0}, small = {0};
    int rc = push(&big, (qt_node){a, b, ch, n, 0, 0, root});
    while (!rc && big.n) {
        qt_node nd = big.v[--big.n];
        qt_list kids = {0};
        rc = order_node(&nd, &out, par ? nt : 1, &kids);
        for (size_t k = 0; !rc && k < kids.n; k++)
            rc = push(kids.v[k].n >= par_node(n, nt) && par ? &big : &small, kids.v[k]);
        free(kids.v);
    }
    int failed = 0;
#pragma omp parallel for if (par && small.n > 1) num_threads(nt) schedule(dynamic, 1)              \
    reduction(|                                                                                    \
              : failed)
    for (size_t k = 0; k < small.n; k++) {
        /* each node writes only its own places: any order of work will do */
        qt_list todo = {0};
        int f = push(&todo, small.v[k]);
        while (!f && todo.n) {
            qt_node nd = todo.v[--todo.n];
            f = order_node(&nd, &out, 1, &todo);
        }
        free(todo.v);
        failed |= f;
    }
    free(big.v);
    free(small.v);
    free(a), free(b), free(ch);
    return rc || failed ? -1 : 0;
}
