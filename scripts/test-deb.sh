#!/bin/bash
# SPDX-License-Identifier: MIT
# The Debian packages on this machine, as a user gets them (CI's last step,
# after the test suite; as root, it installs into /usr and removes again):
# scripts/make-deb.sh, `apt-get install ./build-deb/*.deb`, the README's job
# through /usr/bin/gridkit (the bytes of the build's own command), GDAL's
# programs finding the plugin in their own folder, the man pages and the
# completion, the C library through pkg-config, the Python module (python3
# -c 'import gridkit' against /usr/bin/gridkit's bytes); then `apt-get purge` and
# nothing left behind. Exit status 0 when every check holds.
set -u
cd "$(dirname "$0")/.."
fail=0
ok() { echo "PASS $1"; }
ko() { echo "FAIL $1: $2"; fail=1; }
./scripts/make-deb.sh "$@" || { echo "FAIL make-deb"; exit 1; }
debs=$(ls build-deb/*.deb)
pkgs=$(for d in $debs; do dpkg-deb -f "$d" Package; done)
for p in $pkgs; do
    dpkg -s "$p" >/dev/null 2>&1 && { echo "FAIL $p is already installed: this test installs and removes it"; exit 1; }
done
apt-get install -y -qq $(printf './%s ' $debs) >/tmp/gk-deb-install.log 2>&1 ||
    { ko "apt-get install" "$(tail -5 /tmp/gk-deb-install.log)"; exit 1; }
ok "apt-get install ${pkgs//$'\n'/ }"
files=$(for p in $pkgs; do dpkg -L "$p"; done | sort -u)
W=$(mktemp -d)
# the README's job, from the installed files only
job=(grid -zfield elev -a invdistnn:radius=400:max_points=12:nodata=-9999 -outsize 500 500)
if (cd / && /usr/bin/gridkit "${job[@]}" "$OLDPWD/data/utm_2000.shp" "$W/installed.tif") 2>"$W/err" &&
    build-deb/gridkit "${job[@]}" data/utm_2000.shp "$W/built.tif" && cmp -s "$W/installed.tif" "$W/built.tif"; then
    ok "the README's job through /usr/bin/gridkit"
else
    ko "the README's job through /usr/bin/gridkit" "$(head -c 300 "$W/err")"
fi
env -u GDAL_DRIVER_PATH gdalinfo --formats 2>&1 | grep -q GRIDKIT && ok "gdalinfo --formats lists GRIDKIT" ||
    ko "gdalinfo --formats lists GRIDKIT" "GDAL does not find the plugin in its folder"
env -u GDAL_DRIVER_PATH gdalinfo "GRIDKIT:-zfield logzinc -a invdistnn:radius=1000:max_points=12 -outsize 50 40 $PWD/data/meuse.gpkg" \
    2>&1 | grep -q "Size is 50, 40" && ok "gdalinfo on a GRIDKIT: string" || ko "gdalinfo on a GRIDKIT: string" "no 50 x 40 raster"
for page in gridkit gridkit-grid gridkit-variogram gridkit-cv gridkit-ridges; do
    f=/usr/share/man/man1/$page.1.gz
    if [ -f "$f" ] && zcat "$f" | { if command -v groff >/dev/null; then groff -man -Tutf8 2>/dev/null; else cat; fi; } |
        grep -q "Usage: gridkit"; then :; else
        ko "man page $page" "missing or not readable as a man page"
    fi
done
ok "man pages checked"
(. /usr/share/bash-completion/completions/gridkit && COMP_WORDS=(gridkit grid -a inv) &&
    COMP_CWORD=3 && _gridkit && printf '%s\n' "${COMPREPLY[@]}" | grep -qx invdistnn) && ok "bash completion" ||
    ko "bash completion" "gridkit grid -a inv<TAB> does not offer invdistnn"
if dpkg -s libgridkit-dev >/dev/null 2>&1; then
    awk '/^## Example/{e=1} e&&/^```c$/{c=1;next} c&&/^```$/{exit} c' docs/library.md >"$W/ex.c"
    cc -std=c11 -Wall -Werror "$W/ex.c" $(pkg-config --cflags --libs gridkit) -o "$W/ex" && "$W/ex" | grep -q '^ 29.630 ' &&
        ok "the library's example through pkg-config" || ko "the library's example through pkg-config" "did not build or run"
fi
if dpkg -s python3-gridkit >/dev/null 2>&1; then
    # the Python module from /usr/lib/python3/dist-packages, on the installed
    # library, against /usr/bin/gridkit's bytes (a raw ENVI raster: no GDAL in Python)
    pyjob=(-a invdistnn:radius=150:max_points=8 -txe 0 5000 -tye 0 5000 -outsize 200 150)
    if (cd / && /usr/bin/gridkit grid -q "${pyjob[@]}" -of ENVI "$OLDPWD/data/points_10k.xyz" "$W/py.envi") &&
        (cd / && env -u PYTHONPATH -u GRIDKIT_LIBRARY -u LD_LIBRARY_PATH /usr/bin/python3 -c '
import sys, numpy as np, gridkit
assert gridkit.library_path.startswith("/usr/lib/"), gridkit.library_path
p = np.loadtxt(sys.argv[1])
v, gt = gridkit.grid(p[:, 0], p[:, 1], p[:, 2], "invdistnn:radius=150:max_points=8",
                     extent=(0, 5000, 0, 5000), shape=(150, 200))
sys.exit(v.tobytes() != open(sys.argv[2], "rb").read())' "$OLDPWD/data/points_10k.xyz" "$W/py.envi") 2>"$W/pyerr"; then
        ok "python3 -c 'import gridkit': /usr/bin/gridkit's bytes"
    else
        ko "python3 -c 'import gridkit': /usr/bin/gridkit's bytes" "$(tail -c 300 "$W/pyerr")"
    fi
fi
apt-get purge -y -qq $pkgs >/tmp/gk-deb-purge.log 2>&1 || ko "apt-get purge" "$(tail -3 /tmp/gk-deb-purge.log)"
left=""
for f in $files; do [ -f "$f" ] && left+="$f "; done
[ -d /usr/lib/python3/dist-packages/gridkit ] && left+="/usr/lib/python3/dist-packages/gridkit (bytecode?) "
[ -z "$left" ] && ok "purged, nothing left" || ko "purged, nothing left" "$left"
rm -rf "$W"
exit $fail
