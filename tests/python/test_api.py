# SPDX-License-Identifier: MIT
"""The binding itself: the ctypes structs laid out as the C compiler lays them
out, every declared function's arguments as the headers declare them, the
library's exported symbols, errors carrying the C message (compared with the
command's), Ctrl-C cancelling a long call, the GIL released while C runs, and
the library found from an installed package."""
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import _thread

import numpy as np
import pytest

import gridkit
from gridkit import _lib
from conftest import BUILD, SOURCE, cli, need_gdal

HEADERS = [os.path.join(SOURCE, "algorithms", "include", h)
           for h in ("gridkit.h", "gridkit_geostat.h", "gridkit_ridges.h")]


def header_text():
    s = "\n".join(open(h).read() for h in HEADERS)
    s = re.sub(r"/\*.*?\*/", " ", s, flags=re.S)
    s = re.sub(r"//[^\n]*", " ", s)
    return re.sub(r"^\s*#[^\n]*", " ", s, flags=re.M)


def test_struct_layout():
    prog = os.environ.get("GRIDKIT_LAYOUT") or os.path.join(BUILD, "tests", "python_layout")
    if not os.access(prog, os.X_OK):
        cc = shutil.which("cc")
        if not cc:
            pytest.skip("no layout program and no C compiler")
        prog = os.path.join(os.environ.get("TMPDIR", "/tmp"), "gk_layout_%d" % os.getpid())
        subprocess.run([cc, "-std=c11", "-I", os.path.join(SOURCE, "algorithms", "include"),
                        os.path.join(SOURCE, "tests", "python", "layout.c"), "-o", prog],
                       check=True)
    c = json.loads(subprocess.run([prog], capture_output=True, text=True, check=True).stdout)
    assert set(c) == set(_lib.STRUCTS)
    for name, st in _lib.STRUCTS.items():
        assert ctypes.sizeof(st) == c[name]["size"], name
        fields = {f[0]: getattr(st, f[0]).offset for f in st._fields_}
        assert fields == c[name]["fields"], name


# callback typedefs, opaque handles and enums of the headers
CALLBACKS = {"gk_progress_fn", "gk_tile_sink", "gk_tile_sink_typed", "gk_drift_sampler_fn",
             "gk_triangulate_fn", "gk_ridges_exchange_fn"}
OPAQUE = {"gk_context", "gk_points", "gk_algorithm", "gk_job", "gk_ridges_method", "void"}
ENUMS = {"gk_status", "gk_precision", "gk_value_type", "gk_vm_type", "gk_krige_type",
         "gk_drift_type", "gk_vgm_estimator"}
SCALARS = {"double": "double", "float": "float", "int": "int", "unsigned": "uint",
           "unsigned int": "uint", "size_t": "u64", "uint64_t": "u64", "void": "void"}


def c_kind(t):
    """A C type as a descriptor: int, double, ptr (an opaque handle),
    ptr<gk_grid>, ptr<double>, ptr<ptr<double>>, fn, ..."""
    t = re.sub(r"\bconst\b", " ", t)
    t = re.sub(r"\s+", " ", t).strip()
    stars = t.count("*")
    base = t.replace("*", "").strip()
    if base in CALLBACKS:
        assert stars == 0
        return "fn"
    if base in ENUMS:
        base = "int"
    if stars == 0:
        return SCALARS[base]
    if stars == 1 and base in OPAQUE:
        return "ptr"
    inner = base if base in _lib.STRUCTS else {"char": "char"}.get(base, SCALARS.get(base, base))
    for _ in range(stars):
        inner = "ptr<%s>" % inner
    return inner


def ctypes_kind(t):
    names = {v: k for k, v in _lib.STRUCTS.items()}
    if t is None:
        return "void"
    if t is ctypes.c_void_p:
        return "ptr"
    if t is ctypes.c_char_p:
        return "ptr<char>"
    if isinstance(t, type) and issubclass(t, ctypes._CFuncPtr):
        return "fn"
    if isinstance(t, type) and issubclass(t, ctypes._Pointer):
        tt = t._type_
        return "ptr<%s>" % (names[tt] if tt in names else ctypes_kind(tt))
    return {ctypes.c_double: "double", ctypes.c_float: "float", ctypes.c_int: "int",
            ctypes.c_uint: "uint", ctypes.c_size_t: "u64", ctypes.c_uint64: "u64"}[t]


def prototypes():
    """name -> (return type, [parameter types]) of every function the headers declare."""
    out = {}
    for decl in header_text().split(";"):
        decl = re.split(r"[{}]", decl)[-1].strip()  # after a body, a struct, extern "C" {
        m = re.search(r"(gk_[a-z0-9_]+)\s*\(", decl)
        if not m or decl.startswith(("typedef", "static")):
            continue
        ret = decl[:m.start()].strip()
        depth, i = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(decl[i], 0)
            i += 1
        params = decl[m.end():i - 1].strip()
        plist = [] if params in ("void", "") else [p.strip() for p in params.split(",")]
        types = []
        for p in plist:
            if "[" in p:  # "double gt[6]", "double kappa[GK_FIT_KAPPA_N]": a pointer
                p = p[:p.index("[")].rsplit(" ", 1)[0] + " *"
            else:  # drop the parameter's name
                p = re.sub(r"[A-Za-z_][A-Za-z0-9_]*$", "", p)
            types.append(p)
        out[m.group(1)] = (ret, types)
    return out


def test_functions_as_the_headers_declare_them():
    protos = prototypes()
    assert len(protos) > 100
    for name, (res, args) in _lib.FUNCTIONS.items():
        assert name in protos, "%s is not declared in the public headers" % name
        cret, cargs = protos[name]
        assert ctypes_kind(res) == c_kind(cret), name
        assert [ctypes_kind(a) for a in args] == [c_kind(a) for a in cargs], name


def exported(path):
    nm = shutil.which("nm")
    if not nm:
        pytest.skip("no nm (binutils)")
    out = subprocess.run([nm, "-D", "--defined-only", path], capture_output=True, text=True,
                         check=True).stdout
    return {l.split()[-1].split("@")[0] for l in out.splitlines() if " T " in l}


def test_exported_symbols():
    """The library exports exactly the functions of the headers, among them
    every one the module binds."""
    syms = exported(gridkit.library_path)
    assert set(_lib.FUNCTIONS) <= syms
    assert syms == set(prototypes())


def test_version():
    m = re.search(r'#define GK_VERSION_STRING "([^"]+)"', open(HEADERS[0]).read())
    assert gridkit.__version__ == m.group(1) == gridkit.library_version


CLI_ERRORS = [
    (["grid", "-a", "invdist:foo=1"], "grid", "invdist:foo=1"),
    (["grid", "-a", "nosuch"], "grid", "nosuch"),
    (["grid", "-a", "invdistnn:radius=-5"], "grid", "invdistnn:radius=-5"),
    (["grid", "-a", "kriging:model=Sph:psill=1:range=0"], "grid", "kriging:model=Sph:psill=1:range=0"),
    (["grid", "-a", "kriging:model=Foo(1,2)"], "grid", "kriging:model=Foo(1,2)"),
    (["ridges", "-a", "curve:nosuch=1"], "ridges", "curve:nosuch=1"),
    (["ridges", "-a", "density:bandwidth=-1"], "ridges", "density:bandwidth=-1"),
]


@pytest.mark.parametrize("args,kind,spec", CLI_ERRORS, ids=[e[2] for e in CLI_ERRORS])
def test_errors_carry_the_c_message(tmp_path, args, kind, spec):
    """The command's message (after 'gridkit grid: error: ') is the exception's."""
    need_gdal()
    src = os.path.join(SOURCE, "data", "meuse.gpkg")
    dst = tmp_path / ("o.tif" if kind == "grid" else "o.gpkg")
    r = cli(args[0], "-zfield", "logzinc", *args[1:], src, dst, check=False)
    assert r.returncode != 0
    m = re.search(r"gridkit %s: error: (.*)" % kind, r.stderr)
    want = m.group(1).strip()
    x, y, z = np.arange(10.0), np.arange(10.0) % 3, np.arange(10.0)
    with pytest.raises(gridkit.Error) as e:
        if kind == "grid":
            gridkit.grid(x, y, z, spec)
        else:
            gridkit.ridges(x, y, spec)
    assert str(e.value) == want
    assert e.value.code == gridkit.ERR_ARG
    assert isinstance(e.value, RuntimeError)


def test_unusable_device_is_an_error():
    x, y, z = np.arange(10.0), np.arange(10.0) % 3, np.arange(10.0)
    with pytest.raises(gridkit.Error) as e:
        gridkit.grid(x, y, z, "nearest", device="gpu7")
    assert e.value.code == gridkit.ERR_ARG and "gpu7" in str(e.value)


def big_points(n, seed=3):
    rng = np.random.default_rng(seed)
    return rng.uniform(0, 1000, n), rng.uniform(0, 1000, n), rng.uniform(0, 100, n)


def interrupted(call, after=0.3):
    """call() with Ctrl-C (interrupt_main) after `after` seconds: the seconds
    from the interrupt to KeyboardInterrupt."""
    t0 = [None]

    def fire():
        t0[0] = time.monotonic()
        _thread.interrupt_main()

    timer = threading.Timer(after, fire)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
        return time.monotonic() - t0[0]
    finally:
        timer.cancel()


# each would take well over 10 s on 2 cores
LONG_CALLS = {
    "grid": lambda p: gridkit.grid(*p, "invdist:power=2", shape=(800, 800), device="cpu"),
    "cv": lambda p: gridkit.cv(*p, "invdist:power=2", device="cpu"),
    "variogram": lambda p: gridkit.variogram(*p, cutoff=2000, device="cpu"),
}


@pytest.mark.filterwarnings("ignore::gridkit.GridkitWarning")  # the slow path's note
@pytest.mark.parametrize("what", sorted(LONG_CALLS))
def test_ctrl_c_cancels_promptly(what):
    n = {"grid": 40000, "cv": 150000, "variogram": 300000}[what]
    p = big_points(n)
    before = threading.active_count()
    t0 = time.monotonic()
    latency = interrupted(lambda: LONG_CALLS[what](p))
    assert latency < 3.0, "KeyboardInterrupt %.2f s after Ctrl-C" % latency
    assert time.monotonic() - t0 < 4.0
    assert threading.active_count() == before  # the worker has returned
    # and the module works on
    r = gridkit.grid(p[0][:100], p[1][:100], p[2][:100], "nearest", shape=(3, 3), device="cpu")
    assert r.values.shape == (3, 3)


def test_gil_released_while_c_runs():
    """Another Python thread runs on while C computes a grid (a library
    loaded with the GIL held would stop it for the whole call)."""
    p = big_points(40000)
    count = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            count[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        time.sleep(0.05)
        c0, t0 = count[0], time.monotonic()
        gridkit.grid(*p, "invdist:power=2", shape=(400, 400), device="cpu", threads=1)
        took, during = time.monotonic() - t0, count[0] - c0
    finally:
        stop.set()
        t.join()
    assert took > 0.1  # long enough to tell
    assert during > 10000 * took, (during, took)


def run_python(code, env_extra, cwd):
    env = {k: v for k, v in os.environ.items()
           if k not in ("GRIDKIT_LIBRARY", "PYTHONPATH", "LD_LIBRARY_PATH")}
    env.update(env_extra)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=60)


def test_found_beside_the_installed_package(tmp_path):
    """cmake --install's component python, the library in the prefix's libdir:
    found without GRIDKIT_LIBRARY; GRIDKIT_LIBRARY wrong: an ImportError that
    names it."""
    cmake = os.environ.get("GRIDKIT_CMAKE") or shutil.which("cmake")
    if not cmake:
        pytest.skip("no cmake")
    prefix = tmp_path / "prefix"
    subprocess.run([cmake, "--install", BUILD, "--prefix", str(prefix), "--component", "python"],
                   check=True, capture_output=True)
    pkg = prefix / "lib" / "python3" / "dist-packages"
    assert (pkg / "gridkit" / "__init__.py").exists() and (pkg / "gridkit" / "_install.py").exists()
    assert not (pkg / "gridkit" / "__pycache__").exists()
    libdir = re.search(r"^CMAKE_INSTALL_LIBDIR:PATH=(.*)$",
                       open(os.path.join(BUILD, "CMakeCache.txt")).read(), re.M).group(1)
    (prefix / libdir).mkdir(parents=True, exist_ok=True)
    shutil.copy(os.path.join(BUILD, "libgridkit.so.0"), prefix / libdir / "libgridkit.so.0")
    code = ("import gridkit, os; print(os.path.realpath(gridkit.library_path)); "
            "print(gridkit.grid([0.0, 1, 2], [0.0, 2, 1], [1.0, 2, 3], 'nearest', "
            "shape=(2, 2), device='cpu').values.tolist())")
    r = run_python(code, {"PYTHONPATH": str(pkg)}, tmp_path)
    assert r.returncode == 0, r.stderr
    where, values = r.stdout.splitlines()
    assert where == os.path.realpath(prefix / libdir / "libgridkit.so.0")
    assert values == "[[2.0, 2.0], [1.0, 3.0]]" or len(values) > 0
    r = run_python("import gridkit", {"PYTHONPATH": str(pkg),
                                      "GRIDKIT_LIBRARY": str(tmp_path / "nowhere.so")}, tmp_path)
    assert r.returncode != 0
    assert "ImportError" in r.stderr and "nowhere.so (no such file)" in r.stderr
    assert "GRIDKIT_LIBRARY" in r.stderr
