/* SPDX-License-Identifier: MIT */
/*
 * kriging_params.c - "-a kriging:key=value:..." into gk_algorithm.krige.
 *
 * Keys (gstat's names in brackets): type=simple|ordinary|universal, mean=
 * (beta), drift=linear|quadratic, drift_raster=PATH (repeatable: external
 * drift), drift_resample=nearest|bilinear, model=Sph|Exp|...|auto or a nested
 * model "Nug(0.05)+Sph(0.59,897)", psill=, range=, nugget=, kappa=,
 * anis_angle=, anis_ratio=, variogram=FILE.json, max_points= (nmax, 0 = all),
 * min_points= (nmin), radius= (maxdist), max_points_per_quadrant= (omax),
 * block=WxH, variance=yes|no, nodata=.
 *
 * As elsewhere in gridkit an unknown key or a bad value is an error.
 */
#include "core/gk_internal.h"
#include "core/method.h"
#include "kriging.h"
#include "simulation.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int num(gk_context *ctx, const char *key, const char *s, double *out)
{
    return gk_param_finite(ctx, "kriging", key, s, out);
}

static int count(gk_context *ctx, const char *key, const char *s, int *out)
{
    double v;
    if (num(ctx, key, s, &v))
        return GK_ERR_ARG;
    if (v < 0 || v != floor(v) || v > 1e9)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: %s=%s must be a whole number from 0 to 1000000000", key, s);
    *out = (int)v;
    return GK_OK;
}

static int needs_kappa(gk_vm_type t) { return t == GK_VM_MAT || t == GK_VM_STE || t == GK_VM_EXC; }

static int check_model(gk_context *ctx, const gk_kriging_params *k)
{
    const gk_vmodel *m = &k->model;
    if (m->n < 1)
        return gk_error(ctx, GK_ERR_ARG, "-a kriging: the variogram model has no structure");
    for (int i = 0; i < m->n; i++) {
        const gk_vm_structure *st = &m->s[i];
        const char *nm = gk_vm_type_name(st->type);
        if (!isfinite(st->psill) || st->psill < 0)
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: structure %d (%s) has a negative or non-finite partial "
                            "sill %.15g",
                            i + 1, nm, st->psill);
        if (!isfinite(st->range) || st->range < 0)
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: structure %d (%s) has a negative or non-finite range "
                            "%.15g",
                            i + 1, nm, st->range);
        if (st->type != GK_VM_NUG && st->type != GK_VM_LIN && st->range == 0)
            return gk_error(ctx, GK_ERR_ARG, "-a kriging: structure %d (%s) needs a range > 0",
                            i + 1, nm);
        if (st->type == GK_VM_POW && st->range > 2)
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: the power model's exponent (range=) must be in (0, 2], "
                            "got %.15g",
                            st->range);
        if (!(st->anis_ratio > 0 && st->anis_ratio <= 1) || !isfinite(st->anis_angle))
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: structure %d (%s): anis_ratio must be in (0, 1] and "
                            "anis_angle finite",
                            i + 1, nm);
    }
    if (gk_vmodel_check(ctx, m))
        return gk_errno(ctx);
    if (!(gk_vmodel_sill(m) > 0) && gk_vmodel_bounded(m))
        return gk_error(ctx, GK_ERR_ARG, "-a kriging: the variogram model has a zero sill");
    /* Pow and Lin without range have no sill, but with every partial sill 0
     * the model is still 0 at every distance: no system can be solved */
    if (!(gk_vmodel_sill(m) > 0))
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: the variogram model is 0 at every distance (every partial "
                        "sill is 0)");
    if (k->type == GK_KRIGE_SIMPLE && !gk_vmodel_bounded(m))
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: simple kriging needs a bounded model (a covariance); "
                        "Pow and Lin without range have none");
    return GK_OK;
}

/* ":key=value", the value in double quotes where it holds ':'. */
static void add_path(gk_strbuf *sb, const char *key, const char *v)
{
    gk_strbuf_add(sb, strchr(v, ':') ? ":%s=\"%s\"" : ":%s=%s", key, v);
}

/* GK_OK, or an error when the string cannot hold the model (eight
 * structures of 17-digit numbers): cut, it would read back as another
 * algorithm (it lost model= entirely). */
static int build_canonical(gk_context *ctx, gk_algorithm *a)
{
    const gk_kriging_params *k = gk_krige_params_of(a);
    gk_strbuf sb = {a->canonical, sizeof a->canonical, 0};
    static const char *types[] = {"ordinary", "simple", "universal"};
    gk_strbuf_add(&sb, "kriging:type=%s", types[k->type]);
    if (k->type == GK_KRIGE_SIMPLE)
        gk_strbuf_add(&sb, ":mean=%.17g", k->mean);
    if (k->drift == GK_DRIFT_LINEAR)
        gk_strbuf_add(&sb, ":drift=linear");
    else if (k->drift == GK_DRIFT_QUADRATIC)
        gk_strbuf_add(&sb, ":drift=quadratic");
    for (int i = 0; i < k->n_drift_rasters; i++)
        add_path(&sb, "drift_raster", k->drift_raster[i]);
    if (k->n_drift_rasters)
        gk_strbuf_add(&sb, ":drift_resample=%s", k->drift_bilinear ? "bilinear" : "nearest");
    if (k->ik.nmodels) {
        /* models= (gk_ik_canonical) */
    } else if (k->model_auto) {
        gk_strbuf_add(&sb, ":model=auto");
    } else if (k->model.n == 0 && k->variogram_file[0]) {
        /* the file is read later (gk_kriging_set_model then names the model) */
        add_path(&sb, "variogram", k->variogram_file);
    } else {
        char buf[sizeof a->canonical];
        if (gk_vmodel_format(&k->model, buf, sizeof buf) != GK_OK)
            sb.full = 1;
        else
            gk_strbuf_add(&sb, ":model=%s", buf);
    }
    gk_strbuf_add(&sb, ":max_points=%d:min_points=%d", a->max_points, a->min_points);
    if (k->maxdist > 0)
        gk_strbuf_add(&sb, ":radius=%.17g", k->maxdist);
    if (a->max_points_per_quadrant)
        gk_strbuf_add(&sb, ":max_points_per_quadrant=%d", a->max_points_per_quadrant);
    if (k->block_w > 0)
        gk_strbuf_add(&sb, ":block=%.17gx%.17g", k->block_w, k->block_h);
    gk_strbuf_add(&sb, ":variance=%s:nodata=%.17g", k->variance ? "yes" : "no", a->nodata);
    if (a->kind == GK_ALG_SIMULATION)
        gk_sim_canonical(&k->sim, &sb);
    if (k->ik.ncut)
        gk_ik_canonical(&k->ik, &sb);
    if (sb.full)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: the algorithm's string would pass %zu characters (a model "
                        "of many structures with long numbers)",
                        sizeof a->canonical - 1);
    return GK_OK;
}

/* What the keys said about the model before it is assembled. */
typedef struct {
    int have_type, have_model, have_psill, have_range, have_nugget, have_kappa, have_anis;
    gk_vm_type mtype;
    double psill, range, nugget, kappa, anis_angle, anis_ratio;
    gk_vmodel compact; /* model=Name(...)+...: the compact form */
    int is_compact;
} kparse;

/* A key of none of a group's: the next group is asked. */
#define KEY_OTHER (-1)

/* type=, mean=, drift=, drift_raster=, drift_resample=. */
static int key_type_drift(gk_context *ctx, const char *key, const char *val, gk_kriging_params *k,
                          kparse *ps)
{
    int rc = GK_OK;
    if (!strcasecmp(key, "type")) {
        if (!strcasecmp(val, "ordinary"))
            k->type = GK_KRIGE_ORDINARY;
        else if (!strcasecmp(val, "simple"))
            k->type = GK_KRIGE_SIMPLE;
        else if (!strcasecmp(val, "universal"))
            k->type = GK_KRIGE_UNIVERSAL;
        else
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: type=%s is unknown (simple, ordinary or universal)", val);
        ps->have_type = 1;
    } else if (!strcasecmp(key, "mean")) {
        rc = num(ctx, "mean", val, &k->mean);
        k->have_mean = 1;
    } else if (!strcasecmp(key, "drift")) {
        if (!strcasecmp(val, "linear"))
            k->drift = GK_DRIFT_LINEAR;
        else if (!strcasecmp(val, "quadratic"))
            k->drift = GK_DRIFT_QUADRATIC;
        else
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: drift=%s is unknown (linear or quadratic)", val);
    } else if (!strcasecmp(key, "drift_raster")) {
        if (k->n_drift_rasters == GK_KRIGE_MAX_DRIFT_RASTERS)
            return gk_error(ctx, GK_ERR_ARG, "-a kriging: at most %d drift_raster= keys",
                            GK_KRIGE_MAX_DRIFT_RASTERS);
        if (!*val || strlen(val) >= sizeof k->drift_raster[0])
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: drift_raster= needs a file name (under %zu bytes)",
                            sizeof k->drift_raster[0]);
        strcpy(k->drift_raster[k->n_drift_rasters++], val);
    } else if (!strcasecmp(key, "drift_resample")) {
        if (!strcasecmp(val, "nearest"))
            k->drift_bilinear = 0;
        else if (!strcasecmp(val, "bilinear"))
            k->drift_bilinear = 1;
        else
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: drift_resample=%s is unknown (nearest or bilinear)", val);
    } else {
        return KEY_OTHER;
    }
    return rc;
}

/* model=, psill=, range=, nugget=, kappa=, anis_angle=, anis_ratio=, variogram=. */
static int key_model(gk_context *ctx, const char *key, const char *val, gk_kriging_params *k,
                     kparse *ps)
{
    int rc = GK_OK;
    if (!strcasecmp(key, "model")) {
        ps->have_model = 1;
        if (!strcasecmp(val, "auto"))
            k->model_auto = 1;
        else if (strchr(val, '(')) {
            if ((rc = gk_vmodel_parse_compact(ctx, val, &ps->compact)))
                return rc;
            ps->is_compact = 1;
        } else if (gk_vm_type_from_name(val, &ps->mtype))
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: model=%s is unknown (Nug, Sph, Exp, Gau, Mat, Ste, "
                            "Exc, Cir, Pen, Lin, Pow, Hol or auto)",
                            val);
    } else if (!strcasecmp(key, "psill")) {
        rc = num(ctx, "psill", val, &ps->psill), ps->have_psill = 1;
    } else if (!strcasecmp(key, "range")) {
        rc = num(ctx, "range", val, &ps->range), ps->have_range = 1;
    } else if (!strcasecmp(key, "nugget")) {
        rc = num(ctx, "nugget", val, &ps->nugget), ps->have_nugget = 1;
    } else if (!strcasecmp(key, "kappa")) {
        rc = num(ctx, "kappa", val, &ps->kappa), ps->have_kappa = 1;
    } else if (!strcasecmp(key, "anis_angle")) {
        rc = num(ctx, "anis_angle", val, &ps->anis_angle), ps->have_anis = 1;
    } else if (!strcasecmp(key, "anis_ratio")) {
        rc = num(ctx, "anis_ratio", val, &ps->anis_ratio), ps->have_anis = 1;
    } else if (!strcasecmp(key, "variogram")) {
        if (!*val || strlen(val) >= sizeof k->variogram_file)
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: variogram= needs a file name (under %zu bytes)",
                            sizeof k->variogram_file);
        strcpy(k->variogram_file, val);
    } else {
        return KEY_OTHER;
    }
    return rc;
}

/* block=WxH (or one size). */
static int parse_block(gk_context *ctx, const char *val, gk_kriging_params *k)
{
    /* split at the x first: strtod would read "0x3" as hexadecimal */
    char wbuf[64];
    const char *sep = strpbrk(val, "xX");
    size_t wl = sep ? (size_t)(sep - val) : strlen(val);
    int bad = wl == 0 || wl >= sizeof wbuf;
    if (!bad) {
        memcpy(wbuf, val, wl);
        wbuf[wl] = '\0';
        char *end;
        k->block_w = strtod(wbuf, &end);
        bad |= *end != '\0';
        k->block_h = k->block_w;
        if (sep) {
            k->block_h = strtod(sep + 1, &end);
            bad |= end == sep + 1 || *end != '\0' || strpbrk(sep + 1, "xX") != NULL;
        }
    }
    if (bad || !(k->block_w > 0) || !(k->block_h > 0) || !isfinite(k->block_w) ||
        !isfinite(k->block_h))
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: block=%s must be WIDTHxHEIGHT (or one size) > 0", val);
    return GK_OK;
}

/* max_points=, min_points=, max_points_per_quadrant=, radius=, block=,
 * variance=, nodata=. */
static int key_search_output(gk_context *ctx, const char *key, const char *val, gk_algorithm *a)
{
    gk_kriging_params *k = gk_krige_params_of(a);
    int rc = GK_OK;
    if (!strcasecmp(key, "max_points")) {
        rc = count(ctx, "max_points", val, &a->max_points);
    } else if (!strcasecmp(key, "min_points")) {
        rc = count(ctx, "min_points", val, &a->min_points);
    } else if (!strcasecmp(key, "max_points_per_quadrant")) {
        rc = count(ctx, "max_points_per_quadrant", val, &a->max_points_per_quadrant);
    } else if (!strcasecmp(key, "radius")) {
        rc = num(ctx, "radius", val, &k->maxdist);
        if (!rc && !(k->maxdist > 0))
            return gk_error(ctx, GK_ERR_ARG, "-a kriging: radius=%s must be > 0", val);
    } else if (!strcasecmp(key, "block")) {
        rc = parse_block(ctx, val, k);
    } else if (!strcasecmp(key, "variance")) {
        if (!strcasecmp(val, "yes") || !strcasecmp(val, "true") || !strcmp(val, "1"))
            k->variance = 1;
        else if (!strcasecmp(val, "no") || !strcasecmp(val, "false") || !strcmp(val, "0"))
            k->variance = 0;
        else
            return gk_error(ctx, GK_ERR_ARG, "-a kriging: variance=%s must be yes or no", val);
    } else if (!strcasecmp(key, "nodata")) {
        rc = num(ctx, "nodata", val, &a->nodata);
        a->nodata_given = 1;
    } else {
        return KEY_OTHER;
    }
    return rc;
}

/* The kriging type, its mean and its drift, together. */
static int check_type(gk_context *ctx, gk_kriging_params *k, int have_type)
{
    int has_drift = k->drift != GK_DRIFT_NONE || k->n_drift_rasters > 0;
    if (!have_type && has_drift)
        k->type = GK_KRIGE_UNIVERSAL;
    if (k->type == GK_KRIGE_SIMPLE && !k->have_mean)
        return gk_error(ctx, GK_ERR_ARG, "-a kriging: type=simple needs mean= (the known mean)");
    if (k->type != GK_KRIGE_SIMPLE && k->have_mean)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: mean= is for type=simple only (ordinary and universal "
                        "kriging estimate the mean)");
    if (k->type != GK_KRIGE_UNIVERSAL && has_drift)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: drift= and drift_raster= need type=universal (or no type)");
    if (k->type == GK_KRIGE_UNIVERSAL && !has_drift)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: type=universal needs drift=linear|quadratic and/or "
                        "drift_raster=PATH");
    return GK_OK;
}

/* The model: from the keys, the compact form, a file (read later by the
 * GDAL layer) or fitted on the points (model=auto, at job creation). */
static int build_model(gk_context *ctx, gk_kriging_params *k, const kparse *ps)
{
    gk_vm_type mtype = ps->mtype;
    double psill = ps->psill, range = ps->range, nugget = ps->nugget, kappa = ps->kappa;
    double anis_angle = ps->anis_angle, anis_ratio = ps->anis_ratio;
    int have_model = ps->have_model, have_psill = ps->have_psill, have_range = ps->have_range;
    int have_nugget = ps->have_nugget, have_kappa = ps->have_kappa, have_anis = ps->have_anis;
    int is_compact = ps->is_compact;
    int have_params = have_psill || have_range || have_nugget || have_kappa || have_anis;
    if (k->variogram_file[0] && (have_model || have_params))
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: give either variogram=FILE.json or model= with its "
                        "parameters, not both");
    if (!k->variogram_file[0] && !have_model)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: no variogram model: give model=Sph:psill=...:range=..."
                        "[:nugget=...], model=auto, or variogram=FILE.json");
    if ((is_compact || k->model_auto) && have_params)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: psill/range/nugget/kappa/anis_* go with a single model name "
                        "(model=Sph), not with model=auto or a nested model");
    if (is_compact) {
        k->model = ps->compact;
    } else if (have_model && !k->model_auto) {
        if (!have_psill && mtype != GK_VM_NUG)
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: model=%s needs psill=", gk_vm_type_name(mtype));
        if (!have_range && mtype != GK_VM_NUG)
            return gk_error(ctx, GK_ERR_ARG, "-a kriging: model=%s needs range=%s",
                            gk_vm_type_name(mtype), mtype == GK_VM_POW ? " (the exponent)" : "");
        if (psill < 0 || nugget < 0 || range < 0)
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: psill, range and nugget must be >= 0 (got %.15g, %.15g, "
                            "%.15g)",
                            psill, range, nugget);
        if (have_kappa && !needs_kappa(mtype))
            return gk_error(ctx, GK_ERR_ARG, "-a kriging: kappa= is for Mat, Ste and Exc only");
        if (!(anis_ratio > 0 && anis_ratio <= 1))
            return gk_error(ctx, GK_ERR_ARG, "-a kriging: anis_ratio=%.15g must be in (0, 1]",
                            anis_ratio);
        gk_vmodel *m = &k->model;
        m->n = 0;
        if (mtype == GK_VM_NUG) {
            /* model=Nug: a pure nugget of psill (or nugget=) */
            m->s[m->n++] =
                (gk_vm_structure){GK_VM_NUG, (have_psill ? psill : 0) + nugget, 0, 0, 0, 1};
        } else {
            if (nugget > 0)
                m->s[m->n++] = (gk_vm_structure){GK_VM_NUG, nugget, 0, 0, 0, 1};
            m->s[m->n++] = (gk_vm_structure){
                mtype, psill, range, needs_kappa(mtype) ? kappa : 0.0, anis_angle, anis_ratio};
        }
    }
    return GK_OK;
}

/* The next key=value of a kriging string, up to a ':' outside double quotes,
 * the quotes taken out: a path may hold ':' when quoted
 * (drift_raster="/data/run:2/dist.tif"). Empty tokens are skipped, as
 * strtok's are. NULL at the end; *bad on an unclosed quote. */
static char *next_token(char **save, int *bad)
{
    char *p = *save;
    while (p && *p == ':')
        p++;
    if (!p || !*p)
        return NULL;
    char *tok = p, *w = p;
    int quoted = 0;
    for (; *p && (quoted || *p != ':'); p++) {
        if (*p == '"')
            quoted = !quoted;
        else
            *w++ = *p;
    }
    *save = *p ? p + 1 : p;
    *w = '\0';
    *bad = quoted;
    return tok;
}

int gk_kriging_parse(gk_context *ctx, const char *spec, char *save, gk_algorithm *a)
{
    gk_kriging_params *k = gk_krige_params_of(a);
    memset(k, 0, sizeof *k);
    k->variance = 1;
    a->max_points = a->min_points = a->max_points_per_quadrant = 0;
    a->radius1 = a->radius2 = 0.0;

    kparse ps = {0};
    ps.mtype = GK_VM_SPH;
    ps.kappa = 0.5;
    ps.anis_ratio = 1;

    int bad = 0;
    for (char *tok; (tok = next_token(&save, &bad));) {
        if (bad)
            return gk_error(ctx, GK_ERR_ARG, "-a %s: a quote '\"' is not closed", spec);
        char *eq = strchr(tok, '=');
        if (!eq)
            return gk_error(ctx, GK_ERR_ARG, "-a %s: '%s' is not key=value", spec, tok);
        *eq = '\0';
        const char *key = tok, *val = eq + 1;
        int rc = key_type_drift(ctx, key, val, k, &ps);
        if (rc == KEY_OTHER)
            rc = key_model(ctx, key, val, k, &ps);
        if (rc == KEY_OTHER)
            rc = key_search_output(ctx, key, val, a);
        if (rc == KEY_OTHER)
            rc = gk_ik_key(ctx, key, val, &k->ik);
        if (rc == KEY_OTHER && (rc = gk_sim_key(ctx, key, val, &k->sim)) == KEY_OTHER)
            return gk_error(
                ctx, GK_ERR_ARG,
                "-a %s: algorithm kriging has no parameter '%s' (type, mean, drift, "
                "drift_raster, drift_resample, model, psill, range, nugget, kappa, "
                "anis_angle, anis_ratio, variogram, max_points, min_points, radius, "
                "max_points_per_quadrant, block, variance, nodata; simulation's "
                "nsim, first, seed, transform, zmin, zmax, path, summary, realizations; "
                "indicator kriging's indicator, models, order)",
                spec, key);
        if (rc)
            return rc;
    }

    /* models= (indicator kriging's, one per cut-off) stands for model= */
    if (k->ik.nmodels) {
        if (ps.have_model || ps.have_psill || ps.have_range || ps.have_nugget || ps.have_kappa ||
            ps.have_anis || k->variogram_file[0])
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: models= gives each cut-off its model: no model=, its "
                            "parameters or variogram= beside it");
        ps.have_model = ps.is_compact = 1;
        ps.compact = k->ik.models[0];
    }
    /* transform=normal_score: simple kriging's mean is the scores', 0 */
    if (k->sim.normal_score && k->type == GK_KRIGE_SIMPLE && !k->have_mean)
        k->have_mean = 1, k->mean = 0.0;
    int rc = check_type(ctx, k, ps.have_type);
    if (!rc)
        rc = build_model(ctx, k, &ps);
    if (rc)
        return rc;
    if (!k->model_auto && !k->variogram_file[0] && check_model(ctx, k))
        return gk_errno(ctx);

    /* The neighbourhood. */
    if (a->max_points && a->min_points > a->max_points)
        return gk_error(ctx, GK_ERR_ARG, "-a kriging: min_points=%d is larger than max_points=%d",
                        a->min_points, a->max_points);
    if (!isfinite(a->nodata) && !isnan(a->nodata))
        return gk_error(ctx, GK_ERR_ARG, "-a kriging: nodata must be finite");
    if (gk_ik_finish(ctx, a) || gk_sim_finish(ctx, a))
        return gk_errno(ctx);
    return build_canonical(ctx, a);
}

const gk_kriging_params *gk_algorithm_kriging(const gk_algorithm *a)
{
    return a && (a->kind == GK_ALG_KRIGING || a->kind == GK_ALG_SIMULATION ||
                 a->kind == GK_ALG_INDICATOR)
               ? gk_krige_params_of(a)
               : NULL;
}

int gk_kriging_set_model(gk_context *ctx, gk_algorithm *a, const gk_vmodel *m)
{
    if (a->kind != GK_ALG_KRIGING && a->kind != GK_ALG_SIMULATION && a->kind != GK_ALG_INDICATOR)
        return gk_error(ctx, GK_ERR_ARG, "not a kriging algorithm");
    gk_kriging_params save = (*gk_krige_params_of(a));
    gk_krige_params_of(a)->model = *m;
    gk_krige_params_of(a)->model_auto = 0;
    if (check_model(ctx, gk_krige_params_of(a)) || build_canonical(ctx, a)) {
        (*gk_krige_params_of(a)) = save;
        build_canonical(ctx, a); /* the string it had, which fitted */
        return gk_errno(ctx);
    }
    return GK_OK;
}

int gk_kriging_bands(const gk_algorithm *alg) { return gk_krige_params_of(alg)->variance ? 2 : 1; }

const char *gk_kriging_band_name(const gk_algorithm *alg, int i)
{
    (void)alg;
    return i ? "variance" : "estimate";
}
