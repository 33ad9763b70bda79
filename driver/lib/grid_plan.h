/* SPDX-License-Identifier: MIT */
/*
 * grid_plan.h - everything `gridkit grid` decides before computing a node:
 * the algorithm, the points, the grid geometry, the SRS, the bands, their
 * descriptions, the metadata and the jobs. Shared by gk_grid_run() (the CLI)
 * and the GDAL plugin (driver/plugin/gdal_plugin.cpp), so both produce the same
 * raster from the same arguments.
 */
#ifndef GK_GRID_PLAN_H
#define GK_GRID_PLAN_H

#ifdef __cplusplus
extern "C" {
#endif

#include "lib/grid_options.h"

struct gk_drift_rasters;

typedef struct {
    gk_algorithm *alg;
    int planes;          /* values per node: 2 for kriging with its variance, else 1 */
    gk_source_points sp; /* one layer per input layer */
    gk_grid g;           /* the output grid */
    int bands;           /* sp.n_layers * planes; band b = layer b / planes */
    char *a_srs_wkt;     /* -a_srs as WKT (owned); NULL: the source's */
    char **desc;         /* band descriptions, `bands` entries */
    char **md;           /* dataset metadata (GRIDKIT_ALGORITHM, ...) */
    int set_nodata;      /* nodata= given: set the band nodata flag */
    double nodata;
    /* the output as asked for (borrowed from the options, which outlive the plan) */
    const char *dst, *format, *type; /* type NULL: Float64 */
    char **creation_options;
    struct gk_drift_rasters *drift; /* kriging with external drift, else NULL */
    double read_s;                  /* seconds reading the points (--timings) */
    double gpu_wait_s;              /* seconds then waiting for the GPU's start-up */
    struct gk_gpu_warm *starting;   /* a late start's GPU warm-up, still running (joined
                                   * by gk_grid_plan_free) */
} gk_grid_plan;

/* Wall-clock seconds, for --timings. */
double gk_seconds(void);

/* Applies --threads/--device to ctx, parses the algorithm (reading
 * variogram=FILE.json), reads the points (while another thread starts the
 * GPU, unless the device is cpu), resolves the geometry, SRS, bands,
 * descriptions and metadata. On error: a message in ctx, *p freed. */
int gk_grid_plan_init(gk_context *ctx, const gk_grid_options *o, gk_grid_plan *p);
/* The same, for the ranks of world together (NULL: this process alone):
 * they read the points as gk_world_read_points() does, and a rank that fails
 * before reading tells the others. late: under auto, where the GPU is still
 * starting once the points are read, the plan does not wait for it: the jobs
 * begin on the CPU cores and the GPU joins them (gk_context_set_gpu_late). */
int gk_grid_plan_init_ex(gk_context *ctx, const gk_grid_options *o, const gk_world *world, int late,
                         gk_grid_plan *p);
/* The output SRS as WKT (-a_srs, else the source layer's), NULL if none. */
const char *gk_grid_plan_srs(const gk_grid_plan *p);
/* The job of input layer `layer` (index, kriging drift); NULL and a message
 * on error. The plan must outlive the job. */
gk_job *gk_grid_plan_job(gk_context *ctx, const gk_grid_plan *p, int layer);
void gk_grid_plan_free(gk_grid_plan *p);

#ifdef __cplusplus
}
#endif
#endif
