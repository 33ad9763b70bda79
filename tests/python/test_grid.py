# SPDX-License-Identifier: MIT
"""gridkit.grid() against `gridkit grid`: the same points (read here with OGR),
the same arguments, the same bytes and geotransform, for several algorithms,
extents, sizes and resolutions; kriging's variance band."""
import math
import os

import numpy as np
import pytest

import gridkit
from conftest import cli, need_gdal, read_points, read_raster, same

MEUSE = ("meuse.gpkg", "logzinc")
UTM = ("utm_2000.shp", "elev")
RANDOM = ("random_500.gpkg", None)
XYZ = ("points_10k.xyz", None)

# (points, algorithm, CLI geometry arguments, the module's keywords)
CASES = [
    (MEUSE, "invdistnn:radius=1000:max_points=12", ["-outsize", 50, 40], dict(shape=(40, 50))),
    (MEUSE, "invdist:power=2:smoothing=10",
     ["-txe", 178600, 181400, "-tye", 329700, 333600, "-tr", 100, 100],
     dict(extent=(178600, 181400, 329700, 333600), resolution=100)),
    (MEUSE, "nearest", ["-txe", 178605.5, 181390, "-tye", 329714, 333611, "-tr", 73.5, 41.25],
     dict(extent=(178605.5, 181390, 329714, 333611), resolution=(73.5, 41.25))),
    (MEUSE, "heatmap:radius=300:kernel=epanechnikov", ["-tr", 37, 29], dict(resolution=(37, 29))),
    (UTM, "invdistnn:radius=400:max_points=12:nodata=-9999",
     ["-txe", 496000, 504000, "-tye", 4996000, 5003000, "-outsize", 160, 140],
     dict(extent=(496000, 504000, 4996000, 5003000), shape=(140, 160))),
    (UTM, "average:radius1=500:radius2=300:angle=30:min_points=3:nodata=-1",
     ["-txe", 504000, 495500, "-tye", 5004000, 4995500, "-tr", 150, 120],
     dict(extent=(504000, 495500, 5004000, 4995500), resolution=(150, 120))),
    (UTM, "linear:radius=2000:nodata=-9999", ["-outsize", 90, 70], dict(shape=(70, 90))),
    (RANDOM, "minimum:radius1=60:radius2=60", [], {}),
    (RANDOM, "average_distance_pts:radius1=90:radius2=90", ["-outsize", 64, 48],
     dict(shape=(48, 64))),
    (XYZ, "invdistnn:power=1.5:radius=150:max_points=8:min_points=2",
     ["-txe", 0, 5000, "-tye", 0, 5000, "-outsize", 200, 200],
     dict(extent=(0, 5000, 0, 5000), shape=(200, 200))),
    (MEUSE, "kriging:model=Sph:psill=0.59:range=897:nugget=0.05:max_points=20",
     ["-outsize", 60, 80], dict(shape=(80, 60))),
    (MEUSE, "kriging:model=auto:type=universal:drift=linear:max_points=30",
     ["-txe", 178500, 181500, "-tye", 329600, 333600, "-tr", 120, 150],
     dict(extent=(178500, 181500, 329600, 333600), resolution=(120, 150))),
]


@pytest.mark.parametrize("pts,alg,cli_geo,kw", CASES,
                         ids=["%s-%s" % (c[0][0].split(".")[0], c[1].split(":")[0]) + str(i)
                              for i, c in enumerate(CASES)])
def test_same_bytes_as_the_command(tmp_path, pts, alg, cli_geo, kw):
    need_gdal()
    name, zfield = pts
    x, y, z = read_points(name, zfield)
    out = tmp_path / "cli.tif"
    zargs = ["-zfield", zfield] if zfield else []
    cli("grid", "-q", "--device", "cpu", *zargs, "-a", alg, *cli_geo,
        os.path.join(os.environ.get("GRIDKIT_SOURCE", "."), "data", name), out)
    want, gt, nodata, _ = read_raster(out)
    r = gridkit.grid(x, y, z, alg, device="cpu", **kw)
    values, geotransform = r
    assert values.dtype == np.float64 and values.flags.c_contiguous
    want = want[0] if want.shape[0] == 1 else want  # kriging: estimate and variance
    assert values.shape == want.shape
    assert same(values, want), "%d of %d values differ" % (np.sum(values != want), values.size)
    assert geotransform == gt
    assert r.nodata == gridkit.grid(x, y, z, alg, shape=(2, 2), device="cpu").nodata
    if nodata is not None:  # the band's flag: set where nodata= was given
        assert r.nodata == nodata
    assert r.algorithm.split(":")[0] == alg.split(":")[0]


def test_kriging_variance_two_bands(tmp_path):
    need_gdal()
    x, y, z = read_points(*MEUSE)
    alg = "kriging:model=Nug(0.05)+Sph(0.59,897):max_points=25"  # variance=yes by default
    out = tmp_path / "k.tif"
    cli("grid", "-q", "--device", "cpu", "-zfield", "logzinc", "-a", alg,
        "-txe", 178500, 181500, "-tye", 329600, 333600, "-outsize", 75, 100,
        os.path.join(os.environ.get("GRIDKIT_SOURCE", "."), "data", "meuse.gpkg"), out)
    want, gt, _, _ = read_raster(out)
    assert want.shape == (2, 100, 75)
    values, geotransform = gridkit.grid(x, y, z, alg, extent=(178500, 181500, 329600, 333600),
                                        shape=(100, 75), device="cpu")
    assert values.shape == (2, 100, 75)
    assert same(values, want)
    assert geotransform == gt
    assert np.all(values[1][values[1] != -9999] >= 0)  # a variance


def test_default_device_and_threads_same_bytes(tmp_path):
    """No device (GRIDKIT_DEVICE, else auto) and one thread: the command's
    default run, the same bytes."""
    need_gdal()
    x, y, z = read_points(*UTM)
    alg = "invdistnn:radius=400:max_points=12:nodata=-9999"
    out = tmp_path / "d.tif"
    cli("grid", "-q", "-zfield", "elev", "-a", alg, "-outsize", 120, 100,
        os.path.join(os.environ.get("GRIDKIT_SOURCE", "."), "data", "utm_2000.shp"), out)
    want, gt, _, _ = read_raster(out)
    values, geotransform = gridkit.grid(x, y, z, alg, shape=(100, 120), threads=1)
    assert same(values, want[0]) and geotransform == gt


def test_z_optional_count_and_heatmap(tmp_path):
    """count reads no z; heatmap without z weighs every point 1 (the command
    without -zfield)."""
    need_gdal()
    x, y, _ = read_points(*UTM)
    src = os.path.join(os.environ.get("GRIDKIT_SOURCE", "."), "data", "utm_2000.shp")
    for alg in ("count:radius1=300:radius2=300", "heatmap:radius=800"):
        out = tmp_path / ("%s.tif" % alg.split(":")[0])
        cli("grid", "-q", "--device", "cpu", "-a", alg, "-outsize", 80, 60, src, out)
        want, gt, _, _ = read_raster(out)
        values, geotransform = gridkit.grid(x, y, None, alg, shape=(60, 80), device="cpu")
        assert same(values, want[0]), alg
        assert geotransform == gt
    with pytest.raises(ValueError, match="needs z"):
        gridkit.grid(x, y, None, "invdist")


def test_geometry_as_gdal_grid():
    """Default extent: the bounding box; default size 256 x 256; -tr rounded
    as gdal_grid rounds it (floor(w / res + 0.5))."""
    x = np.array([0.0, 10.0, 3.0])
    y = np.array([0.0, 5.0, 1.0])
    r = gridkit.grid(x, y, [1.0, 2.0, 3.0], "nearest", device="cpu")
    assert r.values.shape == (256, 256)
    assert r.geotransform == (0.0, 10 / 256, 0.0, 5.0, 0.0, -5 / 256)
    assert r.extent == (0.0, 10.0, 0.0, 5.0)
    r = gridkit.grid(x, y, [1.0, 2.0, 3.0], "nearest", extent=(0, 10, 0, 5), resolution=(3, 2),
                     device="cpu")
    assert r.values.shape == (math.floor(5 / 2 + 0.5), math.floor(10 / 3 + 0.5))
    assert r.values.shape == (3, 3)


def test_bad_arguments_are_value_errors():
    x, y, z = np.arange(5.0), np.arange(5.0) ** 2, np.ones(5)
    for kw, match in [(dict(x=[1.0, np.nan]), r"x\[1\] is nan"),
                      (dict(z=np.ones(4)), "z has 4 values and x has 5"),
                      (dict(y=np.ones((5, 1))), "one-dimensional"),
                      (dict(x=["a"] * 5), "not an array of numbers"),
                      (dict(shape=(10, 10), resolution=1), "not both"),
                      (dict(shape=(0, 10)), "shape"),
                      (dict(resolution=-1, extent=(0, 4, 0, 16)), "positive"),
                      (dict(resolution=1), "needs the extent too"),
                      (dict(extent=(0, 1, 2)), "extent"),
                      (dict(threads=-1), "threads"),
                      (dict(algorithm=""), "algorithm")]:
        args = dict(x=x, y=y, z=z, algorithm="nearest")
        args.update(kw)
        with pytest.raises(ValueError, match=match):
            gridkit.grid(**args)
    with pytest.raises(ValueError, match="span no area"):
        gridkit.grid([1.0, 1.0], [2.0, 3.0], [1.0, 2.0], "nearest")
    with pytest.raises(ValueError, match="model="):
        gridkit.grid(x, y, z, "kriging:variogram=v.json")
