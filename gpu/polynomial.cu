/* SPDX-License-Identifier: MIT */
/*
 * polynomial.cu - `polynomial`'s local fits (algorithms/geostat/polynomial.c)
 * on the GPU: the max_points nearest of each node by kriging's search
 * (kr_search_launch: gstat's rule, ties by input order), then a thread a node
 * fits them in input order with the core's own code (algorithms/geostat/
 * polynomial_fit.h). Compiled with -fmad=false (gpu/CMakeLists.txt): an
 * unweighted node's value is the CPU's bits; a weighted one's differs only
 * where pow() or exp() rounds differently from the host's.
 */
#include "call.h"
#include "check.h"
#include "families.h"
#include "job.h"
#include "krige_system.cuh"
#include "local.cuh"
#include "op_row.h"

#include "geostat/polynomial_fit.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <new>

namespace gk_gpu
{

constexpr int PF_THREADS = 128;

struct PolyState {
    gk_gpu_poly p{};
    int *nbr = nullptr; /* a band's neighbour lists and counts (kr_search_launch) */
    size_t nbr_cap = 0;
};

/* Node n of the band [j0, j0 + nr): its K-list nbr[n K ..] (nearest first)
 * and the count its window held, cnt[n]. D: the largest degree the work
 * array holds. */
template <int K, int D>
__global__ void __launch_bounds__(PF_THREADS)
    poly_nodes(LocalParams P, gk_gpu_poly pp, const double *x, const double *y, int j0, int nr,
               const int *nbr, const int *cnt, unsigned int *lowered)
{
    const size_t n = (size_t)blockIdx.x * PF_THREADS + threadIdx.x;
    const int w = P.g.w;
    if (n >= (size_t)nr * w)
        return;
    const int i = (int)(n % w), jr = (int)(n / w);
    double nx, ny;
    int grp;
    tile_node(P, i, j0 + jr, nx, ny, grp);
    const int m = min(cnt[n], P.k);
    double v = P.nodata;
    int used = 0;
    if (m > 0 && m >= P.min_points) {
        int idx[K];
        for (int q = 0; q < m; q++) /* into input order, as the CPU sorts them */
            idx[q] = nbr[n * K + q];
        for (int q = 1; q < m; q++) {
            const int e = idx[q];
            int r = q - 1;
            for (; r >= 0 && idx[r] > e; r--)
                idx[r + 1] = idx[r];
            idx[r + 1] = e;
        }
        constexpr int PT = (D + 1) * (D + 2) / 2;
        double work[(PT + 1) * K];
        if (pp.weight == GK_PF_W_NONE) {
            gk_pf_set f;
            gk_pf_fit_set(x, y, P.zin, idx, m, pp.degree, work, &f);
            if ((used = f.terms) > 0)
                v = gk_pf_eval(&f, nx, ny);
        } else {
            double wt[K];
            used = gk_pf_node_weighted(x, y, P.zin, idx, wt, m, nx, ny, pp.weight, pp.power,
                                       pp.maxdist, pp.bandwidth, pp.degree, work, &v);
        }
        if (!used || !isfinite(v))
            v = P.nodata;
        else if (used < gk_pf_terms_of(pp.degree))
            atomicAdd(lowered, 1u); /* an integer count: the order does not matter */
    }
    P.out[(size_t)(j0 + jr) * w + i] = v;
}

template <int K, int D>
static cudaError_t launch_nodes(cudaStream_t st, const LocalParams &P, const gk_gpu_poly &pp,
                                const double *x, const double *y, int j0, int nr, const int *nbr,
                                const int *cnt, unsigned int *lowered)
{
    const size_t N = (size_t)nr * P.g.w;
    poly_nodes<K, D><<<(unsigned)((N + PF_THREADS - 1) / PF_THREADS), PF_THREADS, 0, st>>>(
        P, pp, x, y, j0, nr, nbr, cnt, lowered);
    return cudaGetLastError();
}

template <int K>
static cudaError_t launch_degree(cudaStream_t st, const LocalParams &P, const gk_gpu_poly &pp,
                                 const double *x, const double *y, int j0, int nr, const int *nbr,
                                 const int *cnt, unsigned int *lowered)
{
    switch (pp.degree) {
    case 0:
        return launch_nodes<K, 0>(st, P, pp, x, y, j0, nr, nbr, cnt, lowered);
    case 1:
        return launch_nodes<K, 1>(st, P, pp, x, y, j0, nr, nbr, cnt, lowered);
    case 2:
        return launch_nodes<K, 2>(st, P, pp, x, y, j0, nr, nbr, cnt, lowered);
    default:
        return launch_nodes<K, 3>(st, P, pp, x, y, j0, nr, nbr, cnt, lowered);
    }
}

static int poly_make(Job *J, const gk_gpu_job_desc *d, char *err, size_t err_cap)
{
    if (d->max_points < 1 || d->max_points > GK_GPU_POLY_MAX_K || d->p.poly.degree < 0 ||
        d->p.poly.degree > 3) {
        snprintf(err, err_cap, "polynomial: max_points %d or degree %d out of the kernel's range",
                 d->max_points, d->p.poly.degree);
        return -1;
    }
    PolyState *S = new (std::nothrow) PolyState;
    if (!S) {
        snprintf(err, err_cap, "out of host memory");
        return -1;
    }
    S->p = d->p.poly;
    J->own = S;
    return 0;
}

static void poly_shrink(void *own)
{
    PolyState *S = static_cast<PolyState *>(own);
    cudaFree(S->nbr);
    S->nbr = nullptr;
    S->nbr_cap = 0;
}

static void poly_drop(void *own)
{
    if (!own)
        return;
    poly_shrink(own);
    delete static_cast<PolyState *>(own);
}

static void *poly_clone(const void *own, char *err, size_t err_cap)
{
    PolyState *S = new (std::nothrow) PolyState;
    if (!S) {
        snprintf(err, err_cap, "out of host memory");
        return nullptr;
    }
    S->p = static_cast<const PolyState *>(own)->p; /* a buffer of its own */
    return S;
}

static int poly_tile(Job *J, const Grid &G, const gk_gpu_tile *, int, char *err, size_t err_cap)
{
    PolyState &S = *static_cast<PolyState *>(J->own);
    LocalParams P = local_params(J, G);
    CK_RET(cudaMemsetAsync(J->counters, 0, 4 * sizeof(unsigned int), J->st));
    const int K = P.k <= 16 ? 16 : 32, w = G.w, h = G.h;
    const int band = kr_band(K, w, h, 16);
    CK_RET(grow(&S.nbr, &S.nbr_cap, (size_t)std::min(band, h) * w * (K + 1)));
    for (int j0 = 0; j0 < h; j0 += band) {
        const int nr = std::min(band, h - j0);
        int *cnt = S.nbr + (size_t)K * nr * w;
        CK_RET(kr_search_launch(J->st, P, K, j0, nr, S.nbr, cnt));
        CK_RET(K == 16 ? launch_degree<16>(J->st, P, S.p, J->x, J->y, j0, nr, S.nbr, cnt,
                                           J->counters + 3)
                       : launch_degree<32>(J->st, P, S.p, J->x, J->y, j0, nr, S.nbr, cnt,
                                           J->counters + 3));
    }
    (void)err, (void)err_cap;
    return 0;
}

const OpRow op_polynomial = {true,      true,       ALWAYS,    NEVER,      poly_make,
                             poly_drop, poly_clone, poly_tile, poly_shrink};

} // namespace gk_gpu
