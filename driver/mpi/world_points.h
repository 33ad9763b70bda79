/*
 * world_points.h - the points of a job under MPI: read by every rank where
 * all ranks run on one host, else read by rank 0 and broadcast;
 * GRIDKIT_MPI_READ=each or bcast chooses. docs/scale-out.md, 'Reading the
 * points', has the measurements.
 */
#ifndef GK_WORLD_POINTS_H
#define GK_WORLD_POINTS_H

#include "lib/grid_options.h"
#include "mpi/world.h"

/* The points o selects, on every rank of w (w NULL: read them). Every rank
 * calls it at the same point; a rank 0 that cannot read makes every rank
 * return its error (gk_world_agree). On error *sp is empty. */
int gk_world_read_points(const gk_world *w, gk_context *ctx, const gk_grid_options *o,
                         int needs_z, gk_source_points *sp);

#endif
