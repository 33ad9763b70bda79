#!/bin/bash
# SPDX-License-Identifier: MIT
# parts.sh GRIDKIT DATA_DIR WORK_DIR
#
# --parts DIR is as atomic as one file (lib/grid_parts.h): a re-run writes
# the other slot and the old mosaic keeps its own parts until the new one
# replaces it; a cancelled re-run leaves the old mosaic and its parts byte
# for byte; a second run for the same output is refused while the first
# lives, and takes over after the first was killed outright; a mosaic that
# is also the parts' directory is refused before anything is made.
# Ends with "N passed, M failed".
set -u
. "$(dirname "$0")/suite.sh"
rm -rf "$WORK"
mkdir -p "$WORK"
W=$WORK
M=$DATA/meuse.gpkg
sum() { gdalinfo -checksum "$1" 2>/dev/null | grep Checksum | tr '\n' ' '; }
# waits (at most 60 s) until a file matching the glob exists
wait_for() { for _ in $(seq 600); do compgen -G "$1" >/dev/null && return 0; sleep 0.1; done; return 1; }

# 1. a fresh directory: slot a; the mosaic holds the single run's values
p=""
"$GK" grid -q --parts "$W/P" -zfield zinc -a invdist:power=2 -outsize 300 200 "$M" "$W/o.vrt" 2>"$W/1.err" ||
    p+="exit $?; "
"$GK" grid -q -zfield zinc -a invdist:power=2 -outsize 300 200 "$M" "$W/plain2.tif"
ls "$W/P" | grep -qv '^o\.part-a-' && p+="files other than slot a: $(ls "$W/P" | tr '\n' ' '); "
[ "$(sum "$W/o.vrt")" = "$(sum "$W/plain2.tif")" ] || p+="values differ from the single run; "
check fresh_slot_a "$p"

# 2. a re-run: slot b, the old parts gone, the new values
p=""
"$GK" grid -q --parts "$W/P" -zfield zinc -a invdist:power=3 -outsize 300 200 "$M" "$W/o.vrt" 2>"$W/2.err" ||
    p+="exit $?; "
"$GK" grid -q -zfield zinc -a invdist:power=3 -outsize 300 200 "$M" "$W/plain3.tif"
ls "$W/P" | grep -qv '^o\.part-b-' && p+="files other than slot b: $(ls "$W/P" | tr '\n' ' '); "
[ "$(sum "$W/o.vrt")" = "$(sum "$W/plain3.tif")" ] || p+="values differ from the single run; "
check rerun_slot_b "$p"

# 3. a re-run cancelled mid-way: the old mosaic and parts as they were
(cd "$W" && md5sum o.vrt P/*) >"$W/before.md5"
"$GK" grid -q --threads 1 --parts "$W/P" -zfield zinc -a invdist:power=2 -outsize 8000 8000 "$M" \
    "$W/o.vrt" 2>"$W/3.err" &
pid=$!
p=""
wait_for "$W/P/o.part-a-000000.tif" || p+="no new part appeared; "
kill -TERM $pid
wait $pid
rc=$?
[ $rc = 143 ] || p+="exit $rc, wanted 143 (SIGTERM); "
(cd "$W" && md5sum -c --quiet before.md5) >/dev/null 2>&1 || p+="the old mosaic or its parts changed; "
[ "$(sum "$W/o.vrt")" = "$(sum "$W/plain3.tif")" ] || p+="the old mosaic's values changed; "
ls -a "$W/P" | grep -q 'gridkit-lock\|gridkit-tmp' && p+="lock or temporary left; "
check cancelled_rerun_keeps_old "$p"

# 4. a second run while the first lives: refused; the first ends whole
"$GK" grid -q --threads 1 --parts "$W/P" -zfield zinc -a invdist:power=2 -outsize 4000 4000 "$M" \
    "$W/o.vrt" 2>"$W/4a.err" &
pid=$!
p=""
wait_for "$W/P/o.gridkit-lock" || p+="no lock appeared; "
"$GK" grid -q --parts "$W/P" -zfield zinc -a invdist:power=1 -outsize 300 200 "$M" "$W/o.vrt" \
    2>"$W/4b.err" && p+="the second run exited 0; "
grep -q 'another gridkit run (pid [0-9]* on .*) is writing the parts' "$W/4b.err" ||
    p+="message: $(head -c 200 "$W/4b.err"); "
wait $pid || p+="the first run failed: $(head -c 200 "$W/4a.err"); "
"$GK" grid -q --threads 1 -zfield zinc -a invdist:power=2 -outsize 4000 4000 "$M" "$W/plain4k.tif"
[ "$(sum "$W/o.vrt")" = "$(sum "$W/plain4k.tif")" ] || p+="the first run's mosaic is not its values; "
check concurrent_run_refused "$p"

# 5. a run killed outright: the next run takes its lock over and cleans up
# (the mosaic in place uses slot a: the killed run writes slot b)
"$GK" grid -q --threads 1 --parts "$W/P" -zfield zinc -a invdist:power=3 -outsize 8000 8000 "$M" \
    "$W/o.vrt" 2>/dev/null &
pid=$!
p=""
wait_for "$W/P/o.part-b-000000.tif" || p+="no new part appeared; "
kill -KILL $pid
wait $pid 2>/dev/null
[ -e "$W/P/o.gridkit-lock" ] || p+="(no lock left by the killed run: nothing tested); "
"$GK" grid -q --parts "$W/P" -zfield zinc -a invdist:power=3 -outsize 300 200 "$M" "$W/o.vrt" \
    2>"$W/5.err" || p+="the next run failed: $(head -c 200 "$W/5.err"); "
[ "$(sum "$W/o.vrt")" = "$(sum "$W/plain3.tif")" ] || p+="values differ; "
ls -a "$W/P" | grep -q 'gridkit-lock\|gridkit-tmp' && p+="lock or temporary left; "
# every file left is a part of the mosaic
used=$(gdalinfo "$W/o.vrt" 2>/dev/null | sed -n 's|.*/P/\(o\.part-[ab]-[0-9]*\.tif\)$|\1|p' | sort)
[ "$(ls "$W/P" | sort)" = "$used" ] || p+="files no mosaic uses: $(ls "$W/P" | head -4 | tr '\n' ' '); "
check killed_run_lock_taken_over "$p"

# 6. the mosaic named as the parts' directory: refused, nothing made
p=""
(cd "$W" && "$GK" grid -q --parts X.vrt -zfield zinc -a average -outsize 30 30 "$M" X.vrt) 2>"$W/6.err" &&
    p+="exit 0; "
grep -q 'cannot be the mosaic' "$W/6.err" || p+="message: $(head -c 200 "$W/6.err"); "
[ -e "$W/X.vrt" ] && p+="X.vrt was made; "
check parts_dir_is_mosaic "$p"

# 7. a run refused after its directory was made leaves no empty directory
p=""
"$GK" grid -q --parts "$W/newdir" -zfield zinc -a "kriging:model=Sph:psill=1:range=900:drift_raster=$W/none.tif" \
    -outsize 30 30 "$M" "$W/n.vrt" 2>"$W/7.err" && p+="exit 0; "
[ -e "$W/newdir" ] && p+="newdir left; "
check failed_run_removes_its_dir "$p"

# 8. a run that speaks (no -q): what one process says, the mosaic the single
# raster's values, band metadata and nodata. kriging model=auto (both bands,
# -of VRT and the parts' -co BLOCKYSIZE kept); gauss's prepared string (the
# GRIDKIT_PREPARED item); coincident points, every node's system singular
# (10 x 10 = 100 nodes: nodata tagged on the mosaic's band)
values() { # FILE BAND: the band as XYZ text
    gdal_translate -q -of XYZ -b "$2" "$1" /vsistdout/ 2>/dev/null
}
same_as_single() { # mosaic, single raster, bands: problems
    local b q=""
    for b in $(seq "$3"); do
        [ -n "$(values "$2" "$b")" ] && [ "$(values "$1" "$b")" = "$(values "$2" "$b")" ] ||
            q+="band $b differs from the single raster; "
    done
    [ "$(gdalinfo "$1" | grep -E 'GRIDKIT_PREPARED|NoData')" = "$(gdalinfo "$2" | grep -E 'GRIDKIT_PREPARED|NoData')" ] ||
        q+="band metadata or nodata differ; "
    printf '%s' "$q"
}
p=""
"$GK" grid --parts "$W/K" -of VRT -co BLOCKYSIZE=16 -zfield logzinc -a kriging:model=auto:max_points=20 \
    -outsize 60 40 "$M" "$W/k.vrt" >/dev/null 2>"$W/8a.err" || p+="exit $?; "
"$GK" grid -q -zfield logzinc -a kriging:model=auto:max_points=20 -outsize 60 40 "$M" "$W/k.tif"
for re in '^Band 1: layer "meuse"$' '^Variogram model: Nug\(.*\)\+Sph\(.*\) \(fitted\)$' '^Device: '; do
    grep -qE "$re" "$W/8a.err" || p+="stderr lacks /$re/; "
done
gdalinfo "$W/K/k.part-a-000000.tif" 2>/dev/null | grep -q 'Block=256x16 ' || p+="parts not in blocks of 16 rows; "
p+=$(same_as_single "$W/k.vrt" "$W/k.tif" 2)
check speaking_kriging_auto "$p"
p=""
"$GK" grid --parts "$W/G" -zfield zinc -a gauss -outsize 60 40 "$M" "$W/g.vrt" >/dev/null 2>"$W/8b.err" ||
    p+="exit $?; "
"$GK" grid -q -zfield zinc -a gauss -outsize 60 40 "$M" "$W/g.tif"
grep -q '^Prepared: "gauss:bandwidth=.*:chosen=' "$W/8b.err" || p+="no Prepared: line; "
gdalinfo "$W/g.vrt" | grep -q 'GRIDKIT_PREPARED=gauss:' || p+="no GRIDKIT_PREPARED on the mosaic; "
p+=$(same_as_single "$W/g.vrt" "$W/g.tif" 1)
check speaking_prepared "$p"
p=""
printf 'x y z\n0 0 1\n0 0 1\n5 5 2\n5 5 2\n0 5 3\n0 5 3\n' >"$W/dup.xyz"
D=(-txe 0 5 -tye 0 5 -outsize 10 10 -a kriging:model=Sph:psill=1:range=10 "$W/dup.xyz")
"$GK" grid --parts "$W/S" "${D[@]}" "$W/s.vrt" >/dev/null 2>"$W/8c.err" || p+="exit $?; "
"$GK" grid -q "${D[@]}" "$W/s.tif"
grep -q '^Warning: 100 of 100 nodes of band 1 had a singular kriging system' "$W/8c.err" ||
    p+="no warning counting the singular nodes; "
gdalinfo "$W/s.vrt" | grep -q 'NoData Value=0$' || p+="nodata not tagged on the mosaic; "
p+=$(same_as_single "$W/s.vrt" "$W/s.tif" 1)
check speaking_singular "$p"

finish
