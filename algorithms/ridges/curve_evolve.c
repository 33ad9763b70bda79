/* SPDX-License-Identifier: MIT */
/*
 * curve_evolve.c - curve's evolve: the samples renumbered by cell
 * (ridges/curve_step.h's order), then Jacobi steps of curve_step.h on the
 * GPU (device_calls.c first) or on OpenMP threads, the same bits for any thread
 * count and device.
 *
 * A CPU step: the representatives are sorted by cell (edge r1, so a row of
 * cells is one span); each cell of samples (SUB times finer), on its own,
 * takes the representatives that can be nearest to the box of its samples
 * and gives each sample the nearest within r1 (ties to the lower index);
 * the samples are counting-sorted by owner, stable in (renumbered) index
 * (blocks of samples count and scatter on threads, the offsets ordered by
 * owner, then block); each chunk of GK_CS_CHUNK samples of an owner is
 * summed on its own, then each representative sums its chunks. No sum is
 * shared between threads, so nothing depends on the schedule.
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
/* The samples' cells are SUB times finer than the representatives': the
 * box of a cell's samples is small, and few representatives can be nearest
 * to any of them. */
#define SUB 3
/* Fewer samples: a step is done on one thread sooner than threads start. */
#define PAR_MIN 16384

typedef struct {
    const gk_cloud *c; /* renumbered: in cell order */
    double r1;
    size_t m;
    double *s;
    const gk_cells *geo; /* the cells' geometry (no lists) */
    const size_t *sbeg;  /* nsc + 1: the samples of the sample cells (fine, see
                                 SUB) with any: sbeg[k] .. sbeg[k+1]-1 */
    size_t nsc;
    uint32_t *cstart; /* ncell + 1: representatives of cell k: crep[cstart[k] ..] */
    uint32_t *crep;   /* m */
    double *cpos;     /* m * dim: the position of crep[t] */
    uint32_t *owner;  /* n: nearest representative within r1, or UINT32_MAX */
    size_t *count;    /* blocks * (m + 1): per block and owner, then offsets */
    int blocks;
    size_t *start;    /* m + 1: owner-sorted offsets */
    uint32_t *sorted; /* n: samples by owner, then index */
    size_t *cfirst;   /* m + 1: representative j's chunks: cfirst[j] .. cfirst[j+1]-1 */
    size_t *cbeg;     /* chunks + 1: chunk g is sorted[cbeg[g] .. cbeg[g+1]-1] */
    double *part;     /* chunks * dim: chunk sums */
    int threads;
    int failed; /* out of memory in a step */
    int par;    /* enough samples for threads to pay (a step's forks and joins) */
} evolve_state;

/* The representatives sorted by cell (stable: increasing index per cell). */
static void bin_reps(evolve_state *st)
{
    const int dim = st->c->dim;
    const gk_cells *g = st->geo;
    size_t nc = g->ncell;
    memset(st->cstart, 0, (nc + 1) * sizeof *st->cstart);
    for (size_t j = 0; j < st->m; j++)
        st->cstart[gk_cells_of(g, st->s + j * dim) + 1]++;
    for (size_t k = 0; k < nc; k++)
        st->cstart[k + 1] += st->cstart[k];
    for (size_t j = 0; j < st->m; j++) {
        uint32_t t = st->cstart[gk_cells_of(g, st->s + j * dim)]++;
        st->crep[t] = (uint32_t)j;
        memcpy(st->cpos + (size_t)t * dim, st->s + j * dim, dim * sizeof *st->cpos);
    }
    for (size_t k = nc; k > 0; k--)
        st->cstart[k] = st->cstart[k - 1];
    st->cstart[0] = 0;
}

/* A representative in a cell's candidate list. */
typedef struct {
    double x[3]; /* its position */
    double lo2;  /* a lower bound of its squared distance to the cell's samples */
    uint32_t j;
} cand;

/* Relative slack of the bounds below: far above the few ulps by which the
 * box distances and gk_cs_d2 can round apart, far below what prunes. */
#define SLACK 1e-9

/* Owners of the samples of cell k. Its candidates are the representatives
 * of the 3^dim cells around (at most 9 spans of crep, rows of cells) whose
 * distance to the box of the cell's samples is within r1, and not beyond
 * the smallest farthest-corner distance (another one is then nearer to
 * every sample). The order of (d2, index) is total, so the result is the
 * full scan's. */
static void assign_cell(evolve_state *st, size_t i0, size_t i1, double r1sq, cand *cd)
{
    const gk_cells *g = st->geo;
    const int dim = g->dim;
    const double *p0 = st->c->p + i0 * dim;
    const size_t ns = i1 - i0;
    double blo[3] = {INFINITY, INFINITY, 0.0}, bhi[3] = {-INFINITY, -INFINITY, 0.0};
    if (dim == 3) {
        blo[2] = INFINITY;
        bhi[2] = -INFINITY;
    }
    for (size_t i = 0; i < ns; i++)
        for (int q = 0; q < dim; q++) { /* NaN coordinates stay out (they own nothing) */
            if (p0[i * dim + q] < blo[q])
                blo[q] = p0[i * dim + q];
            if (p0[i * dim + q] > bhi[q])
                bhi[q] = p0[i * dim + q];
        }
    /* the representatives' cells around the box: one more each side */
    long a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
    for (int q = 0; q < dim; q++) {
        long ca = gk_cells_axis(g, q, blo[q]), cb = gk_cells_axis(g, q, bhi[q]);
        a[q] = ca > 0 ? ca - 1 : 0;
        b[q] = cb + 1 < g->n[q] ? cb + 1 : g->n[q] - 1;
    }
    size_t nc = 0;
    double ub = INFINITY; /* the smallest farthest-corner squared distance */
    for (long z = a[2]; z <= b[2]; z++)
        for (long y = a[1]; y <= b[1]; y++) {
            long l[3] = {a[0], y, z}, h[3] = {b[0], y, z};
            uint32_t t1 = st->cstart[gk_cells_index(g, h) + 1];
            for (uint32_t t = st->cstart[gk_cells_index(g, l)]; t < t1; t++) {
                const double *s = st->cpos + (size_t)t * dim;
                double lo2 = 0.0, hi2 = 0.0;
                for (int q = 0; q < dim; q++) {
                    double dl = s[q] < blo[q] ? blo[q] - s[q] : s[q] > bhi[q] ? s[q] - bhi[q] : 0.0;
                    double dh = s[q] - blo[q] > bhi[q] - s[q] ? s[q] - blo[q] : bhi[q] - s[q];
                    lo2 += dl * dl;
                    hi2 += dh * dh;
                }
                lo2 *= 1.0 - SLACK;
                if (!(lo2 <= r1sq)) /* beyond r1 of every sample (or NaN) */
                    continue;
                if (hi2 * (1.0 + SLACK) < ub)
                    ub = hi2 * (1.0 + SLACK);
                cd[nc++] =
                    (cand){.x = {s[0], s[1], dim == 3 ? s[2] : 0.0}, .lo2 = lo2, .j = st->crep[t]};
            }
        }
    size_t kept = 0;
    for (size_t u = 0; u < nc; u++)
        if (cd[u].lo2 <= ub) { /* insertion by index */
            size_t w = kept++;
            cand x = cd[u];
            while (w > 0 && cd[w - 1].j > x.j) {
                cd[w] = cd[w - 1];
                w--;
            }
            cd[w] = x;
        }
    nc = kept;
    /* In increasing index, "strictly nearer than the best so far" is
     * gk_cs_before's rule (a tie keeps the lower index); the best starts
     * just beyond r1^2 with none, so exactly those within r1 qualify (NaN
     * compares false). One comparison and two selects, no branch. */
    const double past = nextafter(r1sq, INFINITY);
    for (size_t i = 0; i < ns; i++) {
        const double *p = p0 + i * dim;
        uint32_t bj = UINT32_MAX;
        double bd2 = past;
        for (size_t u = 0; u < nc; u++) {
            double d2 = gk_cs_d2(p, cd[u].x, dim);
            int take = d2 < bd2;
            bd2 = take ? d2 : bd2;
            bj = take ? cd[u].j : bj;
        }
        st->owner[i0 + i] = bj;
    }
}

static void assign(evolve_state *st)
{
    const double r1sq = st->r1 * st->r1;
    bin_reps(st);
    int failed = 0;
#pragma omp parallel num_threads(st->threads) if (st->par) reduction(| : failed)
    {
        cand *cd = malloc((st->m + 1) * sizeof *cd);
        failed = !cd;
#pragma omp for schedule(dynamic, 16)
        for (long q = 0; q < (long)st->nsc; q++)
            if (cd)
                assign_cell(st, st->sbeg[q], st->sbeg[q + 1], r1sq, cd);
        free(cd);
    }
    st->failed |= failed;
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

/* Every representative to the mean of its samples, summed in chunks
 * (curve_step.h); 1 if any moved. */
static int move(evolve_state *st)
{
    const int dim = st->c->dim;
    const double *p = st->c->p;
    size_t nch = 0; /* the chunks tile sorted: each owner's samples, GK_CS_CHUNK at a time */
    for (size_t j = 0; j < st->m; j++) {
        st->cfirst[j] = nch;
        for (size_t a = st->start[j]; a < st->start[j + 1]; a += GK_CS_CHUNK)
            st->cbeg[nch++] = a;
    }
    st->cfirst[st->m] = nch;
    st->cbeg[nch] = st->start[st->m];
#pragma omp parallel for num_threads(st->threads) schedule(static, 64) if (st->par)
    for (long g = 0; g < (long)nch; g++) {
        double acc[3] = {0.0, 0.0, 0.0};
        for (size_t a = st->cbeg[g]; a < st->cbeg[g + 1]; a++)
            gk_cs_chunk_add(acc, p + (size_t)st->sorted[a] * dim, dim);
        memcpy(st->part + (size_t)g * dim, acc, dim * sizeof *acc);
    }
    int moved = 0;
#pragma omp parallel for num_threads(st->threads) schedule(static, 16)                             \
    reduction(|                                                                                    \
              : moved) if (st->par)
    for (long j = 0; j < (long)st->m; j++) {
        double sum[3] = {0.0, 0.0, 0.0};
        for (size_t g = st->cfirst[j]; g < st->cfirst[j + 1]; g++)
            gk_cs_chunk_add(sum, st->part + g * dim, dim);
        uint32_t cnt = (uint32_t)(st->start[j + 1] - st->start[j]);
        moved |= gk_cs_move(st->s + (size_t)j * dim, sum, cnt, dim);
    }
    return moved;
}

static void state_free(evolve_state *st)
{
    free(st->cstart);
    free(st->crep);
    free(st->cpos);
    free(st->owner);
    free(st->count);
    free(st->start);
    free(st->sorted);
    free(st->cfirst);
    free(st->cbeg);
    free(st->part);
}

static int evolve_cpu(gk_context *ctx, const gk_cloud *c, const gk_cells *geo, const size_t *sbeg,
                      size_t nsc, double r1, double *s, size_t m, int max_iter, int *iters,
                      int *converged)
{
    evolve_state st = {.c = c,
                       .r1 = r1,
                       .m = m,
                       .s = s,
                       .geo = geo,
                       .sbeg = sbeg,
                       .nsc = nsc,
                       .threads = gk_ridges_threads(ctx),
                       .par = c->n >= PAR_MIN};
    size_t n1 = c->n ? c->n : 1;
    size_t chunks = n1 / GK_CS_CHUNK + m + 1; /* at most one short chunk per owner */
    st.cstart = malloc((geo->ncell + 1) * sizeof *st.cstart);
    st.crep = malloc((m + 1) * sizeof *st.crep);
    st.cpos = malloc((m + 1) * c->dim * sizeof *st.cpos);
    st.owner = malloc(n1 * sizeof *st.owner);
    size_t fit = 2 * n1 / (m + 1);
    st.blocks = fit < 1 ? 1 : fit > MAX_BLOCKS ? MAX_BLOCKS : (int)fit;
    st.count = malloc((size_t)st.blocks * (m + 1) * sizeof *st.count);
    st.start = malloc((m + 1) * sizeof *st.start);
    st.sorted = malloc(n1 * sizeof *st.sorted);
    st.cfirst = malloc((m + 1) * sizeof *st.cfirst);
    st.cbeg = malloc((chunks + 1) * sizeof *st.cbeg);
    st.part = malloc(chunks * c->dim * sizeof *st.part);
    if (!st.cstart || !st.crep || !st.cpos || !st.owner || !st.count || !st.start || !st.sorted ||
        !st.cfirst || !st.cbeg || !st.part) {
        state_free(&st);
        return gk_error(ctx, GK_ERR_NOMEM, "curve: out of memory for evolve (%zu samples)", c->n);
    }
    *iters = 0;
    *converged = 0;
    while (*iters < max_iter && !*converged) {
        assign(&st);
        if (st.failed)
            break;
        sort_by_owner(&st);
        *converged = !move(&st);
        (*iters)++;
    }
    state_free(&st);
    if (st.failed)
        return gk_error(ctx, GK_ERR_NOMEM, "curve: out of memory in evolve (%zu samples)", c->n);
    return GK_OK;
}

int gk_curve_evolve(gk_context *ctx, const gk_cloud *c, double r1, double *s, size_t m,
                    int max_iter, int *iters, int *converged)
{
    const int dim = c->dim;
    const size_t n = c->n;
    double lo[3], hi[3];
    gk_cells geo, sgeo;
    gk_cells_bounds(c->p, n, dim, lo, hi);
    /* the representatives' cells: edge a little above r1 (a representative
     * within r1 of a point is in the 3^dim cells around its cell, whatever
     * the division rounds to), up to one per sample (long thin curves) */
    const double h = r1 * (1.0 + 1e-9), max_cells = (double)(n ? n : 1) + 4096.0;
    gk_cells_geometry(&geo, dim, lo, hi, h, max_cells);
    /* The samples' cells, SUB times finer: the renumbering of
     * curve_step.h (a stable counting sort by cell), and the boxes whose
     * candidates assign prunes. The GPU works on the renumbered samples and
     * on a copy of s: a GPU that fails half-way leaves s as it was. */
    gk_cells_geometry(&sgeo, dim, lo, hi, h / SUB, max_cells);
    size_t *sstart = calloc(sgeo.ncell + 1, sizeof *sstart);
    size_t *sbeg = malloc(((n < sgeo.ncell ? n : sgeo.ncell) + 1) * sizeof *sbeg);
    size_t *cellof = malloc((n ? n : 1) * sizeof *cellof);
    double *q = malloc((n ? n : 1) * dim * sizeof *q);
    double *copy = malloc((m ? m : 1) * dim * sizeof *copy);
    int rc = GK_OK;
    if (!sstart || !sbeg || !cellof || !q || !copy) {
        rc = gk_error(ctx, GK_ERR_NOMEM, "curve: out of memory for evolve (%zu samples)", n);
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        sstart[(cellof[i] = gk_cells_of(&sgeo, c->p + i * dim)) + 1]++;
    size_t nsc = 0;
    for (size_t k = 0; k < sgeo.ncell; k++) {
        if (sstart[k + 1])
            sbeg[nsc++] = sstart[k];
        sstart[k + 1] += sstart[k];
    }
    sbeg[nsc] = n;
    for (size_t i = 0; i < n; i++)
        memcpy(q + sstart[cellof[i]]++ * dim, c->p + i * dim, dim * sizeof *q);
    free(cellof);
    cellof = NULL;
    const gk_cloud cq = {.dim = dim, .n = n, .p = q};

    memcpy(copy, s, m * dim * sizeof *copy);
    gk_gpu_evolve e = {
        .dim = dim, .n = n, .p = q, .r1 = r1, .m = m, .s = copy, .max_iter = max_iter};
    int on_gpu = gk_device_curve_evolve(ctx, &e);
    if (on_gpu == 1) {
        memcpy(s, copy, m * dim * sizeof *copy);
        *iters = e.iters;
        *converged = e.converged;
    } else if (on_gpu < 0) {
        rc = gk_errno(ctx) ? gk_errno(ctx) : GK_ERR_UNSUPPORTED;
    } else {
        free(copy);
        copy = NULL;
        rc = evolve_cpu(ctx, &cq, &geo, sbeg, nsc, r1, s, m, max_iter, iters, converged);
    }
done:
    free(sstart);
    free(sbeg);
    free(cellof);
    free(q);
    free(copy);
    return rc;
}
