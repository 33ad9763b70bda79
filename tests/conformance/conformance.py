#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Conformance suite: `gridkit grid` against Debian's gdal_grid 3.6, pixel by pixel.

    conformance.py GRIDKIT DATA_DIR WORK_DIR [GDAL_GRID] [-k SUBSTRING]

Each case runs gdal_grid and `gridkit grid -q` with the same gdal_grid
arguments and compares size, geotransform, type, band count, nodata flag and
value, SRS and every pixel. gdal_grid always runs with GDAL_USE_AVX=NO and
GDAL_USE_SSE=NO (its double-precision path). Where gridkit deliberately
differs from gdal_grid (docs/dev/gdal_grid.md, 'Where gridkit differs') the reference is
gdal_grid run so that it computes the correct answer (other algorithm,
brute-force path, explicit extent, combined runs); expected values never come
from gridkit. Prints one line per case and ends with "N passed, M failed".
"""
import math
import os
import shutil
import subprocess
import sys
import time

import numpy as np
from osgeo import gdal, ogr, osr

gdal.UseExceptions()
ogr.UseExceptions()
osr.UseExceptions()

DOUBLE = {"GDAL_USE_AVX": "NO", "GDAL_USE_SSE": "NO"}
# Forces gdal_grid's brute-force search (its quadtree paths are wrong for
# nearest with a radius and for average_distance_pts: docs/dev/gdal_grid.md,
# 'nearest honours the radius', 'average_distance_pts counts distinct pairs').
BRUTE = {"GDAL_GRID_POINT_COUNT_THRESHOLD": "1000000000"}
SENTINEL = "-1.2345e+30"  # "outside the hull" marker for the combined linear reference
TOL = 1e-9                # relative to max(1, max |reference|)
RUN_TIMEOUT = 300

# ---- grids --------------------------------------------------------------------
GR = ["-txe", "0", "1000", "-tye", "0", "1000", "-outsize", "100", "100"]
GU = ["-txe", "495000", "505000", "-tye", "4995000", "5005100", "-outsize", "100", "101"]
GI = ["-txe", "-0.5", "40.5", "-tye", "-0.5", "40.5", "-outsize", "41", "41"]  # nodes on integers
GL = ["-txe", "10.9995", "11.0195", "-tye", "47.9995", "48.0145", "-outsize", "80", "60"]
GX = ["-txe", "0", "5000", "-tye", "0", "5000", "-outsize", "120", "120"]
# the 20 x 20 lattice (60 m): nodes 1 m east of the points, 1 m east and north,
# and halfway between two points east-west
GA = ["-txe", "971", "2171", "-tye", "4970", "6170", "-outsize", "20", "20"]
GB = ["-txe", "971", "2171", "-tye", "4971", "6171", "-outsize", "20", "20"]
GM = ["-txe", "1000", "2140", "-tye", "4970", "6170", "-outsize", "19", "20"]
T = "lattice_400.csv"
R, U, I, L, M, X = ("random_500.gpkg", "utm_2000.shp", "integer_grid.csv", "latlon_300.gpkg",
                    "multi.gpkg", "points_10k.xyz")
ZU = ["-zfield", "elev"]


class Case:
    """name, source, gdal_grid args for both tools; ref: None (same args),
    a list (other gdal_grid args computing the correct answer) or
    ("linear", inside_args, outside_args, outside_env); env: extra env for
    gdal_grid; why: printed on failure ("differences #N": row N of
    docs/gdal_grid_differences.md, where gridkit departs from gdal_grid on
    purpose)."""

    def __init__(self, name, src, args, ref=None, env=None, tol=TOL, why=""):
        self.name, self.src, self.args = name, src, args
        self.ref, self.env, self.tol, self.why = ref, env or {}, tol, why


def A(spec):
    return ["-a", spec]


def linear_ref(grid, radius, nodata_kv=""):
    """linear inside the hull (gdal, radius=0) + exact nearest outside it:
    brute-force nearest with the same radius (none for radius < 0)."""
    inside = grid + A("linear:radius=0:nodata=" + SENTINEL)
    if radius < 0:
        outside = grid + A("nearest" + nodata_kv)
    else:
        outside = grid + A("nearest:radius=%r%s" % (radius, nodata_kv))
    return ("linear", inside, outside, BRUTE)


CASES = [
    # ---- invdist ---------------------------------------------------------------
    Case("invdist_default", R, GR),
    Case("invdist_explicit", R, GR + A("invdist:power=2:smoothing=0")),
    Case("invdist_power3_smooth5", R, GR + A("invdist:power=3:smoothing=5")),
    Case("invdist_power1.5_r150", R, GR + A("invdist:power=1.5:radius1=150:radius2=150")),
    Case("invdist_ellipse_angle_minpts", R,
         GR + A("invdist:radius1=200:radius2=100:angle=30:min_points=3:nodata=-9999")),
    Case("invdist_radius_shorthand", R, GR + A("invdist:radius=90:nodata=-9999")),
    Case("invdist_maxpts_nearest", R, GR + A("invdist:radius=120:max_points=8"),
         ref=GR + A("invdistnn:radius=120:max_points=8"),
         why="invdist max_points = nearest points (docs/dev/gdal_grid.md); ref invdistnn"),
    Case("invdist_maxpts_minpts_smooth", R,
         GR + A("invdist:power=2.5:smoothing=3:radius=120:max_points=8:min_points=5:nodata=-1"),
         ref=GR + A("invdistnn:power=2.5:smoothing=3:radius=120:max_points=8:min_points=5:nodata=-1"),
         why="differences #1; ref invdistnn"),
    Case("invdist_quadrant", R,
         GR + A("invdist:radius=100:max_points=10:min_points_per_quadrant=1:"
                "max_points_per_quadrant=3:nodata=-5"),
         ref=GR + A("invdistnn:radius=100:max_points=10:min_points_per_quadrant=1:"
                    "max_points_per_quadrant=3:nodata=-5"),
         why="invdist + per-quadrant keys honoured (differences #4); ref invdistnn"),
    # ---- invdistnn -------------------------------------------------------------
    Case("invdistnn_r80_max6", R, GR + A("invdistnn:radius=80:max_points=6")),
    Case("invdistnn_full", R,
         GR + A("invdistnn:power=3:smoothing=2:radius=100:max_points=12:min_points=5:nodata=-9999")),
    Case("invdistnn_maxpts0", R, GR + A("invdistnn:radius=150:max_points=0")),
    Case("invdistnn_quadrant", R,
         GR + A("invdistnn:radius=120:max_points=10:min_points_per_quadrant=1:"
                "max_points_per_quadrant=3:nodata=-9999")),
    Case("invdistnn_quadrant_maxonly", R, GR + A("invdistnn:radius=150:max_points_per_quadrant=2")),
    # ---- average ---------------------------------------------------------------
    Case("average_all", R, GR + A("average")),
    Case("average_ellipse_angle_minpts", R,
         GR + A("average:radius1=120:radius2=60:angle=45:min_points=2:nodata=-9999")),
    Case("average_r90", R, GR + A("average:radius=90")),
    Case("average_quadrant", R,
         GR + A("average:radius=150:min_points_per_quadrant=1:max_points_per_quadrant=2:"
                "max_points=6:nodata=-1")),
    Case("average_nodata_nan", R, GR + A("average:radius=40:nodata=nan")),
    # ---- nearest ---------------------------------------------------------------
    Case("nearest_all", R, GR + A("nearest")),
    Case("nearest_r40", R, GR + A("nearest:radius=40:nodata=-9999"), env=BRUTE,
         why="nearest honours the radius (differences #2); ref gdal brute force"),
    Case("nearest_r1r2_equal", R, GR + A("nearest:radius1=30:radius2=30"), env=BRUTE,
         why="differences #2; ref gdal brute force"),
    Case("nearest_ellipse_angle", R, GR + A("nearest:radius1=60:radius2=30:angle=20:nodata=-1")),
    # ---- linear ----------------------------------------------------------------
    Case("linear_default", R, ["-txe", "-100", "1100", "-tye", "-100", "1100", "-outsize", "120", "120"]
         + A("linear"),
         ref=linear_ref(["-txe", "-100", "1100", "-tye", "-100", "1100", "-outsize", "120", "120"], -1),
         why="outside the hull: exact nearest (differences #17); ref gdal linear:radius=0 + brute nearest"),
    Case("linear_r0", R, GR + A("linear:radius=0:nodata=-9999")),
    Case("linear_r50", R, GR + A("linear:radius=50:nodata=-9999"),
         ref=linear_ref(GR, 50, ":nodata=-9999"),
         why="outside the hull: nearest inside the circle (differences #17)"),
    # ---- metrics ---------------------------------------------------------------
    Case("minimum_r100", R, GR + A("minimum:radius=100")),
    Case("maximum_ellipse", R,
         GR + A("maximum:radius1=100:radius2=50:angle=60:min_points=2:nodata=-9999")),
    Case("maximum_all", R, GR + A("maximum")),
    Case("range_r100", R, GR + A("range:radius=100:nodata=-9999")),
    Case("count_r80", R, GR + A("count:radius=80")),
    Case("count_minpts", R, GR + A("count:radius=80:min_points=3:nodata=-1")),
    Case("average_distance_r100", R, GR + A("average_distance:radius=100:nodata=-9999")),
    Case("average_distance_ellipse", R, GR + A("average_distance:radius1=90:radius2=140:angle=10")),
    Case("average_distance_pts_r60", R, GR + A("average_distance_pts:radius=60:nodata=-9999"),
         env=BRUTE, why="no self-pairs (differences #3); ref gdal brute force"),
    Case("average_distance_pts_ellipse", R,
         GR + A("average_distance_pts:radius1=80:radius2=40:angle=30:min_points=3:nodata=-1")),
    Case("minimum_quadrant", R, GR + A("minimum:radius=150:min_points_per_quadrant=1:nodata=-9999")),
    Case("count_quadrant", R, GR + A("count:radius=150:max_points_per_quadrant=3")),
    Case("range_quadrant", R,
         GR + A("range:radius=120:min_points_per_quadrant=1:max_points_per_quadrant=4:nodata=-1")),
    Case("average_distance_quadrant", R,
         GR + A("average_distance:radius=100:min_points_per_quadrant=1:nodata=-9999")),
    # ---- output types ----------------------------------------------------------
    Case("ot_byte_clamp", R, GR + ["-ot", "Byte", "-z_multiply", "1.7"] + A("average:radius=60:nodata=0")),
    Case("ot_int16", R, GR + ["-ot", "Int16", "-z_increase", "-100"] + A("invdist:power=2")),
    Case("ot_int16_deflate", R, GR + ["-ot", "Int16", "-co", "COMPRESS=DEFLATE", "-co", "TILED=YES"]
         + A("invdistnn:radius=100:nodata=-32768")),
    Case("ot_uint16_clamp", R, GR + ["-ot", "UInt16", "-z_multiply", "500"] + A("invdistnn:radius=100")),
    Case("ot_uint32", R, GR + ["-ot", "UInt32", "-z_multiply", "1000"]
         + A("average:radius=80:nodata=4000000000")),
    Case("ot_int32", R, GR + ["-ot", "Int32", "-z_increase", "-100", "-z_multiply", "1000"]
         + A("nearest")),
    Case("ot_float32", R, GR + ["-ot", "Float32"] + A("invdist:power=2:smoothing=1:nodata=-9999")),
    Case("ot_float64", R, GR + ["-ot", "Float64"] + A("invdistnn:radius=100:nodata=-9999")),
    Case("ot_float32_utm", U, GU + ZU + ["-ot", "Float32"]),
    # ---- grid geometry ---------------------------------------------------------
    Case("tr_multiple", R, ["-txe", "0", "1000", "-tye", "0", "1000", "-tr", "10", "20"]
         + A("average:radius=50")),
    Case("tr_not_multiple", R, ["-txe", "0", "1000", "-tye", "0", "1000", "-tr", "7", "9"]
         + A("average:radius=50")),
    Case("default_256_auto_extent", R, []),
    Case("auto_tye_only", R, ["-txe", "100", "900", "-outsize", "50", "60"] + A("average:radius=80")),
    Case("outsize_non_square", R, ["-txe", "0", "1000", "-tye", "0", "1000", "-outsize", "37", "23"]
         + A("nearest")),
    # ---- source selection ------------------------------------------------------
    Case("l_twice_two_bands", M, GR + ["-l", "pts_a", "-l", "pts_b"] + A("invdistnn:radius=150")),
    Case("l_lines_vertices", M, GR + ["-l", "lines"] + A("average:radius=60:nodata=-9999")),
    Case("l_polys_closing_vertex", M, GR + ["-l", "polys"] + A("count:radius=50")),
    Case("l_polys_zfield", M, GR + ["-l", "polys", "-zfield", "val"] + A("nearest")),
    Case("l_points_and_lines", M, GR + ["-l", "pts_a", "-l", "lines"] + A("average:radius=70")),
    Case("where_two_layers", M, GR + ["-l", "pts_a", "-l", "pts_b", "-where", "val > 60"]
         + A("invdistnn:radius=200:nodata=-9999")),
    Case("clipsrc_datasource", R, GR + ["-clipsrc", "@DATA@/multi.gpkg", "-clipsrclayer", "polys"]
         + A("average:radius=60:nodata=-9999")),
    Case("clipsrc_datasource_where", R, GR + ["-clipsrc", "@DATA@/multi.gpkg", "-clipsrclayer",
                                              "polys", "-clipsrcwhere", "val > 50"]
         + A("nearest:nodata=-9999")),
    Case("where_explicit", R, GR + ["-where", "class = 2"] + A("invdist")),
    Case("where_auto_extent", R, ["-where", "class >= 3", "-outsize", "64", "64"] + A("average:radius=80"),
         why="auto extent = extent of the points used (differences #8); ref gdal with that -txe/-tye"),
    Case("sql_explicit", R, GR + ["-sql", "SELECT * FROM random_500 WHERE z > 100"]
         + A("invdistnn:radius=120"),
         ref=GR + ["-sql", "SELECT * FROM random_500 WHERE z > 100", "-a_srs", "@SRSOF@"]
         + A("invdistnn:radius=120"),
         why="-sql output takes the SQL layer's SRS (differences #16; GDAL 3.6 reads a GPKG layer "
             "without SRS as 'Undefined geographic SRS')"),
    Case("sql_utm_srs", U, ZU + ["-sql", "SELECT * FROM utm_2000 WHERE elev > 800",
                                 "-outsize", "80", "80"] + A("average:radius=400:nodata=-9999"),
         ref=ZU + ["-sql", "SELECT * FROM utm_2000 WHERE elev > 800", "-outsize", "80", "80",
                   "-a_srs", "@DATA@/utm_2000.prj"] + A("average:radius=400:nodata=-9999"),
         why="-sql output takes the SQL layer's SRS (differences #16) and the extent of its points (differences #8)"),
    Case("spat_explicit", R, GR + ["-spat", "200", "200", "800", "800"] + A("invdist")),
    Case("spat_auto_extent", R, ["-spat", "150", "250", "850", "700", "-outsize", "70", "45"]
         + A("nearest"), why="differences #8"),
    Case("clipsrc_rect", R, GR + ["-clipsrc", "100", "100", "700", "900"] + A("average:radius=80")),
    Case("clipsrc_wkt", R, GR + ["-clipsrc", "POLYGON((100 100,900 200,800 900,200 700,100 100))"]
         + A("invdistnn:radius=100:nodata=-9999")),
    Case("clipsrc_wkt_auto_extent", R,
         ["-clipsrc", "POLYGON((100 100,900 200,800 900,200 700,100 100))", "-outsize", "50", "50"]
         + A("minimum:radius=100:nodata=-9999"), why="differences #8"),
    Case("clipsrc_spat_extent", R, GR + ["-spat", "300", "100", "950", "600", "-clipsrc", "spat_extent"]
         + A("maximum:radius=70:nodata=-9999")),
    Case("zfield_w", R, GR + ["-zfield", "w"] + A("invdistnn:radius=100")),
    Case("z_increase_multiply", R, GR + ["-z_increase", "10", "-z_multiply", "2.5"] + A("invdist:power=2")),
    Case("a_srs_3857", R, GR + ["-a_srs", "EPSG:3857"] + A("nearest")),
    # ---- UTM -------------------------------------------------------------------
    Case("utm_invdist_auto", U, ZU + ["-outsize", "120", "120"]),
    Case("utm_invdistnn", U, GU + ZU + A("invdistnn:radius=300:max_points=10:nodata=-9999")),
    Case("utm_tr", U, ["-txe", "495000", "505000", "-tye", "4995000", "5005000", "-tr", "100", "100"]
         + ZU + A("average:radius=250:nodata=-9999")),
    Case("utm_linear", U, GU + ZU + A("linear"), ref=linear_ref(GU + ZU, -1),
         why="differences #17: exact nearest outside the hull"),
    Case("utm_nearest_r200", U, GU + ZU + A("nearest:radius=200:nodata=-9999"), env=BRUTE, why="differences #2"),
    Case("utm_avgdistpts", U, GU + A("average_distance_pts:radius=150:nodata=-9999"), env=BRUTE,
         why="differences #3"),
    Case("utm_count_2d_no_zfield", U, ["-outsize", "90", "90", "-ot", "Int32"] + A("count:radius=250")),
    Case("utm_z_increase", U, GU + ZU + ["-z_increase", "-100"] + A("maximum:radius=300:nodata=-9999")),
    Case("utm_a_srs_override", U, GU + ZU + ["-a_srs", "EPSG:25832"] + A("invdistnn:radius=300")),
    # ---- a lattice: equidistant points everywhere, ranked by gdal_grid's quadtree
    Case("lat_invdistnn_ties", T, GA + A("invdistnn:power=2:radius=250:max_points=12:min_points=8"),
         why="equidistant candidates at the 12th place: gdal_grid's quadtree order decides"),
    Case("lat_invdistnn_ties_diagonal", T, GB + A("invdistnn:power=2:radius=250:max_points=12"),
         why="ties in four directions: quadtree order"),
    Case("lat_invdistnn_quadrants", T,
         GB + A("invdistnn:power=2:radius=250:max_points=10:max_points_per_quadrant=3"),
         why="each quadrant's ties: quadtree order"),
    Case("lat_average_quadrants", T,
         GB + A("average:radius=200:max_points=7:max_points_per_quadrant=2:nodata=-9999"),
         why="each quadrant's ties: quadtree order"),
    Case("lat_minimum_quadrants", T, GB + A("minimum:radius=200:max_points_per_quadrant=2:nodata=-9999"),
         why="which two of a quadrant's equidistant points count: quadtree order"),
    Case("lat_range_quadrants", T, GB + A("range:radius=200:max_points_per_quadrant=1:nodata=-9999"),
         why="which of a quadrant's equidistant points counts: quadtree order"),
    Case("lat_average_distance_quadrants", T,
         GA + A("average_distance:radius=200:max_points_per_quadrant=3:nodata=-9999"),
         why="which of a quadrant's equidistant points count: quadtree order"),
    Case("lat_nearest_halfway", T, GM + A("nearest:radius=45:nodata=-9999"),
         why="two points at 30 m: gdal_grid's quadtree path takes the last in its order"),
    Case("int_invdistnn_ties", I, GI + A("invdistnn:power=2:radius=3:max_points=5"),
         why="integer lattice with duplicates: ties and coincident points in quadtree order"),
    # ---- integer coordinates, exact hits, duplicates ---------------------------
    Case("int_invdist_exact_hits", I, GI,
         why="exact hits; coincident points with different Z: first in input order"),
    Case("int_invdist_radius", I, GI + A("invdist:radius=3:nodata=-9999")),
    Case("int_nearest_all", I, GI + A("nearest"),
         why="equidistant points: gdal_grid takes the LAST in input order"),
    Case("int_average_r5_boundary", I, GI + A("average:radius=5:nodata=-9999")),
    Case("int_count_r1", I, GI + A("count:radius=1")),
    Case("int_count_r1.5", I, ["-txe", "0", "40", "-tye", "0", "40", "-outsize", "40", "40"]
         + A("count:radius=1.5")),
    Case("int_minimum_r1", I, GI + A("minimum:radius=1:nodata=-9999")),
    Case("int_maximum_r1", I, GI + A("maximum:radius=1:nodata=-9999")),
    Case("int_zfield_int16", I, GI + ["-zfield", "z", "-ot", "Int16"] + A("average:radius=2")),
    Case("int_average_distance_r2", I, GI + A("average_distance:radius=2:nodata=-9999")),
    Case("int_spat_boundary", I, GI + ["-spat", "5", "5", "30", "30"] + A("count:radius=2"),
         why="-spat excludes points on its boundary (OGR Within)"),
    Case("int_invdist_smoothing", I, GI + A("invdist:power=2:smoothing=0.5"),
         why="p=2, s>0: no exact-hit shortcut"),
    Case("int_invdist_power3", I, GI + A("invdist:power=3:smoothing=0")),
    Case("int_average_distance_pts_all", I, GI + A("average_distance_pts")),
    Case("int_count_quadrant_axis", I, GI + A("count:radius=3:max_points_per_quadrant=2"),
         why="points on an axis belong to the >= 0 quadrant"),
    Case("int_count_quadrant_min", I,
         GI + A("count:radius=3:min_points_per_quadrant=1:nodata=-1")),
    Case("int_tr_2", I, ["-txe", "-1", "41", "-tye", "-1", "41", "-tr", "2", "2"] + A("average:radius=2")),
    # ---- lon/lat ---------------------------------------------------------------
    Case("latlon_invdist_auto", L, ["-outsize", "64", "64"]),
    Case("latlon_invdistnn", L, GL + A("invdistnn:radius=0.003:max_points=8:nodata=-9999")),
    Case("latlon_average_ellipse", L, GL + A("average:radius1=0.002:radius2=0.001:angle=30:nodata=-9999")),
    Case("latlon_nearest_r", L, GL + A("nearest:radius=0.0015:nodata=-9999"), env=BRUTE, why="differences #2"),
    Case("latlon_count", L, GL + A("count:radius=0.002")),
    # ---- plain XYZ text (gdal_grid reads it through an OGR VRT) ---------------
    Case("xyz_invdistnn", X, GX + A("invdistnn:radius=150:max_points=16:nodata=-9999")),
    Case("xyz_nearest_auto", X, ["-outsize", "100", "100"] + A("nearest")),
    Case("xyz_average", X, GX + A("average:radius=100:nodata=-9999")),
    Case("xyz_invdist", X, ["-txe", "0", "5000", "-tye", "0", "5000", "-outsize", "60", "60"]),
    Case("xyz_linear", X, GX + A("linear"), ref=linear_ref(GX, -1), why="differences #17"),
]

# ---- helpers ---------------------------------------------------------------------


def run(cmd, env_extra, timeout=RUN_TIMEOUT):
    env = dict(os.environ)
    env.update(env_extra)
    t = time.time()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout)
    return p.returncode, p.stderr.decode("utf-8", "replace").strip(), time.time() - t


def opt_values(args, name, n):
    """Values of the last occurrence of option name (n values), or None."""
    out = None
    for k, a in enumerate(args):
        if a == name:
            out = args[k + 1:k + 1 + n]
    return out


def opt_all(args, name):
    return [args[k + 1] for k, a in enumerate(args) if a == name]


def vertices(g, out):
    if g is None:
        return
    if g.GetGeometryCount() > 0:
        for k in range(g.GetGeometryCount()):
            vertices(g.GetGeometryRef(k), out)
    else:
        for k in range(g.GetPointCount()):
            out.append((g.GetX(k), g.GetY(k)))


def used_points_bbox(src, args):
    """Bounding box of the points gdal_grid would grid in the first band
    (after -sql / -l / -where / -spat / -clipsrc), for the reference's
    explicit -txe/-tye (gridkit's auto extent = extent of the points used)."""
    ds = ogr.Open(src)
    spat = opt_values(args, "-spat", 4)
    sql = opt_values(args, "-sql", 1)
    layers = opt_all(args, "-l")
    where = opt_values(args, "-where", 1)
    clip = opt_values(args, "-clipsrc", 1)
    rect = None
    if spat:
        x0, y0, x1, y1 = map(float, spat)
        rect = ogr.CreateGeometryFromWkt("POLYGON((%r %r,%r %r,%r %r,%r %r,%r %r))" % (
            x0, y0, x1, y0, x1, y1, x0, y1, x0, y0))
    clipg = None
    if clip:
        if clip[0] == "spat_extent":
            clipg = rect
        elif clip[0].upper().startswith(("POLYGON", "MULTIPOLYGON")):
            clipg = ogr.CreateGeometryFromWkt(clip[0])
        else:
            x0, y0, x1, y1 = map(float, opt_values(args, "-clipsrc", 4))
            clipg = ogr.CreateGeometryFromWkt("POLYGON((%r %r,%r %r,%r %r,%r %r,%r %r))" % (
                x0, y0, x1, y0, x1, y1, x0, y1, x0, y0))
    if sql:
        lyr = ds.ExecuteSQL(sql[0], rect)
    else:
        lyr = ds.GetLayerByName(layers[0]) if layers else ds.GetLayer(0)
        if where:
            lyr.SetAttributeFilter(where[0])
        if rect is not None:
            lyr.SetSpatialFilter(rect)
    pts = []
    for f in lyr:
        vertices(f.GetGeometryRef(), pts)
    keep = []
    for x, y in pts:
        p = ogr.CreateGeometryFromWkt("POINT (%r %r)" % (x, y))
        if rect is not None and not p.Within(rect):
            continue
        if clipg is not None and not p.Within(clipg):
            continue
        keep.append((x, y))
    if sql:
        ds.ReleaseResultSet(lyr)
    a = np.array(keep)
    return a[:, 0].min(), a[:, 0].max(), a[:, 1].min(), a[:, 1].max()


def xyz_vrt(xyz, workdir):
    """An OGR VRT over a CSV copy of the xyz file, so gdal_grid can read it."""
    csv = os.path.join(workdir, "points_10k_gdal.csv")
    with open(xyz) as fi, open(csv, "w") as fo:
        fo.write("x,y,z\n")
        for line in fi:
            f = line.split()
            if len(f) >= 3:
                fo.write("%s,%s,%s\n" % (f[0], f[1], f[2]))
    vrt = os.path.join(workdir, "points_10k_gdal.vrt")
    with open(vrt, "w") as fo:
        fo.write('<OGRVRTDataSource><OGRVRTLayer name="points_10k_gdal">'
                 '<SrcDataSource>%s</SrcDataSource>'
                 '<GeometryType>wkbPoint25D</GeometryType>'
                 '<GeometryField encoding="PointFromColumns" x="x" y="y" z="z"/>'
                 '</OGRVRTLayer></OGRVRTDataSource>\n' % csv)
    return vrt


def read(path):
    ds = gdal.Open(path)
    bands = []
    for b in range(1, ds.RasterCount + 1):
        band = ds.GetRasterBand(b)
        bands.append((band.ReadAsArray().astype(np.float64), band.GetNoDataValue(),
                      gdal.GetDataTypeName(band.DataType)))
    srs = ds.GetSpatialRef()
    info = dict(size=(ds.RasterXSize, ds.RasterYSize), gt=ds.GetGeoTransform(),
                srs=srs.Clone() if srs is not None else None, bands=bands)
    ds = None
    return info


def same_nodata(a, b):
    if a is None or b is None:
        return a is None and b is None
    return a == b or (math.isnan(a) and math.isnan(b))


INT_RANGE = {"Byte": (0, 255), "Int16": (-32768, 32767), "UInt16": (0, 65535),
             "Int32": (-2147483648, 2147483647), "UInt32": (0, 4294967295)}


def written(v, dtype):
    """What GDALCopyWords writes for the doubles v: float32 rounding, or
    round to nearest and clamp for integer types."""
    if dtype == "Float32":
        return v.astype(np.float32).astype(np.float64)
    lo, hi = INT_RANGE[dtype]
    return np.clip(np.floor(v + 0.5), lo, hi)


def compare(ref, got, ref64, tol):
    """Returns (ok, message, max abs diff)."""
    if got["size"] != ref["size"]:
        return False, "size %s, expected %s" % (got["size"], ref["size"]), None
    if len(got["bands"]) != len(ref["bands"]):
        return False, "%d bands, expected %d" % (len(got["bands"]), len(ref["bands"])), None
    gtol = 1e-9 * max(abs(ref["gt"][1]), abs(ref["gt"][5]))  # a billionth of a pixel
    for g, r in zip(got["gt"], ref["gt"]):
        if abs(g - r) > gtol:
            return False, "geotransform %r, expected %r" % (got["gt"], ref["gt"]), None
    rs, gs = ref["srs"], got["srs"]
    if (rs is None) != (gs is None) or (rs is not None and not rs.IsSame(gs)):
        return False, "SRS %s, expected %s" % (
            gs.GetName() if gs else "none", rs.GetName() if rs else "none"), None
    maxdiff = 0.0
    for b, ((ga, gnd, gt), (ra, rnd, rt)) in enumerate(zip(got["bands"], ref["bands"])):
        if gt != rt:
            return False, "band %d type %s, expected %s" % (b + 1, gt, rt), None
        if not same_nodata(gnd, rnd):
            return False, "band %d nodata %r, expected %r" % (b + 1, gnd, rnd), None
        equal = (ga == ra) | (np.isnan(ga) & np.isnan(ra))
        diff = np.where(equal, 0.0, np.abs(ga - ra))
        diff = np.where(np.isnan(diff), np.inf, diff)
        d = float(diff.max()) if diff.size else 0.0
        maxdiff = max(maxdiff, d)
        fin = np.isfinite(ra)
        scale = max(1.0, float(np.abs(ra[fin]).max()) if fin.any() else 1.0)
        eps = tol * scale
        if rt == "Float64":
            bad = diff > eps
        else:
            # Written values must match exactly, except where gdal_grid's
            # double lies within eps of a rounding boundary.
            # Allowed: what any double within eps of gdal_grid's own double
            # would be written as (one ulp / one unit at a rounding boundary).
            v = ref64["bands"][b][0]
            alt = (ga == written(v - eps, rt)) | (ga == written(v + eps, rt))
            bad = (diff > 0) & ~alt
        nbad = int(np.count_nonzero(bad))
        if nbad:
            j, i = np.unravel_index(int(np.argmax(np.where(bad, diff, -1))), diff.shape)
            return False, ("band %d: %d/%d pixels differ (tol %.3g), max |diff| %.6g at "
                           "col %d row %d: gridkit %r, gdal_grid %r" % (
                               b + 1, nbad, diff.size, eps, d, i, j, float(ga[j, i]),
                               float(ra[j, i]))), d
    return True, "", maxdiff


# ---- main --------------------------------------------------------------------------


def main():
    argv = sys.argv[1:]
    only = None
    if "-k" in argv:
        k = argv.index("-k")
        only = argv[k + 1]
        del argv[k:k + 2]
    if len(argv) < 3:
        sys.exit("usage: conformance.py GRIDKIT DATA_DIR WORK_DIR [GDAL_GRID] [-k SUBSTRING]")
    gridkit, data, work = (os.path.abspath(a) for a in argv[:3])
    gdal_grid = argv[3] if len(argv) > 3 and not argv[3].endswith("NOTFOUND") else None
    gdal_grid = gdal_grid or shutil.which("gdal_grid")
    if not gdal_grid or not os.access(gdal_grid, os.X_OK):
        print("FAIL: gdal_grid not found: the conformance suite needs Debian's gdal-bin "
              "(apt-get install gdal-bin)")
        print("0 passed, 1 failed")
        return 1
    if not os.access(gridkit, os.X_OK):
        print("FAIL: gridkit binary not found or not executable: %s" % gridkit)
        print("0 passed, 1 failed")
        return 1
    os.makedirs(work, exist_ok=True)
    vrt = xyz_vrt(os.path.join(data, X), work)

    npass = nfail = 0
    t_start = time.time()
    for c in CASES:
        if only and only not in c.name:
            continue
        t0 = time.time()
        ok, msg, md = run_case(c, gridkit, gdal_grid, data, work, vrt)
        if ok:
            npass += 1
            print("PASS %-34s max|diff| %.3g  (%.1fs)" % (c.name, md, time.time() - t0))
        else:
            nfail += 1
            print("FAIL %-34s %s%s" % (c.name, msg, ("  [%s]" % c.why) if c.why else ""))
        sys.stdout.flush()
    print("total %.1fs" % (time.time() - t_start))
    print("%d passed, %d failed" % (npass, nfail))
    return 1 if nfail else 0


def run_case(c, gridkit, gdal_grid, data, work, vrt):
    src = os.path.join(data, c.src)
    gsrc = vrt if c.src == X else src
    base = os.path.join(work, c.name)
    out_gk, out_ref = base + ".gridkit.tif", base + ".gdal.tif"
    for f in os.listdir(work):
        if f.startswith(c.name + "."):
            os.remove(os.path.join(work, f))

    def subst(args):
        out = []
        for a in args:
            if a == "@SRSOF@":  # a file holding the source's first layer's SRS
                a = base + ".srs.wkt"
                ds = ogr.Open(gsrc)
                with open(a, "w") as fh:
                    fh.write(ds.GetLayer(0).GetSpatialRef().ExportToWkt())
                ds = None
            out.append(a.replace("@DATA@", data))
        return out

    args = subst(c.args)

    def gdal_run(gargs, out, env):
        gargs = list(gargs)
        # gridkit's automatic extent is the extent of the points it grids
        # (docs/dev/gdal_grid.md, 'The extent comes from the points used'): hand gdal_grid that extent explicitly.
        if any(o in gargs for o in ("-where", "-spat", "-clipsrc", "-sql")):
            need_x, need_y = "-txe" not in gargs, "-tye" not in gargs
            if need_x or need_y:
                x0, x1, y0, y1 = used_points_bbox(gsrc, gargs)
                if need_x:
                    gargs += ["-txe", repr(float(x0)), repr(float(x1))]
                if need_y:
                    gargs += ["-tye", repr(float(y0)), repr(float(y1))]
        e = dict(DOUBLE)
        e.update(env)
        rc, err, _ = run([gdal_grid, "-q"] + gargs + [gsrc, out], e)
        if rc != 0 or not os.path.exists(out):
            raise RuntimeError("reference gdal_grid failed (rc %d): %s %s" % (
                rc, " ".join(gargs), err[-300:]))
        return read(out)

    try:
        rc, err, _ = run([gridkit, "grid", "-q"] + args + [src, out_gk], {})
        if rc != 0:
            return False, "gridkit exit %d: %s" % (rc, err[-400:]), None
        if not os.path.exists(out_gk):
            return False, "gridkit exit 0 but wrote no %s" % out_gk, None
        got = read(out_gk)

        if isinstance(c.ref, tuple) and c.ref[0] == "linear":
            _, inside, outside, oenv = c.ref
            meta = gdal_run(args, out_ref, c.env)   # geometry, nodata flag, SRS
            ins = gdal_run(subst(inside), base + ".in.tif", c.env)
            outs = gdal_run(subst(outside), base + ".out.tif", oenv)
            sent = float(SENTINEL)
            for k in range(len(meta["bands"])):
                a_in, a_out = ins["bands"][k][0], outs["bands"][k][0]
                vals = np.where(a_in == sent, a_out, a_in)
                meta["bands"][k] = (vals,) + meta["bands"][k][1:]
            ref = meta
        else:
            ref = gdal_run(subst(c.ref) if c.ref else args, out_ref, c.env)
        ref64 = None
        if any(b[2] != "Float64" for b in ref["bands"]):
            rargs = subst(c.ref) if isinstance(c.ref, list) else args
            rargs = [("Float64" if k > 0 and rargs[k - 1] == "-ot" else a)
                     for k, a in enumerate(rargs)]
            ref64 = gdal_run(rargs, base + ".ref64.tif", c.env)
        return compare(ref, got, ref64, c.tol)
    except subprocess.TimeoutExpired as e:
        return False, "timeout: %s" % e, None
    except Exception as e:  # a broken case must show up as a failure
        return False, "%s: %s" % (type(e).__name__, e), None


if __name__ == "__main__":
    sys.exit(main())
