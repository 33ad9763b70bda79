#!/usr/bin/python3
"""Generate gridkit's test data sets (fixed seeds; run with /usr/bin/python3).

    /usr/bin/python3 data/make_data.py [outdir]     (default: this script's dir)

Every set is small (a few KB to a few hundred KB) and is described in
data/README.md. Values are rounded to a few decimals so that text and binary
copies of the same set hold exactly the same doubles.
"""
import os
import sys

import numpy as np
from osgeo import ogr, osr

ogr.UseExceptions()
osr.UseExceptions()

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))


def srs(epsg):
    s = osr.SpatialReference()
    s.ImportFromEPSG(epsg)
    s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    return s


def fresh(path, driver):
    drv = ogr.GetDriverByName(driver)
    if os.path.exists(path):
        drv.DeleteDataSource(path)
    return drv.CreateDataSource(path)


def add_fields(lyr, spec):
    for name, typ in spec:
        lyr.CreateField(ogr.FieldDefn(name, typ))


def smooth(x, y, x0, y0, scale):
    """A smooth surface with a trend: the thing the interpolators should find."""
    u = (x - x0) / scale
    v = (y - y0) / scale
    return 60.0 * np.sin(u * 6.0) * np.cos(v * 4.5) + 20.0 * u - 10.0 * v


def random_500():
    rng = np.random.default_rng(500)
    n = 500
    x = np.round(rng.uniform(0, 1000, n), 3)
    y = np.round(rng.uniform(0, 1000, n), 3)
    z = np.round(100.0 + smooth(x, y, 0, 0, 1000) + rng.normal(0, 2, n), 3)
    w = np.round(rng.uniform(-50, 50, n), 3)
    cls = rng.integers(0, 5, n)
    ds = fresh(os.path.join(OUT, "random_500.gpkg"), "GPKG")
    lyr = ds.CreateLayer("random_500", None, ogr.wkbPoint25D)
    add_fields(lyr, [("z", ogr.OFTReal), ("w", ogr.OFTReal), ("class", ogr.OFTInteger)])
    for i in range(n):
        f = ogr.Feature(lyr.GetLayerDefn())
        f["z"] = float(z[i])
        f["w"] = float(w[i])
        f["class"] = int(cls[i])
        f.SetGeometry(ogr.CreateGeometryFromWkt("POINT Z (%r %r %r)" % (float(x[i]), float(y[i]), float(z[i]))))
        lyr.CreateFeature(f)
    ds = None


def utm_2000():
    rng = np.random.default_rng(2000)
    # 1200 uniform points plus 4 clusters of 200: uneven density on purpose.
    xs = [rng.uniform(495000, 505000, 1200)]
    ys = [rng.uniform(4995000, 5005000, 1200)]
    for cx, cy in [(497000, 4998000), (503500, 5003000), (501000, 4996500), (496500, 5004000)]:
        xs.append(rng.normal(cx, 400, 200))
        ys.append(rng.normal(cy, 400, 200))
    x = np.round(np.concatenate(xs), 2)
    y = np.round(np.concatenate(ys), 2)
    n = len(x)
    elev = np.round(800.0 + 5.0 * smooth(x, y, 495000, 4995000, 10000) + rng.normal(0, 3, n), 2)
    ds = fresh(os.path.join(OUT, "utm_2000.shp"), "ESRI Shapefile")
    lyr = ds.CreateLayer("utm_2000", srs(32632), ogr.wkbPoint)
    add_fields(lyr, [("id", ogr.OFTInteger), ("elev", ogr.OFTReal)])
    for i in range(n):
        f = ogr.Feature(lyr.GetLayerDefn())
        f["id"] = i
        f["elev"] = float(elev[i])
        f.SetGeometry(ogr.CreateGeometryFromWkt("POINT (%r %r)" % (float(x[i]), float(y[i]))))
        lyr.CreateFeature(f)
    ds = None


def integer_grid():
    rng = np.random.default_rng(41)
    # 180 distinct integer locations in [0,40]^2 ...
    cells = rng.choice(41 * 41, 180, replace=False)
    x = list(cells % 41)
    y = list(cells // 41)
    z = list(np.round(50.0 + x[i] * 1.0 + 0.5 * y[i] + rng.normal(0, 3), 2) for i in range(180))
    # ... 15 coincident duplicates with the SAME z, 15 with a DIFFERENT z.
    for k, i in enumerate(rng.choice(180, 30, replace=False)):
        x.append(x[i])
        y.append(y[i])
        z.append(z[i] if k < 15 else np.round(z[i] + 7.25, 2))
    path = os.path.join(OUT, "integer_grid.csv")
    with open(path, "w") as fh:
        fh.write("x,y,z,WKT\n")
        for xi, yi, zi in zip(x, y, z):
            fh.write('%d,%d,%.2f,"POINT Z (%d %d %.2f)"\n' % (xi, yi, zi, xi, yi, zi))
    with open(os.path.join(OUT, "integer_grid.csvt"), "w") as fh:
        fh.write("Integer,Integer,Real,String\n")


def lattice_400():
    # A 20 x 20 survey lattice, 60 m apart, written in a shuffled order: the
    # points equidistant from a node are many, and input order is not space
    # order (gdal_grid breaks their ties by its quadtree's order).
    rng = np.random.default_rng(400)
    i, j = np.meshgrid(np.arange(20), np.arange(20))
    x = 1000 + 60 * i.ravel()
    y = 5000 + 60 * j.ravel()
    z = np.round(100.0 + 0.02 * (x - 1000) + 0.01 * (y - 5000) + rng.normal(0, 5, 400), 2)
    with open(os.path.join(OUT, "lattice_400.csv"), "w") as fh:
        fh.write("x,y,z,WKT\n")
        for k in rng.permutation(400):
            fh.write('%d,%d,%.2f,"POINT Z (%d %d %.2f)"\n' % (x[k], y[k], z[k], x[k], y[k], z[k]))
    with open(os.path.join(OUT, "lattice_400.csvt"), "w") as fh:
        fh.write("Integer,Integer,Real,String\n")


def latlon_300():
    rng = np.random.default_rng(300)
    i, j = np.meshgrid(np.arange(20), np.arange(15))
    lon = np.round(11.0 + 0.001 * i.ravel() + rng.uniform(-0.0003, 0.0003, 300), 7)
    lat = np.round(48.0 + 0.001 * j.ravel() + rng.uniform(-0.0003, 0.0003, 300), 7)
    z = np.round(450.0 + smooth(lon, lat, 11.0, 48.0, 0.02) + rng.normal(0, 1, 300), 3)
    ds = fresh(os.path.join(OUT, "latlon_300.gpkg"), "GPKG")
    lyr = ds.CreateLayer("latlon_300", srs(4326), ogr.wkbPoint25D)
    add_fields(lyr, [("z", ogr.OFTReal)])
    for k in range(300):
        f = ogr.Feature(lyr.GetLayerDefn())
        f["z"] = float(z[k])
        f.SetGeometry(ogr.CreateGeometryFromWkt("POINT Z (%r %r %r)" % (float(lon[k]), float(lat[k]), float(z[k]))))
        lyr.CreateFeature(f)
    ds = None


def multi():
    rng = np.random.default_rng(7)
    ds = fresh(os.path.join(OUT, "multi.gpkg"), "GPKG")
    sr = srs(32632)

    def point_layer(name, n, lo, hi, fz, dims3=True):
        lyr = ds.CreateLayer(name, sr, ogr.wkbPoint25D if dims3 else ogr.wkbPoint)
        add_fields(lyr, [("val", ogr.OFTReal)])
        x = np.round(rng.uniform(lo, hi, n), 3)
        y = np.round(rng.uniform(lo, hi, n), 3)
        z = np.round(fz(x, y) + rng.normal(0, 1, n), 3)
        for k in range(n):
            f = ogr.Feature(lyr.GetLayerDefn())
            f["val"] = float(z[k])
            wkt = ("POINT Z (%r %r %r)" % (float(x[k]), float(y[k]), float(z[k]))) if dims3 else \
                  ("POINT (%r %r)" % (float(x[k]), float(y[k])))
            f.SetGeometry(ogr.CreateGeometryFromWkt(wkt))
            lyr.CreateFeature(f)

    point_layer("pts_a", 300, 0, 1000, lambda x, y: 100 + smooth(x, y, 0, 0, 1000))
    point_layer("pts_b", 200, 100, 900, lambda x, y: 20 + 0.05 * x + 0.02 * y)
    point_layer("pts_2d", 100, 0, 1000, lambda x, y: 10 + 0 * x, dims3=False)

    lyr = ds.CreateLayer("lines", sr, ogr.wkbLineString25D)
    add_fields(lyr, [("val", ogr.OFTReal)])
    for _ in range(20):
        m = int(rng.integers(4, 10))
        x = np.round(np.cumsum(rng.uniform(-80, 80, m)) + rng.uniform(200, 800), 3)
        y = np.round(np.cumsum(rng.uniform(-80, 80, m)) + rng.uniform(200, 800), 3)
        z = np.round(50 + 0.1 * x - 0.05 * y, 3)
        f = ogr.Feature(lyr.GetLayerDefn())
        f["val"] = float(z.mean())
        f.SetGeometry(ogr.CreateGeometryFromWkt(
            "LINESTRING Z (%s)" % ",".join("%r %r %r" % tuple(map(float, t)) for t in zip(x, y, z))))
        lyr.CreateFeature(f)

    lyr = ds.CreateLayer("polys", sr, ogr.wkbPolygon25D)
    add_fields(lyr, [("val", ogr.OFTReal)])
    for _ in range(10):
        cx, cy = rng.uniform(150, 850, 2)
        m = int(rng.integers(5, 9))
        ang = np.sort(rng.uniform(0, 2 * np.pi, m))
        r = rng.uniform(40, 120, m)
        x = np.round(cx + r * np.cos(ang), 3)
        y = np.round(cy + r * np.sin(ang), 3)
        z = np.round(30 + 0.02 * x + 0.03 * y + rng.normal(0, 1, m), 3)
        ring = list(zip(x, y, z)) + [(x[0], y[0], z[0])]  # closing vertex repeats
        f = ogr.Feature(lyr.GetLayerDefn())
        f["val"] = float(z.mean())
        f.SetGeometry(ogr.CreateGeometryFromWkt(
            "POLYGON Z ((%s))" % ",".join("%r %r %r" % tuple(map(float, t)) for t in ring)))
        lyr.CreateFeature(f)

    lyr = ds.CreateLayer("empty", sr, ogr.wkbPoint25D)
    add_fields(lyr, [("val", ogr.OFTReal)])
    ds = None


def points_10k():
    rng = np.random.default_rng(10000)
    n = 10000
    x = rng.uniform(0, 5000, n)
    y = rng.uniform(0, 5000, n)
    z = 200.0 + smooth(x, y, 0, 0, 5000) + rng.normal(0, 1.5, n)
    with open(os.path.join(OUT, "points_10k.xyz"), "w") as fh:
        for k in range(n):
            fh.write("%.3f %.3f %.3f\n" % (x[k], y[k], z[k]))


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    random_500()
    utm_2000()
    integer_grid()
    lattice_400()
    latlon_300()
    multi()
    points_10k()
    print("data written to", OUT)
