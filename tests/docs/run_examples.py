#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run every command shown in README.md and docs/**/*.md, so the pages stay true.

Usage: run_examples.py GRIDKIT WORKDIR [--root REPO] [--page SUBSTRING]... [--timeout S]

GRIDKIT is the build's gridkit; its folder is "the build" (build/ in the pages).
WORKDIR gets one fresh scratch folder per page.

What is extracted
  Fenced ```sh and ```console blocks. Other fences (```c, ```python, plain
  ```) and indented blocks are not read: keep those for synopses, outputs,
  formulas and messages, and show a command in a sh or console fence.
  - console: a line starting with "$ " is a command (a line ending in "\\"
    continues on the next); the lines after it, up to the next "$ " or the
    end of the block, are the output it shows.
  - sh: every line that is not blank or a comment is a command; "\\"
    continuations are joined, so are the lines of a quoted string that goes
    on (awk's program), and a here-document (<<'EOF' ... EOF) belongs to its
    command.
  Commands run in page order, each with bash -c in the page's scratch folder
  (later commands may use earlier outputs). Shell assignments (A="...") and
  exports are kept and given to every later command of the page.

The scratch folder
  data -> the repository's data/, build -> the build folder (the README says
  ./build/gridkit); the build folder first on PATH (the pages say gridkit),
  and build/gdalplugins first on GDAL_DRIVER_PATH (the plugin as installed).
  Open MPI is let run as root and oversubscribe the cores (mpirun -n 4 on 2
  cores), by its environment variables, not by the command.

What runs
  A command runs when it invokes gridkit (gridkit, ./build/gridkit,
  build/gridkit), a GDAL/OGR program (gdal*, ogr*), mpirun/mpiexec of gridkit,
  or a helper the pages use to make input or check output (python3, cmp,
  cp, cat, mkdir).
  It must exit 0, within --timeout seconds (default 180).
  In a chain a && b, a part that installs or builds (see below) is left out
  and the rest runs (the README's "./scripts/setup-debian12.sh && ./build/gridkit ...").

Page conventions
  - "# fails: why" as a comment line before an sh command, or as the
    trailing comment of a command (the only way in a console block): the
    command is run on purpose to fail; a non-zero exit is required.
  - Output in a console block is compared with what the command printed
    (stdout and stderr through one pipe, in the order written), trailing spaces
    ignored, trailing blank lines ignored:
      a line "..." stands for any number of lines (none included);
      "..." inside a line stands for any text there;
      <!-- numbers vary: PREFIX[, PREFIX]* --> on the line just before the
      fence: in the output lines of that block that start (leading spaces
      ignored) with one of the prefixes, every number matches any number
      (timings, thread counts); "<!-- numbers vary -->" with no prefix: in
      every output line of the block.

Skipped, with the reason printed (never silently)
  - --device cuda / cuda:N (or GRIDKIT_DEVICE=cuda...) when the build's
    gridkit says "no usable GPU" for --device cuda; but such a command
    marked "# fails:" shows that very error, so it runs (and must fail)
    there, and is skipped where a GPU is usable;
  - mpirun/mpiexec when not installed or the build has no MPI module
    (gridkit_mpi.so); mpirun of anything but gridkit;
  - QGIS: qgis (the desktop: never started here), qgis_process when absent;
  - R and Rscript;
  - commands that install or build: apt-get, apt, dpkg, cmake, make, cc,
    gcc, ninja, scripts/setup-debian12.sh, scripts/make-deb.sh, and ctest
    (the test suite, this test included);
  - cluster launchers (srun, sbatch) and module; a cluster's files
    (/scratch/..., $SCRATCH/...) and mpirun with more than 16 ranks;
  - a placeholder: an argument "..." (it stands for arguments), mpirun -n N;
  - docs/benchmarks.md: scripts/device/* (a GPU machine), and the timed big
    runs (tests/bench/*, bench_* programs, /usr/bin/time, a 20-million-point
    input);
  - a command using a file that an earlier skipped command of the page was
    to make;
  - any other program (not one the pages are about).

Prints one line per command (assignments are not commands), PASS/FAIL/SKIP
page:line, with the seconds a PASS took, then
"N passed, M failed, K skipped"; exits 1 on any failure.
"""

import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

INSTALL_OR_BUILD = {
    "apt-get", "apt", "dpkg", "cmake", "make", "cc", "gcc", "clang", "ninja",
    "setup-debian12.sh", "make-deb.sh", "test-deb.sh", "ctest", "pip", "pip3",
}
HELPERS = {"python3", "cmp", "cp", "cat", "mkdir"}
NEUTRAL = {"echo", "true", "cd", "printf"}
NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


class Command:
    def __init__(self, page, line, text, expected=None, fails=None, vary=None):
        self.page, self.line, self.text = page, line, text
        self.expected = expected  # list of output lines (console) or None
        self.fails = fails        # reason string when run on purpose to fail
        self.vary = vary          # None, [] (every line) or list of prefixes

    @property
    def where(self):
        return "%s:%d" % (self.page, self.line)


def heredoc_end(line):
    m = re.search(r"<<-?\s*(['\"]?)(\w+)\1", line)
    return m.group(2) if m else None


def open_quote(text):
    """True when a quote of the command is still open (it goes on next line)."""
    try:
        shlex.split(text, comments=True)
        return False
    except ValueError as e:
        return "quotation" in str(e)


def trailing_fails(text):
    m = re.search(r"(?:^|\s)#\s*fails\b:?\s*(.*)$", text.split("\n")[0])
    return (m.group(1).strip() or "marked to fail") if m else None


def parse_page(path, rel):
    """The page's commands and shell assignments, in order."""
    lines = open(path, encoding="utf-8").read().split("\n")
    items = []
    i = 0
    while i < len(lines):
        m = re.match(r"^\s*```\s*(\w*)", lines[i])
        if not m:
            i += 1
            continue
        lang = m.group(1)
        prev = ""
        for k in range(i - 1, -1, -1):
            if lines[k].strip():
                prev = lines[k].strip()
                break
        vary = None
        mv = re.match(r"<!--\s*numbers vary\s*:?(.*?)-->", prev)
        if mv:
            vary = [p.strip().strip('"') for p in mv.group(1).split(",") if p.strip()]
        j = i + 1
        body = []
        while j < len(lines) and not re.match(r"^\s*```", lines[j]):
            body.append((j + 1, lines[j]))
            j += 1
        if lang == "sh":
            items += parse_sh(rel, body)
        elif lang == "console":
            items += parse_console(rel, body, vary)
        i = j + 1
    return items


def parse_sh(rel, body):
    out = []
    fails = None
    k = 0
    while k < len(body):
        lineno, text = body[k]
        s = text.strip()
        k += 1
        if not s:
            continue
        if s.startswith("#"):
            m = re.match(r"#\s*fails\b:?\s*(.*)", s)
            if m:
                fails = m.group(1).strip() or "marked to fail"
            continue
        cmd = text.rstrip()
        while k < len(body):
            if cmd.endswith("\\"):
                cmd = cmd[:-1].rstrip() + " " + body[k][1].strip()
            elif open_quote(cmd):
                cmd = cmd + "\n" + body[k][1].rstrip()
            else:
                break
            k += 1
        end = heredoc_end(cmd)
        if end:
            doc = []
            while k < len(body) and body[k][1].strip() != end:
                doc.append(body[k][1])
                k += 1
            k += 1
            cmd = cmd + "\n" + "\n".join(doc) + "\n" + end
        out.append(Command(rel, lineno, cmd.strip(), None, fails or trailing_fails(cmd)))
        fails = None
    return out


def parse_console(rel, body, vary):
    out = []
    k = 0
    while k < len(body):
        lineno, text = body[k]
        k += 1
        if not text.startswith("$ "):
            if out:
                out[-1].expected.append(text)
            continue
        cmd = text[2:].rstrip()
        while cmd.endswith("\\") and k < len(body):
            cmd = cmd[:-1].rstrip() + " " + body[k][1].strip()
            k += 1
        out.append(Command(rel, lineno, cmd, [], trailing_fails(cmd), vary))
    return out


def split_chain(text):
    """Top-level '&&' parts of a command (quotes respected; a here-document's
    body stays with the first line's last part)."""
    first, _, rest = text.partition("\n")
    parts, cur, q = [], "", None
    i = 0
    while i < len(first):
        c = first[i]
        if q:
            cur += c
            if c == q:
                q = None
            elif c == "\\" and q == '"' and i + 1 < len(first):
                cur += first[i + 1]
                i += 1
        elif c in "'\"":
            q = c
            cur += c
        elif first.startswith("&&", i):
            parts.append(cur.strip())
            cur = ""
            i += 1
        elif c == "#" and (not cur or cur[-1].isspace()):
            break  # a trailing comment
        else:
            cur += c
        i += 1
    parts.append(cur.strip())
    if rest:
        parts[-1] += "\n" + rest
    return [p for p in parts if p]


def words(text, env):
    first = text if heredoc_end(text) is None else text.split("\n")[0]
    first = re.sub(r"\$\{?(\w+)\}?", lambda m: env.get(m.group(1), m.group(0)), first)
    try:
        return shlex.split(first, comments=True)
    except ValueError:
        return first.split()


def assignment(text):
    """(exported, [(name, value)]) when the command only sets variables."""
    try:
        w = shlex.split(text, comments=True)
    except ValueError:
        return None
    exported = bool(w) and w[0] == "export"
    if exported:
        w = w[1:]
    if not w or not all(re.match(r"^[A-Za-z_]\w*=", x) for x in w):
        return None
    return exported, [tuple(x.split("=", 1)) for x in w]


class Runner:
    def __init__(self, args):
        self.args = args
        self.gridkit = os.path.abspath(args.gridkit)
        self.build = os.path.dirname(self.gridkit)
        self.root = os.path.abspath(args.root)
        self.counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
        self.gpu = self.gpu_usable()
        self.base_env = dict(os.environ)
        self.base_env["PATH"] = self.build + os.pathsep + os.environ.get("PATH", "")
        plugins = [os.path.join(self.build, "gdalplugins")]
        if os.environ.get("GDAL_DRIVER_PATH"):
            plugins.append(os.environ["GDAL_DRIVER_PATH"])
        self.base_env["GDAL_DRIVER_PATH"] = os.pathsep.join(plugins)
        self.base_env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                             OMPI_MCA_rmaps_base_oversubscribe="1")

    def gpu_usable(self):
        tmp = os.path.join(os.path.abspath(self.args.workdir), "gpu_probe.tif")
        os.makedirs(os.path.dirname(tmp), exist_ok=True)
        try:
            r = subprocess.run([self.gridkit, "grid", "-q", "--device", "cuda", "-a", "nearest",
                                "-zfield", "elev", "-outsize", "2", "2",
                                os.path.join(self.args.root, "data", "utm_2000.shp"), tmp],
                               capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as e:
            return "no usable GPU (%s)" % e
        if r.returncode == 0:
            return None
        msg = (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]
        k = msg.find("no usable GPU")
        return msg[k:] if k >= 0 else "GPU probe failed: " + msg

    def report(self, status, cmd, note="", detail=None):
        self.counts[status] += 1
        first = cmd.text.split("\n")[0]
        if len(first) > 110:
            first = first[:107] + "..."
        print("%s %s: %s%s" % (status, cmd.where, first, ("  [" + note + "]") if note else ""))
        for d in detail or []:
            print("    " + d)
        sys.stdout.flush()

    def classify_part(self, w, fails=None):
        """('run'|'drop'|'neutral'|'skip', reason) for one part of a chain."""
        env_dev = [x for x in w if re.match(r"^GRIDKIT_DEVICE=cuda", x)]
        while w and re.match(r"^[A-Za-z_]\w*=", w[0]):
            w = w[1:]
        if not w:
            return "neutral", ""
        prog = os.path.basename(w[0])
        if "scripts/device/" in w[0] or (prog == "bash" and any("scripts/device/" in x for x in w)):
            return "skip", "docs/benchmarks.md: scripts/device/* runs on a GPU machine"
        if prog in INSTALL_OR_BUILD or (prog in ("bash", "sh") and any(
                os.path.basename(x) in INSTALL_OR_BUILD for x in w[1:2])):
            return "drop", "%s installs, builds or runs the test suite" % prog
        if prog in ("qgis",):
            return "skip", "qgis starts the QGIS desktop"
        if prog == "qgis_process":
            return ("skip", "QGIS (qgis_process) is not installed") if not shutil.which(prog) \
                else ("run", "")
        if prog in ("R", "Rscript"):
            return "skip", "R is not run here"
        if prog in ("srun", "sbatch", "module"):
            return "skip", "a cluster (Slurm, modules)"
        if prog == "time" or "tests/bench/" in " ".join(w) or prog.startswith("bench_"):
            return "skip", "a timed benchmark run (docs/benchmarks.md)"
        if any(x.startswith("/scratch") or "$SCRATCH" in x for x in w):
            return "skip", "a cluster example: its files are on the cluster's /scratch"
        if "..." in w:
            return "skip", "'...' stands for arguments"
        if prog in ("mpirun", "mpiexec"):
            if not shutil.which(prog):
                return "skip", "%s is not installed" % prog
            if not os.path.exists(os.path.join(self.build, "gridkit_mpi.so")):
                return "skip", "the build has no MPI module (gridkit_mpi.so)"
            if not any(os.path.basename(x) == "gridkit" for x in w):
                return "skip", "%s of something other than gridkit" % prog
            for a, b in zip(w, w[1:] + [""]):
                if a in ("-n", "-np") and not b.isdigit():
                    return "skip", "%s %s: a placeholder for the rank count" % (a, b)
                if a in ("-n", "-np") and b.isdigit() and int(b) > 16:
                    return "skip", "a cluster example: %s %s ranks" % (a, b)
        elif not (prog == "gridkit" or prog.startswith("gdal") or prog.startswith("ogr")
                  or prog in HELPERS or re.match(r"python3(\.\d+)?$", prog)):
            if prog in NEUTRAL:
                return "neutral", ""
            return "skip", "%s is not gridkit, a GDAL program or a helper" % prog
        for a, b in zip(w, w[1:] + [""]):
            dev = b if a == "--device" else a[9:] if a.startswith("--device=") else None
            if dev and re.match(r"^cuda(:\d+)?$", dev):
                env_dev.append("--device " + dev)
        if env_dev and self.gpu and fails is None:
            return "skip", "%s: %s" % (env_dev[0], self.gpu)
        if env_dev and not self.gpu and fails is not None:
            return "skip", "%s is to fail where no GPU is usable; here one is" % env_dev[0]
        return "run", ""

    def run_page(self, rel):
        items = parse_page(os.path.join(self.root, rel), rel)
        if not items:
            return
        scratch = os.path.join(os.path.abspath(self.args.workdir), re.sub(r"[/\\]", "_", rel))
        shutil.rmtree(scratch, ignore_errors=True)
        os.makedirs(scratch)
        os.symlink(os.path.join(self.root, "data"), os.path.join(scratch, "data"))
        os.symlink(self.build, os.path.join(scratch, "build"))
        prelude = []
        shvars = {}
        missing = {}  # file -> where: outputs that skipped commands were to make
        for cmd in items:
            a = assignment(cmd.text)
            if a:
                prelude.append(cmd.text.split("\n")[0])
                for name, value in a[1]:
                    shvars[name] = re.sub(r"\$\{?(\w+)\}?",
                                          lambda m: shvars.get(m.group(1), m.group(0)), value)
                continue
            parts = split_chain(cmd.text)
            kinds = [(p, self.classify_part(words(p, shvars), cmd.fails)) for p in parts]
            skips = [r for _, (k, r) in kinds if k == "skip"]
            runs = [p for p, (k, _) in kinds if k == "run"]
            dropped = [r for _, (k, r) in kinds if k == "drop"]
            tokens = [os.path.normpath(t) for p in parts for t in words(p, shvars)]
            need = [t for t in tokens if t in missing and
                    not os.path.exists(os.path.join(scratch, t))]
            progs = [os.path.normpath(words(p, shvars)[0]) for p in parts if words(p, shvars)]
            if need and ((runs and not skips) or any(t in progs for t in need)):
                skips = ["uses %s, which the skipped command at %s makes" % (need[0], missing[need[0]])]
            if skips or not runs:
                reason = skips[0] if skips else (dropped[0] if dropped else "nothing to run")
                self.report("SKIP", cmd, reason)
                for k, t in enumerate(tokens):
                    if (re.search(r"\.\w+$", t) or (k and tokens[k - 1] == "-o")) \
                            and not t.startswith("-") and "=" not in t \
                            and not os.path.exists(os.path.join(scratch, t)):
                        missing.setdefault(t, cmd.where)
                continue
            note = ""
            if dropped:
                note = "left out: " + "; ".join(dropped)
            text = " && ".join(p for p, (k, _) in kinds if k != "drop")
            self.execute(cmd, "\n".join(prelude + [text]), scratch, note)

    def execute(self, cmd, script, scratch, note):
        t0 = time.monotonic()
        p = subprocess.Popen(["bash", "-c", script], cwd=scratch, env=self.base_env,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, start_new_session=True)
        try:
            raw, _ = p.communicate(timeout=self.args.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)  # the command's whole group (mpirun's ranks)
            raw, _ = p.communicate()
            out = raw.decode("utf-8", "replace")
            self.report("FAIL", cmd, "timed out after %d s" % self.args.timeout, tail(out))
            return
        out = raw.decode("utf-8", "replace")
        rc = p.returncode
        if cmd.fails is not None and rc == 0:
            self.report("FAIL", cmd, "exit 0, but the page says it fails (%s)" % cmd.fails, tail(out))
            return
        if cmd.fails is None and rc != 0:
            self.report("FAIL", cmd, "exit %d" % rc, tail(out))
            return
        if cmd.expected is not None and any(x.strip() for x in cmd.expected):
            bad = compare(cmd.expected, out, cmd.vary)
            if bad:
                self.report("FAIL", cmd, "output differs from the page", bad)
                return
        if cmd.fails is not None:
            note = ("fails as the page says (exit %d)" % rc) + (("; " + note) if note else "")
        secs = "%.1f s" % (time.monotonic() - t0)
        self.report("PASS", cmd, secs + ("; " + note if note else ""))


def tail(out, n=12):
    lines = out.rstrip("\n").split("\n")
    return lines[-n:]


def line_pattern(exp, vary):
    s = exp.rstrip()
    loose = vary is not None and (not vary or any(s.lstrip().startswith(p) for p in vary))
    pieces = s.split("...")
    rx = []
    for piece in pieces:
        if loose:
            bits = re.split("(" + NUM + ")", piece)
            rx.append("".join(NUM if k % 2 else re.escape(b) for k, b in enumerate(bits)))
        else:
            rx.append(re.escape(piece))
    return re.compile("^" + ".*".join(rx) + "$")


def compare(expected, out, vary):
    """None when out matches, else lines telling where it differs."""
    exp = [e.rstrip() for e in expected]
    while exp and not exp[-1]:
        exp.pop()
    act = [a.rstrip() for a in out.replace("\r\n", "\n").split("\n")]
    while act and not act[-1]:
        act.pop()
    pats = [None if e.strip() == "..." else line_pattern(e, vary) for e in exp]
    memo = {}
    best = [0, 0]

    def match(i, j):
        key = (i, j)
        if key in memo:
            return memo[key]
        if i > best[0]:
            best[:] = [i, j]
        if i == len(pats):
            res = j == len(act)
        elif pats[i] is None:
            res = any(match(i + 1, k) for k in range(j, len(act) + 1))
        else:
            res = j < len(act) and bool(pats[i].match(act[j])) and match(i + 1, j + 1)
        memo[key] = res
        return res

    sys.setrecursionlimit(max(10000, 4 * (len(exp) + len(act))))
    if match(0, 0):
        return None
    i = best[0]
    lines = ["page line %d not matched: %s" % (i + 1, exp[i] if i < len(exp) else "(end of output)")]
    lines.append("the command printed:")
    lines += ["| " + a for a in act[:40]]
    if len(act) > 40:
        lines.append("| ... (%d lines)" % len(act))
    return lines


def pages(root, only):
    found = ["README.md"] if os.path.exists(os.path.join(root, "README.md")) else []
    for d, _, files in sorted(os.walk(os.path.join(root, "docs"))):
        for f in sorted(files):
            if f.endswith(".md"):
                found.append(os.path.relpath(os.path.join(d, f), root))
    if only:
        found = [p for p in found if any(o in p for o in only)]
    return found


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("gridkit")
    ap.add_argument("workdir")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(here)))
    ap.add_argument("--page", action="append", default=[], help="only pages whose path holds this")
    ap.add_argument("--timeout", type=int, default=180)
    args = ap.parse_args()
    if not os.access(args.gridkit, os.X_OK):
        sys.exit("run_examples.py: %s is not an executable gridkit" % args.gridkit)
    r = Runner(args)
    print("GPU: %s" % ("usable" if not r.gpu else r.gpu))
    for p in pages(args.root, args.page):
        r.run_page(p)
    c = r.counts
    print("%d passed, %d failed, %d skipped" % (c["PASS"], c["FAIL"], c["SKIP"]))
    sys.exit(1 if c["FAIL"] else 0)


if __name__ == "__main__":
    main()
