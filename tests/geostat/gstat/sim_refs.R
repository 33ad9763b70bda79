# SPDX-License-Identifier: MIT
# sim_refs.R - gstat's sequential Gaussian simulation, the references of
# tests/geostat/gstat/sim_compare.py: per node the mean and variance of gstat's
# realizations, and their semivariance along rows and columns, for
# krige(z ~ 1, pts, grid, model, beta = m, nmax = 16, nsim = 20) called 20 times
# with 20 seeds, on meuse and on a
# synthetic set (its points written beside the references). Run from the repository root:
#     Rscript tests/geostat/gstat/sim_refs.R
# Oracle: R 4.2, gstat 2.1-0, sp (Debian 12). Numbers with 17 significant digits.
suppressMessages({library(sp); library(gstat); library(sf)})
out <- "tests/geostat/gstat/refs"
f17 <- function(v) sprintf("%.17g", v)
jarr <- function(v) paste0("[", paste(f17(v), collapse = ", "), "]")

cells <- function(x0, x1, y0, y1, nx, ny) {
  dx <- (x1 - x0) / nx; dy <- (y1 - y0) / ny
  g <- expand.grid(x = x0 + (seq_len(nx) - 0.5) * dx, y = y1 - (seq_len(ny) - 0.5) * dy)
  coordinates(g) <- ~ x + y
  g
}

# gstat simulates every realization of a call along one random path, so that
# a call's ensemble mean is that path's: 20 calls of 20 realizations, each
# with its seed, average over paths too; the standard error of a node's
# mean is that of the 20 calls' means.
RUNS <- 20
PER <- 20
simulate <- function(formula, pts, grid, model, beta, seed) {
  m <- NULL
  for (k in seq_len(RUNS)) {
    set.seed(seed + k)
    s <- krige(formula, pts, grid, model, beta = beta, nmax = 16, nsim = PER, debug.level = 0)
    m <- cbind(m, as.matrix(s@data))
  }
  m
}

# per node mean, its standard error and variance over the realizations; the
# semivariance at lags 1..L cells along rows (x) and columns (y), averaged
# over realizations
summarise <- function(name, m, nx, ny, model, beta, args) {
  runmeans <- sapply(seq_len(RUNS), function(k) rowMeans(m[, (k - 1) * PER + seq_len(PER)]))
  se <- apply(runmeans, 1, sd) / sqrt(RUNS)
  L <- 8
  gx <- gy <- numeric(L)
  for (r in seq_len(ncol(m))) {
    a <- matrix(m[, r], nrow = nx, ncol = ny)  # a[i, j]: column i, row j (north first)
    for (h in seq_len(L)) {
      gx[h] <- gx[h] + mean((a[(1 + h):nx, ] - a[1:(nx - h), ])^2) / 2 / ncol(m)
      gy[h] <- gy[h] + mean((a[, (1 + h):ny] - a[, 1:(ny - h)])^2) / 2 / ncol(m)
    }
  }
  con <- file(file.path(out, paste0("sim_", name, ".json")), "w")
  writeLines(c("{", sprintf('"args": "%s",', args), sprintf('"runs": %d,', RUNS),
               sprintf('"per_run": %d,', PER), sprintf('"mean": %s,', jarr(rowMeans(m))),
               sprintf('"mean_se": %s,', jarr(se)),
               sprintf('"var": %s,', jarr(apply(m, 1, var))),
               sprintf('"gamma_x": %s,', jarr(gx)), sprintf('"gamma_y": %s', jarr(gy)), "}"),
             con)
  close(con)
}

# meuse: log zinc, the model of gstat's meuse vignette, its mean known
s <- st_read("data/meuse.gpkg", "meuse", quiet = TRUE)
d <- st_drop_geometry(s); xy <- st_coordinates(s); d$x <- xy[, 1]; d$y <- xy[, 2]
coordinates(d) <- ~ x + y
g <- cells(178440, 181640, 329600, 333760, 40, 52)
vm <- vgm(0.59, "Sph", 897, 0.05)
beta <- mean(d$logzinc)
sims <- simulate(logzinc ~ 1, d, g, vm, beta, 20261200)
summarise("meuse", sims, 40, 52, vm, beta,
          sprintf("-zfield logzinc -txe 178440 181640 -tye 329600 333760 -outsize 40 52 -a kriging:type=simple:mean=%s:model=Nug(0.05)+Sph(0.59,897)", f17(beta)))

# synthetic: 300 points, a smooth field and noise
set.seed(7)
n <- 300
p <- data.frame(x = runif(n, 0, 1000), y = runif(n, 0, 1000))
p$z <- sin(p$x / 150) + cos(p$y / 200) + rnorm(n, 0, 0.3)
write.table(data.frame(sprintf("%.17g", p$x), sprintf("%.17g", p$y), sprintf("%.17g", p$z)),
            file.path(out, "sim_synth_points.xyz"), quote = FALSE, row.names = FALSE,
            col.names = FALSE)
p <- read.table(file.path(out, "sim_synth_points.xyz"), col.names = c("x", "y", "z"))
coordinates(p) <- ~ x + y
g <- cells(0, 1000, 0, 1000, 50, 50)
vm <- vgm(0.8, "Exp", 150, 0.05)
beta <- mean(p$z)
sims <- simulate(z ~ 1, p, g, vm, beta, 20261300)
summarise("synth", sims, 50, 50, vm, beta,
          sprintf("-txe 0 1000 -tye 0 1000 -outsize 50 50 -a kriging:type=simple:mean=%s:model=Nug(0.05)+Exp(0.8,150)", f17(beta)))
