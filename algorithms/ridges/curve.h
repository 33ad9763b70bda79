/* SPDX-License-Identifier: MIT */
/*
 * curve.h - between the files of `curve` (Rupniewski's curve
 * reconstruction): curve.c runs choose and the rounds, curve_evolve.c,
 * curve_decimate.c and curve_order.c the steps, curve_r1.c estimates r1.
 * Representatives are interleaved like the cloud: s[j*dim .. j*dim+dim-1].
 */
#ifndef GK_RIDGES_CURVE_H
#define GK_RIDGES_CURVE_H

#include "ridges_util.h"

/* Evolve: Jacobi steps (ridges/curve_step.h) until a step moves nothing or
 * max_iter steps; on the context's GPU when device_calls.c says so, else on the
 * CPU's threads, with the same bits. *iters and *converged as
 * gk_gpu_evolve's. GK_OK or an error in ctx. */
int gk_curve_evolve(gk_context *ctx, const gk_cloud *c, double r1, double *s, size_t m,
                    int max_iter, int *iters, int *converged);

/* Decimate: sequential sweeps over the representatives in index order,
 * dropping the crowded (more than 3 within r2, itself counted) and the
 * isolated (fewer than 3 within 2 r2), until a sweep drops none or fewer than
 * 3 are left. Compacts s (order kept), returns how many were dropped, or
 * (size_t)-1 when out of memory. */
size_t gk_curve_decimate(double *s, size_t *m, int dim, double r2);

/* Order: the edges of the representatives (pairs within r2, then gap
 * bridging); *e gets 2 * *n_e indices (malloc). GK_OK or GK_ERR_NOMEM. */
int gk_curve_order(const double *s, size_t m, int dim, double r2, double gap, uint32_t **e,
                   size_t *n_e);

/* r1 from the data (the rule: curve_r1.c). GK_OK or an error in ctx. */
int gk_curve_estimate_r1(gk_context *ctx, const gk_cloud *c, double *r1);

#endif
