/* SPDX-License-Identifier: MIT */
/* test_gpu_density.c - heatmap, gauss and kernel_smooth on the GPU against
 * the CPU (part of test_gpu): within 1e-9 as every algorithm, and bit for
 * bit, which is the contract (algorithms/density/density_sum.h: the same
 * terms, the same order, the kernels' own exponential); through odd windows
 * and split tiles too. */
#include "gpu_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void bits(const char *spec, const dataset *d)
{
    char cn[800] = "", gn[800] = "";
    compare(spec, 0, d, 1);
    double *c = run("cpu", spec, 0, d, cn, sizeof cn);
    double *g = run("cuda", spec, 0, d, gn, sizeof gn);
    if (c && g) {
        size_t n = (size_t)d->g.nx * d->g.ny, diff = 0, first = 0, nonzero = 0;
        for (size_t i = 0; i < n; i++) {
            nonzero += c[i] != 0 && !isnan(c[i]);
            if (memcmp(c + i, g + i, sizeof *c) && !(isnan(c[i]) && isnan(g[i])))
                if (!diff++)
                    first = i;
        }
        /* a case whose nodes are all zero or nodata would prove nothing */
        int ok = !diff && nonzero > n / 10;
        printf("%-4s %-66s %s: %zu of %zu nodes not bit-identical, %zu non-zero\n",
               ok ? "ok" : "FAIL", spec, d->name, diff, n, nonzero);
        if (diff)
            printf("     first at node (%zu, %zu): cpu %.17g gpu %.17g\n", first % d->g.nx,
                   first / d->g.nx, c[first], g[first]);
        failures += !ok;
    } else {
        printf("FAIL %-66s %s: a run failed\n", spec, d->name);
        failures++;
    }
    free(c);
    free(g);
}

void test_density(const dataset *u, const dataset *l, const dataset *s)
{
    /* reaches of a few cells to the whole grid: u is 10 km, l a 0..100
     * lattice, s small (gpu_harness.c) */
    const char *on_u[] = {
        "heatmap:radius=400",
        "heatmap:radius=250:kernel=triweight:output=scaled",
        "heatmap:radius=300:kernel=triangular:decay=0.5:output=scaled",
        "heatmap:radius=300:kernel=uniform",
        "heatmap:radius=300:kernel=epanechnikov:output=scaled",
        "gauss:bandwidth=150",
        "gauss:bandwidth=400:epsilon=1e-9:normalize=no",
        "gauss:bandwidth=900:method=direct",
        "kernel_smooth:bandwidth=200",
        /* turned ellipses: a term a pair; the expansions of ifgt */
        "gauss:bandwidth_x=300:bandwidth_y=120:angle=30",
        "kernel_smooth:bandwidth_x=250:bandwidth_y=100:angle=-50",
        "gauss:bandwidth=2000:method=ifgt",
        "gauss:bandwidth=800:method=ifgt:normalize=no:epsilon=1e-9",
        /* binned: lattices of 2 and 1 nodes a cell, an ellipse, and cells
         * too coarse for a lattice (the factors then) */
        "gauss:bandwidth=150:method=fft",
        "gauss:bandwidth=400:method=fft:normalize=no:epsilon=1e-9",
        "gauss:bandwidth_x=300:bandwidth_y=120:method=fft",
        "gauss:bandwidth=25:method=fft",
        /* mode=relative (u's weights are positive; l's and s's are not): a
         * cut-off per node, or every point */
        "gauss:bandwidth=150:mode=relative",
        "gauss:bandwidth=400:mode=relative:epsilon=1e-9:normalize=no",
        "gauss:bandwidth=120:mode=relative:method=direct",
    };
    for (size_t k = 0; k < NCASES(on_u); k++)
        bits(on_u[k], u);
    const char *on_l[] = {"heatmap:radius=3.5:kernel=quartic:output=scaled",
                          "gauss:bandwidth=2",
                          "kernel_smooth:bandwidth=1.5:epsilon=1e-3",
                          "gauss:bandwidth_x=3:bandwidth_y=1.5:angle=45:method=direct",
                          "gauss:bandwidth=6:method=ifgt",
                          "gauss:bandwidth=3:method=fft"};
    for (size_t k = 0; k < NCASES(on_l); k++)
        bits(on_l[k], l);
    const char *on_s[] = {"heatmap:radius=120", "gauss:bandwidth=60:method=direct",
                          "kernel_smooth:bandwidth=80", "gauss:bandwidth=40:method=ifgt"};
    for (size_t k = 0; k < NCASES(on_s); k++)
        bits(on_s[k], s);
    /* u's 20,000 points are five segments (GK_DS_SEG) and its grid is a few
     * blocks: the GPU splits the segments over blocks; once more unsplit */
    setenv("GRIDKIT_GPU_GAUSS_SPLIT", "0", 1);
    bits("gauss:bandwidth=400:epsilon=1e-9:normalize=no", u);
    bits("kernel_smooth:bandwidth=200", u);
    unsetenv("GRIDKIT_GPU_GAUSS_SPLIT");
    compare_windows("gauss:bandwidth=150", 0, u);
    compare_windows("heatmap:radius=400", 0, u);
    compare_windows("gauss:bandwidth_x=300:bandwidth_y=120:angle=30", 0, u);
    compare_windows("gauss:bandwidth=2000:method=ifgt", 0, u);
    compare_windows("gauss:bandwidth=150:method=fft", 0, u);
    compare_windows("gauss:bandwidth=150:mode=relative", 0, u);
    test_split("gauss:bandwidth=150", u);
    test_split("kernel_smooth:bandwidth=200", u);
    test_split("heatmap:radius=300:kernel=triweight", u);
    test_split("gauss:bandwidth_x=300:bandwidth_y=120:angle=30", u);
    test_split("gauss:bandwidth=2000:method=ifgt", u);
}
