#!/bin/sh
# SPDX-License-Identifier: MIT
# CI after the README's test command: the C test suites and the CLI's bad-input
# test under AddressSanitizer + UndefinedBehaviorSanitizer, the threaded ones
# under ThreadSanitizer, then every fuzz target for a short fixed time over its
# corpus. Each in its own build folder (clang-14, libomp: libgomp is not
# instrumented, so TSan sees OpenMP's synchronisation only through libomp's
# archer tool). Ends with PASS (exit 0) or FAIL and what failed (exit 1).
#
#   scripts/ci-sanitizers.sh [asan] [tsan] [fuzz]     (default: all three)
# Environment: FUZZ_SECONDS (per fuzz target, default 20), JOBS (default nproc).
set -u
cd "$(dirname "$0")/.."
src=$(pwd)
jobs=${JOBS:-$(nproc)}
parts=${*:-asan tsan fuzz}
failed=""
t_start=$(date +%s)

# configure_build DIR FLAGS LABEL: a Debug clang build of what the tests
# labelled LABEL run (the configure writes their programs to
# sanitize-LABEL.txt: no hand list; the GDAL plugin module and the MPI module
# are not among them, and an instrumented module would need an instrumented
# process to load it).
configure_build() {
    dir=$1 flags=$2 label=$3
    mkdir -p "$dir"
    cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DGRIDKIT_WITH_CUDA=OFF \
        -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
        -DCMAKE_C_FLAGS_DEBUG="-g -O1 -fno-omit-frame-pointer $flags" \
        -DCMAKE_CXX_FLAGS_DEBUG="-g -O1 -fno-omit-frame-pointer $flags" \
        -DCMAKE_EXE_LINKER_FLAGS="$flags" >"$dir/gk-build.log" 2>&1 || { cat "$dir/gk-build.log"; return 1; }
    targets=$(cat "$dir/sanitize-$label.txt")
    [ -n "$targets" ] || { echo "no test labelled $label"; return 1; }
    tl=""
    for t in $targets; do tl="$tl --target $t"; done
    echo "== $label: building$tl" | sed 's/ --target / /g'
    cmake --build "$dir" -j"$jobs" $tl >>"$dir/gk-build.log" 2>&1 || { tail -40 "$dir/gk-build.log"; return 1; }
}

# run_tests DIR LABEL: ctest on the tests labelled LABEL (tests/CMakeLists.txt's
# gk_add_c_test and gk_sanitize), plus any sanitizer report a child process
# wrote (scripts such as bad_input.sh judge exit codes themselves, so reports
# go to files too and any file is a failure).
run_tests() {
    dir=$1 label=$2
    rm -rf "$dir/san-logs"
    mkdir -p "$dir/san-logs"
    # intercept_tls_get_addr=0: LLVM 14's record of each thread's dynamic TLS
    # (filled by its __tls_get_addr interceptor, which libomp's TLS goes
    # through) now and then holds a garbage range, and LeakSanitizer's exit
    # scan of it crashes ("Tracer caught signal 11 ... ScanRangeForPointers",
    # about 1 run in 7-20 of an OpenMP test). Every library here is loaded at
    # start, so its TLS is static and still scanned.
    ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0:log_path=$src/$dir/san-logs/asan" \
    LSAN_OPTIONS="suppressions=$src/scripts/lsan.supp:print_suppressions=0" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$src/$dir/san-logs/ubsan" \
    TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1:log_path=$src/$dir/san-logs/tsan" \
        ctest --test-dir "$dir" --output-on-failure -L "^$label\$"
    rc=$?
    if [ -n "$(ls "$dir/san-logs")" ]; then
        for f in "$dir"/san-logs/*; do echo "== $f"; head -80 "$f"; done
        rc=1
    fi
    return $rc
}

# What these builds need beyond scripts/setup-debian12.sh (the README's
# install stays without them): clang, its sanitizer runtimes, libFuzzer, libomp.
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    need=""
    for p in clang-14 libclang-rt-14-dev libfuzzer-14-dev libomp-14-dev; do
        dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
    done
    if [ -n "$need" ]; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq && apt-get install -y -qq --no-install-recommends $need ||
            { echo "FAIL: cannot install$need"; exit 1; }
    fi
fi

san_ub="-fsanitize=address,undefined -fno-sanitize-recover=all"
for part in $parts; do
    t0=$(date +%s)
    case $part in
    asan)
        # Every C test program (gk_add_c_test) and the CLI's scripts labelled
        # asan. Not labelled: conformance, gstat, plugin, cv_cli, memory_flat,
        # qgis (Python/R drive the plugin or measure memory: an instrumented
        # build is too slow or meaningless there); gpu skips (no CUDA here).
        if configure_build build-asan "$san_ub" asan && run_tests build-asan asan
        then :; else failed="$failed asan"; fi ;;
    tsan)
        # The tests labelled tsan: the tile engine and the k-d tree's tasks
        # (algorithms), the readers (read_points_ogr), the plugin's concurrent
        # readers (plugin_threads), the CLI with its GPU warm-up thread
        # (cli_threads, cli_threads_parts), gauss's shared blocks of method=fft
        # (density_gauss), the tie order's tasks (quadtree_order), surface's
        # sweeps (surface).
        export OMP_TOOL_LIBRARIES=/usr/lib/llvm-14/lib/libarcher.so
        if configure_build build-tsan "-fsanitize=thread" tsan && run_tests build-tsan tsan
        then :; else failed="$failed tsan"; fi
        unset OMP_TOOL_LIBRARIES ;;
    fuzz)
        if FUZZ_BUILD=build-fuzz FUZZ_JOBS=$jobs tests/fuzz/run_fuzzers.sh -time "${FUZZ_SECONDS:-20}"
        then :; else failed="$failed fuzz"; fi ;;
    *)
        echo "unknown part '$part' (asan, tsan or fuzz)"
        failed="$failed $part" ;;
    esac
    echo "== $part: $(($(date +%s) - t0)) s"
done
echo "== sanitizers and fuzzing: $(($(date +%s) - t_start)) s in all"
if [ -z "$failed" ]; then
    echo "PASS: sanitizers and fuzzing ($parts)"
    exit 0
fi
echo "FAIL: sanitizers and fuzzing:$failed"
exit 1
