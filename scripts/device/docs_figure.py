#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The guard's figure for an end-to-end row: the smallest time, in seconds,
that docs/benchmarks.md gives in column COLUMN of the row named by SPEC (the
spec in backticks that starts the row, as in bench_gpu's tables, see
tests/bench/bench_docs.h). Prints nothing and exits 1 when the docs have
none.

    python3 scripts/device/docs_figure.py SPEC COLUMN [docs/benchmarks.md]
"""
import re
import sys


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def figure(spec, column, path):
    header = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("|"):
                header = None
                continue
            if line.startswith("|---"):
                continue
            row = cells(line)
            if header is None:
                header = [c.strip("`* ") for c in row]
                continue
            m = re.match(r"`([^`]*)`", row[0])
            if not m or m.group(1) != spec or column not in header:
                continue
            cell = row[header.index(column)]
            # "0.166-0.228 s", "0.403, 0.348 s", "56 ms": every number, in s
            unit = 1e-3 if re.search(r"\bms\b", cell) else 1.0
            nums = [float(v) * unit for v in re.findall(r"\d+(?:\.\d+)?", cell)]
            if nums:
                return min(nums)
    return None


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    v = figure(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "docs/benchmarks.md")
    if v is None:
        sys.exit(1)
    print("%.6g" % v)
