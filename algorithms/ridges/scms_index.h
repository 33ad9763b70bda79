/* SPDX-License-Identifier: MIT */
/*
 * scms_index.h - points binned in cubes (squares) of one side, in the order
 * scms_step.h documents; density.c uses it for the kernel sums (side
 * cutoff * h / GK_SCMS_SPAN) and for its neighbour searches within the
 * side (link, bandwidth).
 */
#ifndef GK_SCMS_INDEX_H
#define GK_SCMS_INDEX_H

#include "ridges/scms_step.h"

typedef struct {
    gk_scms_index ix; /* the view scms_step.h reads; its arrays are below */
    uint64_t *key;
    size_t *start;
    double *ps, *ws;
    uint32_t *order; /* order[i]: the input index of sorted point i */
} gk_scms_bins;

/* Bins n points p (dim 2 or 3; weights w or NULL) in cubes of the given
 * side. 0; 1 when out of memory; 2 when the extent has too many bins per
 * axis for a 64-bit key (side too small). */
int gk_scms_bins_build(gk_scms_bins *b, int dim, size_t n, const double *p, const double *w,
                       double side);
void gk_scms_bins_free(gk_scms_bins *b);

/* Calls fn(i, user) for the input index of every point in the 3^dim bins
 * around x (z, y, x, then index order); stops early when fn returns
 * non-zero. For neighbours within the bins' side. */
typedef int (*gk_scms_visit_fn)(uint32_t i, void *user);
void gk_scms_bins_visit(const gk_scms_bins *b, const double *x, gk_scms_visit_fn fn, void *user);

#endif
