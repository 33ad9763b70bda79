/* SPDX-License-Identifier: MIT */
/*
 * vmodel_eval.h - the unit-sill variogram functions of gstat (vario_fn.c):
 * u = h / a, gamma(0) = 0 is the caller's. One source for the CPU
 * (vmodel.c) and the CUDA kernels (gpu/krige_cov.cuh): plain C that
 * nvcc compiles for both sides, so no tables at file scope and nothing but
 * <math.h>. The operations are vmodel.c's, in its order (CPU results must
 * not move by a bit).
 */
#ifndef GK_VMODEL_EVAL_H
#define GK_VMODEL_EVAL_H

#include <math.h>

#ifdef __CUDACC__
#define GK_HOSTDEV __host__ __device__
#else
#define GK_HOSTDEV
#endif

#define GK_VE_PI 3.14159265358979323846
/* gstat's PI (vario_fn.c), used where gstat uses it: Cir */
#define GK_VE_GSTAT_PI 3.14159265359

/* ---- modified Bessel function of the second kind --------------------------
 * K_nu(x) for real nu >= 0, x > 0: reduce to mu = nu - n in [-1/2, 1/2), get
 * K_mu and K_mu+1 by Temme's series (x <= 2) or Steed's continued fraction
 * (CF2, x > 2), then recur upwards (stable for K). */

/* For |mu| <= 1/2: gp = 1/Gamma(1+mu), gm = 1/Gamma(1-mu),
 * g1 = (gm - gp) / (2 mu) (its limit at mu = 0), g2 = (gm + gp) / 2, from
 * 1/Gamma(z) = sum_{k>=1} c_k z^k (Abramowitz & Stegun 6.1.34). */
static inline GK_HOSTDEV void gk_ve_temme_gammas(double mu, double *g1, double *g2, double *gp,
                                                 double *gm)
{
    /* local, not file scope: device code cannot read a host table */
    const double c[26] = {
        1.0,
        0.5772156649015329,
        -0.6558780715202538,
        -0.0420026350340952,
        0.1665386113822915,
        -0.0421977345555443,
        -0.0096219715278770,
        0.0072189432466630,
        -0.0011651675918591,
        -0.0002152416741149,
        0.0001280502823882,
        -0.0000201348547807,
        -0.0000012504934821,
        0.0000011330272320,
        -0.0000002056338417,
        0.0000000061160950,
        0.0000000050020075,
        -0.0000000011812746,
        0.0000000001043427,
        0.0000000000077823,
        -0.0000000000036968,
        0.0000000000005100,
        -0.0000000000000206,
        -0.0000000000000054,
        0.0000000000000014,
        0.0000000000000001,
    };
    /* 1/Gamma(1+x) = sum_k c_k x^(k-1): even powers from odd k, odd from even k. */
    double even = 0.0, odd = 0.0, m2 = mu * mu;
    for (int k = 25; k >= 0; k -= 2) /* c[k] multiplies x^k (0-based) */
        odd = odd * m2 + c[k];
    for (int k = 24; k >= 0; k -= 2)
        even = even * m2 + c[k];
    /* even = sum c[2j] mu^(2j), odd = sum c[2j+1] mu^(2j) */
    *g2 = even;
    *g1 = -odd;
    *gp = even + mu * odd;
    *gm = even - mu * odd;
}

/* e^x K_nu(x): large x neither underflows nor loses the scale. */
static inline GK_HOSTDEV double gk_ve_bessel_k_scaled(double nu, double x)
{
    if (!(x > 0.0) || !isfinite(nu))
        return x == 0.0 ? INFINITY : NAN;
    if (isinf(x))
        return 0.0;
    nu = fabs(nu);
    int n = (int)floor(nu + 0.5);
    double mu = nu - n; /* [-1/2, 1/2) */
    double kmu, kmu1;   /* e^x K_mu(x), e^x K_mu+1(x) */
    const double eps = 1e-17;
    if (x <= 2.0) {
        double g1, g2, gp, gm;
        gk_ve_temme_gammas(mu, &g1, &g2, &gp, &gm);
        double x2 = 0.5 * x, lx = -log(x2);
        double pimu = GK_VE_PI * mu;
        double fact = fabs(pimu) < 1e-15 ? 1.0 : pimu / sin(pimu);
        double sigma = mu * lx;
        double fact2 = fabs(sigma) < 1e-15 ? 1.0 : sinh(sigma) / sigma;
        double e = exp(sigma);
        double f = fact * (g1 * cosh(sigma) + g2 * fact2 * lx);
        double p = 0.5 * e / gp;
        double q = 0.5 / (e * gm);
        double c = 1.0, d = x2 * x2;
        double sum = f, sum1 = p;
        for (int k = 1; k < 500; k++) {
            f = (k * f + p + q) / ((double)k * k - mu * mu);
            c *= d / k;
            p /= k - mu;
            q /= k + mu;
            double del = c * f;
            sum += del;
            sum1 += c * (p - k * f);
            if (fabs(del) < fabs(sum) * eps)
                break;
        }
        double ex = exp(x);
        kmu = sum * ex;
        kmu1 = sum1 * (2.0 / x) * ex;
    } else {
        /* Steed's method for CF2, with the sum for K_mu (Temme 1975). */
        double b = 2.0 * (1.0 + x), d = 1.0 / b, h = d, delh = d;
        double q1 = 0.0, q2 = 1.0, a1 = 0.25 - mu * mu;
        double q = a1, c = a1, a = -a1, s = 1.0 + q * delh;
        for (int i = 2; i < 100000; i++) {
            a -= 2.0 * (i - 1);
            c = -a * c / i;
            double qnew = (q1 - b * q2) / a;
            q1 = q2;
            q2 = qnew;
            q += c * qnew;
            b += 2.0;
            d = 1.0 / (b + a * d);
            delh = (b * d - 1.0) * delh;
            h += delh;
            double dels = q * delh;
            s += dels;
            if (fabs(dels) < fabs(s) * eps)
                break;
        }
        kmu = sqrt(GK_VE_PI / (2.0 * x)) / s;
        kmu1 = kmu * (mu + x + 0.5 - a1 * h) / x;
    }
    /* upward recurrence K_{m+1} = K_{m-1} + 2m/x K_m */
    double km = kmu, kp = kmu1;
    for (int i = 1; i <= n; i++) {
        double kn = (mu + i) * (2.0 / x) * kp + km;
        km = kp;
        kp = kn;
    }
    return km;
}

/* ---- unit model functions at the (anisotropy-transformed) distance h > 0,
 * range parameter a (the exponent for Pow; 0 = unbounded for Lin) ---------- */

static inline GK_HOSTDEV double gk_ve_sph(double h, double a)
{
    if (h >= a)
        return 1.0;
    double u = h / a;
    return u * (1.5 - 0.5 * u * u);
}

static inline GK_HOSTDEV double gk_ve_exp(double h, double a) { return 1.0 - exp(-h / a); }

static inline GK_HOSTDEV double gk_ve_gau(double h, double a)
{
    double u = h / a;
    return 1.0 - exp(-(u * u));
}

/* Matern, gstat's fn_matern: 1 - 2^(1-k)/Gamma(k) u^k K_k(u); 1 beyond 600 a. */
static inline GK_HOSTDEV double gk_ve_mat(double h, double a, double kappa)
{
    if (h == 0.0)
        return 0.0;
    if (h > 600.0 * a)
        return 1.0;
    double u = h / a;
    double ks = gk_ve_bessel_k_scaled(kappa, u);
    double ans = pow(2.0, 1.0 - kappa) / tgamma(kappa) * pow(u, kappa) * (ks * exp(-u));
    if (!isfinite(ans)) /* tiny u with large kappa: work in logs */
        ans = exp((1.0 - kappa) * 0.69314718055994530942 - lgamma(kappa) + kappa * log(u) - u +
                  log(ks));
    if (!isfinite(ans))
        ans = 1.0;
    return 1.0 - ans;
}

/* Stein's Matern, gstat's fn_matern2 (same guards for non-finite parts). */
static inline GK_HOSTDEV double gk_ve_ste(double h, double a, double kappa)
{
    if (h == 0.0)
        return 0.0;
    double t = 2.0 * sqrt(kappa) * (h / a);
    double bes = gk_ve_bessel_k_scaled(kappa, t) * exp(-t);
    if (!isfinite(bes))
        return 0.0;
    if (bes == 0.0)
        return 1.0;
    double mult = pow(2.0, 1.0 - kappa) / tgamma(kappa) * pow(t, kappa);
    if (!isfinite(mult))
        return 1.0;
    return 1.0 - bes * mult;
}

/* Exponential class (stable) */
static inline GK_HOSTDEV double gk_ve_exc(double h, double a, double kappa)
{
    return 1.0 - exp(-pow(h / a, kappa));
}

static inline GK_HOSTDEV double gk_ve_cir(double h, double a)
{
    if (h >= a)
        return 1.0;
    double u = h / a;
    return (2.0 / GK_VE_GSTAT_PI) * (u * sqrt(1.0 - u * u) + asin(u));
}

static inline GK_HOSTDEV double gk_ve_pen(double h, double a)
{
    if (h >= a)
        return 1.0;
    double u = h / a, u2 = u * u;
    return u * ((15.0 / 8.0) + u2 * ((-5.0 / 4.0) + u2 * (3.0 / 8.0)));
}

/* linear: a = 0 is unbounded (the partial sill is the slope) */
static inline GK_HOSTDEV double gk_ve_lin(double h, double a)
{
    if (a == 0.0)
        return h;
    return h >= a ? 1.0 : h / a;
}

/* power: a is the exponent, unbounded */
static inline GK_HOSTDEV double gk_ve_pow(double h, double a) { return pow(h, a); }

/* hole effect */
static inline GK_HOSTDEV double gk_ve_hol(double h, double a)
{
    double u = h / a;
    return 1.0 - sin(u) / u;
}

#endif
