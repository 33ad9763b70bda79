/* SPDX-License-Identifier: MIT */
/*
 * mpi_abi.h - the contract between gridkit and its MPI module
 * (gridkit_mpi.so, driver/mpi/module/), loaded with dlopen() only when the
 * process was started by an MPI launcher (mpirun, srun), so that nothing
 * needs MPI to start, as nothing needs CUDA.
 *
 * The module is a thin transport over MPI_COMM_WORLD: bytes to and from
 * ranks, a broadcast, an abort. What gridkit does with them (strips of a
 * grid, reductions in a fixed order) lives in world.c and the library
 * (driver/lib/grid_strips.c). Only the thread that called init() calls the
 * module (MPI_THREAD_FUNNELED).
 */
#ifndef GK_MPI_ABI_H
#define GK_MPI_ABI_H

#include <stddef.h>

/* One number: the entry symbol carries it (a module of another version is
 * not found), and the table repeats it. */
#define GK_MPI_ABI_VERSION 1
#define GK_MPI_MODULE_NAME "gridkit_mpi.so"
#define GK_MPI_CAT_(a, b) a##b
#define GK_MPI_CAT(a, b) GK_MPI_CAT_(a, b)
#define GK_MPI_STR_(x) #x
#define GK_MPI_STR(x) GK_MPI_STR_(x)
/* gk_mpi_module_v<version>: the function the module defines, its name for dlsym */
#define GK_MPI_ENTRY_FN GK_MPI_CAT(gk_mpi_module_v, GK_MPI_ABI_VERSION)
#define GK_MPI_ENTRY GK_MPI_STR(GK_MPI_ENTRY_FN)

#define GK_MPI_ANY (-1) /* any source, any tag */

typedef struct {
    int abi_version;
    /* MPI_Init_thread; the rank and size in the world, and on this host.
     * Non-zero and a message in why on failure. */
    int (*init)(int *rank, int *size, int *local_rank, int *local_size, char *host, size_t host_cap,
                char *why, size_t why_cap);
    /* Blocking send of n bytes (n <= INT_MAX). */
    int (*send)(int dest, int tag, const void *buf, size_t n);
    /* Blocking probe: the next message's source, tag and size. */
    int (*probe)(int src, int tag, int *got_src, int *got_tag, size_t *got_n);
    /* Non-blocking probe: *flag 1 and the message's source, tag and size
     * when one is waiting, else *flag 0. */
    int (*iprobe)(int src, int tag, int *flag, int *got_src, int *got_tag, size_t *got_n);
    /* Blocking receive of the message from src with tag into buf (cap bytes). */
    int (*recv)(int src, int tag, void *buf, size_t cap, size_t *got_n);
    int (*bcast)(void *buf, size_t n, int root);
    /* Ends every rank of the job (MPI_Abort): a rank that cannot go on. */
    void (*abort)(int code);
    int (*finalize)(void);
} gk_mpi_api;

typedef const gk_mpi_api *(*gk_mpi_entry_fn)(void);

#endif
