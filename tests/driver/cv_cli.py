#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""cv_cli.py GRIDKIT DATA_DIR WORK_DIR

`gridkit cv` and `gridkit variogram` end to end: cv's JSON summary parses and
has gstat-style keys, leave-one-out invdist matches a numpy brute force, -o writes one feature per
point (GPKG, Shapefile) with the source SRS, k-fold reports its folds and
seed, and bad input fails cleanly without touching the input or leaving
temporary files; variogram's two estimators against numpy, its plots (PNG,
SVG) and its bad options. Ends with "N passed, M failed".
"""
import glob
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import time

import numpy as np
from osgeo import ogr, osr

ogr.UseExceptions()

GK, DATA, WORK = sys.argv[1:4]
SRC = os.path.join(DATA, "random_500.gpkg")
KEYS = ("n", "n_failed", "mean_error", "rmse", "mae", "mean_z", "var_z", "cor")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("PASS %-34s %s" % (name, detail))
    else:
        failed += 1
        print("FAIL %-34s %s" % (name, detail))


def run(args):
    p = subprocess.run([GK, "cv"] + args, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def cv_json(args):
    rc, out, err = run(args + ["--format=json"])
    if rc != 0:
        raise RuntimeError("rc %d: %s" % (rc, err.strip()))
    return json.loads(out)


def read_layer(path):
    ds = ogr.Open(path)
    lyr = ds.GetLayer(0)
    rows = []
    for f in lyr:
        g = f.GetGeometryRef()
        rows.append((g.GetX(), g.GetY(), f.GetField("observed"), f.GetField("predicted"),
                     f.GetField("variance"), f.GetField("residual"), f.GetField("zscore"),
                     f.GetField("fold")))
    srs = lyr.GetSpatialRef()
    fields = [lyr.GetLayerDefn().GetFieldDefn(i).GetName()
              for i in range(lyr.GetLayerDefn().GetFieldCount())]
    return rows, srs, fields


def source_points():
    ds = ogr.Open(SRC)
    lyr = ds.GetLayer(0)
    pts = [(f.GetGeometryRef().GetX(), f.GetGeometryRef().GetY(), f.GetGeometryRef().GetZ())
           for f in lyr]
    return np.array(pts), lyr.GetSpatialRef()


def md5(path):
    with open(path, "rb") as f:
        return hashlib.md5(f.read()).hexdigest()


def no_temp_files(d):
    return not glob.glob(os.path.join(d, "*gridkit-tmp*"))


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    pts, src_srs = source_points()
    n = len(pts)

    # ---- JSON summary, leave-one-out invdist vs numpy --------------------------------
    try:
        j = cv_json([SRC, "-a", "invdist:power=2"])
    except (RuntimeError, ValueError) as e:
        check("json_parses", False, str(e))
        return
    check("json_parses", True)
    check("json_keys", all(k in j for k in KEYS), "keys %s" % sorted(j))
    check("json_n", j["n"] == n and j["n_failed"] == 0 and j["nfold"] == n,
          "n %s n_failed %s nfold %s" % (j.get("n"), j.get("n_failed"), j.get("nfold")))
    check("json_no_z_without_variance", j["mean_z"] is None and j["var_z"] is None)
    x, y, z = pts[:, 0], pts[:, 1], pts[:, 2]
    d2 = (x[:, None] - x[None, :]) ** 2 + (y[:, None] - y[None, :]) ** 2
    np.fill_diagonal(d2, np.inf)
    w = 1.0 / d2
    pred = (w @ z) / w.sum(axis=1)
    e = z - pred
    ref = {"mean_error": e.mean(), "rmse": math.sqrt((e ** 2).mean()), "mae": np.abs(e).mean(),
           "cor": np.corrcoef(z, pred)[0, 1]}
    worst = max(abs(j[k] - v) / max(abs(v), 1e-300) for k, v in ref.items())
    check("loo_invdist_vs_numpy", worst < 1e-9, "worst relative difference %.2e" % worst)

    # two-token "--format json" (GDAL's general option processor must leave it alone)
    rc, out, err = run([SRC, "-a", "nearest", "--format", "json"])
    try:
        ok = rc == 0 and json.loads(out)["n"] == n
    except ValueError:
        ok = False
    check("format_json_two_tokens", ok, "rc %d %s" % (rc, err.strip()[:120]))

    rc, out, err = run([SRC, "-a", "nearest"])
    check("text_summary", rc == 0 and all(
        any(line.split()[:1] == [k] for line in out.splitlines()) for k in KEYS), out[:80])

    # ---- -o GPKG: one feature per point, fields, SRS, residual = observed - predicted
    gpkg = os.path.join(WORK, "loo.gpkg")
    j = cv_json([SRC, "-a", "invdist:power=2", "-o", gpkg])
    rows, srs, fields = read_layer(gpkg)
    check("gpkg_features", len(rows) == n == j["n"], "%d features, %d points" % (len(rows), n))
    check("gpkg_fields", fields == ["observed", "predicted", "variance", "residual", "zscore",
                                    "fold"], str(fields))
    check("gpkg_srs", srs is not None and src_srs is not None and srs.IsSame(src_srs))
    r = np.array([(a[2], a[3], a[5]) for a in rows], dtype=float)
    check("gpkg_residuals", np.allclose(r[:, 0] - r[:, 1], r[:, 2], rtol=0, atol=1e-9) and
          np.allclose(np.sort(r[:, 1]), np.sort(pred), rtol=1e-12, atol=1e-9))
    check("gpkg_null_variance", all(a[4] is None and a[6] is None for a in rows))
    check("gpkg_folds", sorted(a[7] for a in rows) == list(range(1, n + 1)))
    check("gpkg_no_temp", no_temp_files(WORK))

    # overwrite an existing output
    j2 = cv_json([SRC, "-a", "nearest", "-o", gpkg])
    rows2, _, _ = read_layer(gpkg)
    check("gpkg_overwrite", len(rows2) == n and rows2 != rows)
    # the same input, a second later: the same bytes (the GeoPackage's dates pinned)
    sum1 = md5(gpkg)
    time.sleep(1.1)
    cv_json([SRC, "-a", "nearest", "-o", gpkg])
    check("gpkg_same_bytes_again", md5(gpkg) == sum1)

    # ---- Shapefile: side-cars renamed with it ------------------------------------
    shp = os.path.join(WORK, "loo.shp")
    cv_json([SRC, "-a", "nearest", "-o", shp])
    rows, srs, _ = read_layer(shp)
    side = sorted(os.path.basename(p) for p in glob.glob(os.path.join(WORK, "loo.*")))
    check("shp_features", len(rows) == n, "%d features" % len(rows))
    check("shp_sidecars", {"loo.shp", "loo.shx", "loo.dbf", "loo.prj"} <= set(side) and
          no_temp_files(WORK), str(side))

    # replacing it: the old shapefile's spatial index (.qix), which the new one lacks and
    # which would index the old points, goes; the new files take the old names
    ds = ogr.Open(shp, 1)
    ds.ExecuteSQL("CREATE SPATIAL INDEX ON loo")
    ds = None
    qix = os.path.join(WORK, "loo.qix")
    had_qix = os.path.exists(qix)
    cv_json([SRC, "-a", "invdist:power=2", "-o", shp])
    rows2, _, _ = read_layer(shp)
    check("shp_replaced", had_qix and not os.path.exists(qix) and len(rows2) == n and
          rows2 != rows and no_temp_files(WORK),
          "qix before %s, after %s" % (had_qix, os.path.exists(qix)))

    # ---- k-fold ----------------------------------------------------------------
    kf = os.path.join(WORK, "k5.gpkg")
    j = cv_json([SRC, "-a", "nearest", "--nfold", "5", "--seed", "3", "-o", kf])
    rows, _, _ = read_layer(kf)
    folds = [a[7] for a in rows]
    sizes = [folds.count(k) for k in range(1, 6)]
    check("kfold_summary", j["nfold"] == 5 and j["seed"] == 3 and j["n"] == n, str(j)[:120])
    check("kfold_partition", sorted(set(folds)) == [1, 2, 3, 4, 5] and
          max(sizes) - min(sizes) <= 1, "fold sizes %s" % sizes)
    j3 = cv_json([SRC, "-a", "nearest", "--nfold", "5", "--seed", "3"])
    j4 = cv_json([SRC, "-a", "nearest", "--nfold", "5", "--seed", "4"])
    check("kfold_seed_reproducible", j3["rmse"] == j["rmse"] and j4["rmse"] != j["rmse"])

    # ---- failed predictions are counted, not averaged ---------------------------
    j = cv_json([SRC, "-a", "invdistnn:radius=40:max_points=12"])
    check("failed_counted", j["n_failed"] > 0 and j["n"] + j["n_failed"] == n and
          j["n_points"] == n and math.isfinite(j["rmse"]), "n %d n_failed %d" %
          (j["n"], j["n_failed"]))

    # ---- kriging:variogram=FILE: the model of a JSON file, read as grid reads it ---
    vm = os.path.join(WORK, "vm.json")
    with open(vm, "w") as f:
        json.dump({"model": [{"model": "Nug", "psill": 0.5},
                             {"model": "Exp", "psill": 2.0, "range": 300.0}]}, f)
    try:
        jf = cv_json([SRC, "-a", "kriging:variogram=%s:max_points=12" % vm])
        ji = cv_json([SRC, "-a", "kriging:model=Exp:psill=2:range=300:nugget=0.5:max_points=12"])
        check("variogram_file", jf["rmse"] == ji["rmse"] and jf["n"] == ji["n"],
              "rmse %r against %r inline" % (jf["rmse"], ji["rmse"]))
    except RuntimeError as e:
        check("variogram_file", False, str(e)[:160])

    # ---- --device: where the folds ran, in the summary ----------------------------
    krig = "kriging:model=Exp:psill=2:range=300:nugget=0.5:max_points=12"
    jc = cv_json([SRC, "-a", krig, "--device", "cpu"])
    check("device_cpu", jc["device"] == "cpu" and jc["method"] == "holdout", str(jc)[:200])
    # what the GPU does not take says so, on any machine (nearest: the CPU's)
    jn = cv_json([SRC, "-a", "nearest", "--device", "cuda"])
    check("device_cuda_not_taken", jn["device"].startswith("cpu (the GPU cross-validates "
          "local kriging"), jn["device"])
    # kriging with --device cuda: on the GPU where one is usable (the same
    # statistics as the CPU's within 1e-9), else an error naming the GPU
    rc, out, err = run([SRC, "-a", krig, "--device", "cuda", "--format=json"])
    if rc == 0:
        jg = json.loads(out)
        check("device_cuda_kriging", jg["device"].startswith("cuda") and
              abs(jg["rmse"] - jc["rmse"]) <= 1e-9 * jc["rmse"], str(jg)[:200])
    else:
        check("device_cuda_kriging", rc == 1 and "no usable gpu" in err.lower(),
              "rc %d: %s" % (rc, err.strip()[:160]))
    jt = cv_json([SRC, "-a", krig, "--device", "cpu", "--threads", "1"])
    check("device_threads_same", jt["rmse"] == jc["rmse"], "%r %r" % (jt["rmse"], jc["rmse"]))

    # ---- kriging with external drift: the raster from a folder whose name holds
    # ':' (quoted in -a); the JSON stays JSON (the quotes escaped) and the
    # statistics are those of the same raster named without ':'
    meuse = os.path.join(DATA, "meuse.gpkg")
    colon = os.path.join(WORK, "run:2")
    os.makedirs(colon, exist_ok=True)
    shutil.copy(os.path.join(DATA, "meuse_dist_filled.tif"), os.path.join(colon, "d.tif"))
    ked = ":model=Sph:psill=0.59:range=897:nugget=0.05:max_points=20"
    src = [meuse, "-l", "meuse", "-zfield", "logzinc", "--nfold", "5"]
    jp = cv_json(src + ["-a", "kriging:drift_raster=" + os.path.join(DATA, "meuse_dist_filled.tif") + ked])
    jq = cv_json(src + ["-a", 'kriging:drift_raster="%s"' % os.path.join(colon, "d.tif") + ked])
    check("ked_colon_json", jq["n_failed"] == 0 and jq["rmse"] == jp["rmse"] and
          ('drift_raster="%s"' % os.path.join(colon, "d.tif")) in jq["algorithm"],
          "%r %r %s" % (jq["rmse"], jp["rmse"], jq["algorithm"][:80]))
    # the folds' results do not depend on the threads that ran them
    j1 = cv_json(src + ["-a", "kriging:drift_raster=" + os.path.join(DATA, "meuse_dist_filled.tif") + ked,
                        "--threads", "1"])
    check("ked_threads_same", all(j1[k] == jp[k] for k in KEYS), "%r %r" % (j1["rmse"], jp["rmse"]))
    # a folder name with a tab: escaped in the JSON (\u0009), the path read back intact
    tab = os.path.join(WORK, "run\t3")
    os.makedirs(tab, exist_ok=True)
    shutil.copy(os.path.join(DATA, "meuse_dist_filled.tif"), os.path.join(tab, "d.tif"))
    jt = cv_json(src + ["-a", "kriging:drift_raster=" + os.path.join(tab, "d.tif") + ked])
    check("ked_tab_json", jt["rmse"] == jp["rmse"] and
          ("drift_raster=%s:" % os.path.join(tab, "d.tif")) in jt["algorithm"],
          "%r %r %r" % (jt["rmse"], jp["rmse"], jt["algorithm"][:80]))

    # ---- the other spellings of the format and output options, the text summary's
    # method line for each way of cross-validating
    rc, out, err = run([SRC, "-a", "nearest", "--json"])
    check("json_flag", rc == 0 and json.loads(out)["n"] == n, err.strip()[:120])
    rc, out2, err = run([SRC, "-a", "nearest", "--format=text"])
    check("format_text", rc == 0 and out2.startswith("algorithm   nearest") and
          "n           %d (of %d points)" % (n, n) in out2, out2[:120])
    lo = os.path.join(WORK, "long_output.gpkg")
    rc, out, err = run([SRC, "-a", "nearest", "--output", lo, "-q"])
    check("output_long_name", rc == 0 and len(read_layer(lo)[0]) == n, err.strip()[:120])
    METHODS = [("nearest", "holdout (one search index, each fold left out of the search)"),
               ("kriging:model=Exp:psill=2:range=300", "dubrule (one kriging system, each fold "
                "in closed form)"),
               ("linear", "rebuild (a job per fold on the other folds' points)")]
    for alg, want in METHODS:
        rc, out, err = run([SRC, "-a", alg, "--nfold", "5", "-q"])
        line = [ln for ln in out.splitlines() if ln.startswith("method")]
        check("text_method_" + alg.split(":")[0], rc == 0 and line == ["method      " + want],
              str(line))

    # ---- bad input ---------------------------------------------------------------
    copy = os.path.join(WORK, "input.gpkg")
    shutil.copy(SRC, copy)
    before = md5(copy)
    one = os.path.join(WORK, "one.csv")
    with open(one, "w") as f:
        f.write("x,y,z\n1,2,3\n")
    bad = [
        ("bad_algorithm", [copy, "-a", "krigingx"], "krigingx"),
        ("bad_no_algorithm", [copy], "-a"),
        ("bad_nfold_1", [copy, "-a", "nearest", "--nfold", "1"], "nfold"),
        ("bad_nfold_gt_n", [copy, "-a", "nearest", "--nfold", str(n + 1)], "nfold"),
        ("bad_nfold_text", [copy, "-a", "nearest", "--nfold", "five"], "nfold"),
        ("bad_nfold_overflow", [copy, "-a", "nearest", "--nfold", "9" * 20],
         "'%s' is not a whole number" % ("9" * 20)),
        ("bad_one_point", [one, "-a", "nearest", "-oo", "X_POSSIBLE_NAMES=x", "-oo",
                           "Y_POSSIBLE_NAMES=y", "-zfield", "z"], "at least 2"),
        ("bad_count", [copy, "-a", "count"], "predict"),
        ("bad_grid_option", [copy, "-a", "nearest", "-outsize", "10", "10"], "outsize"),
        ("bad_grid_option_of", [copy, "-a", "nearest", "-of", "GTiff"], "-of is a gridding"),
        ("bad_grid_option_ot", [copy, "-a", "nearest", "-ot", "Float32"], "-ot is a gridding"),
        ("bad_grid_option_co", [copy, "-a", "nearest", "-co", "TILED=YES"], "-co is a gridding"),
        ("bad_grid_option_txe", [copy, "-a", "nearest", "-txe", "0", "1"], "-txe is a gridding"),
        ("bad_grid_option_tye", [copy, "-a", "nearest", "-tye", "0", "1"], "-tye is a gridding"),
        ("bad_second_name", [copy, "out.tif", "-a", "nearest"], "one source"),
        ("bad_format", [copy, "-a", "nearest", "--format=xml"], "format"),
        ("bad_device", [copy, "-a", "nearest", "--device", "tpu"], "tpu"),
        ("bad_overwrite_input", [copy, "-a", "nearest", "-o", copy], "overwrite"),
        ("bad_missing_source", [os.path.join(WORK, "nope.gpkg"), "-a", "nearest"], "nope"),
        ("bad_extension", [copy, "-a", "nearest", "-o", os.path.join(WORK, "x.notaformat")],
         "driver"),
    ]
    for name, args, kw in bad:
        rc, out, err = run(args)
        check(name, rc not in (0,) and rc < 124 and kw.lower() in err.lower(),
              "rc %d: %s" % (rc, err.strip()[:140]))
    check("input_untouched", md5(copy) == before and no_temp_files(WORK))

    # a shapefile input: no output may replace any of its files (.dbf, .shx, .prj)
    shp_in = os.path.join(WORK, "in_shp")
    os.makedirs(shp_in)
    for p in glob.glob(os.path.join(DATA, "utm_2000.*")):
        shutil.copy(p, shp_in)
    sums = {p: md5(p) for p in glob.glob(os.path.join(shp_in, "*"))}
    src = os.path.join(shp_in, "utm_2000.shp")
    for ext in ("dbf", "shx", "prj", "shp"):
        rc, out, err = run([src, "-zfield", "elev", "-a", "nearest", "-o",
                            os.path.join(shp_in, "utm_2000." + ext)])
        check("bad_overwrite_shp_" + ext, rc == 1 and "overwrite" in err, err.strip()[:120])
    check("shp_input_untouched", all(md5(p) == m for p, m in sums.items()) and
          len(glob.glob(os.path.join(shp_in, "*"))) == len(sums))


def vgm(args):
    p = subprocess.run([GK, "variogram"] + args, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def png_size(path):
    """(width, height) from a PNG's IHDR, or None when the file is no PNG."""
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def variogram_checks():
    """`gridkit variogram`: both estimators against numpy, the plots, bad options."""
    meuse = os.path.join(DATA, "meuse.gpkg")
    ds = ogr.Open(meuse)
    pts = np.array([(f.GetGeometryRef().GetX(), f.GetGeometryRef().GetY(), f.GetField("logzinc"))
                    for f in ds.GetLayer(0)])
    ds = None
    x, y, z = pts.T
    i, j = np.triu_indices(len(x), 1)
    d, dz = np.hypot(x[i] - x[j], y[i] - y[j]), z[i] - z[j]
    # gstat's defaults: cutoff a third of the box's diagonal, 15 lags
    w = np.hypot(np.ptp(x), np.ptp(y)) / 3 / 15
    for est in ("matheron", "cressie"):
        rc, out, err = vgm([meuse, "-zfield", "logzinc", "-q", "--estimator", est, "-of", "csv"])
        if rc:
            check("vgm_%s_numpy" % est, False, err.strip()[:160])
            continue
        rows = np.loadtxt(out.splitlines()[1:], delimiter=",")
        worst, counts = 0.0, True
        for k, (npairs, dist, gamma) in enumerate(rows):
            m = (d > k * w) & (d <= (k + 1) * w) if k else d <= w
            nk, g = m.sum(), (dz[m] ** 2).mean() / 2
            if est == "cressie":  # Cressie and Hawkins (1980), as gstat's cressie = TRUE
                g = np.sqrt(np.abs(dz[m])).mean() ** 4 / (0.457 + 0.494 / nk) / 2
            counts = counts and nk == npairs
            worst = max(worst, abs(gamma - g) / g, abs(dist - d[m].mean()) / d[m].mean())
        check("vgm_%s_numpy" % est, len(rows) == 15 and counts and worst < 1e-12,
              "15 lags, pairs as numpy's, worst relative difference %.2e" % worst)
    # the table says which estimator it used, and that a trend was taken out
    rc, out, err = vgm([meuse, "-zfield", "logzinc", "--estimator", "cressie", "--drift", "linear"])
    check("vgm_table_header", rc == 0 and out.startswith("# 155 points") and
          "Cressie-Hawkins estimator" in out.splitlines()[0] and
          "# residuals of the ordinary least-squares trend z ~ 1 + x + y" in out, out[:160])

    # ---- --plot: PNG or SVG (the suffix in any case), a model or none, directions;
    # the same bytes whatever the threads
    plots = [("plain.png", []), ("kappa.SVG", ["--fit", "Nug,Mat", "--fit-kappa", "0.5,1,2"]),
             ("anis.png", ["--fit", "Sph", "--anis", "30,0.5", "--direction", "0,90"]),
             ("trend.png", ["--estimator", "cressie", "--drift", "linear", "--fit", "Nug,Exp"])]
    for name, extra in plots:
        path = os.path.join(WORK, name)
        sums = []
        for t in ("1", "3"):
            rc, out, err = vgm([meuse, "-zfield", "logzinc", "-q", "--threads", t, "--plot", path]
                               + extra)
            sums.append(md5(path) if rc == 0 and os.path.exists(path) else err.strip()[:120])
        if name.endswith(".png"):
            ok = png_size(path) == (880, 600)
        else:
            with open(path, "rb") as f:
                ok = b"<svg" in f.read(400)
        check("vgm_plot_" + name, ok and sums[0] == sums[1] and no_temp_files(WORK), str(sums))
    check("vgm_plot_model_drawn", md5(os.path.join(WORK, "plain.png")) !=
          md5(os.path.join(WORK, "trend.png")))

    # ---- bad options: the reason, exit 1, no output written
    out = os.path.join(WORK, "vgm_bad.json")
    bad = [
        (["--width", "0"], "--width must be positive, not 0"),
        (["--lags", "2.5"], "--lags must be a whole number"),
        (["--lags", "0"], "--lags must be a whole number"),
        (["--tolerance", "0"], "--tolerance must be in (0, 180], not 0"),
        (["--tolerance", "181"], "--tolerance must be in (0, 180], not 181"),
        (["--bandwidth", "-1"], "--bandwidth must be positive, not -1"),
        (["--fit-method", "3"], "--fit-method must be 1, 2, 6 or 7, not 3"),
        (["--plot", ".png"], "must end in .png or .svg"),
        (["--plot", "v.pdf"], "must end in .png or .svg"),
        (["--fit", "Sph", "--model", "m.json"], "give either --fit, --fit-best or --model"),
        (["--psill", "1"], "need --fit MODEL or --fit-best LIST"),
        (["--range", "300"], "need --fit MODEL or --fit-best LIST"),
        (["--kappa", "1"], "need --fit MODEL or --fit-best LIST"),
        (["--anis", "30,0.5"], "need --fit MODEL or --fit-best LIST"),
        (["--fit-kappa="], "--fit-kappa=: the kappa list is empty"),
        (["--fit-kappa"], "--fit-kappa needs a model to fit"),
        (["--fit", "Nug,Sph", "--fit-kappa", ".5"], "the model has none"),
        (["--fit", "Nug,Mat", "--fit-kappa", "-1"], "kappa -1 is not in (0, 100]"),
        (["-txe", "1"], "-txe needs 2 values"),
        (["--format", "text"], "'text' is not table, csv or json"),
    ]
    for args, want in bad:
        rc, _, err = vgm([meuse, "-zfield", "logzinc", "-q", "-o", out] + args)
        check("vgm_bad " + " ".join(args), rc == 1 and want in err and not os.path.exists(out)
              and no_temp_files(WORK), err.strip()[:140])


if __name__ == "__main__":
    try:
        main()
        variogram_checks()
    except Exception as e:  # a crash is a failure, with the reason
        check("crashed", False, repr(e))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)
