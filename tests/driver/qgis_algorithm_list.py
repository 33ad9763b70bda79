#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The QGIS plugin without QGIS (ctest qgis_algorithm_list, run in CI):
- the Grid tool's list of algorithms is gridkit's own (`gridkit grid
  --algorithms`, read by gridkit_cli.algorithms()), common ones first, each
  one the CLI accepts with the keys the provider may pass; the typed choices
  (gauss's methods with fft, heatmap's kernels and outputs) are gridkit's;
- every tool has tags and a short description (Toolbox search), found by
  importing the plugin over a stub of qgis.core;
- the program is found as documented ($GRIDKIT_CLI, PATH, /usr/bin, the
  install's bin/), and a missing one gets a message naming the setting;
- metadata.txt has what QGIS's plugin manager reads (and no invented URL);
- the zip (build/gridkit_provider.zip, target qgis_plugin_zip) is what
  Install from ZIP takes: gridkit_provider/ at its root, the sources as they
  are, no __pycache__.
    usage: qgis_algorithm_list.py GRIDKIT SOURCE_DIR [ZIP]"""
import configparser
import importlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import types
import warnings
import zipfile

gridkit, src = os.path.abspath(sys.argv[1]), sys.argv[2]
zip_path = sys.argv[3] if len(sys.argv) > 3 else None
plugin_dir = os.path.join(src, "qgis", "gridkit_provider")
sys.dont_write_bytecode = True  # leave no __pycache__ in the source folder
sys.path.insert(0, os.path.join(src, "qgis"))
from gridkit_provider import gridkit_cli  # noqa: E402

failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    failures += 0 if ok else 1


# a file or pipe left open (ResourceWarning, an error here) is a failure
warnings.simplefilter("error", ResourceWarning)
sys.unraisablehook = lambda u: check(False, "%s: %s" % (type(u.exc_value).__name__,
                                                        u.exc_value))


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


# ---- the algorithm list ------------------------------------------------------
raw = gridkit_cli.algorithms(gridkit, raw=True)
algs = gridkit_cli.algorithms(gridkit)
names = [a[0] for a in algs]
check(len(names) >= 13 and len(set(names)) == len(names), "%d distinct algorithms" % len(names))
check(sorted(names) == sorted(a[0] for a in raw) and sorted(algs) == sorted(raw),
      "the Grid tool lists exactly gridkit's algorithms, with their keys and summaries")
check(names[:4] == ["invdist", "invdistnn", "linear", "kriging"],
      "common ones first: " + ", ".join(names[:4]))
known = [n for n in gridkit_cli.PREFERRED_ORDER if n in names]
check(names[:len(known)] == known and
      names[len(known):] == [a[0] for a in raw if a[0] not in gridkit_cli.PREFERRED_ORDER],
      "the order: PREFERRED_ORDER, then any other in gridkit's order")
check(not [n for n in gridkit_cli.PREFERRED_ORDER if n not in names],
      "every name in PREFERRED_ORDER is one gridkit lists")
for want in ("invdist", "linear", "aidw", "kriging", "heatmap", "gauss", "kernel_smooth"):
    check(want in names, want + " is listed")
keys = {a[0]: a[1] for a in algs}
check("power" in keys.get("invdist", []) and "radius1" in keys.get("invdist", []),
      "invdist takes power and radius1")
check("model" in keys.get("kriging", []) and "variance" in keys.get("kriging", []),
      "kriging takes model and variance (its own grammar, names without value hints)")
check(all(a[2] for a in algs), "every algorithm has a summary")
# Every listed name is an algorithm the CLI knows: an unknown one fails with
# "unknown algorithm" before the source is opened.
for name in names:
    r = subprocess.run([gridkit, "grid", "-q", "-a", name, "/nonexistent/src.csv",
                        "/nonexistent/out.tif"], stderr=subprocess.PIPE)
    check(r.returncode != 0 and b"unknown algorithm" not in r.stderr,
          "gridkit grid -a %s is known" % name)
check(gridkit_cli.algorithms("/nonexistent/gridkit") == [], "no gridkit: an empty list")
gauss_methods = gridkit_cli.method_values(gridkit, "gauss")
check("fft" in gauss_methods, "gridkit lists fft among gauss's methods: %s" % gauss_methods)


# ---- the plugin over a stub of qgis.core -------------------------------------
class _Stub:
    """Any QGIS class: accepts every call, has every attribute."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs

    def __getattr__(self, name):
        return _Stub()

    def __call__(self, *args, **kwargs):
        return _Stub()

    def __or__(self, other):
        return self


class _StubMeta(type):
    def __getattr__(cls, name):
        return _Stub()


def _stub_class(name):
    return _StubMeta(name, (_Stub,), {})


def _stub_module(name):
    mod = types.ModuleType(name)
    cache = {}

    def getattr_(attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return cache.setdefault(attr, _stub_class(attr))
    mod.__getattr__ = getattr_
    return mod


for m in ("qgis", "qgis.core", "qgis.PyQt", "qgis.PyQt.QtGui", "qgis.PyQt.QtCore"):
    sys.modules[m] = _stub_module(m)
sys.modules["qgis"].core = sys.modules["qgis.core"]
os.environ["GRIDKIT_CLI"] = gridkit
provider = importlib.import_module("gridkit_provider.provider")
algorithms = importlib.import_module("gridkit_provider.algorithms")
heatmap = importlib.import_module("gridkit_provider.heatmap_algorithm")
base = algorithms.GridkitAlgorithmBase

classes = provider.algorithm_classes()
# every concrete tool class in the plugin's modules is one the provider loads
defined = set()
for modname in ("algorithms", "heatmap_algorithm", "ridges_algorithm"):
    mod = importlib.import_module("gridkit_provider." + modname)
    for obj in vars(mod).values():
        if isinstance(obj, type) and issubclass(obj, base) and obj is not base and \
                "name" in vars(obj):
            defined.add(obj)
check(defined == set(classes), "the provider loads every tool: %s"
      % ", ".join(sorted(c.__name__ for c in classes)))
ids = [c().name() for c in classes]
check(len(set(ids)) == len(ids), "distinct ids: " + ", ".join(ids))
search = {}
for cls in classes:
    alg = cls()
    tags = alg.tags()
    short = alg.shortDescription()
    check(isinstance(tags, list) and all(isinstance(t, str) and t for t in tags) and
          len([t for t in tags if t != "gridkit"]) >= 5,
          "%s: %d tags" % (alg.name(), len(tags)))
    check(isinstance(short, str) and 20 <= len(short) <= 160 and "\n" not in short,
          "%s: a one-line short description (%d characters)" % (alg.name(), len(short)))
    check(bool(alg.displayName()) and len(alg.shortHelpString()) > len(short),
          "%s: a display name and a help text" % alg.name())
    # the Toolbox matches each search word against the tags, the name and the
    # short description
    search[alg.name()] = " ".join(tags + [alg.displayName(), short]).lower()
for word, want in (("heatmap", {"heatmap", "grid"}), ("kriging", {"grid", "variogram"}),
                   ("idw", {"grid", "crossvalidation"}), ("kernel density", {"heatmap", "grid"}),
                   ("inverse distance", {"grid"}), ("interpolation", {"grid"}),
                   ("gdal_grid", {"grid"}), ("variogram", {"variogram"}),
                   ("cross-validation", {"crossvalidation"}), ("ridges", {"ridges"})):
    found = {n for n, text in search.items() if word in text}
    check(want <= found, "Toolbox search %r finds %s" % (word, ", ".join(sorted(found))))

# the Grid tool's typed choices are gridkit's
enum = {e[0]: e[3] for e in algorithms.ENUM_KEYS}
check(set(gauss_methods) <= set(enum["DENSITY_METHOD"]) and
      set(gridkit_cli.method_values(gridkit, "kernel_smooth")) <= set(enum["DENSITY_METHOD"]),
      "the Grid tool's density methods (%s) include gauss's and kernel_smooth's"
      % ", ".join(enum["DENSITY_METHOD"]))
heat_keys = gridkit_cli.key_values(dict((n, k) for n, k, _s in gridkit_cli.listing(gridkit))
                                   ["heatmap"])
check(enum["HEATMAP_KERNEL"] == heat_keys["kernel"] and
      [k[1] for k in heatmap.KERNELS] == heat_keys["kernel"],
      "the heatmap kernels, in QGIS's order, are gridkit's: %s" % heat_keys["kernel"])
check(enum["HEATMAP_OUTPUT"] == heat_keys["output"] and
      [o[1] for o in heatmap.OUTPUT_VALUES] == heat_keys["output"],
      "heatmap's outputs are gridkit's: %s" % heat_keys["output"])
check(algorithms.algorithm_list()[0][0] == "invdist" and
      [a[0] for a in algorithms.algorithm_list()] == names,
      "the Grid tool's ALGORITHM choices are the ordered list (index 0: invdist)")

# ---- finding the program -----------------------------------------------------
with tempfile.TemporaryDirectory() as tmp:
    saved = dict(os.environ)
    try:
        os.environ["GRIDKIT_CLI"] = "/some/gridkit"
        check(gridkit_cli.executable() == "/some/gridkit", "$GRIDKIT_CLI first")
        check(gridkit_cli.executable("/set/gridkit") == "/set/gridkit", "the setting over all")
        del os.environ["GRIDKIT_CLI"]
        fake = os.path.join(tmp, "gridkit")
        shutil.copy(gridkit, fake)
        os.environ["PATH"] = tmp
        check(gridkit_cli.default_executable() == fake, "then gridkit on PATH")
        os.environ["PATH"] = os.path.join(tmp, "none")
        want = "/usr/bin/gridkit" if os.access("/usr/bin/gridkit", os.X_OK) else None
        check(gridkit_cli.default_executable() == want, "then /usr/bin/gridkit (%s)" % want)
        msg = gridkit_cli.not_found_message()
        check("Processing > Providers > gridkit" in msg and gridkit_cli.SETTING_LABEL in msg,
              "not found: the message names the setting")
        msg = gridkit_cli.not_found_message("/bad/gridkit")
        check("/bad/gridkit" in msg and gridkit_cli.SETTING_LABEL in msg,
              "a bad setting: the message names it and its value")
    finally:
        os.environ.clear()
        os.environ.update(saved)

# ---- metadata.txt --------------------------------------------------------------
meta = configparser.ConfigParser()
meta.read(os.path.join(plugin_dir, "metadata.txt"), encoding="utf-8")
g = meta["general"] if meta.has_section("general") else {}
for key in ("name", "qgisMinimumVersion", "description", "about", "version", "author", "tags",
            "category", "icon", "hasProcessingProvider"):
    check(bool(g.get(key, "").strip()), "metadata.txt has %s" % key)
check(tuple(int(x) for x in g.get("qgisMinimumVersion", "9").split(".")) <= (3, 22),
      "qgisMinimumVersion <= 3.22 (Debian 12)")
check(g.get("hasProcessingProvider", "").lower() == "yes",
      "hasProcessingProvider=yes (qgis_process loads it)")
icon = os.path.join(plugin_dir, g.get("icon", "none"))
check(os.path.isfile(icon) and read_bytes(icon)[:8] == b"\x89PNG\r\n\x1a\n",
      "the icon is a PNG in the plugin")
check(all(w in g.get("tags", "") for w in ("heatmap", "kriging", "idw", "interpolation")),
      "the plugin's tags: heatmap, kriging, idw, interpolation")
check(not [k for k in g if k in ("homepage", "tracker", "repository", "email") and
           ("example" in g[k] or "invalid" in g[k])], "no invented URL or address")
check(os.path.isfile(os.path.join(plugin_dir, "__init__.py")), "__init__.py (classFactory)")

# ---- the zip -------------------------------------------------------------------
if zip_path:
    if not os.path.isfile(zip_path):
        check(False, "%s exists (cmake --build build --target qgis_plugin_zip)" % zip_path)
    else:
        with zipfile.ZipFile(zip_path) as z:
            members = [i for i in z.infolist() if not i.filename.endswith("/")]
            files = sorted(i.filename for i in members)
            check(all(f.startswith("gridkit_provider/") and f.count("/") == 1 for f in files),
                  "the zip holds gridkit_provider/ at its root, no subfolder")
            # Install from ZIP takes the folder of the shortest metadata.txt path
            metas = sorted(f for f in z.namelist() if f.endswith("metadata.txt"))
            check(metas[:1] == ["gridkit_provider/metadata.txt"],
                  "Install from ZIP finds gridkit_provider/metadata.txt")
            check(not [f for f in z.namelist() if "__pycache__" in f or f.endswith(".pyc")],
                  "no __pycache__ or .pyc")
            want = sorted("gridkit_provider/" + f for f in os.listdir(plugin_dir)
                          if (f.endswith(".py") and f != "_install.py") or
                          f in ("metadata.txt", g.get("icon", "icon.png")))
            check(files == want, "the zip has the plugin's files: %s" % ", ".join(
                os.path.basename(f) for f in files))
            same = all(z.read(f) == read_bytes(os.path.join(src, "qgis", f))
                       for f in files if f in want)
            check(same, "each file as in the source")
            check(all(stat.S_IMODE(i.external_attr >> 16) & 0o444 == 0o444 for i in members),
                  "readable by everyone once unpacked")
else:
    print("skip the zip (no target qgis_plugin_zip: cmake/qgis.cmake not included)")

print("%d failures" % failures)
sys.exit(1 if failures else 0)
