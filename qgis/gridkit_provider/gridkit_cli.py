# SPDX-License-Identifier: MIT
"""The gridkit program as the provider sees it: where it is, and the list of
algorithms it knows (`gridkit grid --algorithms`), so that a method added to
gridkit appears in QGIS without a change here. No QGIS imports: ctest's
`qgis_algorithm_list` runs this with plain Python."""
import os
import shutil
import subprocess


def executable():
    """$GRIDKIT_CLI, else `gridkit` on PATH, else None."""
    return os.environ.get("GRIDKIT_CLI") or shutil.which("gridkit")


def key_names(keys):
    """"power, model=Sph|Exp, ..." -> ["power", "model", ...]."""
    return [k.split("=", 1)[0].strip() for k in keys.split(",") if k.strip()]


def algorithms(exe=None):
    """[(name, [keys], summary)] in gridkit's order; [] when gridkit is not
    found or does not answer (the tools then say so when run)."""
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
            found.append((parts[0], key_names(parts[1]), parts[2]))
    return found
