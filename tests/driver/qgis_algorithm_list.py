#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The QGIS provider's list of algorithms is gridkit's own (no QGIS needed):
gridkit_cli.algorithms() reads `gridkit grid --algorithms`, and each entry is
one the CLI accepts with the keys the provider may pass.
    usage: qgis_algorithm_list.py GRIDKIT SOURCE_DIR"""
import os
import subprocess
import sys

gridkit, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "qgis"))
from gridkit_provider import gridkit_cli  # noqa: E402

failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    failures += 0 if ok else 1


algs = gridkit_cli.algorithms(gridkit)
names = [a[0] for a in algs]
check(len(names) >= 13 and len(set(names)) == len(names), "%d distinct algorithms" % len(names))
for want in ("invdist", "linear", "aidw", "kriging"):
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
print("%d failures" % failures)
sys.exit(1 if failures else 0)
