/* SPDX-License-Identifier: MIT */
/*
 * krige_global_libs.h - cuSOLVER and cuBLAS for global kriging
 * (krige_global.cu), rbf's global system (rbf.cu) and rst's segments
 * (rst_segments.cu), loaded with dlopen()
 * on the first such job (krige_global_libs.cu): the module links neither.
 */
#ifndef GK_GPU_KRIGE_GLOBAL_LIBS_H
#define GK_GPU_KRIGE_GLOBAL_LIBS_H

#include <cublas_v2.h>
#include <cusolverDn.h>

#include <cstddef>

#define KG_MAX_N 46340 /* n^2 within 32-bit integers: above, the 64-bit API */

namespace gk_gpu
{

struct Libs {
    bool ok = false;
    decltype(&cusolverDnCreate) dn_create;
    decltype(&cusolverDnDestroy) dn_destroy;
    decltype(&cusolverDnSetStream) dn_set_stream;
    decltype(&cusolverDnDpotrf_bufferSize) dn_potrf_bs;
    decltype(&cusolverDnDpotrf) dn_potrf;
    decltype(&cublasCreate_v2) bl_create;
    decltype(&cublasDestroy_v2) bl_destroy;
    decltype(&cublasSetStream_v2) bl_set_stream;
    decltype(&cublasDtrsm_v2) bl_trsm;
    /* LU with partial pivoting (rbf's global system, rbf.cu) */
    decltype(&cusolverDnDgetrf_bufferSize) dn_getrf_bs;
    decltype(&cusolverDnDgetrf) dn_getrf;
    decltype(&cusolverDnDgetrs) dn_getrs;
    /* the 64-bit API (cuSOLVER 11.1, cuBLAS 12 on), for more than KG_MAX_N
     * points: x64 when all of it was found */
    bool x64 = false;
    decltype(&cusolverDnCreateParams) dn_create_params;
    decltype(&cusolverDnDestroyParams) dn_destroy_params;
    decltype(&cusolverDnXpotrf_bufferSize) dn_xpotrf_bs;
    decltype(&cusolverDnXpotrf) dn_xpotrf;
    decltype(&cublasDtrsm_v2_64) bl_trsm64;
    /* batched LU and solves (rst's segments, rst_segments.cu): batched when
     * both were found */
    bool batched = false;
    decltype(&cublasDgetrfBatched) bl_getrf_batched;
    decltype(&cublasDgetrsBatched) bl_getrs_batched;
};
extern Libs libs; /* what load_libs found: read after it returned 0 */

/* Loads the libraries once per process: 0, or -1 and a reason. */
int load_libs(char *err, size_t err_cap);

} // namespace gk_gpu

#endif
