/* SPDX-License-Identifier: MIT */
/*
 * world_points.h - the points of a job under MPI: read by every rank where
 * all ranks run on one host, else read by rank 0 and broadcast;
 * GRIDKIT_MPI_READ=each or bcast chooses. docs/scale-out.md, 'Reading the
 * points', has the measurements.
 */
#ifndef GK_WORLD_POINTS_H
#define GK_WORLD_POINTS_H

#include "io/read_points.h"
#include "mpi/world.h"

/* One rank's reading of the points: GK_OK, or an error in ctx. */
typedef int (*gk_points_reader)(gk_context *ctx, void *user, gk_source_points *sp);

/* The points read(ctx, user) gives, on every rank of w (w NULL: read them).
 * Every rank calls it at the same point; a rank 0 that cannot read makes
 * every rank return its error (gk_world_agree). On error *sp is empty.
 * lib/grid_options.h's gk_world_read_points reads a source's options so. */
int gk_world_share_points(const gk_world *w, gk_context *ctx, gk_points_reader read, void *user,
                          gk_source_points *sp);

#endif
