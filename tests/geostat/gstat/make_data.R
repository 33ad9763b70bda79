# SPDX-License-Identifier: MIT
# make_data.R - the gstat-suite test data in data/ (see data/README.md):
#   meuse.gpkg, meuse_grid.gpkg, meuse_dist.tif, meuse_dist_filled.tif, aniso_trend.gpkg
# Run from the repository root:  Rscript tests/geostat/gstat/make_data.R [outdir]
# Needs R with sp, gstat, sf (Debian 12: r-cran-sp r-cran-gstat r-cran-sf) and gdal_translate.
suppressMessages({library(sp); library(gstat); library(sf)})
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) >= 1) args[1] else "data"

wr <- function(df, file, layer) {
  p <- st_as_sf(df, coords = c("x", "y"), crs = 28992, remove = FALSE)
  if (file.exists(file)) file.remove(file)
  st_write(p, file, layer = layer, quiet = TRUE)
}
fac_int <- function(f) as.integer(as.character(f))

# ---- meuse: all columns of sp's meuse, factors 1..3 / 0..1 as integers, plus logzinc
data(meuse); data(meuse.grid)
m <- meuse
m$ffreq <- fac_int(m$ffreq); m$soil <- fac_int(m$soil); m$lime <- fac_int(m$lime)
m$landuse <- as.character(m$landuse)
m$logzinc <- log(m$zinc)
wr(m, file.path(out, "meuse.gpkg"), "meuse")

g <- meuse.grid
g$soil <- fac_int(g$soil); g$ffreq <- fac_int(g$ffreq)
wr(g, file.path(out, "meuse_grid.gpkg"), "meuse_grid")

# ---- dist rasters: 78 x 104 cells of 40 m, pixel centres = meuse.grid points
X0 <- 178440; Y1 <- 333760; NX <- 78; NY <- 104; CS <- 40
col <- (g$x - X0) / CS - 0.5; row <- (Y1 - g$y) / CS - 0.5
stopifnot(all(col == round(col)), all(row == round(row)))
r <- matrix(NA_real_, NY, NX)          # r[row + 1, col + 1], north-up
r[cbind(row + 1, col + 1)] <- g$dist
# filled copy: every empty cell takes the dist of the nearest floodplain cell
# (Euclidean distance between cell centres; ties: lowest meuse.grid index)
f <- r
emp <- which(is.na(r), arr.ind = TRUE)
for (k in seq_len(nrow(emp))) {
  cx <- X0 + (emp[k, 2] - 0.5) * CS; cy <- Y1 - (emp[k, 1] - 0.5) * CS
  f[emp[k, 1], emp[k, 2]] <- g$dist[which.min((g$x - cx)^2 + (g$y - cy)^2)]
}
asc <- function(mat, file) {   # AAIGrid text (north-up), converted by gdal_translate
  tmp <- tempfile(fileext = ".asc")
  con <- file(tmp, "w")
  writeLines(c(sprintf("ncols %d", NX), sprintf("nrows %d", NY), sprintf("xllcorner %d", X0),
               sprintf("yllcorner %d", Y1 - NY * CS), sprintf("cellsize %d", CS),
               "NODATA_value -9999"), con)
  v <- mat; v[is.na(v)] <- -9999
  for (i in seq_len(NY)) writeLines(paste(sprintf("%.17g", v[i, ]), collapse = " "), con)
  close(con)
  if (file.exists(file)) file.remove(file)
  st <- system2("gdal_translate", c("-q", "--config", "AAIGRID_DATATYPE", "Float64", "-of", "GTiff", "-ot", "Float64", "-a_srs", "EPSG:28992",
                                    "-a_nodata", "-9999", tmp, file))
  stopifnot(st == 0)
}
asc(r, file.path(out, "meuse_dist.tif"))
asc(f, file.path(out, "meuse_dist_filled.tif"))

# ---- aniso_trend: 300 points in [0,1000]^2, z = 10 + 0.003 x - 0.002 y + field,
# field: unconditional Gaussian simulation (gstat, global neighbourhood) with
# vgm(1, "Sph", 300, 0.1, anis = c(30, 0.5)); coordinates to 0.01, z to 1e-4
set.seed(20240301)
n <- 300
a <- data.frame(x = round(runif(n, 0, 1000), 2), y = round(runif(n, 0, 1000), 2))
mod <- vgm(1, "Sph", 300, 0.1, anis = c(30, 0.5))
gs <- gstat(formula = z ~ 1, locations = ~ x + y, dummy = TRUE, beta = 0, model = mod)
sim <- predict(gs, newdata = a, nsim = 1, debug.level = 0)
a$field <- round(sim$sim1, 4)
a$z <- round(10 + 0.003 * a$x - 0.002 * a$y + a$field, 4)
wr(a, file.path(out, "aniso_trend.gpkg"), "aniso_trend")
cat("wrote", out, "\n")
