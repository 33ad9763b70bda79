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

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define QT_CAPACITY 8
#define QT_SPLIT_RATIO 0.55

typedef struct {
    double minx, miny, maxx, maxy;
} qt_box;

/* CPLQuadTreeSplitBounds: the longer side (x when strictly longer) cut into
 * two overlapping parts of QT_SPLIT_RATIO each */
static void split(const qt_box *in, qt_box *a, qt_box *b)
{
    *a = *in;
    *b = *in;
    if (in->maxx - in->minx > in->maxy - in->miny) {
        double range = in->maxx - in->minx;
        a->maxx = in->minx + range * QT_SPLIT_RATIO;
        b->minx = in->maxx - range * QT_SPLIT_RATIO;
    } else {
        double range = in->maxy - in->miny;
        a->maxy = in->miny + range * QT_SPLIT_RATIO;
        b->miny = in->maxy - range * QT_SPLIT_RATIO;
    }
}

static int holds(const qt_box *b, double x, double y)
{
    return x >= b->minx && x <= b->maxx && y >= b->miny && y <= b->maxy;
}

static int same_box(const qt_box *a, const qt_box *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

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
 * (and coordinates) to their place in the order. Nodes of QT_PAR_NODE
 * points and more are split one at a time, each pass shared by the
 * threads in QT_CHUNKS fixed chunks; the smaller subtrees then run side by
 * side, each on one thread. */
typedef struct {
    double x, y;
    uint32_t i;
} qt_rec;

#define QT_PAR_NODE ((size_t)1 << 17)
#define QT_CHUNKS 64

/* The first quarter whose closed box holds (x, y), a point of the node.
 * The quarters share the node's bounds but along the cuts: a point is
 * placed by two comparisons with the cuts (the cases holds() on each
 * quarter decides the same way), and only one in a gap that rounding may
 * leave between the two parts of a tiny box is tested quarter by quarter. */
typedef struct {
    qt_box q[4];
    int y1, y2[2];                        /* the first cut, each half's, along y (else x) */
    double hi1, lo1, hi2[2], lo2[2];      /* first part's upper, second part's lower bound */
} qt_cuts;

/* as split() decides: the axis and the two parts' bounds along it */
static void cut_of(const qt_box *in, const qt_box *a, const qt_box *b, int *y, double *hi,
                   double *lo)
{
    *y = !(in->maxx - in->minx > in->maxy - in->miny);
    *hi = *y ? a->maxy : a->maxx;
    *lo = *y ? b->miny : b->minx;
}

static void cuts_of(const qt_box *box, const qt_box half[2], const qt_box q[4], qt_cuts *k)
{
    memcpy(k->q, q, sizeof k->q);
    cut_of(box, &half[0], &half[1], &k->y1, &k->hi1, &k->lo1);
    for (int h = 0; h < 2; h++)
        cut_of(&half[h], &q[2 * h], &q[2 * h + 1], &k->y2[h], &k->hi2[h], &k->lo2[h]);
}

static unsigned char quarter(const qt_cuts *k, double x, double y)
{
    /* without branches on the data (half the points go each way) */
    const double v[2] = {x, y};
    const double v1 = v[k->y1];
    const int a1 = v1 <= k->hi1, h = !a1;
    const double v2 = v[k->y2[h]];
    const int a2 = v2 <= k->hi2[h];
    if ((a1 | (v1 >= k->lo1)) & (a2 | (v2 >= k->lo2[h])))
        return (unsigned char)(2 * h + !a2);
    unsigned char c = 0;
    while (c < 4 && !holds(&k->q[c], x, y))
        c++;
    return c; /* 4: in no quarter (cannot happen to a point) */
}

/* Where a leaf's points go: their indices, and where wanted their
 * coordinates, from offset on. */
typedef struct {
    uint32_t *order;
    double *x, *y;
} qt_out;

static void leaf(const qt_rec *src, size_t n, const qt_out *o, size_t at)
{
    for (size_t k = 0; k < n; k++)
        o->order[at + k] = src[k].i;
    if (o->x)
        for (size_t k = 0; k < n; k++)
            o->x[at + k] = src[k].x, o->y[at + k] = src[k].y;
}

/* src[0..n): a node's points in its order. They go to dst partitioned
 * stably by quarter (the node's own, none, first); ch holds each one's
 * quarter meanwhile. count[c]: how many in quarter c. */
static void partition(const qt_rec *src, qt_rec *dst, unsigned char *ch, size_t n,
                      const qt_cuts *k4, size_t count[5], int nt)
{
    if (n < QT_PAR_NODE || nt == 1) {
        for (int c = 0; c < 5; c++)
            count[c] = 0;
        for (size_t k = 0; k < n; k++)
            count[ch[k] = quarter(k4, src[k].x, src[k].y)]++;
        size_t at[5];
        at[4] = 0;
        at[0] = count[4];
        for (int c = 1; c < 4; c++)
            at[c] = at[c - 1] + count[c - 1];
        for (size_t k = 0; k < n; k++)
            dst[at[ch[k]]++] = src[k];
        return;
    }
    size_t cc[QT_CHUNKS][5];
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int t = 0; t < QT_CHUNKS; t++) {
        size_t lo = n * (size_t)t / QT_CHUNKS, hi = n * (size_t)(t + 1) / QT_CHUNKS;
        size_t c5[5] = {0, 0, 0, 0, 0};
        for (size_t k = lo; k < hi; k++)
            c5[ch[k] = quarter(k4, src[k].x, src[k].y)]++;
        for (int c = 0; c < 5; c++)
            cc[t][c] = c5[c];
    }
    /* chunk t's first place in quarter c: behind the quarters before c and
     * behind chunks 0..t-1 in c */
    const int seq[5] = {4, 0, 1, 2, 3};
    size_t at = 0;
    for (int s = 0; s < 5; s++) {
        int c = seq[s];
        count[c] = 0;
        for (int t = 0; t < QT_CHUNKS; t++) {
            size_t m = cc[t][c];
            cc[t][c] = at;
            at += m;
            count[c] += m;
        }
    }
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int t = 0; t < QT_CHUNKS; t++) {
        size_t lo = n * (size_t)t / QT_CHUNKS, hi = n * (size_t)(t + 1) / QT_CHUNKS;
        size_t at5[5];
        for (int c = 0; c < 5; c++)
            at5[c] = cc[t][c];
        for (size_t k = lo; k < hi; k++)
            dst[at5[ch[k]]++] = src[k];
    }
}

/* A node: its points at src[0..n) (the other buffer at dst), its box, its
 * place at in the order. */
typedef struct {
    qt_rec *src, *dst;
    unsigned char *ch;
    size_t n, at;
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

/* One node: a leaf's points to the order, else partitioned among its
 * quarters (on nt threads), whose nodes go to kids (or, with kids NULL,
 * are done at once, depth first). */
static int order_node(const qt_node *nd, const qt_out *out, int nt, qt_list *kids)
{
    if (nd->n <= QT_CAPACITY) {
        leaf(nd->src, nd->n, out, nd->at); /* a leaf: its points stay in input order */
        return 0;
    }
    qt_box half[2], q[4];
    split(&nd->box, &half[0], &half[1]);
    split(&half[0], &q[0], &q[1]);
    split(&half[1], &q[2], &q[3]);
    for (int c = 0; c < 4; c++)
        if (same_box(&nd->box, &q[c])) {
            /* no extent left to split: one node keeps them all */
            leaf(nd->src, nd->n, out, nd->at);
            return 0;
        }
    size_t count[5];
    qt_cuts cuts;
    cuts_of(&nd->box, half, q, &cuts);
    partition(nd->src, nd->dst, nd->ch, nd->n, &cuts, count, nt);
    leaf(nd->dst, count[4], out, nd->at); /* the node's own points come first */
    size_t b = count[4];
    for (int c = 0; c < 4; c++) {
        qt_node kid = {nd->dst + b, nd->src + b, nd->ch + b, count[c], nd->at + b, q[c]};
        if (kids) {
            if (push(kids, kid))
                return -1;
        } else if (order_node(&kid, out, 1, NULL))
            return -1;
        b += count[c];
    }
    return 0;
}

int gk_gdal_quadtree_order(const double *x, const double *y, size_t n, uint32_t *order,
                           double *ox, double *oy, int threads)
{
    if (n == 0)
        return 0;
    qt_rec *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    unsigned char *ch = malloc(n);
    if (!a || !b || !ch) {
        free(a), free(b), free(ch);
        return -1;
    }
    const int par = n >= QT_PAR_NODE && threads != 1;
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
    const qt_out out = {order, ox, oy};
    /* the large nodes one at a time, their passes on every thread; then the
     * subtrees below them side by side */
    qt_list big = {0}, small = {0};
    int rc = push(&big, (qt_node){a, b, ch, n, 0, root});
    while (!rc && big.n) {
        qt_node nd = big.v[--big.n];
        qt_list kids = {0};
        rc = order_node(&nd, &out, par ? nt : 1, &kids);
        for (size_t k = 0; !rc && k < kids.n; k++)
            rc = push(kids.v[k].n >= QT_PAR_NODE && par ? &big : &small, kids.v[k]);
        free(kids.v);
    }
    int failed = 0;
#pragma omp parallel for if (par && small.n > 1) num_threads(nt) schedule(dynamic, 1) \
    reduction(| : failed)
    for (size_t k = 0; k < small.n; k++)
        failed |= order_node(&small.v[k], &out, 1, NULL);
    free(big.v);
    free(small.v);
    if (rc || failed) {
        free(a), free(b), free(ch);
        return -1;
    }
    free(a), free(b), free(ch);
    return 0;
}
