#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""gridkit's sequential Gaussian simulation against gstat 2.1-0's
krige(z ~ 1, pts, grid, model, beta = m, nmax = 16, nsim = 20), 20 calls with
20 seeds, on meuse and on a synthetic set.

    sim_compare.py GRIDKIT DATA_DIR WORK_DIR

References: tests/geostat/gstat/refs/sim_*.json, made by
`Rscript tests/geostat/gstat/sim_refs.R` (R is not needed here). Both sides are
random, and each simulates a call's realizations along one random path (so a
call's mean is its path's): gridkit runs the same 20 x 20 realizations
(path=random, as gstat's) with seeds of its own, and the ensembles are
compared within Monte-Carlo error, the paths' included:

* per node mean: z = (m_gridkit - m_gstat) / sqrt(se_gridkit^2 + se_gstat^2),
  se the standard deviation of the 20 calls' means over sqrt(20); at most 1 %
  of the nodes beyond |z| = 3.5, none beyond 6 (the standard errors are
  themselves estimated from 20 calls: z is roughly Student's t with 38
  degrees of freedom, 0.1 % beyond 3.5);
* per node variance: s = sqrt(4 / (n - 1)) is the standard error of the log
  of a ratio of two variances of n independent values; the paths make the
  values of a call dependent (fewer degrees of freedom, heavier tails), so
  as for the means: at most 1 % of the nodes with |log(v_gridkit / v_gstat)|
  beyond 3.5 s, none beyond 6 s, and the mean ratio over the nodes within 5 %;
* the realizations' semivariance along rows and columns at lags of 1 to 8
  cells, averaged over the realizations: within 5 % of gstat's.

Prints PASS/FAIL per case and ends with "N passed, M failed".
"""
import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np
from osgeo import gdal

gdal.UseExceptions()
HERE = os.path.dirname(os.path.abspath(__file__))
REFS = os.path.join(HERE, "refs")


def realizations(gridkit, src, args, extra, out):
    cmd = [gridkit, "grid", "-q", "-ot", "Float64"] + args.split() + [src, out]
    cmd[cmd.index("-a") + 1] += extra
    subprocess.run(cmd, check=True, timeout=600)
    ds = gdal.Open(out)
    a = ds.ReadAsArray()  # (nsim, ny, nx)
    ds = None
    return a


def compare(name, ref, a):
    n = a.shape[0]
    runs = ref["runs"]
    flat = a.reshape(n, -1)
    m = flat.mean(axis=0)
    v = flat.var(axis=0, ddof=1)
    se = flat.reshape(runs, n // runs, -1).mean(axis=1).std(axis=0, ddof=1) / math.sqrt(runs)
    rm = np.array(ref["mean"])
    rv = np.array(ref["var"])
    z = (m - rm) / np.sqrt(se ** 2 + np.array(ref["mean_se"]) ** 2)
    lr = np.log(v / rv)
    s = math.sqrt(4.0 / (n - 1))
    ny, nx = a.shape[1], a.shape[2]
    gx = [float(np.mean((a[:, :, h:] - a[:, :, :-h]) ** 2) / 2) for h in range(1, 9)]
    gy = [float(np.mean((a[:, h:, :] - a[:, :-h, :]) ** 2) / 2) for h in range(1, 9)]
    rg = np.array(ref["gamma_x"] + ref["gamma_y"])
    g = np.array(gx + gy)
    gerr = float(np.max(np.abs(g / rg - 1)))
    fails = []
    if np.mean(np.abs(z) > 3.5) > 0.01 or np.max(np.abs(z)) > 6:
        fails.append("means: %.2f %% of nodes beyond 3.5 SE, largest %.2f SE"
                     % (100 * np.mean(np.abs(z) > 3.5), np.max(np.abs(z))))
    if (np.mean(np.abs(lr) > 3.5 * s) > 0.01 or np.max(np.abs(lr)) > 6 * s
            or abs(np.mean(v / rv) - 1) > 0.05):
        fails.append("variances: %.2f %% of nodes beyond 3.5 SE, largest |log ratio| %.3f "
                     "(%.1f SE), mean ratio %.4f" % (100 * np.mean(np.abs(lr) > 3.5 * s),
                                                    np.max(np.abs(lr)), np.max(np.abs(lr)) / s,
                                                    np.mean(v / rv)))
    if gerr > 0.05:
        fails.append("semivariances: largest relative difference %.4f" % gerr)
    print("%s %s: %d x %d nodes; means %.2f %% beyond 3.5 SE (max %.2f); variance ratio %.4f "
          "(%.2f %% beyond 3.5 SE, max %.1f SE); semivariance %.2f %%%s"
          % ("FAIL" if fails else "PASS", name, nx, ny, 100 * np.mean(np.abs(z) > 3.5),
             np.max(np.abs(z)), np.mean(v / rv), 100 * np.mean(np.abs(lr) > 3.5 * s), np.max(np.abs(lr)) / s, 100 * gerr,
             ("; " + "; ".join(fails)) if fails else ""))
    return not fails


def main():
    gridkit, data, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cases = [("meuse", os.path.join(data, "meuse.gpkg"), 101),
             ("synth", os.path.join(REFS, "sim_synth_points.xyz"), 202)]
    ok = bad = 0
    for name, src, seed in cases:
        with open(os.path.join(REFS, "sim_%s.json" % name)) as f:
            ref = json.load(f)
        a = np.concatenate([
            realizations(gridkit, src, ref["args"],
                         ":max_points=16:nsim=%d:seed=%d:path=random" % (ref["per_run"], seed + k),
                         os.path.join(work, "%s_%d.tif" % (name, k)))
            for k in range(ref["runs"])])
        if compare(name, ref, a):
            ok += 1
        else:
            bad += 1
    print("%d passed, %d failed" % (ok, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
