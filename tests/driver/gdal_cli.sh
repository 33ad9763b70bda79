#!/bin/bash
# SPDX-License-Identifier: MIT
# gdal_cli.sh GRIDKIT DATA WORK PLUGIN_DIR: on a GDAL with the `gdal` command
# line and algorithms of drivers (3.11 and later; scripts/test-gdal-new.sh
# builds one), `gdal driver gridkit grid` and `... ridges` give the bytes of
# `gridkit grid` / `gridkit ridges`, a GRIDKIT: string is read by a `gdal
# raster pipeline`, and a bad algorithm is a GDAL error with gridkit's
# message. Elsewhere (Debian 12's GDAL 3.6) it is skipped (exit 77).
# Ends with "N passed, M failed".
set -u
. "$(dirname "$0")/suite.sh"
export GDAL_DRIVER_PATH=${4:?the plugin folder}
W=$WORK
rm -rf "$W" && mkdir -p "$W"
if ! command -v gdal >/dev/null || ! gdal driver gridkit --help >/dev/null 2>&1; then
    echo "SKIP: no gdal command line with gridkit's algorithms (GDAL $(gdal-config --version 2>/dev/null))"
    exit 77
fi
M=$DATA/meuse.gpkg
"$GK" grid -q -zfield logzinc -a invdistnn:radius=1000:max_points=12 -txe 178500 181500 \
    -tye 329500 333700 -outsize 60 84 "$M" "$W/cli.tif" || ko grid_cli "gridkit grid failed"
if gdal driver gridkit grid "$M" "$W/gdal.tif" -a invdistnn:radius=1000:max_points=12 \
    --zfield logzinc --bbox 178500,329500,181500,333700 --size 60,84 2>"$W/grid.err"; then
    check grid_same_bytes "$(cmp -s "$W/cli.tif" "$W/gdal.tif" || echo "other bytes than gridkit grid")"
else
    ko grid "$(head -c 300 "$W/grid.err")"
fi
"$GK" ridges -q "$M" "$W/cli.gpkg" -a density || ko ridges_cli "gridkit ridges failed"
if gdal driver gridkit ridges "$M" "$W/gdal.gpkg" -a density 2>"$W/ridges.err"; then
    a=$(ogrinfo -ro -al -q "$W/cli.gpkg" | grep -v "^$")
    b=$(ogrinfo -ro -al -q "$W/gdal.gpkg" | grep -v "^$")
    check ridges_same_lines "$([ "$a" = "$b" ] || echo "other lines than gridkit ridges")"
else
    ko ridges "$(head -c 300 "$W/ridges.err")"
fi
if gdal raster pipeline ! read "GRIDKIT:-zfield logzinc -a invdistnn:radius=1000:max_points=12 -txe 178500 181500 -tye 329500 333700 -outsize 60 84 $M" \
    ! write "$W/pipe.tif" 2>"$W/pipe.err"; then
    a=$(gdalinfo -checksum "$W/cli.tif" | grep Checksum)
    b=$(gdalinfo -checksum "$W/pipe.tif" | grep Checksum)
    check pipeline_read "$([ -n "$a" ] && [ "$a" = "$b" ] || echo "checksums '$a' and '$b'")"
else
    ko pipeline_read "$(head -c 300 "$W/pipe.err")"
fi
if gdal driver gridkit grid "$M" "$W/bad.tif" -a invdist:powr=2 2>"$W/bad.err"; then
    ko bad_algorithm "ran"
else
    grep -q "no parameter 'powr'" "$W/bad.err" && [ ! -e "$W/bad.tif" ] && ok bad_algorithm ||
        ko bad_algorithm "$(cat "$W/bad.err")"
fi
finish
