/*
 * gridkit_main.c - the `gridkit` command: a thin shell over gridkit_lib.h.
 *
 *   gridkit grid [gdal_grid's arguments] SRC DST
 *   gridkit --version | --help
 */
#include "commands.h"
#include "gridkit_lib.h"

#include <cpl_string.h>
#include <gdal.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "gridkit %s - scattered points to rasters, a faster gdal_grid\n\n"
               "Commands:\n"
               "  gridkit grid [gdal_grid arguments] SRC DST   grid points into a raster\n"
               "  gridkit variogram SRC [options]              experimental variogram, model fit\n"
               "  gridkit cv SRC -a ALGORITHM [options]        leave-one-out cross-validation\n"
               "  gridkit --version | --help\n\n",
            GK_VERSION_STRING);
    fputs(gk_grid_usage(), f);
}

static int cmd_grid(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(gk_grid_usage(), stdout);
            return 0;
        }
    gk_context *ctx = gk_context_new();
    if (!ctx) {
        fputs("gridkit: out of memory\n", stderr);
        return 1;
    }
    gk_gdal_init(ctx);
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
    if (gk_errno(ctx))
        fprintf(stderr, "gridkit grid: error: %s\n", gk_errmsg(ctx));
    rc = gk_errno(ctx) ? 1 : (rc ? 1 : 0);
    gk_context_free(ctx);
    return rc;
}

int main(int argc, char **argv)
{
    /* --config K V, --debug, --help-general, --formats: GDAL's generic options. */
    GDALAllRegister();
    argc = GDALGeneralCmdLineProcessor(argc, &argv, 0);
    if (argc < 1)
        return argc == 0 ? 0 : 1;
    int rc;
    if (argc < 2) {
        usage(stderr);
        rc = 1;
    } else if (!strcmp(argv[1], "--version")) {
        printf("gridkit %s (GDAL %s)\n", GK_VERSION_STRING, GDALVersionInfo("RELEASE_NAME"));
        rc = 0;
    } else if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        rc = 0;
    } else if (!strcmp(argv[1], "grid")) {
        rc = cmd_grid(argc - 2, argv + 2);
    } else if (!strcmp(argv[1], "variogram")) {
        rc = gk_cmd_variogram(argc - 2, argv + 2);
    } else if (!strcmp(argv[1], "cv")) {
        rc = gk_cmd_cv(argc - 2, argv + 2);
    } else {
        fprintf(stderr, "gridkit: unknown command '%s'\n\n", argv[1]);
        usage(stderr);
        rc = 1;
    }
    CSLDestroy(argv);
    GDALDestroyDriverManager();
    return rc;
}
