/* SPDX-License-Identifier: MIT */
/*
 * variogram_fit_args.c - the fit options of `gridkit variogram` turned into
 * models (variogram_fit_args.h).
 */
#include "cli/variogram_fit_args.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int gk_vgm_parse_num(gk_context *ctx, const char *opt, const char *s, double *v)
{
    char *end;
    if (!s || !*s)
        return gk_error(ctx, GK_ERR_ARG, "%s: missing number", opt);
    double d = strtod(s, &end);
    while (*end == ' ')
        end++;
    if (*end != '\0' || !isfinite(d))
        return gk_error(ctx, GK_ERR_ARG, "%s: '%s' is not a number", opt, s);
    *v = d;
    return GK_OK;
}

int gk_vgm_parse_list(gk_context *ctx, const char *opt, const char *s, double *v, int max)
{
    int n = 0;
    char buf[64];
    const char *p = s;
    while (1) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (n >= max) { /* the limit and the count given, not "too many" alone */
            int given = 1;
            for (const char *q = s; *q; q++)
                given += *q == ',';
            gk_error(ctx, GK_ERR_ARG, "%s: at most %d value%s, not %d, in '%s'", opt, max,
                     max == 1 ? "" : "s", given, s);
            return -1;
        }
        if (len >= sizeof buf) {
            gk_error(ctx, GK_ERR_ARG, "%s: '%.20s...' is too long for a number (in '%s')", opt, p,
                     s);
            return -1;
        }
        memcpy(buf, p, len);
        buf[len] = '\0';
        if (gk_vgm_parse_num(ctx, opt, buf, &v[n]))
            return -1;
        n++;
        if (!c)
            break;
        p = c + 1;
    }
    return n;
}

static int parse_nugget(gk_context *ctx, const gk_vgm_fit_args *fa, double *v)
{
    if (gk_vgm_parse_num(ctx, "--nugget", fa->nugget, v))
        return gk_errno(ctx);
    if (*v < 0)
        return gk_error(ctx, GK_ERR_ARG, "--nugget must be >= 0, not %s", fa->nugget);
    return GK_OK;
}

static int parse_anis(gk_context *ctx, const gk_vgm_fit_args *fa, double v[2])
{
    int n = gk_vgm_parse_list(ctx, "--anis", fa->anis, v, 2);
    if (n < 0)
        return gk_errno(ctx);
    if (n != 2)
        return gk_error(ctx, GK_ERR_ARG, "--anis needs ANGLE,RATIO");
    if (!(v[1] > 0 && v[1] <= 1) || !(v[0] >= 0 && v[0] < 360))
        return gk_error(ctx, GK_ERR_ARG,
                        "--anis: angle must be in [0, 360) and ratio in (0, 1], not %s", fa->anis);
    return GK_OK;
}

int gk_vgm_build_model(gk_context *ctx, const gk_vgm_fit_args *fa, gk_vmodel *m)
{
    memset(m, 0, sizeof *m);
    char names[256];
    if (strlen(fa->fit) >= sizeof names)
        return gk_error(ctx, GK_ERR_ARG, "--fit: model list too long");
    strcpy(names, fa->fit);
    int nug = -1;
    for (char *tok = strtok(names, ",+ "); tok; tok = strtok(NULL, ",+ ")) {
        if (m->n >= GK_VM_MAX_STRUCTURES)
            return gk_error(ctx, GK_ERR_ARG, "--fit: at most %d structures", GK_VM_MAX_STRUCTURES);
        gk_vm_structure *s = &m->s[m->n];
        if (gk_vm_type_from_name(tok, &s->type))
            return gk_error(ctx, GK_ERR_ARG,
                            "--fit: unknown variogram model '%s' (use Nug, Sph, Exp, Gau, Mat, "
                            "Ste, Exc, Cir, Pen, Lin, Pow, Hol)",
                            tok);
        if (s->type == GK_VM_NUG) {
            if (nug >= 0)
                return gk_error(ctx, GK_ERR_ARG, "--fit: Nug listed twice");
            nug = m->n;
        }
        s->psill = NAN;
        s->range = s->type == GK_VM_NUG ? 0.0 : NAN;
        s->kappa = 0.5;
        s->anis_angle = 0.0;
        s->anis_ratio = 1.0;
        m->n++;
    }
    if (m->n == 0)
        return gk_error(ctx, GK_ERR_ARG, "--fit: no model given");
    if (fa->nugget) {
        double v = 0.0;
        if (parse_nugget(ctx, fa, &v))
            return gk_errno(ctx);
        if (nug < 0) { /* prepend, as vgm(..., nugget) puts it first */
            if (m->n >= GK_VM_MAX_STRUCTURES)
                return gk_error(ctx, GK_ERR_ARG, "--fit: at most %d structures",
                                GK_VM_MAX_STRUCTURES);
            memmove(&m->s[1], &m->s[0], m->n * sizeof m->s[0]);
            m->n++;
            nug = 0;
            m->s[0] = (gk_vm_structure){GK_VM_NUG, v, 0.0, 0.5, 0.0, 1.0};
        }
        m->s[nug].psill = v;
    }
    int idx[GK_VM_MAX_STRUCTURES], ns = 0;
    for (int i = 0; i < m->n; i++)
        if (m->s[i].type != GK_VM_NUG)
            idx[ns++] = i;
    struct {
        const char *opt, *val;
        int what;
    } lists[3] = {{"--psill", fa->psill, 0}, {"--range", fa->range, 1}, {"--kappa", fa->kappa, 2}};
    for (int l = 0; l < 3; l++) {
        if (!lists[l].val)
            continue;
        double v[GK_VM_MAX_STRUCTURES];
        int n = gk_vgm_parse_list(ctx, lists[l].opt, lists[l].val, v, GK_VM_MAX_STRUCTURES);
        if (n < 0)
            return gk_errno(ctx);
        if (n != ns && !(n == 1 && lists[l].what == 2))
            return gk_error(ctx, GK_ERR_ARG, "%s: %d value%s for %d non-nugget structure%s",
                            lists[l].opt, n, n == 1 ? "" : "s", ns, ns == 1 ? "" : "s");
        for (int k = 0; k < ns; k++) {
            double x = v[n == 1 ? 0 : k];
            gk_vm_structure *s = &m->s[idx[k]];
            if (lists[l].what == 0) {
                if (x < 0)
                    return gk_error(ctx, GK_ERR_ARG, "--psill must be >= 0, not %.15g", x);
                s->psill = x;
            } else if (lists[l].what == 1) {
                if (x < 0 || (x == 0 && s->type != GK_VM_LIN))
                    return gk_error(ctx, GK_ERR_ARG, "--range must be positive, not %.15g", x);
                s->range = x;
            } else {
                s->kappa = x;
            }
        }
    }
    if (fa->anis) {
        double v[2];
        if (parse_anis(ctx, fa, v))
            return gk_errno(ctx);
        for (int k = 0; k < ns; k++) {
            m->s[idx[k]].anis_angle = v[0];
            m->s[idx[k]].anis_ratio = v[1];
        }
    }
    if (fa->no_fit) {
        for (int i = 0; i < m->n; i++)
            if (isnan(m->s[i].psill) || isnan(m->s[i].range))
                return gk_error(ctx, GK_ERR_ARG,
                                "--no-fit: give every start value (--psill, --range, --nugget)");
        return gk_vmodel_check(ctx, m);
    }
    return GK_OK;
}

int gk_vgm_build_candidates(gk_context *ctx, const gk_vgm_fit_args *fa, gk_vmodel *cand, int *ncand)
{
    if (fa->psill || fa->range)
        return gk_error(ctx, GK_ERR_ARG,
                        "--fit-best: --psill and --range do not apply (every candidate starts "
                        "from gstat's defaults; fit one model with --fit to give start values)");
    if (fa->no_fit)
        return gk_error(ctx, GK_ERR_ARG, "--fit-best fits; --no-fit needs --fit or --model");
    if (gk_vm_candidates(ctx, fa->fit_best, cand, GK_VM_MAX_CANDIDATES, ncand))
        return gk_error(ctx, GK_ERR_ARG, "--fit-best: %s", gk_errmsg(ctx));
    double nugget = NAN, kappa = NAN, anis[2] = {0.0, 1.0};
    if (fa->nugget && parse_nugget(ctx, fa, &nugget))
        return gk_errno(ctx);
    if (fa->anis && parse_anis(ctx, fa, anis))
        return gk_errno(ctx);
    if (fa->kappa) {
        double v[GK_VM_MAX_STRUCTURES];
        int n = gk_vgm_parse_list(ctx, "--kappa", fa->kappa, v, GK_VM_MAX_STRUCTURES);
        if (n < 0)
            return gk_errno(ctx);
        if (n != 1)
            return gk_error(ctx, GK_ERR_ARG, "--kappa: one value with --fit-best, not %d", n);
        kappa = v[0];
    }
    for (int c = 0; c < *ncand; c++)
        for (int i = 0; i < cand[c].n; i++) {
            gk_vm_structure *s = &cand[c].s[i];
            if (s->type == GK_VM_NUG) {
                if (fa->nugget)
                    s->psill = nugget;
                continue;
            }
            if (fa->kappa)
                s->kappa = kappa;
            s->anis_angle = anis[0];
            s->anis_ratio = anis[1];
        }
    return GK_OK;
}

int gk_vgm_kappa_list(gk_context *ctx, const char *spec, double **kappa, int *n)
{
    *kappa = NULL;
    *n = 0;
    if (!*spec) { /* fit.kappa = TRUE */
        double *k = malloc(GK_FIT_KAPPA_N * sizeof *k);
        if (!k)
            return gk_error(ctx, GK_ERR_NOMEM, "out of memory");
        gk_fit_kappa_gstat(k);
        *kappa = k;
        *n = GK_FIT_KAPPA_N;
        return GK_OK;
    }
    int cap = 1;
    for (const char *p = spec; *p; p++)
        cap += *p == ',';
    double *k = malloc((size_t)cap * sizeof *k);
    if (!k)
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory");
    int m = gk_vgm_parse_list(ctx, "--fit-kappa", spec, k, cap);
    if (m < 0) {
        free(k);
        return gk_errno(ctx);
    }
    for (int i = 0; i < m; i++)
        if (!(k[i] > 0.0 && k[i] <= 100.0)) {
            gk_error(ctx, GK_ERR_ARG,
                     "--fit-kappa: kappa %.15g is not in (0, 100] (Mat and Ste need a positive "
                     "kappa)",
                     k[i]);
            free(k);
            return GK_ERR_ARG;
        }
    *kappa = k;
    *n = m;
    return GK_OK;
}
