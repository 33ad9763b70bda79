/* SPDX-License-Identifier: MIT */
/* algo_harness.c - what the test_algorithms families share: a fixed random
 * sequence, point sets, brute-force helpers and jobs built by hand around one
 * algorithm (no parser, no engine). */
#include "core/algo_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int failures, checks;

/* ---- deterministic random numbers ------------------------------------------- */

unsigned long long rng_state = 88172645463325252ULL;
double urand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}
double nrand(void)
{
    double u = urand() + 1e-300, v = urand();
    return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

/* ---- point sets ------------------------------------------------------------- */

void pset_alloc(pset *p, size_t n)
{
    p->n = n;
    p->x = malloc((n ? n : 1) * sizeof *p->x);
    p->y = malloc((n ? n : 1) * sizeof *p->y);
    p->z = malloc((n ? n : 1) * sizeof *p->z);
}
void pset_free(pset *p)
{
    free(p->x);
    free(p->y);
    free(p->z);
}

/* uniform points on [0, 100)^2, snapped to a 0.5 lattice so that equal
 * distances (ties) are common */
void make_uniform(pset *p, size_t n)
{
    pset_alloc(p, n);
    for (size_t i = 0; i < n; i++) {
        p->x[i] = floor(urand() * 200.0) * 0.5;
        p->y[i] = floor(urand() * 200.0) * 0.5;
        p->z[i] = urand() * 100.0;
    }
}

/* Gaussian clusters, plus exact duplicates of earlier points */
void make_clustered(pset *p, size_t n)
{
    pset_alloc(p, n);
    double cx[6], cy[6];
    for (int c = 0; c < 6; c++) {
        cx[c] = urand() * 100.0;
        cy[c] = urand() * 100.0;
    }
    for (size_t i = 0; i < n; i++) {
        if (i > 10 && urand() < 0.2) {
            size_t j = (size_t)(urand() * (double)i);
            p->x[i] = p->x[j];
            p->y[i] = p->y[j];
        } else {
            int c = (int)(urand() * 6.0);
            p->x[i] = cx[c] + nrand() * 2.0;
            p->y[i] = cy[c] + nrand() * 2.0;
        }
        p->z[i] = urand() * 100.0;
    }
}

/* ---- brute-force references --------------------------------------------------- */

int cand_cmp(const void *a, const void *b)
{
    const cand *p = a, *q = b;
    if (p->d2 != q->d2)
        return p->d2 < q->d2 ? -1 : 1;
    return (p->idx > q->idx) - (p->idx < q->idx);
}

int int_cmp(const void *a, const void *b)
{
    int p = *(const int *)a, q = *(const int *)b;
    return (p > q) - (p < q);
}

double bf_d2(const pset *p, size_t i, double cx, double cy)
{
    double dx = p->x[i] - cx, dy = p->y[i] - cy;
    return dx * dx + dy * dy;
}

/* ---- hand-built jobs ---------------------------------------------------------- */

gk_context *ctx;

gk_algorithm alg_of(gk_alg_kind kind)
{
    gk_algorithm a;
    memset(&a, 0, sizeof a);
    a.kind = kind;
    a.power = 2.0;
    a.nodata = -9999.0;
    gk_aidw_of(&a)->k = 10;
    const double al[5] = {1.5, 2.0, 2.5, 3.0, 3.5};
    memcpy(gk_aidw_of(&a)->alpha, al, sizeof al);
    gk_aidw_of(&a)->rmin = 0.0;
    gk_aidw_of(&a)->rmax = 2.0;
    return a;
}

void tjob_init(tjob *tj, const double *x, const double *y, const double *z, size_t n,
               const gk_algorithm *a)
{
    tj->pts = gk_points_new(ctx);
    for (size_t i = 0; i < n; i++)
        gk_points_add(tj->pts, x[i], y[i], z ? z[i] : 0.0);
    tj->job = gk_job_new(ctx, tj->pts, a);
    CHECKF(tj->job != NULL, "gk_job_new: %s", gk_errmsg(ctx));
    if (!tj->job)
        exit(1);
}

void tjob_free(tjob *tj)
{
    gk_job_free(tj->job);
    gk_points_free(tj->pts);
}

gk_tile_fn fn_of(gk_alg_kind k)
{
    switch (k) {
    case GK_ALG_INVDIST:
        return gk_invdist_tile;
    case GK_ALG_INVDISTNN:
        return gk_invdistnn_tile;
    case GK_ALG_AVERAGE:
        return gk_average_tile;
    case GK_ALG_NEAREST:
        return gk_nearest_tile;
    case GK_ALG_AIDW:
        return gk_aidw_tile;
    default:
        return gk_metrics_tile;
    }
}

/* Value of the single node (x, y); *nodata set when the node got no value. */
double node_value(tjob *tj, double x, double y, int *nodata)
{
    gk_grid g = {x - 0.5, x + 0.5, y - 0.5, y + 0.5, 1, 1};
    gk_tile t = {&g, 0, 0, 1, 1, HIT2};
    gk_scratch s = {0};
    double v = NAN;
    uint64_t nd = fn_of(tj->job->alg.kind)(tj->job, &t, &v, &s);
    gk_scratch_free(&s);
    *nodata = nd == 1;
    if (nd == 1)
        CHECK(v == tj->job->alg.nodata);
    return v;
}

/* One-shot: build, evaluate one node, free. */
double eval1(const gk_algorithm *a, const double *x, const double *y, const double *z, size_t n,
             double nx, double ny, int *nodata)
{
    tjob tj;
    tjob_init(&tj, x, y, z, n, a);
    double v = node_value(&tj, nx, ny, nodata);
    tjob_free(&tj);
    return v;
}
