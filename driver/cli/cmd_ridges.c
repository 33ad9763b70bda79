/* SPDX-License-Identifier: MIT */
/*
 * cmd_ridges.c - `gridkit ridges`: ridge lines of a point cloud, written
 * through OGR, via gridkit_lib.h (gk_ridges_options_new() +
 * gk_ridges_run()), with GDAL's text progress.
 */
#include "cli/commands.h"
#include "cli/progress.h"
#include "lib/gridkit_lib.h"

#include <stdio.h>

static int ridges(gk_context *ctx, int argc, char **argv)
{
    int rc = 1;
    gk_ridges_options *o = gk_ridges_options_new(ctx, argc, argv);
    gk_term_progress_state ps = {0};
    if (o) {
        if (!gk_ridges_options_quiet(o))
            gk_ridges_options_set_progress(o, gk_term_progress, &ps);
        rc = gk_ridges_run(ctx, o);
        gk_ridges_options_free(o);
    }
    if (ps.started && ps.last_tick < 40)
        fputc('\n', stderr);
    return rc;
}

int gk_cmd_ridges(int argc, char **argv)
{
    if (argc == 0) {
        fputs(gk_ridges_usage(), stderr);
        return 1;
    }
    return gk_cli_run("ridges", gk_ridges_usage(), NULL, ridges, argc, argv);
}
