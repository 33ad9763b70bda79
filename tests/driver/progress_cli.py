#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""progress_cli.py GRIDKIT DATA_DIR WORK_DIR

`gridkit cv` and `gridkit variogram` report GDAL's progress on stderr as
`gridkit grid` does (0...10...100 - done.), none with -q, without changing a
byte of what they write; on a slow path they first say, on a line of their
own before the progress, why it is slow and how to avoid it (a cv of 20,000 points rebuilt per
fold; a variogram comparing every pair of 60,000 points), killed once that
line is read. Ends with "N passed, M failed".
"""
import os
import random
import shutil
import signal
import subprocess
import sys
import time

GK, DATA, WORK = sys.argv[1:4]
DOTS = "0...10...20...30...40...50...60...70...80...90...100 - done.\n"
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("PASS %-34s %s" % (name, detail))
    else:
        failed += 1
        print("FAIL %-34s %s" % (name, detail))


def run(args):
    p = subprocess.run([GK] + args, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def first_line(args, want, limit=120):
    """Starts gridkit, reads stderr until a line holding `want` (or the end,
    or `limit` seconds), kills it; (that line or the end of stderr, seconds,
    exit status or None if it was still running, found, it was the first
    line)."""
    p = subprocess.Popen([GK] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t0 = time.time()
    fd = p.stderr.fileno()
    os.set_blocking(fd, False)
    buf, line = "", None
    while time.time() - t0 < limit and line is None:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            chunk = None
        if chunk:
            buf += chunk.decode(errors="replace")
            for ln in buf.splitlines():
                if want in ln:
                    line = ln
        elif p.poll() is not None:
            break
        else:
            time.sleep(0.05)
    rc = p.poll()
    if rc is None:
        p.send_signal(signal.SIGTERM)
        p.wait()
    p.stderr.close()
    first = line is not None and buf.splitlines()[0] == line
    return (line if line is not None else buf[-300:], time.time() - t0, rc, line is not None,
            first)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    os.chdir(WORK)
    src = os.path.join(DATA, "random_500.gpkg")

    # ---- cv: the dots, none with -q, the same bytes either way --------------------
    for alg in ("nearest", "invdist:radius=150", "kriging:model=Exp:psill=2:range=300"):
        rc, out, err = run(["cv", src, "-zfield", "z", "-a", alg, "--format=json", "-o",
                            "loud.csv"])
        check("cv_progress " + alg.split(":")[0], rc == 0 and err.count(DOTS) == 1 and
              err.startswith("0...") and err.endswith(DOTS), repr(err[-160:]))
        rq, outq, errq = run(["cv", src, "-zfield", "z", "-a", alg, "--format=json", "-o",
                              "quiet.csv", "-q"])
        check("cv_quiet " + alg.split(":")[0], rq == 0 and errq == "", repr(errq[-160:]))
        check("cv_same_bytes " + alg.split(":")[0],
              out == outq and open("loud.csv", "rb").read() == open("quiet.csv", "rb").read())

    # ---- variogram: every pair, directions, the k-d tree (a short cutoff) --------------
    rnd = random.Random(3)
    with open("big.xyz", "w") as f:
        for _ in range(20000):
            x, y = rnd.uniform(0, 1000), rnd.uniform(0, 1000)
            f.write("%.3f %.3f %.3f\n" % (x, y, 0.01 * x + rnd.gauss(0, 1)))
    meuse = [os.path.join(DATA, "meuse.gpkg"), "-zfield", "logzinc", "--fit", "Nug,Sph"]
    for name, args in (("omnidirectional", meuse), ("directions", meuse + ["--direction", "0,45"]),
                       ("k-d tree", ["big.xyz", "--cutoff", "30"])):
        rc, out, err = run(["variogram"] + args)
        rq, outq, errq = run(["variogram", "-q"] + args)
        check("variogram_progress " + name, rc == 0 and err == DOTS, repr(err[-160:]))
        check("variogram_quiet " + name, rq == 0 and errq == "", repr(errq[-160:]))
        check("variogram_same_bytes " + name, out == outq and out.strip() != "")

    # ---- slow paths: a line up front, why and how to avoid it -------------------------
    line, secs, rc, found, first = first_line(["cv", "big.xyz", "-a", "invdist:radius=50"],
                                              "gridkit cv: cross-validating")
    check("cv_slow_path_said", found and first and rc is None and
          "invdist with a radius and no max_points: every fold rebuilds its search (about " in
          line and "s here); give max_points=K to use one index" in line,
          "after %.1f s: %s" % (secs, line))
    # with max_points: one index, no such line, and it finishes
    rc, out, err = run(["cv", "big.xyz", "-a", "invdist:radius=50:max_points=12"])
    check("cv_fast_path_quiet", rc == 0 and "cross-validating" not in err and
          err.count(DOTS) == 1, repr(err[-200:]))
    with open("bigger.xyz", "w") as f:
        for _ in range(60000):
            x, y = rnd.uniform(0, 1000), rnd.uniform(0, 1000)
            f.write("%.3f %.3f %.3f\n" % (x, y, 0.01 * x + rnd.gauss(0, 1)))
    line, secs, rc, found, first = first_line(["variogram", "bigger.xyz", "--direction",
                                               "0,45,90"],
                                              "gridkit variogram: variogram of 60000 points")
    check("variogram_slow_path_said", found and first and "comparing all 1.8e+09 pairs (about " in line
          and "s here), as the cutoff circle (radius " in line and "of their extent; a --cutoff "
          "below " in line and "(15%) lets a k-d tree find the pairs" in line,
          "after %.1f s: %s" % (secs, line))


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # a crash is a failure, with the reason
        check("crashed", False, repr(e))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)
