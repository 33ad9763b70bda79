#!/bin/bash
# SPDX-License-Identifier: MIT
# gdal_grid's time at 4096^2 for the cases where the whole grid would take 10 to 50 minutes
# (docs/benchmarks.md, "End to end"): gdal_grid (16 threads) on a band across the middle of the
# same 4096^2 grid, a sixteenth of its rows (a sixty-fourth for nearest); its time times 16
# (64) estimates the whole grid, as these algorithms cost the same per node across the square.
# Needs .e2e/ (carried; scripts/device/e2e_setup.sh). Run from the repository root.
source scripts/device/e2e_setup.sh >/dev/null 2>&1 || { echo setup failed; exit 1; }
nproc
B="-q -zfield z -ot Float32 -of GTiff -txe 0 10000"
echo "== gdal_grid invdistnn, 4096 x 256 of 4096^2 (x16)"
GDAL_NUM_THREADS=16 w gdal_grid $B -tye 4687.5 5312.5 -outsize 4096 256 \
  -a invdistnn:power=2:radius=200:max_points=16 pts.gpkg b1.tif
echo "== gdal_grid invdist, 4096 x 256 of 4096^2 (x16)"
GDAL_NUM_THREADS=16 w gdal_grid $B -tye 4687.5 5312.5 -outsize 4096 256 -a invdist:power=2 pts.gpkg b2.tif
echo "== gdal_grid nearest, 4096 x 64 of 4096^2 (x64)"
GDAL_NUM_THREADS=16 w gdal_grid $B -tye 4921.875 5078.125 -outsize 4096 64 -a nearest pts.gpkg b3.tif
