/* SPDX-License-Identifier: MIT */
/*
 * world_ridges.h - gridkit ridges shared among MPI ranks (docs/scale-out.md):
 * density's walkers, a slice a rank, gathered on rank 0, which links them
 * into the lines one process would find and writes them.
 */
#ifndef GK_WORLD_RIDGES_H
#define GK_WORLD_RIDGES_H

#include "gridkit_ridges.h"
#include "mpi/world.h"

/* gk_ridges_exchange_fn over w (passed as user): the ranks' outcomes agreed
 * (gk_world_agree), then every rank's slices sent to rank 0. */
int gk_world_ridges_exchange(void *user, gk_context *ctx, int rc, void *const arrays[],
                             const size_t item_bytes[], int n_arrays, const size_t *offsets);

#endif
