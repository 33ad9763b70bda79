#!/bin/bash
# SPDX-License-Identifier: MIT
# install.sh GRIDKIT DATA WORK BUILD_DIR: `cmake --install` into a prefix,
# the tree moved elsewhere, and what was installed still works from there:
# the command gives the build's bytes, finds its MPI module (under mpirun)
# and its CUDA module, and GDAL finds the plugin in <libdir>/gdalplugins.
# Ends with "N passed, M failed".
set -u
. "$(dirname "$0")/suite.sh"
B=${4:?the build folder}
W=$WORK
rm -rf "$W"
mkdir -p "$W"
M=$DATA/meuse.gpkg
A=(-q -zfield zinc -outsize 40 30 -a invdistnn:radius=800:max_points=12)

# staged under DESTDIR, so that no absolute path of the cache escapes the work folder
if ! DESTDIR=$W/stage cmake --install "$B" --prefix /opt/gk >"$W/install.log" 2>&1; then
    ko install "cmake --install failed: $(tail -c 400 "$W/install.log")"
    finish
    exit
fi
mv "$W/stage/opt/gk" "$W/moved"
P=$W/moved
[ -x "$P/bin/gridkit" ] && ok "command in bin/" || ko "command in bin/" "no $P/bin/gridkit"
lib=$(cd "$P" && ls -d lib*/gdalplugins 2>/dev/null | head -1)
[ -n "$lib" ] && [ -f "$P/$lib/gdal_GRIDKIT.so" ] && ok "plugin under the prefix" ||
    ko "plugin under the prefix" "no <libdir>/gdalplugins/gdal_GRIDKIT.so in $(cd "$P" && find . -name '*.so')"
ls "$P"/include/gridkit.h >/dev/null 2>&1 && ok "headers" || ko "headers" "no include/gridkit.h"
escaped=$(cd "$W/stage" && find . -type f | head -3)
[ -z "$escaped" ] && ok "nothing outside the prefix" || ko "nothing outside the prefix" "also installed: $escaped"

# the moved command: the build's bytes
"$GK" grid "${A[@]}" "$M" "$W/build.tif" || ko build_run "the build's command failed"
if "$P/bin/gridkit" grid "${A[@]}" "$M" "$W/moved.tif" 2>"$W/moved.err" && cmp -s "$W/build.tif" "$W/moved.tif"; then
    ok "moved command, same bytes"
else
    ko "moved command, same bytes" "$(head -c 300 "$W/moved.err")"
fi

# its CUDA module (where the build made one): found, whatever the GPU says
if [ -f "$(dirname "$GK")/gridkit_cuda.so" ]; then
    "$P/bin/gridkit" grid "${A[@]}" --device cuda "$M" "$W/cuda.tif" 2>"$W/cuda.err"
    if grep -q "was not found\|not part of this build" "$W/cuda.err"; then
        ko "CUDA module found" "$(head -c 400 "$W/cuda.err")"
    else
        ok "CUDA module found"
    fi
fi

# its MPI module under mpirun (where the build made one)
if [ -f "$(dirname "$GK")/gridkit_mpi.so" ] && command -v mpirun >/dev/null; then
    if timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 "$P/bin/gridkit" grid "${A[@]}" \
        "$M" "$W/mpi.tif" >"$W/mpi.err" 2>&1 && cmp -s "$W/build.tif" "$W/mpi.tif"; then
        ok "MPI module found, same bytes on 2 ranks"
    else
        ko "MPI module found, same bytes on 2 ranks" "$(head -c 400 "$W/mpi.err")"
    fi
fi

# the C library: docs/library.md's example built against the moved tree, by
# pkg-config and by CMake's find_package, prints what the page shows (its
# first value, 800/27, checked by hand: node (12.5, 87.5), weights 25:1:1)
SRC=$(dirname "$0")/../../docs/library.md
awk '/^## Example/{e=1} e&&/^```c$/{c=1;next} c&&/^```$/{exit} c' "$SRC" >"$W/idw_example.c"
awk '/^\$ \.\/idw_example$/{c=1;next} c&&/^```$/{exit} c' "$SRC" >"$W/expected.txt"
grep -q '^ 29.630 ' "$W/expected.txt" && ok "the page's first value is 800/27" ||
    ko "the page's first value is 800/27" "$(head -1 "$W/expected.txt")"
pcdir=$(cd "$P" && ls -d lib*/pkgconfig 2>/dev/null | head -1)
libdir=$(dirname "$P/$pcdir")
if [ -n "$pcdir" ] && command -v pkg-config >/dev/null &&
    cc -std=c11 -Wall -Wextra -Werror -O2 "$W/idw_example.c" -o "$W/idw_pc" \
        $(PKG_CONFIG_PATH=$P/$pcdir pkg-config --cflags --libs gridkit) 2>"$W/pc.err" &&
    LD_LIBRARY_PATH=$libdir "$W/idw_pc" >"$W/pc.out" && cmp -s "$W/pc.out" "$W/expected.txt"; then
    ok "library example through pkg-config"
else
    ko "library example through pkg-config" "$(head -c 300 "$W/pc.err") $(diff "$W/pc.out" "$W/expected.txt" 2>&1 | head -5)"
fi
readelf -d "$libdir/libgridkit.so" 2>/dev/null | grep -q 'SONAME.*libgridkit.so.0' && ok "SONAME libgridkit.so.0" ||
    ko "SONAME libgridkit.so.0" "$(readelf -d "$libdir/libgridkit.so" 2>&1 | grep -i soname)"
mkdir -p "$W/cm"
cat >"$W/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(idw_example C)
find_package(gridkit 0 REQUIRED)
add_executable(idw_cmake ../idw_example.c)
target_link_libraries(idw_cmake PRIVATE gridkit::gridkit)
CM
if cmake -S "$W/cm" -B "$W/cm/b" -DCMAKE_PREFIX_PATH="$P" >"$W/cm.log" 2>&1 &&
    cmake --build "$W/cm/b" >>"$W/cm.log" 2>&1 &&
    LD_LIBRARY_PATH=$libdir "$W/cm/b/idw_cmake" >"$W/cm.out" && cmp -s "$W/cm.out" "$W/expected.txt"; then
    ok "library example through find_package(gridkit)"
else
    ko "library example through find_package(gridkit)" "$(tail -c 400 "$W/cm.log")"
fi

# GDAL finds the plugin through GDAL_DRIVER_PATH, and the plugin its modules
if [ -n "$lib" ] && command -v gdalinfo >/dev/null; then
    GDAL_DRIVER_PATH=$P/$lib gdalinfo --formats 2>&1 | grep -q "GRIDKIT" && ok "gdalinfo --formats lists GRIDKIT" ||
        ko "gdalinfo --formats lists GRIDKIT" "not listed with GDAL_DRIVER_PATH=$P/$lib"
fi
finish
