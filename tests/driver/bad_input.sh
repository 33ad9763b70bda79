#!/bin/bash
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
check_vgm variogram_range_long "--range: too many or too long values" -- \
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
check_vgm variogram_anis_three "--anis: too many or too long values in '1,0.5,3'" -- \
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

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
