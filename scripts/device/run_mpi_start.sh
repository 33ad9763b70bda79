#!/bin/bash
# SPDX-License-Identifier: MIT
# What starting and ending mpirun costs (docs/benchmarks.md, "MPI scale-out"):
# a 64 x 64 grid on the GPU from 20,000 points, as one process, under
# `mpirun -n 1` and `-n 2`, and `mpirun -n 1 true`, three runs each; every
# gridkit run prints rank 0's wait for its GPU and its own total. Needs
# .mpi-e2e/ as run_e2e_mpi.sh. Usage, from the repository root:
# bash scripts/device/run_mpi_start.sh
E=$PWD/.mpi-e2e
W=/tmp/mpi-start
mkdir -p $W
tar -C $W -xJf $E/gdal-runtime.tar.xz && source $W/gdal-runtime/env.sh || exit 1
tar -C $W -xJf $E/ompi-runtime.tar.xz && source $W/ompi-runtime/env.sh || exit 1
cmake -S . -B /tmp/gk-cuda -DGRIDKIT_WITH_GDAL=OFF -DGRIDKIT_TESTS=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null &&
  cmake --build /tmp/gk-cuda -j"$(nproc)" --target gridkit_cuda >/dev/null || exit 1
cp $E/gridkit $E/gridkit_mpi.so /tmp/gk-cuda/gridkit_cuda.so $W/ && cd $W || exit 1
echo "$(nvidia-smi -L | wc -l) GPUs; $(nproc) cores; $(mpirun --version | head -1)"
awk -v n=20000 'BEGIN{srand(42); print "x,y,z"; for(i=0;i<n;i++){x=10000*rand(); y=10000*rand();
  printf "%.4f,%.4f,%.6f\n", x, y, sin(6e-4*x)+cos(5e-4*y)+0.1*rand()}}' > small.csv
MPI="mpirun --bind-to none --oversubscribe --mca btl self,vader -x PATH -x LD_LIBRARY_PATH -x GDAL_DATA -x PROJ_DATA"
T="-q --timings --device cuda -txe 0 10000 -tye 0 10000 -outsize 64 64 -a invdist:power=2:radius=500
   -oo X_POSSIBLE_NAMES=x -oo Y_POSSIBLE_NAMES=y -zfield z small.csv t.tif"
run() { # label command...
  local label=$1 s e
  shift
  s=$(date +%s.%N)
  "$@" >out.txt 2>err.txt || echo "  FAILED: $(tail -2 err.txt)"
  e=$(date +%s.%N)
  echo "  $label: $(awk -v a=$e -v b=$s 'BEGIN{printf "%.3f s", a - b}')" \
    "$(grep -o 'waiting for the GPU [0-9.]*\|total [0-9.]*' err.txt | tr '\n' ' ')"
}
for rep in 1 2 3; do
  run "mpirun -n 1 true" $MPI -n 1 true
  run "one process" env CUDA_VISIBLE_DEVICES=0 ./gridkit grid $T
  run "mpirun -n 1" $MPI -x CUDA_VISIBLE_DEVICES=0 -n 1 ./gridkit grid $T
  run "mpirun -n 2" $MPI -n 2 ./gridkit grid $T
done
