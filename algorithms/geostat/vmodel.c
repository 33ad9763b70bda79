/* SPDX-License-Identifier: MIT */
/*
 * vmodel.c - variogram model functions with gstat's parameterisation
 * (vario_fn.c): partial sill c, range parameter a, u = h / a, gamma(0) = 0.
 */
#include "gridkit_geostat.h"
#include "vmodel_internal.h"
#include "vmodel_eval.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <string.h>

/* gstat's PI (vario.c), used where gstat uses it: the anisotropy */
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

/* The formulas are in vmodel_eval.h, shared with the CUDA kernels. */
double gk_bessel_k_scaled(double nu, double x) { return gk_ve_bessel_k_scaled(nu, x); }

double gk_bessel_k(double nu, double x)
{
    double s = gk_bessel_k_scaled(nu, x);
    return s * exp(-x);
}

double gk_vm_unit(const gk_vm_structure *s, double h, double range)
{
    double a = range;
    if (h == 0.0)
        return 0.0;
    switch (s->type) {
    case GK_VM_NUG:
        return 1.0;
    case GK_VM_SPH:
        return gk_ve_sph(h, a);
    case GK_VM_EXP:
        return gk_ve_exp(h, a);
    case GK_VM_GAU:
        return gk_ve_gau(h, a);
    case GK_VM_MAT:
        return gk_ve_mat(h, a, s->kappa);
    case GK_VM_STE:
        return gk_ve_ste(h, a, s->kappa);
    case GK_VM_EXC:
        return gk_ve_exc(h, a, s->kappa);
    case GK_VM_CIR:
        return gk_ve_cir(h, a);
    case GK_VM_PEN:
        return gk_ve_pen(h, a);
    case GK_VM_LIN:
        return gk_ve_lin(h, a);
    case GK_VM_POW:
        return gk_ve_pow(h, a);
    case GK_VM_HOL:
        return gk_ve_hol(h, a);
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
                            "variogram structure %d (%s): partial sill %.15g must be >= 0", i + 1,
                            nm, s->psill);
        /* the range each model takes: a nugget none, Lin's 0 as well (a pure slope) */
        if (s->type == GK_VM_NUG) {
            if (s->range != 0.0)
                return gk_error(ctx, GK_ERR_ARG,
                                "variogram structure %d (Nug): a nugget has range 0, not %.15g",
                                i + 1, s->range);
        } else if (s->type == GK_VM_LIN) {
            if (!isfinite(s->range) || s->range < 0.0)
                return gk_error(ctx, GK_ERR_ARG,
                                "variogram structure %d (Lin): range %.15g must be >= 0", i + 1,
                                s->range);
        } else if (!isfinite(s->range) || !(s->range > 0.0)) {
            return gk_error(ctx, GK_ERR_ARG,
                            "variogram structure %d (%s): range %.15g must be positive", i + 1, nm,
                            s->range);
        }
        if (s->type == GK_VM_POW && s->range > 2.0)
            return gk_error(ctx, GK_ERR_ARG,
                            "variogram structure %d (Pow): exponent (range) %.15g must be in "
                            "(0, 2]",
                            i + 1, s->range);
        if (s->type == GK_VM_MAT || s->type == GK_VM_STE) {
            if (!(s->kappa > 0.0) || !(s->kappa <= 100.0))
                return gk_error(ctx, GK_ERR_ARG,
                                "variogram structure %d (%s): kappa %.15g must be in (0, 100]",
                                i + 1, nm, s->kappa);
        } else if (s->type == GK_VM_EXC) {
            if (!(s->kappa > 0.0) || !(s->kappa <= 2.0))
                return gk_error(ctx, GK_ERR_ARG,
                                "variogram structure %d (Exc): kappa %.15g must be in (0, 2]",
                                i + 1, s->kappa);
        }
        if (!(s->anis_ratio > 0.0) || !(s->anis_ratio <= 1.0))
            return gk_error(ctx, GK_ERR_ARG,
                            "variogram structure %d (%s): anisotropy ratio %.15g must be in (0, 1]",
                            i + 1, nm, s->anis_ratio);
        if (!(s->anis_angle >= 0.0) || !(s->anis_angle < 360.0))
            return gk_error(ctx, GK_ERR_ARG,
                            "variogram structure %d (%s): anisotropy angle %.15g must be in "
                            "[0, 360)",
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
