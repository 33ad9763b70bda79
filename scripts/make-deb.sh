#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian packages of gridkit (cmake/package.cmake): a Release build with the
# prefix /usr in build-deb (the GDAL plugin then lands in GDAL's own plugin
# folder), then cpack. Leaves build-deb/gridkit_*.deb (the command, plugin,
# library, man pages, completion, guides), gridkit-cuda_*.deb (where nvcc was
# found), gridkit-mpi_*.deb (where Open MPI was) and libgridkit-dev_*.deb.
#   scripts/make-deb.sh [cmake arguments]     e.g. -DGRIDKIT_WITH_CUDA=OFF
# Needs what ./scripts/setup-debian12.sh installs, and dpkg-dev (dpkg-shlibdeps).
set -eu
cd "$(dirname "$0")/.."
dir=${GRIDKIT_DEB_BUILD:-build-deb}
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr -DGRIDKIT_TESTS=OFF "$@" >"$dir.log" 2>&1 ||
    { tail -30 "$dir.log"; exit 1; }
cmake --build "$dir" -j"$(nproc)" >>"$dir.log" 2>&1 || { tail -30 "$dir.log"; exit 1; }
rm -f "$dir"/*.deb
(cd "$dir" && cpack -G DEB >>"../$dir.log" 2>&1) || { tail -30 "$dir.log"; exit 1; }
ls "$dir"/*.deb
