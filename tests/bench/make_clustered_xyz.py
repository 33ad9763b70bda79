#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Clustered test points for the density benchmarks (docs/benchmarks.md):
N points, 70 % in four Gaussian clusters (sd 600 m), 30 % uniform over a
10 km square, weight in [0.5, 2); "x y w" lines on stdout, seeded.

    make_clustered_xyz.py N > pts.xyz
"""
import random
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
random.seed(5)
centres = [(2000, 3000), (7000, 6000), (5000, 8000), (3000, 7000)]
out = []
for _ in range(n):
    if random.random() < 0.7:
        cx, cy = random.choice(centres)
        x, y = random.gauss(cx, 600), random.gauss(cy, 600)
    else:
        x, y = random.uniform(0, 10000), random.uniform(0, 10000)
    out.append("%.3f %.3f %.2f" % (x, y, random.uniform(0.5, 2)))
sys.stdout.write("\n".join(out) + "\n")
