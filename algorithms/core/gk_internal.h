/* SPDX-License-Identifier: MIT */
/*
 * gk_internal.h - structures shared by the core's files; not installed.
 */
#ifndef GK_INTERNAL_H
#define GK_INTERNAL_H

#include "gridkit.h"
#include "gridkit_geostat.h"
#include "gridkit_ridges.h"

#include <stddef.h>
#include <stdint.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* target_clones makes an ifunc resolver; ThreadSanitizer instruments it and
 * it runs at load time, before TSan's runtime exists (a crash before main).
 * TSan builds (scripts/ci-sanitizers.sh) take the default clone only. */
#if defined(__SANITIZE_THREAD__)
#define GK_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GK_TSAN 1
#endif
#endif
#ifndef GK_TSAN
#define GK_TSAN 0
#endif

struct gk_context {
    int err;
    char msg[2048];
    unsigned long n_errors; /* errors set so far: a run tells its sink's from an earlier one */
    int threads;
    gk_triangulate_fn triangulate;
    void *triangulate_user;
    int device;            /* requested device (device.h: GK_DEV_*) */
    char device_name[768]; /* where the last job runs, with any fallback reason */
    char auto_cpu[256];    /* auto chose the CPU for this grid: why (device_choice.c) */
    int gpu_late;          /* auto: the CPU may start a job while the GPU starts */
    const int *cv_fold;    /* cross-validation's job: the points' folds, which a GPU job
                            * takes along (geostat/crossval.c); NULL otherwise */
    /* ridges' density walkers shared among processes (gk_ridges_set_sharing) */
    int share_part, share_parts;
    gk_ridges_exchange_fn share_fn;
    void *share_user;
};

struct gk_points {
    gk_context *ctx;
    size_t n, cap;
    double *x, *y, *z;
};

/* One kind per line of algorithms/methods.def, in its order: a kind is the
 * index of its row in gk_methods[] (core/method.h). */
typedef enum {
#define GK_METHOD(symbol, KIND) GK_ALG_##KIND,
#include "methods.def"
#undef GK_METHOD
    GK_ALG_COUNT_OF_KINDS
} gk_alg_kind;

/* Room for a method's own parameters in gk_algorithm (kriging's with its
 * simulation and indicator keys are the largest, about 8.5 KB). */
#define GK_ALG_OWN_BYTES 9216

/* Parsed -a string. Field meanings and defaults follow gdal_grid 3.6
 * (docs/dev/gdal_grid.md, 'Parameters and defaults'); parse.c sets them. */
struct gk_algorithm {
    gk_alg_kind kind;               /* its row: gk_method_of(kind), core/method.h */
    double power;                   /* invdist, invdistnn */
    double smoothing;               /* invdist, invdistnn, aidw */
    double radius1, radius2, angle; /* search ellipse; both 0 = all points */
    double radius;  /* linear: <0 exact nearest outside hull, 0 nodata, >0 nearest within */
    int max_points; /* 0 = no limit */
    int min_points;
    int min_points_per_quadrant;
    int max_points_per_quadrant;
    double nodata;
    int nodata_given;
    gk_precision precision;
    /* The method's own parameters (aidw's k and alphas, kriging's model, the
     * densities' kernels): its family defines their struct and reaches it
     * with GK_ALG_OWN; copied with the algorithm, zero until parsed. */
    union {
        max_align_t align;
        unsigned char bytes[GK_ALG_OWN_BYTES];
    } own;
    char canonical[1024];
};

/* A family's parameters of type T in algorithm a (its struct fits: the
 * family checks with GK_ALG_OWN_FITS). */
#define GK_ALG_OWN(T, a) ((T *)(void *)(a)->own.bytes)
#define GK_ALG_OWN_FITS(T)                                                                         \
    _Static_assert(sizeof(T) <= GK_ALG_OWN_BYTES, #T " fits in gk_algorithm's own parameters")

/* printf pieces appended to buf[room]; once one does not fit, the rest are
 * dropped (the buffer keeps what fitted). */
typedef struct {
    char *p;
    size_t room;
    int full;
} gk_strbuf;
void gk_strbuf_add(gk_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A whole-string number for an -a key=value (NaN only for nodata, a
 * subnormal only for nodata): 0, or GK_PARAM_NAN (not a number),
 * GK_PARAM_TINY (below DBL_MIN: underflowed or subnormal), GK_PARAM_HUGE
 * (beyond DBL_MAX); gk_param_number_why(rc) says which for a message
 * ("KEY=VALUE <why>"). */
enum { GK_PARAM_NAN = -1, GK_PARAM_TINY = -2, GK_PARAM_HUGE = -3 };
int gk_param_number(const char *key, const char *s, double *out);
const char *gk_param_number_why(int rc);

/* Search ellipse, precomputed from radius1/radius2/angle. */
typedef struct {
    int all;       /* no search window: every point */
    double r1, r2; /* semi-axes along the rotated x and y axes */
    double cos_a, sin_a;
    double rmax; /* max(r1, r2): the box the index is asked for */
} gk_ellipse;

/* Is the offset (dx, dy) = (point - node) inside the ellipse? Boundary inclusive,
 * exactly gdal_grid's test r2^2 rx^2 + r1^2 ry^2 <= r1^2 r2^2. */
static inline int gk_ellipse_contains(const gk_ellipse *e, double dx, double dy)
{
    if (e->all)
        return 1;
    double rx = dx * e->cos_a + dy * e->sin_a;
    double ry = dy * e->cos_a - dx * e->sin_a;
    return e->r2 * e->r2 * rx * rx + e->r1 * e->r1 * ry * ry <= e->r1 * e->r1 * e->r2 * e->r2;
}
void gk_ellipse_init(gk_ellipse *e, double r1, double r2, double angle_deg);

/* Per-thread scratch memory, grown on demand, reused across tiles so that the
 * per-node code allocates nothing. */
typedef struct {
    int *idx;
    double *d2;
    size_t cap;
    int *idx2;
    double *d2b;
    size_t cap2;
    float *f; /* single-precision staging */
    size_t fcap;
    /* lazy ties (idw/invdistnn.c): this thread's nodes, those that met ties,
     * and its comparisons in gdal_grid's order */
    uint64_t nodes, tie_nodes, tie_cmps;
} gk_scratch;
int gk_scratch_reserve(gk_scratch *s, size_t n);
int gk_scratch_reserve2(gk_scratch *s, size_t n);
/* At least n floats in s->f; GK_OK or GK_ERR_NOMEM. */
int gk_scratch_reserve_f(gk_scratch *s, size_t n);
void gk_scratch_free(gk_scratch *s);

/* The points' k-d tree (search/kdtree.h). */
typedef struct gk_kdtree gk_kdtree;

struct gk_job {
    gk_context *ctx;
    const gk_points *pts;
    gk_points *own_pts;        /* pts, when the job reorders the caller's points (engine.c) */
    uint32_t *order;           /* with own_pts: the caller's index of each of pts */
    uint8_t *order_lev;        /* with own_pts: the quadtree's boundaries (quadtree_order.h) */
    int ties;                  /* ties are broken in gdal_grid's quadtree order (engine.c) */
    int lazy_ties;             /* on the CPU only where they occur: kbins, then tie_view */
    struct gk_knn_bins *kbins; /* lazy_ties: the points as given, in bins (search/knn_bins.h) */
    struct gk_job *tie_view;   /* lazy_ties: the job over its points in that order, once a
                                * query met a tie (search/index.h's gk_index_tie_view) */
    void (*lazy_free)(struct gk_job *job); /* frees kbins and tie_view (search/index.c) */
    gk_algorithm alg;
    const struct gk_method *method; /* alg's row, looked up once (core/method.h) */
    gk_ellipse ell;
    gk_kdtree *tree;                /* NULL for algorithms that never search (global invdist) */
    void (*tree_free)(gk_kdtree *); /* set by whoever built tree (search/index.c) */
    int nbands;                     /* planes each tile function writes (1, or 2 with a variance) */
    void *gpu;                      /* device.c: the job's GPU side, NULL on the CPU */
    int cpu_prepared;            /* prepared for the CPU (its index built), whatever joins later */
    struct gk_device_late *late; /* device.c: the GPU's side being made meanwhile */
    /* The method's own state, as PROJ's P->opaque: its row's build or
     * prepare makes it, its release frees it, and only its family reads it,
     * through the typed accessor in the family's header (linear's TIN,
     * kriging's state, the window statistics' bucket grid, ...). NULL until
     * made. Views of the job (ties, cross-validation) share it read-only. */
    void *state;
    /* stats of the last run, updated atomically */
    uint64_t nodes, nodata_nodes;
    uint64_t singular_nodes; /* nodes whose system was singular (kriging) */
    uint64_t lowered_nodes;  /* nodes in a simpler form than asked (gk_job_add_lowered) */
    uint64_t shared_nodes;   /* of a GPU run, computed on the CPU (cpu_share.c) */
    char warning[512];       /* what preparation changed silently, for the user ("" if none) */
};

/* Where the job breaks ties in gdal_grid's quadtree order: its points put in
 * that order, once (engine.c; a GPU job's module orders its own copy, and
 * the CPU's share of the run calls this first). 0, or an error code. */
int gk_job_order_points(gk_job *job);
/* The same where the CPU needs it before any query (not where lazy_ties). */
int gk_job_prepare_ties(gk_job *job);

/* A window of the output grid, with the exact-hit threshold of that grid. */
typedef struct {
    const gk_grid *g;
    int x0, y0, w, h;
    double hit2; /* squared distance under which a point is an exact hit */
} gk_tile;

/* Exact-hit threshold: relative to the grid's cell size (gdal_grid uses an
 * absolute 1e-13 CRS units^2, wrong for degrees and for large units). */
double gk_hit_threshold2(const gk_grid *g);

/* gk_job_new on the CPU whatever the context's device: a job a method makes
 * for its own tiles, whose tile function it calls itself (indicator
 * kriging's one kriging job per cut-off). */
gk_job *gk_job_new_cpu(gk_context *ctx, const gk_points *pts, const gk_algorithm *alg);

/* A method's tile function (core/method.h): fills out[nbands*w*h] (plane
 * after plane); returns the number of nodata nodes, or UINT64_MAX when out
 * of memory. */
typedef uint64_t (*gk_tile_fn)(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s);

#endif
