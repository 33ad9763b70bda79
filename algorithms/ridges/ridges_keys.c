/* SPDX-License-Identifier: MIT */
/*
 * ridges_keys.c - the value of each key of `curve` and `density`, checked
 * (ridges_params.c splits the string and builds the canonical one).
 */
#include "ridges_util.h"
#include "scms_step.h"

#include <math.h>
#include <string.h>
#include <strings.h>

const char *gk_ridges_method_name(const gk_ridges_method *m)
{
    return m && m->kind == GK_RIDGE_DENSITY ? "density" : "curve";
}

/* A finite number; "auto" gives *v = 0 when auto_ok. */
static int number(gk_context *ctx, const gk_ridges_method *m, const char *key, const char *val,
                  int auto_ok, double *v)
{
    if (auto_ok && strcasecmp(val, "auto") == 0) {
        *v = 0.0;
        return GK_OK;
    }
    int rc = gk_param_number(key, val, v);
    if (rc)
        return gk_error(ctx, GK_ERR_ARG, "-a %s: %s=%s %s", gk_ridges_method_name(m), key, val,
                        rc == GK_PARAM_NAN && auto_ok ? "is not a number (or auto)"
                                                      : gk_param_number_why(rc));
    if (!isfinite(*v))
        return gk_error(ctx, GK_ERR_ARG, "-a %s: %s=%s is not a finite number",
                        gk_ridges_method_name(m), key, val);
    return GK_OK;
}

static int bad(gk_context *ctx, const gk_ridges_method *m, const char *key, const char *val,
               const char *want)
{
    return gk_error(ctx, GK_ERR_ARG, "-a %s: %s=%s must be %s", gk_ridges_method_name(m), key, val,
                    want);
}

/* A whole number from 1 to 1e9. */
static int count(gk_context *ctx, const gk_ridges_method *m, const char *key, const char *val,
                 int *out)
{
    double v;
    if (number(ctx, m, key, val, 0, &v))
        return GK_ERR_ARG;
    if (v < 1 || v > 1e9 || v != floor(v))
        return bad(ctx, m, key, val, "a whole number from 1 to 1000000000");
    *out = (int)v;
    return GK_OK;
}

/* A length > 0, or auto (0) when auto_ok. */
static int positive(gk_context *ctx, const gk_ridges_method *m, const char *key, const char *val,
                    int auto_ok, double *out)
{
    double v;
    if (number(ctx, m, key, val, auto_ok, &v))
        return GK_ERR_ARG;
    if (v <= 0 && !(auto_ok && strcasecmp(val, "auto") == 0))
        return bad(ctx, m, key, val, "> 0");
    *out = v;
    return GK_OK;
}

/* A value >= 0; auto gives auto_value. */
static int non_negative(gk_context *ctx, const gk_ridges_method *m, const char *key,
                        const char *val, int auto_ok, double auto_value, double *out)
{
    double v;
    if (number(ctx, m, key, val, auto_ok, &v))
        return GK_ERR_ARG;
    if (auto_ok && strcasecmp(val, "auto") == 0)
        v = auto_value;
    else if (v < 0)
        return bad(ctx, m, key, val, ">= 0");
    *out = v;
    return GK_OK;
}

static int curve_key(gk_context *ctx, gk_ridges_method *m, const char *key, const char *val)
{
    if (!strcasecmp(key, "r1")) {
        int rc = positive(ctx, m, "r1", val, 1, &m->r1);
        m->r1_given = m->r1 > 0;
        return rc;
    }
    if (!strcasecmp(key, "r2"))
        return positive(ctx, m, "r2", val, 1, &m->r2);
    if (!strcasecmp(key, "gap"))
        return non_negative(ctx, m, "gap", val, 1, -1.0, &m->gap);
    if (!strcasecmp(key, "max_iter"))
        return count(ctx, m, "max_iter", val, &m->max_iter);
    if (!strcasecmp(key, "max_rounds"))
        return count(ctx, m, "max_rounds", val, &m->max_rounds);
    return -1;
}

static int density_choice(gk_context *ctx, gk_ridges_method *m, const char *key, const char *val)
{
    if (!strcasecmp(key, "threshold_mode")) {
        if (strcasecmp(val, "relative") && strcasecmp(val, "absolute"))
            return bad(ctx, m, "threshold_mode", val, "relative or absolute");
        m->threshold_absolute = strcasecmp(val, "absolute") == 0;
        return GK_OK;
    }
    if (strcasecmp(val, "data") && strcasecmp(val, "mesh"))
        return bad(ctx, m, "seeds", val, "data or mesh");
    m->seeds_mesh = strcasecmp(val, "mesh") == 0;
    return GK_OK;
}

static int density_number(gk_context *ctx, gk_ridges_method *m, const char *key, const char *val)
{
    double v;
    if (!strcasecmp(key, "tolerance")) {
        if (number(ctx, m, "tolerance", val, 0, &v))
            return GK_ERR_ARG;
        if (!(v >= GK_SCMS_TOL_MIN && v < 1))
            return bad(ctx, m, "tolerance", val,
                       "from 2.220446049250313e-16 (2^-52: a step below that many bandwidths "
                       "is below the rounding of the mean shift, so no walker would stop) to "
                       "1 (exclusive)");
        m->tolerance = v;
        return GK_OK;
    }
    if (!strcasecmp(key, "angle")) {
        if (number(ctx, m, "angle", val, 0, &v))
            return GK_ERR_ARG;
        if (!(v > 0 && v <= 90))
            return bad(ctx, m, "angle", val, "in (0, 90] degrees");
        m->angle = v;
        return GK_OK;
    }
    if (!strcasecmp(key, "threshold"))
        return non_negative(ctx, m, "threshold", val, 0, 0.0, &m->threshold);
    if (!strcasecmp(key, "cutoff"))
        return positive(ctx, m, "cutoff", val, 0, &m->cutoff);
    if (!strcasecmp(key, "max_iter")) {
        int rc = count(ctx, m, "max_iter", val, &m->max_iter_scms);
        if (!rc && m->max_iter_scms > GK_SCMS_ITER_MAX)
            return bad(ctx, m, "max_iter", val,
                       "a whole number from 1 to 1000000 (each step of each walker sums its "
                       "neighbours: a walker still moving after a million steps creeps along a "
                       "flat density, and thousands of them would take hours)");
        return rc;
    }
    return -1;
}

static int density_key(gk_context *ctx, gk_ridges_method *m, const char *key, const char *val)
{
    if (!strcasecmp(key, "bandwidth")) {
        int rc = positive(ctx, m, "bandwidth", val, 1, &m->bandwidth);
        m->bandwidth_given = m->bandwidth > 0;
        return rc;
    }
    if (!strcasecmp(key, "spacing"))
        return positive(ctx, m, "spacing", val, 1, &m->spacing);
    if (!strcasecmp(key, "threshold_mode") || !strcasecmp(key, "seeds"))
        return density_choice(ctx, m, key, val);
    return density_number(ctx, m, key, val);
}

int gk_ridges_key(gk_context *ctx, gk_ridges_method *m, const char *key, const char *val)
{
    if (!strcasecmp(key, "min_length"))
        return non_negative(ctx, m, "min_length", val, 1, -1.0, &m->min_length);
    if (!strcasecmp(key, "simplify"))
        return non_negative(ctx, m, "simplify", val, 0, 0.0, &m->simplify);
    return m->kind == GK_RIDGE_CURVE ? curve_key(ctx, m, key, val) : density_key(ctx, m, key, val);
}
