/* SPDX-License-Identifier: MIT */
/*
 * variogram.c - sample variograms as gstat's variogram() computes them
 * (sem.c, direct.c): pairs (i, j), j < i, separation e = p_i - p_j, distance
 * sqrt(ex^2 + ey^2) <= cutoff; class floor(d / w) except that an exact
 * multiple d = m w (d > 0) goes to class m - 1; zero distances in class 0.
 *
 * Pairs are found by brute force or, when the cutoff circle covers a small
 * part of the data extent, with the k-d tree. The i range is cut into fixed
 * blocks (independent of the thread count), each block sums into its own
 * histogram and the blocks are merged in order: the result is the same for
 * any number of threads.
 */
#include "gridkit_geostat.h"
#include "core/device.h"
#include "core/gk_internal.h"
#include "search/kdtree.h"

#include <math.h>
#include <omp.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* gstat's PI (utils.h), not pi: pairs exactly on a tolerance boundary
 * (|dx| = |dy| on integer coordinates) fall on the same side as in gstat */
#define GSTAT_PI 3.14159265359

typedef struct {
    uint64_t np;
    double sd; /* sum of distances */
    double sg; /* sum of (dz)^2, or of sqrt|dz| (Cressie) */
} vgm_bin;

typedef struct {
    const double *x, *y, *z;
    int ndir;
    int all_dirs[GK_VGM_MAX_DIRECTIONS]; /* tolerance >= 90: every pair */
    double ux[GK_VGM_MAX_DIRECTIONS], uy[GK_VGM_MAX_DIRECTIONS];
    double cos_tol;
    double bandwidth; /* <= 0: none */
    double cutoff, width;
    int ncls;
    int cressie;
} vgm_setup;

/* gstat's get_index() */
static inline int class_index(double d, double w)
{
    double frac = d / w;
    double f = floor(frac);
    if (d > 0.0 && frac == f)
        return (int)f - 1;
    return (int)f;
}

static inline void add_pair(const vgm_setup *s, vgm_bin *h, size_t i, size_t j)
{
    double px = s->x[i] - s->x[j], py = s->y[i] - s->y[j];
    double d = sqrt(px * px + py * py);
    if (d > s->cutoff)
        return;
    int k = class_index(d, s->width);
    if (k >= s->ncls) /* cannot happen for d <= cutoff; belt and braces */
        return;
    double dz = s->z[i] - s->z[j];
    double g = s->cressie ? sqrt(fabs(dz)) : dz * dz;
    for (int a = 0; a < s->ndir; a++) {
        if (!s->all_dirs[a] && (px != 0.0 || py != 0.0)) {
            /* direct.c: |e.u| / |e| >= cos(tol), symmetric */
            double inprod = (px * s->ux[a] + py * s->uy[a]) / d;
            if (fabs(inprod) < s->cos_tol)
                continue;
        }
        if (s->bandwidth > 0.0 && fabs(px * s->uy[a] - py * s->ux[a]) > s->bandwidth)
            continue;
        vgm_bin *b = &h[(size_t)a * s->ncls + k];
        b->np++;
        b->sd += d;
        b->sg += g;
    }
}

/* Omnidirectional row i against j < i in two passes: distances and values
 * first (SSE2 where there is one: no errno branch around sqrt), then class
 * and scatter. The class is taken from d * (1/w) and redone with gstat's
 * exact d / w only where that lies within a hair of a class limit, so the
 * classes are add_pair's. */
static void row_values(size_t i, const double *x, const double *y, const double *z, int cressie,
                       double *db, double *gb)
{
    const double xi = x[i], yi = y[i], zi = z[i];
    size_t j = 0;
#if defined(__SSE2__)
    const __m128d vxi = _mm_set1_pd(xi), vyi = _mm_set1_pd(yi), vzi = _mm_set1_pd(zi);
    const __m128d sign = _mm_set1_pd(-0.0);
    for (; j + 2 <= i; j += 2) {
        __m128d px = _mm_sub_pd(vxi, _mm_loadu_pd(x + j));
        __m128d py = _mm_sub_pd(vyi, _mm_loadu_pd(y + j));
        __m128d d = _mm_sqrt_pd(_mm_add_pd(_mm_mul_pd(px, px), _mm_mul_pd(py, py)));
        __m128d dz = _mm_sub_pd(vzi, _mm_loadu_pd(z + j));
        __m128d g = cressie ? _mm_sqrt_pd(_mm_andnot_pd(sign, dz)) : _mm_mul_pd(dz, dz);
        _mm_storeu_pd(db + j, d);
        _mm_storeu_pd(gb + j, g);
    }
#endif
    for (; j < i; j++) {
        double px = xi - x[j], py = yi - y[j], dz = zi - z[j];
        db[j] = sqrt(px * px + py * py);
        gb[j] = cressie ? sqrt(fabs(dz)) : dz * dz;
    }
}

static void add_row_omni(const vgm_setup *s, vgm_bin *h, size_t i, double *db, double *gb)
{
    row_values(i, s->x, s->y, s->z, s->cressie, db, gb);
    const double inv_w = 1.0 / s->width, c = s->cutoff;
    const int trash = s->ncls;
    for (size_t j = 0; j < i; j++) {
        double d = db[j];
        double t = d * inv_w;
        int k = (int)(t < 2e9 ? t : 2e9); /* t >= 0: truncation = floor */
        double fr = t - (double)k;
        if (fr < 1e-9 || fr > 1.0 - 1e-9) /* rare: near a limit */
            k = class_index(d, s->width);
        k = d > c ? trash : k;
        vgm_bin *b = &h[k];
        b->np++;
        b->sd += d;
        b->sg += gb[j];
    }
}

/* The class sums on the GPU into hist (block 0): 1, 0 (the CPU does it) or
 * -1 (error in ctx). */
static int gpu_sums(gk_context *ctx, const vgm_setup *s, size_t n, vgm_bin *hist)
{
    gk_gpu_vgm v;
    memset(&v, 0, sizeof v);
    v.n = n;
    v.x = s->x;
    v.y = s->y;
    v.z = s->z;
    v.cutoff = s->cutoff;
    v.width = s->width;
    v.ncls = s->ncls;
    v.ndir = s->ndir;
    v.cressie = s->cressie;
    for (int a = 0; a < s->ndir; a++) {
        v.all_dirs[a] = s->all_dirs[a];
        v.ux[a] = s->ux[a];
        v.uy[a] = s->uy[a];
    }
    v.cos_tol = s->cos_tol;
    v.bandwidth = s->bandwidth;
    size_t nb = (size_t)s->ndir * s->ncls;
    double *buf = malloc(3 * nb * sizeof *buf);
    if (!buf)
        return gk_error(ctx, GK_ERR_NOMEM, "variogram: out of memory"), -1;
    int rc = gk_device_variogram(ctx, &v, buf, buf + nb, buf + 2 * nb);
    if (rc == 1)
        for (size_t k = 0; k < nb; k++) {
            hist[k].np = (uint64_t)buf[k];
            hist[k].sd = buf[nb + k];
            hist[k].sg = buf[2 * nb + k];
        }
    free(buf);
    return rc;
}

void gk_vgm_free(gk_vgm *v)
{
    if (!v)
        return;
    free(v->azimuth);
    free(v->np);
    free(v->dist);
    free(v->gamma);
    memset(v, 0, sizeof *v);
}

/* Classes and directions from the options (gstat's defaults where not
 * given) into s; bb: the points' bounds (xmin, ymin, xmax, ymax); *nreport:
 * the classes reported. */
static int vgm_prepare(gk_context *ctx, const gk_vgm_options *o, const double *bb, vgm_setup *s,
                       int *nreport_out)
{
    double xmin = bb[0], ymin = bb[1], xmax = bb[2], ymax = bb[3];
    if (o->ndir < 0 || o->ndir > GK_VGM_MAX_DIRECTIONS)
        return gk_error(ctx, GK_ERR_ARG, "variogram: %d directions (at most %d)", o->ndir,
                        GK_VGM_MAX_DIRECTIONS);
    if (!isfinite(o->cutoff) || !isfinite(o->width) || !isfinite(o->tol_hor) ||
        !isfinite(o->bandwidth))
        return gk_error(ctx, GK_ERR_ARG,
                        "variogram: cutoff, width, tolerance and bandwidth "
                        "must be finite numbers");
    /* gstat: cutoff = 0.33333 x the bounding-box diagonal (DEF_fraction), width = cutoff/15 */
    double cutoff = o->cutoff;
    if (cutoff <= 0.0) {
        double dx = xmax - xmin, dy = ymax - ymin;
        double diag = sqrt(dx * dx + dy * dy);
        cutoff = diag == 0.0 ? 1.0 : diag * 0.33333;
    }
    double width = o->width;
    if (width <= 0.0)
        width = cutoff / (o->nlags > 0 ? o->nlags : 15);
    double nd = floor(cutoff / width) + 1.0;
    if (nd > 1e7)
        return gk_error(ctx, GK_ERR_ARG,
                        "variogram: cutoff %.15g / width %.15g gives %.15g classes, more than "
                        "the 10000000 allowed (choose a larger width or a smaller cutoff)",
                        cutoff, width, nd);
    int ncls = (int)nd;
    /* gstat allocates floor(cutoff/w) + 1 classes; when cutoff/w is a whole
     * number the last one can hold no pair (d = cutoff is an exact multiple),
     * so it is not reported. */
    int nreport = (cutoff / width == floor(cutoff / width)) ? ncls - 1 : ncls;
    if (nreport < 1)
        nreport = 1;
    *nreport_out = nreport;

    memset(s, 0, sizeof *s);
    s->cutoff = cutoff;
    s->width = width;
    s->ncls = ncls;
    s->cressie = o->estimator == GK_VGM_CRESSIE;
    s->bandwidth = o->bandwidth;
    s->ndir = o->ndir > 0 ? o->ndir : 1;
    double tol = o->tol_hor > 0.0 ? o->tol_hor : (o->ndir > 0 ? 90.0 / o->ndir : 90.0);
    if (tol > 180.0)
        return gk_error(ctx, GK_ERR_ARG, "variogram: tolerance %.15g must be in (0, 180]", tol);
    s->cos_tol = cos(tol * GSTAT_PI / 180.0);
    for (int a = 0; a < s->ndir; a++) {
        double az = o->ndir > 0 ? o->azimuth[a] : 0.0;
        if (!isfinite(az))
            return gk_error(ctx, GK_ERR_ARG, "variogram: direction %d is not a number", a + 1);
        s->ux[a] = sin(az * GSTAT_PI / 180.0);
        s->uy[a] = cos(az * GSTAT_PI / 180.0);
        s->all_dirs[a] = o->ndir == 0 || tol >= 90.0;
    }
    if (o->ndir == 0)
        s->bandwidth = 0.0; /* a bandwidth needs a direction */
    return GK_OK;
}

/* Row i's pairs (j < i) within the cutoff, from the tree into h; idx and d2
 * (*cap each) grow when needed. 0, or -1 when out of memory. */
static int add_row_tree(const vgm_setup *s, vgm_bin *h, size_t i, const gk_kdtree *tree, double r2,
                        int **idx, double **d2, size_t *cap)
{
    const double *x = s->x, *y = s->y;
    size_t got = gk_kdtree_radius(tree, x[i], y[i], r2, *idx, *d2, *cap);
    if (got > *cap) {
        size_t nc = got + got / 2;
        int *ni = realloc(*idx, nc * sizeof(int));
        if (ni)
            *idx = ni;
        double *nd2 = realloc(*d2, nc * sizeof(double));
        if (nd2)
            *d2 = nd2;
        if (!ni || !nd2)
            return -1;
        *cap = nc;
        got = gk_kdtree_radius(tree, x[i], y[i], r2, *idx, *d2, *cap);
    }
    /* the tree reports in a fixed order: sums stay deterministic */
    for (size_t a = 0; a < got; a++)
        if ((size_t)(*idx)[a] < i)
            add_pair(s, h, i, (size_t)(*idx)[a]);
    return 0;
}

/* Progress over this part's blocks, each weighed by its work (its pairs,
 * or its rows with the tree); the note on the all-pairs path (why, avoid)
 * said once, with its estimate, after the first block. */
typedef struct {
    gk_progress_fn fn;
    void *user;
    double total, done, t0;
    int noted;
    char what[160], why[200], avoid[160]; /* the note: what (about T here)why; avoid */
} vgm_progress;

/* The all-pairs note: weighed once the blocks have run this long (the
 * first ones pay for starting the threads), and said when the whole sum
 * would take at least the other. */
#define GK_VGM_NOTE_AFTER 0.5
#define GK_VGM_NOTE_SECONDS 2.0

/* w more of the work done: the callback, from one thread at a time; 0 when
 * it asks to stop. */
static int vgm_progress_add(vgm_progress *p, double w)
{
    int go = 1;
    if (!p || !p->fn)
        return 1;
#pragma omp critical(gk_vgm_progress)
    {
        p->done += w;
        char note[640];
        const char *msg = NULL;
        double elapsed = omp_get_wtime() - p->t0;
        /* until a note is weighed, nothing is reported: it comes first */
        int hold = p->what[0] && !p->noted;
        if (hold && (elapsed >= GK_VGM_NOTE_AFTER || p->done >= p->total)) {
            p->noted = 1;
            hold = 0;
            double est = p->done > 0 ? elapsed * (p->total / p->done) : 0.0;
            if (p->what[0] && p->done < p->total && est >= GK_VGM_NOTE_SECONDS) {
                char when[32];
                if (est < 3600)
                    snprintf(when, sizeof when, "%.0f s", est);
                else
                    snprintf(when, sizeof when, "%.1f h", est / 3600);
                snprintf(note, sizeof note, "%s (about %s here)%s%s%s", p->what, when, p->why,
                         p->avoid[0] ? "; " : "", p->avoid);
                msg = note;
            }
        }
        double f = p->total > 0 ? p->done / p->total : 1.0;
        go = hold || p->fn(f > 1.0 ? 1.0 : f, msg, p->user) != 0;
    }
    return go;
}

/* Block b's work: its pairs (j < i), or its rows where the tree finds them. */
static double block_work(const size_t *bstart, size_t b, int rows)
{
    double a = (double)bstart[b], e = (double)bstart[b + 1];
    return rows ? e - a : 0.5 * (e * (e - 1.0) - a * (a - 1.0));
}

/* The blocks of the i range on threads, each into its own histogram (hsize
 * bins); omni: no direction given. 0, 1 when out of memory, 2 when the
 * progress callback asked to stop. */
static int cpu_sums(const vgm_setup *s, size_t n, int omni, const gk_kdtree *tree, int threads,
                    vgm_bin *hist, size_t hsize, const size_t *bstart, size_t nblocks, int part,
                    int parts, vgm_progress *vp)
{
    int use_tree = tree != NULL, failed = 0;
    double r2 = s->cutoff * s->cutoff * (1.0 + 1e-9); /* the exact test follows in add_pair */

#pragma omp parallel num_threads(threads)
    {
        size_t cap = use_tree ? 1024 : 0;
        int *idx = use_tree ? malloc(cap * sizeof(int)) : NULL;
        double *d2 = use_tree ? malloc(cap * sizeof(double)) : NULL;
        int fast = !use_tree && omni;
        double *db = fast ? malloc(n * sizeof(double)) : NULL;
        double *gb = fast ? malloc(n * sizeof(double)) : NULL;
        if ((use_tree && (!idx || !d2)) || (fast && (!db || !gb))) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (long b = 0; b < (long)nblocks; b++) {
            int bad;
#pragma omp atomic read
            bad = failed;
            if (bad || b % parts != part) /* another process's block */
                continue;
            vgm_bin *h = hist + (size_t)b * hsize;
            for (size_t i = bstart[b]; i < bstart[b + 1]; i++) {
                if (fast) {
                    add_row_omni(s, h, i, db, gb);
                    continue;
                }
                if (!use_tree) {
                    for (size_t j = 0; j < i; j++)
                        add_pair(s, h, i, j);
                    continue;
                }
                if (add_row_tree(s, h, i, tree, r2, &idx, &d2, &cap)) {
#pragma omp atomic write
                    failed = 1;
                    break;
                }
            }
            if (!vgm_progress_add(vp, block_work(bstart, (size_t)b, use_tree))) {
#pragma omp atomic write
                failed = 2;
            }
        }
        free(idx);
        free(d2);
        free(db);
        free(gb);
    }
    return failed;
}

/* The sums of every class, per block (*nblocks_out histograms of
 * s->ndir * s->ncls + 1 bins): on the context's GPU when it has one (all
 * in block 0; part 0 only), else on the CPU in fixed blocks, those with
 * b % parts == part. bb: the points' bounds. */
static int vgm_block_sums(gk_context *ctx, const vgm_setup *s, size_t n, int omni, const double *bb,
                          int part, int parts, int where, vgm_progress *vp, vgm_bin **hist_out,
                          size_t *nblocks_out, int *on_gpu_out)
{
    double xmin = bb[0], ymin = bb[1], xmax = bb[2], ymax = bb[3];
    /* one spare class per histogram collects the omni fast path's far pairs */
    size_t hsize = (size_t)s->ndir * s->ncls + 1;
    /* fixed blocks of the i range, as many as memory for their histograms allows */
    size_t nblocks = 256;
    while (nblocks > 1 && nblocks * hsize * sizeof(vgm_bin) > ((size_t)64 << 20))
        nblocks /= 2;
    if (nblocks > n)
        nblocks = n;
    vgm_bin *hist = calloc(nblocks * hsize, sizeof(vgm_bin));
    size_t *bstart = malloc((nblocks + 1) * sizeof(size_t));
    if (!hist || !bstart) {
        free(hist);
        free(bstart);
        return gk_error(ctx, GK_ERR_NOMEM, "variogram: out of memory");
    }
    /* pairs j < i: block boundaries at n sqrt(b / B) even out the triangle */
    for (size_t b = 0; b <= nblocks; b++)
        bstart[b] = (size_t)((double)n * sqrt((double)b / (double)nblocks));
    bstart[nblocks] = n;

    /* the context's GPU, when it has one (device_calls.c): the sums of every class */
    *nblocks_out = nblocks;
    int on_gpu = where != GK_VGM_CPU ? gpu_sums(ctx, s, n, hist) : 0;
    *on_gpu_out = on_gpu > 0;
    if (on_gpu < 0) {
        free(hist);
        free(bstart);
        return gk_errno(ctx);
    }
    if (on_gpu && vp->fn && !vp->fn(1.0, NULL, vp->user)) {
        free(hist);
        free(bstart);
        return gk_error(ctx, GK_ERR_CANCELLED, "variogram: cancelled");
    }
    if (on_gpu || where == GK_VGM_GPU)
        nblocks = 0; /* nothing for the CPU */
    /* the k-d tree pays when the cutoff circle covers little of the extent */
    double area = (xmax - xmin) * (ymax - ymin), cutoff = s->cutoff;
    int use_tree = !on_gpu && n > 2000 && area > 0.0 && GSTAT_PI * cutoff * cutoff < 0.15 * area;
    int threads = gk_context_threads(ctx);
    if (threads <= 0)
        threads = omp_get_num_procs();
    if (nblocks > 0 && vp->fn) {
        for (size_t b = (size_t)part; b < nblocks; b += (size_t)parts)
            vp->total += block_work(bstart, b, use_tree);
        if (!use_tree && n > 2000 && area > 0.0) {
            /* every pair compared because the cutoff is long against the
             * extent: a shorter one lets the tree find the pairs */
            snprintf(vp->what, sizeof vp->what, "variogram of %zu points: comparing all %.3g pairs",
                     n, 0.5 * (double)n * (double)(n - 1));
            snprintf(vp->why, sizeof vp->why,
                     ", as the cutoff circle (radius %.6g) covers %.0f%% of their extent", cutoff,
                     100.0 * GSTAT_PI * cutoff * cutoff / area);
            snprintf(vp->avoid, sizeof vp->avoid,
                     "a --cutoff below %.6g (15%%) lets a k-d tree find the pairs",
                     sqrt(0.15 * area / GSTAT_PI));
        }
        vp->t0 = omp_get_wtime();
        if (!vp->fn(0.0, NULL, vp->user)) {
            free(hist);
            free(bstart);
            return gk_error(ctx, GK_ERR_CANCELLED, "variogram: cancelled");
        }
    }
    gk_kdtree *tree = NULL;
    if (use_tree && nblocks > 0)
        tree = gk_kdtree_build(s->x, s->y, n);
    int failed = cpu_sums(s, n, omni, tree, threads, hist, hsize, bstart, nblocks, part, parts, vp);
    gk_kdtree_free(tree);
    free(bstart);
    if (failed) {
        free(hist);
        return failed == 2 ? gk_error(ctx, GK_ERR_CANCELLED, "variogram: cancelled")
                           : gk_error(ctx, GK_ERR_NOMEM, "variogram: out of memory");
    }
    *hist_out = hist;
    return GK_OK;
}

/* The blocks merged in order into block 0: the same additions whoever
 * summed each block. */
static void merge_blocks(vgm_bin *hist, size_t hsize, size_t nblocks)
{
    for (size_t b = 1; b < nblocks; b++) {
        vgm_bin *src = hist + b * hsize;
        for (size_t k = 0; k < hsize; k++) {
            hist[k].np += src[k].np;
            hist[k].sd += src[k].sd;
            hist[k].sg += src[k].sg;
        }
    }
}

/* The reported classes' pair counts, mean distances and semivariances. */
static int vgm_output(gk_context *ctx, const vgm_setup *s, const vgm_bin *hist,
                      const gk_vgm_options *o, int nreport, gk_vgm *out)
{
    int ncls = s->ncls;
    out->ndir = s->ndir;
    out->nlags = nreport;
    out->cutoff = s->cutoff;
    out->width = s->width;
    size_t nout = (size_t)s->ndir * nreport;
    out->azimuth = malloc(s->ndir * sizeof(double));
    out->np = malloc(nout * sizeof(double));
    out->dist = malloc(nout * sizeof(double));
    out->gamma = malloc(nout * sizeof(double));
    if (!out->azimuth || !out->np || !out->dist || !out->gamma) {
        gk_vgm_free(out);
        return gk_error(ctx, GK_ERR_NOMEM, "variogram: out of memory");
    }
    for (int a = 0; a < s->ndir; a++) {
        out->azimuth[a] = o->ndir > 0 ? o->azimuth[a] : NAN;
        for (int k = 0; k < nreport; k++) {
            const vgm_bin *b = &hist[(size_t)a * ncls + k];
            size_t q = (size_t)a * nreport + k;
            out->np[q] = (double)b->np;
            if (b->np == 0) {
                out->dist[q] = NAN;
                out->gamma[q] = NAN;
                continue;
            }
            double nn = (double)b->np;
            out->dist[q] = b->sd / nn;
            if (s->cressie) /* gstat's divide(): no 0.045/N^2 term */
                out->gamma[q] = 0.5 * pow(b->sg / nn, 4.0) / (0.457 + 0.494 / nn);
            else
                out->gamma[q] = b->sg / (2.0 * nn);
        }
    }
    return GK_OK;
}

/* A variogram's points and options, checked, and its classes set up. */
typedef struct {
    gk_vgm_options o;
    vgm_setup s;
    int nreport;
    double bb[4];
    size_t n;
} vgm_run;

static int vgm_begin(gk_context *ctx, const gk_points *pts, const gk_vgm_options *opt, vgm_run *r)
{
    memset(r, 0, sizeof *r);
    if (opt)
        r->o = *opt;
    size_t n = pts ? gk_points_count(pts) : 0;
    if (n == 0)
        return gk_error(ctx, GK_ERR_NO_POINTS, "variogram: no points");
    if (n < 2)
        return gk_error(ctx, GK_ERR_NO_POINTS, "variogram: needs at least 2 points, got 1");
    const double *x = gk_points_x(pts), *y = gk_points_y(pts), *z = gk_points_z(pts);
    gk_points_bounds(pts, &r->bb[0], &r->bb[1], &r->bb[2], &r->bb[3]);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(z[i]))
            return gk_error(ctx, GK_ERR_ARG, "variogram: point %zu has a non-finite value", i + 1);
    int rc = vgm_prepare(ctx, &r->o, r->bb, &r->s, &r->nreport);
    if (rc)
        return rc;
    r->s.x = x;
    r->s.y = y;
    r->s.z = z;
    r->n = n;
    return GK_OK;
}

int gk_variogram(gk_context *ctx, const gk_points *pts, const gk_vgm_options *opt, gk_vgm *out)
{
    memset(out, 0, sizeof *out);
    gk_vgm_blocks b;
    int rc = gk_variogram_blocks(ctx, pts, opt, 0, 1, GK_VGM_ANY, &b);
    if (!rc)
        rc = gk_variogram_merge(ctx, pts, opt, &b, out);
    gk_vgm_blocks_free(&b);
    return rc;
}

int gk_variogram_blocks(gk_context *ctx, const gk_points *pts, const gk_vgm_options *opt, int part,
                        int parts, int where, gk_vgm_blocks *out)
{
    return gk_variogram_blocks_ex(ctx, pts, opt, part, parts, where, NULL, NULL, out);
}

int gk_variogram_blocks_ex(gk_context *ctx, const gk_points *pts, const gk_vgm_options *opt,
                           int part, int parts, int where, gk_progress_fn progress,
                           void *progress_user, gk_vgm_blocks *out)
{
    memset(out, 0, sizeof *out);
    if (parts < 1 || part < 0 || part >= parts)
        return gk_error(ctx, GK_ERR_ARG, "variogram: part %d of %d", part, parts);
    vgm_run r;
    int rc = vgm_begin(ctx, pts, opt, &r);
    if (rc)
        return rc;
    vgm_bin *hist = NULL;
    size_t nblocks = 0;
    int on_gpu = 0;
    vgm_progress vp;
    memset(&vp, 0, sizeof vp);
    vp.fn = progress;
    vp.user = progress_user;
    if ((rc = vgm_block_sums(ctx, &r.s, r.n, r.o.ndir == 0, r.bb, part, parts, where, &vp, &hist,
                             &nblocks, &on_gpu)))
        return rc;
    out->on_gpu = on_gpu;
    out->nblocks = nblocks;
    out->hsize = (size_t)r.s.ndir * r.s.ncls + 1;
    out->bytes = nblocks * out->hsize * sizeof(vgm_bin);
    out->data = hist;
    return GK_OK;
}

void gk_vgm_blocks_add(gk_vgm_blocks *to, const void *from, int part, int parts)
{
    vgm_bin *h = to->data;
    const vgm_bin *f = from;
    for (size_t b = (size_t)part; b < to->nblocks; b += (size_t)parts)
        memcpy(h + b * to->hsize, f + b * to->hsize, to->hsize * sizeof *h);
}

int gk_variogram_merge(gk_context *ctx, const gk_points *pts, const gk_vgm_options *opt,
                       gk_vgm_blocks *blocks, gk_vgm *out)
{
    memset(out, 0, sizeof *out);
    vgm_run r;
    int rc = vgm_begin(ctx, pts, opt, &r);
    if (rc)
        return rc;
    if (!blocks->data || blocks->hsize != (size_t)r.s.ndir * r.s.ncls + 1)
        return gk_error(ctx, GK_ERR_INTERNAL, "variogram: blocks of another setup");
    merge_blocks(blocks->data, blocks->hsize, blocks->nblocks);
    return vgm_output(ctx, &r.s, blocks->data, &r.o, r.nreport, out);
}

void gk_vgm_blocks_free(gk_vgm_blocks *b)
{
    if (b) {
        free(b->data);
        memset(b, 0, sizeof *b);
    }
}
