/* SPDX-License-Identifier: MIT */
/*
 * kriging_kernels.h - the dense kernels of local kriging (kriging_kernels.c):
 * covariances of a whole column of point pairs at once, and a Cholesky
 * factor and forward solves stored by columns, so that every inner loop is
 * a contiguous axpy the compiler vectorises. AVX-512 or AVX2 where the CPU
 * has it (checked once at run time), a portable build of the same loops
 * elsewhere. The covariances agree with gk_krige_cov's to a few ulps.
 *
 * Storage: L column-major lower triangle, L[j * ld + i] for i >= j. The
 * AVX-512 kernels work in whole vectors of 8 rows: ld, and the room of px, py,
 * h and every b, must be at least m rounded up to 8; the entries above the
 * diagonal and past m are padding (overwritten, never read back).
 */
#ifndef GK_KRIGING_KERNELS_H
#define GK_KRIGING_KERNELS_H

#include "kriging.h"

/* Picks the instruction set (idempotent, cheap after the first call). */
void gk_kk_init(void);

/* Lower triangle of the covariance matrix of the m points (px, py), column
 * by column: L[j * ld + i] = C(p_i - p_j), i > j, and A on the diagonal.
 * h: m doubles of scratch. */
void gk_kk_cov_lower(const gk_krige_state *k, const double *px, const double *py, int m, double *L,
                     int ld, double *h);

/* c0[i] = gk_krige_cov0(k, px[i] - cx, py[i] - cy) for i < m (h: scratch). */
void gk_kk_cov0(const gk_krige_state *k, const double *px, const double *py, int m, double cx,
                double cy, double *c0, double *h);

/* In-place Cholesky of the column-major lower triangle; 1/diagonal to inv.
 * Returns 0, or -1 when a pivot falls below tol times its diagonal entry. */
int gk_kk_chol(double *L, int m, int ld, double *inv, double tol);

/* gk_kk_chol where rows and columns before p0 hold the factor already (of a
 * matrix whose leading p0 x p0 block is this one's): the same doubles as a
 * whole factorisation. */
int gk_kk_chol_from(double *L, int m, int ld, double *inv, double tol, int p0);

/* Do gk_kk_cov0's values equal gk_kk_cov_lower's for the same pair of
 * points (point support, a model the column loops know)? Then a pair's
 * covariance can be copied from one system into the next. */
int gk_kk_cov_reusable(const gk_krige_state *k);

/* Solves L y = b in place for nrhs right-hand sides b + r * ldb. */
void gk_kk_fwd(const double *L, int m, int ld, const double *inv, double *b, int nrhs, int ldb);

/* Of n candidates (cid, cd2), the k first by (d2, index) as a set, in no
 * particular order, to idx; returns the largest of their d2. The candidates
 * are reordered. */
double gk_kk_select_set(int *cid, double *cd2, int n, int k, int *idx);

/* Sorts m distinct ints in place (tmp: m ints). O(m^2): for small m. */
void gk_kk_sort_idx(int *v, int m, int *tmp);

/* Of n candidates (cid, cd2), the k first by (d2, index), in that order, to
 * idx/d2 (n >= k; the same answer as gk_kdtree_knn over the candidates). */
void gk_kk_select(const int *cid, const double *cd2, int n, int k, int *idx, double *d2);

#endif
