#!/bin/bash
# SPDX-License-Identifier: MIT
# average and count end to end through GDAL on the GPU machine's CPU cores:
# this build beside the previous one (.e2e/gridkit_prev, when carried), runs
# interleaved, pixels compared, gdal_grid on every core. Needs .e2e/
# (carried): gridkit built with GDAL and pack-gdal-runtime's tarball.
# Run from the repository root: bash scripts/device/run_e2e_average.sh
source "$(dirname "$0")/e2e_setup.sh"
lscpu | grep -E "Model name|^CPU\(s\)|Flags" | sed 's/Flags:.*avx512f.*/Flags: avx512f present/'
A=average:radius1=25:radius2=25
./gridkit grid $C -a $A pts.gpkg warm.tif 2>/dev/null # page cache
for r in 1 2 3 4; do
  echo "== average"; w ./gridkit grid $C -a $A pts.gpkg a_new.tif
  [ -x gridkit_prev ] && { echo "== average, previous build"; w ./gridkit_prev grid $C -a $A pts.gpkg a_prev.tif; }
done
[ -x gridkit_prev ] && same a_new.tif a_prev.tif
for r in 1 2; do
  echo "== count"; w ./gridkit grid $C -a count:radius1=25:radius2=25 pts.gpkg c_new.tif
  [ -x gridkit_prev ] && { echo "== count, previous build"; w ./gridkit_prev grid $C -a count:radius1=25:radius2=25 pts.gpkg c_prev.tif; }
done
[ -x gridkit_prev ] && same c_new.tif c_prev.tif
echo "== gdal_grid average (GDAL_NUM_THREADS=16)"
GDAL_NUM_THREADS=16 w gdal_grid -q ${C/-q --timings/} -a $A pts.gpkg a_gd.tif
echo "== average, after gdal_grid"; w ./gridkit grid $C -a $A pts.gpkg a_new.tif
