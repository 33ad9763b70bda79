#!/bin/bash
# SPDX-License-Identifier: MIT
# Scale-out on one GPU machine (docs/benchmarks.md, "MPI"): `mpirun -n N
# gridkit grid` with one GPU a rank, N = 1, 2 and 4 (as many as the machine
# has), against the plain run, on 1,048,576 points in a 10 km square:
# kriging (k = 32) on 16384 x 16384 and invdist over all points (compute),
# average (input and output). Every output is compared with the plain run's,
# byte for byte. Needs .mpi-e2e/ (carried): gridkit, gridkit_cuda.so,
# gridkit_mpi.so, pack-gdal-runtime's tarball (with gridkit and
# gridkit_mpi.so) and scripts/device/pack-openmpi-runtime.sh's.
# Usage, from the repository root: bash scripts/device/run_e2e_mpi.sh [case...]
# Environment: INVDIST_N (invdist's grid side, default 4096), REPS (runs per
# rank count, default 2), PARTS=0 (skip the --parts runs), WORK (where the
# points and outputs go, default /tmp/mpi-e2e; /dev/shm/... takes the disk
# out of the outputs' writing).
set -o pipefail
E=$PWD/.mpi-e2e
W=${WORK:-/tmp/mpi-e2e}
mkdir -p $W || exit 1
echo "work in $W: $(df -h $W | tail -1)"
echo "writing 1 GiB there: $(dd if=/dev/zero of=$W/dd.bin bs=4M count=256 2>&1 | tail -1)"
rm -f $W/dd.bin
tar -C $W -xJf $E/gdal-runtime.tar.xz && source $W/gdal-runtime/env.sh || exit 1
tar -C $W -xJf $E/ompi-runtime.tar.xz && source $W/ompi-runtime/env.sh || exit 1
# the CUDA module is built here, from this tree (it needs no GDAL): the carry stays small
cmake -S . -B /tmp/gk-cuda -DGRIDKIT_WITH_GDAL=OFF -DGRIDKIT_TESTS=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null &&
  cmake --build /tmp/gk-cuda -j"$(nproc)" --target gridkit_cuda >/dev/null || exit 1
cp $E/gridkit $E/gridkit_mpi.so /tmp/gk-cuda/gridkit_cuda.so $W/ && cd $W || exit 1
NG=$(nvidia-smi -L | wc -l)
echo "GPUs: $NG ($(nvidia-smi -L | head -1)); $(nproc) cores; $(mpirun --version | head -1)"
awk -v n=1048576 'BEGIN{srand(42); print "x,y,z"; for(i=0;i<n;i++){x=10000*rand(); y=10000*rand();
  printf "%.4f,%.4f,%.6f\n", x, y, sin(6e-4*x)+cos(5e-4*y)+0.1*rand()}}' > pts.csv
ogr2ogr -f GPKG pts.gpkg pts.csv -oo X_POSSIBLE_NAMES=x -oo Y_POSSIBLE_NAMES=y -oo AUTODETECT_TYPE=YES -nln pts
export GRIDKIT_CPU_SHARE=0  # the same bytes as one process: no CPU share of the GPU runs
COMMON="-q --timings --device cuda -zfield z -txe 0 10000 -tye 0 10000 -ot Float32"
declare -A ALG=(
  [kriging]="-outsize 16384 16384 -a kriging:model=Exp:psill=1:range=1500:nugget=0.001:max_points=32"
  [invdist]="-outsize ${INVDIST_N:-4096} ${INVDIST_N:-4096} -a invdist:power=2"
  [average]="-outsize 16384 16384 -a average:radius1=25:radius2=25"
)
# mpirun on one host, one GPU a rank (gridkit sets CUDA_VISIBLE_DEVICES by
# local rank); no binding, so that each rank has every core
MPI="mpirun --bind-to none --oversubscribe --mca btl self,vader -x PATH -x LD_LIBRARY_PATH -x GDAL_DATA -x PROJ_DATA -x PROJ_LIB"
t() { local s=$(date +%s.%N); timeout 500 "$@" >out.txt 2>err.txt; local rc=$?
  awk -v a=$(date +%s.%N) -v b=$s -v rc=$rc 'BEGIN{printf "%.2f s%s", a - b, rc ? " FAILED rc " rc : ""}'; }
ranks="1 2"; [ $NG -ge 4 ] && ranks="1 2 4"
for c in ${@:-invdist kriging average}; do
  echo "== $c: ${ALG[$c]}"
  # the reference: one process on one GPU
  echo "  plain, one GPU:  $(CUDA_VISIBLE_DEVICES=0 t ./gridkit grid $COMMON ${ALG[$c]} pts.gpkg plain_$c.tif)"
  grep -E "Timings" err.txt | sed 's/^/      /'
  for n in $ranks; do
    vis=""; [ $n = 1 ] && vis="-x CUDA_VISIBLE_DEVICES=0"
    [ $n = 1 ] && export CUDA_VISIBLE_DEVICES=0
    for rep in $(seq ${REPS:-2}); do
      # a new file each time, as the plain run's: ext4 flushes a file renamed over another
      rm -f mpi_${c}_$n.tif
      echo "  mpirun -n $n, run $rep: $(t $MPI $vis -n $n ./gridkit grid $COMMON ${ALG[$c]} pts.gpkg mpi_${c}_$n.tif)"
    done
    unset CUDA_VISIBLE_DEVICES
    grep -E "Rank|Timings|rror" err.txt | sed 's/^/      /'
    cmp -s plain_$c.tif mpi_${c}_$n.tif && echo "      the same bytes as the plain run" ||
      echo "      BYTES DIFFER from the plain run"
    rm -f mpi_${c}_$n.tif
    # --parts: each rank writes its own strips
    [ "${PARTS:-1}" = 0 ] && continue
    rm -rf parts_$c
    [ $n = 1 ] && export CUDA_VISIBLE_DEVICES=0
    echo "  mpirun -n $n --parts: $(t $MPI $vis -n $n ./gridkit grid $COMMON ${ALG[$c]} --parts parts_$c pts.gpkg parts_$c.vrt)"
    unset CUDA_VISIBLE_DEVICES
    grep -E "Timings|rror" err.txt | sed 's/^/      /'
    rm -rf parts_$c parts_$c.vrt
  done
  rm -f plain_$c.tif
done
