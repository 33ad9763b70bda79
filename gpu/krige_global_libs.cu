/* SPDX-License-Identifier: MIT */
/*
 * krige_global_libs.cu - cuSOLVER and cuBLAS, dlopen()ed when the first
 * global kriging job is made (krige_global.cu): the CUDA runtime linked into
 * the module and the libraries' own share the device's primary context,
 * streams and pointers.
 */
#include "krige_global_libs.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace gk_gpu
{

Libs libs;
static std::mutex libs_mu;

/* The first of names that dlopen() finds: its handle and name, or NULL and
 * the last reason. GRIDKIT_GPU_<env> (a path or soname) replaces the list. */
static void *open_first(const char *env, const char *const *names, const char **got, char *why,
                        size_t why_cap)
{
    const char *over = getenv(env);
    const char *one[] = {over, nullptr};
    if (over && *over)
        names = one;
    for (int i = 0; names[i]; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h) {
            *got = names[i];
            return h;
        }
        const char *e = dlerror();
        snprintf(why, why_cap, "%s", e ? e : names[i]);
    }
    return nullptr;
}

template <class F>
static bool sym(void *h, const char *name, F &fn, const char *lib, char *why, size_t why_cap)
{
    *(void **)&fn = dlsym(h, name);
    if (!fn)
        snprintf(why, why_cap, "%s has no %s", lib, name);
    return fn != nullptr;
}

/* Loads cuSOLVER and cuBLAS once per process (a failure is tried again next
 * time, so that the reason stays current). 0, or -1 and the reason. */
int load_libs(char *err, size_t err_cap)
{
    std::lock_guard<std::mutex> lock(libs_mu);
    if (libs.ok)
        return 0;
    /* CUDA 13 ships libcusolver.so.12 and libcublas.so.13; older majors
     * have the same functions (the library's own toolkit directory last,
     * for installs that are not in the loader's path) */
    static const char *const solver_names[] = {"libcusolver.so.12",
                                               "libcusolver.so.11",
                                               "libcusolver.so",
                                               "/usr/local/cuda/lib64/libcusolver.so.12",
                                               "/usr/local/cuda/lib64/libcusolver.so.11",
                                               nullptr};
    static const char *const blas_names[] = {"libcublas.so.13",
                                             "libcublas.so.12",
                                             "libcublas.so.11",
                                             "libcublas.so",
                                             "/usr/local/cuda/lib64/libcublas.so.13",
                                             "/usr/local/cuda/lib64/libcublas.so.12",
                                             nullptr};
    char why[300] = "";
    const char *sname = "", *bname = "";
    void *hs = open_first("GRIDKIT_GPU_CUSOLVER", solver_names, &sname, why, sizeof why);
    if (!hs) {
        snprintf(err, err_cap,
                 "global systems on the GPU need cuSOLVER (libcusolver.so.12 or .11, from the "
                 "CUDA toolkit): not found (%s)",
                 why);
        return -1;
    }
    void *hb = open_first("GRIDKIT_GPU_CUBLAS", blas_names, &bname, why, sizeof why);
    if (!hb) {
        snprintf(err, err_cap,
                 "global systems on the GPU need cuBLAS (libcublas.so.13, .12 or .11, from the "
                 "CUDA toolkit): not found (%s)",
                 why);
        dlclose(hs);
        return -1;
    }
    Libs L;
    bool ok = sym(hs, "cusolverDnCreate", L.dn_create, sname, why, sizeof why) &&
              sym(hs, "cusolverDnDestroy", L.dn_destroy, sname, why, sizeof why) &&
              sym(hs, "cusolverDnSetStream", L.dn_set_stream, sname, why, sizeof why) &&
              sym(hs, "cusolverDnDpotrf_bufferSize", L.dn_potrf_bs, sname, why, sizeof why) &&
              sym(hs, "cusolverDnDpotrf", L.dn_potrf, sname, why, sizeof why) &&
              sym(hb, "cublasCreate_v2", L.bl_create, bname, why, sizeof why) &&
              sym(hb, "cublasDestroy_v2", L.bl_destroy, bname, why, sizeof why) &&
              sym(hb, "cublasSetStream_v2", L.bl_set_stream, bname, why, sizeof why) &&
              sym(hb, "cublasDtrsm_v2", L.bl_trsm, bname, why, sizeof why) &&
              sym(hs, "cusolverDnDgetrf_bufferSize", L.dn_getrf_bs, sname, why, sizeof why) &&
              sym(hs, "cusolverDnDgetrf", L.dn_getrf, sname, why, sizeof why) &&
              sym(hs, "cusolverDnDgetrs", L.dn_getrs, sname, why, sizeof why);
    if (!ok) {
        snprintf(err, err_cap, "global systems on the GPU: %s", why);
        dlclose(hb);
        dlclose(hs);
        return -1;
    }
    char why64[300];
    L.x64 = sym(hs, "cusolverDnCreateParams", L.dn_create_params, sname, why64, sizeof why64) &&
            sym(hs, "cusolverDnDestroyParams", L.dn_destroy_params, sname, why64, sizeof why64) &&
            sym(hs, "cusolverDnXpotrf_bufferSize", L.dn_xpotrf_bs, sname, why64, sizeof why64) &&
            sym(hs, "cusolverDnXpotrf", L.dn_xpotrf, sname, why64, sizeof why64) &&
            sym(hb, "cublasDtrsm_v2_64", L.bl_trsm64, bname, why64, sizeof why64);
    L.batched = sym(hb, "cublasDgetrfBatched", L.bl_getrf_batched, bname, why64, sizeof why64) &&
                sym(hb, "cublasDgetrsBatched", L.bl_getrs_batched, bname, why64, sizeof why64);
    L.ok = true;
    libs = L; /* the libraries stay loaded for the life of the process */
    return 0;
}

} // namespace gk_gpu
