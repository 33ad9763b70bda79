#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-a surface against GMT's surface, side by side (docs/benchmarks.md).

usage: bench_surface_gmt.py GRIDKIT [--repeat R] [--workdir DIR] [--cases N:S,...]

N uniform random points over 10 km (z = sin(6e-4 x) + cos(5e-4 y) + 0.1 u, seed 11, as
bench_gpu's surface), an S x S grid over them, tension 0.25 and every other setting at
both programs' defaults: `gmt surface -r -T0.25` (its own region choice; one core) and
`gridkit grid -a surface:tension=0.25` on every core and on one, whole commands reading the
same x y z text, best of R. Also how far apart the two grids are (RMS and largest, over the
data's range): each stops its sweeps at the same rule, not at the same grid.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
from osgeo import gdal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_rst_grass import timed  # noqa: E402
from bench_vs_gstat import cpu_name  # noqa: E402

gdal.UseExceptions()
CASES = [(100000, 1000), (1048576, 2048)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gridkit")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--cases", default=None, help="N:S,N:S (points:cells a side)")
    a = ap.parse_args()
    gk = os.path.abspath(a.gridkit)
    wd = os.path.abspath(a.workdir or tempfile.mkdtemp(prefix="gk-surface-"))
    os.makedirs(wd, exist_ok=True)
    os.chdir(wd)  # gmt leaves its gmt.history in the working directory
    cases = CASES if not a.cases else [tuple(int(v) for v in c.split(":"))
                                       for c in a.cases.split(",")]
    ncore = os.cpu_count()
    ver = subprocess.run(["gmt", "--version"], capture_output=True, text=True).stdout.strip()
    print("Machine: %s, %d cores; GMT %s; best of %d runs, wall clock." % (cpu_name(), ncore, ver,
                                                                          a.repeat))
    print()
    print("| points -> grid | gmt surface (1 core) | gridkit, %d threads | gridkit, 1 thread | "
          "faster by | apart: RMS, largest (of the range) |" % ncore)
    print("|---|---:|---:|---:|---:|---:|")
    for n, s in cases:
        r = np.random.default_rng(11)
        x, y = r.uniform(0, 10000, n), r.uniform(0, 10000, n)
        z = np.sin(6e-4 * x) + np.cos(5e-4 * y) + 0.1 * r.uniform(0, 1, n)
        xyz = os.path.join(wd, "p%d.xyz" % n)
        np.savetxt(xyz, np.c_[x, y, z], fmt="%.6f")
        inc = 10000.0 / s
        nc, tif = os.path.join(wd, "gmt.nc"), os.path.join(wd, "gk.tif")
        t_gmt = timed(["gmt", "surface", xyz, "-R0/10000/0/10000", "-I%r" % inc, "-r", "-T0.25",
                       "-G" + nc], a.repeat)
        base = [gk, "grid", "-q", "-txe", "0", "10000", "-tye", "0", "10000", "-outsize", str(s),
                str(s), "-ot", "Float32", "-a", "surface:tension=0.25", xyz, tif]
        t_all = timed(base[:2] + ["--threads", str(ncore)] + base[2:], a.repeat)
        t_one = timed(base[:2] + ["--threads", "1"] + base[2:], a.repeat)
        out = subprocess.run(["gmt", "grd2xyz", nc, "-ZTLf"], capture_output=True).stdout
        g = np.frombuffer(out, dtype=np.float32).astype(float).reshape(s, s)
        k = gdal.Open(tif).ReadAsArray().astype(float)
        d, rng = k - g, float(z.max() - z.min())
        print("| %d -> %d^2 | %.2f s | %.2f s | %.2f s | %.1fx | %.1e, %.1e |" % (
            n, s, t_gmt, t_all, t_one, t_gmt / t_all, np.sqrt(np.mean(d * d)) / rng,
            np.max(np.abs(d)) / rng))
    return 0


if __name__ == "__main__":
    sys.exit(main())
