/* SPDX-License-Identifier: MIT */
/*
 * layout.c - the sizes and field offsets of the public structs the Python
 * module mirrors with ctypes (python/gridkit/_lib.py), as the C compiler lays
 * them out, printed as JSON for tests/python/test_layout.py.
 */
#include "gridkit.h"
#include "gridkit_geostat.h"
#include "gridkit_ridges.h"

#include <stddef.h>
#include <stdio.h>

static int first;

#define BEGIN(T)                                                                                   \
    printf("%s\"%s\": {\"size\": %zu, \"fields\": {", first++ ? ", " : "", #T, sizeof(T));        \
    {                                                                                              \
        int k = 0;
#define FIELD(T, f) printf("%s\"%s\": %zu", k++ ? ", " : "", #f, offsetof(T, f));
#define END()                                                                                      \
    (void)k;                                                                                       \
    printf("}}");                                                                                  \
    }

int main(void)
{
    printf("{");
    /* one struct a paragraph, as clang-format would not keep it */
    /* clang-format off */
    BEGIN(gk_grid)
    FIELD(gk_grid, xmin) FIELD(gk_grid, xmax) FIELD(gk_grid, ymin) FIELD(gk_grid, ymax)
    FIELD(gk_grid, nx) FIELD(gk_grid, ny)
    END()
    BEGIN(gk_run_stats)
    FIELD(gk_run_stats, nodes) FIELD(gk_run_stats, nodata_nodes)
    FIELD(gk_run_stats, singular_nodes) FIELD(gk_run_stats, lowered_nodes)
    END()
    BEGIN(gk_vm_structure)
    FIELD(gk_vm_structure, type) FIELD(gk_vm_structure, psill) FIELD(gk_vm_structure, range)
    FIELD(gk_vm_structure, kappa) FIELD(gk_vm_structure, anis_angle)
    FIELD(gk_vm_structure, anis_ratio)
    END()
    BEGIN(gk_vmodel)
    FIELD(gk_vmodel, n) FIELD(gk_vmodel, s)
    END()
    BEGIN(gk_sim_params)
    FIELD(gk_sim_params, nsim) FIELD(gk_sim_params, first) FIELD(gk_sim_params, seed) FIELD(gk_sim_params, normal_score)
    FIELD(gk_sim_params, zmin) FIELD(gk_sim_params, zmax) FIELD(gk_sim_params, have_zmin)
    FIELD(gk_sim_params, have_zmax) FIELD(gk_sim_params, path_random)
    FIELD(gk_sim_params, realizations) FIELD(gk_sim_params, nstat) FIELD(gk_sim_params, stat)
    FIELD(gk_sim_params, stat_v)
    END()
    BEGIN(gk_ik_params)
    FIELD(gk_ik_params, ncut) FIELD(gk_ik_params, cut) FIELD(gk_ik_params, order)
    FIELD(gk_ik_params, have_order) FIELD(gk_ik_params, nmodels) FIELD(gk_ik_params, models)
    END()
    BEGIN(gk_kriging_params)
    FIELD(gk_kriging_params, type) FIELD(gk_kriging_params, mean)
    FIELD(gk_kriging_params, drift) FIELD(gk_kriging_params, n_drift_rasters)
    FIELD(gk_kriging_params, drift_raster) FIELD(gk_kriging_params, model)
    FIELD(gk_kriging_params, model_auto) FIELD(gk_kriging_params, variogram_file)
    FIELD(gk_kriging_params, variance) FIELD(gk_kriging_params, block_w)
    FIELD(gk_kriging_params, block_h) FIELD(gk_kriging_params, maxdist)
    FIELD(gk_kriging_params, drift_bilinear) FIELD(gk_kriging_params, have_mean)
    FIELD(gk_kriging_params, sim) FIELD(gk_kriging_params, ik)
    END()
    BEGIN(gk_vgm_options)
    FIELD(gk_vgm_options, cutoff) FIELD(gk_vgm_options, width) FIELD(gk_vgm_options, nlags)
    FIELD(gk_vgm_options, estimator) FIELD(gk_vgm_options, ndir)
    FIELD(gk_vgm_options, azimuth) FIELD(gk_vgm_options, tol_hor)
    FIELD(gk_vgm_options, bandwidth)
    END()
    BEGIN(gk_vgm)
    FIELD(gk_vgm, ndir) FIELD(gk_vgm, nlags) FIELD(gk_vgm, cutoff) FIELD(gk_vgm, width)
    FIELD(gk_vgm, azimuth) FIELD(gk_vgm, np) FIELD(gk_vgm, dist) FIELD(gk_vgm, gamma)
    END()
    BEGIN(gk_vgm_blocks)
    FIELD(gk_vgm_blocks, nblocks) FIELD(gk_vgm_blocks, hsize) FIELD(gk_vgm_blocks, bytes)
    FIELD(gk_vgm_blocks, data) FIELD(gk_vgm_blocks, on_gpu)
    END()
    BEGIN(gk_fit_options)
    FIELD(gk_fit_options, method) FIELD(gk_fit_options, fit_sills)
    FIELD(gk_fit_options, fit_ranges)
    END()
    BEGIN(gk_fit_result)
    FIELD(gk_fit_result, sserr) FIELD(gk_fit_result, iterations)
    FIELD(gk_fit_result, converged)
    END()
    BEGIN(gk_cv_result)
    FIELD(gk_cv_result, n) FIELD(gk_cv_result, x) FIELD(gk_cv_result, y)
    FIELD(gk_cv_result, observed) FIELD(gk_cv_result, predicted)
    FIELD(gk_cv_result, variance) FIELD(gk_cv_result, residual) FIELD(gk_cv_result, zscore)
    FIELD(gk_cv_result, fold) FIELD(gk_cv_result, n_failed) FIELD(gk_cv_result, mean_error)
    FIELD(gk_cv_result, rmse) FIELD(gk_cv_result, mae) FIELD(gk_cv_result, mean_z)
    FIELD(gk_cv_result, var_z) FIELD(gk_cv_result, msdr) FIELD(gk_cv_result, cor)
    FIELD(gk_cv_result, nfold) FIELD(gk_cv_result, seed) FIELD(gk_cv_result, method)
    FIELD(gk_cv_result, device)
    END()
    BEGIN(gk_lines)
    FIELD(gk_lines, dim) FIELD(gk_lines, n_lines) FIELD(gk_lines, start) FIELD(gk_lines, x)
    FIELD(gk_lines, y) FIELD(gk_lines, z) FIELD(gk_lines, length) FIELD(gk_lines, n_support)
    FIELD(gk_lines, closed) FIELD(gk_lines, mean_density) FIELD(gk_lines, width)
    FIELD(gk_lines, warning)
    END()
    printf("}\n");
    /* clang-format on */
    return 0;
}
