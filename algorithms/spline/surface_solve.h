/* SPDX-License-Identifier: MIT */
/*
 * surface_solve.h - GMT's continuous-curvature splines in tension (Smith &
 * Wessel 1990) on one grid: the equations of GMT 6.4's surface, solved by
 * over-relaxed sweeps in five colours (docs/splines.md).
 */
#ifndef GK_SURFACE_SOLVE_H
#define GK_SURFACE_SOLVE_H

#include "gridkit.h"

#include <stdint.h>

enum { GK_SURF_LIMIT_NONE = 0, GK_SURF_LIMIT_DATA, GK_SURF_LIMIT_VALUE };

typedef struct {
    double tension;  /* interior, 0 <= t < 1 (GMT's -Ti) */
    double btension; /* at the edges (GMT's -Tb) */
    double converge; /* z units; 0: GMT's default, 1e-4 of the residuals' rms */
    double relax;    /* over-relaxation (GMT's -Z) */
    double aspect;   /* GMT's -A: dy/dx of the stencil */
    int maxiter;     /* sweeps at the final grid (GMT's -N); coarser: times its ratio */
    int lower_mode, upper_mode; /* GK_SURF_LIMIT_* (GMT's -Ll, -Lu) */
    double lower, upper;
    int threads;
    /* the context whose device may sweep the larger grids (NULL: the CPU) */
    gk_context *ctx;
} gk_surface_params;

/* What the solve saw, for messages and tests. */
typedef struct {
    size_t used;      /* points that constrain a node */
    size_t unusable;  /* in the grid, but not the nearest of their node */
    size_t outside;   /* beyond the nodes' reach (and NaN z) */
    int levels;       /* grids of the cascade, the final one included */
    int iterations;   /* sweeps at the final grid */
    int converged;    /* the last grid's change fell below the limit */
    int plane_only;   /* the data lie on a plane: that plane */
} gk_surface_info;

/* GK_OK, or an error in ctx when grid g's solve would not fit in memory. */
int gk_surface_check_size(gk_context *ctx, const gk_grid *g);

/* The surface of points pts over grid g (pixel-centred nodes), into out
 * (g->nx * g->ny, row 0 north): GK_OK, or an error in ctx (too small a grid,
 * no point in it, out of memory). info may be NULL. */
int gk_surface_solve(gk_context *ctx, const gk_points *pts, const gk_grid *g,
                     const gk_surface_params *p, double *out, gk_surface_info *info);

#endif
