/* SPDX-License-Identifier: MIT */
/*
 * gridkit.h - the public C API of gridkit's core (no GDAL here).
 *
 * Model: PROJ's proj.h. Everything hangs off an opaque gk_context that carries
 * the last error, the thread count and optional hooks; a context may be used by
 * one thread at a time, while a prepared gk_job may be evaluated by many
 * threads at once (gk_job_compute_window is re-entrant).
 *
 *   gk_context   *ctx = gk_context_new();
 *   gk_points    *pts = gk_points_new(ctx);           gk_points_add(pts, x, y, z) ...
 *   gk_algorithm *alg = gk_algorithm_parse(ctx, "invdistnn:radius=100:max_points=12");
 *   gk_job       *job = gk_job_new(ctx, pts, alg);    builds the spatial index once
 *   gk_grid       g   = { xmin, xmax, ymin, ymax, nx, ny };
 *   gk_job_run(job, &g, 0, 0, sink, user, progress, progress_user);   tiles -> sink
 *
 * Grid geometry is gdal_grid's: the extent is the outer pixel edges, north up,
 * and node (i, j) is the centre of pixel column i, row j (row 0 at ymax).
 */
#ifndef GRIDKIT_H
#define GRIDKIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The one place the version is written: CMake reads it from here for the
 * library, the packages and the plugin; NEWS and the QGIS plugin's
 * metadata.txt must agree (test version). */
#define GK_VERSION_MAJOR 0
#define GK_VERSION_MINOR 1
#define GK_VERSION_PATCH 0
#define GK_VERSION_STRING "0.1.0"

/* GK_VERSION_STRING of the library in use (a program built against other
 * headers can tell). */
const char *gk_version(void);

/* Error codes: every call that can fail returns one (or NULL) and leaves a
 * message in the context (gk_errmsg). */
typedef enum {
    GK_OK = 0,
    GK_ERR_ARG = 1,         /* bad argument, option or algorithm string */
    GK_ERR_IO = 2,          /* a file could not be read or written */
    GK_ERR_NOMEM = 3,       /* out of memory, or a request too large to hold */
    GK_ERR_NO_POINTS = 4,   /* nothing to grid */
    GK_ERR_UNSUPPORTED = 5, /* valid request this build cannot do */
    GK_ERR_CANCELLED = 6,   /* a progress callback asked to stop */
    GK_ERR_INTERNAL = 7
} gk_status;

typedef struct gk_context gk_context;
typedef struct gk_points gk_points;
typedef struct gk_algorithm gk_algorithm;
typedef struct gk_job gk_job;

/* Same shape as GDALProgressFunc: return 0 to cancel. */
typedef int (*gk_progress_fn)(double complete, const char *message, void *user);

/* ---- context ---------------------------------------------------------- */
gk_context *gk_context_new(void);
void gk_context_free(gk_context *ctx);
/* Worker threads for tile computation; 0 (default) = all cores. */
void gk_context_set_threads(gk_context *ctx, int threads);
int gk_context_threads(const gk_context *ctx);
int gk_errno(const gk_context *ctx);
const char *gk_errmsg(const gk_context *ctx);
/* Record an error (printf-style); returns code so callers can `return gk_error(...)`. */
int gk_error(gk_context *ctx, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void gk_error_clear(gk_context *ctx);

/* Delaunay triangulation hook. By default linear uses the core's own
 * (algorithms/linear/delaunay.c, exact predicates); a hook set here replaces it
 * (the tests install GDAL's qhull one as a peer). On success *tri holds
 * n_tri triangles (3 vertex indices each) and, for each triangle edge k
 * (opposite vertex k), the index of the neighbouring triangle or -1.
 * The arrays are malloc'ed and are freed by the core with free(). */
typedef struct {
    int n_tri;
    int *vertex;   /* 3 * n_tri */
    int *neighbor; /* 3 * n_tri; neighbor[3t+k] is across the edge opposite vertex k */
} gk_triangulation;
typedef int (*gk_triangulate_fn)(void *user, int n, const double *x, const double *y,
                                 gk_triangulation *tri);
void gk_context_set_triangulator(gk_context *ctx, gk_triangulate_fn fn, void *user);

/* Device for tile computation: "auto" (a usable GPU, else the CPU), "cpu",
 * "cuda" or "cuda:N". NULL: the GRIDKIT_DEVICE environment variable, else
 * auto. GK_ERR_ARG for a bad spec; GK_ERR_UNSUPPORTED when a GPU is asked
 * for explicitly and none is usable (the message says why). */
int gk_context_set_device(gk_context *ctx, const char *spec);
/* The same request without starting the GPU now: a job that needs one checks
 * it (and fails then when a GPU asked for by name is not usable). */
int gk_context_request_device(gk_context *ctx, const char *spec);
/* Where the last job ran: "cpu", "cuda:0 (NVIDIA H100 80GB HBM3)", or "cpu
 * (reason)" when auto or an algorithm without a GPU kernel fell back. */
const char *gk_context_device_name(gk_context *ctx);
/* Starts the GPU that spec (as gk_context_set_device; NULL: GRIDKIT_DEVICE,
 * else auto) would use: loads the CUDA module and creates the device's
 * context, which takes a few hundred milliseconds. Callers run it on a
 * thread of their own while they read points; later jobs then start at once.
 * Thread-safe; does nothing for "cpu" or where no GPU is usable. */
void gk_device_warm_up(const char *spec);
/* Where gridkit's optional modules (gridkit_cuda.so, gridkit_mpi.so) are
 * found: next to the object that holds gridkit's code (the program, the GDAL
 * plugin, the library), in the modules' folder relative to it (an installed
 * tree's <libdir>/gridkit, from bin/, from the plugin folder or from
 * <libdir>), then in the folder the build was configured to install them
 * into. 0 and the first that exists in path; -1 and the places looked at
 * in path (for the message). */
int gk_module_locate(const char *name, char *path, size_t cap);
/* The NVIDIA GPUs of this host, counted from the driver's device nodes
 * (/dev/nvidiaN) without starting CUDA: 0 on a machine without one. */
int gk_host_gpu_count(void);
/* on: under "auto", a job made while the GPU is still starting (a warm-up
 * under way) does not wait for it: the CPU cores compute its first rows and
 * the GPU takes the rest from where they are once it is ready (its tiles
 * then within test_gpu's tolerances of the CPU's, as a GPU run's are). Off
 * by default: a job waits for the GPU's start. */
void gk_context_set_gpu_late(gk_context *ctx, int on);
/* 0 when the algorithm does not run on a GPU under --device auto (global
 * kriging with external drift never does; linear only with --device cuda),
 * so that starting one is wasted; 1 when it may. */
int gk_algorithm_may_use_gpu(const gk_algorithm *alg);
/* Under --device auto, whether a GPU is worth starting for `nodes` grid nodes
 * from n_points points spread over `area` (their bounding box): 0 when the
 * CPU cores (the context's threads) are expected to finish before CUDA would
 * have started and stopped again (about 0.3 s); later jobs of the context
 * then run on the CPU, the reason in gk_context_device_name(). 1 otherwise,
 * also when the estimate cannot be made. "cuda" and "cuda:N" are unaffected.
 * gk_algorithm_cpu_seconds() is the estimate (INFINITY: none). */
int gk_context_auto_device(gk_context *ctx, const gk_algorithm *alg, double n_points, double area,
                           double nodes);
double gk_algorithm_cpu_seconds(const gk_algorithm *alg, double n_points, double area, double nodes,
                                int threads);

/* ---- points ----------------------------------------------------------- */
gk_points *gk_points_new(gk_context *ctx);
void gk_points_free(gk_points *pts);
int gk_points_reserve(gk_points *pts, size_t n);
int gk_points_add(gk_points *pts, double x, double y, double z);
/* Bulk loading (readers that fill points on several threads): extend adds n
 * points left for the caller to write through *x, *y, *z (the first new
 * slot of each array, valid until the next call on pts); truncate keeps the
 * first n. */
int gk_points_extend(gk_points *pts, size_t n, double **x, double **y, double **z);
void gk_points_truncate(gk_points *pts, size_t n);
size_t gk_points_count(const gk_points *pts);
const double *gk_points_x(const gk_points *pts);
const double *gk_points_y(const gk_points *pts);
const double *gk_points_z(const gk_points *pts);
/* Sets every point's z to z (a weight of 1 when no -zfield was given). */
void gk_points_fill_z(gk_points *pts, double z);
/* Bounding box of the points; GK_ERR_NO_POINTS when empty. */
int gk_points_bounds(const gk_points *pts, double *xmin, double *ymin, double *xmax, double *ymax);
/* Plain "x y z" text (spaces, tabs, commas or semicolons; an optional header
 * naming the columns; '#' comments): X and Y are columns 1 and 2, Z column 3
 * unless zcolumn names another (a header name or a 1-based number). */
/* Appends the points of path to out (a gk_points_new() set). Lines whose Z is
 * NaN or an empty field are skipped and counted in *n_skipped (may be NULL).
 * A malformed line is an error naming the file and the line number; out then
 * holds whatever was read before it. */
int gk_points_read_xyz(gk_context *ctx, const char *path, const char *zcolumn, gk_points *out,
                       size_t *n_skipped);
/* The same file read for X and Y only (a caller that does not use Z): a
 * 2-column file works, and a Z that is empty, NaN or not there keeps its
 * line; every point gets z = 0. A NaN or infinite X or Y is skipped and
 * counted. */
int gk_points_read_xy(gk_context *ctx, const char *path, gk_points *out, size_t *n_skipped);

/* ---- grid geometry ---------------------------------------------------- */
typedef struct {
    double xmin, xmax; /* outer pixel edges, xmin < xmax */
    double ymin, ymax; /* outer pixel edges, ymin < ymax; row 0 touches ymax */
    int nx, ny;        /* columns, rows (> 0) */
} gk_grid;

/* Largest width or height of a grid: squared distances across it stay finite. */
#define GK_GRID_MAX_SPAN 1e150
/* Checks sizes and extent; a clear message for zero, negative or absurd grids,
 * spans above GK_GRID_MAX_SPAN and cells below the coordinates' precision. */
int gk_grid_check(gk_context *ctx, const gk_grid *g);
/* GDAL geotransform of the grid. */
void gk_grid_geotransform(const gk_grid *g, double gt[6]);
static inline double gk_grid_node_x(const gk_grid *g, int i)
{
    return g->xmin + (i + 0.5) * ((g->xmax - g->xmin) / g->nx);
}
static inline double gk_grid_node_y(const gk_grid *g, int j)
{
    return g->ymax + (j + 0.5) * ((g->ymin - g->ymax) / g->ny);
}

/* ---- algorithms -------------------------------------------------------- */
/* Parses gdal_grid's -a syntax "name[:key=value]*" (plus gridkit's aidw).
 * Unknown algorithm, unknown key, bad value: NULL and an error naming it. */
gk_algorithm *gk_algorithm_parse(gk_context *ctx, const char *spec);
gk_algorithm *gk_algorithm_clone(const gk_algorithm *alg);
void gk_algorithm_free(gk_algorithm *alg);
const char *gk_algorithm_name(const gk_algorithm *alg);
/* Canonical "name:key=value:..." with every parameter, for metadata. */
const char *gk_algorithm_string(const gk_algorithm *alg);
/* What a node computed "in a simpler form" (gk_run_stats.lowered_nodes) is
 * for this algorithm, in words for a note. */
const char *gk_algorithm_lowered_form(const gk_algorithm *alg);
/* What made a node's system singular (gk_run_stats.singular_nodes), in
 * words for a warning. */
const char *gk_algorithm_singular_form(const gk_algorithm *alg);
double gk_algorithm_nodata(const gk_algorithm *alg);
/* 1 when nodata= was given literally (gdal_grid sets the band flag only then). */
int gk_algorithm_nodata_given(const gk_algorithm *alg);
/* 1 when the algorithm reads Z (count and the distance metrics do not). */
int gk_algorithm_needs_z(const gk_algorithm *alg);
/* 1 when z is an optional weight (heatmap): without -zfield the caller gives
 * every point z = 1 (gk_points_fill_z). */
int gk_algorithm_z_is_weight(const gk_algorithm *alg);
/* Given a pixel size and no extent, the margin the method's peer puts
 * around the points' bounding box (heatmap: its radius, as QGIS's Heatmap
 * does; the grid then has ceil(size / pixel) + 1 pixels a side from the
 * widened box's top-left corner); NaN when the method needs an extent. */
double gk_algorithm_pixel_margin(const gk_algorithm *alg);

/* The methods -a knows, for help text and front ends (the QGIS provider
 * reads them through `gridkit grid --algorithms`): i from 0 to
 * gk_n_algorithms() - 1, in the order of algorithms/methods.def. The name
 * and a one-line summary (NULL out of range); the -a keys the method takes,
 * "key, key=a|b, ..." into buf (cut to cap), returning the full length as
 * snprintf does (0 out of range). */
int gk_n_algorithms(void);
const char *gk_algorithm_name_at(int i);
const char *gk_algorithm_summary_at(int i);
size_t gk_algorithm_keys_at(int i, char *buf, size_t cap);

/* Planes per node: 2 for kriging with variance=yes (estimate, variance), else 1. */
int gk_algorithm_bands(const gk_algorithm *alg);
/* Band i's (0-based) name among them ("estimate", "variance"; "slope", ...),
 * or NULL where there is one band. */
const char *gk_algorithm_band_name(const gk_algorithm *alg, int i);

typedef enum { GK_PRECISION_DOUBLE = 0, GK_PRECISION_SINGLE = 1 } gk_precision;
void gk_algorithm_set_precision(gk_algorithm *alg, gk_precision p);

/* ---- jobs: points + algorithm, prepared once --------------------------- */
/* Builds the spatial index (and the triangulation for linear). The points
 * must outlive the job; the algorithm is copied. */
gk_job *gk_job_new(gk_context *ctx, const gk_points *pts, const gk_algorithm *alg);
void gk_job_free(gk_job *job);

/* Kriging with external drift (drift_raster=): the covariates at the data
 * points and a sampler for the nodes, supplied by the caller (the GDAL layer
 * samples rasters). values_at_points holds n_drift blocks of one value per
 * point, in input order (copied). The sampler fills out[k*n + i] with
 * covariate k at (x[i], y[i]), NaN where it has no value (the node gets
 * nodata); it is called from worker threads at once, one call per tile, and
 * returns non-zero on failure (the tile's nodes get nodata). Call it after
 * gk_job_new and before running the job; n_drift must be the number of
 * drift_raster= keys. */
typedef int (*gk_drift_sampler_fn)(void *user, size_t n, const double *x, const double *y,
                                   double *out);
int gk_job_set_drift(gk_job *job, int n_drift, const double *values_at_points,
                     gk_drift_sampler_fn sampler, void *user);

/* Values per node: 1, or 2 for kriging with its variance (estimate, variance). */
int gk_job_bands(const gk_job *job);

/* Computes the window [x0, x0+w) x [y0, y0+h) of grid g into out: gk_job_bands()
 * planes of w*h doubles, row-major, one after the other ("no result" nodes get
 * the algorithm's nodata). Re-entrant: may be called from many threads at
 * once. Runs on the calling thread. */
int gk_job_compute_window(gk_job *job, const gk_grid *g, int x0, int y0, int w, int h, double *out);

/* Receives finished tiles, one call at a time (never concurrently), in no
 * particular order: nbands planes of w*h doubles. Return non-zero to abort
 * (the engine returns GK_ERR_IO). */
typedef int (*gk_tile_sink)(void *user, int x0, int y0, int w, int h, int nbands,
                            const double *values);

/* The tile engine: splits g into tiles of about tile_w x tile_h (0 = engine's
 * choice), computes them on the context's threads and hands each to sink as
 * soon as it is done. Memory: the points, the index and one tile per thread. */
int gk_job_run(gk_job *job, const gk_grid *g, int tile_w, int tile_h, gk_tile_sink sink,
               void *sink_user, gk_progress_fn progress, void *progress_user);
/* gk_job_run with flags. GK_SINK_CONCURRENT: the sink is called from the
 * computing threads at once (each tile once), and does its own locking: a
 * writer can then convert and place tiles in parallel and take turns only
 * for the file itself. */
#define GK_SINK_CONCURRENT 1u
int gk_job_run_ex(gk_job *job, const gk_grid *g, int tile_w, int tile_h, unsigned flags,
                  gk_tile_sink sink, void *sink_user, gk_progress_fn progress, void *progress_user);
/* gk_job_run_ex over the rows [y0, y0+rows) of g only: a strip of a grid
 * shared out among processes (MPI). Nodes keep g's coordinates, so a node's
 * value is the one the whole run gives it; progress runs 0..1 over the strip. */
int gk_job_run_rows(gk_job *job, const gk_grid *g, int y0, int rows, int tile_w, int tile_h,
                    unsigned flags, gk_tile_sink sink, void *sink_user, gk_progress_fn progress,
                    void *progress_user);

/* The values a typed sink gets: doubles, or Float32 pixels converted by
 * GDAL's rule (GDALCopyWords of GDAL 3.6: to nearest, beyond FLT_MAX to
 * infinity), on the GPU where a tile is computed there (half the bytes to
 * copy back, no pass over them on the host). */
typedef enum { GK_VALUES_FLOAT64 = 0, GK_VALUES_FLOAT32 = 1 } gk_value_type;
/* A sink of gk_job_run_typed: nbands planes of w*h values of the run's type. */
typedef int (*gk_tile_sink_typed)(void *user, int x0, int y0, int w, int h, int nbands,
                                  const void *values);
/* gk_job_run_rows with the tiles handed in type vt. */
int gk_job_run_typed(gk_job *job, const gk_grid *g, int y0, int rows, int tile_w, int tile_h,
                     unsigned flags, gk_value_type vt, gk_tile_sink_typed sink, void *sink_user,
                     gk_progress_fn progress, void *progress_user);
/* One value as GK_VALUES_FLOAT32 converts it (a writer checks it against
 * the GDAL it links before it takes such tiles). */
float gk_value_to_float32(double v);
/* gk_job_compute_window with out in type vt. */
int gk_job_compute_window_typed(gk_job *job, const gk_grid *g, int x0, int y0, int w, int h,
                                gk_value_type vt, void *out);

/* Counters of the last run, for the user's report. */
typedef struct {
    uint64_t nodes;          /* nodes computed */
    uint64_t nodata_nodes;   /* nodes that got nodata */
    uint64_t singular_nodes; /* kriging, rbf: nodes whose system was singular (nodata,
                              * counted in nodata_nodes too) */
    uint64_t lowered_nodes;  /* nodes computed in a simpler form than asked (polynomial: a
                              * lower degree, the points could not carry the one asked) */
} gk_run_stats;
void gk_job_stats(const gk_job *job, gk_run_stats *st);
/* A warning from preparing the job (linear on points that have no triangle
 * grids as nearest), or NULL: the caller shows it (stderr, CPLError). */
const char *gk_job_warning(const gk_job *job);
/* The job's canonical algorithm string once prepared: parameters estimated
 * from the points filled in (gauss: bandwidth, cutoff_radius, bound). */
const char *gk_job_algorithm_string(const gk_job *job);

#ifdef __cplusplus
}
#endif
#endif
