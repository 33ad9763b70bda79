/* SPDX-License-Identifier: MIT */
/*
 * quadtree_order.cu - gdal_grid's quadtree order (algorithms/core/
 * quadtree_order.h) built on the device, one tree level a pass, with no
 * work on the host but the count of what is left. A pass takes the points
 * of the nodes still splitting (each node's points together, in input
 * order): each point gets its quarter (quadtree_split.h's own code), a
 * stable radix sort by (node, quarter) keeps input order within each, the
 * runs of equal keys are the node's own points and its quarters, and a
 * quarter of more than 8 points with room to split is a node of the next
 * pass; every other run's points have their final place. The boxes are
 * computed on the device by quadtree_split.h too (-fmad=false: rounded as
 * the host's), so the tree is the CPU's and the order the same.
 */
#include "families.h"
#include "call.h"

#include "core/quadtree_split.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace gk_gpu
{

/* a node still splitting: its place in the order, its points' place in
 * the pass (start, count), its quarters */
struct QNode {
    int at, start, count;
    qt_cuts cuts;
};

/* where the points of one (node, quarter) key go: dst onwards; node >= 0:
 * to that node of the next pass, -1: their final place */
struct KeyDest {
    int start; /* the key's first place among the sorted points */
    int dst;
    int node;
};

__global__ void qt_identity(unsigned *order, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        order[i] = (unsigned)i;
}

__global__ void qt_iota(unsigned *v, unsigned *actn, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = (unsigned)i, actn[i] = 0;
}

/* key = node * 5 + the point's quarter + 1 (0: in none, listed first) */
__global__ void qt_keys(const double *x, const double *y, const unsigned *act, const unsigned *actn,
                        const QNode *nodes, int na, unsigned *key)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= na)
        return;
    const unsigned p = act[i], nd = actn[i];
    const unsigned char c = qt_quarter(&nodes[nd].cuts, x[p], y[p]);
    key[i] = nd * 5u + (c == 4 ? 0u : (unsigned)c + 1u);
}

/* does run j's quarter split again? flag and its points (0 if not) */
__global__ void qt_run_flags(const unsigned *ukey, const unsigned *ucnt, const int *nruns,
                             const QNode *nodes, int *flag, int *fcnt)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= *nruns)
        return;
    const unsigned k = ukey[j], r = k % 5;
    const int cnt = (int)ucnt[j];
    qt_cuts kc;
    const int split = r > 0 && cnt > QT_CAPACITY && qt_quarters(&nodes[k / 5].cuts.q[r - 1], &kc);
    flag[j] = split;
    fcnt[j] = split ? cnt : 0;
}

/* run j's destination; the next pass's nodes; tot = {nodes, points} of it */
__global__ void qt_run_emit(const unsigned *ukey, const unsigned *ucnt, const int *nruns,
                            const unsigned *ustart, const int *flag, const int *fid,
                            const int *foff, const int *fcnt, const QNode *nodes, QNode *next,
                            KeyDest *kd, int *tot)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int nr = *nruns;
    if (j >= nr)
        return;
    const unsigned k = ukey[j], r = k % 5;
    const QNode &nd = nodes[k / 5];
    const int s = (int)ustart[j], at = nd.at + (s - nd.start);
    KeyDest d = {s, at, -1};
    if (flag[j]) {
        QNode &c = next[fid[j]];
        c.at = at;
        c.start = foff[j];
        c.count = (int)ucnt[j];
        qt_quarters(&nd.cuts.q[r - 1], &c.cuts);
        d.dst = foff[j];
        d.node = fid[j];
    }
    kd[k] = d;
    if (j == nr - 1) {
        tot[0] = fid[j] + flag[j];
        tot[1] = foff[j] + fcnt[j];
    }
}

__global__ void qt_scatter(const unsigned *key, const unsigned *pts, const KeyDest *kd, int na,
                           unsigned *order, unsigned *act, unsigned *actn)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= na)
        return;
    const KeyDest d = kd[key[i]];
    const int at = d.dst + (i - d.start);
    if (d.node < 0) {
        order[at] = pts[i];
    } else {
        act[at] = pts[i];
        actn[at] = (unsigned)d.node;
    }
}

int quadtree_order(cudaStream_t st, const double *x, const double *y, int n, const double box[4],
                   unsigned *order, char *err, size_t err_cap)
{
    const int T = 256;
    const size_t un = (size_t)n, maxnodes = un / (QT_CAPACITY + 1) + 1;
    char *mem = nullptr;
    int h_tot[2];
    int na = n, nn = 1;
    bool done = false;
    /* a failed call may have left work queued that reads mem */
    const auto scratch = at_exit([&] {
        if (!done)
            cudaStreamSynchronize(st);
        if (mem)
            cudaFreeAsync(mem, st);
    });
    qt_box root = {box[0], box[1], box[2], box[3]};
    QNode r0;
    unsigned *act, *actn, *key, *key2, *pts2, *ukey, *ucnt, *ustart;
    int *flag, *fid, *foff, *fcnt, *d_nruns, *d_tot;
    QNode *nodes, *next;
    KeyDest *kd;
    char *tmp;
    size_t tb = 0, t1 = 0;
    r0.at = 0, r0.start = 0, r0.count = n;
    if (n <= QT_CAPACITY || !qt_quarters(&root, &r0.cuts)) { /* one leaf: input order */
        qt_identity<<<(n + T - 1) / T, T, 0, st>>>(order, n);
        CK_RET(cudaGetLastError());
        CK_RET(cudaStreamSynchronize(st));
        return 0;
    }
    /* the CUB calls' scratch: the largest of them at n items */
    CK_RET(cub::DeviceRadixSort::SortPairs(nullptr, t1, (unsigned *)nullptr, (unsigned *)nullptr,
                                           (unsigned *)nullptr, (unsigned *)nullptr, n, 0, 32, st));
    tb = std::max(tb, t1);
    CK_RET(cub::DeviceRunLengthEncode::Encode(nullptr, t1, (unsigned *)nullptr, (unsigned *)nullptr,
                                              (unsigned *)nullptr, (int *)nullptr, n, st));
    tb = std::max(tb, t1);
    CK_RET(cub::DeviceScan::ExclusiveSum(nullptr, t1, (unsigned *)nullptr, (unsigned *)nullptr, n,
                                         st));
    tb = std::max(tb, t1);
    /* one allocation on the caller's stream, carved into the parts */
    Layout L;
    L.part(act, un), L.part(actn, un), L.part(key, un), L.part(key2, un), L.part(pts2, un);
    L.part(ukey, un), L.part(ucnt, un), L.part(ustart, un);
    L.part(flag, un), L.part(fid, un), L.part(foff, un), L.part(fcnt, un);
    L.part(d_nruns, 1), L.part(d_tot, 2);
    L.part(nodes, maxnodes), L.part(next, maxnodes), L.part(kd, 5 * maxnodes);
    L.part(tmp, tb);
    CK_RET(cudaMallocAsync((void **)&mem, L.bytes(), st));
    L.place(mem);
    qt_iota<<<(n + T - 1) / T, T, 0, st>>>(act, actn, n);
    CK_RET(cudaGetLastError());
    CK_RET(cudaMemcpyAsync(nodes, &r0, sizeof r0, cudaMemcpyHostToDevice, st));
    while (na > 0) {
        const int gp = (na + T - 1) / T, runs = (int)std::min<long long>(na, 5LL * nn);
        const int gr = (runs + T - 1) / T;
        qt_keys<<<gp, T, 0, st>>>(x, y, act, actn, nodes, na, key);
        CK_RET(cudaGetLastError());
        int bits = 1;
        while ((1LL << bits) < 5LL * nn)
            bits++;
        size_t t = tb;
        CK_RET(cub::DeviceRadixSort::SortPairs(tmp, t, key, key2, act, pts2, na, 0, bits, st));
        t = tb;
        CK_RET(cub::DeviceRunLengthEncode::Encode(tmp, t, key2, ukey, ucnt, d_nruns, na, st));
        /* over a bound of the runs: the entries past the last run follow it */
        t = tb;
        CK_RET(cub::DeviceScan::ExclusiveSum(tmp, t, ucnt, ustart, runs, st));
        qt_run_flags<<<gr, T, 0, st>>>(ukey, ucnt, d_nruns, nodes, flag, fcnt);
        CK_RET(cudaGetLastError());
        t = tb;
        CK_RET(cub::DeviceScan::ExclusiveSum(tmp, t, flag, fid, runs, st));
        t = tb;
        CK_RET(cub::DeviceScan::ExclusiveSum(tmp, t, fcnt, foff, runs, st));
        qt_run_emit<<<gr, T, 0, st>>>(ukey, ucnt, d_nruns, ustart, flag, fid, foff, fcnt, nodes,
                                      next, kd, d_tot);
        CK_RET(cudaGetLastError());
        qt_scatter<<<gp, T, 0, st>>>(key2, pts2, kd, na, order, act, actn);
        CK_RET(cudaGetLastError());
        CK_RET(cudaMemcpyAsync(h_tot, d_tot, sizeof h_tot, cudaMemcpyDeviceToHost, st));
        CK_RET(cudaStreamSynchronize(st));
        nn = h_tot[0];
        na = h_tot[1];
        std::swap(nodes, next);
    }
    done = true;
    return 0;
}

int api_quadtree_order(int dev, const double *x, const double *y, size_t n, uint32_t *order,
                       double *ms, char *err, size_t err_cap)
{
    if (n == 0 || n > (size_t)INT32_MAX) {
        snprintf(err, err_cap, "%zu points: from 1 to 2^31-1", n);
        return -1;
    }
    double box[4] = {x[0], y[0], x[0], y[0]};
    for (size_t i = 0; i < n; i++) {
        box[0] = x[i] < box[0] ? x[i] : box[0];
        box[1] = y[i] < box[1] ? y[i] : box[1];
        box[2] = x[i] > box[2] ? x[i] : box[2];
        box[3] = y[i] > box[3] ? y[i] : box[3];
    }
    Call c;
    double *dx = nullptr, *dy = nullptr;
    unsigned *dord = nullptr;
    c.part(dx, n);
    c.part(dy, n);
    c.part(dord, n);
    CK_RET(c.open(dev));
    CK_RET(c.carve());
    cudaStream_t st = c.st;
    CK_RET(cudaMemcpyAsync(dx, x, n * sizeof *dx, cudaMemcpyHostToDevice, st));
    CK_RET(cudaMemcpyAsync(dy, y, n * sizeof *dy, cudaMemcpyHostToDevice, st));
    CK_RET(cudaEventRecord(c.e0, st));
    if (quadtree_order(st, dx, dy, (int)n, box, dord, err, err_cap))
        return -1;
    CK_RET(cudaEventRecord(c.e1, st));
    CK_RET(cudaMemcpyAsync(order, dord, n * sizeof *dord, cudaMemcpyDeviceToHost, st));
    CK_RET(cudaStreamSynchronize(st));
    float t = 0;
    CK_RET(c.elapsed(&t));
    if (ms)
        *ms = t;
    return 0;
}

} // namespace gk_gpu
