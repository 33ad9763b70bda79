# SPDX-License-Identifier: MIT
"""gridkit for Python: scattered points to grids, variograms, cross-validation
and ridge lines, numpy arrays in and out (docs/python.md).

    import gridkit
    values, gt = gridkit.grid(x, y, z, "invdistnn:power=2:radius=400", shape=(400, 500))

Built on the C library libgridkit.so.0 through ctypes; the results are the
bytes `gridkit grid`, `gridkit variogram`, `gridkit cv` and `gridkit ridges`
give for the same points and options.
"""
from ._lib import (ERR_ARG, ERR_CANCELLED, ERR_INTERNAL, ERR_IO, ERR_NOMEM, ERR_NO_POINTS,
                   ERR_UNSUPPORTED, lib as _clib)
from ._call import Error, GridkitWarning
from ._grid import GridResult, grid
from ._geostat import CrossValidation, Model, Variogram, cv, fit, variogram
from ._ridges import RidgeLines, ridges

__version__ = "0.1.0"
library_path = _clib.gridkit_path  # the libgridkit.so.0 loaded
library_version = _clib.gk_version().decode()  # its version (the package's own: __version__)

__all__ = ["grid", "variogram", "fit", "cv", "ridges", "Error", "GridkitWarning", "GridResult",
           "Variogram", "Model", "CrossValidation", "RidgeLines", "ERR_ARG", "ERR_IO",
           "ERR_NOMEM", "ERR_NO_POINTS", "ERR_UNSUPPORTED", "ERR_CANCELLED", "ERR_INTERNAL"]
