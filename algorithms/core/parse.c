/* SPDX-License-Identifier: MIT */
/*
 * parse.c - gdal_grid's -a syntax, "name[:key=value]*", into a gk_algorithm.
 *
 * Defaults are gdal_grid 3.6's. Unlike gdal_grid, which warns "Option X
 * ignored" and carries on, an unknown key or a value that is not a number is
 * an error: a typo in a parameter silently changes a surface.
 */
#include "method.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The keys of gdal_grid's syntax and the bit a method's row lists them by. */
static const struct {
    const char *key;
    unsigned bit;
} KEYS[] = {
    {"power", GK_KEY_POWER},
    {"smoothing", GK_KEY_SMOOTHING},
    {"radius1", GK_KEY_RADIUS1},
    {"radius2", GK_KEY_RADIUS2},
    {"radius", GK_KEY_RADIUS},
    {"angle", GK_KEY_ANGLE},
    {"max_points", GK_KEY_MAX_POINTS},
    {"min_points", GK_KEY_MIN_POINTS},
    {"nodata", GK_KEY_NODATA},
    {"min_points_per_quadrant", GK_KEY_QUADRANT},
    {"max_points_per_quadrant", GK_KEY_QUADRANT},
};
#define N_KEYS (sizeof KEYS / sizeof KEYS[0])

/* gdal_grid's defaults common to every method; the row's own after them. */
static void set_defaults(gk_algorithm *a, const gk_method *m)
{
    memset(a, 0, sizeof *a);
    a->kind = m->kind;
    a->power = 2.0;
    a->radius = -1.0;
    if (m->defaults)
        m->defaults(a);
}

int gk_param_number(const char *key, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (*end && isspace((unsigned char)*end))
        end++;
    /* nodata=nan is legitimate (empty cells as NaN); NaN anywhere else is not. */
    const int nodata = strcmp(key, "nodata") == 0;
    if (end == s || *end || (isnan(v) && !nodata))
        return GK_PARAM_NAN;
    if (errno == ERANGE && isinf(v))
        return GK_PARAM_HUGE;
    /* a subnormal nodata is a value a Float64 cell holds; as a length, a
     * power or a weight it has lost its precision and its square is 0 */
    if (errno == ERANGE && !(nodata && v != 0.0))
        return GK_PARAM_TINY;
    *out = v;
    return 0;
}

const char *gk_param_number_why(int rc)
{
    switch (rc) {
    case GK_PARAM_TINY:
        return "is below 2.2250738585072014e-308, the smallest normal double (a value this "
               "small has lost its precision and its square is 0)";
    case GK_PARAM_HUGE:
        return "is beyond 1.7976931348623157e+308, the largest double";
    default:
        return "is not a number";
    }
}

static int parse_number(gk_context *ctx, const char *alg, const char *key, const char *s,
                        double *out)
{
    int rc = gk_param_number(key, s, out);
    if (rc)
        return gk_error(ctx, GK_ERR_ARG, "-a %s: %s=%s %s", alg, key, s, gk_param_number_why(rc));
    return GK_OK;
}

int gk_param_finite(gk_context *ctx, const char *alg, const char *key, const char *s, double *out)
{
    if (parse_number(ctx, alg, key, s, out))
        return GK_ERR_ARG;
    if (isinf(*out))
        return gk_error(ctx, GK_ERR_ARG, "-a %s: %s=%s must be finite", alg, key, s);
    return GK_OK;
}

int gk_param_next(gk_context *ctx, const char *spec, char **save, const char **key,
                  const char **val)
{
    char *tok = strtok_r(NULL, ":", save);
    if (!tok)
        return 0;
    char *eq = strchr(tok, '=');
    if (!eq)
        return gk_error(ctx, GK_ERR_ARG, "-a %s: '%s' is not key=value", spec, tok), -1;
    *eq = '\0';
    *key = tok, *val = eq + 1;
    return 1;
}

int gk_param_pairs(gk_context *ctx, const char *spec, char *save, gk_algorithm *a,
                   int (*key)(gk_context *ctx, const char *spec, const char *k, const char *val,
                              gk_algorithm *a))
{
    const char *k, *val;
    int more;
    while ((more = gk_param_next(ctx, spec, &save, &k, &val)) > 0)
        if (key(ctx, spec, k, val, a))
            return GK_ERR_ARG;
    return more < 0 ? GK_ERR_ARG : GK_OK;
}

int gk_param_count(gk_context *ctx, const char *alg, const char *key, double v, int *out)
{
    if (v < 0 || v != floor(v) || v > 1e9)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a %s: %s=%.17g must be a whole number from 0 to 1000000000", alg, key, v);
    *out = (int)v;
    return GK_OK;
}

static void build_canonical(gk_algorithm *a)
{
    const gk_method *m = gk_method_of(a->kind);
    gk_strbuf sb = {a->canonical, sizeof a->canonical, 0};
    gk_strbuf_add(&sb, "%s", m->name);
    if (m->canonical)
        m->canonical(a, &sb);
    /* Only the keys the method takes: the string must parse again. */
    if (m->keys & GK_KEY_RADIUS1)
        gk_strbuf_add(&sb, ":radius1=%.17g:radius2=%.17g:angle=%.17g", a->radius1, a->radius2,
                      a->angle);
    if (m->keys & GK_KEY_MAX_POINTS)
        gk_strbuf_add(&sb, ":max_points=%d", a->max_points);
    if (m->keys & GK_KEY_MIN_POINTS)
        gk_strbuf_add(&sb, ":min_points=%d", a->min_points);
    if (a->min_points_per_quadrant || a->max_points_per_quadrant)
        gk_strbuf_add(&sb, ":min_points_per_quadrant=%d:max_points_per_quadrant=%d",
                      a->min_points_per_quadrant, a->max_points_per_quadrant);
    gk_strbuf_add(&sb, ":nodata=%.17g", a->nodata);
}

/* "known: invdist, invdistnn, ..." from the list. */
static void known_methods(char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < gk_n_methods && used < cap; i++) {
        int n = snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", gk_methods[i]->name);
        if (n < 0)
            return;
        used += (size_t)n;
    }
}

int gk_n_algorithms(void) { return gk_n_methods; }

const char *gk_algorithm_name_at(int i)
{
    return i >= 0 && i < gk_n_methods ? gk_methods[i]->name : NULL;
}

const char *gk_algorithm_summary_at(int i)
{
    return i >= 0 && i < gk_n_methods ? gk_methods[i]->summary : NULL;
}

size_t gk_algorithm_keys_at(int i, char *buf, size_t cap)
{
    char all[1024] = "";
    gk_strbuf sb = {all, sizeof all, 0};
    if (i >= 0 && i < gk_n_methods) {
        const gk_method *m = gk_methods[i];
        if (m->parse) {
            gk_strbuf_add(&sb, "%s", m->own_keys ? m->own_keys : "");
        } else {
            for (size_t k = 0; k < N_KEYS; k++)
                if (m->keys & KEYS[k].bit)
                    gk_strbuf_add(&sb, "%s%s", all[0] ? ", " : "", KEYS[k].key);
            if (m->own_key && m->own_keys)
                gk_strbuf_add(&sb, "%s%s", all[0] ? ", " : "", m->own_keys);
        }
    }
    if (cap)
        snprintf(buf, cap, "%s", all);
    return strlen(all);
}

const gk_method *gk_method_find(const char *name)
{
    for (int i = 0; name && i < gk_n_methods; i++)
        if (strcasecmp(name, gk_methods[i]->name) == 0)
            return gk_methods[i];
    return NULL;
}

/* A kind is its row's index (methods.def makes both); test_parse checks
 * that every row says the kind of its line. */
const gk_method *gk_method_of(gk_alg_kind kind)
{
    return (int)kind >= 0 && (int)kind < gk_n_methods ? gk_methods[kind] : NULL;
}

/* What the generic keys set besides the algorithm's fields. */
typedef struct {
    int have_radius, have_r1, have_r2;
    double radius;
    gk_parse_seen seen;
} parsed_keys;

/* Is key one of m's own keys (own_keys, "a, b, ...")? Then 1, its spelling
 * there in name. */
static int own_key_name(const gk_method *m, const char *key, char *name, size_t cap)
{
    if (!m->own_key || !m->own_keys)
        return 0;
    size_t len = strlen(key);
    for (const char *p = m->own_keys; *p;) {
        size_t n = strcspn(p, ", ");
        if (n == len && strncasecmp(p, key, len) == 0) {
            snprintf(name, cap, "%.*s", (int)n, p);
            return 1;
        }
        p += n;
        p += strspn(p, ", ");
    }
    return 0;
}

/* One key=value of gdal_grid's syntax into a (m's keys only). */
static int apply_key(gk_context *ctx, const char *spec, const gk_method *m, char *tok,
                     gk_algorithm *a, parsed_keys *pk)
{
    const char *aname = m->name;
    char *eq = strchr(tok, '=');
    if (!eq)
        return gk_error(ctx, GK_ERR_ARG, "-a %s: '%s' is not key=value", spec, tok);
    *eq = '\0';
    const char *key = tok, *val = eq + 1;
    size_t k = N_KEYS;
    for (size_t i = 0; i < N_KEYS; i++)
        if (strcasecmp(key, KEYS[i].key) == 0)
            k = i;
    double v = 0;
    if (k == N_KEYS || !(m->keys & KEYS[k].bit)) {
        char own[32];
        if (!own_key_name(m, key, own, sizeof own))
            return gk_error(ctx, GK_ERR_ARG, "-a %s: algorithm %s has no parameter '%s'", spec,
                            aname, key);
        if (parse_number(ctx, aname, own, val, &v))
            return GK_ERR_ARG;
        return m->own_key(ctx, aname, own, v, a);
    }
    key = KEYS[k].key;
    if (parse_number(ctx, aname, key, val, &v))
        return GK_ERR_ARG;
    if (!strcmp(key, "power"))
        a->power = v;
    else if (!strcmp(key, "smoothing"))
        a->smoothing = v;
    else if (!strcmp(key, "radius1"))
        a->radius1 = v, pk->have_r1 = 1;
    else if (!strcmp(key, "radius2"))
        a->radius2 = v, pk->have_r2 = 1;
    else if (!strcmp(key, "radius"))
        pk->radius = v, pk->have_radius = 1;
    else if (!strcmp(key, "angle"))
        a->angle = v;
    else if (!strcmp(key, "max_points"))
        return pk->seen.max_points = 1, gk_param_count(ctx, aname, key, v, &a->max_points);
    else if (!strcmp(key, "min_points"))
        return gk_param_count(ctx, aname, key, v, &a->min_points);
    else if (!strcmp(key, "nodata"))
        a->nodata = v, a->nodata_given = 1;
    else if (!strcmp(key, "min_points_per_quadrant"))
        return pk->seen.quadrant = 1,
               gk_param_count(ctx, aname, key, v, &a->min_points_per_quadrant);
    else if (!strcmp(key, "max_points_per_quadrant"))
        return pk->seen.quadrant = 1,
               gk_param_count(ctx, aname, key, v, &a->max_points_per_quadrant);
    return GK_OK;
}

/* radius= is gdal_grid 3.6's shorthand for radius1 = radius2, unless the
 * method takes it as its own parameter (linear). */
static int apply_radius(gk_context *ctx, const char *spec, const gk_method *m,
                        const parsed_keys *pk, gk_algorithm *a)
{
    if (m->flags & GK_M_OWN_RADIUS) {
        if (pk->have_radius)
            a->radius = pk->radius;
    } else if (pk->have_radius) {
        if (pk->have_r1 || pk->have_r2)
            return gk_error(ctx, GK_ERR_ARG,
                            "-a %s: give either radius or radius1/radius2, not both", spec);
        a->radius1 = a->radius2 = pk->radius;
    }
    return GK_OK;
}

/* The checks every method of the generic grammar shares, with the row's own
 * among them (after the search window's, before the neighbour counts'). */
static int check_generic(gk_context *ctx, const char *spec, const gk_method *m, int have_quadrant,
                         gk_algorithm *a)
{
    if (!isfinite(a->power) || a->power < 0)
        return gk_error(ctx, GK_ERR_ARG, "-a %s: power must be >= 0", spec);
    if (!isfinite(a->smoothing) || a->smoothing < 0)
        return gk_error(ctx, GK_ERR_ARG, "-a %s: smoothing must be >= 0", spec);
    if (!(m->flags & GK_M_OWN_RADIUS)) {
        if (a->radius1 < 0 || a->radius2 < 0 || !isfinite(a->radius1) || !isfinite(a->radius2))
            return gk_error(ctx, GK_ERR_ARG, "-a %s: search radii must be finite and >= 0", spec);
        if ((a->radius1 == 0) != (a->radius2 == 0))
            return gk_error(
                ctx, GK_ERR_ARG,
                "-a %s: radius1 and radius2 must both be > 0 (an ellipse) or both 0 (all "
                "points); one of them 0 is a degenerate ellipse",
                spec);
        if (!isfinite(a->angle))
            return gk_error(ctx, GK_ERR_ARG, "-a %s: angle must be finite", spec);
    } else if (!isfinite(a->radius))
        return gk_error(ctx, GK_ERR_ARG, "-a %s: radius must be finite", spec);
    if (m->check && m->check(ctx, spec, a))
        return GK_ERR_ARG;
    if (have_quadrant && a->radius1 == 0)
        return gk_error(ctx, GK_ERR_ARG, "-a %s: per-quadrant search needs a radius > 0", spec);
    if (have_quadrant && a->max_points_per_quadrant &&
        a->min_points_per_quadrant > a->max_points_per_quadrant)
        return gk_error(
            ctx, GK_ERR_ARG,
            "-a %s: min_points_per_quadrant=%d is larger than max_points_per_quadrant=%d", spec,
            a->min_points_per_quadrant, a->max_points_per_quadrant);
    /* no node can have more than max_points neighbours: every node would be
     * nodata (max_points=0 means all points) */
    if (a->max_points && a->min_points > a->max_points)
        return gk_error(
            ctx, GK_ERR_ARG,
            "-a %s: min_points=%d is larger than max_points=%d: no node could get a value", spec,
            a->min_points, a->max_points);
    if (!isfinite(a->nodata) && !isnan(a->nodata))
        return gk_error(ctx, GK_ERR_ARG, "-a %s: nodata must be finite", spec);
    return GK_OK;
}

gk_algorithm *gk_algorithm_parse(gk_context *ctx, const char *spec)
{
    if (!spec || !*spec)
        spec = "invdist";
    size_t len = strlen(spec);
    char *buf = malloc(len + 1);
    gk_algorithm *a = calloc(1, sizeof *a);
    if (!buf || !a) {
        free(buf);
        free(a);
        gk_error(ctx, GK_ERR_NOMEM, "out of memory");
        return NULL;
    }
    memcpy(buf, spec, len + 1);

    char *save = NULL;
    char *name = strtok_r(buf, ":", &save);
    const gk_method *m = gk_method_find(name);
    if (!m) {
        char known[512];
        known_methods(known, sizeof known);
        gk_error(ctx, GK_ERR_ARG, "-a %s: unknown algorithm '%s' (known: %s)", spec,
                 name ? name : "", known);
        goto fail;
    }
    set_defaults(a, m);
    if (m->parse) { /* a grammar of its own (kriging) */
        if (m->parse(ctx, spec, save, a))
            goto fail;
        free(buf);
        return a;
    }
    parsed_keys pk = {0};
    for (char *tok = strtok_r(NULL, ":", &save); tok; tok = strtok_r(NULL, ":", &save))
        if (apply_key(ctx, spec, m, tok, a, &pk))
            goto fail;
    if (apply_radius(ctx, spec, m, &pk, a))
        goto fail;
    /* a method may become another here (invdist with per-quadrant keys) */
    if (m->adjust) {
        if (m->adjust(ctx, spec, &pk.seen, a))
            goto fail;
        m = gk_method_of(a->kind);
    }
    if (check_generic(ctx, spec, m, pk.seen.quadrant, a))
        goto fail;
    build_canonical(a);
    free(buf);
    return a;
fail:
    free(buf);
    free(a);
    return NULL;
}

gk_algorithm *gk_algorithm_clone(const gk_algorithm *alg)
{
    gk_algorithm *a = malloc(sizeof *a);
    if (a)
        *a = *alg;
    return a;
}

void gk_algorithm_free(gk_algorithm *alg) { free(alg); }

const char *gk_algorithm_name(const gk_algorithm *alg)
{
    const gk_method *m = gk_method_of(alg->kind);
    return m ? m->name : "?";
}

const char *gk_algorithm_lowered_form(const gk_algorithm *alg)
{
    const gk_method *m = gk_method_of(alg->kind);
    return m && m->lowered_form ? m->lowered_form : "a simpler form";
}

int gk_algorithm_bands(const gk_algorithm *alg)
{
    const gk_method *m = gk_method_of(alg->kind);
    return m && m->bands ? m->bands(alg) : 1;
}

const char *gk_algorithm_band_name(const gk_algorithm *alg, int i)
{
    const gk_method *m = gk_method_of(alg->kind);
    return m && m->band_name && i >= 0 && i < gk_algorithm_bands(alg) ? m->band_name(alg, i) : NULL;
}

const char *gk_algorithm_singular_form(const gk_algorithm *alg)
{
    const gk_method *m = gk_method_of(alg->kind);
    return m && m->singular_form ? m->singular_form
                                 : "a singular kriging system (coincident points, or a drift that "
                                   "cannot be estimated)";
}

const char *gk_algorithm_string(const gk_algorithm *alg) { return alg->canonical; }
double gk_algorithm_nodata(const gk_algorithm *alg) { return alg->nodata; }
int gk_algorithm_nodata_given(const gk_algorithm *alg) { return alg->nodata_given; }

int gk_algorithm_needs_z(const gk_algorithm *alg)
{
    const gk_method *m = gk_method_of(alg->kind);
    return !(m && (m->flags & (GK_M_NO_Z | GK_M_Z_WEIGHT)));
}

int gk_algorithm_z_is_weight(const gk_algorithm *alg)
{
    const gk_method *m = gk_method_of(alg->kind);
    return m && (m->flags & GK_M_Z_WEIGHT);
}

double gk_algorithm_pixel_margin(const gk_algorithm *alg)
{
    const gk_method *m = alg ? gk_method_of(alg->kind) : NULL;
    return m && m->pixel_extent_margin ? m->pixel_extent_margin(alg) : NAN;
}

void gk_algorithm_set_precision(gk_algorithm *alg, gk_precision p) { alg->precision = p; }
