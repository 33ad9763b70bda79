# SPDX-License-Identifier: MIT
# ik_refs.R - gstat's indicator kriging, the references of tests/geostat/gstat/ik_compare.py:
# for zinc on meuse and four cut-offs, each indicator's variogram fitted by
# fit.variogram(variogram(I(zinc < c) ~ 1, meuse), vgm(psill, "Sph", 900, nugget)), then
# krige(I(zinc < c) ~ 1, meuse, grid, model, nmax = 24) on the 78 x 104 cells of meuse.grid's
# 40 m raster (north-up, row by row). Run from the repository root:
#     Rscript tests/geostat/gstat/ik_refs.R
# Oracle: R 4.2, gstat 2.1-0 (Debian 12). Numbers with 17 significant digits.
suppressMessages({library(sp); library(gstat); library(sf)})
out <- "tests/geostat/gstat/refs"
f17 <- function(v) sprintf("%.17g", v)
s <- st_read("data/meuse.gpkg", "meuse", quiet = TRUE)
d <- st_drop_geometry(s); xy <- st_coordinates(s); d$x <- xy[, 1]; d$y <- xy[, 2]
coordinates(d) <- ~ x + y
nx <- 78; ny <- 104; x0 <- 178440; x1 <- 181560; y0 <- 329600; y1 <- 333760
g <- expand.grid(x = x0 + (seq_len(nx) - 0.5) * (x1 - x0) / nx,
                 y = y1 - (seq_len(ny) - 0.5) * (y1 - y0) / ny)
coordinates(g) <- ~ x + y
cuts <- c(200, 400, 800, 1200)
models <- character(0); preds <- character(0)
for (c in cuts) {
  d$ind <- as.numeric(d$zinc < c)
  v <- variogram(ind ~ 1, d)
  m <- fit.variogram(v, vgm(var(d$ind) * 0.8, "Sph", 900, var(d$ind) * 0.2))
  models <- c(models, sprintf("Nug(%s)+Sph(%s,%s)", f17(m$psill[1]), f17(m$psill[2]), f17(m$range[2])))
  k <- krige(ind ~ 1, d, g, m, nmax = 24, debug.level = 0)
  preds <- c(preds, paste0("[", paste(f17(k$var1.pred), collapse = ", "), "]"))
}
writeLines(c("{",
             sprintf('"args": "-zfield zinc -txe %d %d -tye %d %d -outsize %d %d",', x0, x1, y0, y1, nx, ny),
             sprintf('"cuts": [%s],', paste(cuts, collapse = ", ")),
             sprintf('"models": [%s],', paste0('"', models, '"', collapse = ", ")),
             sprintf('"pred": [%s]', paste(preds, collapse = ",\n")), "}"),
           file.path(out, "ik_meuse.json"))
