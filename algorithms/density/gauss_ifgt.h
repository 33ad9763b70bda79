/*
 * gauss_ifgt.h - gauss's method=ifgt, the improved fast Gauss transform
 * (density/gauss_ifgt.c), called by density/gauss.c.
 */
#ifndef GK_GAUSS_IFGT_H
#define GK_GAUSS_IFGT_H

#include "core/gk_internal.h"

/* Clusters the points, picks the clusters' number and the truncation order
 * for the bound E sum|w| and computes the expansions; a->gauss.ifgt_* get
 * them. GK_OK, or GK_ERR_ARG when no choice meets the bound in double. */
int gk_ifgt_build(gk_job *job);
void gk_ifgt_free(struct gk_ifgt *g);
uint64_t gk_ifgt_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s);

#endif
