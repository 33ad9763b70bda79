#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""gridkit's indicator kriging against gstat 2.1-0's krige(I(z < c) ~ 1, ..., nmax = 24)
on meuse's zinc, four cut-offs, each with the model gstat fitted to its indicator.

    ik_compare.py GRIDKIT DATA_DIR WORK_DIR

References: tests/geostat/gstat/refs/ik_meuse.json (Rscript tests/geostat/gstat/ik_refs.R;
R is not needed here). Checks:

* order=none: every band, every cell, within 1e-9 relative of gstat's prediction
  (|g - r| <= 1e-9 max(|r|, 1e-6 max|r|)); cells whose 24th and 25th nearest points
  are at the same distance are not compared (gstat's choice among tied points is its
  search tree's, compare.py says why) and counted;
* order=cdf (the default): GSLIB's order relations (ordrel: clip to [0, 1], the mean
  of the upward and downward passes) applied here to gstat's predictions, to 1e-9;
  every cell non-decreasing across the cut-offs and within [0, 1].

Prints PASS/FAIL per check and "N passed, M failed".
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
from osgeo import gdal, ogr

gdal.UseExceptions()
HERE = os.path.dirname(os.path.abspath(__file__))


def run(gridkit, args, spec, src, out):
    subprocess.run([gridkit, "grid", "-q", "-ot", "Float64"] + args.split() + ["-a", spec, src, out],
                   check=True, timeout=300)
    return gdal.Open(out).ReadAsArray().reshape(-1, 104 * 78)


def tied(src, args):
    """Cells whose 24th and 25th nearest points are equally far."""
    ds = ogr.Open(src)
    pts = np.array([f.GetGeometryRef().GetPoint_2D() for f in ds.GetLayer(0)])
    a = args.split()
    x0, x1 = float(a[a.index("-txe") + 1]), float(a[a.index("-txe") + 2])
    y0, y1 = float(a[a.index("-tye") + 1]), float(a[a.index("-tye") + 2])
    nx, ny = int(a[a.index("-outsize") + 1]), int(a[a.index("-outsize") + 2])
    gx = x0 + (np.arange(nx) + 0.5) * (x1 - x0) / nx
    gy = y1 - (np.arange(ny) + 0.5) * (y1 - y0) / ny
    X, Y = np.meshgrid(gx, gy)
    d2 = (X.reshape(-1, 1) - pts[:, 0]) ** 2 + (Y.reshape(-1, 1) - pts[:, 1]) ** 2
    s = np.sort(d2, axis=1)
    return s[:, 23] == s[:, 24]


def ordrel(p):
    p = np.clip(p, 0, 1)
    up = np.maximum.accumulate(p, axis=0)
    down = np.minimum.accumulate(p[::-1], axis=0)[::-1]
    return 0.5 * (up + down)


def main():
    gridkit, data, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    with open(os.path.join(HERE, "refs", "ik_meuse.json")) as f:
        ref = json.load(f)
    src = os.path.join(data, "meuse.gpkg")
    base = "kriging:max_points=24:indicator=%s:models=%s" % (
        ",".join("%g" % c for c in ref["cuts"]), ";".join(ref["models"]))
    r = np.array(ref["pred"])
    skip = tied(src, ref["args"])
    ok = bad = 0

    def report(name, fails, what):
        nonlocal ok, bad
        print("%s %s: %s" % ("FAIL" if fails else "PASS", name, what))
        ok, bad = ok + (not fails), bad + bool(fails)

    g = run(gridkit, ref["args"], base + ":order=none", src, os.path.join(work, "none.tif"))
    tol = 1e-9 * np.maximum(np.abs(r), 1e-6 * np.abs(r).max(axis=1, keepdims=True))
    err = np.abs(g - r)
    worse = (err > tol) & ~skip
    rel = np.max(err[:, ~skip] / np.maximum(np.abs(r[:, ~skip]), 1e-300))
    report("ik_meuse_none", worse.any(), "%d bands x %d cells, %d tied cells skipped, largest "
           "relative difference %.2e, %d cells beyond 1e-9" % (r.shape[0], r.shape[1],
                                                                 skip.sum(), rel, worse.sum()))
    c = run(gridkit, ref["args"], base, src, os.path.join(work, "cdf.tif"))
    want = ordrel(r)
    err = np.abs(c - want)[:, ~skip]
    mono = np.all(np.diff(c, axis=0) >= 0) and c.min() >= 0 and c.max() <= 1
    report("ik_meuse_cdf", err.max() > 1e-9 or not mono,
           "largest difference to GSLIB's ordrel of gstat's %.2e; monotone in [0, 1]: %s"
           % (err.max(), mono))
    print("%d passed, %d failed" % (ok, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
