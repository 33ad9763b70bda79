#!/bin/bash
# SPDX-License-Identifier: MIT
# Reading the points under MPI (docs/benchmarks.md, "MPI scale-out"): rank 0
# reads and broadcasts them (the default) against every rank reading them
# (GRIDKIT_MPI_READ=each), on 1,048,576 points in a GeoPackage and 16,777,216
# in an XYZ file, to a 64 x 64 grid (reading is all there is to it), on 1, 2
# and 4 ranks. Needs .mpi-e2e/ as run_e2e_mpi.sh. Usage, from the repository
# root: bash scripts/device/run_mpi_read.sh
set -o pipefail
E=$PWD/.mpi-e2e
W=/tmp/mpi-read
mkdir -p $W
tar -C $W -xJf $E/gdal-runtime.tar.xz && source $W/gdal-runtime/env.sh || exit 1
tar -C $W -xJf $E/ompi-runtime.tar.xz && source $W/ompi-runtime/env.sh || exit 1
cp $E/gridkit $E/gridkit_mpi.so $W/ && cd $W || exit 1
echo "$(nproc) cores; $(mpirun --version | head -1)"
awk -v n=1048576 'BEGIN{srand(42); print "x,y,z"; for(i=0;i<n;i++){x=10000*rand(); y=10000*rand();
  printf "%.4f,%.4f,%.6f\n", x, y, sin(6e-4*x)+cos(5e-4*y)+0.1*rand()}}' > pts.csv
ogr2ogr -f GPKG pts.gpkg pts.csv -oo X_POSSIBLE_NAMES=x -oo Y_POSSIBLE_NAMES=y -oo AUTODETECT_TYPE=YES -nln pts
awk -v n=16777216 'BEGIN{srand(7); for(i=0;i<n;i++) printf "%.4f %.4f %.6f\n", 10000*rand(), 10000*rand(), rand()}' > pts16m.xyz
ls -la pts.gpkg pts16m.xyz
MPI="mpirun --bind-to none --oversubscribe --mca btl self,vader -x PATH -x LD_LIBRARY_PATH -x GDAL_DATA -x PROJ_DATA -x PROJ_LIB"
ARGS="-q --timings --device cpu -txe 0 10000 -tye 0 10000 -outsize 64 64 -a nearest"
for src in "pts.gpkg -zfield z" "pts16m.xyz"; do
  echo "== $src"
  for n in 1 2 4; do
    for how in bcast each; do
      [ $n = 1 ] && [ $how = each ] && continue # one rank reads either way
      for rep in 1 2 3; do
        s=$(date +%s.%N)
        $MPI -x GRIDKIT_MPI_READ=$how -n $n ./gridkit grid $ARGS $src out.tif > log.txt 2>&1 || { echo FAILED; tail -3 log.txt; }
        w=$(awk -v a=$(date +%s.%N) -v b=$s 'BEGIN{printf "%.2f", a - b}')
        # the slowest rank's points
        r=$(grep -oE "(points in|read points) [0-9.]+" log.txt | awk '{if ($3 > m) m = $3} END {printf "%.3f", m}')
        echo "  -n $n $how run $rep: wall $w s, points on every rank after $r s"
      done
    done
  done
done
