#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-a natural against CGAL 5.5 and SAGA's Natural Neighbour tool, side by side
(docs/benchmarks.md).

usage: bench_natural_peers.py GRIDKIT NATURAL_CGAL [--points N] [--size S] [--repeat R]

N uniform random points (bench_vs_gstat.py's surface, seed 42), an S x S grid over them,
whole commands, best of R: gridkit on every core (the machine's, 2 on the project's VM) and
on one, CGAL's natural_neighbor_coordinates_2 (tests/linear/natural/natural_cgal.cpp: its
own reading of the points and queries as text, one core; CGAL does not thread it), SAGA's
grid_gridding 3 (Sibson) on every core. Also how their values differ from gridkit's inside
the hull (CGAL in doubles; SAGA writes Float32).
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


def best(cmd, repeat, **kw):
    b, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
        b = min(b, time.perf_counter() - t0)
        if r.returncode:
            sys.exit("failed: %s\n%s" % (" ".join(cmd), r.stderr[-500:]))
        out = r.stdout
    return b, out


def band(path):
    ds = gdal.Open(path)
    a = ds.GetRasterBand(1).ReadAsArray().astype(np.float64)
    nd = ds.GetRasterBand(1).GetNoDataValue()
    ds = None
    if nd is not None:
        a[a == nd] = np.nan
    return a


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gridkit")
    ap.add_argument("natural_cgal")
    ap.add_argument("--points", type=int, default=100000)
    ap.add_argument("--size", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workdir", default=None)
    a = ap.parse_args()
    gk = os.path.abspath(a.gridkit)
    wd = a.workdir or tempfile.mkdtemp(prefix="gk-natural-")
    os.makedirs(wd, exist_ok=True)
    n, s = a.points, a.size
    gpkg, csv = os.path.join(wd, "p.gpkg"), os.path.join(wd, "p.csv")
    make_points(gpkg, csv, n, 42)
    xyz = os.path.join(wd, "p.xyz")
    pts = np.genfromtxt(csv, delimiter=",", skip_header=1)
    np.savetxt(xyz, pts[:, :3], fmt="%.17g")
    shp = os.path.join(wd, "p.shp")
    subprocess.run(["ogr2ogr", "-q", "-overwrite", shp, gpkg], check=True)
    cell = EXTENT / s
    xs = [X0 + (i + 0.5) * (EXTENT / s) for i in range(s)]  # gk_grid_node_x
    ys = [Y0 + EXTENT + (j + 0.5) * (-EXTENT / s) for j in range(s)]
    qf = os.path.join(wd, "q.txt")
    with open(qf, "w") as f:
        for yy in ys:
            for xx in xs:
                f.write("%.17g %.17g\n" % (xx, yy))

    def gridkit(threads):
        return [gk, "grid", "-q", "--threads", str(threads), "-ot", "Float64", "-txe", repr(X0),
                repr(X0 + EXTENT), "-tye", repr(Y0), repr(Y0 + EXTENT), "-outsize", str(s), str(s),
                "-a", "natural:nodata=nan", xyz, os.path.join(wd, "g.tif")]

    saga = ["saga_cmd", "grid_gridding", "3", "-POINTS", shp, "-FIELD", "z", "-METHOD", "1",
            "-TARGET_DEFINITION", "0", "-TARGET_USER_SIZE", repr(cell),
            "-TARGET_USER_XMIN", repr(X0 + cell / 2), "-TARGET_USER_XMAX", repr(X0 + EXTENT - cell / 2),
            "-TARGET_USER_YMIN", repr(Y0 + cell / 2), "-TARGET_USER_YMAX", repr(Y0 + EXTENT - cell / 2),
            "-TARGET_USER_FITS", "0", "-TARGET_OUT_GRID", os.path.join(wd, "s.sdat")]
    ncore = os.cpu_count()
    t_gk, _ = best(gridkit(ncore), a.repeat)
    t_gk1, _ = best(gridkit(1), a.repeat)
    t_cgal, out = best([a.natural_cgal, xyz, qf], a.repeat)
    t_saga, _ = best(saga, a.repeat)
    g = band(os.path.join(wd, "g.tif"))
    c = np.array([np.nan if v == "outside" else float(v) for v in out.split()]).reshape(s, s)
    sg = band(os.path.join(wd, "s.sdat"))
    both = np.isfinite(g) & np.isfinite(c)
    dc = np.max(np.abs(g[both] - c[both]) / np.abs(c[both]))
    both_s = np.isfinite(g) & np.isfinite(sg)
    ds_ = np.abs(g[both_s] - sg[both_s]) / np.abs(g[both_s])
    print("Machine: %s, %d cores; CGAL 5.5, %s; best of %d runs, wall clock, whole commands."
          % (cpu_name(), ncore,
             subprocess.run(["saga_cmd", "--version"], capture_output=True, text=True).stdout.split("\n")[0].strip(),
             a.repeat))
    print()
    print("| %s points -> %dx%d, Sibson | seconds | gridkit faster by |" % (format(n, ","), s, s))
    print("|---|---:|---:|")
    print("| gridkit, %d threads | %.3f | |" % (ncore, t_gk))
    print("| gridkit, 1 thread | %.3f | |" % t_gk1)
    print("| CGAL natural_neighbor_coordinates_2 (1 core) | %.3f | %.1fx |" % (t_cgal, t_cgal / t_gk))
    print("| SAGA grid_gridding 3 (%d cores) | %.3f | %.1fx |" % (ncore, t_saga, t_saga / t_gk))
    print()
    print("Values inside the hull: CGAL's differ from gridkit's by at most %.2g relative (%d nodes); "
          "SAGA's by at most %.2g, median %.2g (%d nodes, SAGA's nodata at %d of gridkit's nodes)"
          % (dc, both.sum(), ds_.max(), np.median(ds_), both_s.sum(),
             int((np.isfinite(g) & ~np.isfinite(sg)).sum())))


if __name__ == "__main__":
    main()
