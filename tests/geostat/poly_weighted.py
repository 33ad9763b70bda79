#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-a polynomial's weighted forms against numpy's least squares (LAPACK's gelsd).

usage: poly_weighted.py GRIDKIT DATA_DIR WORK_DIR

For every node of the meuse grid: the neighbourhood (the max_points nearest by
(distance, input order), or every point within the radius, inclusive), the
weights (weight=power: (1 - d/radius)^power; weight=gauss: exp(-d^2 / 2 h^2)),
the points of zero weight left out, and the weighted least-squares fit of the
degree's terms, solved by numpy; its value at the node against gridkit's, to
1e-9 relative to the larger of the value and the data's largest |z|. Where
the weighted system is ill-conditioned (condition number 1e5 or more: a
cubic extrapolated far from its points) numpy's own rounding nears that
tolerance, so there the reference is the exact solution of the same system
in rational arithmetic.

Then the count of nodes fitted at a lower degree (fewer points within the
radius than the degree's terms, or points on a line): the band's metadata
item GRIDKIT_LOWERED_NODES, the same in one raster and in --parts' mosaic,
against numpy's ranks of each node's terms.
Ends with "N passed, M failed".
"""
import os
import subprocess
import sys

from fractions import Fraction

import numpy as np
from osgeo import gdal, ogr

gdal.UseExceptions()
GRID = ["-txe", "178440", "181560", "-tye", "329600", "333760", "-outsize", "39", "52"]


def terms(u, v, d):
    t = [np.ones_like(u)]
    if d >= 1:
        t += [u, v]
    if d >= 2:
        t += [u * u, u * v, v * v]
    if d >= 3:
        t += [u ** 3, u * u * v, u * v * v, v ** 3]
    return np.stack(t, 1)


def exact_ls_weighted(T, w, z):
    """min sum w (z - T b)^2, exactly: (T' W T) b = T' W z in fractions."""
    Tf = [[Fraction(x) for x in row] for row in T]
    wf = [Fraction(x) for x in w]
    zf = [Fraction(x) for x in z]
    n, m = T.shape[1], T.shape[0]
    M = [[sum(wf[r] * Tf[r][i] * Tf[r][j] for r in range(m)) for j in range(n)] for i in range(n)]
    y = [sum(wf[r] * Tf[r][i] * zf[r] for r in range(m)) for i in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            f = M[j][i] / M[i][i]
            for c in range(i, n):
                M[j][c] -= f * M[i][c]
            y[j] -= f * y[i]
    x = [Fraction(0)] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - sum(M[i][c] * x[c] for c in range(i + 1, n))) / M[i][i]
    return float(x[0])


def reference(P, nx, ny, d, k, radius, weight, power, h):
    d2 = (P[:, 0] - nx) ** 2 + (P[:, 1] - ny) ** 2
    if k:
        sel = np.lexsort((np.arange(len(P)), d2))[:k]
        if radius:
            sel = sel[d2[sel] <= radius * radius]
    else:
        sel = np.flatnonzero(d2 <= radius * radius)
    dist = np.sqrt(d2[sel])
    if weight == "power":
        w = np.where(dist < radius, np.clip(1 - dist / radius, 0, None) ** power, 0.0)
    else:
        w = np.exp(-0.5 * d2[sel] / (h * h))
    sel, w = sel[w > 0], w[w > 0]
    if len(sel) == 0:
        return np.nan
    # rows exact in binary (node-relative coordinates, the weights as doubles)
    u, v = P[sel, 0] - nx, P[sel, 1] - ny
    sw = np.sqrt(w)
    for dd in range(d, -1, -1):
        A = terms(u / 1000.0, v / 1000.0, dd) * sw[:, None]
        if np.linalg.matrix_rank(A) == A.shape[1]:
            if np.linalg.cond(A) < 1e5:
                return np.linalg.lstsq(A, P[sel, 2] * sw, rcond=None)[0][0]
            # exact: the unscaled terms and w itself (no square roots)
            return exact_ls_weighted(terms(u, v, dd), w, P[sel, 2])
    return np.nan


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    gk, data, work = argv[1:]
    os.makedirs(work, exist_ok=True)
    src = ogr.Open(os.path.join(data, "meuse.gpkg"))  # kept: its layer lives in it
    lyr = src.GetLayerByName("meuse")
    P = np.array([(f.GetGeometryRef().GetX(), f.GetGeometryRef().GetY(), f.GetField("logzinc"))
                  for f in lyr])
    zmax = np.abs(P[:, 2]).max()
    cases = [  # spec, degree, max_points, radius, weight, power, bandwidth
        ("degree=1:radius=600:weight=power:power=2", 1, 0, 600, "power", 2, 0),
        ("degree=2:radius=900:weight=power:power=1", 2, 0, 900, "power", 1, 0),
        ("degree=2:max_points=30:weight=gauss:bandwidth=250", 2, 30, 0, "gauss", 0, 250),
        ("degree=3:max_points=60:radius=1200:weight=gauss:bandwidth=400", 3, 60, 1200, "gauss", 0, 400),
    ]
    npass = nfail = 0
    for spec, d, k, radius, weight, power, h in cases:
        out = os.path.join(work, "poly_%d.tif" % (npass + nfail))
        r = subprocess.run([gk, "grid", "-q", "-l", "meuse", "-zfield", "logzinc"] + GRID +
                           ["-a", "polynomial:" + spec + ":nodata=nan",
                            os.path.join(data, "meuse.gpkg"), out],
                           capture_output=True, text=True)
        if r.returncode:
            print("FAIL %s: gridkit failed: %s" % (spec, r.stderr.strip()[-300:]))
            nfail += 1
            continue
        ds = gdal.Open(out)
        a = ds.GetRasterBand(1).ReadAsArray().astype(np.float64)
        gt = ds.GetGeoTransform()
        worst, bad, nodata = 0.0, [], 0
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                nx, ny = gt[0] + (j + 0.5) * gt[1], gt[3] + (i + 0.5) * gt[5]
                ref = reference(P, nx, ny, d, k, radius, weight, power, h)
                got = a[i, j]
                if np.isnan(ref) or np.isnan(got):
                    nodata += 1
                    if np.isnan(ref) != np.isnan(got):
                        bad.append("(%g, %g): %r vs numpy %r" % (nx, ny, got, ref))
                    continue
                e = abs(got - ref) / max(abs(ref), zmax)
                worst = max(worst, e)
                if e > 1e-9:
                    bad.append("(%g, %g): %.15g vs numpy %.15g" % (nx, ny, got, ref))
        if bad:
            print("FAIL %s: %d nodes differ, first %s" % (spec, len(bad), bad[0]))
            nfail += 1
        else:
            print("PASS %s: %d nodes (%d nodata in both), worst rel %.2g" % (spec, a.size, nodata, worst))
            npass += 1
    # nodes fitted at a lower degree: counted on the band
    counts = []
    for name, extra in (("one.tif", []), ("mosaic.vrt", ["--parts", os.path.join(work, "parts")])):
        out = os.path.join(work, name)
        r = subprocess.run([gk, "grid", "-q", "-l", "meuse", "-zfield", "logzinc"] + GRID + extra +
                           ["-a", "polynomial:degree=2:radius=300", os.path.join(data, "meuse.gpkg"),
                            out], capture_output=True, text=True)
        md = None
        if not r.returncode:
            ds = gdal.Open(out)  # kept while its band is read
            md = ds.GetRasterBand(1).GetMetadataItem("GRIDKIT_LOWERED_NODES")
            ds = None
        counts.append(md)
    want = 0
    for i in range(52):
        for j in range(39):
            nx, ny = 178440 + (j + 0.5) * 80, 333760 - (i + 0.5) * 80
            sel = np.flatnonzero((P[:, 0] - nx) ** 2 + (P[:, 1] - ny) ** 2 <= 300.0 ** 2)
            if len(sel):
                A = terms((P[sel, 0] - nx) / 300, (P[sel, 1] - ny) / 300, 2)
                want += int(np.linalg.matrix_rank(A) < 6)
    if counts[0] == str(want) and counts[1] == counts[0]:
        print("PASS lowered degree: GRIDKIT_LOWERED_NODES=%s in the raster and the mosaic" % counts[0])
        npass += 1
    else:
        print("FAIL lowered degree: metadata %r (raster) and %r (mosaic), numpy's ranks say %d"
              % (counts[0], counts[1], want))
        nfail += 1
    print("%d passed, %d failed" % (npass, nfail))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
