/* SPDX-License-Identifier: MIT */
/*
 * ridges.h - what the ridges family's files share (algorithms/ridges/):
 * the parsed method, the cloud as the methods see it, and the graph each
 * method hands to the line builder. docs/ridges.md is the user's side.
 *
 *   gk_ridges() (ridges.c): points -> cloud -> curve_graph() or
 *   density_graph() -> gk_ridge_graph -> gk_graph_lines() -> gk_lines
 */
#ifndef GK_RIDGES_H
#define GK_RIDGES_H

#include "core/gk_internal.h"
#include "gridkit_ridges.h"

typedef enum { GK_RIDGE_CURVE = 0, GK_RIDGE_DENSITY = 1 } gk_ridge_kind;

struct gk_ridges_method {
    gk_ridge_kind kind;
    int dim; /* 2 or 3 */
    /* curve (ridges/curve.c) */
    double r1, r2; /* r1 <= 0 until given or estimated; r2 <= 0: 2 * r1 */
    int r1_given;
    double gap; /* order's gap bridging: ends of degree <= 1 within gap join; 0: off; < 0: 2 * r2 */
    int max_iter;   /* evolve's Jacobi steps per round */
    int max_rounds; /* evolve + decimate rounds */
    /* density (ridges/density.c) */
    double bandwidth; /* Gaussian sigma; <= 0 until given or estimated */
    int bandwidth_given;
    double threshold;       /* walkers below it are dropped */
    int threshold_absolute; /* 0: threshold is a fraction of the largest walker density */
    int seeds_mesh;         /* 0: walkers start at the samples; 1: on a mesh */
    double spacing;         /* mesh spacing (<= 0: bandwidth / 2) */
    double tolerance;       /* stop when the projected step is below tolerance * bandwidth */
    int max_iter_scms;
    double cutoff; /* kernel cut-off, in bandwidths */
    double angle;  /* link: largest angle (degrees) between an edge and the ridge tangent */
    /* both: the lines */
    double min_length; /* shorter chains and spurs are dropped (< 0: method's default; 0: none) */
    double simplify;   /* Douglas-Peucker tolerance; 0: off */
    /* the frame of a run (ridges.c): its coordinates and lengths are the
     * points' times 2^-scale_exp (0 but for extreme scales) */
    int scale_exp;
    char text[1024]; /* canonical string (gk_ridges_method_string) */
};

/* A length of the run's frame in the points' units, for messages. */
double gk_ridges_user_length(const gk_ridges_method *m, double v);

/* The samples, interleaved: point i is p[i*dim .. i*dim+dim-1]. */
typedef struct {
    int dim;
    size_t n;
    double *p;
} gk_cloud;

/* A method's result before it becomes lines: vertices and undirected edges.
 * Vertices of degree 2 chain; ends (degree 1) and junctions (degree >= 3)
 * end chains; a component of degree-2 vertices only is a ring. */
typedef struct {
    int dim;
    size_t n_v;
    double *v;       /* n_v * dim, interleaved */
    double *density; /* n_v, or NULL (curve) */
    size_t n_e;
    uint32_t *e; /* 2 * n_e vertex indices */
} gk_ridge_graph;

void gk_ridge_graph_free(gk_ridge_graph *g);

/* GRIDKIT_RIDGES_PROFILE=1 (benchmarks): prints "ridges: what: seconds"
 * since *t on stderr and sets *t to now; otherwise does nothing. */
void gk_ridges_prof(const char *what, double *t);

/* The methods (curve.c, density.c): their graph of cloud; *warning gets a
 * malloc()ed text when an iteration cap was hit (else stays NULL). GK_OK or
 * an error in ctx. They may fill m's estimated values (r1, bandwidth). */
int gk_curve_graph(gk_context *ctx, const gk_cloud *c, gk_ridges_method *m, gk_ridge_graph *out,
                   char **warning, gk_progress_fn progress, void *user);
int gk_density_graph(gk_context *ctx, const gk_cloud *c, gk_ridges_method *m, gk_ridge_graph *out,
                     char **warning, gk_progress_fn progress, void *user);

/* The graph's chains as lines (lines.c): chains shorter than min_length
 * dropped, Douglas-Peucker with tolerance simplify (0: none), each sample
 * assigned to its nearest line within support (n_support, width), sorted
 * by a spatial key of the first vertex. NULL and an error in ctx. */
gk_lines *gk_graph_lines(gk_context *ctx, const gk_ridge_graph *g, const gk_cloud *c,
                         double support, double min_length, double simplify);

#endif
