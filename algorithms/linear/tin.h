/* SPDX-License-Identifier: MIT */
/*
 * linear/tin.h - the triangulation `linear` interpolates in, prepared for
 * point location (tin.c builds it; linear.c evaluates it): vertices and
 * triangles renumbered for locality, one plane per triangle, triangles in
 * buckets of a few levels, a starting triangle per bucket for walks.
 */
#ifndef GK_TIN_H
#define GK_TIN_H

#include "core/gk_internal.h"
#include "core/gpu_abi.h"
#include "linear.h"
#include "linear_raster.h"

#include <stddef.h>

#define GK_MAX_LEVELS 24
_Static_assert(GK_MAX_LEVELS <= GK_GPU_LIN_MAX_LEVELS, "the GPU job holds every level");

/* Triangles are sorted into square buckets of a few levels (a loose
 * quadtree): a triangle sits at the finest level where its bounding box
 * spans at most two buckets each way, in the bucket of its lower-left corner,
 * and the triangles of one bucket row are contiguous. */
typedef struct {
    double x0, y0, inv; /* bucket of x: (x - x0) * inv */
    int nx, ny;
    int *start; /* nx * ny + 1 triangle offsets, into gk_tin.bstart */
} gk_tin_level;

struct gk_tin {
    int n_tri;
    int *vertex;   /* 3 per triangle, counter-clockwise, the smallest number first */
    int *neighbor; /* 3 per triangle, across the edge opposite vertex k; -1 = hull */
    double *plane; /* 3 per triangle: z = za + gx (x - xa) + gy (y - ya) about its first
                      vertex a (accurate far from the origin); gx NaN = degenerate */
    /* Vertices are renumbered in level-0 bucket order (locality): */
    double *xy; /* 2 per point, in that order */
    int *orig;  /* its input index */
    int *dup;   /* NULL, or per vertex the last input index coincident with it */
    double *z;  /* their values, in that order */
    size_t n;
    gk_kdtree *tree; /* own index, only where the walk cannot find the nearest */
    int need_tree;   /* no triangles, or points the triangulator left out */
    double ox, oy;   /* local origin (bbox centre) */
    int walk_cap;    /* steps before a walk gives up and scans */
    int nlev;
    gk_tin_level lev[GK_MAX_LEVELS];
    int *bstart; /* all levels' offsets */
    int *seed;   /* per level-0 bucket: a triangle in or near it, to start walks */
};

/* A triangle in or near the level-0 bucket of (x, y), to start a walk from. */
static inline int gk_tin_seed(const gk_tin *tin, double x, double y)
{
    const gk_tin_level *lv = &tin->lev[0];
    int bx = gk_lr_bucket_of((x - lv->x0) * lv->inv, lv->nx);
    int by = gk_lr_bucket_of((y - lv->y0) * lv->inv, lv->ny);
    return tin->seed[(size_t)by * lv->nx + bx];
}

enum { GK_TIN_INSIDE, GK_TIN_OUTSIDE, GK_TIN_DEGENERATE };

/* Visibility walk from *t towards (px, py) (about the tin's origin): leaves
 * *t at the triangle found, or at the last one visited when the node is
 * outside the hull. GK_TIN_INSIDE, GK_TIN_OUTSIDE or GK_TIN_DEGENERATE (on a
 * sliver only). */
int gk_tin_locate(const gk_tin *tin, int *t, double px, double py);

#endif
