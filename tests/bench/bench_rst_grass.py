#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-a rst against GRASS's v.surf.rst, side by side (docs/benchmarks.md).

usage: bench_rst_grass.py GRIDKIT [--repeat R] [--workdir DIR]

N uniform random points (bench_vs_gstat.py's surface, seed 42) in a GeoPackage, an S x S
grid over them, v.surf.rst's defaults (tension 40, smooth 0.1, segmax 40, npmin 300, dmin
half a cell): v.surf.rst timed alone (its own `grass --exec` command, the GRASS session's
start included, the points imported before), best of R, on the one core it uses; gridkit's whole command on every core and on one. Also how many
cells differ once gridkit's are rounded to Float32, as GRASS stores them.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
from osgeo import gdal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_vs_gstat import EXTENT, X0, Y0, cpu_name, make_points  # noqa: E402

gdal.UseExceptions()
CASES = [(5000, 500), (20000, 1000)]


def timed(cmd, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True)
        best = min(best, time.perf_counter() - t0)
        if r.returncode:
            sys.exit("failed: %s\n%s" % (" ".join(cmd), r.stderr[-800:]))
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gridkit")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--workdir", default=None)
    a = ap.parse_args()
    gk = os.path.abspath(a.gridkit)
    wd = a.workdir or tempfile.mkdtemp(prefix="gk-rst-")
    os.makedirs(wd, exist_ok=True)
    ncore = os.cpu_count()
    print("Machine: %s, %d cores; GRASS %s; best of %d runs, wall clock." % (
        cpu_name(), ncore, subprocess.run(["grass", "--version"], stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT,
                                          text=True).stdout.split("\n")[0].strip(), a.repeat))
    print()
    print("| points -> grid | v.surf.rst (1 core) | gridkit, %d threads | gridkit, 1 thread | "
          "faster by | cells not GRASS's Float32 |" % ncore)
    print("|---|---:|---:|---:|---:|---:|")
    for n, s in CASES:
        gpkg, csv = os.path.join(wd, "p%d.gpkg" % n), os.path.join(wd, "p%d.csv" % n)
        make_points(gpkg, csv, n, 42)
        dmin = EXTENT / s / 2
        loc = os.path.join(wd, "loc")
        shutil.rmtree(loc, ignore_errors=True)
        subprocess.run(["grass", "-e", "-c", "XY", loc], check=True, capture_output=True)
        mapset = os.path.join(loc, "PERMANENT")
        ref = os.path.join(wd, "grass.tif")

        def g(*args):
            return ["grass", mapset, "--exec"] + list(args)

        subprocess.run(g("v.in.ogr", "-o", "input=" + gpkg, "output=pts", "--quiet",
                         "--overwrite"), check=True, capture_output=True)
        subprocess.run(g("g.region", "w=%r" % X0, "e=%r" % (X0 + EXTENT), "s=%r" % Y0,
                         "n=%r" % (Y0 + EXTENT), "rows=%d" % s, "cols=%d" % s), check=True,
                       capture_output=True)
        t_grass = timed(g("v.surf.rst", "input=pts", "zcolumn=z", "elevation=surf",
                          "dmin=%r" % dmin, "--quiet", "--overwrite"), a.repeat)
        subprocess.run(g("r.out.gdal", "-c", "input=surf", "output=" + ref, "format=GTiff",
                         "type=Float64", "--quiet", "--overwrite"), check=True,
                       capture_output=True)
        tif = os.path.join(wd, "g.tif")

        def gridkit(threads):
            return [gk, "grid", "-q", "--threads", str(threads), "-ot", "Float64", "-zfield", "z",
                    "-txe", repr(X0), repr(X0 + EXTENT), "-tye", repr(Y0), repr(Y0 + EXTENT),
                    "-outsize", str(s), str(s), "-a", "rst:dmin=%r" % dmin, gpkg, tif]

        t_gk = timed(gridkit(ncore), a.repeat)
        t_gk1 = timed(gridkit(1), a.repeat)
        x = gdal.Open(tif).ReadAsArray().astype(np.float32).astype(np.float64)
        y = gdal.Open(ref).ReadAsArray()
        print("| %s -> %d^2 | %.2f s | %.2f s | %.2f s | %.1fx | %d of %d |"
              % (format(n, ","), s, t_grass, t_gk, t_gk1, t_grass / t_gk, int((x != y).sum()),
                 x.size))


if __name__ == "__main__":
    main()
