#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs what gridkit needs on Debian 12 (as root) and builds it into build/.
# Used by the README's two commands and by CI.
#   setup-debian12.sh          what gridkit needs to build and run (GDAL and
#                              its programs, json-c, cairo, SQLite, Open MPI)
#   setup-debian12.sh --tests  also the peers the tests compare with (R's gstat,
#                              ks, spatstat; CGAL; GDAL's Python bindings, numpy,
#                              pytest for the Python module's tests; SciPy;
#                              GRASS; GMT)
set -eu
cd "$(dirname "$0")/.."
pkgs="build-essential cmake pkg-config libgdal-dev gdal-bin libjson-c-dev libcairo2-dev \
libsqlite3-dev openmpi-bin libopenmpi-dev"
if [ "${1:-}" = --tests ]; then
    pkgs="$pkgs python3-gdal python3-numpy python3-pytest r-base-core r-cran-gstat r-cran-sp \
r-cran-ks r-cran-spatstat.explore groff-base libcgal-dev python3-scipy grass-core gmt"
fi
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    need=""
    for p in $pkgs; do
        dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
    done
    if [ -n "$need" ]; then
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends $need
    fi
fi
# the test build turns warnings into errors (a warning fails CI); the
# plain build does not, so that a newer compiler's new warning stops no one
werror=OFF
[ "${1:-}" = --tests ] && werror=ON
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGRIDKIT_WERROR=$werror
cmake --build build -j"$(nproc)"
