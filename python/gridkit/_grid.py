# SPDX-License-Identifier: MIT
"""gridkit.grid(): `gridkit grid` on arrays."""
import math
import os

import numpy as np

from . import _lib
from ._call import Context, Points, coords, device_arg, run, spec_arg, text
from ._lib import lib


class GridResult(tuple):
    """(values, geotransform), with what else the run tells:

    values        float64 array (ny, nx), or (2, ny, nx) for kriging with
                  variance=yes (estimate, variance); row 0 touches ymax
    geotransform  GDAL's (xmin, xres, 0, ymax, 0, -yres)
    nodata        the algorithm's nodata (nodes without a result hold it)
    algorithm     the canonical algorithm string, with what the run estimated
    device        where it ran ("cpu", "cuda:0 (...)", "cpu (why)")
    extent        (xmin, xmax, ymin, ymax), the grid's outer edges
    """

    def __new__(cls, values, geotransform, **info):
        self = super().__new__(cls, (values, geotransform))
        self.__dict__.update(info)
        return self

    @property
    def values(self):
        return self[0]

    @property
    def geotransform(self):
        return self[1]


def _pair(name, v):
    if np.ndim(v) == 0:
        v = (v, v)
    try:
        a, b = (float(t) for t in v)
    except (TypeError, ValueError):
        raise ValueError("%s must be one number or a pair, not %r" % (name, v)) from None
    return a, b


def _geometry(pts_ptr, ctx, alg, extent, shape, resolution):
    """gdal_grid's (and gridkit grid's) geometry: the extent given (-txe/-tye)
    else the points' bounding box; the size from shape (-outsize), else from
    resolution (-tr) with gdal_grid's rounding, else 256 x 256. resolution
    needs an extent, as in gdal_grid, except for heatmap, which then takes
    QGIS's Heatmap grid: the box widened by the radius, ceil(side / res) + 1
    pixels of exactly that size from its top-left corner."""
    if shape is not None and resolution is not None:
        raise ValueError("give shape=(ny, nx) or resolution=(xres, yres), not both")
    margin = lib.gk_algorithm_pixel_margin(alg)
    if resolution is not None and extent is None and not math.isfinite(margin):
        raise ValueError("resolution needs the extent too: give extent=(xmin, xmax, ymin, ymax) "
                         "(heatmap alone takes QGIS's: the points' extent widened by the radius)")
    if extent is None:
        b = [_lib.c_double() for _ in range(4)]
        rc = lib.gk_points_bounds(pts_ptr, *b)
        ctx.check(rc)
        x0, y0, x1, y1 = (v.value for v in b)
    else:
        try:
            e = [float(v) for v in extent]
        except (TypeError, ValueError):
            raise ValueError("extent must be (xmin, xmax, ymin, ymax), not %r" % (extent,)) from None
        if len(e) != 4 or not all(math.isfinite(v) for v in e):
            raise ValueError("extent must be four finite numbers (xmin, xmax, ymin, ymax), not %r"
                             % (extent,))
        x0, x1 = min(e[0], e[1]), max(e[0], e[1])
        y0, y1 = min(e[2], e[3]), max(e[2], e[3])
    qgis = resolution is not None and extent is None
    if not qgis and (not (x1 > x0) or not (y1 > y0)):
        raise ValueError("the points span no area (x %.15g..%.15g, y %.15g..%.15g): give extent="
                         % (x0, x1, y0, y1))
    if shape is not None:
        try:
            ny, nx = shape
        except (TypeError, ValueError):
            raise ValueError("shape must be (ny, nx), not %r" % (shape,)) from None
        for v in (ny, nx):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 < v < 2**31:
                raise ValueError("shape must be two whole numbers from 1 to 2147483647 (ny, nx), "
                                 "not %r" % (shape,))
    elif resolution is not None:
        rx, ry = _pair("resolution", resolution)
        if not (rx > 0 and ry > 0 and math.isfinite(rx) and math.isfinite(ry)):
            raise ValueError("resolution must be positive, not %r" % (resolution,))
        if qgis:
            w, h = x1 - x0 + 2 * margin, y1 - y0 + 2 * margin
            nx = max(float(np.ceil(w / rx)) + 1, 1.0)
            ny = max(float(np.ceil(h / ry)) + 1, 1.0)
            if not (nx <= 2147483647 and ny <= 2147483647):
                raise ValueError("resolution %.15g %.15g over the points' extent widened by %.15g "
                                 "gives %.15g x %.15g pixels: each side must be from 1 to "
                                 "2147483647"
                                 % (rx, ry, margin, nx, ny))
            x0 -= margin
            y1 += margin
            nx, ny = int(nx), int(ny)
            x1 = x0 + nx * rx
            y0 = y1 - ny * ry
        else:
            nx = math.floor((x1 - x0 + rx / 2) / rx)
            ny = math.floor((y1 - y0 + ry / 2) / ry)
            if not (1 <= nx <= 2147483647 and 1 <= ny <= 2147483647):
                raise ValueError("resolution %.15g %.15g over x %.15g..%.15g, y %.15g..%.15g "
                                 "gives %.15g x %.15g pixels: each side must be from 1 to "
                                 "2147483647" % (rx, ry, x0, x1, y0, y1, nx, ny))
    else:
        nx = ny = 256
    g = _lib.Grid(x0, x1, y0, y1, int(nx), int(ny))
    ctx.check(lib.gk_grid_check(ctx.ptr, g))
    return g


def _python_only(alg):
    """Keys that need files the command reads through GDAL."""
    kp = lib.gk_algorithm_kriging(alg)
    if kp:
        if kp.contents.variogram_file:  # c_char arrays read as bytes up to the NUL
            return ("kriging's variogram=FILE.json is read by the command; give the model as "
                    "model=... (gridkit.fit() gives it: 'kriging:model=%s' % m)")
        if kp.contents.n_drift_rasters:
            return ("kriging's drift_raster= samples rasters through GDAL: use the command "
                    "`gridkit grid` (or the GDAL plugin) for external drift")
    return None


def _choose_device(ctx, alg, device, npts, bounds, nodes):
    """The device as `gridkit grid` chooses it: a GPU asked for by name is
    started; under auto, only for an algorithm with a GPU kernel and a job
    the CPU cores would not finish before CUDA had started."""
    dev = device
    eff = dev if dev else os.environ.get("GRIDKIT_DEVICE", "")
    want_cuda = eff.startswith("cuda")
    want_auto = eff in ("", "auto")
    arg = device_arg(dev)
    if not (want_cuda or (want_auto and lib.gk_algorithm_may_use_gpu(alg))):
        return lib.gk_context_request_device(ctx.ptr, arg)
    if want_auto:
        area = (bounds[2] - bounds[0]) * (bounds[3] - bounds[1])
        if not lib.gk_context_auto_device(ctx.ptr, alg, float(npts), area, float(nodes)):
            return lib.gk_context_request_device(ctx.ptr, arg)
    return lib.gk_context_set_device(ctx.ptr, arg)


def grid(x, y, z=None, algorithm="invdist", *, extent=None, shape=None, resolution=None,
         device=None, threads=None):
    """Grids the points (x[i], y[i], z[i]) with `algorithm`, gdal_grid's -a
    syntax ("invdistnn:power=2:radius=400", "kriging:model=Sph:...", ...).

    extent      (xmin, xmax, ymin, ymax), the outer pixel edges (-txe, -tye);
                default the points' bounding box
    shape       (ny, nx) (-outsize nx ny); or
    resolution  xres or (xres, yres) (-tr), the pixel count rounded as
                gdal_grid rounds it (an extent is then needed, except for
                heatmap: QGIS's grid); neither: 256 x 256
    device      "auto" (default: GRIDKIT_DEVICE, else auto), "cpu", "cuda",
                "cuda:N"
    threads     CPU threads (default 0: every core)

    z may be None for algorithms that do not read it (count, the distance
    metrics) and for heatmap (every weight 1). Returns a GridResult, which
    unpacks as (values, geotransform). Raises gridkit.Error with the
    library's message; ValueError for arrays or arguments it cannot take.
    """
    x = coords("x", x)
    y = coords("y", y, x.size)
    z = None if z is None else coords("z", z, x.size)
    aspec = spec_arg(algorithm, "algorithm")
    with Context(threads) as ctx:
        alg = lib.gk_algorithm_parse(ctx.ptr, aspec)
        if not alg:
            raise ctx.error()
        try:
            why = _python_only(alg)
            if why:
                raise ValueError(why)
            if z is None:
                if lib.gk_algorithm_needs_z(alg) and not lib.gk_algorithm_z_is_weight(alg):
                    raise ValueError("%s needs z: give z=" % text(lib.gk_algorithm_name(alg)))
                z = np.ones_like(x) if lib.gk_algorithm_z_is_weight(alg) else np.zeros_like(x)
            with Points(ctx, x, y, z) as pts:
                g = _geometry(pts.ptr, ctx, alg, extent, shape, resolution)
                bounds = [float(x.min()), float(y.min()), float(x.max()), float(y.max())] \
                    if x.size else [0.0, 0.0, 0.0, 0.0]
                ctx.check(_choose_device(ctx, alg, device, x.size, bounds, float(g.nx) * g.ny))
                return run(lambda progress, notes: _run_job(ctx, pts, alg, g, progress, notes))
        finally:
            lib.gk_algorithm_free(alg)


def _run_job(ctx, pts, alg, g, progress, notes):
    job = lib.gk_job_new(ctx.ptr, pts.ptr, alg)
    if not job:
        raise ctx.error()
    try:
        bands = lib.gk_job_bands(job)
        out = np.empty((bands, g.ny, g.nx), dtype=np.float64)
        failed = []

        def sink(user, x0, y0, w, h, nb, values):
            try:
                tile = np.ctypeslib.as_array(values, shape=(nb, h, w))
                out[:, y0:y0 + h, x0:x0 + w] = tile
                return 0
            except BaseException as e:  # never let an exception unwind through C
                failed.append(e)
                return 1

        cb = _lib.TILE_SINK(sink)
        rc = lib.gk_job_run(job, g, 0, 0, cb, None, progress, None)
        if failed:
            raise failed[0]
        ctx.check(rc)
        warn = text(lib.gk_job_warning(job))
        if warn:
            notes.append(warn)
        st = _lib.RunStats()
        lib.gk_job_stats(job, st)
        if st.singular_nodes:
            notes.append("%d of %d nodes had %s (nodata)"
                         % (st.singular_nodes, st.nodes,
                            text(lib.gk_algorithm_singular_form(alg))))
        if st.lowered_nodes:
            notes.append("%d of %d nodes were computed in a simpler form than asked (%s)"
                         % (st.lowered_nodes, st.nodes,
                            text(lib.gk_algorithm_lowered_form(alg))))
        gt = (_lib.c_double * 6)()
        lib.gk_grid_geotransform(g, gt)
        return GridResult(out[0] if bands == 1 else out, tuple(gt),
                          nodata=lib.gk_algorithm_nodata(alg),
                          algorithm=text(lib.gk_job_algorithm_string(job)),
                          device=ctx.device_name(),
                          extent=(g.xmin, g.xmax, g.ymin, g.ymax))
    finally:
        lib.gk_job_free(job)
