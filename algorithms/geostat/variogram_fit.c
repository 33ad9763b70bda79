/* SPDX-License-Identifier: MIT */
/*
 * variogram_fit.c - weighted least-squares variogram fit, gstat's
 * fit.variogram() scheme (fit.c + the R wrapper), so that gridkit lands on
 * the optimum gstat reports:
 *
 *  - Gauss-Newton steps on the free partial sills and ranges, solved through
 *    the normal equations (Cholesky); when ranges are free and the step's
 *    squared norm exceeds 0.2 x the parameter vector's squared norm, it is
 *    scaled by 0.2 / that ratio ("bounded"; gstat's v_norm2 is a square);
 *  - weights fixed at iteration 0: method 1 N_j, 2 N_j / gamma(h_j)^2 (start
 *    model), 6 none, 7 N_j / h_j^2;
 *  - stop when the relative SSErr decrease is in [0, 1e-5) after a free step,
 *    or after 200 iterations as gstat 2.1-0 does (then converged = 0);
 *  - a fitted partial sill below 0 is fixed at 0 and the fit restarts from the
 *    starting ranges (the R wrapper's rule for direct variograms).
 * Added: a range never drops to <= 0 (a step that would is shortened).
 *
 * Automatic starting values (psill or range NaN) are gstat's vgm_fill_na():
 * ranges max(dist)/3 (nugget 0); nugget = mean gamma of the first 3 classes;
 * every other NaN partial sill = mean gamma of the last 5 classes divided by
 * the number of non-nugget structures. Classes = the non-empty ones used.
 */
#include "gridkit_geostat.h"
#include "vmodel_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GSTAT_PI 3.14159265359 /* gstat's PI */
#define FIT_LIMIT 1e-5
#define FIT_ITER 200 /* gstat 2.1-0 (older sources: 50) */
#define GL_ZERO (DBL_EPSILON * 10.0)
#define MAX_PAR (2 * GK_VM_MAX_STRUCTURES)

typedef struct {
    int n;                       /* classes used */
    double *h, *g, *w, *ex, *ey; /* mean distance, gamma, weight, unit direction */
    int has_w;
} fit_data;

static double model_at(const gk_vmodel *m, const fit_data *fd, int i)
{
    return gk_vmodel_gamma(m, fd->ex[i] * fd->h[i], fd->ey[i] * fd->h[i]);
}

static double sserr(const gk_vmodel *m, const fit_data *fd)
{
    double s = 0.0;
    for (int i = 0; i < fd->n; i++) {
        double dz = fd->g[i] - model_at(m, fd, i);
        s += fd->has_w ? dz * dz * fd->w[i] : dz * dz;
    }
    return s;
}

/* Cholesky solve of the p x p system A x = b (A overwritten); 1 if singular. */
static int chol_solve(double *A, double *b, int p)
{
    for (int j = 0; j < p; j++) {
        double d = A[j * p + j];
        for (int k = 0; k < j; k++)
            d -= A[j * p + k] * A[j * p + k];
        if (!(d > 0.0))
            return 1;
        d = sqrt(d);
        A[j * p + j] = d;
        for (int i = j + 1; i < p; i++) {
            double s = A[i * p + j];
            for (int k = 0; k < j; k++)
                s -= A[i * p + k] * A[j * p + k];
            A[i * p + j] = s / d;
        }
    }
    for (int i = 0; i < p; i++) {
        double s = b[i];
        for (int k = 0; k < i; k++)
            s -= A[i * p + k] * b[k];
        b[i] = s / A[i * p + i];
    }
    for (int i = p - 1; i >= 0; i--) {
        double s = b[i];
        for (int k = i + 1; k < p; k++)
            s -= A[k * p + i] * b[k];
        b[i] = s / A[i * p + i];
    }
    return 0;
}

static int fill_weights(gk_context *ctx, const gk_vmodel *m, fit_data *fd, const double *np,
                        int method)
{
    fd->has_w = method != 6;
    for (int i = 0; i < fd->n && fd->has_w; i++) {
        double s = method == 7 ? fd->h[i] : model_at(m, fd, i);
        fd->w[i] = np[i];
        if (method != 1) {
            if (fabs(s) > 1e-30)
                fd->w[i] /= s * s;
            else
                return gk_error(ctx, GK_ERR_ARG,
                                "variogram fit: infinite weight (model or distance 0 at class "
                                "%d); use another fit method or starting values",
                                i + 1);
        }
    }
    return GK_OK;
}

/* One Gauss-Newton step; returns 1 when the normal equations are singular. */
static int gauss_newton(gk_vmodel *m, const fit_data *fd, const int *fit_sill, const int *fit_range,
                        int *bounded)
{
    int par_model[MAX_PAR], par_is_range[MAX_PAR], np = 0, any_range = 0;
    for (int i = 0; i < m->n; i++) {
        if (fit_sill[i]) {
            par_model[np] = i;
            par_is_range[np++] = 0;
        }
    }
    for (int i = 0; i < m->n; i++) {
        if (fit_range[i]) {
            par_model[np] = i;
            par_is_range[np++] = 1;
            any_range = 1;
        }
    }
    *bounded = 0;
    if (np == 0)
        return 0;
    if (fd->n < np)
        return 1;
    double A[MAX_PAR * MAX_PAR] = {0}, b[MAX_PAR] = {0}, start[MAX_PAR], xrow[MAX_PAR];
    for (int k = 0; k < np; k++)
        start[k] = par_is_range[k] ? m->s[par_model[k]].range : m->s[par_model[k]].psill;
    for (int i = 0; i < fd->n; i++) {
        double dx = fd->ex[i] * fd->h[i], dy = fd->ey[i] * fd->h[i];
        double r = fd->g[i] - gk_vmodel_gamma(m, dx, dy);
        double w = fd->has_w ? fd->w[i] : 1.0;
        for (int k = 0; k < np; k++) {
            const gk_vm_structure *s = &m->s[par_model[k]];
            double hh = gk_vm_distance(s, dx, dy);
            xrow[k] = par_is_range[k] ? s->psill * gk_vm_unit_drange(s, hh, s->range)
                                      : gk_vm_unit(s, hh, s->range);
        }
        for (int k = 0; k < np; k++) {
            b[k] += w * xrow[k] * r;
            for (int l = 0; l <= k; l++)
                A[k * np + l] += w * xrow[k] * xrow[l];
        }
    }
    for (int k = 0; k < np; k++)
        for (int l = k + 1; l < np; l++)
            A[k * np + l] = A[l * np + k];
    if (chol_solve(A, b, np))
        return 1;
    for (int k = 0; k < np; k++)
        if (!isfinite(b[k]))
            return 1;
    if (any_range) {
        double nb = 0.0, ns = 0.0;
        for (int k = 0; k < np; k++) {
            nb += b[k] * b[k];
            ns += start[k] * start[k];
        }
        /* gstat's v_norm2() is the squared norm: the "20 %" compares squares */
        double s = nb / ns;
        if (s > 0.2) {
            for (int k = 0; k < np; k++)
                b[k] *= 0.2 / s;
            *bounded = 1;
        }
    }
    for (int k = 0; k < np; k++) {
        gk_vm_structure *s = &m->s[par_model[k]];
        double v = start[k] + b[k];
        if (par_is_range[k]) {
            if (!(v > 0.0)) { /* keep ranges positive */
                v = 0.5 * start[k];
                *bounded = 1;
            }
            if (s->type == GK_VM_POW && v > 2.0)
                v = 2.0;
            s->range = v;
        } else {
            s->psill = v;
        }
    }
    return 0;
}

int gk_variogram_fit(gk_context *ctx, const gk_vgm *v, int dir, gk_vmodel *model,
                     const gk_fit_options *opt, gk_fit_result *res)
{
    gk_fit_options o = {7, 1, 1};
    if (opt)
        o = *opt;
    gk_fit_result dummy;
    if (!res)
        res = &dummy;
    memset(res, 0, sizeof *res);
    res->sserr = NAN;
    if (o.method != 1 && o.method != 2 && o.method != 6 && o.method != 7)
        return gk_error(ctx, GK_ERR_ARG, "variogram fit: method %d (use 1, 2, 6 or 7)", o.method);
    if (!v || !model || model->n < 1 || model->n > GK_VM_MAX_STRUCTURES)
        return gk_error(ctx, GK_ERR_ARG, "variogram fit: no model to fit");
    if (dir < -1 || dir >= v->ndir)
        return gk_error(ctx, GK_ERR_ARG, "variogram fit: direction %d out of range", dir);

    /* the classes to fit: one direction, or all (dir = -1), non-empty ones */
    int d0 = dir < 0 ? 0 : dir, d1 = dir < 0 ? v->ndir : dir + 1;
    size_t cap = (size_t)(d1 - d0) * v->nlags;
    fit_data fd = {0};
    double *buf = malloc(cap * 6 * sizeof(double) + 1);
    if (!buf)
        return gk_error(ctx, GK_ERR_NOMEM, "variogram fit: out of memory");
    fd.h = buf;
    fd.g = buf + cap;
    fd.w = buf + 2 * cap;
    fd.ex = buf + 3 * cap;
    fd.ey = buf + 4 * cap;
    double *np = buf + 5 * cap;
    for (int a = d0; a < d1; a++) {
        double az = v->azimuth ? v->azimuth[a] : NAN;
        /* gstat evaluates the model along its alpha (0 = north) */
        double ex = isfinite(az) ? sin(az * GSTAT_PI / 180.0) : 0.0;
        double ey = isfinite(az) ? cos(az * GSTAT_PI / 180.0) : 1.0;
        for (int k = 0; k < v->nlags; k++) {
            size_t q = (size_t)a * v->nlags + k;
            if (!(v->np[q] > 0))
                continue;
            fd.h[fd.n] = v->dist[q];
            fd.g[fd.n] = v->gamma[q];
            fd.ex[fd.n] = ex;
            fd.ey[fd.n] = ey;
            np[fd.n] = v->np[q];
            fd.n++;
        }
    }
    int rc = GK_OK;
    if (fd.n == 0) {
        rc = gk_error(ctx, GK_ERR_ARG, "variogram fit: the sample variogram has no pairs");
        goto done;
    }
    /* gamma 0 in every class: z does not vary, so there is nothing to fit
     * (the fit's system is singular whatever the start) */
    int flat = 1;
    for (int i = 0; i < fd.n && flat; i++)
        flat = fd.g[i] == 0.0;
    if (flat) {
        rc = gk_error(ctx, GK_ERR_ARG,
                      "variogram fit: the sample variogram is 0 in every class (%d): z is "
                      "constant (no pair of points differs), so there is no variogram to fit; "
                      "a constant z needs no model",
                      fd.n);
        goto done;
    }
    if (o.method == 7)
        for (int i = 0; i < fd.n; i++)
            if (fd.h[i] == 0.0) {
                rc = gk_error(ctx, GK_ERR_ARG,
                              "variogram fit: method 7 does not work with zero-distance "
                              "classes; use another fit method");
                goto done;
            }

    /* automatic starting values (gstat's vgm_fill_na) */
    {
        double maxd = 0.0, head = 0.0, tail = 0.0;
        int nh = fd.n < 3 ? fd.n : 3, nt = fd.n < 5 ? fd.n : 5, nonnug = 0;
        for (int i = 0; i < fd.n; i++)
            maxd = fd.h[i] > maxd ? fd.h[i] : maxd;
        for (int i = 0; i < nh; i++)
            head += fd.g[i] / nh;
        for (int i = fd.n - nt; i < fd.n; i++)
            tail += fd.g[i] / nt;
        for (int i = 0; i < model->n; i++)
            nonnug += model->s[i].type != GK_VM_NUG;
        for (int i = 0; i < model->n; i++) {
            gk_vm_structure *s = &model->s[i];
            if (isnan(s->range))
                s->range = s->type == GK_VM_NUG ? 0.0 : maxd / 3.0;
            if (isnan(s->psill))
                s->psill = s->type == GK_VM_NUG ? head : tail / (nonnug > 0 ? nonnug : 1);
        }
    }
    if ((rc = gk_vmodel_check(ctx, model)) != GK_OK)
        goto done;

    int fit_sill[GK_VM_MAX_STRUCTURES], fit_range[GK_VM_MAX_STRUCTURES];
    double init_range[GK_VM_MAX_STRUCTURES];
    for (int i = 0; i < model->n; i++) {
        gk_vm_structure *s = &model->s[i];
        fit_sill[i] = o.fit_sills != 0;
        fit_range[i] =
            o.fit_ranges != 0 && s->type != GK_VM_NUG && !(s->type == GK_VM_LIN && s->range == 0.0);
        init_range[i] = s->range;
    }

    for (int attempt = 0; attempt <= model->n; attempt++) {
        for (int i = 0; i < model->n; i++)
            if (model->s[i].psill == 0.0 && fit_sill[i])
                model->s[i].psill = 1.0; /* gstat: "avoid lot'o trouble" */
        if ((rc = fill_weights(ctx, model, &fd, np, o.method)) != GK_OK)
            goto done;
        double old = DBL_MAX, sse = 0.0, step = 0.0;
        int it = 0, stop = 0, bounded = 0, singular = 0;
        do {
            if (gauss_newton(model, &fd, fit_sill, fit_range, &bounded)) {
                singular = 1;
                break;
            }
            sse = sserr(model, &fd);
            step = old - sse;
            if (sse > GL_ZERO)
                step /= sse;
            it++;
            old = sse;
            stop = (step < FIT_LIMIT && step >= 0.0 && !bounded) || it > FIT_ITER;
        } while (!stop);
        res->iterations += it;
        res->sserr = singular ? sserr(model, &fd) : sse;
        res->converged = !singular && it <= FIT_ITER;
        if (singular) {
            rc = gk_error(ctx, GK_ERR_ARG,
                          "variogram fit: singular model in variogram fit (try other starting "
                          "values, fewer free parameters or another model)");
            goto done;
        }
        /* negative partial sills: fix at 0 and refit from the starting ranges */
        int neg = 0;
        for (int i = 0; i < model->n; i++)
            if (model->s[i].psill < 0.0)
                neg = 1;
        if (!neg)
            break;
        for (int i = 0; i < model->n; i++) {
            gk_vm_structure *s = &model->s[i];
            fit_sill[i] = fit_sill[i] && s->psill > 0.0;
            if (s->psill < 0.0)
                s->psill = 0.0;
            s->range = init_range[i];
        }
    }
    for (int i = 0; i < model->n; i++)
        if (!isfinite(model->s[i].psill) || !isfinite(model->s[i].range)) {
            rc = gk_error(ctx, GK_ERR_ARG,
                          "variogram fit: the fit diverged (non-finite "
                          "parameters); try other starting values");
            goto done;
        }
done:
    free(buf);
    return rc;
}
