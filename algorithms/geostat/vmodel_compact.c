/* SPDX-License-Identifier: MIT */
/*
 * geostat/vmodel_compact.c - a variogram model in its compact form,
 * "Nug(0.05)+Sph(0.59,897)[@angle/ratio]": read (kriging's model=, indicator
 * kriging's models=) and written (canonical strings, the CLI's report).
 */
#include "kriging.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int needs_kappa(gk_vm_type t) { return t == GK_VM_MAT || t == GK_VM_STE || t == GK_VM_EXC; }

/* "Name(psill[,range[,kappa]])[@angle/ratio]" joined by '+': the compact form
 * the canonical string uses for nested models. */
int gk_vmodel_parse_compact(gk_context *ctx, const char *s, gk_vmodel *m)
{
    memset(m, 0, sizeof *m);
    const char *p = s;
    while (*p) {
        if (m->n == GK_VM_MAX_STRUCTURES)
            return gk_error(ctx, GK_ERR_ARG, "-a kriging: model=%s has more than %d structures", s,
                            GK_VM_MAX_STRUCTURES);
        char name[16];
        size_t k = 0;
        while (isalpha((unsigned char)*p) && k < sizeof name - 1)
            name[k++] = *p++;
        name[k] = '\0';
        gk_vm_structure *st = &m->s[m->n];
        st->anis_ratio = 1.0;
        if (gk_vm_type_from_name(name, &st->type) || *p != '(')
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: model=%s: '%s' is not a model like Sph(psill,range)", s,
                            name);
        p++;
        double v[3] = {0, 0, 0};
        int nv = 0;
        for (;;) {
            char *end;
            double x = strtod(p, &end);
            if (end == p || nv == 3 || !isfinite(x))
                return gk_error(ctx, GK_ERR_ARG, "-a kriging: model=%s: bad number in %s(...)", s,
                                name);
            v[nv++] = x;
            p = end;
            if (*p == ',') {
                p++;
                continue;
            }
            if (*p == ')') {
                p++;
                break;
            }
            return gk_error(ctx, GK_ERR_ARG, "-a kriging: model=%s: expected ',' or ')'", s);
        }
        st->psill = v[0];
        st->range = nv > 1 ? v[1] : 0.0;
        st->kappa = nv > 2 ? v[2] : (needs_kappa(st->type) ? 0.5 : 0.0);
        if (*p == '@') {
            char *end;
            st->anis_angle = strtod(p + 1, &end);
            if (*end != '/')
                return gk_error(ctx, GK_ERR_ARG, "-a kriging: model=%s: anisotropy is @angle/ratio",
                                s);
            p = end + 1;
            st->anis_ratio = strtod(p, &end);
            if (end == p)
                return gk_error(ctx, GK_ERR_ARG, "-a kriging: model=%s: anisotropy is @angle/ratio",
                                s);
            p = end;
        }
        m->n++;
        if (*p == '+')
            p++;
        else if (*p)
            return gk_error(ctx, GK_ERR_ARG, "-a kriging: model=%s: expected '+' after %s(...)", s,
                            name);
    }
    if (m->n == 0)
        return gk_error(ctx, GK_ERR_ARG, "-a kriging: model= is empty");
    return GK_OK;
}

int gk_vmodel_format(const gk_vmodel *m, char *buf, size_t room)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < m->n; i++) {
        const gk_vm_structure *st = &m->s[i];
        int n;
        if (needs_kappa(st->type))
            n = snprintf(buf + used, room - used, "%s%s(%.17g,%.17g,%.17g)", i ? "+" : "",
                         gk_vm_type_name(st->type), st->psill, st->range, st->kappa);
        else if (st->type == GK_VM_NUG)
            n = snprintf(buf + used, room - used, "%s%s(%.17g)", i ? "+" : "",
                         gk_vm_type_name(st->type), st->psill);
        else
            n = snprintf(buf + used, room - used, "%s%s(%.17g,%.17g)", i ? "+" : "",
                         gk_vm_type_name(st->type), st->psill, st->range);
        if (n < 0 || (size_t)n >= room - used)
            return GK_ERR_ARG;
        used += (size_t)n;
        if (st->type != GK_VM_NUG && st->anis_ratio != 1.0) {
            n = snprintf(buf + used, room - used, "@%.17g/%.17g", st->anis_angle, st->anis_ratio);
            if (n < 0 || (size_t)n >= room - used)
                return GK_ERR_ARG;
            used += (size_t)n;
        }
    }
    return GK_OK;
}
