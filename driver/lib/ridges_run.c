/* SPDX-License-Identifier: MIT */
/*
 * ridges_run.c - gk_ridges_run(): points in, ridge lines found, lines out
 * through OGR. The whole of `gridkit ridges` below the argument parser;
 * gk_ridges_compute() is the part the plugin shares.
 */
#include "io/read_points.h"
#include "io/write_lines.h"
#include "lib/ridges_options.h"
#include "lib/grid_options.h" /* gk_world_read_points */
#include "mpi/world_ridges.h"

#include <cpl_conv.h>
#include <cpl_string.h>
#include <ogr_srs_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The -a_srs argument (any form OSRSetFromUserInput takes) as WKT. */
static char *srs_to_wkt(gk_context *ctx, const char *def)
{
    OGRSpatialReferenceH srs = OSRNewSpatialReference(NULL);
    char *wkt = NULL;
    if (OSRSetFromUserInput(srs, def) != OGRERR_NONE)
        gk_error(ctx, GK_ERR_ARG, "-a_srs: cannot understand '%s'", def);
    else if (OSRExportToWkt(srs, &wkt) != OGRERR_NONE) {
        gk_error(ctx, GK_ERR_ARG, "-a_srs: cannot export '%s' as WKT", def);
        CPLFree(wkt);
        wkt = NULL;
    }
    OSRDestroySpatialReference(srs);
    return wkt;
}

void gk_ridges_result_free(gk_ridges_result *r)
{
    if (!r)
        return;
    gk_lines_free(r->lines);
    gk_ridges_method_free(r->method);
    CPLFree(r->srs_wkt);
    CPLFree(r->layer);
    memset(r, 0, sizeof *r);
}

/* threads, device and -a_srs: what the run needs before reading */
static int prepare(gk_context *ctx, const gk_ridges_options *o, gk_ridges_result *r)
{
    if (gk_grid_options_apply_threads(ctx, o->src))
        return gk_errno(ctx);
    if (gk_context_request_device(ctx, o->src->device))
        return gk_errno(ctx);
    if (o->src->a_srs && !(r->srs_wkt = srs_to_wkt(ctx, o->src->a_srs)))
        return gk_errno(ctx);
    return GK_OK;
}

/* Under MPI, whether rank 0 alone would walk density's walkers on the CPU,
 * so that the ranks may share them and give its doubles: --device cpu, or
 * auto without a usable GPU (with cuda and none, rank 0 fails as one
 * process does). */
static int walkers_on_cpu(const gk_ridges_options *o, const gk_ridges_method *m)
{
    if (strcmp(gk_ridges_method_name(m), "density"))
        return 0;
    const char *dev = o->src->device && *o->src->device ? o->src->device : getenv("GRIDKIT_DEVICE");
    if (dev && *dev && !strcmp(dev, "cpu"))
        return 1;
    if (dev && *dev && strcmp(dev, "auto"))
        return 0;
    gk_context *probe = gk_context_new();
    const int no_gpu = probe && gk_context_set_device(probe, "cuda") != GK_OK;
    gk_context_free(probe);
    return no_gpu;
}

int gk_ridges_compute(gk_context *ctx, const gk_ridges_options *o, gk_ridges_result *r)
{
    memset(r, 0, sizeof *r);
    r->ranks = 1;
    const int dim = o->three_d ? 3 : 2;
    const gk_world *world = gk_world_get();
    const int rank = gk_world_rank(world);
    gk_source_points sp = {0};
    int rc = prepare(ctx, o, r);
    /* without --3d the lines are 2-D: z is not read at all (docs/ridges.md) */
    if (!rc) /* every rank: the reading is agreed on */
        rc =
            gk_world_read_points(world, ctx, o->src, o->three_d ? GK_Z_NEEDED : GK_Z_NOT_READ, &sp);
    /* the reader's advice is grid's (an algorithm that ignores Z): ours */
    if (rc && o->three_d && !o->src->zfield && strstr(gk_errmsg(ctx), "2-D geometries"))
        rc = gk_error(ctx, rc,
                      "--3d needs a z: %s has 2-D geometries; give -zfield FIELD, or "
                      "leave out --3d",
                      o->src->src);
    if (!rc && sp.n_layers != 1)
        rc = gk_error(ctx, GK_ERR_ARG, "%s: %d layers selected; choose one with -l", o->src->src,
                      sp.n_layers);
    if (!rc && !(r->method = gk_ridges_parse(ctx, o->method, dim)))
        rc = gk_errno(ctx);
    if (world && !gk_world_failure_agreed()) /* before anything else goes between ranks */
        rc = gk_world_agree(world, ctx, rc);
    if (rc)
        goto done;
    if (world) {
        /* density's walkers shared where rank 0 would walk them on the CPU;
         * otherwise rank 0 computes alone */
        int share = rank == 0 ? walkers_on_cpu(o, r->method) : 0;
        if (gk_world_bcast(world, &share, sizeof share, 0))
            gk_world_abort(world, 1);
        if (share) {
            r->ranks = gk_world_size(world);
            gk_ridges_set_sharing(ctx, rank, r->ranks, gk_world_ridges_exchange, (void *)world);
        } else if (rank > 0) {
            goto done;
        }
    }
    const gk_layer_points *lp = &sp.layers[0];
    r->layer = CPLStrdup(lp->name);
    r->n_points = gk_points_count(lp->pts);
    r->n_skipped = lp->n_skipped_z;
    r->lines =
        gk_ridges(ctx, lp->pts, r->method, dim, rank == 0 ? o->progress : NULL, o->progress_user);
    gk_ridges_set_sharing(ctx, 0, 1, NULL, NULL);
    if (!r->lines) {
        rc = gk_errno(ctx) ? gk_errno(ctx) : GK_ERR_INTERNAL;
        if (!gk_world_failure_agreed()) /* else another rank's, named by it */
            gk_error(ctx, rc, "%s, layer \"%s\": %s", o->src->src, lp->name, gk_errmsg(ctx));
        goto done;
    }
    if (!r->srs_wkt && sp.srs_wkt)
        r->srs_wkt = CPLStrdup(sp.srs_wkt);
    snprintf(r->device, sizeof r->device, "%s", gk_context_device_name(ctx));
done:
    gk_source_points_free(&sp);
    if (rc)
        gk_ridges_result_free(r);
    return rc;
}

static void report(const gk_ridges_options *o, const gk_ridges_result *r, const char *driver)
{
    const gk_lines *l = r->lines;
    size_t closed = 0;
    for (size_t i = 0; i < l->n_lines; i++)
        closed += l->closed[i] != 0;
    fprintf(stderr, "Layer \"%s\": %zu points.\n", r->layer, r->n_points);
    if (r->n_skipped && l->dim == 3)
        fprintf(stderr,
                "Skipped %zu points with a null, NaN or infinite Z, or a NaN or "
                "infinite X/Y.\n",
                r->n_skipped);
    else if (r->n_skipped)
        fprintf(stderr, "Skipped %zu points with a NaN or infinite X/Y.\n", r->n_skipped);
    if (l->dim == 2 && (o->src->zfield || o->src->z_increase != 0.0 || o->src->z_multiply != 1.0))
        fprintf(stderr,
                "Note: %s not read: without --3d the lines are 2-D and z is not "
                "used.\n",
                o->src->zfield ? "-zfield" : "-z_increase/-z_multiply");
    fprintf(stderr, "Method: \"%s\".\n", gk_ridges_method_string(r->method));
    fprintf(stderr, "Lines: %zu (%zu closed), %zu vertices.\n", l->n_lines, closed,
            l->start[l->n_lines]);
    fprintf(stderr, "Device: %s\n", r->device);
    if (gk_world_get())
        fprintf(stderr,
                r->ranks > 1 ? "Ranks: %d, the walkers shared among them\n"
                             : "Ranks: %d, rank 0 alone (the walkers are shared only "
                               "where they run on the CPU, with the density method)\n",
                r->ranks > 1 ? r->ranks : gk_world_size(gk_world_get()));
    fprintf(stderr, "Output: %s (%s), layer \"%s\"%s.\n", o->src->dst, driver,
            gk_ridges_options_layer_name(o), l->dim == 3 ? ", LineStringZ" : "");
}

int gk_ridges_run(gk_context *ctx, const gk_ridges_options *o)
{
    if (!o->src->dst)
        return gk_error(ctx, GK_ERR_ARG, "no destination file given (try --help)");
    /* the output is checked, and its temporary made, before any work (under
     * MPI by rank 0, which writes) */
    const int rank = gk_world_rank(gk_world_get());
    gk_lines_writer *w = NULL;
    gk_inputs *inputs = NULL;
    if (rank == 0 && (!(inputs = gk_grid_inputs(ctx, o->src, NULL)) ||
                      !(w = gk_lines_writer_open(ctx, o->src->dst, o->format, inputs)))) {
        gk_inputs_free(inputs);
        return gk_errno(ctx) ? gk_errno(ctx) : GK_ERR_IO;
    }
    gk_ridges_result r;
    int rc = gk_ridges_compute(ctx, o, &r);
    if (rc || rank > 0) {
        if (w)
            gk_lines_writer_abort(w);
        gk_inputs_free(inputs);
        if (!rc)
            gk_ridges_result_free(&r);
        return rc;
    }
    if (r.lines->warning) /* even with -q: a cap was hit, the lines may be unfinished */
        fprintf(stderr, "Warning: %s\n", r.lines->warning);
    if (!o->src->quiet)
        report(o, &r, gk_lines_writer_driver(w));
    gk_lines_layer spec = {gk_ridges_options_layer_name(o), o->layer_options, r.srs_wkt,
                           gk_ridges_method_string(r.method)};
    rc = gk_lines_writer_commit(w, &spec, r.lines);
    gk_inputs_free(inputs);
    gk_ridges_result_free(&r);
    if (rc && !gk_errno(ctx))
        rc = gk_error(ctx, GK_ERR_IO, "could not finish %s", o->src->dst);
    return rc;
}
