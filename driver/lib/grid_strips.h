/* SPDX-License-Identifier: MIT */
/*
 * grid_strips.h - gk_grid_run()'s work in strips of rows, shared out among
 * MPI ranks (docs/scale-out.md), and the --parts output.
 *
 * The grid is cut into strips of whole rows, a multiple of the output's
 * block height. Rank 0 hands them out one at a time to whichever rank asks
 * (cheap and dear strips differ a lot), and computes strips itself on a
 * thread of its own meanwhile. Each strip holds every band: the planes of
 * every layer's job. A node's value does not depend on which rank computed
 * it, nor on the strip's shape (the engine's promise), so the raster is the
 * one a single process writes; the writer puts block rows in the file in
 * order whatever order strips arrive in, so the bytes are too.
 *
 * Output, one of:
 * - the raster writer on rank 0: strips' values travel to rank 0, which
 *   writes them as they come; rank 0 hands out no strip more than a few
 *   ahead of the lowest unfinished one, so its memory stays bounded;
 * - parts: the rank that computed a strip writes it as a tiled GeoTIFF of
 *   its own, "<dir>/<stem>.part-NNNNNN.tif"; rank 0 then writes the VRT
 *   mosaic (GDALBuildVRT, as gdalbuildvrt) last, so a mosaic is there only
 *   when every part is.
 */
#ifndef GK_GRID_STRIPS_H
#define GK_GRID_STRIPS_H

#include "io/write_raster.h"
#include "lib/grid_plan.h"
#include "mpi/world.h"

typedef struct {
    gk_context *ctx;
    const gk_world *world; /* NULL: this process alone */
    const gk_grid *g;
    gk_job **jobs;       /* one per layer, on every rank */
    int n_jobs, planes;  /* bands = n_jobs * planes */
    int tile_w, tile_h;  /* the output's tiles (whole blocks) */
    int wire_type;       /* GDALDataType of the values sent to rank 0
                                  * (gk_raster_writer_wire_type); 0: Float64 */
    gk_raster_writer *w; /* rank 0, writer output; NULL for parts */
    /* parts output (every rank): where, and the spec of a part (nx, ny,
     * geotransform and dst are set per part); band_metadata[b] is band b's
     * GRIDKIT_PREPARED or NULL */
    const char *parts_dir, *parts_stem;
    const gk_raster_spec *part_spec;
    const char *const *band_prepared;
    gk_progress_fn progress; /* rank 0 */
    void *progress_user;
    /* out, on rank 0: each job's nodes whose kriging system was singular, then
     * each job's nodes computed in a simpler form (gk_run_stats) */
    uint64_t *singular; /* 2 * n_jobs entries */
    /* out, every rank: strips this rank computed, and its seconds computing
     * them (--timings) */
    int strips_done;
    double compute_s;
} gk_strips;

/* Rows per strip for grid g, b bands, output tiles tile_h high: whole
 * tiles, at most about 32 MiB of doubles, and at least GK_STRIPS_MIN
 * strips where the grid has rows enough; where one tile's height of rows
 * passes 32 MiB, as many rows as fit (at least one). Not the number of
 * ranks: the parts of --parts are the same files whatever it is. */
#define GK_STRIPS_MIN 64
int gk_strips_height(const gk_grid *g, int bands, int tile_h);

/* The name of part k of parts_dir/stem: "DIR/STEM-000123.tif" (malloc'd;
 * stem "<name>.part-a", grid_parts.h). */
char *gk_strips_part_name(const char *dir, const char *stem, int k);

/* Runs the strips on every rank. Returns this rank's own outcome: the
 * callers then agree on one (gk_world_agree). */
int gk_strips_run(gk_strips *s);

/* ---- the run (grid_run_strips.c), and what it shares with grid_run.c ---- */

/* gk_grid_run() in strips: under MPI (world), or for --parts. */
int gk_grid_run_strips(gk_context *ctx, const gk_grid_options *o, const gk_world *world);

/* The output raster's spec from the plan; inputs: what it may not be
 * (gk_grid_inputs), kept by the caller while the spec is used. */
void gk_grid_raster_spec(const gk_grid_plan *plan, gk_raster_spec *spec, const gk_inputs *inputs);
/* gdal_grid's lines about band b (without -q). */
void gk_grid_print_band(const gk_grid_plan *plan, int b);

/* The band metadata item that counts a band's nodes computed in a simpler
 * form than the algorithm asks (gk_run_stats.lowered_nodes; polynomial: a
 * lower degree). Set on band (1-based) of w; and the note that says so. */
#define GK_LOWERED_KEY "GRIDKIT_LOWERED_NODES"
int gk_grid_note_lowered(gk_raster_writer *w, int band, uint64_t n);
void gk_grid_say_lowered(const gk_algorithm *alg, uint64_t n, uint64_t nodes, int band);

#endif
