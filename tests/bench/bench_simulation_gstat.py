#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Benchmark: gridkit's sequential Gaussian simulation vs R's gstat, same machine,
same data, one run.

Not a test: it prints a Markdown table for docs/benchmarks.md ("Simulation").
10,000 uniform random points in a 10 km square (bench_vs_gstat.py's data), simple
kriging with the mean known (gstat's beta), a spherical model, nmax = max_points
= 16, a random path (gstat's), on a 200 x 200 grid, for nsim = 1, 10 and 100.

gstat is timed inside one R session (proc.time around krige(); R's start-up not
counted); gridkit around the whole command, with its fixed cost (start, reading
the points, writing one Float32 band) measured by -a nearest on the same grid
and reported both raw and net. gridkit runs on 1 thread (per core) and on all.

    /usr/bin/python3 tests/bench/bench_simulation_gstat.py build/gridkit [--repeat 3]
"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_vs_gstat import (EXTENT, MODEL, NUGGET, PSILL, RANGE, X0, Y0, best,  # noqa: E402
                            cpu_name, grid_args, make_points)

N = 200
R_SCRIPT = r"""
suppressPackageStartupMessages({library(sp); library(gstat)})
args <- commandArgs(TRUE)
wd <- args[1]; rep <- as.integer(args[2])
s <- %(extent)r / %(n)d
g <- expand.grid(x = %(x0)r + (0:(%(n)d - 1) + 0.5) * s, y = (%(y0)r + %(extent)r) - (0:(%(n)d - 1) + 0.5) * s)
coordinates(g) <- ~x + y; gridded(g) <- TRUE
m <- vgm(%(psill)r, "Sph", %(range)r, %(nugget)r)
d <- read.csv(file.path(wd, "p10k.csv")); coordinates(d) <- ~x + y
beta <- mean(d$z)
cat(sprintf("beta %%.17g\n", beta))
for (ns in c(1, 10, 100)) {
  b <- Inf
  for (i in seq_len(rep)) { set.seed(i); t0 <- proc.time()[["elapsed"]]
    r <- krige(z ~ 1, d, g, m, beta = beta, nmax = 16, nsim = ns, debug.level = 0)
    b <- min(b, proc.time()[["elapsed"]] - t0) }
  cat(sprintf("nsim%%d %%.4f\n", ns, b))
}
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gridkit")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    wd = tempfile.mkdtemp(prefix="gk_sim_bench_")
    make_points(os.path.join(wd, "p10k.gpkg"), os.path.join(wd, "p10k.csv"), 10000, 12345)
    with open(os.path.join(wd, "t.R"), "w") as f:
        f.write(R_SCRIPT % {"extent": EXTENT, "x0": X0, "y0": Y0, "n": N, "psill": PSILL,
                            "range": RANGE, "nugget": NUGGET})
    out = subprocess.run(["Rscript", os.path.join(wd, "t.R"), wd, str(a.repeat)], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    r = dict(line.split() for line in out.splitlines())
    beta = r["beta"]
    src = os.path.join(wd, "p10k.gpkg")
    nproc = os.cpu_count()
    print("%s, %d cores; 10,000 points, %d x %d grid, nmax = max_points = 16, random path"
          % (cpu_name(), nproc, N, N))
    print()
    print("| nsim | gstat | gridkit 1 thread (net) | gstat / gridkit per core | "
          "gridkit %d threads (net) |" % nproc)
    print("|---:|---:|---:|---:|---:|")
    for ns in (1, 10, 100):
        spec = "kriging:type=simple:mean=%s:%s:max_points=16:nsim=%d:seed=1:path=random" % (
            beta, MODEL, ns)
        fixed = best([a.gridkit, "grid"] + grid_args(N) + ["-ot", "Float32", "-a", "nearest",
                     src, os.path.join(wd, "f.tif")], a.repeat)
        t1 = best([a.gridkit, "grid", "--threads", "1", "-ot", "Float32"] + grid_args(N)
                  + ["-a", spec, src, os.path.join(wd, "s.tif")], a.repeat)
        tn = best([a.gridkit, "grid", "-ot", "Float32"] + grid_args(N)
                  + ["-a", spec, src, os.path.join(wd, "s.tif")], a.repeat)
        g = float(r["nsim%d" % ns])
        print("| %d | %.3f s | %.3f s (%.3f s) | %.0fx | %.3f s (%.3f s) |"
              % (ns, g, t1, t1 - fixed, g / max(t1 - fixed, 1e-9), tn, tn - fixed))


if __name__ == "__main__":
    main()
