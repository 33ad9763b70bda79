/*
 * cmd_grid.c - `gridkit grid`: gdal_grid's arguments through gridkit_lib.h
 * (gk_grid_options_new() + gk_grid_run()), with GDAL's text progress.
 */
#include "cli/commands.h"
#include "cli/progress.h"
#include "lib/gridkit_lib.h"

#include <stdio.h>

static int grid(gk_context *ctx, int argc, char **argv)
{
    int rc = 1;
    gk_grid_options *o = gk_grid_options_new(ctx, argc, argv);
    gk_term_progress_state ps = {0};
    if (o) {
        if (!gk_grid_options_quiet(o))
            gk_grid_options_set_progress(o, gk_term_progress, &ps);
        rc = gk_grid_run(ctx, o);
        gk_grid_options_free(o);
    }
    if (ps.started && ps.last_tick < 40)
        fputc('\n', stderr);
    return rc;
}

int gk_cmd_grid(int argc, char **argv)
{
    return gk_cli_run("grid", gk_grid_usage(), NULL, grid, argc, argv);
}
