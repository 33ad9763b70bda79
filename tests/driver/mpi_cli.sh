#!/bin/bash
# SPDX-License-Identifier: MIT
# mpi_cli.sh GRIDKIT DATA_DIR WORK_DIR MPIRUN
#
# `mpirun -n N gridkit grid ARGS` against the plain `gridkit grid ARGS`
# (docs/scale-out.md), on 2 cores, so N ranks share them (--oversubscribe):
# - every algorithm, with 1, 2 and 3 ranks, on two data sets: the same file,
#   byte for byte; also several bands (kriging's variance, two layers), a
#   compressed and a tiled layout, and a CreateCopy format (PNG);
# - --parts: the mosaic opens in GDAL with the plain run's values, nodata
#   and metadata, and its parts and mosaic are the same files for 1 and 3
#   ranks;
# - variogram, cv and ridges under mpirun: the plain run's output;
# - the points broadcast by rank 0 (GRIDKIT_MPI_READ=bcast): two layers,
#   kriging, cv, variogram, and an input that only rank 0 can read;
# - a rank whose input is missing, a rank without its GPU, a rank out of
#   memory, a rank that fills the disk while writing its parts, a rank killed
#   outright, and the whole job interrupted: a non-zero exit, the failing rank
#   named, no output and no temporary;
# - a launcher's environment without a usable MPI module: one rank runs as one
#   process, more are refused saying why.
# Ends with "N passed, M failed".
set -u
. "$(dirname "$0")/suite.sh"
MPIRUN=${4:?mpirun}
# Open MPI refuses root unless told (CI and the README's commands run as root)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# no network interfaces to probe on a CI machine: shared memory and loopback
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export OMPI_MCA_rmaps_base_oversubscribe=1
MPI=("$MPIRUN" --oversubscribe)
MNT=$WORK/mnt
if mountpoint -q "$MNT" 2>/dev/null; then umount "$MNT"; fi
rm -rf "$WORK"
mkdir -p "$WORK" "$MNT"
W=$WORK
PY=/usr/bin/python3
[ -x $PY ] || PY=python3

# same NAME ARGS...: the plain run, then 1, 2 and 3 ranks, compared byte for byte
same() {
    local name=$1 ext=tif
    shift
    for a in "$@"; do case $a in -of) ext=next ;; *) [ "$ext" = next ] && ext=$(echo "$a" | tr A-Z a-z) ;; esac; done
    [ "$ext" = gtiff ] && ext=tif
    rm -f "$W/$name".*
    if ! timeout 120 "$GK" grid -q "$@" "$W/$name.plain.$ext" 2>"$W/$name.err"; then
        ko "$name" "plain run failed: $(tail -2 "$W/$name.err")"
        return
    fi
    local p=""
    for n in ${RANKS:-1 2 3}; do
        if ! timeout 180 "${MPI[@]}" -n "$n" "$GK" grid -q "$@" "$W/$name.n$n.$ext" \
            >"$W/$name.n$n.out" 2>&1; then
            p+="-n $n failed ($(grep -m1 -i error "$W/$name.n$n.out")); "
        elif ! cmp -s "$W/$name.plain.$ext" "$W/$name.n$n.$ext"; then
            p+="-n $n: not the same bytes; "
        fi
    done
    if ls "$W" | grep -q gridkit-tmp; then p+="temporary left; "; fi
    [ -z "$p" ] && ok "$name (plain = mpirun -n ${RANKS:-1 2 3})" || ko "$name" "$p"
}

M=$DATA/meuse.gpkg
U=$DATA/utm_2000.shp
MZ=(-zfield zinc -outsize 211 197)
UZ=(-zfield elev -outsize 240 230 -co TILED=YES -co BLOCKXSIZE=64 -co BLOCKYSIZE=16)
# every algorithm, two data sets
algs=(
    "invdist:power=2:max_points=30:radius=600"
    "invdist:power=2"
    "invdistnn:power=2:radius=500:max_points=12:min_points=3"
    "average:radius=300"
    "nearest:radius1=400:radius2=300:angle=30"
    "linear"
    "minimum:radius=300"
    "maximum:radius=300"
    "range:radius=300:min_points=2"
    "count:radius=300"
    "average_distance:radius=300"
    "average_distance_pts:radius=300"
    "aidw:k=12"
    "kriging:model=Sph:psill=0.6:range=900:nugget=0.05:max_points=20"
    "heatmap:radius=300:kernel=quartic"
    "gauss:bandwidth=150"
    "kernel_smooth:bandwidth=150"
    "polynomial:degree=2:max_points=24"
    "polynomial:degree=2:radius=300"
    "shepard"
    "natural"
    "natural:type=sibson_c1"
    "rbf:neighbors=20:smoothing=0.1"
    "rst:dmin=20"
    "surface:tension=0.25"
    "kriging:model=Sph:psill=0.6:range=900:nugget=0.05:nsim=3:transform=normal_score"
    "kriging:model=Sph:psill=0.2:range=900:nugget=0.02:max_points=20:indicator=300,700"
)
i=0
for a in "${algs[@]}"; do
    i=$((i + 1))
    same "meuse_$i" "${MZ[@]}" -a "$a" "$M"
done
# the second data set, on 3 ranks (UTM metres: radii scaled to its 10 km square)
RANKS=3 same utm_invdistnn "${UZ[@]}" -a invdistnn:power=2:radius=900:max_points=12 "$U"
RANKS=3 same utm_linear "${UZ[@]}" -a linear "$U"
RANKS=3 same utm_surface "${UZ[@]}" -a surface:tension=0.25:lower=data "$U"
RANKS=3 same utm_simulation "${UZ[@]}" -a "kriging:model=Exp:psill=1e4:range=2000:nsim=4:seed=9:summary=mean,p>100:realizations=yes" "$U"
RANKS=3 same utm_kriging "${UZ[@]}" -a kriging:model=Exp:psill=1e4:range=2000:max_points=16 "$U"
RANKS=3 same utm_gauss "${UZ[@]}" -a gauss:bandwidth=300:method=ifgt "$U"
RANKS=3 same utm_average "${UZ[@]}" -a average:radius=500:min_points=2 "$U"
# several bands, layouts and formats
RANKS="2 3" same variance "${MZ[@]}" -a kriging:model=Sph:psill=0.6:range=900:variance=yes "$M"
RANKS="2 3" same variance_band "${MZ[@]}" -co INTERLEAVE=BAND -a kriging:model=Sph:psill=0.6:range=900:variance=yes "$M"
RANKS="2 3" same deflate "${MZ[@]}" -ot Float32 -co COMPRESS=DEFLATE -co TILED=YES -co BLOCKXSIZE=32 -co BLOCKYSIZE=32 -a invdist:power=2 "$M"
RANKS="3" same two_layers -l pts_a -l pts_b -zfield val -outsize 150 140 -a average:radius=0.2 "$DATA/multi.gpkg"
# values that travel converted to the output's type, clamped where they overflow it
RANKS="2 3" same int16_clamped "${MZ[@]}" -ot Int16 -z_multiply 100 -a invdist:power=2:radius=600 "$M"
# rows so wide that a strip is a few rows, not whole output tiles
RANKS="3" same wide -zfield zinc -ot Byte -outsize 400000 24 -a count:radius=300 "$M"
RANKS="3" same png "${MZ[@]}" -ot Byte -of PNG -z_multiply 0.1 -a nearest:radius=500 "$M"

# --parts: values against the plain run, the same files for 1 and 3 ranks
parts() {
    local name=$1
    shift
    rm -rf "$W/$name".* "$W/${name}_1" "$W/${name}_3"
    mkdir -p "$W/${name}_1" "$W/${name}_3"
    local p=""
    timeout 120 "$GK" grid -q "$@" "$W/$name.plain.tif" 2>/dev/null || p+="plain failed; "
    timeout 120 "$GK" grid -q --parts "$W/${name}_1/parts" "$@" "$W/${name}_1/mosaic.vrt" \
        >"$W/$name.1.out" 2>&1 || p+="--parts, one process, failed; "
    timeout 180 "${MPI[@]}" -n 3 "$GK" grid -q --parts "$W/${name}_3/parts" "$@" \
        "$W/${name}_3/mosaic.vrt" >"$W/$name.3.out" 2>&1 ||
        p+="--parts on 3 ranks failed ($(head -c 300 "$W/$name.3.out")); "
    for n in 1 3; do
        $PY "$(dirname "$0")/mpi_same_raster.py" "$W/$name.plain.tif" "$W/${name}_$n/mosaic.vrt" \
            >"$W/$name.$n.cmp" 2>&1 || p+="$n: $(tail -1 "$W/$name.$n.cmp"); "
    done
    # the same parts and mosaic whatever the number of ranks
    local n1 n3
    n1=$(ls "$W/${name}_1/parts" 2>/dev/null | wc -l)
    n3=$(ls "$W/${name}_3/parts" 2>/dev/null | wc -l)
    [ "$n1" -gt 1 ] && [ "$n1" = "$n3" ] || p+="parts: $n1 and $n3 files; "
    for f in "$W/${name}_1/parts"/*; do
        cmp -s "$f" "$W/${name}_3/parts/$(basename "$f")" || p+="$(basename "$f") differs; "
    done
    cmp -s "$W/${name}_1/mosaic.vrt" "$W/${name}_3/mosaic.vrt" || p+="mosaics differ; "
    # whole tiles: a part's tiles are no taller than the part (no padding)
    local info
    info=$(gdalinfo "$(ls "$W/${name}_1/parts"/* | head -1)" 2>/dev/null)
    local ph bh
    ph=$(sed -n 's/^Size is [0-9]*, \([0-9]*\)$/\1/p' <<<"$info")
    bh=$(sed -n 's/.*Block=[0-9]*x\([0-9]*\) .*/\1/p' <<<"$info" | head -1)
    [ -n "$ph" ] && [ -n "$bh" ] && [ "$bh" -le "$ph" ] || p+="first part ${ph:-?} rows in tiles of ${bh:-?}; "
    [ -z "$p" ] && ok "parts $name ($n1 parts)" || ko "parts $name" "$p"
}
parts parts_idw -zfield zinc -outsize 211 700 -co BLOCKYSIZE=16 -a invdist:power=2:radius=600:nodata=-1 "$M"
parts parts_krige -zfield zinc -outsize 300 600 -a kriging:model=Sph:psill=0.6:range=900:variance=yes "$M"
# rows so wide (two bands) that a strip is shorter than 256 rows: tiles as tall as it
parts parts_wide -zfield zinc -ot Float32 -outsize 12000 300 -a kriging:model=Sph:psill=0.6:range=900:variance=yes "$M"

# variogram and cv share their pairs and folds among the ranks, ridges runs
# on rank 0: the output is the plain run's, byte for byte
other() {
    local name=$1 out=$2
    shift 2
    rm -rf "$W/$name".*
    local p=""
    # each run's output under the same name (GeoJSON keeps it as the layer's)
    mkdir -p "$W/$name.plain" "$W/$name.n2" "$W/$name.n3"
    timeout 120 "$GK" "$@" "$W/$name.plain/out.$out" >"$W/$name.plain/stdout" 2>"$W/$name.plain/log" ||
        p+="plain failed: $(tail -2 "$W/$name.plain/log"); "
    for n in 2 3; do
        timeout 180 "${MPI[@]}" -n $n "$GK" "$@" "$W/$name.n$n/out.$out" >"$W/$name.n$n/stdout" \
            2>"$W/$name.n$n/log" || p+="-n $n failed: $(tail -2 "$W/$name.n$n/log"); "
        cmp -s "$W/$name.plain/out.$out" "$W/$name.n$n/out.$out" || p+="-n $n: outputs differ; "
        cmp -s "$W/$name.plain/stdout" "$W/$name.n$n/stdout" || p+="-n $n: stdout differs; "
    done
    [ -s "$W/$name.plain/out.$out" ] || p+="empty output; "
    [ -z "$p" ] && ok "$name under mpirun -n 2 and 3" || ko "$name" "$p"
}
other variogram json variogram "$M" -zfield zinc --fit Nug,Sph --format json -o
other variogram_10k csv variogram "$DATA/points_10k.xyz" --cutoff 900 --direction 0,45,90 --format csv -o
other variogram_cressie csv variogram "$DATA/points_10k.xyz" --estimator cressie --format csv -o
other variogram_trend_best json variogram "$M" -zfield zinc --drift linear --drift-raster "$DATA/meuse_dist_filled.tif" --fit-best Exp,Sph,Mat --fit-kappa --format json -o
other cv csv cv "$M" -zfield zinc -a invdistnn:power=2:radius=900:max_points=12 -q -o
other cv_kriging_5fold csv cv "$M" -zfield zinc --nfold 5 --seed 7 -a kriging:model=Sph:psill=0.6:range=900:max_points=20 -q -o
other cv_summary json cv "$DATA/points_10k.xyz" --nfold 10 --format=json -a invdist:power=2:radius=300:max_points=16 -q -o
other ridges gpkg ridges "$DATA/points_10k.xyz" -a curve:r1=40 -q
# progress (variogram and cv without -q): rank 0 alone reports, one line of dots as in
# the plain run
other cv_progress csv cv "$M" -zfield zinc -a invdistnn:power=2:radius=900:max_points=12 -o
for name in variogram cv_progress; do
    p=""
    for run in plain n2 n3; do
        c=$(grep -o '100 - done' "$W/$name.$run/log" | wc -l)
        [ "$c" = 1 ] || p+="$run: $c lines of progress; "
    done
    [ -z "$p" ] && ok "$name: one line of progress, rank 0's" || ko "${name}_progress" "$p"
done
# density's walkers shared among the ranks (on the CPU): a ring and a line of noisy points
awk 'BEGIN{srand(11); for (i = 0; i < 6000; i++) { t = 6.283185307 * rand(); r = 1000 + 60 * (rand() - 0.5);
    printf "%.3f %.3f 0\n", 5000 + r * cos(t), 5000 + r * sin(t);
    x = 2000 + 6000 * rand(); printf "%.3f %.3f 0\n", x, 3000 + 0.3 * (x - 2000) + 60 * (rand() - 0.5) } }' \
    >"$W/ring.xyz"
other ridges_density gpkg ridges "$W/ring.xyz" -a density --device cpu -q
timeout 120 "${MPI[@]}" -n 3 "$GK" ridges "$W/ring.xyz" -a density --device cpu "$W/ridges_shared.gpkg" \
    >"$W/ridges_shared.out" 2>&1
grep -q "Ranks: 3, the walkers shared" "$W/ridges_shared.out" && ok "ridges_density shared among 3 ranks" ||
    ko ridges_density_shared "$(tail -3 "$W/ridges_shared.out")"
# density without --device (auto, no GPU here: the CPU's walkers) is shared as with
# --device cpu: the plain run's lines, and the log says the ranks shared them
timeout 120 "$GK" ridges -q "$W/ring.xyz" -a density "$W/ridges_auto.plain.gpkg" 2>/dev/null
timeout 120 "${MPI[@]}" -n 2 env -u GRIDKIT_DEVICE "$GK" ridges "$W/ring.xyz" -a density \
    "$W/ridges_auto.n2.gpkg" >"$W/ridges_auto.out" 2>&1
if grep -q "Ranks: 2, the walkers shared" "$W/ridges_auto.out" && [ -s "$W/ridges_auto.plain.gpkg" ] &&
    cmp -s "$W/ridges_auto.plain.gpkg" "$W/ridges_auto.n2.gpkg"; then
    ok "ridges_density without --device: shared among 2 ranks, the plain run's bytes"
else
    ko ridges_density_auto "$(tail -3 "$W/ridges_auto.out")"
fi
# the points read by rank 0 and broadcast (the default across hosts): two
# layers and an SRS through the broadcast; kriging's variance; cv and variogram
MPI_EACH=("${MPI[@]}")
MPI+=(-x GRIDKIT_MPI_READ=bcast)
RANKS="3" same two_layers_bcast -l pts_a -l pts_b -zfield val -outsize 150 140 -a average:radius=0.2 "$DATA/multi.gpkg"
RANKS="2" same variance_bcast "${MZ[@]}" -a kriging:model=Sph:psill=0.6:range=900:variance=yes "$M"
other cv_bcast csv cv "$M" -zfield zinc -a invdistnn:power=2:radius=900:max_points=12 -q -o
other variogram_bcast json variogram "$M" -zfield zinc --fit Nug,Sph --format json -o
# a source without an SRS (XYZ) through the broadcast
RANKS="2" same xyz_bcast -outsize 120 110 -a invdist:power=2:radius=300 "$DATA/points_10k.xyz"
MPI=("${MPI_EACH[@]}")

# ranks sharing a host share its cores: unbound, each takes its part unless
# told (--threads, GDAL_NUM_THREADS); the Rank lines of --timings say so
threads_of() {
    local p=""
    timeout 120 "${MPI[@]}" --bind-to none -n 2 "$@" "$GK" grid -q --timings -zfield zinc -outsize 40 30 \
        -a invdist:power=2 "$M" "$W/threads.tif" >"$W/threads.out" 2>&1 || p="failed"
    echo "$p$(grep -o '[0-9]* threads\?$' "$W/threads.out" | tr '\n' ' ')"
}
ONLN=$(getconf _NPROCESSORS_ONLN)
SHARE=$((ONLN / 2 < $(nproc) ? ONLN / 2 : $(nproc)))
[ "$SHARE" -ge 1 ] || SHARE=1
want_share="$SHARE thread$([ "$SHARE" = 1 ] || echo s) $SHARE thread$([ "$SHARE" = 1 ] || echo s) "
got=$(threads_of)
[ "$got" = "$want_share" ] && ok "threads_share ($got)" || ko threads_share "want '$want_share', got '$got'"
got=$(threads_of -x GDAL_NUM_THREADS=3)
[ "$got" = "3 threads 3 threads " ] && ok "threads_gdal_num_threads" || ko threads_gdal_num_threads "got '$got'"
got=$(threads_of -x GDAL_NUM_THREADS=ALL_CPUS)
[ "$got" = "$(nproc) thread$([ "$(nproc)" = 1 ] || echo s) $(nproc) thread$([ "$(nproc)" = 1 ] || echo s) " ] &&
    ok "threads_all_cpus" || ko threads_all_cpus "got '$got'"

# ---- faults -----------------------------------------------------------------
# fault NAME REGEX OUTPUT_GLOB -- command: fails within its time, says REGEX,
# and leaves neither OUTPUT_GLOB nor a temporary
fault() {
    local name=$1 kw=$2 glob=$3
    shift 4
    timeout 120 "$@" >"$W/$name.out" 2>&1
    local rc=$? p=""
    [ $rc -ne 0 ] || p+="exit 0; "
    [ $rc -ne 124 ] || p+="hung; "
    grep -qiE -- "$kw" "$W/$name.out" || p+="output does not match /$kw/: $(head -c 400 "$W/$name.out"); "
    # shellcheck disable=SC2086
    if ls $glob >/dev/null 2>&1; then p+="output left: $(ls $glob | head -3 | tr '\n' ' '); "; fi
    if find "$W" -name '*gridkit-tmp*' | grep -q .; then p+="temporary left: $(find "$W" -name '*gridkit-tmp*' | head -3); "; fi
    [ -z "$p" ] && ok "$name" || ko "$name" "$p"
}
# rank 2 cannot read the points (a file missing on its node)
cat >"$W/rank2_missing.sh" <<EOF
#!/bin/sh
src="$M"
[ "\${OMPI_COMM_WORLD_RANK:-0}" = 2 ] && src="$W/no_such_dir/meuse.gpkg"
exec "$GK" grid -q -zfield zinc -outsize 300 300 -a invdist:power=2 "\$src" "\$@"
EOF
chmod +x "$W/rank2_missing.sh"
# ridges: rank 1 alone with points it cannot use (all the same): it fails inside the
# computation, before the ranks exchange their walkers; its message, nothing written
awk 'BEGIN{for (i = 0; i < 50; i++) print "5 5 0"}' >"$W/same.xyz"
cat >"$W/rank1_same.sh" <<EOF
#!/bin/sh
src="$W/ring.xyz"
[ "\${OMPI_COMM_WORLD_RANK:-0}" = 1 ] && src="$W/same.xyz"
exec "$GK" ridges -q -a density:bandwidth=40 --device cpu "\$src" "\$@"
EOF
chmod +x "$W/rank1_same.sh"
fault ridges_rank_fails "rank 1 of 3.*same.xyz.*same place" "$W/f_ridges*" -- "${MPI[@]}" -x GRIDKIT_MPI_READ=each \
    -n 3 "$W/rank1_same.sh" "$W/f_ridges.gpkg"
# ... where every rank reads the points (GRIDKIT_MPI_READ=each)
fault rank_input "rank 2 of 3.*no_such_dir" "$W/f_input*" -- "${MPI[@]}" -x GRIDKIT_MPI_READ=each \
    -n 3 "$W/rank2_missing.sh" "$W/f_input.tif"
# the same with --parts: no mosaic and no part left
fault rank_input_parts "rank 2 of 3.*no_such_dir" "$W/f_inparts.vrt $W/f_inparts_dir/*" -- \
    "${MPI[@]}" -x GRIDKIT_MPI_READ=each -n 3 "$W/rank2_missing.sh" --parts "$W/f_inparts_dir" \
    "$W/f_inparts.vrt"
# where rank 0 reads and broadcasts the points (GRIDKIT_MPI_READ=bcast; the
# default across hosts) the input need only be where rank 0 runs
timeout 120 "$GK" grid -q -zfield zinc -outsize 300 300 -a invdist:power=2 "$M" "$W/b_plain.tif" &&
    timeout 120 "${MPI[@]}" -x GRIDKIT_MPI_READ=bcast -n 3 "$W/rank2_missing.sh" "$W/b_mpi.tif" \
        >"$W/b_mpi.log" 2>&1 &&
    cmp -s "$W/b_plain.tif" "$W/b_mpi.tif" && ok "broadcast: input on rank 0 only, plain run's bytes" ||
    ko "broadcast: input on rank 0 only" "$(tail -3 "$W/b_mpi.log")"
# rank 1 without its GPU (hidden, as when lost; --device cuda asks for one): the job
# stops with rank 1's message, nothing written
cat >"$W/rank1_nogpu.sh" <<EOF
#!/bin/sh
dev=cpu
[ "\${OMPI_COMM_WORLD_RANK:-0}" = 1 ] && dev=cuda && export CUDA_VISIBLE_DEVICES=
exec "$GK" grid -q --device \$dev -zfield zinc -outsize 300 300 -a invdist:power=2 "$M" "\$@"
EOF
chmod +x "$W/rank1_nogpu.sh"
fault rank_gpu "rank 1 of 3.*(GPU|CUDA|device)" "$W/f_gpu*" -- "${MPI[@]}" -n 3 "$W/rank1_nogpu.sh" \
    "$W/f_gpu.tif"
# rank 1 fails before any rank has read the points (an -a_srs its node cannot
# resolve): the others, reading or waiting for rank 0's broadcast, hear of it
# and stop; in both ways of reading
cat >"$W/rank1_badsrs.sh" <<EOF
#!/bin/sh
srs=EPSG:28992
[ "\${OMPI_COMM_WORLD_RANK:-0}" = 1 ] && srs=no_such_srs
exec "$GK" grid -q -zfield zinc -outsize 300 300 -a_srs "\$srs" -a invdist:power=2 "$M" "\$@"
EOF
chmod +x "$W/rank1_badsrs.sh"
for how in each bcast; do
    fault "rank_before_read_$how" "rank 1 of 3.*no_such_srs" "$W/f_srs_$how*" -- "${MPI[@]}" \
        -x GRIDKIT_MPI_READ=$how -n 3 "$W/rank1_badsrs.sh" "$W/f_srs_$how.tif"
done
# a rank out of memory: rank 1's address space limited (450 MB; it starts in
# less, OpenBLAS's threads included) below what its strips take (rows of 20
# million values: 160 MB a strip buffer, four of them)
cat >"$W/rank1_oom.sh" <<EOF
#!/bin/bash
[ "\${OMPI_COMM_WORLD_RANK:-0}" = 1 ] && ulimit -v 450000 && export OPENBLAS_NUM_THREADS=1
exec "$GK" grid -q -zfield zinc -ot Byte -outsize 20000000 2 -a count:radius=300 "$M" "\$@"
EOF
chmod +x "$W/rank1_oom.sh"
fault rank_oom "rank 1 of 2.*out of memory" "$W/f_oom*" -- "${MPI[@]}" -n 2 "$W/rank1_oom.sh" "$W/f_oom.tif"
# a GRIDKIT_MPI_READ that means nothing: said, nothing written
fault mpi_read_env "GRIDKIT_MPI_READ=sometimes" "$W/f_env*" -- "${MPI[@]}" -x GRIDKIT_MPI_READ=sometimes \
    -n 2 "$GK" grid -q -zfield zinc -outsize 50 50 -a invdist:power=2 "$M" "$W/f_env.tif"
# rank 0 cannot read: its message (rank 0 says it unprefixed), nothing written (grid and cv)
cat >"$W/rank0_missing.sh" <<EOF
#!/bin/sh
src="$M"
[ "\${OMPI_COMM_WORLD_RANK:-0}" = 0 ] && src="$W/no_such_dir/meuse.gpkg"
cmd=\$1
shift
exec "$GK" "\$cmd" "\$src" "\$@"
EOF
chmod +x "$W/rank0_missing.sh"
fault rank0_input "cannot open.*no_such_dir" "$W/f_in0*" -- "${MPI[@]}" -n 3 "$W/rank0_missing.sh" \
    grid -q -zfield zinc -outsize 300 300 -a invdist:power=2 "$W/f_in0.tif"
fault rank0_input_cv "cannot open.*no_such_dir" "$W/f_in0cv*" -- "${MPI[@]}" -n 3 \
    "$W/rank0_missing.sh" cv -q -zfield zinc -a nearest -o "$W/f_in0cv.gpkg"
# ... where it reads for the others to receive (bcast): they hear of it, nothing written
fault rank0_input_bcast "cannot open.*no_such_dir" "$W/f_in0b*" -- "${MPI[@]}" -x GRIDKIT_MPI_READ=bcast \
    -n 3 "$W/rank0_missing.sh" grid -q -zfield zinc -outsize 300 300 -a invdist:power=2 "$W/f_in0b.tif"

# a launcher's environment without a usable MPI module (no mpirun needed): one rank
# asked for runs as one process; several, or a count not given, are refused, saying why
GRIDL=(grid -q -zfield zinc -outsize 60 50 -a invdist:power=2 "$M")
"$GK" "${GRIDL[@]}" "$W/l_plain.tif"
OMPI_COMM_WORLD_SIZE=1 GRIDKIT_MPI_MODULE=$W/no_such_module.so "$GK" "${GRIDL[@]}" "$W/l_one.tif" &&
    cmp -s "$W/l_plain.tif" "$W/l_one.tif" && ok "launcher for 1 rank, no module: one process" ||
    ko launcher_one_rank "not the plain run's bytes"
fault launcher_no_module "for several ranks, but cannot run as its ranks: .*no_such_module.so" \
    "$W/l_two.tif" -- env OMPI_COMM_WORLD_SIZE=2 GRIDKIT_MPI_MODULE="$W/no_such_module.so" \
    "$GK" "${GRIDL[@]}" "$W/l_two.tif"
# PMIx's rank alone (no size): launched; a library that is not gridkit's module
fault launcher_wrong_module "started by an MPI launcher, but cannot run as its ranks: .*does not match" \
    "$W/l_pmix.tif" -- env PMIX_RANK=0 GRIDKIT_MPI_MODULE=libm.so.6 "$GK" "${GRIDL[@]}" "$W/l_pmix.tif"
# a size that is no count: launched, the count unknown
fault launcher_bad_size "started by an MPI launcher, but cannot run" "$W/l_size.tif" -- \
    env OMPI_COMM_WORLD_SIZE=many GRIDKIT_MPI_MODULE="$W/no_such_module.so" "$GK" "${GRIDL[@]}" \
    "$W/l_size.tif"

# a rank whose parts fill the disk (a 1 MB tmpfs; root only)
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=1m tmpfs "$MNT" 2>/dev/null; then
    # each part passes the free-space check alone; together they do not fit
    fault parts_disk_full "needs .* free|No space|cannot write" \
        "$MNT/full.vrt $MNT/parts/*" -- "${MPI[@]}" -n 3 "$GK" grid -q -zfield zinc -ot Byte -outsize 1000 1600 \
        -a invdist:power=2 --parts "$MNT/parts" "$M" "$MNT/full.vrt"
    # one writer (rank 0, its own strips straight into the file) filling it:
    # compressed, so that no free-space check stops it before
    fault writer_disk_full "No space|cannot write" "$MNT/one.tif $MNT/*gridkit-tmp*" -- "${MPI[@]}" -n 3 \
        "$GK" grid -q -zfield zinc -ot Float32 -outsize 1000 1600 -a invdist:power=2 \
        -co COMPRESS=DEFLATE "$M" "$MNT/one.tif"
    umount "$MNT"
else
    echo "SKIP parts_disk_full (needs root and a tmpfs mount)"
fi

# a rank killed outright mid-run (SIGKILL): mpirun ends the job, nothing stays
cat >"$W/rank1_killed.sh" <<EOF
#!/bin/sh
args="grid -q -zfield zinc -outsize 3000 3000 -a invdist:power=3 $M"
[ "\${OMPI_COMM_WORLD_RANK:-0}" = 1 ] || exec "$GK" \$args "\$@"
"$GK" \$args "\$@" &
pid=\$!
sleep 1.5
kill -9 \$pid
wait \$pid
EOF
chmod +x "$W/rank1_killed.sh"
fault rank_killed "rank 1|signal|killed|exited" "$W/f_killed.tif" -- "${MPI[@]}" -n 3 "$W/rank1_killed.sh" "$W/f_killed.tif"

# the whole job interrupted (Ctrl-C reaches mpirun)
( "${MPI[@]}" -n 2 "$GK" grid -q -zfield zinc -outsize 3000 3000 -a invdist:power=3 "$M" "$W/f_int.tif" \
    >"$W/f_int.out" 2>&1 & pid=$!; sleep 2; kill -INT $pid; wait $pid; echo "rc $?" >>"$W/f_int.out" )
if [ -e "$W/f_int.tif" ] || ls "$W" | grep -q 'f_int.*gridkit-tmp'; then
    ko interrupted "output or temporary left: $(ls "$W" | grep f_int)"
else
    ok interrupted
fi

finish
