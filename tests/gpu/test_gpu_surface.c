/* SPDX-License-Identifier: MIT */
/* test_gpu_surface.c - surface on the GPU: each grid of the cascade swept
 * by gpu/surface.cu with the CPU's arithmetic (algorithms/spline/
 * surface_node.h), so every node bit for bit the CPU's: tension, edge
 * tension, an aspect, bounds, and a grid of 700 x 650 nodes (several
 * blocks a row, thousands of sweeps in batches). */
#include "gpu_harness.h"

void test_surface(const dataset *u, const dataset *l, const dataset *s)
{
    compare_bits("surface", u, 1);
    compare_bits("surface:tension=0.35:btension=0.1", s, 1);
    compare_bits("surface:aspect=0.8:relax=1.2", l, 1);
    compare_bits("surface:lower=data:upper=data:tension=0.2", u, 1);
    dataset big = *u;
    big.g.nx = 700, big.g.ny = 650;
    big.name = "utm 700x650";
    compare_bits("surface:converge=1e-3", &big, 1);
}
