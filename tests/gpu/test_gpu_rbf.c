/* SPDX-License-Identifier: MIT */
/* test_gpu_rbf.c - rbf: the local systems on the GPU (a warp a node) and the
 * global one (cuSOLVER's LU) against the CPU within compare()'s tolerance
 * (the sums' order, the factorisation's and log() differ), with the same
 * singular nodes (coincident points in the lattice's neighbourhoods,
 * smoothing=0); a system beyond GK_GPU_RBF_MAX_N unknowns runs on the CPU
 * (part of test_gpu). */
#include "gpu_harness.h"

void test_rbf(const dataset *u, const dataset *l, const dataset *s)
{
    const gpu_case near[] = {
        {"rbf:neighbors=20", u, 0},
        {"rbf:kernel=cubic:neighbors=50", u, 0},
        {"rbf:kernel=quintic:neighbors=12:smoothing=0.5", l, 0},
        {"rbf:kernel=gaussian:epsilon=0.02:neighbors=16", s, 0},
        {"rbf:kernel=multiquadric:epsilon=0.05:degree=2:neighbors=40", s, 0},
        {"rbf:kernel=inverse_quadratic:epsilon=0.05:degree=-1:neighbors=7", u, 0},
    };
    compare_cases(near, NCASES(near));
    /* the lattice's coincident points: the same nodes singular on both */
    compare_krige("rbf:neighbors=9", 0, l, 1);
    compare_krige("rbf:kernel=linear:neighbors=24", 0, l, 1);
    /* one global system (well conditioned: a flat Gaussian, epsilon=0.01 here,
     * has both devices' values apart by its condition number times the
     * rounding, 8e-5) */
    compare("rbf:smoothing=0.01", 0, s, 1);
    compare("rbf:kernel=gaussian:epsilon=0.05", 0, s, 1);
    compare("rbf:kernel=cubic:smoothing=0.1", 0, l, 1);
    /* the CPU's: a local system beyond the kernel's size */
    compare("rbf:neighbors=200", 0, s, 0);
    test_split("rbf:neighbors=30", u);
}
