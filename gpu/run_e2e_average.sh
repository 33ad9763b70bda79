#!/bin/bash
# average and count end to end through GDAL on the GPU machine's CPU cores:
# this build beside the previous one (.e2e/gridkit_prev, when carried), runs
# interleaved, pixels compared, gdal_grid on every core; then the one-core
# bucket-grid bench (test_algorithms bench, when carried). Needs .e2e/
# (carried): gridkit built with GDAL and pack-gdal-runtime's tarball.
# docs/benchmarks.md, "Seventh session".
E=$PWD/.e2e; W=/tmp/e2e; mkdir -p $W
tar -C $W -xJf $E/gdal-runtime.tar.xz && source $W/gdal-runtime/env.sh || exit 1
cp $E/gridkit* $W/ && cd $W || exit 1
lscpu | grep -E "Model name|^CPU\(s\)|Flags" | sed 's/Flags:.*avx512f.*/Flags: avx512f present/'
awk -v n=1048576 'BEGIN{srand(42); print "x,y,z"; for(i=0;i<n;i++){x=10000*rand(); y=10000*rand();
  printf "%.4f,%.4f,%.6f\n", x, y, sin(6e-4*x)+cos(5e-4*y)+0.1*rand()}}' > pts.csv
ogr2ogr -f GPKG pts.gpkg pts.csv -oo X_POSSIBLE_NAMES=x -oo Y_POSSIBLE_NAMES=y -oo AUTODETECT_TYPE=YES -nln pts
w() { local s=$(date +%s.%N); "$@" 2>err.txt; local rc=$?
  awk -v a=$(date +%s.%N) -v b=$s -v rc=$rc 'BEGIN{printf "wall %.3f s (rc %d)\n", a - b, rc}'
  grep -E "Timings|^Device|Warning|rror" err.txt | sed 's/^/    /'; }
same() { gdal_translate -q -of ENVI $1 a.bil && gdal_translate -q -of ENVI $2 b.bil && cmp -s a.bil b.bil &&
  echo "    pixels identical: $1 $2" || echo "    PIXELS DIFFER: $1 $2"; }
C="-q --timings -zfield z -txe 0 10000 -tye 0 10000 -ot Float32 -of GTiff -outsize 4096 4096"
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
[ -x $E/test_algorithms ] && $E/test_algorithms bench 2>&1 | grep -E "bucket grid|rule|cell 4|issue 4"
