#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The folders' one direction of dependency, checked on every #include.

algorithms/include (the public headers) <- core <- search <- the families
(idw, window, linear, geostat, ridges, density), which never include each other; the list of
methods (algorithms/methods.def, no includes of its own) may be included from
anywhere in algorithms/, and methods.c, which makes the rows' list from it,
knows the core only. gpu/ implements the
core's contract (core/gpu_abi.h) and may share a family's arithmetic headers;
driver/ sees the public headers only, and inside it io (readers, writers)
<- mpi (the ranks) <- lib (the library calls) <- cli and plugin (the two
front ends, which never include each other). docs/architecture.md draws the map.

Inside each folder of algorithms/, the files call each other in one direction:
no two files call each other's functions, directly or round a longer loop
(a family's shared primitives sit in a file below its entry, which is on top).
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ALG = os.path.join(ROOT, "algorithms")
FAMILIES = {"idw", "window", "linear", "geostat", "ridges", "density", "spline"}
# what each folder may include besides itself
ALLOWED = {
    "include": set(),
    "core": {"include"},
    "search": {"include", "core"},
    "methods": {"include", "core"},
}
for fam in FAMILIES:
    ALLOWED[fam] = {"include", "core", "search"}
for layer in list(ALLOWED):
    ALLOWED[layer].add("list")
ALLOWED["list"] = set()
ALLOWED["gpu"] = {"include", "core", "geostat", "linear", "ridges", "density", "idw", "spline"}
ALLOWED["driver"] = {"include"}
# driver/'s folders (an include there is named from driver/: "io/read_points.h")
DRIVER = {
    "io": {"include"},
    "mpi": {"include", "io"},
    "lib": {"include", "io", "mpi"},
    "cli": {"include", "io", "mpi", "lib"},
    "plugin": {"include", "io", "lib"},
}

INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
PUBLIC = set(os.listdir(os.path.join(ALG, "include")))


def folder_of_include(src_dir, name, driver=False):
    """The algorithms/ folder (driver/'s, for a driver file) an #include "name"
    resolves to, or None (outside)."""
    if os.path.exists(os.path.join(src_dir, name)):
        return "."  # its own folder (or a neighbour by a relative path)
    if name in PUBLIC:
        return "include"
    if driver and "/" in name and name.split("/")[0] in DRIVER:
        return "driver/" + name.split("/")[0]
    if name.endswith(".def") and "/" not in name and os.path.exists(os.path.join(ALG, name)):
        return "list"
    head = name.split("/")[0]
    if "/" in name and os.path.isdir(os.path.join(ALG, head)):
        return head
    return None  # a system or GDAL header


def layer_of(path):
    rel = os.path.relpath(path, ROOT).split(os.sep)
    if rel[0] == "algorithms":
        if len(rel) == 2:
            return "list" if rel[1].endswith(".def") else "methods"
        return rel[1]
    if rel[0] == "driver" and len(rel) > 2 and rel[1] in DRIVER:
        return "driver/" + rel[1]
    return rel[0]


def allowed(layer):
    if layer.startswith("driver/"):
        return {"include"} | {"driver/" + d for d in DRIVER[layer[len("driver/"):]]}
    return ALLOWED.get(layer, set())


DEF = re.compile(r"^(?!static)[A-Za-z_][\w \*]*?\b(gk_\w+)\s*\([^;{]*\)\s*\{", re.M)
COMMENT = re.compile(r"/\*.*?\*/", re.S)


def call_cycles():
    """Each folder's loops of calls between its .c files (function names gk_*)."""
    found = []
    for folder, _, files in os.walk(ALG):
        srcs = sorted(f for f in files if f.endswith(".c"))
        text = {f: COMMENT.sub("", open(os.path.join(folder, f), encoding="utf-8").read())
                for f in srcs}
        defined = {}
        for f in srcs:
            for name in DEF.findall(text[f]):
                defined[name] = f
        calls = {f: set() for f in srcs}
        for f in srcs:
            for word in set(re.findall(r"\b(gk_\w+)\s*\(", text[f])):
                g = defined.get(word)
                if g and g != f:
                    calls[f].add(g)
        state = {}

        def visit(f, path):
            state[f] = 1
            for g in sorted(calls[f]):
                if state.get(g) == 1:
                    loop = path[path.index(g):] + [g]
                    found.append("%s: %s" % (os.path.relpath(folder, ROOT), " -> ".join(loop)))
                elif not state.get(g):
                    visit(g, path + [g])
            state[f] = 2

        for f in srcs:
            if not state.get(f):
                visit(f, [f])
    return found


def main():
    bad = []
    checked = 0
    for top in ("algorithms", "gpu", "driver"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if not re.search(r"\.(c|h|cu|cuh|cpp|def)$", f):
                    continue
                path = os.path.join(dirpath, f)
                layer = layer_of(path)
                text = open(path, encoding="utf-8", errors="replace").read()
                for name in INC.findall(text):
                    target = folder_of_include(dirpath, name, layer.startswith("driver"))
                    checked += 1
                    if target in (None, ".") or target == layer:
                        continue
                    if target not in allowed(layer):
                        bad.append("%s includes \"%s\" (%s -> %s)" %
                                   (os.path.relpath(path, ROOT), name, layer, target))
    for b in bad:
        print("layering: " + b)
    print("%d includes checked, %d against the direction of dependency" % (checked, len(bad)))
    loops = call_cycles()
    for c in loops:
        print("calls in a loop: " + c)
    print("%d loops of calls between a folder's files" % len(loops))
    return 1 if bad or loops or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
