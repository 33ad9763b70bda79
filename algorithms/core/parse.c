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
    {"k", GK_KEY_AIDW},
    {"alpha1", GK_KEY_AIDW},
    {"alpha2", GK_KEY_AIDW},
    {"alpha3", GK_KEY_AIDW},
    {"alpha4", GK_KEY_AIDW},
    {"alpha5", GK_KEY_AIDW},
    {"r_min", GK_KEY_AIDW},
    {"r_max", GK_KEY_AIDW},
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
    if (end == s || *end || errno == ERANGE || (isnan(v) && strcmp(key, "nodata") != 0))
        return -1;
    *out = v;
    return 0;
}

static int parse_number(gk_context *ctx, const char *alg, const char *key, const char *s,
                        double *out)
{
    if (gk_param_number(key, s, out))
        return gk_error(ctx, GK_ERR_ARG, "-a %s: %s=%s is not a number", alg, key, s);
    return GK_OK;
}

static int as_count(gk_context *ctx, const char *alg, const char *key, double v, int *out)
{
    if (v < 0 || v != floor(v) || v > 1e9)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a %s: %s=%.17g must be a whole number from 0 to 1000000000", alg, key,
                        v);
    *out = (int)v;
    return GK_OK;
}

static void build_canonical(gk_algorithm *a)
{
    const gk_method *m = gk_method_of(a->kind);
    char *p = a->canonical;
    size_t room = sizeof a->canonical;
    int n = 0;
#define ADD(...)                                                                                   \
    do {                                                                                           \
        n = snprintf(p, room, __VA_ARGS__);                                                        \
        if (n < 0 || (size_t)n >= room)                                                            \
            return;                                                                                \
        p += n;                                                                                    \
        room -= (size_t)n;                                                                         \
    } while (0)
    ADD("%s", m->name);
    if (m->canonical) {
        n = m->canonical(a, p, room);
        if (n < 0 || (size_t)n >= room)
            return;
        p += n;
        room -= (size_t)n;
    }
    /* Only the keys the method takes: the string must parse again. */
    if (m->keys & GK_KEY_RADIUS1)
        ADD(":radius1=%.17g:radius2=%.17g:angle=%.17g", a->radius1, a->radius2, a->angle);
    if (m->keys & GK_KEY_MAX_POINTS)
        ADD(":max_points=%d", a->max_points);
    if (m->keys & GK_KEY_MIN_POINTS)
        ADD(":min_points=%d", a->min_points);
    if (a->min_points_per_quadrant || a->max_points_per_quadrant)
        ADD(":min_points_per_quadrant=%d:max_points_per_quadrant=%d", a->min_points_per_quadrant,
            a->max_points_per_quadrant);
    ADD(":nodata=%.17g", a->nodata);
#undef ADD
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

const gk_method *gk_method_find(const char *name)
{
    for (int i = 0; name && i < gk_n_methods; i++)
        if (strcasecmp(name, gk_methods[i]->name) == 0)
            return gk_methods[i];
    return NULL;
}

const gk_method *gk_method_of(gk_alg_kind kind)
{
    for (int i = 0; i < gk_n_methods; i++)
        if (gk_methods[i]->kind == kind)
            return gk_methods[i];
    return NULL;
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
    const char *aname = m->name;
    set_defaults(a, m);
    if (m->parse) { /* a grammar of its own (kriging) */
        if (m->parse(ctx, spec, save, a))
            goto fail;
        free(buf);
        return a;
    }

    int have_radius = 0, have_r1 = 0, have_r2 = 0, have_quadrant = 0, have_max_points = 0;
    double radius = 0;
    for (char *tok = strtok_r(NULL, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            gk_error(ctx, GK_ERR_ARG, "-a %s: '%s' is not key=value", spec, tok);
            goto fail;
        }
        *eq = '\0';
        const char *key = tok, *val = eq + 1;
        size_t k = N_KEYS;
        for (size_t i = 0; i < N_KEYS; i++)
            if (strcasecmp(key, KEYS[i].key) == 0)
                k = i;
        if (k == N_KEYS || !(m->keys & KEYS[k].bit)) {
            gk_error(ctx, GK_ERR_ARG, "-a %s: algorithm %s has no parameter '%s'", spec, aname,
                     key);
            goto fail;
        }
        key = KEYS[k].key;
        double v = 0;
        if (parse_number(ctx, aname, key, val, &v))
            goto fail;
        int rc = GK_OK;
        if (!strcmp(key, "power"))
            a->power = v;
        else if (!strcmp(key, "smoothing"))
            a->smoothing = v;
        else if (!strcmp(key, "radius1"))
            a->radius1 = v, have_r1 = 1;
        else if (!strcmp(key, "radius2"))
            a->radius2 = v, have_r2 = 1;
        else if (!strcmp(key, "radius"))
            radius = v, have_radius = 1;
        else if (!strcmp(key, "angle"))
            a->angle = v;
        else if (!strcmp(key, "max_points"))
            rc = as_count(ctx, aname, key, v, &a->max_points), have_max_points = 1;
        else if (!strcmp(key, "min_points"))
            rc = as_count(ctx, aname, key, v, &a->min_points);
        else if (!strcmp(key, "nodata"))
            a->nodata = v, a->nodata_given = 1;
        else if (!strcmp(key, "min_points_per_quadrant"))
            rc = as_count(ctx, aname, key, v, &a->min_points_per_quadrant), have_quadrant = 1;
        else if (!strcmp(key, "max_points_per_quadrant"))
            rc = as_count(ctx, aname, key, v, &a->max_points_per_quadrant), have_quadrant = 1;
        else if (!strcmp(key, "k"))
            rc = as_count(ctx, aname, key, v, &a->aidw_k);
        else if (!strncmp(key, "alpha", 5))
            a->aidw_alpha[key[5] - '1'] = v;
        else if (!strcmp(key, "r_min"))
            a->aidw_rmin = v;
        else if (!strcmp(key, "r_max"))
            a->aidw_rmax = v;
        if (rc)
            goto fail;
    }

    /* radius= is gdal_grid 3.6's shorthand for radius1 = radius2, unless the
     * method takes it as its own parameter (linear). */
    if (m->flags & GK_M_OWN_RADIUS) {
        if (have_radius)
            a->radius = radius;
    } else if (have_radius) {
        if (have_r1 || have_r2) {
            gk_error(ctx, GK_ERR_ARG, "-a %s: give either radius or radius1/radius2, not both",
                     spec);
            goto fail;
        }
        a->radius1 = a->radius2 = radius;
    }
    /* a method may become another here (invdist with per-quadrant keys) */
    if (m->adjust) {
        gk_parse_seen seen = {have_quadrant, have_max_points};
        if (m->adjust(ctx, spec, &seen, a))
            goto fail;
        m = gk_method_of(a->kind);
    }

    if (!isfinite(a->power) || a->power < 0) {
        gk_error(ctx, GK_ERR_ARG, "-a %s: power must be >= 0", spec);
        goto fail;
    }
    if (!isfinite(a->smoothing) || a->smoothing < 0) {
        gk_error(ctx, GK_ERR_ARG, "-a %s: smoothing must be >= 0", spec);
        goto fail;
    }
    if (!(m->flags & GK_M_OWN_RADIUS)) {
        if (a->radius1 < 0 || a->radius2 < 0 || !isfinite(a->radius1) || !isfinite(a->radius2)) {
            gk_error(ctx, GK_ERR_ARG, "-a %s: search radii must be finite and >= 0", spec);
            goto fail;
        }
        if ((a->radius1 == 0) != (a->radius2 == 0)) {
            gk_error(ctx, GK_ERR_ARG,
                     "-a %s: radius1 and radius2 must both be > 0 (an ellipse) or both 0 (all "
                     "points); one of them 0 is a degenerate ellipse",
                     spec);
            goto fail;
        }
        if (!isfinite(a->angle)) {
            gk_error(ctx, GK_ERR_ARG, "-a %s: angle must be finite", spec);
            goto fail;
        }
    } else if (!isfinite(a->radius)) {
        gk_error(ctx, GK_ERR_ARG, "-a %s: radius must be finite", spec);
        goto fail;
    }
    if (m->check && m->check(ctx, spec, a))
        goto fail;
    if (have_quadrant && a->radius1 == 0) {
        gk_error(ctx, GK_ERR_ARG, "-a %s: per-quadrant search needs a radius > 0", spec);
        goto fail;
    }
    if (have_quadrant && a->max_points_per_quadrant &&
        a->min_points_per_quadrant > a->max_points_per_quadrant) {
        gk_error(ctx, GK_ERR_ARG,
                 "-a %s: min_points_per_quadrant=%d is larger than max_points_per_quadrant=%d",
                 spec, a->min_points_per_quadrant, a->max_points_per_quadrant);
        goto fail;
    }
    /* no node can have more than max_points neighbours: every node would be
     * nodata (max_points=0 means all points) */
    if (a->max_points && a->min_points > a->max_points) {
        gk_error(ctx, GK_ERR_ARG,
                 "-a %s: min_points=%d is larger than max_points=%d: no node could get a value",
                 spec, a->min_points, a->max_points);
        goto fail;
    }
    if (!isfinite(a->nodata) && !isnan(a->nodata)) {
        gk_error(ctx, GK_ERR_ARG, "-a %s: nodata must be finite", spec);
        goto fail;
    }
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

const char *gk_algorithm_string(const gk_algorithm *alg) { return alg->canonical; }
double gk_algorithm_nodata(const gk_algorithm *alg) { return alg->nodata; }
int gk_algorithm_nodata_given(const gk_algorithm *alg) { return alg->nodata_given; }

int gk_algorithm_needs_z(const gk_algorithm *alg)
{
    const gk_method *m = gk_method_of(alg->kind);
    return !(m && (m->flags & GK_M_NO_Z));
}

void gk_algorithm_set_precision(gk_algorithm *alg, gk_precision p) { alg->precision = p; }
