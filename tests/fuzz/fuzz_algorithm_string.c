/* SPDX-License-Identifier: MIT */
/* fuzz_algorithm_string.c - libFuzzer target: the -a string parser
 * (gk_algorithm_parse) and the canonical string it builds. */
#include "fuzz_common.h"
#include "gridkit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstring(data, size);
    gk_context *ctx = gk_context_new();
    gk_algorithm *a = gk_algorithm_parse(ctx, s);
    if (a) {
        /* A canonical string must parse again (it is what the CLI prints). */
        gk_algorithm *b = gk_algorithm_parse(ctx, gk_algorithm_string(a));
        if (!b) {
            fprintf(stderr, "canonical '%s' of '%s' does not parse: %s\n", gk_algorithm_string(a),
                    s, gk_errmsg(ctx));
            abort();
        }
        (void)gk_algorithm_name(a);
        (void)gk_algorithm_needs_z(a);
        gk_algorithm_free(b);
        gk_algorithm_free(a);
    } else if (!gk_errmsg(ctx) || !*gk_errmsg(ctx)) {
        fprintf(stderr, "'%s' rejected without a message\n", s);
        abort();
    }
    gk_context_free(ctx);
    free(s);
    return 0;
}
