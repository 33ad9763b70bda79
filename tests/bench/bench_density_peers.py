#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Benchmark: gridkit's -a heatmap and -a gauss against the tools people use
today, same machine, same points, one run. Not a test: it prints Markdown
tables for docs/benchmarks.md ("Kernel density"), the commands it ran and the
peers' versions.

    /usr/bin/python3 tests/bench/bench_density_peers.py build/gridkit
        [--n 1000000] [--size 4096] [--radius 100] [--sigma 50] [--epsilon 1e-6]
        [--gauss-n 100000] [--gauss-size 1024] [--sklearn-size 256]
        [--threads T] [--repeat 3] [--peer-repeat 1]
        [--skip qgis,grass,spatstat,sklearn] [--workdir DIR] [--seed 25]

Points: a 10 km square in UTM 32N (EPSG:32632), 80 % in 40 Gaussian clusters
(sd 40-400 m, Dirichlet sizes) and 20 % uniform background, like incident
data; a positive weight w = 1 + Gamma(2, 0.5). The first two points are put on
the square's corners so that the points' extent, and so QGIS's grid, is known
in advance. Written as CSV (%.17g) and turned into a GeoPackage by ogr2ogr;
every tool reads the GeoPackage.

Heatmap (quartic, radius R): QGIS's Heatmap (raw values, weighted) picks its
own grid: the points' extent grown by R, PIXEL_SIZE chosen here so that it is
size x size. gridkit and GRASS's v.kernel run on that grid. v.kernel (GRASS
8.2) has no weights and scales by 3 / (pi R^2), so it is compared with an
unweighted gridkit run (times 3 / (pi R^2)). Times are whole commands, wall
clock (start-up, reading, writing included): QGIS and GRASS single-threaded,
gridkit with --threads.

Gauss (sigma, epsilon E): spatstat's density.ppp (FFT on the pixel grid,
edge=FALSE) on gauss-n points to gauss-size^2 cells; scikit-learn's
KernelDensity (kd-tree, rtol=E, atol=0; a relative bound, at least as strict
as gridkit's absolute E sum|w| / (2 pi sigma^2)) at the centres of a coarser
sklearn-size^2 grid on the same square. gridkit's default method on each grid
is timed. The reference for every tool's error is gridkit's method=direct
(every point, double), or, past 3e9 point-cell pairs (--reference), its
cutoff at epsilon=1e-15 (dropped terms under 1e-15 of the scale: exact for
this purpose, and several times cheaper); either is checked against a direct
sum in numpy at 500 cells.

The main process needs only the standard library and numpy (rasters are read
through gdal_translate -of ENVI); the peers run as subprocesses. Debian 12:
apt-get install qgis grass-core python3-sklearn r-cran-spatstat.explore gdal-bin
(r-cran-sf optional: without it R reads the CSV the GeoPackage was made from).
QGIS runs headless (QT_QPA_PLATFORM=offscreen, a private HOME under the work
folder); GRASS in a temporary location (grass --tmp-location EPSG:32632 --exec).

On the 2-core VM (before the engine rewrite) the peers took: QGIS 1.9 s at
20,000 points -> 512^2 (mostly its ~1.8 s start-up), 3.5 s at 100,000 ->
2048^2, 6.7 s at 300,000 -> 2048^2; v.kernel 0.35 / 9.0 / 21.4 s (plus
import); spatstat 6.0 s and scikit-learn 43 s at the gauss defaults. By those
rates the full heatmap size takes QGIS about 1-1.5 min and GRASS about 4 min.
"""
import argparse
import json
import math
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

EPSG = 32632
X0, Y0, L = 500000.0, 5000000.0, 10000.0  # integers, exact in float32 too (GPKG's R-tree)
COMMANDS = []  # (label, command line) in the order run

R_SPATSTAT = r"""
a <- commandArgs(TRUE)
t0 <- proc.time()[["elapsed"]]
suppressMessages(library(spatstat.explore))
if (requireNamespace("sf", quietly = TRUE)) {
  g <- sf::st_read(a[1], quiet = TRUE)
  xy <- sf::st_coordinates(g); w <- g$w
} else {  # the CSV the GeoPackage was made from (same digits)
  d <- read.csv(a[2]); xy <- cbind(d$x, d$y); w <- d$w
}
p <- as.numeric(a[4:8]); x0 <- p[1]; y0 <- p[2]; L <- p[3]; G <- p[4]; sig <- p[5]
X <- ppp(xy[, 1], xy[, 2], window = owin(c(x0, x0 + L), c(y0, y0 + L)))
t1 <- proc.time()[["elapsed"]]
D <- density.ppp(X, sigma = sig, weights = w, edge = FALSE, dimyx = c(G, G))
t2 <- proc.time()[["elapsed"]]
v <- as.matrix(D)  # v[i, j] at (xcol[j], yrow[i]), yrow increasing
con <- file(a[3], "wb"); writeBin(as.vector(t(v[G:1, ])), con, size = 8); close(con)
cx <- x0 + (0:(G - 1) + 0.5) * L / G
off <- max(abs(D$xcol - cx), abs(D$yrow - (y0 + (0:(G - 1) + 0.5) * L / G)))
cat(sprintf("GKTIMES load=%.3f density=%.3f centre_offset=%.3g n=%d\n", t1 - t0, t2 - t1, off,
            npoints(X)))
"""

PY_SKLEARN = r"""
import sys, time
t0 = time.perf_counter()
import numpy as np
from sklearn.neighbors import KernelDensity
gpkg, csv, out = sys.argv[1:4]
x0, y0, L, G, sig, rtol = map(float, sys.argv[4:10])
G = int(G)
try:
    from osgeo import ogr
    ds = ogr.Open(gpkg)
    lyr = ds.GetLayer(0)
    rows = [(f.GetGeometryRef().GetX(), f.GetGeometryRef().GetY(), f.GetField("w")) for f in lyr]
    a = np.array(rows, dtype=np.float64)
    ds = None
except ImportError:  # the CSV the GeoPackage was made from (same digits)
    a = np.loadtxt(csv, delimiter=",", skiprows=1, usecols=(1, 2, 3))
P, w = a[:, :2], a[:, 2]
c = (np.arange(G) + 0.5) * L / G
T = np.column_stack([np.tile(x0 + c, G), np.repeat(y0 + L - c, G)])  # row 0 at the top
t1 = time.perf_counter()
kde = KernelDensity(kernel="gaussian", bandwidth=sig, rtol=rtol, atol=0).fit(P, sample_weight=w)
ls = kde.score_samples(T)
t2 = time.perf_counter()
(np.exp(ls) * w.sum()).tofile(out)  # score_samples is log(sum w K / sum w)
print("GKTIMES load=%.3f density=%.3f n=%d" % (t1 - t0, t2 - t1, len(w)))
"""

GRASS_SH = r"""
set -e
t0=$(date +%s.%N)
v.in.ogr -t input="$1" layer=pts output=pts --quiet
t1=$(date +%s.%N)
g.region n=$2 s=$3 e=$4 w=$5 rows=$6 cols=$6 --quiet
v.kernel input=pts output=dens radius=$7 kernel=quartic --quiet
t2=$(date +%s.%N)
r.out.gdal -c -f input=dens output="$8" format=GTiff type=Float64 --quiet
t3=$(date +%s.%N)
g.region -g | tr '\n' ' ' | sed 's/^/GKREGION /'; echo
awk -v a=$t0 -v b=$t1 -v c=$t2 -v d=$t3 \
  'BEGIN { printf "GKTIMES import=%.2f kernel=%.2f export=%.2f\n", b - a, c - b, d - c }'
"""


def q(cmd):
    return " ".join(shlex.quote(str(c)) for c in cmd)


def run(label, cmd, env=None, repeat=1, timeout=None):
    """Best wall-clock time of `repeat` runs; the last run's output."""
    COMMANDS.append((label, q(cmd)))
    best, out = None, ""
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = subprocess.run([str(c) for c in cmd], env=env, capture_output=True, text=True,
                           timeout=timeout)
        dt = time.perf_counter() - t0
        if r.returncode != 0:
            sys.exit("failed (%s): %s\n%s%s" % (label, q(cmd), r.stdout[-3000:], r.stderr[-3000:]))
        best = dt if best is None else min(best, dt)
        out = r.stdout + r.stderr
    return best, out


def own(t, key):
    """A peer's own computation time from its GKTIMES line, or None."""
    try:
        return float(t[key])
    except (KeyError, ValueError):
        return None


def table_rows(rows):
    """The rows printed: a peer's speed-up is over its own computation where
    it is timed apart (not its interpreter's start or its reading), else
    over its whole command; gridkit's time is always its whole command."""
    for r in rows:
        name, job, tp, tg, d = r[:5]
        tc = r[5] if len(r) > 5 else None
        if name.startswith("gridkit"):
            sp = "—"
        else:
            sp = ratio(tc if tc else tp, tg) + ("" if tc else " (whole command)")
        print("| %s | %s | %s | %s | %s | %s | %s |" % (
            name, job, fmt_t(tp), fmt_t(tc) if tc else "—", fmt_t(tg), sp, d))


def tagged(out, tag):
    """key=value pairs of the line starting with tag (GKTIMES ...)."""
    for line in out.splitlines():
        if line.startswith(tag + " "):
            return dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
    return {}


def make_points(n, seed, work, name):
    rng = np.random.default_rng(seed)
    n_bg = n // 5
    k = 40
    cx = X0 + rng.uniform(0.05, 0.95, k) * L
    cy = Y0 + rng.uniform(0.05, 0.95, k) * L
    sd = np.exp(rng.uniform(math.log(40.0), math.log(400.0), k))
    size = rng.multinomial(n - n_bg, rng.dirichlet(np.full(k, 0.7)))
    lab = np.repeat(np.arange(k), size)
    x = cx[lab] + rng.normal(0, 1, lab.size) * sd[lab]
    y = cy[lab] + rng.normal(0, 1, lab.size) * sd[lab]
    x = np.concatenate([x, X0 + rng.uniform(0, L, n_bg)])
    y = np.concatenate([y, Y0 + rng.uniform(0, L, n_bg)])
    out = (x < X0) | (x > X0 + L) | (y < Y0) | (y > Y0 + L)  # cluster tails: background instead
    x[out] = X0 + rng.uniform(0, L, out.sum())
    y[out] = Y0 + rng.uniform(0, L, out.sum())
    perm = rng.permutation(n)  # incidents come in time order, not cluster by cluster
    x, y = x[perm], y[perm]
    x[0], y[0], x[1], y[1] = X0, Y0, X0 + L, Y0 + L  # the extent is the square exactly
    w = 1.0 + rng.gamma(2.0, 0.5, n)
    return write_points(x, y, w, work, name)


def write_points(x, y, w, work, name):
    csv = os.path.join(work, name + ".csv")
    gpkg = os.path.join(work, name + ".gpkg")
    np.savetxt(csv, np.column_stack([np.arange(x.size), x, y, w]), delimiter=",",
               fmt=["%d", "%.17g", "%.17g", "%.17g"], header="id,x,y,w", comments="")
    with open(csv + "t", "w") as f:  # column types for OGR's CSV driver
        f.write("Integer,Real,Real,Real\n")
    if os.path.exists(gpkg):
        os.remove(gpkg)
    subprocess.run(["ogr2ogr", "-q", "-f", "GPKG", gpkg, csv, "-nln", "pts", "-a_srs",
                    "EPSG:%d" % EPSG, "-oo", "X_POSSIBLE_NAMES=x", "-oo", "Y_POSSIBLE_NAMES=y",
                    "-oo", "KEEP_GEOM_COLUMNS=NO", "-nlt", "POINT"], check=True)
    return gpkg, csv, x, y, w


def read_raster(path):
    info = json.loads(subprocess.run(["gdalinfo", "-json", path], capture_output=True,
                                     text=True, check=True).stdout)
    nx, ny = info["size"]
    raw = path + ".f64"
    subprocess.run(["gdal_translate", "-q", "-of", "ENVI", "-ot", "Float64", path, raw], check=True)
    a = np.fromfile(raw, dtype="<f8").reshape(ny, nx)
    nd = info["bands"][0].get("noDataValue")
    if nd is not None:
        a = np.where(a == nd, 0.0, a)
    return a, info["geoTransform"]


def rel_diff(a, ref, mask=None, floor=1e-3):
    """Largest |a - ref| / ref over the cells where ref > floor * max(ref)."""
    m = ref > floor * ref.max()
    if mask is not None:
        m &= mask
    return float((np.abs(a[m] - ref[m]) / ref[m]).max()), int(m.sum())


def versions(skip):
    v = {}
    pk = ["gdal-bin"] + [p for t, p in [("qgis", "qgis"), ("grass", "grass-core"),
                                        ("sklearn", "python3-sklearn")] if t not in skip]
    r = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Version}\\n"] + pk,
                       capture_output=True, text=True)
    for line in r.stdout.splitlines():
        name, ver = line.split(" ", 1)
        v[name] = ver
    if "spatstat" not in skip:
        r = subprocess.run(["Rscript", "-e", 'cat(R.version.string, "/ spatstat.explore",'
                            ' format(packageVersion("spatstat.explore")))'],
                           capture_output=True, text=True)
        v["R"] = r.stdout.strip()
    return v


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def fmt_t(t):
    return "—" if t is None else ("%.2f" % t if t < 100 else "%.0f" % t)


def ratio(a, b):
    return "—" if a is None or b is None else "%.1fx" % (a / b)


def heatmap(a, gk, work, skip, rows):
    """QGIS, v.kernel and gridkit's -a heatmap on QGIS's grid."""
    R, S, T = a.radius, a.size, a.threads
    gpkg, _, x, y, w = make_points(a.n, a.seed, work, "heat")
    # QGIS 3.22: extent = points' extent + R; rows = ceil(height / pixel) + 1; origin top left.
    W = L + 2 * R
    pix = W / (S - 1.5)
    if math.ceil(W / pix) + 1 != S:
        sys.exit("pixel %.17g does not give %d columns" % (pix, S))
    xmin, ymax = X0 - R, Y0 + L + R
    xmax, ymin = xmin + S * pix, ymax - S * pix
    geo = ["-txe", repr(xmin), repr(xmax), "-tye", repr(ymin), repr(ymax), "-outsize", S, S]
    alg = "heatmap:radius=%r:kernel=quartic:output=raw" % R
    thr = ["--threads", T]
    tg, og = run("gridkit heatmap (weighted)", [gk, "grid", "-zfield", "w", "-a", alg] + geo +
                 ["-ot", "Float32"] + thr + [gpkg, os.path.join(work, "gk_heat.tif")],
                 repeat=a.repeat)
    info = {"pixel": pix, "grid": (xmin, xmax, ymin, ymax)}
    rows.append(("gridkit -a heatmap, weighted, Float32 out", "%s -> %dx%d" % (f"{a.n:,}", S, S),
                 tg, tg, "—"))
    print("heatmap: %d points, radius %g, %dx%d cells of %.6g m; gridkit %.2f s"
          % (a.n, R, S, S, pix, tg), file=sys.stderr)

    if "qgis" not in skip:
        home = os.path.join(work, "qgis_home")
        os.makedirs(home, mode=0o700, exist_ok=True)
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=home, XDG_RUNTIME_DIR=home)
        qp = shutil.which("qgis_process.bin") or shutil.which("qgis_process")
        # qgis_process's own start (QGIS and its providers loaded), timed on
        # `list`: the heatmap's computation is its run less that
        t0 = time.perf_counter()
        listing = subprocess.run([qp, "list"], env=env, capture_output=True, text=True).stdout
        t_start = time.perf_counter() - t0
        alg_id = ("native:heatmapkerneldensityestimation" if "native:heatmapkernel" in listing
                  else "qgis:heatmapkerneldensityestimation")
        qtif = os.path.join(work, "qgis_heat.tif")
        tq, _ = run("QGIS heatmap", [qp, "run", alg_id, "--", "INPUT=" + gpkg, "RADIUS=%r" % R,
                                     "PIXEL_SIZE=%r" % pix, "WEIGHT_FIELD=w", "KERNEL=0",
                                     "OUTPUT_VALUE=0", "OUTPUT=" + qtif],
                    env=env, repeat=a.peer_repeat)
        qv, qgt = read_raster(qtif)
        same_grid = qv.shape == (S, S) and np.allclose(
            [qgt[0], qgt[3], qgt[1], -qgt[5]], [xmin, ymax, pix, pix], rtol=0, atol=1e-6)
        if not same_grid:
            sys.exit("QGIS's grid %s %s is not the expected one (%r %r %r)" % (
                qv.shape, qgt, xmin, ymax, pix))
        g, _ = read_raster(os.path.join(work, "gk_heat.tif"))
        # QGIS 3.22 truncates a negative block origin to 0 (points within a pixel of the
        # extent's edges): leave out the cells such points can reach.
        b = int(math.ceil(2 * R / pix)) + 3
        inner = np.zeros((S, S), bool)
        inner[b:S - b, b:S - b] = True
        d_true, ncells = rel_diff(g, qv, inner)
        # QGIS 3.22 evaluates a point's block with rows counted from the bottom but writes it
        # counted from the top: its value at a cell is the true kernel of the point moved in y
        # to ymin + ymax + (fy - fyio) pixel - y (less than a pixel away). gridkit on the moved
        # points shows the two compute the same sums.
        ymin_b = Y0 - R
        fy = np.floor((y - ymin_b) / pix)
        fyio = np.floor((ymax - y) / pix)
        ym = ymin_b + ymax + (fy - fyio) * pix - y
        gm, _, _, _, _ = write_points(x, ym, w, work, "heat_qgis_moved")
        run("gridkit heatmap on QGIS-moved points (check only)",
            [gk, "grid", "-q", "-zfield", "w", "-a", alg] + geo + ["-ot", "Float64"] + thr +
            [gm, os.path.join(work, "gk_heat_moved.tif")])
        gmv, _ = read_raster(os.path.join(work, "gk_heat_moved.tif"))
        d_moved, _ = rel_diff(gmv, qv, inner)
        rows.append(("QGIS %s Heatmap, quartic, raw, weighted (its start, %.1f s, left out)"
                     % (versions_cache.get("qgis", ""), t_start),
                     "%s -> %dx%d" % (f"{a.n:,}", S, S), tq, tg,
                     "%.2g as is; %.2g with QGIS's y shift (%d cells)" % (d_true, d_moved, ncells),
                     max(tq - t_start, 0.0)))
        info["qgis"] = (tq, d_true, d_moved)
        print("QGIS %.2f s; max rel diff %.3g (as is), %.3g (QGIS's y shift)"
              % (tq, d_true, d_moved), file=sys.stderr)

    if "grass" not in skip:
        tu, _ = run("gridkit heatmap (unweighted, for v.kernel)",
                    [gk, "grid", "-a", alg] + geo + ["-ot", "Float64"] + thr +
                    [gpkg, os.path.join(work, "gk_heat_unw.tif")], repeat=a.repeat)
        home = os.path.join(work, "grass_home")
        os.makedirs(home, exist_ok=True)
        env = dict(os.environ, HOME=home)
        script = os.path.join(work, "vkernel.sh")
        with open(script, "w") as f:
            f.write(GRASS_SH)
        gtif = os.path.join(work, "grass_heat.tif")
        tgr, out = run("GRASS v.kernel (in a temporary location; script below)",
                       ["grass", "--tmp-location", "EPSG:%d" % EPSG, "--exec", "bash", script,
                        gpkg, repr(ymax), repr(ymin), repr(xmax), repr(xmin), S, repr(R), gtif],
                       env=env, repeat=a.peer_repeat)
        t = tagged(out, "GKTIMES")
        gv, ggt = read_raster(gtif)
        if gv.shape != (S, S) or not np.allclose([ggt[0], ggt[3], ggt[1]], [xmin, ymax, pix],
                                                   rtol=0, atol=1e-6):
            sys.exit("GRASS's grid %s %s is not the expected one" % (gv.shape, ggt))
        gu, _ = read_raster(os.path.join(work, "gk_heat_unw.tif"))
        d, ncells = rel_diff(gu * 3.0 / (math.pi * R * R), gv)
        rows.append(("GRASS %s v.kernel, quartic, unweighted (import %s s, v.kernel %s s)"
                     % (versions_cache.get("grass-core", ""), t.get("import", "?"),
                        t.get("kernel", "?")),
                     "%s -> %dx%d" % (f"{a.n:,}", S, S), tgr, tu,
                     "%.2g (x 3/(pi R^2); %d cells)" % (d, ncells), own(t, "kernel")))
        info["grass"] = (tgr, t, d)
        print("GRASS %.2f s (%s); max rel diff %.3g" % (tgr, t, d), file=sys.stderr)
    return info, og


def gauss(a, gk, work, skip, rows):
    sig, E, T = a.sigma, a.epsilon, a.threads
    gpkg, csv, x, y, w = make_points(a.gauss_n, a.seed + 1, work, "gauss")
    scale = np.abs(w).sum() / (2 * math.pi * sig * sig)  # E * scale is gridkit's bound
    thr = ["--threads", T]
    res = {}
    refs = res["references"] = []

    def grid_runs(G, tag):
        geo = ["-txe", repr(X0), repr(X0 + L), "-tye", repr(Y0), repr(Y0 + L), "-outsize", G, G,
               "-ot", "Float64"]
        out = os.path.join(work, "gk_gauss_%s.tif" % tag)
        ref = os.path.join(work, "gk_direct_%s.tif" % tag)
        tk, og = run("gridkit gauss %dx%d" % (G, G),
                     [gk, "grid", "-zfield", "w", "-a", "gauss:bandwidth=%r:epsilon=%r" % (sig, E)]
                     + geo + thr + [gpkg, out], repeat=a.repeat)
        direct = a.reference == "direct" or (a.reference == "auto" and a.gauss_n * G * G <= 3e9)
        ref_alg = "method=direct" if direct else "method=cutoff:epsilon=1e-15"
        td, _ = run("gridkit gauss %s %dx%d (the reference)" % (ref_alg, G, G),
                    [gk, "grid", "-q", "-zfield", "w", "-a",
                     "gauss:bandwidth=%r:%s" % (sig, ref_alg)] + geo + thr + [gpkg, ref])
        rv, _ = read_raster(ref)
        gv, _ = read_raster(out)
        # The reference itself against a direct sum here, at the 100 largest cells and 400
        # random ones: independent of gridkit's code.
        rng = np.random.default_rng(G)
        cells = np.unique(np.concatenate([np.argsort(rv, axis=None)[-100:],
                                          rng.integers(0, G * G, 400)]))
        c = (np.arange(G) + 0.5) * L / G
        cx, cy = X0 + c[cells % G], Y0 + L - c[cells // G]
        spot = np.array([np.dot(w, np.exp(-((x - px) ** 2 + (y - py) ** 2) / (2 * sig * sig)))
                         for px, py in zip(cx, cy)]) / (2 * math.pi * sig * sig)
        e_ref = float(np.abs(rv.ravel()[cells] - spot).max() / scale)
        refs.append("%dx%d: gridkit %s, %.2f s; against numpy's direct sum at %d cells: %.2g"
                    % (G, G, ref_alg, td, cells.size, e_ref))
        prep = [l for l in og.splitlines() if l.startswith("Prepared:")]
        e_abs = float(np.abs(gv - rv).max() / scale)
        e_rel, _ = rel_diff(gv, rv)
        print("gauss %dx%d: gridkit %.2f s, reference %.2f s, error %.3g sum|w|/(2 pi s^2)"
              % (G, G, tk, td, e_abs), file=sys.stderr)
        return tk, td, rv, e_abs, e_rel, (prep[0] if prep else "")

    job = lambda G: "%s -> %dx%d" % (f"{a.gauss_n:,}", G, G)
    if True:  # gridkit on the spatstat grid, peers or not
        G = a.gauss_size
        tk, td, rv, ek, rk, prep = grid_runs(G, "big")
        res["gridkit"] = (tk, td, ek, prep)
        rows.append(("gridkit -a gauss epsilon=%g (default method)" % E, job(G), tk, tk,
                     "%.2g / %.2g" % (ek, rk)))
        rows.append(("gridkit -a gauss, the reference (below)", job(G), td, tk, "0 (reference)"))
        if "spatstat" not in skip:
            rfile = os.path.join(work, "spatstat.R")
            with open(rfile, "w") as f:
                f.write(R_SPATSTAT)
            sbin = os.path.join(work, "spatstat.f64")
            env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
            ts, out = run("spatstat density.ppp", ["Rscript", rfile, gpkg, csv, sbin, repr(X0),
                                                   repr(Y0), repr(L), G, repr(sig)],
                          env=env, repeat=a.peer_repeat)
            t = tagged(out, "GKTIMES")
            off, npts = float(t.get("centre_offset", "1")), int(t.get("n", -1))
            if off > 1e-6 * L / G or npts != a.gauss_n:
                sys.exit("spatstat's pixels or points are not ours: %s" % t)
            sv = np.fromfile(sbin, dtype="<f8").reshape(G, G)
            es = float(np.abs(sv - rv).max() / scale)
            rs, _ = rel_diff(sv, rv)
            rows.append(("spatstat.explore density.ppp (FFT, edge=FALSE)", job(G), ts, tk,
                         "%.2g / %.2g" % (es, rs), own(t, "density")))
            res["spatstat"] = (ts, t, es, rs)
            print("spatstat %.2f s (%s), error %.3g" % (ts, t, es), file=sys.stderr)
    if "sklearn" not in skip:
        G = a.sklearn_size
        tk, td, rv, ek, rk, _ = grid_runs(G, "small")
        rows.append(("gridkit -a gauss epsilon=%g (default method)" % E, job(G), tk, tk,
                     "%.2g / %.2g" % (ek, rk)))
        pfile = os.path.join(work, "sklearn_kde.py")
        with open(pfile, "w") as f:
            f.write(PY_SKLEARN)
        kbin = os.path.join(work, "sklearn.f64")
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        tsk, out = run("scikit-learn KernelDensity", ["/usr/bin/python3", pfile, gpkg, csv, kbin,
                                                      repr(X0), repr(Y0), repr(L), G, repr(sig),
                                                      repr(E)], env=env, repeat=a.peer_repeat)
        t = tagged(out, "GKTIMES")
        kv = np.fromfile(kbin, dtype="<f8").reshape(G, G)
        es = float(np.abs(kv - rv).max() / scale)
        rs, _ = rel_diff(kv, rv)
        rows.append(("scikit-learn KernelDensity rtol=%g atol=0 (fit + score_samples)" % E,
                     job(G), tsk, tk, "%.2g / %.2g" % (es, rs), own(t, "density")))
        res["sklearn"] = (tsk, t, es, rs, tk)
        print("sklearn %.2f s (%s), error %.3g" % (tsk, t, es), file=sys.stderr)
    return res


versions_cache = {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gridkit")
    ap.add_argument("--n", type=int, default=1_000_000, help="heatmap points")
    ap.add_argument("--size", type=int, default=4096, help="heatmap grid side (QGIS's)")
    ap.add_argument("--radius", type=float, default=100.0, help="heatmap radius, m")
    ap.add_argument("--sigma", type=float, default=50.0, help="gauss bandwidth (sd), m")
    ap.add_argument("--epsilon", type=float, default=1e-6, help="gauss epsilon and sklearn rtol")
    ap.add_argument("--gauss-n", type=int, default=100_000)
    ap.add_argument("--gauss-size", type=int, default=1024, help="gridkit and spatstat grid side")
    ap.add_argument("--sklearn-size", type=int, default=256, help="sklearn's (coarser) grid side")
    ap.add_argument("--reference", choices=["auto", "direct", "cutoff"], default="auto",
                    help="gauss reference: gridkit method=direct, or cutoff at epsilon=1e-15 "
                    "(bound 1e-15 of the scale; auto: direct up to 3e9 point-cell pairs)")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--repeat", type=int, default=3, help="gridkit runs (best is kept)")
    ap.add_argument("--peer-repeat", type=int, default=1, help="runs of each peer")
    ap.add_argument("--skip", default="", help="comma list of qgis,grass,spatstat,sklearn,"
                    "heatmap,gauss")
    ap.add_argument("--workdir", default=None, help="kept; default a temporary folder")
    ap.add_argument("--seed", type=int, default=25)
    a = ap.parse_args()
    skip = set(s for s in a.skip.split(",") if s)
    unknown = skip - {"qgis", "grass", "spatstat", "sklearn", "heatmap", "gauss"}
    if unknown:
        ap.error("unknown --skip %s" % ",".join(sorted(unknown)))
    gk = os.path.abspath(a.gridkit)
    work = a.workdir or tempfile.mkdtemp(prefix="gk-peers-")
    os.makedirs(work, exist_ok=True)
    work = os.path.abspath(work)
    versions_cache.update(versions(skip))

    hrows, grows = [], []
    if "heatmap" not in skip:
        heatmap(a, gk, work, skip, hrows)
    if "gauss" not in skip:
        gres = gauss(a, gk, work, skip, grows)

    print("Machine: %s, %d cores; gridkit --threads %d; wall clock: whole commands (start-up, "
          "reading, writing included) and, for the peers that time it apart, their own "
          "computation alone (the speed-up is over that: gridkit's whole command against the "
          "peer's computation); gridkit best of %d, peers best of %d."
          % (cpu_name(), os.cpu_count(), a.threads, a.repeat, a.peer_repeat))
    print("Points: clustered (40 Gaussian clusters + 20 %% background) in a 10 km square, "
          "EPSG:%d, weight w = 1 + Gamma(2, 0.5), seed %d; GeoPackage read by every tool."
          % (EPSG, a.seed))
    print()
    if hrows:
        print("Heatmap, quartic kernel, radius %g m, on QGIS's grid (points' extent + radius). "
              "Difference: max |gridkit - peer| / peer where the peer > 1e-3 of its max."
              % a.radius)
        print()
        print("QGIS 3.22 writes a point's block of cells mirrored in y about a position up to "
              "a pixel from the point (docs/heatmap.md), so its raster is not the kernel sum at "
              "its cell centres (\"as is\"); moving each point in y as QGIS effectively does and "
              "running gridkit on the moved points gives QGIS's values to its Float32 "
              "accumulation (\"with QGIS's y shift\"). Cells within 2 radii of the edges are "
              "left out (QGIS clamps blocks that start before its first row or column). "
              "GRASS 8.2's v.kernel has no weights and scales the quartic by 3 / (pi R^2); it "
              "computes at its cell centres in double, from region bounds it stores to 1e-8 m.")
        print()
        print("| tool | points -> grid | tool, whole command (s) | tool, its computation (s) | "
              "gridkit, whole command (s) | speed-up | max rel. difference |")
        print("|---|---|---:|---:|---:|---:|---|")
        table_rows(hrows)
        print()
    if grows:
        print("Gaussian kernel density, sigma %g m, weights w, no edge correction, "
              "density per m^2. Error against the reference (below) on the same cells: "
              "max |tool - exact| / (sum|w| / (2 pi sigma^2)) (gridkit's epsilon scale) / max "
              "relative where exact > 1e-3 of its max. spatstat's density.ppp convolves the points "
              "binned on its pixel grid by FFT: its error is not bounded and grows with "
              "pixel / sigma. scikit-learn's rtol is a relative bound, at least as strict as "
              "gridkit's absolute one at the same E." % a.sigma)
        print()
        print("| tool | points -> grid | tool, whole command (s) | tool, its computation (s) | "
              "gridkit, whole command (s) | speed-up | error: abs / rel |")
        print("|---|---|---:|---:|---:|---:|---|")
        table_rows(grows)
        print()
        if gres.get("gridkit", (0, 0, 0, ""))[3]:
            print("gridkit's prepared job: %s" % gres["gridkit"][3].split(":", 1)[1].strip())
            print()
        print("References (error on the abs scale above): " + "; ".join(gres["references"]))
        print()
    print("Versions: " + "; ".join("%s %s" % kv for kv in sorted(versions_cache.items())))
    print()
    print("Commands (work folder %s):" % work)
    print()
    print("```")
    for label, c in COMMANDS:
        print("# " + label)
        print(c)
    print("```")
    if "heatmap" not in skip and "grass" not in skip:
        print()
        print("vkernel.sh, run by grass --exec:")
        print("```sh" + GRASS_SH + "```")


if __name__ == "__main__":
    main()
