#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""gstat comparison suite: gridkit's variogram, fit, kriging and cross-validation
against gstat 2.1-0 (R), case by case.

    compare.py GRIDKIT DATA_DIR WORK_DIR [-k SUBSTRING] [-v]

The references are committed in tests/geostat/gstat/refs/ (regenerate them
with `Rscript tests/geostat/gstat/make_refs.R`; data:
tests/geostat/gstat/make_data.R); R is not needed here. Each case runs the
gridkit CLI with the arguments that correspond to one R call (written next to
the case) and compares:

* variogram: np exactly; dist and gamma to 1e-6 relative (per class);
* fit: every structure's psill and range to 1e-3 relative;
* model lists and fit.kappa (fit.variogram(v, vgm(c("Exp", "Sph")), fit.kappa = ...)):
  the kept model's structures, psill and range to 1e-3 relative, its kappa exactly (a
  value of the list), its SSErr to 1e-3 relative; every candidate's SSErr to 1e-3 and
  the same one kept;
* kriging: estimate and variance at every cell centre to 1e-6 relative,
  |g - r| <= tol * max(|r|, 1e-6 * max|r| of the case) (the floor only matters
  for a reference that is exactly 0); a reference NA must be nodata and vice versa.
  With nmax = k, cells whose k-th and (k+1)-th nearest data points are at exactly
  the same distance are not compared (their count is printed): gstat's choice
  among tied points is an accident of its search tree (docs/dev/geostatistics.md, 'Ties'), so
  the reference is not defined there;
* cv: n and n_failed exactly; the statistics to 1e-6 relative.

A case whose gridkit feature is missing FAILS (it is never skipped). Prints one
PASS/FAIL line per case and ends with the line "N passed, M failed".
"""
import csv
import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np
from osgeo import gdal, ogr

gdal.UseExceptions()
ogr.UseExceptions()

HERE = os.path.dirname(os.path.abspath(__file__))
REFS = os.path.join(HERE, "refs")
RUN_TIMEOUT = 600

# ---- grids and sources -------------------------------------------------------
MEUSE_GRID = ["-txe", "178440", "181560", "-tye", "329600", "333760", "-outsize", "78", "104"]
ANISO_GRID = ["-txe", "0", "1000", "-tye", "0", "1000", "-outsize", "50", "50"]
MEUSE = ("meuse.gpkg", ["-l", "meuse", "-zfield", "logzinc"])
ANISO = ("aniso_trend.gpkg", ["-l", "aniso_trend", "-zfield", "z"])
# gstat: vgm(0.59, "Sph", 897, 0.05), the model of the ?krige example
M_MEUSE = "model=Sph:psill=0.59:range=897:nugget=0.05"
# gstat: vgm(1, "Sph", 300, 0.1, anis = c(30, 0.5)), the model aniso_trend was simulated with
M_ANISO = "model=Sph:psill=1:range=300:nugget=0.1:anis_angle=30:anis_ratio=0.5"


def kr(spec):
    return "kriging:" + spec


# ---- cases ------------------------------------------------------------------
class Case:
    def __init__(self, kind, name, src, args, ref, tol, why=""):
        self.kind, self.name, self.src, self.args = kind, name, src, args
        self.ref, self.tol, self.why = ref, tol, why


def fit_args(start):
    """gridkit's --fit spelling for gstat's starting model, a list of
    (model, psill, range): --fit Nug,Sph --nugget C0 --psill C --range A."""
    names = [m for m, _, _ in start]
    a = ["--fit", ",".join(names)]
    nug = [p for m, p, _ in start if m == "Nug"]
    rest = [(p, r) for m, p, r in start if m != "Nug"]
    if nug:
        a += ["--nugget", repr(nug[0])]
    a += ["--psill", ",".join(repr(p) for p, _ in rest), "--range", ",".join(repr(r) for _, r in rest)]
    return a


CASES = []
V = lambda name, src, args, ref, why="": CASES.append(Case("vgm", name, src, args, ref, 1e-6, why))
# R: variogram(logzinc ~ 1, meuse)
V("vgm_meuse_default", MEUSE, [], "vgm_meuse_default.csv")
# R: variogram(logzinc ~ 1, meuse, cutoff = 1000, width = 50)
V("vgm_meuse_c1000_w50", MEUSE, ["--cutoff", "1000", "--width", "50"], "vgm_meuse_c1000_w50.csv")
# R: variogram(logzinc ~ 1, meuse, cutoff = 1000, width = 1000 / 8)
V("vgm_meuse_c1000_lags8", MEUSE, ["--cutoff", "1000", "--lags", "8"], "vgm_meuse_c1000_lags8.csv")
# R: variogram(logzinc ~ 1, meuse, cressie = TRUE)
V("vgm_meuse_cressie", MEUSE, ["--estimator", "cressie"], "vgm_meuse_cressie.csv")
# R: variogram(logzinc ~ 1, meuse, cutoff = 1000, width = 50, cressie = TRUE)
V("vgm_meuse_cressie_c1000_w50", MEUSE, ["--cutoff", "1000", "--width", "50", "--estimator", "cressie"],
  "vgm_meuse_cressie_c1000_w50.csv")
# R: variogram(logzinc ~ 1, meuse, alpha = c(0, 45, 90, 135))   (tol.hor 22.5 by default)
V("vgm_meuse_dir4", MEUSE, ["--direction", "0,45,90,135"], "vgm_meuse_dir4.csv")
# R: variogram(z ~ 1, aniso, cutoff = 600, width = 30)
V("vgm_aniso_omni", ANISO, ["--cutoff", "600", "--width", "30"], "vgm_aniso_omni.csv")
# R: variogram(z ~ 1, aniso, cutoff = 600, width = 30, alpha = c(30, 120), tol.hor = 15)
V("vgm_aniso_dir_tol15", ANISO, ["--cutoff", "600", "--width", "30", "--direction", "30,120",
                                 "--tolerance", "15"], "vgm_aniso_dir_tol15.csv")
# the JSON form of the default variogram ("experimental" array)
CASES.append(Case("vgm_json", "vgm_meuse_default_json", MEUSE, [], "vgm_meuse_default.csv", 1e-6))

# R: fit.variogram(variogram(logzinc ~ 1, meuse), START, fit.method = M)
STARTS = {"Sph": [("Sph", 0.6, 900)], "Exp": [("Exp", 0.6, 300)], "Gau": [("Gau", 0.6, 500)],
          "NugSph": [("Nug", 0.1, 0), ("Sph", 0.5, 800)]}
for nm in ("Sph", "Exp", "Gau", "NugSph"):
    for meth in (1, 2, 6, 7):
        CASES.append(Case("fit", "fit_%s_m%d" % (nm, meth), MEUSE,
                          fit_args(STARTS[nm]) + ["--fit-method", str(meth)],
                          "fit_%s_m%d.json" % (nm, meth), 1e-3))

# residual variograms, gstat's variogram(z ~ trend): OLS residuals of the trend
# R: variogram(logzinc ~ x + y, meuse)
V("vgm_meuse_resid_linear", MEUSE, ["--drift", "linear"], "vgm_meuse_resid_linear.csv")
# R: variogram(logzinc ~ xc + yc + I(xc^2) + I(xc*yc) + I(yc^2), meuse)   (centred: same span)
V("vgm_meuse_resid_quadratic", MEUSE, ["--drift", "quadratic"], "vgm_meuse_resid_quadratic.csv")
# R: variogram(logzinc ~ x + y, meuse, alpha = c(0, 45, 90, 135))
V("vgm_meuse_resid_linear_dir4", MEUSE, ["--drift", "linear", "--direction", "0,45,90,135"],
  "vgm_meuse_resid_linear_dir4.csv")
# R: variogram(logzinc ~ x + y, meuse, cressie = TRUE)
V("vgm_meuse_resid_linear_cressie", MEUSE, ["--drift", "linear", "--estimator", "cressie"],
  "vgm_meuse_resid_linear_cressie.csv")
# R: variogram(logzinc ~ dist_rs, meuse): dist_rs, the raster's cell holding each point
V("vgm_meuse_resid_dist", MEUSE, ["--drift-raster", "@DATA@/meuse_dist_filled.tif"],
  "vgm_meuse_resid_dist.csv")
# the same from the unfilled raster (every data point is on a floodplain cell)
V("vgm_meuse_resid_dist_masked", MEUSE, ["--drift-raster", "@DATA@/meuse_dist.tif"],
  "vgm_meuse_resid_dist.csv")
# R: variogram(logzinc ~ x + y + dist_rs, meuse)
V("vgm_meuse_resid_linear_dist", MEUSE, ["--drift", "linear", "--drift-raster",
                                         "@DATA@/meuse_dist_filled.tif"],
  "vgm_meuse_resid_linear_dist.csv")
# R: variogram(z ~ x + y, aniso, cutoff = 600, width = 30)
V("vgm_aniso_resid_linear", ANISO, ["--cutoff", "600", "--width", "30", "--drift", "linear"],
  "vgm_aniso_resid_linear.csv")
# R: variogram(z ~ x + y + I(x^2) + I(x*y) + I(y^2), aniso, cutoff = 600, width = 30)
V("vgm_aniso_resid_quadratic", ANISO, ["--cutoff", "600", "--width", "30", "--drift", "quadratic"],
  "vgm_aniso_resid_quadratic.csv")
# R: the same with alpha = c(30, 120), tol.hor = 15
V("vgm_aniso_resid_quadratic_dir_tol15", ANISO, ["--cutoff", "600", "--width", "30", "--drift",
                                                 "quadratic", "--direction", "30,120",
                                                 "--tolerance", "15"],
  "vgm_aniso_resid_quadratic_dir_tol15.csv")

# R: fit.variogram(SAMPLE, vgm(MODELS), fit.kappa = ...): each candidate a nugget plus the model
B = lambda name, src, args, ref: CASES.append(Case("best", name, src, args, ref, 1e-3))
A600 = ["--cutoff", "600", "--width", "30"]
# R: fit.variogram(variogram(logzinc ~ 1, meuse), vgm("Mat"), fit.kappa = TRUE)
B("fitk_meuse_Mat", MEUSE, ["--fit", "Nug,Mat", "--fit-kappa"], "fitk_meuse_Mat.json")
# R: ... vgm("Ste"), fit.kappa = TRUE
B("fitk_meuse_Ste", MEUSE, ["--fit", "Nug,Ste", "--fit-kappa"], "fitk_meuse_Ste.json")
# R: ... vgm("Mat"), fit.kappa = c(0.5, 1, 1.5, 2, 2.5)
B("fitk_meuse_Mat_list", MEUSE, ["--fit", "Nug,Mat", "--fit-kappa", "0.5,1,1.5,2,2.5"],
  "fitk_meuse_Mat_list.json")
# R: fit.variogram(variogram(z ~ 1, aniso, cutoff = 600, width = 30), vgm("Ste"), fit.kappa = TRUE)
B("fitk_aniso_Ste", ANISO, A600 + ["--fit", "Nug,Ste", "--fit-kappa"], "fitk_aniso_Ste.json")
# R: fit.variogram(variogram(z ~ x + y, aniso, ...), vgm("Mat"), fit.kappa = TRUE)
B("fitk_aniso_resid_Mat", ANISO, A600 + ["--drift", "linear", "--fit", "Nug,Mat", "--fit-kappa"],
  "fitk_aniso_resid_Mat.json")
# R: fit.variogram(variogram(logzinc ~ 1, meuse), vgm(c("Exp", "Sph", "Gau")))
B("best_meuse", MEUSE, ["--fit-best", "Exp,Sph,Gau"], "best_meuse.json")
# R: fit.variogram(variogram(z ~ 1, aniso, cutoff = 600, width = 30), vgm(c("Exp", "Sph", "Gau")))
B("best_aniso", ANISO, A600 + ["--fit-best", "Exp,Sph,Gau"], "best_aniso.json")
# R: the same on variogram(..., alpha = c(30, 120), tol.hor = 15)
B("best_aniso_dir", ANISO, A600 + ["--direction", "30,120", "--tolerance", "15",
                                   "--fit-best", "Exp,Sph,Gau"], "best_aniso_dir.json")
# R: the same on variogram(z ~ x + y, aniso, cutoff = 600, width = 30)
B("best_aniso_resid", ANISO, A600 + ["--drift", "linear", "--fit-best", "Exp,Sph,Gau"],
  "best_aniso_resid.json")
# R: fit.variogram(variogram(logzinc ~ 1, meuse), vgm(c("Exp", "Mat")), fit.kappa = TRUE)
B("best_meuse_kappa", MEUSE, ["--fit-best", "Exp,Mat", "--fit-kappa"], "best_meuse_kappa.json")

K = lambda name, src, grid, spec, ref, why="", mask=None, nmax=0: CASES.append(
    Case("krige", name, src, (grid, spec, mask, nmax), ref, 1e-6, why))
# R: krige(logzinc ~ 1, meuse, cells, m)
K("krige_meuse_ok_global", MEUSE, MEUSE_GRID, kr("type=ordinary:" + M_MEUSE), "krige_meuse_ok_global.csv")
# R: krige(logzinc ~ 1, meuse, cells, m, nmax = 20)
K("krige_meuse_ok_nmax20", MEUSE, MEUSE_GRID, kr("type=ordinary:max_points=20:" + M_MEUSE),
  "krige_meuse_ok_nmax20.csv", nmax=20)
# R: krige(logzinc ~ 1, meuse, cells, m, maxdist = 1000, nmin = 5)   (NA where < 5 points)
K("krige_meuse_ok_maxdist1000_nmin5", MEUSE, MEUSE_GRID,
  kr("type=ordinary:radius=1000:min_points=5:" + M_MEUSE), "krige_meuse_ok_maxdist1000_nmin5.csv")
# R: krige(logzinc ~ 1, meuse, cells, m, beta = 5.9)
K("krige_meuse_sk_5.9", MEUSE, MEUSE_GRID, kr("type=simple:mean=5.9:" + M_MEUSE), "krige_meuse_sk_5.9.csv")
# R: krige(logzinc ~ x + y, meuse, cells, m)
K("krige_meuse_uk_xy", MEUSE, MEUSE_GRID, kr("type=universal:drift=linear:" + M_MEUSE),
  "krige_meuse_uk_xy.csv")
# R: krige(logzinc ~ xc + yc + I(xc^2) + I(xc*yc) + I(yc^2), ...) (centred coordinates: same span)
K("krige_meuse_uk_quadratic", MEUSE, MEUSE_GRID, kr("type=universal:drift=quadratic:" + M_MEUSE),
  "krige_meuse_uk_quadratic.csv")
# R: krige(logzinc ~ dist_rs, meuse, cells, m): dist sampled from the raster at the data
# points (the cell holding the point); every data point lies on a floodplain cell
K("krige_meuse_ked_dist", MEUSE, MEUSE_GRID,
  kr("type=universal:drift_raster=@DATA@/meuse_dist_filled.tif:" + M_MEUSE),
  "krige_meuse_ked_dist_rastersampled.csv")
# the same with the unfilled raster: nodata off the floodplain, same values on it
K("krige_meuse_ked_dist_masked", MEUSE, MEUSE_GRID,
  kr("type=universal:drift_raster=@DATA@/meuse_dist.tif:" + M_MEUSE),
  "krige_meuse_ked_dist_rastersampled.csv", mask="meuse_dist.tif")
# R: krige(logzinc ~ 1, meuse, cells, m, block = c(40, 40))
K("krige_meuse_ok_block40", MEUSE, MEUSE_GRID, kr("type=ordinary:block=40x40:" + M_MEUSE),
  "krige_meuse_ok_block40.csv")
# R: krige(logzinc ~ 1, meuse, cells, m, nmax = 20, block = c(40, 40))
K("krige_meuse_ok_nmax20_block40", MEUSE, MEUSE_GRID,
  kr("type=ordinary:max_points=20:block=40x40:" + M_MEUSE), "krige_meuse_ok_nmax20_block40.csv",
  nmax=20)
# R: krige(z ~ 1, aniso, cells, ma)
K("krige_aniso_ok_global", ANISO, ANISO_GRID, kr("type=ordinary:" + M_ANISO), "krige_aniso_ok_global.csv")
# R: krige(z ~ x + y, aniso, cells, ma)
K("krige_aniso_uk_xy", ANISO, ANISO_GRID, kr("type=universal:drift=linear:" + M_ANISO),
  "krige_aniso_uk_xy.csv")
# R: krige(z ~ x + y, aniso, cells, ma, nmax = 30)
K("krige_aniso_uk_xy_nmax30", ANISO, ANISO_GRID,
  kr("type=universal:drift=linear:max_points=30:" + M_ANISO), "krige_aniso_uk_xy_nmax30.csv",
  nmax=30)
# R: krige(z ~ x + y + I(x^2) + I(x*y) + I(y^2), aniso, cells, ma)
K("krige_aniso_uk_quadratic", ANISO, ANISO_GRID, kr("type=universal:drift=quadratic:" + M_ANISO),
  "krige_aniso_uk_quadratic.csv")

# Local and global polynomials (-a polynomial) against krige() without a model, a formula in
# centred coordinates: (local) ordinary least squares. The same neighbourhoods; 1e-9 relative
# to the larger of the value and the data's largest |z|: a value near 0 out of data near 5 is
# a cancellation, which gstat's normal equations carry less well than gridkit's QR. The worst
# cells are gstat's error: meuse, cubic, 40 nearest of (179380, 333660) is exactly
# -3.8278323945745 (rational arithmetic), gridkit's -3.82783239457142, gstat's -3.82783238738917.
P = lambda name, src, grid, spec, ref, nmax=0: CASES.append(
    Case("krige", name, src, (grid, "polynomial:" + spec, None, nmax), ref, 1e-9, "z scale"))
# R: krige(logzinc ~ xc + yc, meuse, cells, nmax = 16)
P("poly_meuse_d1_nmax16", MEUSE, MEUSE_GRID, "degree=1:max_points=16", "krige_poly_meuse_d1_nmax16.csv",
  nmax=16)
# R: krige(logzinc ~ xc + yc + I(xc^2) + I(xc * yc) + I(yc^2), meuse, cells, nmax = 32)
P("poly_meuse_d2_nmax32", MEUSE, MEUSE_GRID, "degree=2:max_points=32", "krige_poly_meuse_d2_nmax32.csv",
  nmax=32)
# R: the same with every point (the trend surface)
P("poly_meuse_d2_global", MEUSE, MEUSE_GRID, "degree=2", "krige_poly_meuse_d2_global.csv")
# R: cubic, nmax = 40
P("poly_meuse_d3_nmax40", MEUSE, MEUSE_GRID, "degree=3:max_points=40", "krige_poly_meuse_d3_nmax40.csv",
  nmax=40)
# R: linear, maxdist = 800, nmin = 8 (NA where fewer than 8 points)
P("poly_meuse_d1_maxdist800_nmin8", MEUSE, MEUSE_GRID, "degree=1:radius=800:min_points=8",
  "krige_poly_meuse_d1_maxdist800_nmin8.csv")
# R: z ~ quadratic in xc, yc, nmax = 30; and cubic over every point
P("poly_aniso_d2_nmax30", ANISO, ANISO_GRID, "degree=2:max_points=30", "krige_poly_aniso_d2_nmax30.csv",
  nmax=30)
P("poly_aniso_d3_global", ANISO, ANISO_GRID, "degree=3", "krige_poly_aniso_d3_global.csv")
# R: quadratic, nmax = 40, maxdist = 300, omax = 10 (gstat's octant search needs maxdist)
P("poly_aniso_d2_nmax40_r300_omax10", ANISO, ANISO_GRID,
  "degree=2:max_points=40:radius=300:max_points_per_quadrant=10",
  "krige_poly_aniso_d2_nmax40_r300_omax10.csv", nmax=40)

C = lambda name, src, alg, ref, why="": CASES.append(Case("cv", name, src, alg, ref, 1e-6, why))
# R: krige.cv(logzinc ~ 1, meuse, m, nmax = 20)
C("cv_meuse_ok_nmax20", MEUSE, kr("type=ordinary:max_points=20:" + M_MEUSE), "cv_meuse_ok_nmax20.json")
# R: krige.cv(logzinc ~ 1, meuse, m)
C("cv_meuse_ok_global", MEUSE, kr("type=ordinary:" + M_MEUSE), "cv_meuse_ok_global.json")
# R: krige.cv(logzinc ~ x + y, meuse, m)
C("cv_meuse_uk_xy", MEUSE, kr("type=universal:drift=linear:" + M_MEUSE), "cv_meuse_uk_xy.json")
# R: krige.cv(logzinc ~ 1, meuse, NULL, set = list(idp = 2))   (global IDW)
C("cv_meuse_idw2", MEUSE, "invdist:power=2", "cv_meuse_idw2.json")
# R: krige.cv(logzinc ~ xc + yc, meuse, nmax = 16) and the quadratic with nmax = 32, no model:
# local least squares (-a polynomial; no variance, so no z-scores)
C("cv_meuse_poly_d1_nmax16", MEUSE, "polynomial:degree=1:max_points=16", "cv_meuse_poly_d1_nmax16.json")
C("cv_meuse_poly_d2_nmax32", MEUSE, "polynomial:degree=2:max_points=32", "cv_meuse_poly_d2_nmax32.json")
# R: krige.cv(z ~ x + y, aniso, ma)
C("cv_aniso_uk_xy", ANISO, kr("type=universal:drift=linear:" + M_ANISO), "cv_aniso_uk_xy.json")
# R: krige.cv(z ~ 1, aniso, ma, nmax = 20)
C("cv_aniso_ok_nmax20", ANISO, kr("type=ordinary:max_points=20:" + M_ANISO), "cv_aniso_ok_nmax20.json")
# R: krige.cv(logzinc ~ dist_rs, meuse, m): the dist raster sampled at the points (make_refs.R)
C("cv_meuse_ked_dist", MEUSE, kr("type=universal:drift_raster=@DATA@/meuse_dist_filled.tif:" + M_MEUSE),
  "cv_meuse_ked_dist_rs.json")
# R: krige.cv(logzinc ~ dist_rs, meuse, m, nmax = 20)
C("cv_meuse_ked_dist_nmax20", MEUSE,
  kr("type=universal:max_points=20:drift_raster=@DATA@/meuse_dist_filled.tif:" + M_MEUSE),
  "cv_meuse_ked_dist_rs_nmax20.json")


# ---- helpers -----------------------------------------------------------------
class Fail(Exception):
    pass


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=RUN_TIMEOUT)
    if p.returncode != 0:
        lines = (p.stderr or p.stdout).decode(errors="replace").strip().splitlines()
        errs = [l for l in lines if "error" in l.lower() or "not implemented" in l.lower()]
        msg = (errs or lines or ["(no message)"])[0]
        raise Fail("exit %d: %s" % (p.returncode, msg[:300]))
    txt = p.stdout.decode(errors="replace")
    if "Format Details:" in txt:  # GDALGeneralCmdLineProcessor took the sub-command's --format
        raise Fail("exit 0: GDAL's generic '--format NAME' (driver details) ran instead of the "
                   "sub-command's --format option")
    return txt


def rel(g, r, floor=0.0):
    d = abs(g - r)
    return 0.0 if d == 0 else d / max(abs(r), floor, 1e-300)


def read_ref_vgm(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return rows


def cmp_vgm(rows_g, rows_r, tol):
    """rows: dicts with np, dist, gamma[, dir.hor]; empty classes dropped."""
    rows_g = [r for r in rows_g if float(r["np"]) > 0]
    if len(rows_g) != len(rows_r):
        raise Fail("%d classes, gstat %d" % (len(rows_g), len(rows_r)))
    worst = [0.0, 0.0]
    for i, (g, r) in enumerate(zip(rows_g, rows_r)):
        if "dir.hor" in r:
            if "dir.hor" not in g or abs(float(g["dir.hor"]) - float(r["dir.hor"])) > 1e-9:
                raise Fail("class %d: direction %s, gstat %s" % (i, g.get("dir.hor"), r["dir.hor"]))
        if int(round(float(g["np"]))) != int(r["np"]):
            raise Fail("class %d (dist %.6g): np %s, gstat %s" % (i, float(r["dist"]), g["np"], r["np"]))
        for j, k in enumerate(("dist", "gamma")):
            e = rel(float(g[k]), float(r[k]))
            worst[j] = max(worst[j], e)
            if not e <= tol:
                raise Fail("class %d: %s %.17g, gstat %.17g (rel %.3g > %g)" % (i, k, float(g[k]), float(r[k]), e, tol))
    return "%d classes, worst rel dist %.2g gamma %.2g (tol %g)" % (len(rows_r), worst[0], worst[1], tol)


def src_args(c, data):
    return [os.path.join(data, c.src[0])] + c.src[1]


def case_vgm(gk, data, work, c, fmt):
    out = os.path.join(work, c.name + "." + fmt)
    args = [a.replace("@DATA@", data) for a in c.args]
    run([gk, "variogram"] + src_args(c, data) + args + ["--format", fmt, "-o", out])
    if not os.path.exists(out):
        raise Fail("exit 0 but no %s written" % out)
    ref = read_ref_vgm(os.path.join(REFS, c.ref))
    if fmt == "csv":
        with open(out) as f:
            rows = list(csv.DictReader(f))
    else:
        with open(out) as f:
            j = json.load(f)
        if "experimental" not in j:
            raise Fail("no 'experimental' in the JSON")
        rows = [{k: str(v) for k, v in e.items()} for e in j["experimental"]]
    return cmp_vgm(rows, ref, c.tol)


def case_fit(gk, data, work, c):
    out = os.path.join(work, c.name + ".json")
    run([gk, "variogram"] + src_args(c, data) + c.args + ["--format", "json", "-o", out])
    with open(out) as f:
        got = json.load(f).get("model")
    with open(os.path.join(REFS, c.ref)) as f:
        ref = json.load(f)["model"]
    if not isinstance(got, list) or len(got) != len(ref):
        raise Fail("model %s, gstat %s" % (json.dumps(got), json.dumps(ref)))
    worst, msgs = 0.0, []
    for g, r in zip(got, ref):
        if str(g.get("model", "")).lower() != r["model"].lower():
            raise Fail("structure %s, gstat %s" % (g.get("model"), r["model"]))
        for k in ("psill", "range"):
            gv = float(g.get(k, 0.0) or 0.0)
            e = rel(gv, r[k])
            worst = max(worst, e)
            if not e <= c.tol:
                msgs.append("%s %s %.9g, gstat %.9g (rel %.2g)" % (r["model"], k, gv, r[k], e))
    if msgs:
        raise Fail("; ".join(msgs) + " (tol %g)" % c.tol)
    return "worst rel %.2g (tol %g)" % (worst, c.tol)


def cmp_model(got, ref, tol, what):
    """structures in order: type, psill and range to tol, kappa (Mat, Ste, Exc) exactly;
    returns the worst relative difference of psill and range."""
    if not isinstance(got, list) or len(got) != len(ref):
        raise Fail("%s: model %s, gstat %s" % (what, json.dumps(got), json.dumps(ref)))
    worst, msgs = 0.0, []
    for g, r in zip(got, ref):
        if str(g.get("model", "")).lower() != r["model"].lower():
            raise Fail("%s: structure %s, gstat %s" % (what, g.get("model"), r["model"]))
        for k in ("psill", "range"):
            gv = float(g.get(k, 0.0) or 0.0)
            e = rel(gv, r[k])
            worst = max(worst, e)
            if not e <= tol:
                msgs.append("%s: %s %s %.9g, gstat %.9g (rel %.2g)" % (what, r["model"], k, gv, r[k], e))
        if "kappa" in r and rel(float(g.get("kappa", float("nan"))), r["kappa"]) > 1e-12:
            msgs.append("%s: %s kappa %r, gstat %r" % (what, r["model"], g.get("kappa"), r["kappa"]))
    if msgs:
        raise Fail("; ".join(msgs) + " (tol %g)" % tol)
    return worst


def case_best(gk, data, work, c):
    out = os.path.join(work, c.name + ".json")
    run([gk, "variogram"] + src_args(c, data) + c.args + ["--format", "json", "-o", out])
    with open(out) as f:
        got = json.load(f)
    with open(os.path.join(REFS, c.ref)) as f:
        ref = json.load(f)
    fit = got.get("fit") or {}
    worst = cmp_model(got.get("model"), ref["model"], c.tol, "kept model")
    e = rel(float(fit.get("sserr", float("nan"))), ref["sserr"])
    if not e <= c.tol:
        raise Fail("SSErr %r, gstat %.9g (rel %.2g, tol %g)" % (fit.get("sserr"), ref["sserr"], e, c.tol))
    worst_sse = e
    kappa = [s["kappa"] for s in ref["model"] if s["model"] in ("Mat", "Ste")]
    if ref["fit_kappa"] is not False and kappa and fit.get("kappa") != kappa[0]:
        raise Fail("fit.kappa %r, gstat %r" % (fit.get("kappa"), kappa[0]))
    cands = ref["candidates"]
    if len(cands) > 1:  # a model list: every candidate and the one kept
        gc = fit.get("candidates")
        if not isinstance(gc, list) or len(gc) != len(cands):
            raise Fail("candidates %s, gstat %d" % (json.dumps(gc), len(cands)))
        for i, (g, r) in enumerate(zip(gc, cands)):
            if g.get("name") != r["name"]:
                raise Fail("candidate %d: %s, gstat %s" % (i + 1, g.get("name"), r["name"]))
            e = rel(float(g.get("sserr") if g.get("sserr") is not None else float("nan")), r["sserr"])
            worst_sse = max(worst_sse, e)
            if not e <= c.tol:
                raise Fail("candidate %s: SSErr %r, gstat %.9g (rel %.2g, tol %g)"
                           % (r["name"], g.get("sserr"), r["sserr"], e, c.tol))
            worst = max(worst, cmp_model(g.get("model"), r["model"], c.tol, "candidate " + r["name"]))
            if bool(g.get("kept")) != (i == ref["kept"]):
                raise Fail("kept %s, gstat kept %s" % (
                    [x.get("name") for x in gc if x.get("kept")], cands[ref["kept"]]["name"]))
    return "kept %s%s, worst rel psill/range %.2g, SSErr %.2g (tol %g)" % (
        "+".join(s["model"] for s in ref["model"]),
        " kappa %g" % kappa[0] if ref["fit_kappa"] is not False and kappa else "",
        worst, worst_sse, c.tol)


def read_ref_grid(path):
    a = np.genfromtxt(path, delimiter=",", skip_header=1)
    return a[:, 0], a[:, 1], a[:, 2], a[:, 3]


def band_array(ds, i):
    b = ds.GetRasterBand(i)
    a = b.ReadAsArray().astype(np.float64)
    nd = b.GetNoDataValue()
    miss = np.isnan(a)
    if nd is not None and not math.isnan(nd):
        miss |= a == nd
    a[miss] = np.nan
    return a


def tie_cells(path, rx, ry, k):
    """Cells where the k-th and (k+1)-th nearest points are equally far."""
    ds = ogr.Open(path)
    lyr = ds.GetLayer(0)
    p = np.array([(f.GetGeometryRef().GetX(), f.GetGeometryRef().GetY()) for f in lyr])
    tie = np.zeros(len(rx), bool)
    if k >= len(p):
        return tie
    for s in range(0, len(rx), 1024):
        d2 = (rx[s:s + 1024, None] - p[None, :, 0]) ** 2 + (ry[s:s + 1024, None] - p[None, :, 1]) ** 2
        d2.sort(axis=1)
        tie[s:s + 1024] = d2[:, k - 1] == d2[:, k]
    return tie


def z_max(path, src_args):
    """The largest |z| of the source's -zfield in its -l layer."""
    ds = ogr.Open(path)
    lyr = ds.GetLayerByName(src_args[src_args.index("-l") + 1])
    field = src_args[src_args.index("-zfield") + 1]
    return max(abs(f.GetField(field)) for f in lyr)


def case_krige(gk, data, work, c):
    grid, spec, mask, nmax = c.args
    out = os.path.join(work, c.name + ".tif")
    kriging = spec.startswith("kriging:")  # a polynomial has no variance band
    spec = spec.replace("@DATA@", data) + (":variance=yes" if kriging else "") + ":nodata=nan"
    run([gk, "grid", "-q"] + c.src[1] + grid + ["-a", spec, os.path.join(data, c.src[0]), out])
    ds = gdal.Open(out)
    if kriging and ds.RasterCount < 2:
        raise Fail("%d band(s): no variance band" % ds.RasterCount)
    gt = ds.GetGeoTransform()
    est = band_array(ds, 1)
    var = band_array(ds, 2) if kriging else np.full(est.shape, np.nan)
    ny, nx = est.shape
    rx, ry, rp, rv = read_ref_grid(os.path.join(REFS, c.ref))
    if mask:  # cells where the mask raster is nodata must be nodata
        m = gdal.Open(os.path.join(data, mask))
        ma = band_array(m, 1)
        mgt = m.GetGeoTransform()
        mi = np.floor((ry - mgt[3]) / mgt[5]).astype(int)
        mj = np.floor((rx - mgt[0]) / mgt[1]).astype(int)
        off = np.isnan(ma[mi, mj])
        rp, rv = rp.copy(), rv.copy()
        rp[off] = np.nan
        rv[off] = np.nan
    # the reference cell centre -> gridkit's pixel, through gridkit's geotransform
    fj = (rx - gt[0]) / gt[1] - 0.5
    fi = (ry - gt[3]) / gt[5] - 0.5
    j, i = np.rint(fj).astype(int), np.rint(fi).astype(int)
    if (np.abs(fj - j).max() > 1e-6 or np.abs(fi - i).max() > 1e-6 or j.min() < 0 or i.min() < 0
            or j.max() >= nx or i.max() >= ny or nx * ny != len(rx)):
        raise Fail("grid %dx%d, geotransform %s does not hold the %d reference cells" % (nx, ny, gt, len(rx)))
    tie = tie_cells(os.path.join(data, c.src[0]), rx, ry, nmax) if nmax else np.zeros(len(rx), bool)
    msgs, info = [], []
    for label, g, r in (("estimate", est[i, j], rp),) + ((("variance", var[i, j], rv),) if kriging else ()):
        g, r = g[~tie], r[~tie]
        rn, gn = np.isnan(r), np.isnan(g)
        if (rn != gn).any():
            k = np.flatnonzero(rn != gn)
            msgs.append("%s: %d cells NA in one only (gstat NA %d, gridkit NA %d; first at x=%g y=%g: %r vs gstat %r)"
                        % (label, len(k), rn.sum(), gn.sum(), rx[~tie][k[0]], ry[~tie][k[0]], g[k[0]], r[k[0]]))
        ok = ~rn & ~gn
        if not ok.any():
            continue
        floor = 1e-6 * np.abs(r[ok]).max()
        if c.why == "z scale":
            floor = max(floor, z_max(os.path.join(data, c.src[0]), c.src[1]))
        e = np.abs(g[ok] - r[ok]) / np.maximum(np.abs(r[ok]), floor)
        w = int(np.argmax(e))
        k = np.flatnonzero(~tie)[np.flatnonzero(ok)[w]]
        bad = int((e > c.tol).sum())
        info.append("%s worst rel %.2g at (%g,%g)" % (label, e[w], rx[k], ry[k]))
        if bad:
            msgs.append("%s: %d of %d cells off by > %g rel, worst %.3g at x=%g y=%g (%.12g vs gstat %.12g)"
                        % (label, bad, ok.sum(), c.tol, e[w], rx[k], ry[k], g[ok][w], r[ok][w]))
    if msgs:
        raise Fail("; ".join(msgs))
    return "%d cells (%d NA, %d ties not compared), %s (tol %g)" % (
        len(rx), int(np.isnan(rp).sum()), int(tie.sum()), ", ".join(info), c.tol)


CV_STATS = ("mean_error", "rmse", "mae", "mean_z", "var_z", "mean_z2", "cor")
CV_GK_KEY = {"mean_z2": "msdr"}  # gridkit's name for gstat-side mean(zscore^2)


def case_cv(gk, data, work, c):
    txt = run([gk, "cv"] + src_args(c, data) + ["-a", c.args.replace("@DATA@", data),
                                                 "--format", "json"])
    try:
        got = json.loads(txt)
    except ValueError:
        raise Fail("stdout is not JSON: %r" % txt[:200])
    with open(os.path.join(REFS, c.ref)) as f:
        ref = json.load(f)
    msgs, worst = [], 0.0
    for k in ("n", "n_failed"):
        if got.get(k) != ref[k]:
            msgs.append("%s %r, gstat %r" % (k, got.get(k), ref[k]))
    for k in CV_STATS:
        gk_key = CV_GK_KEY.get(k, k)
        gv, rv = got.get(gk_key), ref[k]
        if rv is None:  # no variance (IDW): no z-scores
            if gv is not None and not (isinstance(gv, float) and math.isnan(gv)):
                msgs.append("%s %r, gstat has none" % (gk_key, gv))
            continue
        if gv is None:
            msgs.append("%s missing" % gk_key)
            continue
        e = rel(float(gv), rv)
        worst = max(worst, e)
        if not e <= c.tol:
            msgs.append("%s %.12g, gstat %.12g (rel %.2g)" % (gk_key, float(gv), rv, e))
    if msgs:
        raise Fail("; ".join(msgs) + " (tol %g)" % c.tol)
    return "n %d, worst rel %.2g (tol %g)" % (ref["n"], worst, c.tol)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("-")]
    sub = None
    if "-k" in argv:
        sub = argv[argv.index("-k") + 1]
        args.remove(sub)
    if len(args) != 3:
        sys.stderr.write(__doc__)
        return 2
    gk, data, work = (os.path.abspath(a) for a in args)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    npass = nfail = 0
    for c in CASES:
        if sub and sub not in c.name:
            continue
        try:
            if c.kind == "vgm":
                msg = case_vgm(gk, data, work, c, "csv")
            elif c.kind == "vgm_json":
                msg = case_vgm(gk, data, work, c, "json")
            elif c.kind == "fit":
                msg = case_fit(gk, data, work, c)
            elif c.kind == "best":
                msg = case_best(gk, data, work, c)
            elif c.kind == "krige":
                msg = case_krige(gk, data, work, c)
            else:
                msg = case_cv(gk, data, work, c)
            print("PASS %s: %s" % (c.name, msg))
            npass += 1
        except Fail as e:
            print("FAIL %s: %s%s" % (c.name, e, (" [%s]" % c.why) if c.why else ""))
            nfail += 1
        except Exception as e:  # unreadable output and the like: still one line
            print("FAIL %s: %s: %s" % (c.name, type(e).__name__, e))
            nfail += 1
        sys.stdout.flush()
    print("%d passed, %d failed" % (npass, nfail))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
