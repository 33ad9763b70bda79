/* SPDX-License-Identifier: MIT */
/* test_gpu_simulation.c - simulation's weights on the GPU (gpu/simulation.cu,
 * the CPU's operations): with Nug and Sph models every realization bit for
 * bit the CPU's (anisotropy, a radius, ordinary and simple kriging, a random
 * path, 32 neighbours, indicator simulation, a 700 x 650 grid); with Exp and
 * Gau within 1e-9 (CUDA's exp is not the C library's), counted. */
#include "gpu_harness.h"

void test_simulation(const dataset *u, const dataset *l, const dataset *s)
{
    compare_bits("kriging:model=Sph:psill=1:range=300:nugget=0.05:nsim=3:seed=2", u, 1);
    compare_bits("kriging:model=Sph:psill=1:range=250:anis_angle=30:anis_ratio=0.5:radius=400:"
                 "nsim=2:seed=5:path=random",
                 l, 1);
    compare_bits("kriging:type=simple:mean=0:model=Sph:psill=1:range=200:max_points=32:nsim=2", s,
                 1);
    compare_bits("kriging:model=Sph:psill=0.2:range=900:indicator=80,100,120:nsim=2:seed=3", u, 1);
    compare_bits("kriging:model=Exp:psill=1:range=150:nugget=0.1:nsim=2:seed=7", u, 0);
    compare_bits("kriging:model=Gau:psill=1:range=150:nugget=0.1:nsim=2:seed=7", l, 0);
    dataset big = *u;
    big.g.nx = 700, big.g.ny = 650;
    big.name = "uniform 700x650";
    compare_bits("kriging:model=Sph:psill=1:range=300:nugget=0.05:nsim=2:seed=11", &big, 1);
}
