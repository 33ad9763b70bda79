/* command.c - the shell every gridkit command shares (see commands.h). */
#include "cli/commands.h"
#include "lib/gridkit_lib.h"

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
    int rc = body(ctx, argc, argv);
    if (gk_errno(ctx) || (rc && fallback))
        fprintf(stderr, "gridkit %s: error: %s\n", name,
                gk_errno(ctx) ? gk_errmsg(ctx) : fallback);
    rc = (rc || gk_errno(ctx)) ? 1 : 0;
    gk_context_free(ctx);
    return rc;
}
