/* SPDX-License-Identifier: MIT */
/* test_gpu_shepard.c - shepard: the nodal functions fitted on the CPU, their
 * sums on the GPU against the CPU bit for bit (both run
 * idw/shepard_node.h uncontracted), on split tiles too (part of test_gpu). */
#include "gpu_harness.h"

/* Random UTM points (nodes beyond every radius: nodata), the lattice with
 * holes and duplicates (coincident points, nodes on points), 300 points;
 * the keys and smoothing. */
void test_shepard(const dataset *u, const dataset *l, const dataset *s)
{
    const gpu_case cases[] = {
        {"shepard", u, 0},
        {"shepard:quadratic_points=20:weight_points=10:smoothing=5", u, 0},
        {"shepard:nodata=-9999", l, 0},
        {"shepard:quadratic_points=6:weight_points=5", l, 0},
        {"shepard", s, 0},
        {"shepard:quadratic_points=40:weight_points=40", s, 0},
    };
    for (size_t i = 0; i < NCASES(cases); i++)
        compare_bits(cases[i].spec, cases[i].d, 1);
    test_split("shepard", u);
}
