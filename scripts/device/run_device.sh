#!/bin/bash
# SPDX-License-Identifier: MIT
# Run from the repository root (bash scripts/device/run_device.sh [all|krige]).
# Builds gridkit without GDAL on the GPU machine, runs the GPU-against-CPU
# comparisons and the benchmark; logs go to $OUT. "all" also runs the CPU
# suites first; "krige" times only the kriging kernel variants and the
# variogram (bench_gpu krige).
set -o pipefail
OUT=${OUT:-/tmp/gk-out}
mkdir -p "$OUT"
B=/tmp/gk-build
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv | tee "$OUT/gpu.txt"
nproc
cmake -S . -B $B -DGRIDKIT_WITH_GDAL=OFF -DGRIDKIT_PTXAS_VERBOSE=OFF >"$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
cmake --build $B -j16 >"$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
grep -E "warning" "$OUT/build.log" | head
if [ "$1" = all ]; then
    shift
    (cd $B && ctest -E '^gpu$' --output-on-failure 2>&1 | tail -15)
fi
(cd $B && timeout 200 ctest -R '^gpu$' 2>&1 | tail -3)
timeout 200 $B/test_gpu 2>&1 | tee "$OUT/test_gpu.log" | grep -vE "^ok " 
grep -cE "^ok " "$OUT/test_gpu.log"
timeout 400 $B/bench_gpu "$@" 2>&1 | tee "$OUT/bench.log"
[ "$1" = krige ] || timeout 120 $B/bench_gpu tune 16 2>&1 | tee "$OUT/tune.log"
