#!/bin/bash
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

# GDAL finds the plugin through GDAL_DRIVER_PATH, and the plugin its modules
if [ -n "$lib" ] && command -v gdalinfo >/dev/null; then
    GDAL_DRIVER_PATH=$P/$lib gdalinfo --formats 2>&1 | grep -q "GRIDKIT" && ok "gdalinfo --formats lists GRIDKIT" ||
        ko "gdalinfo --formats lists GRIDKIT" "not listed with GDAL_DRIVER_PATH=$P/$lib"
fi
finish
