#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""inputs_numeric.py GRIDKIT DATA_DIR WORK_DIR GDAL_GRID

The cases where gridkit must give a correct result
(not an error) from an odd input, checked against an independent computation
or against gdal_grid:
  - invdist/invdistnn with power=200: no weight overflows or underflows into
    the result (reference: the same sums in log space with numpy); equal to
    gdal_grid wherever gdal_grid's own weights stay finite;
  - infinite Z (or X/Y) is skipped and counted like NaN Z: the raster equals
    the one without those points;
  - kriging where every point is duplicated: nodata tagged on every band;
  - linear on collinear points: a warning on stderr.
Ends with "N passed, M failed".
"""
import os
import shutil
import subprocess
import sys

import numpy as np
from osgeo import gdal, ogr

gdal.UseExceptions()
GK, DATA, WORK, GDAL_GRID = sys.argv[1:5]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
os.chdir(WORK)
R = os.path.join(DATA, "random_500.gpkg")
G = ["-txe", "0", "1000", "-tye", "0", "1000", "-outsize", "20", "20"]
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
        print("PASS", what)
    else:
        failed += 1
        print("FAIL", what)


def run(args):
    return subprocess.run(args, capture_output=True, text=True, timeout=300)


def band(path, b=1):
    ds = gdal.Open(path)
    bd = ds.GetRasterBand(b)
    return bd.ReadAsArray().astype(np.float64), bd.GetNoDataValue()


def points(path):
    ds = ogr.Open(path)
    lyr = ds.GetLayer(0)
    xyz = [(f.GetGeometryRef().GetX(), f.GetGeometryRef().GetY(), f.GetGeometryRef().GetZ())
           for f in lyr]
    return np.array(xyz)


def idw_log_space(pts, power, radius=None, max_points=0):
    """Inverse distance in log space: weights relative to the largest, exact
    whatever the power. Nodes at pixel centres of G's 20 x 20 grid."""
    out = np.zeros((20, 20))
    for j in range(20):
        for i in range(20):
            x, y = 25 + 50 * i, 975 - 50 * j
            r2 = (pts[:, 0] - x) ** 2 + (pts[:, 1] - y) ** 2
            sel = np.arange(len(pts))
            if radius is not None:
                sel = sel[r2[sel] <= radius * radius]
            if max_points:
                sel = sel[np.argsort(r2[sel], kind="stable")[:max_points]]
            if len(sel) == 0:
                out[j, i] = np.nan
                continue
            lw = -0.5 * power * np.log(r2[sel])
            w = np.exp(lw - lw.max())
            out[j, i] = np.sum(w * pts[sel, 2]) / np.sum(w)
    return out


# ---- invdist:power=200 --------------------------------------------------------
pts = points(R)
for alg, radius, k in (("invdist:power=200", None, 0),
                       ("invdistnn:power=200:radius=300:max_points=10", 300, 10)):
    tag = alg.split(":")[0]
    r = run([GK, "grid", "-q"] + G + ["-a", alg, R, tag + "_gk.tif"])
    if r.returncode:
        check(False, "%s runs: %s" % (alg, r.stderr.strip()))
        continue
    got, _ = band(tag + "_gk.tif")
    ref = idw_log_space(pts, 200, radius, k)
    ok = np.isfinite(ref)
    rel = np.abs(got[ok] - ref[ok]) / np.maximum(1.0, np.abs(ref[ok]))
    check(ok.all() and rel.max() < 1e-9,
          "%s == log-space reference in all %d cells (max rel. diff %.3g)" %
          (alg, ok.sum(), rel.max()))
    if GDAL_GRID and os.path.exists(GDAL_GRID):
        r = run([GDAL_GRID, "-q"] + G + ["-a", alg, R, tag + "_gg.tif"])
        gg, _ = band(tag + "_gg.tif")
        # gdal_grid's weight 1/r^200 is 0 where r^200 overflows (r > ~35):
        # where every point that counts (weight above 2^-60 of the nearest's)
        # has a finite r^200 and the nearest's weight is a normal double, its
        # result is exact and must match; elsewhere it drops points (one cell
        # here: 1.6e-6 off) or gives 0 (nodata) for all of them
        big, tiny = np.log(np.finfo(float).max), np.log(np.finfo(float).tiny)
        exact = np.zeros((20, 20), bool)
        for j in range(20):
            for i in range(20):
                lr2 = np.log((pts[:, 0] - (25 + 50 * i)) ** 2 + (pts[:, 1] - (975 - 50 * j)) ** 2)
                counts = 100 * (lr2.min() - lr2) > -60 * np.log(2)
                exact[j, i] = np.all(100 * lr2[counts] < big) and -100 * lr2.min() > tiny
        d = np.abs(got[exact] - gg[exact]) / np.maximum(1.0, np.abs(gg[exact]))
        check(r.returncode == 0 and exact.sum() > 300 and d.max() < 1e-9,
              "%s == gdal_grid where gdal_grid's weights are exact (%d cells, max "
              "rel. %.3g); gdal_grid gives 0 in %d cells" %
              (alg, exact.sum(), d.max(), (gg == 0).sum()))
    else:
        check(False, "gdal_grid not found (%r)" % GDAL_GRID)

# ---- infinite Z, X, Y: skipped and counted as NaN Z ---------------------------
good = "x y z\n0 0 1\n10 0 2\n0 10 3\n10 10 4\n"
with open("good.xyz", "w") as f:
    f.write(good)
with open("inf.xyz", "w") as f:
    f.write(good + "5 5 inf\n5 6 -inf\ninf 5 7\n5 -inf 8\n5 5 nan\n3 3 1e999\n")
args = ["-txe", "0", "10", "-tye", "0", "10", "-outsize", "5", "5", "-a", "invdist"]
r1 = run([GK, "grid", "-q"] + args + ["good.xyz", "good.tif"])
r2 = run([GK, "grid"] + args + ["inf.xyz", "inf.tif"])
same = r1.returncode == 0 and r2.returncode == 0 and \
    np.array_equal(band("good.tif")[0], band("inf.tif")[0])
check(same and "Skipped 6 points" in r2.stderr,
      "XYZ: inf/NaN Z and X/Y skipped and counted (%s)" %
      [l for l in r2.stderr.splitlines() if "kipped" in l])
# the same through OGR (CSV)
with open("inf.csv", "w") as f:
    f.write("WKT,z\n" + "".join('"POINT (%s %s)",%s\n' % t for t in
                                 [(0, 0, 1), (10, 0, 2), (0, 10, 3), (10, 10, 4),
                                  (5, 5, "inf"), (5, 6, "-inf")]))
r3 = run([GK, "grid"] + args + ["-zfield", "z", "inf.csv", "infcsv.tif"])
check(r3.returncode == 0 and np.array_equal(band("good.tif")[0], band("infcsv.tif")[0]) and
      "Skipped 2 points" in r3.stderr,
      "OGR: infinite Z skipped and counted (rc %d: %s)" % (r3.returncode, r3.stderr.strip()[-200:]))

# the same from a GeoPackage (gridkit reads it straight from SQLite): Z in
# the geometry and in a field
drv = ogr.GetDriverByName("GPKG")
ds = drv.CreateDataSource("inf.gpkg")
lyr = ds.CreateLayer("pts", geom_type=ogr.wkbPoint25D)
lyr.CreateField(ogr.FieldDefn("v", ogr.OFTReal))
for x, y, z in [(0, 0, 1), (10, 0, 2), (0, 10, 3), (10, 10, 4), (5, 5, float("inf")),
                (5, 6, float("-inf"))]:
    f = ogr.Feature(lyr.GetLayerDefn())
    g = ogr.Geometry(ogr.wkbPoint25D)
    g.AddPoint(x, y, z)
    f.SetGeometry(g)
    f.SetField("v", z)
    lyr.CreateFeature(f)
ds = None
for path in ("YES", "NO"):  # SQLite straight, or through OGR
    for extra in ([], ["-zfield", "v"]):
        r4 = run([GK, "grid", "--config", "GRIDKIT_GPKG_SQLITE", path] + args + extra +
                 ["inf.gpkg", "infgpkg.tif"])
        check(r4.returncode == 0 and
              np.array_equal(band("good.tif")[0], band("infgpkg.tif")[0]) and
              "Skipped 2 points" in r4.stderr,
              "GeoPackage (GRIDKIT_GPKG_SQLITE=%s) %s: infinite Z skipped and counted (rc %d: %s)"
              % (path, extra or "geometry Z", r4.returncode, r4.stderr.strip()[-200:]))

# ---- kriging with every point duplicated: nodata tagged ------------------------
with open("dup.xyz", "w") as f:
    f.write("x y z\n0 0 1\n0 0 1\n5 5 2\n5 5 2\n0 5 3\n0 5 3\n")
r = run([GK, "grid", "-q", "-outsize", "4", "4", "-a", "kriging:model=Sph:psill=1:range=10",
         "dup.xyz", "dup.tif"])
ok = r.returncode == 0 and "singular" in r.stderr
if ok:
    for b in (1, 2):
        v, nd = band("dup.tif", b)
        ok = ok and nd is not None and np.all(v == nd)
check(ok, "kriging on duplicated points: every node nodata, tagged on both bands (%s)" %
      r.stderr.strip()[:200])
r = run([GK, "cv", "-a", "kriging:model=Sph:psill=1:range=10", "dup.xyz"])
check(r.returncode != 0 and "nan" not in r.stdout and "dup.xyz" in r.stderr and
      "prediction" in r.stderr,
      "cv with no prediction fails and names the input: %s" % r.stderr.strip()[:200])

# ---- linear on collinear points: a warning --------------------------------------
with open("line.xyz", "w") as f:
    f.write("x y z\n0 0 1\n1 1 2\n2 2 3\n3 3 4\n")
for name, src in (("collinear", "line.xyz"), ("two points", "two.xyz")):
    if name == "two points":
        with open("two.xyz", "w") as f:
            f.write("x y z\n0 0 1\n3 1 2\n")
    r = run([GK, "grid", "-q", "-txe", "0", "3", "-tye", "0", "3", "-outsize", "3", "3",
             "-a", "linear", src, "lin.tif"])
    check(r.returncode == 0 and "warning" in r.stderr.lower() and "nearest" in r.stderr,
          "linear on %s warns that it grids as nearest: %s" % (name, r.stderr.strip()[:200]))

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
