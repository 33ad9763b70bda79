/* SPDX-License-Identifier: MIT */
/*
 * density/density_bins.c - the points sorted into bins (density_bins.h): a
 * counting sort, stable, so input order breaks ties within a bin.
 */
#include "density/density_bins.h"
#include "density/density_sum.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>

#define DB_PAR ((size_t)1 << 16) /* points: fewer are binned on one thread */

void gk_dens_bins_free(gk_dens_bins *b)
{
    if (!b)
        return;
    free(b->x);
    free(b->y);
    free(b->z);
    free(b->start);
    free(b);
}

int gk_dens_bins_build(gk_context *ctx, const gk_points *p, double reach, int per,
                       gk_dens_bins **out)
{
    *out = NULL;
    size_t n = p->n;
    const int nt = ctx->threads > 0 ? ctx->threads : omp_get_num_procs();
    const int par = n >= DB_PAR && nt > 1;
    double xmin = 0.0, xmax = 0.0, ymin = 0.0, ymax = 0.0;
    if (n)
        gk_points_bounds(p, &xmin, &ymin, &xmax, &ymax);
    double W = xmax - xmin, H = ymax - ymin;
    double side = reach / per; /* finer: the bins a tile reads overhang its reach by less */
    int nbx = 1, nby = 1;
    if (isfinite(side) && side > 0) {
        /* no more than ~4 n bins (and 2^13 a side): a short reach over a wide
         * cloud gets bigger bins, never more memory than the points */
        double cap = 4.0 * (double)n + 16.0;
        while ((floor(W / side) + 1.0) * (floor(H / side) + 1.0) > cap || W / side > 8191.0 ||
               H / side > 8191.0)
            side *= 2.0;
        nbx = (int)floor(W / side) + 1, nby = (int)floor(H / side) + 1;
    } else {
        side = fmax(fmax(W, H), 1.0) * 2.0;
    }
    const size_t nbins = (size_t)nbx * (size_t)nby;
    /* chunks of points counted and placed side by side, each with its own
     * count per bin: as many as the threads while those counts stay within
     * the points' own size */
    size_t nch = par ? (size_t)nt : 1;
    while (nch > 1 && nch * nbins > n)
        nch--;
    gk_dens_bins *b = calloc(1, sizeof *b);
    int *bin = malloc((n ? n : 1) * sizeof *bin);
    int *cnt = calloc(nch * nbins + 1, sizeof *cnt);
    if (b) {
        b->x = malloc((n ? n : 1) * sizeof *b->x);
        b->y = malloc((n ? n : 1) * sizeof *b->y);
        b->z = malloc((n ? n : 1) * sizeof *b->z);
        b->start = calloc(nbins + 1, sizeof *b->start);
    }
    if (!b || !bin || !cnt || !b->x || !b->y || !b->z || !b->start) {
        free(bin), free(cnt);
        gk_dens_bins_free(b);
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory binning %zu points", n);
    }
    b->n = n, b->nbx = nbx, b->nby = nby, b->x0 = xmin, b->y0 = ymin, b->side = side;
#pragma omp parallel for if (par) num_threads(nt) schedule(static)
    for (size_t i = 0; i < n; i++) { /* the divisions: on every thread, whatever nch */
        double fx = floor((p->x[i] - xmin) / side), fy = floor((p->y[i] - ymin) / side);
        int ix = fx < 0 ? 0 : fx > nbx - 1 ? nbx - 1 : (int)fx;
        int iy = fy < 0 ? 0 : fy > nby - 1 ? nby - 1 : (int)fy;
        bin[i] = iy * nbx + ix;
    }
#pragma omp parallel for if (nch > 1) num_threads((int)nch) schedule(static)
    for (size_t c = 0; c < nch; c++) {
        const size_t lo = n * c / nch, hi = n * (c + 1) / nch;
        int *cc = cnt + c * nbins;
        for (size_t i = lo; i < hi; i++)
            cc[bin[i]]++;
    }
    /* a bin's points in input order: chunk c's go behind chunks 0..c-1's */
    for (size_t k = 0; k < nbins; k++) {
        int at = b->start[k];
        for (size_t c = 0; c < nch; c++) {
            int m = cnt[c * nbins + k];
            cnt[c * nbins + k] = at;
            at += m;
        }
        b->start[k + 1] = at;
    }
#pragma omp parallel for if (nch > 1) num_threads((int)nch) schedule(static)
    for (size_t c = 0; c < nch; c++) {
        const size_t lo = n * c / nch, hi = n * (c + 1) / nch;
        int *fill = cnt + c * nbins;
        for (size_t i = lo; i < hi; i++) {
            int at = fill[bin[i]]++;
            b->x[at] = p->x[i], b->y[at] = p->y[i], b->z[at] = p->z[i];
        }
    }
    free(cnt);
    free(bin);
    *out = b;
    return GK_OK;
}

gk_dens_state *gk_dens_state_make(gk_job *job)
{
    if (!job->state && !(job->state = calloc(1, sizeof(gk_dens_state))))
        gk_error(job->ctx, GK_ERR_NOMEM, "out of memory");
    return job->state;
}

void gk_dens_release(gk_job *job)
{
    gk_dens_state *s = job->state;
    if (s)
        gk_dens_bins_free(s->bins);
    free(s);
    job->state = NULL;
}

int gk_dens_cpu_index(gk_job *job) { return gk_dens_bins_of(job) ? GK_OK : GK_ERR_NOMEM; }

void gk_dens_gpu_bins(const gk_dens_bins *b, gk_gpu_job_desc *d)
{
    d->p.dens.nbx = b->nbx, d->p.dens.nby = b->nby;
    d->p.dens.x0 = b->x0, d->p.dens.y0 = b->y0, d->p.dens.side = b->side;
    d->p.dens.start = b->start;
    d->p.dens.x = b->x, d->p.dens.y = b->y, d->p.dens.z = b->z;
}

void gk_dens_tile_nodes(const gk_tile *t, double *nx, double *ny)
{
    for (int i = 0; i < t->w; i++)
        nx[i] = gk_grid_node_x(t->g, t->x0 + i);
    for (int j = 0; j < t->h; j++)
        ny[j] = gk_grid_node_y(t->g, t->y0 + j);
}

void gk_dens_tile_runs(const gk_dens_bins *b, const double *nx, int w, const double *ny, int h,
                       double rx, double ry, void (*fn)(size_t p0, size_t p1, void *arg), void *arg)
{
    int i0, i1, j0, j1;
    gk_ds_bin_span(nx[0], nx[w - 1], rx, b->x0, b->side, b->nbx, &i0, &i1);
    gk_ds_bin_span(ny[h - 1], ny[0], ry, b->y0, b->side, b->nby, &j0, &j1);
    for (int j = j0; j <= j1 && i0 <= i1; j++) {
        size_t p0 = (size_t)b->start[(size_t)j * b->nbx + i0];
        size_t p1 = (size_t)b->start[(size_t)j * b->nbx + i1 + 1];
        if (p1 > p0)
            fn(p0, p1, arg);
    }
}
