# SPDX-License-Identifier: MIT
# kdr_peer.R - the peer for ridges_kdr: ks::kdr on the points gridkit's
# density ran on (WORK/points.csv), with its bandwidth matrix H = h^2 I
# (h from WORK/h.txt) and no pre-scaling (pre = FALSE: H is then in the
# points' own units), walkers started at the points as gridkit's are
# (y = x), no segmentation. Writes ks's ridge points to WORK/ks.csv.
args <- commandArgs(trailingOnly = TRUE)
work <- args[1]
suppressPackageStartupMessages(library(ks))
x <- as.matrix(read.csv(file.path(work, "points.csv"), header = FALSE))
h <- scan(file.path(work, "h.txt"), quiet = TRUE)
t0 <- proc.time()[["elapsed"]]
set.seed(1) # kdr samples rows for its verbose display only
r <- kdr(x = x, y = x, H = diag(h^2, ncol(x)), pre = FALSE, segment = FALSE, max.iter = 400)
t1 <- proc.time()[["elapsed"]]
pts <- as.matrix(r$end.points[, seq_len(ncol(x))])
write.table(pts, file.path(work, "ks.csv"), sep = ",", row.names = FALSE, col.names = FALSE)
cat(sprintf("ks::kdr %s: %d points in, %d ridge points out, %.1f s\n",
            as.character(packageVersion("ks")), nrow(x), nrow(pts), t1 - t0))
