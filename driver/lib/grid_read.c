/* SPDX-License-Identifier: MIT */
/*
 * grid_read.c - the points the source options select: read on one process
 * or on every rank of an MPI world (gk_world_read_points), and the quick
 * look at a source's size that auto's device choice takes before reading
 * (gk_grid_options_peek_points). Every command reads through here.
 */
#include "lib/grid_options.h"
#include "io/read_points.h"
#include "mpi/world_points.h"

#include <string.h>

static void read_spec(const gk_grid_options *o, int needs_z, gk_read_options *out)
{
    gk_read_options ro = {0};
    ro.src = o->src;
    ro.layers = o->layers;
    ro.where = o->where;
    ro.sql = o->sql;
    ro.have_spat = o->have_spat;
    memcpy(ro.spat, o->spat, sizeof ro.spat);
    ro.clipsrc = o->clipsrc;
    ro.clipsrcsql = o->clipsrcsql;
    ro.clipsrclayer = o->clipsrclayer;
    ro.clipsrcwhere = o->clipsrcwhere;
    ro.zfield = o->zfield;
    ro.z_increase = o->z_increase;
    ro.z_multiply = o->z_multiply;
    ro.open_options = o->open_options;
    ro.needs_z = needs_z;
    *out = ro;
}

typedef struct {
    const gk_grid_options *o;
    int needs_z;
} options_reader;

static int read_options_points(gk_context *ctx, void *user, gk_source_points *sp)
{
    const options_reader *r = user;
    gk_read_options ro;
    read_spec(r->o, r->needs_z, &ro);
    return gk_read_points(ctx, &ro, sp);
}

int gk_world_read_points(const gk_world *w, gk_context *ctx, const gk_grid_options *o, int needs_z,
                         gk_source_points *sp)
{
    options_reader r = {o, needs_z};
    return gk_world_share_points(w, ctx, read_options_points, &r, sp);
}

int gk_grid_options_peek_points(const gk_grid_options *o, double *n_points, double bbox[4])
{
    gk_read_options ro;
    read_spec(o, 1, &ro);
    return gk_peek_points(&ro, n_points, bbox);
}
