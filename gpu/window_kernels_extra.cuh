/*
 * window_kernels_extra.cuh - the local kernels beyond gridkit_cuda.cu's own:
 * average_distance_pts (the pairs of the window, algorithms/window/metrics.c),
 * aidw (adaptive IDW, algorithms/idw/aidw.c) and gdal_grid's per-quadrant
 * selection (algorithms/search/neighbours.c) for the IDW family, average and the
 * metrics. Included by gridkit_cuda.cu inside its namespace: the bin grid,
 * the exact-double window tests and the k-best insertion are its own. One
 * thread per node; every rule (ties by input order, exact hits, min_points,
 * nodata) is the CPU's, and where the CPU sums in an order the GPU can follow
 * (sorted neighbours, input order) it follows it.
 */

struct ExtraParams {
    const double *x, *y; /* input order (aidw over every point) */
    int n;
    int quad_min;  /* per-quadrant minimum, 0 = none */
    int quad_max;  /* per-quadrant maximum, 0 = none */
    int quad_keep; /* most points one quadrant contributes: min(quad_max, max_points), 0 = all */
    int aidw_k;
    double alpha[5], rmin, rmax, r_exp;
};

/* ---- average_distance_pts: mean distance over the pairs i < j of the window ---- */

__global__ void __launch_bounds__(128) pairs_kernel(LocalParams P)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= P.g.w || j >= P.g.h)
        return;
    const double nx = node_x(P.g.xmin, P.g.cw, P.g.x0 + i);
    const double ny = node_x(P.g.ymax, P.g.ch, P.g.y0 + j);
    const Bins &B = P.B;
    int xa, xb, ya, yb;
    window_bins(P, nx, ny, xa, xb, ya, yb);
    long long n = 0;
    double sum = 0.0;
    /* each point of the window with every later one in the same scan */
    for (int yy = ya; yy <= yb; yy++) {
        const int p1 = B.start[yy * B.nbx + xb + 1];
        for (int p = B.start[yy * B.nbx + xa]; p < p1; p++) {
            const double2 a = B.xy[p];
            double dx = __dsub_rn(a.x, nx), dy = __dsub_rn(a.y, ny);
            if (!in_window(P.w, dx, dy, sq2(dx, dy)))
                continue;
            n++;
            int y2 = yy, q = p + 1, q1 = p1;
            for (;;) {
                for (; q < q1; q++) {
                    const double2 c = B.xy[q];
                    double ex = __dsub_rn(c.x, nx), ey = __dsub_rn(c.y, ny);
                    if (!in_window(P.w, ex, ey, sq2(ex, ey)))
                        continue;
                    sum += sqrt(sq2(__dsub_rn(c.x, a.x), __dsub_rn(c.y, a.y)));
                }
                if (++y2 > yb)
                    break;
                q = B.start[y2 * B.nbx + xa];
                q1 = B.start[y2 * B.nbx + xb + 1];
            }
        }
    }
    double v = P.nodata;
    if (n >= 2 && n >= P.min_points)
        v = sum / ((double)n * (double)(n - 1) / 2.0);
    P.out[(size_t)j * P.g.w + i] = v;
}

/* No window: every node has the same pairs, summed once per tile. Thread t
 * takes the rows t and n-1-t of the triangle (balanced work). */
__global__ void __launch_bounds__(128) pairs_all_partial(Bins B, int n, double *part)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x, h = (n + 1) / 2;
    if (t >= h)
        return;
    double s = 0.0;
    for (int r = 0; r < 2; r++) {
        const int a = r == 0 ? t : n - 1 - t;
        if (r == 1 && a == t)
            break;
        const double2 pa = B.xy[a];
        for (int b = a + 1; b < n; b++) {
            const double2 pb = B.xy[b];
            s += sqrt(sq2(__dsub_rn(pb.x, pa.x), __dsub_rn(pb.y, pa.y)));
        }
    }
    part[t] = s;
}

/* The partial sums in a fixed order, then the value into part[h]. */
__global__ void pairs_all_finish(double *part, int n, int min_points, double nodata)
{
    const int h = (n + 1) / 2;
    double s = 0.0;
    for (int t = 0; t < h; t++)
        s += part[t];
    part[h] = n >= 2 && n >= min_points ? s / ((double)n * (double)(n - 1) / 2.0) : nodata;
}

__global__ void fill_kernel(double *out, size_t ncell, const double *v)
{
    size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c < ncell)
        out[c] = *v;
}

/* ---- aidw ---------------------------------------------------------------------- */

/* gk_aidw_mu then gk_aidw_alpha, rounded as the CPU's (no contraction). */
__device__ __forceinline__ double aidw_alpha(const ExtraParams &E, double R)
{
    double mu;
    if (!(R > E.rmin)) /* also NaN */
        mu = 0.0;
    else if (R >= E.rmax)
        mu = 1.0;
    else
        mu = __dsub_rn(0.5, __dmul_rn(0.5, cos(__dmul_rn(3.14159265358979323846, /* M_PI */
                                                         __dsub_rn(R, E.rmin)) /
                                               __dsub_rn(E.rmax, E.rmin))));
    if (!(mu > 0.1))
        return E.alpha[0];
    if (mu >= 0.9)
        return E.alpha[4];
    const double u = __dsub_rn(mu, 0.1) / 0.2; /* in (0, 4) */
    int seg = (int)u;
    if (seg > 3)
        seg = 3;
    const double f = __dsub_rn(u, (double)seg);
    double lo = E.alpha[0], hi = E.alpha[1];
#pragma unroll
    for (int s = 1; s < 4; s++)
        if (seg == s) {
            lo = E.alpha[s];
            hi = E.alpha[s + 1];
        }
    return __dadd_rn(__dmul_rn(lo, __dsub_rn(1.0, f)), __dmul_rn(hi, f));
}

/* The power from the sum of the got nearest distances (NaN when none). */
__device__ __forceinline__ double aidw_power(const ExtraParams &E, double sum, int got)
{
    if (got <= 0)
        return NAN;
    const double r_obs = sum / got;
    double R;
    if (E.r_exp > 0.0)
        R = r_obs / E.r_exp;
    else
        R = r_obs > 0.0 ? INFINITY : 0.0;
    return aidw_alpha(E, R);
}

/* Phase 1: the power at each node from its aidw_k nearest points (no window),
 * written to P.out for phase 2 to read (and overwrite); NaN when none. */
template <int K>
__global__ void __launch_bounds__(128, K <= 16 ? 4 : 1)
    aidw_alpha_kernel(LocalParams P, ExtraParams E)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= P.g.w || j >= P.g.h)
        return;
    const double nx = node_x(P.g.xmin, P.g.cw, P.g.x0 + i);
    const double ny = node_x(P.g.ymax, P.g.ch, P.g.y0 + j);
    Win all{};
    all.kind = GK_GPU_WIN_ALL;
    all.rout = INFINITY;
    double D[K];
    int I[K], hit;
    const int k = E.aidw_k;
    const int got = min(knn_search<K, false>(P.B, all, nx, ny, k, 0.0, 0.0, D, I, hit), k);
    double sum = 0.0; /* ascending, as the CPU's sorted answer */
#pragma unroll
    for (int q = 0; q < K; q++)
        if (q >= K - k && q < K - k + got)
            sum = __dadd_rn(sum, sqrt(D[q]));
    P.out[(size_t)j * P.g.w + i] = aidw_power(E, sum, got);
}

/* Phase 1 for k above 64: aidw_alpha_kernel's rule over a warp's list
 * (knn_list_kernels.cuh), the mean distance summed in ascending order. */
__global__ void __launch_bounds__(128) kl_aidw_alpha_kernel(LocalParams P, ExtraParams E)
{
    extern __shared__ __align__(16) unsigned char kl_smem[];
    const int lane = threadIdx.x & 31;
    KList L = kl_bind(kl_warp_base(P, kl_smem, kl_warp_bytes(E.aidw_k)), E.aidw_k);
    Win all{};
    all.kind = GK_GPU_WIN_ALL;
    all.rout = INFINITY;
    KL_FOR_NODES(P, n)
    {
        double nx, ny;
        kl_node_xy(P, n, 0, nx, ny);
        int hit;
        kl_search(P.B, all, nx, ny, L, 0.0, 0.0, hit);
        if (lane == 0) {
            const int got = L.m;
            double sum = 0.0;
            for (int q = 0; q < got; q++)
                sum = __dadd_rn(sum, sqrt(L.D[q]));
            P.out[n] = aidw_power(E, sum, got);
        }
        __syncwarp();
    }
}

/* Phase 2, no window: every point in input order, the first exact hit wins;
 * summed in the CPU's order and rounding (no contraction). */
__global__ void __launch_bounds__(128) aidw_all_kernel(LocalParams P, ExtraParams E)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= P.g.w || j >= P.g.h)
        return;
    const size_t cell = (size_t)j * P.g.w + i;
    const double nx = node_x(P.g.xmin, P.g.cw, P.g.x0 + i);
    const double ny = node_x(P.g.ymax, P.g.ch, P.g.y0 + j);
    const double alpha = P.out[cell], e = -0.5 * alpha, s2 = P.s2, hit2 = P.g.hit2;
    const bool p2 = alpha == 2.0;
    double v = P.nodata, num = 0.0, den = 0.0;
    bool hit = false;
    if (alpha == alpha) {
        for (int p = 0; p < E.n; p++) {
            const double dx = __dsub_rn(E.x[p], nx), dy = __dsub_rn(E.y[p], ny);
            const double r2 = __dadd_rn(sq2(dx, dy), s2);
            if (r2 < hit2) {
                v = P.zin[p];
                hit = true;
                break;
            }
            const double w = p2 ? 1.0 / r2 : pow(r2, e);
            num = __dadd_rn(num, __dmul_rn(w, P.zin[p]));
            den = __dadd_rn(den, w);
        }
        if (!hit && den != 0.0)
            v = num / den;
    }
    P.out[cell] = v;
}

/* Phase 2 in a window with max_points: IDW over the k nearest (exact hit
 * first, min_points), summed in the sorted order as gk_idw_sum. */
template <int K>
__global__ void __launch_bounds__(128, K <= 16 ? 4 : 1) aidw_knn_kernel(LocalParams P)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= P.g.w || j >= P.g.h)
        return;
    const size_t cell = (size_t)j * P.g.w + i;
    const double nx = node_x(P.g.xmin, P.g.cw, P.g.x0 + i);
    const double ny = node_x(P.g.ymax, P.g.ch, P.g.y0 + j);
    const double alpha = P.out[cell], s2 = P.s2;
    double D[K];
    int I[K], hit;
    const int k = P.k;
    const int count = knn_search<K, false>(P.B, P.w, nx, ny, k, s2, P.g.hit2, D, I, hit);
    double v = P.nodata;
    if (!(alpha == alpha)) {
        /* no power: nodata, as the CPU */
    } else if (hit != INT_MAX) {
        v = P.zin[hit];
    } else {
        const int m = count < k ? count : k;
        if (m > 0 && m >= P.min_points) {
            double num = 0.0, den = 0.0;
#pragma unroll
            for (int q = 0; q < K; q++) {
                if (q >= K - k && q < K - k + m) {
                    const double wgt = idw_weight(__dadd_rn(D[q], s2), alpha);
                    num = __dadd_rn(num, __dmul_rn(wgt, P.zin[I[q]]));
                    den = __dadd_rn(den, wgt);
                }
            }
            if (den != 0.0)
                v = num / den;
        }
    }
    P.out[cell] = v;
}

/* ---- per-quadrant selection ------------------------------------------------------ *
 * Quadrant q = (dx >= 0) | ((dy >= 0) << 1) of point - node. The CPU sorts each
 * quadrant by (d2, index) and takes them round robin q0, q1, q2, q3, q0, ...,
 * skipping a quadrant when exhausted or at quad_max, stopping at max_points.
 * With either limit (quad_keep > 0) a quadrant contributes at most quad_keep
 * points: KQ >= quad_keep nearest per quadrant are kept (kbest_offer), found
 * by the ring search, and taken in the CPU's order. Without limits every
 * point of the window counts (a box scan, only the counts per quadrant kept).
 * IDW ops (IDW_KNN, AIDW with its power in P.out) also keep the exact hit
 * over the whole window, which wins before any quadrant rule, as on the CPU. */

template <int KQ> struct QuadState {
    int n0, n1, n2, n3; /* window points per quadrant */
    int hit;
    double a, b, lo, hi; /* KQ == 0: sums over every point */
    double D[4][KQ > 0 ? KQ : 1];
    int I[4][KQ > 0 ? KQ : 1];
};

template <int KQ>
__device__ __forceinline__ void quad_visit(QuadState<KQ> &S, int op, bool idw, double power,
                                           double s2, double hit2, double zv, int id, double dx,
                                           double dy, double d2)
{
    const int q = (dx >= 0.0 ? 1 : 0) | (dy >= 0.0 ? 2 : 0);
    if (idw && __dadd_rn(d2, s2) < hit2 && id < S.hit)
        S.hit = id;
    switch (q) {
    case 0:
        S.n0++;
        if (KQ > 0)
            kbest_offer(S.D[0], S.I[0], d2, id);
        break;
    case 1:
        S.n1++;
        if (KQ > 0)
            kbest_offer(S.D[1], S.I[1], d2, id);
        break;
    case 2:
        S.n2++;
        if (KQ > 0)
            kbest_offer(S.D[2], S.I[2], d2, id);
        break;
    default:
        S.n3++;
        if (KQ > 0)
            kbest_offer(S.D[3], S.I[3], d2, id);
        break;
    }
    if (KQ > 0)
        return;
    if (idw) {
        const double wgt = idw_weight(__dadd_rn(d2, s2), power);
        S.a += wgt * zv;
        S.b += wgt;
    } else if (op == GK_GPU_AVERAGE) {
        S.a += zv;
    } else if (op == GK_GPU_AVERAGE_DISTANCE) {
        S.a += sqrt(d2);
    } else {
        S.lo = fmin(S.lo, zv);
        S.hi = fmax(S.hi, zv);
    }
}

template <int KQ>
__global__ void __launch_bounds__(128, KQ <= 4 ? 4 : 1) quad_kernel(LocalParams P, ExtraParams E)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= P.g.w || j >= P.g.h)
        return;
    const size_t cell = (size_t)j * P.g.w + i;
    const double nx = node_x(P.g.xmin, P.g.cw, P.g.x0 + i);
    const double ny = node_x(P.g.ymax, P.g.ch, P.g.y0 + j);
    const Bins &B = P.B;
    const int op = P.op;
    const bool idw = op == GK_GPU_IDW_KNN || op == GK_GPU_AIDW;
    const double power = op == GK_GPU_AIDW ? P.out[cell] : P.power;
    const double s2 = P.s2, hit2 = idw ? P.g.hit2 : 0.0;
    const int keep = E.quad_keep;
    QuadState<KQ> S;
    S.n0 = S.n1 = S.n2 = S.n3 = 0;
    S.hit = INT_MAX;
    S.a = S.b = 0.0;
    S.lo = INFINITY;
    S.hi = -INFINITY;
    /* the first KQ - keep slots hold sentinels ahead of any point, so that a
     * list keeps the keep nearest and the keep-th sits at the constant KQ - 1
     * (a runtime index would move the lists to local memory) */
#pragma unroll
    for (int q = 0; q < 4; q++)
#pragma unroll
        for (int t = 0; t < (KQ > 0 ? KQ : 1); t++) {
            const bool pad = t < KQ - keep;
            S.D[q][t] = pad ? -INFINITY : INFINITY;
            S.I[q][t] = pad ? -1 : INT_MAX;
        }
    if (KQ == 0) {
        int xa, xb, ya, yb;
        window_bins(P, nx, ny, xa, xb, ya, yb);
        for (int yy = ya; yy <= yb; yy++) {
            const int p0 = B.start[yy * B.nbx + xa], p1 = B.start[yy * B.nbx + xb + 1];
            for (int p = p0; p < p1; p++) {
                double2 c = B.xy[p];
                double dx = __dsub_rn(c.x, nx), dy = __dsub_rn(c.y, ny);
                double d2 = sq2(dx, dy);
                if (in_window(P.w, dx, dy, d2))
                    quad_visit(S, op, idw, power, s2, hit2, B.z[p], B.idx[p], dx, dy, d2);
            }
        }
    } else {
        constexpr int L = KQ > 0 ? KQ - 1 : 0;
        ring_search(
            B, P.w, nx, ny,
            [&](int p, double dx, double dy, double d2) {
                quad_visit(S, op, idw, power, s2, hit2, 0.0, B.idx[p], dx, dy, d2);
            },
            /* done when every quadrant's keep nearest are known (and any hit) */
            [&](double b) {
                const double b2 = b * b;
                return b2 >= hit2 && S.n0 >= keep && S.n1 >= keep && S.n2 >= keep &&
                       S.n3 >= keep && b2 > S.D[0][L] && b2 > S.D[1][L] && b2 > S.D[2][L] &&
                       b2 > S.D[3][L];
            });
    }
    const int nq[4] = {S.n0, S.n1, S.n2, S.n3};
    int m = 0, taken[4];
    double a = S.a, b = S.b, lo = S.lo, hi = S.hi;
    if (KQ == 0) {
        m = S.n0 + S.n1 + S.n2 + S.n3;
#pragma unroll
        for (int q = 0; q < 4; q++)
            taken[q] = nq[q];
    } else {
        /* the round robin: pass t takes the t-th nearest of q0..q3 where there
         * is one (quad_keep bounds both limits), until max_points; the lists
         * shift down a place a pass so that every index stays a constant */
        const int mmax = P.k > 0 ? P.k : INT_MAX;
        int avail[4];
#pragma unroll
        for (int q = 0; q < 4; q++) {
            avail[q] = nq[q] < keep ? nq[q] : keep;
            taken[q] = 0;
        }
        /* drop the sentinels: the nearest of each quadrant to slot 0 */
#pragma unroll 1
        for (int r = 0; r < KQ - keep; r++)
#pragma unroll
            for (int q = 0; q < 4; q++)
#pragma unroll
                for (int s = 0; s + 1 < (KQ > 0 ? KQ : 1); s++) {
                    S.D[q][s] = S.D[q][s + 1];
                    S.I[q][s] = S.I[q][s + 1];
                }
#pragma unroll 1
        for (int t = 0; t < KQ && m < mmax; t++) {
#pragma unroll
            for (int q = 0; q < 4; q++) {
                if (t < avail[q] && m < mmax) {
                    m++;
                    taken[q]++;
                    const double d2 = S.D[q][0];
                    if (idw) {
                        const double wgt = idw_weight(__dadd_rn(d2, s2), power);
                        a = __dadd_rn(a, __dmul_rn(wgt, P.zin[S.I[q][0]]));
                        b = __dadd_rn(b, wgt);
                    } else if (op == GK_GPU_AVERAGE) {
                        a = __dadd_rn(a, P.zin[S.I[q][0]]);
                    } else if (op == GK_GPU_AVERAGE_DISTANCE) {
                        a = __dadd_rn(a, sqrt(d2));
                    } else if (op != GK_GPU_COUNT) {
                        const double zv = P.zin[S.I[q][0]];
                        lo = fmin(lo, zv);
                        hi = fmax(hi, zv);
                    }
                }
#pragma unroll
                for (int s = 0; s + 1 < (KQ > 0 ? KQ : 1); s++) {
                    S.D[q][s] = S.D[q][s + 1];
                    S.I[q][s] = S.I[q][s + 1];
                }
            }
        }
    }
    double v = P.nodata;
    bool ok = m >= P.min_points && !(idw && !(power == power));
#pragma unroll
    for (int q = 0; q < 4; q++)
        ok = ok && taken[q] >= E.quad_min;
    if (idw && S.hit != INT_MAX && power == power) {
        v = P.zin[S.hit];
    } else if (ok) {
        switch (op) {
        case GK_GPU_COUNT:
            v = (double)m;
            break;
        case GK_GPU_MINIMUM:
            if (m > 0)
                v = lo;
            break;
        case GK_GPU_MAXIMUM:
            if (m > 0)
                v = hi;
            break;
        case GK_GPU_RANGE:
            if (m > 0)
                v = hi - lo;
            break;
        case GK_GPU_AVERAGE:
        case GK_GPU_AVERAGE_DISTANCE:
            if (m > 0)
                v = a / (double)m;
            break;
        default: /* IDW */
            if (m > 0 && b != 0.0)
                v = a / b;
            break;
        }
    }
    P.out[cell] = v;
}

/* The same selection keeping more than 16 a quadrant (up to GK_GPU_MAX_LIST_K):
 * a warp per node, each quadrant's quad_keep nearest in a list of its own in
 * shared memory (kl_search_lists<4>: one pass over the rings, kl_search's
 * stop rule and exact hits), then quad_kernel's round robin and statistic, the
 * taken points summed across the warp's lanes. */
__global__ void __launch_bounds__(128) kl_quad_kernel(LocalParams P, ExtraParams E)
{
    extern __shared__ __align__(16) unsigned char kl_smem[];
    const unsigned FULL = 0xffffffffu;
    const int lane = threadIdx.x & 31, keep = E.quad_keep, op = P.op;
    KList L[4];
    kl_bind_quadrants(P, kl_smem, keep, L);
    const bool idw = op == GK_GPU_IDW_KNN;
    const double s2 = P.s2, hit2 = idw ? P.g.hit2 : 0.0, power = P.power;
    const int mmax = P.k > 0 ? P.k : INT_MAX;
    KL_FOR_NODES(P, n)
    {
        double nx, ny;
        kl_node_xy(P, n, 0, nx, ny);
        int hit, avail[4], taken[4], m = 0;
        kl_search_lists<4>(P.B, P.w, nx, ny, L, s2, hit2, hit);
#pragma unroll
        for (int q = 0; q < 4; q++) {
            avail[q] = L[q].m; /* min(the quadrant's window points, keep) */
            taken[q] = 0;
        }
        /* the round robin: pass t takes the t-th nearest of q0..q3 where
         * there is one, until max_points */
        for (int t = 0; t < keep && m < mmax; t++)
#pragma unroll
            for (int q = 0; q < 4; q++)
                if (t < avail[q] && m < mmax) {
                    m++;
                    taken[q]++;
                }
        double a = 0.0, b = 0.0, lo = INFINITY, hi = -INFINITY;
#pragma unroll
        for (int q = 0; q < 4; q++)
            for (int t = lane; t < taken[q]; t += 32) {
                const double d2 = L[q].D[t];
                if (idw) {
                    const double wgt = idw_weight(__dadd_rn(d2, s2), power);
                    a += wgt * P.zin[L[q].I[t]];
                    b += wgt;
                } else if (op == GK_GPU_AVERAGE) {
                    a += P.zin[L[q].I[t]];
                } else if (op == GK_GPU_AVERAGE_DISTANCE) {
                    a += sqrt(d2);
                } else if (op != GK_GPU_COUNT) {
                    const double zv = P.zin[L[q].I[t]];
                    lo = fmin(lo, zv);
                    hi = fmax(hi, zv);
                }
            }
        a = warp_sum(a);
        b = warp_sum(b);
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            lo = fmin(lo, __shfl_xor_sync(FULL, lo, o));
            hi = fmax(hi, __shfl_xor_sync(FULL, hi, o));
        }
        double v = P.nodata;
        bool ok = m >= P.min_points;
#pragma unroll
        for (int q = 0; q < 4; q++)
            ok = ok && taken[q] >= E.quad_min;
        if (idw && hit != INT_MAX) {
            v = P.zin[hit];
        } else if (ok && m > 0) {
            switch (op) {
            case GK_GPU_COUNT:
                v = (double)m;
                break;
            case GK_GPU_MINIMUM:
                v = lo;
                break;
            case GK_GPU_MAXIMUM:
                v = hi;
                break;
            case GK_GPU_RANGE:
                v = hi - lo;
                break;
            case GK_GPU_AVERAGE:
            case GK_GPU_AVERAGE_DISTANCE:
                v = a / (double)m;
                break;
            default: /* IDW */
                if (b != 0.0)
                    v = a / b;
                break;
            }
        } else if (ok && op == GK_GPU_COUNT) {
            v = 0.0;
        }
        __syncwarp();
        if (lane == 0)
            P.out[n] = v;
    }
}

/* ---- launches (from run_local) ----------------------------------------------------- */

/* Jobs whose kernels are in this file. */
static bool extra_op(const gk_gpu_job_desc &d)
{
    return d.op == GK_GPU_AVERAGE_DISTANCE_PTS || d.op == GK_GPU_AIDW || d.quad_min > 0 ||
           d.quad_max > 0;
}

template <int K>
static void launch_aidw_alpha(dim3 g, dim3 b, cudaStream_t st, const LocalParams &P,
                              const ExtraParams &E)
{
    aidw_alpha_kernel<K><<<g, b, 0, st>>>(P, E);
}

/* The per-quadrant selection, by what one quadrant keeps: registers up to
 * 16, then a warp's lists (kl_quad_kernel). */
static cudaError_t launch_quad(Job *J, const LocalParams &P, const ExtraParams &E, dim3 g, dim3 b,
                               size_t nodes)
{
    const int keep = E.quad_keep;
    const cudaStream_t st = J->st;
    if (keep > 16)
        return kl_launch_lists(kl_quad_kernel, J, keep, 4, nodes, P, E);
    if (keep == 0)
        quad_kernel<0><<<g, b, 0, st>>>(P, E);
    else if (keep == 1)
        quad_kernel<1><<<g, b, 0, st>>>(P, E);
    else if (keep == 2)
        quad_kernel<2><<<g, b, 0, st>>>(P, E);
    else if (keep <= 4)
        quad_kernel<4><<<g, b, 0, st>>>(P, E);
    else if (keep <= 8)
        quad_kernel<8><<<g, b, 0, st>>>(P, E);
    else if (keep <= 12)
        quad_kernel<12><<<g, b, 0, st>>>(P, E);
    else
        quad_kernel<16><<<g, b, 0, st>>>(P, E);
    return cudaGetLastError();
}

static int run_extra(Job *J, const LocalParams &P, dim3 g, dim3 b, const gk_gpu_tile *t,
                     char *err, size_t err_cap)
{
    const gk_gpu_job_desc &d = J->d;
    const cudaStream_t st = J->st;
    ExtraParams E{};
    E.x = J->x;
    E.y = J->y;
    E.n = (int)J->n;
    E.quad_min = d.quad_min;
    E.quad_max = d.quad_max;
    E.quad_keep = d.quad_max;
    if (d.max_points > 0 && (E.quad_keep == 0 || d.max_points < E.quad_keep))
        E.quad_keep = d.max_points;
    E.aidw_k = d.aidw_k;
    for (int a = 0; a < 5; a++)
        E.alpha[a] = d.aidw_alpha[a];
    E.rmin = d.aidw_rmin;
    E.rmax = d.aidw_rmax;
    E.r_exp = d.aidw_r_exp;
    if (d.op == GK_GPU_AVERAGE_DISTANCE_PTS) {
        if (d.window != GK_GPU_WIN_ALL) {
            pairs_kernel<<<g, b, 0, st>>>(P);
        } else {
            const int n = (int)J->n, h = (n + 1) / 2;
            const size_t ncell = (size_t)t->w * t->h;
            /* double2 slots, used as doubles: h partial sums and the value */
            CK(grow(&J->part, &J->part_cap, (size_t)(h + 2) / 2 + 1));
            double *part = (double *)J->part;
            pairs_all_partial<<<(h + 127) / 128, 128, 0, st>>>(P.B, n, part);
            CK(cudaGetLastError());
            pairs_all_finish<<<1, 1, 0, st>>>(part, n, d.min_points, d.nodata);
            CK(cudaGetLastError());
            fill_kernel<<<(unsigned)((ncell + 255) / 256), 256, 0, st>>>(P.out, ncell, part + h);
        }
    } else if (d.op == GK_GPU_AIDW) {
        const int ka = d.aidw_k, k = d.max_points;
        if (ka < 1 || ka > GK_GPU_MAX_LIST_K ||
            (d.window != GK_GPU_WIN_ALL && k > GK_GPU_MAX_LIST_K)) {
            snprintf(err, err_cap, "aidw: k %d, max_points %d: no GPU kernel", ka, k);
            return -1;
        }
        if (ka > 64)
            CK(kl_launch(kl_aidw_alpha_kernel, J, ka, (size_t)t->w * t->h, P, E));
        else if (ka <= 2)
            launch_aidw_alpha<2>(g, b, st, P, E);
        else if (ka <= 4)
            launch_aidw_alpha<4>(g, b, st, P, E);
        else if (ka <= 8)
            launch_aidw_alpha<8>(g, b, st, P, E);
        else if (ka <= 16)
            launch_aidw_alpha<16>(g, b, st, P, E);
        else if (ka <= 32)
            launch_aidw_alpha<32>(g, b, st, P, E);
        else
            launch_aidw_alpha<64>(g, b, st, P, E);
        CK(cudaGetLastError());
        if (d.window == GK_GPU_WIN_ALL)
            aidw_all_kernel<<<g, b, 0, st>>>(P, E);
        else if (k == 0)
            quad_kernel<0><<<g, b, 0, st>>>(P, E); /* every point of the window */
        else if (k > 64)
            CK(kl_launch(kl_idw_kernel, J, k, (size_t)t->w * t->h, P, 1));
        else if (k <= 4)
            aidw_knn_kernel<4><<<g, b, 0, st>>>(P);
        else if (k <= 8)
            aidw_knn_kernel<8><<<g, b, 0, st>>>(P);
        else if (k <= 16)
            aidw_knn_kernel<16><<<g, b, 0, st>>>(P);
        else if (k <= 32)
            aidw_knn_kernel<32><<<g, b, 0, st>>>(P);
        else
            aidw_knn_kernel<64><<<g, b, 0, st>>>(P);
    } else {
        CK(launch_quad(J, P, E, g, b, (size_t)t->w * t->h));
    }
    CK(cudaGetLastError());
    return 0;
fail:
    return -1;
}
