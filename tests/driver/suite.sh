# SPDX-License-Identifier: MIT
# suite.sh - sourced by the shell suites of tests/driver: their arguments
# made absolute (a suite may cd), and the tally.
#   . suite.sh        sets GK (the gridkit binary), DATA, WORK from the
#                     suite's first three arguments (a fourth is its own)
# ok NAME / ko NAME WHY / check NAME PROBLEMS ("" = pass); finish ends with
# "N passed, M failed" and the exit status.
GK=${1:?usage: SUITE GRIDKIT DATA_DIR WORK_DIR}
DATA=${2:?data dir}
WORK=${3:?work dir}
case $GK in /*) ;; *) GK=$PWD/$GK ;; esac
case $DATA in /*) ;; *) DATA=$PWD/$DATA ;; esac
case $WORK in /*) ;; *) WORK=$PWD/$WORK ;; esac
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1: $2"; }
check() { if [ -z "$2" ]; then ok "$1"; else ko "$1" "$2"; fi; }
finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
