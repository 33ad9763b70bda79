/* density_stub.c - TEMPORARY stand-in for density.c (the density helper's
 * file); the lead deletes it on merge. */
#include "ridges.h"

int gk_density_graph(gk_context *ctx, const gk_cloud *c, gk_ridges_method *m,
                     gk_ridge_graph *out, char **warning, gk_progress_fn progress, void *user)
{
    (void)c, (void)m, (void)out, (void)warning, (void)progress, (void)user;
    return gk_error(ctx, GK_ERR_UNSUPPORTED, "ridges: density is not built in yet");
}
