#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Benchmark: `gridkit cv` vs R's gstat krige.cv, same machine, same data, one run.

Not a test: it prints a Markdown table for docs/benchmarks.md ("Cross-validation
against gstat"). The points are bench_vs_gstat.py's (uniform in a 10 km square,
z = a smooth surface + noise, fixed seeds), the model vgm(500, "Sph", 3000, 1).
Cases: leave-one-out with local ordinary kriging nmax=20 on 10,000 points;
10-fold of the same; leave-one-out with global ordinary kriging on 1,000 points.

gstat is timed inside one R session (proc.time around krige.cv); gridkit around
the whole `gridkit cv` command (start and reading included). Every prediction and
variance is compared, point by point, with gstat's (-o writes gridkit's; the
k-fold case passes gstat gridkit's folds, read from that file, so that both
hold out the same points).

    /usr/bin/python3 tests/bench/bench_cv_vs_gstat.py build/gridkit [--repeat 1] [--workdir DIR]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from osgeo import ogr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_vs_gstat import MODEL, NUGGET, PSILL, RANGE, cpu_name, make_points  # noqa: E402

R_SCRIPT = r"""
suppressPackageStartupMessages({library(sp); library(gstat)})
args <- commandArgs(TRUE)
wd <- args[1]; rep <- as.integer(args[2]); case <- args[3]; nmax <- as.numeric(args[4])
d <- read.csv(file.path(wd, args[5])); coordinates(d) <- ~x + y
m <- vgm(%(psill)r, "Sph", %(range)r, %(nugget)r)
folds <- if (length(args) >= 6) read.csv(file.path(wd, args[6]))$fold else seq_len(nrow(d))
b <- Inf
for (i in seq_len(rep)) { t0 <- proc.time()[["elapsed"]]
  r <- krige.cv(z ~ 1, d, m, nmax = nmax, nfold = folds, verbose = FALSE, debug.level = 0)
  b <- min(b, proc.time()[["elapsed"]] - t0) }
cat(sprintf("%%s %%.4f\n", case, b))
writeBin(c(r$var1.pred, r$var1.var), file.path(wd, paste0(case, ".bin")))
"""


def run(cmd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), r.stderr))
    return dt, r.stdout


def read_points(path):
    ds = ogr.Open(path)
    lyr = ds.GetLayer(0)
    rows = [(f.GetField("predicted"), f.GetField("variance"), f.GetField("fold")) for f in lyr]
    return np.array(rows, dtype=np.float64)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gridkit")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--workdir", default=None)
    args = ap.parse_args()
    gk = os.path.abspath(args.gridkit)
    wd = args.workdir or tempfile.mkdtemp(prefix="gk-cv-")
    os.makedirs(wd, exist_ok=True)
    rep = args.repeat

    make_points(os.path.join(wd, "p10k.gpkg"), os.path.join(wd, "p10k.csv"), 10000, 42)
    make_points(os.path.join(wd, "p1k.gpkg"), os.path.join(wd, "p1k.csv"), 1000, 44)
    rs = os.path.join(wd, "cv.R")
    with open(rs, "w") as f:
        f.write(R_SCRIPT % {"psill": PSILL, "range": RANGE, "nugget": NUGGET})

    # (label, key, points, nmax (0: global), nfold (0: leave-one-out))
    cases = [
        ("leave-one-out, local OK nmax=20, 10,000 points", "loo20", "p10k", 20, 0),
        ("10-fold, local OK nmax=20, 10,000 points", "k10", "p10k", 20, 10),
        ("leave-one-out, global OK, 1,000 points", "glob", "p1k", 0, 0),
    ]
    rows = []
    for label, key, src, nmax, nfold in cases:
        alg = "kriging:%s:max_points=%d" % (MODEL, nmax)
        out = os.path.join(wd, key + ".gpkg")
        if os.path.exists(out):
            os.remove(out)
        cmd = [gk, "cv", os.path.join(wd, src + ".gpkg"), "-zfield", "z", "-a", alg,
               "--format", "json", "-o", out]
        if nfold:
            cmd += ["--nfold", str(nfold)]
        t = {}
        for th in (1, 2):
            t[th] = min(run(cmd[:2] + ["--threads", str(th)] + cmd[2:])[0] for _ in range(rep))
        stats = json.loads(run(cmd)[1])
        ours = read_points(out)
        rargs = ["Rscript", rs, wd, str(rep), key, str(nmax if nmax else float("inf")),
                 src + ".csv"]
        if nfold:
            folds = os.path.join(wd, key + "_folds.csv")
            with open(folds, "w") as f:
                f.write("fold\n" + "".join("%d\n" % int(v) for v in ours[:, 2]))
            rargs.append(os.path.basename(folds))
        rout = run(rargs)[1]
        tg = float(rout.split()[1])
        ref = np.fromfile(os.path.join(wd, key + ".bin"), dtype="<f8").reshape(2, -1)
        dp = float(np.max(np.abs(ours[:, 0] - ref[0]) / np.abs(ref[0])))
        dv = float(np.max(np.abs(ours[:, 1] - ref[1]) / np.abs(ref[1])))
        rows.append((label, tg, t[1], t[2], stats["method"], dp, dv))

    print("Machine: %s, %d cores; R with gstat (%s); best of %d, wall clock."
          % (cpu_name(), os.cpu_count(),
             subprocess.run(["Rscript", "-e", "cat(as.character(packageVersion('gstat')))"],
                            capture_output=True, text=True).stdout.strip(), rep))
    print()
    print("| case | gstat krige.cv (s) | gridkit cv, 1 thread (s) | 2 threads (s) | "
          "gstat / gridkit (1 thread) | gridkit's way | largest difference to gstat "
          "(prediction, variance; relative) |")
    print("|---|---|---|---|---|---|---|")
    for label, tg, t1, t2, how, dp, dv in rows:
        print("| %s | %.3f | %.3f | %.3f | %.0fx | %s | %.1e, %.1e |"
              % (label, tg, t1, t2, tg / t1, how, dp, dv))


if __name__ == "__main__":
    main()
