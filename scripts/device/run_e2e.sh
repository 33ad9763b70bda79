#!/bin/bash
# SPDX-License-Identifier: MIT
# End to end through GDAL on the GPU machine: 1,048,576 uniform random points
# in a GeoPackage to a 4096x4096 Float32 GeoTIFF (invdist: 1024x1024),
# gridkit grid on the GPU against gdal_grid on every core. Needs .e2e/
# (carried): gridkit built with GDAL, gridkit_cuda.so and pack-gdal-runtime's
# tarball. Usage, from the repository root: bash scripts/device/run_e2e.sh
# [gdal_grid cases...]; N and DEVICE override.
set -o pipefail
N=${N:-1048576}
DEVICE=${DEVICE:-cuda}
E=$PWD/.e2e
W=/tmp/e2e
mkdir -p $W
if [ -f $E/gdal-runtime.tar.xz ]; then
  tar -C $W -xJf $E/gdal-runtime.tar.xz && source $W/gdal-runtime/env.sh || exit 1
fi
cp $E/gridkit $E/gridkit_cuda.so $E/bench_linear $W/ 2>/dev/null; cp $E/gridkit $W/ || exit 1
cd $W
t() { local s=$(date +%s.%N) lim=$1; shift
  timeout $lim "$@" >out.txt 2>err.txt || { echo "FAILED($?): $*" >&2; tail -3 err.txt >&2; }
  awk -v a=$(date +%s.%N) -v b=$s 'BEGIN{printf "%.2f", a - b}'; }
awk -v n=$N 'BEGIN{srand(42); print "x,y,z"; for(i=0;i<n;i++){x=10000*rand(); y=10000*rand();
  printf "%.4f,%.4f,%.6f\n", x, y, sin(6e-4*x)+cos(5e-4*y)+0.1*rand()}}' > pts.csv
echo "gpkg: $(t 120 ogr2ogr -f GPKG pts.gpkg pts.csv -oo X_POSSIBLE_NAMES=x -oo Y_POSSIBLE_NAMES=y -oo AUTODETECT_TYPE=YES -nln pts) s"
COMMON="-zfield z -txe 0 10000 -tye 0 10000 -ot Float32 -of GTiff"
declare -A ALG=(
  [invdistnn]="invdistnn:power=2:radius=200:max_points=16"
  [average]="average:radius1=25:radius2=25"
  [linear]="linear"
  [invdist]="invdist:power=2"
  [kriging]="kriging:model=Exp:psill=1:range=1500:nugget=0.001:max_points=16"
  [kriging1]="kriging:model=Exp:psill=1:range=1500:nugget=0.001:max_points=16:variance=no"
)
size() { [ $1 = invdist ] && echo 1024 || echo 4096; }
echo "gridkit grid --device $DEVICE (seconds, wall, reading the GeoPackage and writing the GeoTIFF included):"
./gridkit grid --device $DEVICE $COMMON -outsize 4096 4096 -a ${ALG[invdistnn]} pts.gpkg warm.tif 2>&1 | tail -2
for c in ${GK_CASES:-invdistnn average linear invdist kriging kriging1}; do
  n=$(size $c); prec=""; [ $c = invdist ] && prec="--precision single"
  echo "  $c ${n}x$n: $(t 120 ./gridkit grid -q --timings --device $DEVICE $prec $COMMON -outsize $n $n -a ${ALG[$c]} pts.gpkg gk_$c.tif)"
  grep -iE "read|total" err.txt | tail -2 | sed 's/^/      /'
done
echo "gdal_grid, GDAL_NUM_THREADS=$(nproc):"
for c in "$@"; do
  n=$(size $c)
  echo "  $c ${n}x$n: $(GDAL_NUM_THREADS=$(nproc) t 150 gdal_grid -q $COMMON -outsize $n $n -a ${ALG[$c]} pts.gpkg gd_$c.tif)"
done
gdalinfo gk_kriging.tif | grep -E "^Band|Size is"
[ -x bench_linear ] && ./bench_linear 1048576 4096 $(nproc) 3 | tail -4
