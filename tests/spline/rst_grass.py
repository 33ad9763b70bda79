#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-a rst against GRASS 8.2's v.surf.rst (Debian's grass-core), in one segment.

usage: rst_grass.py GRIDKIT DATA_DIR WORK_DIR

Each case imports the points into a throw-away GRASS location (v.in.ogr), sets the
region to the raster's grid (g.region: the same cell centres), runs v.surf.rst and
exports the surface (r.out.gdal, Float64 of GRASS's Float32 cells). The first cases
give segmax at least the number of points and npmin at least half of it, so that the
whole region is one segment (docs/dev/v_surf_rst.md, section 5); the segmented ones
leave v.surf.rst its quadtree (segmax=40, npmin=300 by default: 10 to 94 segments). gridkit runs `-a rst` with
the same tension, smooth, npmin, dmin and zscale; every node, rounded to Float32 as
GRASS stores it, must be v.surf.rst's cell or the Float32 next to it (and so within
1e-6 of it); how many are not the very same Float32 is printed. The cases cover meuse (2-D points, z from
a column), thinning by dmin (72 of 155 points dropped), zscale, 500 points with z
in the geometry, and coincident points with different z (the first kept).
Ends with "N passed, M failed"; a failure prints "FAIL ".
"""
import os
import shutil
import subprocess
import sys

import numpy as np
from osgeo import gdal, ogr

gdal.UseExceptions()
TOL = 1e-6

MEUSE = ("meuse.gpkg", "meuse", "logzinc", (178440, 181560, 329600, 333760, 78, 104))
RANDOM = ("random_500.gpkg", "random_500", None, (0, 1000, 0, 1000, 50, 50))
DUPLICATES = ("integer_grid.csv", "integer_grid", None, (-0.5, 40.5, -0.5, 40.5, 41, 41))

# data set, v.surf.rst's keys (segmax and npmin set for one segment), gridkit's -a
CASES = [
    (MEUSE, "tension=40 smooth=0.1 npmin=155 dmin=20", "rst:tension=40:smooth=0.1:npmin=155:dmin=20"),
    (MEUSE, "tension=20 smooth=0.5 npmin=300 dmin=150", "rst:tension=20:smooth=0.5:npmin=300:dmin=150"),
    (MEUSE, "tension=60 smooth=0 npmin=100 dmin=5 zscale=2.5", "rst:tension=60:smooth=0:npmin=100:dmin=5:zscale=2.5"),
    (RANDOM, "tension=60 smooth=0.2 npmin=500 dmin=10", "rst:tension=60:smooth=0.2:npmin=500:dmin=10"),
    (RANDOM, "tension=15 smooth=1 npmin=300 dmin=0.5", "rst:tension=15:smooth=1:npmin=300:dmin=0.5"),
    (DUPLICATES, "tension=40 smooth=0.1 npmin=200 dmin=0", "rst:tension=40:smooth=0.1:npmin=200:dmin=0"),
]
UTM = ("utm_2000.shp", "utm_2000", "elev", (495000, 505000, 4995000, 5005100, 100, 101))
# v.surf.rst's segments: its keys as given (dmin: GRASS's default, half a cell)
SEG_CASES = [
    (MEUSE, "", "rst:dmin=20"),
    (RANDOM, "tension=60 smooth=0.2", "rst:tension=60:smooth=0.2:dmin=10"),
    (UTM, "", "rst:dmin=50"),
    (UTM, "npmin=120 segmax=30 tension=25 smooth=1", "rst:npmin=120:segmax=30:tension=25:smooth=1:dmin=50"),
]
DERIVATIVES = ["slope", "aspect", "pcurvature", "tcurvature", "mcurvature"]
# with every derivative band (v.surf.rst's slope=, aspect=, ... maps)
DER_CASES = [
    (RANDOM, "tension=40 smooth=0.1 npmin=500 dmin=10", "rst:tension=40:smooth=0.1:npmin=500:dmin=10"),
    (MEUSE, "tension=40 smooth=0.1 npmin=155 dmin=20 zscale=100", "rst:tension=40:smooth=0.1:npmin=155:dmin=20:zscale=100"),
    # log(zinc) over metres: half the cells "flat" (gradient <= 0.001), where
    # GRASS carries the row's last mean curvature
    (MEUSE, "tension=40 smooth=0.1 npmin=155 dmin=20", "rst:tension=40:smooth=0.1:npmin=155:dmin=20"),
]
# with v.surf.rst's segments (its defaults: 10 to 94 segments); GRASS's secpar
# carries a flat cell's mean curvature along a segment's row
DER_SEG_CASES = [
    (MEUSE, "zscale=100", "rst:dmin=20:zscale=100"),
    (MEUSE, "", "rst:dmin=20"),
    (RANDOM, "tension=60 smooth=0.2", "rst:tension=60:smooth=0.2:dmin=10"),
    (UTM, "", "rst:dmin=50"),
    (UTM, "npmin=120 segmax=30 tension=25 smooth=1", "rst:npmin=120:segmax=30:tension=25:smooth=1:dmin=50"),
]


def n_points(path, layer):
    ds = ogr.Open(path)
    return ds.GetLayerByName(layer).GetFeatureCount()


def grass_surface(work, data, case, keys, out, derivatives=False, one_segment=True, partials=False):
    """v.surf.rst's raster for one case, as a Float64 GeoTIFF at out (with
    derivatives: its slope, aspect and curvatures as out's bands 2 to 6)."""
    (f, layer, field, (w, e, s, n, cols, rows)) = case
    src = os.path.join(data, f)
    npts = n_points(src, layer)
    script = os.path.join(work, "rst.sh")
    with open(script, "w") as fh:
        fh.write("set -e\n")
        fh.write("v.in.ogr -o input=%s layer=%s output=pts --quiet --overwrite\n" % (src, layer))
        fh.write("g.region n=%r s=%r e=%r w=%r rows=%d cols=%d\n" % (n, s, e, w, rows, cols))
        der = " ".join("%s=%s" % (d, d) for d in DERIVATIVES) if derivatives else ""
        seg = "segmax=%d" % (2 * npts) if one_segment else ""
        fh.write("v.surf.rst %sinput=pts %s elevation=surf %s %s %s --quiet --overwrite\n"
                 % ("-d " if partials else "", "zcolumn=" + field if field else "", seg, keys,
                    der))
        if derivatives:
            fh.write("i.group group=all input=surf,%s --quiet\n" % ",".join(DERIVATIVES))
            fh.write("r.out.gdal -c input=all output=%s format=GTiff type=Float64 --quiet "
                     "--overwrite\n" % out)
        else:
            fh.write("r.out.gdal -c input=surf output=%s format=GTiff type=Float64 --quiet "
                     "--overwrite\n" % out)
    loc = os.path.join(work, "loc")
    shutil.rmtree(loc, ignore_errors=True)
    r = subprocess.run(["grass", "-e", "-c", "XY", loc], capture_output=True, text=True)
    if r.returncode:
        return "grass -c: " + r.stderr[-300:]
    r = subprocess.run(["grass", os.path.join(loc, "PERMANENT"), "--exec", "bash", script],
                       capture_output=True, text=True)
    if r.returncode or not os.path.exists(out):
        return "v.surf.rst: " + (r.stderr or r.stdout)[-500:]
    return None


def derivative_case(gk, data, work, case, keys, spec, one_segment=True, partials=False):
    """Each derivative band against v.surf.rst's map (partials: its -d maps,
    the raw partial derivatives); (passed, failed)."""
    (f, layer, field, (w, e, s, n, cols, rows)) = case
    ref, out = os.path.join(work, "grass_der.tif"), os.path.join(work, "gridkit_der.tif")
    for p in (ref, out):
        if os.path.exists(p):
            os.remove(p)
    err = grass_surface(work, data, case, keys, ref, derivatives=True, one_segment=one_segment,
                        partials=partials)
    if one_segment:
        spec += ":segmax=%d" % (2 * n_points(os.path.join(data, f), layer))
    spec += ":derivatives=" + ",".join(DERIVATIVES) + (":partials=yes" if partials else "")
    r = subprocess.run([gk, "grid", "-q", "-l", layer, "-zfield", field or "z", "-txe", repr(w),
                        repr(e), "-tye", repr(s), repr(n), "-outsize", str(cols), str(rows),
                        "-ot", "Float64", "-a", spec, os.path.join(data, f), out],
                       capture_output=True, text=True)
    if err or r.returncode:
        print("FAIL %s: %s" % (spec, err or r.stderr[-300:]))
        return 0, 1
    a, b = gdal.Open(out).ReadAsArray(), gdal.Open(ref).ReadAsArray()
    npass = nfail = 0
    for k, name in enumerate(["elevation"] + DERIVATIVES):
        a32 = a[k].astype(np.float32).astype(np.float64)
        diff = np.abs(a32 - b[k])
        step = np.spacing(np.abs(b[k]).astype(np.float32)).astype(np.float64)
        steps = float(np.max(diff / step))
        ok = np.isfinite(a[k]).all() and steps <= 1
        print("%s %s on %s, %s: %d of %d cells not GRASS's Float32 (at most %g steps)"
              % ("ok  " if ok else "FAIL",
                 spec.split(":derivatives")[0] + (" (-d)" if partials else ""), f, name,
                 int((a32 != b[k]).sum()), a32.size, steps))
        npass += ok
        nfail += not ok
    return npass, nfail


def main():
    gk, data, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    npass = nfail = 0
    cases = [(c, k, sp + ":segmax=%d" % (2 * n_points(os.path.join(data, c[0]), c[1])), True)
             for c, k, sp in CASES] + [(c, k, sp, False) for c, k, sp in SEG_CASES]
    for case, keys, spec, one in cases:
        (f, layer, field, (w, e, s, n, cols, rows)) = case
        ref = os.path.join(work, "grass.tif")
        out = os.path.join(work, "gridkit.tif")
        for p in (ref, out):
            if os.path.exists(p):
                os.remove(p)
        err = grass_surface(work, data, case, keys, ref, one_segment=one)
        if err:
            print("FAIL %s: %s" % (keys, err))
            nfail += 1
            continue
        cmd = [gk, "grid", "-q", "-l", layer, "-zfield", field or "z", "-txe", repr(w), repr(e),
               "-tye", repr(s), repr(n), "-outsize", str(cols), str(rows), "-ot", "Float64",
               "-a", spec, os.path.join(data, f), out]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            print("FAIL %s: gridkit: %s" % (spec, r.stderr[-300:]))
            nfail += 1
            continue
        a = gdal.Open(out).ReadAsArray()
        b = gdal.Open(ref).ReadAsArray()
        a32 = a.astype(np.float32).astype(np.float64)
        step = np.spacing(np.abs(b).astype(np.float32)).astype(np.float64)
        steps = float(np.max(np.abs(a32 - b) / step)) if np.isfinite(a).all() else np.inf
        rel = float(np.max(np.abs(a - b) / np.abs(b)))
        ok = steps <= 1 and rel <= TOL
        print("%s %s on %s (%dx%d): %d of %d cells not GRASS's Float32 (at most %g step), "
              "%.1e relative; %s" % (
                  "ok  " if ok else "FAIL", spec, f, cols, rows, int((a32 != b).sum()), a.size,
                  steps, rel, (r.stderr.strip().splitlines() or ["no warning"])[-1][:90]))
        npass += ok
        nfail += not ok
    for case, keys, spec in DER_CASES:
        p, f = derivative_case(gk, data, work, case, keys, spec)
        npass, nfail = npass + p, nfail + f
    for case, keys, spec in DER_SEG_CASES:
        p, f = derivative_case(gk, data, work, case, keys, spec, one_segment=False)
        npass, nfail = npass + p, nfail + f
    # v.surf.rst -d: the raw partial derivatives, in one segment and in segments
    for case, keys, spec, one in [(DER_CASES[0][0], DER_CASES[0][1], DER_CASES[0][2], True),
                                  (DER_SEG_CASES[1][0], DER_SEG_CASES[1][1], DER_SEG_CASES[1][2],
                                   False),
                                  (DER_SEG_CASES[3][0], DER_SEG_CASES[3][1], DER_SEG_CASES[3][2],
                                   False)]:
        p, f = derivative_case(gk, data, work, case, keys, spec, one_segment=one, partials=True)
        npass, nfail = npass + p, nfail + f
    print("%d passed, %d failed" % (npass, nfail))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
