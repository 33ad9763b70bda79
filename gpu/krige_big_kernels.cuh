/*
 * krige_big_kernels.cuh - local kriging with more neighbours than the warp
 * kernels hold (k above 64, or above 32 with max_points_per_quadrant).
 * Included by gridkit_cuda.cu after krige_kernels.cuh and
 * knn_list_kernels.cuh.
 *
 * Phase 1 is kl_search_kernel's lists (any k), then kr_quad_filter where
 * omax is set. Phase 2 gives a node a block of 128 threads: the same
 * system and the same right-looking Cholesky as krige_kernel (rows [C | c0'
 * | z' | F'], the GLS form of alg_kriging.c), with the matrix in shared
 * memory where it fits and else in a global-memory slot per block (the grid
 * then strides over the nodes, so the slots are bounded).
 */

/* T elements of one node's workspace: K + 2 + PM rows of K + 1, and the
 * node-local x, y, z (3 K). */
__host__ __device__ inline size_t kb_node_elems(int K, int PM)
{
    return (size_t)(K + 2 + PM) * (K + 1) + 3 * (size_t)K;
}

/* Sums of NV values over the block (4 warps); every thread gets them. */
template <class T, int NV>
__device__ __forceinline__ void kb_block_sums(T (&v)[NV], T (*red)[NV])
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int q = 0; q < NV; q++)
        for (int o = 16; o > 0; o >>= 1)
            v[q] += __shfl_xor_sync(0xffffffffu, v[q], o);
    __syncthreads();
    if (lane == 0)
#pragma unroll
        for (int q = 0; q < NV; q++)
            red[warp][q] = v[q];
    __syncthreads();
#pragma unroll
    for (int q = 0; q < NV; q++)
        v[q] = red[0][q] + red[1][q] + red[2][q] + red[3][q];
}

template <class T> __device__ __forceinline__ T kb_block_max(T v, T *red)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int o = 16; o > 0; o >>= 1)
        v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
    __syncthreads();
    if (lane == 0)
        red[warp] = v;
    __syncthreads();
    return max(max(red[0], red[1]), max(red[2], red[3]));
}

/* One node per block of 128 threads, K = LP.k neighbours at most; gmat
 * nullptr: the workspace in dynamic shared memory, else gmat + blockIdx.x *
 * kb_node_elems. X, XM and PM as krige_kernel's. */
template <class T, int PM, bool X, bool XM>
__global__ void __launch_bounds__(128) kr_block_kernel(LocalParams LP, KrigeParams KP, int j0,
                                                       int nrows, const int *__restrict__ nbr,
                                                       const int *__restrict__ cnt, T *gmat)
{
    extern __shared__ __align__(16) unsigned char kb_smem[];
    constexpr int NV = 2 + 2 * PM + PM * (PM + 1) / 2;
    __shared__ T red[4][NV];
    const int K = LP.k, LD = K + 1, tid = threadIdx.x, G = blockDim.x;
    T *M = gmat ? gmat + (size_t)blockIdx.x * kb_node_elems(K, PM) : (T *)kb_smem;
    T *px = M + (size_t)(K + 2 + PM) * LD, *py = px + K, *pz = py + K;
    const int w = LP.g.w, p = KP.p, q = 2 + p;
    const T A = (T)KP.A;
    const T tol = KP.single ? T(1e-6) : T(1e-12);
    const size_t N = (size_t)nrows * w;
    for (size_t n = blockIdx.x; n < N; n += gridDim.x) {
        const int jr = (int)(n / w), i0 = (int)(n - (size_t)jr * w);
        const double mx = node_x(LP.g.xmin, LP.g.cw, LP.g.x0 + i0);
        const double my = node_x(LP.g.ymax, LP.g.ch, LP.g.y0 + j0 + jr);
        const size_t o = (size_t)(j0 + jr) * w + i0;
        const int m = min(cnt[n], K);
        double est = LP.nodata, var = LP.nodata;
        bool sing = false, node_ok = true;
        if constexpr (X)
            for (int r = 0; r < KP.nr; r++)
                node_ok = node_ok && isfinite(KP.g0[r * KP.g0ld + o]);
        if (X && !node_ok) {
            /* nodata, not singular (alg_kriging.c) */
        } else if (m == 0 || m < LP.min_points) {
            if (p == 0) { /* gstat: an empty simple kriging neighbourhood gives the mean */
                est = KP.mean;
                var = KP.c00;
            }
        } else if (m < p) {
            sing = true;
        } else {
            const int *sel = nbr + n * K;
            T sx = 0, sy = 0;
            for (int r = tid; r < m; r += G) {
                const int id = sel[r];
                px[r] = (T)(KP.x[id] - mx);
                py[r] = (T)(KP.y[id] - my);
                pz[r] = (T)(LP.zin[id] - KP.zshift);
                sx += px[r];
                sy += py[r];
            }
            __syncthreads();
            /* the polynomial drift's origin and scale of the selection */
            T ox = 0, oy = 0, sc = 1;
            if (X ? KP.poly > 0 : p == 3) {
                T s[NV] = {};
                s[0] = sx;
                s[1] = sy;
                kb_block_sums<T, NV>(s, red);
                ox = s[0] / (T)m;
                oy = s[1] / (T)m;
                T d = 0;
                for (int r = tid; r < m; r += G) {
                    const T ex = px[r] - ox, ey = py[r] - oy;
                    d = max(d, sqrt(ex * ex + ey * ey));
                }
                d = kb_block_max<T>(d, &red[0][0]);
                sc = d > T(0) ? d : T(1);
            }
            kr_assemble<T, X, XM>(KP, M, LD, m, p, px, py, pz, sel, ox, oy, sc, tid, G);
            __syncthreads();
            /* right-looking Cholesky over the m data columns. A thread per
             * column, a warp's 32 columns walking the rows together: row r's
             * L_rj is one broadcast, its entries are consecutive (no bank
             * conflicts in shared memory, coalesced in global memory). */
            const int nr = m + q, lane = tid & 31;
            for (int jc = 0; jc < m; jc++) {
                const T d = M[jc * LD + jc];
                if (!(d > tol * A)) { /* the same on every thread */
                    sing = true;
                    break;
                }
                const T ij = T(1) / sqrt(d);
                for (int r = jc + 1 + tid; r < nr; r += G)
                    M[r * LD + jc] *= ij;
                __syncthreads();
                for (int cb = jc + 1 + (tid - lane); cb < m; cb += G) {
                    const int c = cb + lane;
                    const bool on = c < m;
                    const T lc = on ? M[c * LD + jc] : T(0);
                    int r = cb;
                    /* eight rows' loads before their stores: the compiler
                     * cannot move a load past a store to the same array, and
                     * one row at a time waits on shared memory's latency */
                    for (; r + 8 <= nr; r += 8) {
                        T lr[8], v[8];
#pragma unroll
                        for (int u = 0; u < 8; u++) {
                            lr[u] = M[(r + u) * LD + jc];
                            v[u] = on && c <= r + u ? M[(r + u) * LD + c] : T(0);
                        }
#pragma unroll
                        for (int u = 0; u < 8; u++)
                            if (on && c <= r + u)
                                M[(r + u) * LD + c] = v[u] - lr[u] * lc;
                    }
                    for (; r < nr; r++) {
                        const T lr = M[r * LD + jc];
                        if (on && c <= r)
                            M[r * LD + c] -= lr * lc;
                    }
                }
                __syncthreads();
            }
            if (!sing) {
                const T *ra = M + m * LD, *rw = M + (m + 1) * LD, *rf = M + (m + 2) * LD;
                T s[NV] = {}; /* aa, aw, fa[PM], fw[PM], ff lower triangle */
                for (int c = tid; c < m; c += G) {
                    const T a = ra[c], wv = rw[c];
                    s[0] += a * a;
                    s[1] += a * wv;
                    int t = 2 + 2 * PM;
#pragma unroll
                    for (int u = 0; u < PM; u++) {
                        const T fu = u < p ? rf[u * LD + c] : T(0);
                        s[2 + u] += fu * a;
                        s[2 + PM + u] += fu * wv;
#pragma unroll
                        for (int v = 0; v <= u; v++, t++)
                            s[t] += v < p ? fu * rf[v * LD + c] : T(0);
                    }
                }
                kb_block_sums<T, NV>(s, red);
                T fa[PM], fw[PM], ff[PM][PM] = {};
                int t = 2 + 2 * PM;
#pragma unroll
                for (int u = 0; u < PM; u++) {
                    fa[u] = s[2 + u];
                    fw[u] = s[2 + PM + u];
#pragma unroll
                    for (int v = 0; v <= u; v++, t++)
                        ff[u][v] = s[t];
                }
                double f0[PM];
                kr_target_drift<X, PM, T>(KP, p, ox, oy, sc, o, f0);
                kr_finish<PM, T>(KP, p, s[0], s[1], fa, fw, ff, f0, sing, est, var);
            }
            if (sing)
                est = var = LP.nodata;
        }
        if (tid == 0) {
            LP.out[o] = est;
            if (KP.var)
                KP.var[o] = var;
            if (sing)
                atomicAdd(KP.singular, 1u);
        }
        __syncthreads(); /* the workspace is the next node's */
    }
}
