/* SPDX-License-Identifier: MIT */
/*
 * krige_cov.cuh - the kriging model as the kernels use it (KrigeParams,
 * filled from the ABI's gk_gpu_krige) and its covariance, the blocks'
 * averaged covariance and the drift columns: what local kriging
 * (kriging.cu, kriging_big.cu) and global kriging (krige_global.cu) share.
 */
#ifndef GK_GPU_KRIGE_COV_CUH
#define GK_GPU_KRIGE_COV_CUH

#include "core/gpu_abi.h"
#include "geostat/vmodel_eval.h" /* the model functions the CPU uses */

#include <cuda_runtime.h>

#include <cmath>

namespace gk_gpu
{

#define KR_MAXP 3                   /* drift columns of the fast kernels: 0, 1 or 3 */
#define KR_XMAXP GK_GPU_KRIGE_MAX_P /* of the extended ones (quadratic, external, block) */

struct KStruct {
    int type, aniso;
    double psill, range, ca, sa, f;
    double ir; /* 1 / range: a multiply per entry instead of a division */
    float fpsill, frange, fca, fsa, ff, fir; /* the same in float: no conversions per entry */
    double kappa;                            /* Mat, Ste, Exc */
};

/* A structure's parameter in the covariance type */
template <class T> __device__ __forceinline__ T kpar(double d, float f) { return (T)d; }
template <> __device__ __forceinline__ float kpar<float>(double d, float f) { return f; }

struct KrigeParams {
    int ns, p, nbands, single;
    int fastf; /* float covariances with the SFU's sqrt and exp (a few ulp) */
    int iso1;  /* one isotropic structure besides the nuggets (the common model) */
    int ext;   /* a structure of the other models (kgam_ext): the extended kernels */
    KStruct st[GK_GPU_KRIGE_MAX_STRUCT];
    double A, c00, mean, zshift;
    double Ah; /* C(h) for h > 0 before the structures in st: A less the nuggets */
    float fA, fAh;
    /* iso1 without branches (kcov_iso): C = c0 + ce e^-q - cs s(u), u = h / range,
     * q = u (qa u + qb), s the spherical polynomial of min(u, 1) */
    double ic0, ice, ics, iqa, iqb;
    float fic0, fice, fics, fiqa, fiqb;
    const double *x, *y; /* input order */
    double *var;         /* second band, or nullptr */
    unsigned int *singular;
    /* the extended kernels (X): drift columns [1, u, v, u^2, v^2, uv, g...]
     * (poly terms after the constant, then nr covariates), the block's
     * discretisation (nb = 1: a point) */
    int poly, nr, nb;
    double bdx[GK_GPU_KRIGE_MAX_DISCR], bdy[GK_GPU_KRIGE_MAX_DISCR], bw[GK_GPU_KRIGE_MAX_DISCR];
    const double *gp; /* device: nr blocks of gld covariates at the points, input order */
    const double *g0; /* device: nr blocks of g0ld covariates at the tile's nodes */
    size_t gld, g0ld;
    int omax; /* max_points_per_quadrant (kr_quad_filter), 0 = none */
};

/* The kernels' form of the model: nuggets folded into Ah, 1 / range kept. */
static inline void krige_params_fill(KrigeParams &KP, const gk_gpu_krige &k)
{
    KP.p = k.p;
    KP.nbands = k.nbands;
    KP.A = KP.Ah = k.A;
    KP.c00 = k.c00;
    KP.mean = k.mean;
    KP.ns = 0;
    for (int s = 0; s < k.ns; s++) {
        const gk_gpu_vstruct &v = k.st[s];
        if (v.type == GK_GPU_V_NUG) {
            KP.Ah -= v.psill;
            continue;
        }
        const double ir = v.range > 0.0 ? 1.0 / v.range : 0.0;
        KP.st[KP.ns++] =
            KStruct{v.type,      v.aniso,     v.psill,    v.range,        v.ca,
                    v.sa,        v.f,         ir,         (float)v.psill, (float)v.range,
                    (float)v.ca, (float)v.sa, (float)v.f, (float)ir,      v.kappa};
    }
    KP.iso1 = KP.ns == 1 && !KP.st[0].aniso && KP.st[0].type <= GK_GPU_V_GAU;
    if (KP.iso1) {
        const KStruct &st = KP.st[0];
        const bool sph = st.type == GK_GPU_V_SPH, gau = st.type == GK_GPU_V_GAU;
        KP.ic0 = sph ? KP.Ah : KP.Ah - st.psill;
        KP.ice = sph ? 0.0 : st.psill;
        KP.ics = sph ? st.psill : 0.0;
        KP.iqa = gau ? 1.0 : 0.0;
        KP.iqb = gau ? 0.0 : 1.0;
        KP.fic0 = (float)KP.ic0, KP.fice = (float)KP.ice, KP.fics = (float)KP.ics;
        /* float: e = 2^-(q log2 e), the SFU's exponential */
        KP.fiqa = (float)(KP.iqa * 1.4426950408889634),
        KP.fiqb = (float)(KP.iqb * 1.4426950408889634);
    }
    KP.ext = 0;
    for (int s = 0; s < KP.ns; s++)
        KP.ext |= KP.st[s].type > GK_GPU_V_GAU;
    KP.fA = (float)KP.A;
    KP.fAh = (float)KP.Ah;
    KP.poly = k.p ? k.poly : 0; /* simple kriging has no drift */
    KP.nr = k.p ? k.nr : 0;
    KP.nb = k.nb > 1 ? k.nb : 1;
    for (int b = 0; b < GK_GPU_KRIGE_MAX_DISCR; b++) {
        KP.bdx[b] = k.bdx[b];
        KP.bdy[b] = k.bdy[b];
        KP.bw[b] = b < KP.nb ? k.bw[b] : 0.0;
    }
    if (KP.nb == 1)
        KP.bw[0] = 1.0;
    KP.omax = k.omax;
}

/* Does the job need the extended kernels (quadratic or external drift, a block)? */
static inline bool krige_extended(const KrigeParams &KP)
{
    return KP.poly > 2 || KP.nr > 0 || KP.nb > 1 || KP.ext;
}

/* sqrt and exp of the covariances: in float, optionally the SFU's
 * approximations (2-3 ulp; the systems' rounding dominates anyway). */
template <class T> __device__ __forceinline__ T kr_sqrt(bool fast, T v) { return sqrt(v); }
template <> __device__ __forceinline__ float kr_sqrt<float>(bool fast, float v)
{
    return fast ? (v > 0.0f ? v * rsqrtf(v) : 0.0f) : sqrtf(v);
}
template <class T> __device__ __forceinline__ T kr_exp(bool fast, T v) { return exp(v); }
template <> __device__ __forceinline__ float kr_exp<float>(bool fast, float v)
{
    return fast ? __expf(v) : expf(v);
}

/* gamma of one structure at distance h */
template <class T> __device__ __forceinline__ T kgam(const KStruct &st, bool fast, T h)
{
    const T ir = kpar<T>(st.ir, st.fir), ps = kpar<T>(st.psill, st.fpsill);
    switch (st.type) {
    case GK_GPU_V_SPH: {
        if (h >= kpar<T>(st.range, st.frange))
            return ps;
        const T u = h * ir;
        return ps * (u * (T(1.5) - T(0.5) * u * u));
    }
    case GK_GPU_V_EXP:
        return ps * (T(1) - kr_exp<T>(fast, -h * ir));
    default: { /* Gau (nuggets are folded into Ah) */
        const T u = h * ir;
        return ps * (T(1) - kr_exp<T>(fast, -(u * u)));
    }
    }
}

/* gamma of one of the other structures (vmodel_eval.h's functions, in
 * double whatever the kernel's type): a call, not inlined. Even so its ABI
 * changes the registers of a kernel that has it, so only the extended
 * kernels (X) have it (kcov<T, true>). By value: the address of a kernel
 * parameter would copy the parameters to local memory. */
static __device__ __noinline__ double kgam_ext(int type, double psill, double a, double kappa,
                                               double h)
{
    if (h == 0.0) /* gk_vm_unit's gamma(0) = 0 */
        return 0.0;
    double u;
    switch (type) {
    case GK_GPU_V_MAT:
        u = gk_ve_mat(h, a, kappa);
        break;
    case GK_GPU_V_STE:
        u = gk_ve_ste(h, a, kappa);
        break;
    case GK_GPU_V_EXC:
        u = gk_ve_exc(h, a, kappa);
        break;
    case GK_GPU_V_CIR:
        u = gk_ve_cir(h, a);
        break;
    case GK_GPU_V_PEN:
        u = gk_ve_pen(h, a);
        break;
    case GK_GPU_V_LIN:
        u = gk_ve_lin(h, a);
        break;
    case GK_GPU_V_POW:
        u = gk_ve_pow(h, a);
        break;
    default:
        u = gk_ve_hol(h, a);
    }
    return psill * u;
}

template <class T> __device__ __forceinline__ T kr_iso_h(T v) { return sqrt(v); }
template <class T> __device__ __forceinline__ T kr_iso_exp(T q) { return exp(-q); }
/* float: the SFU's rsqrt and 2^x without the denormal fix-ups of rsqrtf and
 * __expf (a third of the instructions of an entry); a distance below 1e-19
 * counts as 0, an exponential below 1e-38 as 0 */
template <> __device__ __forceinline__ float kr_iso_h<float>(float v)
{
    float r;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
    return v >= 1.17549435e-38f ? v * r : 0.0f;
}
template <> __device__ __forceinline__ float kr_iso_exp<float>(float q)
{
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(-q));
    return r;
}

/* C(dx, dy) of the common model (iso1) as straight-line code: the Exp/Gau and
 * the Sph forms are both computed and weighted by 0/1 coefficients, cheaper
 * than the branches per entry of kcov's general path (they were half of the
 * solve's instructions at k = 16). */
template <class T> __device__ __forceinline__ T kcov_iso(const KrigeParams &K, T dx, T dy)
{
    const KStruct &st = K.st[0];
    const T u = kr_iso_h<T>(dx * dx + dy * dy) * kpar<T>(st.ir, st.fir);
    const T q = u * (kpar<T>(K.iqa, K.fiqa) * u + kpar<T>(K.iqb, K.fiqb));
    const T e = kr_iso_exp<T>(q);
    const T um = u < T(1) ? u : T(1);
    const T s = um * (T(1.5) - T(0.5) * um * um);
    const T c = kpar<T>(K.ic0, K.fic0) + kpar<T>(K.ice, K.fice) * e - kpar<T>(K.ics, K.fics) * s;
    return dx == T(0) && dy == T(0) ? kpar<T>(K.A, K.fA) : c;
}

/* C(dx, dy) = A - gamma, as gk_krige_cov (geostat/kriging.h); the
 * nuggets are folded into Ah, so st holds the other structures only.
 * EXT = false: Nug, Sph, Exp and Gau only (KP.ext == 0), without the call. */
template <class T, bool EXT = true>
__device__ __forceinline__ T kcov(const KrigeParams &K, T dx, T dy)
{
    if (K.iso1 && (sizeof(T) == 8 || K.fastf)) /* kcov_iso: float with the SFU only */
        return kcov_iso<T>(K, dx, dy);
    if (dx == T(0) && dy == T(0))
        return kpar<T>(K.A, K.fA);
    const bool fast = K.fastf;
    const T hiso = kr_sqrt<T>(fast, dx * dx + dy * dy);
    const T Ah = kpar<T>(K.Ah, K.fAh);
    T g = 0;
    for (int s = 0; s < K.ns; s++) {
        const KStruct &st = K.st[s];
        T h = hiso;
        if (st.aniso) {
            const T ca = kpar<T>(st.ca, st.fca), sa = kpar<T>(st.sa, st.fsa);
            const T t0 = ca * dx + sa * dy;
            const T t1 = kpar<T>(st.f, st.ff) * (-sa * dx + ca * dy);
            h = kr_sqrt<T>(fast, t0 * t0 + t1 * t1);
        }
        if (EXT && st.type > GK_GPU_V_GAU)
            g += (T)kgam_ext(st.type, st.psill, st.range, st.kappa, (double)h);
        else
            g += kgam<T>(st, fast, h);
    }
    return Ah - g;
}

/* ---- quadratic and external drift, blocks (the extended kernels) ------- */

/* Point-to-target covariance averaged over the block's discretisation
 * around the node (gk_krige_cov0), (dx, dy) = point - node; EXT as kcov's. */
template <class T, bool EXT = true>
__device__ __forceinline__ T kr_cov0_block(const KrigeParams &KP, T dx, T dy)
{
    T c = 0;
#pragma unroll 1
    for (int b = 0; b < KP.nb; b++)
        c += (T)KP.bw[b] * kcov<T, EXT>(KP, dx - (T)KP.bdx[b], dy - (T)KP.bdy[b]);
    return c;
}

/* Term c of the polynomial drift [1, u, v, u^2, v^2, uv] (gk_krige_poly) */
template <class T> __host__ __device__ __forceinline__ T kr_poly(int c, T u, T v)
{
    return c == 0 ? T(1) : c == 1 ? u : c == 2 ? v : c == 3 ? u * u : c == 4 ? v * v : u * v;
}

/* The drift at the target (gk_krige_f0): the polynomial at (u0, v0), the
 * node in the drift's centred, scaled coordinates, or its average over the
 * block; then the node's covariates g0[r * ld]; zero from column p on. */
template <int PM>
__device__ __forceinline__ void kr_f0(const KrigeParams &KP, int p, double u0, double v0, double sc,
                                      const double *g0, size_t ld, double (&f0)[PM])
{
    const int np = 1 + KP.poly;
    const bool avg = KP.nb > 1 && KP.poly > 0;
#pragma unroll
    for (int c = 0; c < PM; c++)
        f0[c] = c < np && !avg ? kr_poly<double>(c, u0, v0) : 0.0;
    if (avg)
        for (int b = 0; b < KP.nb; b++) {
            const double u = u0 + KP.bdx[b] / sc, v = v0 + KP.bdy[b] / sc;
#pragma unroll
            for (int c = 0; c < PM; c++)
                if (c < np)
                    f0[c] += KP.bw[b] * kr_poly<double>(c, u, v);
        }
#pragma unroll
    for (int c = 0; c < PM; c++)
        if (c >= np && c < p)
            f0[c] = g0[(size_t)(c - np) * ld];
}

} // namespace gk_gpu

#endif
