#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Regenerates the SAGA references of tests/idw/saga/compare_cv.py: shepard's cross-validation.

usage (from the repository root, with Debian's saga and gdal-bin, after a build):
    python3 tests/idw/saga/make_cv_refs.py build/gridkit

For meuse's logzinc, each point's prediction by SAGA 8.5.0's Modified Quadratic Shepard
(saga_cmd grid_gridding 4, one core) from the other points (leave-one-out) and from the
points of the other folds of `gridkit cv --nfold 5` (the folds are gridkit's, drawn with its
default seed; only which point is in which fold is taken from gridkit): a grid of one cell
centred on the point. SAGA leaves out a layer's last point and then its northernmost (see
compare.py), so each layer is the training points, then a point far north, then a last one:
SAGA drops those two and fits the training points. Into refs/cv_meuse.csv: x, y, fold,
loo, kfold (%.9g: SAGA's Float32 values; "nan" where SAGA has none).
"""
import csv
import os
import subprocess
import sys
import tempfile

from osgeo import gdal, ogr, osr

gdal.UseExceptions()
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "..", "data", "meuse.gpkg")
NQ, NW = 13, 19


def points():
    src = ogr.Open(DATA)
    lyr = src.GetLayerByName("meuse")
    return [(f.GetGeometryRef().GetX(), f.GetGeometryRef().GetY(), f.GetField("logzinc")) for f in lyr]


def saga_at(tmp, train, x, y):
    """SAGA's value at (x, y) fitted to train (a list of (x, y, z))."""
    shp = os.path.join(tmp, "t.shp")
    drv = ogr.GetDriverByName("ESRI Shapefile")
    if os.path.exists(shp):
        drv.DeleteDataSource(shp)
    ds = drv.CreateDataSource(shp)
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(28992)
    lyr = ds.CreateLayer("t", srs, ogr.wkbPoint)
    lyr.CreateField(ogr.FieldDefn("z", ogr.OFTReal))
    far = max(p[1] for p in train) + 1e6
    for px, py, pz in list(train) + [(train[0][0], far, 0.0), (train[0][0], train[0][1], 0.0)]:
        f = ogr.Feature(lyr.GetLayerDefn())
        f.SetField("z", float(pz))
        g = ogr.Geometry(ogr.wkbPoint)
        g.AddPoint_2D(float(px), float(py))
        f.SetGeometryDirectly(g)
        lyr.CreateFeature(f)
    ds = None
    sdat = os.path.join(tmp, "s.sdat")
    subprocess.run(["saga_cmd", "--cores=1", "grid_gridding", "4", "-POINTS", shp, "-FIELD", "z",
                    "-TARGET_DEFINITION", "0", "-TARGET_USER_SIZE", "1",
                    "-TARGET_USER_XMIN", repr(x), "-TARGET_USER_XMAX", repr(x),
                    "-TARGET_USER_YMIN", repr(y), "-TARGET_USER_YMAX", repr(y),
                    "-TARGET_USER_FITS", "0", "-TARGET_OUT_GRID", sdat,
                    "-QUADRATIC_NEIGHBORS", str(NQ), "-WEIGHTING_NEIGHBORS", str(NW)],
                   check=True, capture_output=True)
    g = gdal.Open(sdat)
    b = g.GetRasterBand(1)
    a, nd = b.ReadAsArray(), b.GetNoDataValue()
    g = None
    assert a.shape == (1, 1), a.shape
    v = float(a[0, 0])
    return "nan" if v == nd else "%.9g" % v


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    gk = argv[1]
    pts = points()
    with tempfile.TemporaryDirectory() as tmp:
        folds_csv = os.path.join(tmp, "folds.csv")
        subprocess.run([gk, "cv", "-q", "-zfield", "logzinc", "-a", "shepard", "--nfold", "5", DATA,
                        "-o", folds_csv], check=True)
        with open(folds_csv) as f:
            fold = [int(r["fold"]) for r in csv.DictReader(f)]
        assert len(fold) == len(pts)
        rows = []
        for i, (x, y, _) in enumerate(pts):
            loo = saga_at(tmp, [p for j, p in enumerate(pts) if j != i], x, y)
            kf = saga_at(tmp, [p for j, p in enumerate(pts) if fold[j] != fold[i]], x, y)
            rows.append((x, y, fold[i], loo, kf))
    with open(os.path.join(HERE, "refs", "cv_meuse.csv"), "w") as f:
        f.write("x,y,fold,loo,kfold\n")
        for r in rows:
            f.write("%.17g,%.17g,%d,%s,%s\n" % r)
    print("cv_meuse: %d points" % len(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
