/* SPDX-License-Identifier: MIT */
/*
 * gridkit_ridges.h - ridge lines from point clouds: the curves that noisy
 * points are spread around, as polylines (docs/ridges.md).
 *
 *   gk_ridges_method *m = gk_ridges_parse(ctx, "curve:r1=8.34", 2);
 *   gk_lines *l = gk_ridges(ctx, pts, m, 2, progress, user);  // the lines
 *   ... l->n_lines lines, line i's vertices start[i] .. start[i+1]-1 ...
 *   gk_lines_free(l); gk_ridges_method_free(m);
 *
 * Two methods:
 *   curve    Rupniewski's curve reconstruction (choose, evolve, decimate,
 *            order): balls of radius r1 settle on the valley floor of the
 *            inverted sampling density; r2 joins them into lines.
 *   density  density ridges by subspace-constrained mean shift (Ozertem &
 *            Erdogmus): walkers climb the Gaussian kernel density across
 *            the ridge only, then are linked into lines.
 * The same input gives the same lines, vertex for vertex, whatever the
 * thread count; curve gives them on the GPU too, density within the
 * tolerance docs/ridges.md states.
 */
#ifndef GRIDKIT_RIDGES_H
#define GRIDKIT_RIDGES_H

#include "gridkit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gk_ridges_method gk_ridges_method;

/* Parses "curve:r1=R:r2=R2:..." or "density:bandwidth=H:..." for points of
 * dim (2 or 3) dimensions. NULL and a message naming the key on error. */
gk_ridges_method *gk_ridges_parse(gk_context *ctx, const char *spec, int dim);
void gk_ridges_method_free(gk_ridges_method *m);
/* "curve" or "density". */
const char *gk_ridges_method_name(const gk_ridges_method *m);
/* The canonical "name:key=value:..." with every parameter, as the lines'
 * `method` attribute; after gk_ridges() it holds the values the run used
 * (an r1 or bandwidth estimated from the data). */
const char *gk_ridges_method_string(const gk_ridges_method *m);
/* Usage of -a for `gridkit ridges --help`: the methods and their keys. */
const char *gk_ridges_methods_help(void);

/* Lines, with one attribute of each kind per line. */
typedef struct {
    int dim; /* 2 or 3: z is NULL in 2-D */
    size_t n_lines;
    size_t *start;        /* n_lines + 1: line i is vertices start[i] .. start[i+1]-1 */
    double *x, *y, *z;    /* start[n_lines] vertices; a closed line repeats its first */
    double *length;       /* along the line, in dim dimensions */
    uint64_t *n_support;  /* samples whose nearest line this is, within the support distance */
    int *closed;          /* 1: a ring (first vertex == last) */
    double *mean_density; /* mean kernel density at the vertices (density); NaN for curve */
    double *width;        /* mean distance of the supporting samples to the line */
    char *warning;        /* an iteration cap that was hit, or NULL */
} gk_lines;

/* The ridge lines of pts (x, y, and z as the third coordinate when dim is
 * 3) by method m, which takes the values it estimates (see
 * gk_ridges_method_string). Lines are sorted by a spatial key of their
 * first vertex. Runs on the context's device and threads. NULL and a
 * message on error (fewer than 3 points, all points identical, ...). */
gk_lines *gk_ridges(gk_context *ctx, const gk_points *pts, gk_ridges_method *m, int dim,
                    gk_progress_fn progress, void *progress_user);
void gk_lines_free(gk_lines *lines);

/* Density's walkers shared by processes (MPI ranks) that run the same
 * gk_ridges() on the same points and method, each with its own context:
 * part `part` of `parts` walks its slice of the walkers on the CPU, then
 * calls exchange() once, with its outcome rc, every array (n_arrays of
 * them, items of item_bytes[k] bytes) and the slices' bounds (offsets,
 * parts + 1 of them). exchange() returns the parts' agreed outcome (ctx
 * then holding the failing part's message) and, on success, fills part 0's
 * arrays with the other parts' slices. Part 0 goes on to the lines; the
 * other parts return no lines (not an error). The walkers are then the
 * CPU's whatever the device: set it only where part 0 alone would walk on
 * the CPU. parts <= 1 or fn NULL: nothing is shared. */
typedef int (*gk_ridges_exchange_fn)(void *user, gk_context *ctx, int rc, void *const arrays[],
                                     const size_t item_bytes[], int n_arrays,
                                     const size_t *offsets);
void gk_ridges_set_sharing(gk_context *ctx, int part, int parts, gk_ridges_exchange_fn fn,
                           void *user);

#ifdef __cplusplus
}
#endif
#endif
