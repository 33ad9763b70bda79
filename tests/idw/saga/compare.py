#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-a shepard against SAGA 8.5.0's Modified Quadratic Shepard (grid_gridding 4).

usage: compare.py GRIDKIT DATA_DIR WORK_DIR

References: refs/NAME.csv, made by make_refs.py with saga_cmd (SAGA is not needed here).
SAGA's tool does not take every point: it leaves out the layer's last point (its duplicate
check runs over all but the last), then, after sorting the rest by (y, x), the northernmost
(it hands one point fewer to QSHEP2). gridkit is given the same points, so that the two
compute the same surface; SAGA writes it in Float32, and gridkit's value rounded to Float32
must be SAGA's, within one Float32 step (gridkit's doubles agree with SAGA's own QSHEP2
code to about 1e-15, which rounds to the same Float32 but for a value on a rounding
boundary). The cells SAGA leaves without a value (no point's radius reaches them) must be
nodata in gridkit's too. Ends with "N passed, M failed".
"""
import math
import os
import subprocess
import sys

import numpy as np
from osgeo import gdal, ogr

gdal.UseExceptions()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cases import CASES  # noqa: E402


def saga_points(path, layer, field):
    """The points SAGA 8.5.0's tool interpolates, in the layer's order."""
    src = ogr.Open(path)  # kept while its layer is read
    lyr = src.GetLayerByName(layer)
    pts = [(f.GetGeometryRef().GetX(), f.GetGeometryRef().GetY(), f.GetField(field)) for f in lyr]
    rest = pts[:-1]
    north = sorted(rest, key=lambda p: (p[1], p[0]))[-1]
    return [p for p in rest if p != north]


def float32_steps(got, ref):
    """How many Float32 steps gridkit's values (rounded to Float32) lie from SAGA's."""
    g32 = got.astype(np.float32).astype(np.float64)
    return np.abs(g32 - ref) / np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    gk, data, work = argv[1:]
    os.makedirs(work, exist_ok=True)
    npass = nfail = 0
    for c in CASES:
        pts = saga_points(os.path.join(data, c["file"]), c["layer"], c["field"])
        csv = os.path.join(work, c["name"] + ".csv")
        with open(csv, "w") as f:
            f.write("x,y,z\n")
            for p in pts:
                f.write("%.17g,%.17g,%.17g\n" % p)
        x0, x1, y0, y1, nx, ny = c["grid"]
        out = os.path.join(work, c["name"] + ".tif")
        r = subprocess.run([gk, "grid", "-q", "-zfield", "z", "-txe", repr(x0), repr(x1), "-tye", repr(y0),
                            repr(y1), "-outsize", str(nx), str(ny),
                            "-a", "shepard:quadratic_points=%d:weight_points=%d:nodata=nan" % (c["nq"], c["nw"]),
                            csv, out], capture_output=True, text=True)
        if r.returncode:
            print("FAIL %s: gridkit failed: %s" % (c["name"], r.stderr.strip()[-300:]))
            nfail += 1
            continue
        ds = gdal.Open(out)
        got = ds.GetRasterBand(1).ReadAsArray().astype(np.float64).ravel()
        ds = None
        ref = np.genfromtxt(os.path.join(HERE, "refs", c["name"] + ".csv"), delimiter=",",
                            skip_header=1)[:, 2]
        ref = ref.astype(np.float32).astype(np.float64)  # %.9g: a Float32, read as one
        rn, gn = np.isnan(ref), np.isnan(got)
        ok = ~rn & ~gn
        steps = float32_steps(got[ok], ref[ok])
        msgs = []
        if (rn != gn).any():
            msgs.append("%d cells nodata in one only (SAGA %d, gridkit %d)" % ((rn != gn).sum(), rn.sum(), gn.sum()))
        if ok.any() and steps.max() > 1:
            k = int(np.argmax(steps))
            msgs.append("%d cells more than one Float32 step off, worst %.3g steps (%.9g vs SAGA %.9g)"
                        % ((steps > 1).sum(), steps[k], got[ok][k], ref[ok][k]))
        if msgs:
            print("FAIL %s: %s" % (c["name"], "; ".join(msgs)))
            nfail += 1
        else:
            print("PASS %s: %d points, %d cells (%d nodata in both), %d equal in Float32, the rest one step off"
                  % (c["name"], len(pts), len(ref), rn.sum(), int((steps == 0).sum())))
            npass += 1
    print("%d passed, %d failed" % (npass, nfail))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
