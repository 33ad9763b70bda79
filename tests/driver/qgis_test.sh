#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# QGIS 3.22 headless (qgis_process.bin, QT_QPA_PLATFORM=offscreen):
# - the plugin installed from build/gridkit_provider.zip as Install from ZIP
#   installs it (QGIS's own unzip, into the profile's python/plugins), its
#   tools found in `qgis_process.bin list` by their tags;
# - the tools run and equal the CLI (grid with every kind of typed parameter,
#   gauss's fft, variogram, cross-validation, ridges, a .gridkit file that QGIS
#   opens through the GDAL plugin);
# - the Heatmap tool with only a pixel size gives QGIS Heatmap's grid (size and
#   geotransform of qgis:heatmapkerneldensityestimation's raster) and QGIS's
#   values where QGIS 3.22 is exact (tests/density/heatmap_qgis.sh), gridkit
#   grid's elsewhere;
# - the program is found through the Processing setting "gridkit program",
#   and a missing one is named with the setting; the plugin as `cmake
#   --install` puts it runs its install's bin/gridkit with nothing set;
# - no ResourceWarning, Traceback or warning of the plugin in any log.
#   usage: tests/driver/qgis_test.sh BUILD_DIR SOURCE_DIR WORK_DIR
# Needs Debian's qgis, qgis-providers and python3-qgis. Opt-in:
#   cmake -DGRIDKIT_QGIS_TESTS=ON ... && ctest -R qgis
set -u
BUILD=$(cd "$1" && pwd) SRC=$(cd "$2" && pwd) WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK/home" && chmod 700 "$WORK/home" && WORK=$(cd "$WORK" && pwd)
DATA=$SRC/data PY="/usr/bin/python3 -W error::ResourceWarning"
export QT_QPA_PLATFORM=offscreen HOME=$WORK/home XDG_RUNTIME_DIR=$WORK/home
export GDAL_DRIVER_PATH=$BUILD/gdalplugins GRIDKIT_CLI=$BUILD/gridkit
# a file or pipe left open: a ResourceWarning in the log, whatever filter QGIS
# sets (checked at the end); no bytecode written beside the plugin's sources
export PYTHONWARNINGS=error::ResourceWarning PYTHONDONTWRITEBYTECODE=1
# Debian's qgis_process wrapper passes --noversioncheck (QGIS_OPTS in
# /etc/default/qgis), which qgis_process 3.22 rejects ("Command
# --noversioncheck not known!"): call the binary.
QP=$(command -v qgis_process.bin || command -v qgis_process) || { echo "no qgis_process"; exit 1; }
PROFILE=$HOME/.local/share/QGIS/QGIS3/profiles/default
FAILS=0
check() { if [ "$1" = 0 ]; then echo "ok   $2"; else echo "FAIL $2"; FAILS=$((FAILS + 1)); fi; }
# every run's stderr is kept: qp.err the last one's, all.err all of them
qp() { "$QP" "$@" 2> "$WORK/qp.err"; local rc=$?; cat "$WORK/qp.err" >> "$WORK/all.err"; return $rc; }
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

# The plugin: the zip the build makes, unpacked by QGIS's own Install from ZIP
# code (pyplugin_installer/unzip.py; the plugin's folder is the one of the
# shortest metadata.txt path) into the profile's plugin folder, where Install
# from ZIP puts it. Without the zip (cmake/qgis.cmake not included), the
# source folder through QGIS_PLUGINPATH.
ZIP=$BUILD/gridkit_provider.zip
if [ -f "$ZIP" ]; then
  $PY - "$ZIP" "$PROFILE/python/plugins" <<'EOF'
import importlib.util, os, sys, zipfile
spec = importlib.util.spec_from_file_location(
    "qgis_unzip", "/usr/share/qgis/python/pyplugin_installer/unzip.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
with zipfile.ZipFile(sys.argv[1]) as zf:
    metas = sorted(f for f in zf.namelist() if f.endswith("metadata.txt"))
name = os.path.split(metas[0])[0] if metas else None
mod.unzip(sys.argv[1], sys.argv[2])
ok = name == "gridkit_provider" and os.path.isfile(
    os.path.join(sys.argv[2], name, "__init__.py"))
print("Install from ZIP: plugin %s in %s" % (name, sys.argv[2]))
sys.exit(0 if ok else 1)
EOF
  check $? "the zip unpacks as Install from ZIP does: gridkit_provider/ in the profile's plugins"
  PLUGINS=$PROFILE/python/plugins
else
  echo "note: no $ZIP (target qgis_plugin_zip): the plugin from the source folder"
  export QGIS_PLUGINPATH=$SRC/qgis
  PLUGINS=$SRC/qgis
fi

qp plugins enable gridkit_provider > "$WORK/enable.txt"
check $? "qgis_process.bin plugins enable gridkit_provider"
qp list > "$WORK/list.txt"
grep -q "gridkit:grid" "$WORK/list.txt" && grep -q "gridkit:variogram" "$WORK/list.txt" &&
  grep -q "gridkit:crossvalidation" "$WORK/list.txt" && grep -q "gridkit:ridges" "$WORK/list.txt" &&
  grep -q "gridkit:heatmap.*Heatmap (kernel density, gridkit)" "$WORK/list.txt"
check $? "the provider lists grid, heatmap, variogram, crossvalidation and ridges"
# the Toolbox's search words: the tags and short descriptions qgis_process reports
qp --json list > "$WORK/list.json"
$PY - "$WORK/list.json" <<'EOF'
import json, sys
with open(sys.argv[1]) as f:
    prov = json.load(f)["providers"]["gridkit"]
algs = prov["algorithms"]
bad = [i for i, a in algs.items() if not a.get("short_description") or len(a.get("tags", [])) < 5]
print("provider version %s; tools without tags or a short description: %s"
      % (prov.get("version"), bad))
ok = not bad and bool(prov.get("version"))
for word, want in (("heatmap", {"gridkit:heatmap", "gridkit:grid"}),
                   ("kernel density", {"gridkit:heatmap"}), ("kriging", {"gridkit:grid"}),
                   ("idw", {"gridkit:grid", "gridkit:crossvalidation"}),
                   ("inverse distance", {"gridkit:grid"}), ("variogram", {"gridkit:variogram"})):
    found = {i for i, a in algs.items()
             if any(word in t.lower() for t in a["tags"] + [a["name"], a["short_description"]])}
    print("  %r finds %s" % (word, ", ".join(sorted(found))))
    ok = ok and want <= found
sys.exit(0 if ok else 1)
EOF
check $? "qgis_process.bin --json list: tags and a short description on every tool; heatmap, kernel density, kriging, idw, inverse distance, variogram find their tools"

# The Grid tool's algorithms (ALGORITHM is an index): gridkit's list, common ones first
idx() { (cd "$PLUGINS" && $PY -c "from gridkit_provider import gridkit_cli as g; \
print([a[0] for a in g.algorithms('$BUILD/gridkit')].index('$1'))"); }
NI=$(idx invdistnn) KI=$(idx kriging) GI=$(idx gauss) HI=$(idx heatmap)
[ "$(idx invdist)" = 0 ] && [ "$NI" = 1 ] && [ "$(idx linear)" = 2 ] && [ "$KI" = 3 ]
check $? "the Grid tool's list starts invdist, invdistnn, linear, kriging"

# grid: invdistnn, with the progress bar fed from stderr
qp run gridkit:grid -- INPUT="$DATA/meuse.gpkg" Z_FIELD=logzinc ALGORITHM=$NI RADIUS=1000 \
  MAX_POINTS=12 WIDTH=300 HEIGHT=257 OUTPUT="$WORK/q_idw.tif" > "$WORK/grid.txt"
rc=$?
"$BUILD/gridkit" grid -q -zfield logzinc -a invdistnn:radius=1000:max_points=12 -outsize 300 257 \
  -ot Float64 "$DATA/meuse.gpkg" "$WORK/cli_idw.tif"
[ $rc = 0 ] && same "$WORK/q_idw.tif" "$WORK/cli_idw.tif"
check $? "gridkit:grid invdistnn == gridkit grid"
grep -q "^0\.\.\.10\.\.\..*100 - done" "$WORK/grid.txt"
check $? "gridkit's stderr progress drives the progress bar (0...10...100 - done.)"

# the progress parser on chunks cut mid-token (as a pipe delivers them)
(cd "$PLUGINS" && $PY - <<'EOF'
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

# grid: kriging, two bands
qp run gridkit:grid -- INPUT="$DATA/meuse.gpkg" Z_FIELD=logzinc ALGORITHM=$KI \
  VARIOGRAM_MODEL=Sph PSILL=0.59 RANGE=897 NUGGET=0.05 WIDTH=120 HEIGHT=100 \
  OUTPUT="$WORK/q_krige.tif" > "$WORK/krige.txt"
rc=$?
"$BUILD/gridkit" grid -q -zfield logzinc -a kriging:psill=0.59:range=897:nugget=0.05:model=Sph \
  -outsize 120 100 "$DATA/meuse.gpkg" "$WORK/cli_krige.tif"
[ $rc = 0 ] && same "$WORK/q_krige.tif" "$WORK/cli_krige.tif"
check $? "gridkit:grid kriging (estimate + variance) == gridkit grid"

# density through the typed fields: gauss (bandwidth, epsilon, method, normalize; fft
# among the methods) and heatmap (radius, kernel, output)
qp run gridkit:grid -- INPUT="$DATA/meuse.gpkg" ALGORITHM=$GI BANDWIDTH=150 EPSILON=1e-9 \
  DENSITY_METHOD=3 DENSITY_NORMALIZE=1 WIDTH=120 HEIGHT=100 OUTPUT="$WORK/q_gauss.tif" \
  > "$WORK/gauss.txt"
rc=$?
"$BUILD/gridkit" grid -q -a gauss:bandwidth=150:epsilon=1e-9:method=ifgt:normalize=no \
  -outsize 120 100 -ot Float64 "$DATA/meuse.gpkg" "$WORK/cli_gauss.tif"
[ $rc = 0 ] && same "$WORK/q_gauss.tif" "$WORK/cli_gauss.tif"
check $? "gridkit:grid gauss (typed bandwidth, epsilon, method, normalize) == gridkit grid"
qp run gridkit:grid -- INPUT="$DATA/meuse.gpkg" ALGORITHM=$GI BANDWIDTH=150 EPSILON=1e-6 \
  DENSITY_METHOD=4 WIDTH=120 HEIGHT=100 OUTPUT="$WORK/q_fft.tif" > "$WORK/fft.txt"
rc=$?
"$BUILD/gridkit" grid -q -a gauss:bandwidth=150:epsilon=1e-6:method=fft \
  -outsize 120 100 -ot Float64 "$DATA/meuse.gpkg" "$WORK/cli_fft.tif"
[ $rc = 0 ] && grep -q "gauss:bandwidth=150:epsilon=1e-06:method=fft\|method=fft" "$WORK/fft.txt" &&
  same "$WORK/q_fft.tif" "$WORK/cli_fft.tif"
check $? "gridkit:grid gauss with method fft (DENSITY_METHOD 4) == gridkit grid"
qp run gridkit:grid -- INPUT="$DATA/meuse.gpkg" Z_FIELD=logzinc ALGORITHM=$HI RADIUS=300 \
  HEATMAP_KERNEL=3 HEATMAP_OUTPUT=1 WIDTH=120 HEIGHT=100 OUTPUT="$WORK/q_heat.tif" \
  > "$WORK/heat.txt"
rc=$?
"$BUILD/gridkit" grid -q -zfield logzinc -a heatmap:radius=300:kernel=triweight:output=scaled \
  -outsize 120 100 -ot Float64 "$DATA/meuse.gpkg" "$WORK/cli_heat.tif"
[ $rc = 0 ] && same "$WORK/q_heat.tif" "$WORK/cli_heat.tif"
check $? "gridkit:grid heatmap (typed radius, kernel, output) == gridkit grid"

# ---- the Heatmap tool: QGIS Heatmap's parameters, only a pixel size --------
# (1) where QGIS 3.22 is exact (tests/density/heatmap_qgis.sh): pixel 1,
# radius 4.5, y on integers; QGIS's raster and the tool's: the same size and
# geotransform, the same nodata cells, the values to QGIS's Float32 sums
$PY - "$WORK/lattice.gpkg" <<'EOF' || exit 1
import sys, random
from osgeo import ogr, osr
random.seed(25)
ds = ogr.GetDriverByName("GPKG").CreateDataSource(sys.argv[1])
srs = osr.SpatialReference(); srs.ImportFromEPSG(32631)
lyr = ds.CreateLayer("pts", srs, ogr.wkbPoint)
lyr.CreateField(ogr.FieldDefn("w", ogr.OFTReal))
for i in range(60):
    f = ogr.Feature(lyr.GetLayerDefn())
    x = 500000 + random.uniform(0, 12) + (random.uniform(0, 30) if i % 3 == 0 else 0)
    # QGIS takes the extent from OGR, whose GeoPackage extent has 15 significant
    # digits: x to 1e-3 so that it is the points' own
    x = round(x, 3)
    y = 4000000 + random.randint(0, 15)
    f.SetField("w", random.uniform(0.25, 3.0))
    f.SetGeometry(ogr.CreateGeometryFromWkt("POINT (%.17g %.17g)" % (x, y)))
    lyr.CreateFeature(f)
ds = None
EOF
cmp_heat() { # cmp_heat QGIS GRIDKIT TOLERANCE: size, geotransform, nodata cells, values
  $PY - "$@" <<'EOF'
import sys, numpy as np
from osgeo import gdal
q, g = gdal.Open(sys.argv[1]), gdal.Open(sys.argv[2])
tol = float(sys.argv[3])
geo = ((q.RasterXSize, q.RasterYSize) == (g.RasterXSize, g.RasterYSize) and
       q.GetGeoTransform() == g.GetGeoTransform())
print("QGIS %dx%d %s; gridkit:heatmap %dx%d %s" % (q.RasterXSize, q.RasterYSize,
      q.GetGeoTransform(), g.RasterXSize, g.RasterYSize, g.GetGeoTransform()))
if not geo:
    sys.exit(1)
if tol < 0:  # the grid only
    sys.exit(0)
a = q.ReadAsArray().astype(np.float64)
b = g.ReadAsArray().astype(np.float64)
na, nb = a == -9999, b == -9999
rel = np.abs(a[~na] - b[~nb]) / np.abs(b[~nb]).clip(1e-300) if np.array_equal(na, nb) else None
print("nodata cells %d and %d; largest relative difference %s"
      % (na.sum(), nb.sum(), None if rel is None else "%.3g" % rel.max()))
sys.exit(0 if rel is not None and na.any() and not na.all() and rel.max() <= tol else 1)
EOF
}
# QGIS sums in Float32 (60 points: 60 x 2^-24); the tool writes Float32 too (one more rounding)
TOL=$($PY -c "print(61 * 2.0 ** -24)")
for case in quartic:0:0:0:0 triangular:1:0.5:1:1 epanechnikov:4:0:1:1 uniform:2:0:0:1; do
  IFS=: read -r kname kidx decay oidx weighted <<< "$case"
  wq=()
  [ "$weighted" = 1 ] && wq=(WEIGHT_FIELD=w)
  qp run qgis:heatmapkerneldensityestimation -- INPUT="$WORK/lattice.gpkg" RADIUS=4.5 \
    PIXEL_SIZE=1 KERNEL=$kidx DECAY=$decay OUTPUT_VALUE=$oidx "${wq[@]}" \
    OUTPUT="$WORK/qgis_$kname.tif" > "$WORK/qgis_$kname.txt"
  rc1=$?
  qp run gridkit:heatmap -- INPUT="$WORK/lattice.gpkg" RADIUS=4.5 PIXEL_SIZE=1 KERNEL=$kidx \
    DECAY=$decay OUTPUT_VALUE=$oidx "${wq[@]}" OUTPUT="$WORK/gk_$kname.tif" \
    > "$WORK/gk_$kname.txt"
  rc2=$?
  [ $rc1 = 0 ] && [ $rc2 = 0 ] && cmp_heat "$WORK/qgis_$kname.tif" "$WORK/gk_$kname.tif" "$TOL"
  check $? "gridkit:heatmap $kname (decay $decay, output $oidx, weights $weighted) == QGIS's Heatmap: grid, nodata, values"
done
# the command: -tr only (no extent), the kernel's keys, -zfield for the weight
grep -q -- "-a heatmap:radius=4.5:kernel=triangular:decay=0.5:output=scaled:nodata=-9999 -tr 1 1 -ot Float32 .*-zfield w" \
  "$WORK/gk_triangular.txt" && ! grep -q -- "-txe\|-outsize" "$WORK/gk_triangular.txt"
check $? "gridkit:heatmap runs gridkit grid -a heatmap:... -tr P P (no extent) -zfield W"

# (2) ordinary data (meuse, weights zinc): QGIS 3.22 is not exact there
# (docs/heatmap.md), so the grid against QGIS's and the values against
# gridkit grid run directly
qp run qgis:heatmapkerneldensityestimation -- INPUT="$DATA/meuse.gpkg" RADIUS=300 PIXEL_SIZE=20 \
  KERNEL=3 OUTPUT_VALUE=1 WEIGHT_FIELD=zinc OUTPUT="$WORK/qgis_meuse.tif" > "$WORK/qgis_meuse.txt"
rc1=$?
qp run gridkit:heatmap -- INPUT="$DATA/meuse.gpkg" RADIUS=300 PIXEL_SIZE=20 KERNEL=3 \
  OUTPUT_VALUE=1 WEIGHT_FIELD=zinc OUTPUT="$WORK/gk_meuse.tif" > "$WORK/gk_meuse.txt"
rc2=$?
"$BUILD/gridkit" grid -q -zfield zinc -a heatmap:radius=300:kernel=triweight:output=scaled:nodata=-9999 \
  -tr 20 20 -ot Float32 "$DATA/meuse.gpkg" "$WORK/cli_meuse.tif"
[ $rc1 = 0 ] && [ $rc2 = 0 ] && cmp_heat "$WORK/qgis_meuse.tif" "$WORK/gk_meuse.tif" -1 &&
  same "$WORK/gk_meuse.tif" "$WORK/cli_meuse.tif"
check $? "gridkit:heatmap on meuse (pixel 20, radius 300): QGIS's size and geotransform, gridkit grid's values"
$PY - "$WORK/gk_meuse.tif" <<'EOF'
import sys
from osgeo import gdal
ds = gdal.Open(sys.argv[1])
b = ds.GetRasterBand(1)
print("type %s, nodata %s" % (gdal.GetDataTypeName(b.DataType), b.GetNoDataValue()))
sys.exit(0 if b.DataType == gdal.GDT_Float32 and b.GetNoDataValue() == -9999 else 1)
EOF
check $? "gridkit:heatmap writes Float32 with nodata -9999, as QGIS's Heatmap"

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
qp --json run gridkit:crossvalidation -- INPUT="$DATA/meuse.gpkg" Z_FIELD=logzinc ALGORITHM=$NI \
  RADIUS=1000 REPORT="$WORK/cv.json" > "$WORK/cv.txt"
[ $? = 0 ] && grep -q '"RMSE"' "$WORK/cv.txt"
check $? "gridkit:crossvalidation reports RMSE"

# a .gridkit job file from the provider, opened by QGIS through gdal_GRIDKIT.so
qp run gridkit:gridfile -- INPUT="$DATA/meuse.gpkg" Z_FIELD=logzinc ALGORITHM=$NI RADIUS=1000 \
  MAX_POINTS=12 WIDTH=300 HEIGHT=257 OUTPUT="$WORK/idw.gridkit" > "$WORK/gridfile.txt"
check $? "gridkit:gridfile writes a .gridkit file"
qp --json run native:rasterlayerstatistics -- INPUT="$WORK/idw.gridkit" BAND=1 \
  > "$WORK/stats.txt"
rc=$?
$PY - "$WORK/stats.txt" "$WORK/cli_idw.tif" <<'EOF'
import json, sys
from osgeo import gdal
with open(sys.argv[1]) as f:
    r = json.load(f)["results"]
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

# ---- where the program is: the Processing setting -----------------------------
# Without $GRIDKIT_CLI and gridkit on PATH: not found (unless the package's
# /usr/bin/gridkit is installed), with a message naming the setting; then
# the setting (Processing/Configuration/GRIDKIT_PATH in the profile's
# QGIS3.ini, as Settings > Options > Processing writes it) finds it.
nocli() { env -u GRIDKIT_CLI PATH=/usr/bin:/bin "$QP" "$@" 2> "$WORK/qp.err"; local rc=$?; \
  cat "$WORK/qp.err" >> "$WORK/all.err"; return $rc; }
if [ -x /usr/bin/gridkit ] || [ -x /bin/gridkit ]; then
  echo "skip: the package's gridkit is installed, so it is found without the setting"
else
  nocli run gridkit:heatmap -- INPUT="$DATA/meuse.gpkg" RADIUS=300 PIXEL_SIZE=20 \
    OUTPUT="$WORK/nf.tif" > "$WORK/notfound.txt"
  rc=$?
  [ $rc != 0 ] && grep -q 'gridkit program was not found.*Settings > Options > Processing > Providers > gridkit > "gridkit program"' \
    "$WORK/notfound.txt" "$WORK/qp.err"
  check $? "no program found: the run fails naming the setting"
fi
setting() { $PY - "$PROFILE/QGIS/QGIS3.ini" "$1" <<'EOF'
import sys
path, value = sys.argv[1], sys.argv[2]
with open(path) as f:
    lines = [ln for ln in f.read().splitlines() if not ln.startswith("Configuration\\GRIDKIT_PATH=")]
line = "Configuration\\GRIDKIT_PATH=" + value
if "[Processing]" in lines:
    lines.insert(lines.index("[Processing]") + 1, line)
else:
    lines += ["", "[Processing]", line]
with open(path, "w") as f:
    f.write("\n".join(lines) + "\n")
EOF
}
setting "$BUILD/gridkit"
nocli run gridkit:heatmap -- INPUT="$DATA/meuse.gpkg" RADIUS=300 PIXEL_SIZE=20 KERNEL=3 \
  OUTPUT_VALUE=1 WEIGHT_FIELD=zinc OUTPUT="$WORK/set.tif" > "$WORK/setting.txt"
[ $? = 0 ] && grep -q "^$BUILD/gridkit grid" "$WORK/setting.txt" && same "$WORK/set.tif" "$WORK/gk_meuse.tif"
check $? "the setting \"gridkit program\" names the program (no \$GRIDKIT_CLI, none on PATH)"
setting "$WORK/no/gridkit"
nocli run gridkit:heatmap -- INPUT="$DATA/meuse.gpkg" RADIUS=300 PIXEL_SIZE=20 \
  OUTPUT="$WORK/bad_setting.tif" > "$WORK/bad_setting.txt"
rc=$?
[ $rc != 0 ] && grep -q "$WORK/no/gridkit.*\"gridkit program\"" "$WORK/bad_setting.txt" "$WORK/qp.err"
check $? "a setting naming no program: the run fails naming the setting and its value"
setting ""

# ---- the installed plugin finds its own install's program --------------------
# `cmake --install` (component runtime, as the package) into a prefix, the tree
# moved: the plugin in P/share/qgis/python/plugins runs P/bin/gridkit with
# nothing set (a fresh profile, no $GRIDKIT_CLI, none on PATH).
if [ -x /usr/bin/gridkit ] || [ -x /bin/gridkit ]; then
  echo "skip: the package's gridkit is installed, so it is found first"
elif ! DESTDIR=$WORK/stage cmake --install "$BUILD" --prefix /opt/gk --component runtime \
    > "$WORK/install.log" 2>&1; then
  check 1 "cmake --install --component runtime: $(tail -c 300 "$WORK/install.log")"
elif [ ! -f "$WORK/stage/opt/gk/share/qgis/python/plugins/gridkit_provider/metadata.txt" ]; then
  echo "skip: the install has no QGIS plugin (cmake/qgis.cmake not included)"
else
  mv "$WORK/stage/opt/gk" "$WORK/moved"
  H2=$WORK/home2
  mkdir -p "$H2" && chmod 700 "$H2"
  inst() { env -u GRIDKIT_CLI PATH=/usr/bin:/bin HOME="$H2" XDG_RUNTIME_DIR="$H2" \
    QGIS_PLUGINPATH="$WORK/moved/share/qgis/python/plugins" "$QP" "$@" 2> "$WORK/qp.err"; \
    local rc=$?; cat "$WORK/qp.err" >> "$WORK/all.err"; return $rc; }
  inst plugins enable gridkit_provider > "$WORK/inst_enable.txt" &&
    inst run gridkit:heatmap -- INPUT="$DATA/meuse.gpkg" RADIUS=300 PIXEL_SIZE=20 KERNEL=3 \
      OUTPUT_VALUE=1 WEIGHT_FIELD=zinc OUTPUT="$WORK/inst.tif" > "$WORK/inst.txt" &&
    grep -q "^$WORK/moved/bin/gridkit grid" "$WORK/inst.txt" && same "$WORK/inst.tif" "$WORK/gk_meuse.tif"
  check $? "the installed plugin (share/qgis/python/plugins) runs its install's bin/gridkit, nothing set"
fi

# ---- the logs -------------------------------------------------------------------
# No ResourceWarning (the plugin's 0.1.0 left gridkit's stderr pipe open:
# "algorithms.py:326: ResourceWarning: unclosed file <_io.BufferedReader
# name=15>" at every run), no Traceback, no warning of the plugin. QGIS 3.22 itself prints
# "DeprecationWarning: setapi() is deprecated" at every start: not ours.
cat "$WORK"/*.txt "$WORK/all.err" > "$WORK/all.log"
! grep -n "ResourceWarning\|Traceback\|Exception ignored" "$WORK/all.log"
check $? "no ResourceWarning or Traceback in any log"
! grep -in "warning" "$WORK/all.log" | grep -v "setapi() is deprecated"
check $? "no warning in any log (but QGIS's own setapi() DeprecationWarning)"
[ ! -e "$PLUGINS/gridkit_provider/__pycache__" ] || [ "$PLUGINS" != "$SRC/qgis" ]
check $? "no __pycache__ left in the source folder"

echo "$FAILS failure(s)"
[ $FAILS = 0 ]
