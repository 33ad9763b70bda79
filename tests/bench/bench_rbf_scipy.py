#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-a rbf against SciPy's RBFInterpolator, side by side (docs/benchmarks.md).

usage: bench_rbf_scipy.py GRIDKIT [--repeat R] [--workdir DIR]

Uniform random points (bench_vs_gstat.py's surface, seed 42) as x y z text, an S x S grid
over them; thin plate splines, local (neighbors=50) and global. Whole commands, best of R:
gridkit on every core and on one; SciPy as a Python process that reads the same text,
builds RBFInterpolator, evaluates it at the pixel centres and saves them (numpy's loadtxt
and save), on every core (its LAPACK is the system's). Also their largest difference,
relative to the data's largest |z|.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from osgeo import gdal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_vs_gstat import EXTENT, X0, Y0, cpu_name, make_points  # noqa: E402

gdal.UseExceptions()

CASES = [  # points, grid side, gridkit's -a, SciPy's keywords
    (20000, 200, "rbf:neighbors=50", "neighbors=50"),
    (100000, 400, "rbf:neighbors=50", "neighbors=50"),
    (2000, 200, "rbf", ""),
    (5000, 200, "rbf", ""),
]

SCIPY = """
import sys, numpy as np
from scipy.interpolate import RBFInterpolator
a = np.loadtxt(sys.argv[1]); s = int(sys.argv[2]); x0, y0, e = map(float, sys.argv[3:6])
xs = x0 + (np.arange(s) + 0.5) * (e / s); ys = y0 + e - (np.arange(s) + 0.5) * (e / s)
X, Y = np.meshgrid(xs, ys)
v = RBFInterpolator(a[:, :2], a[:, 2], %s)(np.c_[X.ravel(), Y.ravel()])
np.save(sys.argv[6], v.reshape(s, s))
"""


def best(cmd, repeat):
    b = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True)
        b = min(b, time.perf_counter() - t0)
        if r.returncode:
            sys.exit("failed: %s\n%s" % (" ".join(cmd), r.stderr[-500:]))
    return b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gridkit")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workdir", default=None)
    a = ap.parse_args()
    gk = os.path.abspath(a.gridkit)
    wd = a.workdir or tempfile.mkdtemp(prefix="gk-rbf-")
    os.makedirs(wd, exist_ok=True)
    ncore = os.cpu_count()
    import scipy
    print("Machine: %s, %d cores; SciPy %s; best of %d runs, wall clock, whole commands."
          % (cpu_name(), ncore, scipy.__version__, a.repeat))
    print()
    print("| case | gridkit, %d threads | gridkit, 1 thread | SciPy | gridkit faster by "
          "| largest difference |" % ncore)
    print("|---|---:|---:|---:|---:|---:|")
    for n, s, spec, kw in CASES:
        gpkg, csv = os.path.join(wd, "p%d.gpkg" % n), os.path.join(wd, "p%d.csv" % n)
        make_points(gpkg, csv, n, 42)
        xyz = os.path.join(wd, "p%d.xyz" % n)
        np.savetxt(xyz, np.genfromtxt(csv, delimiter=",", skip_header=1)[:, :3], fmt="%.17g")
        tif = os.path.join(wd, "g.tif")

        def gridkit(threads):
            return [gk, "grid", "-q", "--threads", str(threads), "-ot", "Float64", "-txe",
                    repr(X0), repr(X0 + EXTENT), "-tye", repr(Y0), repr(Y0 + EXTENT), "-outsize",
                    str(s), str(s), "-a", spec, xyz, tif]

        t_gk = best(gridkit(ncore), a.repeat)
        t_gk1 = best(gridkit(1), a.repeat)
        py = os.path.join(wd, "rbf_scipy_run.py")
        with open(py, "w") as f:
            f.write(SCIPY % kw)
        npy = os.path.join(wd, "s.npy")
        t_sp = best([sys.executable, py, xyz, str(s), repr(X0), repr(Y0), repr(EXTENT), npy],
                    a.repeat)
        g = gdal.Open(tif).ReadAsArray()
        ref = np.load(npy)
        z = np.loadtxt(xyz)[:, 2]
        diff = np.max(np.abs(g - ref)) / np.abs(z).max()
        print("| %s points -> %d^2, `%s` | %.3f s | %.3f s | %.3f s | %.1fx | %.1e |"
              % (format(n, ","), s, spec, t_gk, t_gk1, t_sp, t_sp / t_gk, diff))


if __name__ == "__main__":
    main()
