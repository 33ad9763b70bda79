#!/bin/bash
# SPDX-License-Identifier: MIT
# late_start.sh GRIDKIT DATA_DIR WORK_DIR
#
# gridkit grid under --device auto where the GPU is slow to start
# (GRIDKIT_GPU_START_DELAY) and the cost model puts the grid on the cores
# under 0.6 s: the cores begin without waiting ("waiting for the GPU 0.000")
# and, where no GPU joins, the raster is bit for bit --device cpu's. Also a
# grid the cores take longer on: that one waits for the GPU as before.
set -u
GK=${1:?usage: late_start.sh GRIDKIT DATA_DIR WORK_DIR}
DATA=${2:?data dir}
WORK=${3:?work dir}
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
fail=0
(echo "x,y,z"; tr ' ' ',' <"$DATA/points_10k.xyz") >"$WORK/p.csv"
ogr2ogr -q -f GPKG "$WORK/p.gpkg" "$WORK/p.csv" -oo X_POSSIBLE_NAMES=x -oo Y_POSSIBLE_NAMES=y \
    -oo AUTODETECT_TYPE=YES -nln pts || exit 1
A=invdistnn:power=2:radius=300:max_points=16
run() { # size: the late run's stderr in $WORK/err.SIZE, the CPU's raster beside it
    GRIDKIT_GPU_START_DELAY=1500 "$GK" grid --threads 2 --timings -zfield z -a $A -outsize $1 $1 \
        -ot Float32 "$WORK/p.gpkg" "$WORK/late.$1.tif" 2>"$WORK/err.$1" || return 1
    "$GK" grid -q --threads 2 --device cpu -zfield z -a $A -outsize $1 $1 -ot Float32 \
        "$WORK/p.gpkg" "$WORK/cpu.$1.tif"
}
same() { # the two rasters' pixels, byte for byte
    gdal_translate -q -of ENVI "$1" "$WORK/a.bil" && gdal_translate -q -of ENVI "$2" "$WORK/b.bil" &&
        cmp -s "$WORK/a.bil" "$WORK/b.bil"
}
# 700^2: the model says 0.3-0.6 s on 2 threads
if ! run 700; then
    echo "FAIL: 700^2 run: $(cat "$WORK/err.700")"; fail=1
else
    dev=$(grep '^Device:' "$WORK/err.700")
    echo "700^2: $dev"
    grep -q 'waiting for the GPU 0.000' "$WORK/err.700" ||
        { echo "FAIL: the cores waited for the GPU: $(grep Timings "$WORK/err.700")"; fail=1; }
    case "$dev" in
    *"cores finished before the GPU"* | *"no usable GPU"*)
        same "$WORK/cpu.700.tif" "$WORK/late.700.tif" ||
            { echo "FAIL: the cores' raster differs from --device cpu's"; fail=1; } ;;
    *"the CPU cores took"*) ;; # a GPU joined: test_gpu_late checks its values
    *) echo "FAIL: not a late start: $dev"; fail=1 ;;
    esac
fi
# 1000^2: beyond 0.6 s, the GPU is waited for (1.5 s here)
if ! run 1000; then
    echo "FAIL: 1000^2 run: $(cat "$WORK/err.1000")"; fail=1
else
    echo "1000^2: $(grep '^Device:' "$WORK/err.1000")"
    grep -q 'waiting for the GPU 0.000' "$WORK/err.1000" &&
        { echo "FAIL: a late start beyond the model's 0.6 s"; fail=1; }
fi
[ $fail = 0 ] && echo "late start: passed"
exit $fail
