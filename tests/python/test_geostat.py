# SPDX-License-Identifier: MIT
"""gridkit.variogram(), fit() and cv() against `gridkit variogram --format json`
and `gridkit cv --format json -o FILE` (the per-point file read with OGR)."""
import math
import os

import numpy as np
import pytest

import gridkit
from conftest import DATA, cli_json, equal, need_gdal, num, read_points

MEUSE = os.path.join(DATA, "meuse.gpkg")
ANISO = os.path.join(DATA, "aniso_trend.gpkg")


def check_experimental(v, js):
    rows = js["experimental"]
    assert len(v) == len(rows)
    assert equal(v.np, [r["np"] for r in rows])
    assert equal(v.dist, [num(r["dist"]) for r in rows])
    assert equal(v.gamma, [num(r["gamma"]) for r in rows])
    if "dir.hor" in rows[0]:
        assert equal(v.direction, [r["dir.hor"] for r in rows])
    else:
        assert np.isnan(v.direction).all()
    assert v.cutoff == js["cutoff"] and v.width == js["width"]


def check_model(m, js_model):
    assert len(m.structures) == len(js_model)
    for s, j in zip(m.structures, js_model):
        assert s["model"] == j["model"]
        assert s["psill"] == num(j["psill"]) and equal(s["range"], num(j["range"]))
        if "kappa" in j:
            assert s["kappa"] == j["kappa"]
        assert tuple(s["anis"]) == tuple(j.get("anis", (0.0, 1.0)))


def check_fit(m, js):
    check_model(m, js["model"])
    f = js["fit"]
    assert m.sserr == f["sserr"] and m.iterations == f["iterations"]
    assert m.converged == f["converged"]


# (CLI variogram options, variogram() keywords, CLI fit options, fit() arguments)
VARIOGRAMS = [
    ([], {}, ["--fit", "Nug,Sph"], (("Nug,Sph",), {})),
    (["--cutoff", 1200, "--width", 90], dict(cutoff=1200, width=90),
     ["--fit", "Sph", "--nugget", 0.05, "--psill", 0.6, "--range", 900, "--fit-method", 1],
     (("Sph",), dict(nugget=0.05, psill=0.6, range=900, method=1))),
    (["--lags", 10, "--estimator", "cressie"], dict(lags=10, estimator="cressie"),
     ["--fit", "Nug+Exp"], (("Nug+Exp",), {})),
    (["--direction", "0,45,90,135", "--tolerance", 22.5, "--cutoff", 1500],
     dict(directions=[0, 45, 90, 135], tolerance=22.5, cutoff=1500),
     ["--fit", "Nug,Sph", "--anis", "45,0.6"], (("Nug,Sph",), dict(anis=(45, 0.6)))),
    (["--drift", "linear"], dict(drift="linear"), ["--fit-best", "Exp,Sph,Gau"],
     ((["Exp", "Sph", "Gau"],), {})),
    ([], {}, ["--fit", "Nug,Mat", "--fit-kappa", "0.5,1,1.5,2"],
     (("Nug,Mat",), dict(fit_kappa=[0.5, 1, 1.5, 2]))),
    ([], {}, ["--fit-best", "Sph,Mat", "--fit-kappa", "--nugget", 0.04],
     ((["Sph", "Mat"],), dict(fit_kappa=True, nugget=0.04))),
]


@pytest.mark.parametrize("cli_v,kw_v,cli_f,fit_args", VARIOGRAMS,
                         ids=["v%d" % i for i in range(len(VARIOGRAMS))])
def test_variogram_and_fit_as_the_command(cli_v, kw_v, cli_f, fit_args):
    need_gdal()
    x, y, z = read_points("meuse.gpkg", "logzinc")
    js = cli_json("variogram", MEUSE, "-zfield", "logzinc", "-q", "--format", "json", *cli_v,
                  *cli_f)
    v = gridkit.variogram(x, y, z, **kw_v)
    check_experimental(v, js)
    args, kw = fit_args
    m = gridkit.fit(v, *args, **kw)
    check_fit(m, js)
    f = js["fit"]
    if "candidates" in f:
        assert len(m.candidates) == len(f["candidates"])
        for c, j in zip(m.candidates, f["candidates"]):
            assert c["name"] == j["name"] and c["kept"] == j["kept"]
            assert equal(c["sserr"], num(j["sserr"]))
            if "model" in j:
                check_model(c["model"], j["model"])
    if "kappa" in f:
        assert m.kappa == f["kappa"]
    # the compact string kriging's model= takes, the same model again
    alg = "kriging:model=%s:max_points=10" % m
    r = gridkit.grid(x, y, z, alg, shape=(4, 4), device="cpu")
    assert gridkit.grid(x, y, z, alg, shape=(4, 4), device="cpu").algorithm == r.algorithm


def test_variogram_of_an_anisotropic_set():
    need_gdal()
    x, y, z = read_points("aniso_trend.gpkg", "z")
    js = cli_json("variogram", ANISO, "-zfield", "z", "-q", "--format", "json", "--direction",
                  "30,120", "--bandwidth", 200, "--drift", "linear")
    check_experimental(gridkit.variogram(x, y, z, directions=(30, 120), bandwidth=200,
                                         drift="linear"), js)


def test_model_gamma():
    need_gdal()
    x, y, z = read_points("meuse.gpkg", "logzinc")
    m = gridkit.fit(gridkit.variogram(x, y, z), "Nug,Sph")
    nug, sph = m.structures
    h = np.array([0.0, 100.0, 5000.0])
    g = m.gamma(h)
    assert g[0] == 0.0  # gamma(0) = 0, the nugget beyond
    u = 100.0 / sph["range"]
    assert math.isclose(g[1], nug["psill"] + sph["psill"] * (1.5 * u - 0.5 * u ** 3), rel_tol=1e-12)
    assert math.isclose(g[2], nug["psill"] + sph["psill"], rel_tol=1e-15)


def read_cv_file(path):
    from osgeo import ogr
    ds = ogr.Open(str(path))
    cols = {k: [] for k in ("x", "y", "observed", "predicted", "variance", "residual", "zscore",
                            "fold")}
    for f in ds.GetLayer(0):
        g = f.GetGeometryRef()
        cols["x"].append(g.GetX())
        cols["y"].append(g.GetY())
        for k in ("observed", "predicted", "variance", "residual", "zscore"):
            cols[k].append(f.GetFieldAsDouble(k) if f.IsFieldSetAndNotNull(k) else math.nan)
        cols["fold"].append(f.GetFieldAsInteger("fold"))
    return cols


CVS = [
    ("kriging:model=Sph:psill=0.59:range=897:nugget=0.05:max_points=20", None, 1),
    ("invdist:power=2", 5, 7),
    ("invdistnn:power=2:radius=900:max_points=12", 10, 3),
    ("kriging:model=auto:max_points=30", 4, 11),
]


@pytest.mark.parametrize("alg,nfold,seed", CVS, ids=["cv%d" % i for i in range(len(CVS))])
def test_cv_as_the_command(tmp_path, alg, nfold, seed):
    need_gdal()
    x, y, z = read_points("meuse.gpkg", "logzinc")
    out = tmp_path / "res.gpkg"
    extra = ["--nfold", nfold] if nfold else []
    js = cli_json("cv", MEUSE, "-zfield", "logzinc", "-a", alg, "--format", "json", "-q",
                  "--device", "cpu", "--seed", seed, "-o", out, *extra)
    r = gridkit.cv(x, y, z, alg, nfold=nfold, seed=seed, device="cpu")
    for k, v in js.items():
        if isinstance(v, (float, int)) and not isinstance(v, bool) or v is None:
            assert equal(r.summary[k], num(v)), k
        else:
            assert r.summary[k] == v, k
    assert set(r.summary) == set(js)
    assert r.rmse == js["rmse"] and r.method == js["method"]
    want = read_cv_file(out)
    for k, v in want.items():
        assert equal(getattr(r, k), v), k
    assert r.fold.dtype.kind == "i"


def test_cv_refusals():
    x, y, z = np.arange(5.0), np.arange(5.0) ** 2, np.ones(5)
    with pytest.raises(ValueError, match="at least 2 points"):
        gridkit.cv([1.0], [1.0], [1.0], "nearest")
    with pytest.raises(ValueError, match="more folds than points"):
        gridkit.cv(x, y, z, "nearest", nfold=6)
    with pytest.raises(ValueError, match="nfold"):
        gridkit.cv(x, y, z, "nearest", nfold=1)
    with pytest.raises(gridkit.Error, match="no parameter 'power'"):
        gridkit.cv(x, y, z, "nearest:power=2")


def test_fit_refusals():
    v = gridkit.variogram(np.arange(30.0), np.arange(30.0) % 7, np.sin(np.arange(30.0)))
    for args, kw, match in [(("Foo",), {}, "unknown variogram model 'Foo'"),
                            (("Nug,Nug",), {}, "Nug listed twice"),
                            (("Sph,Exp",), dict(psill=1), "1 value for 2 non-nugget"),
                            (("Sph",), dict(range=-1), "range must be positive"),
                            (("Sph",), dict(anis=(400, 0.5)), "anis"),
                            (("Sph",), dict(method=3), "method"),
                            (("Sph",), dict(fit_kappa=True), "Mat and Ste"),
                            ((["Sph"],), dict(psill=1), "do not apply"),
                            ((["Sph", "Nope"],), {}, "Nope")]:
        with pytest.raises(ValueError, match=match):
            gridkit.fit(v, *args, **kw)
    with pytest.raises(ValueError, match="variogram"):
        gridkit.fit([1, 2], "Sph")
