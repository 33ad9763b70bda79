/*
 * curve_evolve.c - curve's evolve on the CPU: Jacobi steps of
 * ridges/curve_step.h over OpenMP threads, the same bits for any thread
 * count (and as the GPU's, which device.c tries first).
 *
 * A step: each sample, on its own, finds its nearest representative within
 * r1 (ties to the lower index) among the representatives of the cells
 * around it (edge r1, sorted by cell so that a row of cells is one span);
 * the samples are then counting-sorted by owner, stable in sample index
 * (blocks of samples count and scatter on threads, the offsets ordered by
 * owner, then block), and each representative, on its own, sums its
 * samples in that order. No sum is shared between threads, so nothing
 * depends on the schedule.
 */
#include "curve.h"

#include "cells.h"
#include "core/device.h"
#include "curve_step.h"

#include <stdlib.h>
#include <string.h>

/* Sample blocks of the counting sort: any count gives the same order; at
 * most 64, and their counters within about twice the samples' room. */
#define MAX_BLOCKS 64
/* Fewer samples: a step is done on one thread sooner than threads start. */
#define PAR_MIN 16384

typedef struct {
    const gk_cloud *c;
    double r1;
    size_t m;
    double *s;
    gk_cells geo;      /* the cells' geometry (no lists) */
    uint32_t *cstart;  /* ncell + 1: representatives of cell k: crep[cstart[k] ..] */
    uint32_t *crep;    /* m */
    uint32_t *owner;   /* n: nearest representative within r1, or UINT32_MAX */
    size_t *count;     /* blocks * (m + 1): per block and owner, then offsets */
    int blocks;
    size_t *start;     /* m + 1: owner-sorted offsets */
    uint32_t *sorted;  /* n: samples by owner, then index */
    int threads;
    int par;           /* enough samples for threads to pay (a step's forks and joins) */
} evolve_state;

/* The representatives sorted by cell (stable: increasing index per cell). */
static void bin_reps(evolve_state *st)
{
    const int dim = st->c->dim;
    size_t nc = st->geo.ncell;
    memset(st->cstart, 0, (nc + 1) * sizeof *st->cstart);
    for (size_t j = 0; j < st->m; j++)
        st->cstart[gk_cells_of(&st->geo, st->s + j * dim) + 1]++;
    for (size_t k = 0; k < nc; k++)
        st->cstart[k + 1] += st->cstart[k];
    for (size_t j = 0; j < st->m; j++)
        st->crep[st->cstart[gk_cells_of(&st->geo, st->s + j * dim)]++] = (uint32_t)j;
    for (size_t k = nc; k > 0; k--)
        st->cstart[k] = st->cstart[k - 1];
    st->cstart[0] = 0;
}

/* Sample p's nearest representative within r1, or UINT32_MAX. */
static uint32_t nearest(const evolve_state *st, const double *p, double r1sq)
{
    const gk_cells *g = &st->geo;
    const int dim = g->dim;
    long a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
    for (int k = 0; k < dim; k++) {
        long c = gk_cells_axis(g, k, p[k]);
        a[k] = c > 0 ? c - 1 : 0;
        b[k] = c + 1 < g->n[k] ? c + 1 : c;
    }
    uint32_t bj = UINT32_MAX;
    double bd2 = INFINITY;
    for (long z = a[2]; z <= b[2]; z++)
        for (long y = a[1]; y <= b[1]; y++) {
            long lo[3] = {a[0], y, z}, hi[3] = {b[0], y, z};
            size_t end = st->cstart[gk_cells_index(g, hi) + 1];
            for (size_t t = st->cstart[gk_cells_index(g, lo)]; t < end; t++) {
                uint32_t j = st->crep[t];
                double d2 = gk_cs_d2(p, st->s + (size_t)j * dim, dim);
                if (d2 <= r1sq && gk_cs_before(d2, j, bd2, bj)) {
                    bd2 = d2;
                    bj = j;
                }
            }
        }
    return bj;
}

static void assign(evolve_state *st)
{
    const gk_cloud *c = st->c;
    const double r1sq = st->r1 * st->r1;
    bin_reps(st);
#pragma omp parallel for num_threads(st->threads) schedule(static, 4096) if (st->par)
    for (long i = 0; i < (long)c->n; i++)
        st->owner[i] = nearest(st, c->p + (size_t)i * c->dim, r1sq);
}

/* Counting sort of the owned samples by owner, stable in sample index. */
static void sort_by_owner(evolve_state *st)
{
    size_t n = st->c->n, m = st->m, *cnt = st->count;
    const int BLOCKS = st->blocks;
    memset(cnt, 0, (size_t)BLOCKS * (m + 1) * sizeof *cnt);
#pragma omp parallel for num_threads(st->threads) schedule(static, 1) if (st->par)
    for (int b = 0; b < BLOCKS; b++)
        for (size_t i = n * b / BLOCKS; i < n * (b + 1) / BLOCKS; i++)
            if (st->owner[i] != UINT32_MAX)
                cnt[(size_t)b * (m + 1) + st->owner[i]]++;
    size_t at = 0; /* offsets: owner-major, then block */
    for (size_t j = 0; j < m; j++) {
        st->start[j] = at;
        for (int b = 0; b < BLOCKS; b++) {
            size_t k = cnt[(size_t)b * (m + 1) + j];
            cnt[(size_t)b * (m + 1) + j] = at;
            at += k;
        }
    }
    st->start[m] = at;
#pragma omp parallel for num_threads(st->threads) schedule(static, 1) if (st->par)
    for (int b = 0; b < BLOCKS; b++)
        for (size_t i = n * b / BLOCKS; i < n * (b + 1) / BLOCKS; i++)
            if (st->owner[i] != UINT32_MAX)
                st->sorted[cnt[(size_t)b * (m + 1) + st->owner[i]]++] = (uint32_t)i;
}

/* Every representative to the mean of its samples; 1 if any moved. */
static int move(evolve_state *st)
{
    const int dim = st->c->dim;
    int moved = 0;
#pragma omp parallel for num_threads(st->threads) schedule(dynamic, 4) reduction(| : moved) if (st->par)
    for (long j = 0; j < (long)st->m; j++) {
        double sum[3] = {0.0, 0.0, 0.0};
        for (size_t a = st->start[j]; a < st->start[j + 1]; a++) {
            const double *p = st->c->p + (size_t)st->sorted[a] * dim;
            for (int k = 0; k < dim; k++)
                sum[k] = sum[k] + p[k];
        }
        uint32_t cnt = (uint32_t)(st->start[j + 1] - st->start[j]);
        moved |= gk_cs_move(st->s + (size_t)j * dim, sum, cnt, dim);
    }
    return moved;
}

static void state_free(evolve_state *st)
{
    free(st->cstart);
    free(st->crep);
    free(st->owner);
    free(st->count);
    free(st->start);
    free(st->sorted);
}

static int evolve_cpu(gk_context *ctx, const gk_cloud *c, double r1, double *s, size_t m,
                      int max_iter, int *iters, int *converged)
{
    evolve_state st = {.c = c, .r1 = r1, .m = m, .s = s, .threads = gk_ridges_threads(ctx),
                       .par = c->n >= PAR_MIN};
    double lo[3], hi[3];
    size_t n1 = c->n ? c->n : 1;
    gk_cells_bounds(c->p, c->n, c->dim, lo, hi);
    /* cells of edge at least r1 (a representative within r1 is in the 3^dim
     * around), up to one per sample: fine cells over a long thin curve */
    gk_cells_geometry(&st.geo, c->dim, lo, hi, r1, (double)n1 + 4096.0);
    st.cstart = malloc((st.geo.ncell + 1) * sizeof *st.cstart);
    st.crep = malloc((m + 1) * sizeof *st.crep);
    st.owner = malloc(n1 * sizeof *st.owner);
    size_t fit = 2 * n1 / (m + 1);
    st.blocks = fit < 1 ? 1 : fit > MAX_BLOCKS ? MAX_BLOCKS : (int)fit;
    st.count = malloc((size_t)st.blocks * (m + 1) * sizeof *st.count);
    st.start = malloc((m + 1) * sizeof *st.start);
    st.sorted = malloc(n1 * sizeof *st.sorted);
    if (!st.cstart || !st.crep || !st.owner || !st.count || !st.start || !st.sorted) {
        state_free(&st);
        return gk_error(ctx, GK_ERR_NOMEM, "curve: out of memory for evolve (%zu samples)", c->n);
    }
    *iters = 0;
    *converged = 0;
    while (*iters < max_iter && !*converged) {
        assign(&st);
        sort_by_owner(&st);
        *converged = !move(&st);
        (*iters)++;
    }
    state_free(&st);
    return GK_OK;
}

int gk_curve_evolve(gk_context *ctx, const gk_cloud *c, double r1, double *s, size_t m,
                    int max_iter, int *iters, int *converged)
{
    /* The GPU works on a copy: a GPU that fails half-way leaves s as it was. */
    double *copy = malloc((m ? m : 1) * c->dim * sizeof *copy);
    if (!copy)
        return gk_error(ctx, GK_ERR_NOMEM, "curve: out of memory for evolve");
    memcpy(copy, s, m * c->dim * sizeof *copy);
    gk_gpu_evolve e = {.dim = c->dim, .n = c->n, .p = c->p, .r1 = r1, .m = m, .s = copy,
                       .max_iter = max_iter};
    int on_gpu = gk_device_curve_evolve(ctx, &e);
    if (on_gpu == 1) {
        memcpy(s, copy, m * c->dim * sizeof *copy);
        *iters = e.iters;
        *converged = e.converged;
    }
    free(copy);
    if (on_gpu < 0)
        return gk_errno(ctx) ? gk_errno(ctx) : GK_ERR_UNSUPPORTED;
    if (on_gpu == 1)
        return GK_OK;
    return evolve_cpu(ctx, c, r1, s, m, max_iter, iters, converged);
}
