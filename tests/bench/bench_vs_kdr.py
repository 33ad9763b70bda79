#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Benchmark: gridkit ridges -a density against R's ks::kdr, same machine,
same points, one run. Not a test: prints a Markdown table for
docs/benchmarks.md ("Ridges").

A noisy Archimedean spiral (r = 10 t, t in [pi, 5 pi], Gaussian noise sigma
4.17 on x and y, fixed seed), written as XYZ text for gridkit and CSV for R.
Both run with the same bandwidth: gridkit's density:bandwidth=h, ks::kdr's
H = h^2 I with pre = FALSE (H then in the points' units), walkers started at
the points (y = x), no segmentation. ks is timed inside R around kdr() alone
(start-up and loading not counted); gridkit around the whole command (start,
reading, writing the GeoPackage included). ks runs on one core (it has no
threads); gridkit is timed on one thread and on every core.

    /usr/bin/python3 tests/bench/bench_vs_kdr.py build/gridkit [--n 10000 100000]
        [--ks-limit SECONDS]
"""
import argparse
import math
import os
import random
import subprocess
import sys
import tempfile
import time

H = 4.17

R_CODE = r"""
suppressPackageStartupMessages(library(ks))
a <- commandArgs(trailingOnly = TRUE)
x <- as.matrix(read.csv(a[1], header = FALSE))
h <- as.numeric(a[2])
t0 <- proc.time()[["elapsed"]]
r <- kdr(x = x, y = x, H = diag(h^2, 2), pre = FALSE, segment = FALSE, max.iter = 400)
cat(sprintf("%.3f %d\n", proc.time()[["elapsed"]] - t0, nrow(r$end.points)))
"""


def make_points(n, xyz, csv, seed=41):
    rnd = random.Random(seed)
    with open(xyz, "w") as fx, open(csv, "w") as fc:
        fx.write("x y z\n")
        for _ in range(n):
            t = math.sqrt(math.pi ** 2 + 24 * math.pi ** 2 * rnd.random())
            x = 10 * t * math.cos(t) + rnd.gauss(0, 4.17)
            y = 10 * t * math.sin(t) + rnd.gauss(0, 4.17)
            fx.write("%.6f %.6f 0\n" % (x, y))
            fc.write("%.6f,%.6f\n" % (x, y))


def gridkit(exe, xyz, out, threads):
    cmd = [exe, "ridges", "-q", xyz, out, "-a", "density:bandwidth=%g" % H,
           "--device", "cpu", "--threads", str(threads)]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True)
    return time.perf_counter() - t0


def ks(csv, work, limit):
    rfile = os.path.join(work, "kdr.R")
    with open(rfile, "w") as f:
        f.write(R_CODE)
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    try:
        r = subprocess.run(["Rscript", rfile, csv, str(H)], capture_output=True, text=True,
                           timeout=limit, env=env, check=True)
    except subprocess.TimeoutExpired:
        return None
    return float(r.stdout.split()[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gridkit")
    ap.add_argument("--n", type=int, nargs="+", default=[10000, 100000])
    ap.add_argument("--ks-limit", type=float, default=3600.0)
    a = ap.parse_args()
    cores = os.cpu_count()
    print("| points | ks::kdr s (1 core) | gridkit s, 1 thread | ratio | gridkit s, %d threads "
          "| ratio |" % cores)
    print("|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as work:
        for n in a.n:
            xyz, csv = os.path.join(work, "p.xyz"), os.path.join(work, "p.csv")
            make_points(n, xyz, csv)
            g1 = gridkit(a.gridkit, xyz, os.path.join(work, "o1.gpkg"), 1)
            gn = gridkit(a.gridkit, xyz, os.path.join(work, "on.gpkg"), cores)
            k = ks(csv, work, a.ks_limit)
            ks_txt = "%.2f" % k if k is not None else "> %.0f (stopped)" % a.ks_limit
            r1 = "%.0fx" % (k / g1) if k else "> %.0fx" % (a.ks_limit / g1)
            rn = "%.0fx" % (k / gn) if k else "> %.0fx" % (a.ks_limit / gn)
            print("| %d | %s | %.3f | %s | %.3f | %s |" % (n, ks_txt, g1, r1, gn, rn))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
