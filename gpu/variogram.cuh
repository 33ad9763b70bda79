/* SPDX-License-Identifier: MIT */
/*
 * variogram.cuh - what the two variogram TUs share: the tile shape, the
 * arithmetic that rounds alike on the device and the host, gstat's class of
 * a distance, and the omnidirectional kernel's parameters and entry points
 * (variogram_fast.cu) that variogram.cu's api_variogram calls.
 */
#ifndef GK_GPU_VARIOGRAM_CUH
#define GK_GPU_VARIOGRAM_CUH

#include <cuda_runtime.h>

#include <cmath>
#include <cstring>

#define VT 128     /* threads per block = points per tile */
#define VSTRIP 256 /* j tiles per block */

namespace gk_gpu
{

/* Arithmetic written out so that it rounds the same on the device (no
 * contraction) and on the host, where tests replay the omnidirectional
 * kernel's decisions without a GPU (vf_* below are __host__ __device__).
 * One function per operation and type: each names its own intrinsic. */
__host__ __device__ __forceinline__ float vf_sub(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fsub_rn(a, b);
#else
    return a - b;
#endif
}
__host__ __device__ __forceinline__ float vf_mul(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
__host__ __device__ __forceinline__ float vf_fma(float a, float b, float c)
{
#ifdef __CUDA_ARCH__
    return __fmaf_rn(a, b, c);
#else
    return fmaf(a, b, c);
#endif
}
__host__ __device__ __forceinline__ double vd_add(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}
__host__ __device__ __forceinline__ double vd_sub(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dsub_rn(a, b);
#else
    return a - b;
#endif
}
__host__ __device__ __forceinline__ double vd_mul(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}
__host__ __device__ __forceinline__ double vd_fma(double a, double b, double c)
{
#ifdef __CUDA_ARCH__
    return __fma_rn(a, b, c);
#else
    return fma(a, b, c);
#endif
}
__host__ __device__ __forceinline__ double vd_div(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __ddiv_rn(a, b);
#else
    return a / b;
#endif
}
static inline unsigned int vgm_host_bits(float f)
{
    unsigned int u;
    memcpy(&u, &f, sizeof u);
    return u;
}
/* hardware reciprocal square root (relative error < 2^-22.9); the host
 * stand-in may be replaced by a test that perturbs it */
#ifndef VGM_HOST_RSQRT
#define VGM_HOST_RSQRT(a) (1.0f / sqrtf(a))
#endif
__host__ __device__ __forceinline__ float vf_rsqrt(float a)
{
#ifdef __CUDA_ARCH__
    float r;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
    return r;
#else
    return VGM_HOST_RSQRT(a);
#endif
}

/* gstat's get_index() with the CPU's rounding */
__host__ __device__ __forceinline__ int vgm_class(double d, double w)
{
    double frac = vd_div(d, w);
    double f = floor(frac);
    if (d > 0.0 && frac == f)
        return (int)f - 1;
    return (int)f;
}

struct VgmFast {
    int n, ncls, strips;
    const float4 *pk;    /* sorted: centred float x, y, then z's low and high words */
    const double *x, *y; /* sorted, for the exact path */
    const float4 *tb;
    const float2 *bnd; /* per class limit m w, m = 0..ncls: (lo, hi) for d^2 */
    double cutoff, width, tol, cullr2;
    float cut2_lo, cut2_hi;
    unsigned long long *pnp;
    double *psd, *psg;
    unsigned int *lost; /* pairs a single-pass plan failed to place (stays 0) */
};

/* variogram_fast.cu: the omnidirectional kernel on a grid of tile pairs
 * (32 threads a block, smem bytes of histogram), and its host planning. */
void vgm_fast_launch(dim3 grid, size_t smem, cudaStream_t st, const VgmFast &F, bool cressie);
void vgm_str_shape(int n, int &nslabs, int &ybits, int &keybits);
bool vgm_bounds(double cutoff, double width, int ncls, double M, double &tol, float &cut2_lo,
                float &cut2_hi, double &cullr2, float2 *bnd);

} // namespace gk_gpu

#endif
