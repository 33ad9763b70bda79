/* SPDX-License-Identifier: MIT */
/* test_gpu_rst.c - rst on the GPU: rbf's global op (gpu/rbf.cu, cuSOLVER's
 * LU) with GRASS's RST function, on the points the core kept (dmin), against
 * the CPU within compare()'s tolerance (the factorisations, the order of the
 * sums and log() round their own way), in one segment; in v.surf.rst's
 * segments, the CPU's systems and the nodes' sums on the GPU
 * (gpu/rst_segments.cu: the same operations but CUDA's exp and log), within
 * the same tolerance (part of test_gpu). */
#include "gpu_harness.h"

void test_rst(const dataset *l, const dataset *s)
{
    compare("rst:npmin=100:segmax=100000", 0, s, 1);
    compare("rst:tension=15:smooth=0.5:npmin=300:zscale=3:segmax=100000", 0, s, 1);
    /* the lattice's coincident points and close ones dropped first */
    compare("rst:dmin=0.6:smooth=0.2:segmax=100000", 0, l, 1);
    /* v.surf.rst's segments: their values on the GPU */
    compare("rst:npmin=100", 0, s, 1);
    compare("rst:npmin=60:segmax=20:tension=25:smooth=1:derivatives=slope", 0, s, 1);
    compare("rst:dmin=0.6:npmin=80:segmax=30", 0, l, 1);
    dataset big = *s;
    big.g.nx = 700, big.g.ny = 650;
    big.name = "small 700x650";
    compare("rst:npmin=100", 0, &big, 1);
}
