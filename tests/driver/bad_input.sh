#!/bin/bash
# SPDX-License-Identifier: MIT
# bad_input.sh GRIDKIT DATA_DIR WORK_DIR
#
# `gridkit grid` (and variogram, cv) given bad input must: exit non-zero (and not crash), say on
# stderr what is wrong (a key word is grepped), and leave no output behind
# (no DST, no *.gridkit-tmp-* file). An existing output must survive a failed
# run, and the input must never be overwritten. Ends with "N passed, M failed".
set -u
GK=${1:?usage: bad_input.sh GRIDKIT DATA_DIR WORK_DIR}
DATA=${2:?data dir}
WORK=${3:?work dir}
R=$DATA/random_500.gpkg
M=$DATA/multi.gpkg
U=$DATA/utm_2000.shp
G=(-txe 0 1000 -tye 0 1000 -outsize 20 20)

pass=0
fail=0
if [ ! -x "$GK" ]; then
    echo "FAIL: gridkit binary not found or not executable: $GK"
    echo "0 passed, 1 failed"
    exit 1
fi
rm -rf "$WORK"
mkdir -p "$WORK"

report() { # name, problems...
    local name=$1
    shift
    if [ $# -eq 0 ]; then
        pass=$((pass + 1))
        printf 'PASS %-28s %s\n' "$name" "$(head -c 160 "$WORK/$name.err" | tr '\n' ' ')"
    else
        fail=$((fail + 1))
        printf 'FAIL %-28s %s | stderr: %s\n' "$name" "$*" "$(head -c 300 "$WORK/$name.err" | tr '\n' ' ')"
    fi
}

# check NAME REGEX DST -- gridkit grid arguments (DST included where needed)
check() {
    local name=$1 kw=$2 dst=$3
    shift 4
    local dir
    dir=$(dirname "$dst")
    timeout 60 "$GK" grid -q "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
    local rc=$?
    local p=()
    [ $rc -ne 0 ] || p+=("exit status 0")
    [ $rc -lt 124 ] || p+=("crashed or hung (rc $rc)")
    grep -qiE -- "$kw" "$WORK/$name.err" || p+=("stderr does not match /$kw/")
    [ ! -e "$dst" ] || p+=("output left behind: $dst")
    if [ -d "$dir" ] && ls -a "$dir" | grep -q 'gridkit-tmp'; then
        p+=("temporary file left in $dir")
    fi
    report "$name" "${p[@]}"
}

case_dir() { mkdir -p "$WORK/$1" && echo "$WORK/$1"; }

d=$(case_dir missing_source)
check missing_source 'nosuch' "$d/o.tif" -- "${G[@]}" "$DATA/nosuch.gpkg" "$d/o.tif"
d=$(case_dir unknown_layer)
check unknown_layer 'nolayer' "$d/o.tif" -- "${G[@]}" -l nolayer "$M" "$d/o.tif"
d=$(case_dir unknown_layer_second)
check unknown_layer_second 'nolayer' "$d/o.tif" -- "${G[@]}" -l pts_a -l nolayer "$M" "$d/o.tif"
d=$(case_dir unknown_zfield)
check unknown_zfield 'nofield' "$d/o.tif" -- "${G[@]}" -zfield nofield "$R" "$d/o.tif"
d=$(case_dir bad_where)
check bad_where '-where' "$d/o.tif" -- "${G[@]}" -where 'class ==== 3' "$R" "$d/o.tif"
d=$(case_dir bad_where_field)
check bad_where_field '-where|nosuchcol' "$d/o.tif" -- "${G[@]}" -where 'nosuchcol = 3' "$R" "$d/o.tif"
d=$(case_dir bad_sql)
check bad_sql 'sql|SELEC' "$d/o.tif" -- "${G[@]}" -sql 'SELEC * FRM nothing' "$R" "$d/o.tif"
d=$(case_dir unknown_algorithm)
check unknown_algorithm 'krigeit' "$d/o.tif" -- "${G[@]}" -a krigeit "$R" "$d/o.tif"
d=$(case_dir unknown_parameter)
check unknown_parameter 'bogus' "$d/o.tif" -- "${G[@]}" -a invdist:bogus=1 "$R" "$d/o.tif"
d=$(case_dir bad_power)
check bad_power 'power' "$d/o.tif" -- "${G[@]}" -a invdist:power=abc "$R" "$d/o.tif"
d=$(case_dir bad_radius_invdistnn)
check bad_radius_invdistnn 'radius' "$d/o.tif" -- "${G[@]}" -a invdistnn:radius=-1 "$R" "$d/o.tif"
d=$(case_dir outsize_zero)
check outsize_zero 'outsize|size' "$d/o.tif" -- -txe 0 1000 -tye 0 1000 -outsize 0 0 "$R" "$d/o.tif"
d=$(case_dir outsize_negative)
check outsize_negative 'outsize|size' "$d/o.tif" -- -txe 0 1000 -tye 0 1000 -outsize -5 10 "$R" "$d/o.tif"
d=$(case_dir outsize_not_number)
check outsize_not_number 'outsize|abc' "$d/o.tif" -- -txe 0 1000 -tye 0 1000 -outsize abc 10 "$R" "$d/o.tif"
d=$(case_dir outsize_and_tr)
check outsize_and_tr '-tr|outsize' "$d/o.tif" -- -txe 0 1000 -tye 0 1000 -outsize 10 10 -tr 1 1 "$R" "$d/o.tif"
d=$(case_dir tr_without_extent)
check tr_without_extent 'txe|tye|extent' "$d/o.tif" -- -tr 10 10 "$R" "$d/o.tif"
d=$(case_dir tr_zero)
check tr_zero '-tr|resolution' "$d/o.tif" -- -txe 0 1000 -tye 0 1000 -tr 0 10 "$R" "$d/o.tif"
d=$(case_dir absurd_grid)
check absurd_grid 'size|large|memory|big|too' "$d/o.tif" -- -txe 0 1000 -tye 0 1000 \
    -outsize 2000000000 2000000000 "$R" "$d/o.tif"
check missing_output_dir 'gk-no-such-dir|director|writ|creat|exist' "/gk-no-such-dir/o.tif" -- \
    "${G[@]}" "$R" "/gk-no-such-dir/o.tif"
d=$(case_dir output_dir_is_file)
: >"$d/afile"
check output_dir_is_file 'afile|director|writ|creat' "$d/afile/o.tif" -- "${G[@]}" "$R" "$d/afile/o.tif"
d=$(case_dir readonly_dir)
if [ "$(id -u)" != 0 ]; then
    chmod 555 "$d"
    check readonly_dir 'readonly_dir|permission|writ|creat|denied' "$d/o.tif" -- "${G[@]}" "$R" "$d/o.tif"
    chmod 755 "$d"
else
    echo "SKIP readonly_dir                 (running as root: permissions do not apply)"
fi
d=$(case_dir unknown_format)
check unknown_format 'NOPEDRV' "$d/o.tif" -- "${G[@]}" -of NOPEDRV "$R" "$d/o.tif"
d=$(case_dir unknown_type)
check unknown_type 'Float128' "$d/o.tif" -- "${G[@]}" -ot Float128 "$R" "$d/o.tif"
d=$(case_dir empty_where)
check empty_where 'point|empty|nothing|feature' "$d/o.tif" -- "${G[@]}" -where 'class = 999' "$R" "$d/o.tif"
d=$(case_dir empty_layer)
check empty_layer 'point|empty|nothing|feature' "$d/o.tif" -- "${G[@]}" -l empty "$M" "$d/o.tif"
d=$(case_dir empty_spat)
check empty_spat 'point|empty|nothing|feature' "$d/o.tif" -- "${G[@]}" -spat 2000 2000 3000 3000 "$R" "$d/o.tif"
d=$(case_dir no_z_invdist)
check no_z_invdist 'zfield|2-?d|z value|no z|z coord|z component' "$d/o.tif" -- "${G[@]}" \
    -a invdist "$U" "$d/o.tif"
d=$(case_dir no_z_2d_layer)
check no_z_2d_layer 'zfield|2-?d|z value|no z|z coord|z component' "$d/o.tif" -- "${G[@]}" \
    -l pts_2d -a nearest "$M" "$d/o.tif"
d=$(case_dir multi_layer_no_l)
check multi_layer_no_l 'layer' "$d/o.tif" -- "${G[@]}" "$M" "$d/o.tif"
d=$(case_dir missing_dst)
check missing_dst 'usage|destination|dst|missing|output' "$d/none" -- "${G[@]}" "$R"
d=$(case_dir too_many_args)
check too_many_args 'too many|extra|unexpected|argument' "$d/o.tif" -- "${G[@]}" "$R" "$d/o.tif" "$d/x.tif"

# ---- the input must never be overwritten ------------------------------------
same_input() { # name dst-spelling src
    local name=$1 dst=$2 src=$3
    # -of GTiff: so that refusing to overwrite the input is the only reason to fail
    timeout 60 "$GK" grid -q "${G[@]}" -of GTiff "$src" "$dst" >"$WORK/$name.out" 2>"$WORK/$name.err"
    local rc=$? p=()
    [ $rc -ne 0 ] || p+=("exit status 0")
    cmp -s "$src" "$WORK/pristine.gpkg" || p+=("INPUT MODIFIED")
    grep -qiE 'input|same|overwrit|source' "$WORK/$name.err" || p+=("stderr does not match /input|same|overwrit|source/")
    if ls -a "$(dirname "$src")" | grep -q 'gridkit-tmp'; then p+=("temporary file left"); fi
    report "$name" "${p[@]}"
}
d=$(case_dir output_is_input)
cp "$R" "$WORK/pristine.gpkg"
cp "$R" "$d/in.gpkg"
same_input output_is_input "$d/in.gpkg" "$d/in.gpkg"
cp "$R" "$d/in.gpkg"
same_input output_is_input_other_spelling "$d/../output_is_input/./in.gpkg" "$d/in.gpkg"
cp "$R" "$d/in.gpkg"
ln -sf "$d/in.gpkg" "$d/link.gpkg"
same_input output_is_input_symlink "$d/link.gpkg" "$d/in.gpkg"

# ---- an existing output survives a failed run --------------------------------
d=$(case_dir keep_existing)
if "$GK" grid -q "${G[@]}" -a nearest "$R" "$d/o.tif" 2>"$WORK/keep_setup.err" && [ -s "$d/o.tif" ]; then
    cp "$d/o.tif" "$WORK/keep_ref.tif"
    keep() { # name, then arguments before SRC
        local name=$1
        shift
        timeout 60 "$GK" grid -q "$@" "$R" "$d/o.tif" >"$WORK/$name.out" 2>"$WORK/$name.err"
        local rc=$? p=()
        [ $rc -ne 0 ] || p+=("exit status 0")
        cmp -s "$d/o.tif" "$WORK/keep_ref.tif" || p+=("EXISTING OUTPUT CHANGED OR DELETED")
        if ls -a "$d" | grep -q 'gridkit-tmp'; then p+=("temporary file left"); fi
        report "$name" "${p[@]}"
    }
    keep keep_existing_bad_where "${G[@]}" -where 'class ==== 3'
    keep keep_existing_empty "${G[@]}" -where 'class = 999'
    keep keep_existing_bad_alg "${G[@]}" -a krigeit
    keep keep_existing_absurd -txe 0 1000 -tye 0 1000 -outsize 2000000000 2000000000
    keep keep_existing_bad_type "${G[@]}" -ot Float128
else
    : >"$WORK/keep_existing.err"
    report keep_existing "setup run failed: $(head -c 200 "$WORK/keep_setup.err")"
fi

# ---- geostatistics: kriging, variogram, cv ------------------------------------
MZ=(-zfield logzinc -txe 178440 181560 -tye 329600 333760 -outsize 20 20)
ME=$DATA/meuse.gpkg
d=$(case_dir kriging_unknown_model)
check kriging_unknown_model 'model=Foo' "$d/o.tif" -- "${MZ[@]}" -a kriging:model=Foo:psill=1:range=100 "$ME" "$d/o.tif"
d=$(case_dir kriging_negative_range)
check kriging_negative_range 'range' "$d/o.tif" -- "${MZ[@]}" -a kriging:model=Sph:psill=1:range=-100 "$ME" "$d/o.tif"
d=$(case_dir kriging_bad_variogram_file)
printf '{"model": [' >"$d/bad.json"
check kriging_bad_variogram_file 'bad.json' "$d/o.tif" -- "${MZ[@]}" -a "kriging:variogram=$d/bad.json" "$ME" "$d/o.tif"
d=$(case_dir kriging_missing_variogram_file)
check kriging_missing_variogram_file 'nosuch.json: cannot open the variogram file: No such file' "$d/o.tif" -- "${MZ[@]}" -a "kriging:variogram=$d/nosuch.json" "$ME" "$d/o.tif"
d=$(case_dir kriging_too_few_for_drift)
printf 'x y z\n0 0 1\n1 0 2\n0 1 3\n' >"$d/three.xyz"
check kriging_too_few_for_drift 'drift' "$d/o.tif" -- -outsize 5 5 -a kriging:type=universal:drift=quadratic:model=Sph:psill=1:range=10 "$d/three.xyz" "$d/o.tif"
d=$(case_dir kriging_simple_without_mean)
check kriging_simple_without_mean 'mean' "$d/o.tif" -- "${MZ[@]}" -a kriging:type=simple:model=Sph:psill=1:range=100 "$ME" "$d/o.tif"

# check_cmd NAME REGEX -- gridkit COMMAND arguments: non-zero exit and a message
check_cmd() {
    local name=$1 kw=$2
    shift 3
    timeout 60 "$GK" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
    local rc=$?
    local p=()
    [ $rc -ne 0 ] || p+=("exit status 0")
    [ $rc -lt 124 ] || p+=("crashed or hung (rc $rc)")
    grep -qiE -- "$kw" "$WORK/$name.err" || p+=("stderr does not match /$kw/")
    report "$name" "${p[@]}"
}
check_cmd variogram_unknown_model 'Xyz' -- variogram "$ME" -zfield logzinc --fit Xyz
check_cmd variogram_missing_source 'nosuch' -- variogram "$DATA/nosuch.gpkg" -zfield logzinc
check_cmd variogram_bad_cutoff 'cutoff' -- variogram "$ME" -zfield logzinc --cutoff abc
# check_vgm NAME REGEX -- variogram arguments: as check_cmd, and -o FILE is neither written
# nor left as a temporary
check_vgm() {
    local name=$1 kw=$2
    shift 3
    local dir
    dir=$(case_dir "vgm_$name")
    timeout 60 "$GK" variogram "$@" -of json -o "$dir/v.json" >"$WORK/$name.out" 2>"$WORK/$name.err"
    local rc=$?
    local p=()
    [ $rc -ne 0 ] || p+=("exit status 0")
    [ $rc -lt 124 ] || p+=("crashed or hung (rc $rc)")
    grep -qiE -- "$kw" "$WORK/$name.err" || p+=("stderr does not match /$kw/")
    [ ! -e "$dir/v.json" ] || p+=("output left behind: $dir/v.json")
    ! ls -a "$dir" | grep -q 'gridkit-tmp' || p+=("temporary file left in $dir")
    report "$name" "${p[@]}"
}
# candidate lists (--fit-best), fit.kappa (--fit-kappa), trend residuals (--drift)
check_vgm variogram_fit_best_empty '--fit-best: candidate models: the list is empty' -- \
    "$ME" -zfield logzinc --fit-best ''
check_vgm variogram_fit_best_unknown "--fit-best: candidate models: unknown variogram model 'Xyz'" -- \
    "$ME" -zfield logzinc --fit-best Exp,Xyz
check_vgm variogram_fit_best_psill '--fit-best: --psill and --range do not apply' -- \
    "$ME" -zfield logzinc --fit-best Exp,Sph --psill 0.5
check_vgm variogram_fit_kappa_zero '--fit-kappa: kappa 0 is not in \(0, 100\]' -- \
    "$ME" -zfield logzinc --fit Nug,Mat --fit-kappa 0.5,0
check_vgm variogram_fit_kappa_negative '--fit-kappa: kappa -1 is not in \(0, 100\]' -- \
    "$ME" -zfield logzinc --fit Nug,Mat --fit-kappa -1
check_vgm variogram_fit_kappa_no_matern '--fit-kappa: the kappa search is for Mat and Ste' -- \
    "$ME" -zfield logzinc --fit Nug,Sph --fit-kappa
check_vgm variogram_fit_kappa_no_model '--fit-kappa needs a model to fit' -- \
    "$ME" -zfield logzinc --fit-kappa 1,2
check_vgm variogram_drift_unknown "--drift: 'cubic' is not linear or quadratic" -- \
    "$ME" -zfield logzinc --drift cubic
# the fit's start values and options (cli/variogram_fit_args.c), each named
check_vgm variogram_nugget_negative '--nugget must be >= 0, not -1' -- \
    "$ME" -zfield logzinc --fit Sph --nugget -1
check_vgm variogram_nugget_text "--nugget: 'abc' is not a number" -- \
    "$ME" -zfield logzinc --fit Sph --nugget abc
check_vgm variogram_nug_twice '--fit: Nug listed twice' -- "$ME" -zfield logzinc --fit Nug,Sph,Nug
check_vgm variogram_fit_too_many '--fit: at most [0-9]+ structures' -- \
    "$ME" -zfield logzinc --fit Sph,Exp,Gau,Sph,Exp,Gau,Sph,Exp,Gau,Sph,Exp,Gau,Sph,Exp,Gau,Sph,Exp
check_vgm variogram_fit_none '--fit: no model given' -- "$ME" -zfield logzinc --fit ,
check_vgm variogram_psill_count '--psill: 1 value for 2 non-nugget structures' -- \
    "$ME" -zfield logzinc --fit Sph,Exp --psill 0.5
check_vgm variogram_psill_negative '--psill must be >= 0, not -0.5' -- \
    "$ME" -zfield logzinc --fit Sph --psill -0.5
check_vgm variogram_range_zero '--range must be positive, not 0' -- \
    "$ME" -zfield logzinc --fit Sph --range 0
check_vgm variogram_range_long "--range: at most 8 values, not 21, in '1,2,3" -- \
    "$ME" -zfield logzinc --fit Sph --range 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21
check_vgm variogram_anis_one '--anis needs ANGLE,RATIO' -- "$ME" -zfield logzinc --fit Sph --anis 30
check_vgm variogram_anis_ratio '--anis: angle must be in \[0, 360\) and ratio in \(0, 1\], not 30,2' -- \
    "$ME" -zfield logzinc --fit Sph --anis 30,2
check_vgm variogram_anis_angle '--anis: angle must be in \[0, 360\) and ratio in \(0, 1\], not 400,0.5' -- \
    "$ME" -zfield logzinc --fit Sph --anis 400,0.5
check_vgm variogram_no_fit_missing '--no-fit: give every start value' -- \
    "$ME" -zfield logzinc --fit Sph --psill 0.5 --no-fit
check_vgm variogram_fit_best_no_fit '--no-fit needs --fit MODEL or --model FILE' -- \
    "$ME" -zfield logzinc --fit-best Exp,Sph --no-fit
check_vgm variogram_fit_best_kappa '--kappa: one value with --fit-best, not 2' -- \
    "$ME" -zfield logzinc --fit-best Exp,Mat --kappa 0.5,1
check_vgm variogram_fit_best_nugget '--nugget must be >= 0, not -2' -- \
    "$ME" -zfield logzinc --fit-best Exp,Sph --nugget -2
check_vgm variogram_fit_best_anis '--anis needs ANGLE,RATIO' -- \
    "$ME" -zfield logzinc --fit-best Exp,Sph --anis 30
check_vgm variogram_anis_three "--anis: at most 2 values, not 3, in '1,0.5,3'" -- \
    "$ME" -zfield logzinc --fit Sph --anis 1,0.5,3
check_vgm variogram_fit_kappa_text "--fit-kappa: 'x' is not a number" -- \
    "$ME" -zfield logzinc --fit Nug,Mat --fit-kappa 0.5,x
# the bound in the message; a tiny width's class count in 15 digits, not 300;
# constant z: no variogram to fit (it advised other starting values)
check_vgm variogram_lags_bound '--lags must be a whole number from 1 to 1000000, not 10000000' -- \
    "$ME" -zfield logzinc --lags 10000000
check_vgm variogram_width_tiny 'width 1e-300 gives 1\.59660664972846e\+303 classes, more than the 10000000' -- \
    "$ME" -zfield logzinc --width 1e-300
d=$(case_dir variogram_constant)
printf 'x y z\n0 0 5\n1 0 5\n0 1 5\n1 1 5\n2 0 5\n0 2 5\n2 2 5\n3 1 5\n' >"$d/const.xyz"
check_vgm variogram_constant_z 'sample variogram is 0 in every class .*z is constant' -- \
    "$d/const.xyz" --fit Sph
d=$(case_dir variogram_drift)
printf 'x y z\n0 0 1\n1 0 2\n0 1 3\n' >"$d/three.xyz"
check_vgm variogram_drift_too_few 'three\.xyz: trend residuals: 3 points for a trend of 6 terms' -- \
    "$d/three.xyz" --drift quadratic
printf 'x y z\n0 1 1\n1 3 2\n2 5 3\n3 7 1\n4 9 2\n' >"$d/line.xyz"
check_vgm variogram_drift_collinear 'line\.xyz: trend residuals: .*singular: y is a linear combination' -- \
    "$d/line.xyz" --drift linear
check_vgm variogram_drift_raster_missing 'nosuch\.tif: cannot open it as a raster \(.*No such file' -- \
    "$ME" -zfield logzinc --drift-raster "$d/nosuch.tif"
check_vgm variogram_drift_raster_outside 'meuse_dist\.tif has no value at data point 1 .*outside the raster' -- \
    "$DATA/aniso_trend.gpkg" -zfield z --drift-raster "$DATA/meuse_dist.tif"
check_cmd cv_unknown_algorithm 'krigeit' -- cv "$ME" -zfield logzinc -a krigeit
check_cmd cv_bad_nfold 'nfold' -- cv "$ME" -zfield logzinc -a nearest --nfold 1

# ---- silent garbage and unclear messages ---------------------------------------
d=$(case_dir tr_tiny)
check tr_tiny '-tr 1e-300 1e-300 over .* gives 1e\+303 x 1e\+303 pixels' "$d/o.tif" -- \
    -txe 0 1000 -tye 0 1000 -tr 1e-300 1e-300 "$R" "$d/o.tif"
d=$(case_dir huge_coordinates)
printf 'x y z\n1e308 1e308 1\n-1e308 -1e308 2\n0 0 3\n' >"$d/big.xyz"
check huge_coordinates 'extent.*at most 1e\+150' "$d/o.tif" -- -outsize 10 10 "$d/big.xyz" "$d/o.tif"
d=$(case_dir cell_below_precision)
check cell_below_precision 'cell.*ulps' "$d/o.tif" -- -txe 1e15 1.000000000000001e15 -tye 0 1 \
    -outsize 100 10 "$R" "$d/o.tif"
d=$(case_dir decimal_commas)
printf 'x y z\n0,5 0,25 1,5\n1,5 0,75 2,5\n' >"$d/dc.xyz"
check decimal_commas 'dc\.xyz: line 2: .*decimal comma' "$d/o.tif" -- -outsize 4 4 "$d/dc.xyz" "$d/o.tif"
d=$(case_dir decimal_commas_z)
printf '0 0 1,5\n1 1 2,5\n' >"$d/dz.xyz"
check decimal_commas_z 'dz\.xyz: line 1: .*decimal comma' "$d/o.tif" -- -outsize 4 4 "$d/dz.xyz" "$d/o.tif"
# gauss method=ifgt where no plan meets epsilon: an error asking for cutoff
# (was a segfault: the tiles ran without expansions)
d=$(case_dir ifgt_no_plan)
awk 'BEGIN { srand(7); print "x y z"; for (i = 0; i < 5000; i++) printf "%.6f %.6f 1\n", 1000 * rand(), 1000 * rand() }' >"$d/u.xyz"
check ifgt_no_plan 'method=ifgt: no plan meets epsilon=1e-06 .*use method=cutoff' "$d/o.tif" -- \
    -outsize 10 10 -a gauss:bandwidth=1:method=ifgt "$d/u.xyz" "$d/o.tif"
# kernel sizes the arithmetic cannot hold: refused with the range (radius
# 1e-160 gave NaN on a point at a cell centre, 1e154 scaled the raw sum)
d=$(case_dir heatmap_radius_tiny)
check heatmap_radius_tiny 'radius=1e-160 is outside \[1\.49166814624004e-154, 6\.7039039649713e\+153\]' \
    "$d/o.tif" -- "${G[@]}" -a heatmap:radius=1e-160 "$R" "$d/o.tif"
d=$(case_dir gauss_bandwidth_tiny)
check gauss_bandwidth_tiny 'bandwidth=1e-160 is outside \[1\.0547686614863e-154, 4\.74037595405459e\+153\]' \
    "$d/o.tif" -- "${G[@]}" -a gauss:bandwidth=1e-160:normalize=no:method=direct "$R" "$d/o.tif"
for a in invdist invdistnn kriging; do
    d=$(case_dir min_above_max_$a)
    extra=
    [ $a = kriging ] && extra=:model=Sph:psill=1:range=300
    check min_above_max_$a 'min_points=5 is larger than max_points=2' "$d/o.tif" -- "${G[@]}" \
        -a "$a:min_points=5:max_points=2$extra" "$R" "$d/o.tif"
done
d=$(case_dir count_bound)
check count_bound 'max_points=3000000000 must be a whole number from 0 to 1000000000' "$d/o.tif" -- \
    "${G[@]}" -a invdist:max_points=3000000000 "$R" "$d/o.tif"
d=$(case_dir nodata_not_in_type)
check nodata_not_in_type 'nodata=0\.5 .*Int16.*-32768 to 32767' "$d/o.tif" -- "${G[@]}" -ot Int16 \
    -a invdist:nodata=0.5 "$R" "$d/o.tif"
d=$(case_dir nodata_out_of_byte)
check nodata_out_of_byte 'nodata=-1 .*Byte.*0 to 255' "$d/o.tif" -- "${G[@]}" -ot Byte \
    -a invdist:nodata=-1 "$R" "$d/o.tif"
d=$(case_dir drift_raster_missing)
check drift_raster_missing 'nosuch\.tif: cannot open it as a raster \(.*No such file' "$d/o.tif" -- \
    "${MZ[@]}" -a "kriging:type=universal:drift_raster=$d/nosuch.tif:model=Sph:psill=1:range=300" \
    "$ME" "$d/o.tif"
d=$(case_dir grid_auto_one_point)
printf 'x y z\n0 0 1\n' >"$d/one.xyz"
# was "model=auto: model=auto: eeds at least 2 points, got 1", without the input
check grid_auto_one_point 'one\.xyz, layer "one": model=auto: variogram: needs at least 2 points, got 1$' \
    "$d/o.tif" -- -txe 0 1 -tye 0 1 -outsize 2 2 -a kriging:model=auto "$d/one.xyz" "$d/o.tif"
d=$(case_dir cv_one_point)
printf 'x y z\n0 0 1\n' >"$d/one.xyz"
check_cmd cv_one_point 'one\.xyz: cross-validation needs at least 2 points, got 1' -- cv "$d/one.xyz" -a nearest
printf 'x y z\n0 0 1\n5 5 2\n' >"$d/two.xyz"
# was "model=auto: model=auto: eeds at least 2 points"
check_cmd cv_auto_two_points 'two\.xyz: cross-validation fold 1 of 2 \(fitted on the other 1 point\(s\)\): model=auto: variogram: needs at least 2 points, got 1$' -- \
    cv "$d/two.xyz" -a kriging:model=auto
printf 'x y z\n0 0 1\n0 0 1\n5 5 2\n5 5 2\n0 5 3\n0 5 3\n' >"$d/dup.xyz"
check_cmd cv_all_singular 'dup\.xyz: none of the 6 points got a prediction' -- \
    cv "$d/dup.xyz" -a kriging:model=Sph:psill=1:range=10

# a -zfield of words: an error naming the field, the feature and the text (was: a raster of
# zeros, exit 0), through the GeoPackage's fast path and OGR's (-where), and for cv and variogram
MW=(-zfield landuse -txe 178440 181560 -tye 329600 333760 -outsize 20 20)
d=$(case_dir zfield_words)
check zfield_words '-zfield "landuse" of layer "meuse" .*feature 1 has "Ah", which is not a number' \
    "$d/o.tif" -- "${MW[@]}" -a invdist "$ME" "$d/o.tif"
check zfield_words_where 'feature 1 has "Ah", which is not a number' "$d/o.tif" -- "${MW[@]}" \
    -where 'fid > 0' -a invdist "$ME" "$d/o.tif"
check_cmd cv_zfield_words 'landuse.*"Ah", which is not a number' -- cv "$ME" -zfield landuse \
    -a nearest
check_cmd vgm_zfield_words 'landuse.*"Ah", which is not a number' -- variogram "$ME" \
    -zfield landuse
# a plain x,y,z CSV: X and Y found (no -oo), Z not guessed: the error says -zfield NAME
# (was: "no usable point: 5 feature(s) read, 0 ... outside, 0 without finite X, Y and Z")
d=$(case_dir csv_xyz_no_zfield)
printf 'x,y,z\n0,0,1\n1,0,2\n0,1,3\n1,1,4\n0.5,0.5,5\n' >"$d/p.csv"
check csv_xyz_no_zfield 'layer "p" has 2-D geometries and no -zfield: give -zfield NAME.*z looks like one' \
    "$d/o.tif" -- -outsize 4 4 -a invdist "$d/p.csv" "$d/o.tif"
# no coordinate columns: the error names the fields and the open options
printf 'a,b,c\n0,0,1\n1,0,2\n' >"$d/q.csv"
check csv_no_geometry 'layer "q" of .*q\.csv has no geometry \(fields: "a", "b", "c"\): .*-oo X_POSSIBLE_NAMES=COLUMN -oo Y_POSSIBLE_NAMES=COLUMN' \
    "$d/o.tif" -- -outsize 4 4 -zfield c -a invdist "$d/q.csv" "$d/o.tif"

# --parts: the destination must be the mosaic (.vrt), the format GeoTIFF parts,
# the directory a directory; nothing written in any case
d=$(case_dir parts)
check parts_not_vrt 'the destination .*o\.tif must be a \.vrt' "$d/o.tif" -- "${G[@]}" \
    --parts "$d/p" -a count:radius=100 "$R" "$d/o.tif"
check parts_format '--parts writes GeoTIFF parts and a VRT: -of HFA' "$d/o.vrt" -- "${G[@]}" \
    -of HFA --parts "$d/p" -a count:radius=100 "$R" "$d/o.vrt"
touch "$d/afile"
check parts_dir_is_file '--parts .*afile: not a directory' "$d/o.vrt" -- "${G[@]}" \
    --parts "$d/afile" -a count:radius=100 "$R" "$d/o.vrt"
[ -z "$(ls "$d/afile/" 2>/dev/null)" ] && [ ! -d "$d/p" ] || report parts_nothing_written "parts written"

# --threads: every command quotes the limit it enforces, 64 threads per CPU.
# On one CPU (taskset) 64 runs and 65 is refused, and 0, -1, a count past
# 2^63 and a word quote that same 64 (0, -1 and 99999999999 once quoted
# 2147483647, the int range, while 65 was refused).
if command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null; then
    d=$(case_dir threads)
    for cmd in grid variogram cv ridges; do
        case $cmd in
        grid) rest=(-q -zfield logzinc -outsize 8 8 "$ME" "$d/o.tif") ;;
        variogram) rest=("$ME" -zfield logzinc) ;;
        cv) rest=(-a nearest -zfield logzinc "$ME") ;;
        ridges) rest=(-q -a curve:r1=300 "$ME" "$d/r.gpkg") ;;
        esac
        for t in 0 -1 65 99999999999999999999 abc; do
            name=threads_${cmd}_$t
            case $t in
            0 | -1) kw="--threads $t: the thread count must be from 1 to 64 here \(64 per CPU, 1 CPU," ;;
            abc) kw="--threads: 'abc' is not a whole number: give from 1 to 64 here \(64 per CPU, 1 CPU," ;;
            *) kw="--threads $t: too many threads; at most 64 here \(64 per CPU, 1 CPU," ;;
            esac
            timeout 60 taskset -c 0 "$GK" $cmd --threads "$t" "${rest[@]}" >"$WORK/$name.out" 2>"$WORK/$name.err"
            rc=$?
            p=()
            [ $rc -ne 0 ] || p+=("exit status 0")
            [ $rc -lt 124 ] || p+=("crashed or hung (rc $rc)")
            grep -qE -- "$kw" "$WORK/$name.err" || p+=("stderr does not match /$kw/")
            [ ! -e "$d/o.tif" ] && [ ! -e "$d/r.gpkg" ] || p+=("output written")
            report "$name" "${p[@]}"
        done
        name=threads_${cmd}_64
        timeout 60 taskset -c 0 "$GK" $cmd --threads 64 "${rest[@]}" >"$WORK/$name.out" 2>"$WORK/$name.err"
        rc=$?
        if [ $rc -eq 0 ]; then report "$name"; else report "$name" "the limit itself refused (rc $rc)"; fi
        rm -f "$d/o.tif" "$d/r.gpkg"
    done
else
    echo "SKIP threads_*: taskset cannot pin this process to one CPU"
fi

# ---- the command line: no command, --version, --help, an unknown command -------
# check_ok NAME REGEX... -- gridkit arguments: exit 0, and every REGEX on stdout
check_ok() {
    local name=$1
    shift
    local res=()
    while [ "$1" != -- ]; do
        res+=("$1")
        shift
    done
    shift
    timeout 60 "$GK" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
    local rc=$? p=() re
    [ $rc -eq 0 ] || p+=("exit status $rc")
    for re in "${res[@]}"; do
        grep -qE -- "$re" "$WORK/$name.out" || p+=("stdout does not match /$re/")
    done
    report "$name" "${p[@]}"
}
VERSION_RE='^gridkit [0-9]+\.[0-9]+\.[0-9]+ \(GDAL [0-9]+\.[0-9]+[^)]*\)$'
check_cmd main_no_command '^  gridkit grid \[gdal_grid arguments\] SRC DST +grid points into a raster$' --
check_cmd main_unknown_command "^gridkit: unknown command 'frobnicate'$" -- frobnicate
check_ok main_version "$VERSION_RE" -- --version
# --version is gridkit's own flag wherever it stands (GDAL's option pass would take it)
check_ok main_version_after_command "$VERSION_RE" -- grid --version
check_ok main_help '^Commands:$' '^Usage: gridkit grid \[-ot type\]' -- --help
check_ok main_help_short '^Commands:$' -- -h
# GDAL's generic options: an incomplete one is GDAL's error, --help-general GDAL's help
check_cmd main_config_no_value '--config option given without a key( and |=)value' -- --config
check_ok main_help_general '--config' -- --help-general
check_ok variogram_help '^Usage: gridkit variogram SRC ' '^  --fit-best MODEL' -- variogram "$ME" --help
check_ok cv_help '^Usage: gridkit cv SRC -a algorithm' -- cv -h
check_ok ridges_help '^Usage: gridkit ridges SRC DST -a METHOD' -- ridges --help
check_cmd variogram_no_args '^Usage: gridkit variogram SRC ' -- variogram

# ---- variogram: its own options, each refused with what is wrong ----------------
check_cmd variogram_source_option_no_value '^gridkit variogram: error: -zfield needs 1 value$' -- \
    variogram "$ME" -zfield
check_cmd variogram_own_option_no_value '^gridkit variogram: error: --cutoff needs a value$' -- \
    variogram "$ME" -zfield logzinc --cutoff
check_vgm variogram_fit_kappa_eq_empty '--fit-kappa=: the kappa list is empty' -- \
    "$ME" -zfield logzinc --fit Nug,Mat --fit-kappa=
check_vgm variogram_cutoff_zero '--cutoff must be positive, not 0$' -- "$ME" -zfield logzinc --cutoff 0
check_vgm variogram_cutoff_empty '--cutoff: missing number' -- "$ME" -zfield logzinc --cutoff ''
check_vgm variogram_width_negative '--width must be positive, not -5$' -- "$ME" -zfield logzinc --width -5
check_vgm variogram_estimator "--estimator: 'median' is not matheron or cressie" -- \
    "$ME" -zfield logzinc --estimator median
check_vgm variogram_direction_text "--direction: 'abc' is not a number" -- \
    "$ME" -zfield logzinc --direction 0,abc
# (was "too many or too long values": now the limit and the count)
check_vgm variogram_direction_many "--direction: at most 16 values, not 17, in '0,1,2" -- \
    "$ME" -zfield logzinc --direction 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16
check_vgm variogram_direction_long "--direction: '0{20}\.\.\.' is too long for a number" -- \
    "$ME" -zfield logzinc --direction "0,$(printf '0%.0s' {1..70})"
check_vgm variogram_tolerance '--tolerance must be in \(0, 180\], not 200$' -- \
    "$ME" -zfield logzinc --tolerance 200
check_vgm variogram_bandwidth_zero '--bandwidth must be positive, not 0$' -- \
    "$ME" -zfield logzinc --bandwidth 0
check_vgm variogram_fit_method '--fit-method must be 1, 2, 6 or 7, not 3$' -- \
    "$ME" -zfield logzinc --fit Sph --fit-method 3
check_vgm variogram_format "--format: 'xml' is not table, csv or json" -- \
    "$ME" -zfield logzinc --format xml
check_vgm variogram_plot_extension '--plot .*/v\.jpg: the file name must end in \.png or \.svg' -- \
    "$ME" -zfield logzinc --plot "$WORK/v.jpg"
check_vgm variogram_drift_raster_five '--drift-raster: at most 4 rasters' -- "$ME" -zfield logzinc \
    --drift-raster a.tif --drift-raster b.tif --drift-raster c.tif --drift-raster d.tif --drift-raster e.tif
check_vgm variogram_drift_resample "--drift-resample: 'cubic' is not nearest or bilinear" -- \
    "$ME" -zfield logzinc --drift-resample cubic
check_vgm variogram_fit_and_fit_best 'give either --fit or --fit-best, not both' -- \
    "$ME" -zfield logzinc --fit Sph --fit-best Exp,Sph
check_vgm variogram_fit_and_model 'give either --fit, --fit-best or --model, not two of them' -- \
    "$ME" -zfield logzinc --fit Sph --model "$WORK/any.json"
check_vgm variogram_psill_without_fit '--nugget, --psill, --range, --kappa and --anis need --fit MODEL or --fit-best LIST' -- \
    "$ME" -zfield logzinc --psill 1
check_vgm variogram_fit_kappa_no_fit '--fit-kappa fits; it cannot go with --no-fit' -- \
    "$ME" -zfield logzinc --fit Mat --psill 1 --range 500 --fit-kappa --no-fit
check_vgm variogram_two_sources "unexpected argument '.*random_500\.gpkg' \(one source only; try --help\)" -- \
    "$ME" "$R" -zfield logzinc
check_vgm variogram_two_layers 'multi\.gpkg: 2 layers selected; choose one with -l' -- \
    "$M" -l pts_a -l pts_b
check_vgm variogram_num_threads_config 'GDAL_NUM_THREADS=99999999999999999999: too many threads; at most [0-9]+ here' -- \
    "$ME" -zfield logzinc --config GDAL_NUM_THREADS 99999999999999999999
# the fit's structures: a list past 255 characters, a nugget with no room left (8 structures)
check_vgm variogram_fit_list_long '--fit: model list too long' -- \
    "$ME" -zfield logzinc --fit "$(printf 'Sph,%.0s' {1..64})Sph"
check_vgm variogram_nugget_no_room '--fit: at most 8 structures' -- \
    "$ME" -zfield logzinc --fit Sph,Exp,Gau,Sph,Exp,Gau,Sph,Exp --nugget 0.1
if [ -w /dev/full ]; then
    name=variogram_stdout_full
    timeout 60 "$GK" variogram "$ME" -zfield logzinc -q >/dev/full 2>"$WORK/$name.err"
    rc=$?
    p=()
    [ $rc -ne 0 ] || p+=("exit status 0")
    [ $rc -lt 124 ] || p+=("crashed or hung (rc $rc)")
    grep -qx 'gridkit variogram: error: cannot write to standard output' "$WORK/$name.err" ||
        p+=("stderr does not say the table could not be written")
    report "$name" "${p[@]}"
fi

# ---- variogram: what it prints for the fits it was asked for -------------------
# --no-fit: the model as given; --nugget puts a Nug structure first (as gstat's
# vgm(..., nugget)); a number may end in blanks
check_ok variogram_no_fit_model '^# model \(not fitted\)$' '^  Nug +0\.05 +0 +0\.5 +0 +1$' \
    '^  Mat +0\.6 +300 +1\.5 +45 +0\.5$' -- variogram "$ME" -zfield logzinc -q --fit Mat \
    --nugget 0.05 --psill '0.6 ' --range 300 --kappa 1.5 --anis 45,0.5 --no-fit
awk '/^  Nug /{n=NR} /^  Mat /{m=NR} END{exit !(n && m && n < m)}' "$WORK/variogram_no_fit_model.out" ||
    report variogram_no_fit_nugget_first "the Nug row does not come before the Mat row"
# --fit-best: every candidate's SSErr, the kept one marked; Pow's start range (the
# exponent) is past 2, so it cannot be fitted; Mat with kappa 0.5 is Exp (same SSErr)
check_ok variogram_fit_best_table '^# kept the smallest SSErr of 4 candidates:$' \
    '^#   Nug\+Sph +SSErr [0-9.e+-]+  \(kept\)$' '^#   Nug\+Pow +could not be fitted$' -- \
    variogram "$ME" -zfield logzinc -q --fit-best Exp,Sph,Mat,Pow
awk '$2 == "Nug+Exp" {e = $4} $2 == "Nug+Mat" {m = $4} END {exit !(e != "" && e == m)}' \
    "$WORK/variogram_fit_best_table.out" ||
    report variogram_fit_best_mat_is_exp "SSErr of Nug+Mat (kappa 0.5) differs from Nug+Exp's"
# --fit-best with --nugget and --kappa: every candidate starts from them (kappa is not fitted)
check_ok variogram_fit_best_kappa '"name":"Nug\+Mat"' '"kappa":1\.5,?$' -- \
    variogram "$ME" -zfield logzinc -q --fit-best Exp,Mat --nugget 0.05 --kappa 1.5 -of json
# --fit-kappa: the kappa kept is one of those tried, and the model's
check_ok variogram_fit_kappa_table '^# kappa (0\.5|1|2): the smallest SSErr of 3 values tried$' -- \
    variogram "$ME" -zfield logzinc -q --fit Nug,Mat --fit-kappa 0.5,1,2
awk '/^# kappa /{k = $3 + 0} /^  Mat /{m = $4 + 0} END {exit !(k && k == m)}' \
    "$WORK/variogram_fit_kappa_table.out" ||
    report variogram_fit_kappa_kept "the kappa line and the Mat row's kappa differ"
# the last --estimator given is the one used
check_ok variogram_estimator_last '^# 155 points, cutoff [0-9.]+, width [0-9.]+, Matheron estimator$' -- \
    variogram "$ME" -zfield logzinc -q --estimator cressie --estimator matheron
# the trend's terms, as gstat's formula lists them; --drift none undoes --drift
check_ok variogram_trend_linear '^# residuals of the ordinary least-squares trend z ~ 1 \+ x \+ y$' -- \
    variogram "$ME" -zfield logzinc -q --drift linear
check_ok variogram_trend_quadratic_raster \
    '^# residuals of the ordinary least-squares trend z ~ 1 \+ x \+ y \+ x\^2 \+ x\*y \+ y\^2 \+ .*/meuse_dist\.tif$' -- \
    variogram "$ME" -zfield logzinc -q --drift quadratic --drift-raster "$DATA/meuse_dist.tif"
check_ok variogram_trend_raster_only '^# residuals of the ordinary least-squares trend z ~ 1 \+ .*/meuse_dist\.tif$' -- \
    variogram "$ME" -zfield logzinc -q --drift linear --drift none --drift-raster "$DATA/meuse_dist.tif"
# a model file's anisotropy read and written back
d=$(case_dir variogram_model_files)
printf '{"model": [{"model": "Nug", "psill": 0.05}, {"model": "Sph", "psill": 0.6, "range": 900, "anis": [30, 0.5]}]}' >"$d/anis.json"
check_ok variogram_model_anis '"model":"Sph"' -- variogram "$ME" -zfield logzinc -q --model "$d/anis.json" \
    --no-fit -of json
tr -d ' \n' <"$WORK/variogram_model_anis.out" | grep -q '"model":"Sph","psill":[0-9.]*,"range":900,"anis":\[30,0.5\]' ||
    report variogram_model_anis_kept "the Sph structure's anis [30, 0.5] is not in the JSON"

# ---- variogram --model FILE: every defect of the file named ------------------------
model_file() { # name, JSON text, regex
    printf '%s' "$2" >"$d/$1.json"
    check_vgm "variogram_model_$1" "$d/$1\\.json: $3" -- "$ME" -zfield logzinc --model "$d/$1.json"
}
S='{"model": "Sph", "psill": 1, "range": 2}'
model_file no_model '{"fit": {}}' 'no "model" in the variogram file'
model_file model_not_array '{"model": {"model": "Sph"}}' '"model" must be an array of structures'
model_file empty '[]' 'the model has no structure$'
model_file nine "[$S,$S,$S,$S,$S,$S,$S,$S,$S]" 'the model has 9 structures \(at most 8\)'
model_file entry_number "[$S, 1]" 'model entry 2 is not an object'
model_file no_name '[{"psill": 1, "range": 2}]' 'model entry 1 has no "model" name'
model_file unknown_name '[{"model": "Foo", "psill": 1, "range": 2}]' "model entry 1: unknown variogram model 'Foo'"
model_file psill_text '[{"model": "Sph", "psill": "abc", "range": 2}]' 'model entry 1: "psill" is not a number'
model_file no_psill '[{"model": "Sph", "range": 2}]' 'model entry 1 \(Sph\) has no "psill"'
model_file no_range '[{"model": "Nug", "psill": 0.1}, {"model": "Sph", "psill": 1}]' 'model entry 2 \(Sph\) has no "range"'
model_file anis_three '[{"model": "Sph", "psill": 1, "range": 2, "anis": [1, 0.5, 3]}]' 'model entry 1: "anis" must be \[angle, ratio\]'
model_file anis_text '[{"model": "Sph", "psill": 1, "range": 2, "anis": [30, "x"]}]' 'model entry 1: "anis" must hold two numbers'
model_file range_negative '[{"model": "Sph", "psill": 1, "range": -2}]' 'variogram structure 1 \(Sph\): range -2 must be positive'
model_file range_zero '[{"model": "Exp", "psill": 1, "range": 0}]' 'variogram structure 1 \(Exp\): range 0 must be positive'
model_file lin_range_negative '[{"model": "Lin", "psill": 1, "range": -1}]' 'variogram structure 1 \(Lin\): range -1 must be >= 0'

# ---- variogram plots: directions, models, tiny and empty variograms --------------
png_ok() { # FILE: a PNG of 880 x 600 pixels (signature and IHDR)
    [ "$(od -A n -t x1 -N 24 "$1" 2>/dev/null | tr -d ' \n')" = \
        89504e470d0a1a0a0000000d494844520000037000000258 ]
}
d=$(case_dir variogram_plots)
# three directions with an anisotropic nested model (above the sample: psill 2):
# a curve in each direction's colour, each direction's points and legend dot in
# its colour (Okabe-Ito 1-3), not a fourth; .SVG in capitals is SVG
check_ok variogram_plot_directions '^  Mat +2 +300 +1\.5 +45 +0\.5$' -- variogram "$ME" -zfield logzinc -q \
    --fit Nug,Mat --nugget 0.05 --psill 2 --range 300 --kappa 1.5 --anis 45,0.5 --no-fit \
    --direction 0,45,90 --plot "$d/dir.SVG"
p=()
grep -q '<svg .*width="880pt" height="600pt"' "$d/dir.SVG" 2>/dev/null || p+=("no 880x600 SVG")
[ "$(grep -o 'stroke-opacity:0.85' "$d/dir.SVG" 2>/dev/null | wc -l)" -eq 3 ] ||
    p+=("not 3 model curves (one per direction)")
for c in '0%,44.7%,69.8%' '83.5%,36.9%,0%' '0%,62%,45.1%'; do
    grep -q "fill:rgb($c)" "$d/dir.SVG" 2>/dev/null || p+=("no point in rgb($c)")
done
! grep -q 'rgb(80%,47.5%,65.5%)' "$d/dir.SVG" 2>/dev/null || p+=("a fourth direction's colour")
[ ${#p[@]} -eq 0 ] || report variogram_plot_directions_svg "${p[@]}"
# z scaled by 1e-6: gamma by 1e-12, axis labels at their finest
check_ok variogram_plot_tiny_gamma '^ +57 +79\.29[0-9]* +1\.234479[0-9]*e-13$' -- variogram "$ME" \
    -zfield logzinc -z_multiply 1e-6 -q --plot "$d/tiny.png"
png_ok "$d/tiny.png" || report variogram_plot_tiny_gamma_png "$d/tiny.png is not an 880x600 PNG"
# constant z, one class of pairs among empty ones: gamma 0 everywhere, still a chart
printf 'x y z\n0 0 5\n1 0 5\n10 0 5\n11 0 5\n' >"$d/gap.xyz"
check_ok variogram_plot_flat '^ +2 +1 +0$' -- variogram "$d/gap.xyz" -q --plot "$d/gap.png"
png_ok "$d/gap.png" || report variogram_plot_flat_png "$d/gap.png is not an 880x600 PNG"

# ---- drift rasters: each raster that cannot give a value at a point, named --------
d=$(case_dir drift_rasters)
cat >"$d/nogt.vrt" <<'EOF'
<VRTDataset rasterXSize="10" rasterYSize="10">
  <VRTRasterBand dataType="Float32" band="1"/>
</VRTDataset>
EOF
check_vgm variogram_drift_raster_no_geotransform 'nogt\.vrt has no \(invertible\) geotransform: it cannot be sampled at the points' -- \
    "$ME" -zfield logzinc --drift-raster "$d/nogt.vrt"
# a source that is gone: opens (its size is in the VRT), fails when read; the
# second one too large for one window (5000 x 5000 pixels: read point by point)
for n in 104 5000; do
    cat >"$d/gone$n.vrt" <<EOF
<VRTDataset rasterXSize="$n" rasterYSize="$n">
  <GeoTransform>0, 1, 0, $n, 0, -1</GeoTransform>
  <VRTRasterBand dataType="Float32" band="1">
    <SimpleSource>
      <SourceFilename relativeToVRT="1">gone.tif</SourceFilename>
      <SourceBand>1</SourceBand>
      <SourceProperties RasterXSize="$n" RasterYSize="$n" DataType="Float32" BlockXSize="$n" BlockYSize="1"/>
    </SimpleSource>
  </VRTRasterBand>
</VRTDataset>
EOF
    printf 'x y z\n0.5 0.5 1\n%s %s 2\n50 20 3\n' "$((n - 1)).5" "$((n - 1)).5" >"$d/corners$n.xyz"
    check_vgm variogram_drift_raster_read_error_$n "drift_raster=.*gone$n\\.vrt: read error \\(.*gone\\.tif: No such file" -- \
        "$d/corners$n.xyz" --drift-raster "$d/gone$n.vrt"
done
# an Esri ASCII grid, 4 x 4 cells of 1 over [0, 4]^2, value col + 10 * row (row 0 at the top)
printf 'ncols 4\nnrows 4\nxllcorner 0\nyllcorner 0\ncellsize 1\nNODATA_value -9999\n0 1 2 3\n10 11 12 13\n20 21 22 23\n30 31 32 33\n' >"$d/cov.asc"
printf 'x y z\n1 1 1\n2 3 2\n5 1 3\n3 2 4\n' >"$d/part.xyz"
check_vgm variogram_drift_raster_partly_outside 'cov\.asc has no value at data point 3 \(5, 1\): it is outside the raster' -- \
    "$d/part.xyz" --drift-raster "$d/cov.asc"
# bilinear: z = 2 * (the raster interpolated, clamped at its edges) + 1 exactly, at
# points near all four edges and inside, so the trend z ~ 1 + raster leaves residuals of
# rounding only; sampled nearest, the same points leave real residuals
awk 'function c(v) { return v < 0 ? 0 : v > 3 ? 3 : v }
     BEGIN { print "x y z"
             n = split("0.2,2 3.8,2 2,3.8 2,0.2 1.2,1.7 2.6,2.9 0.9,0.6 3.1,3.3 0.3,0.1 3.7,3.9", P, " ")
             for (i = 1; i <= n; i++) { split(P[i], q, ",")
                 printf "%s %s %.17g\n", q[1], q[2], 2 * (c(q[1] - 0.5) + 10 * c(3.5 - q[2])) + 1 } }' >"$d/bil.xyz"
check_ok variogram_drift_bilinear '^np,dist,gamma$' -- variogram "$d/bil.xyz" -q -of csv \
    --drift-raster "$d/cov.asc" --drift-resample bilinear
awk -F, 'NR > 1 && $1 > 0 { n++; if ($3 > m) m = $3 } END { exit !(n >= 5 && m < 1e-20) }' \
    "$WORK/variogram_drift_bilinear.out" ||
    report variogram_drift_bilinear_exact "residuals of an exact bilinear trend are not ~0"
check_ok variogram_drift_nearest '^np,dist,gamma$' -- variogram "$d/bil.xyz" -q -of csv \
    --drift-raster "$d/cov.asc" --drift-resample nearest
awk -F, 'NR > 1 && $1 > 0 && $3 > m { m = $3 } END { exit !(m > 0.1) }' "$WORK/variogram_drift_nearest.out" ||
    report variogram_drift_nearest_differs "nearest sampling fits the bilinear trend exactly"
# a container of several rasters (a GeoPackage of two tile tables): no band of its own;
# the message names one of them (it said "has no band")
if command -v gdal_translate >/dev/null &&
    gdal_translate -q -of GPKG -ot Byte -scale -co RASTER_TABLE=a "$DATA/meuse_dist.tif" "$d/two.gpkg" 2>/dev/null &&
    gdal_translate -q -of GPKG -ot Byte -scale -co APPEND_SUBDATASET=YES -co RASTER_TABLE=b \
        "$DATA/meuse_dist.tif" "$d/two.gpkg" 2>/dev/null; then
    check_vgm variogram_drift_raster_container 'two\.gpkg has no band of its own: it holds several rasters; give one of them, e\.g\. GPKG:.*two\.gpkg:a' -- \
        "$ME" -zfield logzinc --drift-raster "$d/two.gpkg"
else
    echo "SKIP variogram_drift_raster_container (gdal_translate cannot write a GeoPackage raster)"
fi

# ---- cv: its own options -----------------------------------------------------------
# check_cv NAME REGEX -- cv arguments: as check_cmd, and -o FILE neither written nor
# left as a temporary
check_cv() {
    local name=$1 kw=$2
    shift 3
    local dir
    dir=$(case_dir "cv_$name")
    timeout 60 "$GK" cv -q "$@" -o "$dir/r.gpkg" >"$WORK/$name.out" 2>"$WORK/$name.err"
    local rc=$? p=()
    [ $rc -ne 0 ] || p+=("exit status 0")
    [ $rc -lt 124 ] || p+=("crashed or hung (rc $rc)")
    grep -qiE -- "$kw" "$WORK/$name.err" || p+=("stderr does not match /$kw/")
    [ -z "$(ls -A "$dir")" ] || p+=("left in $dir: $(ls -A "$dir" | tr '\n' ' ')")
    report "$name" "${p[@]}"
}
check_cmd cv_nfold_no_value '--nfold needs an argument \(try --help\)' -- cv "$ME" -zfield logzinc -a nearest --nfold
check_cv cv_seed_negative '--seed: -1 must be between 0 and 4294967295' -- "$ME" -zfield logzinc -a nearest --seed -1
check_cv cv_seed_text "--seed: 'x' is not a whole number" -- "$ME" -zfield logzinc -a nearest --seed x
check_cv cv_format_yaml "--format: 'yaml' is not text or json" -- "$ME" -zfield logzinc -a nearest --format yaml
check_cv cv_output_twice '-o given twice' -- "$ME" -zfield logzinc -a nearest -o "$WORK/cv_first.gpkg"
[ ! -e "$WORK/cv_first.gpkg" ] || report cv_output_twice_first "the first -o was written"
check_cv cv_bad_srs "-a_srs: cannot understand 'NOTASRS'" -- "$ME" -zfield logzinc -a nearest -a_srs NOTASRS
check_cv cv_device_bad "--device: 'cuda:x' is not auto, cpu, cuda or cuda:N" -- \
    "$ME" -zfield logzinc -a nearest --device cuda:x
d=$(case_dir cv_model_file)
printf '[{"model": "Pow", "psill": 0.01, "range": 1}]' >"$d/pow.json"
check_cv cv_simple_unbounded_model_file 'simple kriging needs a bounded model' -- \
    "$ME" -zfield logzinc -a "kriging:type=simple:mean=5:variogram=$d/pow.json"
if [ -w /dev/full ]; then
    name=cv_stdout_full
    timeout 60 "$GK" cv "$ME" -zfield logzinc -a nearest -q >/dev/full 2>"$WORK/$name.err"
    rc=$?
    p=()
    [ $rc -ne 0 ] || p+=("exit status 0")
    grep -qx 'gridkit cv: error: writing the summary failed: No space left on device' "$WORK/$name.err" ||
        p+=("stderr does not say the summary could not be written")
    report "$name" "${p[@]}"
fi
check_ok cv_format_text '^algorithm +nearest:' '^n +155 \(of 155 points\)$' '^nfold +155 \(leave-one-out\)$' -- \
    cv "$ME" -zfield logzinc -a nearest -q --format text
# -a_srs: the residuals' layer gets that CRS (a shapefile's .prj), not the source's
d=$(case_dir cv_a_srs)
check_ok cv_a_srs '^n +155 ' -- cv "$ME" -zfield logzinc -a nearest -q -a_srs EPSG:32631 -o "$d/r.shp"
grep -q 'UTM_Zone_31N' "$d/r.prj" 2>/dev/null || report cv_a_srs_prj "$d/r.prj does not hold UTM zone 31N"
# several layers: a warning, and the first one cross-validated (the same summary as -l pts_a)
name=cv_two_layers
timeout 60 "$GK" cv "$M" -l pts_a -l pts_b -a nearest >"$WORK/$name.out" 2>"$WORK/$name.err"
rc=$?
timeout 60 "$GK" cv "$M" -l pts_a -a nearest -q >"$WORK/${name}_first.out" 2>/dev/null
p=()
[ $rc -eq 0 ] || p+=("exit status $rc")
grep -q '^gridkit cv: warning: 2 layers read, cross-validating the first (pts_a)$' "$WORK/$name.err" ||
    p+=("no warning naming the layer")
[ -s "$WORK/$name.out" ] && cmp -s "$WORK/$name.out" "$WORK/${name}_first.out" ||
    p+=("summary differs from -l pts_a alone")
report "$name" "${p[@]}"

# ---- grid: options refused, and options that must not change the raster ----------
d=$(case_dir grid_options)
check grid_z_increase_text "-z_increase: 'abc' is not a number" "$d/o.tif" -- "${G[@]}" -z_increase abc "$R" "$d/o.tif"
check grid_z_multiply_overflow "-z_multiply: '1e999' is not a number" "$d/o.tif" -- "${G[@]}" -z_multiply 1e999 "$R" "$d/o.tif"
check grid_spat_text "-spat: 'abc' is not a number" "$d/o.tif" -- "${G[@]}" -spat 0 0 abc 10 "$R" "$d/o.tif"
check grid_spat_reversed '-spat: xmin ymin xmax ymax must have xmin < xmax and ymin < ymax' "$d/o.tif" -- \
    "${G[@]}" -spat 10 0 5 10 "$R" "$d/o.tif"
check grid_txe_text "-txe: 'abc' is not a number" "$d/o.tif" -- -txe 0 abc -tye 0 1000 -outsize 20 20 "$R" "$d/o.tif"
check grid_txe_equal '-txe 5 5: the two edges must differ' "$d/o.tif" -- -txe 5 5 -tye 0 1000 -outsize 20 20 "$R" "$d/o.tif"
check grid_tr_text "-tr: 'x' is not a number" "$d/o.tif" -- -txe 0 1000 -tye 0 1000 -tr 10 x "$R" "$d/o.tif"
check grid_precision_half "--precision: 'half' is not single or double" "$d/o.tif" -- "${G[@]}" --precision half "$R" "$d/o.tif"
check grid_unknown_option "Unknown option name '--bogus' \(try --help\)" "$d/o.tif" -- "${G[@]}" --bogus "$R" "$d/o.tif"
check grid_option_no_value '-zfield needs 1 argument \(try --help\)' "$d/o.tif" -- "${G[@]}" "$R" "$d/o.tif" -zfield
# an option without its value(s), last on the line: named with the count it needs
for opt in -co -z_increase -z_multiply -clipsrc --parts --threads --device --precision \
    "-outsize 5" "-tr 1" "-txe 0" "-spat 0 0 1"; do
    set -- $opt
    n=$(($# == 1 ? 1 : $# == 2 ? 2 : 4))
    [ $n = 1 ] && want="$1 needs 1 argument \(try --help\)" || want="$1 needs $n arguments \(try --help\)"
    check "grid_no_value_${1//-/}" "$want" "$d/o.tif" -- "${G[@]}" "$R" "$d/o.tif" $opt
done
set --
# options kept once: given twice, refused by name
check grid_zfield_twice '-zfield given twice' "$d/o.tif" -- "${G[@]}" -zfield a -zfield b "$R" "$d/o.tif"
check grid_clipsrc_twice '-clipsrc given twice' "$d/o.tif" -- "${G[@]}" -clipsrc 0 0 1 1 -clipsrc x "$R" "$d/o.tif"
check grid_parts_twice '--parts given twice' "$d/o.vrt" -- "${G[@]}" --parts "$d/p" --parts "$d/q" "$R" "$d/o.vrt"
check grid_device_twice '--device given twice' "$d/o.tif" -- "${G[@]}" --device cpu --device cpu "$R" "$d/o.tif"
# values refused: y range empty, a second value not a number, a resolution <= 0,
# -tr with one edge only
check grid_spat_y_empty '-spat: xmin ymin xmax ymax must have xmin < xmax and ymin < ymax' "$d/o.tif" -- \
    "${G[@]}" -spat 0 5 1 5 "$R" "$d/o.tif"
check grid_outsize_y_text "-outsize: 'x' is not a whole number" "$d/o.tif" -- -txe 0 1000 -tye 0 1000 \
    -outsize 5 x "$R" "$d/o.tif"
check grid_tr_x_text "-tr: 'x' is not a number" "$d/o.tif" -- -txe 0 1000 -tye 0 1000 -tr x 1 "$R" "$d/o.tif"
check grid_tr_y_negative '-tr: both resolutions must be > 0' "$d/o.tif" -- -txe 0 1000 -tye 0 1000 \
    -tr 1 -1 "$R" "$d/o.tif"
check grid_tr_one_edge '-tr needs the extent too: give -txe and -tye' "$d/o.tif" -- -txe 0 1000 \
    -tr 10 10 "$R" "$d/o.tif"
check grid_clipsrcsql_bad '-clipsrcsql on .*random_500\.gpkg failed: .*SELEC' "$d/o.tif" -- "${G[@]}" \
    -clipsrc "$R" -clipsrcsql 'SELEC bogus' "$R" "$d/o.tif"
check grid_num_threads_config 'GDAL_NUM_THREADS=99999999999999999999: too many threads; at most [0-9]+ here' "$d/o.tif" -- \
    --config GDAL_NUM_THREADS 99999999999999999999 "${G[@]}" "$R" "$d/o.tif"
# same_grid NAME REFERENCE OUTPUT -- gridkit grid arguments: exit 0 and REFERENCE's bytes
same_grid() {
    local name=$1 ref=$2 out=$3
    shift 4
    timeout 60 "$GK" grid -q "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
    local rc=$? p=()
    [ $rc -eq 0 ] || p+=("exit status $rc")
    cmp -s "$ref" "$out" || p+=("$out is not $ref byte for byte")
    report "$name" "${p[@]}"
}
: >"$WORK/grid_reference.err"
if "$GK" grid -q "${G[@]}" -of XYZ "$R" "$d/ref.xyz" 2>"$WORK/grid_reference.err"; then
    same_grid grid_threads_all_cpus "$d/ref.xyz" "$d/all.xyz" -- "${G[@]}" -of XYZ --threads ALL_CPUS "$R" "$d/all.xyz"
    # -quiet and --quiet are -q's other names: the same raster
    same_grid grid_quiet_names "$d/ref.xyz" "$d/quiet.xyz" -- "${G[@]}" -of XYZ -quiet --quiet "$R" "$d/quiet.xyz"
    same_grid grid_precision_double "$d/ref.xyz" "$d/double.xyz" -- "${G[@]}" -of XYZ --precision double "$R" "$d/double.xyz"
    # single: within 1e-5 of the data range (docs/grid.md), here of the grid's range
    name=grid_precision_single
    timeout 60 "$GK" grid -q "${G[@]}" -of XYZ --precision single "$R" "$d/single.xyz" >"$WORK/$name.out" 2>"$WORK/$name.err"
    rc=$?
    p=()
    [ $rc -eq 0 ] || p+=("exit status $rc")
    paste -d ' ' "$d/ref.xyz" "$d/single.xyz" | awk '
        { d = $3 - $6; if (d < 0) d = -d; if (d > m) m = d
          if (NR == 1 || $3 < lo) lo = $3; if (NR == 1 || $3 > hi) hi = $3 }
        END { exit !(NR == 400 && hi > lo && m <= 1e-5 * (hi - lo)) }' ||
        p+=("not 400 values within 1e-5 of the range of double's")
    report "$name" "${p[@]}"
else
    report grid_reference "setup run failed"
fi

# ---- ridges: its own options --------------------------------------------------------
# check_ridges NAME REGEX -- ridges arguments, DST $WORK/ridges/r.gpkg: as check
check_ridges() {
    local name=$1 kw=$2
    shift 3
    timeout 60 "$GK" ridges -q "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
    local rc=$? p=()
    [ $rc -ne 0 ] || p+=("exit status 0")
    [ $rc -lt 124 ] || p+=("crashed or hung (rc $rc)")
    grep -qE -- "$kw" "$WORK/$name.err" || p+=("stderr does not match /$kw/")
    [ -z "$(ls -A "$WORK/ridges")" ] || p+=("left behind: $(ls -A "$WORK/ridges" | tr '\n' ' ')")
    report "$name" "${p[@]}"
}
d=$(case_dir ridges)
check_ridges ridges_a_no_value '-a needs a value \(try --help\)' -- "$ME" "$d/r.gpkg" -a
check_ridges ridges_lco_no_equals '-lco SPATIAL_INDEX: expected NAME=VALUE' -- "$ME" "$d/r.gpkg" \
    -a curve:r1=300 -lco SPATIAL_INDEX
check_ridges ridges_a_twice '-a given twice' -- "$ME" "$d/r.gpkg" -a curve:r1=300 -a curve:r1=200
check_ridges ridges_option_no_value '-zfield needs 1 value \(try --help\)' -- "$ME" "$d/r.gpkg" \
    -a curve:r1=300 -zfield

# ---- .gridkit job files, through the GDAL plugin (lib/job_args.c) --------------------
# words split as a shell splits them: '...', "..." with \" and \\, a backslash
# outside quotes; a 4-byte UTF-8 character in a comment. The raster must be the
# CLI's (the same checksum), and a broken file refused saying why.
PLUG=$(dirname "$GK")/gdalplugins
if command -v gdalinfo >/dev/null && [ -e "$PLUG/gdal_GRIDKIT.so" ] &&
    GDAL_DRIVER_PATH=$PLUG gdalinfo --formats 2>/dev/null | grep -q '^ *GRIDKIT '; then
    d=$(case_dir job_files)
    mkdir -p "$d/q\"d\\e"
    cp "$ME" "$d/q\"d\\e/meuse.gpkg"
    cp "$ME" "$d/meuse.gpkg"
    checksum() { GDAL_DRIVER_PATH=$PLUG gdalinfo -checksum "$1" 2>"$WORK/$2.err" | grep -o 'Checksum=[0-9]*'; }
    job_same() { # name, .gridkit file, gridkit grid arguments (no DST)
        local name=$1 job=$2 p=() want got
        shift 2
        "$GK" grid -q "$@" "$d/$name.tif" 2>"$WORK/$name.err"
        want=$(gdalinfo -checksum "$d/$name.tif" 2>/dev/null | grep -o 'Checksum=[0-9]*')
        got=$(checksum "$job" "$name")
        [ -n "$want" ] || p+=("the CLI's raster failed")
        [ "$got" = "$want" ] || p+=("$job gives '$got', the CLI '$want'")
        report "$name" "${p[@]}"
    }
    printf '# the zinc, log scale \xf0\x9f\x98\x80\n-zfield log\\zinc -a '"'"'invdistnn:radius=1000:max_points=12'"'"'\n-outsize "30" 20 "q\\"d\\\\e/meuse.gpkg"\n' >"$d/quotes.gridkit"
    job_same job_file_quotes "$d/quotes.gridkit" -zfield logzinc -a invdistnn:radius=1000:max_points=12 \
        -outsize 30 20 "$ME"
    # a relative variogram= is taken from the file's folder
    printf '[{"model": "Nug", "psill": 0.05}, {"model": "Sph", "psill": 0.6, "range": 900}]' >"$d/v.json"
    printf -- '-zfield logzinc -a kriging:variogram=v.json:max_points=20 -outsize 30 20 meuse.gpkg\n' >"$d/krige.gridkit"
    job_same job_file_relative_variogram "$d/krige.gridkit" -zfield logzinc \
        -a "kriging:variogram=$d/v.json:max_points=20" -outsize 30 20 "$ME"
    # ... also from a folder whose path holds ':' (the resolved path is quoted in -a),
    # and a quoted path given by the user keeps its ':'
    c="$d/run:2"
    mkdir -p "$c"
    cp "$d/v.json" "$ME" "$c/"
    cp "$DATA/meuse_dist_filled.tif" "$c/dist.tif"
    printf -- '-zfield logzinc -a kriging:variogram=v.json:max_points=20 -outsize 30 20 meuse.gpkg\n' >"$c/krige.gridkit"
    job_same job_file_relative_colon "$c/krige.gridkit" -zfield logzinc \
        -a "kriging:variogram=\"$c/v.json\":max_points=20" -outsize 30 20 "$ME"
    printf -- "-zfield logzinc -a 'kriging:drift_raster=dist.tif:variogram=\"%s/v.json\"' -outsize 30 20 meuse.gpkg\n" "$c" >"$c/ked.gridkit"
    job_same job_file_drift_colon "$c/ked.gridkit" -zfield logzinc \
        -a "kriging:drift_raster=$DATA/meuse_dist_filled.tif:variogram=$d/v.json" -outsize 30 20 "$ME"
    job_refused() { # name, file content (printf format), regex
        printf -- "$2" >"$d/$1.gridkit"
        GDAL_DRIVER_PATH=$PLUG gdalinfo "$d/$1.gridkit" >/dev/null 2>"$WORK/$1.err"
        local rc=$? p=()
        [ $rc -ne 0 ] || p+=("exit status 0")
        grep -qE -- "$3" "$WORK/$1.err" || p+=("stderr does not match /$3/")
        report "$1" "${p[@]}"
    }
    job_refused job_file_unterminated_double '-zfield "logzinc -a nearest meuse.gpkg\n' \
        'GRIDKIT: unterminated " quote in .*job_file_unterminated_double\.gridkit'
    # F4 90: past U+10FFFF, not UTF-8
    job_refused job_file_past_unicode '# \xf4\x90\x80\x80\n-zfield logzinc meuse.gpkg\n' \
        'byte 0xF4 at offset 2: not UTF-8'
else
    echo "SKIP job_file_*: the GDAL plugin does not load in gdalinfo here"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
