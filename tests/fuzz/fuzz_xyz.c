/* SPDX-License-Identifier: MIT */
/* fuzz_xyz.c - libFuzzer target: the XYZ text reader (gk_points_read_xyz),
 * fed through a memory file. The first byte picks the Z column (default,
 * a header name, or a column number), or with its high bit set the reading
 * of X and Y only (gk_points_read_xy). */
#include "fuzz_common.h"
#include "gridkit.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    static const char *const zcol[] = {NULL, "z", "4", "value"};
    const char *zc = zcol[data[0] & 3];
    const char *path = fuzz_memfile(data + 1, size - 1);
    gk_context *ctx = gk_context_new();
    gk_points *pts = gk_points_new(ctx);
    size_t skipped = 0;
    int rc = data[0] & 0x80 ? gk_points_read_xy(ctx, path, pts, &skipped)
                            : gk_points_read_xyz(ctx, path, zc, pts, &skipped);
    if (rc && (!gk_errmsg(ctx) || !*gk_errmsg(ctx))) {
        fprintf(stderr, "XYZ input rejected without a message\n");
        abort();
    }
    gk_points_free(pts);
    gk_context_free(ctx);
    return 0;
}
