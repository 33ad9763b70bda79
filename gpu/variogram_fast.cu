/* SPDX-License-Identifier: MIT */
/*
 * variogram_fast.cu - the omnidirectional experimental variogram's kernel
 * (variogram.cu holds the general one and the entry point, api_variogram),
 * and the host's planning of it: the STR tiles' shape and the rounding
 * bounds of the class limits.
 */
#include "variogram.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace gk_gpu
{

/* ---- the omnidirectional kernel ------------------------------------------
 *
 * One warp per block holds a whole i tile, VF_PTS points per lane, and walks
 * its strip of j tiles (staged in shared memory; all lanes read the same j:
 * a broadcast). A tile pair's boxes bound its pairs' distances, hence the
 * classes klo..khi they can fall in (rigorously, see vf_plan), and whether
 * all lie within the cutoff. The pairs are then classed by comparing the
 * float d^2 with bounds of each class limit's square (bnd: below lo the
 * exact distance is below the limit, above hi above it), only for the
 * limits inside that range: a tile pair within one class and the cutoff
 * needs no test at all. Pairs between lo and hi (a limit or the cutoff
 * within rounding) are redone in double as the CPU does (vf_exact). Each
 * lane sums its pairs per class slot in registers (count, distance and
 * (dz)^2 in double); a butterfly over the warp sums the slots in a fixed
 * order into the block's histogram. A tile pair spanning more than three
 * classes (sparse data), the diagonal tile and a partial tile take a
 * general variant that covers three classes per pass.
 */
#define VF_PTS 4 /* i points per lane: 32 x VF_PTS = VT */
#ifndef VF_MINB
#define VF_MINB 24 /* resident warps per SM wanted (registers <= 80) */
#endif
#ifndef VF_UNROLL
#define VF_UNROLL 2 /* j points per loop step */
#endif
constexpr int vf_unroll = VF_UNROLL;
/* unroll pragmas in __host__ __device__ code: the device's only */
#ifdef __CUDA_ARCH__
#define VF_UNROLL_ALL _Pragma("unroll")
#define VF_UNROLL_1 _Pragma("unroll 1")
#define VF_UNROLL_J _Pragma("unroll vf_unroll")
#else
#define VF_UNROLL_ALL
#define VF_UNROLL_1
#define VF_UNROLL_J
#endif

struct VfPlan {
    int klo, khi, inside;
};

/* A class window: classes kb .. kb+ns-1; limit i (0..3) lies below slot i,
 * limit ns above the last; unused limits are (-1, -1) (nothing below them)
 * and an open end is (-1, -1) below, (FLT_MAX, FLT_MAX) above. */
struct VfWin {
    int kb, ns;
    float lo[4], hi[4];
};

struct VfAcc {
    unsigned int c[3];
    double D[3], G[3];
    unsigned int lost;
};

struct VfLane {
    float x[VF_PTS], y[VF_PTS];
    double z[VF_PTS];
    int gi0, lane;
};

__host__ __device__ __forceinline__ double vf_z(float4 q)
{
#ifdef __CUDA_ARCH__
    return __hiloint2double(__float_as_int(q.w), __float_as_int(q.z));
#else
    unsigned long long b = ((unsigned long long)vgm_host_bits(q.w) << 32) | vgm_host_bits(q.z);
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
#endif
}

/* Classes a tile pair's pairs can fall in; false if none lies within the
 * cutoff. With e the error of the float coordinates' distance
 * (<= 2 sqrt2 eps M < tol), every exact distance d of the pair satisfies
 * gap - tol < d < maxd + tol, and class() is monotone in d. Every float d^2
 * is at most maxd^2 (1 + 4 eps), so "inside" puts all of them at or below
 * cut2_lo, whose pairs lie within the cutoff. */
__host__ __device__ inline bool vf_plan(const VgmFast &P, float4 ib, float4 jb, VfPlan &pl)
{
    const double gx = fmax(0.0, fmax((double)jb.x - (double)ib.z, (double)ib.x - (double)jb.z));
    const double gy = fmax(0.0, fmax((double)jb.y - (double)ib.w, (double)ib.y - (double)jb.w));
    const double gap2 = vd_add(vd_mul(gx, gx), vd_mul(gy, gy));
    if (gap2 > P.cullr2)
        return false;
    const double mx = fmax((double)ib.z - (double)jb.x, (double)jb.z - (double)ib.x);
    const double my = fmax((double)ib.w - (double)jb.y, (double)jb.w - (double)ib.y);
    const double max2 = vd_add(vd_mul(mx, mx), vd_mul(my, my));
    pl.inside = vd_mul(max2, 1.0 + 1e-6) <= (double)P.cut2_lo;
    const double lo = vd_sub(sqrt(gap2), P.tol), hi = vd_add(sqrt(max2), P.tol);
    pl.klo = lo > 0.0 ? vgm_class(lo, P.width) : 0;
    pl.khi = vd_div(hi, P.width) >= (double)P.ncls ? P.ncls - 1
                                                   : min(P.ncls - 1, vgm_class(hi, P.width));
    return pl.klo <= pl.khi;
}

/* window w (classes klo + 3w ...) of a plan (static indices: registers) */
__host__ __device__ inline void vf_window(const VgmFast &P, const VfPlan &pl, int w, VfWin &W)
{
    const int kb = pl.klo + 3 * w, ns = min(3, pl.khi - kb + 1);
    W.kb = kb;
    W.ns = ns;
    VF_UNROLL_ALL
    for (int i = 0; i < 4; i++) {
        float2 b = make_float2(-1.0f, -1.0f);
        if (i < ns && (i > 0 || kb > pl.klo))
            b = P.bnd[kb + i];
        if (i == ns) {
            if (kb + ns <= pl.khi)
                b = P.bnd[kb + ns];
            else if (!pl.inside)
                b = make_float2(P.cut2_lo, P.cut2_hi);
            else
                b = make_float2(FLT_MAX, FLT_MAX);
        }
        W.lo[i] = b.x;
        W.hi[i] = b.y;
    }
}

/* The CPU's distance and class of pair (gi, gj): k = the window slot it
 * falls in, or -1 (another window, beyond the cutoff). Rare: not inlined,
 * so that its registers do not weigh on the pair loop. */
struct VfEx {
    int k;
    double d, g;
};
__host__ __device__ __noinline__ VfEx vf_exact(const double *x, const double *y, const float4 *pk,
                                               double cutoff, double width, int ncls, int kb,
                                               int ns, int cr, int gi, int gj, double zj)
{
    VfEx e;
    const double px = vd_sub(x[gi], x[gj]), py = vd_sub(y[gi], y[gj]);
    e.d = sqrt(vd_add(vd_mul(px, px), vd_mul(py, py)));
    e.k = -1;
    e.g = 0.0;
    if (e.d > cutoff)
        return e;
    const int k = vgm_class(e.d, width);
    if (k >= ncls || k < kb || k >= kb + ns)
        return e;
    const double dz = vd_sub(vf_z(pk[gi]), zj);
    e.g = cr ? sqrt(fabs(dz)) : vd_mul(dz, dz);
    e.k = k - kb;
    return e;
}

/* Slot k of window lo/hi: d^2 above limit k (its hi) and below limit k+1
 * (its lo); without LO/HI the window's lower/upper end is open. */
template <int NS, bool LO, bool HI>
__host__ __device__ __forceinline__ bool vf_in(int k, float d2, const float *lo, const float *hi)
{
    const bool above = k > 0 ? d2 > hi[k] : (LO ? d2 > hi[0] : true);
    const bool below = k < NS - 1 ? d2 <= lo[k + 1] : (HI ? d2 <= lo[NS] : true);
    return above && below;
}

/* Whether a pair in no slot is to be redone exactly. Without LO and GEN the
 * slots and the limits' bands cover everything up to the upper limit's hi
 * (the limits are monotone); the general variant tests each band. */
template <int NS, bool LO, bool HI, bool GEN>
__host__ __device__ __forceinline__ bool vf_slow(bool placed, float d2, const float *lo,
                                                 const float *hi)
{
    if (!GEN && !LO)
        return !placed && (HI ? d2 <= hi[NS] : true);
    bool band = false;
    VF_UNROLL_ALL
    for (int k = LO ? 0 : 1; k <= (HI ? NS : NS - 1); k++)
        band = band || (d2 > lo[k] && d2 <= hi[k]);
    return band;
}

/* d^2 of point p of the lane with j in float, as every step computes it */
template <bool GEN>
__host__ __device__ __forceinline__ float vf_d2(const VfLane &L, int p, float4 q, int j, bool diag)
{
    const float dx = vf_sub(L.x[p], q.x), dy = vf_sub(L.y[p], q.y);
    float d2 = vf_fma(dx, dx, vf_mul(dy, dy));
    if (GEN && diag && j >= L.lane + 32 * p)
        d2 = INFINITY; /* not a pair j < i: beyond every limit */
    return d2;
}

/* One lane's pairs with a j tile in window W. NS slots; LO/HI: test the
 * window's lower/upper limit; GEN: the general variant (three slots, limits
 * given by W, diagonal tile: pairs j < i only). Without LO, HI and GEN every
 * pair falls in a slot, and slot 0's count is left to the caller. */
template <int NS, bool LO, bool HI, bool GEN, bool CR>
__host__ __device__ __forceinline__ void vf_tile(const VgmFast &P, const VfLane &L,
                                                 const float4 *tile, int jn, int gj0,
                                                 const VfWin &W, bool diag, VfAcc &A)
{
    constexpr bool C0 = LO || HI || GEN;
    float lo[NS + 1], hi[NS + 1];
    VF_UNROLL_ALL
    for (int i = 0; i <= NS; i++) {
        lo[i] = W.lo[i];
        hi[i] = W.hi[i];
    }
    VF_UNROLL_J
    for (int j = 0; j < jn; j++) {
        const float4 q = tile[j];
        const double zj = vf_z(q);
        bool any = false;
        VF_UNROLL_ALL
        for (int p = 0; p < VF_PTS; p++) {
            const float d2 = vf_d2<GEN>(L, p, q, j, diag);
            /* sqrt(d2), within an ulp: one Newton step on the hardware
             * rsqrt (d2 = 0 gives 0) */
            const float r = vf_rsqrt(fmaxf(d2, FLT_MIN));
            const float s0 = vf_mul(d2, r);
            const float s = vf_fma(vf_fma(-s0, s0, d2), vf_mul(0.5f, r), s0);
            const double sd = (double)s;
            const double dz = vd_sub(L.z[p], zj);
            const double g = CR ? sqrt(fabs(dz)) : 0.0;
            bool placed = false;
            VF_UNROLL_ALL
            for (int k = 0; k < NS; k++) {
                const bool in = vf_in<NS, LO, HI>(k, d2, lo, hi);
                placed = placed || in;
                if (in) {
                    if (C0 || k > 0)
                        A.c[k]++;
                    A.D[k] = vd_add(A.D[k], sd);
                    A.G[k] = CR ? vd_add(A.G[k], g) : vd_fma(dz, dz, A.G[k]);
                }
            }
            any = any || vf_slow<NS, LO, HI, GEN>(placed, d2, lo, hi);
        }
        if (any) { /* rare: which points, again, then the CPU's way */
            VF_UNROLL_ALL
            for (int p = 0; p < VF_PTS; p++) {
                const float d2 = vf_d2<GEN>(L, p, q, j, diag);
                bool placed = false;
                VF_UNROLL_ALL
                for (int k = 0; k < NS; k++)
                    placed = placed || vf_in<NS, LO, HI>(k, d2, lo, hi);
                if (!vf_slow<NS, LO, HI, GEN>(placed, d2, lo, hi))
                    continue;
                const VfEx e = vf_exact(P.x, P.y, P.pk, P.cutoff, P.width, P.ncls, W.kb, W.ns, CR,
                                        L.gi0 + 32 * p, gj0 + j, zj);
                if (e.k < 0) {
                    if (!C0)
                        A.lost++;
                    continue;
                }
                VF_UNROLL_ALL
                for (int m = 0; m < NS; m++)
                    if (e.k == m) {
                        if (C0 || m > 0)
                            A.c[m]++;
                        A.D[m] = vd_add(A.D[m], e.d);
                        A.G[m] = vd_add(A.G[m], e.g);
                    }
            }
        }
    }
}

/* The i points of lane `lane` of tile bi (past n: far away, no pair). */
__host__ __device__ inline void vf_lane(const VgmFast &P, int bi, int lane, VfLane &L)
{
    L.gi0 = bi * VT + lane;
    L.lane = lane;
    VF_UNROLL_ALL
    for (int p = 0; p < VF_PTS; p++) {
        const int gi = L.gi0 + 32 * p;
        if (gi < P.n) {
            const float4 q = P.pk[gi];
            L.x[p] = q.x;
            L.y[p] = q.y;
            L.z[p] = vf_z(q);
        } else {
            L.x[p] = 1e30f;
            L.y[p] = 0.0f;
            L.z[p] = 0.0;
        }
    }
}

/* A tile pair's window w for one lane: the variant that W needs. */
template <bool CR>
__host__ __device__ inline void vf_run(const VgmFast &P, const VfLane &L, const float4 *tile,
                                       int jn, int gj0, const VfPlan &pl, bool gen, bool diag,
                                       const VfWin &W, VfAcc &A)
{
    A = VfAcc{};
    if (gen) {
        vf_tile<3, true, true, true, CR>(P, L, tile, jn, gj0, W, diag, A);
        return;
    }
    const bool hi = !pl.inside;
    if (W.ns == 1) {
        if (hi)
            vf_tile<1, false, true, false, CR>(P, L, tile, jn, gj0, W, false, A);
        else
            vf_tile<1, false, false, false, CR>(P, L, tile, jn, gj0, W, false, A);
    } else if (W.ns == 2) {
        if (hi)
            vf_tile<2, false, true, false, CR>(P, L, tile, jn, gj0, W, false, A);
        else
            vf_tile<2, false, false, false, CR>(P, L, tile, jn, gj0, W, false, A);
    } else {
        if (hi)
            vf_tile<3, false, true, false, CR>(P, L, tile, jn, gj0, W, false, A);
        else
            vf_tile<3, false, false, false, CR>(P, L, tile, jn, gj0, W, false, A);
    }
    if (!hi) /* every pair in a slot: slot 0 holds the rest */
        A.c[0] = VF_PTS * jn - A.c[1] - A.c[2] - A.lost;
}

/* whether a tile pair takes the general variant, and its passes */
__host__ __device__ __forceinline__ bool vf_general(const VfPlan &pl, bool diag, bool full)
{
    return diag || !full || pl.khi - pl.klo >= 3;
}

template <bool CR>
__global__ void __launch_bounds__(32, CR ? VF_MINB * 5 / 6 : VF_MINB) vgm_fast_kernel(VgmFast P)
{
    __shared__ float4 tile[VT];
    __shared__ int2 plans[32];
    extern __shared__ __align__(16) unsigned char vfs[];
    const int nb = P.ncls, lane = threadIdx.x;
    double *hsd = (double *)vfs, *hsg = hsd + nb;
    unsigned int *hnp = (unsigned int *)(hsg + nb);
    const int bi = blockIdx.x, s = blockIdx.y;
    const size_t blk = (size_t)bi * P.strips + s;
    for (int b = lane; b < nb; b += 32) {
        hsd[b] = 0.0;
        hsg[b] = 0.0;
        hnp[b] = 0u;
    }
    __syncwarp();
    const int bj0 = s * VSTRIP;
    if (bj0 <= bi) {
        VfLane L;
        vf_lane(P, bi, lane, L);
        const bool full = (bi + 1) * VT <= P.n;
        const int bj1 = min(bi, bj0 + VSTRIP - 1);
        for (int base = bj0; base <= bj1; base += 32) {
            /* 32 tile pairs planned at once, one per lane */
            const int bjl = base + lane;
            VfPlan pl{};
            const bool keep = bjl <= bj1 && vf_plan(P, P.tb[bi], P.tb[bjl], pl);
            unsigned int m = __ballot_sync(0xffffffffu, keep);
            __syncwarp(); /* the last round's plans are read */
            plans[lane] = make_int2(pl.klo, pl.inside ? pl.khi : -1 - pl.khi);
            __syncwarp();
            while (m) {
                const int b = __ffs(m) - 1;
                m &= m - 1;
                const int bj = base + b;
                const int2 pb = plans[b];
                VfPlan q;
                q.klo = pb.x;
                q.khi = pb.y >= 0 ? pb.y : -1 - pb.y; /* negative: not inside */
                q.inside = pb.y >= 0;
                const int jn = min(VT, P.n - bj * VT);
                __syncwarp();
                VF_UNROLL_ALL
                for (int p = 0; p < VF_PTS; p++)
                    if (lane + 32 * p < jn)
                        tile[lane + 32 * p] = P.pk[bj * VT + lane + 32 * p];
                __syncwarp();
                const bool diag = bj == bi, gen = vf_general(q, diag, full);
                const int nw = gen ? (q.khi - q.klo) / 3 + 1 : 1;
                for (int w = 0; w < nw; w++) {
                    VfWin W;
                    vf_window(P, q, w, W);
                    VfAcc A;
                    vf_run<CR>(P, L, tile, jn, bj * VT, q, gen, diag, W, A);
                    if (A.lost) /* never expected: the host says so */
                        atomicAdd(P.lost, A.lost);
                    /* the slots over the warp, in a fixed order */
                    VF_UNROLL_ALL
                    for (int k = 0; k < 3; k++) {
                        if (k >= W.ns)
                            break;
                        unsigned int c = A.c[k];
                        double D = A.D[k], G = A.G[k];
                        VF_UNROLL_ALL
                        for (int o = 16; o > 0; o >>= 1) {
                            c += __shfl_xor_sync(0xffffffffu, c, o);
                            D = vd_add(D, __shfl_xor_sync(0xffffffffu, D, o));
                            G = vd_add(G, __shfl_xor_sync(0xffffffffu, G, o));
                        }
                        if (lane == 0) {
                            hnp[W.kb + k] += c;
                            hsd[W.kb + k] = vd_add(hsd[W.kb + k], D);
                            hsg[W.kb + k] = vd_add(hsg[W.kb + k], G);
                        }
                    }
                }
            }
        }
    }
    __syncwarp();
    for (int b = lane; b < nb; b += 32) {
        P.pnp[blk * nb + b] = hnp[b];
        P.psd[blk * nb + b] = hsd[b];
        P.psg[blk * nb + b] = hsg[b];
    }
}

/* Host: STR's shape for n points: about sqrt(tiles) slabs of whole tiles
 * (tile t in slab t nslabs / ntiles: sizes differ by one tile at most), the
 * slab index above ybits of quantised y. */
void vgm_str_shape(int n, int &nslabs, int &ybits, int &keybits)
{
    const int ntiles = (n + VT - 1) / VT;
    nslabs = std::max(1, (int)ceil(sqrt((double)ntiles)));
    int sbits = 0;
    while (((nslabs - 1) >> sbits) != 0)
        sbits++;
    ybits = std::min(24, 32 - sbits);
    keybits = sbits + ybits;
}

/* Host: the rounding bounds both kernels share and the omnidirectional
 * kernel's class-limit table bnd[0..ncls]. M bounds |coordinate - centre|.
 * The float distance of a pair is within e = 2 sqrt2 eps M + 3 eps d of the
 * CPU's (eps = 2^-24: centring, differences, d^2, sqrt); tol is at least
 * twice that. For limit L, |d^2 - L^2| > T = (2 L tol + tol^2)(1 + 1e-5)
 * decides d against L as the CPU does (d^2 rounds to within 4 eps). lo is
 * rounded down, hi up, lo never above cut2_lo (so no slot below a limit
 * reaches into the cutoff's band), and both are made monotone (so that
 * slots and bands of one window never overlap). Returns false when the
 * squares overflow a float. */
bool vgm_bounds(double cutoff, double width, int ncls, double M, double &tol, float &cut2_lo,
                float &cut2_hi, double &cullr2, float2 *bnd)
{
    const double eps = 5.9604645e-8;
    tol = 8.0 * eps * (M + cutoff);
    cut2_hi = (float)((cutoff + tol) * (cutoff + tol) * (1.0 + 1e-6));
    /* below cut2_lo within the cutoff for sure; nothing is when tol >= cutoff */
    cut2_lo = cutoff > tol ? (float)((cutoff - tol) * (cutoff - tol) * (1.0 - 1e-6)) : -1.0f;
    cullr2 = (cutoff + tol) * (cutoff + tol) * (1.0 + 1e-12);
    if (!(cullr2 < 1e37))
        return false;
    if (!bnd)
        return true;
    for (int m = 0; m <= ncls; m++) {
        const double L = m * width, T = (2.0 * L * tol + tol * tol) * (1.0 + 1e-5);
        const double lo = std::min(L * L - T, (double)cut2_lo), hi = L * L + T;
        if (!(hi < 1e37))
            return false;
        float lf = (float)lo, hf = (float)hi;
        if ((double)lf > lo)
            lf = nextafterf(lf, -INFINITY);
        if ((double)hf < hi)
            hf = nextafterf(hf, INFINITY);
        bnd[m] = make_float2(lf, hf);
    }
    for (int m = ncls - 1; m >= 0; m--)
        bnd[m].x = std::min(bnd[m].x, bnd[m + 1].x);
    for (int m = 1; m <= ncls; m++)
        bnd[m].y = std::max(bnd[m].y, bnd[m - 1].y);
    return true;
}

void vgm_fast_launch(dim3 grid, size_t smem, cudaStream_t st, const VgmFast &F, bool cressie)
{
    if (cressie)
        vgm_fast_kernel<true><<<grid, 32, smem, st>>>(F);
    else
        vgm_fast_kernel<false><<<grid, 32, smem, st>>>(F);
}

} // namespace gk_gpu
