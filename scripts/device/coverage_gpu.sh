#!/bin/sh
# SPDX-License-Identifier: MIT
# Coverage of the code only a GPU machine runs: the core's GPU glue (device,
# kriging's and cross-validation's GPU paths) and the AVX-512 kernels. Run on
# the GPU machine from the repository root (a core-only build: no GDAL there):
#
#   sh scripts/device/coverage_gpu.sh [ctest arguments]  -> $OUT/gpu-coverage.tar.gz
#
# e.g. -R '^(gpu_late_.*|same_bytes|algorithms|crossval)$' for the tests that
# reach that code (the whole core suite at -O1 takes over 10 minutes); then
# test_gpu's families, each in its own process, side by side.
# An existing build-cov-gpu is reused (its counters are reset, except with
# KEEP=1: a second call, e.g. with -R '^$' for test_gpu alone, adds to them,
# so that each call fits in a time limit; FAMILIES=0 leaves test_gpu out).
#
# The tarball holds the build's .gcno and .gcda files under build-cov-gpu/;
# unpacked in the same repository path here, scripts/coverage.sh adds them to
# the CPU suite's figures (COVERAGE_GPU=path/to/gpu-coverage.tar.gz).
# gcc-12 is used where present so that Debian 12's gcov reads the counters.
set -eu
cd "$(dirname "$0")/../.."
dir=build-cov-gpu
cc=$(command -v gcc-12 || command -v cc)
flags="--coverage -O1 -g -DGK_EXIT_NORMALLY"
out=${OUT:-.}
[ -f "$dir/CMakeCache.txt" ] || CC=$cc cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DGRIDKIT_WITH_GDAL=OFF -DGRIDKIT_WITH_CUDA=ON \
    -DCMAKE_C_FLAGS_DEBUG="$flags" -DCMAKE_EXE_LINKER_FLAGS=--coverage \
    -DCMAKE_SHARED_LINKER_FLAGS=--coverage -DCMAKE_MODULE_LINKER_FLAGS=--coverage >"$dir.log" 2>&1 ||
    { tail -40 "$dir.log"; exit 1; }
cmake --build "$dir" -j"$(nproc)" >>"$dir.log" 2>&1 || { tail -40 "$dir.log"; exit 1; }
[ -n "${KEEP:-}" ] || find "$dir" -name '*.gcda' -delete
ctest --test-dir "$dir" -j"$(nproc)" --timeout 300 -E '^gpu$' "$@" >"$out/gpu-coverage-ctest.txt" 2>&1 ||
    echo "coverage: some tests failed (the counters still hold what ran)"
tail -25 "$out/gpu-coverage-ctest.txt"
# test_gpu's families side by side (one process each: serially, a --coverage
# build takes it past 8 minutes); the counters of processes that end are
# merged into the same files (libgcov locks them)
families=$(grep -o 'FAMILY("[a-z_0-9]*"' tests/gpu/test_gpu.c | cut -d'"' -f2)
[ "${FAMILIES:-1}" != 0 ] || families=
for f in $families; do
    GK_TEST_GPU_ONLY=$f timeout 400 "$dir/test_gpu" >"$out/test_gpu_$f.txt" 2>&1 &
done
wait
if [ -n "$families" ]; then
    grep -l "all GPU comparisons passed" "$out"/test_gpu_*.txt | wc -l | sed 's/$/ families passed/'
    grep -L "all GPU comparisons passed" "$out"/test_gpu_*.txt | sed 's/^/not passed: /'
fi
# the commit measured: files changed since are left out where the counters are added
git rev-parse HEAD >"$dir/commit.txt" 2>/dev/null || echo unknown >"$dir/commit.txt"
{ echo "$dir/commit.txt"; find "$dir" -name '*.gcno' -o -name '*.gcda'; } |
    tar -czf "$out/gpu-coverage.tar.gz" -T -
echo "coverage: $out/gpu-coverage.tar.gz ($(find "$dir" -name '*.gcda' | wc -l) counter files)"
