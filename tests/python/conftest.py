# SPDX-License-Identifier: MIT
"""Shared by tests/python/test_*.py: the build's command, the bundled data
read with GDAL/OGR (the module itself never needs GDAL), and the command's
outputs read back."""
import json
import os
import subprocess

import numpy as np
import pytest

BUILD = os.environ.get("GRIDKIT_BUILD", os.path.join(os.path.dirname(__file__), "..", "..",
                                                     "build"))
SOURCE = os.environ.get("GRIDKIT_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(SOURCE, "data")
CLI = os.path.join(BUILD, "gridkit")


def need_gdal():
    """osgeo, and the command (a build with GDAL): the comparisons skip without."""
    osgeo = pytest.importorskip("osgeo", reason="no GDAL Python bindings (python3-gdal)")
    if not os.access(CLI, os.X_OK):
        pytest.skip("no %s (a build without GDAL)" % CLI)
    from osgeo import gdal, ogr
    gdal.UseExceptions()
    ogr.UseExceptions()
    return osgeo


def cli(*args, check=True):
    """The command, run as a user runs it; its CompletedProcess."""
    env = dict(os.environ)
    env.pop("GRIDKIT_DEVICE", None)
    r = subprocess.run([CLI] + [str(a) for a in args], capture_output=True, text=True, env=env,
                       timeout=120)
    if check and r.returncode != 0:
        raise AssertionError("gridkit %s failed: %s" % (" ".join(map(str, args)), r.stderr))
    return r


def cli_json(*args):
    return json.loads(cli(*args).stdout)


def read_points(name, zfield=None, layer=None):
    """x, y, z of a bundled file as the command reads it: the features in
    order, z from zfield (else the geometry's Z)."""
    need_gdal()
    from osgeo import ogr
    path = os.path.join(DATA, name)
    if name.endswith(".xyz"):
        a = np.loadtxt(path)
        return a[:, 0].copy(), a[:, 1].copy(), a[:, 2].copy()
    ds = ogr.Open(path)
    lyr = ds.GetLayerByName(layer) if layer else ds.GetLayer(0)
    x, y, z = [], [], []
    for f in lyr:
        g = f.GetGeometryRef()
        x.append(g.GetX())
        y.append(g.GetY())
        z.append(f.GetFieldAsDouble(zfield) if zfield else g.GetZ())
    return np.array(x), np.array(y), np.array(z)


def read_raster(path):
    """(bands, ny, nx) float64 values, geotransform, nodata of band 1."""
    from osgeo import gdal
    ds = gdal.Open(str(path))
    a = ds.ReadAsArray()
    if a.ndim == 2:
        a = a[np.newaxis]
    return a.astype(np.float64, copy=False), ds.GetGeoTransform(), \
        ds.GetRasterBand(1).GetNoDataValue(), ds.GetRasterBand(1).DataType


def same(a, b):
    """Equal doubles, NaN where NaN (bytes compared, so -0.0 and 0.0 differ)."""
    a = np.ascontiguousarray(a, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def num(v):
    """A JSON number (null: NaN)."""
    return float("nan") if v is None else float(v)


def equal(a, b):
    """Equal doubles, NaN where NaN (for numbers that went through JSON or a
    field, where a NaN's bits are not kept)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
