# SPDX-License-Identifier: MIT
# make_refs.R - regenerates the gstat references of the gstat comparison suite
# (tests/geostat/gstat/compare.py) into tests/geostat/gstat/refs/. Run from the repository root:
#     Rscript tests/geostat/gstat/make_refs.R
# Oracle: R 4.2, gstat 2.1-0, sp 1.6-0 (Debian 12; also needs sf and stars). Data are read back from the
# committed files in data/ (made by tests/geostat/gstat/make_data.R), so the references
# describe exactly what the suite feeds gridkit. Numbers are printed with 17
# significant digits (%.17g: round-trips fp64).
suppressMessages({library(sp); library(gstat); library(sf)})
out <- "tests/geostat/gstat/refs"
dir.create(out, showWarnings = FALSE, recursive = TRUE)
f17 <- function(v) ifelse(is.na(v), "NaN", sprintf("%.17g", v))

rd <- function(file, layer) {
  s <- st_read(file, layer = layer, quiet = TRUE)
  d <- st_drop_geometry(s)
  xy <- st_coordinates(s)
  d$x <- xy[, 1]; d$y <- xy[, 2]
  coordinates(d) <- ~ x + y
  d
}
meuse <- rd("data/meuse.gpkg", "meuse")
aniso <- rd("data/aniso_trend.gpkg", "aniso_trend")

# all 78 x 104 cell centres of -txe 178440 181560 -tye 329600 333760 -outsize 78 104,
# north-up row order; the covariate from the filled dist raster
cells <- function(x0, x1, y0, y1, nx, ny) {
  dx <- (x1 - x0) / nx; dy <- (y1 - y0) / ny
  g <- expand.grid(x = x0 + (seq_len(nx) - 0.5) * dx, y = y1 - (seq_len(ny) - 0.5) * dy)
  g[, c("x", "y")]
}
mg <- cells(178440, 181560, 329600, 333760, 78, 104)
rast <- stars::read_stars("data/meuse_dist_filled.tif")
rv <- rast[[1]]                      # [col, row] (x fastest), north-up
mg$dist <- rv[cbind((mg$x - 178440) / 40 + 0.5, (333760 - mg$y) / 40 + 0.5)]
stopifnot(!anyNA(mg$dist))
mg$xc <- mg$x - 180000; mg$yc <- mg$y - 331680
coordinates(mg) <- ~ x + y
meuse$xc <- coordinates(meuse)[, 1] - 180000; meuse$yc <- coordinates(meuse)[, 2] - 331680
# the raster's value at the data points: the cell holding the point, GDAL's rule
# col = floor((x - x0) / 40), row = floor((y1 - y) / 40)
cx <- floor((coordinates(meuse)[, 1] - 178440) / 40) + 1
cy <- floor((333760 - coordinates(meuse)[, 2]) / 40) + 1
meuse$dist_rs <- rv[cbind(cx, cy)]
cat("data points whose raster cell dist differs from meuse$dist:", sum(meuse$dist_rs != meuse$dist), "\n")
mg$dist_rs <- mg$dist

ag <- cells(0, 1000, 0, 1000, 50, 50)
coordinates(ag) <- ~ x + y

# ---- sample variograms -------------------------------------------------------
wvgm <- function(v, name) {
  d <- data.frame(np = sprintf("%d", as.integer(v$np)), dist = f17(v$dist), gamma = f17(v$gamma))
  hdr <- "np,dist,gamma"
  if (length(unique(v$dir.hor)) > 1 || any(v$dir.hor != 0)) { d$dir.hor <- f17(v$dir.hor); hdr <- paste0(hdr, ",dir.hor") }
  writeLines(c(hdr, apply(d, 1, paste, collapse = ",")), file.path(out, paste0("vgm_", name, ".csv")))
  invisible(v)
}
v_def <- wvgm(variogram(logzinc ~ 1, meuse), "meuse_default")
wvgm(variogram(logzinc ~ 1, meuse, cutoff = 1000, width = 50), "meuse_c1000_w50")
wvgm(variogram(logzinc ~ 1, meuse, cressie = TRUE), "meuse_cressie")
wvgm(variogram(logzinc ~ 1, meuse, cutoff = 1000, width = 50, cressie = TRUE), "meuse_cressie_c1000_w50")
wvgm(variogram(logzinc ~ 1, meuse, alpha = c(0, 45, 90, 135)), "meuse_dir4")
wvgm(variogram(logzinc ~ 1, meuse, cutoff = 1000, width = 1000 / 8), "meuse_c1000_lags8")
wvgm(variogram(z ~ 1, aniso, cutoff = 600, width = 30), "aniso_omni")
wvgm(variogram(z ~ 1, aniso, cutoff = 600, width = 30, alpha = c(30, 120), tol.hor = 15), "aniso_dir_tol15")

# ---- fit.variogram on the default sample variogram, from fixed starting values --
jnum <- function(v) if (is.na(v)) "null" else sprintf("%.17g", v)
jmodel <- function(m) {
  s <- character(0)
  for (i in seq_len(nrow(m))) {
    e <- sprintf('{"model": "%s", "psill": %s, "range": %s', as.character(m$model[i]),
                 jnum(m$psill[i]), jnum(m$range[i]))
    if (as.character(m$model[i]) %in% c("Mat", "Ste", "Exc")) e <- paste0(e, sprintf(', "kappa": %s', jnum(m$kappa[i])))
    if (m$ang1[i] != 0 || m$anis1[i] != 1) e <- paste0(e, sprintf(', "anis": [%s, %s]', jnum(m$ang1[i]), jnum(m$anis1[i])))
    s <- c(s, paste0(e, "}"))
  }
  paste0("[", paste(s, collapse = ", "), "]")
}
starts <- list(Sph = vgm(0.6, "Sph", 900), Exp = vgm(0.6, "Exp", 300), Gau = vgm(0.6, "Gau", 500),
               NugSph = vgm(0.5, "Sph", 800, 0.1))
for (nm in names(starts)) for (meth in c(1, 2, 6, 7)) {
  warn <- character(0)
  fit <- withCallingHandlers(fit.variogram(v_def, starts[[nm]], fit.method = meth),
                             warning = function(w) { warn <<- c(warn, conditionMessage(w)); invokeRestart("muffleWarning") })
  txt <- sprintf('{"sample": "vgm_meuse_default.csv", "fit_method": %d, "start": %s,\n "model": %s,\n "sserr": %s, "singular": %s, "warnings": [%s]}',
                 meth, jmodel(starts[[nm]]), jmodel(fit), jnum(attr(fit, "SSErr")),
                 tolower(as.character(attr(fit, "singular"))),
                 paste(sprintf('"%s"', gsub('"', "'", gsub("\n", " ", warn))), collapse = ", "))
  writeLines(txt, file.path(out, sprintf("fit_%s_m%d.json", nm, meth)))
}

# ---- residual variograms: variogram(z ~ trend), the OLS residuals' variogram ----------
# quadratic trends on meuse use coordinates centred near the data (xc, yc): the same span as
# x, y, but gstat's normal equations in raw RD coordinates (x^4 ~ 1e21) lose about 4e-6 of
# gamma; each reference is checked against the variogram of lm()'s residuals below
wres <- function(v, f, data, name, ...) {
  data$res_ <- residuals(lm(f, as.data.frame(data)))
  vr <- variogram(res_ ~ 1, data, ...)
  cat(sprintf("%-28s gstat vs lm() residuals: max rel gamma diff %.2g\n", name, max(abs(v$gamma / vr$gamma - 1))))
  stopifnot(max(abs(v$gamma / vr$gamma - 1)) < 1e-9)
  wvgm(v, name)
}
lin <- logzinc ~ x + y
quad <- logzinc ~ xc + yc + I(xc^2) + I(xc * yc) + I(yc^2)
wres(variogram(lin, meuse), lin, meuse, "meuse_resid_linear")
wres(variogram(quad, meuse), quad, meuse, "meuse_resid_quadratic")
wres(variogram(lin, meuse, alpha = c(0, 45, 90, 135)), lin, meuse, "meuse_resid_linear_dir4",
     alpha = c(0, 45, 90, 135))
wres(variogram(lin, meuse, cressie = TRUE), lin, meuse, "meuse_resid_linear_cressie", cressie = TRUE)
# the dist raster sampled at the data points (dist_rs above: the cell holding each point)
wres(variogram(logzinc ~ dist_rs, meuse), logzinc ~ dist_rs, meuse, "meuse_resid_dist")
wres(variogram(logzinc ~ x + y + dist_rs, meuse), logzinc ~ x + y + dist_rs, meuse, "meuse_resid_linear_dist")
alin <- z ~ x + y
aquad <- z ~ x + y + I(x^2) + I(x * y) + I(y^2)
wres(variogram(alin, aniso, cutoff = 600, width = 30), alin, aniso, "aniso_resid_linear",
     cutoff = 600, width = 30)
wres(variogram(aquad, aniso, cutoff = 600, width = 30), aquad, aniso, "aniso_resid_quadratic",
     cutoff = 600, width = 30)
wres(variogram(aquad, aniso, cutoff = 600, width = 30, alpha = c(30, 120), tol.hor = 15), aquad, aniso,
     "aniso_resid_quadratic_dir_tol15", cutoff = 600, width = 30, alpha = c(30, 120), tol.hor = 15)

# ---- fit.kappa and model lists: fit.variogram(v, vgm("Mat"), fit.kappa = TRUE) and
# fit.variogram(v, vgm(c("Exp", "Sph", "Gau"))); every candidate is also fitted on its own
# (what fit.variogram does inside) so that the suite compares each SSErr, and the kept one
# must be the first smallest
quiet_fit <- function(...) {
  warn <- character(0)
  f <- withCallingHandlers(fit.variogram(...),
                           warning = function(w) { warn <<- c(warn, conditionMessage(w)); invokeRestart("muffleWarning") })
  attr(f, "warn") <- warn
  f
}
jwarn <- function(w) paste(sprintf('"%s"', gsub('"', "'", gsub("\n", " ", w))), collapse = ", ")
v_aniso <- variogram(z ~ 1, aniso, cutoff = 600, width = 30)
v_aniso_dir <- variogram(z ~ 1, aniso, cutoff = 600, width = 30, alpha = c(30, 120), tol.hor = 15)
v_aniso_res <- variogram(alin, aniso, cutoff = 600, width = 30)
samples <- list(meuse = list(v_def, "vgm_meuse_default.csv"), aniso = list(v_aniso, "vgm_aniso_omni.csv"),
                aniso_dir = list(v_aniso_dir, "vgm_aniso_dir_tol15.csv"),
                aniso_resid = list(v_aniso_res, "vgm_aniso_resid_linear.csv"))
wbest <- function(name, sample, models, fit.kappa = FALSE) {
  v <- samples[[sample]][[1]]
  mlist <- vgm(models)
  if (length(models) == 1) mlist <- list(mlist)
  fit <- quiet_fit(v, if (length(models) == 1) mlist[[1]] else mlist, fit.kappa = fit.kappa)
  each <- lapply(mlist, function(m) quiet_fit(v, m, fit.kappa = fit.kappa))
  sse <- sapply(each, function(f) attr(f, "SSErr"))
  stopifnot(identical(attr(fit, "SSErr"), sse[which.min(sse)]))
  cands <- sapply(seq_along(each), function(i) sprintf('{"name": "%s", "sserr": %s, "model": %s}',
                  paste(as.character(each[[i]]$model), collapse = "+"), jnum(sse[i]), jmodel(each[[i]])))
  kap <- if (isTRUE(fit.kappa)) "true" else if (is.numeric(fit.kappa)) sprintf("[%s]", paste(sapply(fit.kappa, jnum), collapse = ", ")) else "false"
  txt <- sprintf(paste0('{"sample": "%s", "fit_method": 7, "models": [%s], "fit_kappa": %s,\n "model": %s,\n',
                        ' "sserr": %s, "kept": %d, "singular": %s, "warnings": [%s],\n "candidates": [\n  %s]}'),
                 samples[[sample]][[2]], paste(sprintf('"%s"', models), collapse = ", "), kap, jmodel(fit),
                 jnum(attr(fit, "SSErr")), which.min(sse) - 1, tolower(as.character(attr(fit, "singular"))),
                 jwarn(attr(fit, "warn")), paste(cands, collapse = ",\n  "))
  writeLines(txt, file.path(out, paste0(name, ".json")))
}
wbest("fitk_meuse_Mat", "meuse", "Mat", fit.kappa = TRUE)
wbest("fitk_meuse_Ste", "meuse", "Ste", fit.kappa = TRUE)
wbest("fitk_meuse_Mat_list", "meuse", "Mat", fit.kappa = c(0.5, 1, 1.5, 2, 2.5))
wbest("fitk_aniso_Ste", "aniso", "Ste", fit.kappa = TRUE)
wbest("fitk_aniso_resid_Mat", "aniso_resid", "Mat", fit.kappa = TRUE)
wbest("best_meuse", "meuse", c("Exp", "Sph", "Gau"))
wbest("best_aniso", "aniso", c("Exp", "Sph", "Gau"))
wbest("best_aniso_dir", "aniso_dir", c("Exp", "Sph", "Gau"))
wbest("best_aniso_resid", "aniso_resid", c("Exp", "Sph", "Gau"))
wbest("best_meuse_kappa", "meuse", c("Exp", "Mat"), fit.kappa = TRUE)

# ---- kriging at every cell centre ------------------------------------------------
wk <- function(p, name) {
  xy <- coordinates(p)
  d <- data.frame(x = f17(xy[, 1]), y = f17(xy[, 2]), pred = f17(p$var1.pred), var = f17(p$var1.var))
  writeLines(c("x,y,pred,var", apply(d, 1, paste, collapse = ",")), file.path(out, paste0("krige_", name, ".csv")))
}
m <- vgm(0.59, "Sph", 897, 0.05)   # the model of gstat's ?krige example
wk(krige(logzinc ~ 1, meuse, mg, m, debug.level = 0), "meuse_ok_global")
wk(krige(logzinc ~ 1, meuse, mg, m, nmax = 20, debug.level = 0), "meuse_ok_nmax20")
wk(krige(logzinc ~ 1, meuse, mg, m, maxdist = 1000, nmin = 5, debug.level = 0), "meuse_ok_maxdist1000_nmin5")
wk(krige(logzinc ~ 1, meuse, mg, m, beta = 5.9, debug.level = 0), "meuse_sk_5.9")
wk(krige(logzinc ~ x + y, meuse, mg, m, debug.level = 0), "meuse_uk_xy")
wk(krige(logzinc ~ xc + yc + I(xc^2) + I(xc * yc) + I(yc^2), meuse, mg, m, debug.level = 0), "meuse_uk_quadratic")
wk(krige(logzinc ~ dist, meuse, mg, m, debug.level = 0), "meuse_ked_dist")
wk(krige(logzinc ~ dist_rs, meuse, mg, m, debug.level = 0), "meuse_ked_dist_rastersampled")
wk(krige(logzinc ~ 1, meuse, mg, m, block = c(40, 40), debug.level = 0), "meuse_ok_block40")
wk(krige(logzinc ~ 1, meuse, mg, m, nmax = 20, block = c(40, 40), debug.level = 0), "meuse_ok_nmax20_block40")

ma <- vgm(1, "Sph", 300, 0.1, anis = c(30, 0.5))
wk(krige(z ~ 1, aniso, ag, ma, debug.level = 0), "aniso_ok_global")
wk(krige(z ~ x + y, aniso, ag, ma, debug.level = 0), "aniso_uk_xy")
wk(krige(z ~ x + y, aniso, ag, ma, nmax = 30, debug.level = 0), "aniso_uk_xy_nmax30")
wk(krige(z ~ x + y + I(x^2) + I(x * y) + I(y^2), aniso, ag, ma, debug.level = 0), "aniso_uk_quadratic")

# ---- local and global polynomials: krige() with no model and a formula in the
# coordinates is (local) least squares (with "~ 1" alone it would be IDW: no degree 0)
poly <- function(d, z) {
  f <- c("1", "xc + yc", "xc + yc + I(xc^2) + I(xc * yc) + I(yc^2)",
         "xc + yc + I(xc^2) + I(xc * yc) + I(yc^2) + I(xc^3) + I(xc^2 * yc) + I(xc * yc^2) + I(yc^3)")[d + 1]
  as.formula(paste(z, "~", f))
}
wk(krige(poly(1, "logzinc"), meuse, mg, nmax = 16, debug.level = 0), "poly_meuse_d1_nmax16")
wk(krige(poly(2, "logzinc"), meuse, mg, nmax = 32, debug.level = 0), "poly_meuse_d2_nmax32")
wk(krige(poly(2, "logzinc"), meuse, mg, debug.level = 0), "poly_meuse_d2_global")
wk(krige(poly(3, "logzinc"), meuse, mg, nmax = 40, debug.level = 0), "poly_meuse_d3_nmax40")
wk(krige(poly(1, "logzinc"), meuse, mg, maxdist = 800, nmin = 8, debug.level = 0), "poly_meuse_d1_maxdist800_nmin8")
aniso$xc <- coordinates(aniso)[, 1] - 500; aniso$yc <- coordinates(aniso)[, 2] - 500
ag$xc <- coordinates(ag)[, 1] - 500; ag$yc <- coordinates(ag)[, 2] - 500
wk(krige(poly(2, "z"), aniso, ag, nmax = 30, debug.level = 0), "poly_aniso_d2_nmax30")
wk(krige(poly(3, "z"), aniso, ag, debug.level = 0), "poly_aniso_d3_global")
# per quadrant (gstat's octant search needs maxdist); meuse's equal distances would make the
# quadrants' cut a tie, the simulated points have none
wk(krige(poly(2, "z"), aniso, ag, nmax = 40, maxdist = 300, omax = 10, debug.level = 0), "poly_aniso_d2_nmax40_r300_omax10")

# ---- leave-one-out cross-validation ----------------------------------------------
wcv <- function(cv, name) {
  r <- cv$residual; zs <- cv$zscore; ok <- !is.na(cv$var1.pred)
  r <- r[ok]; zs <- zs[ok]
  has_z <- !all(is.na(zs))
  txt <- sprintf(paste0('{"n": %d, "n_failed": %d, "mean_error": %s, "rmse": %s, "mae": %s,\n',
                        ' "mean_z": %s, "var_z": %s, "mean_z2": %s, "cor": %s}'),
                 length(r), sum(!ok), jnum(mean(r)), jnum(sqrt(mean(r^2))), jnum(mean(abs(r))),
                 if (has_z) jnum(mean(zs)) else "null", if (has_z) jnum(var(zs)) else "null",
                 if (has_z) jnum(mean(zs^2)) else "null",
                 jnum(cor(cv$observed[ok], cv$var1.pred[ok])))
  writeLines(txt, file.path(out, paste0("cv_", name, ".json")))
}
wcv(krige.cv(logzinc ~ 1, meuse, m, nmax = 20, debug.level = 0), "meuse_ok_nmax20")
wcv(krige.cv(logzinc ~ 1, meuse, m, debug.level = 0), "meuse_ok_global")
wcv(krige.cv(logzinc ~ x + y, meuse, m, debug.level = 0), "meuse_uk_xy")
wcv(krige.cv(logzinc ~ 1, meuse, NULL, set = list(idp = 2), debug.level = 0), "meuse_idw2")
wcv(krige.cv(z ~ x + y, aniso, ma, debug.level = 0), "aniso_uk_xy")
wcv(krige.cv(z ~ 1, aniso, ma, nmax = 20, debug.level = 0), "aniso_ok_nmax20")
# kriging with external drift: the dist raster sampled at the points (dist_rs above)
wcv(krige.cv(logzinc ~ dist_rs, meuse, m, debug.level = 0), "meuse_ked_dist_rs")
wcv(krige.cv(logzinc ~ dist_rs, meuse, m, nmax = 20, debug.level = 0), "meuse_ked_dist_rs_nmax20")
# local least squares (-a polynomial): gridkit has no prediction variance there, so no z-scores
cvp <- krige.cv(poly(1, "logzinc"), meuse, nmax = 16, debug.level = 0); cvp$zscore <- NA
wcv(cvp, "meuse_poly_d1_nmax16")
cvp <- krige.cv(poly(2, "logzinc"), meuse, nmax = 32, debug.level = 0); cvp$zscore <- NA
wcv(cvp, "meuse_poly_d2_nmax32")
cat("references written to", out, "\n")
