#!/bin/sh
# SPDX-License-Identifier: MIT
# Line and branch coverage of algorithms/ and driver/ by the CPU test suite
# (Debian's gcovr): a --coverage build in build-cov, the whole ctest suite,
# then gcovr's summary and an HTML report in build-cov/coverage/.
#
#   scripts/coverage.sh [ctest arguments]     e.g. -E '^(gstat|mpi)$'
# Environment: JOBS (default nproc); COVERAGE_GPU, the tarball that
# scripts/device/coverage_gpu.sh made on a GPU machine (the core's GPU paths
# and the AVX-512 kernels; the same repository path there), added to the
# figures (COVERAGE_GPU_COMMIT: the commit they measured, where the tarball
# does not record it). Without it the GPU module is not run: its glue in the core is
# measured with the stand-in module tests/core/fake_gpu.c.
set -eu
cd "$(dirname "$0")/.."
jobs=${JOBS:-$(nproc)}
dir=build-cov
flags="--coverage -O1 -g -DGK_EXIT_NORMALLY"
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DGRIDKIT_WITH_CUDA=OFF -DGRIDKIT_TEST_TIMEOUT_SCALE=4 \
    -DCMAKE_C_FLAGS_DEBUG="$flags" -DCMAKE_CXX_FLAGS_DEBUG="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS=--coverage -DCMAKE_SHARED_LINKER_FLAGS=--coverage \
    -DCMAKE_MODULE_LINKER_FLAGS=--coverage >"$dir.log" 2>&1 || { cat "$dir.log"; exit 1; }
cmake --build "$dir" -j"$jobs" >>"$dir.log" 2>&1 || { tail -40 "$dir.log"; exit 1; }
find "$dir" -name '*.gcda' -delete
ctest --test-dir "$dir" -j"$jobs" "$@" || echo "coverage: some tests failed (the figures below still count what ran)"
mkdir -p "$dir/coverage"
# Each build's counters on their own (gcovr searches the directory it is given);
# further arguments: more gcovr options (--exclude).
measure() {
    d=$1 j=$2
    shift 2
    gcovr -r . "$d" -f 'algorithms/' -f 'driver/' --exclude-unreachable-branches \
        --exclude-throw-branches --json "$j" -j"$jobs" "$@"
}
measure "$dir" "$dir/coverage/cpu.json"
set -- -a "$dir/coverage/cpu.json"
if [ -n "${COVERAGE_GPU:-}" ]; then
    rm -rf build-cov-gpu && tar -xzf "$COVERAGE_GPU"
    # its counters stand for the commit it measured: files changed since then
    # (their lines moved) are left out of them, not guessed
    base=${COVERAGE_GPU_COMMIT:-$(cat build-cov-gpu/commit.txt 2>/dev/null)}
    set --
    [ -n "$base" ] || echo "coverage: no commit recorded with the GPU machine's counters: set COVERAGE_GPU_COMMIT"
    for f in $(git diff --name-only "$base" -- algorithms driver 2>/dev/null); do
        set -- "$@" --exclude "$f"
    done
    echo "coverage: the GPU machine's counters are of $base; $(($# / 2)) files changed since left out of them"
    measure build-cov-gpu "$dir/coverage/gpu.json" "$@"
    set -- -a "$dir/coverage/cpu.json"
    echo "coverage: the CPU suite alone"
    gcovr -r . "$@" --print-summary | tail -3
    set -- "$@" -a "$dir/coverage/gpu.json"
    echo "coverage: with the GPU machine's counters"
fi
gcovr -r . "$@" --html-details "$dir/coverage/index.html" --txt "$dir/coverage/summary.txt" \
    --print-summary
