/* SPDX-License-Identifier: MIT */
/*
 * cmd_grid.c - `gridkit grid`: gdal_grid's arguments through gridkit_lib.h
 * (gk_grid_options_new() + gk_grid_run()), with GDAL's text progress.
 */
#include "cli/commands.h"
#include "cli/progress.h"
#include "lib/gridkit_lib.h"

#include <stdio.h>
#include <string.h>

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

/* --algorithms: the list front ends read (the QGIS provider builds its
 * algorithm choice from it), one line per method: name, keys, summary. */
static void list_algorithms(void)
{
    for (int i = 0; i < gk_n_algorithms(); i++) {
        char keys[1024];
        gk_algorithm_keys_at(i, keys, sizeof keys);
        printf("%s\t%s\t%s\n", gk_algorithm_name_at(i), keys, gk_algorithm_summary_at(i));
    }
}

int gk_cmd_grid(int argc, char **argv)
{
    if (argc == 1 && !strcmp(argv[0], "--algorithms")) {
        list_algorithms();
        return 0;
    }
    return gk_cli_run("grid", gk_grid_usage(), NULL, grid, argc, argv);
}
