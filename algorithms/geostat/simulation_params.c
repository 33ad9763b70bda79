/* SPDX-License-Identifier: MIT */
/*
 * geostat/simulation_params.c - simulation's keys in kriging's grammar:
 * nsim, seed, transform=normal_score with zmin and zmax, path, summary and
 * realizations; their checks against kriging's keys, the canonical string
 * and the bands' names.
 */
#include "simulation.h"
#include "core/method.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int yes_no(gk_context *ctx, const char *key, const char *val, int *out)
{
    if (!strcasecmp(val, "yes") || !strcasecmp(val, "true") || !strcmp(val, "1"))
        return *out = 1, GK_OK;
    if (!strcasecmp(val, "no") || !strcasecmp(val, "false") || !strcmp(val, "0"))
        return *out = 0, GK_OK;
    return gk_error(ctx, GK_ERR_ARG, "-a kriging: %s=%s must be yes or no", key, val);
}

/* summary=mean,var,p>5.2,p<1,q10,q90 */
static int parse_summary(gk_context *ctx, const char *val, gk_sim_params *s)
{
    char buf[512];
    if (strlen(val) >= sizeof buf)
        return gk_error(ctx, GK_ERR_ARG, "-a kriging: summary=%s is too long", val);
    strcpy(buf, val);
    s->nstat = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (s->nstat == GK_SIM_MAX_STATS)
            return gk_error(ctx, GK_ERR_ARG, "-a kriging: summary= takes at most %d bands",
                            GK_SIM_MAX_STATS);
        gk_sim_stat st;
        double v = 0;
        const char *num = NULL;
        if (!strcasecmp(t, "mean")) {
            st = GK_SIM_MEAN;
        } else if (!strcasecmp(t, "var") || !strcasecmp(t, "variance")) {
            st = GK_SIM_VAR;
        } else if ((t[0] == 'p' || t[0] == 'P') && (t[1] == '>' || t[1] == '<')) {
            st = t[1] == '>' ? GK_SIM_ABOVE : GK_SIM_BELOW;
            num = t + 2;
        } else if ((t[0] == 'q' || t[0] == 'Q') && t[1]) {
            st = GK_SIM_QUANTILE;
            num = t + 1;
        } else {
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: summary=%s: '%s' is not mean, var, p>VALUE, p<VALUE or "
                            "qPERCENT",
                            val, t);
        }
        if (num) {
            char *end;
            errno = 0;
            v = strtod(num, &end);
            if (end == num || *end || errno || !isfinite(v))
                return gk_error(ctx, GK_ERR_ARG, "-a kriging: summary=%s: '%s' needs a number", val,
                                t);
            if (st == GK_SIM_QUANTILE && !(v > 0 && v < 100))
                return gk_error(ctx, GK_ERR_ARG,
                                "-a kriging: summary=%s: the percentile of '%s' must be between "
                                "0 and 100",
                                val, t);
        }
        s->stat[s->nstat] = st;
        s->stat_v[s->nstat] = v;
        s->nstat++;
    }
    if (!s->nstat)
        return gk_error(ctx, GK_ERR_ARG, "-a kriging: summary= names no band");
    return GK_OK;
}

int gk_sim_key(gk_context *ctx, const char *key, const char *val, gk_sim_params *s)
{
    if (!strcasecmp(key, "nsim")) {
        char *end;
        errno = 0;
        double v = strtod(val, &end);
        if (end == val || *end || errno || !(v >= 1 && v <= GK_SIM_MAX_NSIM) || v != floor(v))
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: nsim=%s must be a whole number from 1 to %d", val,
                            GK_SIM_MAX_NSIM);
        s->nsim = (int)v;
        return GK_OK;
    }
    if (!strcasecmp(key, "first")) {
        char *end;
        errno = 0;
        double v = strtod(val, &end);
        if (end == val || *end || errno || !(v >= 0 && v <= 1e9) || v != floor(v))
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: first=%s must be a whole number from 0 to 1000000000",
                            val);
        s->first = (int)v;
        return GK_OK;
    }
    if (!strcasecmp(key, "seed")) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(val, &end, 10);
        if (end == val || *end || errno || val[0] == '-')
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: seed=%s must be a whole number from 0 to %llu", val,
                            (unsigned long long)-1);
        s->seed = v;
        return GK_OK;
    }
    if (!strcasecmp(key, "transform")) {
        if (!strcasecmp(val, "normal_score") || !strcasecmp(val, "nscore"))
            s->normal_score = 1;
        else if (!strcasecmp(val, "none"))
            s->normal_score = 0;
        else
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: transform=%s must be normal_score or none", val);
        return GK_OK;
    }
    if (!strcasecmp(key, "zmin") || !strcasecmp(key, "zmax")) {
        double v;
        if (gk_param_finite(ctx, "kriging", key, val, &v))
            return GK_ERR_ARG;
        if (key[1] == 'm' && key[2] == 'i')
            s->zmin = v, s->have_zmin = 1;
        else
            s->zmax = v, s->have_zmax = 1;
        return GK_OK;
    }
    if (!strcasecmp(key, "path")) {
        if (!strcasecmp(val, "random"))
            s->path_random = 1;
        else if (!strcasecmp(val, "multigrid"))
            s->path_random = 0;
        else
            return gk_error(ctx, GK_ERR_ARG, "-a kriging: path=%s must be multigrid or random",
                            val);
        return GK_OK;
    }
    if (!strcasecmp(key, "summary"))
        return parse_summary(ctx, val, s);
    if (!strcasecmp(key, "realizations")) {
        int v;
        if (yes_no(ctx, key, val, &v))
            return GK_ERR_ARG;
        s->realizations = v ? 1 : -1; /* -1: no, said; 0: not said */
        return GK_OK;
    }
    return -1;
}

int gk_sim_finish(gk_context *ctx, gk_algorithm *a)
{
    gk_kriging_params *k = gk_krige_params_of(a);
    gk_sim_params *s = &k->sim;
    int named = a->kind == GK_ALG_SIMULATION;
    int any = s->nsim || s->nstat || s->normal_score || s->realizations || s->have_zmin ||
              s->have_zmax || s->path_random || s->seed || s->first;
    if (!named && !s->nsim && !s->nstat) {
        if (any)
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: seed=, first=, transform=, path=, zmin=, zmax= and "
                            "realizations= are simulation's: give nsim=N");
        return GK_OK;
    }
    a->kind = GK_ALG_SIMULATION;
    if (!s->nsim)
        s->nsim = 1;
    if (!s->realizations)
        s->realizations = s->nstat ? -1 : 1;
    if (s->realizations < 0 && !s->nstat)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: realizations=no needs summary= (else there is nothing to "
                        "write)");
    if (s->realizations > 0 && s->nsim + s->nstat > 65535)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: nsim=%d realizations are more bands than a raster holds "
                        "(65535): give summary=... with realizations=no",
                        s->nsim);
    if (k->type == GK_KRIGE_UNIVERSAL || k->drift != GK_DRIFT_NONE || k->n_drift_rasters)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: simulation (nsim=) is simple or ordinary kriging's; "
                        "universal kriging and drifts are not simulated");
    if (k->block_w > 0)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: simulation (nsim=) draws point values; block= is not "
                        "simulated");
    if (a->max_points_per_quadrant || a->min_points)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: simulation (nsim=) takes max_points and radius; "
                        "min_points and max_points_per_quadrant are not used");
    if (a->max_points > GK_SIM_MAX_K)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: simulation takes at most max_points=%d neighbours",
                        GK_SIM_MAX_K);
    if (!a->max_points)
        a->max_points = GK_SIM_DEFAULT_K;
    const int ik = k->ik.ncut > 0; /* sequential indicator simulation */
    if ((s->have_zmin || s->have_zmax) && !s->normal_score && !ik)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: zmin= and zmax= are transform=normal_score's tails (or "
                        "indicator simulation's)");
    if (ik && s->normal_score)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: indicator simulation (indicator= with nsim=) takes no "
                        "transform=");
    for (int i = 0; ik && i < s->nstat; i++)
        if (s->stat[i] == GK_SIM_QUANTILE)
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: summary=q... is Gaussian simulation's (a percentile "
                            "from the normal values); with indicator= give p<c bands");
    if (s->have_zmin && s->have_zmax && !(s->zmin < s->zmax))
        return gk_error(ctx, GK_ERR_ARG, "-a kriging: zmin=%g must be below zmax=%g", s->zmin,
                        s->zmax);
    if (s->normal_score && k->model_auto)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: with transform=normal_score the model is the normal "
                        "scores' variogram: fit it with gridkit variogram --normal-score "
                        "--fit and give model= or variogram=");
    if (s->normal_score && k->type == GK_KRIGE_SIMPLE && k->mean != 0)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: with transform=normal_score simple kriging's mean is that "
                        "of the normal scores, 0 (mean=%g given)",
                        k->mean);
    for (int i = 0; i < s->nstat; i++)
        if (s->stat[i] == GK_SIM_VAR && s->nsim < 2)
            return gk_error(ctx, GK_ERR_ARG, "-a kriging: summary=var needs nsim=2 or more");
    k->variance = 0;
    return GK_OK;
}

void gk_sim_canonical(const gk_sim_params *s, gk_strbuf *sb)
{
    gk_strbuf_add(sb, ":nsim=%d:seed=%llu:path=%s", s->nsim, s->seed,
                  s->path_random ? "random" : "multigrid");
    if (s->first)
        gk_strbuf_add(sb, ":first=%d", s->first);
    if (s->normal_score) {
        gk_strbuf_add(sb, ":transform=normal_score");
        if (s->have_zmin)
            gk_strbuf_add(sb, ":zmin=%.17g", s->zmin);
        if (s->have_zmax)
            gk_strbuf_add(sb, ":zmax=%.17g", s->zmax);
    }
    if (s->nstat) {
        gk_strbuf_add(sb, ":summary=");
        for (int i = 0; i < s->nstat; i++) {
            const char *sep = i ? "," : "";
            switch (s->stat[i]) {
            case GK_SIM_MEAN:
                gk_strbuf_add(sb, "%smean", sep);
                break;
            case GK_SIM_VAR:
                gk_strbuf_add(sb, "%svar", sep);
                break;
            case GK_SIM_ABOVE:
                gk_strbuf_add(sb, "%sp>%.17g", sep, s->stat_v[i]);
                break;
            case GK_SIM_BELOW:
                gk_strbuf_add(sb, "%sp<%.17g", sep, s->stat_v[i]);
                break;
            case GK_SIM_QUANTILE:
                gk_strbuf_add(sb, "%sq%.17g", sep, s->stat_v[i]);
                break;
            }
        }
        gk_strbuf_add(sb, ":realizations=%s", s->realizations > 0 ? "yes" : "no");
    }
}

int gk_sim_bands(const gk_algorithm *a)
{
    const gk_sim_params *s = &gk_krige_params_of(a)->sim;
    return (s->realizations > 0 ? s->nsim : 0) + s->nstat;
}

const char *gk_sim_band_name(const gk_algorithm *a, int i)
{
    static _Thread_local char name[64];
    const gk_sim_params *s = &gk_krige_params_of(a)->sim;
    const int nr = s->realizations > 0 ? s->nsim : 0;
    if (i < nr) {
        snprintf(name, sizeof name, "realization %d", s->first + i + 1);
        return name;
    }
    i -= nr;
    switch (s->stat[i]) {
    case GK_SIM_MEAN:
        return "mean";
    case GK_SIM_VAR:
        return "variance";
    case GK_SIM_ABOVE:
        snprintf(name, sizeof name, "P(z>%g)", s->stat_v[i]);
        return name;
    case GK_SIM_BELOW:
        snprintf(name, sizeof name, "P(z<%g)", s->stat_v[i]);
        return name;
    case GK_SIM_QUANTILE:
        snprintf(name, sizeof name, "q%g", s->stat_v[i]);
        return name;
    }
    return NULL;
}
