/* SPDX-License-Identifier: MIT */
/*
 * trend_residuals.c - residuals of an ordinary least-squares trend, the data
 * gstat's variogram(z ~ x + y) takes its semivariances from (lm.c: the
 * residuals y - X b, b from the normal equations X'X b = X'y, no weights).
 *
 * The terms are kriging's (gk_krige_poly): the constant, then x and y, then
 * x^2, y^2 and xy, in coordinates centred on the points' centroid and scaled
 * by their largest distance from it; covariates are standardised. The
 * residuals do not depend on either (the columns span the same space), the
 * normal equations' conditioning does.
 *
 * X'X is factorised with the kriging kernels' Cholesky (a pivot below
 * TREND_TOL of its diagonal entry: that term is a combination of those
 * before it). The residuals need forward solves only: with X'X = L L' and
 * c = L^-1 X'z, the fitted value at point i is (L^-1 x_i) . c.
 */
#include "kriging.h"
#include "kriging_kernels.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define TREND_TOL 1e-10
#define LD 16 /* the kernels' column stride: GK_KRIGE_MAX_P rounded up to 8 */

static const char *term_name(int poly, int j, char *buf, size_t room)
{
    static const char *const names[6] = {"the constant", "x", "y", "x^2", "y^2", "x*y"};
    if (j <= poly)
        return names[j];
    snprintf(buf, room, "covariate %d", j - poly);
    return buf;
}

int gk_trend_residuals(gk_context *ctx, const gk_points *pts, gk_drift_type drift, int ncov,
                       const double *cov, double *resid)
{
    if (!pts || !resid)
        return gk_error(ctx, GK_ERR_ARG, "trend residuals: no points");
    if (drift != GK_DRIFT_NONE && drift != GK_DRIFT_LINEAR && drift != GK_DRIFT_QUADRATIC)
        return gk_error(ctx, GK_ERR_ARG, "trend residuals: unknown drift %d", (int)drift);
    if (ncov < 0 || ncov > GK_TREND_MAX_COV || (ncov > 0 && !cov))
        return gk_error(ctx, GK_ERR_ARG, "trend residuals: %d covariates (0 to %d)", ncov,
                        GK_TREND_MAX_COV);
    const size_t n = pts->n;
    const int poly = drift == GK_DRIFT_LINEAR ? 2 : drift == GK_DRIFT_QUADRATIC ? 5 : 0;
    const int p = 1 + poly + ncov;
    if (n < (size_t)p)
        return gk_error(ctx, GK_ERR_ARG,
                        "trend residuals: %zu point%s for a trend of %d terms: give at least %d "
                        "points or a simpler drift",
                        n, n == 1 ? "" : "s", p, p);
    const double *X = pts->x, *Y = pts->y, *Z = pts->z;

    /* centre and scale of the polynomial terms, mean and spread of the covariates */
    double ox, oy, sc, cm[GK_TREND_MAX_COV], cs[GK_TREND_MAX_COV];
    gk_drift_frame(X, Y, n, &ox, &oy, &sc);
    for (int k = 0; k < ncov; k++) {
        size_t i;
        int bad = gk_covariate_scale(cov + (size_t)k * n, n, &cm[k], &cs[k], &i);
        if (bad == 1)
            return gk_error(ctx, GK_ERR_ARG,
                            "trend residuals: covariate %d has no value at point %zu "
                            "(%.15g, %.15g)",
                            k + 1, i + 1, X[i], Y[i]);
        if (bad)
            return gk_error(ctx, GK_ERR_ARG,
                            "trend residuals: covariate %d is constant at the data points: it "
                            "cannot be told apart from the mean",
                            k + 1);
    }

    /* the normal equations: X'X (lower triangle, by columns) and X'z */
    double L[LD * LD], inv[LD], xtz[LD], f[LD];
    memset(L, 0, sizeof L);
    memset(xtz, 0, sizeof xtz);
    for (size_t i = 0; i < n; i++) {
        gk_krige_poly(poly, (X[i] - ox) / sc, (Y[i] - oy) / sc, f);
        for (int k = 0; k < ncov; k++)
            f[1 + poly + k] = (cov[(size_t)k * n + i] - cm[k]) / cs[k];
        for (int c = 0; c < p; c++) {
            xtz[c] += f[c] * Z[i];
            for (int r = c; r < p; r++)
                L[c * LD + r] += f[r] * f[c];
        }
    }
    gk_kk_init();
    /* the first pivot that fails names the dependent term */
    for (int m = 1; m <= p; m++) {
        double Lm[LD * LD], invm[LD];
        memcpy(Lm, L, sizeof L);
        if (gk_kk_chol(Lm, m, LD, invm, TREND_TOL) == 0)
            continue;
        char buf[32];
        return gk_error(ctx, GK_ERR_ARG,
                        "trend residuals: the least-squares trend is singular: %s is a linear "
                        "combination of the terms before it at the %zu data points (points on "
                        "one line, or a covariate that repeats the others); use a simpler drift",
                        term_name(poly, m - 1, buf, sizeof buf), n);
    }
    gk_kk_chol(L, p, LD, inv, TREND_TOL);
    gk_kk_fwd(L, p, LD, inv, xtz, 1, LD);
    for (size_t i = 0; i < n; i++) {
        memset(f, 0, sizeof f);
        gk_krige_poly(poly, (X[i] - ox) / sc, (Y[i] - oy) / sc, f);
        for (int k = 0; k < ncov; k++)
            f[1 + poly + k] = (cov[(size_t)k * n + i] - cm[k]) / cs[k];
        gk_kk_fwd(L, p, LD, inv, f, 1, LD);
        double fit = 0.0;
        for (int c = 0; c < p; c++)
            fit += f[c] * xtz[c];
        resid[i] = Z[i] - fit;
    }
    return GK_OK;
}
