# SPDX-License-Identifier: MIT
"""gridkit.ridges(): `gridkit ridges` on arrays."""
import numpy as np

from ._call import Context, Points, coords, run, spec_arg, text
from ._lib import lib


class RidgeLines(list):
    """The lines, a list of (n, 2) arrays (x, y), or (n, 3) with z; a closed
    line repeats its first vertex. Per line, as the command's fields (arrays
    in the list's order): length, n_support, closed, mean_density (NaN for
    curve), width. method: the method string with every value the run used;
    warning: an iteration cap that was hit, or None; device: where it ran."""


def ridges(x, y, method, z=None, *, device=None, threads=None):
    """The ridge lines the points are spread around (`gridkit ridges`):
    method "curve:r1=5", "density:bandwidth=H", ... (docs/ridges.md). With z,
    the points are 3-D (the command's --3d) and so are the lines."""
    x = coords("x", x)
    y = coords("y", y, x.size)
    dim = 2 if z is None else 3
    z = np.zeros_like(x) if z is None else coords("z", z, x.size)
    mspec = spec_arg(method, "method")
    with Context(threads) as ctx:
        ctx.request_device(device)
        m = lib.gk_ridges_parse(ctx.ptr, mspec, dim)
        if not m:
            raise ctx.error()
        try:
            with Points(ctx, x, y, z) as pts:
                return run(lambda progress, notes: _ridges(ctx, pts, m, dim, progress, notes),
                           messages_warn=False)
        finally:
            lib.gk_ridges_method_free(m)


def _ridges(ctx, pts, m, dim, progress, notes):
    lp = lib.gk_ridges(ctx.ptr, pts.ptr, m, dim, progress, None)
    if not lp:
        raise ctx.error()
    try:
        ln = lp.contents
        k = ln.n_lines
        start = np.ctypeslib.as_array(ln.start, shape=(k + 1,)).astype(np.int64)
        nv = int(start[-1])
        cols = [np.ctypeslib.as_array(p, shape=(nv,)) for p in
                ((ln.x, ln.y) if ln.dim == 2 else (ln.x, ln.y, ln.z))] if nv else []
        xyz = np.column_stack(cols) if nv else np.empty((0, ln.dim))
        out = RidgeLines(xyz[start[i]:start[i + 1]].copy() for i in range(k))

        def per_line(p):
            return np.ctypeslib.as_array(p, shape=(k,)).copy() if k else np.empty(0)

        out.length = per_line(ln.length)
        out.n_support = per_line(ln.n_support)
        out.closed = per_line(ln.closed).astype(bool)
        out.mean_density = per_line(ln.mean_density)
        out.width = per_line(ln.width)
        out.warning = text(ln.warning)
        if out.warning:
            notes.append(out.warning)
        out.method = text(lib.gk_ridges_method_string(m))
        out.device = ctx.device_name()
        return out
    finally:
        lib.gk_lines_free(lp)
