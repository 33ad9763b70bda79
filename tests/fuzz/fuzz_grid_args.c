/* SPDX-License-Identifier: MIT */
/* fuzz_grid_args.c - libFuzzer target: the argv parser of `gridkit grid`
 * (gk_grid_options_new). The input is the argument vector, one argument
 * per NUL-separated piece. */
#include "fuzz_common.h"
#include "lib/grid_options.h"

#define MAX_ARGS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstring(data, size);
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    char *p = s, *end = s + size;
    while (p < end && argc < MAX_ARGS) {
        argv[argc++] = p;
        p += strlen(p) + 1;
    }
    argv[argc] = NULL;
    gk_context *ctx = gk_context_new();
    gk_grid_options *o = gk_grid_options_new(ctx, argc, argv);
    if (!o && (!gk_errmsg(ctx) || !*gk_errmsg(ctx))) {
        fprintf(stderr, "argument vector rejected without a message\n");
        abort();
    }
    gk_grid_options_free(o);
    gk_context_free(ctx);
    free(s);
    return 0;
}
