#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Regenerates the SAGA references of tests/idw/saga/compare.py into tests/idw/saga/refs/.

usage (from the repository root, with Debian's saga and gdal-bin):
    python3 tests/idw/saga/make_refs.py

SAGA 8.5.0's "Modifed Quadratic Shepard" (saga_cmd grid_gridding 4), one core, on the cases
below; each grid's values (Float32, as SAGA writes them) into refs/NAME.csv as x,y,value
(%.9g: a Float32 read back exactly; "nan" where SAGA has no value). SAGA is needed only here.
"""
import os
import subprocess
import sys
import tempfile

from osgeo import gdal

gdal.UseExceptions()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cases import CASES  # noqa: E402


def main():
    data = os.path.join(HERE, "..", "..", "..", "data")
    out = os.path.join(HERE, "refs")
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for c in CASES:
            shp = os.path.join(tmp, c["name"] + ".shp")
            subprocess.run(["ogr2ogr", "-q", shp, os.path.join(data, c["file"]), c["layer"],
                            "-select", c["field"]], check=True)
            x0, x1, y0, y1, nx, ny = c["grid"]
            cell = (x1 - x0) / nx
            sdat = os.path.join(tmp, c["name"] + ".sdat")
            subprocess.run(["saga_cmd", "--cores=1", "grid_gridding", "4", "-POINTS", shp,
                            "-FIELD", c["field"], "-TARGET_DEFINITION", "0",
                            "-TARGET_USER_SIZE", repr(cell),
                            "-TARGET_USER_XMIN", repr(x0 + cell / 2), "-TARGET_USER_XMAX", repr(x1 - cell / 2),
                            "-TARGET_USER_YMIN", repr(y0 + cell / 2), "-TARGET_USER_YMAX", repr(y1 - cell / 2),
                            "-TARGET_USER_FITS", "0", "-TARGET_OUT_GRID", sdat,
                            "-QUADRATIC_NEIGHBORS", str(c["nq"]), "-WEIGHTING_NEIGHBORS", str(c["nw"])],
                           check=True, capture_output=True)
            ds = gdal.Open(sdat)
            b = ds.GetRasterBand(1)
            a, nd, gt = b.ReadAsArray(), b.GetNoDataValue(), ds.GetGeoTransform()
            with open(os.path.join(out, c["name"] + ".csv"), "w") as f:
                f.write("x,y,value\n")
                for i in range(a.shape[0]):
                    for j in range(a.shape[1]):
                        v = a[i, j]
                        f.write("%.17g,%.17g,%s\n" % (gt[0] + (j + 0.5) * gt[1], gt[3] + (i + 0.5) * gt[5],
                                                      "nan" if v == nd else "%.9g" % v))
            print("%s: %dx%d" % (c["name"], a.shape[1], a.shape[0]))


if __name__ == "__main__":
    main()
