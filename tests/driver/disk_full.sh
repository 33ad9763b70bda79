#!/bin/bash
# SPDX-License-Identifier: MIT
# disk_full.sh GRIDKIT DATA_DIR WORK_DIR
#
# A full disk, for every kind of output gridkit writes: rasters in several
# drivers (Create and CreateCopy, one file and several), ridges' lines and
# cv's residuals in every common vector format, variogram tables, JSON and
# plots, --parts. Each case runs twice on a small tmpfs: with no space left
# at all, and with half the output's size left (the disk fills while it is
# written). Each must exit non-zero with a message that says the disk is full
# ("full", "No space"), leave the previous output and every other file
# there byte for byte, and leave no temporary. Needs root (a tmpfs mount):
# skipped with a message otherwise.
# Ends with "N passed, M failed".
set -u
. "$(dirname "$0")/suite.sh"
MNT=$WORK/mnt
if mountpoint -q "$MNT" 2>/dev/null; then umount "$MNT"; fi
rm -rf "$WORK"
mkdir -p "$MNT" "$WORK/logs"
L=$WORK/logs
if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=8m tmpfs "$MNT" 2>"$L/mount.err"; then
    echo "SKIP disk_full: cannot mount a tmpfs ($(head -c 200 "$L/mount.err")); needs root"
    echo "0 passed, 0 failed"
    exit 0
fi
trap 'umount "$MNT" 2>/dev/null' EXIT

M=$DATA/meuse.gpkg
# 64 noisy rings: ridges' output of some size (84 KB as GeoJSON), within
# longitudes and latitudes (KML takes no other coordinates: newer GDALs wrap
# them, and lose features on reading them back)
awk 'BEGIN { srand(5); print "x,y";
  for (cx = 0; cx < 8; cx++) for (cy = 0; cy < 8; cy++) for (i = 0; i < 200; i++) {
    t = rand() * 6.283185307; r = 4 + (rand() + rand() + rand() - 1.5) * 0.2;
    printf "%.4f,%.4f\n", cx * 10 + r * cos(t), cy * 10 + r * sin(t) } }' >"$WORK/rings.csv"
ogr2ogr -f GPKG "$WORK/rings.gpkg" "$WORK/rings.csv" -oo X_POSSIBLE_NAMES=x -oo Y_POSSIBLE_NAMES=y -nln rings

snapshot() { (cd "$MNT" && find . ! -name fill -type f | sort | xargs -r md5sum); }
avail() { df -B1 --output=avail "$MNT" | tail -1 | tr -d ' '; }

# case NAME OUTPUT -- command...: the command writes OUTPUT in $MNT
case_() {
    local name=$1 out=$2
    shift 3
    rm -rf "${MNT:?}"/*
    # the previous output, whole
    if ! (cd "$MNT" && timeout 120 "$@") >"$L/$name.first.out" 2>"$L/$name.first.err" || [ ! -e "$MNT/$out" ]; then
        # a newer GDAL's KML reads the lines back otherwise than they were
        # written: gridkit refuses the file, and leaves none
        if [ "$name" = ridges_KML ] && [ "$(gdal-config --version | cut -d. -f1,2 | tr -d .)" -ge 37 ] &&
            grep -q "the file written is incomplete" "$L/$name.first.err" && [ ! -e "$MNT/$out" ]; then
            ok "$name (refused: $(gdal-config --version)'s KML reads back otherwise)"
        else
            ko "$name" "the first run failed: $(head -c 300 "$L/$name.first.err" | tr '\n' ' ')"
        fi
        return
    fi
    local size
    size=$(du -sb "$MNT" | cut -f1)
    snapshot >"$L/$name.before"
    for keep in 0 half; do
        local k=0
        [ $keep = half ] && k=$((size / 2))
        # every block taken but k bytes
        local a
        a=$(avail)
        if [ "$a" -gt "$k" ]; then fallocate -l $((a - k)) "$MNT/fill" 2>/dev/null ||
            dd if=/dev/zero of="$MNT/fill" bs=4096 count=$(((a - k) / 4096)) 2>/dev/null; fi
        (cd "$MNT" && timeout 120 "$@") >"$L/$name.$keep.out" 2>"$L/$name.$keep.err"
        local rc=$? p=""
        [ $rc -ne 0 ] || p+="exit 0; "
        [ $rc -lt 124 ] || p+="hung or crashed (rc $rc); "
        grep -qiE 'full|No space|only .* free in' "$L/$name.$keep.err" || p+="no reason (full / No space); "
        snapshot >"$L/$name.after"
        cmp -s "$L/$name.before" "$L/$name.after" ||
            p+="files changed: $(diff "$L/$name.before" "$L/$name.after" | head -4 | tr '\n' ' '); "
        rm -f "$MNT/fill"
        check "${name}_$keep" "${p:+$p | $(head -c 300 "$L/$name.$keep.err" | tr '\n' ' ')}"
    done
}

# ---- rasters: -of DRIVER (uncompressed: refused before any work for want of
# space; compressed: no size known in advance, the disk fills while writing)
for spec in "GTiff o.tif -co COMPRESS=DEFLATE" "GTiff o.tif" "COG o.tif" "COG o.tif -co COMPRESS=DEFLATE" \
    "PNG o.png" "GPKG o.gpkg" \
    "ENVI o.img" "AAIGrid o.asc" "HFA o.img"; do
    set -- $spec
    drv=$1 out=$2
    shift 2
    ot=Float32
    [ "$drv" = PNG ] || [ "$drv" = GPKG ] && ot=Byte
    case_ "grid_$drv${1:+_compressed}" "$out" -- "$GK" grid -q -zfield zinc -a invdist:power=2 \
        -outsize 600 600 -ot $ot -of "$drv" "$@" "$M" "$out"
done

# ---- ridges' lines and cv's residuals: every common vector format
for spec in "GPKG gpkg" "ESRI_Shapefile shp" "GeoJSON geojson" "GeoJSONSeq geojsons" "FlatGeobuf fgb" \
    "CSV csv" "KML kml" "GML gml" "MapInfo_File tab" "SQLite sqlite"; do
    set -- $spec
    drv=${1//_/ } ext=$2
    # GeoJSONSeq (RFC 8142) takes WGS 84 only: the rings have no SRS
    [ "$drv" = GeoJSONSeq ] ||
        case_ "ridges_${1}" "r.$ext" -- "$GK" ridges -q -of "$drv" "$WORK/rings.gpkg" "r.$ext" -a curve:r1=0.6
    case_ "cv_${1}" "cv.$ext" -- "$GK" cv -q -zfield zinc -a invdistnn:radius=2000:max_points=8 "$M" \
        -o "cv.$ext"
done

# ---- variogram tables, JSON, plots
for f in table csv json; do
    case_ "variogram_$f" "v.$f" -- "$GK" variogram "$M" -zfield zinc --fit Sph --format $f -o "v.$f"
done
for f in png svg; do
    case_ "variogram_plot_$f" "v.$f" -- "$GK" variogram "$M" -zfield zinc --fit Sph --plot "v.$f"
done

# ---- --parts
case_ parts o.vrt -- "$GK" grid -q --parts P -zfield zinc -a invdist:power=2 -outsize 600 600 \
    -co COMPRESS=DEFLATE "$M" o.vrt

finish
