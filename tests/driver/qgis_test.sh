#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# QGIS 3.22 headless (qgis_process, QT_QPA_PLATFORM=offscreen): the gridkit
# Processing provider's algorithms run and equal the CLI, and a .gridkit layer
# opens in QGIS through the GDAL plugin.
#   usage: tests/driver/qgis_test.sh BUILD_DIR SOURCE_DIR WORK_DIR
# Needs Debian's qgis, qgis-providers and python3-qgis. Opt-in:
#   cmake -DGRIDKIT_QGIS_TESTS=ON ... && ctest -R qgis
set -u
BUILD=$(cd "$1" && pwd) SRC=$(cd "$2" && pwd) WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK/home" && chmod 700 "$WORK/home" && WORK=$(cd "$WORK" && pwd)
DATA=$SRC/data PY=/usr/bin/python3
export QT_QPA_PLATFORM=offscreen HOME=$WORK/home XDG_RUNTIME_DIR=$WORK/home
export QGIS_PLUGINPATH=$SRC/qgis GDAL_DRIVER_PATH=$BUILD/gdalplugins GRIDKIT_CLI=$BUILD/gridkit
# Debian's qgis_process wrapper passes --noversioncheck (from /etc/default/qgis),
# which qgis_process 3.22 rejects: call the binary.
QP=$(command -v qgis_process.bin || command -v qgis_process) || { echo "no qgis_process"; exit 1; }
FAILS=0
check() { if [ "$1" = 0 ]; then echo "ok   $2"; else echo "FAIL $2"; FAILS=$((FAILS + 1)); fi; }
qp() { "$QP" "$@" 2> "$WORK/qp.err"; }
same() { # same.py A B: every band equal
  $PY - "$1" "$2" <<'EOF'
import sys, numpy as np
from osgeo import gdal
a, b = gdal.Open(sys.argv[1]), gdal.Open(sys.argv[2])
ok = a.RasterCount == b.RasterCount and all(np.array_equal(
    a.GetRasterBand(i).ReadAsArray(), b.GetRasterBand(i).ReadAsArray(), equal_nan=True)
    for i in range(1, a.RasterCount + 1))
sys.exit(0 if ok else 1)
EOF
}

qp plugins enable gridkit_provider > "$WORK/enable.txt"
check $? "qgis_process plugins enable gridkit_provider"
qp list > "$WORK/list.txt"
grep -q "gridkit:grid" "$WORK/list.txt" && grep -q "gridkit:variogram" "$WORK/list.txt" &&
  grep -q "gridkit:crossvalidation" "$WORK/list.txt" && grep -q "gridkit:ridges" "$WORK/list.txt"
check $? "the provider lists grid, variogram, crossvalidation and ridges"

# grid: invdistnn (ALGORITHM index 1), with the progress bar fed from stderr
qp run gridkit:grid -- INPUT="$DATA/meuse.gpkg" Z_FIELD=logzinc ALGORITHM=1 RADIUS=1000 \
  MAX_POINTS=12 WIDTH=300 HEIGHT=257 OUTPUT="$WORK/q_idw.tif" > "$WORK/grid.txt"
rc=$?
"$BUILD/gridkit" grid -q -zfield logzinc -a invdistnn:radius=1000:max_points=12 -outsize 300 257 \
  -ot Float64 "$DATA/meuse.gpkg" "$WORK/cli_idw.tif"
[ $rc = 0 ] && same "$WORK/q_idw.tif" "$WORK/cli_idw.tif"
check $? "gridkit:grid invdistnn == gridkit grid"
grep -q "^0\.\.\.10\.\.\..*100 - done" "$WORK/grid.txt"
check $? "gridkit's stderr progress drives the progress bar (0...10...100 - done.)"

# the progress parser on chunks cut mid-token (as a pipe delivers them)
(cd "$SRC/qgis" && $PY - <<'EOF'
import sys
from gridkit_provider.algorithms import ProgressParser
class F:
    seen = []
    def setProgress(self, v): self.seen.append(v)
    def pushInfo(self, m): pass
f = F()
p = ProgressParser(f)
for c in ["Grid size = (300 257).\n0..", ".10...2", "0...30.", "..40...90...100 - done.\n"]:
    p.feed(c)
ok = f.seen == sorted(f.seen) and f.seen[-1] == 100.0 and 32.5 in f.seen
print("progress values:", f.seen)
sys.exit(0 if ok else 1)
EOF
)
check $? "progress parser: monotonic, 2.5 % per dot, 100 at done"

# grid: kriging (index 12), two bands
qp run gridkit:grid -- INPUT="$DATA/meuse.gpkg" Z_FIELD=logzinc ALGORITHM=12 \
  VARIOGRAM_MODEL=Sph PSILL=0.59 RANGE=897 NUGGET=0.05 WIDTH=120 HEIGHT=100 \
  OUTPUT="$WORK/q_krige.tif" > "$WORK/krige.txt"
rc=$?
"$BUILD/gridkit" grid -q -zfield logzinc -a kriging:psill=0.59:range=897:nugget=0.05:model=Sph \
  -outsize 120 100 "$DATA/meuse.gpkg" "$WORK/cli_krige.tif"
[ $rc = 0 ] && same "$WORK/q_krige.tif" "$WORK/cli_krige.tif"
check $? "gridkit:grid kriging (estimate + variance) == gridkit grid"

# density through the typed fields: gauss (bandwidth, epsilon, method, normalize) and heatmap
# (radius, kernel, output); the algorithms' indices from gridkit's own list
idx() { (cd "$SRC/qgis" && $PY -c "from gridkit_provider import gridkit_cli as g; \
print([a[0] for a in g.algorithms('$BUILD/gridkit')].index('$1'))"); }
GI=$(idx gauss) HI=$(idx heatmap)
qp run gridkit:grid -- INPUT="$DATA/meuse.gpkg" ALGORITHM=$GI BANDWIDTH=150 EPSILON=1e-9 \
  DENSITY_METHOD=3 DENSITY_NORMALIZE=1 WIDTH=120 HEIGHT=100 OUTPUT="$WORK/q_gauss.tif" \
  > "$WORK/gauss.txt"
rc=$?
"$BUILD/gridkit" grid -q -a gauss:bandwidth=150:epsilon=1e-9:method=ifgt:normalize=no \
  -outsize 120 100 -ot Float64 "$DATA/meuse.gpkg" "$WORK/cli_gauss.tif"
[ $rc = 0 ] && same "$WORK/q_gauss.tif" "$WORK/cli_gauss.tif"
check $? "gridkit:grid gauss (typed bandwidth, epsilon, method, normalize) == gridkit grid"
qp run gridkit:grid -- INPUT="$DATA/meuse.gpkg" Z_FIELD=logzinc ALGORITHM=$HI RADIUS=300 \
  HEATMAP_KERNEL=3 HEATMAP_OUTPUT=1 WIDTH=120 HEIGHT=100 OUTPUT="$WORK/q_heat.tif" \
  > "$WORK/heat.txt"
rc=$?
"$BUILD/gridkit" grid -q -zfield logzinc -a heatmap:radius=300:kernel=triweight:output=scaled \
  -outsize 120 100 -ot Float64 "$DATA/meuse.gpkg" "$WORK/cli_heat.tif"
[ $rc = 0 ] && same "$WORK/q_heat.tif" "$WORK/cli_heat.tif"
check $? "gridkit:grid heatmap (typed radius, kernel, output) == gridkit grid"

# a bad parameter: a clean failure with gridkit's message
qp run gridkit:grid -- INPUT="$DATA/meuse.gpkg" Z_FIELD=nosuchfield OUTPUT="$WORK/bad.tif" \
  > "$WORK/bad.txt"
rc=$?
[ $rc != 0 ] && grep -q 'no field "nosuchfield"' "$WORK/bad.txt" "$WORK/qp.err"
check $? "a bad run fails with gridkit's message"

# variogram with its plot
qp run gridkit:variogram -- INPUT="$DATA/meuse.gpkg" Z_FIELD=logzinc FIT=Nug,Sph \
  OUTPUT="$WORK/v.json" PLOT="$WORK/v.png" > "$WORK/variogram.txt"
[ $? = 0 ] && [ -s "$WORK/v.png" ] && grep -q experimental "$WORK/v.json"
check $? "gridkit:variogram writes the JSON and the plot"

# cross-validation
qp --json run gridkit:crossvalidation -- INPUT="$DATA/meuse.gpkg" Z_FIELD=logzinc ALGORITHM=1 \
  RADIUS=1000 REPORT="$WORK/cv.json" > "$WORK/cv.txt"
[ $? = 0 ] && grep -q '"RMSE"' "$WORK/cv.txt"
check $? "gridkit:crossvalidation reports RMSE"

# a .gridkit job file from the provider, opened by QGIS through gdal_GRIDKIT.so
qp run gridkit:gridfile -- INPUT="$DATA/meuse.gpkg" Z_FIELD=logzinc ALGORITHM=1 RADIUS=1000 \
  MAX_POINTS=12 WIDTH=300 HEIGHT=257 OUTPUT="$WORK/idw.gridkit" > "$WORK/gridfile.txt"
check $? "gridkit:gridfile writes a .gridkit file"
qp --json run native:rasterlayerstatistics -- INPUT="$WORK/idw.gridkit" BAND=1 \
  > "$WORK/stats.txt"
rc=$?
$PY - "$WORK/stats.txt" "$WORK/cli_idw.tif" <<'EOF'
import json, sys
from osgeo import gdal
r = json.load(open(sys.argv[1]))["results"]
ds = gdal.Open(sys.argv[2])
a = ds.GetRasterBand(1).ReadAsArray()
ok = abs(r["MEAN"] - a.mean()) < 1e-9 * abs(a.mean()) and r["MAX"] == a.max()
print("QGIS statistics of the .gridkit layer: mean %.12g max %.12g (CLI: %.12g %.12g)"
      % (r["MEAN"], r["MAX"], a.mean(), a.max()))
sys.exit(0 if ok else 1)
EOF
prc=$?
[ $rc = 0 ] && [ $prc = 0 ]
check $? "QGIS (native:rasterlayerstatistics) reads the .gridkit layer == CLI"
$PY - "$WORK/idw.gridkit" "$WORK/cli_idw.tif" <<'EOF'
import sys
import numpy as np
from osgeo import gdal
from qgis.core import QgsApplication, QgsRasterLayer
app = QgsApplication([], False)
app.initQgis()
lyr = QgsRasterLayer(sys.argv[1], "idw", "gdal")
ok = lyr.isValid() and lyr.width() == 300 and lyr.height() == 257 and lyr.crs().authid() == "EPSG:28992"
print("PyQGIS layer valid=%s %dx%d %s" % (lyr.isValid(), lyr.width(), lyr.height(), lyr.crs().authid()))
if ok:  # a block through QGIS's GDAL provider == the CLI's pixels
    blk = lyr.dataProvider().block(1, lyr.extent(), 300, 257)
    got = np.array([[blk.value(r, c) for c in range(300)] for r in range(257)])
    ds = gdal.Open(sys.argv[2])
    ok = np.array_equal(got, ds.GetRasterBand(1).ReadAsArray())
    print("QGIS block == CLI:", ok)
    del blk, ds
del lyr  # all before exitQgis (PyQGIS crashes at exit otherwise)
app.exitQgis()
sys.exit(0 if ok else 1)
EOF
check $? "PyQGIS opens the .gridkit layer (size, CRS, pixels == CLI)"

# ridges: a noisy circle (made here), the curve method, against the CLI's features
$PY - "$WORK/circle.gpkg" <<'EOF'
import math, random, sys
from osgeo import ogr, osr
random.seed(7)
ds = ogr.GetDriverByName("GPKG").CreateDataSource(sys.argv[1])
srs = osr.SpatialReference()
srs.ImportFromEPSG(28992)
lyr = ds.CreateLayer("pts", srs, ogr.wkbPoint)
for i in range(1500):
    a, r = random.uniform(0, 2 * math.pi), 100 + random.gauss(0, 2)
    f = ogr.Feature(lyr.GetLayerDefn())
    f.SetGeometry(ogr.CreateGeometryFromWkt("POINT (%r %r)" % (r * math.cos(a), r * math.sin(a))))
    lyr.CreateFeature(f)
EOF
qp run gridkit:ridges -- INPUT="$WORK/circle.gpkg" METHOD=0 R1=5 OUTPUT="$WORK/q_ridges.gpkg" \
  > "$WORK/ridges.txt"
rc=$?
"$BUILD/gridkit" ridges -q -a curve:r1=5 "$WORK/circle.gpkg" "$WORK/cli_ridges.gpkg"
[ $rc = 0 ] && $PY - "$WORK/q_ridges.gpkg" "$WORK/cli_ridges.gpkg" <<'EOF'
import sys
from osgeo import ogr
def feats(p):
    ds = ogr.Open(p)
    lyr = ds.GetLayer(0)
    return [(f.GetGeometryRef().ExportToWkt(), [f.GetField(i) for i in range(f.GetFieldCount())])
            for f in lyr]
a, b = feats(sys.argv[1]), feats(sys.argv[2])
print("QGIS: %d lines, CLI: %d lines" % (len(a), len(b)))
sys.exit(0 if a == b and a else 1)
EOF
check $? "gridkit:ridges curve == gridkit ridges (features and fields)"
grep -q "100 - done" "$WORK/ridges.txt"
check $? "gridkit:ridges shows gridkit's progress"

echo "$FAILS failure(s)"
[ $FAILS = 0 ]
