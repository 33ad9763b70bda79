/* SPDX-License-Identifier: MIT */
/*
 * krige_system.cuh - one node's kriging system as the warp kernels
 * (kriging.cu) and the block kernels (kriging_big.cu) both build and finish
 * it: the rows [C | c0' | z' | F'] assembled in parallel, the cases decided
 * before any system (too few points, an exact hit), the drift at the
 * target, and the estimate and variance from L^-1 c0, L^-1 z and L^-1 F.
 * Also the bands of rows whose neighbour lists the two-phase launches keep.
 */
#ifndef GK_GPU_KRIGE_SYSTEM_CUH
#define GK_GPU_KRIGE_SYSTEM_CUH

#include "krige_cov.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

namespace gk_gpu
{

/* The estimate and variance from the dot products of L^-1 c0, L^-1 z and
 * L^-1 F (geostat/kriging_local.c's local_node): the p x p Schur complement; f0 the
 * drift at the target, p <= PM columns. */
template <int PM, class T>
__device__ __forceinline__ void
kr_finish(const KrigeParams &KP, int p, T aa, T aw, const T (&fa)[PM], const T (&fw)[PM],
          const T (&ff)[PM][PM], const double (&f0)[PM], bool &sing, double &est, double &var)
{
    if (p == 0) {
        est = KP.mean + (double)aw;
        var = KP.c00 - (double)aa;
    } else {
        double rr[PM], t[PM], S[PM][PM], Si[PM];
#pragma unroll
        for (int u = 0; u < PM; u++) {
            rr[u] = f0[u] - (double)fa[u];
            t[u] = rr[u];
            Si[u] = 0.0;
#pragma unroll
            for (int v = 0; v < PM; v++)
                S[u][v] = 0.0;
        }
        const double stol = KP.single ? 1e-6 : 1e-11;
#pragma unroll
        for (int u = 0; u < PM; u++) {
            if (u < p) {
#pragma unroll
                for (int v = 0; v < u; v++) {
                    double s = ff[u][v];
#pragma unroll
                    for (int w2 = 0; w2 < v; w2++)
                        s -= S[u][w2] * S[v][w2];
                    S[u][v] = s * Si[v];
                }
                double d0 = ff[u][u], s = d0;
#pragma unroll
                for (int w2 = 0; w2 < u; w2++)
                    s -= S[u][w2] * S[u][w2];
                if (!(s > stol * fabs(d0)))
                    sing = true;
                S[u][u] = sqrt(s);
                Si[u] = 1.0 / S[u][u];
            }
        }
        if (sing)
            return;
#pragma unroll
        for (int u = 0; u < PM; u++) {
            if (u < p) {
#pragma unroll
                for (int v = 0; v < u; v++)
                    t[u] -= S[u][v] * t[v];
                t[u] *= Si[u];
            }
        }
#pragma unroll
        for (int u = PM - 1; u >= 0; u--) {
            if (u < p) {
                t[u] *= Si[u];
#pragma unroll
                for (int v = 0; v < u; v++)
                    t[v] -= S[u][v] * t[u];
            }
        }
        double tb = 0.0, rt = 0.0;
#pragma unroll
        for (int u = 0; u < PM; u++) {
            if (u < p) {
                tb += t[u] * (double)fw[u];
                rt += rr[u] * t[u];
            }
        }
        est = (double)aw + tb + KP.zshift;
        var = KP.c00 - (double)aa + rt;
    }
    if (var < 0.0)
        var = 0.0;
    if (!isfinite(est) || !isfinite(var))
        sing = true;
}

/* PM: the drift columns kept; X: the extended form (quadratic and external
 * drift, blocks; p <= PM = KR_XMAXP), else p is 0, 1 or 3 (PM = KR_MAXP);
 * XM: every model type (kcov's EXT: its call costs registers, so the
 * drift's and the blocks' kernels have their forms without it too). */
/* The drift at the node (f0) from the selection's origin and scale: [1, u, v]
 * or, in the extended kernels, kr_f0's columns (node o's covariates). */
template <bool X, int PM, class T>
__device__ __forceinline__ void kr_target_drift(const KrigeParams &KP, int p, T ox, T oy, T sc,
                                                size_t o, double (&f0)[PM])
{
    if constexpr (X) {
        kr_f0<PM>(KP, p, (double)(-ox / sc), (double)(-oy / sc), (double)sc,
                  KP.nr ? KP.g0 + o : nullptr, KP.g0ld, f0);
    } else {
        f0[0] = 1.0;
        f0[1] = (double)(-ox / sc);
        f0[2] = (double)(-oy / sc);
    }
}

/* The system of one node in M (row stride LD), entries from `first` in
 * steps of `step` (a lane group's or a block's threads): the lower triangle
 * of C, then the augmented rows c0, z (less the mean or shift) and the drift
 * ([1, u, v] or, extended, kr_poly's terms and the covariates). sel: the
 * node's neighbours (input indices); ox, oy, sc the drift's origin and scale. */
template <class T, bool X, bool XM>
__device__ __forceinline__ void kr_assemble(const KrigeParams &KP, T *M, int LD, int m, int p,
                                            const T *px, const T *py, const T *pz, const int *sel,
                                            T ox, T oy, T sc, int first, int step)
{
    const T A = (T)KP.A;
    const int ntri = m * (m + 1) / 2;
    for (int e = first; e < ntri; e += step) {
        int r = (int)((sqrtf(8.0f * (float)e + 1.0f) - 1.0f) * 0.5f);
        while ((r + 1) * (r + 2) / 2 <= e)
            r++;
        while (r * (r + 1) / 2 > e)
            r--;
        const int c = e - r * (r + 1) / 2;
        M[r * LD + c] = c == r ? A : kcov<T, XM>(KP, px[r] - px[c], py[r] - py[c]);
    }
    for (int c = first; c < m; c += step) {
        if constexpr (X) {
            M[m * LD + c] =
                KP.nb > 1 ? kr_cov0_block<T, XM>(KP, px[c], py[c]) : kcov<T, XM>(KP, px[c], py[c]);
            M[(m + 1) * LD + c] = pz[c];
            const int id = sel[c], np = 1 + KP.poly;
            const T u = (px[c] - ox) / sc, v = (py[c] - oy) / sc;
            for (int cc = 0; cc < p; cc++)
                M[(m + 2 + cc) * LD + c] =
                    cc < np ? kr_poly<T>(cc, u, v) : (T)KP.gp[(size_t)(cc - np) * KP.gld + id];
        } else {
            M[m * LD + c] = kcov<T, XM>(KP, px[c], py[c]);
            M[(m + 1) * LD + c] = pz[c];
            if (p >= 1)
                M[(m + 2) * LD + c] = T(1);
            if (p == 3) {
                M[(m + 3) * LD + c] = (px[c] - ox) / sc;
                M[(m + 4) * LD + c] = (py[c] - oy) / sc;
            }
        }
    }
}

/* What a node's m neighbours give before any system (geostat/kriging_local.c):
 * KR_SOLVE, or KR_DONE with est and var set (nodata; for simple kriging,
 * gstat's mean and C(0) of an empty neighbourhood), or KR_SINGULAR (fewer
 * points than drift terms). X: the node's covariates at g0[r * g0ld + o]
 * must be finite, and `valid` the node itself, else nodata, not singular. */
enum { KR_SOLVE, KR_DONE, KR_SINGULAR };
template <bool X>
__device__ __forceinline__ int kr_before_system(const KrigeParams &KP, size_t o, bool valid, int m,
                                                int min_points, bool simple, int p, double &est,
                                                double &var)
{
    if constexpr (X) {
        bool ok = valid;
        for (int r = 0; r < KP.nr; r++)
            ok = ok && isfinite(KP.g0[r * KP.g0ld + o]);
        if (!ok)
            return KR_DONE;
    }
    if (m == 0 || m < min_points) {
        if (simple) {
            est = KP.mean;
            var = KP.c00;
        }
        return KR_DONE;
    }
    return m < p ? KR_SINGULAR : KR_SOLVE;
}

/* Rows of a band whose neighbour lists (K + 1 ints a node) stay under 64 M
 * ints, a multiple of `align` (at least one such). */
inline int kr_band(int K, int w, int h, int align)
{
    const int band = (int)std::min<size_t>((size_t)h, ((size_t)64 << 20) / ((size_t)w * (K + 1)));
    return std::max(align, band / align * align);
}

} // namespace gk_gpu

#endif
