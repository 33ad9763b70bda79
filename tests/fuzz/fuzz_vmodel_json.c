/* SPDX-License-Identifier: MIT */
/* fuzz_vmodel_json.c - libFuzzer target: the variogram model JSON reader
 * (gk_vmodel_read_json, what -a kriging:variogram=FILE reads), fed through a
 * memory file. */
#include "fuzz_common.h"
#include "io/vmodel_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_memfile(data, size);
    gk_context *ctx = gk_context_new();
    gk_vmodel m;
    int rc = gk_vmodel_read_json(ctx, path, &m);
    if (rc && (!gk_errmsg(ctx) || !*gk_errmsg(ctx))) {
        fprintf(stderr, "JSON input rejected without a message\n");
        abort();
    }
    if (rc == 0 && (m.n < 1 || m.n > GK_VM_MAX_STRUCTURES)) {
        fprintf(stderr, "model read with %d structures\n", m.n);
        abort();
    }
    gk_context_free(ctx);
    return 0;
}
