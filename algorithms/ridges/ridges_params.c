/* SPDX-License-Identifier: MIT */
/*
 * ridges_params.c - the -a string of `gridkit ridges`: "curve:key=value:..."
 * or "density:key=value:...", into a gk_ridges_method, and back into the
 * canonical string that names every parameter.
 *
 * A parameter estimated from the data (curve's r1, density's bandwidth) and
 * those whose defaults follow from it read "auto" in the canonical string
 * until a run has fixed them; "auto" parses back, so the string always does.
 * An unknown key, a bad number or a value out of range is an error naming
 * the key: a typo must not silently change the lines.
 */
#include "ridges_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char HELP[] =
    "  curve:r1=R:r2=R2:gap=G:max_iter=1000:max_rounds=100:min_length=L:simplify=T\n"
    "      Rupniewski's curve reconstruction. r1: ball radius, about 2x the noise's\n"
    "      standard deviation (estimated from the data when absent); r2: ordering\n"
    "      radius (default 2*r1); gap: largest gap bridged between line ends\n"
    "      (default 2*r2, 0: off); max_iter: evolve steps per round; max_rounds:\n"
    "      evolve and decimate rounds; min_length: shorter lines dropped (default\n"
    "      0); simplify: Douglas-Peucker tolerance (default 0: off).\n"
    "  density:bandwidth=H:threshold=0.1:threshold_mode=relative|absolute:\n"
    "          seeds=data|mesh:spacing=S:tolerance=1e-4:max_iter=200:cutoff=4:\n"
    "          angle=45:min_length=L:simplify=T\n"
    "      Density ridges by subspace-constrained mean shift. bandwidth: Gaussian\n"
    "      sigma (estimated when absent); threshold: walkers below it dropped\n"
    "      (relative: a fraction of the largest walker density); seeds: walkers\n"
    "      start at the samples or on a mesh of spacing S (default bandwidth/2);\n"
    "      tolerance: stop below tolerance*bandwidth; cutoff: kernel cut-off in\n"
    "      bandwidths; angle: largest angle between a link and the ridge, degrees;\n"
    "      min_length: shorter lines dropped (default 4*bandwidth); simplify:\n"
    "      Douglas-Peucker tolerance (default 0: off).\n";

const char *gk_ridges_methods_help(void) { return HELP; }

const char *gk_ridges_method_string(const gk_ridges_method *m) { return m ? m->text : ""; }

void gk_ridges_method_free(gk_ridges_method *m) { free(m); }

/* The shortest of %.15g .. %.17g that reads back as v. */
static void fmt_num(char *buf, size_t cap, double v)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* ":key=value", the value "auto" when v <= 0 and auto_ok. A default
 * derived from another key that overflows (gap = 2 r2 of r2=1e308) is
 * "auto" too: it reads back to the same rule, where "inf" would not parse. */
static void add_num(gk_strbuf *sb, const char *key, double v, int auto_ok)
{
    char num[40];
    if (auto_ok && !(v > 0 && isfinite(v))) {
        gk_strbuf_add(sb, ":%s=auto", key);
        return;
    }
    fmt_num(num, sizeof num, v);
    gk_strbuf_add(sb, ":%s=%s", key, num);
}

static void canonical_curve(const gk_ridges_method *m, gk_strbuf *sb)
{
    double r2 = m->r2 > 0 ? m->r2 : 2.0 * m->r1;
    double gap = m->gap >= 0 ? m->gap : 2.0 * r2;
    add_num(sb, "r1", m->r1, 1);
    add_num(sb, "r2", r2, 1);
    if (m->gap == 0)
        gk_strbuf_add(sb, ":gap=0");
    else
        add_num(sb, "gap", gap, 1);
    gk_strbuf_add(sb, ":max_iter=%d:max_rounds=%d", m->max_iter, m->max_rounds);
    add_num(sb, "min_length", m->min_length > 0 ? m->min_length : 0.0, 0);
    add_num(sb, "simplify", m->simplify, 0);
}

static void canonical_density(const gk_ridges_method *m, gk_strbuf *sb)
{
    double h = m->bandwidth;
    add_num(sb, "bandwidth", h, 1);
    add_num(sb, "threshold", m->threshold, 0);
    gk_strbuf_add(sb, ":threshold_mode=%s:seeds=%s",
                  m->threshold_absolute ? "absolute" : "relative", m->seeds_mesh ? "mesh" : "data");
    add_num(sb, "spacing", m->spacing > 0 ? m->spacing : h / 2.0, 1);
    add_num(sb, "tolerance", m->tolerance, 0);
    gk_strbuf_add(sb, ":max_iter=%d", m->max_iter_scms);
    add_num(sb, "cutoff", m->cutoff, 0);
    add_num(sb, "angle", m->angle, 0);
    if (m->min_length >= 0)
        add_num(sb, "min_length", m->min_length, 0);
    else
        add_num(sb, "min_length", 4.0 * h, 1);
    add_num(sb, "simplify", m->simplify, 0);
}

void gk_ridges_canonical(gk_ridges_method *m)
{
    gk_strbuf sb = {m->text, sizeof m->text, 0};
    gk_strbuf_add(&sb, "%s", gk_ridges_method_name(m));
    if (m->kind == GK_RIDGE_CURVE)
        canonical_curve(m, &sb);
    else
        canonical_density(m, &sb);
}

static void set_defaults(gk_ridges_method *m, gk_ridge_kind kind, int dim)
{
    memset(m, 0, sizeof *m);
    m->kind = kind;
    m->dim = dim;
    m->gap = -1.0; /* 2 * r2 */
    m->max_iter = 1000;
    m->max_rounds = 100;
    m->threshold = 0.1;
    m->tolerance = 1e-4;
    m->max_iter_scms = 200;
    m->cutoff = 4.0;
    m->angle = 45.0;
    m->min_length = -1.0; /* the method's default */
}

/* The keys each method takes, for the unknown-key message. */
static const char CURVE_KEYS[] = "r1, r2, gap, max_iter, max_rounds, min_length, simplify";
static const char DENSITY_KEYS[] = "bandwidth, threshold, threshold_mode, seeds, spacing, "
                                   "tolerance, max_iter, cutoff, angle, min_length, simplify";

/* Splits spec at ':' and applies each key=value. */
static int parse_keys(gk_context *ctx, gk_ridges_method *m, const char *name, char *rest)
{
    char *save = NULL;
    for (char *tok = strtok_r(rest, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            return gk_error(ctx, GK_ERR_ARG, "-a %s: '%s' is not key=value", name, tok);
        *eq = '\0';
        int rc = gk_ridges_key(ctx, m, tok, eq + 1);
        if (rc == -1)
            return gk_error(ctx, GK_ERR_ARG, "-a %s: unknown key '%s' (keys: %s)", name, tok,
                            m->kind == GK_RIDGE_CURVE ? CURVE_KEYS : DENSITY_KEYS);
        if (rc)
            return rc;
    }
    return GK_OK;
}

/* The checks between keys. */
static int check_method(gk_context *ctx, const gk_ridges_method *m)
{
    if (m->kind == GK_RIDGE_CURVE && m->r1 > 0 && m->r2 > 0 && m->r2 < m->r1)
        return gk_error(ctx, GK_ERR_ARG, "-a curve: r2=%.15g must be at least r1=%.15g", m->r2,
                        m->r1);
    return GK_OK;
}

gk_ridges_method *gk_ridges_parse(gk_context *ctx, const char *spec, int dim)
{
    if (!spec || !*spec) {
        gk_error(ctx, GK_ERR_ARG, "-a: no ridges method given (known: curve, density)");
        return NULL;
    }
    if (dim != 2 && dim != 3) {
        gk_error(ctx, GK_ERR_ARG, "ridges: dimension %d is neither 2 nor 3", dim);
        return NULL;
    }
    size_t len = strlen(spec);
    char *buf = malloc(len + 1);
    gk_ridges_method *m = malloc(sizeof *m);
    if (!buf || !m) {
        free(buf);
        free(m);
        gk_error(ctx, GK_ERR_NOMEM, "out of memory parsing -a %s", spec);
        return NULL;
    }
    memcpy(buf, spec, len + 1);
    char *colon = strchr(buf, ':');
    char *rest = colon ? colon + 1 : buf + len;
    if (colon)
        *colon = '\0';
    int rc = GK_OK;
    if (strcasecmp(buf, "curve") == 0)
        set_defaults(m, GK_RIDGE_CURVE, dim);
    else if (strcasecmp(buf, "density") == 0)
        set_defaults(m, GK_RIDGE_DENSITY, dim);
    else
        rc = gk_error(ctx, GK_ERR_ARG, "-a %s: unknown ridges method '%s' (known: curve, density)",
                      spec, buf);
    if (rc == GK_OK)
        rc = parse_keys(ctx, m, gk_ridges_method_name(m), rest);
    if (rc == GK_OK)
        rc = check_method(ctx, m);
    free(buf);
    if (rc != GK_OK) {
        free(m);
        return NULL;
    }
    gk_ridges_canonical(m);
    return m;
}
