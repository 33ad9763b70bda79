#!/usr/bin/python3
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
]
for s, want in BAD:
    r = run(["gdalinfo", s])
    check(r.returncode != 0 and "ERROR" in r.stderr and want in r.stderr
          and "Traceback" not in r.stderr and r.returncode < 128,
          "bad string fails cleanly: %s -> %s" % (s.replace(DATA, "DATA"),
                                                   r.stderr.strip().splitlines()[0][:120]
                                                   if r.stderr.strip() else "(nothing)"))

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

print("%d failure(s)" % len(FAILS))
sys.exit(1 if FAILS else 0)
