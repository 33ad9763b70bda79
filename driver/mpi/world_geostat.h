/* SPDX-License-Identifier: MIT */
/*
 * world_geostat.h - gridkit variogram and gridkit cv shared among MPI ranks
 * (docs/scale-out.md): every rank calls them with the same points; rank 0
 * gets the result of the single-process call, to the bit; the other ranks
 * get nothing (an empty result) and write nothing.
 */
#ifndef GK_WORLD_GEOSTAT_H
#define GK_WORLD_GEOSTAT_H

#include "gridkit_geostat.h"
#include "mpi/world.h"

/* gk_variogram: the pair blocks summed by the ranks in turn, merged on
 * rank 0 in block order (on the GPU, where rank 0's context takes it, rank 0
 * alone). With w NULL, gk_variogram itself. progress (may be NULL): as
 * gk_variogram_blocks_ex's, on rank 0 only, over its share. */
int gk_world_variogram(gk_context *ctx, const gk_world *w, const gk_points *pts,
                       const gk_vgm_options *opt, gk_progress_fn progress, void *progress_user,
                       gk_vgm *out);

/* gk_crossval: the folds shared by the ranks in turn, each point's
 * prediction gathered on rank 0 and summarised there. With w NULL,
 * gk_crossval itself. drift: drift_raster='s covariates, or NULL
 * (gk_crossval_part_drift). progress (may be NULL): as
 * gk_crossval_part_ex's, on rank 0 only, over its share. */
int gk_world_crossval(gk_context *ctx, const gk_world *w, const gk_points *pts,
                      const gk_algorithm *alg, int nfold, unsigned seed, const gk_cv_drift *drift,
                      gk_progress_fn progress, void *progress_user, gk_cv_result *res);

#endif
