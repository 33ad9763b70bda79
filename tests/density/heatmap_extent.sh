#!/bin/bash
# SPDX-License-Identifier: MIT
# heatmap_extent.sh GRIDKIT DATA WORK: `-tr` without an extent, as QGIS's
# Heatmap takes it (qgskde.cpp: the layer's extent widened by the radius,
# rows = ceil(height / pixel) + 1, columns = ceil(width / pixel) + 1, from the
# widened extent's top-left corner), computed here from that rule; other
# algorithms still need -txe and -tye, as gdal_grid does.
# Ends with "N passed, M failed".
set -u
. "$(dirname "$0")/../driver/suite.sh"
W=$WORK
rm -rf "$W" && mkdir -p "$W"
printf 'x,y,w\n1000.5,2000.25,1\n1730,2411.5,2\n1212.75,2950,1\n' >"$W/p.csv"
OO=(-oo X_POSSIBLE_NAMES=x -oo Y_POSSIBLE_NAMES=y)
# case NAME RADIUS XRES YRES
case_() {
    local name=$1 r=$2 xr=$3 yr=$4
    if ! "$GK" grid -q "${OO[@]}" -zfield w -a "heatmap:radius=$r" -tr "$xr" "$yr" "$W/p.csv" "$W/$name.tif" 2>"$W/$name.err"; then
        ko "$name" "$(head -c 300 "$W/$name.err")"
        return
    fi
    local want got
    want=$(awk -v r="$r" -v xr="$xr" -v yr="$yr" 'function ceil(v) { return v == int(v) ? v : int(v) + 1 }
        BEGIN { x0 = 1000.5 - r; x1 = 1730 + r; y0 = 2000.25 - r; y1 = 2950 + r
                printf "%d %d %.6f %.6f %.6f %.6f\n", ceil((x1 - x0) / xr) + 1, ceil((y1 - y0) / yr) + 1, x0, xr, y1, -yr }')
    got=$(gdalinfo -json "$W/$name.tif" | python3 -c 'import json, sys
d = json.load(sys.stdin); g = d["geoTransform"]
print("%d %d %.6f %.6f %.6f %.6f" % (d["size"][0], d["size"][1], g[0], g[1], g[3], g[5]))')
    check "$name" "$([ "$want" = "$got" ] || echo "QGIS's grid $want, gridkit's $got")"
}
case_ square 300 50 50
case_ radius_250 250 10 10
case_ exact_multiple 0.25 10 0.75
case_ rectangular_pixels 120.5 7 13
case_ pixel_larger_than_extent 10 5000 5000
# one point: the radius alone makes the extent
printf 'x,y\n5,5\n' >"$W/one.csv"
"$GK" grid -q "${OO[@]}" -a heatmap:radius=2 -tr 1 1 "$W/one.csv" "$W/one.tif" 2>"$W/one.err" &&
    [ "$(gdalinfo -json "$W/one.tif" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["size"], d["geoTransform"][0], d["geoTransform"][3])')" = "[5, 5] 3.0 7.0" ] &&
    ok one_point || ko one_point "$(head -c 300 "$W/one.err")"
# other algorithms, and -tr with half an extent: refused as gdal_grid refuses
for a in invdist nearest "gauss:bandwidth=50"; do
    if "$GK" grid -q "${OO[@]}" -zfield w -a "$a" -tr 50 50 "$W/p.csv" "$W/no.tif" 2>"$W/no.err"; then
        ko "refused_$a" "ran"
    else
        grep -q -- "-tr needs the extent too" "$W/no.err" && ok "refused_$a" || ko "refused_$a" "$(cat "$W/no.err")"
    fi
done
"$GK" grid -q "${OO[@]}" -a heatmap:radius=30 -tr 5 5 -txe 0 100 "$W/p.csv" "$W/no.tif" 2>"$W/no.err" &&
    ko refused_half_extent "ran" || ok refused_half_extent
finish
