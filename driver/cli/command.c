/* SPDX-License-Identifier: MIT */
/* command.c - the shell every gridkit command shares (see commands.h). */
#include "cli/commands.h"
#include "lib/gridkit_lib.h"
#include "mpi/world.h"

#include <stdio.h>
#include <string.h>

int gk_cli_run(const char *name, const char *usage, const char *fallback, gk_cli_body body,
               int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage, stdout);
            return 0;
        }
    gk_context *ctx = gk_context_new();
    if (!ctx) {
        fprintf(stderr, "gridkit %s: out of memory\n", name);
        return 1;
    }
    gk_gdal_init(ctx);
    /* under MPI every command shares its work among the ranks (ridges:
     * density's walkers) */
    const gk_world *world = gk_world_get();
    const int rank = gk_world_rank(world);
    int rc = body(ctx, argc, argv);
    if (world && gk_world_failure_agreed()) {
        rc = gk_errno(ctx) ? gk_errno(ctx) : GK_ERR_IO; /* agreed, with its message */
    } else if (world) {
        int code = rc || gk_errno(ctx) ? (gk_errno(ctx) ? gk_errno(ctx) : GK_ERR_IO) : GK_OK;
        if (code && !gk_errno(ctx))
            gk_error(ctx, code, "%s", fallback ? fallback : "failed");
        rc = gk_world_agree(world, ctx, code);
    }
    if (rank > 0) {
        /* rank 0 says what went wrong, once */
        gk_context_free(ctx);
        return rc ? 1 : 0;
    }
    if (gk_errno(ctx) || (rc && fallback))
        fprintf(stderr, "gridkit %s: error: %s\n", name, gk_errno(ctx) ? gk_errmsg(ctx) : fallback);
    rc = (rc || gk_errno(ctx)) ? 1 : 0;
    gk_context_free(ctx);
    return rc;
}
