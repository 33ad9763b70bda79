/* SPDX-License-Identifier: MIT */
/* test_gpu_natural.c - natural: the nodes the GPU's filters decide, against
 * the CPU bit for bit (both run linear/natural_node.h uncontracted; the
 * nodes the GPU leaves are the CPU's anyway), and the share of nodes left to
 * the CPU (part of test_gpu). */
#include "gpu_harness.h"

#include "core/device.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Random UTM points (beyond the hull: radius 0, -1 and positive), the
 * lattice with holes and duplicates (nodes on points, edges and cocircular
 * squares: the CPU's) on a grid past it, 300 points, coincident points. */
void test_natural(gk_context *ctx, const dataset *u, const dataset *l, const dataset *s)
{
    dataset lw = *l;
    lw.name = "lattice wide";
    lw.g = (gk_grid){-3.25, 43.25, -2.25, 42.75, 93, 90};
    unsigned long long st = 0x9E3779B97F4A7C15ULL;
    dataset dup = {.name = "duplicates",
                   .pts = gk_points_new(ctx),
                   .g = (gk_grid){-20.0, 1020.0, -20.0, 1020.0, 130, 130}};
    for (int i = 0; i < 3000; i++) {
        double x = 1000.0 * grand(&st), y = 1000.0 * grand(&st), z = 50.0 * grand(&st);
        gk_points_add(dup.pts, x, y, z);
        if (i % 4 == 0)
            gk_points_add(dup.pts, x, y, z + 7.0);
    }
    set_zrange(&dup);
    const gpu_case cases[] = {
        {"natural", u, 0},
        {"natural:type=laplace", u, 0},
        {"natural:radius=-1", u, 0},
        {"natural:radius=150:type=laplace", u, 0},
        {"natural", l, 0},
        {"natural:type=laplace", &lw, 0},
        {"natural:radius=1.5", &lw, 0},
        {"natural", s, 0},
        {"natural", &dup, 0},
        {"natural:type=laplace:radius=-1", &dup, 0},
        /* the gradients the CPU fitted; nodes with a hull neighbour the CPU's */
        {"natural:type=sibson_c1", u, 0},
        {"natural:type=sibson_c1", l, 0},
        {"natural:type=sibson_c1:radius=-1", &dup, 0},
        {"natural:type=sibson_c1", s, 0},
    };
    for (size_t i = 0; i < NCASES(cases); i++)
        compare_bits(cases[i].spec, cases[i].d, 1);
    /* the grid reaches 200 past the points' 10 km square: 7 % of the nodes
     * are outside it, a little more outside the hull; the filters decide
     * nearly every node inside */
    cpu_rest_share("natural", u, 0.05, 0.12);
    /* and those with a hull neighbour too, a band along the hull */
    cpu_rest_share("natural:type=sibson_c1", u, 0.06, 0.2);
    test_split("natural", u);
    gk_points_free(dup.pts);
}
