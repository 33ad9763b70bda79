/* SPDX-License-Identifier: MIT */
/*
 * to_float32.h - a double to a Float32 pixel, by the rule of GDAL's
 * GDALCopyWords (GDAL 3.6): to nearest, ties to even; beyond FLT_MAX to
 * infinity of that sign; NaN stays NaN. Shared by the engine (CPU tiles) and
 * the GPU module (gpu/module.cu), so that a Float32 raster has the same bytes
 * whichever device converted it and whether GDAL or gridkit did. The driver
 * checks the rule against the GDAL it runs with (gk_float32_rule_holds) and
 * leaves the conversion to GDAL where they differ.
 */
#ifndef GK_TO_FLOAT32_H
#define GK_TO_FLOAT32_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#if defined(__CUDACC__)
#define F32_HD static __host__ __device__ inline
#else
#define F32_HD static inline
#endif

F32_HD float gk_to_float32(double v)
{
    if (v > (double)FLT_MAX)
        return INFINITY;
    if (v < -(double)FLT_MAX)
        return -INFINITY;
    return (float)v; /* a plain conversion rounds to nearest, even on the GPU */
}

/* n doubles at buf to n floats at its start, in place: float k is written
 * after double k is read and never reaches a double not yet read. */
static inline void gk_to_float32_in_place(void *buf, size_t n)
{
    unsigned char *b = (unsigned char *)buf;
    for (size_t k = 0; k < n; k++) {
        double v;
        memcpy(&v, b + k * sizeof(double), sizeof v);
        float f = gk_to_float32(v);
        memcpy(b + k * sizeof(float), &f, sizeof f);
    }
}

#endif
