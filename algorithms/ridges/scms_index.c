/* SPDX-License-Identifier: MIT */
/*
 * scms_index.c - points binned for the kernel sums and neighbour searches
 * of `density` (scms_index.h; the order is scms_step.h's).
 */
#include "ridges/scms_index.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t key;
    uint32_t i;
} keyed;

/* kd (in index order) into (key, index) order: a stable LSD radix sort on
 * the key, 16 bits a pass, only over the bits the largest key has (qsort
 * took 0.2 s of a million points); up to 256 points an insertion sort, as
 * stable. 0, or 1 when out of memory. */
static int sort_keyed(keyed *kd, size_t n)
{
    if (n <= 256) { /* a stable insertion sort: the radix sort's 512 KB of counts outweigh it */
        for (size_t i = 1; i < n; i++) {
            keyed v = kd[i];
            size_t j = i;
            for (; j > 0 && kd[j - 1].key > v.key; j--)
                kd[j] = kd[j - 1];
            kd[j] = v;
        }
        return 0;
    }
    uint64_t top = 0;
    for (size_t i = 0; i < n; i++)
        top = kd[i].key > top ? kd[i].key : top;
    keyed *tmp = malloc(n * sizeof *tmp);
    size_t *cnt = malloc(65536 * sizeof *cnt);
    if (!tmp || !cnt) {
        free(tmp);
        free(cnt);
        return 1;
    }
    keyed *src = kd, *dst = tmp;
    for (int shift = 0; shift < 64 && (top >> shift); shift += 16) {
        memset(cnt, 0, 65536 * sizeof *cnt);
        for (size_t i = 0; i < n; i++)
            cnt[(src[i].key >> shift) & 0xFFFF]++;
        size_t sum = 0;
        for (size_t d = 0; d < 65536; d++) {
            size_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[cnt[(src[i].key >> shift) & 0xFFFF]++] = src[i];
        keyed *t = src;
        src = dst;
        dst = t;
    }
    if (src != kd)
        memcpy(kd, src, n * sizeof *kd);
    free(tmp);
    free(cnt);
    return 0;
}

/* The grid's corner and bins per axis; 2 when an axis has too many bins. */
static int bins_geometry(gk_scms_index *ix, int dim, size_t n, const double *p, double side)
{
    double lim = dim == 3 ? 2097152.0 : 2147483648.0; /* 2^21, 2^31: keys fit 64 bits */
    ix->dim = dim;
    ix->side = side;
    ix->nc[2] = 1;
    ix->origin[2] = 0.0;
    for (int k = 0; k < dim; k++) {
        double lo = p[k], hi = p[k];
        for (size_t i = 1; i < n; i++) {
            double v = p[i * (size_t)dim + k];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        double cells = floor((hi - lo) / side) + 1.0;
        if (!(side > 0.0) || !(cells < lim))
            return 2;
        ix->origin[k] = lo;
        ix->nc[k] = (int64_t)cells;
    }
    return 0;
}

static uint64_t key_of(const gk_scms_index *ix, const double *q)
{
    int64_t c[3] = {0, 0, 0};
    for (int k = 0; k < ix->dim; k++) {
        c[k] = gk_scms_cell(ix, q[k], k);
        c[k] = c[k] < 0 ? 0 : c[k] >= ix->nc[k] ? ix->nc[k] - 1 : c[k];
    }
    return ((uint64_t)c[2] * (uint64_t)ix->nc[1] + (uint64_t)c[1]) * (uint64_t)ix->nc[0] +
           (uint64_t)c[0];
}

/* Sorted copies, bins and their starts from the sorted keys kd. */
static int bins_fill(gk_scms_bins *b, int dim, size_t n, const double *p, const double *w,
                     const keyed *kd)
{
    b->ps = malloc(n * (size_t)dim * sizeof(double));
    b->ws = w ? malloc(n * sizeof(double)) : NULL;
    b->order = malloc(n * sizeof(uint32_t));
    b->key = malloc(n * sizeof(uint64_t));
    b->start = malloc((n + 1) * sizeof(size_t));
    if (!b->ps || (w && !b->ws) || !b->order || !b->key || !b->start)
        return 1;
    size_t nb = 0;
    for (size_t s = 0; s < n; s++) {
        uint32_t i = kd[s].i;
        memcpy(b->ps + s * (size_t)dim, p + (size_t)i * (size_t)dim, (size_t)dim * sizeof(double));
        if (w)
            b->ws[s] = w[i];
        b->order[s] = i;
        if (s == 0 || kd[s].key != kd[s - 1].key) {
            b->key[nb] = kd[s].key;
            b->start[nb++] = s;
        }
    }
    b->start[nb] = n;
    b->ix.n_bins = nb;
    b->ix.key = b->key;
    b->ix.start = b->start;
    b->ix.ps = b->ps;
    b->ix.ws = b->ws;
    return 0;
}

int gk_scms_bins_build(gk_scms_bins *b, int dim, size_t n, const double *p, const double *w,
                       double side)
{
    memset(b, 0, sizeof *b);
    if (n == 0 || n > UINT32_MAX)
        return n == 0 ? 2 : 1;
    int rc = bins_geometry(&b->ix, dim, n, p, side);
    if (rc)
        return rc;
    keyed *kd = malloc(n * sizeof(keyed));
    if (!kd)
        return 1;
    for (size_t i = 0; i < n; i++) {
        kd[i].key = key_of(&b->ix, p + i * (size_t)dim);
        kd[i].i = (uint32_t)i;
    }
    rc = sort_keyed(kd, n) ? 1 : bins_fill(b, dim, n, p, w, kd);
    free(kd);
    if (rc)
        gk_scms_bins_free(b);
    return rc;
}

void gk_scms_bins_free(gk_scms_bins *b)
{
    free(b->key);
    free(b->start);
    free(b->ps);
    free(b->ws);
    free(b->order);
    memset(b, 0, sizeof *b);
}

void gk_scms_bins_visit(const gk_scms_bins *b, const double *x, gk_scms_visit_fn fn, void *user)
{
    const gk_scms_index *ix = &b->ix;
    int dim = ix->dim;
    int64_t c[3] = {0, 0, 0};
    for (int k = 0; k < dim; k++)
        c[k] = gk_scms_cell(ix, x[k], k);
    int64_t z0 = dim == 3 ? c[2] - 1 : 0, z1 = dim == 3 ? c[2] + 1 : 0;
    for (int64_t z = z0; z <= z1; z++)
        for (int64_t y = c[1] - 1; y <= c[1] + 1; y++) {
            size_t s, e;
            if (!gk_scms_row(ix, y, z, c[0] - 1, c[0] + 1, &s, &e))
                continue;
            for (size_t i = s; i < e; i++)
                if (fn(b->order[i], user))
                    return;
        }
}
