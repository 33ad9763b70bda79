/* SPDX-License-Identifier: MIT */
/*
 * variogram.cu - the experimental variogram over all pairs on the GPU
 * (docs/dev/geostatistics.md, 'GPU variogram'), with the classes of
 * algorithms/geostat/variogram.c; the omnidirectional kernel is
 * variogram_fast.cu's.
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
#include "families.h"
#include "call.h"
#include "variogram.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace gk_gpu
{

struct VgmParams {
    int n, ncls, nbins, ndir, cressie, strips;
    const float2 *pf; /* centred single-precision coordinates */
    const double *x, *y, *z;
    double cutoff, width;
    float cut2_hi, cut2_lo, inv_w, frtol;
    int all_dirs[16];
    double ux[16], uy[16];
    double cos_tol, bandwidth;
    const float4 *tb;        /* per tile: bounding box of pf (min x, min y, max x, max y) */
    double cullr2;           /* tile pairs farther apart than this (squared) hold no pair */
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

__global__ void vgm_key(const float2 *pf, int n, float m, float scale, unsigned int *key, int *idx)
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
__global__ void vgm_ykey(const float2 *pf, const int *xidx, int n, int nslabs, int ybits, float m,
                         float scale, unsigned int *key, int *idx)
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

__global__ void vgm_gather(const int *idx, int n, const double *x, const double *y, const double *z,
                           const float2 *pf, double *xs, double *ys, double *zs, float2 *pfs,
                           float4 *pk)
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

template <int DIR> __global__ void __launch_bounds__(VT) vgm_kernel(VgmParams P)
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
                    if (P.bandwidth > 0.0 && fabs(__dsub_rn(__dmul_rn(px, P.uy[a]),
                                                            __dmul_rn(py, P.ux[a]))) > P.bandwidth)
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

/* One block per class: the partials in block order (strided sums of fixed
 * shape, then a fixed tree). */
__global__ void __launch_bounds__(256)
    vgm_merge(const unsigned long long *pnp, const double *psd, const double *psg, size_t nblk,
              int nb, double *np, double *sd, double *sg)
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

int api_variogram(int dev, const gk_gpu_vgm *v, double *np, double *sd, double *sg,
                  double *kernel_ms, char *err, size_t err_cap)
{
    const int nb = v->ncls * v->ndir;
    const size_t n = v->n;
    double *x = nullptr, *y = nullptr, *z = nullptr, *onp = nullptr, *osd = nullptr, *osg = nullptr;
    float2 *pf = nullptr, *pfs = nullptr;
    double *xs = nullptr;
    float4 *tb = nullptr, *pk = nullptr;
    float2 *bnd = nullptr, *hbnd = nullptr;
    std::vector<float2> hbv; /* hbnd's */
    unsigned int *key = nullptr, *dlost = nullptr, lost = 0;
    int *idx = nullptr;
    unsigned char *tmp = nullptr;
    size_t tmpb = 0;
    unsigned long long *pnp = nullptr;
    double *psd = nullptr, *psg = nullptr;
    float ms = 0.0f;
    const size_t smem = (size_t)nb * VT * 20 + VT * 32;
    if (nb < 1 || smem > 200 * 1024 || n > (size_t)INT_MAX - VT) {
        snprintf(err, err_cap,
                 "%d classes x directions: more than the GPU variogram keeps "
                 "per thread (at most %d)",
                 nb, (int)((200 * 1024 - VT * 32) / (VT * 20)));
        return -1;
    }
    {
        const size_t bytes = n * sizeof(double);
        const int ntiles = (int)((n + VT - 1) / VT), strips = (ntiles + VSTRIP - 1) / VSTRIP;
        const size_t nblk = (size_t)ntiles * strips;
        double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
        for (size_t i = 0; i < n; i++) {
            xmin = std::min(xmin, v->x[i]);
            xmax = std::max(xmax, v->x[i]);
            ymin = std::min(ymin, v->y[i]);
            ymax = std::max(ymax, v->y[i]);
        }
        const double cx = 0.5 * (xmin + xmax), cy = 0.5 * (ymin + ymax);
        const double M = std::max(std::max(xmax - cx, cx - xmin), std::max(ymax - cy, cy - ymin));
        const bool dir = v->ndir > 1 || !v->all_dirs[0] || v->bandwidth > 0.0;
        /* the omnidirectional kernel, unless GRIDKIT_GPU_VGM_OLD=1 asks for the
         * general one (A/B timing) or its float bounds would overflow */
        const char *old_env = getenv("GRIDKIT_GPU_VGM_OLD");
        const bool want_fast = !dir && !(old_env && *old_env && strcmp(old_env, "0"));
        if (want_fast) {
            hbv.resize((size_t)v->ncls + 1);
            hbnd = hbv.data();
        }
        /* rounding bounds (both kernels) and class-limit table (vgm_bounds) */
        double tol = 0.0, cullr2 = 0.0;
        float cut2_lo = 0.0f, cut2_hi = 0.0f;
        const bool fast =
            vgm_bounds(v->cutoff, v->width, v->ncls, M, tol, cut2_lo, cut2_hi, cullr2, hbnd) &&
            hbnd;
        const double eps = 5.9604645e-8;
        VgmParams P{};
        P.n = (int)n;
        P.ncls = v->ncls;
        P.nbins = nb;
        P.ndir = v->ndir;
        P.cressie = v->cressie;
        P.strips = strips;
        P.cutoff = v->cutoff;
        P.width = v->width;
        P.cut2_hi = cut2_hi;
        P.cut2_lo = cut2_lo;
        P.inv_w = (float)(1.0 / v->width);
        P.cullr2 = cullr2;
        double frtol = tol / v->width + 4.0 * eps * (v->ncls + 1.0);
        P.frtol = (float)std::min(frtol, 0.5);
        for (int a = 0; a < 16; a++) {
            P.all_dirs[a] = v->all_dirs[a];
            P.ux[a] = v->ux[a];
            P.uy[a] = v->uy[a];
        }
        P.cos_tol = v->cos_tol;
        P.bandwidth = v->bandwidth;
        int nslabs = 1, ybits = 0, keybits = 20;
        if (fast)
            vgm_str_shape((int)n, nslabs, ybits, keybits);
        Call c;
        CK_RET(c.open(dev));
        cudaStream_t st = c.st;
        /* the sort's scratch first (a size query reads no memory) */
        CK_RET(cub::DeviceRadixSort::SortPairs(nullptr, tmpb, key, key + n, idx, idx + n, (int)n, 0,
                                               32, st));
        c.part(x, n);
        c.part(y, n);
        c.part(z, n);
        c.part(pf, 2 * n);
        c.part(xs, 3 * n);
        c.part(tb, (size_t)ntiles);
        c.part(key, 2 * n);
        c.part(idx, 2 * n);
        c.part(tmp, tmpb);
        c.part(pnp, nblk * nb);
        c.part(psd, nblk * nb);
        c.part(psg, nblk * nb);
        c.part(onp, 3 * (size_t)nb);
        if (fast) {
            c.part(pk, n);
            c.part(bnd, (size_t)v->ncls + 1);
            c.part(dlost, 1);
        }
        CK_RET(c.carve());
        pfs = pf + n;
        osd = onp + nb;
        osg = osd + nb;
        if (fast) {
            CK_RET(cudaMemcpyAsync(bnd, hbnd, (size_t)(v->ncls + 1) * sizeof(float2),
                                   cudaMemcpyHostToDevice, st));
            CK_RET(cudaMemsetAsync(dlost, 0, sizeof(unsigned int), st));
        }
        CK_RET(cudaMemcpyAsync(x, v->x, bytes, cudaMemcpyHostToDevice, st));
        CK_RET(cudaMemcpyAsync(y, v->y, bytes, cudaMemcpyHostToDevice, st));
        CK_RET(cudaMemcpyAsync(z, v->z, bytes, cudaMemcpyHostToDevice, st));
        P.x = xs;
        P.y = xs + n;
        P.z = xs + 2 * n;
        P.pf = pfs;
        P.tb = tb;
        P.pnp = pnp;
        P.psd = psd;
        P.psg = psg;
        CK_RET(cudaFuncSetAttribute(vgm_kernel<0>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)smem));
        CK_RET(cudaFuncSetAttribute(vgm_kernel<1>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)smem));
        const unsigned int g256 = (unsigned int)((n + 255) / 256);
        const float mm = (float)(M * (1.0 + 1e-6));
        CK_RET(cudaEventRecord(c.e0, st));
        vgm_centre<<<g256, 256, 0, st>>>(x, y, (int)n, cx, cy, pf);
        CK_RET(cudaGetLastError());
        if (fast) { /* STR tiles */
            vgm_xkey<<<g256, 256, 0, st>>>(pf, (int)n, key, idx);
            CK_RET(cudaGetLastError());
            CK_RET(cub::DeviceRadixSort::SortPairs(tmp, tmpb, key, key + n, idx, idx + n, (int)n, 0,
                                                   32, st));
            vgm_ykey<<<g256, 256, 0, st>>>(
                pf, idx + n, (int)n, nslabs, ybits, mm,
                M > 0.0 ? (float)(((1 << ybits) - 1) / (2.0 * M * (1.0 + 1e-6))) : 0.0f, key, idx);
            CK_RET(cudaGetLastError());
            CK_RET(cub::DeviceRadixSort::SortPairs(tmp, tmpb, key, key + n, idx, idx + n, (int)n, 0,
                                                   keybits, st));
        } else { /* Morton order */
            vgm_key<<<g256, 256, 0, st>>>(
                pf, (int)n, mm, M > 0.0 ? (float)(1024.0 / (2.0 * M * (1.0 + 1e-6))) : 0.0f, key,
                idx);
            CK_RET(cudaGetLastError());
            CK_RET(cub::DeviceRadixSort::SortPairs(tmp, tmpb, key, key + n, idx, idx + n, (int)n, 0,
                                                   20, st));
        }
        vgm_gather<<<g256, 256, 0, st>>>(idx + n, (int)n, x, y, z, pf, xs, xs + n, xs + 2 * n, pfs,
                                         pk);
        CK_RET(cudaGetLastError());
        vgm_bbox<<<(unsigned)((ntiles + 127) / 128), 128, 0, st>>>(pfs, (int)n, ntiles, tb);
        CK_RET(cudaGetLastError());
        dim3 grid(ntiles, strips);
        if (fast) {
            VgmFast F{};
            F.n = (int)n;
            F.ncls = v->ncls;
            F.strips = strips;
            F.pk = pk;
            F.x = xs;
            F.y = xs + n;
            F.tb = tb;
            F.bnd = bnd;
            F.cutoff = v->cutoff;
            F.width = v->width;
            F.tol = tol;
            F.cullr2 = cullr2;
            F.cut2_lo = cut2_lo;
            F.cut2_hi = cut2_hi;
            F.pnp = pnp;
            F.psd = psd;
            F.psg = psg;
            F.lost = dlost;
            const size_t fsm = (size_t)nb * (2 * sizeof(double) + sizeof(unsigned int));
            vgm_fast_launch(grid, fsm, st, F, v->cressie != 0);
        } else if (dir) {
            vgm_kernel<1><<<grid, VT, smem, st>>>(P);
        } else {
            vgm_kernel<0><<<grid, VT, smem, st>>>(P);
        }
        CK_RET(cudaGetLastError());
        /* twice at most: a planning bug in the fast kernel (pairs it could
         * not place, never expected) is said and redone with the old one */
        for (int pass = 0; pass < 2; pass++) {
            vgm_merge<<<nb, 256, 0, st>>>(pnp, psd, psg, nblk, nb, onp, osd, osg);
            CK_RET(cudaGetLastError());
            if (pass == 0) {
                CK_RET(cudaEventRecord(c.e1, st));
                if (fast)
                    CK_RET(cudaMemcpyAsync(&lost, dlost, sizeof lost, cudaMemcpyDeviceToHost, st));
            }
            CK_RET(cudaMemcpyAsync(np, onp, nb * sizeof(double), cudaMemcpyDeviceToHost, st));
            CK_RET(cudaMemcpyAsync(sd, osd, nb * sizeof(double), cudaMemcpyDeviceToHost, st));
            CK_RET(cudaMemcpyAsync(sg, osg, nb * sizeof(double), cudaMemcpyDeviceToHost, st));
            CK_RET(cudaStreamSynchronize(st));
            if (!lost)
                break;
            fprintf(stderr,
                    "gridkit: GPU variogram: %u pairs outside their planned classes "
                    "(internal error); redone with the previous kernel\n",
                    lost);
            lost = 0;
            vgm_kernel<0><<<grid, VT, smem, st>>>(P);
            CK_RET(cudaGetLastError());
        }
        CK_RET(c.elapsed(&ms));
        *kernel_ms = ms;
    }
    return 0;
}

} // namespace gk_gpu
