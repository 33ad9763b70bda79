#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`gridkit cv -a shepard` against SAGA 8.5.0's Modified Quadratic Shepard.

usage: compare_cv.py GRIDKIT DATA_DIR WORK_DIR

Leave-one-out and 5 folds over meuse's logzinc (quadratic_points 13, weight_points 19): each
point's prediction must be SAGA's from the same training points (refs/cv_meuse.csv, made by
make_cv_refs.py; SAGA is not needed here) once rounded to Float32, within one Float32 step,
as compare.py holds for grids. The folds must be the ones the references were made with.
Ends with "N passed, M failed"; a failure prints "FAIL ".
"""
import csv
import os
import subprocess
import sys

import numpy as np

from compare import float32_steps  # noqa: E402 (this folder)

HERE = os.path.dirname(os.path.abspath(__file__))


def run_cv(gk, data, work, name, extra):
    out = os.path.join(work, name + ".csv")
    r = subprocess.run([gk, "cv", "-q", "-zfield", "logzinc", "-a", "shepard"] + extra +
                       [os.path.join(data, "meuse.gpkg"), "-o", out], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("gridkit cv failed: " + r.stderr.strip()[-300:])
    with open(out) as f:
        rows = list(csv.DictReader(f))
    pred = np.array([float(r["predicted"]) if r["predicted"] else np.nan for r in rows])
    return pred, [int(r["fold"]) for r in rows]


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    gk, data, work = argv[1:]
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(HERE, "refs", "cv_meuse.csv")) as f:
        refs = list(csv.DictReader(f))
    npass = nfail = 0
    for name, col, extra in (("leave-one-out", "loo", []), ("5 folds", "kfold", ["--nfold", "5"])):
        pred, fold = run_cv(gk, data, work, col, extra)
        ref = np.array([float(r[col]) for r in refs])
        msgs = []
        if len(pred) != len(ref):
            msgs.append("%d predictions, %d references" % (len(pred), len(ref)))
        else:
            if col == "kfold" and fold != [int(r["fold"]) for r in refs]:
                msgs.append("the folds differ from the references' (make_cv_refs.py again)")
            rn, gn = np.isnan(ref), np.isnan(pred)
            if (rn != gn).any():
                msgs.append("%d points without a prediction in one only" % (rn != gn).sum())
            ok = ~rn & ~gn
            st = float32_steps(pred[ok], ref[ok])
            if st.size and st.max() > 1:
                k = int(np.argmax(st))
                msgs.append("%d points more than one Float32 step off, worst %.3g steps (%.9g vs SAGA %.9g)"
                            % ((st > 1).sum(), st[k], pred[ok][k], ref[ok][k]))
            print("%s: %d predictions, worst %.3g Float32 steps from SAGA's"
                  % (name, ok.sum(), st.max() if st.size else -1))
        if msgs:
            print("FAIL %s: %s" % (name, "; ".join(msgs)))
            nfail += 1
        else:
            npass += 1
    print("%d passed, %d failed" % (npass, nfail))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
