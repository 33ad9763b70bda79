#!/bin/bash
# SPDX-License-Identifier: MIT
# fake_gpu.sh GRIDKIT DATA WORK FAKE_MODULE: gridkit grid on the stand-in GPU
# module (fake_gpu.c). Its count tiles have the CPU's bytes whatever the
# devices, the split on out-of-memory, a late start or the cores' share;
# each failure of the module gives its message and a non-zero exit where a
# GPU was asked for by name, the CPU's result under auto, and no output.
# Ends with "N passed, M failed".
set -u
. "$(dirname "$0")/../driver/suite.sh"
FAKE=${4:?the stand-in module}
W=$WORK
rm -rf "$W"
mkdir -p "$W"
SRC=$DATA/points_10k.xyz
ARGS=(-q -outsize 120 90 -ot Float32 -txe 0 5000 -tye 0 5000)
run() { # run OUT [env...] -- args: gridkit grid on the fake module
    local out=$1
    shift
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    env GRIDKIT_GPU_MODULE="$FAKE" "${envs[@]}" timeout 120 "$GK" grid "${ARGS[@]}" "$@" "$SRC" "$out"
}

# the CPU's rasters, one per window
ALG_C="count:radius1=400:radius2=400:min_points=3:nodata=-1"
ALG_E="count:radius1=600:radius2=250:angle=30"
for a in C E; do
    alg=ALG_$a
    GRIDKIT_GPU_MODULE="$FAKE" "$GK" grid "${ARGS[@]}" --device cpu -a "${!alg}" "$SRC" "$W/cpu_$a.tif" ||
        ko "cpu_$a" "the CPU run failed"
done

# same_bytes NAME WINDOW [env...] -- [args...]: on the fake GPU(s), the CPU's bytes
same_bytes() {
    local name=$1 a=$2
    shift 2
    local alg=ALG_$a
    if run "$W/$name.tif" "$@" -a "${!alg}" 2>"$W/$name.err" &&
        cmp -s "$W/$name.tif" "$W/cpu_$a.tif"; then
        ok "$name"
    else
        ko "$name" "not the CPU's bytes: $(head -c 300 "$W/$name.err")"
    fi
}
same_bytes circle C -- --device cuda
same_bytes ellipse E -- --device cuda
same_bytes two_devices C GK_FAKE_GPU_COUNT=2 -- --device cuda
same_bytes cuda_1 C GK_FAKE_GPU_COUNT=2 -- --device cuda:1
same_bytes split_on_oom C GK_FAKE_GPU_MAX_CELLS=700 -- --device cuda
same_bytes split_on_oom_ellipse E GK_FAKE_GPU_MAX_CELLS=300 -- --device cuda
same_bytes auto C -- --device auto
same_bytes late_start C GRIDKIT_GPU_START_DELAY=400 -- --device auto
same_bytes threads_1 C -- --device cuda --threads 1
same_bytes clone_fails C GK_FAKE_GPU_FAIL=clone -- --device cuda
# a slow GPU (40 ms a tile) beside the cores, made to share (GRIDKIT_CPU_SHARE=force):
# tiles from both, in Float32 and Float64, still the CPU's bytes
R500=$DATA/random_500.gpkg
for ot in Float32 Float64; do
    A=(-outsize 700 600 -ot $ot -a count:radius1=60:radius2=60)
    "$GK" grid -q "${A[@]}" --device cpu "$R500" "$W/share_cpu_$ot.tif" || ko "share_cpu_$ot" "the CPU run failed"
    if env GRIDKIT_GPU_MODULE="$FAKE" GK_FAKE_GPU_TILE_MS=40 GRIDKIT_CPU_SHARE=force timeout 120 \
        "$GK" grid "${A[@]}" --device cuda --threads 4 "$R500" "$W/share_$ot.tif" \
        2>"$W/share_$ot.err" && cmp -s "$W/share_$ot.tif" "$W/share_cpu_$ot.tif"; then
        ok "cores_share_$ot"
    else
        ko "cores_share_$ot" "not the CPU's bytes: $(head -c 300 "$W/share_$ot.err")"
    fi
done
grep -qE "Device: cuda:0 \(fake GPU 0\); the CPU cores took [0-9.]+% of the nodes" "$W/share_Float32.err" &&
    ok "cores_share_said" ||
    ko "cores_share_said" "the device line does not give the cores' share: $(grep Device "$W/share_Float32.err")"

# a grid the cores finish first (its points' extent known from the source)
# stays on them under auto; the advice to ask for the GPU is given only on a
# host with an NVIDIA GPU (its /dev/nvidiaN)
GRIDKIT_GPU_MODULE="$FAKE" "$GK" grid -outsize 20 20 -a count:radius1=400:radius2=400 --device auto \
    "$DATA/meuse.gpkg" "$W/small.tif" \
    2>"$W/small.err" >/dev/null || ko small_auto "the run failed: $(head -c 300 "$W/small.err")"
dev=$(grep '^Device:' "$W/small.err")
if ls /dev/nvidia[0-9]* >/dev/null 2>&1; then advice=1; else advice=0; fi
if [[ $dev =~ ^"Device: cpu (count: about "[0-9.]+" s on "[0-9]+" CPU thread" ]] &&
    [ "$(grep -c -- '--device cuda to use it' <<<"$dev")" = $advice ]; then
    ok small_auto
else
    ko small_auto "device line '$dev' (advice expected: $advice)"
fi

# under auto a module that cannot run the job leaves it to the CPU
same_bytes auto_probe_fails C GK_FAKE_GPU_FAIL=probe -- --device auto
same_bytes auto_job_fails C GK_FAKE_GPU_FAIL=job_new -- --device auto
same_bytes auto_no_device C GK_FAKE_GPU_COUNT=0 -- --device auto
same_bytes auto_abi C GK_FAKE_GPU_ABI=1 -- --device auto

# refused NAME REGEX [env...] -- args: a non-zero exit, REGEX said, no output
refused() {
    local name=$1 kw=$2
    shift 2
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    rm -f "$W/$name.tif"
    if run "$W/$name.tif" "${envs[@]}" -- "$@" >"$W/$name.err" 2>&1; then
        ko "$name" "exit 0"
    elif ! grep -qiE -- "$kw" "$W/$name.err"; then
        ko "$name" "output does not match /$kw/: $(head -c 300 "$W/$name.err")"
    elif ls "$W/$name.tif"* >/dev/null 2>&1; then
        ko "$name" "output left"
    else
        ok "$name"
    fi
}
refused probe_fails "fake device 0: not usable" GK_FAKE_GPU_FAIL=probe -- --device cuda -a "$ALG_C"
refused job_fails "fake job_new failed" GK_FAKE_GPU_FAIL=job_new -- --device cuda -a "$ALG_C"
refused tile_fails "fake tile failed" GK_FAKE_GPU_FAIL=tile -- --device cuda -a "$ALG_C"
refused no_such_device "cuda:3" GK_FAKE_GPU_COUNT=2 -- --device cuda:3 -a "$ALG_C"
refused abi "does not match this gridkit \(ABI 1, expected" GK_FAKE_GPU_ABI=1 -- --device cuda -a "$ALG_C"
refused no_kernel "no kernel for op" -- --device cuda -a invdist:power=2
refused no_kriging "layer .*fake GPU 0.*no kernel for op" -- --device cuda \
    -a kriging:model=Exp:psill=100:range=900:max_points=8
# (the real module beside the command, where one was built, finds no driver)
refused no_module "was not found|no usable GPU" GRIDKIT_GPU_MODULE=/nonexistent/gridkit_cuda.so -- --device cuda -a "$ALG_C"

finish
