/* SPDX-License-Identifier: MIT */
/*
 * vmodel_json.c - variograms and models as JSON with json-c. Doubles are
 * written with %.17g (exact round trip); NaN (empty class) becomes null.
 */
#include "io/vmodel_json.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_object *jnum(double v)
{
    if (!isfinite(v))
        return NULL; /* json null */
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", v);
    return json_object_new_double_s(v, buf);
}

static json_object *model_json(const gk_vmodel *m)
{
    json_object *arr = json_object_new_array();
    for (int i = 0; arr && i < m->n; i++) {
        const gk_vm_structure *s = &m->s[i];
        json_object *o = json_object_new_object();
        json_object_object_add(o, "model", json_object_new_string(gk_vm_type_name(s->type)));
        json_object_object_add(o, "psill", jnum(s->psill));
        json_object_object_add(o, "range", jnum(s->range));
        if (s->type == GK_VM_MAT || s->type == GK_VM_STE || s->type == GK_VM_EXC)
            json_object_object_add(o, "kappa", jnum(s->kappa));
        if (s->anis_ratio != 1.0) {
            json_object *an = json_object_new_array();
            json_object_array_add(an, jnum(s->anis_angle));
            json_object_array_add(an, jnum(s->anis_ratio));
            json_object_object_add(o, "anis", an);
        }
        json_object_array_add(arr, o);
    }
    return arr;
}

void gk_vmodel_names(const gk_vmodel *m, char *buf, size_t room)
{
    size_t used = 0;
    if (room)
        buf[0] = '\0';
    for (int i = 0; i < m->n && used < room; i++) {
        int w =
            snprintf(buf + used, room - used, "%s%s", i ? "+" : "", gk_vm_type_name(m->s[i].type));
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* The kappa of the model's Mat or Ste structures (the one a kappa search set). */
static double searched_kappa(const gk_vmodel *m)
{
    for (int i = 0; i < m->n; i++)
        if (m->s[i].type == GK_VM_MAT || m->s[i].type == GK_VM_STE)
            return m->s[i].kappa;
    return NAN;
}

static json_object *fit_json(const gk_vmodel *m, const gk_vgm_report *rep)
{
    const gk_fit_result *fit = rep->fit;
    json_object *f = json_object_new_object();
    json_object_object_add(f, "sserr", jnum(fit->sserr));
    json_object_object_add(f, "iterations", json_object_new_int(fit->iterations));
    json_object_object_add(f, "converged", json_object_new_boolean(fit->converged));
    if (rep->nkappa > 0 && m && isfinite(searched_kappa(m))) {
        json_object_object_add(f, "kappa", jnum(searched_kappa(m)));
        json_object_object_add(f, "kappa_values", json_object_new_int(rep->nkappa));
    }
    if (rep->ncand > 0) {
        json_object *arr = json_object_new_array();
        for (int c = 0; c < rep->ncand; c++) {
            json_object *o = json_object_new_object();
            char name[128];
            gk_vmodel_names(&rep->cand[c], name, sizeof name);
            json_object_object_add(o, "name", json_object_new_string(name));
            json_object_object_add(o, "sserr", jnum(rep->cand_fit[c].sserr));
            json_object_object_add(o, "kept", json_object_new_boolean(c == rep->kept));
            if (isfinite(rep->cand_fit[c].sserr))
                json_object_object_add(o, "model", model_json(&rep->cand[c]));
            json_object_array_add(arr, o);
        }
        json_object_object_add(f, "candidates", arr);
    }
    return f;
}

char *gk_vgm_to_json(const gk_vgm *v, const gk_vmodel *m, const gk_vgm_report *rep)
{
    json_object *root = json_object_new_object();
    if (!root)
        return NULL;
    if (rep && (rep->drift || rep->n_rasters > 0)) {
        json_object *t = json_object_new_object();
        json_object_object_add(t, "drift",
                               json_object_new_string(rep->drift ? rep->drift : "none"));
        json_object *arr = json_object_new_array();
        for (int k = 0; k < rep->n_rasters; k++)
            json_object_array_add(arr, json_object_new_string(rep->rasters[k]));
        json_object_object_add(t, "drift_rasters", arr);
        json_object_object_add(root, "trend", t);
    }
    if (v) {
        json_object_object_add(root, "cutoff", jnum(v->cutoff));
        json_object_object_add(root, "width", jnum(v->width));
        json_object *arr = json_object_new_array();
        for (int a = 0; a < v->ndir; a++) {
            for (int k = 0; k < v->nlags; k++) {
                size_t q = (size_t)a * v->nlags + k;
                json_object *o = json_object_new_object();
                json_object_object_add(o, "np", json_object_new_int64((int64_t)v->np[q]));
                json_object_object_add(o, "dist", jnum(v->dist[q]));
                json_object_object_add(o, "gamma", jnum(v->gamma[q]));
                if (v->azimuth && isfinite(v->azimuth[a]))
                    json_object_object_add(o, "dir.hor", jnum(v->azimuth[a]));
                json_object_array_add(arr, o);
            }
        }
        json_object_object_add(root, "experimental", arr);
    }
    if (m)
        json_object_object_add(root, "model", model_json(m));
    if (rep && rep->fit)
        json_object_object_add(root, "fit", fit_json(m, rep));
    const char *s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                             JSON_C_TO_STRING_NOSLASHESCAPE);
    char *ret = s ? strdup(s) : NULL;
    json_object_put(root);
    return ret;
}

/* A number member; *v untouched when absent; error when present but not a number. */
static int get_num(gk_context *ctx, const char *path, int idx, json_object *o, const char *key,
                   double *v, int *present)
{
    json_object *m;
    if (present)
        *present = 0;
    if (!json_object_object_get_ex(o, key, &m) || json_object_is_type(m, json_type_null))
        return GK_OK;
    if (!json_object_is_type(m, json_type_double) && !json_object_is_type(m, json_type_int))
        return gk_error(ctx, GK_ERR_ARG, "%s: model entry %d: \"%s\" is not a number", path,
                        idx + 1, key);
    *v = json_object_get_double(m);
    if (present)
        *present = 1;
    return GK_OK;
}

static int parse_structure(gk_context *ctx, const char *path, int idx, json_object *o,
                           gk_vm_structure *s)
{
    if (!json_object_is_type(o, json_type_object))
        return gk_error(ctx, GK_ERR_ARG, "%s: model entry %d is not an object", path, idx + 1);
    json_object *name;
    if (!json_object_object_get_ex(o, "model", &name) ||
        !json_object_is_type(name, json_type_string))
        return gk_error(ctx, GK_ERR_ARG, "%s: model entry %d has no \"model\" name", path, idx + 1);
    const char *nm = json_object_get_string(name);
    if (gk_vm_type_from_name(nm, &s->type) != GK_OK)
        return gk_error(ctx, GK_ERR_ARG,
                        "%s: model entry %d: unknown variogram model '%s' (use Nug, Sph, Exp, "
                        "Gau, Mat, Ste, Exc, Cir, Pen, Lin, Pow, Hol)",
                        path, idx + 1, nm);
    s->psill = NAN;
    s->range = s->type == GK_VM_NUG ? 0.0 : NAN;
    s->kappa = 0.5; /* gstat's vgm() default */
    s->anis_angle = 0.0;
    s->anis_ratio = 1.0;
    int have_psill, have_range;
    if (get_num(ctx, path, idx, o, "psill", &s->psill, &have_psill) ||
        get_num(ctx, path, idx, o, "range", &s->range, &have_range) ||
        get_num(ctx, path, idx, o, "kappa", &s->kappa, NULL) ||
        get_num(ctx, path, idx, o, "ang1", &s->anis_angle, NULL) || /* gstat's columns */
        get_num(ctx, path, idx, o, "anis1", &s->anis_ratio, NULL))
        return gk_errno(ctx);
    if (!have_psill)
        return gk_error(ctx, GK_ERR_ARG, "%s: model entry %d (%s) has no \"psill\"", path, idx + 1,
                        nm);
    if (!have_range && s->type != GK_VM_NUG)
        return gk_error(ctx, GK_ERR_ARG, "%s: model entry %d (%s) has no \"range\"", path, idx + 1,
                        nm);
    json_object *an;
    if (json_object_object_get_ex(o, "anis", &an) && !json_object_is_type(an, json_type_null)) {
        if (!json_object_is_type(an, json_type_array) || json_object_array_length(an) != 2)
            return gk_error(ctx, GK_ERR_ARG, "%s: model entry %d: \"anis\" must be [angle, ratio]",
                            path, idx + 1);
        for (int k = 0; k < 2; k++) {
            json_object *e = json_object_array_get_idx(an, k);
            if (!json_object_is_type(e, json_type_double) && !json_object_is_type(e, json_type_int))
                return gk_error(ctx, GK_ERR_ARG,
                                "%s: model entry %d: \"anis\" must hold two numbers", path,
                                idx + 1);
            if (k == 0)
                s->anis_angle = json_object_get_double(e);
            else
                s->anis_ratio = json_object_get_double(e);
        }
    }
    return GK_OK;
}

int gk_vmodel_read_json(gk_context *ctx, const char *path, gk_vmodel *m)
{
    memset(m, 0, sizeof *m);
    json_object *root = json_object_from_file(path);
    if (!root) {
        FILE *f = fopen(path, "rb");
        if (!f)
            return gk_error(ctx, GK_ERR_IO, "%s: cannot open the variogram file: %s", path,
                            strerror(errno));
        fclose(f);
        char why[256];
        snprintf(why, sizeof why, "%s",
                 json_util_get_last_err() ? json_util_get_last_err() : "parse error");
        size_t L = strlen(why);
        while (L > 0 && (why[L - 1] == '\n' || why[L - 1] == ' '))
            why[--L] = '\0';
        return gk_error(ctx, GK_ERR_ARG, "%s: not valid JSON (%s)", path, why);
    }
    json_object *arr = root;
    if (json_object_is_type(root, json_type_object)) {
        if (!json_object_object_get_ex(root, "model", &arr)) {
            json_object_put(root);
            return gk_error(ctx, GK_ERR_ARG, "%s: no \"model\" in the variogram file", path);
        }
    }
    int rc = GK_OK;
    if (!json_object_is_type(arr, json_type_array)) {
        rc = gk_error(ctx, GK_ERR_ARG, "%s: \"model\" must be an array of structures", path);
    } else {
        size_t n = json_object_array_length(arr);
        if (n == 0)
            rc = gk_error(ctx, GK_ERR_ARG, "%s: the model has no structure", path);
        else if (n > GK_VM_MAX_STRUCTURES)
            rc = gk_error(ctx, GK_ERR_ARG, "%s: the model has %zu structures (at most %d)", path, n,
                          GK_VM_MAX_STRUCTURES);
        for (size_t i = 0; rc == GK_OK && i < n; i++)
            rc = parse_structure(ctx, path, (int)i, json_object_array_get_idx(arr, i), &m->s[i]);
        if (rc == GK_OK)
            m->n = (int)n;
    }
    json_object_put(root);
    if (rc == GK_OK && (rc = gk_vmodel_check(ctx, m)) != GK_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", gk_errmsg(ctx));
        rc = gk_error(ctx, rc, "%s: %s", path, msg);
    }
    return rc;
}
