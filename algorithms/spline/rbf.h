/* SPDX-License-Identifier: MIT */
/*
 * spline/rbf.h - what rbf.c (the method) takes from rbf_global.c (the one
 * system of every point).
 */
#ifndef GK_SPLINE_RBF_H
#define GK_SPLINE_RBF_H

#include "rbf_system.h"

/* the global interpolant: coefficients of the points in input order, then
 * of the monomials */
typedef struct {
    int n;
    double shift[2], scale[2];
    double *coef;
} gk_rbf_global;

enum { GK_RBF_SINGULAR = 1, GK_RBF_NO_RANK = 2 };

/* Whether the n points make a regular system: 0; GK_RBF_SINGULAR for
 * coincident points (with smoothing 0), GK_RBF_NO_RANK when they cannot
 * carry the monomials; -1 when out of memory. */
int gk_rbf_global_check(const gk_rbf_spec *sp, const double *x, const double *y, int n);
/* Solves the system of the n points on nth threads into g (g->coef
 * malloc()ed, also on failure: the caller frees it): 0; GK_RBF_NO_RANK when
 * the points cannot carry the degree's monomials, GK_RBF_SINGULAR when the
 * system is singular; -1 when out of memory. */
int gk_rbf_global_solve(const gk_rbf_spec *sp, const double *x, const double *y, const double *z,
                        int n, int nth, gk_rbf_global *g);

#endif
