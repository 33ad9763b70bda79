/* SPDX-License-Identifier: MIT */
/*
 * world_ridges.c - density's walkers gathered on rank 0 (world_ridges.h).
 */
#include "mpi/world_ridges.h"

#include <stdint.h>

/* MPI counts are ints: a slice goes in pieces of at most 1 GiB */
#define PIECE ((size_t)1 << 30)

int gk_world_ridges_exchange(void *user, gk_context *ctx, int rc, void *const arrays[],
                             const size_t item_bytes[], int n_arrays, const size_t *offsets)
{
    const gk_world *w = user;
    if ((rc = gk_world_agree(w, ctx, rc)))
        return rc;
    const int rank = gk_world_rank(w), ranks = gk_world_size(w);
    for (int k = 0; k < n_arrays; k++)
        for (int r = 1; r < ranks; r++) {
            if (rank != 0 && rank != r)
                continue;
            unsigned char *p = (unsigned char *)arrays[k] + offsets[r] * item_bytes[k];
            size_t left = (offsets[r + 1] - offsets[r]) * item_bytes[k];
            while (left > 0) {
                size_t n = left < PIECE ? left : PIECE;
                int failed = rank == 0 ? gk_world_recv(w, r, GK_TAG_PART, p, n)
                                       : gk_world_send(w, 0, GK_TAG_PART, p, n);
                if (failed)
                    gk_world_abort(w, 1); /* the transport itself: no orderly stop */
                p += n;
                left -= n;
            }
        }
    return GK_OK;
}
