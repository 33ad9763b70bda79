#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-a rbf against SciPy's RBFInterpolator (Debian's python3-scipy, 1.10).

usage: rbf_scipy.py GRIDKIT DATA_DIR WORK_DIR

Each case runs `gridkit grid -a rbf:...` on one of the bundled data sets and
evaluates RBFInterpolator with the same kernel, epsilon, smoothing, degree and
neighbors at the raster's pixel centres; every node must agree to 1e-8
relative to the larger of |SciPy's value| and the data's largest |z|.
Global systems on meuse (155 points, every kernel), 500 uniform points, 2000
clustered ones and a lattice with coincident points (smoothing); local systems
(neighbors=k) on those and on 10,000 points.

Where a system is ill-conditioned (quintic's r^5 on distances of kilometres
beside monomials of order 1; flat kernels on clustered points) no solver in
double precision reaches 1e-8 of SciPy: where the two differ by more than
that, the reference is the same system solved in long double (numpy's 80-bit
float, kernels included), and over those nodes gridkit's largest distance
from it must be within 1e-8, or no larger than SciPy's. Both are printed.
(Where even long double cannot resolve a system, a flat kernel's epsilon far
below 1 / the points' spacing, there is nothing to compare: the cases keep
epsilon near that.)

With neighbors=k the k nearest points are ambiguous where the k-th and the
(k+1)-th are equally far: gridkit takes the one first in input order, SciPy's
KDTree either. Those nodes are left out of the comparison and counted; every
other node must agree.
Then cross-validation: `gridkit cv -a rbf:...` (leave-one-out, and 5 folds
with the folds its output names) against RBFInterpolator fitted on the
other points of each fold, at the held-out points, to the same 1e-8.
Ends with "N passed, M failed"; a failure prints "FAIL ".
"""
import os
import subprocess
import sys

import numpy as np
from osgeo import gdal, ogr
from scipy.interpolate import RBFInterpolator
from scipy.spatial import cKDTree

gdal.UseExceptions()
TOL = 1e-8

MEUSE = ("meuse.gpkg", "meuse", "logzinc", ["-txe", "178440", "181560", "-tye", "329600",
                                            "333760", "-outsize", "39", "52"])
RANDOM = ("random_500.gpkg", "random_500", "z", ["-txe", "0", "1000", "-tye", "0", "1000",
                                                 "-outsize", "50", "50"])
CLUSTERED = ("utm_2000.shp", "utm_2000", "elev", ["-txe", "495000", "505000", "-tye", "4995000",
                                                  "5005100", "-outsize", "60", "61"])
DUPLICATES = ("integer_grid.csv", "integer_grid", "z", ["-txe", "-0.5", "40.5", "-tye", "-0.5",
                                                        "40.5", "-outsize", "41", "41"])
LATTICE = ("lattice_400.csv", "lattice_400", "z", ["-txe", "970", "2170", "-tye", "4970", "6170",
                                                   "-outsize", "48", "48"])
TENK = ("points_10k.xyz", None, None, ["-txe", "0", "5000", "-tye", "0", "5000", "-outsize",
                                       "120", "120"])

CASES = [
    (MEUSE, "rbf"),
    (MEUSE, "rbf:kernel=cubic:degree=3"),
    (MEUSE, "rbf:kernel=quintic"),
    (MEUSE, "rbf:kernel=linear"),
    (MEUSE, "rbf:kernel=multiquadric:epsilon=0.003"),
    (MEUSE, "rbf:kernel=inverse_multiquadric:epsilon=0.003"),
    (MEUSE, "rbf:kernel=inverse_quadratic:epsilon=0.003"),
    (MEUSE, "rbf:kernel=gaussian:epsilon=0.004"),
    (MEUSE, "rbf:smoothing=1"),
    (MEUSE, "rbf:kernel=thin_plate_spline:epsilon=0.01:degree=2"),
    (MEUSE, "rbf:neighbors=20"),
    (MEUSE, "rbf:kernel=cubic:neighbors=40:smoothing=0.05"),
    (RANDOM, "rbf"),
    (RANDOM, "rbf:kernel=gaussian:epsilon=0.02:degree=1"),
    (RANDOM, "rbf:neighbors=50"),
    (RANDOM, "rbf:kernel=quintic:neighbors=30:smoothing=0.01"),
    (CLUSTERED, "rbf"),
    (CLUSTERED, "rbf:kernel=multiquadric:epsilon=0.02:neighbors=50"),
    (DUPLICATES, "rbf:smoothing=0.5"),
    (DUPLICATES, "rbf:kernel=inverse_quadratic:epsilon=0.3:smoothing=0.1:neighbors=16"),
    (LATTICE, "rbf"),
    (LATTICE, "rbf:neighbors=12"),
    (TENK, "rbf:neighbors=50"),
]


def read_points(data, f, layer, field):
    path = os.path.join(data, f)
    if layer is None:  # plain x y z text
        a = np.loadtxt(path)
        return a[:, :2].copy(), a[:, 2].copy()
    ds = ogr.Open(path)
    lyr = ds.GetLayerByName(layer)
    p, z = [], []
    for feat in lyr:
        g = feat.GetGeometryRef()
        p.append((g.GetX(), g.GetY()))
        z.append(feat.GetField(field))
    return np.array(p), np.array(z, dtype=float)


def scipy_kwargs(spec):
    kw = {}
    for kv in spec.split(":")[1:]:
        k, v = kv.split("=")
        kw[k] = v if k == "kernel" else int(v) if k in ("neighbors", "degree") else float(v)
    return kw


LD = np.longdouble
PHI = {
    "linear": lambda r: -r,
    "thin_plate_spline": lambda r: np.where(r == 0, LD(0), r * r * np.log(np.where(r == 0, 1, r))),
    "cubic": lambda r: r ** 3,
    "quintic": lambda r: -r ** 5,
    "multiquadric": lambda r: -np.sqrt(r * r + 1),
    "inverse_multiquadric": lambda r: 1 / np.sqrt(r * r + 1),
    "inverse_quadratic": lambda r: 1 / (r * r + 1),
    "gaussian": lambda r: np.exp(-r * r),
}
MIN_DEGREE = {"linear": 0, "thin_plate_spline": 1, "cubic": 1, "quintic": 2, "multiquadric": 0}


def monomials(U, d):
    u, v = U[:, 0], U[:, 1]
    t = [np.ones_like(u)] if d >= 0 else []
    if d >= 1:
        t += [u, v]
    if d >= 2:
        t += [u * u, u * v, v * v]
    if d >= 3:
        t += [u ** 3, u * u * v, u * v * v, v ** 3]
    return np.stack(t, 1) if t else np.zeros((len(U), 0), LD)


def ld_values(P, Z, Q, kw):
    """The interpolant of points P at nodes Q, in long double throughout."""
    kernel = kw.get("kernel", "thin_plate_spline")
    eps = LD(kw.get("epsilon", 1.0))
    deg = kw.get("degree", max(MIN_DEGREE.get(kernel, -1), 0))
    phi = PHI[kernel]
    lo, hi = P.min(0), P.max(0)
    shift, scale = (hi + lo) / 2, (hi - lo) / 2
    scale[scale == 0] = 1
    Pl = P.astype(LD)
    n = len(P)
    M = monomials((Pl - LD(1) * shift) / scale, deg)
    m = M.shape[1]
    A = np.zeros((n + m, n + m), LD)
    A[:n, :n] = phi(eps * np.sqrt(((Pl[:, None, :] - Pl[None, :, :]) ** 2).sum(2)))
    A[:n, :n] += np.eye(n, dtype=LD) * LD(kw.get("smoothing", 0.0))
    A[:n, n:], A[n:, :n] = M, M.T
    b = np.zeros(n + m, LD)
    b[:n] = Z
    N = n + m
    for c in range(N):  # LU with partial pivoting, in long double
        p = c + int(np.argmax(np.abs(A[c:, c])))
        A[[c, p]], b[[c, p]] = A[[p, c]], b[[p, c]]
        f = A[c + 1:, c] / A[c, c]
        A[c + 1:, c:] -= np.outer(f, A[c, c:])
        b[c + 1:] -= f * b[c]
    x = np.zeros(N, LD)
    for r in range(N - 1, -1, -1):
        x[r] = (b[r] - A[r, r + 1:] @ x[r + 1:]) / A[r, r]
    Ql = Q.astype(LD)
    K = phi(eps * np.sqrt(((Ql[:, None, :] - Pl[None, :, :]) ** 2).sum(2)))
    return K @ x[:n] + monomials((Ql - LD(1) * shift) / scale, deg) @ x[n:]


def long_double_check(P, Z, Q, kw, a, ref, scale, nodes):
    """Over nodes (gridkit and SciPy apart by more than TOL): the largest
    relative distances of gridkit's and of SciPy's values from the
    long-double ones."""
    k = kw.get("neighbors")
    if not k:
        ld = ld_values(P, Z, Q[nodes], kw)
    else:
        ld = []
        for q in nodes:
            d2 = ((P - Q[q]) ** 2).sum(1)
            sel = np.sort(np.lexsort((np.arange(len(P)), d2))[:k])
            ld.append(ld_values(P[sel], Z[sel], Q[q:q + 1], kw)[0])
        ld = np.array(ld)
    s = scale[nodes]
    return (float(np.max(np.abs(a[nodes] - ld) / s)), float(np.max(np.abs(ref[nodes] - ld) / s)))


def tie_nodes(P, Q, k):
    """Nodes whose k-th and (k+1)-th nearest points are equally far."""
    if k >= len(P):
        return np.zeros(len(Q), bool)
    d, _ = cKDTree(P).query(Q, k + 1)
    # cKDTree's distances are rounded; compare the exact squared distances
    ties = np.zeros(len(Q), bool)
    for q in range(len(Q)):
        d2 = ((P - Q[q]) ** 2).sum(1)
        s = np.sort(d2)
        ties[q] = s[k - 1] == s[k]
    return ties


CV_CASES = [("rbf:smoothing=0.1", None), ("rbf:kernel=cubic", None),
            ("rbf:neighbors=30", 5), ("rbf:kernel=gaussian:epsilon=0.004:neighbors=40", 5)]


def cross_validation(gk, data, work, P, Z):
    """Every prediction of gridkit cv on meuse against SciPy's; (passed, failed)."""
    npass = nfail = 0
    for spec, nfold in CV_CASES:
        out = os.path.join(work, "cv.gpkg")
        if os.path.exists(out):
            os.remove(out)
        cmd = [gk, "cv", "-q", "-zfield", "logzinc", "-a", spec, "-o", out]
        if nfold:
            cmd += ["--nfold", str(nfold)]
        r = subprocess.run(cmd + [os.path.join(data, "meuse.gpkg")], capture_output=True,
                           text=True)
        if r.returncode:
            print("FAIL cv %s: %s" % (spec, r.stderr.strip()[-300:]))
            nfail += 1
            continue
        ds = ogr.Open(out)
        rows = [(f.GetGeometryRef().GetX(), f.GetGeometryRef().GetY(), f.GetField("predicted"),
                 f.GetField("fold")) for f in ds.GetLayer(0)]
        ds = None
        xy = np.array([(x, y) for x, y, _, _ in rows])
        pred = np.array([p for _, _, p, _ in rows], dtype=float)
        fold = np.array([f for _, _, _, f in rows])
        # the output's points are the input's, in its order
        same = np.array_equal(xy, P)
        kw = scipy_kwargs(spec)
        ref = np.empty(len(P))
        for f in np.unique(fold):
            held = fold == f
            ref[held] = RBFInterpolator(P[~held], Z[~held], **kw)(P[held])
        skip = np.zeros(len(P), bool)
        if "neighbors" in kw:
            for f in np.unique(fold):
                held = np.flatnonzero(fold == f)
                skip[held] = tie_nodes(P[fold != f], P[held], kw["neighbors"])
        scale = np.maximum(np.abs(ref), np.abs(Z).max())
        worst = np.max(np.where(skip, 0, np.abs(pred - ref) / scale))
        ok = same and worst <= TOL
        print("%s cv %s (%s, %d points, %d left out for ties): worst %.2e relative"
              % ("ok  " if ok else "FAIL", spec,
                 "%d folds" % nfold if nfold else "leave-one-out", len(P), skip.sum(), worst))
        npass += ok
        nfail += not ok
    return npass, nfail


def main():
    gk, data, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    npass = nfail = 0
    cache = {}
    for (f, layer, field, grid), spec in CASES:
        key = (f, layer, field)
        if key not in cache:
            cache[key] = read_points(data, f, layer, field)
        P, Z = cache[key]
        out = os.path.join(work, "rbf.tif")
        if os.path.exists(out):
            os.remove(out)
        cmd = [gk, "grid", "-q"]
        if layer is not None:
            cmd += ["-l", layer, "-zfield", field]
        cmd += grid + ["-ot", "Float64", "-a", spec + ":nodata=nan", os.path.join(data, f), out]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            print("FAIL %s on %s: gridkit failed: %s" % (spec, f, r.stderr.strip()[-300:]))
            nfail += 1
            continue
        ds = gdal.Open(out)
        a = ds.GetRasterBand(1).ReadAsArray().ravel()
        gt = ds.GetGeoTransform()
        nx, ny = ds.RasterXSize, ds.RasterYSize
        ds = None
        xs = gt[0] + (np.arange(nx) + 0.5) * gt[1]
        ys = gt[3] + (np.arange(ny) + 0.5) * gt[5]
        X, Y = np.meshgrid(xs, ys)
        Q = np.c_[X.ravel(), Y.ravel()]
        kw = scipy_kwargs(spec)
        ref = RBFInterpolator(P, Z, **kw)(Q)
        skip = tie_nodes(P, Q, kw["neighbors"]) if "neighbors" in kw else np.zeros(len(Q), bool)
        scale = np.maximum(np.abs(ref), np.abs(Z).max())
        rel = np.where(skip, 0.0, np.abs(a - ref) / scale)
        finite = np.isfinite(a[~skip]).all()
        worst = np.nanmax(rel) if finite else np.inf
        apart = np.flatnonzero(rel > TOL) if finite else []
        ok, note = finite, ""
        if finite and len(apart):
            e_gk, e_sp = long_double_check(P, Z, Q, kw, a, ref, scale, apart)
            ok = e_gk <= max(TOL, e_sp)
            note = ("; %d nodes apart by more than %g, where the long-double solution is "
                    "%.2e from gridkit's and %.2e from SciPy's" % (len(apart), TOL, e_gk, e_sp))
        print("%s %s on %s (%d points, %d nodes, %d left out for ties): worst %.2e relative%s"
              % ("ok  " if ok else "FAIL", spec, f, len(P), len(Q), skip.sum(), worst, note))
        npass += ok
        nfail += not ok
    p, f = cross_validation(gk, data, work, *cache[MEUSE[:3]])
    npass, nfail = npass + p, nfail + f
    print("%d passed, %d failed" % (npass, nfail))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
