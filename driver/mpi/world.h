/* SPDX-License-Identifier: MIT */
/*
 * world.h - gridkit's processes under MPI (docs/scale-out.md).
 *
 * Started by an MPI launcher (mpirun, srun), gridkit loads its MPI module
 * (mpi_abi.h) and every process becomes a rank of one world; otherwise
 * none of this does anything and the same binary runs as one process. The
 * world is the process's, as MPI's is: set up in main() before any thread.
 * Only the thread that started it may call it (MPI_THREAD_FUNNELED).
 */
#ifndef GK_WORLD_H
#define GK_WORLD_H

#include "gridkit.h"

#include <stddef.h>

typedef struct gk_world gk_world;

/* First thing in main(). Under an MPI launcher: loads the module, starts
 * MPI, gives each rank of a host its own GPU (CUDA_VISIBLE_DEVICES = the
 * local rank modulo the host's GPUs, unless already set) and turns the
 * CPU's share of a GPU run off (GRIDKIT_CPU_SHARE=0, unless set). Returns
 * non-zero with a message on stderr where the launcher asked for several
 * ranks but MPI cannot start here (each would write the same output).
 * gpu_spec (may be NULL): the command's --device; where it asks for CUDA,
 * the rank's GPU starts on a thread of its own while MPI starts. */
int gk_world_start(const char *gpu_spec);
/* Ends MPI (MPI_Finalize) where it was started; rc is the exit code. */
int gk_world_finish(int rc);

/* The world where this process is one of two or more ranks, else NULL. */
const gk_world *gk_world_get(void);
int gk_world_rank(const gk_world *w);
int gk_world_size(const gk_world *w);
/* Ranks on this rank's host (1 without a world). */
int gk_world_local_size(const gk_world *w);
const char *gk_world_host(const gk_world *w);

/* Messages between ranks (blocking). recv_any allocates the buffer. */
int gk_world_send(const gk_world *w, int dest, int tag, const void *buf, size_t n);
int gk_world_recv(const gk_world *w, int src, int tag, void *buf, size_t n);
int gk_world_recv_any(const gk_world *w, int src, int tag, int *got_src, int *got_tag, void **buf,
                      size_t *n);
#define GK_WORLD_ANY (-1) /* any source, any tag */
/* A message waiting from src with tag (GK_WORLD_ANY: any)? 1, 0, or -1 on failure. */
int gk_world_waiting(const gk_world *w, int src, int tag);
int gk_world_bcast(const gk_world *w, void *buf, size_t n, int root);
/* Stops every rank of the job at once (a transport that failed). */
void gk_world_abort(const gk_world *w, int code);

/* Every rank's outcome (rc, and ctx's message where rc is non-zero) to
 * every rank: all return the code of the lowest-numbered failing rank, and
 * on every rank ctx then holds that rank's message, prefixed with where it
 * came from ("rank 2 of 4 (node7): ..."). All ranks must call it at the
 * same point. With w NULL it returns rc. */
int gk_world_agree(const gk_world *w, gk_context *ctx, int rc);
/* Whether an agreement has ended in a failure, known to every rank that
 * took part: they stop without agreeing again, while a rank that failed
 * before the point where the others agreed still has its one agreement to
 * make (which is the one they took part in). */
int gk_world_failure_agreed(void);

/* Message tags: each exchange has its own. */
enum {
    GK_TAG_AGREE = 1,
    GK_TAG_ASK,   /* worker -> rank 0: ready for a strip */
    GK_TAG_STRIP, /* rank 0 -> worker: a strip's number, or -1 */
    GK_TAG_DATA,  /* worker -> rank 0: a strip's values, or its failure */
    GK_TAG_DONE,  /* worker -> rank 0: counts of its run */
    GK_TAG_PART,  /* partial sums of a reduction */
};

#endif
