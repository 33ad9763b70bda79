/*
 * variogram_kernels.cuh - the experimental variogram over all pairs on the
 * GPU (geostatistics.md 2.5), included by gridkit_cuda.cu.
 *
 * Pairs (i, j), j < i, in tiles: a block owns VT points i and walks a strip
 * of j tiles staged in shared memory. Each thread keeps a private histogram
 * in shared memory laid out [class][thread] (no atomics, no bank conflicts),
 * the block sums it in a fixed order into its own partial, and one kernel
 * sums the partials in block order: the result does not depend on timing.
 *
 * Classes follow algorithms/variogram.c exactly: the distance is first taken
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

/* gstat's get_index() with the CPU's rounding */
__device__ __forceinline__ int vgm_class(double d, double w)
{
    double frac = __ddiv_rn(d, w);
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
    for (int bj = bj0; bj <= bj1; bj++) {
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
                const int b = k * VT + t;
                hnp[b] += 1u;
                hsd[b] += dsum;
                hsg[b] += g;
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
