#!/bin/bash
# SPDX-License-Identifier: MIT
# -a gauss against spatstat (R package spatstat.explore): densityfun(X,
# sigma, weights, edge=FALSE) evaluates the weighted Gaussian density
# sum w exp(-d^2/(2 sigma^2)) / (2 pi sigma^2) exactly at any location (a
# direct sum in double: its own error ~1e-15 relative to sum|w|, not the
# FFT that density.ppp uses on pixels by default, whose discretisation
# error is of the pixel size and would hide the bound). We ask it at our
# pixel centres, with signed weights, on four point sets: uniform,
# clustered and lattice points in projected coordinates (1e5-1e6 m), and
# clustered points in degrees; and check |gridkit - spatstat| <= the bound
# gridkit states in GRIDKIT_PREPARED (E sum|w| / (2 pi sigma^2); 0 for
# direct; (E + 1/64) sum|w| / (2 pi sigma^2) for fft) plus 1e-10 of that
# scale for both sides' double rounding, for methods direct, cutoff, ifgt,
# auto and fft at E = 1e-3, 1e-6, 1e-9. Exit 77 (skip) without R,
# spatstat.explore or python3-gdal.
# Usage: gauss_spatstat.sh BUILD_DIR WORK_DIR
set -u
BUILD=$1 WORK=$2
mkdir -p "$WORK"
command -v Rscript >/dev/null || { echo "SKIP: no Rscript"; exit 77; }
Rscript -e 'suppressMessages(library(spatstat.explore))' >/dev/null 2>&1 ||
  { echo "SKIP: no spatstat.explore"; exit 77; }
PY=/usr/bin/python3
$PY -c 'from osgeo import gdal; import numpy' 2>/dev/null || { echo "SKIP: no python3-gdal"; exit 77; }

NX=80 NY=60
FAILS=0
# set: kind x0 y0 L sigma
for set in "clustered 512000 4180000 20000 700" "uniform 512000 4180000 20000 700" \
           "lattice 512000 4180000 20000 500" "clustered 10.3 45.1 0.2 0.007"; do
  read -r KIND X0 Y0 L SIG <<< "$set"
  Rscript - "$WORK" $X0 $Y0 $L $NX $NY $SIG $KIND <<'REOF' || { echo "FAIL: R ($set)"; exit 1; }
suppressMessages(library(spatstat.explore))
a <- commandArgs(TRUE); w <- a[1]; p <- as.numeric(a[2:7]); kind <- a[8]
x0 <- p[1]; y0 <- p[2]; L <- p[3]; nx <- p[4]; ny <- p[5]; sig <- p[6]
set.seed(7); n <- 3000
H <- 0.75 * L
if (kind == "clustered") {
  cx <- x0 + L * c(0.2, 0.5, 0.8); cy <- y0 + H * c(0.3, 0.6, 0.4)
  k <- sample(1:3, n, TRUE)
  x <- pmin(pmax(cx[k] + rnorm(n, 0, L / 12), x0), x0 + L)
  y <- pmin(pmax(cy[k] + rnorm(n, 0, L / 12), y0), y0 + H)
} else if (kind == "uniform") {
  x <- x0 + L * runif(n); y <- y0 + H * runif(n)
} else { # a 60 x 50 lattice, off the pixel centres
  g <- expand.grid(i = 0:59, j = 0:49)
  x <- x0 + L * (g$i + 0.3) / 60; y <- y0 + H * (g$j + 0.3) / 50; n <- length(x)
}
wt <- runif(n, -1, 3)
write.table(data.frame(x = sprintf("%.17g", x), y = sprintf("%.17g", y), z = sprintf("%.17g", wt)),
            file.path(w, "pts.xyz"), quote = FALSE, row.names = FALSE)
X <- ppp(x, y, window = owin(c(x0, x0 + L), c(y0, y0 + H)))
f <- densityfun(X, sigma = sig, edge = FALSE, weights = wt)
gx <- x0 + (0:(nx - 1) + 0.5) * L / nx
gy <- y0 + H - (0:(ny - 1) + 0.5) * H / ny   # row 0 at the top
G <- expand.grid(i = 1:nx, j = 1:ny)
v <- f(gx[G$i], gy[G$j])
writeLines(sprintf("%.17g", as.numeric(v)), file.path(w, "ref.txt"))
writeLines(sprintf("%.17g", sum(abs(wt))), file.path(w, "sumabs.txt"))
REOF
  X1=$($PY -c "print(repr($X0 + $L))") Y1=$($PY -c "print(repr($Y0 + 0.75 * $L))")
  for m in direct cutoff ifgt auto fft; do
    for e in 1e-3 1e-6 1e-9; do
      "$BUILD/gridkit" grid -q -zfield z -a gauss:bandwidth=$SIG:epsilon=$e:method=$m \
        -txe $X0 $X1 -tye $Y0 $Y1 -outsize $NX $NY -ot Float64 "$WORK/pts.xyz" "$WORK/g.tif" ||
        { echo "FAIL $KIND $m $e: gridkit"; FAILS=$((FAILS + 1)); continue; }
      $PY - "$WORK" $e $SIG $m "$KIND $X0" <<'PEOF' || FAILS=$((FAILS + 1))
import sys, math, numpy as np
from osgeo import gdal
w, e, sig, m, name = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
g = gdal.Open(w + "/g.tif").ReadAsArray().astype(np.float64).ravel()
r = np.loadtxt(w + "/ref.txt")
scale = float(open(w + "/sumabs.txt").read()) / (2 * math.pi * sig * sig)
# the bound the band states: E sum|w| / (2 pi sigma^2), 0 for direct, plus the binning's for fft
ds = gdal.Open(w + "/g.tif")  # kept: a band outlives no dataset
md = ds.GetRasterBand(1).GetMetadataItem("GRIDKIT_PREPARED") or ""
said = dict(kv.split("=", 1) for kv in md.split(":")[1:] if "=" in kv)
want = {"direct": 0.0, "fft": (e + 1 / 64) * scale}.get(m, e * scale)
ok_md = "bound" in said and abs(float(said["bound"]) - want) <= 1e-5 * want + 1e-300
err = np.abs(g - r).max()
tol = want + 1e-10 * scale
print("%s %s %s: max |gridkit - spatstat| = %.3g (%.3g of the peak), bound %.3g; "
      "GRIDKIT_PREPARED bound=%s %s" % (name, m, sys.argv[2], err, err / np.abs(r).max(), tol,
                                        said.get("bound"), "ok" if ok_md else "FAIL"))
sys.exit(0 if err <= tol and ok_md else 1)
PEOF
    done
  done
done
[ $FAILS -eq 0 ] && echo "gauss_spatstat: ok" || echo "gauss_spatstat: $FAILS failures"
exit $((FAILS != 0))
