#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The GDAL plugin gdal_GRIDKIT.so against the CLI.

usage: test_plugin.py GRIDKIT_CLI PLUGIN_DIR DATA_DIR WORK_DIR

Every check runs GDAL's own programs (gdalinfo, gdal_translate) or GDAL's
Python bindings with GDAL_DRIVER_PATH=PLUGIN_DIR, so the plugin is loaded
the way every GDAL process loads it.
"""
import ctypes
import os
import shutil
import subprocess
import sys
import threading
import time

import numpy as np

CLI, PLUGDIR, DATA, WORK = sys.argv[1:5]
os.environ["GDAL_DRIVER_PATH"] = PLUGDIR
from osgeo import gdal  # noqa: E402  (after GDAL_DRIVER_PATH)

gdal.UseExceptions()
FAILS = []
MEUSE = os.path.join(DATA, "meuse.gpkg")


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILS.append(what)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def cli(args, out):
    r = run([CLI, "grid", "-q"] + args + [out])
    if r.returncode:
        raise RuntimeError("gridkit grid %s: %s" % (args, r.stderr))
    return out


def arrays(path):
    ds = gdal.Open(path)
    return [ds.GetRasterBand(b + 1).ReadAsArray() for b in range(ds.RasterCount)]


def same(a, b):
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def conn(args):
    """GRIDKIT: open string from an argument list (single-quoted words)."""
    return "GRIDKIT:" + " ".join("'%s'" % a.replace("'", "'\\''") if " " in a or "'" in a else a
                                 for a in args)


os.makedirs(WORK, exist_ok=True)
os.chdir(WORK)

# ---- the plugin loads, cheaply, without CUDA ---------------------------
so = os.path.join(PLUGDIR, "gdal_GRIDKIT.so")
r = run(["gdalinfo", "--formats"])
check(r.returncode == 0 and "GRIDKIT -raster,vector-" in r.stdout,
      "gdalinfo --formats lists GRIDKIT (raster: grids, vector: GRIDKIT:ridges)")
check("ERROR" not in r.stderr, "loading prints no error (%s)" % r.stderr.strip()[:200])
if shutil.which("readelf"):
    d = run(["readelf", "-d", so]).stdout
    needed = [ln.split("[")[1].rstrip("]") for ln in d.splitlines() if "(NEEDED)" in ln]
    check(not any("cuda" in n.lower() for n in needed), "no CUDA library in DT_NEEDED: %s" % needed)
    check(not any("cairo" in n for n in needed), "no cairo in DT_NEEDED (plots are CLI-only)")
# A process whose loader can find no CUDA library at all still loads it.
env = dict(os.environ, LD_LIBRARY_PATH="", CUDA_VISIBLE_DEVICES="", GRIDKIT_DEVICE="auto")
r = run(["gdalinfo", "-checksum", conn(["-zfield", "logzinc", "-outsize", "64", "64", MEUSE])],
        env=env)
check(r.returncode == 0 and "Checksum=" in r.stdout and "ERROR" not in r.stderr,
      "opens and reads with no CUDA library available")

# GDALRegister_GRIDKIT() itself: well under a millisecond.
libgdal = ctypes.CDLL("libgdal.so.32", mode=ctypes.RTLD_GLOBAL)
plug = ctypes.CDLL(so)
drv = gdal.GetDriverByName("GRIDKIT")
if drv is not None:
    drv.Deregister()
best = 1e9
for _ in range(5):
    d = gdal.GetDriverByName("GRIDKIT")
    if d is not None:
        d.Deregister()
    t0 = time.perf_counter()
    plug.GDALRegister_GRIDKIT()
    best = min(best, time.perf_counter() - t0)
check(gdal.GetDriverByName("GRIDKIT") is not None and best < 1e-3,
      "GDALRegister_GRIDKIT() registers in %.1f us (< 1 ms)" % (best * 1e6))
# our copy is registered once more by the driver manager; drop duplicates
dups = [i for i in range(gdal.GetDriverCount()) if gdal.GetDriver(i).ShortName == "GRIDKIT"]
check(len(dups) == 1, "registered once (%d)" % len(dups))

# ---- gdal_translate of GRIDKIT: == gridkit grid, pixel for pixel ---------
CASES = [
    ["-zfield", "logzinc", "-a", "invdistnn:radius=1000:max_points=12", "-outsize", "300", "257",
     MEUSE],
    ["-zfield", "logzinc", "-a", "invdist:power=2:smoothing=5", "-outsize", "520", "300", MEUSE],
    ["-zfield", "logzinc", "-a", "linear:nodata=-9999", "-txe", "178500", "181600", "-tye",
     "329600", "333700", "-tr", "10", "10", MEUSE],
    ["-zfield", "logzinc", "-a", "kriging:model=Sph:psill=0.59:range=897:nugget=0.05",
     "-outsize", "300", "280", MEUSE],
    ["-zfield", "logzinc", "-a", "aidw", "-ot", "Float32", "-outsize", "270", "300", MEUSE],
    # Float32 tiles from the engine (gk_job_compute_window_typed), both kriging planes
    ["-zfield", "logzinc", "-a", "kriging:model=Sph:psill=0.59:range=897:nugget=0.05:max_points=20",
     "-ot", "Float32", "-outsize", "300", "280", MEUSE],
    ["-a", "nearest:nodata=0", "-ot", "Int16", "-outsize", "257", "300",
     os.path.join(DATA, "random_500.gpkg")],
    ["-zfield", "val", "-l", "pts_a", "-l", "pts_b", "-a", "average:radius1=150:radius2=150",
     "-outsize", "300", "300", os.path.join(DATA, "multi.gpkg")],
    ["-a", "count:radius1=400:radius2=400", "-outsize", "280", "260",
     os.path.join(DATA, "points_10k.xyz")],
]
for i, args in enumerate(CASES):
    name = " ".join(a for a in args if not a.startswith("/"))
    try:
        ref = cli(args, "cli_%d.tif" % i)
    except RuntimeError as e:
        check(False, str(e))
        continue
    r = run(["gdal_translate", "-q", conn(args), "plug_%d.tif" % i])
    if r.returncode:
        check(False, "gdal_translate %s: %s" % (name, r.stderr))
        continue
    a, b = gdal.Open(ref), gdal.Open("plug_%d.tif" % i)
    ok = a.RasterCount == b.RasterCount and all(
        same(x, y) for x, y in zip(arrays(ref), arrays("plug_%d.tif" % i)))
    meta = (a.GetGeoTransform() == b.GetGeoTransform()
            and a.GetSpatialRef() is None) == (b.GetSpatialRef() is None) and all(
        a.GetRasterBand(k).GetDescription() == b.GetRasterBand(k).GetDescription()
        and a.GetRasterBand(k).GetNoDataValue() == b.GetRasterBand(k).GetNoDataValue()
        and a.GetRasterBand(k).DataType == b.GetRasterBand(k).DataType
        for k in range(1, a.RasterCount + 1))
    sa, sb = a.GetSpatialRef(), b.GetSpatialRef()
    meta = meta and (sa is None or sa.IsSame(sb)) and all(
        b.GetMetadataItem(k) == v for k, v in a.GetMetadata().items() if k.startswith("GRIDKIT"))
    check(ok and meta, "gdal_translate == gridkit grid (%d band(s)): %s" % (a.RasterCount, name))

# ---- same bytes: every algorithm, 1, 2 and 7 threads, CLI tiles and plugin blocks
# (a result depends on its inputs only)
UTM = os.path.join(DATA, "utm_2000.shp")
SAME = [(MEUSE, "logzinc", a) for a in [
    "invdist", "invdist:power=3:radius1=600:radius2=400:angle=30:max_points=10:min_points=2",
    "invdistnn:radius=700:max_points=12:min_points=3", "average:radius1=500:radius2=300:angle=20",
    "nearest:radius1=400:radius2=400", "minimum:radius1=500:radius2=500",
    "maximum:radius1=500:radius2=500", "range:radius1=500:radius2=500",
    "count:radius1=500:radius2=500", "average_distance:radius1=500:radius2=500",
    "average_distance_pts:radius1=500:radius2=500", "linear", "aidw",
    "kriging:model=Sph:psill=0.59:range=897:nugget=0.05:max_points=20",
    "kriging:model=Exp:psill=0.6:range=500:nugget=0.05",
    "kriging:type=universal:drift=linear:model=Sph:psill=0.5:range=900:nugget=0.05"]] + [
    (UTM, "elev", a) for a in [
        "invdist:power=2:radius1=300:radius2=300", "average:radius1=250:radius2=250",
        "kriging:model=Sph:psill=1000:range=3000:nugget=10:max_points=16"]]
for src, zf, alg in SAME:
    base = ["-zfield", zf, "-a", alg, "-outsize", "301", "263", src]
    outs = []
    try:
        for t in ("1", "2", "7"):
            outs.append(arrays(cli(["--threads", t] + base, "same_t%s.tif" % t)))
    except RuntimeError as e:
        check(False, str(e))
        continue
    r = run(["gdal_translate", "-q", conn(base), "same_plug.tif"])
    if r.returncode:
        check(False, "gdal_translate %s: %s" % (alg, r.stderr))
        continue
    outs.append(arrays("same_plug.tif"))
    ok = all(len(o) == len(outs[0]) and all(same(x, y) for x, y in zip(o, outs[0]))
             for o in outs[1:])
    check(ok, "same bytes with 1, 2, 7 threads and plugin blocks: %s %s" %
          (os.path.basename(src), alg))

# ---- a .gridkit file, relative source path, opened from another folder --
os.makedirs("job", exist_ok=True)
shutil.copy(MEUSE, "job/meuse.gpkg")
with open("job/idw.gridkit", "w") as f:
    f.write("# the meuse zinc, log scale\n-zfield logzinc\n"
            "-a invdistnn:radius=1000:max_points=12\n-outsize 300 257\nmeuse.gpkg\n")
r = run(["gdal_translate", "-q", os.path.abspath("job/idw.gridkit"),
         os.path.abspath("file.tif")], cwd="/")
check(r.returncode == 0 and same(arrays("file.tif")[0], arrays("cli_0.tif")[0]),
      ".gridkit file (relative source) == gridkit grid %s" % r.stderr.strip())
r = run(["gdalinfo", "job/idw.gridkit"])
check(r.returncode == 0 and "Driver: GRIDKIT" in r.stdout, "gdalinfo opens a .gridkit file")
with open("other.txt", "w") as f:
    f.write("-a nearest meuse.gpkg\n")
r = run(["gdalinfo", "other.txt"])
check("GRIDKIT" not in r.stdout + r.stderr, "a non-.gridkit text file is not claimed")

# a binary .gridkit file, or a GRIDKIT: string with escape
# sequences, is refused without echoing its bytes (GDAL's "ERROR" lines only:
# gdalinfo repeats the name itself)
with open("binary.gridkit", "wb") as f:
    f.write(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8 + b" -a nearest x.gpkg\n")
with open("escape.gridkit", "wb") as f:
    f.write(b"-a nearest \x1b[2J\x1b]0;title\x07 x.gpkg\n")
for name in ("binary.gridkit", "escape.gridkit", "GRIDKIT:-a \x1b[31mred x.gpkg"):
    r = subprocess.run(["gdalinfo", name], capture_output=True)
    err = b"\n".join(l for l in r.stderr.splitlines() if l.startswith(b"ERROR"))
    raw = [c for c in err if c < 32 or c == 127]
    check(r.returncode != 0 and err and not raw and len(err) < 1500 and
          (b"?[31m" in err if name.startswith("GRIDKIT:") else b"not a text file" in err),
          "%r refused with a sanitised message: %r" % (name, err[:300]))

# a UTF-8 byte order mark (what Windows editors put first) is skipped, as
# GDAL's own text readers skip it: the file reads as without it (it made
# "\ufeff#" no comment and "\ufeff-zfield" the source name)
JOB = ("# the meuse zinc, log scale\n-zfield logzinc\n"
       "-a invdistnn:radius=1000:max_points=12\n-outsize 300 257\nmeuse.gpkg\n")
for name, text in (("bom_comment", JOB), ("bom_option", JOB.split("\n", 1)[1])):
    with open("job/%s.gridkit" % name, "wb") as f:
        f.write(b"\xef\xbb\xbf" + text.encode())
    r = run(["gdal_translate", "-q", "job/%s.gridkit" % name, name + ".tif"])
    check(r.returncode == 0 and same(arrays(name + ".tif")[0], arrays("cli_0.tif")[0]),
          ".gridkit file with a UTF-8 BOM (%s) == gridkit grid %s"
          % (text.split()[0], r.stderr.strip()[:200]))
# not UTF-8 text: the message names the offending byte and its offset (it
# said offset 0 for any invalid UTF-8), a UTF-16 file says so, and a C1
# control character (U+009B, a terminal's CSI) is refused, never echoed
NOT_TEXT = [("utf16.gridkit", JOB.encode("utf-16"), b"byte 0xFF at offset 0: a UTF-16 byte order mark"),
            ("latin1.gridkit", b"-zfield logzinc -a nearest m\xe9use.gpkg\n",
             b"byte 0xE9 at offset 28: not UTF-8"),
            ("c1.gridkit", b"-a nearest \xc2\x9b31mx.gpkg\n",
             b"byte 0xC2 at offset 11: a control character")]
for name, data, want in NOT_TEXT:
    with open(name, "wb") as f:
        f.write(data)
    r = subprocess.run(["gdalinfo", name], capture_output=True)
    err = b"\n".join(l for l in r.stderr.splitlines() if l.startswith(b"ERROR"))
    check(r.returncode != 0 and b"not a text file" in err and want in err
          and b"\xc2\x9b" not in err, "%s refused: %r" % (name, err[:300]))

# linear on collinear points warns through CPLError
with open("line.xyz", "w") as f:
    f.write("x y z\n0 0 1\n1 1 2\n2 2 3\n")
r = run(["gdal_translate", "-q", "GRIDKIT:-a linear -outsize 4 4 " + os.path.abspath("line.xyz"),
         "line.tif"])
check(r.returncode == 0 and "Warning" in r.stderr and "nearest" in r.stderr,
      "GRIDKIT: linear on collinear points warns: %r" % r.stderr.strip()[:300])

# ---- Python bindings: a window, and only its blocks are computed --------
big = ["-zfield", "logzinc", "-a", "invdistnn:radius=1000:max_points=12", "-outsize", "1000",
       "1000", MEUSE]
ref = arrays(cli(big, "big.tif"))[0]
ds = gdal.Open(conn(big))
w = ds.GetRasterBand(1).ReadAsArray(300, 200, 250, 100)
check(same(w, ref[200:300, 300:550]), "Python: window (300,200,250,100) == CLI window")
n = int(ds.GetMetadataItem("WINDOWS_COMPUTED", "GRIDKIT_DEBUG"))
check(n == 4, "the window computed the 2x2 blocks it touches only (%d)" % n)
ds.GetRasterBand(1).ReadAsArray(300, 200, 250, 100)
n2 = int(ds.GetMetadataItem("WINDOWS_COMPUTED", "GRIDKIT_DEBUG"))
check(n2 == n, "a second read comes from the block cache (%d)" % n2)
full = ds.GetRasterBand(1).ReadAsArray()
check(same(full, ref), "Python: whole raster == CLI")
ds = None

r = run(["gdal_translate", "--debug", "on", "-srcwin", "600", "600", "100", "100", conn(big),
         "srcwin.tif"])
nwin = r.stderr.count("GRIDKIT: computed window")
check(r.returncode == 0 and nwin == 1 and same(arrays("srcwin.tif")[0], ref[600:700, 600:700]),
      "gdal_translate -srcwin computes one 256x256 block of 16 (%d) and == CLI" % nwin)

# ---- overviews: the surface computed at the coarser resolution ---------
ext = ["-txe", "178600", "181400", "-tye", "329700", "333600"]
base = ["-zfield", "logzinc", "-a", "invdistnn:radius=1000:max_points=12"] + ext
ds = gdal.Open(conn(base + ["-outsize", "1000", "800", MEUSE]))
b = ds.GetRasterBand(1)
sizes = [(b.GetOverview(k).XSize, b.GetOverview(k).YSize) for k in range(b.GetOverviewCount())]
check(sizes == [(500, 400), (250, 200)], "overviews 2x, 4x until < 256 px: %s" % sizes)
o = b.GetOverview(1).ReadAsArray()
ref4 = arrays(cli(base + ["-outsize", "250", "200", MEUSE], "ovr4.tif"))[0]
check(same(o, ref4), "overview 4x == gridkit grid at 250x200")
ds = None

# ---- sides near 2^31 - 1: sizes in 64 bits --------------------------------
# Overview k (factor f = 2^k) has ceil(n / f) pixels a side, down to the first
# that fits in one 256 x 256 block. 2147483647 x 5 gave -1073741824 x 3 (n + f
# - 1 overflowed an int), and a 2147483000 side stopped at factor 512
# (4194303 px) after a negative one, so a 100 x 100 translate computed 10,000
# blocks of it: 40 s to minutes and 1.3 GB, against one block at 1e9.
def ovr_sizes(nx, ny):
    out, f = [], 2
    while max(-(-nx // (f // 2)), -(-ny // (f // 2))) > 256:
        out.append((-(-nx // f), -(-ny // f)))
        f *= 2
    return out


INT_MAX = 2147483647
for nx, ny in ((INT_MAX, 5), (2147483000, 2147483000), (INT_MAX, INT_MAX), (1, INT_MAX)):
    ds = gdal.Open(conn(["-zfield", "logzinc", "-a", "nearest", "-outsize", str(nx), str(ny),
                         MEUSE]))
    b = ds.GetRasterBand(1)
    sizes = [(b.GetOverview(k).XSize, b.GetOverview(k).YSize) for k in range(b.GetOverviewCount())]
    check(sizes == ovr_sizes(nx, ny) and len(sizes) == 23 and sizes[-1][0] <= 256 and
          sizes[-1][1] <= 256, "%d x %d: 23 overviews, ceil(n / 2^k), down to %s: %s ... %s"
          % (nx, ny, sizes[-1:], sizes[:2], sizes[-2:]))
check(ovr_sizes(INT_MAX, 5)[0] == (1073741824, 3), "the first overview of 2147483647 x 5 is "
      "1073741824 x 3")
ds = gdal.Open(conn(["-zfield", "logzinc", "-a", "invdistnn:radius=1000:max_points=12",
                     "-outsize", "2147483000", "2147483000", MEUSE]))
t0 = time.perf_counter()
small = gdal.Translate("/vsimem/small.tif", ds, width=100, height=100)
dt = time.perf_counter() - t0
n = int(ds.GetMetadataItem("WINDOWS_COMPUTED", "GRIDKIT_DEBUG"))
check(small is not None and n == 1 and dt < 5,
      "2147483000^2 to 100 x 100: one block of the 256 x 256 overview (%d), %.2f s" % (n, dt))
small = ds = None
gdal.Unlink("/vsimem/small.tif")
# The last rows of a 2147483647 x 2147483647 grid: the row of blocks there ends
# at 2^31 (it overflowed). Those 300 x 300 nodes lie within 1 mm of the
# corner (xmax, ymin) of the points' box, so nearest gives every one the Z of
# the point nearest that corner.
pts = []
src = gdal.OpenEx(MEUSE, gdal.OF_VECTOR)
for f in src.GetLayer(0):
    g = f.GetGeometryRef()
    pts.append((g.GetX(), g.GetY(), f.GetField("logzinc")))
src = None
x1, y0 = max(p[0] for p in pts), min(p[1] for p in pts)
d2 = sorted(((p[0] - x1) ** 2 + (p[1] - y0) ** 2, p[2]) for p in pts)
assert d2[0][0] < d2[1][0]
ds = gdal.Open(conn(["-zfield", "logzinc", "-a", "nearest", "-outsize", str(INT_MAX),
                     str(INT_MAX), MEUSE]))
c = INT_MAX - 300
corner = ds.GetRasterBand(1).ReadAsArray(c, c, 300, 300)
check(corner is not None and corner.shape == (300, 300) and (corner == d2[0][1]).all(),
      "band read of the last 300 x 300 of 2147483647^2: the nearest point's %.6f" % d2[0][1])
corner = ds.ReadAsArray(c, c, 300, 300)
check(corner is not None and corner.shape == (300, 300) and (corner == d2[0][1]).all(),
      "dataset read of the last 300 x 300 of 2147483647^2")
ds = None

# ---- several handles, several threads (QGIS) ------------------------------
res, errs = {}, []


def reader(k):
    try:
        d = gdal.Open(conn(big))
        res[k] = d.GetRasterBand(1).ReadAsArray(100 * k, 0, 300, 1000)
    except Exception as e:  # noqa: BLE001
        errs.append(str(e))


ths = [threading.Thread(target=reader, args=(k,)) for k in range(4)]
[t.start() for t in ths]
[t.join() for t in ths]
check(not errs and all(same(res[k], ref[:, 100 * k:100 * k + 300]) for k in range(4)),
      "4 threads x 4 handles read consistent windows %s" % errs[:1])

# ---- gdalinfo is instant on a 100000 x 100000 grid -----------------------
huge = conn(["-zfield", "logzinc", "-a", "invdistnn:radius=1000", "-outsize", "100000", "100000",
             MEUSE])
t0 = time.perf_counter()
r = run(["gdalinfo", huge])
dt = time.perf_counter() - t0
check(r.returncode == 0 and "Size is 100000, 100000" in r.stdout and dt < 2.0,
      "gdalinfo on 100000x100000 in %.3f s (< 2 s)" % dt)

# ---- bad strings fail cleanly, saying why ---------------------------------
BAD = [
    ("GRIDKIT:", "no source"),
    ("GRIDKIT:-a bogus " + MEUSE, "unknown algorithm 'bogus'"),
    ("GRIDKIT:-zfield logzinc /nonexistent/pts.gpkg", "/nonexistent/pts.gpkg"),
    ("GRIDKIT:-zfield 'logzinc " + MEUSE, "unterminated ' quote"),
    ("GRIDKIT:-zfield logzinc " + MEUSE + " out.tif", "no output name"),
    ("GRIDKIT:-zfield nosuchfield " + MEUSE, "nosuchfield"),
    ("GRIDKIT:-ot Foo -zfield logzinc " + MEUSE, "unknown data type 'Foo'"),
    ("GRIDKIT:-outsize 0 10 " + MEUSE, "-outsize"),
    ("GRIDKIT:--threads 0 " + MEUSE, "--threads 0: the thread count must be from 1 to"),
]
for s, want in BAD:
    r = run(["gdalinfo", s])
    check(r.returncode != 0 and "ERROR" in r.stderr and want in r.stderr
          and "Traceback" not in r.stderr and r.returncode < 128,
          "bad string fails cleanly: %s -> %s" % (s.replace(DATA, "DATA"),
                                                   r.stderr.strip().splitlines()[0][:120]
                                                   if r.stderr.strip() else "(nothing)"))

# a grid opened as a vector dataset, or for update: refused, saying what it is;
# a name too long for a message: cut at 240 bytes, marked with "..."
GRID = "GRIDKIT:-zfield logzinc -outsize 5 5 " + MEUSE
r = run(["ogrinfo", "-ro", "-so", GRID])
check(r.returncode != 0 and "is a raster dataset (a grid): open it with gdalinfo" in r.stderr,
      "a GRIDKIT: grid opened as vector: told it is a raster dataset (%s)" %
      r.stderr.strip()[:120])
try:
    gdal.OpenEx(GRID, gdal.OF_RASTER | gdal.OF_UPDATE)
    msg = ""
except RuntimeError as e:
    msg = str(e)
check(msg.endswith(": the dataset is read-only"), "a GRIDKIT: grid opened for update: read-only "
      "(%s)" % msg[-60:])
LONG = "GRIDKIT:-zfield logzinc /nonexistent/" + "d" * 400 + ".gpkg"
r = run(["gdalinfo", LONG])
err = [ln for ln in r.stderr.splitlines() if ln.startswith("ERROR") and "(in '" in ln]
shown = err[0].split("(in '", 1)[1] if err else ""
check(r.returncode != 0 and shown == LONG[:240] + "...')",
      "a long GRIDKIT: string: shown cut to 240 bytes and '...' (%s)" % shown[-40:])

# gauss method=ifgt where no plan meets epsilon: GDAL's error, not a crash
# of the host (the plugin ran tiles without expansions: SIGSEGV)
import random  # noqa: E402
rnd = random.Random(7)
with open("ifgt_narrow.xyz", "w") as f:
    f.write("x y z\n")
    for _ in range(5000):
        f.write("%r %r 1\n" % (rnd.uniform(0, 1000), rnd.uniform(0, 1000)))
ifgt_args = "-a gauss:bandwidth=1:method=ifgt -outsize 10 10 " + os.path.abspath("ifgt_narrow.xyz")
with open("ifgt_narrow.gridkit", "w") as f:
    f.write(ifgt_args + "\n")
for src in ("GRIDKIT:" + ifgt_args, "ifgt_narrow.gridkit"):
    r = run(["gdal_translate", "-q", src, "ifgt_narrow.tif"])
    check(r.returncode != 0 and r.returncode < 128 and "no plan meets epsilon" in r.stderr
          and "method=cutoff" in r.stderr,
          "ifgt without a plan fails cleanly (%s): rc %d, %s" %
          (src[:20], r.returncode, r.stderr.strip()[:160]))
try:
    gdal.Open("GRIDKIT:-a bogus " + MEUSE)
    check(False, "Python: a bad string raises")
except RuntimeError as e:
    check("unknown algorithm" in str(e), "Python: a bad string raises: %s" % str(e)[:80])

# ---- GRIDKIT:ridges is read-only: its layer claims no write capability
# (it handed out the Memory driver's layer: writable, and written to)
from osgeo import ogr  # noqa: E402
RCONN = "GRIDKIT:ridges " + MEUSE + " -a curve:r1=300"
ds = gdal.OpenEx(RCONN, gdal.OF_VECTOR)
lyr = ds.GetLayer(0)
n0, fields0 = lyr.GetFeatureCount(), lyr.GetLayerDefn().GetFieldCount()
WRITES = [ogr.OLCSequentialWrite, ogr.OLCRandomWrite, ogr.OLCCreateField, ogr.OLCDeleteField,
          ogr.OLCReorderFields, ogr.OLCAlterFieldDefn, ogr.OLCDeleteFeature,
          ogr.OLCCreateGeomField, ogr.OLCTransactions, ogr.OLCRename, "UpsertFeature",
          "AlterGeomFieldDefn"]
claimed = [c for c in WRITES if lyr.TestCapability(c)]
check(n0 > 0 and not claimed, "GRIDKIT:ridges layer (%d lines) claims no write capability %s"
      % (n0, claimed))
check(not any(ds.TestCapability(c) for c in (ogr.ODsCCreateLayer, ogr.ODsCDeleteLayer)),
      "GRIDKIT:ridges dataset: no layer creation or deletion")


def refused(f):
    try:
        return f() != 0
    except RuntimeError:
        return True


feat = ogr.Feature(lyr.GetLayerDefn())
feat.SetGeometry(ogr.CreateGeometryFromWkt("LINESTRING (0 0, 1 1)"))
first = lyr.GetFeature(lyr.GetNextFeature().GetFID())
lyr.ResetReading()
tries = {
    "CreateFeature": lambda: lyr.CreateFeature(feat),
    "SetFeature": lambda: lyr.SetFeature(first),
    "DeleteFeature": lambda: lyr.DeleteFeature(first.GetFID()),
    "CreateField": lambda: lyr.CreateField(ogr.FieldDefn("extra", ogr.OFTInteger)),
    "DeleteField": lambda: lyr.DeleteField(0),
    "ALTER TABLE": lambda: (ds.ExecuteSQL("ALTER TABLE %s ADD COLUMN other integer"
                                          % lyr.GetName()), 0)[1],
}
done = [k for k, f in tries.items() if not refused(f)]
check(not done and lyr.GetFeatureCount() == n0 and
      lyr.GetLayerDefn().GetFieldCount() == fields0,
      "GRIDKIT:ridges layer: every write refused, nothing changed %s" % done)
lines = [f.GetGeometryRef().GetPointCount() for f in lyr]
check(len(lines) == n0 and all(k >= 2 for k in lines), "GRIDKIT:ridges layer still reads")
lyr = ds = None
try:
    u = gdal.OpenEx(RCONN, gdal.OF_VECTOR | gdal.OF_UPDATE)
except RuntimeError as e:
    u, why = None, str(e)
check(u is None and "read-only" in why, "GRIDKIT:ridges in update mode: refused (%s)" % why[:80])

# ---- .gridkit files: their folder, paths inside -a and -clipsrc, size -----------
# opened from its own folder (the path has no folder part): as from elsewhere
r = run(["gdal_translate", "-q", "idw.gridkit", os.path.abspath("here.tif")], cwd="job")
check(r.returncode == 0 and same(arrays("here.tif")[0], arrays("cli_0.tif")[0]),
      ".gridkit opened from its own folder == gridkit grid %s" % r.stderr.strip()[:200])
# a relative source that is not in the file's folder stays as written
with open("job/missing.gridkit", "w") as f:
    f.write("-zfield logzinc -outsize 10 10 nosuch.gpkg\n")
r = run(["gdalinfo", "job/missing.gridkit"])
check(r.returncode != 0 and "cannot open nosuch.gpkg" in r.stderr,
      ".gridkit with a missing relative source: the error names it as written (%s)"
      % r.stderr.strip()[-120:])
# -clipsrc and a one-letter variogram=FILE beside the .gridkit file: taken from its folder
with open("job/clip.geojson", "w") as f:
    f.write('{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},'
            '"geometry":{"type":"Polygon","coordinates":[[[179000,330000],[180500,330000],'
            '[180500,332500],[179000,332500],[179000,330000]]]}}]}')
with open("job/v", "w") as f:
    f.write('{"model":[{"model":"Nug","psill":0.05},{"model":"Sph","psill":0.59,"range":897}]}')
KRIG = ["-zfield", "logzinc", "-outsize", "80", "70"]
with open("job/clipped.gridkit", "w") as f:
    f.write(" ".join(KRIG) + " -a kriging:variogram=v:max_points=20 -clipsrc clip.geojson "
            "meuse.gpkg\n")
ref = cli(KRIG + ["-a", "kriging:model=Sph:psill=0.59:range=897:nugget=0.05:max_points=20",
                  "-clipsrc", os.path.abspath("job/clip.geojson"), MEUSE], "clipped_cli.tif")
r = run(["gdal_translate", "-q", os.path.abspath("job/clipped.gridkit"),
         os.path.abspath("clipped.tif")], cwd="/")
check(r.returncode == 0 and all(same(x, y) for x, y in zip(arrays("clipped.tif"),
                                                           arrays(ref))),
      ".gridkit with -clipsrc and variogram=v from its folder == gridkit grid %s"
      % r.stderr.strip()[:200])
# more than 1 MB: refused, saying so
with open("big.gridkit", "w") as f:
    f.write(("#" * 1023 + "\n") * 1100 + "-a nearest " + MEUSE + "\n")
r = run(["gdalinfo", "big.gridkit"])
check(r.returncode != 0 and "cannot read big.gridkit (or larger than 1 MB)" in r.stderr,
      "a .gridkit file over 1 MB: refused (%s)" % r.stderr.strip()[-100:])
# invalid UTF-8 in a GRIDKIT: string: shown as '?', the byte never echoed
r = subprocess.run(["gdalinfo", b"GRIDKIT:-a nearest m\xe9use.gpkg"], capture_output=True)
err = b"\n".join(l for l in r.stderr.splitlines() if l.startswith(b"ERROR"))
check(r.returncode != 0 and b"(in 'GRIDKIT:-a nearest m?use.gpkg')" in err and b"\xe9" not in err,
      "invalid UTF-8 in a GRIDKIT: string: shown as '?' (%r)" % err[-80:])

# ---- overviews out of range, the debug counters, a band's cache flushed ------------
KCONN = conn(["-zfield", "logzinc", "-a",
              "kriging:model=Sph:psill=0.59:range=897:nugget=0.05:max_points=20",
              "-outsize", "600", "300", MEUSE])
ds = gdal.Open(KCONN)
b1, b2 = ds.GetRasterBand(1), ds.GetRasterBand(2)
check(b1.GetOverviewCount() == 2 and b1.GetOverview(-1) is None and b1.GetOverview(2) is None,
      "GetOverview(-1) and GetOverview(count): none")
b2.ReadAsArray(0, 0, 10, 10)  # one block, both planes: band 1's is kept too
n1 = int(ds.GetMetadataItem("WINDOWS_COMPUTED", "GRIDKIT_DEBUG"))
nodes1 = int(ds.GetMetadataItem("NODES_COMPUTED", "GRIDKIT_DEBUG"))
b1.FlushCache()  # band 1's blocks dropped, band 2's kept
# 3 blocks (256, 256 and 88 wide), recomputed; band 2's first one is there already
row1 = b1.ReadAsArray(0, 0, 600, 10)
n2 = int(ds.GetMetadataItem("WINDOWS_COMPUTED", "GRIDKIT_DEBUG"))
row2 = b2.ReadAsArray(0, 0, 600, 10)  # all from the cache
n3 = int(ds.GetMetadataItem("WINDOWS_COMPUTED", "GRIDKIT_DEBUG"))
nodes3 = int(ds.GetMetadataItem("NODES_COMPUTED", "GRIDKIT_DEBUG"))
kref = arrays(cli(["-zfield", "logzinc", "-a",
                   "kriging:model=Sph:psill=0.59:range=897:nugget=0.05:max_points=20",
                   "-outsize", "600", "300", MEUSE], "krig600.tif"))
full_blk = 256 * 256
check((n1, n2, n3) == (1, 4, 4) and
      (nodes1, nodes3) == (full_blk, full_blk + 256 * (256 + 256 + 88)) and
      ds.GetMetadataItem("NO_SUCH_ITEM", "GRIDKIT_DEBUG") is None and
      same(row1, kref[0][:10]) and same(row2, kref[1][:10]),
      "a flushed band recomputes its blocks and keeps the other band's: windows %s, nodes %s"
      % ((n1, n2, n3), (nodes1, nodes3)))
ds = None

# ---- a job that cannot be built, read through several blocks at once ---------------
ifgt_wide = ifgt_args.replace("-outsize 10 10", "-outsize 600 300")
r = run(["gdal_translate", "-q", "GRIDKIT:" + ifgt_wide, "ifgt_wide.tif"])
check(r.returncode != 0 and r.returncode < 128 and "no plan meets epsilon" in r.stderr,
      "ifgt without a plan, dataset read of several blocks: fails cleanly (%s)"
      % r.stderr.strip()[:120])
ds = gdal.Open("GRIDKIT:" + ifgt_wide)  # kept: a band outlives no dataset
try:
    ds.GetRasterBand(1).ReadAsArray()
    msg = ""
except RuntimeError as e:
    msg = str(e)
ds = None
check("no plan meets epsilon" in msg, "ifgt without a plan, band read of several blocks: "
      "raises (%s)" % msg[:120])

print("%d failure(s)" % len(FAILS))
sys.exit(1 if FAILS else 0)
