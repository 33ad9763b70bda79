#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Benchmark: gridkit's geostatistics vs R's gstat, same machine, same data, one run.

Not a test: it prints a Markdown table for docs/benchmarks.md ("Kriging and
variograms against gstat"). 10,000 uniform random points (fixed seed) in a 10 km square,
z = a smooth surface + noise, written to a GeoPackage (gridkit) and a CSV (R).

Times are wall clock, the best of --repeat runs. gstat is timed inside one R
session (proc.time around each call: R's start-up and package loading are not
counted). gridkit is timed around the whole command, so its fixed cost (start,
reading the points, writing the raster) is measured with a trivial algorithm on
the same data and grid (-a nearest; a 1 x 1 grid for the variogram, which
writes no raster) and reported both ways: raw and net (raw - fixed).

    /usr/bin/python3 tests/bench/bench_vs_gstat.py build/gridkit [--repeat 3] [--workdir DIR]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from osgeo import gdal, ogr, osr

gdal.UseExceptions()

X0, Y0, EXTENT = 500000.0, 5000000.0, 10000.0
PSILL, RANGE, NUGGET = 500.0, 3000.0, 1.0
MODEL = "model=Sph:psill=%g:range=%g:nugget=%g" % (PSILL, RANGE, NUGGET)


def make_points(gpkg, csv, n, seed):
    rng = np.random.default_rng(seed)
    x = X0 + rng.uniform(0, EXTENT, n)
    y = Y0 + rng.uniform(0, EXTENT, n)
    u, v = (x - X0) / EXTENT, (y - Y0) / EXTENT
    z = 100 + 40 * np.sin(6 * u) * np.cos(5 * v) + 10 * u + rng.normal(0, 1, n)
    drv = ogr.GetDriverByName("GPKG")
    if os.path.exists(gpkg):
        drv.DeleteDataSource(gpkg)
    ds = drv.CreateDataSource(gpkg)
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(32632)
    lyr = ds.CreateLayer("pts", srs, ogr.wkbPoint)
    lyr.CreateField(ogr.FieldDefn("z", ogr.OFTReal))
    ds.StartTransaction()
    defn = lyr.GetLayerDefn()
    for i in range(n):
        f = ogr.Feature(defn)
        f.SetField("z", float(z[i]))
        g = ogr.Geometry(ogr.wkbPoint)
        g.AddPoint_2D(float(x[i]), float(y[i]))
        f.SetGeometryDirectly(g)
        lyr.CreateFeature(f)
    ds.CommitTransaction()
    ds = None
    with open(csv, "w") as f:
        f.write("x,y,z\n")
        for i in range(n):
            f.write("%r,%r,%r\n" % (float(x[i]), float(y[i]), float(z[i])))


R_SCRIPT = r"""
suppressPackageStartupMessages({library(sp); library(gstat)})
args <- commandArgs(TRUE)
wd <- args[1]; rep <- as.integer(args[2])
best <- function(f) { b <- Inf; for (i in seq_len(rep)) { t0 <- proc.time()[["elapsed"]]; r <- f();
  b <- min(b, proc.time()[["elapsed"]] - t0) }; list(t = b, r = r) }
grid_of <- function(n) { s <- %(extent)r / n
  g <- expand.grid(x = %(x0)r + (0:(n - 1) + 0.5) * s, y = (%(y0)r + %(extent)r) - (0:(n - 1) + 0.5) * s)
  coordinates(g) <- ~x + y; gridded(g) <- TRUE; g }
m <- vgm(%(psill)r, "Sph", %(range)r, %(nugget)r)
d <- read.csv(file.path(wd, "p10k.csv")); coordinates(d) <- ~x + y
d2 <- read.csv(file.path(wd, "p2k.csv")); coordinates(d2) <- ~x + y
g500 <- grid_of(500); g100 <- grid_of(100)
out <- function(name, b) { cat(sprintf("%%s %%.4f\n", name, b$t))
  if (!is.null(b$r)) writeBin(c(b$r$var1.pred, b$r$var1.var), file.path(wd, paste0(name, ".bin"))) }
out("ok16", best(function() krige(z ~ 1, d, g500, m, nmax = 16, debug.level = 0)))
out("ok32", best(function() krige(z ~ 1, d, g500, m, nmax = 32, debug.level = 0)))
v <- best(function() variogram(z ~ 1, d)); cat(sprintf("variogram %%.4f\n", v$t))
write.csv(as.data.frame(v$r)[, c("np", "dist", "gamma")], file.path(wd, "vgm_gstat.csv"), row.names = FALSE)
out("global", best(function() krige(z ~ 1, d2, g100, m, debug.level = 0)))
# local least squares (gridkit's -a polynomial): no model, a formula in centred coordinates
cx <- %(x0)r + %(extent)r / 2; cy <- %(y0)r + %(extent)r / 2
d$xc <- coordinates(d)[, 1] - cx; d$yc <- coordinates(d)[, 2] - cy
gp <- SpatialPixelsDataFrame(g500, data.frame(xc = coordinates(g500)[, 1] - cx,
                                              yc = coordinates(g500)[, 2] - cy))
out("poly1_16", best(function() krige(z ~ xc + yc, d, gp, nmax = 16, debug.level = 0)))
out("poly2_32", best(function() krige(z ~ xc + yc + I(xc^2) + I(xc * yc) + I(yc^2), d, gp,
                                      nmax = 32, debug.level = 0)))
"""


def run(cmd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), r.stderr))
    return dt, r.stdout


def best(cmd, repeat):
    return min(run(cmd)[0] for _ in range(repeat))


def grid_args(n):
    return ["-txe", repr(X0), repr(X0 + EXTENT), "-tye", repr(Y0), repr(Y0 + EXTENT),
            "-outsize", str(n), str(n), "-zfield", "z", "-q"]


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def max_rel(wd, name, tif, n):
    """Largest |gridkit - gstat| relative to gstat, estimate and variance."""
    ref = np.fromfile(os.path.join(wd, name + ".bin"), dtype="<f8").reshape(2, n * n)
    ds = gdal.Open(tif)
    res = [float("nan"), float("nan")]
    for b in range(1, ds.RasterCount + 1):
        a = ds.GetRasterBand(b).ReadAsArray().astype(np.float64).ravel()
        res[b - 1] = float(np.max(np.abs(a - ref[b - 1]) / np.maximum(np.abs(ref[b - 1]), 1e-300)))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gridkit")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workdir", default=None)
    args = ap.parse_args()
    gk = os.path.abspath(args.gridkit)
    wd = args.workdir or tempfile.mkdtemp(prefix="gk-gstat-")
    os.makedirs(wd, exist_ok=True)
    rep = args.repeat

    p10k, p2k = os.path.join(wd, "p10k.gpkg"), os.path.join(wd, "p2k.gpkg")
    make_points(p10k, os.path.join(wd, "p10k.csv"), 10000, 42)
    make_points(p2k, os.path.join(wd, "p2k.csv"), 2000, 43)

    rs = os.path.join(wd, "bench.R")
    with open(rs, "w") as f:
        f.write(R_SCRIPT % {"x0": X0, "y0": Y0, "extent": EXTENT, "psill": PSILL,
                            "range": RANGE, "nugget": NUGGET})
    _, rout = run(["Rscript", rs, wd, str(rep)])
    tg = {ln.split()[0]: float(ln.split()[1]) for ln in rout.splitlines() if ln.strip()}

    def gk_grid(src, n, alg, threads, out):
        return [gk, "grid", "--threads", str(threads)] + grid_args(n) + ["-a", alg, src, out]

    rows = []
    # (label, gstat key, source, grid size, algorithm, cells)
    cases = [
        ("local OK nmax=16, 10k pts -> 500x500", "ok16", p10k, 500,
         "kriging:%s:max_points=16" % MODEL),
        ("local OK nmax=32, 10k pts -> 500x500", "ok32", p10k, 500,
         "kriging:%s:max_points=32" % MODEL),
        ("global OK, 2k pts -> 100x100", "global", p2k, 100,
         "kriging:%s:max_points=0" % MODEL),
        ("local polynomial, degree 1, nmax=16, 10k pts -> 500x500", "poly1_16", p10k, 500,
         "polynomial:degree=1:max_points=16"),
        ("local polynomial, degree 2, nmax=32, 10k pts -> 500x500", "poly2_32", p10k, 500,
         "polynomial:degree=2:max_points=32"),
    ]
    fixed = {}
    for n, src in ((500, p10k), (100, p2k)):
        fixed[(n, src)] = best(gk_grid(src, n, "nearest", 1, os.path.join(wd, "n.tif")), rep)
    acc = {}
    for label, key, src, n, alg in cases:
        tif = os.path.join(wd, key + ".tif")
        t1 = best(gk_grid(src, n, alg, 1, tif), rep)
        t2 = best(gk_grid(src, n, alg, 2, os.path.join(wd, key + "_2.tif")), rep)
        acc[key] = max_rel(wd, key, tif, n)
        rows.append((label, tg[key], t1, t1 - fixed[(n, src)], t2, n * n))
    # variogram: the fixed cost is reading the points (nearest to a 1 x 1 grid)
    fx = best([gk, "grid", "--threads", "1", "-txe", repr(X0), repr(X0 + EXTENT), "-tye",
               repr(Y0), repr(Y0 + EXTENT), "-outsize", "1", "1", "-zfield", "z", "-q", "-a",
               "nearest", p10k, os.path.join(wd, "n1.tif")], rep)
    vcmd = [gk, "variogram", p10k, "-zfield", "z", "--format", "csv", "-o",
            os.path.join(wd, "vgm_gridkit.csv")]
    tv1 = best(vcmd[:3] + ["--threads", "1"] + vcmd[3:], rep)
    tv2 = best(vcmd[:3] + ["--threads", "2"] + vcmd[3:], rep)
    rows.append(("variogram (default cutoff), 10k pts", tg["variogram"], tv1, tv1 - fx, tv2, 0))

    print("Machine: %s, %d cores; R %s with gstat; best of %d runs, wall clock."
          % (cpu_name(), os.cpu_count(),
             subprocess.run(["Rscript", "-e", "cat(R.version$major, R.version$minor, sep='.');"
                             "cat(' ', as.character(packageVersion('gstat')))"],
                            capture_output=True, text=True).stdout.strip(), rep))
    print("gridkit fixed cost (start, read, write; -a nearest): %.3f s (10k pts, 500x500), "
          "%.3f s (2k pts, 100x100), %.3f s (read only)."
          % (fixed[(500, p10k)], fixed[(100, p2k)], fx))
    print()
    print("| case | gstat (s) | gridkit 1 thread, raw (s) | net (s) | gstat us/cell | "
          "gridkit net us/cell | gstat / gridkit (net) | gridkit 2 threads, raw (s) |")
    print("|---|---|---|---|---|---|---|---|")
    for label, g, t1, net, t2, cells in rows:
        pc = ("%.1f" % (1e6 * g / cells), "%.2f" % (1e6 * net / cells)) if cells else ("", "")
        print("| %s | %.3f | %.3f | %.3f | %s | %s | %.1fx | %.3f |"
              % (label, g, t1, net, pc[0], pc[1], g / net, t2))
    print()
    print("Largest relative difference to gstat (estimate, variance): " +
          "; ".join("%s %.1e, %.1e" % (k, a[0], a[1]) for k, a in acc.items()))


if __name__ == "__main__":
    main()
