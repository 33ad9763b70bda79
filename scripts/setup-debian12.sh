#!/bin/sh
# Installs what gridkit needs on Debian 12 (as root) and builds it into build/.
# Used by the README's two commands and by CI.
set -eu
cd "$(dirname "$0")/.."
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    need=""
    for p in build-essential cmake pkg-config libgdal-dev gdal-bin python3-gdal python3-numpy \
        libjson-c-dev libcairo2-dev libsqlite3-dev r-base-core r-cran-gstat r-cran-sp r-cran-ks \
        r-cran-spatstat.explore openmpi-bin libopenmpi-dev; do
        dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
    done
    if [ -n "$need" ]; then
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends $need
    fi
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
