/*
 * parse.c - gdal_grid's -a syntax, "name[:key=value]*", into a gk_algorithm.
 *
 * Defaults are gdal_grid 3.6's. Unlike gdal_grid, which warns "Option X
 * ignored" and carries on, an unknown key or a value that is not a number is
 * an error: a typo in a parameter silently changes a surface.
 */
#include "gk_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Parameter bits: which keys each algorithm accepts. */
enum {
    P_POWER = 1 << 0,
    P_SMOOTHING = 1 << 1,
    P_RADIUS1 = 1 << 2,
    P_RADIUS2 = 1 << 3,
    P_RADIUS = 1 << 4,
    P_ANGLE = 1 << 5,
    P_MAX_POINTS = 1 << 6,
    P_MIN_POINTS = 1 << 7,
    P_NODATA = 1 << 8,
    P_QUADRANT = 1 << 9, /* min_points_per_quadrant, max_points_per_quadrant */
    P_AIDW = 1 << 10,    /* k, alpha1..alpha5, r_min, r_max */
};
#define P_ELLIPSE (P_RADIUS1 | P_RADIUS2 | P_RADIUS | P_ANGLE)

static const struct {
    const char *name;
    gk_alg_kind kind;
    unsigned keys;
} ALGS[] = {
    {"invdist", GK_ALG_INVDIST,
     P_POWER | P_SMOOTHING | P_ELLIPSE | P_MAX_POINTS | P_MIN_POINTS | P_NODATA | P_QUADRANT},
    {"invdistnn", GK_ALG_INVDISTNN,
     P_POWER | P_SMOOTHING | P_RADIUS | P_MAX_POINTS | P_MIN_POINTS | P_NODATA | P_QUADRANT},
    {"average", GK_ALG_AVERAGE, P_ELLIPSE | P_MAX_POINTS | P_MIN_POINTS | P_NODATA | P_QUADRANT},
    {"nearest", GK_ALG_NEAREST, P_ELLIPSE | P_NODATA},
    {"linear", GK_ALG_LINEAR, P_RADIUS | P_NODATA},
    {"minimum", GK_ALG_MINIMUM, P_ELLIPSE | P_MIN_POINTS | P_NODATA | P_QUADRANT},
    {"maximum", GK_ALG_MAXIMUM, P_ELLIPSE | P_MIN_POINTS | P_NODATA | P_QUADRANT},
    {"range", GK_ALG_RANGE, P_ELLIPSE | P_MIN_POINTS | P_NODATA | P_QUADRANT},
    {"count", GK_ALG_COUNT, P_ELLIPSE | P_MIN_POINTS | P_NODATA | P_QUADRANT},
    {"average_distance", GK_ALG_AVERAGE_DISTANCE,
     P_ELLIPSE | P_MIN_POINTS | P_NODATA | P_QUADRANT},
    {"average_distance_pts", GK_ALG_AVERAGE_DISTANCE_PTS, P_ELLIPSE | P_MIN_POINTS | P_NODATA},
    {"aidw", GK_ALG_AIDW,
     P_AIDW | P_SMOOTHING | P_ELLIPSE | P_MAX_POINTS | P_MIN_POINTS | P_NODATA},
    {"kriging", GK_ALG_KRIGING, 0},
};
#define N_ALGS (sizeof ALGS / sizeof ALGS[0])

static const struct {
    const char *key;
    unsigned bit;
} KEYS[] = {
    {"power", P_POWER},
    {"smoothing", P_SMOOTHING},
    {"radius1", P_RADIUS1},
    {"radius2", P_RADIUS2},
    {"radius", P_RADIUS},
    {"angle", P_ANGLE},
    {"max_points", P_MAX_POINTS},
    {"min_points", P_MIN_POINTS},
    {"nodata", P_NODATA},
    {"min_points_per_quadrant", P_QUADRANT},
    {"max_points_per_quadrant", P_QUADRANT},
    {"k", P_AIDW},
    {"alpha1", P_AIDW},
    {"alpha2", P_AIDW},
    {"alpha3", P_AIDW},
    {"alpha4", P_AIDW},
    {"alpha5", P_AIDW},
    {"r_min", P_AIDW},
    {"r_max", P_AIDW},
};
#define N_KEYS (sizeof KEYS / sizeof KEYS[0])

static void set_defaults(gk_algorithm *a, gk_alg_kind kind)
{
    memset(a, 0, sizeof *a);
    a->kind = kind;
    a->power = 2.0;
    a->radius = -1.0; /* linear */
    if (kind == GK_ALG_INVDISTNN) {
        a->radius1 = a->radius2 = 1.0;
        a->max_points = 12;
    }
    a->aidw_k = 10;
    const double alpha[5] = {1.5, 2.0, 2.5, 3.0, 3.5};
    memcpy(a->aidw_alpha, alpha, sizeof alpha);
    a->aidw_rmin = 0.0;
    a->aidw_rmax = 2.0;
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

static void build_canonical(gk_algorithm *a, const char *name)
{
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
    ADD("%s", name);
    switch (a->kind) {
    case GK_ALG_INVDIST:
    case GK_ALG_INVDISTNN:
        ADD(":power=%.17g:smoothing=%.17g", a->power, a->smoothing);
        break;
    case GK_ALG_AIDW:
        ADD(":k=%d:alpha1=%.17g:alpha2=%.17g:alpha3=%.17g:alpha4=%.17g:alpha5=%.17g:r_min=%.17g:"
            "r_max=%.17g:smoothing=%.17g",
            a->aidw_k, a->aidw_alpha[0], a->aidw_alpha[1], a->aidw_alpha[2], a->aidw_alpha[3],
            a->aidw_alpha[4], a->aidw_rmin, a->aidw_rmax, a->smoothing);
        break;
    default:
        break;
    }
    if (a->kind == GK_ALG_LINEAR)
        ADD(":radius=%.17g", a->radius);
    else if (a->kind == GK_ALG_INVDISTNN)
        ADD(":radius=%.17g", a->radius1);
    else
        ADD(":radius1=%.17g:radius2=%.17g:angle=%.17g", a->radius1, a->radius2, a->angle);
    /* Only the keys the kind takes: the string must parse again. */
    unsigned keys = 0;
    for (size_t i = 0; i < sizeof ALGS / sizeof ALGS[0]; i++)
        if (ALGS[i].kind == a->kind)
            keys = ALGS[i].keys;
    if (keys & P_MAX_POINTS)
        ADD(":max_points=%d", a->max_points);
    if (keys & P_MIN_POINTS)
        ADD(":min_points=%d", a->min_points);
    if (a->min_points_per_quadrant || a->max_points_per_quadrant)
        ADD(":min_points_per_quadrant=%d:max_points_per_quadrant=%d", a->min_points_per_quadrant,
            a->max_points_per_quadrant);
    ADD(":nodata=%.17g", a->nodata);
#undef ADD
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
    size_t ai = N_ALGS;
    for (size_t i = 0; name && i < N_ALGS; i++)
        if (strcasecmp(name, ALGS[i].name) == 0)
            ai = i;
    if (ai == N_ALGS) {
        gk_error(ctx, GK_ERR_ARG,
                 "-a %s: unknown algorithm '%s' (known: invdist, invdistnn, average, nearest, "
                 "linear, minimum, maximum, range, count, average_distance, "
                 "average_distance_pts, aidw, kriging)",
                 spec, name ? name : "");
        goto fail;
    }
    const char *aname = ALGS[ai].name;
    set_defaults(a, ALGS[ai].kind);
    if (a->kind == GK_ALG_KRIGING) { /* its own grammar: kriging_params.c */
        if (gk_kriging_parse(ctx, spec, save, a))
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
        if (k == N_KEYS || !(ALGS[ai].keys & KEYS[k].bit)) {
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

    /* radius= is gdal_grid 3.6's shorthand for radius1 = radius2 (and linear's own). */
    if (a->kind == GK_ALG_LINEAR) {
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

    /* invdist with per-quadrant keys is invdistnn (gdal_grid's remap, with the
     * limits forwarded as GDAL 3.11 does). */
    if (a->kind == GK_ALG_INVDIST && have_quadrant) {
        if (a->radius1 != a->radius2 || a->angle != 0) {
            gk_error(ctx, GK_ERR_ARG,
                     "-a %s: per-quadrant search needs a circle (radius1 = radius2, angle = 0)",
                     spec);
            goto fail;
        }
        a->kind = GK_ALG_INVDISTNN;
        aname = "invdistnn";
        if (a->radius1 == 0)
            a->radius1 = a->radius2 = 1.0;
        if (!have_max_points)
            a->max_points = 12;
    }

    if (!isfinite(a->power) || a->power < 0) {
        gk_error(ctx, GK_ERR_ARG, "-a %s: power must be >= 0", spec);
        goto fail;
    }
    if (!isfinite(a->smoothing) || a->smoothing < 0) {
        gk_error(ctx, GK_ERR_ARG, "-a %s: smoothing must be >= 0", spec);
        goto fail;
    }
    if (a->kind != GK_ALG_LINEAR) {
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
    if (a->kind == GK_ALG_INVDISTNN && !(a->radius1 > 0)) {
        gk_error(ctx, GK_ERR_ARG, "-a %s: invdistnn needs radius > 0", spec);
        goto fail;
    }
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
    if (a->kind == GK_ALG_AIDW) {
        if (a->aidw_k < 1) {
            gk_error(ctx, GK_ERR_ARG, "-a %s: k must be >= 1", spec);
            goto fail;
        }
        if (!(a->aidw_rmax > a->aidw_rmin)) {
            gk_error(ctx, GK_ERR_ARG, "-a %s: r_max must be larger than r_min", spec);
            goto fail;
        }
        for (int i = 0; i < 5; i++)
            if (!isfinite(a->aidw_alpha[i]) || a->aidw_alpha[i] < 0) {
                gk_error(ctx, GK_ERR_ARG, "-a %s: alpha%d must be >= 0", spec, i + 1);
                goto fail;
            }
    }
    if (!isfinite(a->nodata) && !isnan(a->nodata)) {
        gk_error(ctx, GK_ERR_ARG, "-a %s: nodata must be finite", spec);
        goto fail;
    }
    build_canonical(a, aname);
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
    for (size_t i = 0; i < N_ALGS; i++)
        if (ALGS[i].kind == alg->kind)
            return ALGS[i].name;
    return "?";
}

const char *gk_algorithm_string(const gk_algorithm *alg) { return alg->canonical; }
double gk_algorithm_nodata(const gk_algorithm *alg) { return alg->nodata; }
int gk_algorithm_nodata_given(const gk_algorithm *alg) { return alg->nodata_given; }

int gk_algorithm_needs_z(const gk_algorithm *alg)
{
    return !(alg->kind == GK_ALG_COUNT || alg->kind == GK_ALG_AVERAGE_DISTANCE ||
             alg->kind == GK_ALG_AVERAGE_DISTANCE_PTS);
}

void gk_algorithm_set_precision(gk_algorithm *alg, gk_precision p) { alg->precision = p; }
