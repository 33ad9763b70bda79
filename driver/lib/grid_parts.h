/* SPDX-License-Identifier: MIT */
/*
 * grid_parts.h - the output of --parts DIR as atomic as one file.
 *
 * A run's parts are GeoTIFFs "DIR/<stem>.part-<slot>-000123.tif", and the
 * mosaic (a VRT, the destination) is the only file that says which parts
 * are the raster. Each run writes the slot (a or b) that the mosaic now in
 * place does not use, so the old mosaic and its parts stay whole until the
 * new mosaic is renamed over it in one step; only then are the old parts
 * removed. A run holds "DIR/<stem>.gridkit-lock" from start to end: a second
 * run for the same output is refused while the first lives (its lock is
 * removed by a cancel, and taken over when its process is gone). A run
 * that fails removes its parts, and the directory where it made it. A
 * fresh directory always gets slot a: the same command gives the same
 * files, whatever the number of ranks.
 */
#ifndef GK_GRID_PARTS_H
#define GK_GRID_PARTS_H

#include "io/input_files.h"
#include "lib/grid_plan.h"

#include <stdint.h>

typedef struct {
    char *dir;    /* --parts DIR */
    char *dst;    /* the mosaic (rank 0: checked, a link's target) */
    char *stem;   /* "<dst stem>.part-<slot>": this run's parts' names */
    char slot;    /* 'a' or 'b' */
    char *lock;   /* the lock held (rank 0) */
    int made_dir; /* this run made dir */
    char **old;   /* the parts of the mosaic now at dst (rank 0) */
} gk_parts;

/* Rank 0 (or the one process): dst checked (no input, not dir, a .vrt),
 * dir made, the lock taken, the slot chosen, its leftovers removed. */
int gk_parts_claim(gk_context *ctx, gk_parts *p, const char *dir, const char *dst,
                   const gk_inputs *inputs);
/* Every other rank, with rank 0's slot: dir made where it is missing (a
 * node's own disk) and the slot's leftovers there removed. */
int gk_parts_join(gk_context *ctx, gk_parts *p, const char *dir, const char *dst, char slot);

/* The name of part k (malloc'd). */
char *gk_parts_name(const gk_parts *p, int k);

/* Rank 0: the mosaic of the nstrips parts written under a temporary name
 * (any GDAL error is a failure) and renamed over dst; then the old parts
 * removed and the lock released. */
int gk_parts_commit(gk_context *ctx, gk_parts *p, const gk_grid_plan *plan, int nstrips,
                    const char *const *prepared, const uint64_t *singular);
/* After a failure: this run's parts removed (rank 0), the lock released,
 * dir removed where this run made it and it is empty. */
void gk_parts_abort(gk_parts *p, int nstrips);
/* Frees p's strings (the lock released if still held). */
void gk_parts_free(gk_parts *p);

#endif
