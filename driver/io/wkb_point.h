/* SPDX-License-Identifier: MIT */
/*
 * wkb_point.h - a WKB Point decoded in place (the GeoPackage and Arrow
 * readers' fast path; every other geometry goes through OGR).
 */
#ifndef GK_WKB_POINT_H
#define GK_WKB_POINT_H

#include "cpl_port.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline double gk_wkb_double(const unsigned char *p, int swap)
{
    double d;
    memcpy(&d, p, sizeof d);
    if (swap)
        CPL_SWAPDOUBLE(&d);
    return d;
}

/* A WKB Point (2-D, Z, M or ZM; ISO or 99-402 type codes): 1 with its
 * coordinates (z 0 and *is3d 0 without Z), 0 for POINT EMPTY (NaN x and y,
 * as OGR reads it), -1 for anything else. */
static inline int gk_wkb_point(const unsigned char *w, size_t len, double *x, double *y, double *z,
                               int *is3d)
{
    if (len < 21 || w[0] > 1)
        return -1;
    int swap = w[0] != (CPL_IS_LSB ? 1 : 0);
    uint32_t t;
    memcpy(&t, w + 1, 4);
    if (swap)
        t = CPL_SWAP32(t);
    int hz = (t & 0x80000000u) != 0, hm = (t & 0x40000000u) != 0;
    t &= 0x3fffffffu;
    if (t >= 1000 && t < 4000) {
        hz |= t / 1000 == 1 || t / 1000 == 3;
        hm |= t / 1000 == 2 || t / 1000 == 3;
        t %= 1000;
    }
    if (t != 1 || len < (size_t)(5 + 8 * (2 + hz + hm)))
        return -1;
    *x = gk_wkb_double(w + 5, swap);
    *y = gk_wkb_double(w + 13, swap);
    if (isnan(*x) && isnan(*y))
        return 0;
    *z = hz ? gk_wkb_double(w + 21, swap) : 0.0;
    *is3d = hz;
    return 1;
}

#endif
