#!/bin/bash
# SPDX-License-Identifier: MIT
# A newer GDAL than Debian 12's 3.6, from Debian's own source package (its
# upstream tarball, checked against the suite's index), built
# into a prefix, to build and test gridkit against (opt-in; not part of the
# README's commands). Debian 12's PROJ, SQLite, libtiff, libgeotiff, json-c,
# GEOS and expat are used; only the drivers gridkit's tests reach are built
# (GTiff, GPKG, CSV, Shapefile, GeoJSON, FlatGeobuf, VRT, MEM, XYZ, ENVI,
# MapInfo, KML, ...).
#
#   scripts/build-gdal.sh PREFIX [SUITE]     SUITE: Debian's suite to take the
#                                            source from (default sid)
# then
#   cmake -S . -B build-gdal-new -DCMAKE_PREFIX_PATH=PREFIX -DGRIDKIT_WERROR=ON
#   cmake --build build-gdal-new -j"$(nproc)"
#   LD_LIBRARY_PATH=PREFIX/lib PATH=PREFIX/bin:$PATH GDAL_DATA=PREFIX/share/gdal \
#       ctest --test-dir build-gdal-new
# (scripts/test-gdal-new.sh does those three steps). As root on Debian 12.
set -euo pipefail
PREFIX=${1:?usage: build-gdal.sh PREFIX [SUITE]}
SUITE=${2:-sid}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$PREFIX"
PREFIX=$(cd "$PREFIX" && pwd)
WORK=${GDAL_BUILD_WORK:-$PREFIX.src}
mkdir -p "$WORK"
cd "$WORK"

if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    need=""
    for p in dpkg-dev curl xz-utils cmake g++ libproj-dev libsqlite3-dev libtiff-dev libgeotiff-dev \
        libjson-c-dev libgeos-dev libexpat1-dev zlib1g-dev libcurl4-gnutls-dev; do
        dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
    done
    if [ -n "$need" ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need
    fi
fi

# the source package the suite's index names, checked against its SHA-256
curl -fsS -o Sources.xz "$MIRROR/dists/$SUITE/main/source/Sources.xz"
xz -dc Sources.xz | awk '/^Package: gdal$/ {p = 1} p && /^Version:/ {print "version", $2}
    p && /^Directory:/ {print "dir", $2} p && /^Checksums-Sha256:/ {f = 1; next}
    p && f && /^ / {print "file", $1, $3} p && f && !/^ / {f = 0} /^$/ {p = 0}' >gdal.index
version=$(awk '$1 == "version" {print $2; exit}' gdal.index)
dir=$(awk '$1 == "dir" {print $2; exit}' gdal.index)
[ -n "$version" ] || { echo "build-gdal.sh: no gdal source package in $SUITE" >&2; exit 1; }
echo "build-gdal.sh: gdal $version from $SUITE"
# the upstream tarball of the source package (Debian's patches are packaging
# matters; the tarball is what its build compiles)
orig=$(awk '$1 == "file" && $3 ~ /\.orig\.tar\.xz$/ {print $3; exit}' gdal.index)
sum=$(awk -v o="$orig" '$1 == "file" && $3 == o {print $2}' gdal.index)
[ -f "$orig" ] || curl -fsS -o "$orig" "$MIRROR/$dir/$orig"
echo "$sum  $orig" | sha256sum -c --quiet -
src=gdal-${version%%+*}
# once: a rerun (more drivers) rebuilds only what changed
if [ ! -f "$src/.extracted" ]; then
    rm -rf "$src" && mkdir "$src"
    tar -C "$src" --strip-components=1 -xJf "$orig"
    : >"$src/.extracted"
fi

# the dfsg tarball leaves out data files under non-free terms that GDAL's
# build still copies (as Debian's packaging knows): empty ones stand in
configure() {
cmake -S "$src" -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" \
    -DBUILD_TESTING=OFF -DBUILD_APPS=ON -DBUILD_PYTHON_BINDINGS=OFF -DBUILD_JAVA_BINDINGS=OFF \
    -DBUILD_CSHARP_BINDINGS=OFF -DGDAL_BUILD_OPTIONAL_DRIVERS=OFF -DOGR_BUILD_OPTIONAL_DRIVERS=OFF \
    -DGDAL_ENABLE_DRIVER_PNG=ON -DGDAL_ENABLE_DRIVER_AAIGRID=ON -DGDAL_ENABLE_DRIVER_XYZ=ON \
    -DGDAL_ENABLE_DRIVER_ENVI=ON -DGDAL_ENABLE_DRIVER_HFA=ON -DGDAL_ENABLE_DRIVER_NITF=ON \
    -DGDAL_ENABLE_DRIVER_IDRISI=ON -DGDAL_ENABLE_DRIVER_RAW=ON -DOGR_ENABLE_DRIVER_VRT=ON \
    -DOGR_ENABLE_DRIVER_TAB=ON -DOGR_ENABLE_DRIVER_GPX=ON -DOGR_ENABLE_DRIVER_SELAFIN=ON \
    -DOGR_ENABLE_DRIVER_CSV=ON -DOGR_ENABLE_DRIVER_SHAPE=ON -DOGR_ENABLE_DRIVER_GEOJSON=ON \
    -DOGR_ENABLE_DRIVER_FLATGEOBUF=ON -DOGR_ENABLE_DRIVER_GML=ON -DOGR_ENABLE_DRIVER_KML=ON \
    -DOGR_ENABLE_DRIVER_MAPINFO=ON -DOGR_ENABLE_DRIVER_DXF=ON -DOGR_ENABLE_DRIVER_PGDUMP=ON \
    -DOGR_ENABLE_DRIVER_SQLITE=ON -DOGR_ENABLE_DRIVER_GPKG=ON -DOGR_ENABLE_DRIVER_OPENFILEGDB=ON \
    -DGDAL_USE_INTERNAL_LIBS=WHEN_NO_EXTERNAL >configure.log 2>&1
}
for attempt in 1 2 3; do
    configure && break
    missing=$(sed -n 's/^CMake Error: File \(.*\) does not exist\.$/\1/p' configure.log)
    [ -n "$missing" ] && [ "$attempt" -lt 3 ] || { tail -40 configure.log; exit 1; }
    for f in $missing; do
        case $f in "$PWD/$src"/*) : >"$f" ;; *) echo "build-gdal.sh: $f?" >&2; exit 1 ;; esac
    done
done
cmake --build build -j"$(nproc)" >build.log 2>&1 || { grep -E "error" build.log | head -20; exit 1; }
cmake --install build >install.log 2>&1 || { tail -20 install.log; exit 1; }
echo "build-gdal.sh: $(LD_LIBRARY_PATH=$PREFIX/lib "$PREFIX/bin/gdalinfo" --version) in $PREFIX"
