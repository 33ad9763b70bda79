/* SPDX-License-Identifier: MIT */
/*
 * curve.c - Rupniewski's curve reconstruction (docs/ridges.md, the curve method): choose,
 * then rounds of evolve and decimate until a round changes nothing, then
 * order. choose and decimate keep the sequential, input-order semantics
 * (well defined, and the parallel variants wrecked the results); evolve runs
 * on threads or the GPU with the same bits (curve_evolve.c).
 */
#include "curve.h"

#include "cells.h"
#include "curve_step.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* choose: the greedy r1-net in input order; *s gets the representatives. */
static int choose(const gk_cloud *c, double r1, double **s, size_t *m)
{
    const int dim = c->dim;
    const double lim = r1 * r1;
    double lo[3], hi[3];
    gk_cells g;
    gk_cells_bounds(c->p, c->n, dim, lo, hi);
    *s = malloc(c->n * dim * sizeof **s);
    if (!*s || gk_cells_init(&g, dim, lo, hi, r1, c->n)) {
        free(*s);
        *s = NULL;
        return GK_ERR_NOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) {
        const double *p = c->p + i * dim;
        int covered = 0;
        gk_cells_iter it;
        for (int32_t q = gk_cells_first(&g, p, r1, &it); q >= 0 && !covered;
             q = gk_cells_next(&g, &it))
            covered = gk_cs_d2(p, *s + (size_t)q * dim, dim) <= lim;
        if (covered)
            continue;
        memcpy(*s + k * dim, p, dim * sizeof **s);
        gk_cells_insert(&g, (int32_t)k, p);
        k++;
    }
    gk_cells_free(&g);
    *m = k;
    return GK_OK;
}

typedef struct {
    int rounds, settled; /* rounds run; 1 when the last changed nothing */
    int evolve_capped;   /* rounds whose evolve stopped at max_iter */
    size_t chosen;
} curve_run;

/* Rounds of evolve + decimate until one changes nothing or max_rounds. */
static int rounds(gk_context *ctx, const gk_cloud *c, const gk_ridges_method *m, double r1,
                  double r2, double *s, size_t *ns, curve_run *run, gk_progress_fn progress,
                  void *user)
{
    double t = 0.0;
    gk_ridges_prof(NULL, &t);
    for (run->rounds = 0; run->rounds < m->max_rounds;) {
        int iters = 0, converged = 0;
        int rc = gk_curve_evolve(ctx, c, r1, s, *ns, m->max_iter, &iters, &converged);
        if (rc)
            return rc;
        char what[96];
        snprintf(what, sizeof what, "curve: evolve of %zu, %d steps", *ns, iters);
        gk_ridges_prof(what, &t);
        run->evolve_capped += !converged;
        size_t removed = gk_curve_decimate(s, ns, c->dim, r2);
        gk_ridges_prof("curve: decimate", &t);
        if (removed == (size_t)-1)
            return gk_error(ctx, GK_ERR_NOMEM, "curve: out of memory in decimate");
        run->rounds++;
        if (progress && !progress(0.1 + 0.8 * run->rounds / m->max_rounds, "curve: evolve", user))
            return gk_error(ctx, GK_ERR_CANCELLED, "curve: cancelled");
        if ((converged && removed == 0) || *ns < 3) {
            run->settled = 1;
            break;
        }
    }
    return GK_OK;
}

/* The warning for the caps that were hit, or NULL. */
static char *cap_warning(const gk_ridges_method *m, const curve_run *run)
{
    char buf[600];
    size_t used = 0;
    buf[0] = '\0';
    if (run->evolve_capped)
        used += (size_t)snprintf(buf, sizeof buf,
                                 "curve: evolve stopped at max_iter=%d steps before settling "
                                 "in %d of %d rounds; raise it with -a curve:...:max_iter=N",
                                 m->max_iter, run->evolve_capped, run->rounds);
    if (!run->settled && used < sizeof buf)
        snprintf(buf + used, sizeof buf - used,
                 "%scurve: the representatives still changed after max_rounds=%d rounds of "
                 "evolve and decimate; raise it with -a curve:...:max_rounds=N",
                 used ? "; " : "", m->max_rounds);
    return buf[0] ? strdup(buf) : NULL;
}

/* r1 (given or estimated into m), r2 and gap as this run uses them. */
static int radii(gk_context *ctx, const gk_cloud *c, gk_ridges_method *m, double *r2, double *gap)
{
    if (!m->r1_given) {
        int rc = gk_curve_estimate_r1(ctx, c, &m->r1);
        if (rc)
            return rc;
    }
    *r2 = m->r2 > 0 ? m->r2 : 2.0 * m->r1;
    if (*r2 < m->r1)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a curve: r2=%.15g must be at least r1=%.15g (estimated from the "
                        "data); give a larger r2, or r1 as well",
                        gk_ridges_user_length(m, *r2), gk_ridges_user_length(m, m->r1));
    *gap = m->gap >= 0 ? m->gap : 2.0 * *r2;
    return GK_OK;
}

int gk_curve_graph(gk_context *ctx, const gk_cloud *c, gk_ridges_method *m, gk_ridge_graph *out,
                   char **warning, gk_progress_fn progress, void *user)
{
    double r2 = 0.0, gap = 0.0, *s = NULL;
    size_t ns = 0;
    memset(out, 0, sizeof *out);
    out->dim = c->dim;
    double t = 0.0;
    gk_ridges_prof(NULL, &t);
    int rc = radii(ctx, c, m, &r2, &gap);
    if (rc)
        return rc;
    gk_ridges_prof("curve: radii", &t);
    if (choose(c, m->r1, &s, &ns))
        return gk_error(ctx, GK_ERR_NOMEM, "curve: out of memory choosing representatives");
    curve_run run = {.chosen = ns};
    gk_ridges_prof("curve: choose", &t);
    if (progress && !progress(0.1, "curve: chosen", user))
        rc = gk_error(ctx, GK_ERR_CANCELLED, "curve: cancelled");
    if (rc == GK_OK)
        rc = rounds(ctx, c, m, m->r1, r2, s, &ns, &run, progress, user);
    gk_ridges_prof(NULL, &t);
    if (rc == GK_OK && gk_curve_order(s, ns, c->dim, r2, gap, &out->e, &out->n_e))
        rc = gk_error(ctx, GK_ERR_NOMEM, "curve: out of memory ordering representatives");
    gk_ridges_prof("curve: order", &t);
    if (rc) {
        free(s);
        gk_ridge_graph_free(out);
        return rc;
    }
    out->n_v = ns;
    out->v = s;
    *warning = cap_warning(m, &run);
    return GK_OK;
}
