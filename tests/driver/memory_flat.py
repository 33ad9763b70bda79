#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Memory must not grow with the grid: `gridkit grid` on a 4,000^2 and a 24,000^2 grid
(36 times the nodes) must peak at about the same resident memory.

usage: memory_flat.py GRIDKIT DATA_DIR WORK_DIR
"""
import os
import resource
import subprocess
import sys

gk, data, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
src = os.path.join(data, "random_500.gpkg")


def peak_rss_mb(n):
    """Peak RSS (MB) of one run; each run in a fresh child so ru_maxrss is its own."""
    out = os.path.join(work, "flat_%d.tif" % n)
    code = ("import resource,subprocess,sys;"
            "r=subprocess.run(sys.argv[1:]).returncode;"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss);sys.exit(r)")
    cmd = [sys.executable, "-c", code, gk, "grid", "-q", "-ot", "Byte", "-txe", "0", "100000",
           "-tye", "0", "100000", "-outsize", str(n), str(n), "-a", "count:radius=50", src, out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if os.path.exists(out):
        os.remove(out)
    if r.returncode != 0:
        sys.exit("gridkit failed on %d x %d: %s" % (n, n, r.stderr))
    return int(r.stdout.strip()) / 1024.0


small = peak_rss_mb(4000)
big = peak_rss_mb(24000)
ok = big < small + 48
print("%s peak RSS: 4000^2 %.0f MB, 24000^2 %.0f MB (allowed: +48 MB)" % ("PASS" if ok else "FAIL", small, big))
print("%d passed, %d failed" % (1 if ok else 0, 0 if ok else 1))
sys.exit(0 if ok else 1)
