/* SPDX-License-Identifier: MIT */
/* test_variogram_best.c - candidate models (gk_vm_candidates,
 * gk_variogram_fit_best with and without a kappa search) and trend
 * residuals (gk_trend_residuals) against numbers computed with R 4.2 /
 * gstat 2.1-0 (the R command above each table), and their bad input: each
 * a clear error naming the problem. */
#include "gridkit.h"
#include "gridkit_geostat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gk_check.h"

/* The message of the last error contains want. */
#define CHECK_MSG(ctx, want)                                                                       \
    CHECKF(strstr(gk_errmsg(ctx), (want)) != NULL, "message '%s' does not say '%s'",               \
           gk_errmsg(ctx), (want))

/* ---- candidate lists ------------------------------------------------------ */
static void test_candidates(void)
{
    gk_context *ctx = gk_context_new();
    gk_vmodel c[GK_VM_MAX_CANDIDATES];
    int n = -1;
    /* vgm(c("Exp", "Sph", "Gau")): each a nugget plus the structure, all NA */
    CHECK(gk_vm_candidates(ctx, "Exp,Sph,Gau", c, GK_VM_MAX_CANDIDATES, &n) == GK_OK);
    CHECK(n == 3);
    static const gk_vm_type want[3] = {GK_VM_EXP, GK_VM_SPH, GK_VM_GAU};
    for (int i = 0; i < 3 && n == 3; i++) {
        CHECK(c[i].n == 2);
        CHECK(c[i].s[0].type == GK_VM_NUG && c[i].s[0].range == 0.0 && isnan(c[i].s[0].psill));
        CHECK(c[i].s[1].type == want[i] && isnan(c[i].s[1].psill) && isnan(c[i].s[1].range));
        CHECK(c[i].s[1].kappa == 0.5 && c[i].s[1].anis_ratio == 1.0);
    }
    /* vgm("Nug") is a pure nugget; '+' nests; names are case-insensitive, blanks dropped */
    CHECK(gk_vm_candidates(ctx, " nug , SPH+exp ", c, GK_VM_MAX_CANDIDATES, &n) == GK_OK);
    CHECK(n == 2 && c[0].n == 1 && c[0].s[0].type == GK_VM_NUG);
    CHECK(c[1].n == 3 && c[1].s[1].type == GK_VM_SPH && c[1].s[2].type == GK_VM_EXP);

    /* bad lists: empty, an empty item, an unknown name, too many */
    CHECK(gk_vm_candidates(ctx, "", c, GK_VM_MAX_CANDIDATES, &n) == GK_ERR_ARG && n == 0);
    CHECK_MSG(ctx, "the list is empty");
    CHECK(gk_vm_candidates(ctx, NULL, c, GK_VM_MAX_CANDIDATES, &n) == GK_ERR_ARG);
    CHECK_MSG(ctx, "the list is empty");
    CHECK(gk_vm_candidates(ctx, "Exp,,Sph", c, GK_VM_MAX_CANDIDATES, &n) == GK_ERR_ARG);
    CHECK_MSG(ctx, "an empty name");
    CHECK(gk_vm_candidates(ctx, "Exp,Xyz", c, GK_VM_MAX_CANDIDATES, &n) == GK_ERR_ARG);
    CHECK_MSG(ctx, "unknown variogram model 'Xyz'");
    CHECK(gk_vm_candidates(ctx, "Exp,Sph+", c, GK_VM_MAX_CANDIDATES, &n) == GK_ERR_ARG);
    CHECK_MSG(ctx, "unknown variogram model");
    CHECK(gk_vm_candidates(ctx, "Exp,Sph,Gau", c, 2, &n) == GK_ERR_ARG);
    CHECK_MSG(ctx, "at most 2");
    gk_context_free(ctx);
}

/* R: x = seq(0.3, 5, 0.1); sprintf("%.17g", x[c(1, 4, 48)]); length(x) */
static void test_kappa_list(void)
{
    double k[GK_FIT_KAPPA_N];
    gk_fit_kappa_gstat(k);
    CHECK(GK_FIT_KAPPA_N == 48);
    CHECK(k[0] == 0.3);
    CHECK(k[3] == 0.3 + 3 * 0.1); /* 0.60000000000000009, as R's */
    CHECK(k[47] == 5.0);
    for (int i = 1; i < GK_FIT_KAPPA_N; i++)
        CHECK(k[i] > k[i - 1]);
}

/* ---- fitting the best --------------------------------------------------- */
/* R: v = variogram(log(zinc) ~ 1, meuse) (test_variogram.c's table) */
static const double mz_np[15] = {57,  299, 419, 457, 547, 533, 574, 564,
                                 589, 543, 500, 477, 452, 457, 415};
static const double mz_dist[15] = {79.292437455826644, 163.97366555886859, 267.36482767034101,
                                   372.7354223908294,  478.47669504705982, 585.340581095414,
                                   693.14525554245313, 796.1836488512738,  903.14649830028122,
                                   1011.2917733908821, 1117.8623455181942, 1221.328098765993,
                                   1329.1640650697661, 1437.2562032833191, 1543.2024819996757};
static const double mz_gamma[15] = {0.12344793490615885, 0.21621848529650833, 0.30278587559454434,
                                    0.41214476038234027, 0.4634127861775284,  0.56469327065524877,
                                    0.56896826320820082, 0.61867685868758426, 0.64714788748635788,
                                    0.69157048811176514, 0.70339835053586541, 0.60387703649890301,
                                    0.65171577623457022, 0.56653177830552803, 0.57482273406787732};

static double v_np[15], v_dist[15], v_gamma[15], v_az = NAN;

static gk_vgm meuse_vgm(void)
{
    memcpy(v_np, mz_np, sizeof v_np);
    memcpy(v_dist, mz_dist, sizeof v_dist);
    memcpy(v_gamma, mz_gamma, sizeof v_gamma);
    gk_vgm v = {0};
    v.ndir = 1;
    v.nlags = 15;
    v.azimuth = &v_az;
    v.np = v_np;
    v.dist = v_dist;
    v.gamma = v_gamma;
    return v;
}

/* R: f = fit.variogram(v, vgm(c("Exp", "Sph", "Gau"))): Sph kept; each candidate
 *    fitted alone: sprintf("%.17g", c(f$psill, f$range, attr(f, "SSErr")))
 *    (Exp's nugget goes negative, is fixed at 0 and the fit restarts) */
static void test_fit_best(void)
{
    gk_context *ctx = gk_context_new();
    gk_vgm v = meuse_vgm();
    gk_vmodel c[GK_VM_MAX_CANDIDATES];
    gk_fit_result each[GK_VM_MAX_CANDIDATES];
    gk_fit_options fo = {7, 1, 1};
    int n = 0, kept = -1;
    CHECK(gk_vm_candidates(ctx, "Exp,Sph,Gau", c, GK_VM_MAX_CANDIDATES, &n) == GK_OK);
    int rc = gk_variogram_fit_best(ctx, &v, 0, c, n, NULL, 0, &fo, each, &kept);
    CHECKF(rc == GK_OK, "%s", gk_errmsg(ctx));
    CHECK(kept == 1);
    static const double psill[3][2] = {{0, 0.7186599402407224},
                                       {0.05065970954464367, 0.5906051075554046},
                                       {0.11678855528473181, 0.49747151098550424}};
    static const double range[3] = {449.76686399171854, 897.0010833834876, 386.5348602670824};
    static const double sse[3] = {1.628327532165565e-05, 9.011194334378145e-06,
                                  1.9150682248956922e-05};
    for (int i = 0; i < 3; i++) {
        CHECK(fabs(c[i].s[0].psill - psill[i][0]) <= 1e-9 * psill[i][1]);
        CHECK_REL(c[i].s[1].psill, psill[i][1], 1e-9);
        CHECK_REL(c[i].s[1].range, range[i], 1e-9);
        CHECK_REL(each[i].sserr, sse[i], 1e-9);
        CHECK(each[i].converged);
    }

    /* the first of equal SSErr is kept (which.min) */
    CHECK(gk_vm_candidates(ctx, "Sph,Sph", c, GK_VM_MAX_CANDIDATES, &n) == GK_OK);
    CHECK(gk_variogram_fit_best(ctx, &v, 0, c, n, NULL, 0, &fo, each, &kept) == GK_OK);
    CHECK(kept == 0 && each[0].sserr == each[1].sserr);

    /* R: fit.variogram(v, vgm("Mat"), fit.kappa = TRUE): kappa 1.3 */
    double k[GK_FIT_KAPPA_N];
    gk_fit_kappa_gstat(k);
    CHECK(gk_vm_candidates(ctx, "Mat", c, GK_VM_MAX_CANDIDATES, &n) == GK_OK);
    rc = gk_variogram_fit_best(ctx, &v, 0, c, n, k, GK_FIT_KAPPA_N, &fo, each, &kept);
    CHECKF(rc == GK_OK, "%s", gk_errmsg(ctx));
    CHECK(kept == 0 && c[0].s[1].kappa == k[10]);
    CHECK_REL(c[0].s[0].psill, 0.08907099636967547, 1e-9);
    CHECK_REL(c[0].s[1].psill, 0.5783096537791756, 1e-9);
    CHECK_REL(c[0].s[1].range, 221.5003170720247, 1e-9);
    CHECK_REL(each[0].sserr, 1.0931809189005564e-05, 1e-9);

    /* R: fit.variogram(v, vgm(c("Exp", "Ste")), fit.kappa = TRUE): Exp fitted once, Ste
     * over the list, kappa 1.3 kept */
    CHECK(gk_vm_candidates(ctx, "Exp,Ste", c, GK_VM_MAX_CANDIDATES, &n) == GK_OK);
    rc = gk_variogram_fit_best(ctx, &v, 0, c, n, k, GK_FIT_KAPPA_N, &fo, each, &kept);
    CHECKF(rc == GK_OK, "%s", gk_errmsg(ctx));
    CHECK(kept == 1 && c[1].s[1].kappa == k[10] && c[0].s[1].kappa == 0.5);
    CHECK_REL(c[1].s[1].range, 505.10185393133185, 1e-9);
    CHECK_REL(each[1].sserr, 1.0931809179676102e-05, 1e-9);
    CHECK_REL(each[0].sserr, 1.628327532165565e-05, 1e-9);

    /* bad input: no candidate, a kappa list with a value <= 0, a kappa search
     * without Mat or Ste, nothing that can be fitted */
    CHECK(gk_variogram_fit_best(ctx, &v, 0, c, 0, NULL, 0, &fo, each, &kept) == GK_ERR_ARG);
    CHECK_MSG(ctx, "no candidate models");
    CHECK(kept == -1);
    CHECK(gk_variogram_fit_best(ctx, &v, 0, NULL, 3, NULL, 0, &fo, each, &kept) == GK_ERR_ARG);
    CHECK_MSG(ctx, "no candidate models");
    const double badk[3] = {0.5, 0.0, 1.5}, negk[1] = {-1.0}, nank[1] = {NAN};
    CHECK(gk_vm_candidates(ctx, "Mat", c, GK_VM_MAX_CANDIDATES, &n) == GK_OK);
    CHECK(gk_variogram_fit_best(ctx, &v, 0, c, n, badk, 3, &fo, each, &kept) == GK_ERR_ARG);
    CHECK_MSG(ctx, "kappa 0 (value 2 of the kappa list) must be in (0, 100]");
    CHECK(gk_variogram_fit_best(ctx, &v, 0, c, n, negk, 1, &fo, each, &kept) == GK_ERR_ARG);
    CHECK_MSG(ctx, "kappa -1 (value 1");
    CHECK(gk_variogram_fit_best(ctx, &v, 0, c, n, nank, 1, &fo, each, &kept) == GK_ERR_ARG);
    CHECK_MSG(ctx, "kappa nan");
    CHECK(gk_vm_candidates(ctx, "Exp,Sph", c, GK_VM_MAX_CANDIDATES, &n) == GK_OK);
    CHECK(gk_variogram_fit_best(ctx, &v, 0, c, n, k, 3, &fo, each, &kept) == GK_ERR_ARG);
    CHECK_MSG(ctx, "needs a Mat or Ste structure");
    v_dist[0] = 0.0; /* method 7 refuses a class at distance 0: no candidate fits */
    CHECK(gk_variogram_fit_best(ctx, &v, 0, c, n, NULL, 0, &fo, each, &kept) == GK_ERR_ARG);
    CHECK_MSG(ctx, "none of the 2 candidate models could be fitted");
    CHECK_MSG(ctx, "zero-distance");
    CHECK(isnan(each[0].sserr) && isnan(each[1].sserr));
    CHECK(isnan(c[0].s[1].psill)); /* a failed candidate keeps its start */
    gk_context_free(ctx);
}

/* ---- trend residuals ------------------------------------------------------ */
/* R: d = data.frame(x = c(0,1,2,0,1,3,2.5,4), y = c(0,0,1,2,3,1,2.2,3.5),
 *                   z = c(1.2,0.7,2.5,3.1,0.4,1.9,2.2,0.3), g = c(5,3,4,8,1,2,6,7))
 *    sprintf("%.17g", residuals(lm(FORMULA, d))) */
static const double tx[8] = {0, 1, 2, 0, 1, 3, 2.5, 4}, ty[8] = {0, 0, 1, 2, 3, 1, 2.2, 3.5};
static const double tz[8] = {1.2, 0.7, 2.5, 3.1, 0.4, 1.9, 2.2, 0.3},
                    tg[8] = {5, 3, 4, 8, 1, 2, 6, 7};
static const double r_lin[8] = {-0.68407673220607479, -1.067915920505655,  0.94308291479263306,
                                1.4055993149896655,   -1.0834018497120474, 0.45924372649305112,
                                0.81496894896028527,  -0.78750040281185729};
static const double r_quad[8] = {-0.21413688590087143, 0.16698975052806861,  0.24403632620283089,
                                 0.15493608264267097,  -0.10663345439900436, -0.15273674759677114,
                                 -0.18640105344218763, 0.093945981965264005};
static const double r_g[8] = {-0.42142857142857193, -0.58571428571428574, 1.0464285714285715,
                              0.97499999999999998,  -0.54999999999999982, 0.78214285714285736,
                              0.41071428571428581,  -1.6571428571428573};
static const double r_lin_g[8] = {-0.88767548591071854, -0.92412864779394965, 0.96039645613365665,
                                  0.84178387953448031,  -0.20701679300852049, 0.82394329425042501,
                                  0.55484436092975153,  -1.1621470641351239};

static gk_points *make_points(gk_context *ctx, int n, const double *x, const double *y,
                              const double *z, double shift)
{
    gk_points *p = gk_points_new(ctx);
    for (int i = 0; i < n; i++)
        gk_points_add(p, x[i] + shift, y[i] + shift, z[i]);
    return p;
}

static void check_resid(const double *got, const double *want, int n, double tol)
{
    double scale = 0.0;
    for (int i = 0; i < n; i++)
        scale = fmax(scale, fabs(want[i]));
    for (int i = 0; i < n; i++)
        CHECKF(fabs(got[i] - want[i]) <= tol * scale, "residual %d: %.17g, R %.17g", i, got[i],
               want[i]);
}

static void test_trend(void)
{
    gk_context *ctx = gk_context_new();
    double r[8];
    /* the same residuals far from the origin (RD- or UTM-like coordinates) */
    for (int s = 0; s < 2; s++) {
        double shift = s ? 4.5e5 : 0.0;
        gk_points *p = make_points(ctx, 8, tx, ty, tz, shift);
        CHECK(gk_trend_residuals(ctx, p, GK_DRIFT_LINEAR, 0, NULL, r) == GK_OK);
        check_resid(r, r_lin, 8, s ? 1e-9 : 1e-13);
        CHECK(gk_trend_residuals(ctx, p, GK_DRIFT_QUADRATIC, 0, NULL, r) == GK_OK);
        check_resid(r, r_quad, 8, s ? 1e-9 : 1e-12);
        CHECK(gk_trend_residuals(ctx, p, GK_DRIFT_NONE, 1, tg, r) == GK_OK);
        check_resid(r, r_g, 8, 1e-13);
        CHECK(gk_trend_residuals(ctx, p, GK_DRIFT_LINEAR, 1, tg, r) == GK_OK);
        check_resid(r, r_lin_g, 8, s ? 1e-9 : 1e-13);
        gk_points_free(p);
    }
    /* a plane and a quadric are their own trends: residuals 0 */
    double z[8];
    for (int i = 0; i < 8; i++)
        z[i] = 1 + 2 * tx[i] - 3 * ty[i] + tx[i] * tx[i] - tx[i] * ty[i] + 0.5 * ty[i] * ty[i];
    gk_points *p = make_points(ctx, 8, tx, ty, z, 0.0);
    CHECK(gk_trend_residuals(ctx, p, GK_DRIFT_QUADRATIC, 0, NULL, r) == GK_OK);
    for (int i = 0; i < 8; i++)
        CHECK(fabs(r[i]) < 1e-12);
    gk_points_free(p);

    /* fewer points than terms */
    p = make_points(ctx, 3, tx, ty, tz, 0.0);
    CHECK(gk_trend_residuals(ctx, p, GK_DRIFT_QUADRATIC, 0, NULL, r) == GK_ERR_ARG);
    CHECK_MSG(ctx, "3 points for a trend of 6 terms");
    CHECK(gk_trend_residuals(ctx, p, GK_DRIFT_LINEAR, 1, tg, r) == GK_ERR_ARG);
    CHECK_MSG(ctx, "3 points for a trend of 4 terms");
    gk_points_free(p);
    p = gk_points_new(ctx);
    CHECK(gk_trend_residuals(ctx, p, GK_DRIFT_LINEAR, 0, NULL, r) == GK_ERR_ARG);
    CHECK_MSG(ctx, "0 points for a trend of 3 terms");
    gk_points_free(p);

    /* collinear points: y is a combination of the constant and x */
    const double lx[7] = {0, 1, 2, 3, 4, 5, 6}, ly[7] = {1, 3, 5, 7, 9, 11, 13};
    const double lz[7] = {1, 2, 1, 3, 2, 4, 1};
    p = make_points(ctx, 7, lx, ly, lz, 0.0);
    CHECK(gk_trend_residuals(ctx, p, GK_DRIFT_LINEAR, 0, NULL, r) == GK_ERR_ARG);
    CHECK_MSG(ctx, "singular: y is a linear combination of the terms before it");
    CHECK(gk_trend_residuals(ctx, p, GK_DRIFT_QUADRATIC, 0, NULL, r) == GK_ERR_ARG);
    CHECK_MSG(ctx, "singular");
    gk_points_free(p);
    /* points on a vertical line: x is constant, the constant's copy */
    const double vx[4] = {2, 2, 2, 2}, vy[4] = {0, 1, 2, 5}, vz[4] = {1, 2, 3, 1};
    p = make_points(ctx, 4, vx, vy, vz, 0.0);
    CHECK(gk_trend_residuals(ctx, p, GK_DRIFT_LINEAR, 0, NULL, r) == GK_ERR_ARG);
    CHECK_MSG(ctx, "x is a linear combination");
    gk_points_free(p);

    /* covariates: constant, missing, or a combination of x and y */
    p = make_points(ctx, 8, tx, ty, tz, 0.0);
    double g[8];
    for (int i = 0; i < 8; i++)
        g[i] = 7.0;
    CHECK(gk_trend_residuals(ctx, p, GK_DRIFT_NONE, 1, g, r) == GK_ERR_ARG);
    CHECK_MSG(ctx, "covariate 1 is constant at the data points");
    for (int i = 0; i < 8; i++)
        g[i] = 2 * tx[i] - ty[i] + 3;
    CHECK(gk_trend_residuals(ctx, p, GK_DRIFT_LINEAR, 1, g, r) == GK_ERR_ARG);
    CHECK_MSG(ctx, "singular: covariate 1 is a linear combination");
    g[5] = NAN;
    CHECK(gk_trend_residuals(ctx, p, GK_DRIFT_NONE, 1, g, r) == GK_ERR_ARG);
    CHECK_MSG(ctx, "covariate 1 has no value at point 6");
    CHECK(gk_trend_residuals(ctx, p, GK_DRIFT_LINEAR, 1, NULL, r) == GK_ERR_ARG);
    CHECK(gk_trend_residuals(ctx, p, GK_DRIFT_LINEAR, GK_TREND_MAX_COV + 1, tg, r) == GK_ERR_ARG);
    gk_points_free(p);
    gk_context_free(ctx);
}

int main(void)
{
    test_candidates();
    test_kappa_list();
    test_fit_best();
    test_trend();
    printf("test_variogram_best: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
