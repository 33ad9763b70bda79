/* SPDX-License-Identifier: MIT */
/*
 * geostat/kriging_dense.h - the small dense kernels of a kriging system
 * (row-major lower triangle, leading dimension ld), shared by the CPU
 * (kriging_system.c's gk_krige_chol/fwd/bwd, simulation) and the GPU
 * (gpu/simulation.cu, compiled without contraction): one text, the same
 * operations in the same order, the same bits.
 */
#ifndef GK_KRIGING_DENSE_H
#define GK_KRIGING_DENSE_H

#include <math.h>
#include <stddef.h>

#ifdef __CUDACC__
#define GK_KD_FN static inline __host__ __device__
#else
#define GK_KD_FN static inline
#endif

/* Dot product with four partial sums (vectorises without -ffast-math). */
GK_KD_FN double gk_kd_dot(const double *x, const double *y, int n)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int k = 0;
    for (; k + 4 <= n; k += 4) {
        s0 += x[k] * y[k];
        s1 += x[k + 1] * y[k + 1];
        s2 += x[k + 2] * y[k + 2];
        s3 += x[k + 3] * y[k + 3];
    }
    for (; k < n; k++)
        s0 += x[k] * y[k];
    return (s0 + s2) + (s1 + s3);
}

/* Cholesky in place, 1/diagonal to inv; -1 when a pivot is below tol times
 * its original diagonal entry (singular for our purposes). */
GK_KD_FN int gk_kd_chol(double *a, int n, int ld, double *inv, double tol)
{
    for (int i = 0; i < n; i++) {
        double *ri = a + (size_t)i * ld;
        for (int j = 0; j < i; j++) {
            const double *rj = a + (size_t)j * ld;
            ri[j] = (ri[j] - gk_kd_dot(ri, rj, j)) * inv[j];
        }
        double d = ri[i], s = d - gk_kd_dot(ri, ri, i);
        if (!(s > tol * fabs(d)))
            return -1;
        ri[i] = sqrt(s);
        inv[i] = 1.0 / ri[i];
    }
    return 0;
}

/* L y = b in place. */
GK_KD_FN void gk_kd_fwd(const double *l, int n, int ld, const double *inv, double *b)
{
    for (int i = 0; i < n; i++)
        b[i] = (b[i] - gk_kd_dot(l + (size_t)i * ld, b, i)) * inv[i];
}

/* L' y = b in place. */
GK_KD_FN void gk_kd_bwd(const double *l, int n, int ld, const double *inv, double *b)
{
    for (int i = n - 1; i >= 0; i--) {
        b[i] *= inv[i];
        double bi = b[i];
        const double *ri = l + (size_t)i * ld;
        for (int k = 0; k < i; k++)
            b[k] -= ri[k] * bi;
    }
}

#endif
