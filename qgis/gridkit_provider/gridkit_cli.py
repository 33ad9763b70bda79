# SPDX-License-Identifier: MIT
"""The gridkit program as the provider sees it: where it is, and the list of
algorithms it knows (`gridkit grid --algorithms`), so that a method added to
gridkit appears in QGIS without a change here. No QGIS imports: ctest's
`qgis_algorithm_list` runs this with plain Python."""
import os
import shutil
import subprocess

# The Processing setting that names the program (Settings > Options >
# Processing > Providers > gridkit), as the provider registers it.
SETTING = "GRIDKIT_PATH"
SETTING_LABEL = "gridkit program"
SETTING_WHERE = ("Settings > Options > Processing > Providers > gridkit > "
                 "\"%s\"" % SETTING_LABEL)

# The Grid tool's order: the common interpolators first, then the densities,
# then gdal_grid's statistics of the search ellipse. A name gridkit lists that
# is not here comes after these, in gridkit's order.
PREFERRED_ORDER = ["invdist", "invdistnn", "linear", "kriging", "nearest", "average", "aidw",
                   "heatmap", "gauss", "kernel_smooth", "minimum", "maximum", "range", "count",
                   "average_distance", "average_distance_pts"]

_HERE = os.path.dirname(os.path.abspath(__file__))


def _is_program(path):
    return bool(path) and os.path.isfile(path) and os.access(path, os.X_OK)


def installed_beside():
    """The program of the install this plugin came from: `cmake --install`
    writes _install.py with bin/ relative to the plugin's folder (a prefix P:
    P/share/qgis/python/plugins/gridkit_provider and P/bin/gridkit)."""
    try:
        from ._install import BINDIR_FROM_PLUGIN
    except ImportError:  # not installed by cmake (a checkout, the zip)
        return None
    path = os.path.normpath(os.path.join(_HERE, BINDIR_FROM_PLUGIN, "gridkit"))
    return path if _is_program(path) else None


def candidates():
    """[(where, path)] in the order the default is looked for."""
    found = []
    env = os.environ.get("GRIDKIT_CLI")
    if env:
        found.append(("$GRIDKIT_CLI", env))
    on_path = shutil.which("gridkit")
    if on_path:
        found.append(("PATH", on_path))
    found.append(("the package", "/usr/bin/gridkit"))
    beside = installed_beside()
    if beside:
        found.append(("the plugin's install", beside))
    return found


def default_executable():
    """The program found automatically: $GRIDKIT_CLI if set, else `gridkit`
    on PATH, else /usr/bin/gridkit, else the install's bin/ next to the
    plugin; None when none exists ($GRIDKIT_CLI is taken as given)."""
    env = os.environ.get("GRIDKIT_CLI")
    if env:
        return env
    for _where, path in candidates():
        if _is_program(path):
            return path
    return None


def executable(setting=None):
    """The program to run: the Processing setting's value when set, else the
    default found automatically, else None."""
    return setting or default_executable()


def not_found_message(setting=None):
    """Why no program can run, naming the setting."""
    if setting:
        return ("the gridkit program \"%s\" (the setting %s) does not exist or is not "
                "executable: correct or clear it" % (setting, SETTING_WHERE))
    return ("the gridkit program was not found (looked at $GRIDKIT_CLI, gridkit on PATH, "
            "/usr/bin/gridkit and the plugin's install): set its path in %s, or install "
            "the gridkit package" % SETTING_WHERE)


def key_names(keys):
    """"power, model=Sph|Exp, ..." -> ["power", "model", ...]."""
    return [k.split("=", 1)[0].strip() for k in keys.split(",") if k.strip()]


def key_values(keys):
    """"kernel=quartic|triangular, decay" -> {"kernel": [...], "decay": []}."""
    out = {}
    for k in keys.split(","):
        if k.strip():
            name, _, values = k.strip().partition("=")
            out[name] = [v for v in values.split("|") if v and v != "..."]
    return out


def ordered(algs):
    """algs in PREFERRED_ORDER, the others after them in their own order."""
    rank = {n: i for i, n in enumerate(PREFERRED_ORDER)}
    return sorted(algs, key=lambda a: (rank.get(a[0], len(rank)), algs.index(a)))


def listing(exe=None):
    """`gridkit grid --algorithms` as [(name, keys, summary)], keys as
    written ("power, kernel=quartic|triangular, ..."); [] when gridkit is not
    found or does not answer."""
    exe = exe or executable()
    if not exe:
        return []
    try:
        out = subprocess.run([exe, "grid", "--algorithms"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    found = []
    for line in out.decode("utf-8", "replace").splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and parts[0]:
            found.append(tuple(parts))
    return found


def algorithms(exe=None, raw=False):
    """[(name, [keys], summary)] in the Grid tool's order (gridkit's own
    order with raw=True); [] when gridkit is not found or does not answer
    (the tools then say so when run)."""
    found = [(n, key_names(k), s) for n, k, s in listing(exe)]
    return found if raw else ordered(found)


def method_values(exe=None, algorithm="gauss"):
    """The values gridkit lists for an algorithm's method= key ([] if none)."""
    for name, keys, _summary in listing(exe):
        if name == algorithm:
            return key_values(keys).get("method", [])
    return []
