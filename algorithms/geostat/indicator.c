/* SPDX-License-Identifier: MIT */
/*
 * geostat/indicator.c - indicator kriging (docs/simulation.md, 'Indicator
 * kriging'): -a kriging:...:indicator=c1,c2,... writes, for each cut-off c,
 * the probability that z < c, as gstat's krige(I(z < c) ~ 1, ...) kriges
 * the indicator, with the order relations corrected as GSLIB's ordrel does
 * (order=cdf, the default; clip; none).
 *
 * Each cut-off is an ordinary kriging job of its own on the indicators
 * (with its own model: models=, or model= for all, or model=auto fitted on
 * each cut-off's indicators); a tile kriges every cut-off with kriging's own
 * tile function, or the GPU's kriging where --device cuda asked for it
 * (auto keeps the CPU's bits), and corrects the nodes.
 */
#include "kriging.h"
#include "core/device.h"
#include "core/method.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- keys ------------------------------------------------------------------ */

static int parse_cuts(gk_context *ctx, const char *val, gk_ik_params *ik)
{
    ik->ncut = 0;
    const char *p = val;
    while (*p) {
        if (ik->ncut == GK_IK_MAX_CUTS)
            return gk_error(ctx, GK_ERR_ARG, "-a kriging: indicator= takes at most %d cut-offs",
                            GK_IK_MAX_CUTS);
        char *end;
        errno = 0;
        const double v = strtod(p, &end);
        if (end == p || errno || !isfinite(v) || (*end && *end != ','))
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: indicator=%s: cut-offs are finite numbers separated by "
                            "commas",
                            val);
        if (ik->ncut && !(v > ik->cut[ik->ncut - 1]))
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: indicator=%s: the cut-offs must increase (%g after %g)",
                            val, v, ik->cut[ik->ncut - 1]);
        ik->cut[ik->ncut++] = v;
        p = *end ? end + 1 : end;
        if (*end && !*p)
            return gk_error(ctx, GK_ERR_ARG, "-a kriging: indicator=%s ends with a comma", val);
    }
    if (!ik->ncut)
        return gk_error(ctx, GK_ERR_ARG, "-a kriging: indicator= names no cut-off");
    return GK_OK;
}

/* models=M1;M2;... in the compact form, one per cut-off */
static int parse_models(gk_context *ctx, const char *val, gk_ik_params *ik)
{
    char buf[2048];
    if (strlen(val) >= sizeof buf)
        return gk_error(ctx, GK_ERR_ARG, "-a kriging: models= is too long");
    strcpy(buf, val);
    ik->nmodels = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
        if (ik->nmodels == GK_IK_MAX_CUTS)
            return gk_error(ctx, GK_ERR_ARG, "-a kriging: models= takes at most %d models",
                            GK_IK_MAX_CUTS);
        if (gk_vmodel_parse_compact(ctx, t, &ik->models[ik->nmodels]) ||
            gk_vmodel_check(ctx, &ik->models[ik->nmodels]))
            return gk_error(ctx, GK_ERR_ARG, "-a kriging: models=, model %d: %s", ik->nmodels + 1,
                            gk_errmsg(ctx));
        ik->nmodels++;
    }
    return GK_OK;
}

int gk_ik_key(gk_context *ctx, const char *key, const char *val, gk_ik_params *ik)
{
    if (!strcasecmp(key, "indicator"))
        return parse_cuts(ctx, val, ik);
    if (!strcasecmp(key, "models"))
        return parse_models(ctx, val, ik);
    if (!strcasecmp(key, "order")) {
        ik->have_order = 1;
        if (!strcasecmp(val, "cdf"))
            ik->order = GK_IK_ORDER_CDF;
        else if (!strcasecmp(val, "clip"))
            ik->order = GK_IK_ORDER_CLIP;
        else if (!strcasecmp(val, "none"))
            ik->order = GK_IK_ORDER_NONE;
        else
            return gk_error(ctx, GK_ERR_ARG, "-a kriging: order=%s must be cdf, clip or none", val);
        return GK_OK;
    }
    return -1;
}

int gk_ik_finish(gk_context *ctx, gk_algorithm *a)
{
    gk_kriging_params *k = gk_krige_params_of(a);
    gk_ik_params *ik = &k->ik;
    if (!ik->ncut) {
        if (ik->nmodels || ik->have_order)
            return gk_error(ctx, GK_ERR_ARG,
                            "-a kriging: models= and order= are indicator kriging's: give "
                            "indicator=c1,c2,...");
        if (a->kind == GK_ALG_INDICATOR)
            return gk_error(ctx, GK_ERR_ARG,
                            "-a indicator: give the cut-offs, indicator=c1,c2,...");
        return GK_OK;
    }
    /* with nsim=: sequential indicator simulation (simulation.c) */
    const int sim = k->sim.nsim || k->sim.nstat || a->kind == GK_ALG_SIMULATION;
    if (k->type != GK_KRIGE_ORDINARY)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: indicator kriging is ordinary kriging of the indicators "
                        "(gstat's krige(I(z < c) ~ 1)); type= and drifts are not taken");
    if (k->block_w > 0)
        return gk_error(ctx, GK_ERR_ARG, "-a kriging: indicator kriging takes no block=");
    if (ik->nmodels && ik->nmodels != ik->ncut)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: models= gives %d models for %d cut-offs (one each)",
                        ik->nmodels, ik->ncut);
    if (sim && ik->have_order && ik->order != GK_IK_ORDER_CDF)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a kriging: indicator simulation draws from a distribution: order=cdf");
    if (!sim)
        a->kind = GK_ALG_INDICATOR;
    k->variance = 0;
    return GK_OK;
}

void gk_ik_canonical(const gk_ik_params *ik, gk_strbuf *sb)
{
    gk_strbuf_add(sb, ":indicator=");
    for (int i = 0; i < ik->ncut; i++)
        gk_strbuf_add(sb, "%s%.17g", i ? "," : "", ik->cut[i]);
    static const char *orders[] = {"cdf", "clip", "none"};
    gk_strbuf_add(sb, ":order=%s", orders[ik->order]);
    if (ik->nmodels) {
        gk_strbuf_add(sb, ":models=");
        for (int i = 0; i < ik->nmodels; i++) {
            char buf[1024];
            if (gk_vmodel_format(&ik->models[i], buf, sizeof buf) != GK_OK)
                sb->full = 1;
            else
                gk_strbuf_add(sb, "%s%s", i ? ";" : "", buf);
        }
    }
}

/* ---- the method ---------------------------------------------------------------- */

typedef struct {
    int n;
    gk_points *pts[GK_IK_MAX_CUTS]; /* the indicators */
    gk_job *job[GK_IK_MAX_CUTS];    /* a kriging job each */
} ik_state;

static void ik_release(gk_job *job)
{
    ik_state *st = job->state;
    if (st) {
        for (int i = 0; i < st->n; i++) {
            gk_job_free(st->job[i]);
            gk_points_free(st->pts[i]);
        }
        free(st);
    }
    job->state = NULL;
}

static int ik_prepare(gk_job *job)
{
    const gk_kriging_params *kp = gk_krige_params_of(&job->alg);
    const gk_ik_params *ik = &kp->ik;
    const gk_points *p = job->pts;
    ik_state *st = calloc(1, sizeof *st);
    if (!st)
        return gk_error(job->ctx, GK_ERR_NOMEM, "indicator kriging: out of memory");
    job->state = st;
    job->nbands = ik->ncut;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < p->n; i++)
        lo = fmin(lo, p->z[i]), hi = fmax(hi, p->z[i]);
    int code; /* the cut-offs' kriging on the GPU when asked for by name */
    if (gk_device_requested(job->ctx, &code))
        return gk_errno(job->ctx);
    for (int c = 0; c < ik->ncut; c++) {
        const double cut = ik->cut[c];
        if (!(cut > lo))
            return gk_error(job->ctx, GK_ERR_ARG,
                            "indicator kriging: no value is below the cut-off %g (the smallest "
                            "is %g): its indicator is 0 everywhere",
                            cut, lo);
        if (!(cut <= hi))
            return gk_error(job->ctx, GK_ERR_ARG,
                            "indicator kriging: every value is below the cut-off %g (the "
                            "largest is %g): its indicator is 1 everywhere",
                            cut, hi);
        gk_points *q = gk_points_new(job->ctx);
        st->pts[st->n] = q;
        double *x, *y, *z;
        if (!q || gk_points_extend(q, p->n, &x, &y, &z))
            return gk_error(job->ctx, GK_ERR_NOMEM, "indicator kriging: out of memory");
        memcpy(x, p->x, p->n * sizeof *x);
        memcpy(y, p->y, p->n * sizeof *y);
        for (size_t i = 0; i < p->n; i++)
            z[i] = p->z[i] < cut ? 1.0 : 0.0;
        /* kriging of the indicators, with the cut-off's model */
        gk_algorithm a = job->alg;
        a.kind = GK_ALG_KRIGING;
        gk_kriging_params *k = gk_krige_params_of(&a);
        memset(&k->ik, 0, sizeof k->ik);
        k->variance = 0;
        a.nodata = NAN; /* a node kriging cannot estimate, apart from a probability */
        if (ik->nmodels) {
            k->model = ik->models[c];
            k->model_auto = 0;
            k->variogram_file[0] = '\0';
        }
        st->job[st->n] =
            code >= GK_DEV_CUDA ? gk_job_new(job->ctx, q, &a) : gk_job_new_cpu(job->ctx, q, &a);
        st->n++;
        if (!st->job[st->n - 1])
            return gk_error(job->ctx, gk_errno(job->ctx), "indicator kriging, cut-off %g: %s", cut,
                            gk_errmsg(job->ctx));
    }
    return GK_OK;
}

/* GSLIB's ordrel for a cdf: each probability clipped to [0, 1], then the
 * mean of an upward pass (non-decreasing) and a downward one. */
static void order_cdf(double *p, int n, size_t stride, double *up)
{
    for (int k = 0; k < n; k++) {
        double v = p[k * stride];
        v = v < 0 ? 0 : v > 1 ? 1 : v;
        up[k] = k && up[k - 1] > v ? up[k - 1] : v;
        p[k * stride] = v;
    }
    double down = 1.0;
    for (int k = n - 1; k >= 0; k--) {
        const double v = p[k * stride];
        down = k == n - 1 ? v : (down < v ? down : v);
        p[k * stride] = 0.5 * (up[k] + down);
    }
}

static uint64_t ik_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    const ik_state *st = job->state;
    const gk_ik_params *ik = &gk_krige_params_of(&job->alg)->ik;
    const size_t T = (size_t)t->w * t->h;
    const double nodata = job->alg.nodata;
    uint64_t nod = 0;
    for (int c = 0; c < st->n; c++) {
        gk_job *kc = st->job[c];
        uint64_t r = GK_DEVICE_FAILED;
        int is_float;
        if (kc->gpu)
            r = gk_device_tile(kc, t, out + (size_t)c * T, 0, &is_float);
        if (r >= GK_DEVICE_FAILED) { /* the CPU's, or a GPU that failed: the cores */
            if (kc->gpu && gk_device_cpu_index(kc))
                return UINT64_MAX;
            r = gk_kriging_tile(kc, t, out + (size_t)c * T, s);
        }
        if (r == UINT64_MAX)
            return UINT64_MAX;
    }
    double up[GK_IK_MAX_CUTS];
    for (size_t q = 0; q < T; q++) {
        int ok = 1;
        for (int c = 0; c < st->n; c++)
            ok &= isfinite(out[(size_t)c * T + q]) != 0;
        if (!ok) {
            for (int c = 0; c < st->n; c++)
                out[(size_t)c * T + q] = nodata;
            nod++;
            continue;
        }
        if (ik->order == GK_IK_ORDER_CDF) {
            order_cdf(out + q, st->n, T, up);
        } else if (ik->order == GK_IK_ORDER_CLIP) {
            for (int c = 0; c < st->n; c++) {
                double *v = out + (size_t)c * T + q;
                *v = *v < 0 ? 0 : *v > 1 ? 1 : *v;
            }
        }
    }
    return nod;
}

static gk_cv_method ik_cv(const gk_algorithm *a, size_t ntrain, const char **why,
                          const char **avoid)
{
    (void)a, (void)ntrain;
    *why = "gives probabilities, not predictions of z";
    *avoid = "cross-validate the kriging of z (the same keys without indicator=)";
    return GK_CV_NONE;
}

static int ik_bands(const gk_algorithm *a) { return gk_krige_params_of(a)->ik.ncut; }

static const char *ik_band_name(const gk_algorithm *a, int i)
{
    static _Thread_local char name[64];
    snprintf(name, sizeof name, "P(z<%g)", gk_krige_params_of(a)->ik.cut[i]);
    return name;
}

const gk_method gk_method_indicator = {
    .name = "indicator",
    .kind = GK_ALG_INDICATOR,
    .summary = "indicator kriging (kriging with indicator=c1,c2,...): the probability that z is "
               "below each cut-off, as bands, order relations corrected",
    .parse = gk_kriging_parse,
    .own_keys = "indicator=c1,c2,..., models=M1;M2;..., order=cdf|clip|none, model=Sph|Exp|"
                "Gau|...|auto, psill, range, nugget, kappa, anis_angle, anis_ratio, "
                "variogram=FILE.json, max_points, min_points, radius, max_points_per_quadrant, "
                "nodata",
    .prepare = ik_prepare,
    .release = ik_release,
    .cpu_tile = ik_tile,
    .cv_way = ik_cv,
    .bands = ik_bands,
    .band_name = ik_band_name,
};
