/*
 * gauss.h - the parts of gauss that live in files of their own, called by
 * density/gauss.c: mode=relative (density/gauss_relative.c) and
 * method=ifgt (density/gauss_ifgt.c).
 */
#ifndef GK_GAUSS_H
#define GK_GAUSS_H

#include "core/gk_internal.h"

/* gk_algorithm.gauss.method */
enum { GK_GAUSS_DIRECT, GK_GAUSS_CUTOFF, GK_GAUSS_IFGT };

/* mode=relative: checks the weights (>= 0), sums them and builds the k-d
 * tree; then a tile. */
int gk_gauss_relative_build(gk_job *job);
uint64_t gk_gauss_relative_tile(const gk_job *job, const gk_tile *t, double *out,
                                gk_scratch *s);

/* method=ifgt: clusters the points, picks the clusters' number and the
 * truncation order for the bound E sum|w| and computes the expansions
 * (a->gauss.ifgt_* get them); GK_OK, or GK_ERR_ARG when no choice meets the
 * bound in double. Then a tile; the free. */
int gk_ifgt_build(gk_job *job);
uint64_t gk_ifgt_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s);
void gk_ifgt_free(struct gk_ifgt *g);

#endif
