#!/bin/bash
# SPDX-License-Identifier: MIT
# cv_plot.sh GRIDKIT DATA WORK: `gridkit cv --plot`: a PNG of the chart's
# size and an SVG, the same statistics on stdout with and without it, and
# the refusals before any work (extension, -o and --plot one file, an input).
# Ends with "N passed, M failed".
set -u
. "$(dirname "$0")/suite.sh"
W=$WORK
rm -rf "$W" && mkdir -p "$W"
M=$DATA/meuse.gpkg
A=(-q -zfield logzinc -a invdistnn:radius=1000:max_points=12)
"$GK" cv "${A[@]}" "$M" >"$W/plain.txt" || ko plain "cv failed"
if "$GK" cv "${A[@]}" "$M" --plot "$W/cv.png" >"$W/png.txt" 2>"$W/png.err"; then
    size=$(python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read(24)
print(d[:8] == b"\x89PNG\r\n\x1a\n" and "%dx%d" % struct.unpack(">II", d[16:24]))' "$W/cv.png")
    check png "$([ "$size" = 1240x640 ] || echo "not a 1240x640 PNG: $size")"
    check png_same_summary "$(cmp -s "$W/plain.txt" "$W/png.txt" || echo "the summary changed with --plot")"
else
    ko png "$(head -c 300 "$W/png.err")"
fi
if "$GK" cv "${A[@]}" --nfold 5 "$M" --plot "$W/cv.svg" >/dev/null 2>"$W/svg.err"; then
    check svg "$(grep -q 'width="1240pt" height="640pt"' "$W/cv.svg" || echo "not the chart's SVG")"
else
    ko svg "$(head -c 300 "$W/svg.err")"
fi
# refused before the work, nothing written
expect_refusal() { # NAME REGEX args...
    local name=$1 re=$2
    shift 2
    if "$GK" cv "${A[@]}" "$@" >/dev/null 2>"$W/$name.err"; then
        ko "$name" "ran"
    elif grep -qE -- "$re" "$W/$name.err"; then
        ok "$name"
    else
        ko "$name" "$(cat "$W/$name.err")"
    fi
}
expect_refusal plot_ext "--plot .*must end in .png or .svg" "$M" --plot "$W/cv.pdf"
[ -e "$W/cv.pdf" ] && ko plot_ext_nothing "cv.pdf made" || ok plot_ext_nothing
expect_refusal plot_is_o "-o and --plot are the same file" "$M" -o "$W/same.png" --plot "$W/same.png"
cp "$M" "$W/in.gpkg"
expect_refusal plot_is_input "refusing to overwrite input" "$W/in.gpkg" --plot "$W/in.gpkg"
cmp -s "$M" "$W/in.gpkg" && ok plot_is_input_intact || ko plot_is_input_intact "the input changed"
expect_refusal plot_twice "--plot given twice" "$M" --plot "$W/a.png" --plot "$W/b.png"
finish
