/* SPDX-License-Identifier: MIT */
/*
 * curve_r1.c - curve's r1 when the user gives none: the reference's "r1 of
 * about 2 sigma" (sigma: the noise's standard deviation), with sigma
 * measured from the data, and at least 6 sample spacings.
 *
 * The rule. Balls of radius rho around up to 512 samples spread through the
 * input (every n/512-th): in each, the covariance of the samples inside; the
 * largest eigenvalue is the variance along the curve, the rest, averaged
 * over the d - 1 directions across it, the noise's variance there. Their
 * median over the balls (robust to ends, bends and crossings) is s^2(rho).
 * A ball much smaller than the noise band sees a blob (s ~ rho / 2); a ball
 * several sigma wide sees the whole band (s -> sigma). rho follows the fixed
 * point rho = 5 s(rho), reached from any start (below it rho grows 2.5x per
 * step). There, on straight noisy lines, s came out 0.96-0.97 sigma with
 * hundreds of samples per ball and 0.92 sigma with about 40 (the band's
 * tails beyond rho are cut off; the median of a variance lies below its
 * mean), so sigma_hat = s / 0.95. Then
 *     r1 = max(F_dim sigma_hat, 6 spacing),
 * F_2 = 2 (4.6 % of the samples lie beyond 2 sigma across a 2-D curve) and
 * F_3 = 2.5 (the same share beyond 2.5 sigma of a 3-D curve, whose noise
 * across is 2-D: exp(-2.5^2 / 2) = 4.4 %); spacing = the median over the
 * balls of 2 rho / (samples inside), the distance between samples along the
 * curve. The floor gives each ball about 12 samples, so that its mean is
 * steady: with fewer, the rounds break curves apart (a straight line 1e5
 * long, one sample per unit, sigma 2: 132 pieces at r1 = 1.8 sigma, 2 at
 * 6 spacings), and noise-free samples would each become a representative.
 */
#include "curve.h"

#include "cells.h"

#include <math.h>
#include <stdlib.h>

#define N_BALLS 512
#define MIN_IN_BALL 8
#define RHO_PER_SIGMA 5.0

#define S_PER_SIGMA 0.95
static const double F_DIM[4] = {0, 0, 2.0, 2.5};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The largest eigenvalue of the symmetric covariance c (xx, xy, xz, yy, yz, zz). */
static double lambda_max(const double *c, int dim)
{
    if (dim == 2) {
        double h = 0.5 * (c[0] - c[3]);
        return 0.5 * (c[0] + c[3]) + sqrt(h * h + c[1] * c[1]);
    }
    double a11 = c[0], a12 = c[1], a13 = c[2], a22 = c[3], a23 = c[4], a33 = c[5];
    double p1 = a12 * a12 + a13 * a13 + a23 * a23;
    double q = (a11 + a22 + a33) / 3.0;
    if (p1 == 0.0)
        return fmax(a11, fmax(a22, a33));
    double b11 = a11 - q, b22 = a22 - q, b33 = a33 - q;
    double p = sqrt((b11 * b11 + b22 * b22 + b33 * b33 + 2.0 * p1) / 6.0);
    double det = b11 * (b22 * b33 - a23 * a23) - a12 * (a12 * b33 - a23 * a13) +
                 a13 * (a12 * a23 - b22 * a13);
    double r = det / (2.0 * p * p * p);
    r = r < -1.0 ? -1.0 : r > 1.0 ? 1.0 : r;
    return q + 2.0 * p * cos(acos(r) / 3.0);
}

/* One ball around sample i: the variance across and the samples inside. */
static int ball(const gk_cells *g, const gk_cloud *c, size_t i, double rho, double *var,
                double *count)
{
    const int dim = c->dim;
    const double *o = c->p + i * dim;
    double s[3] = {0, 0, 0}, ss[6] = {0, 0, 0, 0, 0, 0}, n = 0;
    gk_cells_iter it;
    for (int32_t q = gk_cells_first(g, o, rho, &it); q >= 0; q = gk_cells_next(g, &it)) {
        const double *p = c->p + (size_t)q * dim;
        double d[3] = {p[0] - o[0], p[1] - o[1], dim == 3 ? p[2] - o[2] : 0.0};
        if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] > rho * rho)
            continue;
        n += 1;
        for (int k = 0; k < 3; k++)
            s[k] += d[k];
        ss[0] += d[0] * d[0], ss[1] += d[0] * d[1], ss[2] += d[0] * d[2];
        ss[3] += d[1] * d[1], ss[4] += d[1] * d[2], ss[5] += d[2] * d[2];
    }
    *count = n;
    if (n < MIN_IN_BALL)
        return 0;
    double cov[6] = {ss[0] / n - s[0] * s[0] / (n * n), ss[1] / n - s[0] * s[1] / (n * n),
                     ss[2] / n - s[0] * s[2] / (n * n), ss[3] / n - s[1] * s[1] / (n * n),
                     ss[4] / n - s[1] * s[2] / (n * n), ss[5] / n - s[2] * s[2] / (n * n)};
    double tr = cov[0] + cov[3] + (dim == 3 ? cov[5] : 0.0);
    *var = fmax(0.0, (tr - lambda_max(cov, dim)) / (dim - 1));
    return 1;
}

/* s^2(rho) and the spacing along the curve, medians over the balls; 0 when
 * too few balls held enough samples. */
static int measure(const gk_cloud *c, double rho, double *buf, double *var, double *spacing)
{
    gk_cells g;
    double lo[3], hi[3];
    gk_cells_bounds(c->p, c->n, c->dim, lo, hi);
    if (gk_cells_init(&g, c->dim, lo, hi, rho, c->n))
        return -1;
    for (size_t i = 0; i < c->n; i++)
        gk_cells_insert(&g, (int32_t)i, c->p + i * c->dim);
    size_t nb = c->n < N_BALLS ? c->n : N_BALLS, ok = 0;
    double *sp = buf + N_BALLS;
    for (size_t b = 0; b < nb; b++) {
        double v, cnt;
        if (ball(&g, c, (size_t)((double)b * (double)c->n / (double)nb), rho, &v, &cnt)) {
            buf[ok] = v;
            sp[ok++] = 2.0 * rho / cnt;
        }
    }
    gk_cells_free(&g);
    if (ok < nb / 4 || ok < 3)
        return 0;
    qsort(buf, ok, sizeof *buf, cmp_double);
    qsort(sp, ok, sizeof *sp, cmp_double);
    *var = buf[ok / 2];
    *spacing = sp[ok / 2];
    return 1;
}

int gk_curve_estimate_r1(gk_context *ctx, const gk_cloud *c, double *r1)
{
    double lo[3], hi[3], diag2 = 0;
    gk_cells_bounds(c->p, c->n, c->dim, lo, hi);
    for (int k = 0; k < c->dim; k++)
        diag2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    double rho = sqrt(diag2) / 64.0, var = 0, spacing = 0;
    double *buf = malloc(2 * N_BALLS * sizeof *buf);
    if (!buf)
        return gk_error(ctx, GK_ERR_NOMEM, "curve: out of memory estimating r1");
    int found = 0;
    for (int step = 0; step < 60 && rho > 0 && rho <= 4.0 * sqrt(diag2); step++) {
        int rc = measure(c, rho, buf, &var, &spacing);
        if (rc < 0) {
            free(buf);
            return gk_error(ctx, GK_ERR_NOMEM, "curve: out of memory estimating r1");
        }
        if (rc == 0) { /* too few samples per ball: widen */
            rho *= 2.0;
            continue;
        }
        found = 1;
        double next = RHO_PER_SIGMA * sqrt(var);
        if (!(next > 1e-9 * rho) || fabs(next - rho) <= 1e-3 * rho)
            break; /* settled, or no noise across at all (only the spacing tells) */
        rho = next;
    }
    free(buf);
    if (!found)
        return gk_error(ctx, GK_ERR_ARG,
                        "curve: cannot estimate r1 from %zu points (too few near each "
                        "other); give r1",
                        c->n);
    *r1 = fmax(F_DIM[c->dim] * sqrt(var) / S_PER_SIGMA, 6.0 * spacing);
    return GK_OK;
}
