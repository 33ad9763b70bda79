#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-a shepard against SAGA's Modified Quadratic Shepard, side by side (docs/benchmarks.md).

usage: bench_vs_saga.py GRIDKIT [--repeat 3] [--workdir DIR]

The 10,000 points of bench_vs_gstat.py (same seed) to 500 x 500 nodes, quadratic_points 13,
weight_points 19, one core each (saga_cmd --cores=1, gridkit --threads 1), whole commands,
best of --repeat; each program's fixed cost (start, reading, writing) measured with its
nearest-neighbour gridding on the same points and grid, and subtracted for "net".
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
    n, cell = 500, EXTENT / 500
    saga = ["saga_cmd", "--cores=1", "grid_gridding", None, "-POINTS", shp, "-FIELD", "z",
            "-TARGET_DEFINITION", "0", "-TARGET_USER_SIZE", repr(cell),
            "-TARGET_USER_XMIN", repr(X0 + cell / 2), "-TARGET_USER_XMAX", repr(X0 + EXTENT - cell / 2),
            "-TARGET_USER_YMIN", repr(Y0 + cell / 2), "-TARGET_USER_YMAX", repr(Y0 + EXTENT - cell / 2),
            "-TARGET_USER_FITS", "0", "-TARGET_OUT_GRID", os.path.join(wd, "s.sdat")]
    gkc = [gk, "grid", "-q", "--threads", "1", "-zfield", "z", "-txe", repr(X0), repr(X0 + EXTENT),
           "-tye", repr(Y0), repr(Y0 + EXTENT), "-outsize", str(n), str(n), "-a", None, gpkg,
           os.path.join(wd, "g.tif")]

    def with_(cmd, i, v):
        c = list(cmd)
        c[i] = v
        return c

    s_fix = best(with_(saga, 3, "2"), a.repeat)  # Nearest Neighbour
    s_run = best(with_(saga, 3, "4") + ["-QUADRATIC_NEIGHBORS", "13", "-WEIGHTING_NEIGHBORS", "19"], a.repeat)
    g_fix = best(with_(gkc, gkc.index(None), "nearest"), a.repeat)
    g_run = best(with_(gkc, gkc.index(None), "shepard"), a.repeat)
    g2 = best([c if c != "1" else "2" for c in with_(gkc, gkc.index(None), "shepard")], a.repeat)
    print("Machine: %s, %d cores; SAGA %s; best of %d runs, wall clock, one core each."
          % (cpu_name(), os.cpu_count(),
             subprocess.run(["saga_cmd", "--version"], capture_output=True, text=True).stdout.split("\n")[0].strip(),
             a.repeat))
    print()
    print("| case | SAGA (s) | SAGA net (s) | gridkit 1 thread (s) | gridkit net (s) | SAGA / gridkit (net) | gridkit 2 threads (s) |")
    print("|---|---|---|---|---|---|---|")
    print("| shepard 13/19, 10k pts -> 500x500 | %.3f | %.3f | %.3f | %.3f | %.1fx | %.3f |"
          % (s_run, s_run - s_fix, g_run, g_run - g_fix, (s_run - s_fix) / (g_run - g_fix), g2))
    print()
    print("fixed costs (nearest neighbour on the same points and grid): SAGA %.3f s, gridkit %.3f s"
          % (s_fix, g_fix))


if __name__ == "__main__":
    main()
