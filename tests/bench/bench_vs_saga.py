#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-a shepard against SAGA's Modified Quadratic Shepard, side by side (docs/benchmarks.md).

usage: bench_vs_saga.py GRIDKIT [--repeat 3] [--workdir DIR]

The 10,000 points of bench_vs_gstat.py (same seed), quadratic_points 13,
weight_points 19, one core each (saga_cmd --cores=1, gridkit --threads 1), whole commands,
best of --repeat, at 500 x 500 and 1000 x 1000: the whole commands, and the cost of each further
node (the difference of the two over the nodes added; SAGA's start, about 0.6 s, drops out).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_vs_gstat import EXTENT, X0, Y0, cpu_name, make_points  # noqa: E402


def best(cmd, repeat):
    b = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
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
    wd = a.workdir or tempfile.mkdtemp(prefix="gk-saga-")
    os.makedirs(wd, exist_ok=True)
    gpkg = os.path.join(wd, "p10k.gpkg")
    make_points(gpkg, os.path.join(wd, "p10k.csv"), 10000, 42)
    shp = os.path.join(wd, "p10k.shp")
    subprocess.run(["ogr2ogr", "-q", "-overwrite", shp, gpkg], check=True)
    def saga(n, tool, extra=()):
        cell = EXTENT / n
        return ["saga_cmd", "--cores=1", "grid_gridding", tool, "-POINTS", shp, "-FIELD", "z",
                "-TARGET_DEFINITION", "0", "-TARGET_USER_SIZE", repr(cell),
                "-TARGET_USER_XMIN", repr(X0 + cell / 2), "-TARGET_USER_XMAX", repr(X0 + EXTENT - cell / 2),
                "-TARGET_USER_YMIN", repr(Y0 + cell / 2), "-TARGET_USER_YMAX", repr(Y0 + EXTENT - cell / 2),
                "-TARGET_USER_FITS", "0", "-TARGET_OUT_GRID", os.path.join(wd, "s.sdat")] + list(extra)

    def gridkit(n, threads):
        return [gk, "grid", "-q", "--threads", str(threads), "-zfield", "z", "-txe", repr(X0),
                repr(X0 + EXTENT), "-tye", repr(Y0), repr(Y0 + EXTENT), "-outsize", str(n), str(n),
                "-a", "shepard", gpkg, os.path.join(wd, "g.tif")]

    qw = ("-QUADRATIC_NEIGHBORS", "13", "-WEIGHTING_NEIGHBORS", "19")
    t = {}
    for n in (500, 1000):
        t[("saga", n)] = best(saga(n, "4", qw), a.repeat)
        t[("gk", n)] = best(gridkit(n, 1), a.repeat)
        t[("gk2", n)] = best(gridkit(n, 2), a.repeat)
    print("Machine: %s, %d cores; %s; best of %d runs, wall clock, one core each."
          % (cpu_name(), os.cpu_count(),
             subprocess.run(["saga_cmd", "--version"], capture_output=True, text=True).stdout.split("\n")[0].strip(),
             a.repeat))
    print()
    print("| 10k pts, quadratic_points 13, weight_points 19 | SAGA (s) | gridkit 1 thread (s) | SAGA / gridkit | gridkit 2 threads (s) |")
    print("|---|---|---|---|---|")
    for n in (500, 1000):
        print("| -> %dx%d, whole command | %.3f | %.3f | %.1fx | %.3f |"
              % (n, n, t[("saga", n)], t[("gk", n)], t[("saga", n)] / t[("gk", n)], t[("gk2", n)]))
    dn = 1000 * 1000 - 500 * 500
    ms = (t[("saga", 1000)] - t[("saga", 500)]) / dn * 1e6
    mg = (t[("gk", 1000)] - t[("gk", 500)]) / dn * 1e6
    mg2 = (t[("gk2", 1000)] - t[("gk2", 500)]) / dn * 1e6
    print("| each further node (us), from the two sizes | %.3f | %.3f | %.1fx | %.3f |" % (ms, mg, ms / mg, mg2))


if __name__ == "__main__":
    main()
