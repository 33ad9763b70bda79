# SPDX-License-Identifier: MIT
"""Compares two rasters of raw float32 pixels (gdal_translate -of ENVI):
how many pixels differ, the largest absolute difference, and the largest
relative to the first raster's value. NaN equals NaN (nodata). Used by
scripts/device/run_e2e_pairs.sh: python3 cmp_float_rasters.py A.bil B.bil"""
import array
import math
import sys


def pixels(path):
    a = array.array('f')
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except OSError as e:
        sys.exit(f"cmp_float_rasters: {path}: {e.strerror}")
    if len(data) % a.itemsize:
        sys.exit(f"cmp_float_rasters: {path}: {len(data)} bytes, not whole float32 pixels")
    a.frombytes(data)
    return a


if len(sys.argv) != 3:
    sys.exit("usage: cmp_float_rasters.py A.bil B.bil (raw float32 pixels)")
a, b = pixels(sys.argv[1]), pixels(sys.argv[2])
if len(a) != len(b):
    sys.exit(f"cmp_float_rasters: {sys.argv[1]} has {len(a)} pixels, {sys.argv[2]} {len(b)}")
differ, worst, worst_rel = 0, 0.0, 0.0
for x, y in zip(a, b):
    if x != y and not (math.isnan(x) and math.isnan(y)):
        differ += 1
        e = abs(x - y)
        worst = max(worst, e)
        worst_rel = max(worst_rel, e / max(abs(x), 1e-30))
print(f"{differ} of {len(a)} pixels differ; max |diff| {worst:.3g}, max rel {worst_rel:.3g}")
