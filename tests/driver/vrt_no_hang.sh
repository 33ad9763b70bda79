#!/bin/bash
# SPDX-License-Identifier: MIT
# vrt_no_hang.sh GRIDKIT DATA_DIR WORK_DIR [RUNS]
#
# An OGR VRT source with the default --device auto must never hang: the GPU
# warm-up thread must not open GDAL datasets while the main thread does
# (libxml2's lazy set-up deadlocks; docs/reliability.md). Runs it RUNS times (200),
# each under a timeout, and checks every run's raster. Ends "N passed, M failed".
set -u
. "$(dirname "$0")/suite.sh"
RUNS=${4:-200}
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
cat >"$WORK/grid.vrt" <<VRT
<OGRVRTDataSource>
  <OGRVRTLayer name="grid">
    <SrcDataSource>$DATA/random_500.gpkg</SrcDataSource>
    <SrcLayer>random_500</SrcLayer>
  </OGRVRTLayer>
</OGRVRTDataSource>
VRT
for i in $(seq 1 "$RUNS"); do
    rm -f "$WORK/o.tif"
    timeout 30 "$GK" grid -q -l grid -zfield z -outsize 40 40 "$WORK/grid.vrt" "$WORK/o.tif" \
        2>"$WORK/err"
    rc=$?
    if [ $rc -eq 0 ] && [ -s "$WORK/o.tif" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL run $i: exit $rc$([ $rc -eq 124 ] && echo ' (hung: killed after 30 s)') $(head -c 200 "$WORK/err")"
    fi
done
ls "$WORK" | grep -q gridkit-tmp && { fail=$((fail + 1)); echo "FAIL temporary left in $WORK"; }
finish
