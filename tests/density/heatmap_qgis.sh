#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `-a heatmap` against QGIS 3.22's Heatmap (qgis:heatmapkerneldensityestimation,
# run headless by qgis_process as tests/driver/qgis_test.sh runs it): every
# kernel, raw and scaled, with and without weights, at QGIS's own cell centres.
#   usage: tests/density/heatmap_qgis.sh BUILD_DIR WORK_DIR
# Opt-in (-DGRIDKIT_QGIS_TESTS=ON): needs Debian's qgis and python3-gdal.
#
# Where QGIS 3.22 is exact, and so where the points lie (docs/heatmap.md):
# it computes a point's block of cells with row centres counted from the
# bottom but reads and writes the block counted from the top, which is the
# true kernel only when each point sits half a cell off QGIS's lower edge
# (y on the cell-centre lattice); it truncates a negative block origin to 0,
# harmless when radius / pixel = m + 1/2 with pixel <= 1 (then the block
# starts at 0 or above); and its block spans radius / pixel cells rounded by a
# remainder in map units, which with those sizes covers the whole disc.
# Hence pixel 1, radius 4.5, y on integers and x anywhere.
set -u
BUILD=$(cd "$1" && pwd) WORK=$2
rm -rf "$WORK" && mkdir -p "$WORK/home" && chmod 700 "$WORK/home" && WORK=$(cd "$WORK" && pwd)
export QT_QPA_PLATFORM=offscreen HOME=$WORK/home XDG_RUNTIME_DIR=$WORK/home
PY=/usr/bin/python3
QP=$(command -v qgis_process.bin || command -v qgis_process) || { echo "no qgis_process"; exit 1; }

$PY - "$WORK/pts.gpkg" <<'EOF_PY' || exit 1
import sys, random
from osgeo import ogr, osr
random.seed(25)
ds = ogr.GetDriverByName("GPKG").CreateDataSource(sys.argv[1])
srs = osr.SpatialReference(); srs.ImportFromEPSG(32631)
lyr = ds.CreateLayer("pts", srs, ogr.wkbPoint)
lyr.CreateField(ogr.FieldDefn("w", ogr.OFTReal))
for i in range(60):
    f = ogr.Feature(lyr.GetLayerDefn())
    # clustered in x so that cells sum up to a few dozen points
    x = 500000 + random.uniform(0, 12) + (random.uniform(0, 30) if i % 3 == 0 else 0)
    y = 4000000 + random.randint(0, 15)
    f.SetField("w", random.uniform(0.25, 3.0))
    f.SetGeometry(ogr.CreateGeometryFromWkt("POINT (%.17g %.17g)" % (x, y)))
    lyr.CreateFeature(f)
ds = None
EOF_PY

FAILS=0 WORST=0
for case in quartic:0:0 triangular:1:0 triangular:1:0.5 uniform:2:0 triweight:3:0 \
            epanechnikov:4:0; do
  IFS=: read -r kname kidx decay <<< "$case"
  for out in raw:0 scaled:1; do
    IFS=: read -r oname oidx <<< "$out"
    for weighted in 0 1; do
      tag=${kname}_${decay}_${oname}_w$weighted
      wq=() wg=()
      [ $weighted = 1 ] && wq=(WEIGHT_FIELD=w) && wg=(-zfield w)
      "$QP" run qgis:heatmapkerneldensityestimation -- INPUT="$WORK/pts.gpkg" RADIUS=4.5 \
        PIXEL_SIZE=1 KERNEL=$kidx DECAY=$decay OUTPUT_VALUE=$oidx "${wq[@]}" \
        OUTPUT="$WORK/q_$tag.tif" > "$WORK/q_$tag.log" 2>&1 || { echo "FAIL $tag: qgis_process"; FAILS=$((FAILS + 1)); continue; }
      # gridkit on QGIS's grid: same extent and size, so the same cell centres
      read -r xmin xmax ymin ymax nx ny < <($PY -c "
from osgeo import gdal
d = gdal.Open('$WORK/q_$tag.tif'); g = d.GetGeoTransform()
print('%.17g %.17g %.17g %.17g %d %d' % (g[0], g[0] + g[1] * d.RasterXSize,
      g[3] + g[5] * d.RasterYSize, g[3], d.RasterXSize, d.RasterYSize))")
      dk=  # decay is the triangular kernel's only (another kernel refuses it)
      [ $kname = triangular ] && dk=:decay=$decay
      "$BUILD/gridkit" grid -q "${wg[@]}" \
        -a heatmap:radius=4.5:kernel=$kname$dk:output=$oname:nodata=-9999 \
        -txe $xmin $xmax -tye $ymin $ymax -outsize $nx $ny -ot Float64 \
        "$WORK/pts.gpkg" "$WORK/g_$tag.tif" || { echo "FAIL $tag: gridkit"; FAILS=$((FAILS + 1)); continue; }
      r=$($PY - "$WORK/q_$tag.tif" "$WORK/g_$tag.tif" <<'EOF_PY'
import sys, numpy as np
from osgeo import gdal
q = gdal.Open(sys.argv[1]).ReadAsArray().astype(np.float64)
g = gdal.Open(sys.argv[2]).ReadAsArray()
# QGIS 3.22 writes Float32 and adds each point's term to the Float32 cell:
# every addition rounds by at most 2^-24 of the running sum, and every term
# here is >= 0, so |qgis - exact| <= k 2^-24 exact with k the points in the
# cell (at most 60). gridkit sums in double (error ~1e-15).
tol = 60 * 2.0 ** -24
nq, ng = q == -9999, g == -9999
if not np.array_equal(nq, ng) or not nq.any() or nq.all():
    print("nodata differs: %d cells" % np.count_nonzero(nq != ng)); sys.exit(0)
rel = np.abs(g[~ng] - q[~nq]) / np.abs(g[~ng]).clip(1e-300)
print("%.3g %d" % (rel.max(), rel.max() <= tol))
EOF_PY
)
      read -r rel ok <<< "$r"
      if [ "${ok:-0}" = 1 ]; then echo "ok   $tag (largest relative difference $rel)"
      else echo "FAIL $tag: $r"; FAILS=$((FAILS + 1)); fi
      WORST=$($PY -c "print(max($WORST, ${rel:-0}))" 2>/dev/null || echo $WORST)
    done
  done
done
echo "largest relative difference against QGIS: $WORST; $FAILS failure(s)"
exit $((FAILS != 0))
