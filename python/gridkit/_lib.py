# SPDX-License-Identifier: MIT
"""Loading libgridkit.so.0 and its ctypes declarations.

Every function the module calls is declared here with the argument and result
types of its prototype in gridkit.h, gridkit_geostat.h and gridkit_ridges.h,
and every struct it reads or fills is mirrored field for field (the test
test_layout.py compares sizes and offsets with the C compiler's, and the
argument lists with the headers').
"""
import ctypes
import os
import sysconfig
from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_int, c_size_t, c_uint,
                    c_uint64, c_void_p, c_ulonglong)

SONAME = "libgridkit.so.0"

# gk_status
OK, ERR_ARG, ERR_IO, ERR_NOMEM, ERR_NO_POINTS, ERR_UNSUPPORTED, ERR_CANCELLED, ERR_INTERNAL = range(8)

GK_VM_MAX_STRUCTURES = 8
GK_VGM_MAX_DIRECTIONS = 16
GK_KRIGE_MAX_DRIFT_RASTERS = 4
GK_SIM_MAX_STATS = 16
GK_IK_MAX_CUTS = 16
GK_VM_MAX_CANDIDATES = 16
GK_FIT_KAPPA_N = 48
GK_VGM_ANY = 0
# gk_vm_type values that take a kappa (Mat, Ste, Exc) and the nugget
GK_VM_NUG, GK_VM_MAT, GK_VM_STE, GK_VM_EXC, GK_VM_LIN = 0, 4, 5, 6, 9

# ---- structs -------------------------------------------------------------


class Grid(Structure):  # gk_grid
    _fields_ = [("xmin", c_double), ("xmax", c_double), ("ymin", c_double), ("ymax", c_double),
                ("nx", c_int), ("ny", c_int)]


class RunStats(Structure):  # gk_run_stats
    _fields_ = [("nodes", c_uint64), ("nodata_nodes", c_uint64), ("singular_nodes", c_uint64),
                ("lowered_nodes", c_uint64)]


class VmStructure(Structure):  # gk_vm_structure
    _fields_ = [("type", c_int), ("psill", c_double), ("range", c_double), ("kappa", c_double),
                ("anis_angle", c_double), ("anis_ratio", c_double)]


class VModel(Structure):  # gk_vmodel
    _fields_ = [("n", c_int), ("s", VmStructure * GK_VM_MAX_STRUCTURES)]


class SimParams(Structure):  # gk_sim_params
    _fields_ = [("nsim", c_int), ("first", c_int), ("seed", c_ulonglong), ("normal_score", c_int),
                ("zmin", c_double), ("zmax", c_double), ("have_zmin", c_int),
                ("have_zmax", c_int), ("path_random", c_int), ("realizations", c_int),
                ("nstat", c_int), ("stat", c_int * GK_SIM_MAX_STATS),
                ("stat_v", c_double * GK_SIM_MAX_STATS)]


class IkParams(Structure):  # gk_ik_params
    _fields_ = [("ncut", c_int), ("cut", c_double * GK_IK_MAX_CUTS), ("order", c_int),
                ("have_order", c_int), ("nmodels", c_int),
                ("models", VModel * GK_IK_MAX_CUTS)]


class KrigingParams(Structure):  # gk_kriging_params
    _fields_ = [("type", c_int), ("mean", c_double), ("drift", c_int), ("n_drift_rasters", c_int),
                ("drift_raster", (c_char * 256) * GK_KRIGE_MAX_DRIFT_RASTERS),
                ("model", VModel), ("model_auto", c_int), ("variogram_file", c_char * 256),
                ("variance", c_int), ("block_w", c_double), ("block_h", c_double),
                ("maxdist", c_double), ("drift_bilinear", c_int), ("have_mean", c_int),
                ("sim", SimParams), ("ik", IkParams)]


class VgmOptions(Structure):  # gk_vgm_options
    _fields_ = [("cutoff", c_double), ("width", c_double), ("nlags", c_int),
                ("estimator", c_int), ("ndir", c_int),
                ("azimuth", c_double * GK_VGM_MAX_DIRECTIONS), ("tol_hor", c_double),
                ("bandwidth", c_double)]


class Vgm(Structure):  # gk_vgm
    _fields_ = [("ndir", c_int), ("nlags", c_int), ("cutoff", c_double), ("width", c_double),
                ("azimuth", POINTER(c_double)), ("np", POINTER(c_double)),
                ("dist", POINTER(c_double)), ("gamma", POINTER(c_double))]


class VgmBlocks(Structure):  # gk_vgm_blocks
    _fields_ = [("nblocks", c_size_t), ("hsize", c_size_t), ("bytes", c_size_t),
                ("data", c_void_p), ("on_gpu", c_int)]


class FitOptions(Structure):  # gk_fit_options
    _fields_ = [("method", c_int), ("fit_sills", c_int), ("fit_ranges", c_int)]


class FitResult(Structure):  # gk_fit_result
    _fields_ = [("sserr", c_double), ("iterations", c_int), ("converged", c_int)]


class CvResult(Structure):  # gk_cv_result
    _fields_ = [("n", c_size_t), ("x", POINTER(c_double)), ("y", POINTER(c_double)),
                ("observed", POINTER(c_double)), ("predicted", POINTER(c_double)),
                ("variance", POINTER(c_double)), ("residual", POINTER(c_double)),
                ("zscore", POINTER(c_double)), ("fold", POINTER(c_int)),
                ("n_failed", c_size_t), ("mean_error", c_double), ("rmse", c_double),
                ("mae", c_double), ("mean_z", c_double), ("var_z", c_double),
                ("msdr", c_double), ("cor", c_double), ("nfold", c_int), ("seed", c_uint),
                ("method", c_char_p), ("device", c_char * 256)]


class Lines(Structure):  # gk_lines
    _fields_ = [("dim", c_int), ("n_lines", c_size_t), ("start", POINTER(c_size_t)),
                ("x", POINTER(c_double)), ("y", POINTER(c_double)), ("z", POINTER(c_double)),
                ("length", POINTER(c_double)), ("n_support", POINTER(c_uint64)),
                ("closed", POINTER(c_int)), ("mean_density", POINTER(c_double)),
                ("width", POINTER(c_double)), ("warning", c_char_p)]


# The structs above by their C names (for the layout test).
STRUCTS = {
    "gk_grid": Grid, "gk_run_stats": RunStats, "gk_vm_structure": VmStructure,
    "gk_vmodel": VModel, "gk_sim_params": SimParams, "gk_ik_params": IkParams,
    "gk_kriging_params": KrigingParams,
    "gk_vgm_options": VgmOptions,
    "gk_vgm": Vgm, "gk_vgm_blocks": VgmBlocks, "gk_fit_options": FitOptions,
    "gk_fit_result": FitResult, "gk_cv_result": CvResult, "gk_lines": Lines,
}

# ---- callbacks -----------------------------------------------------------
# gk_progress_fn: int (*)(double complete, const char *message, void *user)
PROGRESS = ctypes.CFUNCTYPE(c_int, c_double, c_char_p, c_void_p)
# gk_tile_sink: int (*)(void *user, int x0, int y0, int w, int h, int nbands, const double *values)
TILE_SINK = ctypes.CFUNCTYPE(c_int, c_void_p, c_int, c_int, c_int, c_int, c_int,
                             POINTER(c_double))

# ---- functions: name -> (result type, argument types) ---------------------
P = c_void_p  # opaque handles: gk_context *, gk_points *, gk_algorithm *, gk_job *, ...
_PD = POINTER(c_double)
FUNCTIONS = {
    "gk_version": (c_char_p, []),
    # context
    "gk_context_new": (P, []),
    "gk_context_free": (None, [P]),
    "gk_context_set_threads": (None, [P, c_int]),
    "gk_errno": (c_int, [P]),
    "gk_errmsg": (c_char_p, [P]),
    "gk_context_set_device": (c_int, [P, c_char_p]),
    "gk_context_request_device": (c_int, [P, c_char_p]),
    "gk_context_device_name": (c_char_p, [P]),
    "gk_context_auto_device": (c_int, [P, P, c_double, c_double, c_double]),
    "gk_algorithm_may_use_gpu": (c_int, [P]),
    # points
    "gk_points_new": (P, [P]),
    "gk_points_free": (None, [P]),
    "gk_points_extend": (c_int, [P, c_size_t, POINTER(_PD), POINTER(_PD), POINTER(_PD)]),
    "gk_points_count": (c_size_t, [P]),
    "gk_points_bounds": (c_int, [P, _PD, _PD, _PD, _PD]),
    # grid
    "gk_grid_check": (c_int, [P, POINTER(Grid)]),
    "gk_grid_geotransform": (None, [POINTER(Grid), _PD]),
    # algorithms
    "gk_algorithm_parse": (P, [P, c_char_p]),
    "gk_algorithm_free": (None, [P]),
    "gk_algorithm_name": (c_char_p, [P]),
    "gk_algorithm_string": (c_char_p, [P]),
    "gk_algorithm_lowered_form": (c_char_p, [P]),
    "gk_algorithm_singular_form": (c_char_p, [P]),
    "gk_algorithm_nodata": (c_double, [P]),
    "gk_algorithm_needs_z": (c_int, [P]),
    "gk_algorithm_z_is_weight": (c_int, [P]),
    "gk_algorithm_bands": (c_int, [P]),
    "gk_algorithm_band_name": (c_char_p, [P, c_int]),
    "gk_algorithm_pixel_margin": (c_double, [P]),
    # jobs
    "gk_job_new": (P, [P, P, P]),
    "gk_job_free": (None, [P]),
    "gk_job_bands": (c_int, [P]),
    "gk_job_run": (c_int, [P, POINTER(Grid), c_int, c_int, TILE_SINK, P, PROGRESS, P]),
    "gk_job_stats": (None, [P, POINTER(RunStats)]),
    "gk_job_warning": (c_char_p, [P]),
    "gk_job_algorithm_string": (c_char_p, [P]),
    # geostatistics
    "gk_algorithm_kriging": (POINTER(KrigingParams), [P]),
    "gk_vm_type_from_name": (c_int, [c_char_p, POINTER(c_int)]),
    "gk_vm_type_name": (c_char_p, [c_int]),
    "gk_vmodel_check": (c_int, [P, POINTER(VModel)]),
    "gk_vmodel_gamma_h": (c_double, [POINTER(VModel), c_double]),
    "gk_vmodel_format": (c_int, [POINTER(VModel), ctypes.c_char_p, c_size_t]),
    "gk_trend_residuals": (c_int, [P, P, c_int, c_int, _PD, _PD]),
    "gk_variogram_blocks_ex": (c_int, [P, P, POINTER(VgmOptions), c_int, c_int, c_int, PROGRESS,
                                       P, POINTER(VgmBlocks)]),
    "gk_variogram_merge": (c_int, [P, P, POINTER(VgmOptions), POINTER(VgmBlocks), POINTER(Vgm)]),
    "gk_vgm_blocks_free": (None, [POINTER(VgmBlocks)]),
    "gk_vgm_free": (None, [POINTER(Vgm)]),
    "gk_variogram_fit": (c_int, [P, POINTER(Vgm), c_int, POINTER(VModel), POINTER(FitOptions),
                                 POINTER(FitResult)]),
    "gk_vm_candidates": (c_int, [P, c_char_p, POINTER(VModel), c_int, POINTER(c_int)]),
    "gk_fit_kappa_gstat": (None, [_PD]),
    "gk_variogram_fit_best": (c_int, [P, POINTER(Vgm), c_int, POINTER(VModel), c_int, _PD, c_int,
                                      POINTER(FitOptions), POINTER(FitResult), POINTER(c_int)]),
    "gk_crossval_part_ex": (c_int, [P, P, P, c_int, c_uint, c_int, c_int, PROGRESS, P,
                                    POINTER(CvResult)]),
    "gk_cv_result_free": (None, [POINTER(CvResult)]),
    # ridges
    "gk_ridges_parse": (P, [P, c_char_p, c_int]),
    "gk_ridges_method_free": (None, [P]),
    "gk_ridges_method_string": (c_char_p, [P]),
    "gk_ridges": (POINTER(Lines), [P, P, P, c_int, PROGRESS, P]),
    "gk_lines_free": (None, [POINTER(Lines)]),
}


def candidates():
    """The places the library is looked for, in order: GRIDKIT_LIBRARY alone
    where it is set; else beside an installed package (<prefix>/lib/python3/
    dist-packages/gridkit: the libdir cmake --install wrote in _install.py,
    then <prefix>/lib/<multiarch> and <prefix>/lib), then the dynamic
    linker's search."""
    env = os.environ.get("GRIDKIT_LIBRARY")
    if env:
        return [env]
    places = []
    here = os.path.dirname(os.path.abspath(__file__))
    # installed: <prefix>/lib/python3/dist-packages/gridkit -> <prefix>/<libdir>
    try:
        from . import _install  # written by cmake --install: the libdir relative to here
        places.append(os.path.normpath(os.path.join(here, _install.LIBDIR_FROM_PACKAGE, SONAME)))
    except ImportError:
        pass
    lib = os.path.normpath(os.path.join(here, "..", "..", ".."))
    multiarch = sysconfig.get_config_var("MULTIARCH")
    if multiarch:
        places.append(os.path.join(lib, multiarch, SONAME))
    places.append(os.path.join(lib, SONAME))
    places.append(SONAME)  # the dynamic linker's own search (ld.so.cache, LD_LIBRARY_PATH)
    seen = []
    for p in places:
        if p not in seen:
            seen.append(p)
    return seen


def _load():
    tried = []
    for path in candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append("%s (no such file)" % path)
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
            continue
        missing = [name for name in FUNCTIONS if not hasattr(lib, name)]
        if missing:
            tried.append("%s (lacks %s)" % (path, ", ".join(missing)))
            continue
        for name, (res, args) in FUNCTIONS.items():
            f = getattr(lib, name)
            f.restype = res
            f.argtypes = args
        lib.gridkit_path = path
        return lib
    raise ImportError("gridkit: cannot load %s (GRIDKIT_LIBRARY=PATH names it); tried:\n  %s"
                      % (SONAME, "\n  ".join(tried)))


lib = _load()
