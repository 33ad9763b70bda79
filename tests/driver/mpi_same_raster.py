# SPDX-License-Identifier: MIT
"""mpi_same_raster.py A B: exits 0 when rasters A and B (a --parts mosaic)
hold the same grid: size, bands, georeferencing, metadata, nodata,
descriptions, and every value bit for bit."""
import sys

from osgeo import gdal

a, b = gdal.Open(sys.argv[1]), gdal.Open(sys.argv[2])
assert a is not None and b is not None, "cannot open both"
assert (a.RasterXSize, a.RasterYSize, a.RasterCount) == (b.RasterXSize, b.RasterYSize,
                                                         b.RasterCount), "shape"
assert a.GetGeoTransform() == b.GetGeoTransform(), "geotransform"
assert a.GetSpatialRef().IsSame(b.GetSpatialRef()), "SRS"
assert a.GetMetadata() == b.GetMetadata(), "metadata %s vs %s" % (a.GetMetadata(), b.GetMetadata())
for i in range(1, a.RasterCount + 1):
    x, y = a.GetRasterBand(i), b.GetRasterBand(i)
    assert x.GetNoDataValue() == y.GetNoDataValue(), "band %d nodata" % i
    assert x.GetDescription() == y.GetDescription(), "band %d description" % i
    assert x.GetMetadata() == y.GetMetadata(), "band %d metadata" % i
    u, v = x.ReadAsArray(), y.ReadAsArray()
    assert u.dtype == v.dtype and u.tobytes() == v.tobytes(), "band %d values differ" % i
print("equal")
