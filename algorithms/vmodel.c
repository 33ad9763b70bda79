/*
 * vmodel.c - variogram model functions with gstat's parameterisation
 * (vario_fn.c): partial sill c, range parameter a, u = h / a, gamma(0) = 0.
 */
#include "vmodel.h"
#include "vmodel_internal.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <string.h>

#define GK_PI 3.14159265358979323846
/* gstat's PI (vario_fn.c, vario.c), used where gstat uses it: Cir, anisotropy */
#define GSTAT_PI 3.14159265359

static const char *const type_names[GK_VM_N_TYPES] = {"Nug", "Sph", "Exp", "Gau", "Mat", "Ste",
                                                       "Exc", "Cir", "Pen", "Lin", "Pow", "Hol"};

int gk_vm_type_from_name(const char *name, gk_vm_type *type)
{
    if (!name || strlen(name) != 3)
        return GK_ERR_ARG;
    for (int t = 0; t < GK_VM_N_TYPES; t++) {
        const char *s = type_names[t];
        if (tolower((unsigned char)name[0]) == tolower((unsigned char)s[0]) &&
            tolower((unsigned char)name[1]) == tolower((unsigned char)s[1]) &&
            tolower((unsigned char)name[2]) == tolower((unsigned char)s[2])) {
            *type = (gk_vm_type)t;
            return GK_OK;
        }
    }
    return GK_ERR_ARG;
}

const char *gk_vm_type_name(gk_vm_type type)
{
    return (type >= 0 && type < GK_VM_N_TYPES) ? type_names[type] : "???";
}

/* ---- modified Bessel function of the second kind --------------------------
 * K_nu(x) for real nu >= 0, x > 0: reduce to mu = nu - n in [-1/2, 1/2), get
 * K_mu and K_mu+1 by Temme's series (x <= 2) or Steed's continued fraction
 * (CF2, x > 2), then recur upwards (stable for K). Returns e^x K_nu(x) so that
 * large x neither underflows nor loses the scale. */

/* 1/Gamma(z) = sum_{k>=1} c_k z^k (Abramowitz & Stegun 6.1.34). */
static const double rgamma_c[26] = {
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

/* For |mu| <= 1/2: gp = 1/Gamma(1+mu), gm = 1/Gamma(1-mu),
 * g1 = (gm - gp) / (2 mu) (its limit at mu = 0), g2 = (gm + gp) / 2. */
static void temme_gammas(double mu, double *g1, double *g2, double *gp, double *gm)
{
    /* 1/Gamma(1+x) = sum_k c_k x^(k-1): even powers from odd k, odd from even k. */
    double even = 0.0, odd = 0.0, m2 = mu * mu;
    for (int k = 25; k >= 0; k -= 2) /* c[k] multiplies x^k (0-based) */
        odd = odd * m2 + rgamma_c[k];
    for (int k = 24; k >= 0; k -= 2)
        even = even * m2 + rgamma_c[k];
    /* even = sum c[2j] mu^(2j), odd = sum c[2j+1] mu^(2j) */
    *g2 = even;
    *g1 = -odd;
    *gp = even + mu * odd;
    *gm = even - mu * odd;
}

double gk_bessel_k_scaled(double nu, double x)
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
        temme_gammas(mu, &g1, &g2, &gp, &gm);
        double x2 = 0.5 * x, lx = -log(x2);
        double pimu = GK_PI * mu;
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
        kmu = sqrt(GK_PI / (2.0 * x)) / s;
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

double gk_bessel_k(double nu, double x)
{
    double s = gk_bessel_k_scaled(nu, x);
    return s * exp(-x);
}

/* ---- unit model functions (sill 1) at the (anisotropy-transformed) distance h */

/* Matern, gstat's fn_matern: 1 - 2^(1-k)/Gamma(k) u^k K_k(u); 1 beyond 600 a. */
static double matern_unit(double h, double a, double kappa)
{
    if (h == 0.0)
        return 0.0;
    if (h > 600.0 * a)
        return 1.0;
    double u = h / a;
    double ks = gk_bessel_k_scaled(kappa, u);
    double ans = pow(2.0, 1.0 - kappa) / tgamma(kappa) * pow(u, kappa) * (ks * exp(-u));
    if (!isfinite(ans)) /* tiny u with large kappa: work in logs */
        ans = exp((1.0 - kappa) * 0.69314718055994530942 - lgamma(kappa) + kappa * log(u) - u + log(ks));
    if (!isfinite(ans))
        ans = 1.0;
    return 1.0 - ans;
}

/* Stein's Matern, gstat's fn_matern2 (same guards for non-finite parts). */
static double stein_unit(double h, double a, double kappa)
{
    if (h == 0.0)
        return 0.0;
    double t = 2.0 * sqrt(kappa) * (h / a);
    double bes = gk_bessel_k(kappa, t);
    if (!isfinite(bes))
        return 0.0;
    if (bes == 0.0)
        return 1.0;
    double mult = pow(2.0, 1.0 - kappa) / tgamma(kappa) * pow(t, kappa);
    if (!isfinite(mult))
        return 1.0;
    return 1.0 - bes * mult;
}

double gk_vm_unit(const gk_vm_structure *s, double h, double range)
{
    double a = range;
    if (h == 0.0)
        return 0.0;
    switch (s->type) {
    case GK_VM_NUG:
        return 1.0;
    case GK_VM_SPH: {
        if (h >= a)
            return 1.0;
        double u = h / a;
        return u * (1.5 - 0.5 * u * u);
    }
    case GK_VM_EXP:
        return 1.0 - exp(-h / a);
    case GK_VM_GAU: {
        double u = h / a;
        return 1.0 - exp(-(u * u));
    }
    case GK_VM_MAT:
        return matern_unit(h, a, s->kappa);
    case GK_VM_STE:
        return stein_unit(h, a, s->kappa);
    case GK_VM_EXC:
        return 1.0 - exp(-pow(h / a, s->kappa));
    case GK_VM_CIR: {
        if (h >= a)
            return 1.0;
        double u = h / a;
        return (2.0 / GSTAT_PI) * (u * sqrt(1.0 - u * u) + asin(u));
    }
    case GK_VM_PEN: {
        if (h >= a)
            return 1.0;
        double u = h / a, u2 = u * u;
        return u * ((15.0 / 8.0) + u2 * ((-5.0 / 4.0) + u2 * (3.0 / 8.0)));
    }
    case GK_VM_LIN:
        if (a == 0.0)
            return h;
        return h >= a ? 1.0 : h / a;
    case GK_VM_POW:
        return pow(h, a);
    case GK_VM_HOL: {
        double u = h / a;
        return 1.0 - sin(u) / u;
    }
    default:
        return NAN;
    }
}

/* d(unit gamma)/d(range) as gstat's fit uses it: the analytic derivatives of
 * vario_fn.c where gstat has them (its Gaussian one included, which is not
 * the exact derivative: matching it makes the fit converge where gstat's
 * does), else gstat's central difference with relative step 0.001. */
double gk_vm_unit_drange(const gk_vm_structure *s, double h, double range)
{
    double r = range;
    switch (s->type) {
    case GK_VM_NUG:
        return 0.0;
    case GK_VM_SPH: {
        if (h > r)
            return 0.0;
        double hr2 = h / (r * r);
        return 1.5 * hr2 * (-1.0 + h * hr2);
    }
    case GK_VM_EXP: {
        double hr = -h / r;
        return (hr / r) * exp(hr);
    }
    case GK_VM_GAU: {
        double hr = h / r;
        return (-hr / r) * exp(-(hr * hr));
    }
    case GK_VM_PEN: {
        if (h >= r)
            return 0.0;
        double hr2 = h / (r * r);
        return hr2 * ((-15.0 / 8.0) + hr2 * ((15.0 / 4.0) * h - (15.0 / 8.0) * h * h * hr2));
    }
    case GK_VM_LIN:
        if (r == 0.0 || h > r)
            return 0.0;
        return -h / (r * r);
    case GK_VM_POW:
        return log(h) * pow(h, r);
    case GK_VM_HOL: {
        double hr = h / r, hr2 = h / (r * r);
        return hr2 * sin(hr) + hr * hr2 * cos(hr);
    }
    default: {
        const double delta = 0.001;
        double rr = r > 1e-20 ? r : 1e-20;
        double lo = gk_vm_unit(s, h, rr * (1.0 + delta));
        double hi = gk_vm_unit(s, h, rr * (1.0 - delta));
        return (lo - hi) / (2.0 * rr * delta);
    }
    }
}

/* Distance after gstat's 2-D anisotropy transform (get_tm + transform_norm). */
double gk_vm_distance(const gk_vm_structure *s, double dx, double dy)
{
    if (dx == 0.0 && dy == 0.0)
        return 0.0;
    if (s->anis_ratio == 1.0 || s->type == GK_VM_NUG)
        return sqrt(dx * dx + dy * dy);
    double p = s->anis_angle;
    double alpha = (p < 270.0 ? 90.0 - p : 450.0 - p) * (GSTAT_PI / 180.0);
    double sa = sin(alpha), ca = cos(alpha);
    double f = 1.0 / (s->anis_ratio > 1e-30 ? s->anis_ratio : 1e-30);
    double t0 = ca * dx + sa * dy;
    double t1 = f * (-sa * dx + ca * dy);
    return sqrt(t0 * t0 + t1 * t1);
}

int gk_vmodel_check(gk_context *ctx, const gk_vmodel *m)
{
    if (!m || m->n < 1)
        return gk_error(ctx, GK_ERR_ARG, "variogram model has no structure");
    if (m->n > GK_VM_MAX_STRUCTURES)
        return gk_error(ctx, GK_ERR_ARG, "variogram model has %d structures (at most %d)", m->n,
                        GK_VM_MAX_STRUCTURES);
    for (int i = 0; i < m->n; i++) {
        const gk_vm_structure *s = &m->s[i];
        const char *nm = gk_vm_type_name(s->type);
        if (s->type < 0 || s->type >= GK_VM_N_TYPES)
            return gk_error(ctx, GK_ERR_ARG, "variogram structure %d: unknown model type", i + 1);
        if (!isfinite(s->psill) || s->psill < 0.0)
            return gk_error(ctx, GK_ERR_ARG,
                            "variogram structure %d (%s): partial sill %g must be >= 0", i + 1,
                            nm, s->psill);
        if (!isfinite(s->range) || s->range < 0.0)
            return gk_error(ctx, GK_ERR_ARG,
                            "variogram structure %d (%s): range %g must be >= 0", i + 1, nm,
                            s->range);
        if (s->type == GK_VM_NUG) {
            if (s->range != 0.0)
                return gk_error(ctx, GK_ERR_ARG,
                                "variogram structure %d (Nug): a nugget has range 0, not %g",
                                i + 1, s->range);
        } else if (s->type != GK_VM_LIN && s->range <= 0.0) {
            return gk_error(ctx, GK_ERR_ARG,
                            "variogram structure %d (%s): range must be positive", i + 1, nm);
        }
        if (s->type == GK_VM_POW && s->range > 2.0)
            return gk_error(ctx, GK_ERR_ARG,
                            "variogram structure %d (Pow): exponent (range) %g must be in (0, 2]",
                            i + 1, s->range);
        if (s->type == GK_VM_MAT || s->type == GK_VM_STE) {
            if (!(s->kappa > 0.0) || !(s->kappa <= 100.0))
                return gk_error(ctx, GK_ERR_ARG,
                                "variogram structure %d (%s): kappa %g must be in (0, 100]",
                                i + 1, nm, s->kappa);
        } else if (s->type == GK_VM_EXC) {
            if (!(s->kappa > 0.0) || !(s->kappa <= 2.0))
                return gk_error(ctx, GK_ERR_ARG,
                                "variogram structure %d (Exc): kappa %g must be in (0, 2]", i + 1,
                                s->kappa);
        }
        if (!(s->anis_ratio > 0.0) || !(s->anis_ratio <= 1.0))
            return gk_error(ctx, GK_ERR_ARG,
                            "variogram structure %d (%s): anisotropy ratio %g must be in (0, 1]",
                            i + 1, nm, s->anis_ratio);
        if (!(s->anis_angle >= 0.0) || !(s->anis_angle < 360.0))
            return gk_error(ctx, GK_ERR_ARG,
                            "variogram structure %d (%s): anisotropy angle %g must be in [0, 360)",
                            i + 1, nm, s->anis_angle);
        if (s->type == GK_VM_NUG && s->anis_ratio != 1.0)
            return gk_error(ctx, GK_ERR_ARG,
                            "variogram structure %d (Nug): nugget anisotropy is not meaningful",
                            i + 1);
    }
    return GK_OK;
}

double gk_vmodel_gamma(const gk_vmodel *m, double dx, double dy)
{
    if (dx == 0.0 && dy == 0.0)
        return 0.0;
    double g = 0.0;
    for (int i = 0; i < m->n; i++) {
        const gk_vm_structure *s = &m->s[i];
        g += s->psill * gk_vm_unit(s, gk_vm_distance(s, dx, dy), s->range);
    }
    return g;
}

double gk_vmodel_gamma_h(const gk_vmodel *m, double h)
{
    if (h == 0.0)
        return 0.0;
    double g = 0.0;
    for (int i = 0; i < m->n; i++)
        g += m->s[i].psill * gk_vm_unit(&m->s[i], fabs(h), m->s[i].range);
    return g;
}

int gk_vm_structure_bounded(const gk_vm_structure *s)
{
    return !(s->type == GK_VM_POW || (s->type == GK_VM_LIN && s->range == 0.0));
}

int gk_vmodel_bounded(const gk_vmodel *m)
{
    for (int i = 0; i < m->n; i++)
        if (!gk_vm_structure_bounded(&m->s[i]))
            return 0;
    return 1;
}

double gk_vmodel_sill(const gk_vmodel *m)
{
    double c = 0.0;
    for (int i = 0; i < m->n; i++)
        c += m->s[i].psill;
    return c;
}
