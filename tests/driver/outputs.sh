#!/bin/bash
# SPDX-License-Identifier: MIT
# outputs.sh GRIDKIT DATA_DIR WORK_DIR
#
# What every command (grid, variogram -o/--plot, cv -o) does with its output
# name: it never writes an input, touches only regular
# files (a device, FIFO, socket is refused; a link is written through to its
# target), leaves no temporary after SIGINT/SIGTERM/SIGHUP, clears a killed
# run's temporaries, and refuses absurd thread counts stating the limit.
# Every run is bounded by `timeout` (a hang fails). Device nodes need root:
# those cases are skipped with a message otherwise.
# Ends with "N passed, M failed".
set -u
. "$(dirname "$0")/suite.sh"
rm -rf "$WORK"
mkdir -p "$WORK"
W=$WORK
cp "$DATA/meuse.gpkg" "$W/m.gpkg"
cp "$DATA/meuse.gpkg" "$W/m.orig"
G=(-q -zfield zinc -outsize 20 20)

# expect NAME RC_WANT(nonzero|0) REGEX -- command...: exit status, message, no temporary
expect() {
    local name=$1 want=$2 kw=$3
    shift 4
    timeout 60 "$@" >"$W/$name.out" 2>"$W/$name.err"
    local rc=$?
    local p=""
    if [ "$want" = 0 ] && [ $rc -ne 0 ]; then p+="exit $rc, wanted 0; "; fi
    if [ "$want" != 0 ] && [ $rc -eq 0 ]; then p+="exit 0, wanted an error; "; fi
    [ $rc -lt 124 ] || p+="hung or crashed (rc $rc); "
    if [ -n "$kw" ] && ! grep -qiE -- "$kw" "$W/$name.err"; then p+="stderr does not match /$kw/; "; fi
    if ls -a "$W" | grep -q 'gridkit-tmp'; then p+="temporary left: $(ls "$W" | grep gridkit-tmp | tr '\n' ' ')"; fi
    if [ -z "$p" ]; then ok "$name"; else ko "$name" "$p | $(head -c 300 "$W/$name.err" | tr '\n' ' ')"; fi
}
same() { # NAME FILE COPY: FILE unchanged (put back if not, so later cases still test)
    if cmp -s "$2" "$3"; then ok "$1"; else ko "$1" "$2 changed"; cp "$3" "$2"; fi
}

# ---- 3. inputs are never written ---------------------------------------------
expect vgm_o_is_source 1 'refusing to overwrite input.*m\.gpkg' -- \
    "$GK" variogram "$W/m.gpkg" -zfield zinc -o "$W/m.gpkg"
same vgm_o_is_source_intact "$W/m.gpkg" "$W/m.orig"
expect vgm_o_is_source_other_spelling 1 'refusing to overwrite input' -- \
    "$GK" variogram "$W/m.gpkg" -zfield zinc -o "$W/../$(basename "$W")/./m.gpkg"
same vgm_o_other_spelling_intact "$W/m.gpkg" "$W/m.orig"
ln "$W/m.gpkg" "$W/hard.gpkg"
expect vgm_o_is_hard_link_of_source 1 'refusing to overwrite input' -- \
    "$GK" variogram "$W/m.gpkg" -zfield zinc -o "$W/hard.gpkg"
rm -f "$W/hard.gpkg"
same vgm_o_hard_link_intact "$W/m.gpkg" "$W/m.orig"
"$GK" variogram "$W/m.gpkg" -zfield zinc --fit Sph --format json -o "$W/model.json" 2>/dev/null
cp "$W/model.json" "$W/model.orig"
expect vgm_o_is_model 1 'refusing to overwrite input.*model\.json' -- \
    "$GK" variogram "$W/m.gpkg" -zfield zinc --model "$W/model.json" -o "$W/model.json"
same vgm_o_is_model_intact "$W/model.json" "$W/model.orig"
expect vgm_o_is_plot 1 'same file' -- \
    "$GK" variogram "$W/m.gpkg" -zfield zinc -o "$W/v.png" --plot "$W/v.png"
expect grid_dst_is_model 1 'refusing to overwrite input.*model\.json' -- \
    "$GK" grid "${G[@]}" -of GTiff -a "kriging:variogram=$W/model.json" "$W/m.gpkg" "$W/model.json"
same grid_dst_is_model_intact "$W/model.json" "$W/model.orig"
expect cv_o_is_model 1 'refusing to overwrite input.*model\.json' -- \
    "$GK" cv -zfield zinc -a "kriging:variogram=$W/model.json" "$W/m.gpkg" -o "$W/model.json"
same cv_o_is_model_intact "$W/model.json" "$W/model.orig"
cp "$DATA"/utm_2000.* "$W/"
cp "$W/utm_2000.dbf" "$W/dbf.orig"
expect grid_dst_is_source_sidecar 1 'refusing to overwrite input' -- \
    "$GK" grid -q -zfield elev -outsize 20 20 -of GTiff "$W/utm_2000.shp" "$W/utm_2000.dbf"
same grid_dst_is_source_sidecar_intact "$W/utm_2000.dbf" "$W/dbf.orig"
# a raster written as another file's part (x.dbf, x.shp being no input): that
# file's dataset keeps its other files
mkdir -p "$W/part" && cp "$DATA"/utm_2000.* "$W/part/"
expect grid_dst_is_other_datasets_part 0 '' -- \
    "$GK" grid -q -zfield zinc -outsize 20 20 -of GTiff "$W/m.gpkg" "$W/part/utm_2000.dbf"
if [ -e "$W/part/utm_2000.shp" ] && [ -e "$W/part/utm_2000.shx" ] && [ -e "$W/part/utm_2000.prj" ]; then
    ok grid_dst_is_other_datasets_part_rest_kept
else
    ko grid_dst_is_other_datasets_part_rest_kept "$(ls "$W/part" | tr '\n' ' ')"
fi
# formats that write no file: refused before any work, nothing made
expect grid_of_mem 1 "'MEM' writes no file" -- "$GK" grid "${G[@]}" -of MEM "$W/m.gpkg" "$W/mem.tif"
expect cv_o_of_memory_ext 1 "no vector driver" -- "$GK" cv -zfield zinc -a nearest "$W/m.gpkg" -o "$W/r.xyz123"
[ -e "$W/mem.tif" ] && ko grid_of_mem_nothing "mem.tif made" || ok grid_of_mem_nothing
# GDAL's virtual file systems: refused by name for every output (no rename there)
expect grid_dst_vsimem 1 "/vsimem/g.tif: GDAL's virtual file systems" -- "$GK" grid "${G[@]}" "$W/m.gpkg" /vsimem/g.tif
expect cv_o_vsimem 1 "/vsimem/cv.gpkg: GDAL's virtual" -- "$GK" cv -zfield zinc -a nearest "$W/m.gpkg" -o /vsimem/cv.gpkg
expect vgm_o_vsis3 1 "/vsis3/b/v.txt: GDAL's virtual" -- "$GK" variogram "$W/m.gpkg" -zfield zinc -o /vsis3/b/v.txt
expect vgm_ok 0 '' -- "$GK" variogram "$W/m.gpkg" -zfield zinc -o "$W/v.txt" --plot "$W/v.svg"
if grep -q '^#.*points' "$W/v.txt" && grep -q '<svg' "$W/v.svg"; then ok vgm_ok_files; else ko vgm_ok_files "v.txt or v.svg wrong"; fi

# ---- 4. only regular files are replaced ---------------------------------------
check_node() { # NAME PATH TYPE MAJ:MIN
    local t
    t=$(stat -c '%F %t:%T' "$2" 2>/dev/null)
    if [ "$t" = "$3" ]; then ok "$1"; else ko "$1" "$2 is now '$t', was '$3'"; fi
}
if [ "$(id -u)" = 0 ] && mknod "$W/null" c 1 3 2>/dev/null && mknod "$W/null.png" c 1 3; then
    expect grid_dst_device 1 'null.*character device' -- "$GK" grid "${G[@]}" "$W/m.gpkg" "$W/null"
    check_node grid_dst_device_untouched "$W/null" "character special file 1:3"
    expect vgm_o_device 1 'null.*character device' -- "$GK" variogram "$W/m.gpkg" -zfield zinc -o "$W/null"
    expect vgm_plot_device 1 'null\.png.*character device' -- "$GK" variogram "$W/m.gpkg" -zfield zinc --plot "$W/null.png"
    expect cv_o_device 1 'null.*character device' -- "$GK" cv -zfield zinc -a invdist "$W/m.gpkg" -o "$W/null"
    ln -s null "$W/devlink.tif"
    expect grid_dst_link_to_device 1 'devlink\.tif links to .*null.*character device' -- \
        "$GK" grid "${G[@]}" "$W/m.gpkg" "$W/devlink.tif"
    if [ -L "$W/devlink.tif" ] && [ "$(readlink "$W/devlink.tif")" = null ]; then ok devlink_untouched; else ko devlink_untouched "link changed"; fi
    check_node all_device_untouched "$W/null" "character special file 1:3"
    check_node plot_device_untouched "$W/null.png" "character special file 1:3"
else
    echo "SKIP device outputs: mknod needs root"
fi
mkfifo "$W/fifo" "$W/fifo.tif" "$W/fifo.png"
expect grid_dst_fifo 1 'fifo\.tif.*FIFO' -- "$GK" grid "${G[@]}" "$W/m.gpkg" "$W/fifo.tif"
expect vgm_o_fifo 1 'fifo.*FIFO' -- "$GK" variogram "$W/m.gpkg" -zfield zinc -o "$W/fifo"
expect vgm_plot_fifo 1 'fifo\.png.*FIFO' -- "$GK" variogram "$W/m.gpkg" -zfield zinc --plot "$W/fifo.png"
expect cv_o_fifo 1 'fifo.*FIFO' -- "$GK" cv -zfield zinc -a invdist "$W/m.gpkg" -o "$W/fifo"
for f in fifo fifo.tif fifo.png; do check_node "fifo_untouched_$f" "$W/$f" "fifo 0:0"; done

# a link is written through: the target replaced, the link still a link to it
"$GK" grid "${G[@]}" "$W/m.gpkg" "$W/target.tif" 2>/dev/null
ln -s target.tif "$W/link.tif"
expect grid_dst_symlink 0 '' -- "$GK" grid -q -zfield zinc -outsize 7 9 "$W/m.gpkg" "$W/link.tif"
if [ -L "$W/link.tif" ] && [ "$(readlink "$W/link.tif")" = target.tif ] &&
    gdalinfo "$W/target.tif" 2>/dev/null | grep -q 'Size is 7, 9'; then
    ok grid_dst_symlink_target_replaced
else
    ko grid_dst_symlink_target_replaced "link or target wrong: $(ls -l "$W/link.tif")"
fi
echo old >"$W/t.txt"
ln -s t.txt "$W/l.txt"
expect vgm_o_symlink 0 '' -- "$GK" variogram "$W/m.gpkg" -zfield zinc -o "$W/l.txt"
if [ -L "$W/l.txt" ] && grep -q '^#.*points' "$W/t.txt"; then ok vgm_o_symlink_target; else ko vgm_o_symlink_target "link or target wrong"; fi
ln -s m.gpkg "$W/to_input.tif"
expect grid_dst_symlink_to_input 1 'refusing to overwrite input' -- "$GK" grid "${G[@]}" "$W/m.gpkg" "$W/to_input.tif"
same grid_dst_symlink_to_input_intact "$W/m.gpkg" "$W/m.orig"
ln -s nowhere/x.tif "$W/dangling.tif"
expect grid_dst_dangling_symlink 1 'dangling\.tif.*symbolic link' -- "$GK" grid "${G[@]}" "$W/m.gpkg" "$W/dangling.tif"
if [ -L "$W/dangling.tif" ] && [ "$(readlink "$W/dangling.tif")" = nowhere/x.tif ]; then ok dangling_untouched; else ko dangling_untouched "link changed"; fi

# a link planted under the temporary name a run will use (its pid chosen
# through ns_last_pid, root): never written through, never deleted
planted() { # NAME DST TMP_EXT -- command (run as the pid planted for)
    local name=$1 dst=$2 ext=$3
    shift 4
    if [ ! -w /proc/sys/kernel/ns_last_pid ]; then
        echo "SKIP $name: /proc/sys/kernel/ns_last_pid not writable"
        return
    fi
    local want stem
    want=$(( ($(cat /proc/sys/kernel/ns_last_pid) + 300) % $(cat /proc/sys/kernel/pid_max) ))
    [ $want -ge 300 ] || want=300
    stem=${dst%.*}
    echo secret >"$W/victim"
    ln -s victim "$stem.gridkit-tmp-$want.$ext"
    echo $((want - 1)) >/proc/sys/kernel/ns_last_pid 2>/dev/null
    "$@" >"$W/$name.out" 2>"$W/$name.err" & # gridkit itself takes the pid (no timeout in between)
    local pid=$!
    (sleep 60 && kill -KILL $pid) >/dev/null 2>&1 & # no pipe of ctest held open
    local watchdog=$!
    wait $pid
    local rc=$?
    kill $watchdog 2>/dev/null
    wait $watchdog 2>/dev/null
    if [ "$pid" != "$want" ]; then
        echo "SKIP $name: the run got pid $pid, not $want"
    elif [ $rc -ne 0 ] && [ $rc -lt 124 ] && grep -q 'not a file of gridkit' "$W/$name.err" &&
        [ "$(cat "$W/victim")" = secret ] && [ -L "$stem.gridkit-tmp-$want.$ext" ]; then
        ok "$name"
    else
        ko "$name" "rc $rc, victim '$(head -c 40 "$W/victim" | tr -cd '[:print:]')', link $(ls -l "$stem.gridkit-tmp-$want.$ext" 2>&1) | $(head -c 300 "$W/$name.err")"
    fi
    rm -f "$stem.gridkit-tmp-$want.$ext"
}
planted planted_link_grid "$W/p.tif" tif -- "$GK" grid "${G[@]}" "$W/m.gpkg" "$W/p.tif"
planted planted_link_vgm_o "$W/p.txt" txt -- "$GK" variogram "$W/m.gpkg" -zfield zinc -o "$W/p.txt"
planted planted_link_vgm_plot "$W/p.png" png -- "$GK" variogram "$W/m.gpkg" -zfield zinc --plot "$W/p.png"
planted planted_link_cv_o "$W/p.gpkg" gpkg -- "$GK" cv -zfield zinc -a invdist "$W/m.gpkg" -o "$W/p.gpkg"

# ---- 6. thread counts ------------------------------------------------------
for n in 100000 70000; do
    expect "threads_$n" 1 "threads $n.*at most [0-9]+" -- "$GK" grid "${G[@]}" --threads $n "$W/m.gpkg" "$W/thr.tif"
done
expect gdal_num_threads_100000 1 'GDAL_NUM_THREADS=100000.*at most [0-9]+' -- \
    env GDAL_NUM_THREADS=100000 "$GK" grid "${G[@]}" "$W/m.gpkg" "$W/thr.tif"
expect cv_threads_70000 1 'threads 70000.*at most' -- "$GK" cv -zfield zinc -a invdist --threads 70000 "$W/m.gpkg"
expect vgm_threads_70000 1 'threads 70000.*at most' -- "$GK" variogram "$W/m.gpkg" -zfield zinc --threads 70000
# the limit itself is accepted and runs (at most 256 threads here: CI's process limits)
lim=$(grep -oE 'at most [0-9]+' "$W/threads_70000.err" | grep -oE '[0-9]+')
[ "${lim:-1}" -le 256 ] || lim=256
expect threads_at_limit 0 '' -- "$GK" grid "${G[@]}" --threads "${lim:-1}" "$W/m.gpkg" "$W/thr.tif"

# ---- 5. cancelled and killed runs ------------------------------------------
set -m # background jobs get SIGINT (a non-interactive shell would ignore it for them)
BIG=(-q --threads 1 -ot Byte -zfield zinc -a invdist:power=2 -outsize 9000 9000)
"$GK" grid -q -ot Byte -zfield zinc -outsize 50 50 "$W/m.gpkg" "$W/big.tif" 2>/dev/null
cp "$W/big.tif" "$W/big.orig"
start_big() { # starts the run, waits for its temporary; pid in $big
    "$GK" grid "${BIG[@]}" "$W/m.gpkg" "$W/big.tif" 2>"$W/big.err" &
    big=$!
    for _ in $(seq 200); do ls "$W" | grep -q 'big\.gridkit-tmp' && break; sleep 0.05; done
    sleep 0.3
}
for sig in INT TERM HUP; do
    start_big
    had=$(ls "$W" | grep -c 'big\.gridkit-tmp')
    kill -$sig $big
    wait $big
    rc=$?
    want=$((128 + $(kill -l $sig)))
    left=$(ls "$W" | grep 'gridkit-tmp')
    if [ "$had" -ge 1 ] && [ $rc -eq $want ] && [ -z "$left" ] && cmp -s "$W/big.tif" "$W/big.orig"; then
        ok "signal_$sig"
    else
        ko "signal_$sig" "temporary seen $had, rc $rc (want $want), left '$left', previous output $(cmp -s "$W/big.tif" "$W/big.orig" && echo intact || echo changed)"
    fi
done
start_big
kill -KILL $big
wait $big
rc=$?
stale=$(ls "$W" | grep 'big\.gridkit-tmp')
# names like ours that are not this output's temporaries, and one of a live process (pid 1)
touch "$W/bigger.gridkit-tmp-999999.tif" "$W/big.gridkit-tmp-notes.tif" "$W/big.gridkit-tmp-1.tif"
expect_after_kill() {
    "$GK" grid "${G[@]}" "$W/m.gpkg" "$W/big.tif" 2>"$W/rerun.err"
    local left
    left=$(ls "$W" | grep 'gridkit-tmp' | tr '\n' ' ')
    if [ $rc -eq 137 ] && [ -n "$stale" ] && [ "$left" = "big.gridkit-tmp-1.tif big.gridkit-tmp-notes.tif bigger.gridkit-tmp-999999.tif " ]; then
        ok sigkill_stale_removed_by_next_run
    else
        ko sigkill_stale_removed_by_next_run "rc $rc, stale '$stale', left after rerun '$left'"
    fi
}
expect_after_kill
rm -f "$W"/big*.gridkit-tmp-*
# a killed GML or shapefile writer's temporaries, side-cars included (the
# schema, the parts): removed by the next run for that output (999999: no
# such process)
touch "$W/lines.gridkit-tmp-999999.gml" "$W/lines.gridkit-tmp-999999.xsd" \
    "$W/lines.gridkit-tmp-999999.gfs" "$W/lines.xsd.keep"
"$GK" ridges -q "$W/m.gpkg" "$W/lines.gml" -a curve:r1=300 2>"$W/lines.err"
left=$(ls "$W" | grep 'lines\.gridkit-tmp' | tr '\n' ' ')
if [ -z "$left" ] && [ -e "$W/lines.gml" ] && [ -e "$W/lines.xsd" ] && [ -e "$W/lines.xsd.keep" ]; then
    ok stale_sidecars_removed_by_next_run
else
    ko stale_sidecars_removed_by_next_run "left: '$left' ($(head -c 200 "$W/lines.err"))"
fi
# a killed CreateCopy run's intermediate GTiff (PNG is written from one) and an
# output without an extension (variogram -o NAME: SQLite's journal beside it):
# removed by the next run for that output; a name that only starts like
# theirs (-notes) is no temporary and stays
touch "$W/pic.gridkit-tmp-999999-src.tif" "$W/pic.gridkit-tmp-999999-src.tif.aux.xml" \
    "$W/pic.gridkit-tmp-999999.png"
expect stale_intermediate_run 0 '' -- "$GK" grid "${G[@]}" -of PNG -ot Byte "$W/m.gpkg" "$W/pic.png"
left=$(ls "$W" | grep 'pic\.gridkit-tmp' | tr '\n' ' ')
if [ -z "$left" ] && [ -s "$W/pic.png" ]; then ok stale_intermediate_removed; else ko stale_intermediate_removed "left: '$left'"; fi
touch "$W/vout.gridkit-tmp-999999" "$W/vout.gridkit-tmp-999999-journal" \
    "$W/vout.gridkit-tmp-999999.aux.xml" "$W/vout.gridkit-tmp-999999-notes"
"$GK" variogram "$W/m.gpkg" -zfield zinc -o "$W/vout" 2>"$W/vout.err"
left=$(ls "$W" | grep 'vout\.gridkit-tmp' | tr '\n' ' ')
if [ "$left" = "vout.gridkit-tmp-999999-notes " ] && grep -q '^#.*points' "$W/vout"; then
    ok stale_no_extension_removed
else
    ko stale_no_extension_removed "left: '$left' ($(head -c 200 "$W/vout.err"))"
fi
rm -f "$W/vout.gridkit-tmp-999999-notes"
# a pid reused since: a live process under the temporary's pid that started after
# the file last changed is no writer of it. The pid is picked through
# /proc/sys/kernel/ns_last_pid (root); skipped where that is not possible.
if [ -w /proc/sys/kernel/ns_last_pid ]; then
    want=$(( ($(cat /proc/sys/kernel/ns_last_pid) + 300) % $(cat /proc/sys/kernel/pid_max) ))
    [ $want -ge 300 ] || want=300
    : >"$W/big.gridkit-tmp-$want.tif"
    sleep 2.2 # the process below starts well after the file's ctime
    echo $((want - 1)) >/proc/sys/kernel/ns_last_pid 2>/dev/null
    sleep 30 &
    reuser=$!
    if [ "$reuser" = "$want" ]; then
        "$GK" grid "${G[@]}" "$W/m.gpkg" "$W/big.tif" 2>/dev/null
        if [ ! -e "$W/big.gridkit-tmp-$want.tif" ]; then ok stale_with_reused_pid_removed; else ko stale_with_reused_pid_removed "big.gridkit-tmp-$want.tif kept although pid $want started after it"; fi
    else
        echo "SKIP stale_with_reused_pid_removed: got pid $reuser, not $want (another process took it)"
    fi
    kill $reuser 2>/dev/null
    wait $reuser 2>/dev/null
    rm -f "$W/big.gridkit-tmp-$want.tif"
else
    echo "SKIP stale_with_reused_pid_removed: /proc/sys/kernel/ns_last_pid not writable"
fi
# killed between its two renames: the old output aside, none in place -> put back
cp "$W/big.orig" "$W/big.gridkit-tmp-999999-old.tif"
rm -f "$W/big.tif"
"$GK" variogram "$W/m.gpkg" -zfield zinc -o "$W/big.tif.txt" 2>/dev/null # another output: no effect
if [ ! -e "$W/big.tif" ]; then ok stale_aside_kept_for_other_output; else ko stale_aside_kept_for_other_output "restored by another output's run"; fi
# a run that fails after checking its output (cv writes no .tif) shows what the sweep did
expect stale_aside_restored 1 'vector driver' -- "$GK" cv -zfield zinc -a invdist "$W/m.gpkg" -o "$W/big.tif"
if cmp -s "$W/big.tif" "$W/big.orig"; then ok stale_aside_restored_content; else ko stale_aside_restored_content "big.tif not the old output"; fi

finish
