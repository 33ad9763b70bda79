# SPDX-License-Identifier: MIT
"""What every call shares: the context, errors, input checks, and running a
long C call on a worker thread that Ctrl-C cancels through the progress
callback."""
import threading
import warnings

import numpy as np

from . import _lib
from ._lib import lib


class Error(RuntimeError):
    """A failure reported by the C library; the message is gk_errmsg's text and
    `code` the gk_status (gridkit.ERR_ARG, ERR_NO_POINTS, ...)."""

    def __init__(self, message, code=_lib.ERR_INTERNAL):
        super().__init__(message)
        self.code = code


class GridkitWarning(UserWarning):
    """What the command prints as a warning or a note (a slow path, a cap that
    was hit, nodes with a singular system)."""


def text(b):
    return b.decode("utf-8", "replace") if b is not None else None


class Context:
    """A gk_context for one call: threads and device set, freed on exit."""

    def __init__(self, threads=None):
        if threads is None:
            threads = 0
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 0:
            raise ValueError("threads must be a whole number >= 0 (0: every core), not %r"
                             % (threads,))
        self.ptr = lib.gk_context_new()
        if not self.ptr:
            raise MemoryError("gridkit: no memory for a context")
        lib.gk_context_set_threads(self.ptr, int(threads))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        lib.gk_context_free(self.ptr)
        self.ptr = None

    def error(self, rc=None):
        """The context's error as an exception."""
        code = lib.gk_errno(self.ptr)
        msg = text(lib.gk_errmsg(self.ptr)) or "failed (code %s)" % (rc if rc else code)
        return Error(msg, code if code else (rc or _lib.ERR_INTERNAL))

    def check(self, rc):
        if rc:
            raise self.error(rc)

    def request_device(self, device):
        self.check(lib.gk_context_request_device(self.ptr, device_arg(device)))

    def device_name(self):
        return text(lib.gk_context_device_name(self.ptr))


def device_arg(device):
    if device is None:
        return None
    if not isinstance(device, str):
        raise ValueError("device must be 'auto', 'cpu', 'cuda' or 'cuda:N', not %r" % (device,))
    return device.encode()


def spec_arg(spec, what):
    if not isinstance(spec, str) or not spec:
        raise ValueError("%s must be a non-empty string such as %s, not %r"
                         % (what, "'invdist:power=2'" if what == "algorithm" else "'curve:r1=5'",
                            spec))
    if "\0" in spec:
        raise ValueError("%s: a NUL character in %r" % (what, spec))
    return spec.encode()


def coords(name, a, n=None):
    """a as a C-contiguous float64 vector of finite values (n of them)."""
    try:
        v = np.ascontiguousarray(a, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise ValueError("%s: not an array of numbers (%s)" % (name, e)) from None
    if v.ndim != 1:
        raise ValueError("%s must be one-dimensional, not of shape %s" % (name, v.shape))
    if n is not None and v.size != n:
        raise ValueError("%s has %d values and x has %d: give one per point" % (name, v.size, n))
    bad = ~np.isfinite(v)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError("%s[%d] is %r: every value must be finite (drop such points first)"
                         % (name, i, float(v[i])))
    return v


class Points:
    """A gk_points filled from arrays (copied)."""

    def __init__(self, ctx, x, y, z):
        self.ptr = lib.gk_points_new(ctx.ptr)
        if not self.ptr:
            raise ctx.error(_lib.ERR_NOMEM)
        n = x.size
        if n:
            px, py, pz = (_lib.POINTER(_lib.c_double)() for _ in range(3))
            rc = lib.gk_points_extend(self.ptr, n, px, py, pz)
            if rc:
                lib.gk_points_free(self.ptr)
                raise ctx.error(rc)
            for dst, src in ((px, x), (py, y), (pz, z)):
                np.ctypeslib.as_array(dst, shape=(n,))[:] = src
        self.n = n

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        lib.gk_points_free(self.ptr)
        self.ptr = None


def run(fn, messages_warn=True):
    """fn(progress, notes) on a worker thread, ctypes releasing the GIL while C runs.
    progress is a gk_progress_fn that returns 0 once the caller's thread got
    KeyboardInterrupt (Ctrl-C): the C call then stops with GK_ERR_CANCELLED,
    and once it has returned KeyboardInterrupt is raised again. Messages the
    C side gives through progress (with messages_warn: variogram's and cv's
    note on a slow path; ridges' are the names of its stages), and those fn
    appends to notes, become GridkitWarning in the caller's thread."""
    cancel = threading.Event()
    notes = []

    def progress(complete, message, user):
        if message and messages_warn:
            notes.append(text(message))
        return 0 if cancel.is_set() else 1

    cb = _lib.PROGRESS(progress)
    out = {}
    done = threading.Event()  # set by the worker alone: Thread.is_alive() can be
    # wrong after a KeyboardInterrupt inside Thread.join()

    def target():
        try:
            out["value"] = fn(cb, notes)
        except BaseException as e:  # handed to the caller's thread
            out["error"] = e
        finally:
            done.set()

    t = threading.Thread(target=target, name="gridkit", daemon=True)
    interrupted = started = False
    while not done.is_set():
        try:
            if not started:
                started = True  # start() can be interrupted only once the thread runs
                t.start()
            done.wait(0.05)
        except KeyboardInterrupt:
            interrupted = True  # the C call stops at its next progress call
            cancel.set()
    for m in notes:
        warnings.warn(m, GridkitWarning, stacklevel=3)  # the caller of grid() etc.
    if interrupted:
        raise KeyboardInterrupt
    if "error" in out:
        raise out["error"]
    return out["value"]
