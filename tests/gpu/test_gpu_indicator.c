/* SPDX-License-Identifier: MIT */
/* test_gpu_indicator.c - indicator kriging with --device cuda: each
 * cut-off's kriging on the GPU (geostat/indicator.c), the order relations on
 * the CPU, against the CPU within compare()'s tolerance (the GPU's kriging
 * rounds its own way); the first probability band, which the corrections
 * tie to the others. */
#include "gpu_harness.h"

void test_indicator(const dataset *u, const dataset *l)
{
    compare("kriging:model=Sph:psill=0.2:range=900:max_points=16:indicator=80,100,120", 0, u, 1);
    compare("kriging:model=Exp:psill=0.25:range=300:nugget=0.02:max_points=24:"
            "indicator=90,110:order=clip",
            0, u, 1);
    /* the lattice (coincident points): a model each cut-off */
    compare("kriging:models=Sph(0.2,6);Nug(0.02)+Exp(0.25,4):max_points=12:indicator=-5,5", 0, l,
            1);
}
