#!/bin/bash
# SPDX-License-Identifier: MIT
# version.sh GRIDKIT DATA WORK SOURCE_DIR BUILD_DIR: one version everywhere:
# gridkit.h's GK_VERSION_STRING (the source), `gridkit --version`, the
# library's gk_version() and its file name, the GDAL plugin's metadata, the
# QGIS plugin's metadata.txt and NEWS's newest entry.
# Ends with "N passed, M failed".
set -u
. "$(dirname "$0")/../driver/suite.sh"
S=${4:?the source folder}
B=${5:?the build folder}
v=$(sed -n 's/^#define GK_VERSION_STRING "\(.*\)"$/\1/p' "$S/algorithms/include/gridkit.h")
[ -n "$v" ] && ok "gridkit.h says $v" || { ko header "no GK_VERSION_STRING"; finish; exit; }
got=$("$GK" --version | awk '{print $2}')
check "gridkit --version" "$([ "$got" = "$v" ] || echo "says $got")"
if [ -e "$B/libgridkit.so.$v" ]; then
    got=$(python3 -c 'import ctypes, sys
f = ctypes.CDLL(sys.argv[1]).gk_version; f.restype = ctypes.c_char_p; print(f().decode())' "$B/libgridkit.so.$v")
    check "libgridkit gk_version()" "$([ "$got" = "$v" ] || echo "says $got")"
else
    ko "libgridkit.so.$v" "not built under that name: $(ls "$B"/libgridkit.so.* 2>/dev/null)"
fi
if command -v gdalinfo >/dev/null && [ -d "$B/gdalplugins" ]; then
    got=$(GDAL_DRIVER_PATH=$B/gdalplugins gdalinfo --format GRIDKIT 2>/dev/null | sed -n 's/^ *GRIDKIT_VERSION=//p')
    check "the GDAL plugin's GRIDKIT_VERSION" "$([ "$got" = "$v" ] || echo "says '$got'")"
fi
got=$(sed -n 's/^version=//p' "$S/qgis/gridkit_provider/metadata.txt")
check "QGIS metadata.txt" "$([ "$got" = "$v" ] || echo "says $got")"
got=$(grep -m1 -E '^[0-9]+\.[0-9]+\.[0-9]+' "$S/NEWS" | awk '{print $1}')
check "NEWS's newest entry" "$([ "$got" = "$v" ] || echo "says $got")"
finish
