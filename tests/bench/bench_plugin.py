#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Times the GDAL plugin (docs/benchmarks.md, "GDAL plugin").

usage: bench_plugin.py BUILD_DIR [WORK_DIR]
200,000 uniform points in a 10 km square (seed 200000), invdistnn:radius=300:max_points=12.
Prints median-of-3 wall times of whole processes (gdalinfo, gdal_translate, gridkit grid)
and, in-process through GDAL's Python bindings, of open / one block / an overview.
"""
import os
import statistics
import subprocess
import sys
import time

import numpy as np

BUILD = os.path.abspath(sys.argv[1])
WORK = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else "bench-plugin")
os.makedirs(WORK, exist_ok=True)
os.chdir(WORK)
os.environ["GDAL_DRIVER_PATH"] = os.path.join(BUILD, "gdalplugins")
from osgeo import gdal  # noqa: E402

if not os.path.exists("pts200k.xyz"):
    r = np.random.default_rng(200000)
    x, y = r.uniform(0, 10000, 200000), r.uniform(0, 10000, 200000)
    z = 100 + 10 * np.sin(x / 700) * np.cos(y / 900) + r.normal(0, 1, x.size)
    np.savetxt("pts200k.xyz", np.c_[x, y, z], fmt="%.3f")
A = "-a invdistnn:radius=300:max_points=12 -txe 0 10000 -tye 0 10000"
G1K = A + " -outsize 1000 1000 pts200k.xyz"
G100K = A + " -outsize 100000 100000 pts200k.xyz"


def wall(cmd, n=3):
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        subprocess.run(cmd, shell=True, check=True, capture_output=True)
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


rows = [
    ("gdalinfo --version, no plugin (GDAL_DRIVER_PATH=disable)",
     wall("GDAL_DRIVER_PATH=disable gdalinfo --version")),
    ("gdalinfo --version, plugin loaded", wall("gdalinfo --version")),
    ("gdalinfo GRIDKIT: 1000 x 1000", wall("gdalinfo 'GRIDKIT:%s'" % G1K)),
    ("gdalinfo GRIDKIT: 100000 x 100000", wall("gdalinfo 'GRIDKIT:%s'" % G100K)),
    ("gdal_translate -srcwin 256 256 256 256 (one block)",
     wall("gdal_translate -q -srcwin 256 256 256 256 'GRIDKIT:%s' blk.tif" % G1K)),
    ("gdal_translate GRIDKIT: 1000 x 1000 -> GTiff", wall("gdal_translate -q 'GRIDKIT:%s' p.tif"
                                                          % G1K)),
    ("gridkit grid 1000 x 1000 -> GTiff (the CLI)", wall("%s/gridkit grid -q %s c.tif"
                                                        % (BUILD, G1K))),
]
for name, t in rows:
    print("| %s | %.3f s |" % (name, t))
ds_t = []
for _ in range(3):
    gdal.SetCacheMax(1 << 20)
    t0 = time.perf_counter()
    ds = gdal.Open("GRIDKIT:" + G1K)
    t1 = time.perf_counter()
    b = ds.GetRasterBand(1)
    b.ReadAsArray(0, 0, 256, 256)
    t2 = time.perf_counter()
    b.ReadAsArray(256, 256, 256, 256)
    t3 = time.perf_counter()
    b.GetOverview(1).ReadAsArray()
    t4 = time.perf_counter()
    ds_t.append((t1 - t0, t2 - t1, t3 - t2, t4 - t3))
    ds = b = None
med = [statistics.median(c) for c in zip(*ds_t)]
print("| Python: gdal.Open (reads the 200k points) | %.1f ms |" % (med[0] * 1e3))
print("| Python: first 256 x 256 block (builds the k-d tree) | %.1f ms |" % (med[1] * 1e3))
print("| Python: another 256 x 256 block | %.1f ms |" % (med[2] * 1e3))
print("| Python: the 4x overview (250 x 250, one block) | %.1f ms |" % (med[3] * 1e3))
