/* SPDX-License-Identifier: MIT */
/* grid_options.h - the parsed form of gdal_grid's arguments (internal to driver/). */
#ifndef GK_GRID_OPTIONS_H
#define GK_GRID_OPTIONS_H

#include "lib/gridkit_lib.h"
#include "io/read_points.h"
#include "io/input_files.h"
#include "gridkit_geostat.h"
#include "mpi/world.h"

struct gk_grid_options {
    char *src, *dst;
    char **layers; /* -l */
    char *where, *sql;
    int have_spat;
    double spat[4];
    char *clipsrc, *clipsrcsql, *clipsrclayer, *clipsrcwhere;
    char *zfield;
    double z_increase, z_multiply;
    char **open_options; /* -oo */
    char *a_srs;
    char *type, *format; /* -ot, -of */
    char **creation_options;
    int have_txe, have_tye;
    double txe[2], tye[2];
    int have_outsize, nx, ny;
    int have_tr;
    double tr[2];
    char *algorithm;   /* -a */
    gk_algorithm *alg; /* -a parsed, once (gk_grid_options_new, _set_algorithm): every
                        * later step clones or reads it */
    int quiet;
    int threads; /* --threads; 0 = all cores */
    gk_precision precision;
    char *device; /* --device auto|cpu|cuda|cuda:N; NULL = GRIDKIT_DEVICE, else auto */
    int timings;  /* --timings: seconds per phase on stderr */
    char *parts;  /* --parts DIR: strips as GeoTIFFs there, dst their VRT */
    gk_progress_fn progress;
    void *progress_user;
};

/* Reads the points the source options select, the one way every command
 * does (grid's plan, variogram, cv, ridges), on every rank of w
 * (mpi/world_points.h: read by each, or by rank 0 and broadcast; w NULL: one
 * process). needs_z: GK_Z_NEEDED, GK_Z_IGNORED or GK_Z_NOT_READ
 * (io/read_points.h). */
int gk_world_read_points(const gk_world *w, gk_context *ctx, const gk_grid_options *o, int needs_z,
                         gk_source_points *sp);
/* gk_peek_points() for the options' source: 0 and the feature count and
 * bounding box where the source keeps them, -1 otherwise. */
int gk_grid_options_peek_points(const gk_grid_options *o, double *n_points, double bbox[4]);

/* How many values follow argv[i] (a) when it is one of gdal_grid's or
 * gridkit grid's options that take values (-l, -spat, -clipsrc ...), else 0:
 * the commands over the source options (variogram, cv, ridges) take their
 * own flags out of argv and hand the rest to gk_grid_options_new(). */
int gk_grid_option_values(const char *a, char **argv, int i, int argc);

/* The most threads gridkit runs (64 per CPU, at most 4096). */
int gk_thread_limit(void);
/* Sets ctx's thread count: --threads, else GDAL_NUM_THREADS (as gdal_grid),
 * else every core; an error stating the limit when GDAL_NUM_THREADS is above
 * it. */
int gk_grid_options_apply_threads(gk_context *ctx, const gk_grid_options *o);
/* -a replaced (the plugin resolves its relative paths): spec (CPLMalloc()ed,
 * taken) parsed into o->alg; GK_OK, or an error in ctx (o unchanged). */
int gk_grid_options_set_algorithm(gk_context *ctx, gk_grid_options *o, char *spec);

/* The inputs o names (the source with its -oo, -clipsrc) and kp's (its
 * variogram file and drift rasters; kp may be NULL): what no output of the
 * command may be (grid_inputs.c). NULL and an error when out of memory. */
gk_inputs *gk_grid_inputs(gk_context *ctx, const gk_grid_options *o, const gk_kriging_params *kp);

#endif
