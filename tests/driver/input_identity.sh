#!/bin/bash
# SPDX-License-Identifier: MIT
# input_identity.sh GRIDKIT DATA_DIR WORK_DIR
#
# An input named another way is still an input: every command that writes
# (grid, grid --parts, cv -o, variogram -o, variogram --plot, ridges) against
# every way of naming an input (plain, a driver prefix, quoted or not,
# /vsizip/, /vsigzip/, an archive in an archive, /vsisubfile/,
# a VRT whose source is the output, a symbolic link either way, a hard link,
# ../, relative against absolute, a side-car, the clip source, a variogram
# file, a drift raster, a side-car the output would make) must refuse with
# "refusing to overwrite input", a non-zero exit, and change nothing: every
# file in the work directory keeps its bytes, none appears or goes.
# Ends with "N passed, M failed".
set -u
. "$(dirname "$0")/suite.sh"
rm -rf "$WORK"
mkdir -p "$WORK/w" "$WORK/logs"
W=$WORK/w
L=$WORK/logs
cd "$W" || exit 1

# ---- the inputs -------------------------------------------------------------
ogr2ogr -f GPKG p.gpkg "$DATA/meuse.gpkg" -nln points
cp p.gpkg src.gpkg
cp "$DATA"/utm_2000.shp "$DATA"/utm_2000.shx "$DATA"/utm_2000.dbf "$DATA"/utm_2000.prj .
cp "$DATA/lattice_400.csv" pts.csv
cp "$DATA/lattice_400.csvt" pts.csvt
gzip -c pts.csv >pts.csv.gz
/usr/bin/python3 -m zipfile -c gz.zip pts.csv.gz # an archive in an archive
/usr/bin/python3 -m zipfile -c z.zip utm_2000.shp utm_2000.shx utm_2000.dbf utm_2000.prj
cat >v.vrt <<'EOF'
<OGRVRTDataSource>
  <OGRVRTLayer name="pts">
    <SrcDataSource relativeToVRT="1">src.gpkg</SrcDataSource>
    <SrcLayer>points</SrcLayer>
  </OGRVRTLayer>
</OGRVRTDataSource>
EOF
# a VRT of that VRT: the source two steps away
cat >vv.vrt <<'EOF'
<OGRVRTDataSource>
  <OGRVRTLayer name="pts">
    <SrcDataSource relativeToVRT="1">v.vrt</SrcDataSource>
    <SrcLayer>pts</SrcLayer>
  </OGRVRTLayer>
</OGRVRTDataSource>
EOF
ln -s p.gpkg sym.gpkg
ln p.gpkg hard.gpkg
# a polygon around the meuse points for -clipsrc
cat >clip.geojson <<'EOF'
{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":
{"type":"Polygon","coordinates":[[[178000,329000],[182000,329000],[182000,334000],[178000,334000],[178000,329000]]]}}]}
EOF
ogr2ogr -f GPKG clip.gpkg clip.geojson -nln c && rm clip.geojson
"$GK" variogram p.gpkg -zfield zinc --fit Sph --format json -o model.json 2>/dev/null
cp model.json out.xsd # a variogram file named as GML's schema of out.gml
cp "$DATA/meuse_dist_filled.tif" dist.tif
# a GeoTIFF drift raster through a raster VRT of another name
gdalbuildvrt -q dvrt.vrt dist.tif

# a PNG drift raster: the one input --plot can be named as
gdal_translate -q -of PNG -ot UInt16 -scale dist.tif d.png 2>/dev/null

snapshot() { (cd "$W" && find . -printf '%y %p %l\n' | sort && find . -type f | sort | xargs md5sum); }
snapshot >"$L/before"
cp -a "$W" "$WORK/pristine"

# refuse NAME -- command...: an error naming an input, nothing in W changed
refuse() {
    local name=$1
    shift 2
    (cd "$W" && timeout 120 "$@") >"$L/$name.out" 2>"$L/$name.err"
    local rc=$? p=""
    [ $rc -ne 0 ] || p+="exit 0; "
    [ $rc -lt 124 ] || p+="hung or crashed (rc $rc); "
    grep -q 'refusing to overwrite input' "$L/$name.err" || p+="no 'refusing to overwrite input'; "
    snapshot >"$L/after"
    if ! cmp -s "$L/before" "$L/after"; then
        p+="the work directory changed: $(diff "$L/before" "$L/after" | head -4 | tr '\n' ' ')"
        # put it back, so that the next cases still test
        cd "$WORK" && rm -rf "$W" && cp -a "$WORK/pristine" "$W" && cd "$W"
    fi
    check "$name" "${p:+$p | $(head -c 300 "$L/$name.err" | tr '\n' ' ')}"
}

# ---- the commands: SRC ZFIELD OUT [extra args] --------------------------------
grid() { refuse "grid_$1" -- "$GK" grid -q -zfield "$3" -a average -outsize 5 5 -of GTiff "${@:5}" "$2" "$4"; }
cv() { refuse "cv_$1" -- "$GK" cv -q -zfield "$3" -a invdistnn:max_points=4 "${@:5}" "$2" -o "$4"; }
vgm_o() { refuse "vgm_o_$1" -- "$GK" variogram "$2" -zfield "$3" -of json -o "$4" "${@:5}"; }
ridges() { refuse "ridges_$1" -- "$GK" ridges -q "${@:5}" "$2" "$4" -a curve:r1=200; }
every() { # NAME SRC ZFIELD OUT [extra args]: each command
    grid "$@"
    cv "$@"
    vgm_o "$@"
    ridges "$@"
}

A=$W # absolute
every plain p.gpkg zinc p.gpkg
every gpkg_prefix GPKG:p.gpkg:points zinc p.gpkg
every csv_prefix CSV:pts.csv z pts.csv
every csv_sidecar CSV:pts.csv z pts.csvt
every vsizip /vsizip/z.zip/utm_2000.shp elev z.zip
every vsizip_braces "/vsizip/{$A/z.zip}/utm_2000.shp" elev z.zip
every vsigzip /vsigzip/pts.csv.gz z pts.csv.gz
every vrt_source v.vrt zinc src.gpkg
every vrt_of_vrt vv.vrt zinc src.gpkg
every vrt_itself vv.vrt zinc v.vrt
every symlink_source sym.gpkg zinc p.gpkg
every symlink_output p.gpkg zinc sym.gpkg
every hard_link p.gpkg zinc hard.gpkg
every dotdot p.gpkg zinc "../$(basename "$W")/p.gpkg"
every relative_absolute p.gpkg zinc "$A/p.gpkg"
every absolute_relative "$A/p.gpkg" zinc ./p.gpkg
every shp_sidecar utm_2000.shp elev utm_2000.dbf
every vsisubfile "/vsisubfile/0_$(stat -c %s pts.csv),pts.csv" z pts.csv
every vsi_nested /vsigzip//vsizip/gz.zip/pts.csv.gz z gz.zip
every gpkg_prefix_quoted 'GPKG:"p.gpkg":points' zinc p.gpkg
every clipsrc_prefix p.gpkg zinc clip.gpkg -clipsrc GPKG:clip.gpkg:c
every clipsrc_symlink p.gpkg zinc clip.gpkg -clipsrc "$A/./clip.gpkg"
# inputs of kriging: the variogram file, a drift raster (grid and cv)
K=kriging:variogram=model.json:max_points=8
refuse grid_variogram_file -- "$GK" grid -q -zfield zinc -a "$K" -outsize 5 5 -of GTiff p.gpkg model.json
refuse cv_variogram_file -- "$GK" cv -q -zfield zinc -a "$K" p.gpkg -o model.json
refuse grid_variogram_file_dotdot -- "$GK" grid -q -zfield zinc -a "$K" -outsize 5 5 -of GTiff \
    p.gpkg "../$(basename "$W")/model.json"
D=kriging:drift_raster=dvrt.vrt:model=Sph:psill=1:range=900:max_points=8
refuse grid_drift_raster_vrt_source -- "$GK" grid -q -zfield zinc -a "$D" -outsize 5 5 p.gpkg dist.tif
refuse cv_drift_raster_vrt_source -- "$GK" cv -q -zfield zinc -a "$D" p.gpkg -o dist.tif
refuse vgm_drift_raster -- "$GK" variogram p.gpkg -zfield zinc --drift-raster dist.tif -o dist.tif
refuse vgm_plot_drift_raster -- "$GK" variogram p.gpkg -zfield zinc --drift-raster d.png --plot d.png
refuse vgm_plot_drift_raster_symlink -- "$GK" variogram p.gpkg -zfield zinc --drift-raster "$A/d.png" \
    --plot "../$(basename "$W")/d.png"
refuse vgm_model_file -- "$GK" variogram p.gpkg -zfield zinc --model model.json -of json -o model.json
# the output's own side-car would replace an input: out.gml writes out.xsd
refuse cv_output_sidecar_is_input -- "$GK" cv -q -zfield zinc -a kriging:variogram=out.xsd:max_points=8 \
    p.gpkg -o out.gml
# --parts: the mosaic may be no input either (it is a .vrt: the VRT inputs)
for spelling in v.vrt "$A/v.vrt" "../$(basename "$W")/v.vrt"; do
    refuse "parts_$(echo "$spelling" | tr -c 'a-z0-9\n' _)" -- "$GK" grid -q --parts pdir -zfield zinc \
        -a average -outsize 5 5 vv.vrt "$spelling"
done
ln -s v.vrt vlink.vrt
snapshot >"$L/before"
rm -rf "$WORK/pristine" && cp -a "$W" "$WORK/pristine"
refuse parts_symlink_to_input -- "$GK" grid -q --parts pdir -zfield zinc -a average -outsize 5 5 \
    vv.vrt vlink.vrt

# a control: the same commands with an output that is no input succeed
(cd "$W" && "$GK" grid -q -zfield zinc -a average -outsize 5 5 -of GTiff GPKG:p.gpkg:points "$WORK/ok.tif") \
    >/dev/null 2>"$L/control.err"
if [ $? -eq 0 ] && [ -s "$WORK/ok.tif" ]; then ok control_grid; else ko control_grid "$(head -c 300 "$L/control.err")"; fi

finish
