# SPDX-License-Identifier: MIT
# Sourced by the scripts/device/run_e2e_*.sh scripts: unpacks pack-gdal-runtime's tarball
# from .e2e/ (carried), copies the carried gridkit binaries to /tmp/e2e, makes
# 1,048,576 points in a 10 km square as pts.gpkg there and defines w (time a
# command, show its --timings) and same (compare two rasters' pixels).
E=$PWD/.e2e; W=/tmp/e2e; mkdir -p $W
tar -C $W -xJf $E/gdal-runtime.tar.xz && source $W/gdal-runtime/env.sh || exit 1
cp $E/gridkit* $W/ && cd $W || exit 1
awk -v n=1048576 'BEGIN{srand(42); print "x,y,z"; for(i=0;i<n;i++){x=10000*rand(); y=10000*rand();
  printf "%.4f,%.4f,%.6f\n", x, y, sin(6e-4*x)+cos(5e-4*y)+0.1*rand()}}' > pts.csv
ogr2ogr -f GPKG pts.gpkg pts.csv -oo X_POSSIBLE_NAMES=x -oo Y_POSSIBLE_NAMES=y -oo AUTODETECT_TYPE=YES -nln pts
w() { local s=$(date +%s.%N); "$@" 2>err.txt; local rc=$?
  awk -v a=$(date +%s.%N) -v b=$s -v rc=$rc 'BEGIN{printf "wall %.3f s (rc %d)\n", a - b, rc}'
  grep -E "Timings|^Device|Warning|rror" err.txt | sed 's/^/    /'; }
same() { gdal_translate -q -of ENVI $1 a.bil && gdal_translate -q -of ENVI $2 b.bil && cmp -s a.bil b.bil &&
  echo "    pixels identical: $1 $2" || echo "    PIXELS DIFFER: $1 $2"; }
C="-q --timings -zfield z -txe 0 10000 -tye 0 10000 -ot Float32 -of GTiff -outsize 4096 4096"
