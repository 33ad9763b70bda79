/* SPDX-License-Identifier: MIT */
/*
 * ridges_options.h - the parsed form of `gridkit ridges`'s arguments, and
 * the computation without the file (internal to driver/: the CLI writes
 * the lines, the plugin puts them in memory).
 */
#ifndef GK_RIDGES_OPTIONS_H
#define GK_RIDGES_OPTIONS_H

#ifdef __cplusplus
extern "C" {
#endif

#include "gridkit_ridges.h"
#include "lib/grid_options.h"

struct gk_ridges_options {
    gk_grid_options *src; /* the source options, SRC and DST, as gridkit grid's */
    char *method;         /* -a METHOD:key=value... */
    char *format;         /* -of: an OGR vector driver; NULL: from DST's extension */
    char **layer_options; /* -lco NAME=VALUE */
    char *layer_name;     /* -nln; NULL: "ridges" */
    int three_d;          /* --3d */
    gk_progress_fn progress;
    void *progress_user;
};

/* The lines of a run and what describes them. */
typedef struct {
    gk_lines *lines;
    gk_ridges_method *method; /* its string: the values the run used */
    char *srs_wkt;            /* -a_srs, else the source layer's; NULL if none (owned) */
    char *layer;              /* the source layer's name (owned) */
    size_t n_points;          /* points read */
    size_t n_skipped;         /* points skipped (null Z, NaN) */
    char device[256];         /* where it ran, for the messages */
    int ranks;                /* under MPI: the ranks that walked density's walkers (1: rank 0
                               * alone); a rank other than 0 has no lines */
} gk_ridges_result;

/* Reads the points and computes the lines (no output file is touched). */
int gk_ridges_compute(gk_context *ctx, const gk_ridges_options *o, gk_ridges_result *r);
void gk_ridges_result_free(gk_ridges_result *r);

/* The layer name the options give: -nln, else "ridges". */
const char *gk_ridges_options_layer_name(const gk_ridges_options *o);

#ifdef __cplusplus
}
#endif
#endif
