/*
 * variogram_kernels.cuh - the experimental variogram over all pairs on the
 * GPU (geostatistics.md 2.5), included by gridkit_cuda.cu.
 *
 * Pairs (i, j), j < i, in tiles: a block owns VT points i and walks a strip
 * of j tiles staged in shared memory. Each thread keeps a private histogram
 * in shared memory laid out [class][thread] (no atomics, no bank conflicts),
 * the block sums it in a fixed order into its own partial, and one kernel
 * sums the partials in block order: the result does not depend on timing.
 * The points are first sorted in Morton order so tiles are compact: tile
 * pairs whose boxes lie beyond the cutoff are skipped whole.
 *
 * Classes follow algorithms/geostat/variogram.c exactly: the distance is first taken
 * in single precision on centred coordinates, and every pair whose float
 * distance lies within a proven error bound of the cutoff or of a class
 * limit (and every directional pair) is redone in double with the CPU's
 * operations, without contraction. Sums of (dz)^2 are in double; the class's
 * distance sum adds the float distance (the double one on the exact path).
 */

#define VT 128    /* threads per block = points per tile */
#define VSTRIP 256 /* j tiles per block */

struct VgmParams {
    int n, ncls, nbins, ndir, cressie, strips;
    const float2 *pf;  /* centred single-precision coordinates */
    const double *x, *y, *z;
    double cutoff, width;
    float cut2_hi, cut2_lo, inv_w, frtol;
    int all_dirs[16];
    double ux[16], uy[16];
    double cos_tol, bandwidth;
    const float4 *tb;  /* per tile: bounding box of pf (min x, min y, max x, max y) */
    double cullr2;     /* tile pairs farther apart than this (squared) hold no pair */
    unsigned long long *pnp; /* partials: nblocks x nbins */
    double *psd, *psg;
};

__global__ void vgm_centre(const double *x, const double *y, int n, double cx, double cy,
                           float2 *pf)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        pf[i] = make_float2((float)(x[i] - cx), (float)(y[i] - cy));
}

/* Morton key of a point on a 1024 x 1024 grid over the centred square
 * [-m, m]^2: sorting by it makes each tile of VT points spatially compact, so
 * whole tile pairs beyond the cutoff can be skipped. */
__device__ __forceinline__ unsigned int vgm_spread(unsigned int v)
{
    v &= 0x3ffu;
    v = (v | (v << 8)) & 0x00ff00ffu;
    v = (v | (v << 4)) & 0x0f0f0f0fu;
    v = (v | (v << 2)) & 0x33333333u;
    v = (v | (v << 1)) & 0x55555555u;
    return v;
}

__global__ void vgm_key(const float2 *pf, int n, float m, float scale, unsigned int *key,
                        int *idx)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float2 p = pf[i];
    int cx = min(1023, max(0, (int)((p.x + m) * scale)));
    int cy = min(1023, max(0, (int)((p.y + m) * scale)));
    key[i] = vgm_spread((unsigned)cx) | (vgm_spread((unsigned)cy) << 1);
    idx[i] = i;
}

/* STR tiles (sort-tile-recursive) for the omnidirectional kernel: points
 * sorted by x, cut into slabs of whole tiles, each slab sorted by y. Tiles
 * are then near-square boxes (Morton runs of VT points often straddle two
 * Morton blocks: boxes twice as wide), so a tile pair spans fewer classes. */
__global__ void vgm_xkey(const float2 *pf, int n, unsigned int *key, int *idx)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const unsigned int u = __float_as_uint(pf[i].x);
    key[i] = u ^ ((u >> 31) ? 0xffffffffu : 0x80000000u); /* float order */
    idx[i] = i;
}

/* rank r in x order: its tile's slab in the high bits, y above -m
 * quantised to ybits in the low ones */
__global__ void vgm_ykey(const float2 *pf, const int *xidx, int n, int nslabs, int ybits,
                         float m, float scale, unsigned int *key, int *idx)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n)
        return;
    const int k = xidx[r], ntiles = (n + VT - 1) / VT;
    const int q = min((1 << ybits) - 1, max(0, (int)((pf[k].y + m) * scale)));
    const unsigned int slab = (unsigned int)((long long)(r / VT) * nslabs / ntiles);
    key[r] = (slab << ybits) | (unsigned int)q;
    idx[r] = k;
}

__global__ void vgm_gather(const int *idx, int n, const double *x, const double *y,
                           const double *z, const float2 *pf, double *xs, double *ys, double *zs,
                           float2 *pfs, float4 *pk)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const int k = idx[i];
    xs[i] = x[k];
    ys[i] = y[k];
    zs[i] = z[k];
    pfs[i] = pf[k];
    if (pk) /* one 16-byte load per point for the omnidirectional kernel */
        pk[i] = make_float4(pf[k].x, pf[k].y, __int_as_float(__double2loint(z[k])),
                            __int_as_float(__double2hiint(z[k])));
}

/* one thread per tile: the box of its float coordinates */
__global__ void vgm_bbox(const float2 *pf, int n, int ntiles, float4 *tb)
{
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= ntiles)
        return;
    float4 r = make_float4(INFINITY, INFINITY, -INFINITY, -INFINITY);
    const int e = min(n, (b + 1) * VT);
    for (int i = b * VT; i < e; i++) {
        const float2 p = pf[i];
        r.x = fminf(r.x, p.x);
        r.y = fminf(r.y, p.y);
        r.z = fmaxf(r.z, p.x);
        r.w = fmaxf(r.w, p.y);
    }
    tb[b] = r;
}

/* Arithmetic written out so that it rounds the same on the device (no
 * contraction) and on the host, where tests replay the omnidirectional
 * kernel's decisions without a GPU (vf_* below are __host__ __device__). */
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

template <int DIR>
__global__ void __launch_bounds__(VT) vgm_kernel(VgmParams P)
{
    extern __shared__ __align__(16) unsigned char vsm[];
    const int nb = P.nbins, t = threadIdx.x;
    double *hsd = (double *)vsm, *hsg = hsd + (size_t)nb * VT;
    unsigned int *hnp = (unsigned int *)(hsg + (size_t)nb * VT);
    float2 *tf = (float2 *)(hnp + (size_t)nb * VT);
    double *tx = (double *)(tf + VT), *ty = tx + VT, *tz = ty + VT;
    const int bi = blockIdx.x, s = blockIdx.y;
    const size_t blk = (size_t)bi * P.strips + s;
    for (int b = 0; b < nb; b++) {
        hsd[b * VT + t] = 0.0;
        hsg[b * VT + t] = 0.0;
        hnp[b * VT + t] = 0u;
    }
    const int i = bi * VT + t;
    const bool vi = i < P.n;
    const float2 pi = vi ? P.pf[i] : make_float2(0.f, 0.f);
    const double xi = vi ? P.x[i] : 0.0, yi = vi ? P.y[i] : 0.0, zi = vi ? P.z[i] : 0.0;
    const int bj0 = s * VSTRIP, bj1 = min(bi, bj0 + VSTRIP - 1);
    const float4 ib = P.tb[bi];
    for (int bj = bj0; bj <= bj1; bj++) {
        /* the gap between the two boxes (exact float values, taken in
         * double) bounds every pair's distance from below: skip the tile
         * pair (uniformly over the block) when it lies beyond the cutoff */
        const float4 jb = P.tb[bj];
        const double gx = fmax(0.0, fmax((double)jb.x - (double)ib.z, (double)ib.x - (double)jb.z));
        const double gy = fmax(0.0, fmax((double)jb.y - (double)ib.w, (double)ib.y - (double)jb.w));
        const double gap2 = gx * gx + gy * gy;
        if (gap2 > P.cullr2)
            continue;
        /* most of this tile pair's pairs fall in classes k0..k0+2: those
         * are counted in registers, flushed to the thread's column after the
         * tile; any other class goes to the shared histogram directly */
        const int k0 = (int)(sqrt(gap2) / P.width);
        unsigned int c0 = 0, c1 = 0, c2 = 0;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, g0 = 0.0, g1 = 0.0, g2 = 0.0;
        const int jg = bj * VT + t;
        __syncthreads();
        if (jg < P.n) {
            tf[t] = P.pf[jg];
            tx[t] = P.x[jg];
            ty[t] = P.y[jg];
            tz[t] = P.z[jg];
        }
        __syncthreads();
        const int jn = vi ? (bj == bi ? t : min(VT, P.n - bj * VT)) : 0;
        /* one pair: the class in float, redone in double near a limit */
        auto pair = [&](float2 q, double zj, int jj) {
            const float dxf = pi.x - q.x, dyf = pi.y - q.y;
            const float d2f = dxf * dxf + dyf * dyf;
            if (d2f > P.cut2_hi)
                return;
            const float df = sqrtf(d2f);
            const float tq = df * P.inv_w;
            int k = (int)tq;
            const float fr = tq - (float)k;
            double dsum = (double)df;
            const bool exact = DIR || d2f >= P.cut2_lo || fr < P.frtol || fr > 1.0f - P.frtol;
            double px = 0.0, py = 0.0;
            if (exact) {
                px = __dsub_rn(xi, tx[jj]);
                py = __dsub_rn(yi, ty[jj]);
                double d = sqrt(__dadd_rn(__dmul_rn(px, px), __dmul_rn(py, py)));
                if (d > P.cutoff)
                    return;
                k = vgm_class(d, P.width);
                if (k >= P.ncls)
                    return;
                dsum = d;
            }
            const double dz = __dsub_rn(zi, zj);
            const double g = P.cressie ? sqrt(fabs(dz)) : __dmul_rn(dz, dz);
            if (!DIR) {
                if (k == k0) {
                    c0++;
                    s0 += dsum;
                    g0 += g;
                } else if (k == k0 + 1) {
                    c1++;
                    s1 += dsum;
                    g1 += g;
                } else if (k == k0 + 2) {
                    c2++;
                    s2 += dsum;
                    g2 += g;
                } else {
                    const int b = k * VT + t;
                    hnp[b] += 1u;
                    hsd[b] += dsum;
                    hsg[b] += g;
                }
            } else {
                for (int a = 0; a < P.ndir; a++) {
                if (!P.all_dirs[a] && (px != 0.0 || py != 0.0)) {
                    double inprod = __ddiv_rn(
                        __dadd_rn(__dmul_rn(px, P.ux[a]), __dmul_rn(py, P.uy[a])), dsum);
                    if (fabs(inprod) < P.cos_tol)
                        continue;
                }
                if (P.bandwidth > 0.0 &&
                    fabs(__dsub_rn(__dmul_rn(px, P.uy[a]), __dmul_rn(py, P.ux[a]))) >
                        P.bandwidth)
                    continue;
                const int b = (a * P.ncls + k) * VT + t;
                hnp[b] += 1u;
                hsd[b] += dsum;
                hsg[b] += g;
            }
            }
        };
        int jj = 0;
        /* the tile's values read ahead of the histogram stores, which the
         * compiler may not move loads across */
        for (; jj + 4 <= jn; jj += 4) {
            const float2 q0 = tf[jj], q1 = tf[jj + 1], q2 = tf[jj + 2], q3 = tf[jj + 3];
            const double z0 = tz[jj], z1 = tz[jj + 1], z2 = tz[jj + 2], z3 = tz[jj + 3];
            pair(q0, z0, jj);
            pair(q1, z1, jj + 1);
            pair(q2, z2, jj + 2);
            pair(q3, z3, jj + 3);
        }
        for (; jj < jn; jj++)
            pair(tf[jj], tz[jj], jj);
        if (!DIR) {
            if (c0) {
                hnp[k0 * VT + t] += c0;
                hsd[k0 * VT + t] += s0;
                hsg[k0 * VT + t] += g0;
            }
            if (c1) {
                hnp[(k0 + 1) * VT + t] += c1;
                hsd[(k0 + 1) * VT + t] += s1;
                hsg[(k0 + 1) * VT + t] += g1;
            }
            if (c2) {
                hnp[(k0 + 2) * VT + t] += c2;
                hsd[(k0 + 2) * VT + t] += s2;
                hsg[(k0 + 2) * VT + t] += g2;
            }
        }
    }
    __syncthreads();
    /* this block's partial: each class summed over the threads in order */
    for (int b = t; b < nb; b += VT) {
        unsigned long long np = 0;
        double sd = 0.0, sg = 0.0;
        for (int u = 0; u < VT; u++) {
            np += hnp[b * VT + u];
            sd += hsd[b * VT + u];
            sg += hsg[b * VT + u];
        }
        P.pnp[blk * nb + b] = np;
        P.psd[blk * nb + b] = sd;
        P.psg[blk * nb + b] = sg;
    }
}

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

struct VgmFast {
    int n, ncls, strips;
    const float4 *pk;    /* sorted: centred float x, y, then z's low and high words */
    const double *x, *y; /* sorted, for the exact path */
    const float4 *tb;
    const float2 *bnd;   /* per class limit m w, m = 0..ncls: (lo, hi) for d^2 */
    double cutoff, width, tol, cullr2;
    float cut2_lo, cut2_hi;
    unsigned long long *pnp;
    double *psd, *psg;
    unsigned int *lost; /* pairs a single-pass plan failed to place (stays 0) */
};

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
__host__ __device__ __noinline__ VfEx vf_exact(const double *x, const double *y,
                                               const float4 *pk, double cutoff, double width,
                                               int ncls, int kb, int ns, int cr, int gi, int gj,
                                               double zj)
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
                const VfEx e = vf_exact(P.x, P.y, P.pk, P.cutoff, P.width, P.ncls, W.kb, W.ns,
                                        CR, L.gi0 + 32 * p, gj0 + j, zj);
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
static inline void vgm_str_shape(int n, int &nslabs, int &ybits, int &keybits)
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
static inline bool vgm_bounds(double cutoff, double width, int ncls, double M, double &tol,
                              float &cut2_lo, float &cut2_hi, double &cullr2, float2 *bnd)
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

/* One block per class: the partials in block order (strided sums of fixed
 * shape, then a fixed tree). */
__global__ void __launch_bounds__(256) vgm_merge(const unsigned long long *pnp, const double *psd,
                                                 const double *psg, size_t nblk, int nb,
                                                 double *np, double *sd, double *sg)
{
    __shared__ unsigned long long snp[256];
    __shared__ double ssd[256], ssg[256];
    const int b = blockIdx.x, t = threadIdx.x;
    unsigned long long a = 0;
    double c = 0.0, e = 0.0;
    for (size_t k = t; k < nblk; k += 256) {
        a += pnp[k * nb + b];
        c += psd[k * nb + b];
        e += psg[k * nb + b];
    }
    snp[t] = a;
    ssd[t] = c;
    ssg[t] = e;
    __syncthreads();
    for (int o = 128; o > 0; o >>= 1) {
        if (t < o) {
            snp[t] += snp[t + o];
            ssd[t] += ssd[t + o];
            ssg[t] += ssg[t + o];
        }
        __syncthreads();
    }
    if (t == 0) {
        np[b] = (double)snp[0];
        sd[b] = ssd[0];
        sg[b] = ssg[0];
    }
}
