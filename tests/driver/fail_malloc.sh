#!/bin/bash
# SPDX-License-Identifier: MIT
# fail_malloc.sh GRIDKIT DATA WORK FAIL_MALLOC_LIB: every allocation of
# gridkit's own code made to fail in turn (fail_malloc.c, SQLite's way).
# Each run must either succeed with the bytes of the run without a failure,
# or fail with an "out of memory" message and a non-zero exit, without
# crashing or hanging, with no output and no temporary left.
# Cases of more than MAX allocations are sampled evenly. Ends with
# "N passed, M failed".
set -u
. "$(dirname "$0")/suite.sh"
LIB=${4:?the fail_malloc library}
W=$WORK
MAX=${GK_FAIL_MALLOC_MAX:-150}
rm -rf "$W"
mkdir -p "$W"
M=$DATA/meuse.gpkg

# case NAME OUT -- gridkit arguments (OUT among them)
case_() {
    local name=$1 out=$2
    shift 3
    local d=$W/$name
    mkdir -p "$d"
    (cd "$d" && env GK_FAIL_MALLOC_COUNT="$d/count" LD_PRELOAD="$LIB" timeout 120 "$GK" "$@") \
        >"$d/ref.log" 2>&1 || { ko "$name" "the run without a failure failed: $(head -c 300 "$d/ref.log")"; return; }
    mv "$d/$out" "$d/ref.$out"
    local n
    n=$(od -An -td8 "$d/count" | tr -d ' ')
    [ "${n:-0}" -gt 0 ] || { ko "$name" "no allocation counted"; return; }
    local step=$(((n + MAX - 1) / MAX)) bad="" k
    for ((k = 1; k <= n; k += step)); do
        (cd "$d" && env GK_FAIL_MALLOC_AT=$k LD_PRELOAD="$LIB" timeout 60 "$GK" "$@") >"$d/run.log" 2>&1
        local rc=$?
        if [ $rc = 0 ]; then
            cmp -s "$d/$out" "$d/ref.$out" || bad+="allocation $k: exit 0 with other bytes; "
        elif [ $rc -ge 124 ]; then
            bad+="allocation $k: crashed or hung (rc $rc): $(tail -c 200 "$d/run.log" | tr '\n' ' '); "
        elif ! grep -qi "out of memory" "$d/run.log"; then
            bad+="allocation $k: rc $rc without 'out of memory': $(head -c 200 "$d/run.log" | tr '\n' ' '); "
        elif [ -e "$d/$out" ]; then
            bad+="allocation $k: failed but left $out; "
        fi
        if ls -a "$d" | grep -q gridkit-tmp; then bad+="allocation $k: temporary left; "; fi
        rm -rf "${d:?}/$out" "$d"/*gridkit-tmp*
        [ ${#bad} -lt 2000 ] || break
    done
    [ -z "$bad" ] && ok "$name ($n allocations, every $step)" || ko "$name" "$bad"
}

Z=(-q -zfield zinc -outsize 40 30)
case_ invdist o.tif -- grid "${Z[@]}" -a invdist:power=2 "$M" o.tif
case_ invdistnn o.tif -- grid "${Z[@]}" -a invdistnn:radius=800:max_points=12 "$M" o.tif
case_ average_f32 o.tif -- grid "${Z[@]}" -ot Float32 -a average:radius1=500:radius2=300:angle=20 "$M" o.tif
case_ nearest o.tif -- grid "${Z[@]}" -a nearest "$M" o.tif
case_ linear o.tif -- grid "${Z[@]}" -a linear "$M" o.tif
case_ kriging_fitted o.tif -- grid "${Z[@]}" -a kriging:model=auto:max_points=16 "$M" o.tif
case_ kriging_global o.tif -- grid "${Z[@]}" -a kriging:model=Sph:psill=1e5:range=900:nugget=1e4 "$M" o.tif
case_ heatmap o.tif -- grid -q -outsize 40 30 -a heatmap:radius=300 "$M" o.tif
case_ gauss o.tif -- grid -q -outsize 40 30 -a gauss:bandwidth=200 "$M" o.tif
case_ parts o.vrt -- grid "${Z[@]}" -a invdist:power=2 --parts parts "$M" o.vrt
case_ variogram v.json -- variogram "$M" -zfield zinc --fit Sph -of json -o v.json
case_ cv cv.csv -- cv -q -zfield zinc -a invdistnn:radius=800:max_points=12 "$M" -o cv.csv
case_ aidw o.tif -- grid "${Z[@]}" -a aidw "$M" o.tif
case_ count o.tif -- grid "${Z[@]}" -a count:radius1=400:radius2=400 "$M" o.tif
case_ kriging_quadrants o.tif -- grid "${Z[@]}" \
    -a kriging:model=Exp:psill=1e5:range=900:nugget=1e4:max_points=20:max_points_per_quadrant=4 "$M" o.tif
case_ kriging_drift o.tif -- grid "${Z[@]}" \
    -a kriging:type=universal:drift=linear:model=Sph:psill=1e5:range=900:nugget=1e4:max_points=16 "$M" o.tif
case_ gauss_ifgt o.tif -- grid -q -outsize 40 30 -a gauss:bandwidth=200:method=ifgt "$M" o.tif
case_ gauss_fft o.tif -- grid -q -outsize 40 30 -a gauss:bandwidth=200:method=fft "$M" o.tif
case_ kernel_smooth o.tif -- grid "${Z[@]}" -a kernel_smooth:bandwidth=200 "$M" o.tif
case_ gauss_relative o.tif -- grid -q -outsize 40 30 -a gauss:bandwidth=200:mode=relative "$M" o.tif
case_ linear_radius o.tif -- grid "${Z[@]}" -a linear:radius=500 "$M" o.tif
case_ invdist_quadrants o.tif -- grid "${Z[@]}" \
    -a invdist:power=2:radius1=800:radius2=800:max_points_per_quadrant=3 "$M" o.tif
case_ variogram_fit_best v.json -- variogram "$M" -zfield zinc --fit-best Sph,Exp,Gau -of json -o v.json
case_ polynomial o.tif -- grid "${Z[@]}" -a polynomial:degree=2:max_points=16 "$M" o.tif
case_ polynomial_global_gauss o.tif -- grid "${Z[@]}" -a polynomial:degree=1:weight=gauss:bandwidth=300 "$M" o.tif
case_ shepard o.tif -- grid "${Z[@]}" -a shepard "$M" o.tif
case_ natural o.tif -- grid "${Z[@]}" -a natural:type=laplace:radius=-1 "$M" o.tif
case_ trend_surface o.tif -- grid "${Z[@]}" -a polynomial:degree=3 "$M" o.tif
case_ surface o.tif -- grid "${Z[@]}" -a surface:tension=0.25:lower=data "$M" o.tif
case_ rbf o.tif -- grid "${Z[@]}" -a rbf:neighbors=20 "$M" o.tif
case_ rst o.tif -- grid "${Z[@]}" -a rst:dmin=20 "$M" o.tif
case_ cv_surface cv.csv -- cv -q -zfield zinc -a surface "$M" -o cv.csv
case_ indicator o.tif -- grid "${Z[@]}" -a kriging:model=auto:max_points=16:indicator=300,700 "$M" o.tif
case_ simulation o.tif -- grid "${Z[@]}" \
    -a kriging:model=Exp:psill=1e5:range=900:nugget=1e4:nsim=3:transform=normal_score:summary=mean,q90:realizations=yes "$M" o.tif
case_ cv_kriging cv.csv -- cv -q -zfield zinc -a kriging:model=auto:max_points=16 "$M" -o cv.csv
# other readers: XYZ text, CSV columns, a Shapefile with a filter and a clip
case_ xyz o.tif -- grid -q -outsize 40 30 -a invdistnn:radius=300:max_points=8 "$DATA/points_10k.xyz" o.tif
case_ csv o.tif -- grid -q -outsize 40 30 -zfield z -a nearest "$DATA/lattice_400.csv" o.tif
case_ shp_where_clip o.tif -- grid -q -outsize 40 30 -zfield elev -a invdist -where "id < 1500" \
    -clipsrc 497000 4997000 503000 5003000 "$DATA/utm_2000.shp" o.tif
# the parallel triangulation (65,536 points or more, 3 threads or more)
awk 'BEGIN { srand(7); for (i = 0; i < 70000; i++) printf "%.3f %.3f %.3f\n", 1e4 * rand(), 1e4 * rand(), 100 * rand() }' \
    >"$W/big.xyz"
case_ linear_strips o.tif -- grid -q -outsize 40 30 --threads 4 -a linear "$W/big.xyz" o.tif
# ridges: a noisy circle, both methods
awk 'BEGIN { srand(3); for (i = 0; i < 600; i++) { a = 6.2831853 * rand(); r = 100 + 4 * (rand() - 0.5)
    printf "%.4f %.4f 0\n", r * cos(a), r * sin(a) } }' >"$W/circle.xyz"
case_ ridges_curve r.gpkg -- ridges -q "$W/circle.xyz" r.gpkg -a curve
case_ ridges_density r.gpkg -- ridges -q "$W/circle.xyz" r.gpkg -a density:bandwidth=8
case_ ridges_density_mesh r.gpkg -- ridges -q "$W/circle.xyz" r.gpkg -a density:bandwidth=8:seeds=mesh:spacing=10

finish
