/* SPDX-License-Identifier: MIT */
/*
 * double_edge.h - where a size stops being computable: the range of a
 * radius, bandwidth or length over which a method's arithmetic neither
 * overflows nor underflows (density/heatmap.c, density/gauss.c, ridges/),
 * found exactly on the doubles so that a message states the true bound.
 */
#ifndef GK_DOUBLE_EDGE_H
#define GK_DOUBLE_EDGE_H

#include <stdint.h>
#include <string.h>

/* The last positive double from good (ok) towards bad (not ok) for which
 * ok(arg, v) holds, ok being true on an interval: bisection on the bits,
 * which positive doubles order as their values. */
static inline double gk_double_edge(int (*ok)(const void *, double), const void *arg, double good,
                                    double bad)
{
    uint64_t g, b;
    memcpy(&g, &good, sizeof g);
    memcpy(&b, &bad, sizeof b);
    while (g + 1 != b && b + 1 != g) {
        const uint64_t m = g / 2 + b / 2 + (g & b & 1);
        double v;
        memcpy(&v, &m, sizeof v);
        if (ok(arg, v))
            g = m;
        else
            b = m;
    }
    memcpy(&good, &g, sizeof good);
    return good;
}

#endif
