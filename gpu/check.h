/* SPDX-License-Identifier: MIT */
/*
 * check.h - the module's error handling and per-tile buffers: CK (a CUDA
 * call that fails writes its reason to err and jumps to the caller's fail:
 * label), the error CK last saw on this host thread (api_tile tells
 * out-of-memory, which the core answers by halving the tile, from other
 * failures by it), the tuning knobs read from the environment, and grow().
 */
#ifndef GK_GPU_CHECK_H
#define GK_GPU_CHECK_H

#include <cuda_runtime.h>

#include <cstdio>
#include <initializer_list>
#include <cstdlib>

namespace gk_gpu
{

extern thread_local cudaError_t ck_last; /* the error CK last saw (module.cu) */

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            ck_last = e_;                                                                          \
            snprintf(err, err_cap, "%s (%s:%d)", cudaGetErrorString(e_), __FILE__, __LINE__);      \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* Tuning knobs read from the environment (benchmarks and tests). */
inline int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

/* GRIDKIT_GPU_TILE_MEM (bytes): refuse larger per-tile buffers, as a GPU with
 * that little free memory would (tests of the split on out-of-memory). */
inline size_t tile_mem_limit()
{
    const char *e = getenv("GRIDKIT_GPU_TILE_MEM");
    return e && *e ? (size_t)strtoull(e, nullptr, 10) : (size_t)0;
}

/* A call's own stream and timing events, where it made them. */
inline void release_stream(cudaStream_t st, cudaEvent_t e0, cudaEvent_t e1)
{
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    if (st)
        cudaStreamDestroy(st);
}

/* Runs f when the scope ends, however it ends (a call's scratch):
 *   const auto scratch = at_exit([&] { cudaFree(tmp); }); */
template <class F> struct AtExit {
    F f;
    ~AtExit() { f(); }
};
template <class F> inline AtExit<F> at_exit(F f) { return AtExit<F>{f}; }

template <class T> inline cudaError_t grow(T **p, size_t *cap, size_t n)
{
    if (n <= *cap)
        return cudaSuccess;
    if (*p)
        cudaFree(*p);
    *p = nullptr;
    *cap = 0;
    if (tile_mem_limit() && n * sizeof(T) > tile_mem_limit())
        return cudaErrorMemoryAllocation;
    cudaError_t e = cudaMalloc((void **)p, n * sizeof(T));
    if (e == cudaSuccess)
        *cap = n;
    return e;
}

/* A job's array of n T's copied from the host array h into *d (allocated
 * here; *d may point to const), on stream st. */
template <class T, class P> inline cudaError_t upload(P **d, const T *h, size_t n, cudaStream_t st)
{
    T *p = nullptr;
    cudaError_t e = cudaMalloc((void **)&p, (n ? n : 1) * sizeof(T));
    if (e != cudaSuccess)
        return e;
    *d = p;
    return n ? cudaMemcpyAsync(p, h, n * sizeof(T), cudaMemcpyHostToDevice, st) : cudaSuccess;
}

/* Buffers grown by grow() given back (after an out-of-memory tile, so that
 * the halves the caller asks for next find room): each named beside its
 * capacity, so that the two cannot fall out of step. */
struct Grown {
    void **buf;
    size_t *cap;
};
template <class T> inline Grown grown(T *&p, size_t &cap)
{
    return {reinterpret_cast<void **>(&p), &cap};
}
inline void release(std::initializer_list<Grown> list)
{
    for (const Grown &g : list) {
        cudaFree(*g.buf);
        *g.buf = nullptr;
        *g.cap = 0;
    }
}

} // namespace gk_gpu

#endif
