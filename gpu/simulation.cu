/* SPDX-License-Identifier: MIT */
/*
 * simulation.cu - simulation's weights on the GPU
 * (algorithms/geostat/simulation_weights.c): a thread a path position, the
 * node search and the dense kernels the CPU's own text
 * (geostat/simulation_node.h, geostat/kriging_dense.h), the system as
 * node_weights builds it with gk_krige_cov's operations for Nug, Sph, Exp
 * and Gau, compiled with -fmad=false (gpu/CMakeLists.txt): the same
 * neighbours and, but for CUDA's exp against the C library's (Exp and Gau
 * models), the same bits.
 * The data's K nearest are searched by every thread over all the data (the
 * CPU's k-d tree gives the same set: the K smallest (d2, index) within the
 * bound), the nodes' by rings of cells as on the CPU.
 */
#include "families.h"
#include "call.h"
#include "geostat/kriging_dense.h"
#include "geostat/simulation_node.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace gk_gpu
{

namespace
{

constexpr int TB = 128;

/* gk_vm_type's values (gridkit_geostat.h) of the models taken here */
enum { VM_NUG = 0, VM_SPH = 1, VM_EXP = 2, VM_GAU = 3 };

__device__ double cov(const gk_gpu_sim &s, double dx, double dy)
{
    if (dx == 0.0 && dy == 0.0)
        return s.A;
    double hiso = sqrt(dx * dx + dy * dy), g = 0.0;
    for (int i = 0; i < s.ns; i++) {
        double h = hiso;
        if (s.aniso[i]) {
            double t0 = s.ca[i] * dx + s.sa[i] * dy;
            double t1 = s.f[i] * (-s.sa[i] * dx + s.ca[i] * dy);
            h = sqrt(t0 * t0 + t1 * t1);
        }
        double a = s.range[i], u;
        switch (s.type[i]) {
        case VM_NUG:
            g += s.psill[i];
            break;
        case VM_SPH:
            if (h >= a) {
                g += s.psill[i];
            } else {
                u = h / a;
                g += s.psill[i] * (u * (1.5 - 0.5 * u * u));
            }
            break;
        case VM_EXP:
            g += s.psill[i] * (1.0 - exp(-h / a));
            break;
        case VM_GAU:
            u = h / a;
            g += s.psill[i] * (1.0 - exp(-(u * u)));
            break;
        default:
            g += NAN;
        }
    }
    return s.A - g;
}

__device__ double node_cov(const gk_gpu_sim &s, int a, int b)
{
    if (a >= -s.D && a <= s.D && b >= -s.D && b <= s.D)
        return s.ctab[(size_t)(b + s.D) * (2 * (size_t)s.D + 1) + (size_t)(a + s.D)];
    return cov(s, (double)a * s.cw, (double)b * s.ch);
}

template <int KMAX>
__global__ void __launch_bounds__(TB) weights(gk_gpu_sim s, unsigned long long *lowered)
{
    const uint32_t p = s.p0 + blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= s.p1)
        return;
    const int K = s.K;
    uint32_t nidx[KMAX];
    double nd2[KMAX], dd2[KMAX], ox[KMAX], oy[KMAX], C[KMAX * KMAX], inv[KMAX], a[KMAX], b[KMAX],
        c0[KMAX];
    uint32_t didx[KMAX];
    int ea[KMAX], eb[KMAX];
    long long who[KMAX];
    const uint32_t node = s.path[p];
    const int i = (int)(node % (uint32_t)s.nx), j = (int)(node / (uint32_t)s.nx);
    const double x = s.xmin + (i + 0.5) * s.cw, y = s.ymax + (j + 0.5) * (-s.ch);

    const gk_simn_grid sg = {s.nx, s.ny, s.nbx, s.block, s.cw, s.ch, s.rank, s.bmin};
    const int nn = gk_simn_near_nodes(&sg, i, j, p, s.r2max, K, nidx, nd2);
    double bound = s.r2max;
    if (nn == K && nd2[K - 1] < bound)
        bound = nd2[K - 1];
    int nd = 0;
    for (size_t d = 0; d < s.nd; d++) {
        const double dx = s.dx[d] - x, dy = s.dy[d] - y, e = dx * dx + dy * dy;
        if (e <= bound && (nd < K || e <= dd2[K - 1]))
            gk_simn_keep(didx, dd2, &nd, K, e, (uint32_t)d);
    }

    int m = 0, ia = 0, ib = 0;
    while (m < K && (ia < nd || ib < nn)) {
        if (ib >= nn || (ia < nd && dd2[ia] <= nd2[ib])) {
            const uint32_t d = didx[ia++];
            ox[m] = s.dx[d] - x;
            oy[m] = s.dy[d] - y;
            who[m] = d;
        } else {
            const uint32_t q = nidx[ib++];
            ea[m] = (int)(q % (uint32_t)s.nx) - i;
            eb[m] = j - (int)(q / (uint32_t)s.nx);
            ox[m] = (double)ea[m] * s.cw;
            oy[m] = (double)eb[m] * s.ch;
            who[m] = -1 - (long long)q;
        }
        m++;
    }

    const size_t at = (size_t)(p - s.p0);
    int low = 0;
    for (;; m--, low = 1) {
        const int ok_type = s.ordinary && m >= 4;
        for (int r = 0; r < m; r++) {
            const int rn = who[r] < 0;
            for (int c = 0; c <= r; c++)
                C[(size_t)r * m + c] = rn && who[c] < 0 ? node_cov(s, ea[r] - ea[c], eb[r] - eb[c])
                                                        : cov(s, ox[r] - ox[c], oy[r] - oy[c]);
            c0[r] = rn ? node_cov(s, ea[r], eb[r]) : cov(s, ox[r], oy[r]);
        }
        if (m > 0 && gk_kd_chol(C, m, m, inv, s.chol_tol))
            continue;
        for (int r = 0; r < m; r++)
            a[r] = c0[r];
        gk_kd_fwd(C, m, m, inv, a);
        gk_kd_bwd(C, m, m, inv, a);
        double var = s.A, sa = 0.0;
        for (int r = 0; r < m; r++)
            var -= a[r] * c0[r], sa += a[r];
        double mu = 0.0;
        if (ok_type) {
            for (int r = 0; r < m; r++)
                b[r] = 1.0;
            gk_kd_fwd(C, m, m, inv, b);
            gk_kd_bwd(C, m, m, inv, b);
            double s1 = 0.0;
            for (int r = 0; r < m; r++)
                s1 += b[r];
            mu = (1.0 - sa) / s1;
            for (int r = 0; r < m; r++)
                a[r] += mu * b[r];
            var += (1.0 - sa) * mu;
        }
        double cst = ok_type ? 0.0 : s.mean * (1.0 - sa);
        int q = 0;
        for (int r = 0; r < m; r++) {
            if (who[r] >= 0) {
                cst += a[r] * s.dv[who[r]];
            } else {
                s.nb[at * K + q] = (uint32_t)(-1 - who[r]);
                s.w[at * K + q] = a[r];
                q++;
            }
        }
        s.cst[at] = cst;
        s.sd[at] = var > 0 ? sqrt(var) : 0.0;
        s.nn[at] = (uint16_t)q;
        break;
    }
    if (low)
        atomicAdd(lowered, 1ULL);
}

} // namespace

int api_sim_weights(int dev, gk_gpu_sim *s, char *err, size_t err_cap)
{
    s->lowered = 0;
    s->kernel_ms = 0;
    if (s->K < 1 || s->K > 32 || s->ns > 8) {
        snprintf(err, err_cap, "simulation: the GPU kernel takes up to 32 neighbours");
        return -1;
    }
    for (int i = 0; i < s->ns; i++)
        if (s->type[i] != VM_NUG && s->type[i] != VM_SPH && s->type[i] != VM_EXP &&
            s->type[i] != VM_GAU) {
            snprintf(err, err_cap, "simulation: the GPU kernel takes Nug, Sph, Exp and Gau models");
            return -1;
        }
    const size_t N = (size_t)s->nx * s->ny, np = s->p1 - s->p0;
    const size_t nblk = (size_t)s->nbx * ((s->ny + s->block - 1) / s->block);
    const size_t ct = (2 * (size_t)s->D + 1) * (2 * (size_t)s->D + 1);
    const size_t nd = std::max<size_t>(s->nd, 1), K = (size_t)s->K;
    if (np == 0)
        return 0;
    Call c;
    CK_RET(c.open(dev));
    cudaStream_t st = c.st;
    gk_gpu_sim d = *s;
    uint32_t *dpath = nullptr, *drank = nullptr, *dbmin = nullptr, *dnb = nullptr;
    double *dx = nullptr, *dy = nullptr, *dv = nullptr, *dct = nullptr, *dcst = nullptr,
           *dsd = nullptr, *dw = nullptr;
    uint16_t *dnn = nullptr;
    unsigned long long *dlow = nullptr;
    c.part(dpath, np);
    c.part(drank, N);
    c.part(dbmin, nblk);
    c.part(dx, nd);
    c.part(dy, nd);
    c.part(dv, nd);
    c.part(dct, ct);
    c.part(dcst, np);
    c.part(dsd, np);
    c.part(dw, np * K);
    c.part(dnb, np * K);
    c.part(dnn, np);
    c.part(dlow, 1);
    CK_RET(c.carve());
    CK_RET(
        cudaMemcpyAsync(dpath, s->path + s->p0, np * sizeof(uint32_t), cudaMemcpyHostToDevice, st));
    CK_RET(cudaMemcpyAsync(drank, s->rank, N * sizeof(uint32_t), cudaMemcpyHostToDevice, st));
    CK_RET(cudaMemcpyAsync(dbmin, s->bmin, nblk * sizeof(uint32_t), cudaMemcpyHostToDevice, st));
    if (s->nd) {
        CK_RET(cudaMemcpyAsync(dx, s->dx, s->nd * sizeof(double), cudaMemcpyHostToDevice, st));
        CK_RET(cudaMemcpyAsync(dy, s->dy, s->nd * sizeof(double), cudaMemcpyHostToDevice, st));
        CK_RET(cudaMemcpyAsync(dv, s->dv, s->nd * sizeof(double), cudaMemcpyHostToDevice, st));
    }
    CK_RET(cudaMemcpyAsync(dct, s->ctab, ct * sizeof(double), cudaMemcpyHostToDevice, st));
    CK_RET(cudaMemsetAsync(dlow, 0, sizeof *dlow, st));
    /* the path as the kernel indexes it: from position p0 */
    d.path = dpath - s->p0;
    d.rank = drank, d.bmin = dbmin, d.dx = dx, d.dy = dy, d.dv = dv, d.ctab = dct;
    d.cst = dcst, d.sd = dsd, d.w = dw, d.nb = dnb, d.nn = dnn;
    const unsigned int blocks = (unsigned int)((np + TB - 1) / TB);
    CK_RET(cudaEventRecord(c.e0, st));
    if (s->K <= 16)
        weights<16><<<blocks, TB, 0, st>>>(d, dlow);
    else
        weights<32><<<blocks, TB, 0, st>>>(d, dlow);
    CK_RET(cudaGetLastError());
    CK_RET(cudaEventRecord(c.e1, st));
    CK_RET(cudaMemcpyAsync(s->cst, dcst, np * sizeof(double), cudaMemcpyDeviceToHost, st));
    CK_RET(cudaMemcpyAsync(s->sd, dsd, np * sizeof(double), cudaMemcpyDeviceToHost, st));
    CK_RET(cudaMemcpyAsync(s->w, dw, np * K * sizeof(double), cudaMemcpyDeviceToHost, st));
    CK_RET(cudaMemcpyAsync(s->nb, dnb, np * K * sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
    CK_RET(cudaMemcpyAsync(s->nn, dnn, np * sizeof(uint16_t), cudaMemcpyDeviceToHost, st));
    CK_RET(cudaMemcpyAsync(&s->lowered, dlow, sizeof *dlow, cudaMemcpyDeviceToHost, st));
    CK_RET(cudaStreamSynchronize(st));
    float ms = 0.0f;
    CK_RET(c.elapsed(&ms));
    s->kernel_ms = ms;
    return 0;
}

} // namespace gk_gpu
