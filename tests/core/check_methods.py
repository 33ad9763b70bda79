#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The method registry is the only switch on the method, and the docs list every method.

A new method is its own file plus one line in algorithms/methods.def
(docs/dev/adding-a-method.md). That holds while no code outside a method's
family names its kind: engine, search, parser, cross-validation and the
device code ask the row (core/method.h's hooks) instead. So:

 1. a kind GK_ALG_<NAME> appears only in the folder of its row's file (the
    file methods.def's comment names for the line);
 2. docs/architecture.md's method table names every -a method of
    methods.def exactly once, and no other.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LINE = re.compile(r"^GK_METHOD\((\w+),\s*(\w+)\)\s*/\*\s*([\w/.]+)\s*\*/", re.M)
KIND = re.compile(r"\bGK_ALG_([A-Z0-9_]+)\b")


def methods():
    text = open(os.path.join(ROOT, "algorithms", "methods.def"), encoding="utf-8").read()
    rows = LINE.findall(text)
    if not rows:
        sys.exit("check_methods: no GK_METHOD line read from algorithms/methods.def")
    return rows


def main():
    rows = methods()
    family = {kind: os.path.dirname(path) for _, kind, path in rows}
    bad, seen = [], 0
    for top in ("algorithms", "gpu", "driver"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if not re.search(r"\.(c|h|cu|cuh|cpp)$", f):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, os.path.join(ROOT, "algorithms"))
                folder = os.path.dirname(rel) if not rel.startswith("..") else None
                text = open(path, encoding="utf-8", errors="replace").read()
                for lineno, line in enumerate(text.splitlines(), 1):
                    for kind in KIND.findall(line):
                        seen += 1
                        if kind not in family:
                            continue  # not a method's kind (GK_ALG_KIND, a count)
                        if folder != family[kind]:
                            bad.append("%s:%d names GK_ALG_%s, a kind of %s/: ask the row "
                                       "(core/method.h) instead"
                                       % (os.path.relpath(path, ROOT), lineno, kind,
                                          family[kind]))
    # 2. the docs' table
    arch = open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8").read()
    m = re.search(r"^\| `-a` name \|.*?\n((?:\|.*\n)+)", arch, re.M)
    if not m:
        bad.append("docs/architecture.md: no method table (a header '| `-a` name | ...')")
    else:
        named = []
        for row in m.group(1).splitlines()[1:]:  # after the |---| line
            first = row.split("|")[1]
            named += re.findall(r"`([a-z_]+)`", first)
        want = [name for name, _, _ in rows]
        for name in want:
            if named.count(name) != 1:
                bad.append("docs/architecture.md's method table names '%s' %d times (once wanted)"
                           % (name, named.count(name)))
        for name in set(named) - set(want):
            bad.append("docs/architecture.md's method table names '%s', not in methods.def" % name)
    for b in bad:
        print(b)
    print("check_methods: %d methods, %d uses of their kinds, %d problems"
          % (len(rows), seen, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
