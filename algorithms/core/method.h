/* SPDX-License-Identifier: MIT */
/*
 * method.h - the method registry: everything the core knows of a gridding
 * method is one row of this table, defined in the method's own file
 * (idw/invdist.c, window/metrics.c, geostat/kriging.c, ...) and listed once
 * in algorithms/methods.c. The parser (parse.c), the tile engine (engine.c),
 * the bucket grid, cross-validation, device choice (device_choice.c) and the
 * GPU description (device.c) read the row; none of them switches on the
 * method (tests/core/check_methods.py). docs/dev/adding-a-method.md walks
 * through a new one.
 */
#ifndef GK_METHOD_H
#define GK_METHOD_H

#include "core/gk_internal.h"
#include "core/gpu_abi.h"

/* The -a keys of gdal_grid's syntax a method takes (parse.c parses them). */
enum {
    GK_KEY_POWER = 1 << 0,
    GK_KEY_SMOOTHING = 1 << 1,
    GK_KEY_RADIUS1 = 1 << 2,
    GK_KEY_RADIUS2 = 1 << 3,
    GK_KEY_RADIUS = 1 << 4,
    GK_KEY_ANGLE = 1 << 5,
    GK_KEY_MAX_POINTS = 1 << 6,
    GK_KEY_MIN_POINTS = 1 << 7,
    GK_KEY_NODATA = 1 << 8,
    GK_KEY_QUADRANT = 1 << 9, /* min_points_per_quadrant, max_points_per_quadrant */
};
#define GK_KEY_ELLIPSE (GK_KEY_RADIUS1 | GK_KEY_RADIUS2 | GK_KEY_RADIUS | GK_KEY_ANGLE)

/* gk_method.flags */
enum {
    GK_M_NO_Z = 1 << 0,         /* reads no z (count, distances): -zfield not needed */
    GK_M_WINDOW_STAT = 1 << 1,  /* a function of the points in the search ellipse */
    GK_M_GPU_EXPLICIT = 1 << 2, /* GPU only when asked for by name, never under auto */
    GK_M_GPU_CPU_TAIL = 1 << 3, /* the CPU finishes each GPU tile (gpu_finish): all cores run */
    GK_M_OWN_RADIUS = 1 << 4,   /* radius= is its own parameter, not the search circle */
    GK_M_Z_WEIGHT = 1 << 5,     /* z is an optional weight: 1 for every point without -zfield */
    GK_M_GPU_COUNTS_LOWERED = 1 << 6, /* a GPU tile counts lowered nodes, not singular ones */
};

/* How cross-validation predicts a fold (geostat/crossval.c): a job on the
 * other folds' points per fold; one job on every point whose searches skip
 * the fold; global kriging's closed form; not at all (the method predicts
 * no value of z: simulation's draws, indicator kriging's probabilities). */
typedef enum {
    GK_CV_AUTO = 0,
    GK_CV_REBUILD,
    GK_CV_HOLDOUT,
    GK_CV_DUBRULE,
    GK_CV_NONE
} gk_cv_method;

/* What the generic parser saw, for a row's adjust hook. */
typedef struct {
    int quadrant;   /* a per-quadrant key was given */
    int max_points; /* max_points was given */
} gk_parse_seen;

typedef struct gk_method {
    const char *name; /* -a name */
    gk_alg_kind kind; /* its line of algorithms/methods.def */
    /* One line for `gridkit grid --help` and front ends (QGIS): what it
     * computes, lower case, no full stop. */
    const char *summary;
    /* With a parse hook: the keys of its grammar, "key, key=a|b, ..." (the
     * generic ones are named from .keys). With own_key: its keys beside the
     * generic ones, "key, key, ...". */
    const char *own_keys;
    unsigned keys; /* GK_KEY_*: what the generic parser accepts */
    /* In the generic grammar, a key of own_keys: its value (a number, read
     * as every key's) into a; GK_OK or an error in ctx. NULL: none. */
    int (*own_key)(gk_context *ctx, const char *alg, const char *key, double v, gk_algorithm *a);
    unsigned flags; /* GK_M_* */
    /* Defaults that differ from parse.c's common ones (NULL: none). */
    void (*defaults)(gk_algorithm *a);
    /* A grammar of its own instead of the generic keys (NULL: generic):
     * parses the rest of spec (strtok_r state after the name) into a. */
    int (*parse)(gk_context *ctx, const char *spec, char *rest, gk_algorithm *a);
    /* After the keys and before the generic checks: may turn the algorithm
     * into another method (a->kind), as gdal_grid remaps
     * invdist with per-quadrant keys. NULL: none. */
    int (*adjust)(gk_context *ctx, const char *spec, const gk_parse_seen *seen, gk_algorithm *a);
    /* Checks after the generic ones (NULL: none); GK_OK or an error in ctx. */
    int (*check)(gk_context *ctx, const char *spec, gk_algorithm *a);
    /* The canonical string's method-specific part after the name (NULL: none). */
    void (*canonical)(const gk_algorithm *a, gk_strbuf *sb);

    /* Before the device is chosen: what the GPU takes too (linear's
     * triangulation). After it: the CPU's index and the method's state,
     * prepare is called on the GPU too (job->gpu set) for state it needs
     * there. release frees what build and prepare made. Each may be NULL. */
    int (*build)(gk_job *job);
    int (*prepare)(gk_job *job);
    void (*release)(gk_job *job);
    /* The CPU's index for its share of a GPU job's nodes, built once (the
     * caller serialises); GK_OK or GK_ERR_NOMEM. NULL: the CPU takes none. */
    int (*cpu_index)(gk_job *job);
    /* Does gdal_grid take its candidates from its quadtree, so that points
     * at equal distances are ranked by the tree's order (job->ties: the job
     * copies the points in that order)? n: the points. NULL: no. */
    int (*quadtree_ties)(const gk_algorithm *a, size_t n);
    /* Where the job breaks ties in gdal_grid's quadtree order: does the CPU
     * settle them itself, only where its queries meet some (job->lazy_ties,
     * no ordering of every point first)? NULL: no. */
    int (*lazy_ties)(const gk_algorithm *a);
    /* Could the GPU run it at all (auto starts the GPU early)? NULL: when it
     * has gpu_describe and no GK_M_GPU_EXPLICIT. */
    int (*gpu_possible)(const gk_algorithm *a);

    gk_tile_fn cpu_tile;
    /* Before any tile of grid g (the whole grid, whatever window or strip
     * is asked): state that follows the grid's cells (rst's segments). Any
     * thread may call it, for any grid; GK_OK or an error in ctx. NULL: none. */
    int (*grid_prepare)(gk_job *job, const gk_grid *g);
    /* The GPU's form of the job: NULL when it runs there, else why not.
     * NULL function: no GPU kernel. d arrives with gk_gpu_desc_common's
     * fields set. */
    const char *(*gpu_describe)(const gk_job *job, gk_gpu_job_desc *d);
    /* GK_M_GPU_CPU_TAIL: the CPU's part of a GPU tile; the tile's nodata
     * count, or UINT64_MAX; *rest gets the nodes it took. */
    uint64_t (*gpu_finish)(const gk_job *job, const gk_tile *t, double *out, uint64_t *rest);

    /* The GPU's kriging state (core/gpu_abi.h's krige_set), after prepare;
     * 0, or -1 when the kernel does not cover it. NULL: none. */
    int (*gpu_krige)(const gk_job *job, gk_gpu_krige *k);
    /* Per-node inputs of a GPU tile (kriging's drift covariates: blocks of
     * w h into *g0, malloc()ed, the caller frees; NULL: none): 0, 1 when the
     * whole tile is nodata, -1 when out of memory. NULL hook: none. */
    int (*gpu_inputs)(const gk_job *job, const gk_tile *t, double **g0);

    /* Cross-validation's way (GK_CV_AUTO's choice), ntrain being the fewest
     * points a fold is fitted on: GK_CV_HOLDOUT where one job's searches can
     * skip a fold with the same doubles as a job on the other points (every
     * search through its k-d tree, a preparation independent of the points
     * given), GK_CV_DUBRULE for a closed form, else GK_CV_REBUILD with *why
     * (the words after the method's name in the note on the slow path) and
     * *avoid (what would avoid it, or NULL). NULL hook: a job per fold. */
    gk_cv_method (*cv_way)(const gk_algorithm *a, size_t ntrain, const char **why,
                           const char **avoid);
    /* Can the GPU predict the folds of a holdout (its kernels skipping the
     * fold)? NULL: no. */
    int (*cv_gpu)(const gk_algorithm *a);
    /* The algorithm as cross-validation runs it, after "no result" is NaN
     * (kriging reports its variance for the z-scores). NULL: as given. */
    void (*cv_adjust)(gk_algorithm *a);

    /* One core's nanoseconds per node, and in *setup_ns for the CPU's index,
     * for n uniform points over area (device_choice.c); NULL or INFINITY:
     * no figure (auto keeps the GPU). */
    double (*cost_ns)(const gk_algorithm *a, double n, double area, double *setup_ns);

    /* The planes a tile function writes (kriging: the estimate and its
     * variance; rst: the surface and its derivatives), and plane i's name for
     * the bands' descriptions. NULL: one plane, no name. */
    int (*bands)(const gk_algorithm *a);
    const char *(*band_name)(const gk_algorithm *a, int i);

    /* What its nodes "in a simpler form" (gk_job_add_lowered) are, for the
     * note that counts them (NULL: none). */
    const char *lowered_form;
    /* What makes its system singular (gk_run_stats.singular_nodes), for the
     * warning that counts those nodes (NULL: kriging's words). */
    const char *singular_form;

    /* A pixel size without an extent (-tr alone): the margin around the
     * points' bounding box that the method's peer takes (QGIS's Heatmap: its
     * radius); NULL: the method needs the extent given. */
    double (*pixel_extent_margin)(const gk_algorithm *a);
} gk_method;

/* The method of a name (case-insensitive), or NULL; the method of a kind. */
const gk_method *gk_method_find(const char *name);
const gk_method *gk_method_of(gk_alg_kind kind);
/* The list (algorithms/methods.c), for messages and help. */
extern const gk_method *const gk_methods[];
extern const int gk_n_methods;

/* ---- shared pieces the rows use ------------------------------------- */

/* n more nodes of this run computed in a simpler form than the algorithm
 * asks (a tile function's count; gk_run_stats.lowered_nodes). Thread-safe. */
void gk_job_add_lowered(const gk_job *job, uint64_t n);
/* n more nodes of this run nodata because their system was singular
 * (gk_run_stats.singular_nodes; the row's singular_form says why).
 * Thread-safe. */
void gk_job_add_singular(const gk_job *job, uint64_t n);

/* A finite number for key=s of a grammar of its own (kriging's, the
 * polynomials'): GK_OK, or an error in ctx naming alg, key and why. */
int gk_param_finite(gk_context *ctx, const char *alg, const char *key, const char *s, double *out);
/* A grammar of its own's next key=value (strtok_r state *save, after the
 * name): 1 with *key and *val (inside the string), 0 at its end, -1 with
 * an error in ctx naming spec when a part is not key=value. */
int gk_param_next(gk_context *ctx, const char *spec, char **save, const char **key,
                  const char **val);
/* Every key=value of the rest (gk_param_next) given to key (which reports
 * its own errors): GK_OK, or GK_ERR_ARG at the first that fails. */
int gk_param_pairs(gk_context *ctx, const char *spec, char *save, gk_algorithm *a,
                   int (*key)(gk_context *ctx, const char *spec, const char *k, const char *val,
                              gk_algorithm *a));
/* A count key's value (max_points=, k=): a whole number from 0 to 1e9 into
 * *out; GK_OK or an error in ctx naming alg and key. */
int gk_param_count(gk_context *ctx, const char *alg, const char *key, double v, int *out);

/* quadtree_ties for methods whose every search is gdal_grid's quadtree
 * (invdistnn), and for those whose per-quadrant limits are (the window
 * statistics: with min/max_points_per_quadrant). */
int gk_ties_always(const gk_algorithm *a, size_t n);
int gk_ties_quadrants(const gk_algorithm *a, size_t n);

/* cv_way's advice where a limit on the neighbours gives one index. */
#define GK_CV_AVOID_MAX_K "give max_points=K to use one index"

/* Cost model pieces (device_choice.c): the points in a node's window and
 * the selection's k, for n uniform points over area (1: no window, every
 * point); one core's ns per node of an ellipse or k-NN selection. */
int gk_cost_window(const gk_algorithm *a, double n, double area, double *win, double *k);
double gk_cost_select_ns(double k, double win);
#define GK_NS_TREE_PER_POINT 700.0 /* building the k-d tree, per point */

#define GK_STR_(x) #x
#define GK_STR(x) GK_STR_(x)

#endif
