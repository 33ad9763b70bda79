#!/bin/bash
# average radius 25 end to end, gridkit grid against gdal_grid in pairs run
# back to back (gdal_grid, then gridkit twice), so that each ratio compares
# runs of the same minute of a machine whose speed drifts. Needs .e2e/
# (carried): gridkit built with GDAL and pack-gdal-runtime's tarball.
# docs/benchmarks.md, "Ninth session". PAIRS=n sets the number of pairs (6).
source "$(dirname "$0")/e2e_setup.sh"
nproc
A=average:radius1=25:radius2=25
./gridkit grid $C -a $A pts.gpkg warm.tif 2>/dev/null # page cache
t() { local s=$(date +%s.%N); "$@" 2>>err.txt || echo "rc $? from $1" >&2
  awk -v a=$(date +%s.%N) -v b=$s 'BEGIN{printf "%.3f", a - b}'; }
: > err.txt
printf "%-5s %10s %10s %10s %8s %8s\n" pair gdal_grid gridkit gridkit ratio ratio
for p in $(seq 1 ${PAIRS:-6}); do
  g=$(GDAL_NUM_THREADS=16 t gdal_grid -q ${C/-q --timings/} -a $A pts.gpkg a_gd.tif)
  k1=$(t ./gridkit grid $C -a $A pts.gpkg a_new.tif)
  k2=$(t ./gridkit grid $C -a $A pts.gpkg a_new.tif)
  awk -v p=$p -v g=$g -v a=$k1 -v b=$k2 \
    'BEGIN{printf "%-5d %9.3fs %9.3fs %9.3fs %7.1fx %7.1fx\n", p, g, a, b, g / a, g / b}'
done
same a_gd.tif a_new.tif
echo "gridkit's --timings, in run order:"; grep Timings err.txt
