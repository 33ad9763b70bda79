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
 * top down, each node's points partitioned stably among its quarters. */
typedef struct {
    const double *x, *y;
    uint32_t *tmp;
    unsigned char *child;
} qt_work;

static void order_node(qt_work *w, uint32_t *idx, size_t n, const qt_box *box)
{
    if (n <= QT_CAPACITY)
        return; /* a leaf: its points stay in input order */
    qt_box half[2], q[4];
    split(box, &half[0], &half[1]);
    split(&half[0], &q[0], &q[1]);
    split(&half[1], &q[2], &q[3]);
    for (int c = 0; c < 4; c++)
        if (same_box(box, &q[c]))
            return; /* no extent left to split: one node keeps them all */
    size_t count[5] = {0, 0, 0, 0, 0};
    for (size_t k = 0; k < n; k++) {
        uint32_t i = idx[k];
        int c = 0;
        while (c < 4 && !holds(&q[c], w->x[i], w->y[i]))
            c++;
        w->child[k] = (unsigned char)c; /* 4: in no quarter (cannot happen to a point) */
        count[c]++;
    }
    size_t at[5];
    at[4] = 0; /* points in no quarter come first: the node's own */
    at[0] = count[4];
    for (int c = 1; c < 4; c++)
        at[c] = at[c - 1] + count[c - 1];
    size_t begin[4] = {at[0], at[1], at[2], at[3]};
    for (size_t k = 0; k < n; k++)
        w->tmp[at[w->child[k]]++] = idx[k];
    memcpy(idx, w->tmp, n * sizeof *idx);
    for (int c = 0; c < 4; c++)
        order_node(w, idx + begin[c], count[c], &q[c]);
}

int gk_gdal_quadtree_order(const double *x, const double *y, size_t n, uint32_t *order)
{
    if (n == 0)
        return 0;
    qt_box root = {x[0], y[0], x[0], y[0]};
    for (size_t i = 1; i < n; i++) {
        if (x[i] < root.minx)
            root.minx = x[i];
        if (y[i] < root.miny)
            root.miny = y[i];
        if (x[i] > root.maxx)
            root.maxx = x[i];
        if (y[i] > root.maxy)
            root.maxy = y[i];
    }
    qt_work w = {x, y, malloc(n * sizeof(uint32_t)), malloc(n)};
    if (!w.tmp || !w.child) {
        free(w.tmp);
        free(w.child);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = (uint32_t)i;
    order_node(&w, order, n, &root);
    free(w.tmp);
    free(w.child);
    return 0;
}
