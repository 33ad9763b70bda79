/* SPDX-License-Identifier: MIT */
/*
 * density/gauss_fft.c - gauss with method=fft: the points binned onto a
 * lattice, then the lattice convolved with the Gaussian by FFTs. Its cost
 * per cell does not grow with the points or, much, with the bandwidth; its
 * error is the binning's, which the user accepts by asking for it (auto
 * never takes it).
 *
 * The lattice is the grid's nodes, refined m times in x and y (m the least
 * with steps dx <= sigma_x / 4, dy <= sigma_y / 4). Each point's weight is
 * split bilinearly among the four lattice nodes around it; a cell's value
 * is sum over lattice nodes of B exp(-(tx dx)^2 / (2 sx^2)) exp(-(ty dy)^2 /
 * (2 sy^2)), the taps within the cut-off r_c as method=cutoff's. Binning is
 * bilinear interpolation of each term's kernel between lattice nodes, whose
 * error is at most dx^2 / 8 max|d2K/dx2| + dy^2 / 8 max|d2K/dy2| = dx^2 /
 * (8 sx^2) + dy^2 / (8 sy^2) per unit of weight: so |error| <= (E + 1/64)
 * sum|w| (over 2 pi sx sy normalized), most of it the binning's. A bound,
 * but a loose one: the other methods' E is far smaller.
 *
 * The convolution is separable: along the lattice's rows, then its
 * columns, each line cut into blocks of L outputs fixed on the lattice
 * (block b covers [b L, b L + L), reading [b L - R, b L + L + R), R taps
 * each side, one FFT of N >= L + 2 R: overlap-save), so that a cell's
 * value is the same for any tile that asks for it. L is a whole number of
 * cells, so the blocks tile the grid: each block of cells is computed once,
 * kept while tiles still want its cells (tiles are rarely aligned with
 * it), and copied from. The FFT is radix 2, its
 * twiddles from half-angle formulas (+, *, /, sqrt only: the same bits on
 * every machine; density/density_fft.h, shared with the GPU). Grids whose
 * cells are coarser than 2 sigma gain nothing from a lattice (m > 8), and
 * kernels over GK_FFT_NMAX / 4 steps would need blocks too large: their
 * tiles are the cut-off sum, exact to E. Isotropic or unturned ellipses,
 * gauss, mode=absolute.
 */
#include "core/method.h"
#include "density/density_bins.h"
#include "density/density_fft.h"
#include "density/gauss.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define GF_CACHE_BYTES ((size_t)512 << 20) /* blocks kept at most, ready ones */

/* One axis of the lattice and its convolution. */
typedef struct {
    int m;           /* lattice nodes per cell */
    double step;     /* lattice step */
    int R, N, L;     /* taps each side, FFT length, outputs a block (a multiple of m) */
    int cells;       /* L / m: the cells of a block */
    double *wr, *wi; /* N / 2 twiddles exp(-2 pi i k / N) */
    double *kr, *ki; /* the kernel's spectrum, over N (the inverse's scale) */
} gf_axis;

/* Twice is harmless: a failed axis_init frees, and its caller frees again. */
static void axis_free(gf_axis *a)
{
    free(a->wr);
    free(a->kr);
    a->wr = a->wi = a->kr = a->ki = NULL;
}

/* An axis for cells of size cell, sigma s, cut-off r; -1 out of memory,
 * 1 when the cells are too coarse for a lattice. */
static int axis_init(gf_axis *a, double cell, double s, double r)
{
    memset(a, 0, sizeof *a);
    gk_fft_axis p;
    if (gk_fft_axis_plan(cell, s, r, &p))
        return 1;
    a->m = p.m, a->step = p.step, a->R = p.R, a->N = p.N, a->L = p.L, a->cells = p.cells;
    a->wr = malloc(a->N * sizeof *a->wr); /* wr, wi: N / 2 each */
    a->kr = malloc(2 * (size_t)a->N * sizeof *a->kr);
    if (!a->wr || !a->kr) {
        axis_free(a);
        return -1;
    }
    a->wi = a->wr + a->N / 2;
    a->ki = a->kr + a->N;
    gk_fft_twiddles(a->N, a->wr, a->wi);
    gk_fft_spectrum(&p, s, r, a->wr, a->wi, a->kr, a->ki);
    return 0;
}

/* line (N values) convolved with the axis's taps, in place (circular:
 * the outputs R .. R + L - 1 are the line's); re, im: N each of work. */
static void convolve(const gf_axis *a, double *line, double *re, double *im)
{
    const int N = a->N;
    for (int t = 0; t < N; t++)
        re[t] = line[t], im[t] = 0.0;
    gk_fft_run(re, im, N, a->wr, a->wi, 0);
    for (int t = 0; t < N; t++)
        gk_fft_times(re + t, im + t, a->kr[t], a->ki[t]);
    gk_fft_run(re, im, N, a->wr, a->wi, 1);
    for (int t = 0; t < N; t++)
        line[t] = re[t] + 0.0; /* -0.0 to +0.0, as an all-zero line skipped */
}

static int all_zero(const double *v, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (v[k] != 0.0)
            return 0;
    return 1;
}

/* The binning of the points near a tile's lattice window. */
typedef struct {
    const gk_dens_bins *b;
    double x0, y0, dx, dy; /* lattice (0, 0) and steps (y downwards) */
    long long k0, l0;      /* the window's first lattice column and row */
    int W, H;
    double *B;
} gf_bin;

static void bin_run(size_t p0, size_t p1, void *arg)
{
    gf_bin *G = arg;
    for (size_t p = p0; p < p1; p++) {
        double fu, fv, part[4];
        gk_fft_bin(G->b->x[p], G->b->y[p], G->b->z[p], G->x0, G->y0, G->dx, G->dy, &fu, &fv, part);
        for (int q = 0; q < 4; q++) {
            const double k = fu + (q & 1) - (double)G->k0, l = fv + (q >> 1) - (double)G->l0;
            if (k >= 0 && k < G->W && l >= 0 && l < G->H)
                G->B[(size_t)l * G->W + (size_t)k] += part[q];
        }
    }
}

/* The cells of block (bx, by) of grid g (cells [bx C, bx C + w) x [by C',
 * by C' + h), C and C' the axes' cells, clipped to the grid) into out
 * (w x h); 0, or -1 out of memory. */
static int block_values(const gk_job *job, const gk_grid *g, const gf_axis *X, const gf_axis *Y,
                        long long bx, long long by, int w, int h, double *out)
{
    const gk_algorithm *a = &job->alg;
    gf_bin G = {gk_dens_bins_of(job),
                gk_grid_node_x(g, 0),
                gk_grid_node_y(g, 0),
                X->step,
                Y->step,
                bx * X->L - X->R,
                by * Y->L - Y->R,
                X->N,
                Y->N,
                NULL};
    const size_t nB = (size_t)G.W * G.H, nT = (size_t)G.H * w;
    const int NM = X->N > Y->N ? X->N : Y->N;
    double *B = calloc(nB, sizeof *B), *T = malloc(nT * sizeof *T);
    double *work = malloc(3 * (size_t)NM * sizeof *work);
    if (!B || !T || !work) {
        free(B), free(T), free(work);
        return -1;
    }
    G.B = B;
    double *line = work, *re = work + NM, *im = work + 2 * NM;
    /* the points whose lattice nodes fall in the window, in bin order */
    const double ex[2] = {G.x0 + (double)G.k0 * G.dx, G.x0 + (double)(G.k0 + G.W - 1) * G.dx};
    const double ey[2] = {G.y0 - (double)G.l0 * G.dy, G.y0 - (double)(G.l0 + G.H - 1) * G.dy};
    gk_dens_tile_runs(gk_dens_bins_of(job), ex, 2, ey, 2, G.dx, G.dy, bin_run, &G);
    /* along x: each lattice row, kept at the cells' columns (lattice R + m i) */
    for (int r = 0; r < G.H; r++) {
        double *Tr = T + (size_t)r * w;
        const double *Br = B + (size_t)r * G.W;
        if (all_zero(Br, (size_t)G.W)) {
            memset(Tr, 0, w * sizeof *Tr);
            continue;
        }
        memcpy(line, Br, X->N * sizeof *line);
        convolve(X, line, re, im);
        for (int i = 0; i < w; i++)
            Tr[i] = line[X->R + X->m * i];
    }
    /* along y: each column, kept at the cells' rows */
    for (int i = 0; i < w; i++) {
        int zero = 1;
        for (int q = 0; q < Y->N; q++)
            zero &= (line[q] = T[(size_t)q * w + i]) == 0.0;
        if (!zero)
            convolve(Y, line, re, im);
        for (int j = 0; j < h; j++)
            out[(size_t)j * w + i] = zero ? 0.0 : line[Y->R + Y->m * j];
    }
    if (gk_gauss_of(a)->normalize) {
        const double area =
            2.0 * M_PI * gk_gauss_of(a)->sigma *
            (isnan(gk_gauss_of(a)->sigma_y) ? gk_gauss_of(a)->sigma : gk_gauss_of(a)->sigma_y);
        for (size_t c = 0; c < (size_t)w * h; c++)
            out[c] = out[c] / area;
    }
    free(B), free(T), free(work);
    return 0;
}

/* ---- the blocks, computed once and shared by the tiles ------------------- */

typedef struct gf_entry {
    double key[6]; /* the grid's extent and size */
    long long bx, by;
    int w, h;
    int ready, failed;
    long long left;          /* cells no tile has taken yet */
    unsigned long long used; /* for eviction: the last use */
    double *v;
    struct gf_entry *next;
} gf_entry;

typedef struct gk_gauss_fft {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    gf_entry *head;
    size_t bytes;
    unsigned long long clock;
} gk_gauss_fft;

gk_gauss_fft *gk_gauss_fft_new(void)
{
    gk_gauss_fft *c = calloc(1, sizeof *c);
    if (c) {
        pthread_mutex_init(&c->mu, NULL);
        pthread_cond_init(&c->cv, NULL);
    }
    return c;
}

void gk_gauss_fft_free(gk_gauss_fft *c)
{
    if (!c)
        return;
    for (gf_entry *e = c->head, *n; e; e = n) {
        n = e->next;
        free(e->v);
        free(e);
    }
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

static void grid_key(const gk_grid *g, double *k)
{
    k[0] = g->xmin, k[1] = g->xmax, k[2] = g->ymin, k[3] = g->ymax;
    k[4] = g->nx, k[5] = g->ny;
}

/* Unlinks and frees e (the lock held). */
static void drop(gk_gauss_fft *c, gf_entry *e)
{
    for (gf_entry **p = &c->head; *p; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            break;
        }
    c->bytes -= (size_t)e->w * e->h * sizeof(double);
    free(e->v);
    free(e);
}

/* Block (bx, by), ready, with its use counted (the lock held on return);
 * NULL when out of memory. */
static gf_entry *block_get(const gk_job *job, const gk_grid *g, const gf_axis *X, const gf_axis *Y,
                           long long bx, long long by)
{
    gk_gauss_fft *c = gk_gauss_fft_of(job);
    double key[6];
    grid_key(g, key);
    pthread_mutex_lock(&c->mu);
    for (;;) {
        gf_entry *e = c->head;
        for (; e; e = e->next)
            if (e->bx == bx && e->by == by && !memcmp(e->key, key, sizeof key))
                break;
        if (e && e->ready) {
            e->used = ++c->clock;
            return e;
        }
        if (e) { /* another thread computes it */
            pthread_cond_wait(&c->cv, &c->mu);
            continue;
        }
        const long long x0 = bx * X->cells, y0 = by * Y->cells;
        const int w = (int)(x0 + X->cells <= g->nx ? X->cells : g->nx - x0);
        const int h = (int)(y0 + Y->cells <= g->ny ? Y->cells : g->ny - y0);
        /* room: the least recently used ready blocks go */
        while (c->bytes + (size_t)w * h * sizeof(double) > GF_CACHE_BYTES) {
            gf_entry *old = NULL;
            for (gf_entry *q = c->head; q; q = q->next)
                if (q->ready && (!old || q->used < old->used))
                    old = q;
            if (!old)
                break;
            drop(c, old);
        }
        e = calloc(1, sizeof *e);
        if (!e) {
            pthread_mutex_unlock(&c->mu);
            return NULL;
        }
        memcpy(e->key, key, sizeof key);
        e->bx = bx, e->by = by, e->w = w, e->h = h;
        e->left = (long long)w * h;
        e->next = c->head;
        c->head = e;
        c->bytes += (size_t)w * h * sizeof(double);
        pthread_mutex_unlock(&c->mu);
        double *v = malloc((size_t)w * h * sizeof *v);
        int bad = !v || block_values(job, g, X, Y, bx, by, w, h, v);
        pthread_mutex_lock(&c->mu);
        if (bad) {
            free(v);
            drop(c, e);
            pthread_cond_broadcast(&c->cv);
            pthread_mutex_unlock(&c->mu);
            return NULL;
        }
        e->v = v, e->ready = 1, e->used = ++c->clock;
        pthread_cond_broadcast(&c->cv);
        return e;
    }
}

uint64_t gk_gauss_fft_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s,
                           gk_tile_fn cutoff_tile)
{
    const gk_algorithm *a = &job->alg;
    const gk_grid *g = t->g;
    const double cw = (g->xmax - g->xmin) / g->nx, ch = (g->ymax - g->ymin) / g->ny;
    const double sx = gk_gauss_of(a)->sigma,
                 sy = isnan(gk_gauss_of(a)->sigma_y) ? sx : gk_gauss_of(a)->sigma_y;
    const double k = sqrt(2.0 * log(1.0 / gk_gauss_of(a)->epsilon)) * (1.0 + 1e-9);
    gf_axis X, Y;
    memset(&Y, 0, sizeof Y);
    int rx = axis_init(&X, cw, sx, sx * k), ry = rx ? 1 : axis_init(&Y, ch, sy, sy * k);
    if (rx < 0 || ry < 0) {
        axis_free(&X), axis_free(&Y);
        return UINT64_MAX;
    }
    if (rx || ry) { /* cells too coarse for a lattice: the cut-off sum */
        axis_free(&X), axis_free(&Y);
        return cutoff_tile(job, t, out, s);
    }
    uint64_t rc = 0;
    const long long bx0 = t->x0 / X.cells, bx1 = (t->x0 + t->w - 1) / X.cells;
    const long long by0 = t->y0 / Y.cells, by1 = (t->y0 + t->h - 1) / Y.cells;
    for (long long by = by0; by <= by1 && !rc; by++)
        for (long long bx = bx0; bx <= bx1 && !rc; bx++) {
            gf_entry *e = block_get(job, g, &X, &Y, bx, by);
            if (!e) {
                rc = UINT64_MAX;
                break;
            }
            /* the tile's cells in the block */
            const long long ex0 = bx * X.cells, ey0 = by * Y.cells;
            const long long i0 = ex0 > t->x0 ? ex0 : t->x0, j0 = ey0 > t->y0 ? ey0 : t->y0;
            const long long i1 = ex0 + e->w < t->x0 + t->w ? ex0 + e->w : t->x0 + t->w;
            const long long j1 = ey0 + e->h < t->y0 + t->h ? ey0 + e->h : t->y0 + t->h;
            for (long long j = j0; j < j1; j++)
                memcpy(out + (size_t)(j - t->y0) * t->w + (i0 - t->x0),
                       e->v + (size_t)(j - ey0) * e->w + (i0 - ex0),
                       (size_t)(i1 - i0) * sizeof *out);
            /* every cell taken once (a run): the block goes */
            e->left -= (i1 - i0) * (j1 - j0);
            if (e->left <= 0)
                drop(gk_gauss_fft_of(job), e);
            pthread_mutex_unlock(&gk_gauss_fft_of(job)->mu);
        }
    axis_free(&X), axis_free(&Y);
    return rc;
}
