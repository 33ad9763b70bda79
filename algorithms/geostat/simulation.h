/* SPDX-License-Identifier: MIT */
/*
 * geostat/simulation.h - sequential Gaussian simulation (kriging with
 * nsim=; docs/simulation.md): the keys (simulation_params.c), the path and
 * each node's kriging weights (simulation_weights.c), the realizations and
 * their summary (simulation.c, with the registry's row).
 */
#ifndef GK_SIMULATION_H
#define GK_SIMULATION_H

#include "kriging.h"

/* ---- keys (simulation_params.c) ----------------------------------------- */

/* key=val of -a kriging when it is simulation's: GK_OK, an error in ctx, or
 * -1 when the key is not simulation's. */
int gk_sim_key(gk_context *ctx, const char *key, const char *val, gk_sim_params *s);
/* After kriging's keys: where nsim= or summary= was given (or the method
 * was named "simulation"), checks them against the rest and makes the
 * algorithm simulation's; GK_OK or an error. */
int gk_sim_finish(gk_context *ctx, gk_algorithm *a);
/* simulation's part of the canonical string. */
void gk_sim_canonical(const gk_sim_params *s, gk_strbuf *sb);
int gk_sim_bands(const gk_algorithm *a);
const char *gk_sim_band_name(const gk_algorithm *a, int i);

/* The kriging state of a simulation's job (its model), or NULL. */
const gk_krige_state *gk_sim_kriging_of(const gk_job *job);

/* The neighbours a node takes without max_points, and the most it may. */
#define GK_SIM_DEFAULT_K 16
#define GK_SIM_MAX_K 1024

/* ---- the path and the weights (simulation_weights.c) ---------------------- */

/* What every node's system reads: the grid, the path, the data. */
typedef struct {
    const gk_krige_state *k;
    gk_grid g;
    int nx, ny;
    double cw, ch;  /* cell width and height */
    uint32_t *path; /* position -> node; the nodes without a datum */
    uint32_t npath;
    uint32_t *rank; /* node -> position; UINT32_MAX for a datum's node */
    int32_t *datum; /* node -> the datum it holds, or -1 */
    /* the data (duplicates merged), in simulation's units */
    size_t nd;
    const double *dx, *dy, *dv;
    const struct gk_kdtree *tree;
    int K;        /* the most neighbours */
    double r2max; /* radius squared (INFINITY: none) */
    int ordinary; /* ordinary kriging (4 neighbours or more), else simple */
    double mean;  /* simple kriging's mean in simulation's units */
    /* the covariance at node offsets (a cw, b ch), |a|, |b| <= D:
     * ctab[(b + D) (2 D + 1) + a + D] (gk_sim_path makes it) */
    int D;
    double *ctab;
    /* the least rank in each block of GK_SIM_BLOCK x GK_SIM_BLOCK nodes
     * (nbx blocks a row): the searches skip blocks simulated later */
    uint32_t *bmin;
    int nbx;
} gk_sim_geom;

#define GK_SIM_BLOCK 8

/* The path of grid g's nodes: those holding a datum (within 1e-6 of a
 * cell of its centre) set apart, the others in a random order fixed by the
 * seed, coarse grids first unless path_random. GK_OK or GK_ERR_NOMEM. */
int gk_sim_path(gk_context *ctx, gk_sim_geom *s, uint64_t seed, int path_random);
void gk_sim_path_free(gk_sim_geom *s);
/* s->ctab for s->k (gk_sim_path makes the first; another model's geometry
 * its own); GK_OK or GK_ERR_NOMEM. */
int gk_sim_cov_table(gk_context *ctx, gk_sim_geom *s);

/* The weights of path positions [p0, p1): a constant (the data's part),
 * a standard deviation, and up to K earlier nodes with their weights. */
typedef struct {
    uint32_t p0, p1;
    double *cst, *sd;
    uint16_t *nn;
    uint32_t *nb; /* K per position */
    double *w;    /* K per position */
} gk_sim_weights;

int gk_sim_weights_alloc(gk_sim_weights *w, uint32_t cap, int K);
void gk_sim_weights_free(gk_sim_weights *w);
/* Fills w for [p0, p1) on threads threads (each node alone: the same
 * doubles on any); *lowered counts the nodes whose system was singular and
 * took fewer neighbours. GK_OK or GK_ERR_NOMEM. */
int gk_sim_weights_fill(const gk_sim_geom *s, uint32_t p0, uint32_t p1, int threads,
                        gk_sim_weights *w, uint64_t *lowered);

/* The realizations' random streams (core/random.h). */
enum { GK_SIM_STREAM_PATH = 1, GK_SIM_STREAM_NOISE = 2 };

#endif
