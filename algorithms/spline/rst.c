/* SPDX-License-Identifier: MIT */
/*
 * spline/rst.c - -a rst: GRASS's regularized spline with tension
 * (v.surf.rst, Mitasova & Mitas 1993) as v.surf.rst computes it when the
 * whole region is one segment: one system of every point
 * (docs/dev/v_surf_rst.md, sections 2, 3, 5 and 6).
 *
 * z is multiplied by zscale; points within dmin of an earlier kept point
 * are dropped (the first kept; coincident points always); distances are
 * measured in units of dnorm = sqrt(dx dy npmin / n) (dx, dy the box of
 * every point, n the kept ones), so that npmin changes the surface as in
 * GRASS; the system is the kept points' RST function values (rbf_system.h's
 * GK_RBF_RST) with -smooth on the diagonal, bordered by a constant, for z
 * less its minimum, which each node adds back. rbf_global.c solves and
 * evaluates it on the CPU, gpu/rbf.cu's global op (cuSOLVER) on the GPU.
 *
 * derivatives= adds v.surf.rst's slope, aspect and curvatures as bands,
 * from the same sums' derivatives with GRASS's conversions (section 7).
 *
 * More than segmax points: v.surf.rst's quadtree segments, each fitted on a
 * window of about npmin points (rst_segments.c), made per grid; a node's
 * value and derivatives are its segment's. One system holds at most
 * GK_RST_MAX points.
 */
#include "core/method.h"
#include "rbf.h"
#include "rst_segments.h"

#include <pthread.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* the one system's points at most (an N^2 matrix, N^3 work) */
#define GK_RST_MAX 20000

/* v.surf.rst's derivative outputs, in their band order */
enum { RST_SLOPE, RST_ASPECT, RST_PCURV, RST_TCURV, RST_MCURV, RST_N_DER };
static const char *const der_name[RST_N_DER] = {"slope", "aspect", "pcurvature", "tcurvature",
                                                "mcurvature"};

typedef struct {
    double tension, smooth, dmin, zscale;
    int npmin, segmax;
    unsigned der; /* 1 << RST_*: the derivative bands asked for */
    int partials; /* v.surf.rst -d: those bands hold the raw partial derivatives */
} rst_params;
GK_ALG_OWN_FITS(rst_params);

static rst_params *params_of(gk_algorithm *a) { return GK_ALG_OWN(rst_params, a); }
static const rst_params *cparams_of(const gk_algorithm *a)
{
    return GK_ALG_OWN(const rst_params, a);
}

/* ---- parameters -------------------------------------------------------- */

static int key(gk_context *ctx, const char *spec, const char *k, const char *val, gk_algorithm *a)
{
    rst_params *p = params_of(a);
    double d;
    if (!strcasecmp(k, "nodata")) {
        a->nodata_given = 1;
        return gk_param_finite(ctx, "rst", k, val, &a->nodata);
    }
    if (!strcasecmp(k, "derivatives")) { /* a comma list of der_name */
        p->der = 0;
        for (const char *v = val; *v;) {
            const char *e = strchr(v, ',');
            const size_t len = e ? (size_t)(e - v) : strlen(v);
            int d = 0;
            while (d < RST_N_DER &&
                   !(strlen(der_name[d]) == len && !strncasecmp(v, der_name[d], len)))
                d++;
            if (d == RST_N_DER)
                return gk_error(ctx, GK_ERR_ARG,
                                "-a rst: derivatives=%s: each must be slope, aspect, pcurvature, "
                                "tcurvature or mcurvature",
                                val);
            p->der |= 1u << d;
            v += len + (e != NULL);
        }
        return GK_OK;
    }
    if (!strcasecmp(k, "partials")) { /* v.surf.rst's -d */
        if (!strcasecmp(val, "yes") || !strcmp(val, "1"))
            p->partials = 1;
        else if (!strcasecmp(val, "no") || !strcmp(val, "0"))
            p->partials = 0;
        else
            return gk_error(ctx, GK_ERR_ARG, "-a rst: partials=%s must be yes or no", val);
        return GK_OK;
    }
    if (gk_param_finite(ctx, "rst", k, val, &d))
        return GK_ERR_ARG;
    if (!strcasecmp(k, "tension")) {
        if (!(d > 0))
            return gk_error(ctx, GK_ERR_ARG, "-a rst: tension=%s must be > 0", val);
        p->tension = d;
    } else if (!strcasecmp(k, "smooth")) {
        if (!(d >= 0))
            return gk_error(ctx, GK_ERR_ARG, "-a rst: smooth=%s must be >= 0", val);
        p->smooth = d;
    } else if (!strcasecmp(k, "npmin")) {
        if (gk_param_count(ctx, "rst", k, d, &p->npmin))
            return GK_ERR_ARG;
        if (p->npmin < 1)
            return gk_error(ctx, GK_ERR_ARG, "-a rst: npmin=%s must be at least 1", val);
    } else if (!strcasecmp(k, "segmax")) {
        if (gk_param_count(ctx, "rst", k, d, &p->segmax))
            return GK_ERR_ARG;
        if (p->segmax < 1)
            return gk_error(ctx, GK_ERR_ARG, "-a rst: segmax=%s must be at least 1", val);
    } else if (!strcasecmp(k, "dmin")) {
        if (!(d >= 0))
            return gk_error(ctx, GK_ERR_ARG, "-a rst: dmin=%s must be >= 0", val);
        p->dmin = d;
    } else if (!strcasecmp(k, "zscale")) {
        if (d == 0)
            return gk_error(ctx, GK_ERR_ARG, "-a rst: zscale=%s must not be 0", val);
        p->zscale = d;
    } else {
        return gk_error(ctx, GK_ERR_ARG,
                        "-a %s: algorithm rst has no parameter '%s' (tension, smooth, npmin, "
                        "segmax, dmin, zscale, derivatives, partials, nodata)",
                        spec, k);
    }
    return GK_OK;
}

static void canonical(gk_algorithm *a)
{
    const rst_params *p = cparams_of(a);
    gk_strbuf sb = {a->canonical, sizeof a->canonical, 0};
    gk_strbuf_add(&sb, "rst:tension=%.17g:smooth=%.17g:npmin=%d:segmax=%d:dmin=%.17g:zscale=%.17g",
                  p->tension, p->smooth, p->npmin, p->segmax, p->dmin, p->zscale);
    for (int d = 0, first = 1; d < RST_N_DER; d++)
        if (p->der & (1u << d)) {
            gk_strbuf_add(&sb, "%s%s", first ? ":derivatives=" : ",", der_name[d]);
            first = 0;
        }
    if (p->partials)
        gk_strbuf_add(&sb, ":partials=yes");
    gk_strbuf_add(&sb, ":nodata=%.17g", a->nodata);
}

static int rst_parse(gk_context *ctx, const char *spec, char *save, gk_algorithm *a)
{
    rst_params *p = params_of(a);
    memset(p, 0, sizeof *p);
    p->tension = 40.0; /* v.surf.rst's defaults */
    p->smooth = 0.1;
    p->npmin = 300;
    p->segmax = 40;
    p->zscale = 1.0;
    if (gk_param_pairs(ctx, spec, save, a, key))
        return GK_ERR_ARG;
    if (p->partials && !p->der)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a %s: partials=yes says what the derivative bands hold; name them with "
                        "derivatives= (slope, aspect, pcurvature, tcurvature, mcurvature)",
                        spec);
    canonical(a);
    return GK_OK;
}

/* ---- the method ---------------------------------------------------------- */

/* The kept points, their system's solution, and what a node adds back. */
typedef struct {
    gk_rbf_spec sp;
    double *x, *y, *z; /* the kept points, z scaled, less zmin */
    double zmin;
    double dnorm, fi; /* the derivatives' units: GRASS's dnorm and tension */
    int partials;     /* the derivative bands hold the raw partial derivatives */
    gk_rbf_global g;
    size_t dropped;
    /* more than segmax points: v.surf.rst's segments, made for a grid on its
     * first tile (the quadtree follows the grid's cells) */
    int segmented;
    pthread_mutex_t mu;
    gk_rst_segments **seg; /* one a grid asked for (rst_grid) */
    int nseg;
} rst_state;

static void rst_release(gk_job *job)
{
    rst_state *s = job->state;
    if (s) {
        free(s->x), free(s->y), free(s->z), free(s->g.coef);
        for (int k = 0; k < s->nseg; k++)
            gk_rst_segments_free(s->seg[k]);
        free(s->seg);
        if (s->segmented)
            pthread_mutex_destroy(&s->mu);
        free(s);
    }
    job->state = NULL;
}

/* GRASS's thinning of one segment: each point against every point kept
 * before it, dropped within dmin (<=: coincident ones always). n keep[]
 * flags; the number kept. */
static size_t thin(const gk_points *pts, double dmin, unsigned char *keep)
{
    const double d2 = dmin * dmin;
    size_t kept = 0;
    for (size_t i = 0; i < pts->n; i++) {
        keep[i] = 1;
        for (size_t j = 0; j < i && keep[i]; j++) {
            if (!keep[j])
                continue;
            const double dx = pts->x[i] - pts->x[j], dy = pts->y[i] - pts->y[j];
            if (dx * dx + dy * dy <= d2)
                keep[i] = 0;
        }
        kept += keep[i];
    }
    return kept;
}

/* Before the device is chosen: the kept points, dnorm, zmin and the spec,
 * which both devices solve. */
static int rst_build(gk_job *job)
{
    const rst_params *p = cparams_of(&job->alg);
    const gk_points *pts = job->pts;
    const size_t n = pts->n;
    if (n > (size_t)p->segmax) { /* v.surf.rst's segments, per grid */
        rst_state *s = calloc(1, sizeof *s);
        if (!s || pthread_mutex_init(&s->mu, NULL)) {
            free(s);
            return gk_error(job->ctx, GK_ERR_NOMEM, "rst: out of memory");
        }
        s->segmented = 1;
        s->fi = p->tension;
        s->partials = p->partials;
        job->state = s;
        job->nbands = 1 + __builtin_popcount(p->der);
        return GK_OK;
    }
    if (n > GK_RST_MAX)
        return gk_error(job->ctx, GK_ERR_ARG,
                        "rst: %zu points are too many for one system (at most %d; give "
                        "segmax below it for v.surf.rst's segments)",
                        n, GK_RST_MAX);
    rst_state *s = calloc(1, sizeof *s);
    unsigned char *keep = malloc(n ? n : 1);
    if (!s || !keep) {
        free(s), free(keep);
        return gk_error(job->ctx, GK_ERR_NOMEM, "rst: out of memory");
    }
    job->state = s;
    job->nbands = 1 + __builtin_popcount(p->der);
    const size_t m = thin(pts, p->dmin, keep);
    s->dropped = n - m;
    s->x = malloc((m ? m : 1) * sizeof *s->x);
    s->y = malloc((m ? m : 1) * sizeof *s->y);
    s->z = malloc((m ? m : 1) * sizeof *s->z);
    if (!s->x || !s->y || !s->z) {
        free(keep);
        return gk_error(job->ctx, GK_ERR_NOMEM, "rst: out of memory");
    }
    /* the box and zmin of every point, dropped ones too, as GRASS takes them */
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY, zmin = INFINITY;
    for (size_t i = 0; i < n; i++) {
        x0 = fmin(x0, pts->x[i]), x1 = fmax(x1, pts->x[i]);
        y0 = fmin(y0, pts->y[i]), y1 = fmax(y1, pts->y[i]);
        zmin = fmin(zmin, pts->z[i] * p->zscale);
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (keep[i]) {
            s->x[k] = pts->x[i], s->y[k] = pts->y[i];
            s->z[k++] = pts->z[i] * p->zscale - zmin;
        }
    free(keep);
    s->zmin = zmin;
    s->g.n = (int)m;
    if (!m)
        return GK_OK; /* every node nodata */
    const double dnorm = sqrt(((x1 - x0) * (y1 - y0) * p->npmin) / (double)m);
    if (!(dnorm > 0) || !isfinite(dnorm))
        return gk_error(job->ctx, GK_ERR_ARG,
                        "rst: the points' box has no area (all on one line of x or y): its "
                        "distances cannot be normalised");
    /* x = (tension d / (2 dnorm))^2 = (eps d)^2; GRASS's -smooth on the diagonal */
    s->sp = (gk_rbf_spec){GK_RBF_RST, 0, p->tension / (2.0 * dnorm), -p->smooth};
    s->dnorm = dnorm, s->fi = p->tension, s->partials = p->partials;
    if (s->dropped)
        snprintf(job->warning, sizeof job->warning,
                 "rst: %zu of %zu points dropped within dmin=%.15g of an earlier point (as "
                 "v.surf.rst's \"too dense\")",
                 s->dropped, n, p->dmin);
    return GK_OK;
}

/* The system solved on the CPU's threads, once (prepare, or the CPU's share
 * of a GPU job; the caller serialises). */
static int rst_solve(gk_job *job)
{
    rst_state *s = job->state;
    if (s->segmented || s->g.coef || s->g.n <= 0)
        return GK_OK;
    const int rc =
        gk_rbf_global_solve(&s->sp, s->x, s->y, s->z, s->g.n, gk_context_threads(job->ctx), &s->g);
    if (rc < 0)
        return gk_error(job->ctx, GK_ERR_NOMEM, "rst: out of memory for the system of %d points",
                        s->g.n);
    if (rc)
        return gk_error(job->ctx, GK_ERR_ARG, "rst: the system of the %d points is singular",
                        s->g.n);
    return GK_OK;
}

static int rst_prepare(gk_job *job) { return job->gpu ? GK_OK : rst_solve(job); }

/* On the GPU: rbf's global op (gpu/rbf.cu) with the kept points and the RST
 * function, zmin added to each value. */
static const char *rst_gpu(const gk_job *job, gk_gpu_job_desc *d)
{
    const rst_state *s = job->state;
    if (s && s->segmented) /* no tile op: rst_segments.c's one-shot call, --device cuda only */
        return "v.surf.rst's segments: the CPU's under auto (GRASS's bits); --device cuda takes "
               "them to the GPU";
    if (!s || s->g.n <= 0)
        return "no point to solve for";
    if (cparams_of(&job->alg)->der)
        return "its derivatives are computed on the CPU";
    d->op = GK_GPU_RBF;
    d->n = (size_t)s->g.n;
    d->x = s->x, d->y = s->y, d->z = s->z;
    d->max_points = 0;
    d->p.rbf = (gk_gpu_rbf){s->sp.kernel, 0, s->sp.epsilon, s->sp.smoothing, s->zmin};
    return NULL;
}

/* One core: the factor once (2/3 N^3 multiply-adds at about 0.06 ns each on
 * the cores together) and a sum over the points a node. */
static double rst_cost(const gk_algorithm *a, double n, double area, double *setup_ns)
{
    (void)area;
    const rst_params *p = cparams_of(a);
    if (n > p->segmax) { /* about n / segmax leaves, each a system of up to 2 npmin */
        const double k = fmin(n, 2.0 * p->npmin);
        *setup_ns = n / p->segmax * 0.06 * (2.0 / 3.0) * k * k * k;
        return 30.0 * k;
    }
    *setup_ns = 0.06 * (2.0 / 3.0) * (n + 1) * (n + 1) * (n + 1);
    return 30.0 * n;
}

/* ---- derivatives (docs/dev/v_surf_rst.md, section 7) ------------------------ */

/* A node's sums of the RST function's derivatives (DX, DY, DXX, DYY, DXY:
 * GRASS's, in units of dnorm) over the one system's points. */
static void node_sums(const rst_state *s, double nx, double ny, double *D)
{
    D[0] = D[1] = D[2] = D[3] = D[4] = 0;
    for (int m = 0; m < s->g.n; m++) {
        const double dx = (nx - s->x[m]) / s->dnorm, dy = (ny - s->y[m]) / s->dnorm;
        gk_rst_sums_add(dx, dy, s->fi, s->g.coef[m], D);
    }
}

/* Slope, aspect and curvatures from the sums as v.surf.rst gives them: the
 * negated first and second derivatives rounded to Float32 first; *flat when
 * the gradient is at most 0.001 (there GRASS keeps the last mean curvature).
 * partials (v.surf.rst -d): those derivatives themselves, in the bands of
 * slope, aspect, pcurvature, tcurvature and mcurvature, never flat. */
static void secpar(const double *D, double fi, double dnorm, int partials, double *o, int *flat)
{
    const double t2 = (fi * fi / 4 * 2) / dnorm, td = t2 / dnorm;
    const double fx = (float)(-D[0] * t2), fy = (float)(-D[1] * t2), fxx = (float)(-D[2] * td),
                 fyy = (float)(-D[3] * td), fxy = (float)(-D[4] * td);
    if (partials) {
        o[RST_SLOPE] = fx, o[RST_ASPECT] = fy, o[RST_PCURV] = fxx;
        o[RST_TCURV] = fyy, o[RST_MCURV] = fxy;
        *flat = 0;
        return;
    }
    const double R2D = 57.29577951308232, grad2 = fx * fx + fy * fy, grad = sqrt(grad2);
    o[RST_SLOPE] = R2D * atan(grad);
    *flat = grad <= 0.001;
    if (*flat) {
        o[RST_ASPECT] = o[RST_PCURV] = o[RST_TCURV] = o[RST_MCURV] = 0.0;
        return;
    }
    double asp = fx == 0 ? (fy > 0 ? 90.0 : 270.0) : R2D * atan2(fy, fx);
    if (fx != 0 && asp <= 0)
        asp += 360.0;
    o[RST_ASPECT] = asp > 0 && asp < 0.5 ? 360.0 : asp;
    const double dn1 = sqrt(grad2 + 1), dxy2 = 2 * fxy * fx * fy;
    o[RST_PCURV] = (fxx * fx * fx + dxy2 + fyy * fy * fy) / (grad2 * dn1 * dn1 * dn1);
    o[RST_TCURV] = (fxx * fy * fy - dxy2 + fyy * fx * fx) / (grad2 * dn1);
    o[RST_MCURV] = 0.5 * ((1 + fy * fy) * fxx - dxy2 + (1 + fx * fx) * fyy) / ((grad2 + 1) * dn1);
}

/* Node (col, row)'s derivative outputs, from the one system (seg NULL) or
 * its segment's; *c0 the column where GRASS's secpar starts the node's row
 * (the grid's, or its segment's). 0, or -1 where the segment is singular. */
static int node_derivatives(const rst_state *s, const gk_rst_segments *seg, const gk_grid *g,
                            int col, int row, double *o, int *flat, int *c0)
{
    double D[5], dnorm = s->dnorm;
    if (seg) {
        if (gk_rst_segments_sums(seg, col, row, D, c0))
            return -1;
        dnorm = gk_rst_segments_dnorm(seg);
    } else {
        *c0 = 0;
        node_sums(s, gk_grid_node_x(g, col), gk_grid_node_y(g, row), D);
    }
    secpar(D, s->fi, dnorm, s->partials, o, flat);
    return 0;
}

/* The mean curvature a flat node takes: the nearest non-flat node's to its
 * left in the row from column c0 (0 if none), as GRASS carries it along a
 * row of a segment; found by looking left, so that a tile's start does not
 * change it. */
static double carried_mcurv(const rst_state *s, const gk_rst_segments *seg, const gk_grid *g,
                            int col, int row, int c0)
{
    double o[RST_N_DER];
    int flat = 1, c;
    for (int i = col - 1; i >= c0 && flat; i--)
        if (node_derivatives(s, seg, g, i, row, o, &flat, &c))
            return 0.0;
    return flat ? 0.0 : o[RST_MCURV];
}

/* Row j of a tile's derivative planes (the asked ones, in der_name's order);
 * nodata where the node's segment is singular. */
static void derivative_row(const rst_state *s, const gk_rst_segments *seg, unsigned der,
                           const gk_tile *t, int j, double nodata, double *out)
{
    const size_t T = (size_t)t->w * t->h;
    double mc = NAN; /* the segment row's last non-flat mean curvature, once known */
    int row_c0 = -1;
    for (int i = 0; i < t->w; i++) {
        double o[RST_N_DER];
        int flat, c0;
        if (node_derivatives(s, seg, t->g, t->x0 + i, t->y0 + j, o, &flat, &c0)) {
            for (int d = 0; d < RST_N_DER; d++)
                o[d] = nodata;
            flat = 0;
        } else if (c0 != row_c0) { /* a new segment: its row carries its own */
            row_c0 = c0;
            mc = NAN;
        }
        if (!flat)
            mc = o[RST_MCURV];
        else
            o[RST_MCURV] =
                isnan(mc) ? (mc = carried_mcurv(s, seg, t->g, t->x0 + i, t->y0 + j, c0)) : mc;
        int plane = 1;
        for (int d = 0; d < RST_N_DER; d++)
            if (der & (1u << d))
                out[plane++ * T + (size_t)j * t->w + i] = o[d];
    }
}

/* The segments of grid g, if made (rst_grid); NULL otherwise. */
static const gk_rst_segments *segments_of(rst_state *s, const gk_grid *g)
{
    pthread_mutex_lock(&s->mu);
    const gk_rst_segments *r = NULL;
    for (int k = 0; k < s->nseg && !r; k++)
        if (gk_rst_segments_of(s->seg[k], g))
            r = s->seg[k];
    pthread_mutex_unlock(&s->mu);
    return r;
}

/* Before grid g's tiles: its segments, once (any thread; the others wait). */
static int rst_grid(gk_job *job, const gk_grid *g)
{
    rst_state *s = job->state;
    if (!s->segmented)
        return GK_OK;
    const rst_params *p = cparams_of(&job->alg);
    int rc = GK_OK;
    pthread_mutex_lock(&s->mu);
    int have = 0;
    for (int k = 0; k < s->nseg && !have; k++)
        have = gk_rst_segments_of(s->seg[k], g);
    if (!have) {
        const gk_rst_seg_params sp = {p->tension,
                                      p->smooth,
                                      p->dmin,
                                      p->zscale,
                                      p->npmin,
                                      p->segmax,
                                      gk_context_threads(job->ctx),
                                      !p->der};
        size_t dropped, outside;
        gk_rst_segments **grown = realloc(s->seg, (size_t)(s->nseg + 1) * sizeof *grown);
        gk_rst_segments *made =
            grown ? gk_rst_segments_new(job->ctx, job->pts, g, &sp, &dropped, &outside) : NULL;
        if (grown)
            s->seg = grown;
        if (made)
            s->seg[s->nseg++] = made;
        else
            rc = grown ? (job->ctx->err ? job->ctx->err : GK_ERR_NOMEM) /* its message */
                       : gk_error(job->ctx, GK_ERR_NOMEM, "rst: out of memory");
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

static uint64_t segmented_tile(const gk_job *job, rst_state *s, const gk_tile *t, double *out)
{
    const gk_rst_segments *seg = segments_of(s, t->g);
    if (!seg)
        return UINT64_MAX; /* rst_grid ran before the tiles: not here */
    const unsigned der = cparams_of(&job->alg)->der;
    uint64_t nod = 0;
    for (int j = 0; j < t->h; j++) {
        for (int i = 0; i < t->w; i++) {
            double v = gk_rst_segments_value(seg, t->x0 + i, t->y0 + j);
            if (!isfinite(v))
                v = job->alg.nodata, nod++;
            out[(size_t)j * t->w + i] = v;
        }
        if (der) /* the derivative planes, after the surface's */
            derivative_row(s, seg, der, t, j, job->alg.nodata, out);
    }
    return nod;
}

static uint64_t rst_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *scr)
{
    (void)scr;
    const rst_params *p = cparams_of(&job->alg);
    rst_state *s = job->state;
    const gk_grid *g = t->g;
    const double nodata = job->alg.nodata;
    uint64_t nod = 0;
    if (s->segmented)
        return segmented_tile(job, s, t, out);
    for (int j = 0; j < t->h; j++) {
        const double ny = gk_grid_node_y(g, t->y0 + j);
        for (int i = 0; i < t->w; i++) {
            const double nx = gk_grid_node_x(g, t->x0 + i);
            double v = nodata;
            if (s->g.n > 0)
                v = s->zmin + gk_rbf_value(&s->sp, s->x, s->y, NULL, s->g.n, s->g.shift, s->g.scale,
                                           s->g.coef, nx, ny);
            if (s->g.n <= 0 || !isfinite(v)) {
                v = nodata;
                nod++;
            }
            out[(size_t)j * t->w + i] = v;
        }
        if (p->der && s->g.n > 0) /* the derivative planes, after the surface's */
            derivative_row(s, NULL, p->der, t, j, nodata, out);
    }
    return nod;
}

/* Cross-validation predicts a point from a job on the others over a grid of
 * one cell around it, which v.surf.rst's segments (made from the grid's
 * region) cannot follow: every fold is one segment of its points, the
 * surface's band alone. */
static void rst_cv_adjust(gk_algorithm *a)
{
    rst_params *p = params_of(a);
    p->segmax = INT_MAX;
    p->der = 0, p->partials = 0;
    canonical(a);
}

static int rst_bands(const gk_algorithm *a) { return 1 + __builtin_popcount(cparams_of(a)->der); }

static const char *rst_band_name(const gk_algorithm *a, int i)
{
    /* v.surf.rst -d's values in those maps: the negated partial derivatives */
    static const char *const partial_name[RST_N_DER] = {"-dz/dx", "-dz/dy", "-d2z/dx2", "-d2z/dy2",
                                                        "-d2z/dxdy"};
    const rst_params *p = cparams_of(a);
    for (int d = 0, k = 0; d < RST_N_DER; d++)
        if (p->der & (1u << d) && ++k == i)
            return p->partials ? partial_name[d] : der_name[d];
    return "elevation";
}

const gk_method gk_method_rst = {
    .name = "rst",
    .kind = GK_ALG_RST,
    .summary = "regularized spline with tension as GRASS's v.surf.rst computes it, in its "
               "segments or one",
    .parse = rst_parse,
    .own_keys = "tension, smooth, segmax, npmin, dmin, zscale, "
                "derivatives=slope,aspect,pcurvature,tcurvature,mcurvature, partials=yes|no, "
                "nodata",
    .build = rst_build,
    .prepare = rst_prepare,
    .release = rst_release,
    .cpu_index = rst_solve,
    .cpu_tile = rst_tile,
    .grid_prepare = rst_grid,
    .gpu_describe = rst_gpu,
    .cost_ns = rst_cost,
    .cv_adjust = rst_cv_adjust,
    .bands = rst_bands,
    .band_name = rst_band_name,
};
