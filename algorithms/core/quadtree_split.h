/* SPDX-License-Identifier: MIT */
/*
 * quadtree_split.h - the boxes of gdal_grid's quadtree and the quarter a
 * point goes to (GDAL's CPLQuadTree rules, quadtree_order.h), shared by the
 * CPU's order (quadtree_order.c) and the GPU's (gpu/quadtree_order.cu), so
 * that both build one tree: the boxes are computed on the host alone (no
 * contraction: the project builds with -ffp-contract=off), and the device
 * only compares coordinates with them, with this file's code.
 */
#ifndef GK_QUADTREE_SPLIT_H
#define GK_QUADTREE_SPLIT_H

#include <string.h>

#if defined(__CUDACC__)
#define QT_HD static __host__ __device__ inline
#define QT_NOINLINE static __host__ __device__ __noinline__
#else
#define QT_HD static inline
#define QT_NOINLINE static __attribute__((noinline))
#endif

#define QT_CAPACITY 8 /* a node's points before it splits */
#define QT_SPLIT_RATIO 0.55

typedef struct {
    double minx, miny, maxx, maxy;
} qt_box;

/* CPLQuadTreeSplitBounds: the longer side (x when strictly longer) cut into
 * two overlapping parts of QT_SPLIT_RATIO each */
QT_HD void qt_split(const qt_box *in, qt_box *a, qt_box *b)
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

QT_HD int qt_holds(const qt_box *b, double x, double y)
{
    return x >= b->minx && x <= b->maxx && y >= b->miny && y <= b->maxy;
}

/* The first quarter whose closed box holds (x, y), a point of the node.
 * The quarters share the node's bounds but along the cuts: a point is
 * placed by two comparisons with the cuts (the cases qt_holds() on each
 * quarter decides the same way), and only one in a gap that rounding may
 * leave between the two parts of a tiny box is tested quarter by quarter. */
typedef struct {
    qt_box q[4];
    int y1, y2[2];                   /* the first cut, each half's, along y (else x) */
    double hi1, lo1, hi2[2], lo2[2]; /* first part's upper, second part's lower bound */
} qt_cuts;

/* as qt_split() decides: the axis and the two parts' bounds along it */
QT_HD void qt_cut_of(const qt_box *in, const qt_box *a, const qt_box *b, int *y, double *hi,
                     double *lo)
{
    *y = !(in->maxx - in->minx > in->maxy - in->miny);
    *hi = *y ? a->maxy : a->maxx;
    *lo = *y ? b->miny : b->minx;
}

/* bit for bit, as memcmp() would (-0.0 and 0.0 differ) */
QT_HD int qt_same_box(const qt_box *a, const qt_box *b)
{
    const double *u = &a->minx, *v = &b->minx;
    for (int i = 0; i < 4; i++) {
        unsigned long long bu, bv;
        memcpy(&bu, &u[i], sizeof bu);
        memcpy(&bv, &v[i], sizeof bv);
        if (bu != bv)
            return 0;
    }
    return 1;
}

/* The quarters of box (qt_split() twice) and their cuts in k; 0 when a
 * quarter would equal the box (no extent left to split: the node keeps
 * every point). On the device too, where -fmad=false rounds as the host. */
QT_HD int qt_quarters(const qt_box *box, qt_cuts *k)
{
    qt_box half[2], *q = k->q;
    qt_split(box, &half[0], &half[1]);
    qt_split(&half[0], &q[0], &q[1]);
    qt_split(&half[1], &q[2], &q[3]);
    for (int c = 0; c < 4; c++)
        if (qt_same_box(box, &q[c]))
            return 0;
    qt_cut_of(box, &half[0], &half[1], &k->y1, &k->hi1, &k->lo1);
    for (int h = 0; h < 2; h++)
        qt_cut_of(&half[h], &q[2 * h], &q[2 * h + 1], &k->y2[h], &k->hi2[h], &k->lo2[h]);
    return 1;
}

QT_NOINLINE unsigned char qt_quarter_by_boxes(const qt_cuts *k, double x, double y)
{
    unsigned char c = 0;
    while (c < 4 && !qt_holds(&k->q[c], x, y))
        c++;
    return c; /* 4: in no quarter (cannot happen to a point) */
}

QT_HD unsigned char qt_quarter(const qt_cuts *k, double x, double y)
{
    /* without branches on the data (half the points go each way) */
    const double v1 = k->y1 ? y : x;
    const int a1 = v1 <= k->hi1, h = !a1;
    const double v2 = k->y2[h] ? y : x;
    const int a2 = v2 <= k->hi2[h];
    if ((a1 | (v1 >= k->lo1)) & (a2 | (v2 >= k->lo2[h])))
        return (unsigned char)(2 * h + !a2);
    return qt_quarter_by_boxes(k, x, y);
}

#endif
