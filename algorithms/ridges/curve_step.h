/* SPDX-License-Identifier: MIT */
/*
 * curve_step.h - the arithmetic of one evolve step of `curve`
 * (ridges/curve.c), shared with the CUDA module (gpu/ridges_curve.cu) so that
 * both give the same bits: both sides compile it without floating-point
 * contraction (ISO C mode; nvcc -fmad=false), and every sum has a fixed order.
 *
 * The samples are first renumbered, once per evolve: stably sorted by their
 * cell in a fixed grid over their box (curve_evolve.c: row-major cells of
 * edge r1 (1 + 1e-9) / 3, coarser where that makes more than n + 4096), so
 * that a representative's samples lie close together in memory. A step:
 * each sample goes to its nearest representative within r1 (the smaller
 * squared distance, ties to the lower representative index; none beyond
 * r1); then every representative with samples moves to their mean. Its
 * samples, in increasing renumbered index, are cut into chunks of
 * GK_CS_CHUNK consecutive ones (the last may be shorter); each chunk's
 * coordinates are summed in that order from 0.0, and the chunk partials
 * are summed in chunk order from 0.0 (gk_cs_chunk_add). Any thread count
 * and the GPU sum exactly that. It counts as moved when
 * |m - s| > 2 |m| n eps (the rounding of the coordinate sum).
 */
#ifndef GK_CURVE_STEP_H
#define GK_CURVE_STEP_H

#include <float.h>
#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define GK_CS_HD static inline __host__ __device__
#else
#define GK_CS_HD static inline
#endif

/* Samples per chunk of a representative's sum (see above). */
#define GK_CS_CHUNK 64

/* Squared distance of a and b (dim 2 or 3), summed x, y, z. */
GK_CS_HD double gk_cs_d2(const double *a, const double *b, int dim)
{
    double dx = a[0] - b[0], dy = a[1] - b[1];
    double d2 = dx * dx + dy * dy;
    if (dim == 3) {
        double dz = a[2] - b[2];
        d2 = d2 + dz * dz;
    }
    return d2;
}

/* Whether representative j at d2 comes before the best so far (bj at bd2). */
GK_CS_HD int gk_cs_before(double d2, uint32_t j, double bd2, uint32_t bj)
{
    return d2 < bd2 || (d2 == bd2 && j < bj);
}

/* acc += q (dim coordinates), in the order of the contract above. */
GK_CS_HD void gk_cs_chunk_add(double *acc, const double *q, int dim)
{
    for (int k = 0; k < dim; k++)
        acc[k] = acc[k] + q[k];
}

/* Moves s to the mean of n samples whose coordinates sum to sum; 1 when it
 * moved more than the rounding of the sum, 0 otherwise (and for n == 0,
 * where s stays). */
GK_CS_HD int gk_cs_move(double *s, const double *sum, uint32_t n, int dim)
{
    if (n == 0)
        return 0;
    double m[3], mm = 0.0, dd = 0.0;
    for (int k = 0; k < dim; k++) {
        m[k] = sum[k] / (double)n;
        mm = mm + m[k] * m[k];
        double d = m[k] - s[k];
        dd = dd + d * d;
    }
    double lim = 2.0 * sqrt(mm) * (double)n * DBL_EPSILON;
    for (int k = 0; k < dim; k++)
        s[k] = m[k];
    return dd > lim * lim;
}

#endif
