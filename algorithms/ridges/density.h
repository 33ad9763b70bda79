/* SPDX-License-Identifier: MIT */
/*
 * density.h - what density.c's files share (density_bandwidth.c,
 * density_seeds.c, density_link.c).
 */
#ifndef GK_DENSITY_H
#define GK_DENSITY_H

#include "ridges/ridges.h"
#include "ridges/scms_index.h"

/* The default bandwidth of cloud c (the rule in density_bandwidth.c);
 * 0 when it cannot be estimated (all points identical, out of memory). */
double gk_density_bandwidth(const gk_cloud *c, int threads);

/* Converged walkers before linking. */
typedef struct {
    int dim;
    size_t n;
    double *x;       /* n * dim */
    double *t;       /* n * dim: unit tangents */
    double *density; /* n: normalised kernel density */
} gk_walkers;

/* Mesh seeds of spacing s over c's box where the kernel sum reaches
 * keep (kernel-sum units): *seeds gets a malloc()ed n * dim array
 * (scale_exp: the method's, for the message's spacing).
 * GK_OK or an error in ctx. */
int gk_density_mesh_seeds(gk_context *ctx, const gk_cloud *c, const gk_scms_bins *b, double h,
                          double cutoff, double s, double keep_rel, double keep_abs, int threads,
                          int scale_exp, double **seeds, size_t *n_seeds);

/* keep[i] = 0 for walker i within delta of an earlier kept one, else 1
 * (density_dedup.c). 0, or 1 when out of memory. */
int gk_density_dedup(const gk_walkers *w, double delta, uint8_t *keep);

/* Edges of the minimum spanning forest of the n vertices x (Kruskal: by
 * length, then vertex indices) plus the other edges that close a cycle
 * longer than loop_min, in that order (density_mst.c); e (2 * *n_e) is
 * rewritten in place. 0, or 1 when out of memory. */
int gk_density_clean(const double *x, int dim, size_t n, uint32_t *e, size_t *n_e, double loop_min);

/* Drops the hairs: chains from an end to a junction shorter than max_len
 * (density_prune.c); e rewritten in place. 0, or 1 when out of memory. */
int gk_density_prune(const double *x, int dim, size_t n, uint32_t *e, size_t *n_e, double max_len);

/* Merges walkers within 0.1 h of an earlier kept one (in index order),
 * links each to its nearest aligned neighbour ahead and behind within
 * link, keeps per component a minimum spanning tree plus the edges that
 * close loops longer than loop_min, drops hairs shorter than spur and the
 * vertices left without edges. GK_OK or an error in ctx. */
int gk_density_link(gk_context *ctx, const gk_walkers *w, double h, double link, double cos_angle,
                    double loop_min, double spur, int threads, gk_ridge_graph *out);

#endif
