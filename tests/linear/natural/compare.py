#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-a natural against CGAL 5.5 and against Voronoi cells in exact arithmetic.

usage: compare.py GRIDKIT NATURAL_CGAL WORK_DIR

For each data set (random, clustered, a lattice whose nodes fall on points, on Delaunay
edges and on cocircular quadruples, coordinates far from the origin, coincident points):
  - type=sibson, every node: CGAL's natural_neighbor_coordinates_2 (tests/linear/natural/
    natural_cgal.cpp), equal to 1e-9 relative where CGAL answers; nodata where CGAL says
    the node is outside the hull.
  - type=sibson and type=laplace, a sample of nodes strictly inside the hull: the node's
    Voronoi cell found by clipping with every bisector in rational arithmetic (Python's
    Fraction), a method of its own (no Delaunay triangulation, no cavity): Sibson's weight
    of p is the exact area of the cell's part in p's old cell, Laplace's the length of the
    edge p's bisector makes over |q - p|. Equal to 1e-9 relative.
  - type=sibson_c1, every node: CGAL's sibson_gradient_fitting_nn_2 and
    sibson_c1_interpolation (natural_cgal --c1), equal to 1e-9 relative where CGAL answers;
    where CGAL has no C1 value (a natural neighbour on the hull, which has no gradient),
    Sibson's value, as CGAL's coordinates give it.
  - `gridkit cv` leave-one-out (random and lattice data): each point's prediction equal to
    CGAL's from the other points (natural_cgal --loo) to 1e-9 relative, no prediction where
    CGAL finds the point outside the others' hull; 5-fold: every prediction equal to the
    grid's value at that point from the other folds' points.
Ends with "N passed, M failed"; a failure prints "FAIL ".
"""
import math
import os
import subprocess
import sys
from fractions import Fraction as F

import numpy as np
from osgeo import gdal

gdal.UseExceptions()
REL = 1e-9


def surface(x, y):
    return 10.0 + np.sin(x / 170.0) * np.cos(y / 230.0) + 0.002 * x


def cases():
    r = np.random.default_rng(42)
    out = []
    x, y = r.uniform(0, 1000, 300), r.uniform(0, 1000, 300)
    out.append(("random", x, y, (0.0, 1000.0, 0.0, 1000.0, 61, 53)))
    c = r.uniform(100, 900, (6, 2))
    k = r.integers(0, 6, 400)
    x, y = c[k, 0] + r.normal(0, 30, 400), c[k, 1] + r.normal(0, 30, 400)
    out.append(("clustered", x, y, (0.0, 1000.0, 0.0, 1000.0, 64, 64)))
    gx, gy = np.meshgrid(np.arange(15) * 10.0, np.arange(12) * 10.0)
    # nodes every 5: on the points, on edge midpoints and at square centres
    out.append(("lattice", gx.ravel(), gy.ravel(), (-2.5, 142.5, -2.5, 112.5, 29, 23)))
    x, y = 500000 + r.uniform(0, 2000, 250), 4000000 + r.uniform(0, 2000, 250)
    out.append(("utm", x, y, (500000.0, 502000.0, 4000000.0, 4002000.0, 50, 50)))
    x, y = r.uniform(0, 100, 120), r.uniform(0, 100, 120)
    x = np.concatenate([x, x[:30]])
    y = np.concatenate([y, y[:30]])
    out.append(("coincident", x, y, (0.0, 100.0, 0.0, 100.0, 40, 40)))
    return out


def node_coords(g):
    x0, x1, y0, y1, nx, ny = g
    xs = [x0 + (i + 0.5) * ((x1 - x0) / nx) for i in range(nx)]  # gk_grid_node_x
    ys = [y1 + (j + 0.5) * ((y0 - y1) / ny) for j in range(ny)]
    return xs, ys


# ---- exact Voronoi cells ----------------------------------------------------------

def clip(vs, p, q):
    """Convex polygon vs cut to the side of the bisector of (p, q) nearer q (Sutherland-Hodgman)."""
    a, b = 2 * (p[0] - q[0]), 2 * (p[1] - q[1])
    c = p[0] * p[0] + p[1] * p[1] - q[0] * q[0] - q[1] * q[1]
    side = [a * v[0] + b * v[1] - c for v in vs]  # <= 0: kept
    if all(t <= 0 for t in side):
        return vs
    out = []
    for i in range(len(vs)):
        j = (i + 1) % len(vs)
        si, sj = side[i], side[j]
        if si <= 0:
            out.append(vs[i])
        if (si < 0 < sj) or (sj < 0 < si):
            t = si / (si - sj)
            out.append((vs[i][0] + t * (vs[j][0] - vs[i][0]), vs[i][1] + t * (vs[j][1] - vs[i][1])))
    return out


def cell(q, pts, box):
    """Voronoi cell of q among pts (exact), bisectors nearest first: (vertices, labels), the
    label of edge k (vertex k to k + 1) being the index of the point whose bisector it lies
    on (None: the box)."""
    x0, x1, y0, y1 = box
    vs = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    used = []
    order = sorted(range(len(pts)), key=lambda i: (pts[i][0] - q[0]) ** 2 + (pts[i][1] - q[1]) ** 2)
    for i in order:
        p = pts[i]
        d2 = (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2
        r2 = max((v[0] - q[0]) ** 2 + (v[1] - q[1]) ** 2 for v in vs)
        if d2 > 4 * r2:
            break  # its bisector lies beyond every vertex
        vs = clip(vs, p, q)
        used.append(i)
    labels = []
    for k in range(len(vs)):
        u, w = vs[k], vs[(k + 1) % len(vs)]
        lab = None
        for i in used:
            p = pts[i]
            a, b = 2 * (p[0] - q[0]), 2 * (p[1] - q[1])
            c = p[0] * p[0] + p[1] * p[1] - q[0] * q[0] - q[1] * q[1]
            if a * u[0] + b * u[1] == c and a * w[0] + b * w[1] == c:
                lab = i
                break
        labels.append(lab)
    return vs, labels


def area(vs):
    a = F(0)
    for k in range(len(vs)):
        u, w = vs[k], vs[(k + 1) % len(vs)]
        a += u[0] * w[1] - u[1] * w[0]
    return abs(a) / 2


def strictly_inside_hull(q, hull):
    for k in range(len(hull)):
        s, e = hull[k], hull[(k + 1) % len(hull)]
        if (e[0] - s[0]) * (q[1] - s[1]) - (e[1] - s[1]) * (q[0] - s[0]) <= 0:
            return False
    return True


def convex_hull(pts):
    P = sorted(set(pts))

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    lo, hi = [], []
    for p in P:
        while len(lo) >= 2 and cross(lo[-2], lo[-1], p) <= 0:
            lo.pop()
        lo.append(p)
    for p in reversed(P):
        while len(hi) >= 2 and cross(hi[-2], hi[-1], p) <= 0:
            hi.pop()
        hi.append(p)
    return lo[:-1] + hi[:-1]


def exact_values(q, pts, z, box):
    """(sibson, laplace) at q, strictly inside the hull of pts (distinct)."""
    vs, ls = cell(q, pts, box)
    lap_w, sib_w = {}, {}
    for k, lab in enumerate(ls):
        if lab is None:
            raise RuntimeError("the cell reaches the box: q not inside the hull")
        u, w = vs[k], vs[(k + 1) % len(vs)]
        l2 = (w[0] - u[0]) ** 2 + (w[1] - u[1]) ** 2
        if l2 == 0:
            continue
        p = pts[lab]
        d = math.sqrt(float((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2))
        lap_w[lab] = math.sqrt(float(l2)) / d
        # Sibson: the cell's part nearer p than any other point
        poly = vs
        order = sorted(range(len(pts)), key=lambda i: (pts[i][0] - p[0]) ** 2 + (pts[i][1] - p[1]) ** 2)
        for i in order:
            if i == lab:
                continue
            o = pts[i]
            d2 = (o[0] - p[0]) ** 2 + (o[1] - p[1]) ** 2
            r2 = max((v[0] - p[0]) ** 2 + (v[1] - p[1]) ** 2 for v in poly)
            if d2 > 4 * r2:
                break
            poly = clip(poly, o, p)
            if len(poly) < 3:
                break
        sib_w[lab] = area(poly) if len(poly) >= 3 else F(0)
    ssum = sum(sib_w.values())
    sib = float(sum(w * F(z[i]) for i, w in sib_w.items()) / ssum)
    lsum = sum(lap_w.values())
    lap = sum(w * z[i] for i, w in lap_w.items()) / lsum
    return sib, lap


# ---- the runs ----------------------------------------------------------------------

def run_gridkit(gk, work, name, xyz, g, typ):
    x0, x1, y0, y1, nx, ny = g
    out = os.path.join(work, "%s_%s.tif" % (name, typ))
    r = subprocess.run([gk, "grid", "-q", "-ot", "Float64", "-txe", repr(x0), repr(x1), "-tye",
                        repr(y0), repr(y1), "-outsize", str(nx), str(ny),
                        "-a", "natural:type=%s:nodata=nan" % typ, xyz, out],
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("gridkit failed: " + r.stderr.strip()[-400:])
    ds = gdal.Open(out)
    a = ds.GetRasterBand(1).ReadAsArray().astype(np.float64)
    ds = None
    return a


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    gk, oracle, work = argv[1:]
    os.makedirs(work, exist_ok=True)
    npass = nfail = 0

    def check(ok, what):
        nonlocal npass, nfail
        if ok:
            npass += 1
        else:
            nfail += 1
            print("FAIL " + what)

    for name, x, y, g in cases():
        z = surface(x, y)
        if name == "coincident":
            z[120:] += 5.0  # the repeats differ: the first in input order counts
        xyz = os.path.join(work, name + ".xyz")
        with open(xyz, "w") as f:
            for a, b, c in zip(x, y, z):
                f.write("%.17g %.17g %.17g\n" % (a, b, c))
        xs, ys = node_coords(g)
        qf = os.path.join(work, name + "_nodes.txt")
        with open(qf, "w") as f:
            for yy in ys:
                for xx in xs:
                    f.write("%.17g %.17g\n" % (xx, yy))
        r = subprocess.run([oracle, xyz, qf], capture_output=True, text=True)
        if r.returncode:
            check(False, "%s: natural_cgal failed: %s" % (name, r.stderr.strip()))
            continue
        ref = r.stdout.split()
        sib = run_gridkit(gk, work, name, xyz, g, "sibson").ravel()
        lap = run_gridkit(gk, work, name, xyz, g, "laplace").ravel()
        outside = np.array([s == "outside" for s in ref])
        cg = np.array([float("nan") if s == "outside" else float(s) for s in ref])
        inside = ~outside
        err = np.abs(sib[inside] - cg[inside]) / np.abs(cg[inside])
        worst = int(np.argmax(err)) if err.size else 0
        check(err.size > 0 and np.all(err <= REL),
              "%s: sibson against CGAL, %d nodes, worst relative %.3g (%.17g vs %.17g)"
              % (name, err.size, err.max() if err.size else -1, sib[inside][worst], cg[inside][worst]))
        check(bool(np.all(np.isnan(sib[outside])) and np.all(np.isnan(lap[outside]))),
              "%s: %d nodes outside the hull by CGAL, not nodata in gridkit's" % (name, outside.sum()))
        check(bool(np.all(np.isfinite(sib[inside])) and np.all(np.isfinite(lap[inside]))),
              "%s: a node inside the hull without a value" % name)
        print("%s: sibson, %d nodes inside the hull: worst relative difference from CGAL %.3g; "
              "%d outside" % (name, inside.sum(), err.max(), outside.sum()))

        c1_checks(gk, oracle, work, name, xyz, qf, g, check)

        # exact Voronoi cells on a sample of the nodes strictly inside the hull
        seen, P, Z = set(), [], []
        for a, b, c in zip(x, y, z):
            if (a, b) not in seen:
                seen.add((a, b))
                P.append((F(a), F(b)))
                Z.append(float(c))
        hull = convex_hull(P)
        W = 1e6 * max(g[1] - g[0], g[3] - g[2])  # far beyond any cell of a node inside the hull
        box = (F(g[0] - W), F(g[1] + W), F(g[2] - W), F(g[3] + W))
        nodes = [(i, j) for j in range(len(ys)) for i in range(len(xs))]
        step = max(1, len(nodes) // 120)
        worst_s = worst_l = 0.0
        count = 0
        for (i, j) in nodes[::step]:
            q = (F(xs[i]), F(ys[j]))
            if not strictly_inside_hull(q, hull) or q in seen_frac(P):
                continue
            es, el = exact_values(q, P, Z, box)
            k = j * len(xs) + i
            worst_s = max(worst_s, abs(sib[k] - es) / abs(es))
            worst_l = max(worst_l, abs(lap[k] - el) / abs(el))
            count += 1
        check(count > 0 and worst_s <= REL,
              "%s: sibson against exact cells, %d nodes, worst relative %.3g" % (name, count, worst_s))
        check(count > 0 and worst_l <= REL,
              "%s: laplace against exact cells, %d nodes, worst relative %.3g" % (name, count, worst_l))
        print("%s: exact Voronoi cells at %d nodes: sibson worst %.3g, laplace worst %.3g"
              % (name, count, worst_s, worst_l))
        if name in ("random", "lattice"):
            cv_checks(gk, oracle, work, name, xyz, x, y, z, check)
    print("%d passed, %d failed" % (npass, nfail))
    return 1 if nfail else 0


def c1_checks(gk, oracle, work, name, xyz, qf, g, check):
    r = subprocess.run([oracle, "--c1", xyz, qf], capture_output=True, text=True)
    if r.returncode:
        check(False, "%s: natural_cgal --c1 failed: %s" % (name, r.stderr.strip()))
        return
    lines = r.stdout.splitlines()
    c1 = run_gridkit(gk, work, name, xyz, g, "sibson_c1").ravel()
    outside = np.array([s == "outside" for s in lines])
    c0 = np.array([s.startswith("sibson ") for s in lines])
    ref = np.array([float("nan") if s == "outside" else float(s.split()[-1]) for s in lines])
    both = ~outside
    err = np.abs(c1[both] - ref[both]) / np.maximum(np.abs(ref[both]), 1e-300)
    worst = float(err.max()) if err.size else -1.0
    check(len(lines) == c1.size and err.size > 0 and bool(np.all(err <= REL)),
          "%s: sibson_c1 against CGAL, %d nodes (%d of them Sibson's: a hull neighbour), "
          "worst relative %.3g" % (name, both.sum(), c0.sum(), worst))
    check(bool(np.all(np.isnan(c1[outside]))),
          "%s: sibson_c1 not nodata outside the hull" % name)
    print("%s: sibson_c1, %d nodes inside the hull (%d with C1 values, %d Sibson's by a hull "
          "neighbour): worst relative difference from CGAL %.3g"
          % (name, both.sum(), both.sum() - c0.sum(), c0.sum(), worst))


def read_cv(path):
    rows = []
    with open(path) as f:
        next(f)
        for line in f:
            c = line.strip().split(",")
            rows.append((float(c[0]), float(c[1]), float(c[3]) if c[3] else float("nan"),
                         int(c[7].strip('"'))))
    return rows


def cv_checks(gk, oracle, work, name, xyz, x, y, z, check):
    out = os.path.join(work, name + "_loo.csv")
    r = subprocess.run([gk, "cv", "-q", "-a", "natural", xyz, "-o", out], capture_output=True, text=True)
    if r.returncode:
        check(False, "%s: gridkit cv failed: %s" % (name, r.stderr.strip()[-300:]))
        return
    got = read_cv(out)
    r = subprocess.run([oracle, "--loo", xyz], capture_output=True, text=True)
    ref = r.stdout.split()
    bad = 0
    worst = 0.0
    for (gx, gy, pred, _), rv in zip(got, ref):
        if rv == "outside":
            bad += not math.isnan(pred)
        elif math.isnan(pred):
            bad += 1
        else:
            worst = max(worst, abs(pred - float(rv)) / abs(float(rv)))
    check(len(got) == len(ref) == len(x) and bad == 0 and worst <= REL,
          "%s: cv leave-one-out against CGAL: %d of %d points differ in having a prediction, "
          "worst relative %.3g" % (name, bad, len(got), worst))
    print("%s: cv leave-one-out, %d points: %d without a prediction as CGAL, worst relative "
          "difference %.3g" % (name, len(got), sum(1 for v in ref if v == "outside"), worst))
    # 5-fold: each fold's predictions are the grid of the other folds' points at those points
    out = os.path.join(work, name + "_k5.csv")
    r = subprocess.run([gk, "cv", "-q", "-a", "natural", "--nfold", "5", xyz, "-o", out],
                       capture_output=True, text=True)
    if r.returncode:
        check(False, "%s: gridkit cv --nfold 5 failed: %s" % (name, r.stderr.strip()[-300:]))
        return
    got = read_cv(out)
    worst, bad = 0.0, 0
    for f in sorted(set(g[3] for g in got)):
        train = os.path.join(work, "%s_train%d.xyz" % (name, f))
        queries = os.path.join(work, "%s_fold%d.txt" % (name, f))
        with open(train, "w") as t:
            for (gx, gy, _, fold), c in zip(got, z):
                if fold != f:
                    t.write("%.17g %.17g %.17g\n" % (gx, gy, c))
        mine = [g for g in got if g[3] == f]
        with open(queries, "w") as q:
            for g in mine:
                q.write("%.17g %.17g\n" % (g[0], g[1]))
        ref = subprocess.run([oracle, train, queries], capture_output=True, text=True).stdout.split()
        for g, rv in zip(mine, ref):
            if rv == "outside":
                bad += not math.isnan(g[2])
            elif math.isnan(g[2]):
                bad += 1
            else:
                worst = max(worst, abs(g[2] - float(rv)) / abs(float(rv)))
    check(bad == 0 and worst <= REL,
          "%s: cv 5-fold against CGAL on the other folds: %d differ in having a prediction, "
          "worst relative %.3g" % (name, bad, worst))
    print("%s: cv 5-fold: worst relative difference from CGAL %.3g" % (name, worst))


_seen_cache = {}


def seen_frac(P):
    key = id(P)
    if key not in _seen_cache:
        _seen_cache[key] = set(P)
    return _seen_cache[key]


if __name__ == "__main__":
    sys.exit(main(sys.argv))
