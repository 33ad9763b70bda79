/* SPDX-License-Identifier: MIT */
/*
 * bucket_grid.h - uniform bucket grid over the points, the fast path of the
 * window statistics (average, count, minimum, maximum, range,
 * average_distance, average_distance_pts) when no per-quadrant key or
 * max_points asks for an ordered selection.
 *
 * The points are sorted by bucket, row-major, into structure-of-arrays
 * copies, so that the buckets of one bucket row that overlap the search
 * ellipse form one contiguous span; a node scans a handful of spans with a
 * vector loop that applies gk_ellipse_contains' exact test (same expression,
 * so boundary points decide the same way) and accumulates masked sums.
 */
#ifndef GK_BUCKET_GRID_H
#define GK_BUCKET_GRID_H

#include "core/gk_internal.h"

#include <stddef.h>

#define GK_BG_MAXROWS 64 /* rows with their own x extents (the size rule keeps an ellipse within) */

typedef struct gk_bucket_grid gk_bucket_grid;

/* Does an algorithm with this ellipse take the bucket-grid path on the CPU?
 * (A window statistic, finite non-degenerate ellipse, no per-quadrant key,
 * average without max_points.) device_choice.c prices it the same way. */
int gk_bg_suits(const gk_algorithm *a, const gk_ellipse *e);
/* Does this job take it? (gk_bg_suits, on the CPU) */
int gk_bg_wanted(const gk_job *job);
/* The bucket grid of the job's points for its ellipse into *out (NULL on
 * failure); GK_OK, or GK_ERR_NOMEM with the message in the job's context. */
int gk_bg_build(const gk_job *job, gk_bucket_grid **out);
void gk_bg_free(gk_bucket_grid *g);

/* Per node row: the bucket rows the ellipse around (., ny) touches and, for
 * each, the x offsets (relative to the node) of the ellipse over that row,
 * widened so that rounding never loses a point the exact test accepts.
 * Beyond GK_BG_MAXROWS rows (not expected) every row takes the box's extent. */
typedef struct {
    int r0, nrows, box;
    double lo[GK_BG_MAXROWS], hi[GK_BG_MAXROWS];
} gk_bg_rows;
void gk_bg_rows_init(const gk_bucket_grid *g, const gk_ellipse *e, double ny, gk_bg_rows *rows);

/* What a node accumulates over the points inside its ellipse. */
enum { GK_BG_COUNT = 0, GK_BG_SUM_Z = 1, GK_BG_MINMAX_Z = 2, GK_BG_SUM_DIST = 3 };
typedef struct {
    long n;        /* points inside */
    double sum;    /* GK_BG_SUM_Z: sum of z; GK_BG_SUM_DIST: sum of distances */
    double lo, hi; /* GK_BG_MINMAX_Z: min and max z (+inf/-inf when n == 0) */
} gk_bg_acc;
void gk_bg_node(const gk_bucket_grid *g, const gk_ellipse *e, const gk_bg_rows *rows, double nx,
                double ny, int what, gk_bg_acc *acc);

/* Upper bound of the points gk_bg_gather may return for this node. */
size_t gk_bg_candidates(const gk_bucket_grid *g, const gk_bg_rows *rows, double nx);
/* Positions (into gk_bg_x/gk_bg_y) of the points inside the ellipse, written
 * to pos (room for gk_bg_candidates); returns how many. */
size_t gk_bg_gather(const gk_bucket_grid *g, const gk_ellipse *e, const gk_bg_rows *rows, double nx,
                    double ny, int *pos);
const double *gk_bg_x(const gk_bucket_grid *g);
const double *gk_bg_y(const gk_bucket_grid *g);
/* Tests: switch the AVX-512 kernels off (0) or back on where the CPU has them. */
void gk_bg_use_simd(gk_bucket_grid *g, int on);

/* COUNT and SUM_Z, on CPUs with AVX-512, can also go the other way round:
 * each point near the nodes finds the interval of nodes on a row whose
 * ellipse holds it, by the exact test at the interval's ends, so a node
 * costs about the points inside it, not every candidate of its spans. The
 * same points count. The row sweep does that a row at a time (COUNT only);
 * the tile stamp a tile at a time, 8 rows of a point in one vector, which
 * pays where a point's chords cover several rows (SUM_Z where its sums are
 * exact). gk_bg_method picks by a cost model. */
enum { GK_BG_SCAN = 0, GK_BG_SWEEP = 1, GK_BG_STAMP = 2 };
int gk_bg_method(const gk_bucket_grid *g, const gk_ellipse *e, const gk_grid *grid, int what);
/* Tests: take a method wherever it can run (what is COUNT or SUM_Z and the
 * CPU has AVX-512), or -1: the rule. */
void gk_bg_force_method(gk_bucket_grid *g, int method);
/* Doubles of scratch gk_bg_sweep needs for w nodes. */
size_t gk_bg_sweep_scratch(int w);
/* Nodes x0..x0+w-1 of the grid row at ny: the count per node (as a
 * double), in an array inside buf. */
typedef struct {
    const double *n;
} gk_bg_sweep_out;
void gk_bg_sweep(const gk_bucket_grid *g, const gk_ellipse *e, const gk_grid *grid, int x0, int w,
                 double ny, double *buf, gk_bg_sweep_out *out);
/* Doubles of scratch gk_bg_stamp needs for a tile w wide. */
size_t gk_bg_stamp_scratch(int w);
/* Nodes x0..x0+w-1, y0..y0+h-1: count and (SUM_Z) sum per node, row-major,
 * into n and sum (w * h each). */
void gk_bg_stamp(const gk_bucket_grid *g, const gk_ellipse *e, const gk_grid *grid, int x0, int y0,
                 int w, int h, int what, double *buf, double *n, double *sum);

#endif
