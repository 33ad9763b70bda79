"""Compares two rasters of raw float32 pixels (gdal_translate -of ENVI):
how many pixels differ, the largest absolute difference, and the largest
relative to the first raster's value. Used by gpu/run_e2e_pairs.sh."""
import array
import sys


def pixels(path):
    a = array.array('f')
    with open(path, 'rb') as f:
        a.frombytes(f.read())
    return a


a, b = pixels(sys.argv[1]), pixels(sys.argv[2])
if len(a) != len(b):
    sys.exit(f"{sys.argv[1]} has {len(a)} pixels, {sys.argv[2]} {len(b)}")
differ, worst, worst_rel = 0, 0.0, 0.0
for x, y in zip(a, b):
    if x != y:
        differ += 1
        e = abs(x - y)
        worst = max(worst, e)
        worst_rel = max(worst_rel, e / max(abs(x), 1e-30))
print(f"{differ} of {len(a)} pixels differ; max |diff| {worst:.3g}, max rel {worst_rel:.3g}")
