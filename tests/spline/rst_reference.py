#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""An independent numpy implementation of v.surf.rst (GRASS 8.2.1), written
from docs/dev/v_surf_rst.md (not from GRASS's code), which reproduces
v.surf.rst's Float32 rasters bit for bit (docs/dev/v_surf_rst.md, section 13).
Not a test yet: the reference for `-a rst` (issue 43) while it is written; its
checks against gridkit will run v.surf.rst itself.

Usage (run with /usr/bin/python3, which has numpy + GDAL):
  rst_reference.py GPKG LAYER ZFIELD W E S N COLS ROWS [--tension 40] [--smooth 0.1]
               [--npmin 300] [--dmin D] [--zscale 1] [--tflag] [--compare GRASS.tif]
               [--deriv-compare slope.tif,aspect.tif,pcurv.tif,tcurv.tif,mcurv.tif] [--dflag]
               [--smooth-column COL] [--theta DEG --scalex S] [--cv cvdev.csv] [--devi devi.csv]
               [--segmax N [--verbose]]   (full quadtree segmentation instead of one segment)
  ZFIELD "-" = use the geometry's z.  --cells "r,c;r,c" prints those cells.
"""
import argparse
import math
import sys

import numpy as np

EULER = 0.57721566  # as written in GRASS (truncated)

# series for x < 1: sum_{k=1..10} u[k-1] x^k ; u_k = (-1)^(k+1) / (k * k!)
U = [1.0, -0.25, 0.055555555555556, -0.010416666666667,
     0.166666666666667e-02, -2.31481481481482e-04,
     2.83446712018141e-05, -3.10019841269841e-06,
     3.06192435822065e-07, -2.75573192239859e-08]
# rational approximation of x*e^x*E1(x) for x >= 1 (Abramowitz & Stegun 5.1.56)
CA = [8.5733287401, 18.0590169730, 8.6347608925, 0.2677737343]
CB = [9.5733223454, 25.6329561486, 21.0996530827, 3.9584969228]


def crst(r2, fi):
    """RST radial basis value; r2 = SQUARED normalized distance. Vectorised."""
    x = fi * fi * r2 / 4.0
    out = np.empty_like(x)
    small = x < 1.0
    xs = x[small]
    p = U[9]
    for k in range(8, -1, -1):
        p = U[k] + xs * p
    out[small] = xs * p
    big = ~small
    xb = x[big]
    e1 = np.zeros_like(xb)
    mid = xb <= 25.0
    xm = xb[mid]
    ea = CA[3] + xm * (CA[2] + xm * (CA[1] + xm * (CA[0] + xm)))
    eb = CB[3] + xm * (CB[2] + xm * (CB[1] + xm * (CB[0] + xm)))
    e1[mid] = (ea / eb) / (xm * np.exp(xm))
    out[big] = e1 + EULER + np.log(xb)
    return out


def crstg(r2, fi):
    """Derivative helpers g1, g2 (see spec section 1.2). r2 = squared distance."""
    x = fi * fi * r2 / 4.0
    fsta2 = fi * fi / 2.0
    g1 = np.empty_like(x)
    g2 = np.empty_like(x)
    a = x < 0.001
    xa = x[a]
    g1[a] = 1.0 - xa / 2.0 + xa * xa / 6.0 - xa * xa * xa / 24.0
    g2[a] = fsta2 * (-0.5 + xa / 3.0 - xa * xa / 8.0 + xa * xa * xa / 30.0)
    b = (~a) & (x < 35.0)
    xb = x[b]
    rb = r2[b]
    exm = np.exp(-xb)
    oneme = 1.0 - exm
    g1[b] = oneme / xb
    hold = xb * exm - oneme
    g2[b] = (hold + hold) / (rb * xb)
    c = ~(a | b)
    g1[c] = 1.0 / x[c]
    g2[c] = -2.0 / (x[c] * r2[c])
    return g1, g2


SMCOL = None


def read_points(path, layer, zfield):
    from osgeo import ogr
    ds = ogr.Open(path)
    lyr = ds.GetLayerByName(layer)
    pts = []
    for f in lyr:
        g = f.GetGeometryRef()
        z = g.GetZ() if zfield is None else f.GetField(zfield)
        sm = float(f.GetField(SMCOL)) if SMCOL else 0.0
        pts.append((g.GetX(), g.GetY(), float(z), sm))
    return np.array(pts, dtype=float)


# ---------------------------------------------------------------------------
# Optional: full quadtree segmentation (beyond the single-segment case)
# ---------------------------------------------------------------------------
NW, NE, SW, SE = 1, 2, 3, 4
VERBOSE = False
CV_OUT = None


class Node:
    def __init__(self, x0, y0, x1, y1, rows, cols):
        self.x0, self.y0, self.x1, self.y1 = x0, y0, x1, y1
        self.rows, self.cols = rows, cols
        self.pts = []          # list of [x, y, z]; None once divided
        self.leafs = None      # [NW, NE, SW, SE]


def q_compare(p, nd):
    ew = (nd.x1 - nd.x0) / nd.cols
    ns = (nd.y1 - nd.y0) / nd.rows
    rows = nd.rows // 2 if nd.rows % 2 == 0 else nd.rows // 2 + 1
    cols = nd.cols // 2 if nd.cols % 2 == 0 else nd.cols // 2 + 1
    c1 = p[0] >= nd.x0
    c2 = p[0] >= nd.x0 + ew * cols
    c3 = p[1] >= nd.y0
    c4 = p[1] >= nd.y0 + ns * rows
    if c1 and c3:
        if c2 and c4:
            return NE
        if c2:
            return SE
        if c4:
            return NW
        return SW
    return 0


def q_add(p, nd, dmin2):
    for q in nd.pts:
        dx = q[0] - p[0]
        dy = q[1] - p[1]
        if dx * dx + dy * dy <= dmin2:
            return 0
    nd.pts.append(list(p))
    return 1


def q_divide(nd, dmin2):
    ew = (nd.x1 - nd.x0) / nd.cols
    ns = (nd.y1 - nd.y0) / nd.rows
    if nd.cols <= 1 or nd.rows <= 1:
        raise SystemExit("Points are too concentrated -- please increase DMIN")
    if nd.cols % 2 == 0:
        cols1 = cols2 = nd.cols // 2
    else:
        cols2 = nd.cols // 2
        cols1 = cols2 + 1
    if nd.rows % 2 == 0:
        rows1 = rows2 = nd.rows // 2
    else:
        rows2 = nd.rows // 2
        rows1 = rows2 + 1
    xm = nd.x0 + cols1 * ew
    ym = nd.y0 + rows1 * ns
    d = {NE: Node(xm, ym, nd.x1, nd.y1, rows2, cols2),
         SW: Node(nd.x0, nd.y0, xm, ym, rows1, cols1),
         SE: Node(xm, nd.y0, nd.x1, ym, rows1, cols2),
         NW: Node(nd.x0, ym, xm, nd.y1, rows2, cols1)}
    for p in nd.pts:
        c = q_compare(p, nd)
        if c:
            q_add(p, d[c], dmin2)
    nd.pts = None
    nd.leafs = [d[NW], d[NE], d[SW], d[SE]]


def q_insert(p, nd, kmax, dmin2):
    if nd.pts is None:
        c = q_compare(p, nd)
        if c < 1:
            return -3
        return q_insert(p, nd.leafs[c - 1], kmax, dmin2)
    if len(nd.pts) < kmax:
        return q_add(p, nd, dmin2)
    q_divide(nd, dmin2)
    return q_insert(p, nd, kmax, dmin2)


def q_leaves(nd, out):
    if nd.leafs is None:
        out.append(nd)
    else:
        for c in nd.leafs:
            q_leaves(c, out)
    return out


def q_translate(nd, dx, dy, dz):
    nd.x0 -= dx; nd.x1 -= dx; nd.y0 -= dy; nd.y1 -= dy
    if nd.leafs is None:
        for p in nd.pts:
            p[0] -= dx; p[1] -= dy; p[2] -= dz
    else:
        for c in nd.leafs:
            q_translate(c, dx, dy, dz)


def q_intersect(w, nd):
    # w = (x0, y0, x1, y1)
    xmin, ymin, xmax, ymax = w
    return (((nd.x0 >= xmin) and (nd.x0 <= xmax) and
             (((nd.y0 >= ymin) and (nd.y0 <= ymax)) or ((ymin >= nd.y0) and (ymin <= nd.y1))))
            or ((xmin >= nd.x0) and (xmin <= nd.x1) and
                (((ymin >= nd.y0) and (ymin <= nd.y1)) or ((nd.y0 >= ymin) and (nd.y0 <= ymax)))))


def q_get_points(w, nd, MAX, out):
    xmin, ymin, xmax, ymax = w
    l = 0
    for p in nd.pts:
        if l >= MAX:
            return MAX + 1
        if xmin < p[0] < xmax and ymin < p[1] < ymax:
            out.append(p)
            l += 1
    return l


def q_region_data(nd, w, MAX, out):
    if q_intersect(w, nd):
        if nd.leafs is not None:
            n = 0
            for c in nd.leafs:
                n = n + q_region_data(c, w, MAX - n, out)
                if n > MAX:
                    return n
            return n
        return q_get_points(w, nd, MAX, out)
    return 0


def run_segmented(P, W, E, S, N, cols, rows, fi_in, rsm, npmin, segmax, dmin, zscale, tflag):
    ew = (E - W) / cols
    ns = (N - S) / rows
    if dmin is None:
        dmin = float("%f" % (min(ew, ns) / 2.0))
    dmin2 = dmin * dmin
    KMAX2 = 2 * npmin
    root = Node(W, S, E, N, rows, cols)
    k = 0; dropped = 0; out = 0
    ext = None
    for (x, y, z) in P:
        k += 1
        z = z * zscale
        if not ((x - W >= 0) and (E - x >= 0) and (y - S >= 0) and (N - y >= 0)):
            out += 1
            continue
        a = q_insert((x, y, z), root, segmax, dmin2)
        if a == 0:
            dropped += 1
        if ext is None:
            ext = [x, x, y, y, z, z]
        ext = [min(ext[0], x), max(ext[1], x), min(ext[2], y), max(ext[3], y),
               min(ext[4], z), max(ext[5], z)]
    xmin, xmax, ymin, ymax, zmin, zmax = ext
    npoint = k - dropped - out
    kmin = npmin if npoint >= npmin else npoint
    q_translate(root, W, S, zmin)
    root.x0 = 0.0; root.y0 = 0.0
    dnorm = math.sqrt(((xmax - xmin) * (ymax - ymin) * npmin) / npoint)
    fi = fi_in * dnorm / 1000.0 if tflag else fi_in
    leaves = q_leaves(root, [])
    smseg = min(l.x1 - l.x0 for l in leaves)
    print("segmented: %d leaves, npoint %d dropped %d dnorm %.6f smseg %.6f"
          % (len(leaves), npoint, dropped, dnorm, smseg))
    grid = np.full((rows, cols), np.nan)
    ew_r = (root.x1 - root.x0) / cols
    ns_r = (root.y1 - root.y0) / rows
    warn70 = 0
    for lf in leaves:
        distx = (lf.cols * ew_r) * 0.1
        disty = (lf.rows * ns_r) * 0.1
        distxp = distyp = 0.0
        xmn, xmx, ymn, ymx = lf.x0, lf.x1, lf.y0, lf.y1
        pr = 2.0 ** ((xmx - xmn) / smseg - 1.0)
        MINPTS = int(kmin * (pr / (1 + kmin * pr / KMAX2)))
        MAXENC = 0
        pts = []
        npt = q_region_data(root, (xmn - distx, ymn - disty, xmx + distx, ymx + disty), KMAX2, pts)
        i = 0
        while npt < MINPTS or npt > KMAX2:
            if i >= 70:
                warn70 += 1
                break
            i += 1
            if npt > KMAX2:
                MAXENC = 1
                t1 = distxp; distxp = distx; distx = distxp - abs(distx - t1) * 0.5
                t2 = distyp; distyp = disty; disty = distyp - abs(disty - t2) * 0.5
            else:
                t1 = distyp; distyp = disty
                t2 = distxp; distxp = distx
                if MAXENC:
                    disty = abs(disty - t1) * 0.5 + distyp
                    distx = abs(distx - t2) * 0.5 + distxp
                else:
                    distx += distx
                    disty += disty
            pts = []
            npt = q_region_data(root, (xmn - distx, ymn - disty, xmx + distx, ymx + disty), KMAX2, pts)
        n = len(pts)
        if VERBOSE:
            print("  leaf x %.1f..%.1f y %.1f..%.1f rows %d cols %d own %d MINPTS %d iters %d "
                  "window +-(%.3f, %.3f) npt %d" % (xmn, xmx, ymn, ymx, lf.rows, lf.cols,
                  len(lf.pts), MINPTS, i, distx, disty, n))
        xn = np.array([(p[0] - xmn) / dnorm for p in pts])
        yn = np.array([(p[1] - ymn) / dnorm for p in pts])
        zt = np.array([p[2] for p in pts])
        A = np.zeros((n + 1, n + 1))
        A[0, 1:] = 1.0; A[1:, 0] = 1.0
        dx = xn[:, None] - xn[None, :]; dy = yn[:, None] - yn[None, :]
        r2 = dx * dx + dy * dy
        iu = np.triu_indices(n, 1)
        K = np.zeros((n, n)); K[iu] = crst(r2[iu], fi); K = K + K.T
        K[np.diag_indices(n)] = -rsm
        A[1:, 1:] = K
        if CV_OUT is not None:
            for si in range(n):
                xx = xn[si] * dnorm + xmn + W
                yy = yn[si] * dnorm + ymn + S
                if not (xx >= xmn + W and xx <= xmx + W and yy >= ymn + S and yy <= ymx + S):
                    continue
                idx = [j for j in range(n) if j != si]
                sel = [0] + [j + 1 for j in idx]
                bi = np.linalg.solve(A[np.ix_(sel, sel)], np.concatenate([[0.0], zt[idx]]))
                rr = (xn[idx] - xn[si]) ** 2 + (yn[idx] - yn[si]) ** 2
                ph = crst(rr, fi)
                ph[rr == 0.0] = 0.0
                hz = bi[0] + ph @ bi[1:] + zmin
                CV_OUT.append((xx, yy, zt[si] + zmin, hz - (zt[si] + zmin)))
        b = np.linalg.solve(A, np.concatenate([[0.0], zt]))
        sew = (xmx - xmn) / lf.cols
        sns = (ymx - ymn) / lf.rows
        ngstc = int(xmn / sew + 0.5) + 1
        ngstr = int(ymn / sns + 0.5) + 1
        stx = sew / dnorm; sty = sns / dnorm
        xg = np.arange(lf.cols) * stx + stx / 2.0
        yg = np.arange(lf.rows) * sty + sty / 2.0
        XX, YY = np.meshgrid(xg, yg)
        R2 = (XX[:, :, None] - xn) ** 2 + (YY[:, :, None] - yn) ** 2
        h = b[0] + crst(R2.ravel(), fi).reshape(R2.shape) @ b[1:]
        for kk in range(lf.rows):
            krow = ngstr + kk            # 1-based from the south
            grid[rows - krow, ngstc - 1: ngstc - 1 + lf.cols] = h[kk] + zmin
    print("segments hitting the 70-iteration limit: %d" % warn70)
    return grid.astype(np.float32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gpkg"); ap.add_argument("layer"); ap.add_argument("zfield")
    for k in ("W", "E", "S", "N"):
        ap.add_argument(k, type=float)
    ap.add_argument("cols", type=int); ap.add_argument("rows", type=int)
    ap.add_argument("--tension", type=float, default=40.0)
    ap.add_argument("--smooth", type=float, default=0.1)
    ap.add_argument("--npmin", type=int, default=300)
    ap.add_argument("--dmin", type=float, default=None)
    ap.add_argument("--zscale", type=float, default=1.0)
    ap.add_argument("--tflag", action="store_true")
    ap.add_argument("--dflag", action="store_true")
    ap.add_argument("--smooth-column", default=None, help="variable smoothing (diag = -sm_i)")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--theta", type=float, default=0.0)
    ap.add_argument("--scalex", type=float, default=0.0)
    ap.add_argument("--deg-matrix", type=float, default=57.29577951308232)
    ap.add_argument("--deg-grid", type=float, default=57.29577951308232)
    ap.add_argument("--cv", default=None, help="GRASS cvdev exported by v.out.ascii columns=flt1")
    ap.add_argument("--devi", default=None, help="GRASS deviations exported likewise")
    ap.add_argument("--segmax", type=int, default=None,
                    help="run the full quadtree segmentation with this segmax")
    ap.add_argument("--compare", default=None)
    ap.add_argument("--deriv-compare", default=None)
    ap.add_argument("--cells", default="0,0;51,20;103,77;50,39;10,60")
    a = ap.parse_args()

    zf = None if a.zfield == "-" else a.zfield
    global SMCOL
    SMCOL = a.smooth_column
    P = read_points(a.gpkg, a.layer, zf)
    SM = P[:, 3]
    P = P[:, :3]
    if a.segmax is not None:
        global VERBOSE, CV_OUT
        VERBOSE = a.verbose
        if a.cv:
            CV_OUT = []
        Z = run_segmented(P, a.W, a.E, a.S, a.N, a.cols, a.rows, a.tension, a.smooth,
                          a.npmin, a.segmax, a.dmin, a.zscale, a.tflag)
        print("min %.6f max %.6f" % (np.nanmin(Z), np.nanmax(Z)))
        for rc in a.cells.split(";"):
            r, c = map(int, rc.split(","))
            print("cell row %d col %d: %.7f" % (r, c, Z[r, c]))
        if a.cv:
            import csv
            ref = [(float(r[0]), float(r[1]), float(r[2]), int(r[3]), float(r[4]))
                   for r in csv.reader(open(a.cv))]
            print("cv (segmented): %d records, GRASS %d" % (len(CV_OUT), len(ref)))
            dxy = max(max(abs(m[0] - r[0]), abs(m[1] - r[1])) for m, r in zip(CV_OUT, ref))
            de = max(abs(float("%f" % m[3]) - r[4]) for m, r in zip(CV_OUT, ref))
            print("  same order: max |xy diff| %.3e, max |err diff| %.3e; RMS %.6f" % (
                dxy, de, math.sqrt(np.mean([m[3] ** 2 for m in CV_OUT]))))
        if a.compare:
            from osgeo import gdal
            ref = gdal.Open(a.compare).ReadAsArray().astype(float)
            d = np.abs(Z.astype(float) - ref)
            print("compare elevation (segmented): max abs %.3e max rel %.3e argmax %s"
                  % (d.max(), (d / np.abs(ref)).max(), np.unravel_index(d.argmax(), d.shape)))
        return 0
    W, E, S, N, cols, rows = a.W, a.E, a.S, a.N, a.cols, a.rows
    ew = (E - W) / cols
    ns = (N - S) / rows
    # default dmin = min(res)/2, passed through "%f" text formatting
    dmin = a.dmin if a.dmin is not None else float("%f" % (min(ew, ns) / 2.0))
    dmin2 = dmin * dmin

    x, y, z = P[:, 0], P[:, 1], P[:, 2] * a.zscale
    inside = (x - W >= 0) & (E - x >= 0) & (y - S >= 0) & (N - y >= 0)
    x, y, z = x[inside], y[inside], z[inside]
    SM = SM[inside]
    # extents over all in-region points, including the ones dropped below
    xmin, xmax, ymin, ymax = x.min(), x.max(), y.min(), y.max()
    zmin, zmax = z.min(), z.max()
    # dmin thinning (single leaf: compare with every kept point, first kept wins)
    keep = []
    for i in range(len(x)):
        ok = True
        for j in keep:
            dx = x[j] - x[i]
            dy = y[j] - y[i]
            if dx * dx + dy * dy <= dmin2:
                ok = False
                break
        if ok:
            keep.append(i)
    keep = np.array(keep)
    n = len(keep)
    print("points in region %d, kept %d, dropped %d" % (len(x), n, len(x) - n))
    dnorm = math.sqrt(((xmax - xmin) * (ymax - ymin) * a.npmin) / n)
    fi = a.tension
    if a.tflag:
        fi = fi * dnorm / 1000.0
    print("dnorm = %.6f fi = %.6f zmin = %.6f zmax = %.6f" % (dnorm, fi, zmin, zmax))

    xn = ((x[keep] - W) - 0.0) / dnorm
    yn = ((y[keep] - S) - 0.0) / dnorm
    zt = z[keep] - zmin

    # system
    A = np.zeros((n + 1, n + 1))
    A[0, 1:] = 1.0
    A[1:, 0] = 1.0
    dx = xn[:, None] - xn[None, :]
    dy = yn[:, None] - yn[None, :]
    r2 = dx * dx + dy * dy
    aniso = bool(a.theta) and bool(a.scalex)
    if aniso:
        t = a.theta / a.deg_matrix
        rs, rc = math.sin(t), math.cos(t)
        xr = dx * rc + dy * rs
        yr = dy * rc - dx * rs
        r2 = a.scalex * xr * xr + yr * yr
    iu = np.triu_indices(n, 1)
    K = np.zeros((n, n))
    K[iu] = crst(r2[iu], fi)
    K = K + K.T
    K[np.diag_indices(n)] = -SM[keep] if a.smooth_column else -a.smooth
    A[1:, 1:] = K
    rhs = np.concatenate([[0.0], zt])
    b = np.linalg.solve(A, rhs)

    # rms deviation at points (like the history "rmsdevi")
    Kd = K.copy()
    Kd[np.diag_indices(n)] = 0.0
    hp = b[0] + Kd @ b[1:]
    print("rmsdevi = %.6f" % math.sqrt(np.sum((hp - zt) ** 2) / n))
    if aniso:  # GRASS evaluates the check at points with ISOTROPIC distances
        r2i = dx * dx + dy * dy
        Ki = crst(r2i.ravel(), fi).reshape(r2i.shape)
        Ki[r2i == 0.0] = 0.0
        hpi = b[0] + Ki @ b[1:]
        print("rmsdevi (GRASS, isotropic check) = %.6f" % math.sqrt(np.sum((hpi - zt) ** 2) / n))

    if a.cv or a.devi:
        import csv
        def rd(fn):
            return [(float(r[0]), float(r[1]), float(r[2]), int(r[3]), float(r[4]))
                    for r in csv.reader(open(fn))]
        if a.devi:
            ref = rd(a.devi)
            err = (hp + zmin) - (zt + zmin)
            d = max(abs(float("%f" % e) - r[4]) for e, r in zip(err, ref))
            dz = max(abs((zz + zmin) - r[2]) for zz, r in zip(zt, ref))
            print("devi: n=%d/%d max |err diff| %.3e (after %%f rounding), max |z diff| %.3e"
                  % (len(err), len(ref), d, dz))
        if a.cv:
            ref = rd(a.cv)
            errs = []
            for i in range(n):
                idx = [j for j in range(n) if j != i]
                Ai = A[np.ix_([0] + [j + 1 for j in idx], [0] + [j + 1 for j in idx])]
                bi = np.linalg.solve(Ai, np.concatenate([[0.0], zt[idx]]))
                rr = (xn[idx] - xn[i]) ** 2 + (yn[idx] - yn[i]) ** 2
                ph = crst(rr, fi)
                ph[rr == 0.0] = 0.0
                h_i = bi[0] + ph @ bi[1:]
                errs.append((h_i + zmin) - (zt[i] + zmin))
            d = max(abs(float("%f" % e) - r[4]) for e, r in zip(errs, ref))
            print("cv: n=%d/%d max |err diff| %.3e (after %%f rounding); RMS cv error %.6f"
                  % (len(errs), len(ref), d, math.sqrt(np.mean(np.square(errs)))))

    # grid (cell centres), row 0 = north
    stepx = ew / dnorm
    stepy = ns / dnorm
    xg = np.arange(cols) * stepx + stepx / 2.0
    kk = np.arange(rows)                 # k-1, counted from the south
    yg_s = kk * stepy + stepy / 2.0
    yg = yg_s[::-1]                      # raster row i <-> k = rows - i
    XX, YY = np.meshgrid(xg, yg)
    DX = XX[:, :, None] - xn[None, None, :]
    DY = YY[:, :, None] - yn[None, None, :]
    R2 = DX * DX + DY * DY
    if aniso:
        t = a.theta / a.deg_grid
        rs, rc = math.sin(t), math.cos(t)
        xr = DX * rc + DY * rs
        yr = DY * rc - DX * rs
        R2 = a.scalex * (xr * xr) + yr * yr
    G = crst(R2.ravel(), fi).reshape(R2.shape)
    h = b[0] + G @ b[1:]
    Z = (h + zmin).astype(np.float32)
    print("min %.6f max %.6f" % (Z.min(), Z.max()))
    for rc in a.cells.split(";"):
        r, c = map(int, rc.split(","))
        print("cell row %d col %d: %.7f" % (r, c, Z[r, c]))

    if a.compare:
        from osgeo import gdal
        ref = gdal.Open(a.compare).ReadAsArray().astype(float)
        d = np.abs(Z.astype(float) - ref)
        rel = d / np.maximum(np.abs(ref), 1e-300)
        print("compare elevation: max abs %.3e  max rel %.3e  (argmax %s)"
              % (d.max(), rel.max(), np.unravel_index(d.argmax(), d.shape)))
        # double (unrounded) comparison too
        d2 = np.abs((h + zmin) - ref)
        print("  (unrounded double vs GRASS: max abs %.3e)" % d2.max())

    if a.deriv_compare:
        g1, g2 = crstg(R2.ravel(), fi)
        g1 = g1.reshape(R2.shape); g2 = g2.reshape(R2.shape)
        bm = b[1:]
        tfsta2 = (fi * fi / 4.0 * 2.0) / dnorm
        tfstad = tfsta2 / dnorm
        dxs = np.einsum("ijk,k->ij", g1 * DX, bm)
        dys = np.einsum("ijk,k->ij", g1 * DY, bm)
        dxx = np.einsum("ijk,k->ij", g2 * DX * DX + g1, bm)
        dyy = np.einsum("ijk,k->ij", g2 * DY * DY + g1, bm)
        dxy = np.einsum("ijk,k->ij", g2 * DX * DY, bm)
        fx = (-dxs * tfsta2).astype(np.float32).astype(float)
        fy = (-dys * tfsta2).astype(np.float32).astype(float)
        fxx = (-dxx * tfstad).astype(np.float32).astype(float)
        fyy = (-dyy * tfstad).astype(np.float32).astype(float)
        fxy = (-dxy * tfstad).astype(np.float32).astype(float)
        grad2 = fx * fx + fy * fy
        grad = np.sqrt(grad2)
        slope = np.degrees(np.arctan(grad))
        asp = np.where(fx == 0.0, np.where(fy > 0, 90.0, 270.0),
                       np.degrees(np.arctan2(fy, fx)))
        asp = np.where((fx != 0.0) & (asp <= 0.0), 360.0 + asp, asp)
        flat = grad <= 0.001
        asp = np.where(flat, 0.0, asp)
        asp = np.where((asp > 0.0) & (asp < 0.5), 360.0, asp)
        dn1 = np.sqrt(grad2 + 1.0)
        dxy2 = 2.0 * fxy * fx * fy
        with np.errstate(divide="ignore", invalid="ignore"):
            pc = (fxx * fx * fx + dxy2 + fyy * fy * fy) / (grad2 * dn1 ** 3)
            tc = (fxx * fy * fy - dxy2 + fyy * fx * fx) / (grad2 * dn1)
        mc = 0.5 * ((1 + fy * fy) * fxx - dxy2 + (1 + fx * fx) * fyy) / ((grad2 + 1) * dn1)
        pc = np.where(flat, 0.0, pc); tc = np.where(flat, 0.0, tc)
        # GRASS quirk: at a flat cell mean curvature is not recomputed, it keeps the
        # value of the previous non-flat cell of the same (segment) row, or 0.
        for i in range(mc.shape[0]):
            last = 0.0
            for j in range(mc.shape[1]):
                if flat[i, j]:
                    mc[i, j] = last
                else:
                    last = mc[i, j]
        from osgeo import gdal
        names = ["slope", "aspect", "pcurv", "tcurv", "mcurv"]
        mine = [slope, asp, pc, tc, mc]
        if a.dflag:   # -d: raw (negated) partial derivatives, no secpar
            names = ["dx", "dy", "dxx", "dyy", "dxy"]
            mine = [fx, fy, fxx, fyy, fxy]
        for nm, fn, arr in zip(names, a.deriv_compare.split(","), mine):
            ref = gdal.Open(fn).ReadAsArray().astype(float)
            arr32 = arr.astype(np.float32).astype(float)
            d = np.abs(arr32 - ref)
            scale = np.abs(ref).max()
            print("compare %-6s: max abs %.3e (max |ref| %.3e, rel-to-max %.3e) argmax %s"
                  % (nm, d.max(), scale, d.max() / scale, np.unravel_index(d.argmax(), d.shape)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
