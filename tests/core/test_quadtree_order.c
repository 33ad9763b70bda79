/* SPDX-License-Identifier: MIT */
/*
 * test_quadtree_order.c - gk_gdal_quadtree_order() against the plain
 * statement of gdal_grid's tree (CPLQuadTree's default insertion: 8 points a
 * node, closed quarters of 55%, a point to the first quarter that holds it,
 * a node with no extent left keeps all), written here as a recursion over
 * the points through a permutation, on data that makes every rule matter:
 * uniform, clustered, a lattice (ties everywhere), exact duplicates (nodes
 * with no extent left), one point repeated, a line, points on the quarters'
 * overlap; sizes from 0 to past the parallel partition's threshold; 1, 2
 * and 7 threads. Every order must equal the reference's exactly.
 */
#include "core/quadtree_order.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

/* ---- the reference -------------------------------------------------------- */

typedef struct {
    double minx, miny, maxx, maxy;
} box;

static void split(const box *in, box *a, box *b)
{
    *a = *in;
    *b = *in;
    if (in->maxx - in->minx > in->maxy - in->miny) {
        double r = in->maxx - in->minx;
        a->maxx = in->minx + r * 0.55;
        b->minx = in->maxx - r * 0.55;
    } else {
        double r = in->maxy - in->miny;
        a->maxy = in->miny + r * 0.55;
        b->miny = in->maxy - r * 0.55;
    }
}

static void ref_node(const double *x, const double *y, uint32_t *idx, size_t n, box b)
{
    if (n <= 8)
        return;
    box h[2], q[4];
    split(&b, &h[0], &h[1]);
    split(&h[0], &q[0], &q[1]);
    split(&h[1], &q[2], &q[3]);
    for (int c = 0; c < 4; c++)
        if (!memcmp(&q[c], &b, sizeof b))
            return;
    uint32_t *tmp = malloc(n * sizeof *tmp);
    size_t m = 0, count[4] = {0, 0, 0, 0};
    /* quarter by quarter, each in the node's order */
    for (int c = 0; c < 4; c++)
        for (size_t k = 0; k < n; k++) {
            uint32_t i = idx[k];
            int first = 0;
            while (first < 4 && !(x[i] >= q[first].minx && x[i] <= q[first].maxx &&
                                  y[i] >= q[first].miny && y[i] <= q[first].maxy))
                first++;
            if (first == c)
                tmp[m++] = i, count[c]++;
        }
    memcpy(idx, tmp, n * sizeof *idx);
    free(tmp);
    size_t at = 0;
    for (int c = 0; c < 4; c++) {
        ref_node(x, y, idx + at, count[c], q[c]);
        at += count[c];
    }
}

static void reference(const double *x, const double *y, size_t n, uint32_t *idx)
{
    box b = {x[0], y[0], x[0], y[0]};
    for (size_t i = 0; i < n; i++) {
        idx[i] = (uint32_t)i;
        b.minx = x[i] < b.minx ? x[i] : b.minx;
        b.maxx = x[i] > b.maxx ? x[i] : b.maxx;
        b.miny = y[i] < b.miny ? y[i] : b.miny;
        b.maxy = y[i] > b.maxy ? y[i] : b.maxy;
    }
    ref_node(x, y, idx, n, b);
}

/* ---- the data -------------------------------------------------------------- */

static uint64_t rng = 88172645463325252ull;
static double uniform(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}

enum { UNIFORM, CLUSTERED, LATTICE, DUPLICATES, ONE_POINT, LINE, OVERLAP, N_KINDS };
static const char *const kind_name[] = {"uniform",   "clustered", "lattice", "duplicates",
                                        "one point", "line",      "overlap"};

static void make(int kind, size_t n, double *x, double *y)
{
    size_t side = 1;
    while (side * side < n)
        side++;
    for (size_t i = 0; i < n; i++) {
        switch (kind) {
        case UNIFORM:
            x[i] = 500000 + 10000 * uniform(), y[i] = 4990000 + 7000 * uniform();
            break;
        case CLUSTERED: { /* four tight clusters and a thin background */
            int c = (int)(uniform() * 5);
            double s = c == 4 ? 1000 : 3;
            x[i] = c * 211.0 + s * uniform(), y[i] = c * 97.0 + s * uniform();
            break;
        }
        case LATTICE: /* shuffled below */
            x[i] = 1000 + 60.0 * (double)(i % side), y[i] = 5000 + 60.0 * (double)(i / side);
            break;
        case DUPLICATES: /* 17 places, each many times */
            x[i] = (double)(i % 17 % 4), y[i] = (double)(i % 17 / 4);
            break;
        case ONE_POINT:
            x[i] = 3.25, y[i] = -7.5;
            break;
        case LINE:
            x[i] = uniform(), y[i] = 2.0;
            break;
        case OVERLAP: /* on the quarters' shared edges: x = 0.45, 0.55 of a unit */
            x[i] = (i % 3 == 0) ? 0.45 : (i % 3 == 1) ? 0.55 : uniform();
            y[i] = (i % 5 == 0) ? 0.45 : (i % 5 == 1) ? 0.55 : uniform();
            if (i < 2)
                x[i] = (double)i, y[i] = (double)i;
            break;
        }
    }
    if (kind == LATTICE)
        for (size_t i = n; i > 1; i--) {
            size_t j = (size_t)(uniform() * (double)i);
            double t = x[i - 1];
            x[i - 1] = x[j], x[j] = t;
            t = y[i - 1], y[i - 1] = y[j], y[j] = t;
        }
}

int main(void)
{
    static const size_t sizes[] = {0, 1, 8, 9, 17, 1000, 131071, 131072, 400003};
    /* the most threads first: LLVM's libomp (the sanitizer builds') leaks
     * a team it grows */
    static const int threads[] = {7, 2, 1};
    int cases = 0;
    for (int kind = 0; kind < N_KINDS; kind++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            size_t n = sizes[s];
            double *x = malloc((n + 1) * sizeof *x), *y = malloc((n + 1) * sizeof *y);
            uint32_t *want = malloc((n + 1) * sizeof *want), *got = malloc((n + 1) * sizeof *got);
            make(kind, n, x, y);
            if (n)
                reference(x, y, n, want);
            uint8_t *lev0 = malloc(n + 1), *lev = malloc(n + 1);
            for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
                memset(got, 0xff, (n + 1) * sizeof *got);
                double *ox = malloc((n + 1) * sizeof *ox), *oy = malloc((n + 1) * sizeof *oy);
                int rc = gk_gdal_quadtree_order(x, y, n, got, t < 2 ? ox : NULL, t < 2 ? oy : NULL,
                                                t == 1 ? NULL
                                                : t    ? lev
                                                       : lev0,
                                                threads[t]);
                /* the coordinates in that order, where asked for */
                for (size_t k = 0; !rc && t < 2 && k < n; k++)
                    rc = ox[k] != x[want[k]] || oy[k] != y[want[k]] ? 9 : 0;
                /* the tree's boundaries: the same for any threads; none
                 * inside the 8 points a leaf holds (unless it cannot split:
                 * the kinds with points repeated at one place) */
                if (!rc && t > 1 && n > 1 && memcmp(lev + 1, lev0 + 1, n - 1))
                    rc = 10;
                for (size_t k = 1, run = 0; !rc && t == 0 && k < n; k++) {
                    run = lev0[k] == GK_QT_NO_SPLIT ? run + 1 : 0;
                    if (run >= 8 && kind != ONE_POINT && kind != DUPLICATES && kind != OVERLAP)
                        rc = 11;
                }
                free(ox), free(oy);
                cases++;
                if (rc || (n && memcmp(got, want, n * sizeof *got))) {
                    size_t k = 0;
                    while (k < n && got[k] == want[k])
                        k++;
                    printf("FAIL %s, %zu points, %d threads: rc %d, first difference at %zu\n",
                           kind_name[kind], n, threads[t], rc, k);
                    failures++;
                }
            }
            free(x), free(y), free(want), free(got), free(lev0), free(lev);
        }
    printf("%d orders, %d failed\n", cases, failures);
    return failures != 0;
}
