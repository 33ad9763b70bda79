#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Benchmark: gridkit grid vs Debian's gdal_grid, same machine, same data, one run.

Not a test: it prints a Markdown table (times are the best of --repeat runs,
wall clock, reading and writing included) for docs/benchmarks.md.

    /usr/bin/python3 tests/bench/bench_vs_gdal_grid.py build/gridkit [--repeat 3] [--workdir DIR]
"""
import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np
from osgeo import gdal, ogr, osr

gdal.UseExceptions()


def make_points(path, n, seed, extent=10000.0):
    """n uniform random points on a UTM-sized square, z a smooth surface + noise."""
    rng = np.random.default_rng(seed)
    x = 500000.0 + rng.uniform(0, extent, n)
    y = 5000000.0 + rng.uniform(0, extent, n)
    u, v = (x - 500000.0) / extent, (y - 5000000.0) / extent
    z = 100 + 40 * np.sin(6 * u) * np.cos(5 * v) + 10 * u + rng.normal(0, 1, n)
    drv = ogr.GetDriverByName("GPKG")
    if os.path.exists(path):
        drv.DeleteDataSource(path)
    ds = drv.CreateDataSource(path)
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(32632)
    lyr = ds.CreateLayer("pts", srs, ogr.wkbPoint25D)
    ds.StartTransaction()
    defn = lyr.GetLayerDefn()
    for i in range(n):
        f = ogr.Feature(defn)
        g = ogr.Geometry(ogr.wkbPoint25D)
        g.AddPoint(float(x[i]), float(y[i]), float(z[i]))
        f.SetGeometryDirectly(g)
        lyr.CreateFeature(f)
    ds.CommitTransaction()
    ds = None
    return (500000.0, 500000.0 + extent, 5000000.0, 5000000.0 + extent)


def run(cmd, env=None):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), r.stderr))
    return dt


def best(cmd, repeat, env=None):
    return min(run(cmd, env) for _ in range(repeat))


def read(path):
    ds = gdal.Open(path)  # keep the dataset alive while its band is read
    return ds.GetRasterBand(1).ReadAsArray().astype(np.float64)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gridkit")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workdir", default=None)
    args = ap.parse_args()
    gk = os.path.abspath(args.gridkit)
    wd = args.workdir or tempfile.mkdtemp(prefix="gk-bench-")
    os.makedirs(wd, exist_ok=True)

    big = os.path.join(wd, "pts200k.gpkg")
    small = os.path.join(wd, "pts50k.gpkg")
    e200 = make_points(big, 200_000, 1)
    e50 = make_points(small, 50_000, 2)

    def ext(e):
        return ["-txe", repr(e[0]), repr(e[1]), "-tye", repr(e[2]), repr(e[3])]

    common = ["-ot", "Float32", "-q"]
    cases = [
        ("invdistnn r=200 max_points=12", big, e200, 1000, "invdistnn:radius=200:max_points=12", []),
        ("average r=100", big, e200, 1000, "average:radius1=100:radius2=100", []),
        ("count r=100", big, e200, 1000, "count:radius1=100:radius2=100", []),
        ("nearest r=100", big, e200, 1000, "nearest:radius1=100:radius2=100", []),
        ("linear", big, e200, 1000, "linear", []),
        ("invdist p=2, all points (double)", small, e50, 500, "invdist:power=2", []),
        ("invdist p=2, all points, --precision single", small, e50, 500, "invdist:power=2",
         ["--precision", "single"]),
    ]
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    print("Machine: %s, %d cores; %s; best of %d runs, wall clock, reading and writing included."
          % (cpu, os.cpu_count(), gdal.__version__ and "GDAL " + gdal.__version__, args.repeat))
    print()
    print("| case | points -> grid | gdal_grid (s) | gridkit (s) | speed-up |")
    print("|---|---|---|---|---|")
    results = {}
    for name, src, e, size, alg, extra in cases:
        out_g = os.path.join(wd, "g.tif")
        out_k = os.path.join(wd, "k.tif")
        geo = ext(e) + ["-outsize", str(size), str(size), "-a", alg]
        tg = best(["gdal_grid"] + common + geo + [src, out_g], args.repeat)
        tk = best([gk, "grid"] + common + geo + extra + [src, out_k], args.repeat)
        results[name] = (tg, tk)
        npts = "200,000" if src == big else "50,000"
        print("| %s | %s -> %dx%d | %.2f | %.2f | %.1fx |" % (name, npts, size, size, tg, tk, tg / tk))
        sys.stdout.flush()

    # Accuracy of the global invdist paths against gdal_grid's double path.
    geo = ext(e50) + ["-outsize", "500", "500", "-a", "invdist:power=2", "-ot", "Float64", "-q"]
    ref = os.path.join(wd, "ref.tif")
    env = dict(os.environ, GDAL_USE_AVX="NO", GDAL_USE_SSE="NO")
    run(["gdal_grid"] + geo + [small, ref], env)
    run(["gdal_grid"] + geo + [small, os.path.join(wd, "avx.tif")])
    run([gk, "grid"] + geo + [small, os.path.join(wd, "d.tif")])
    run([gk, "grid"] + geo + ["--precision", "single", small, os.path.join(wd, "s.tif")])
    r = read(ref)
    zr = float(r.max() - r.min())
    print()
    print("invdist p=2 over all 50,000 points, 500x500, max |difference| / data range, against "
          "gdal_grid's double path (GDAL_USE_AVX=NO GDAL_USE_SSE=NO):")
    print()
    print("| result | max abs diff / range |")
    print("|---|---|")
    for label, f in [("gdal_grid default (float32 AVX)", "avx.tif"), ("gridkit double (default)", "d.tif"),
                     ("gridkit --precision single", "s.tif")]:
        d = np.abs(read(os.path.join(wd, f)) - r).max() / zr
        print("| %s | %.2e |" % (label, d))


if __name__ == "__main__":
    main()
