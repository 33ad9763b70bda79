#!/bin/sh
# SPDX-License-Identifier: MIT
# kdr_peer.sh BIN WORK - ridges_kdr: gridkit's density against R's ks::kdr on
# the same 2,000 points of a noisy circle, then a spiral (kdr_peer.c,
# kdr_peer.R).
# Exit 77 (ctest: skipped) when R or its ks package is missing.
set -e
bin=$1
work=$2
command -v Rscript >/dev/null 2>&1 || { echo "skipped: no Rscript"; exit 77; }
Rscript -e 'suppressPackageStartupMessages(library(ks))' >/dev/null 2>&1 ||
  { echo "skipped: R package ks missing (Debian: r-cran-ks)"; exit 77; }
here=$(dirname "$0")
for scene in circle spiral; do
  rm -rf "$work/$scene"
  mkdir -p "$work/$scene"
  "$bin" ours $scene "$work/$scene"
  OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 Rscript "$here/kdr_peer.R" "$work/$scene"
  "$bin" compare $scene "$work/$scene"
done
