/* SPDX-License-Identifier: MIT */
/*
 * call.h - the owner of one module call's resources: its stream, its two
 * timing events and its device memory, released when the call returns,
 * however it returns. For the entry points that are not a job's tiles
 * (variogram, ridges, the tie order), so that their files hold kernels and
 * launches only: no fail: labels, no clean-up tails.
 *
 * Device memory is one allocation carved into parts, as CUB's temporary
 * storage is (Layout, below, also for calls on a caller's stream): each part
 * is asked for with part() (a pointer and its count), then carve() makes the
 * one allocation and sets every pointer. Pinned host
 * memory comes from host(). CK_RET is CK for such calls: it returns -1.
 */
#ifndef GK_GPU_CALL_H
#define GK_GPU_CALL_H

#include "check.h"

#include <cuda_runtime.h>

#include <cstddef>

namespace gk_gpu
{

/* A failing CUDA call: its reason in err, the error in ck_last (the last
 * error cleared), return -1. */
#define CK_RET(call)                                                                               \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            ck_last = e_;                                                                          \
            snprintf(err, err_cap, "%s (%s:%d)", cudaGetErrorString(e_), __FILE__, __LINE__);      \
            cudaGetLastError(); /* the error is reported: not the next call's */                   \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

/* Parts of one device allocation, each aligned as cudaMalloc's own: part()
 * asks for one (a pointer and its count), bytes() is the whole, place()
 * sets every pointer into an allocation of that size. Call uses it; so do
 * the calls that allocate on a caller's stream (cudaMallocAsync). */
class Layout
{
  public:
    /* A part of n elements for p, set by place(). At most MAX_PARTS. */
    template <class T> void part(T *&p, size_t n)
    {
        if (nparts_ == MAX_PARTS) {
            too_many_ = true;
            return;
        }
        size_t off = (bytes_ + ALIGN - 1) / ALIGN * ALIGN;
        parts_[nparts_++] = {static_cast<void *>(&p), off, &Layout::set<T>};
        bytes_ = off + n * sizeof(T);
    }
    size_t bytes() const { return bytes_; }
    bool ok() const { return !too_many_; }
    void place(void *base) const
    {
        for (int i = 0; i < nparts_; i++)
            parts_[i].set(parts_[i].slot, static_cast<char *>(base) + parts_[i].off);
    }

  private:
    static constexpr int MAX_PARTS = 32;
    static constexpr size_t ALIGN = 256;
    template <class T> static void set(void *slot, char *at)
    {
        *static_cast<T **>(slot) = reinterpret_cast<T *>(at);
    }
    struct Part {
        void *slot; /* a T *, as void * */
        size_t off;
        void (*set)(void *slot, char *at);
    };
    Part parts_[MAX_PARTS];
    int nparts_ = 0;
    size_t bytes_ = 0;
    bool too_many_ = false;
};

class Call
{
  public:
    Call() = default;
    Call(const Call &) = delete;
    Call &operator=(const Call &) = delete;
    ~Call()
    {
        if (st) /* a failed call may have left work queued on it */
            cudaStreamSynchronize(st);
        cudaFree(block_);
        for (int i = 0; i < nhost_; i++)
            cudaFreeHost(host_[i]);
        release_stream(st, e0, e1);
        cudaGetLastError(); /* a failed launch's error is not the next call's */
    }

    /* The device, a non-blocking stream, two timing events. */
    cudaError_t open(int dev)
    {
        cudaError_t e = cudaSetDevice(dev);
        if (e == cudaSuccess)
            e = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
        if (e == cudaSuccess)
            e = cudaEventCreate(&e0);
        if (e == cudaSuccess)
            e = cudaEventCreate(&e1);
        return e;
    }

    /* A part of n elements for p, set by carve(). */
    template <class T> void part(T *&p, size_t n) { layout_.part(p, n); }

    /* The one allocation, and every part's pointer into it. */
    cudaError_t carve()
    {
        if (!layout_.ok() || block_)
            return cudaErrorInvalidValue;
        if (layout_.bytes() > 0) {
            cudaError_t e = cudaMalloc(&block_, layout_.bytes());
            if (e != cudaSuccess)
                return e;
        }
        layout_.place(block_);
        return cudaSuccess;
    }

    /* Pinned host memory for n elements, freed with the call. */
    template <class T> cudaError_t host(T *&p, size_t n)
    {
        if (nhost_ == MAX_HOST)
            return cudaErrorInvalidValue;
        void *q = nullptr;
        cudaError_t e = cudaMallocHost(&q, n * sizeof(T));
        if (e == cudaSuccess)
            p = static_cast<T *>(host_[nhost_++] = q);
        return e;
    }

    /* Milliseconds between e0 and e1 (both recorded, the stream synchronised). */
    cudaError_t elapsed(float *ms) const { return cudaEventElapsedTime(ms, e0, e1); }

    cudaStream_t st = nullptr;
    cudaEvent_t e0 = nullptr, e1 = nullptr;

  private:
    static constexpr int MAX_HOST = 4;
    Layout layout_;
    void *block_ = nullptr;
    void *host_[MAX_HOST] = {};
    int nhost_ = 0;
};

} // namespace gk_gpu

#endif
