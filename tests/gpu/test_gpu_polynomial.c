/* SPDX-License-Identifier: MIT */
/* test_gpu_polynomial.c - polynomial: the local fits on the GPU against the
 * CPU, bit for bit unweighted (both run geostat/polynomial_fit.h
 * uncontracted, on the same neighbours in input order) and with a whole
 * power, within compare()'s tolerance otherwise (pow and exp round their own
 * way); the nodes fitted at
 * a lower degree counted alike; what the kernel does not take runs on the
 * CPU (part of test_gpu). */
#include "gpu_harness.h"

#include <stdio.h>
#include <stdlib.h>

/* Both devices' counts of nodes fitted at a lower degree. */
static void same_lowered(const char *spec, const dataset *d, int expect_some)
{
    char cn[800] = "", gn[800] = "";
    double *c = run("cpu", spec, 0, d, cn, sizeof cn);
    uint64_t lc = last_lowered;
    double *g = run("cuda", spec, 0, d, gn, sizeof gn);
    uint64_t lg = last_lowered;
    CHECKF(c && g && lc == lg && (!expect_some || lc > 0),
           "%s %s: lowered nodes cpu %llu, gpu %llu", spec, d->name, (unsigned long long)lc,
           (unsigned long long)lg);
    free(c);
    free(g);
}

/* Random UTM points (radius and min_points: nodata nodes), the lattice with
 * holes and duplicates (collinear and coincident neighbours: lower
 * degrees), 300 points. */
void test_polynomial(gk_context *ctx, const dataset *u, const dataset *l, const dataset *s)
{
    (void)ctx;
    const gpu_case bits[] = {
        {"polynomial:degree=2:max_points=32", u, 0},
        {"polynomial:degree=1:max_points=8", u, 0},
        {"polynomial:degree=0:max_points=16", u, 0},
        {"polynomial:degree=3:max_points=20:radius=300:min_points=12", u, 0},
        {"polynomial:degree=2:max_points=12", l, 0},
        {"polynomial:degree=3:max_points=9", l, 0},
        {"polynomial:degree=2:max_points=3", l, 0},
        {"polynomial:degree=2:max_points=32", s, 0},
        {"polynomial:degree=3:max_points=17:radius=40", s, 0},
        /* a whole power: products, not pow(), on both */
        {"polynomial:degree=2:max_points=24:weight=power:power=2:radius=400", u, 0},
        {"polynomial:degree=1:max_points=12:weight=power:power=3:radius=5", l, 0},
    };
    for (size_t i = 0; i < NCASES(bits); i++)
        compare_bits(bits[i].spec, bits[i].d, 1);
    const gpu_case near[] = {
        {"polynomial:degree=1:max_points=16:weight=gauss:bandwidth=150", u, 0},
        {"polynomial:degree=2:max_points=10:weight=power:power=1.5:radius=3", l, 0},
    };
    for (size_t i = 0; i < NCASES(near); i++)
        compare(near[i].spec, 0, near[i].d, 1);
    same_lowered("polynomial:degree=3:max_points=9", l, 1);
    same_lowered("polynomial:degree=2:max_points=12", l, 0);
    same_lowered("polynomial:degree=2:max_points=24:weight=power:power=2:radius=400", u, 0);
    /* the CPU's: the global surface, more neighbours, per quadrant */
    compare("polynomial:degree=2", 0, u, 0);
    compare("polynomial:degree=1:max_points=40", 0, s, 0);
    compare("polynomial:degree=1:max_points=16:max_points_per_quadrant=4", 0, u, 0);
    test_split("polynomial:degree=2:max_points=16", u);
}
