# SPDX-License-Identifier: MIT
"""gridkit.variogram(), fit() and cv(): `gridkit variogram` and `gridkit cv`
on arrays."""
import ctypes
import math

import numpy as np

from . import _lib
from ._call import Context, Error, Points, coords, run, spec_arg, text
from ._grid import _python_only
from ._lib import lib

_ESTIMATORS = {"matheron": 0, "cressie": 1}
_DRIFTS = {None: 0, "none": 0, "linear": 1, "quadratic": 2}
_MODELS = "Nug, Sph, Exp, Gau, Mat, Ste, Exc, Cir, Pen, Lin, Pow, Hol"


def _number(name, v, positive=True):
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise ValueError("%s: %r is not a number" % (name, v)) from None
    if not math.isfinite(f) or (positive and f <= 0):
        raise ValueError("%s must be %s, not %r" % (name, "positive" if positive else "finite", v))
    return f


def _numbers(name, v, most):
    vals = [v] if np.ndim(v) == 0 else list(v)
    if not vals:
        raise ValueError("%s: no value given" % name)
    if len(vals) > most:
        raise ValueError("%s: at most %d value%s, not %d" % (name, most, "s" if most > 1 else "",
                                                             len(vals)))
    return [_number(name, t, positive=False) for t in vals]


def _whole(name, v, lo, hi):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
        raise ValueError("%s must be a whole number from %d to %d, not %r" % (name, lo, hi, v))
    return int(v)


class Variogram:
    """A sample variogram, as `gridkit variogram` prints it: one row per lag
    class and direction (direction-major), empty classes included (np 0,
    dist and gamma NaN).

    np, dist, gamma  arrays: pairs, mean pair distance, semivariance
    direction        array: each row's azimuth (degrees clockwise from north),
                     NaN when omnidirectional
    cutoff, width    the largest distance and the class width used
    ndir, nlags      directions (1 when omnidirectional) and classes per direction
    n_points, estimator, drift
    """

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __len__(self):
        return self.np.size

    def __repr__(self):
        return ("Variogram(%d points, %d direction%s x %d lags, cutoff %.10g, width %.10g, %s)"
                % (self.n_points, self.ndir, "" if self.ndir == 1 else "s", self.nlags,
                   self.cutoff, self.width, self.estimator))

    def _c(self):
        """A gk_vgm over this object's arrays (kept alive by self)."""
        self._c_arrays = [np.ascontiguousarray(a, dtype=np.float64)
                          for a in (self._azimuth, self.np, self.dist, self.gamma)]
        ptr = [a.ctypes.data_as(ctypes.POINTER(ctypes.c_double)) for a in self._c_arrays]
        return _lib.Vgm(self.ndir, self.nlags, self.cutoff, self.width, *ptr)


def variogram(x, y, z, *, cutoff=None, width=None, lags=None, estimator="matheron",
              directions=None, tolerance=None, bandwidth=None, drift=None, device=None,
              threads=None):
    """The sample variogram of z at (x, y), as gstat's variogram(z ~ 1) and
    `gridkit variogram` (its --cutoff, --width, --lags, --estimator,
    --direction, --tolerance, --bandwidth and --drift options, by the same
    names). drift="linear" or "quadratic": the variogram of the residuals of
    an ordinary least-squares trend, gstat's variogram(z ~ x + y)."""
    x = coords("x", x)
    y = coords("y", y, x.size)
    z = coords("z", z, x.size)
    o = _lib.VgmOptions()
    if cutoff is not None:
        o.cutoff = _number("cutoff", cutoff)
    if width is not None:
        o.width = _number("width", width)
    if lags is not None:
        o.nlags = _whole("lags", lags, 1, 1000000)
    if estimator not in _ESTIMATORS:
        raise ValueError("estimator: %r is not 'matheron' or 'cressie'" % (estimator,))
    o.estimator = _ESTIMATORS[estimator]
    if directions is not None:
        az = _numbers("directions", directions, _lib.GK_VGM_MAX_DIRECTIONS)
        o.ndir = len(az)
        for i, a in enumerate(az):
            o.azimuth[i] = a
    if tolerance is not None:
        o.tol_hor = _number("tolerance", tolerance)
        if o.tol_hor > 180:
            raise ValueError("tolerance must be in (0, 180], not %r" % (tolerance,))
    if bandwidth is not None:
        o.bandwidth = _number("bandwidth", bandwidth)
    if drift not in _DRIFTS:
        raise ValueError("drift: %r is not 'linear' or 'quadratic'" % (drift,))
    with Context(threads) as ctx:
        if device is not None:
            ctx.request_device(device)
        if _DRIFTS[drift]:
            with Points(ctx, x, y, z) as pts:
                res = np.empty(x.size)
                ctx.check(lib.gk_trend_residuals(ctx.ptr, pts.ptr, _DRIFTS[drift], 0, None,
                                                 res.ctypes.data_as(ctypes.POINTER(
                                                     ctypes.c_double))))
            z = res
        with Points(ctx, x, y, z) as pts:
            v = run(lambda progress, notes: _variogram(ctx, pts, o, progress))
    v.n_points = x.size
    v.estimator = estimator
    v.drift = drift if _DRIFTS[drift] else None
    return v


def _variogram(ctx, pts, o, progress):
    blocks = _lib.VgmBlocks()
    out = _lib.Vgm()
    try:
        ctx.check(lib.gk_variogram_blocks_ex(ctx.ptr, pts.ptr, o, 0, 1, _lib.GK_VGM_ANY, progress,
                                             None, blocks))
        ctx.check(lib.gk_variogram_merge(ctx.ptr, pts.ptr, o, blocks, out))
        m = out.ndir * out.nlags

        def arr(p, k):
            return np.ctypeslib.as_array(p, shape=(k,)).copy() if k else np.empty(0)

        az = arr(out.azimuth, out.ndir)
        return Variogram(np=arr(out.np, m), dist=arr(out.dist, m), gamma=arr(out.gamma, m),
                         direction=np.repeat(az, out.nlags), _azimuth=az, cutoff=out.cutoff,
                         width=out.width, ndir=out.ndir, nlags=out.nlags)
    finally:
        lib.gk_vgm_blocks_free(blocks)
        lib.gk_vgm_free(out)


# ---- models and fits --------------------------------------------------------


def _structure_dict(s):
    return {"model": text(lib.gk_vm_type_name(s.type)), "psill": s.psill, "range": s.range,
            "kappa": s.kappa, "anis": (s.anis_angle, s.anis_ratio)}


def _format(vm):
    buf = ctypes.create_string_buffer(8192)
    if lib.gk_vmodel_format(vm, buf, len(buf)):
        raise Error("the model does not fit in %d characters" % len(buf), _lib.ERR_ARG)
    return text(buf.value)


class Model:
    """A variogram model, fitted as `gridkit variogram --fit` fits it.

    str(model)   the compact form kriging's model= takes, e.g.
                 "Nug(0.05)+Sph(0.59,897)": grid(..., "kriging:model=%s" % model)
    structures   list of dicts: model, psill, range, kappa, anis (angle, ratio)
    sserr, iterations, converged   the fit's
    kappa        the kappa a fit_kappa search kept (else None)
    candidates   for a list of models: each one's name, sserr, kept, model
                 (a Model, None when it could not be fitted)
    gamma(h)     the model's semivariance at distances h (no anisotropy)
    """

    def __init__(self, vm, fr=None, **kw):
        self._vm = _lib.VModel()
        ctypes.pointer(self._vm)[0] = vm
        self.string = _format(vm)
        self.structures = [_structure_dict(vm.s[i]) for i in range(vm.n)]
        self.sserr = fr.sserr if fr else None
        self.iterations = fr.iterations if fr else None
        self.converged = bool(fr.converged) if fr else None
        self.kappa = None
        self.candidates = None
        self.__dict__.update(kw)

    def __str__(self):
        return self.string

    def __repr__(self):
        return "Model(%r, sserr=%r)" % (self.string, self.sserr)

    def gamma(self, h):
        h = np.asarray(h, dtype=np.float64)
        f = np.vectorize(lambda d: lib.gk_vmodel_gamma_h(self._vm, float(d)), otypes=[float])
        return f(h)


def _type(name):
    t = ctypes.c_int()
    if lib.gk_vm_type_from_name(name.encode(), t):
        raise ValueError("unknown variogram model '%s' (use %s)" % (name, _MODELS))
    return t.value


def _one_model(model, nugget, psill, range_, kappa, anis):
    """gridkit variogram --fit MODEL with --nugget, --psill, --range, --kappa
    and --anis: the start model (NaN where the fit fills gstat's defaults)."""
    names = [t for t in model.replace("+", ",").replace(" ", ",").split(",") if t]
    if not names:
        raise ValueError("model: no model given")
    if len(names) > _lib.GK_VM_MAX_STRUCTURES:
        raise ValueError("model: at most %d structures" % _lib.GK_VM_MAX_STRUCTURES)
    st = []
    for nm in names:
        t = _type(nm)
        if t == _lib.GK_VM_NUG and any(s[0] == t for s in st):
            raise ValueError("model: Nug listed twice")
        st.append([t, math.nan, 0.0 if t == _lib.GK_VM_NUG else math.nan, 0.5, 0.0, 1.0])
    if nugget is not None:
        v = _number("nugget", nugget, positive=False)
        if v < 0:
            raise ValueError("nugget must be >= 0, not %r" % (nugget,))
        nug = [s for s in st if s[0] == _lib.GK_VM_NUG]
        if not nug:
            if len(st) >= _lib.GK_VM_MAX_STRUCTURES:
                raise ValueError("model: at most %d structures" % _lib.GK_VM_MAX_STRUCTURES)
            st.insert(0, [_lib.GK_VM_NUG, v, 0.0, 0.5, 0.0, 1.0])  # first, as vgm(..., nugget)
        else:
            nug[0][1] = v
    others = [s for s in st if s[0] != _lib.GK_VM_NUG]
    for name, val, k in (("psill", psill, 1), ("range", range_, 2), ("kappa", kappa, 3)):
        if val is None:
            continue
        vals = _numbers(name, val, _lib.GK_VM_MAX_STRUCTURES)
        if len(vals) != len(others) and not (len(vals) == 1 and name == "kappa"):
            raise ValueError("%s: %d value%s for %d non-nugget structure%s"
                             % (name, len(vals), "" if len(vals) == 1 else "s", len(others),
                                "" if len(others) == 1 else "s"))
        for i, s in enumerate(others):
            x = vals[0 if len(vals) == 1 else i]
            if name == "psill" and x < 0:
                raise ValueError("psill must be >= 0, not %.15g" % x)
            if name == "range" and (x < 0 or (x == 0 and s[0] != _lib.GK_VM_LIN)):
                raise ValueError("range must be positive, not %.15g" % x)
            s[k] = x
    if anis is not None:
        a = _anis(anis)
        for s in others:
            s[4], s[5] = a
    vm = _lib.VModel()
    vm.n = len(st)
    for i, s in enumerate(st):
        vm.s[i] = _lib.VmStructure(*s)
    return vm


def _anis(anis):
    try:
        angle, ratio = (float(v) for v in anis)
    except (TypeError, ValueError):
        raise ValueError("anis needs (angle, ratio), not %r" % (anis,)) from None
    if not (0 < ratio <= 1) or not (0 <= angle < 360):
        raise ValueError("anis: angle must be in [0, 360) and ratio in (0, 1], not %r" % (anis,))
    return angle, ratio


def fit(v, model, *, nugget=None, psill=None, range=None, kappa=None, anis=None, method=7,
        fit_kappa=None):
    """Fits a variogram model to the sample variogram v (from variogram()) by
    weighted least squares, as gstat's fit.variogram() and `gridkit
    variogram --fit`.

    model      one nested model: "Sph", "Nug,Sph" (or "Nug+Sph"); or a list of
               candidates, ["Exp", "Sph", "Gau"], each fitted with a nugget and
               the smallest SSErr kept (--fit-best; "Sph+Exp" nests)
    nugget, psill, range, kappa   start values (a number, or one per non-nugget
               structure); not given: gstat's defaults (vgm_fill_na)
    anis       (angle, ratio) of the non-nugget structures, kept as given
    method     gstat's fit.method: 1, 2, 6 or 7 (default)
    fit_kappa  True (gstat's 0.3, 0.4, ..., 5) or a list of kappas: Mat and
               Ste structures are fitted with each and the best kept
    Returns a Model."""
    if not isinstance(v, Variogram):
        raise ValueError("fit() takes the result of gridkit.variogram(), not %r" % type(v).__name__)
    if method not in (1, 2, 6, 7) or isinstance(method, bool):
        raise ValueError("method must be 1, 2, 6 or 7, not %r" % (method,))
    best = not isinstance(model, str)
    if best:
        names = list(model)
        if not names or not all(isinstance(t, str) and t for t in names):
            raise ValueError("model: a name such as 'Nug,Sph' or a list of names, not %r"
                             % (model,))
        if psill is not None or range is not None:
            raise ValueError("a list of models: psill and range do not apply (every candidate "
                             "starts from gstat's defaults; fit one model to give start values)")
    kappas = None
    if fit_kappa is True:
        kappas = (ctypes.c_double * _lib.GK_FIT_KAPPA_N)()
        lib.gk_fit_kappa_gstat(kappas)
    elif fit_kappa is not None and fit_kappa is not False:
        ks = _numbers("fit_kappa", fit_kappa, 100000)
        for k in ks:
            if not 0 < k <= 100:
                raise ValueError("fit_kappa: kappa %.15g is not in (0, 100] (Mat and Ste need a "
                                 "positive kappa)" % k)
        kappas = (ctypes.c_double * len(ks))(*ks)
    nkappa = len(kappas) if kappas is not None else 0
    fo = _lib.FitOptions(method, 1, 1)
    fr = _lib.FitResult()
    cand = (_lib.VModel * _lib.GK_VM_MAX_CANDIDATES)()
    cand_fit = (_lib.FitResult * _lib.GK_VM_MAX_CANDIDATES)()
    ncand = ctypes.c_int(0)
    with Context() as ctx:
        if best:
            if lib.gk_vm_candidates(ctx.ptr, ",".join(names).encode(), cand,
                                    _lib.GK_VM_MAX_CANDIDATES, ncand):
                raise ValueError(text(lib.gk_errmsg(ctx.ptr)))
            nug = None if nugget is None else _number("nugget", nugget, positive=False)
            if nug is not None and nug < 0:
                raise ValueError("nugget must be >= 0, not %r" % (nugget,))
            a = _anis(anis) if anis is not None else None
            k1 = None
            if kappa is not None:
                ks = _numbers("kappa", kappa, _lib.GK_VM_MAX_STRUCTURES)
                if len(ks) != 1:
                    raise ValueError("kappa: one value with a list of models, not %d" % len(ks))
                k1 = ks[0]
            for c in cand[:ncand.value]:
                for s in c.s[:c.n]:
                    if s.type == _lib.GK_VM_NUG:
                        if nug is not None:
                            s.psill = nug
                        continue
                    if k1 is not None:
                        s.kappa = k1
                    if a is not None:
                        s.anis_angle, s.anis_ratio = a
        else:
            vm = _one_model(model, nugget, psill, range, kappa, anis)
        cv_ = v._c()
        kept = ctypes.c_int(-1)
        if not best and not nkappa:
            ctx.check(lib.gk_variogram_fit(ctx.ptr, cv_, -1, vm, fo, fr))
            return _fitted(Model(vm, fr))
        if not best:
            cand[0] = vm
            ncand.value = 1
        mat_ste = (_lib.GK_VM_MAT, _lib.GK_VM_STE)
        if nkappa and not any(s.type in mat_ste for c in cand[:ncand.value] for s in c.s[:c.n]):
            raise ValueError("fit_kappa: the kappa search is for Mat and Ste structures and %s "
                             "none" % ("the candidates have" if best else "the model has"))
        ctx.check(lib.gk_variogram_fit_best(ctx.ptr, cv_, -1, cand, ncand.value, kappas, nkappa,
                                            fo, cand_fit, kept))
        k = kept.value
        m = Model(cand[k], cand_fit[k])
        if nkappa:
            ks = [s.kappa for s in cand[k].s[:cand[k].n] if s.type in mat_ste]
            m.kappa = ks[0] if ks else None
        if best:
            m.candidates = []
            for i in builtins_range(ncand.value):
                c, f = cand[i], cand_fit[i]
                m.candidates.append({
                    "name": "+".join(text(lib.gk_vm_type_name(s.type)) for s in c.s[:c.n]),
                    "sserr": f.sserr, "kept": i == k,
                    "model": Model(c, f) if math.isfinite(f.sserr) else None})
        return _fitted(m)


builtins_range = range  # fit()'s `range` argument hides the builtin there


def _fitted(m):
    if m.converged is False:
        import warnings
        from ._call import GridkitWarning
        warnings.warn("no convergence after %d iterations" % m.iterations, GridkitWarning,
                      stacklevel=3)
    return m


# ---- cross-validation ---------------------------------------------------------


class CrossValidation:
    """gridkit cv's results. Per point, in input order: x, y, observed,
    predicted (NaN: no prediction), variance (NaN without one), residual
    (observed - predicted), zscore, fold (1..nfold). The summary as `gridkit
    cv --format json` prints it, as the dict `summary` and as attributes: n
    (predictions), n_failed, n_points, mean_error, rmse, mae, mean_z, var_z,
    cor, msdr (NaN where JSON has null), nfold, seed, algorithm, method,
    device, leave_one_out."""

    def __init__(self, arrays, summary):
        self.__dict__.update(arrays)
        self.__dict__.update(summary)
        self.summary = summary

    def __repr__(self):
        return "CrossValidation(%s)" % ", ".join(
            "%s=%r" % (k, self.summary[k]) for k in ("n", "n_failed", "rmse", "mean_error",
                                                      "nfold", "method"))


def cv(x, y, z, algorithm, nfold=None, seed=1, *, device=None, threads=None):
    """Cross-validates `algorithm` (gdal_grid's -a syntax, as grid()) on the
    points: leave-one-out (nfold None), or nfold random folds drawn with
    seed, each predicted from the others; as `gridkit cv` and gstat's
    krige.cv. Returns a CrossValidation."""
    x = coords("x", x)
    y = coords("y", y, x.size)
    z = coords("z", z, x.size)
    aspec = spec_arg(algorithm, "algorithm")
    n = x.size
    if n < 2:
        raise ValueError("cross-validation needs at least 2 points, got %d" % n)
    k = 0 if nfold is None else _whole("nfold", nfold, 2, 2147483647)
    if k > n:
        raise ValueError("nfold %d: more folds than points (%d)" % (k, n))
    seed = _whole("seed", seed, 0, 4294967295)
    with Context(threads) as ctx:
        alg = lib.gk_algorithm_parse(ctx.ptr, aspec)
        if not alg:
            raise ctx.error()
        try:
            why = _python_only(alg)
            if why:
                raise ValueError(why)
            ctx.request_device(device)
            astr = text(lib.gk_algorithm_string(alg))
            with Points(ctx, x, y, z) as pts:
                return run(lambda progress, notes: _cv(ctx, pts, alg, k, seed, astr, progress,
                                                       notes))
        finally:
            lib.gk_algorithm_free(alg)


def _cv(ctx, pts, alg, nfold, seed, astr, progress, notes):
    r = _lib.CvResult()
    try:
        ctx.check(lib.gk_crossval_part_ex(ctx.ptr, pts.ptr, alg, nfold, seed, 0, 1, progress, None,
                                          r))
        n = r.n
        if r.n_failed == n:
            raise Error("none of the %d points got a prediction from %s (singular systems: "
                        "coincident points? or fewer neighbours than min_points)" % (n, astr),
                        _lib.ERR_NO_POINTS)
        if r.n_failed:
            notes.append("%d of %d points got no prediction (nodata); the statistics use the "
                         "other %d" % (r.n_failed, n, n - r.n_failed))
        arrays = {f: np.ctypeslib.as_array(getattr(r, f), shape=(n,)).copy()
                  for f in ("x", "y", "observed", "predicted", "variance", "residual", "zscore",
                            "fold")}
        summary = {"n": n - r.n_failed, "n_failed": r.n_failed, "n_points": n,
                   "mean_error": r.mean_error, "rmse": r.rmse, "mae": r.mae, "mean_z": r.mean_z,
                   "var_z": r.var_z, "cor": r.cor, "msdr": r.msdr, "nfold": r.nfold,
                   "seed": r.seed, "algorithm": astr,
                   "method": text(r.method) if r.method else "rebuild",
                   "device": text(r.device) or "cpu", "leave_one_out": r.nfold == n}
        return CrossValidation(arrays, summary)
    finally:
        lib.gk_cv_result_free(r)
