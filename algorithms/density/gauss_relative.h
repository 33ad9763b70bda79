/*
 * gauss_relative.h - gauss's mode=relative (density/gauss_relative.c), a
 * tile function and the build step of its own, called by density/gauss.c.
 */
#ifndef GK_GAUSS_RELATIVE_H
#define GK_GAUSS_RELATIVE_H

#include "core/gk_internal.h"

/* gk_algorithm.gauss.method */
enum { GK_GAUSS_DIRECT, GK_GAUSS_CUTOFF, GK_GAUSS_IFGT };

/* Checks the weights (>= 0), sums them and builds the k-d tree. */
int gk_gauss_relative_build(gk_job *job);
uint64_t gk_gauss_relative_tile(const gk_job *job, const gk_tile *t, double *out,
                                gk_scratch *s);

#endif
