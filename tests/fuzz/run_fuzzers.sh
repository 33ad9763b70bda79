#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds the libFuzzer targets with ASan+UBSan in their own build folder and
# runs each one over its corpus, then for a number of executions or seconds.
#
#   tests/fuzz/run_fuzzers.sh [-runs N | -time SECONDS] [TARGET ...]
#
# Targets: algorithm_string grid_args job_string job_file xyz vmodel_json ridges_string
# (default all).
# Default: -time 20. Environment: FUZZ_BUILD (build folder, default
# build-fuzz), FUZZ_JOBS (build jobs, default nproc).
# New inputs go to $FUZZ_BUILD/work/TARGET/, never into tests/fuzz/corpus/;
# a finding is written there as crash-*/leak-*/timeout-*: fix the code, then
# add the input to tests/fuzz/corpus/TARGET/ as a regression seed.
# Ends with PASS (exit 0) or FAIL (exit 1) and one line per target.
set -eu
cd "$(dirname "$0")/../.."
src=$(pwd)
build=${FUZZ_BUILD:-build-fuzz}
mode=-max_total_time=20
if [ "${1:-}" = -runs ]; then mode=-runs=$2; shift 2
elif [ "${1:-}" = -time ]; then mode=-max_total_time=$2; shift 2; fi
targets=${*:-algorithm_string grid_args job_string job_file xyz vmodel_json ridges_string}

san="-fsanitize=address,undefined -fno-sanitize-recover=all"
mkdir -p "$build"
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DGRIDKIT_WITH_CUDA=OFF -DGRIDKIT_FUZZ=ON \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    -DCMAKE_C_FLAGS_DEBUG="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $san" \
    -DCMAKE_CXX_FLAGS_DEBUG="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $san" \
    -DCMAKE_EXE_LINKER_FLAGS="$san" >"$build/gk-cmake.log" 2>&1 ||
    { cat "$build/gk-cmake.log"; echo "FAIL: configuring $build"; exit 1; }
tl=""
for t in $targets; do tl="$tl --target fuzz_$t"; done
cmake --build "$build" -j"${FUZZ_JOBS:-$(nproc)}" $tl >"$build/gk-build.log" 2>&1 ||
    { tail -50 "$build/gk-build.log"; echo "FAIL: building the fuzz targets"; exit 1; }

# intercept_tls_get_addr=0: as in scripts/ci-sanitizers.sh (LLVM 14's dynamic
# TLS record can hold a garbage range that crashes the leak scan)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
summary="" status=0
for t in $targets; do
    work="$build/work/$t"
    mkdir -p "$work/corpus"
    log="$work/fuzz.log"
    echo "== fuzz_$t $mode (log: $log)"
    if "$build/fuzz/fuzz_$t" $mode -timeout=10 -print_final_stats=1 -artifact_prefix="$work/" \
        "$work/corpus" "tests/fuzz/corpus/$t" >"$log" 2>&1; then
        res=ok
    else
        res=FINDING status=1
        grep -A30 "ERROR\|runtime error\|==ABORT\|deadly signal" "$log" | head -60
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    line="fuzz_$t: $res, ${execs:-?} executions, ${rate:-?} exec/s"
    echo "$line"
    summary="$summary$line
"
done
printf '%s' "$summary"
if [ $status = 0 ]; then echo "PASS: fuzzing ($mode)"; else echo "FAIL: fuzzing found a problem (inputs under $build/work/)"; fi
exit $status
