/*
 * curve_evolve.c - curve's evolve on the CPU: Jacobi steps of
 * ridges/curve_step.h over OpenMP threads, the same bits for any thread
 * count (and as the GPU's, which device.c tries first).
 *
 * A step: each sample, on its own, finds its nearest representative within
 * r1 (cells of edge r1 over the representatives; ties to the lower index);
 * the samples are then counting-sorted by owner, stable in sample index, and
 * each representative, on its own, sums its samples in that order. No sum
 * is shared between threads, so nothing depends on the schedule.
 */
#include "curve.h"

#include "cells.h"
#include "core/device.h"
#include "curve_step.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const gk_cloud *c;
    double r1;
    size_t m;
    double *s;
    gk_cells cells;    /* the representatives */
    uint32_t *owner;   /* n: nearest representative within r1, or UINT32_MAX */
    size_t *start;     /* m + 1: owner-sorted offsets */
    uint32_t *sorted;  /* n: samples by owner, then index */
    int threads;
} evolve_state;

static void assign(evolve_state *st)
{
    const gk_cloud *c = st->c;
    const int dim = c->dim;
    const double r1sq = st->r1 * st->r1;
    gk_cells_clear(&st->cells);
    for (size_t j = 0; j < st->m; j++)
        gk_cells_insert(&st->cells, (int32_t)j, st->s + j * dim);
#pragma omp parallel for num_threads(st->threads) schedule(static, 4096)
    for (long i = 0; i < (long)c->n; i++) {
        const double *p = c->p + (size_t)i * dim;
        uint32_t bj = UINT32_MAX;
        double bd2 = INFINITY;
        gk_cells_iter it;
        for (int32_t j = gk_cells_first(&st->cells, p, st->r1, &it); j >= 0;
             j = gk_cells_next(&st->cells, &it)) {
            double d2 = gk_cs_d2(p, st->s + (size_t)j * dim, dim);
            if (d2 <= r1sq && gk_cs_before(d2, (uint32_t)j, bd2, bj)) {
                bd2 = d2;
                bj = (uint32_t)j;
            }
        }
        st->owner[i] = bj;
    }
}

/* Counting sort of the owned samples by owner, stable in sample index. */
static void sort_by_owner(evolve_state *st)
{
    size_t n = st->c->n, m = st->m;
    memset(st->start, 0, (m + 1) * sizeof *st->start);
    for (size_t i = 0; i < n; i++)
        if (st->owner[i] != UINT32_MAX)
            st->start[st->owner[i] + 1]++;
    for (size_t j = 0; j < m; j++)
        st->start[j + 1] += st->start[j];
    /* start[j] is used as the fill cursor, then restored */
    for (size_t i = 0; i < n; i++)
        if (st->owner[i] != UINT32_MAX)
            st->sorted[st->start[st->owner[i]]++] = (uint32_t)i;
    for (size_t j = m; j > 0; j--)
        st->start[j] = st->start[j - 1];
    st->start[0] = 0;
}

/* Every representative to the mean of its samples; 1 if any moved. */
static int move(evolve_state *st)
{
    const int dim = st->c->dim;
    int moved = 0;
#pragma omp parallel for num_threads(st->threads) schedule(static, 256) reduction(| : moved)
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

static int evolve_cpu(gk_context *ctx, const gk_cloud *c, double r1, double *s, size_t m,
                      int max_iter, int *iters, int *converged)
{
    evolve_state st = {.c = c, .r1 = r1, .m = m, .s = s, .threads = gk_ridges_threads(ctx)};
    double lo[3], hi[3];
    gk_cells_bounds(c->p, c->n, c->dim, lo, hi);
    int rc = gk_cells_init(&st.cells, c->dim, lo, hi, r1, m);
    st.owner = malloc((c->n ? c->n : 1) * sizeof *st.owner);
    st.sorted = malloc((c->n ? c->n : 1) * sizeof *st.sorted);
    st.start = malloc((m + 1) * sizeof *st.start);
    if (rc || !st.owner || !st.sorted || !st.start) {
        rc = gk_error(ctx, GK_ERR_NOMEM, "curve: out of memory for evolve (%zu samples)", c->n);
    } else {
        *iters = 0;
        *converged = 0;
        while (*iters < max_iter && !*converged) {
            assign(&st);
            sort_by_owner(&st);
            *converged = !move(&st);
            (*iters)++;
        }
    }
    if (st.cells.head)
        gk_cells_free(&st.cells);
    free(st.owner);
    free(st.sorted);
    free(st.start);
    return rc;
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
