/*
 * krige_kernels.cuh - local kriging on the GPU, included by gridkit_cuda.cu
 * (uses its Bins, Win, LocalParams and exact-double helpers).
 *
 * One fused kernel per node block: a warp finds the k nearest points of its
 * 8 x 4 nodes in lockstep (the kNN search of the IDW kernels, gstat's rule:
 * the k nearest within maxdist, inclusive, ties by input order), parks the
 * selections in shared memory, then groups of G lanes (G = 8, 16 or 32 by k)
 * solve one node each with the matrix in shared memory: the data rows
 * [C | c0' | z' | F'] are assembled in parallel (one covariance per lane),
 * a right-looking Cholesky eliminates the m data columns, which leaves
 * L^-1 c0, L^-1 z and L^-1 F in the augmented rows; their dot products give
 * the estimate, the variance and the drift's Schur complement, exactly the
 * GLS form of geostat/kriging.c (geostatistics.md 5.3). T = float works on
 * node-local coordinates (point - node), Z less its mid-range.
 *
 * The kernels' extended forms (template flag X; the fast ones keep p = 0, 1
 * or 3 and are unchanged) take a quadratic drift, external drift (the
 * covariates at the points and the tile's nodes) and blocks (c0 and the
 * drift at the target averaged over the block's discretisation), with the
 * drift columns rounded up to 0, 1, 3, 6 or KR_XMAXP.
 */

#include "geostat/vmodel_eval.h" /* the model functions the CPU uses */

#define KR_MAXP 3 /* drift columns of the fast kernels: 0, 1 or 3 */
#define KR_XMAXP GK_GPU_KRIGE_MAX_P /* of the extended ones (quadratic, external, block) */

struct KStruct {
    int type, aniso;
    double psill, range, ca, sa, f;
    double ir; /* 1 / range: a multiply per entry instead of a division */
    float fpsill, frange, fca, fsa, ff, fir; /* the same in float: no conversions per entry */
    double kappa; /* Mat, Ste, Exc */
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
        KP.st[KP.ns++] = KStruct{v.type,         v.aniso,        v.psill,       v.range,
                                 v.ca,           v.sa,           v.f,           ir,
                                 (float)v.psill, (float)v.range, (float)v.ca,   (float)v.sa,
                                 (float)v.f,     (float)ir,      v.kappa};
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
        KP.fiqa = (float)(KP.iqa * 1.4426950408889634), KP.fiqb = (float)(KP.iqb * 1.4426950408889634);
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
static __device__ __noinline__ double kgam_ext(int type, double psill, double a, double kappa, double h)
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

/* C(dx, dy) = A - gamma, as gk_krige_cov (geostat/kriging.c's kriging.h); the
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
__device__ __forceinline__ void kr_f0(const KrigeParams &KP, int p, double u0, double v0,
                                      double sc, const double *g0, size_t ld, double (&f0)[PM])
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

#ifndef KR_COV_ONLY /* krige_global.cu takes the covariance and drift above only */

/* The k (<= K) nearest in the window around each lane's node, in D and I
 * from slot K - k on, all lanes in lockstep over the bins around the warp's
 * patch (knn_idw_warp_kernel without hits). Only candidates after the floor (fd, fi) in (distance, input
 * order) count, so a second pass continues where a first one stopped;
 * count gets how many of those the window holds. */
template <int K>
__device__ __forceinline__ void knn_warp_select(const LocalParams &P, double nx, double ny,
                                                double (&D)[K], int (&I)[K], int &count,
                                                int k, double fd = -1.0, int fi = -1)
{
    const Bins &B = P.B;
    kbest_init(D, I, k);
    count = 0;
    ring_search_warp(
        B, P.w, nx, ny,
        [&](int p, double, double, double d2) {
            const int id = B.idx[p];
            if (!before(fd, fi, d2, id)) /* at or before the floor: an earlier pass's */
                return;
            count++;
            kbest_offer(D, I, d2, id);
        },
        [&](double b) { return count >= k && b * b > D[K - 1]; });
}

/* Shared memory per warp: the 32 selections, then per group the matrix
 * (K + 2 + PM rows of K + 1) and the node-local points (3 x K). */
template <int K, class T, int PM = KR_MAXP> struct KrLayout {
    static constexpr int G = K <= 8 ? 8 : K <= 16 ? 16 : 32;
    static constexpr int NG = 32 / G;
    static constexpr int LD = K + 1;
    static constexpr int NR = K + 2 + PM;
    static constexpr size_t group_T = (size_t)NR * LD + 3 * K;
    static constexpr size_t warp_bytes = NG * group_T * sizeof(T) + 32 * K * sizeof(int);
};

template <class T> __device__ __forceinline__ T group_sum(T v, unsigned mask, int G)
{
    for (int o = G >> 1; o > 0; o >>= 1)
        v += __shfl_xor_sync(mask, v, o);
    return v;
}

/* The estimate and variance from the dot products of L^-1 c0, L^-1 z and
 * L^-1 F (geostat/kriging.c's local_node): the p x p Schur complement; f0 the
 * drift at the target, p <= PM columns. */
template <int PM, class T>
__device__ __forceinline__ void kr_finish(const KrigeParams &KP, int p, T aa, T aw,
                                          const T (&fa)[PM], const T (&fw)[PM],
                                          const T (&ff)[PM][PM], const double (&f0)[PM],
                                          bool &sing, double &est, double &var)
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
                                            const T *px, const T *py, const T *pz,
                                            const int *sel, T ox, T oy, T sc, int first,
                                            int step)
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
            M[m * LD + c] = KP.nb > 1 ? kr_cov0_block<T, XM>(KP, px[c], py[c])
                                      : kcov<T, XM>(KP, px[c], py[c]);
            M[(m + 1) * LD + c] = pz[c];
            const int id = sel[c], np = 1 + KP.poly;
            const T u = (px[c] - ox) / sc, v = (py[c] - oy) / sc;
            for (int cc = 0; cc < p; cc++)
                M[(m + 2 + cc) * LD + c] = cc < np ? kr_poly<T>(cc, u, v)
                                                   : (T)KP.gp[(size_t)(cc - np) * KP.gld + id];
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

/* What a node's m neighbours give before any system (geostat/kriging.c):
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

template <int K, class T, int PM = KR_MAXP, bool X = false, bool XM = X>
__global__ void __launch_bounds__(128) krige_kernel(LocalParams P, KrigeParams KP)
{
    using Lay = KrLayout<K, T, PM>;
    constexpr int G = Lay::G, NG = Lay::NG, LD = Lay::LD;
    extern __shared__ __align__(16) unsigned char kr_smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    unsigned char *wbase = kr_smem + (size_t)warp * Lay::warp_bytes;
    const int i = blockIdx.x * 8 + (lane & 7), j = blockIdx.y * (4 * nwarps) + warp * 4 + (lane >> 3);
    const bool valid = i < P.g.w && j < P.g.h;
    const double nx = node_x(P.g.xmin, P.g.cw, P.g.x0 + min(i, P.g.w - 1));
    const double ny = node_x(P.g.ymax, P.g.ch, P.g.y0 + min(j, P.g.h - 1));

    int count;
    {
        double D[K];
        int I[K];
        knn_warp_select<K>(P, nx, ny, D, I, count, P.k);
        int *sel = (int *)(wbase + NG * Lay::group_T * sizeof(T));
        const int off = K - P.k;
#pragma unroll
        for (int q = 0; q < K; q++)
            if (q >= off)
                sel[lane * K + q - off] = I[q];
    }
    __syncwarp();
    const int *sel = (const int *)(wbase + NG * Lay::group_T * sizeof(T));
    const int g = lane / G, gl = lane % G;
    const unsigned gmask = (G == 32 ? 0xffffffffu : ((1u << G) - 1u) << (g * G));
    T *M = (T *)wbase + (size_t)g * Lay::group_T;
    T *px = M + (size_t)Lay::NR * LD, *py = px + K, *pz = py + K;
    const int p = KP.p, q = 2 + p, kmax = P.k;
    const T A = (T)KP.A;
    const T tol = KP.single ? T(1e-6) : T(1e-12);
    const size_t ncell = (size_t)P.g.w * P.g.h;

    for (int it = 0; it < 32 / NG; it++) {
        const int src = it * NG + g;
        const int cnt = __shfl_sync(0xffffffffu, count, src);
        const double mx = __shfl_sync(0xffffffffu, nx, src);
        const double my = __shfl_sync(0xffffffffu, ny, src);
        const int vsrc = __shfl_sync(0xffffffffu, (int)valid, src);
        const int si = blockIdx.x * 8 + (src & 7), sj = blockIdx.y * (4 * nwarps) + warp * 4 + (src >> 3);
        const int m = min(cnt, kmax);
        double est = P.nodata, var = P.nodata;
        const int pre = kr_before_system<X>(KP, (size_t)sj * P.g.w + si, vsrc, m, P.min_points,
                                            p == 0, p, est, var);
        bool sing = pre == KR_SINGULAR;
        if (pre == KR_SOLVE) {
            /* node-local points */
            for (int r = gl; r < m; r += G) {
                int id = sel[src * K + r];
                px[r] = (T)(KP.x[id] - mx);
                py[r] = (T)(KP.y[id] - my);
                pz[r] = (T)(P.zin[id] - KP.zshift);
            }
            __syncwarp(gmask);
            /* polynomial drift: origin and scale of the selection (geostat/kriging.c) */
            T ox = 0, oy = 0, sc = 1;
            if (X ? KP.poly > 0 : p == 3) {
                T sx = 0, sy = 0;
                for (int r = gl; r < m; r += G)
                    sx += px[r], sy += py[r];
                ox = group_sum(sx, gmask, G) / (T)m;
                oy = group_sum(sy, gmask, G) / (T)m;
                T mxd = 0;
                for (int r = gl; r < m; r += G) {
                    T ex = px[r] - ox, ey = py[r] - oy;
                    mxd = max(mxd, sqrt(ex * ex + ey * ey));
                }
                for (int o = G >> 1; o > 0; o >>= 1)
                    mxd = max(mxd, __shfl_xor_sync(gmask, mxd, o));
                sc = mxd > T(0) ? mxd : T(1);
            }
            kr_assemble<T, X, XM>(KP, M, LD, m, p, px, py, pz, sel + src * K, ox, oy, sc, gl, G);
            __syncwarp(gmask);
            /* right-looking Cholesky over the m data columns */
            const int nr = m + q;
            for (int jc = 0; jc < m; jc++) {
                T d = M[jc * LD + jc];
                if (!(d > tol * A))
                    sing = true;
                T ij = T(1) / sqrt(d);
                __syncwarp(gmask);
                for (int r = jc + 1 + gl; r < nr; r += G)
                    M[r * LD + jc] *= ij;
                __syncwarp(gmask);
                for (int c = jc + 1 + gl; c < m; c += G) {
                    const T lcj = M[c * LD + jc];
                    int r = c;
                    /* loads before stores: the compiler cannot move them past a
                     * store to the same array */
                    for (; r + 4 <= nr; r += 4) {
                        T a0 = M[r * LD + jc], a1 = M[(r + 1) * LD + jc];
                        T a2 = M[(r + 2) * LD + jc], a3 = M[(r + 3) * LD + jc];
                        T b0 = M[r * LD + c], b1 = M[(r + 1) * LD + c];
                        T b2 = M[(r + 2) * LD + c], b3 = M[(r + 3) * LD + c];
                        M[r * LD + c] = b0 - a0 * lcj;
                        M[(r + 1) * LD + c] = b1 - a1 * lcj;
                        M[(r + 2) * LD + c] = b2 - a2 * lcj;
                        M[(r + 3) * LD + c] = b3 - a3 * lcj;
                    }
                    for (; r < nr; r++)
                        M[r * LD + c] -= M[r * LD + jc] * lcj;
                }
                __syncwarp(gmask);
            }
            if (!sing) {
                /* dot products of the augmented rows */
                const T *ra = M + m * LD, *rw = M + (m + 1) * LD, *rf = M + (m + 2) * LD;
                T aa = 0, aw = 0, fa[PM] = {}, fw[PM] = {};
                T ff[PM][PM] = {};
                for (int c = gl; c < m; c += G) {
                    T a = ra[c], w = rw[c];
                    aa += a * a;
                    aw += a * w;
#pragma unroll
                    for (int u = 0; u < PM; u++) {
                        if (u < p) {
                            T fu = rf[u * LD + c];
                            fa[u] += fu * a;
                            fw[u] += fu * w;
#pragma unroll
                            for (int v = 0; v <= u; v++)
                                ff[u][v] += fu * rf[v * LD + c];
                        }
                    }
                }
                aa = group_sum(aa, gmask, G);
                aw = group_sum(aw, gmask, G);
#pragma unroll
                for (int u = 0; u < PM; u++) {
                    if (u < p) {
                        fa[u] = group_sum(fa[u], gmask, G);
                        fw[u] = group_sum(fw[u], gmask, G);
#pragma unroll
                        for (int v = 0; v <= u; v++)
                            ff[u][v] = group_sum(ff[u][v], gmask, G);
                    }
                }
                double f0[PM];
                kr_target_drift<X, PM, T>(KP, p, ox, oy, sc, (size_t)sj * P.g.w + si, f0);
                kr_finish<PM, T>(KP, p, aa, aw, fa, fw, ff, f0, sing, est, var);
            }
            if (sing)
                est = var = P.nodata;
        }
        if (gl == 0 && vsrc) {
            size_t o = (size_t)sj * P.g.w + si;
            P.out[o] = est;
            if (KP.var)
                KP.var[o] = var;
            if (sing)
                atomicAdd(KP.singular, 1u);
        }
        __syncwarp();
    }
    (void)ncell;
}


/* ---- two phases: the neighbour search, then a lane group per node ------- */

/* Phase 1: the k nearest of each node of a band of rows [j0, j0 + nrows),
 * node-major: nbr[n * K + q] (n = node within the band), cnt[n]. The search
 * alone keeps few registers, so many warps hide its load latency. K = 32 runs
 * as two passes of 16 (the second after the first's 16th), which keeps the
 * k-best lists in registers: one list of 32 doubles spills. */
template <int K>
__global__ void __launch_bounds__(128, K <= 16 ? 7 : 6) /* the most without spills (sm_90) */
    kr_search_kernel(LocalParams P, int j0, int nrows, int *nbr, int *cnt)
{
    constexpr int KP = K < 16 ? K : 16, NPASS = K / KP;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int i = blockIdx.x * 8 + (lane & 7), jr = blockIdx.y * 16 + warp * 4 + (lane >> 3);
    const int w = P.g.w;
    const bool valid = i < w && jr < nrows;
    const double nx = node_x(P.g.xmin, P.g.cw, P.g.x0 + min(i, w - 1));
    const double ny = node_x(P.g.ymax, P.g.ch, P.g.y0 + j0 + min(jr, nrows - 1));
    const size_t n = (size_t)min(jr, nrows - 1) * w + min(i, w - 1);
    double fd = -1.0;
    int fi = -1, total = 0;
#pragma unroll 1
    for (int pass = 0; pass < NPASS; pass++) {
        const int kk = min(P.k - pass * KP, KP);
        if (__all_sync(0xffffffffu, kk <= 0 || (pass > 0 && total <= pass * KP)))
            break; /* the first pass saw every point of each window */
        double D[KP];
        int I[KP], count;
        knn_warp_select<KP>(P, nx, ny, D, I, count, max(kk, 1), fd, fi);
        if (pass == 0)
            total = count;
        if (valid) { /* the kk found, without the sentinels in front */
            int *o = nbr + n * K + pass * KP - (KP - max(kk, 1));
#pragma unroll
            for (int q = 0; q < KP; q++)
                if (q >= KP - max(kk, 1))
                    o[q] = I[q];
        }
        fd = D[KP - 1];
        fi = I[KP - 1];
    }
    if (valid)
        cnt[n] = total;
}

/* gstat's quadrant of (dx, dy) = point - node, "pinwheel" (geostat/kriging.c's quadrant) */
__device__ __forceinline__ int kr_quadrant(double dx, double dy)
{
    const int x = dy < 0 ? dx > 0 : dx >= 0;
    const int y = dx < 0 ? dy >= 0 : dy > 0;
    return x | (y << 1);
}

/* Phase 1b, max_points_per_quadrant (gstat's omax, geostat/kriging.c's
 * select_points): of each node's list, in (distance, input order), the
 * first omax of each quadrant, compacted in place. The count before the
 * filter decides min_points, as on the CPU: a list under it is emptied, and
 * phase 2 then runs with min_points 0. One thread per node. */
__global__ void kr_quad_filter(LocalParams P, const double *__restrict__ x,
                               const double *__restrict__ y, int omax, int j0, int nrows, int K,
                               int *nbr, int *cnt)
{
    const int w = P.g.w;
    const size_t n = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= (size_t)nrows * w)
        return;
    const int jr = (int)(n / w), i0 = (int)(n - (size_t)jr * w);
    const double nx = node_x(P.g.xmin, P.g.cw, P.g.x0 + i0);
    const double ny = node_x(P.g.ymax, P.g.ch, P.g.y0 + j0 + jr);
    const int m = min(cnt[n], P.k);
    if (m < P.min_points) {
        cnt[n] = 0;
        return;
    }
    int *l = nbr + n * K;
    int taken[4] = {0, 0, 0, 0};
    int o = 0;
    for (int v = 0; v < m; v++) {
        const int id = l[v];
        const int q = kr_quadrant(__dsub_rn(x[id], nx), __dsub_rn(y[id], ny));
        int t = taken[0];
#pragma unroll
        for (int u = 1; u < 4; u++) /* compile-time indices: taken stays in registers */
            t = q == u ? taken[u] : t;
        if (t < omax) {
#pragma unroll
            for (int u = 0; u < 4; u++)
                taken[u] += q == u;
            l[o++] = id;
        }
    }
    cnt[n] = o;
}

/* Phase 2: G lanes per node (32 / G nodes per warp), lane r holding rows
 * r, r + G, ... of [C | c0 z F] in registers. The covariances are computed
 * once each, spread evenly over the lanes (row v pairs with v + 1 .. v + K/2,
 * mod K) into shared memory, and read back as rows. A right-looking
 * Cholesky then needs, at step j, only the pivot (a shuffle from its owner),
 * column j of L (one store per row, broadcast loads) and y_j = b_j / L_jj,
 * row j of L^-1 [c0 z F], which the owner leaves in shared memory: every row
 * subtracts L_rj L_cj and L_rj y_j, without predicates (rows and entries at
 * or left of the pivot become garbage nobody reads; symmetry keeps the upper
 * entries right). The estimate and the variance are then dot products of
 * the y over the lanes (geostat/kriging.c's GLS form). Rows beyond the m
 * neighbours found are identity rows and never pivots. Fewer lanes per node
 * share the per-step overhead among more rows; more lanes keep fewer
 * registers. TS: the solve's type; TC: the covariances'. */
template <int K, int G, class TS, int PY = KR_MAXP> struct KrCoopLay {
    static constexpr int NGR = 32 / G;  /* nodes per warp */
    static constexpr int LD = K + 1;    /* odd: rows read without bank conflicts */
    static constexpr int MAT = K * LD;  /* per node */
    static constexpr int CB = K;        /* column j of L */
    static constexpr int COL = 2 * CB;  /* double-buffered */
    static constexpr int PTS = 2 * K;   /* node-local x and y */
    static constexpr int YS = K * (2 + PY); /* rows of L^-1 [c0 z F], as found */
    /* The nodes of a warp start 32 / NGR banks apart, so that their rows,
     * columns and broadcasts fall on different banks (a multiple of 32 words
     * would put all NGR nodes' accesses on the same ones). */
    static constexpr int WPT = (int)sizeof(TS) / 4, BASE = MAT + COL + PTS + YS;
    static constexpr int SHIFT = NGR > 1 ? 32 / NGR / WPT : 0;
    static constexpr int WB = 32 / WPT; /* elements per 32 banks */
    static constexpr int PAD = SHIFT ? ((SHIFT - BASE % WB) % WB + WB) % WB : 0;
    static constexpr size_t node_T = (size_t)BASE + PAD;
    static constexpr size_t warp_bytes = NGR * node_T * sizeof(TS);
};

template <class T> __device__ __forceinline__ T kr_rsqrt(T v) { return rsqrt(v); }
/* float pivots: the SFU's rsqrt without rsqrtf's denormal fix-ups (a pivot is
 * above 1e-6 A, and sills below 1e-30 are solved in double) */
template <> __device__ __forceinline__ float kr_rsqrt<float>(float v)
{
    float r;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
    return r;
}

/* X: the extended form (quadratic and external drift, blocks): P drift
 * columns kept, the first p = KP.p of them used (the others stay zero);
 * else p = P, 0, 1 or 3. XM: every model type (krige_kernel's). */
template <int K, int G, int P, class TS, class TC, bool X = false, bool XM = X>
__global__ void __launch_bounds__(128) kr_coop_kernel(LocalParams LP, KrigeParams KP, int j0,
                                                      int nrows, const int *__restrict__ nbr,
                                                      const int *__restrict__ cnt)
{
    using L = KrCoopLay<K, G, TS, X ? P : KR_MAXP>;
    constexpr int R = K / G, NQ = 2 + P; /* rows per lane; right-hand sides: c0, z, drift */
    constexpr int PM = X ? (P > 0 ? P : 1) : KR_MAXP; /* the drift's sums */
    extern __shared__ __align__(16) unsigned char kc_smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane / G, r = lane % G;
    const unsigned gmask = G == 32 ? 0xffffffffu : ((1u << G) - 1u) << (g * G);
    TS *M = (TS *)(kc_smem + (size_t)warp * L::warp_bytes) + (size_t)g * L::node_T;
    TS *col = M + L::MAT, *sx = col + L::COL, *sy = sx + K, *Y = sy + K;
    const int w = LP.g.w;
    const size_t N = (size_t)nrows * w;
    const size_t n = ((size_t)blockIdx.x * (blockDim.x >> 5) + warp) * L::NGR + g;
    if (n >= N) /* whole groups leave together */
        return;
    const int jr = (int)(n / w), i0 = (int)(n - (size_t)jr * w);
    const double nx = node_x(LP.g.xmin, LP.g.cw, LP.g.x0 + i0);
    const double ny = node_x(LP.g.ymax, LP.g.ch, LP.g.y0 + j0 + jr);
    const int m = min(cnt[n], LP.k);
    const int p = X ? KP.p : P;
    double est = LP.nodata, var = LP.nodata;
    const int pre = kr_before_system<X>(KP, (size_t)(j0 + jr) * w + i0, true, m, LP.min_points,
                                        P == 0, p, est, var);
    bool sing = pre == KR_SINGULAR;
    if (pre == KR_SOLVE) {
        TS px[R], py[R], pz[R];
        TS ox = 0, oy = 0, sc = 1;
#pragma unroll
        for (int i = 0; i < R; i++) {
            const int v = r + G * i;
            const bool mine = v < m;
            const int id = mine ? nbr[n * K + v] : 0;
            px[i] = mine ? (TS)(KP.x[id] - nx) : TS(0);
            py[i] = mine ? (TS)(KP.y[id] - ny) : TS(0);
            pz[i] = mine ? (TS)(LP.zin[id] - KP.zshift) : TS(0);
            sx[v] = px[i];
            sy[v] = py[i];
            M[v * L::LD + v] = (TS)KP.A;
            ox += px[i];
            oy += py[i];
        }
        /* the polynomial drift's origin and scale of the selection (geostat/kriging.c) */
        if (X ? KP.poly > 0 : P == 3) {
            ox = group_sum(ox, gmask, G) / (TS)m;
            oy = group_sum(oy, gmask, G) / (TS)m;
            TS d = 0;
#pragma unroll
            for (int i = 0; i < R; i++) {
                const TS ex = px[i] - ox, ey = py[i] - oy;
                if (r + G * i < m)
                    d = max(d, sqrt(ex * ex + ey * ey));
            }
            for (int o = G >> 1; o > 0; o >>= 1)
                d = max(d, __shfl_xor_sync(gmask, d, o));
            sc = d > TS(0) ? d : TS(1);
        }
        __syncwarp(gmask);
        /* the strict lower triangle once: row v with v + t (mod K), t = 1 .. K/2
         * (t = K/2 from the first half only), mirrored */
#pragma unroll
        for (int i = 0; i < R; i++) {
            const int v = r + G * i;
            const int tmax = v < K / 2 ? K / 2 : K / 2 - 1;
#pragma unroll 2
            for (int t = 1; t <= tmax; t++) {
                const int u = (v + t) & (K - 1);
                const TS c = v < m && u < m
                                 ? (TS)kcov<TC, XM>(KP, (TC)(px[i] - sx[u]), (TC)(py[i] - sy[u]))
                                 : TS(0);
                M[v * L::LD + u] = c;
                M[u * L::LD + v] = c;
            }
        }
        __syncwarp(gmask);
        TS A[R][K], B[R][NQ];
        if constexpr (X) {
            /* c0 (a block's average), z, the drift's columns: before the rows
             * of A are live, which the covariances' calls would spill */
#pragma unroll
            for (int i = 0; i < R; i++) {
                const int v = r + G * i;
                const bool mine = v < m;
                if (KP.nb > 1)
                    B[i][0] = mine ? (TS)kr_cov0_block<TC, XM>(KP, (TC)px[i], (TC)py[i]) : TS(0);
                else
                    B[i][0] = mine ? (TS)kcov<TC, XM>(KP, (TC)px[i], (TC)py[i]) : TS(0);
                B[i][1] = pz[i];
                const int id = mine ? nbr[n * K + v] : 0, np = 1 + KP.poly;
                const TS u = (px[i] - ox) / sc, vv = (py[i] - oy) / sc;
#pragma unroll
                for (int c = 0; c < P; c++)
                    B[i][2 + c] = !mine || c >= p ? TS(0)
                                  : c < np        ? kr_poly<TS>(c, u, vv)
                                                  : (TS)KP.gp[(size_t)(c - np) * KP.gld + id];
            }
        }
#pragma unroll
        for (int i = 0; i < R; i++) {
            const int v = r + G * i;
            const bool mine = v < m;
            /* a row is only ever read left of and at its diagonal: row slot i
             * holds rows below G (i + 1), so its columns beyond are dead */
#pragma unroll
            for (int c = 0; c < K; c++)
                A[i][c] = c < G * (i + 1) ? M[v * L::LD + c] : TS(0);
            if constexpr (!X) {
                B[i][0] = mine ? (TS)kcov<TC, XM>(KP, (TC)px[i], (TC)py[i]) : TS(0);
                B[i][1] = pz[i];
                if constexpr (P >= 1)
                    B[i][2] = mine ? TS(1) : TS(0);
                if constexpr (P == 3) {
                    B[i][3] = mine ? (px[i] - ox) / sc : TS(0);
                    B[i][4] = mine ? (py[i] - oy) / sc : TS(0);
                }
            }
        }
        const TS tol = (KP.single ? TS(1e-6) : TS(1e-12)) * (TS)KP.A;
#pragma unroll
        for (int j = 0; j < K; j++) {
            if (j >= m)
                break;
            const int oj = j % G, ij = j / G;
            const TS d = __shfl_sync(gmask, A[ij][j], oj, G);
            if (!(d > tol))
                sing = true; /* the same on every lane of the group */
            const TS inv = kr_rsqrt<TS>(d);
            TS *cj = col + (j & 1) * L::CB;
            TS l[R];
#pragma unroll
            for (int i = 0; i < R; i++) {
                l[i] = A[i][j] * inv; /* L_vj (row j itself: L_jj) */
                cj[r + G * i] = l[i];
            }
            if (r == oj) {
#pragma unroll
                for (int t = 0; t < NQ; t++)
                    Y[j * NQ + t] = B[ij][t] * inv;
            }
            __syncwarp(gmask);
            TS y[NQ];
#pragma unroll
            for (int t = 0; t < NQ; t++)
                y[t] = Y[j * NQ + t];
            /* rows at or above the pivot turn to garbage: their y is in Y */
#pragma unroll
            for (int i = 0; i < R; i++)
#pragma unroll
                for (int t = 0; t < NQ; t++)
                    B[i][t] -= l[i] * y[t];
            /* from the aligned start of the live columns: the few left of the
             * pivot are garbage either way */
            constexpr int VW = 16 / sizeof(TS);
#pragma unroll
            for (int c0 = (j + 1) / VW * VW; c0 < K; c0 += VW) {
                if constexpr (VW == 4) {
                    const float4 cv = *reinterpret_cast<const float4 *>(cj + c0);
#pragma unroll
                    for (int i = 0; i < R; i++) {
                        if (c0 >= G * (i + 1)) /* dead columns of this slot */
                            continue;
                        A[i][c0] -= l[i] * (TS)cv.x;
                        A[i][c0 + 1] -= l[i] * (TS)cv.y;
                        A[i][c0 + 2] -= l[i] * (TS)cv.z;
                        A[i][c0 + 3] -= l[i] * (TS)cv.w;
                    }
                } else {
                    const double2 cv = *reinterpret_cast<const double2 *>(cj + c0);
#pragma unroll
                    for (int i = 0; i < R; i++) {
                        if (c0 >= G * (i + 1))
                            continue;
                        A[i][c0] -= l[i] * (TS)cv.x;
                        A[i][c0 + 1] -= l[i] * (TS)cv.y;
                    }
                }
            }
        }
        if (!sing) {
            /* the y of this lane's rows (none beyond m) */
#pragma unroll
            for (int i = 0; i < R; i++) {
                const int v = r + G * i;
#pragma unroll
                for (int t = 0; t < NQ; t++)
                    B[i][t] = v < m ? Y[v * NQ + t] : TS(0);
            }
            TS aa = 0, aw = 0, fa[PM] = {}, fw[PM] = {};
            TS ff[PM][PM] = {};
#pragma unroll
            for (int i = 0; i < R; i++) {
                aa += B[i][0] * B[i][0];
                aw += B[i][0] * B[i][1];
#pragma unroll
                for (int u = 0; u < P; u++) {
                    fa[u] += B[i][2 + u] * B[i][0];
                    fw[u] += B[i][2 + u] * B[i][1];
#pragma unroll
                    for (int v = 0; v <= u; v++)
                        ff[u][v] += B[i][2 + u] * B[i][2 + v];
                }
            }
            aa = group_sum(aa, gmask, G);
            aw = group_sum(aw, gmask, G);
#pragma unroll
            for (int u = 0; u < P; u++) {
                fa[u] = group_sum(fa[u], gmask, G);
                fw[u] = group_sum(fw[u], gmask, G);
#pragma unroll
                for (int v = 0; v <= u; v++)
                    ff[u][v] = group_sum(ff[u][v], gmask, G);
            }
            double f0[PM];
            kr_target_drift<X, PM, TS>(KP, p, ox, oy, sc, (size_t)(j0 + jr) * w + i0, f0);
            kr_finish<PM, TS>(KP, p, aa, aw, fa, fw, ff, f0, sing, est, var);
        }
        if (sing)
            est = var = LP.nodata;
    }
    if (r == 0) {
        const size_t o = (size_t)(j0 + jr) * w + i0;
        LP.out[o] = est;
        if (KP.var)
            KP.var[o] = var;
        if (sing)
            atomicAdd(KP.singular, 1u);
    }
}

#endif /* KR_COV_ONLY */
