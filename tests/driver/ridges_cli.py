#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""`gridkit ridges` end to end, and the plugin's GRIDKIT:ridges against it.

usage: ridges_cli.py GRIDKIT_CLI PLUGIN_DIR WORK_DIR

The input is made here: points around a circle of radius 100 with Gaussian
noise (sigma 2) across it, in GeoPackage (EPSG:28992, Z = a plane) and CSV.
"""
import hashlib
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import time

CLI, PLUGDIR, WORK = sys.argv[1:4]
os.environ["GDAL_DRIVER_PATH"] = PLUGDIR
from osgeo import gdal, ogr, osr  # noqa: E402  (after GDAL_DRIVER_PATH)

gdal.UseExceptions()
FAILS = []
R, SIGMA, N = 100.0, 2.0, 2000
CIRCLE = []  # the points (x, y, z), made by make_inputs()
METHOD = "curve:r1=5"  # r1 = 2.5 sigma, as the seed cases' r1 = 2 sigma


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILS.append(what)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def ridges(args, **kw):
    return run([CLI, "ridges"] + args, **kw)


def make_inputs():
    global CIRCLE
    rnd = random.Random(24)
    pts = CIRCLE = []
    for _ in range(N):
        a, r = rnd.uniform(0, 2 * math.pi), R + rnd.gauss(0, SIGMA)
        x, y = 180000 + r * math.cos(a), 330000 + r * math.sin(a)
        pts.append((x, y, 0.01 * (x - 180000) + 5))
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(28992)
    ds = ogr.GetDriverByName("GPKG").CreateDataSource("circle.gpkg")
    lyr = ds.CreateLayer("points", srs, ogr.wkbPoint25D)
    for x, y, z in pts:
        f = ogr.Feature(lyr.GetLayerDefn())
        g = ogr.Geometry(ogr.wkbPoint25D)
        g.AddPoint(x, y, z)
        f.SetGeometry(g)
        lyr.CreateFeature(f)
    ds = None
    with open("circle.csv", "w") as f:  # repr: the same doubles back
        f.write("x,y,z\n" + "".join("%r,%r,%r\n" % p for p in pts))
    ds = ogr.GetDriverByName("GPKG").CreateDataSource("two.gpkg")
    lyr = ds.CreateLayer("points", srs, ogr.wkbPoint)
    for x in (0.0, 1.0):
        f = ogr.Feature(lyr.GetLayerDefn())
        f.SetGeometry(ogr.CreateGeometryFromWkt("POINT (%r 0)" % x))
        lyr.CreateFeature(f)
    ds = None


def features(path_or_ds):
    """(vertices, fields) of every feature, in order; exact doubles."""
    ds = path_or_ds if not isinstance(path_or_ds, str) else gdal.OpenEx(path_or_ds,
                                                                        gdal.OF_VECTOR)
    lyr = ds.GetLayer(0)  # ds stays referenced while lyr is read
    out = []
    for f in lyr:
        g = f.GetGeometryRef()
        out.append((g.GetPoints(), [f.GetField(i) for i in range(f.GetFieldCount())]))
    return out


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def temps():
    return [n for n in os.listdir(".") if ".gridkit-tmp-" in n]


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
os.chdir(WORK)
make_inputs()
SRC_SHA = sha("circle.gpkg")

# ---- help ---------------------------------------------------------------
r = ridges(["--help"])
check(r.returncode == 0 and "curve" in r.stdout and "density" in r.stdout and "-nln" in r.stdout,
      "ridges --help lists the methods and the options")

# ---- GeoPackage in, GeoPackage out ------------------------------------------
r = ridges(["circle.gpkg", "out.gpkg", "-a", METHOD])
check(r.returncode == 0, "ridges circle.gpkg out.gpkg (%s)" % r.stderr.strip()[-300:])
check("Device:" in r.stderr and "100 - done" in r.stderr and "Lines: " in r.stderr,
      "it reports the device, the lines and GDAL's progress")
ds = gdal.OpenEx("out.gpkg", gdal.OF_VECTOR)
lyr = ds.GetLayer(0)
check(ds.GetDriver().ShortName == "GPKG" and lyr.GetName() == "ridges",
      "a GeoPackage (from the extension) with the layer 'ridges'")
check(lyr.GetGeomType() == ogr.wkbLineString, "geometry type LineString")
SRC_DS = gdal.OpenEx("circle.gpkg", gdal.OF_VECTOR)  # kept open: its SRS lives in it
src_srs = SRC_DS.GetLayer(0).GetSpatialRef().Clone()
SRC_DS = None
check(lyr.GetSpatialRef() is not None and lyr.GetSpatialRef().IsSame(src_srs),
      "the CRS is the source's (EPSG:28992)")
defn = lyr.GetLayerDefn()
fields = {defn.GetFieldDefn(i).GetName(): defn.GetFieldDefn(i) for i in range(defn.GetFieldCount())}
want = {"length": ogr.OFTReal, "n_support": ogr.OFTInteger64, "closed": ogr.OFTInteger,
        "mean_density": ogr.OFTReal, "width": ogr.OFTReal, "method": ogr.OFTString}
check(all(k in fields and fields[k].GetType() == t for k, t in want.items()),
      "fields length, n_support, closed, mean_density, width, method with their types")
check("closed" in fields and fields["closed"].GetSubType() == ogr.OFSTBoolean,
      "closed is a boolean")
feats = list(lyr)
check(len(feats) == 1, "a circle gives one line (%d)" % len(feats))
if feats:
    f = feats[0]
    pts = f.GetGeometryRef().GetPoints()
    dev = max(abs(math.hypot(x - 180000, y - 330000) - R) for x, y in pts)
    # the line follows the mean of many points: 2 sigma off would be a bad
    # line, far beyond what averaging leaves
    check(dev < 2 * SIGMA, "every vertex within 2 sigma of the true circle (max %.3f)" % dev)
    check(f.GetField("closed") == 1 and pts[0] == pts[-1], "the line is a closed ring")
    L = f.GetField("length")
    # a ring inside the band of noise: its length within 5 % of 2 pi R
    check(abs(L - 2 * math.pi * R) < 0.05 * 2 * math.pi * R, "length %.2f ~ 2 pi R" % L)
    # support distance r2 = 10 = 5 sigma: nearly every point is within it
    check(f.GetField("n_support") >= 0.95 * N, "n_support %d >= 95 %%" % f.GetField("n_support"))
    # mean |noise| of a Gaussian is 0.8 sigma
    check(0.25 * SIGMA < f.GetField("width") < 2 * SIGMA, "width %.3f ~ 0.8 sigma" %
          f.GetField("width"))
    check(f.IsFieldNull("mean_density"), "mean_density is null for curve")
    check(f.GetField("method").startswith("curve:") and "r1=5" in f.GetField("method"),
          "method holds the values used (%s)" % f.GetField("method"))
ds = None
GPKG_FEATS = features("out.gpkg")

# an iteration cap hit: the lines written, the warning on stderr even with -q
r = ridges(["circle.gpkg", "capped.gpkg", "-a", METHOD + ":max_iter=2:max_rounds=1", "-q"])
check(r.returncode == 0 and "Warning:" in r.stderr and "max_iter" in r.stderr and
      os.path.exists("capped.gpkg"), "a cap hit: written, and warned even with -q")

# ---- determinism ----------------------------------------------------------
time.sleep(1.1)  # a timestamp written by the second would differ now
r = ridges(["circle.gpkg", "again.gpkg", "-a", METHOD, "-q"])
check(r.returncode == 0 and sha("again.gpkg") == sha("out.gpkg"),
      "the same input gives the same GeoPackage, byte for byte (dates pinned)")
r1 = ridges(["circle.gpkg", "t1.gpkg", "-a", METHOD, "-q", "--threads", "1"])
r2 = ridges(["circle.gpkg", "t2.gpkg", "-a", METHOD, "-q", "--threads", "2"])
check(r1.returncode == 0 and r2.returncode == 0 and features("t1.gpkg") == features("t2.gpkg")
      and sha("t1.gpkg") == sha("t2.gpkg"), "--threads 1 and 2: the same features and bytes")
r = ridges(["circle.gpkg", "out.gpkg", "-a", METHOD, "-q"])
check(r.returncode == 0 and features("out.gpkg") == GPKG_FEATS and not temps(),
      "an existing output is replaced, no temporary left")

# ---- CSV in ------------------------------------------------------------------
r = ridges(["circle.csv", "csv.gpkg", "-a", METHOD, "-q", "-oo", "X_POSSIBLE_NAMES=x",
            "-oo", "Y_POSSIBLE_NAMES=y", "-nln", "fromcsv"])
ok = r.returncode == 0
if ok:
    ds = gdal.OpenEx("csv.gpkg", gdal.OF_VECTOR)
    srs = ds.GetLayer(0).GetSpatialRef()
    # none: GeoPackage keeps it as its "undefined" SRS (no authority)
    ok = ds.GetLayer(0).GetName() == "fromcsv" and (srs is None or not srs.GetAuthorityCode(None))
    ds = None
check(ok, "CSV in (-oo X/Y_POSSIBLE_NAMES), -nln: the layer named, no CRS (%s)" %
      r.stderr.strip()[-200:])
check(ok and features("csv.gpkg") == GPKG_FEATS, "CSV in: the same lines as from the GeoPackage")
r = ridges(["circle.csv", "csv2.gpkg", "-a", METHOD, "-q", "-oo", "X_POSSIBLE_NAMES=x",
            "-oo", "Y_POSSIBLE_NAMES=y", "-a_srs", "EPSG:28992"])
ds = gdal.OpenEx("csv2.gpkg") if r.returncode == 0 else None
check(ds is not None and ds.GetLayer(0).GetSpatialRef().IsSame(src_srs), "-a_srs gives the CRS")
ds = None

# ---- without --3d z is not read (docs/ridges.md) -------------------------------
# X and Y only: a 2-column XYZ file, and a CSV whose z is empty or NaN in
# two rows of three, read without -oo (its x and y columns found as QGIS
# finds them), give the GeoPackage's lines: no point is dropped for its z
with open("circle2.xyz", "w") as f:
    f.write("".join("%r %r\n" % (x, y) for x, y, _ in CIRCLE))
with open("circle_nanz.csv", "w") as f:
    f.write("x,y,z\n" + "".join("%r,%r,%s\n" % (x, y, ("", "nan", repr(z))[i % 3])
                                for i, (x, y, z) in enumerate(CIRCLE)))
XY_OO = ["-oo", "X_POSSIBLE_NAMES=x", "-oo", "Y_POSSIBLE_NAMES=y"]
for args in (["circle2.xyz"], ["circle_nanz.csv"], ["circle_nanz.csv", "-zfield", "z"] + XY_OO,
             ["circle_nanz.csv", "-oo", "Z_POSSIBLE_NAMES=z"] + XY_OO):
    r = ridges(args + ["xy.gpkg", "-a", METHOD])
    ok = r.returncode == 0 and "Layer \"%s\": %d points." % (args[0].split(".")[0], N) in r.stderr
    check(ok and features("xy.gpkg") == GPKG_FEATS,
          "%s without --3d: every point read, the same lines (%s)" % (" ".join(args),
                                                                      r.stderr.strip()[-200:]))
# -zfield without --3d: not read (a field that is not there is no error), and said
r = ridges(["circle_nanz.csv", "xy.gpkg", "-a", METHOD, "-zfield", "nosuch"])
check(r.returncode == 0 and "-zfield not read" in r.stderr and
      features("xy.gpkg") == GPKG_FEATS, "-zfield without --3d: not read, said (%s)" %
      r.stderr.strip()[-200:])
# with --3d z is required as before: the empty and NaN rows are skipped and counted
r = ridges(["circle_nanz.csv", "xy3.gpkg", "-a", METHOD, "-q", "--3d", "-zfield", "z"])
check(r.returncode == 0, "--3d -zfield z on the CSV (%s)" % r.stderr.strip()[-200:])
r = ridges(["circle_nanz.csv", "xy3.gpkg", "-a", METHOD, "--3d", "-zfield", "z"])
check("Skipped %d points" % (N - N // 3) in r.stderr, "--3d: the rows without z skipped, "
      "counted (%s)" % r.stderr.strip()[-200:])
r = ridges(["circle2.xyz", "bad.gpkg", "-a", METHOD, "-q", "--3d"])
check(r.returncode != 0 and "line 1" in r.stderr and not os.path.exists("bad.gpkg"),
      "--3d on a 2-column XYZ file: refused (%s)" % r.stderr.strip()[-160:])

# ---- other drivers -------------------------------------------------------------
r = ridges(["circle.gpkg", "out.shp", "-a", METHOD, "-q", "-of", "ESRI Shapefile"])
ok = r.returncode == 0 and os.path.exists("out.prj") and os.path.exists("out.dbf")
check(ok, "-of 'ESRI Shapefile': .shp, .dbf, .prj (%s)" % r.stderr.strip()[-200:])
if ok:
    ds = gdal.OpenEx("out.shp", gdal.OF_VECTOR)
    lyr = ds.GetLayer(0)
    check(lyr.GetFeatureCount() == len(GPKG_FEATS) and lyr.GetSpatialRef().IsSame(src_srs),
          "the shapefile has the lines and the CRS")
    check([g for g, _ in features("out.shp")] == [g for g, _ in GPKG_FEATS],
          "the shapefile's vertices are the GeoPackage's")
    sum1 = sha("out.dbf")
    time.sleep(1.1)
    ridges(["circle.gpkg", "out.shp", "-a", METHOD, "-q"])
    check(sha("out.dbf") == sum1 and not temps(), "shapefile: the same .dbf again (DBF date pinned)")
r = ridges(["circle.gpkg", "out.geojson", "-a", METHOD, "-q"])
check(r.returncode == 0 and gdal.OpenEx("out.geojson").GetDriver().ShortName == "GeoJSON",
      "GeoJSON guessed from .geojson")

# ---- formats whose files are more than one, or that hold no geometry by default ----
# GML: the schema (.xsd) is renamed with the .gml, which names it
r = ridges(["circle.gpkg", "out.gml", "-a", METHOD, "-q"])
gml = open("out.gml").read() if os.path.exists("out.gml") else ""
check(r.returncode == 0 and os.path.exists("out.xsd") and 'schemaLocation="http://ogr.maptools.org/ '
      'out.xsd"' in gml and not temps() and
      [len(g) for g, _ in features("out.gml")] == [len(g) for g, _ in GPKG_FEATS],
      "GML: out.gml and the out.xsd it names, no temporary (%s)" % r.stderr.strip()[-200:])
# CSV: the lines as WKT unless -lco GEOMETRY says otherwise
r = ridges(["circle.gpkg", "out.csv", "-a", METHOD, "-q"])
check(r.returncode == 0 and "LINESTRING" in open("out.csv").read() and
      len(features("out.csv")) == len(GPKG_FEATS), "CSV: the geometry as WKT (%s)" %
      r.stderr.strip()[-200:])
# MapInfo has no 64-bit integers: n_support as a 32-bit one
r = ridges(["circle.gpkg", "out.tab", "-a", METHOD, "-q"])
check(r.returncode == 0 and features("out.tab") and
      features("out.tab")[0][1][1] == GPKG_FEATS[0][1][1] and not temps(),
      "MapInfo: written, n_support kept (%s)" % r.stderr.strip()[-200:])
# GDAL's warnings name the output, never the temporary
r = ridges(["circle.gpkg", "lco.gpkg", "-a", METHOD, "-q", "-lco", "NO_SUCH_OPTION=1"])
check(r.returncode == 0 and "lco.gpkg" in r.stderr and "NO_SUCH_OPTION" in r.stderr and
      "gridkit-tmp" not in r.stderr, "an -lco warning names lco.gpkg (%s)" % r.stderr.strip()[-200:])

# ---- 3-D -------------------------------------------------------------------------
r = ridges(["circle.gpkg", "out3d.gpkg", "-a", METHOD, "-q", "--3d"])
ok = r.returncode == 0
if ok:
    ds = gdal.OpenEx("out3d.gpkg")
    lyr = ds.GetLayer(0)
    ok = lyr.GetGeomType() == ogr.wkbLineString25D
    feat = lyr.GetNextFeature()  # kept: the geometry lives in it
    g = feat.GetGeometryRef()
    # z is the plane 0.01 (x - 180000) + 5 on the points: on the line too, to
    # within what the line's 2 sigma off the circle moves x
    zerr = max(abs(z - (0.01 * (x - 180000) + 5)) for x, y, z in g.GetPoints())
    check(zerr < 0.01 * 2 * SIGMA + 0.05, "--3d: z follows the points' plane (max off %.3f)" %
          zerr)
    ds = None
check(ok, "--3d gives LineStringZ (%s)" % r.stderr.strip()[-200:])

# ---- bad input: an error, no output, the input untouched ------------------------
with open("keep.gpkg", "wb") as f:
    f.write(open("out.gpkg", "rb").read())
KEEP = sha("keep.gpkg")
BAD = [(["circle.gpkg", "bad.gpkg"], "-a", "missing -a"),
       (["two.gpkg", "bad.gpkg", "-a", METHOD], "2 points", "fewer than 3 points"),
       (["circle.gpkg", "bad.gpkg", "-a", "curve:r1=0"], "r1", "r1 = 0"),
       (["circle.gpkg", "bad.gpkg", "-a", "curve:r1=-2"], "r1", "r1 < 0"),
       (["circle.gpkg", "bad.gpkg", "-a", "curve:r1=5:r2=3"], "r2", "r2 < r1"),
       (["circle.gpkg", "bad.gpkg", "-a", "nosuch:r1=5"], "nosuch", "unknown method"),
       (["circle.gpkg", "circle.gpkg", "-a", METHOD], "circle.gpkg", "output == input"),
       (["circle.gpkg", "./circle.gpkg", "-a", METHOD], "circle.gpkg", "output == input, spelt "
        "otherwise"),
       (["circle.gpkg", "bad.gpkg", "-a", METHOD, "-of", "NoSuchDriver"], "NoSuchDriver",
        "unknown driver"),
       (["circle.gpkg", "bad.tif", "-a", METHOD, "-of", "GTiff"], "vector", "a raster driver"),
       (["circle.gpkg", "bad.tif", "-a", METHOD], "'.tif'", "a raster extension (no GeoPackage)"),
       (["circle.gpkg", "bad.svg", "-a", METHOD], "'.svg'", "a read-only format's extension"),
       (["circle.gpkg", "bad.parquet", "-a", METHOD], "'.parquet'", "an extension this GDAL lacks"),
       (["circle.gpkg", "bad.arrow", "-a", METHOD], "'.arrow'", "an extension this GDAL lacks"),
       (["circle.gpkg", "bad.gpkg", "-a", METHOD, "-of", "Memory"], "writes no file",
        "a driver that writes no file"),
       (["circle.gpkg", "bad.gdb", "-a", METHOD, "-of", "OpenFileGDB"], "folder",
        "a driver that writes a folder"),
       (["circle.gpkg", "bad.gpkg", "-a", METHOD, "-outsize", "10", "10"], "-outsize",
        "a grid-only option"),
       (["circle.gpkg", "bad.gpkg", "-a", METHOD, "-zfield", "nosuch", "--3d"], "nosuch",
        "an unknown -zfield"),
       (["nosuch.gpkg", "bad.gpkg", "-a", METHOD], "nosuch.gpkg", "a missing source"),
       (["two.gpkg", "bad.gpkg", "-a", METHOD, "--3d"], "--3d needs a z", "--3d on 2-D points"),
       (["two.gpkg", "keep.gpkg", "-a", METHOD], "2 points", "a failed run over an existing "
        "output"),
       # the key at fault is named (cutoff was blamed on the bandwidth), with its bound
       (["circle.gpkg", "bad.gpkg", "-a", "density:cutoff=1e-300"],
        "cutoff=1e-300 is too small for the points' extent", "a cutoff too small for the bins"),
       (["circle.gpkg", "bad.gpkg", "-a", "density:bandwidth=5e-324"],
        "bandwidth=5e-324 is below 2.2250738585072014e-308", "a subnormal bandwidth"),
       # hours of walking refused up front (it ran on)
       (["circle.gpkg", "bad.gpkg", "-a", "density:tolerance=1e-300:max_iter=1000000000"],
        "tolerance=1e-300 must be from 2.220446049250313e-16", "a tolerance below rounding"),
       (["circle.gpkg", "bad.gpkg", "-a", "density:max_iter=1000000000"],
        "max_iter=1000000000 must be a whole number from 1 to 1000000", "max_iter beyond its "
        "bound"),
       (["circle.gpkg", "bad.gpkg", "-a", METHOD, "-a_srs", "nonsense"],
        "-a_srs: cannot understand 'nonsense'", "an -a_srs no CRS parser reads"),
       (["circle.gpkg", "bad.gpkg", "-a", METHOD, "--device", "bogus"],
        "--device: 'bogus' is not auto, cpu, cuda or cuda:N", "an unknown --device"),
       (["circle.gpkg", "bad.gpkg", "-a", METHOD, "--threads", "100000"],
        "--threads 100000: too many threads; at most", "a thread count past the limit"),
       (["circle.gpkg", "bad.gpkg", "-a", METHOD, "-l", "points", "-l", "points"],
        "2 layers selected; choose one with -l", "two layers: ridges reads one"),
       (["circle.gpkg", "bad.gpkg", "-a", METHOD, "-of", "ESRI Shapefile"],
        "bad.gpkg: a shapefile's name must end in .shp", "a shapefile not named .shp (a folder)"),
       (["circle.gpkg", "", "-a", METHOD], "output: no file name", "an empty output name")]
for args, word, what in BAD:
    try:
        r = ridges(args + ["-q"], timeout=120)
    except subprocess.TimeoutExpired:
        check(False, "%s: still running after 120 s" % what)
        continue
    msg = r.stderr.strip()
    check(r.returncode != 0 and "gridkit ridges: error:" in msg and word in msg,
          "%s: an error naming it (%s)" % (what, msg.splitlines()[-1][:160] if msg else ""))
    check(not any(os.path.exists("bad." + e) for e in ("gpkg", "tif", "svg", "parquet", "arrow",
                                                       "gdb")) and not temps(),
          "%s: no output or temporary left" % what)
    check(sha("circle.gpkg") == SRC_SHA and sha("keep.gpkg") == KEEP,
          "%s: the input and an existing output untouched" % what)

# an output without an extension: a GeoPackage, as GDAL's vector programs make
r = ridges(["circle.gpkg", "noext", "-a", METHOD, "-q"])
ds = gdal.OpenEx("noext", gdal.OF_VECTOR) if r.returncode == 0 else None
check(ds is not None and ds.GetDriver().ShortName == "GPKG" and not temps(),
      "an output without an extension is a GeoPackage (%s)" % r.stderr.strip()[-160:])
ds = None
check(r.returncode == 0 and features("noext") == GPKG_FEATS, "no extension: the same lines")

# a vertex with a NaN X among the points (a line's): skipped and counted, the
# lines those of the points alone
ds = ogr.GetDriverByName("GPKG").CreateDataSource("nanx.gpkg")
lyr = ds.CreateLayer("points", src_srs, ogr.wkbUnknown)
for x, y, _ in CIRCLE:
    f = ogr.Feature(lyr.GetLayerDefn())
    f.SetGeometry(ogr.CreateGeometryFromWkt("POINT (%r %r)" % (x, y)))
    lyr.CreateFeature(f)
f = ogr.Feature(lyr.GetLayerDefn())
g = ogr.Geometry(ogr.wkbLineString)
g.AddPoint_2D(float("nan"), 330000.0)
g.AddPoint_2D(float("inf"), 330000.0)
f.SetGeometry(g)
lyr.CreateFeature(f)
ds = None
r = ridges(["nanx.gpkg", "nanx_out.gpkg", "-a", METHOD])
check(r.returncode == 0 and "Skipped 2 points with a NaN or infinite X/Y." in r.stderr and
      "%d points." % N in r.stderr, "NaN and infinite X: 2 points skipped and said (%s)" %
      r.stderr.strip()[-200:])
check(r.returncode == 0 and features("nanx_out.gpkg") == GPKG_FEATS,
      "NaN and infinite X: the lines of the other points")

# a FIFO as the output: refused at once, never opened (it would hang)
os.mkfifo("fifo.gpkg")
r = ridges(["circle.gpkg", "fifo.gpkg", "-a", METHOD, "-q"], timeout=60)
check(r.returncode != 0 and "fifo.gpkg" in r.stderr and not temps(),
      "a FIFO output is refused (%s)" % r.stderr.strip()[-160:])
os.unlink("fifo.gpkg")

# ---- SIGINT / SIGTERM mid-run: nothing left --------------------------------------
def big_input():
    rnd = random.Random(5)
    with open("big.csv", "w") as f:  # a noisy spiral long enough to take a while
        f.write("x,y\n")
        for _ in range(100000):
            t = rnd.uniform(0, 6 * math.pi)
            f.write("%r,%r\n" % (10 * t * math.cos(t) + rnd.gauss(0, 2),
                                 10 * t * math.sin(t) + rnd.gauss(0, 2)))


big_input()
for sig in (signal.SIGINT, signal.SIGTERM):
    p = subprocess.Popen([CLI, "ridges", "big.csv", "cancel.gpkg", "-a", METHOD, "-q", "-oo",
                          "X_POSSIBLE_NAMES=x", "-oo", "Y_POSSIBLE_NAMES=y"],
                         stderr=subprocess.DEVNULL)
    t0 = time.time()
    while not temps() and p.poll() is None and time.time() - t0 < 30:
        time.sleep(0.005)  # the temporary exists from before the points are read
    running = p.poll() is None
    p.send_signal(sig)
    p.wait()
    check(running and p.returncode == -sig, "%s mid-run: killed by it (exit %s)" %
          (signal.Signals(sig).name, p.returncode))
    check(not temps() and not os.path.exists("cancel.gpkg"),
          "%s mid-run: no temporary, no output" % signal.Signals(sig).name)

# ---- the plugin: GRIDKIT:ridges -------------------------------------------------
CONN = "GRIDKIT:ridges circle.gpkg -a " + METHOD
r = run(["ogrinfo", "-ro", "-al", "-so", CONN])
check(r.returncode == 0 and "Layer name: ridges" in r.stdout and "Feature Count: %d" %
      len(GPKG_FEATS) in r.stdout, "ogrinfo GRIDKIT:ridges lists the layer and its count (%s)"
      % r.stderr.strip()[-200:])
ds = gdal.OpenEx(CONN, gdal.OF_VECTOR)
check(features(ds) == GPKG_FEATS, "GRIDKIT:ridges: the same features as the CLI's")
check(ds.GetLayer(0).GetSpatialRef().IsSame(src_srs), "GRIDKIT:ridges: the source's CRS")
# the read-only layer still filters and positions as any OGR layer does
lyr = ds.GetLayer(0)
xmin, xmax, ymin, ymax = lyr.GetExtent()
check(abs(xmin - (180000 - R)) < 3 * SIGMA and abs(ymax - (330000 + R)) < 3 * SIGMA and
      lyr.GetExtent(geom_field=0) == (xmin, xmax, ymin, ymax),
      "GRIDKIT:ridges: the extent is the circle's, for geometry field 0 too")
check(lyr.GetGeometryColumn() == "" and lyr.GetFIDColumn() == "",
      "GRIDKIT:ridges: no named geometry or FID column (a layer in memory)")
check(lyr.SetAttributeFilter("closed = 1") == 0 and lyr.GetFeatureCount() == 1 and
      lyr.SetAttributeFilter("closed = 0") == 0 and lyr.GetFeatureCount() == 0 and
      lyr.SetAttributeFilter(None) == 0 and lyr.GetFeatureCount() == 1,
      "GRIDKIT:ridges: an attribute filter keeps the closed ring, drops it for closed = 0")
check(lyr.SetAttributeFilter("nosuch = 1") != 0, "GRIDKIT:ridges: a bad attribute filter fails")
lyr.SetAttributeFilter(None)
lyr.SetSpatialFilterRect(0, 0, 1, 1)
check(lyr.GetSpatialFilter() is not None and lyr.GetFeatureCount() == 0,
      "GRIDKIT:ridges: a spatial filter far from the circle keeps nothing")
lyr.SetSpatialFilterRect(0, xmin, ymin, xmin + 1, ymin + R)  # geometry field 0: crosses the ring
n_cross = lyr.GetFeatureCount()
lyr.SetSpatialFilter(0, ogr.CreateGeometryFromWkt("POINT (0 0)").Buffer(1))
n_far = lyr.GetFeatureCount()
lyr.SetSpatialFilter(None)
check(n_cross == 1 and n_far == 0 and lyr.GetSpatialFilter() is None and
      lyr.GetFeatureCount() == 1, "GRIDKIT:ridges: spatial filters by geometry field index (%d, %d)"
      % (n_cross, n_far))
check(lyr.SetIgnoredFields(["width", "method"]) == 0, "GRIDKIT:ridges: fields may be ignored")
lyr.SetIgnoredFields([])
check(lyr.SetNextByIndex(0) == 0 and features(ds) == GPKG_FEATS,
      "GRIDKIT:ridges: SetNextByIndex(0), then the same features")
ds = None
r = run(["ogrinfo", "-ro", "-so", "GRIDKIT:ridges circle.gpkg second.gpkg -a " + METHOD])
check(r.returncode != 0 and "'second.gpkg' is a second positional argument" in r.stderr and
      "no output name" in r.stderr, "GRIDKIT:ridges with an output name: refused, saying why")
r = run(["ogr2ogr", "-f", "GPKG", "via_plugin.gpkg", CONN])
check(r.returncode == 0 and features("via_plugin.gpkg") == GPKG_FEATS,
      "ogr2ogr from GRIDKIT:ridges == the CLI's file")
r = run(["gdalinfo", CONN])
check(r.returncode != 0 and "vector dataset" in r.stderr, "gdalinfo GRIDKIT:ridges: told it is a "
      "vector dataset")
r = run(["ogrinfo", "-ro", "GRIDKIT:ridges circle.gpkg -a curve:r1=5:r2=1"])
check(r.returncode != 0 and "r2" in r.stderr, "a bad -a in the open string: GDAL's error names it")
with open("job.gridkit", "w") as f:
    f.write("# the lines of circle.gpkg\nridges circle.gpkg -a %s -nln fromfile\n" % METHOD)
os.makedirs("elsewhere", exist_ok=True)
r = run(["ogrinfo", "-ro", "-so", "-al", os.path.join(WORK, "job.gridkit")], cwd="elsewhere")
check(r.returncode == 0 and "Layer name: fromfile" in r.stdout,
      "a .gridkit file starting with 'ridges' opens as vector, paths from its folder")
# an absolute source in a .gridkit file is kept; a relative one that is not in the
# file's folder stays as written, and the error names it so
with open(os.path.join("elsewhere", "abs.gridkit"), "w") as f:
    f.write("ridges %s -a %s\n" % (os.path.join(WORK, "circle.gpkg"), METHOD))
check(features(os.path.join(WORK, "elsewhere", "abs.gridkit")) == GPKG_FEATS,
      "a ridges .gridkit file with an absolute source: the CLI's features")
with open(os.path.join("elsewhere", "missing.gridkit"), "w") as f:
    f.write("ridges nosuch.gpkg -a %s\n" % METHOD)
r = run(["ogrinfo", "-ro", "-so", os.path.join(WORK, "elsewhere", "missing.gridkit")])
check(r.returncode != 0 and "cannot open nosuch.gpkg" in r.stderr and "missing.gridkit" in r.stderr,
      "a ridges .gridkit file with a missing source: refused, naming it (%s)"
      % r.stderr.strip()[-160:])
# a source that fails in the computation (2 points: too few for any line)
r = run(["ogrinfo", "-ro", "-so", "GRIDKIT:ridges two.gpkg -a " + METHOD])
want = ridges(["-q", "two.gpkg", "-a", METHOD, "two_cli.gpkg"])
cli_why = want.stderr.strip().split("error: ", 1)[-1]
check(r.returncode != 0 and want.returncode != 0 and cli_why and cli_why in r.stderr and
      "(in 'GRIDKIT:ridges two.gpkg" in r.stderr,
      "GRIDKIT:ridges on 2 points: the CLI's error, and the open string (%s)" % cli_why[:100])
# a cap hit: GDAL's warning says which, and the lines are the CLI's
r = run(["ogr2ogr", "-f", "GPKG", "capped_plugin.gpkg", CONN + ":max_iter=2:max_rounds=1"])
check(r.returncode == 0 and "Warning" in r.stderr and "max_iter" in r.stderr and
      features("capped_plugin.gpkg") == features("capped.gpkg"),
      "GRIDKIT:ridges with a cap hit: warned, the CLI's lines (%s)" % r.stderr.strip()[:120])
ds = gdal.OpenEx(CONN, gdal.OF_VECTOR)
check(ds.GetLayerCount() == 1 and ds.GetLayer(1) is None and ds.GetLayer(-1) is None,
      "GRIDKIT:ridges: one layer; no layer at index 1 or -1")
ds = None
# without --3d the lines are 2-D: a Z scaling given is said to be unused
r = ridges(["circle.gpkg", "-a", METHOD, "-z_multiply", "2", "zmul.gpkg"])
check(r.returncode == 0 and "Note: -z_increase/-z_multiply not read" in r.stderr and
      features("zmul.gpkg") == GPKG_FEATS,
      "ridges -z_multiply without --3d: a note, the same lines")

print("%d failure(s)" % len(FAILS))
sys.exit(1 if FAILS else 0)
