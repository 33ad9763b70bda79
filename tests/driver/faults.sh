#!/bin/bash
# SPDX-License-Identifier: MIT
# faults.sh GRIDKIT DATA_DIR WORK_DIR
#
# Fault injection: a disk that fills up (before and in
# the middle of writing), an unwritable (read-only) directory, a source
# truncated or deleted while it is read, a run killed outright. Each must end
# with a clear message (or, for a source changed under it, a complete output),
# the previous output intact and no temporary behind; nothing may hang or
# crash (every run is bounded by `timeout`). The disk cases need a small
# tmpfs (root, mount permitted): skipped with a message otherwise, the
# read-only directory then falls back to chmod (non-root only).
# Ends with "N passed, M failed".
set -u
. "$(dirname "$0")/suite.sh"
MNT=$WORK/mnt
if mountpoint -q "$MNT" 2>/dev/null; then umount "$MNT"; fi
rm -rf "$WORK"
mkdir -p "$MNT"
W=$WORK
cp "$DATA/meuse.gpkg" "$W/m.gpkg"
G=(-q -zfield zinc)

# run NAME REGEX DIR OLD_OUTPUT COPY -- command: fails, says REGEX, OLD_OUTPUT unchanged,
# no temporary in DIR
run_fail() {
    local name=$1 kw=$2 dir=$3 old=$4 copy=$5
    shift 6
    timeout 60 "$@" >"$W/$name.out" 2>"$W/$name.err"
    local rc=$? p=""
    [ $rc -ne 0 ] || p+="exit 0; "
    [ $rc -lt 124 ] || p+="hung or crashed (rc $rc); "
    grep -qiE -- "$kw" "$W/$name.err" || p+="stderr does not match /$kw/; "
    cmp -s "$old" "$copy" || p+="previous output $old changed; "
    if ls -a "$dir" | grep -q gridkit-tmp; then p+="temporary left: $(ls "$dir" | grep gridkit-tmp | tr '\n' ' ')"; fi
    if [ -z "$p" ]; then ok "$name"; else ko "$name" "$p | $(head -c 300 "$W/$name.err" | tr '\n' ' ')"; fi
}

# ---- a small file system: full before, and in the middle of, writing ----------
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=2m tmpfs "$MNT" 2>"$W/mount.err"; then
    "$GK" grid "${G[@]}" -outsize 10 10 "$W/m.gpkg" "$MNT/o.tif"
    "$GK" variogram "$W/m.gpkg" -zfield zinc -o "$MNT/v.txt" --plot "$MNT/v.png" 2>/dev/null
    "$GK" cv -zfield zinc -a invdist "$W/m.gpkg" -o "$MNT/cv.gpkg" >/dev/null 2>&1
    for f in o.tif v.txt v.png cv.gpkg; do cp "$MNT/$f" "$W/$f.orig"; done
    # 18 MB uncompressed: refused before any work
    run_fail disk_too_small 'needs.*free' "$MNT" "$MNT/o.tif" "$W/o.tif.orig" -- \
        "$GK" grid "${G[@]}" -a invdist:power=2 -outsize 1500 1500 "$W/m.gpkg" "$MNT/o.tif"
    # compressed (no size known in advance): the disk fills while writing
    run_fail disk_full_mid_write 'cannot write.*o\.tif|No space' "$MNT" "$MNT/o.tif" "$W/o.tif.orig" -- \
        "$GK" grid "${G[@]}" -a invdist:power=2 -outsize 1500 1500 -co COMPRESS=DEFLATE \
        "$W/m.gpkg" "$MNT/o.tif"
    dd if=/dev/zero of="$MNT/fill" bs=4k 2>/dev/null # every block taken
    run_fail disk_full_grid 'o\.tif' "$MNT" "$MNT/o.tif" "$W/o.tif.orig" -- \
        "$GK" grid "${G[@]}" -outsize 10 10 -co COMPRESS=DEFLATE "$W/m.gpkg" "$MNT/o.tif"
    run_fail disk_full_variogram_o 'v\.txt.*No space' "$MNT" "$MNT/v.txt" "$W/v.txt.orig" -- \
        "$GK" variogram "$W/m.gpkg" -zfield zinc --fit Sph -o "$MNT/v.txt"
    run_fail disk_full_variogram_plot 'v\.png' "$MNT" "$MNT/v.png" "$W/v.png.orig" -- \
        "$GK" variogram "$W/m.gpkg" -zfield zinc --plot "$MNT/v.png"
    run_fail disk_full_cv_o 'cv\.gpkg' "$MNT" "$MNT/cv.gpkg" "$W/cv.gpkg.orig" -- \
        "$GK" cv -zfield zinc -a invdist "$W/m.gpkg" -o "$MNT/cv.gpkg"
    rm -f "$MNT/fill"
    # ---- a read-only directory ----------------------------------------------
    if mount -o remount,ro "$MNT"; then
        run_fail readonly_dir_grid 'not writable|Read-only' "$MNT" "$MNT/o.tif" "$W/o.tif.orig" -- \
            "$GK" grid "${G[@]}" -outsize 10 10 "$W/m.gpkg" "$MNT/o.tif"
        run_fail readonly_dir_variogram 'v\.txt.*Read-only' "$MNT" "$MNT/v.txt" "$W/v.txt.orig" -- \
            "$GK" variogram "$W/m.gpkg" -zfield zinc -o "$MNT/v.txt"
        run_fail readonly_dir_plot 'v\.png.*Read-only' "$MNT" "$MNT/v.png" "$W/v.png.orig" -- \
            "$GK" variogram "$W/m.gpkg" -zfield zinc --plot "$MNT/v.png"
        run_fail readonly_dir_cv 'cv\.gpkg' "$MNT" "$MNT/cv.gpkg" "$W/cv.gpkg.orig" -- \
            "$GK" cv -zfield zinc -a invdist "$W/m.gpkg" -o "$MNT/cv.gpkg"
    else
        ko readonly_dir "remount read-only failed"
    fi
    umount "$MNT"
else
    echo "SKIP disk full and read-only directory: cannot mount a tmpfs ($(head -c 200 "$W/mount.err" 2>/dev/null)); needs root"
    if [ "$(id -u)" != 0 ]; then
        "$GK" grid "${G[@]}" -outsize 10 10 "$W/m.gpkg" "$MNT/o.tif"
        cp "$MNT/o.tif" "$W/o.tif.orig"
        chmod 555 "$MNT"
        run_fail unwritable_dir_grid 'not writable|Permission' "$MNT" "$MNT/o.tif" "$W/o.tif.orig" -- \
            "$GK" grid "${G[@]}" -outsize 10 10 "$W/m.gpkg" "$MNT/o.tif"
        chmod 755 "$MNT"
    fi
fi

# ---- a source truncated or deleted while it is read ----------------------------
# 2.4 million points (about 60 MB): reading takes a while. A changed source
# may give a shorter read or an error; never a crash, a hang, a temporary, or
# a damaged previous output.
awk 'BEGIN { srand(7); for (i = 0; i < 2400000; i++) printf "%.3f %.3f %.3f\n", rand() * 1000, rand() * 1000, rand() * 100 }' >"$W/big.xyz.orig"
"$GK" grid -q -outsize 10 10 "$DATA/points_10k.xyz" "$W/out.tif"
cp "$W/out.tif" "$W/out.orig"
changed_source() { # NAME DELAY ACTION(truncate|delete)
    cp "$W/big.xyz.orig" "$W/big.xyz"
    timeout 60 "$GK" grid -q -a nearest -outsize 200 200 "$W/big.xyz" "$W/out.tif" >"$W/$1.out" 2>"$W/$1.err" &
    local pid=$!
    sleep "$2"
    if [ "$3" = truncate ]; then truncate -s 1000000 "$W/big.xyz"; else rm -f "$W/big.xyz"; fi
    wait $pid
    local rc=$? p=""
    [ $rc -lt 124 ] || p+="hung or crashed (rc $rc); "
    if [ $rc -ne 0 ]; then
        [ -s "$W/$1.err" ] || p+="failed without a message; "
        cmp -s "$W/out.tif" "$W/out.orig" || p+="previous output changed; "
    else
        gdalinfo "$W/out.tif" 2>/dev/null | grep -q 'Size is 200, 200' || p+="exit 0 but out.tif is not a whole 200x200 raster; "
    fi
    if ls -a "$W" | grep -q gridkit-tmp; then p+="temporary left: $(ls "$W" | grep gridkit-tmp | tr '\n' ' ')"; fi
    if [ -z "$p" ]; then ok "$1 (rc $rc)"; else ko "$1" "$p | $(head -c 300 "$W/$1.err" | tr '\n' ' ')"; fi
    cp "$W/out.orig" "$W/out.tif"
}
for d in 0.05 0.15 0.3; do
    changed_source "source_truncated_after_${d}s" $d truncate
    changed_source "source_deleted_after_${d}s" $d delete
done
rm -f "$W/big.xyz" "$W/big.xyz.orig"

# ---- a run killed outright -----------------------------------------------------
"$GK" grid "${G[@]}" -ot Byte -outsize 50 50 "$W/m.gpkg" "$W/k.tif"
cp "$W/k.tif" "$W/k.orig"
"$GK" grid "${G[@]}" --threads 1 -ot Byte -a invdist:power=2 -outsize 9000 9000 "$W/m.gpkg" "$W/k.tif" &
pid=$!
for _ in $(seq 200); do ls "$W" | grep -q 'k\.gridkit-tmp' && break; sleep 0.05; done
sleep 0.3
kill -KILL $pid
wait $pid 2>/dev/null
rc=$?
if [ $rc -eq 137 ] && cmp -s "$W/k.tif" "$W/k.orig"; then ok killed_previous_intact; else ko killed_previous_intact "rc $rc, k.tif $(cmp -s "$W/k.tif" "$W/k.orig" && echo intact || echo changed)"; fi
"$GK" grid "${G[@]}" -ot Byte -outsize 50 50 "$W/m.gpkg" "$W/k.tif"
if ls -a "$W" | grep -q 'k\.gridkit-tmp'; then ko killed_then_rerun_clears "temporary still there: $(ls "$W" | grep gridkit-tmp)"; else ok killed_then_rerun_clears; fi

finish
