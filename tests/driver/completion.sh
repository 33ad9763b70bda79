#!/bin/bash
# SPDX-License-Identifier: MIT
# completion.sh GRIDKIT DATA WORK: scripts/gridkit-completion.bash completes
# commands, options from each command's --help, algorithms and their keys
# from the registry (gridkit grid --algorithms) and the ridge methods.
# Ends with "N passed, M failed".
set -u
. "$(dirname "$0")/suite.sh"
. "$(dirname "$0")/../../scripts/gridkit-completion.bash"
unset -f _init_completion 2>/dev/null
# has LINE WANTED...: completing LINE (its last word) offers every WANTED
has() {
    local line=$1
    shift
    read -r -a COMP_WORDS <<<"$line"
    [[ $line == *" " ]] && COMP_WORDS+=("")
    COMP_WORDS[0]=$GK
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _gridkit
    local w miss=""
    for w in "$@"; do
        printf '%s\n' "${COMPREPLY[@]}" | grep -qxF -- "$w" || miss+="$w "
    done
    check "$line" "${miss:+missing: $miss(offered: ${COMPREPLY[*]:0:12})}"
}
has "gridkit gr" grid
has "gridkit " grid variogram cv ridges --help --version
has "gridkit grid -a inv" invdist invdistnn
has "gridkit grid -a kriging" kriging
has "gridkit grid -a invdist:po" "invdist:power="
has "gridkit grid -a invdistnn:power=2:max" "invdistnn:power=2:max_points="
has "gridkit grid -zf" -zfield
has "gridkit grid --dev" --device
has "gridkit grid --device cu" cuda cuda:0
has "gridkit ridges -a de" density
has "gridkit ridges -a density:band" "density:bandwidth="
has "gridkit ridges -a curve:r" "curve:r1=" "curve:r2="
has "gridkit variogram data.gpkg --fo" --format
has "gridkit cv x.gpkg -a average:rad" "average:radius1=" "average:radius="
finish
