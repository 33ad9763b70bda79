#!/bin/bash
# SPDX-License-Identifier: MIT
# gridkit built and tested against a newer GDAL (scripts/build-gdal.sh PREFIX
# makes one; opt-in, not CI's): a -Werror build in build-gdal-new linked to
# PREFIX's libgdal, then the test suite with PREFIX's programs first on PATH.
#   scripts/test-gdal-new.sh PREFIX [ctest arguments]
# Left out, by name: conformance, whose peer is Debian's gdal_grid 3.6
# itself; plugin, ridges_cli and python_*, which load the plugin or the
# library beside GDAL's Python bindings (Debian's are 3.6's; PREFIX has
# none); qgis (QGIS is built on 3.6); and docs_examples, whose pages show
# what Debian 12's GDAL programs print. They run against 3.6 in the README's
# test command.
set -euo pipefail
PREFIX=$(cd "${1:?usage: test-gdal-new.sh PREFIX [ctest arguments]}" && pwd)
shift
cd "$(dirname "$0")/.."
B=build-gdal-new
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PREFIX" -DGDAL_DIR="$PREFIX/lib/cmake/gdal" \
    -DGRIDKIT_WERROR=ON -DGRIDKIT_WITH_CUDA=OFF >"$B.log" 2>&1 || { tail -30 "$B.log"; exit 1; }
grep -E "gridkit:|Found GDAL" "$B.log" || true
cmake --build "$B" -j"$(nproc)" >>"$B.log" 2>&1 || { grep -E "error|warning" "$B.log" | head -30; exit 1; }
v=$(ldd "$B/gridkit" | awk '/libgdal/ {print $3}')
echo "test-gdal-new.sh: gridkit links $v"
case $v in "$PREFIX"/*) ;; *) echo "test-gdal-new.sh: not PREFIX's libgdal" >&2; exit 1 ;; esac
export PATH=$PREFIX/bin:$PATH LD_LIBRARY_PATH=$PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GDAL_DATA=$PREFIX/share/gdal
ctest --test-dir "$B" --output-on-failure -j"$(nproc)" \
    -E '^(conformance.*|plugin|ridges_cli|python_.*|qgis.*|docs_examples)$' "$@"
