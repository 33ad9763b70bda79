/* SPDX-License-Identifier: MIT */
/*
 * grid_run_strips.c - gk_grid_run() in strips: every rank of an MPI job
 * (mpirun -n N gridkit grid ...), or one process writing --parts.
 *
 * Every rank reads the points itself (a shared file system: reading is
 * cheaper than sending them, docs/scale-out.md) and prepares the same jobs;
 * the ranks agree after each phase (gk_world_agree), so a rank that fails
 * stops them all with its message and rank 0 leaves no output behind.
 * Only rank 0 speaks on stderr and reports progress.
 */
#include "lib/grid_strips.h"
#include "lib/grid_parts.h"
#include "io/cancel_cleanup.h"
#include "io/output_check.h"
#include "io/replace_output.h"
#include "io/vmodel_json.h"

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal.h>
#include <gdal_utils.h>
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* gk_world_agree, its seconds (waiting for the slowest rank) added to *wait_s */
static int agree(const gk_world *world, gk_context *ctx, int rc, double *wait_s)
{
    double t0 = gk_seconds();
    rc = gk_world_agree(world, ctx, rc);
    *wait_s += gk_seconds() - t0;
    return rc;
}

int gk_grid_run_strips(gk_context *ctx, const gk_grid_options *o, const gk_world *world)
{
    const int rank = gk_world_rank(world);
    const int speak = rank == 0 && !o->quiet;
    double t_start = gk_seconds();
    gk_grid_plan plan;
    /* the plan on every rank at once: the points read as the world reads
     * them (each, or rank 0 and broadcast), the GPU starting meanwhile */
    double wait_s = 0, t_phase = gk_seconds();
    int planned = gk_grid_plan_init_ex(ctx, o, world, 0, &plan) == GK_OK;
    const double plan_s = gk_seconds() - t_phase;
    int rc = agree(world, ctx, planned ? GK_OK : gk_errno(ctx), &wait_s);
    if (rc) {
        if (planned)
            gk_grid_plan_free(&plan);
        return rc;
    }
    const double read_s = plan.read_s;
    const gk_grid g = plan.g;
    const int n_jobs = plan.sp.n_layers, planes = plan.planes;
    const gk_kriging_params *kp = gk_algorithm_kriging(plan.alg);
    gk_raster_writer *w = NULL;
    gk_job **jobs = calloc((size_t)n_jobs, sizeof *jobs);
    const char **prepared = calloc((size_t)plan.bands + 1, sizeof *prepared);
    uint64_t *singular = calloc(2 * (size_t)n_jobs + 1, sizeof *singular); /* then lowered */
    gk_parts parts;
    memset(&parts, 0, sizeof parts);
    int nstrips = 0;
    /* every input: no output may be one (io/input_files.h) */
    gk_inputs *inputs = rank == 0 || o->parts ? gk_grid_inputs(ctx, o, kp) : NULL;
    gk_raster_spec spec, part;
    gk_grid_raster_spec(&plan, &spec, inputs);
    char **part_co = NULL;
    if (!jobs || !prepared || !singular || ((rank == 0 || o->parts) && !inputs))
        rc = gk_error(ctx, GK_ERR_NOMEM, "out of memory");

    t_phase = gk_seconds();
    /* the output: rank 0's raster, or the parts' directory everywhere */
    int tile[4] = {256, 256, GDT_Float64, 'a'}; /* the type strips travel in, the parts' slot */
    if (!rc && !o->parts && rank == 0) {
        w = gk_raster_writer_open(ctx, &spec);
        if (!w)
            rc = gk_errno(ctx) ? gk_errno(ctx) : GK_ERR_IO;
        else {
            gk_raster_writer_tile_size(w, &tile[0], &tile[1]);
            tile[2] = gk_raster_writer_wire_type(w);
        }
    }
    if (!rc && o->parts && rank == 0 &&
        !(rc = gk_parts_claim(ctx, &parts, o->parts, plan.dst, inputs)))
        tile[3] = parts.slot;
    if (o->parts) {
        part = spec;
        part.format = "GTiff";
        part_co = CSLDuplicate(plan.creation_options);
        if (!CSLFetchNameValue(part_co, "TILED"))
            part_co = CSLSetNameValue(part_co, "TILED", "YES");
        /* a part as tall as its strip holds whole tiles: where wide rows make
         * strips shorter than 256 rows, tiles of 256 would be padded to
         * twice the bytes (GTiff's tiles are multiples of 16) */
        const char *by = CSLFetchNameValue(part_co, "BLOCKYSIZE");
        tile[1] = by && atoi(by) > 0 ? atoi(by) : 256;
        int h = gk_strips_height(&g, plan.bands, tile[1]);
        if (!by && h < tile[1] && h >= 16) {
            tile[1] = h / 16 * 16;
            char v[16];
            snprintf(v, sizeof v, "%d", tile[1]);
            part_co = CSLSetNameValue(part_co, "BLOCKYSIZE", v);
        }
        part.creation_options = part_co;
    }
    rc = agree(world, ctx, rc, &wait_s);
    /* rank 0's tiles: the strips' height follows them on every rank; its
     * parts' slot */
    if (!rc && world && gk_world_bcast(world, tile, sizeof tile, 0))
        gk_world_abort(world, 1);
    if (!rc && o->parts && rank > 0)
        rc = gk_parts_join(ctx, &parts, o->parts, plan.dst, (char)tile[3]);
    if (o->parts)
        rc = agree(world, ctx, rc, &wait_s);

    /* every layer's job, on every rank */
    for (int b = 0; b < n_jobs && !rc; b++) {
        if (speak)
            gk_grid_print_band(&plan, b);
        jobs[b] = gk_grid_plan_job(ctx, &plan, b);
        if (!jobs[b]) {
            rc = gk_errno(ctx) ? gk_errno(ctx) : GK_ERR_INTERNAL;
            gk_error(ctx, rc, "%s, layer \"%s\": %s", o->src, plan.sp.layers[b].name,
                     gk_errmsg(ctx));
            break;
        }
        const char *js = gk_job_algorithm_string(jobs[b]);
        if (strcmp(js, gk_algorithm_string(plan.alg))) {
            if (speak)
                fprintf(stderr, "Prepared: \"%s\"\n", js);
            for (int k = 0; k < planes; k++) {
                prepared[b * planes + k] = js;
                if (w && !rc)
                    rc = gk_raster_writer_set_band_metadata(w, b * planes + 1 + k,
                                                            "GRIDKIT_PREPARED", js);
            }
        }
        if (gk_job_warning(jobs[b]) && rank == 0)
            fprintf(stderr, "Warning: band %d (%s): %s\n", b * planes + 1, plan.sp.layers[b].name,
                    gk_job_warning(jobs[b]));
        if (kp && speak) {
            char mbuf[768];
            if (gk_vmodel_format(gk_job_kriging_model(jobs[b]), mbuf, sizeof mbuf) == GK_OK)
                fprintf(stderr, "Variogram model: %s%s\n", mbuf, kp->model_auto ? " (fitted)" : "");
        }
    }
    rc = agree(world, ctx, rc, &wait_s);
    const double setup_s = gk_seconds() - t_phase;
    double strips_s = 0, write_s = 0;

    if (!rc) {
        gk_strips s = {0};
        s.ctx = ctx;
        s.world = world;
        s.g = &g;
        s.jobs = jobs;
        s.n_jobs = n_jobs;
        s.planes = planes;
        s.tile_w = tile[0];
        s.tile_h = tile[1];
        s.wire_type = tile[2];
        s.w = w;
        s.parts_dir = o->parts;
        s.parts_stem = parts.stem;
        s.part_spec = &part;
        s.band_prepared = prepared;
        s.progress = rank == 0 ? o->progress : NULL;
        s.progress_user = o->progress_user;
        s.singular = singular;
        int h = gk_strips_height(&g, plan.bands, tile[1]);
        nstrips = (g.ny + h - 1) / h;
        t_phase = gk_seconds();
        rc = gk_strips_run(&s);
        strips_s = gk_seconds() - t_phase;
        write_s = w ? gk_raster_writer_io_seconds(w) : 0;
        const int threads =
            gk_context_threads(ctx) > 0 ? gk_context_threads(ctx) : omp_get_num_procs();
        if (o->timings) /* every rank its own line: how the strips were shared */
            fprintf(stderr,
                    "Rank %d of %d (%s): points in %.3f s (%s), %d of %d strips, %.3f s "
                    "computing them, %s, %d thread%s\n",
                    rank, gk_world_size(world), world ? gk_world_host(world) : "one process",
                    read_s, plan.sp.n_layers ? plan.sp.layers[0].read_by : "-", s.strips_done,
                    nstrips, s.compute_s, gk_context_device_name(ctx), threads,
                    threads == 1 ? "" : "s");
        rc = agree(world, ctx, rc, &wait_s);
    }
    if (!rc && speak)
        fprintf(stderr, "Device: %s%s\n", gk_context_device_name(ctx),
                world ? " (rank 0; each rank chooses its own)" : "");

    /* nodes whose system was singular: tagged nodata, as one process does */
    for (int b = 0; !rc && rank == 0 && b < n_jobs; b++) {
        if (!singular[b])
            continue;
        for (int k = 1; w && k <= planes && !plan.set_nodata && !rc; k++)
            rc = gk_raster_writer_set_nodata(w, b * planes + k, plan.nodata);
        fprintf(stderr,
                "Warning: %llu of %llu nodes of band %d had %s and got nodata %.17g (tagged on "
                "the band; set another with nodata=).\n",
                (unsigned long long)singular[b],
                (unsigned long long)g.nx * (unsigned long long)g.ny, b * planes + 1,
                gk_algorithm_singular_form(plan.alg), plan.nodata);
    }
    /* nodes in a simpler form than asked: counted on the band, as one process does */
    for (int b = 0; !rc && rank == 0 && b < n_jobs; b++)
        if (singular[n_jobs + b]) {
            for (int k = 1; w && k <= planes && !rc; k++)
                rc = gk_grid_note_lowered(w, b * planes + k, singular[n_jobs + b]);
            if (!o->quiet)
                gk_grid_say_lowered(plan.alg, singular[n_jobs + b], (uint64_t)g.nx * (uint64_t)g.ny,
                                    b * planes + 1);
        }

    /* finish: the raster renamed into place, or the mosaic written last */
    t_phase = gk_seconds();
    if (rank == 0) {
        if (!rc && w) {
            rc = gk_raster_writer_commit(w);
            w = NULL;
            if (rc && !gk_errno(ctx))
                rc = gk_error(ctx, GK_ERR_IO, "could not finish %s", plan.dst);
        }
        if (!rc && o->parts)
            rc = gk_parts_commit(ctx, &parts, &plan, nstrips, prepared, singular);
    }
    const double finish_s = gk_seconds() - t_phase;
    rc = agree(world, ctx, rc, &wait_s);
    if (rc && o->parts)
        gk_parts_abort(&parts, nstrips);
    if (o->timings && rank == 0 && !rc)
        fprintf(stderr,
                "Timings (s): read points %.3f, waiting for the GPU %.3f, plan %.3f, "
                "output and jobs %.3f, strips %.3f (writing %.3f of it), finish output %.3f, "
                "waiting for the other ranks %.3f in all; total %.3f on %d rank%s\n",
                read_s, plan.gpu_wait_s, plan_s - read_s - plan.gpu_wait_s, setup_s, strips_s, write_s, finish_s,
                wait_s, gk_seconds() - t_start, gk_world_size(world), world ? "s" : "");

    gk_raster_writer_abort(w);
    for (int b = 0; jobs && b < n_jobs; b++)
        gk_job_free(jobs[b]);
    free(jobs);
    free(prepared);
    free(singular);
    gk_parts_free(&parts);
    CSLDestroy(part_co);
    gk_inputs_free(inputs);
    gk_grid_plan_free(&plan);
    return rc;
}
