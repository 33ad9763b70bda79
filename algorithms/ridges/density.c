/* SPDX-License-Identifier: MIT */
/*
 * density.c - `density`: ridges of the Gaussian kernel density by
 * subspace-constrained mean shift (Ozertem & Erdogmus 2011; docs/ridges.md),
 * linked into a graph (density_link.c). The walker's arithmetic is
 * scms_step.h's, shared with the GPU.
 *
 *   check -> bandwidth (given, or density_bandwidth.c's rule) -> bins of
 *   side cutoff * h -> seeds (the samples, or a mesh) -> walkers (GPU, else
 *   OpenMP; each walker alone, so the same bits on any thread count) ->
 *   threshold -> merge within 0.1 h -> link -> clean-up -> graph
 */
#include "ridges/density.h"

#include "core/device.h"
#include "core/double_edge.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GK_WALK_BLOCK 65536 /* walkers between progress reports */
#define GK_SEED_THIN 0.5    /* seeds=data: samples closer than this many h share a walker */

/* Checks the keys density reads and the cloud; GK_OK or an error naming the key. */
static int check_input(gk_context *ctx, const gk_cloud *c, const gk_ridges_method *m)
{
    if (m->bandwidth_given && !(m->bandwidth > 0.0 && isfinite(m->bandwidth)))
        return gk_error(ctx, GK_ERR_ARG, "density: bandwidth=%.15g: must be a finite number > 0",
                        gk_ridges_user_length(m, m->bandwidth));
    if (!(m->tolerance >= GK_SCMS_TOL_MIN && m->tolerance < 1.0))
        return gk_error(ctx, GK_ERR_ARG, "density: tolerance=%.15g: must be in [%.15g, 1)",
                        m->tolerance, GK_SCMS_TOL_MIN);
    if (!(m->threshold >= 0.0 && isfinite(m->threshold)) ||
        (!m->threshold_absolute && m->threshold > 1.0))
        return gk_error(ctx, GK_ERR_ARG,
                        "density: threshold=%.15g: must be >= 0 (and <= 1 when "
                        "threshold_mode=relative)",
                        m->threshold);
    if (!(m->angle > 0.0 && m->angle <= 90.0))
        return gk_error(ctx, GK_ERR_ARG, "density: angle=%.15g: must be in (0, 90] degrees",
                        m->angle);
    if (!(m->cutoff > 0.0 && isfinite(m->cutoff)))
        return gk_error(ctx, GK_ERR_ARG, "density: cutoff=%.15g: must be a finite number > 0",
                        m->cutoff);
    if (m->max_iter_scms < 1 || m->max_iter_scms > GK_SCMS_ITER_MAX)
        return gk_error(ctx, GK_ERR_ARG, "density: max_iter=%d: must be from 1 to %d",
                        m->max_iter_scms, GK_SCMS_ITER_MAX);
    if (isnan(m->spacing) || isinf(m->spacing))
        return gk_error(ctx, GK_ERR_ARG, "density: spacing=%.15g: must be a finite number",
                        gk_ridges_user_length(m, m->spacing));
    if (c->dim != 2 && c->dim != 3)
        return gk_error(ctx, GK_ERR_ARG, "density: points of %d dimensions (2 or 3 expected)",
                        c->dim);
    if (c->n < 3)
        return gk_error(ctx, GK_ERR_ARG, "density: %zu point(s); at least 3 are needed", c->n);
    int same = 1;
    for (size_t i = 0; i < c->n * (size_t)c->dim; i++) {
        if (!isfinite(c->p[i]))
            return gk_error(ctx, GK_ERR_ARG, "density: point %zu has a non-finite coordinate",
                            i / (size_t)c->dim);
        same = same && c->p[i] == c->p[i % (size_t)c->dim];
    }
    if (same)
        return gk_error(ctx, GK_ERR_ARG, "density: all %zu points are identical: no ridge", c->n);
    return GK_OK;
}

/* Runs walkers lo..hi-1 of s on the CPU, in blocks between progress reports. */
static int walk_cpu(gk_context *ctx, const gk_scms_index *ix, gk_gpu_scms *s, size_t lo, size_t hi,
                    int threads, gk_progress_fn progress, void *user)
{
    int dim = s->dim;
    for (size_t b0 = lo; b0 < hi; b0 += GK_WALK_BLOCK) {
        size_t b1 = hi - b0 < GK_WALK_BLOCK ? hi : b0 + GK_WALK_BLOCK;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16)
        for (long i = (long)b0; i < (long)b1; i++)
            s->iters[i] =
                gk_scms_walk(ix, s->walkers + (size_t)i * (size_t)dim, s->h, s->cutoff, s->tol,
                             s->max_iter, s->density + i, s->tangent + (size_t)i * (size_t)dim);
        if (progress &&
            !progress(0.1 + 0.8 * (double)(b1 - lo) / (double)(hi - lo), "density: walkers", user))
            return gk_error(ctx, GK_ERR_CANCELLED, "cancelled");
    }
    return GK_OK;
}

/* Shared walkers (gk_ridges_set_sharing): this part's slice on the CPU, then
 * every slice to part 0. *mine: 0 on the other parts, which stop there.
 * Each walker's walk depends on its seed alone, so part 0 ends with the
 * doubles of one process walking them all on the CPU. */
static int walk_shared(gk_context *ctx, const gk_scms_index *ix, gk_gpu_scms *s, const double *x0,
                       int threads, gk_progress_fn progress, void *user, int *mine)
{
    const int parts = ctx->share_parts, part = ctx->share_part;
    size_t *off = malloc(((size_t)parts + 1) * sizeof *off);
    int rc = off ? GK_OK : gk_error(ctx, GK_ERR_NOMEM, "density: out of memory");
    for (int p = 0; off && p <= parts; p++)
        off[p] = (size_t)((unsigned long long)s->n_walkers * (unsigned)p / (unsigned)parts);
    if (off) {
        off[parts] = s->n_walkers;
        size_t d = (size_t)s->dim, lo = off[part], hi = off[part + 1];
        memcpy(s->walkers + lo * d, x0 + lo * d, (hi - lo) * d * sizeof(double));
        rc = walk_cpu(ctx, ix, s, lo, hi, threads, part == 0 ? progress : NULL, user);
    }
    void *const arrays[4] = {s->walkers, s->density, s->tangent, s->iters};
    const size_t bytes[4] = {(size_t)s->dim * sizeof(double), sizeof(double),
                             (size_t)s->dim * sizeof(double), sizeof(int32_t)};
    /* called whatever rc: every part's outcome is agreed on here */
    rc = ctx->share_fn(ctx->share_user, ctx, rc, arrays, bytes, 4, off);
    free(off);
    *mine = part == 0;
    return rc;
}

/* The walkers from seeds x0 (n of them): on the GPU when it takes them,
 * else on the CPU from x0 again. s's arrays are the caller's. */
static int walk(gk_context *ctx, const gk_scms_bins *b, const gk_cloud *c, gk_gpu_scms *s,
                const double *x0, int threads, gk_progress_fn progress, void *user, int *mine)
{
    *mine = 1;
    s->dim = c->dim;
    s->n = c->n;
    s->p = c->p;
    s->w = NULL;
    /* the GPU sums over these very bins, in the same order */
    for (int k = 0; k < 3; k++) {
        s->origin[k] = b->ix.origin[k];
        s->nc[k] = b->ix.nc[k];
    }
    s->side = b->ix.side;
    s->n_bins = b->ix.n_bins;
    s->key = b->ix.key;
    s->start = b->ix.start;
    s->ps = b->ix.ps;
    s->ws = b->ix.ws;
    if (ctx->share_fn)
        return walk_shared(ctx, &b->ix, s, x0, threads, progress, user, mine);
    memcpy(s->walkers, x0, s->n_walkers * (size_t)c->dim * sizeof(double));
    int rc = gk_device_scms(ctx, s);
    if (rc < 0)
        return ctx->err ? ctx->err : GK_ERR_INTERNAL;
    if (rc == 1)
        return GK_OK;
    memcpy(s->walkers, x0, s->n_walkers * (size_t)c->dim * sizeof(double));
    return walk_cpu(ctx, &b->ix, s, 0, s->n_walkers, threads, progress, user);
}

/* The warning when walkers hit max_iter (malloc()ed), or NULL. */
static char *cap_warning(const gk_gpu_scms *s)
{
    size_t bad = 0;
    for (size_t i = 0; i < s->n_walkers; i++)
        bad += s->iters[i] > s->max_iter;
    /* A few walkers near a ridge's faint ends creep on for long (about 1 in
     * 3,000 at the defaults); they move less than a bandwidth and the
     * threshold mostly drops them, so only a share of 1 % or more is worth a
     * warning. */
    if (!bad || bad * 100 < s->n_walkers)
        return NULL;
    char *w = malloc(256);
    if (w)
        snprintf(w, 256,
                 "density: %zu of %zu walkers did not converge within max_iter=%d steps "
                 "(tolerance=%.15g); their last positions were used",
                 bad, s->n_walkers, s->max_iter, s->tol);
    return w;
}

/* Walkers kept by the threshold, with densities normalised to a
 * probability density (kernel sum / (n (2 pi)^(dim/2) h^dim)). */
static size_t threshold(const gk_gpu_scms *s, const gk_ridges_method *m, double norm, gk_walkers *w)
{
    double top = 0.0;
    for (size_t i = 0; i < s->n_walkers; i++)
        top = s->density[i] > top ? s->density[i] : top;
    double level = m->threshold_absolute ? m->threshold : m->threshold * top / norm;
    size_t n = 0, d = (size_t)s->dim;
    for (size_t i = 0; i < s->n_walkers; i++) {
        double p = s->density[i] / norm;
        if (!(s->density[i] > 0.0) || p < level)
            continue;
        memmove(w->x + n * d, s->walkers + i * d, d * sizeof(double));
        memmove(w->t + n * d, s->tangent + i * d, d * sizeof(double));
        w->density[n++] = p;
    }
    w->n = n;
    return n;
}

/* The densities' normalisation, n (2 pi)^(dim/2) h^dim (kernel sums per
 * unit^dim). */
static double density_norm(size_t n, int dim, double h)
{
    return (double)n * pow(2.0 * M_PI, 0.5 * dim) * pow(h, dim);
}

typedef struct {
    size_t n;
    int dim;
} norm_arg;

/* Whether the walkers' arithmetic holds h: h^2 and 1 / h^2 (the kernel's
 * exponent) and the normalisation normal doubles. */
static int bandwidth_ok(const void *arg, double h)
{
    const norm_arg *a = arg;
    return isnormal(h * h) && isnormal(1.0 / (h * h)) && isnormal(density_norm(a->n, a->dim, h));
}

/* The bandwidth: m's, or the rule's (recorded in m); then what the
 * arithmetic and the bins hold. The link's bins have a side of at least 2
 * h, the kernel sums' cutoff h / GK_SCMS_SPAN: a failure of the first is
 * the bandwidth's, of the second (the bandwidth passed) the cutoff's. */
static int choose_bandwidth(gk_context *ctx, const gk_cloud *c, gk_ridges_method *m, int threads)
{
    if (!m->bandwidth_given) {
        double h = gk_density_bandwidth(c, threads);
        if (!(h > 0.0))
            return gk_error(ctx, GK_ERR_ARG,
                            "density: the bandwidth could not be estimated from the "
                            "%zu points; give bandwidth=",
                            c->n);
        m->bandwidth = h;
    }
    const norm_arg na = {c->n, c->dim};
    const double h = m->bandwidth;
    if (!bandwidth_ok(&na, h))
        return gk_error(ctx, GK_ERR_ARG,
                        "density: bandwidth=%.15g%s is outside [%.15g, %.15g] for %zu points in "
                        "%d-D, where h^2, 1/h^2 and the densities' normalisation n (2 pi)^(d/2) "
                        "h^d are normal doubles",
                        gk_ridges_user_length(m, h), m->bandwidth_given ? "" : " (estimated)",
                        gk_ridges_user_length(m, gk_double_edge(bandwidth_ok, &na, 1.0, 0.0)),
                        gk_ridges_user_length(m, gk_double_edge(bandwidth_ok, &na, 1.0, INFINITY)),
                        c->n, c->dim);
    double extent = 0.0;
    for (int k = 0; k < c->dim; k++) {
        double lo = c->p[k], hi = c->p[k];
        for (size_t i = 1; i < c->n; i++) {
            lo = fmin(lo, c->p[i * (size_t)c->dim + k]);
            hi = fmax(hi, c->p[i * (size_t)c->dim + k]);
        }
        extent = fmax(extent, hi - lo);
    }
    const double lim = c->dim == 3 ? 2097152.0 : 2147483648.0; /* scms_index.c's bins a side */
    if (!(floor(extent / (2.0 * h)) + 1.0 < lim))
        return gk_error(ctx, GK_ERR_ARG,
                        "density: bandwidth=%.15g%s is too small for the points' extent %.15g: "
                        "the link's bins of 2 bandwidths would be more than %.0f a side (a "
                        "bandwidth of at least %.3g)",
                        gk_ridges_user_length(m, h), m->bandwidth_given ? "" : " (estimated)",
                        gk_ridges_user_length(m, extent), lim - 1.0,
                        gk_ridges_user_length(m, extent / (2.0 * (lim - 2.0))));
    if (!(floor(extent / (m->cutoff * h / GK_SCMS_SPAN)) + 1.0 < lim))
        return gk_error(ctx, GK_ERR_ARG,
                        "density: cutoff=%.15g is too small for the points' extent %.15g with "
                        "bandwidth %.15g: the kernel sums' bins of cutoff x bandwidth / %d would "
                        "be more than %.0f a side (a cutoff of at least %.3g)",
                        m->cutoff, gk_ridges_user_length(m, extent), gk_ridges_user_length(m, h),
                        GK_SCMS_SPAN, lim - 1.0, GK_SCMS_SPAN * extent / ((lim - 2.0) * h));
    return GK_OK;
}

/* seeds=data: the samples, less those within GK_SEED_THIN h of an earlier
 * one kept (greedy in input order, as the dedup): walkers that close climb
 * the same kernel's core to ridge points at most that far apart, well
 * under the link distance h; dense clouds (10^5-10^6 samples) would
 * otherwise walk hundreds of walkers per h^2, each summing over all the
 * samples around it. */
static int data_seeds(gk_context *ctx, const gk_cloud *c, double h, double **owned, size_t *n)
{
    size_t d = (size_t)c->dim;
    uint8_t *keep = malloc(c->n);
    gk_walkers w = {c->dim, c->n, c->p, NULL, NULL};
    *owned = malloc(c->n * d * sizeof(double));
    if (!keep || !*owned || gk_density_dedup(&w, GK_SEED_THIN * h, keep)) {
        free(keep);
        return gk_error(ctx, GK_ERR_NOMEM, "density: out of memory for %zu seeds", c->n);
    }
    *n = 0;
    for (size_t i = 0; i < c->n; i++)
        if (keep[i])
            memcpy(*owned + (*n)++ * d, c->p + i * d, d * sizeof(double));
    free(keep);
    return GK_OK;
}

/* The seeds: the samples (data_seeds), or mesh nodes; *owned holds them. */
static int seeds(gk_context *ctx, const gk_cloud *c, const gk_scms_bins *b,
                 const gk_ridges_method *m, double norm, int threads, const double **x0,
                 double **owned, size_t *n)
{
    *owned = NULL;
    if (!m->seeds_mesh) {
        int rc = data_seeds(ctx, c, m->bandwidth, owned, n);
        *x0 = *owned;
        return rc;
    }
    double sp = m->spacing > 0.0 ? m->spacing : 0.5 * m->bandwidth;
    int rc = gk_density_mesh_seeds(
        ctx, c, b, m->bandwidth, m->cutoff, sp, m->threshold_absolute ? 0.0 : m->threshold,
        m->threshold_absolute ? m->threshold * norm : 0.0, threads, m->scale_exp, owned, n);
    *x0 = *owned;
    return rc;
}

static void scms_free(gk_gpu_scms *s)
{
    free(s->walkers);
    free(s->density);
    free(s->tangent);
    free(s->iters);
}

/* Walks, thresholds and links the walkers from n seeds x0. */
static int walk_and_link(gk_context *ctx, const gk_cloud *c, const gk_scms_bins *b,
                         const gk_ridges_method *m, const double *x0, size_t n, double norm,
                         int threads, gk_ridge_graph *out, char **warning, gk_progress_fn progress,
                         void *user)
{
    size_t d = (size_t)c->dim;
    gk_gpu_scms s = {.h = m->bandwidth,
                     .cutoff = m->cutoff,
                     .tol = m->tolerance,
                     .max_iter = m->max_iter_scms,
                     .n_walkers = n,
                     .walkers = malloc((n + 1) * d * sizeof(double)),
                     .density = malloc((n + 1) * sizeof(double)),
                     .tangent = malloc((n + 1) * d * sizeof(double)),
                     .iters = malloc((n + 1) * sizeof(int32_t))};
    int mine = 1;
    int rc = !s.walkers || !s.density || !s.tangent || !s.iters
                 ? gk_error(ctx, GK_ERR_NOMEM, "density: out of memory for %zu walkers", n)
                 : walk(ctx, b, c, &s, x0, threads, progress, user, &mine);
    double t = 0.0;
    gk_ridges_prof(NULL, &t);
    if (rc == GK_OK && mine) {
        *warning = cap_warning(&s);
        gk_walkers w = {c->dim, 0, s.walkers, s.tangent, s.density};
        threshold(&s, m, norm, &w);
        double sp = m->spacing > 0.0 ? m->spacing : 0.5 * m->bandwidth;
        /* link: h, or two mesh spacings; ends facing each other join across
         * twice that (density_link.c): the ridge holds over sampling gaps of
         * a few h, but its points come only where seeds were, spread along
         * it as the samples are (exponential gaps). */
        double link = m->seeds_mesh && 2.0 * sp > m->bandwidth ? 2.0 * sp : m->bandwidth;
        /* hairs: below h always (noise at the kernel's scale), and below the
         * lines' min_length (default 4 h) here rather than in gk_graph_lines,
         * so that the line they touch stays one chain */
        double min_len = m->min_length >= 0.0 ? m->min_length : 4.0 * m->bandwidth;
        double spur = min_len > m->bandwidth ? min_len : m->bandwidth;
        rc = gk_density_link(ctx, &w, m->bandwidth, link, cos(m->angle * M_PI / 180.0),
                             8.0 * m->bandwidth, spur, threads, out);
        gk_ridges_prof("density: threshold, dedup, link", &t);
    }
    scms_free(&s);
    return rc;
}

int gk_density_graph(gk_context *ctx, const gk_cloud *c, gk_ridges_method *m, gk_ridge_graph *out,
                     char **warning, gk_progress_fn progress, void *user)
{
    memset(out, 0, sizeof *out);
    out->dim = c->dim;
    int threads = ctx->threads > 0 ? ctx->threads : omp_get_num_procs();
    double t = 0.0;
    gk_ridges_prof(NULL, &t);
    int rc = check_input(ctx, c, m);
    if (rc == GK_OK)
        rc = choose_bandwidth(ctx, c, m, threads);
    gk_ridges_prof("density: bandwidth", &t);
    if (rc != GK_OK)
        return rc;
    if (progress && !progress(0.05, "density: bandwidth", user))
        return gk_error(ctx, GK_ERR_CANCELLED, "cancelled");
    gk_scms_bins b;
    int brc =
        gk_scms_bins_build(&b, c->dim, c->n, c->p, NULL, m->cutoff * m->bandwidth / GK_SCMS_SPAN);
    if (brc) /* too many bins a side was refused above */
        return gk_error(ctx, brc == 1 ? GK_ERR_NOMEM : GK_ERR_INTERNAL,
                        "density: %s binning %zu points", brc == 1 ? "out of memory" : "failed",
                        c->n);
    double norm = density_norm(c->n, c->dim, m->bandwidth);
    const double *x0;
    double *owned;
    size_t n = 0;
    rc = seeds(ctx, c, &b, m, norm, threads, &x0, &owned, &n);
    gk_ridges_prof("density: bins and seeds", &t);
    if (rc == GK_OK)
        rc = walk_and_link(ctx, c, &b, m, x0, n, norm, threads, out, warning, progress, user);
    free(owned);
    gk_scms_bins_free(&b);
    if (rc == GK_OK && progress && !progress(1.0, "density: linked", user)) {
        gk_ridge_graph_free(out); /* an error leaves no graph: the caller frees none */
        rc = gk_error(ctx, GK_ERR_CANCELLED, "cancelled");
    }
    return rc;
}
