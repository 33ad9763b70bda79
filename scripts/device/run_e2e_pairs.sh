#!/bin/bash
# SPDX-License-Identifier: MIT
# The end-to-end cases, gridkit grid against gdal_grid in pairs run
# back to back (gdal_grid, then gridkit twice), so that each ratio compares
# runs of the same minute of a machine whose speed drifts. Needs .e2e/
# (carried): gridkit built with GDAL, gridkit_cuda.so and pack-gdal-runtime's
# tarball. Run from the repository root.
#   PAIRS=n      pairs per case (6)
#   CASES="..."  which of: average linear invdistnn invdist (average)
#   SYNC=1       sync (the page cache's dirty pages to disk) before each timed run
# The guard: each case's best gridkit time beside the one docs/benchmarks.md
# gives for its row (scripts/device/docs_figure.py), SLOWER when more than
# 20% slower; the exit status is 3 when any was.
HERE=$(cd "$(dirname "$0")" && pwd)
declare -A ALG=([average]=average:radius1=25:radius2=25 [linear]=linear
  [invdistnn]=invdistnn:power=2:radius=200:max_points=16 [invdist]=invdist:power=2)
declare -A SIZE=([average]=4096 [linear]=4096 [invdistnn]=4096 [invdist]=1024)
declare -A OWN=([invdist]="--precision single") # gridkit's own options
for c in ${CASES:-average}; do # before the set-up's minute
  [ -n "${ALG[$c]}" ] || { echo "run_e2e_pairs.sh: unknown case '$c' in CASES (${!ALG[*]})" >&2; exit 1; }
done
[[ "${PAIRS:-6}" =~ ^[1-9][0-9]*$ ]] || { echo "run_e2e_pairs.sh: PAIRS='$PAIRS' is not a count" >&2; exit 1; }
source "$HERE/e2e_setup.sh"
nproc
t() { [ -n "$SYNC" ] && sync; local s=$(date +%s.%N); "$@" 2>>err.txt || echo "rc $? from $1" >&2
  awk -v a=$(date +%s.%N) -v b=$s 'BEGIN{printf "%.3f", a - b}'; }
: > err.txt
slower=0
for c in ${CASES:-average}; do
  A=${ALG[$c]}; G=${C/4096 4096/${SIZE[$c]} ${SIZE[$c]}}
  ./gridkit grid $G -a $A pts.gpkg warm.tif 2>/dev/null # page cache, CUDA's caches
  echo "== $c: $A, ${SIZE[$c]}^2 ${OWN[$c]}"
  printf "%-5s %10s %10s %10s %8s %8s\n" pair gdal_grid gridkit gridkit ratio ratio
  best=
  for p in $(seq 1 ${PAIRS:-6}); do
    g=$(GDAL_NUM_THREADS=16 t gdal_grid -q ${G/-q --timings/} -a $A pts.gpkg ${c}_gd.tif)
    k1=$(t ./gridkit grid ${OWN[$c]} $G -a $A pts.gpkg ${c}_gk.tif)
    k2=$(t ./gridkit grid ${OWN[$c]} $G -a $A pts.gpkg ${c}_gk.tif)
    awk -v p=$p -v g=$g -v a=$k1 -v b=$k2 \
      'BEGIN{printf "%-5d %9.3fs %9.3fs %9.3fs %7.1fx %7.1fx\n", p, g, a, b, g / a, g / b}'
    best=$(awk -v m="$best" -v a=$k1 -v b=$k2 'BEGIN{v = a < b ? a : b; if (m != "" && m < v) v = m; print v}')
  done
  doc=$(python3 "$HERE/docs_figure.py" "$A" "gridkit grid" docs/benchmarks.md) || doc=
  if [ -n "$doc" ]; then
    # (a comparison in printf's arguments must be in parentheses: awk reads
    # a bare > there as a redirection to a file)
    awk -v b=$best -v d=$doc 'BEGIN{slow = (b > 1.2 * d && b - d > 0.01)
      printf "    guard: best %.3f s (docs %.3f s, %.2fx)%s\n", b, d, b / d, (slow ? " SLOWER" : "")
      exit !slow}' && slower=1
  else
    echo "    guard: docs/benchmarks.md has no figure for \`$A\`"
  fi
  gdal_translate -q -of ENVI ${c}_gd.tif a.bil && gdal_translate -q -of ENVI ${c}_gk.tif b.bil &&
    echo "    gdal_grid against gridkit: $(python3 "$HERE/cmp_float_rasters.py" a.bil b.bil)"
done
echo "gridkit's --timings, in run order:"; grep -E "Timings|^Device" err.txt
[ $slower = 0 ] || { echo "guard: a case more than 20% slower than docs/benchmarks.md (SLOWER above)"; exit 3; }
