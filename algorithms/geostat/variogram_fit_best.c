/* SPDX-License-Identifier: MIT */
/*
 * variogram_fit_best.c - fitting several candidate models and keeping the
 * best, as gstat's fit.variogram() does with a model list
 * (vgm(c("Exp", "Sph", "Gau"))) and with fit.kappa for Matern and Stein.
 *
 * gstat's rules (fit.variogram, vgm and vgm_fill_na in the R package):
 *  - vgm(c("Exp", "Sph")) makes one candidate per name, each vgm(NA, name,
 *    NA, NA): a nugget plus the structure, every value NA (filled from the
 *    sample variogram); vgm("Nug") alone is a pure nugget;
 *  - each candidate is fitted on its own; the kept one has the smallest
 *    SSErr, the first of equals (which.min);
 *  - fit.kappa = TRUE tries kappa = seq(0.3, 5, 0.1); a numeric vector of
 *    more than one value is tried as given. Every Mat and Ste structure of
 *    the model gets the same kappa; the smallest SSErr wins as above.
 *    Models with neither are fitted once.
 * A model list with fit.kappa is the kappa search inside each candidate and
 * then the choice among candidates: the same as one first-minimum over all
 * (candidate, kappa) fits in that order, which is what the loop below does.
 */
#include "gridkit_geostat.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void gk_fit_kappa_gstat(double kappa[GK_FIT_KAPPA_N])
{
    /* R's seq(0.3, 5, 0.1) is pmin(from + (0:n) * by, to): the same doubles */
    for (int i = 0; i < GK_FIT_KAPPA_N; i++) {
        kappa[i] = 0.3 + (double)i * 0.1;
        if (kappa[i] > 5.0)
            kappa[i] = 5.0;
    }
}

static int has_kappa_structure(const gk_vmodel *m)
{
    for (int i = 0; i < m->n; i++)
        if (m->s[i].type == GK_VM_MAT || m->s[i].type == GK_VM_STE)
            return 1;
    return 0;
}

/* The next item of a list separated by sep, blanks around it dropped, into
 * buf (room bytes); returns the rest after the separator, or NULL at the end.
 * *len_out is the item's length, or -1 when it does not fit. */
static const char *next_item(const char *p, char sep, char *buf, size_t room, int *len_out)
{
    const char *end = strchr(p, sep);
    size_t len = end ? (size_t)(end - p) : strlen(p);
    while (len > 0 && *p == ' ')
        p++, len--;
    while (len > 0 && p[len - 1] == ' ')
        len--;
    if (len >= room) {
        *len_out = -1;
        buf[0] = '\0';
    } else {
        memcpy(buf, p, len);
        buf[len] = '\0';
        *len_out = (int)len;
    }
    return end ? end + 1 : NULL;
}

int gk_vm_candidates(gk_context *ctx, const char *list, gk_vmodel *cand, int room, int *ncand)
{
    *ncand = 0;
    if (!list || !*list)
        return gk_error(ctx, GK_ERR_ARG,
                        "candidate models: the list is empty (give names such as Exp,Sph,Gau)");
    int n = 0;
    for (const char *p = list; p;) {
        char item[128];
        int len;
        p = next_item(p, ',', item, sizeof item, &len);
        if (len < 0)
            return gk_error(ctx, GK_ERR_ARG, "candidate models: an item of '%s' is too long", list);
        if (len == 0)
            return gk_error(ctx, GK_ERR_ARG, "candidate models: an empty name in '%s'", list);
        if (n >= room)
            return gk_error(ctx, GK_ERR_ARG, "candidate models: at most %d in '%s'", room, list);
        gk_vmodel *m = &cand[n];
        memset(m, 0, sizeof *m);
        /* gstat's vgm(NA, name, NA, NA): the nugget first, then the structure;
         * "Sph+Exp" nests structures in one candidate, under one nugget;
         * vgm("Nug") is the nugget alone */
        m->s[m->n++] = (gk_vm_structure){GK_VM_NUG, NAN, 0.0, 0.5, 0.0, 1.0};
        for (const char *q = item; q;) {
            char name[128];
            int nl;
            q = next_item(q, '+', name, sizeof name, &nl);
            gk_vm_type t;
            if (nl <= 0 || gk_vm_type_from_name(name, &t))
                return gk_error(ctx, GK_ERR_ARG,
                                "candidate models: unknown variogram model '%s' (use Nug, Sph, "
                                "Exp, Gau, Mat, Ste, Exc, Cir, Pen, Lin, Pow, Hol)",
                                nl < 0 ? item : name);
            if (t == GK_VM_NUG)
                continue; /* the candidate has its nugget already */
            if (m->n >= GK_VM_MAX_STRUCTURES)
                return gk_error(ctx, GK_ERR_ARG,
                                "candidate models: at most %d structures besides the nugget in "
                                "'%s'",
                                GK_VM_MAX_STRUCTURES - 1, item);
            m->s[m->n++] = (gk_vm_structure){t, NAN, NAN, 0.5, 0.0, 1.0};
        }
        n++;
    }
    *ncand = n;
    return GK_OK;
}

int gk_variogram_fit_best(gk_context *ctx, const gk_vgm *v, int dir, gk_vmodel *cand, int ncand,
                          const double *kappa, int nkappa, const gk_fit_options *opt,
                          gk_fit_result *each, int *kept)
{
    if (kept)
        *kept = -1;
    if (!cand || ncand < 1)
        return gk_error(ctx, GK_ERR_ARG, "variogram fit: no candidate models to fit");
    if (nkappa < 0 || (nkappa > 0 && !kappa))
        return gk_error(ctx, GK_ERR_ARG, "variogram fit: no kappa values");
    for (int k = 0; k < nkappa; k++)
        if (!(kappa[k] > 0.0) || !(kappa[k] <= 100.0))
            return gk_error(ctx, GK_ERR_ARG,
                            "variogram fit: kappa %.15g (value %d of the kappa list) must be in "
                            "(0, 100]",
                            kappa[k], k + 1);
    if (nkappa > 0) {
        int any = 0;
        for (int c = 0; c < ncand; c++)
            any |= has_kappa_structure(&cand[c]);
        if (!any)
            return gk_error(ctx, GK_ERR_ARG,
                            "variogram fit: a kappa search needs a Mat or Ste structure (no "
                            "candidate has one)");
    }
    double best = INFINITY;
    int best_c = -1;
    char why[512] = "";
    for (int c = 0; c < ncand; c++) {
        const gk_vmodel start = cand[c];
        const int search = nkappa > 0 && has_kappa_structure(&start);
        const int tries = search ? nkappa : 1;
        gk_vmodel mine = start;
        gk_fit_result mine_fr = {NAN, 0, 0};
        double mine_sse = INFINITY;
        for (int t = 0; t < tries; t++) {
            gk_vmodel m = start;
            if (search)
                for (int i = 0; i < m.n; i++)
                    if (m.s[i].type == GK_VM_MAT || m.s[i].type == GK_VM_STE)
                        m.s[i].kappa = kappa[t];
            gk_fit_result fr;
            const int frc = gk_variogram_fit(ctx, v, dir, &m, opt, &fr);
            if (frc == GK_ERR_NOMEM) /* not this candidate's failure: no choice without it */
                return frc;
            if (frc) {
                snprintf(why, sizeof why, "%s", gk_errmsg(ctx));
                gk_error_clear(ctx);
                continue;
            }
            if (fr.sserr < mine_sse) { /* strictly: the first of equals stays */
                mine_sse = fr.sserr;
                mine = m;
                mine_fr = fr;
            }
        }
        /* every try failed: the start model stays, SSErr NaN */
        cand[c] = mine;
        if (each)
            each[c] = mine_fr;
        if (mine_sse < best) {
            best = mine_sse;
            best_c = c;
        }
    }
    if (best_c < 0)
        return gk_error(ctx, GK_ERR_ARG,
                        "variogram fit: none of the %d candidate model%s could "
                        "be fitted (%s)",
                        ncand, ncand == 1 ? "" : "s", why[0] ? why : "no fit");
    if (kept)
        *kept = best_c;
    return GK_OK;
}
