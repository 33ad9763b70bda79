/* SPDX-License-Identifier: MIT */
/* fuzz_job_string.c - libFuzzer target: GRIDKIT: open strings and .gridkit
 * files as the plugin parses them: gk_job_args_split, then the argv parser.
 * The first byte picks the mode (odd: a .gridkit file's words, with '#'
 * comments; fuzz_job_file takes a whole file, byte order mark and text check
 * included). */
#include "fuzz_common.h"
#include "lib/grid_options.h"
#include "lib/job_args.h"

#include "cpl_string.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    int file = data[0] & 1;
    char **words = NULL;
    const char *why = NULL;
    if (gk_job_args_split((const char *)data + 1, size - 1, file, &words, &why)) {
        if (words || !why)
            abort(); /* a failure returns a message and no list */
        return 0;
    }
    gk_context *ctx = gk_context_new();
    gk_grid_options *o = gk_grid_options_new(ctx, CSLCount(words), words);
    gk_grid_options_free(o);
    gk_context_free(ctx);
    CSLDestroy(words);
    return 0;
}
