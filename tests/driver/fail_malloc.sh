#!/bin/bash
# SPDX-License-Identifier: MIT
# fail_malloc.sh GRIDKIT DATA WORK FAIL_MALLOC_LIB: every allocation of
# gridkit's own code made to fail in turn (fail_malloc.c, SQLite's way).
# Each run must either succeed with the bytes of the run without a failure,
# or fail with an "out of memory" message and a non-zero exit, without
# crashing or hanging, with no output and no temporary left.
# Cases of more than MAX allocations are sampled evenly. Ends with
# "N passed, M failed".
set -u
. "$(dirname "$0")/suite.sh"
LIB=${4:?the fail_malloc library}
W=$WORK
MAX=${GK_FAIL_MALLOC_MAX:-150}
rm -rf "$W"
mkdir -p "$W"
M=$DATA/meuse.gpkg

# case NAME OUT -- gridkit arguments (OUT among them)
case_() {
    local name=$1 out=$2
    shift 3
    local d=$W/$name
    mkdir -p "$d"
    (cd "$d" && env GK_FAIL_MALLOC_COUNT="$d/count" LD_PRELOAD="$LIB" timeout 120 "$GK" "$@") \
        >"$d/ref.log" 2>&1 || { ko "$name" "the run without a failure failed: $(head -c 300 "$d/ref.log")"; return; }
    mv "$d/$out" "$d/ref.$out"
    local n
    n=$(od -An -td8 "$d/count" | tr -d ' ')
    [ "${n:-0}" -gt 0 ] || { ko "$name" "no allocation counted"; return; }
    local step=$(((n + MAX - 1) / MAX)) bad="" k
    for ((k = 1; k <= n; k += step)); do
        (cd "$d" && env GK_FAIL_MALLOC_AT=$k LD_PRELOAD="$LIB" timeout 60 "$GK" "$@") >"$d/run.log" 2>&1
        local rc=$?
        if [ $rc = 0 ]; then
            cmp -s "$d/$out" "$d/ref.$out" || bad+="allocation $k: exit 0 with other bytes; "
        elif [ $rc -ge 124 ]; then
            bad+="allocation $k: crashed or hung (rc $rc): $(tail -c 200 "$d/run.log" | tr '\n' ' '); "
        elif ! grep -qi "out of memory" "$d/run.log"; then
            bad+="allocation $k: rc $rc without 'out of memory': $(head -c 200 "$d/run.log" | tr '\n' ' '); "
        elif [ -e "$d/$out" ]; then
            bad+="allocation $k: failed but left $out; "
        fi
        if ls -a "$d" | grep -q gridkit-tmp; then bad+="allocation $k: temporary left; "; fi
        rm -rf "${d:?}/$out" "$d"/*gridkit-tmp*
        [ ${#bad} -lt 2000 ] || break
    done
    [ -z "$bad" ] && ok "$name ($n allocations, every $step)" || ko "$name" "$bad"
}

Z=(-q -zfield zinc -outsize 40 30)
case_ invdist o.tif -- grid "${Z[@]}" -a invdist:power=2 "$M" o.tif
case_ invdistnn o.tif -- grid "${Z[@]}" -a invdistnn:radius=800:max_points=12 "$M" o.tif
case_ average_f32 o.tif -- grid "${Z[@]}" -ot Float32 -a average:radius1=500:radius2=300:angle=20 "$M" o.tif
case_ nearest o.tif -- grid "${Z[@]}" -a nearest "$M" o.tif
case_ linear o.tif -- grid "${Z[@]}" -a linear "$M" o.tif
case_ kriging_fitted o.tif -- grid "${Z[@]}" -a kriging:model=auto:max_points=16 "$M" o.tif
case_ kriging_global o.tif -- grid "${Z[@]}" -a kriging:model=Sph:psill=1e5:range=900:nugget=1e4 "$M" o.tif
case_ heatmap o.tif -- grid -q -outsize 40 30 -a heatmap:radius=300 "$M" o.tif
case_ gauss o.tif -- grid -q -outsize 40 30 -a gauss:bandwidth=200 "$M" o.tif
case_ parts o.vrt -- grid "${Z[@]}" -a invdist:power=2 --parts parts "$M" o.vrt
case_ variogram v.json -- variogram "$M" -zfield zinc --fit Sph -of json -o v.json
case_ cv cv.csv -- cv -q -zfield zinc -a invdistnn:radius=800:max_points=12 "$M" -o cv.csv

finish
