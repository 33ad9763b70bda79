/* SPDX-License-Identifier: MIT */
/*
 * grid_inputs.c - the inputs of a command that takes gridkit grid's options:
 * what none of its outputs may be (io/input_files.h).
 */
#include "lib/grid_options.h"

gk_inputs *gk_grid_inputs(gk_context *ctx, const gk_grid_options *o, const gk_kriging_params *kp)
{
    gk_inputs *in = gk_inputs_new();
    int rc = in ? GK_OK : GK_ERR_NOMEM;
    /* XYZ text is a plain file: GDAL's XYZ driver would scan it */
    if (!rc)
        rc = gk_source_is_xyz(o->src, o->open_options) ? gk_inputs_add_file(in, o->src)
                                                       : gk_inputs_add(in, o->src, o->open_options);
    if (!rc)
        rc = gk_inputs_add(in, o->clipsrc, NULL);
    if (!rc && kp && kp->variogram_file[0])
        rc = gk_inputs_add_file(in, kp->variogram_file);
    for (int k = 0; !rc && kp && k < kp->n_drift_rasters; k++)
        rc = gk_inputs_add(in, kp->drift_raster[k], NULL);
    if (rc) {
        gk_inputs_free(in);
        gk_error(ctx, GK_ERR_NOMEM, "out of memory listing the inputs");
        return NULL;
    }
    return in;
}
