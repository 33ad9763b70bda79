# SPDX-License-Identifier: MIT
"""gridkit.ridges() against `gridkit ridges` (its GeoPackage read with OGR):
the same vertices and per-line fields, 2-D and 3-D, both methods."""
import numpy as np
import pytest

import gridkit
from conftest import cli, equal, need_gdal


def noisy_curves(seed=5):
    """A circle of radius 100 and an arc beside it, noise sigma 2 across
    them; rounded so that the text file holds the same doubles."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, 2 * np.pi, 1500)
    r = 100 + rng.normal(0, 2, a.size)
    b = rng.uniform(0, np.pi, 700)
    s = 60 + rng.normal(0, 2, b.size)
    x = np.round(np.concatenate([r * np.cos(a), 300 + s * np.cos(b)]), 4)
    y = np.round(np.concatenate([r * np.sin(a), s * np.sin(b)]), 4)
    z = np.round(np.concatenate([0.2 * r * np.cos(a), 10 + 0.1 * s * np.sin(b)]), 4)
    return x, y, z


def read_lines(path):
    from osgeo import ogr
    ds = ogr.Open(str(path))
    lyr = ds.GetLayer(0)
    lines, fields = [], {k: [] for k in ("length", "n_support", "closed", "mean_density",
                                         "width", "method")}
    for f in lyr:
        g = f.GetGeometryRef()
        lines.append(np.array(g.GetPoints()))
        for k in fields:
            fields[k].append(f.GetField(k))
    return lines, fields


@pytest.mark.parametrize("method,three_d", [("curve:r1=5", False), ("curve:r1=6:r2=14", True),
                                            ("density:bandwidth=4", False)])
def test_ridges_as_the_command(tmp_path, method, three_d):
    need_gdal()
    x, y, z = noisy_curves()
    src = tmp_path / "pts.xyz"
    with open(src, "w") as f:
        for t in zip(x, y, z):
            f.write("%r %r %r\n" % tuple(float(v) for v in t))
    out = tmp_path / "lines.gpkg"
    cli("ridges", src, out, "-a", method, "-q", "--device", "cpu", *(["--3d"] if three_d else []))
    want, fields = read_lines(out)
    got = gridkit.ridges(x, y, method, z=z if three_d else None, device="cpu")
    assert isinstance(got, list) and len(got) == len(want) >= 2
    for g, w in zip(got, want):
        assert g.shape == (len(w), 3 if three_d else 2)
        assert equal(g, w[:, :g.shape[1]])
    assert equal(got.length, fields["length"])
    assert got.n_support.tolist() == fields["n_support"]
    assert got.closed.tolist() == [bool(c) for c in fields["closed"]]
    assert equal(got.mean_density, [np.nan if v is None else v for v in fields["mean_density"]])
    assert equal(got.width, fields["width"])
    assert [got.method] * len(got) == fields["method"]
    assert got.closed[0] or got.closed.any()  # the circle


def test_ridges_errors():
    with pytest.raises(gridkit.Error) as e:
        gridkit.ridges([0.0, 1.0, 2.0, 3.0], [0.0, 1.0, 0.0, 1.0], "curve:nosuch=1")
    assert e.value.code == gridkit.ERR_ARG and "nosuch" in str(e.value)
    with pytest.raises(gridkit.Error, match="at least 3 are needed"):
        gridkit.ridges([0.0, 1.0], [0.0, 1.0], "curve:r1=1")
    with pytest.raises(ValueError, match="method"):
        gridkit.ridges([0.0, 1.0], [0.0, 1.0], None)
