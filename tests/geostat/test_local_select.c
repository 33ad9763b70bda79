/* SPDX-License-Identifier: MIT */
/* test_local_select.c - gstat's neighbourhood as gk_local_select finds it
 * (geostat/local_select.h: a bound from the thread's previous node, the
 * candidates from a cache of the points near a recent node) against every
 * point ranked by (squared distance, index): the same set and the same
 * largest squared distance at every node of row-by-row walks over windows,
 * as the tiles walk them. Scattered points, duplicated sites, a lattice
 * (equal distances everywhere) at map-sized coordinates with steps of a
 * tenth of its spacing, and a radius. */
#include "core/gk_internal.h"
#include "geostat/local_select.h"
#include "gridkit.h"
#include "search/index.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gk_check.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

typedef struct {
    double d2;
    int id;
} ranked;

static int by_d2_id(const void *a, const void *b)
{
    const ranked *p = a, *q = b;
    if (p->d2 != q->d2)
        return p->d2 < q->d2 ? -1 : 1;
    return (p->id > q->id) - (p->id < q->id);
}

static int by_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Every point ranked: the k first within maxdist (0: none) as a sorted set;
 * their count; *dk the largest squared distance among them. */
static int brute(const gk_points *p, double nx, double ny, int k, double maxdist, ranked *r,
                 int *set, double *dk)
{
    int n = 0;
    for (size_t i = 0; i < p->n; i++) {
        double dx = p->x[i] - nx, dy = p->y[i] - ny, d = dx * dx + dy * dy;
        if (maxdist > 0 && !(d <= maxdist * maxdist))
            continue;
        r[n].d2 = d;
        r[n].id = (int)i;
        n++;
    }
    qsort(r, (size_t)n, sizeof *r, by_d2_id);
    int m = n < k ? n : k;
    *dk = m ? r[m - 1].d2 : 0.0;
    for (int i = 0; i < m; i++)
        set[i] = r[i].id;
    qsort(set, (size_t)m, sizeof *set, by_int);
    return m;
}

/* Windows of the grid walked row by row as a tile walks them (a row's first
 * node starts from the last row's first), each with a fresh thread state. */
static void walk(const char *what, gk_points *pts, double x0, double y0, double step, int nx,
                 int ny, int k, double maxdist)
{
    gk_context *ctx = gk_context_new();
    gk_context_set_device(ctx, "cpu");
    char spec[128];
    snprintf(spec, sizeof spec, "polynomial:degree=0:max_points=%d", k);
    gk_algorithm *alg = gk_algorithm_parse(ctx, spec);
    gk_job *job = alg ? gk_job_new(ctx, pts, alg) : NULL;
    CHECKF(job && gk_index_tree(job) == GK_OK, "%s: a job", what);
    if (!job || !job->tree) {
        gk_algorithm_free(alg);
        gk_context_free(ctx);
        return;
    }
    const gk_points *p = job->pts;
    ranked *r = malloc(p->n * sizeof *r);
    int *set = malloc(p->n * sizeof *set), *got = malloc(p->n * sizeof *got);
    gk_scratch s = {0};
    const gk_local_nb nb = {k, 0, 0, maxdist};
    int bad = 0, nodes = 0;
    const int win[][4] = {{0, 0, nx, ny}, {nx / 3, ny / 4, nx / 2, ny / 2}, {nx - 7, 1, 7, ny - 1}};
    for (int w = 0; w < 3; w++) {
        gk_local_prev pv = {0}, pvrow = {0};
        for (int j = win[w][1]; j < win[w][1] + win[w][3]; j++)
            for (int i = win[w][0]; i < win[w][0] + win[w][2]; i++) {
                double gx = x0 + step * i, gy = y0 + step * j, dk;
                if (i == win[w][0])
                    pv = pvrow;
                long m = gk_local_select(job, &nb, gx, gy, &s, &pv);
                if (i == win[w][0])
                    pvrow = pv;
                int mb = brute(p, gx, gy, k, maxdist, r, set, &dk);
                nodes++;
                int ok = m == mb;
                if (ok && m > 0) {
                    memcpy(got, s.idx, (size_t)m * sizeof *got);
                    qsort(got, (size_t)m, sizeof *got, by_int);
                    ok = !memcmp(got, set, (size_t)m * sizeof *got) && s.d2[m - 1] == dk;
                }
                if (!ok && bad++ < 3)
                    fprintf(stderr, "%s: node (%d, %d): %ld points, every point ranked: %d\n", what,
                            i, j, m, mb);
            }
    }
    CHECKF(bad == 0, "%s: %d of %d nodes select another set", what, bad, nodes);
    gk_scratch_free(&s);
    free(r), free(set), free(got);
    gk_job_free(job);
    gk_algorithm_free(alg);
    gk_context_free(ctx);
}

int main(void)
{
    gk_context *ctx = gk_context_new();
    gk_points *sc = gk_points_new(ctx), *dup = gk_points_new(ctx), *lat = gk_points_new(ctx);
    for (int i = 0; i < 3000; i++)
        gk_points_add(sc, 10000.0 * urand(), 10000.0 * urand(), 1.0);
    for (int i = 0; i < 400; i++) { /* every site three times */
        double x = 5000.0 * urand(), y = 5000.0 * urand();
        for (int c = 0; c < 3; c++)
            gk_points_add(dup, x, y, c);
    }
    for (int j = 0; j < 30; j++) /* 1 m apart, 650 km east, 5,900 km north */
        for (int i = 0; i < 30; i++)
            gk_points_add(lat, 650000.0 + i, 5900000.0 + j, i + j);

    walk("scattered, 16", sc, 0.0, 0.0, 103.0, 97, 89, 16, 0.0);
    walk("scattered, 32", sc, -500.0, 0.0, 113.0, 98, 90, 32, 0.0);
    walk("scattered, 5", sc, 0.0, 0.0, 211.0, 47, 49, 5, 0.0);
    walk("scattered, 100", sc, 0.0, 0.0, 317.0, 33, 31, 100, 0.0);
    walk("scattered, 16 within 300", sc, 0.0, 0.0, 103.0, 97, 89, 16, 300.0);
    walk("duplicates, 12", dup, -100.0, -100.0, 57.0, 91, 93, 12, 0.0);
    walk("lattice, 20", lat, 649995.0, 5899995.0, 0.1, 400, 60, 20, 0.0);
    walk("lattice, 9", lat, 650003.0, 5900003.0, 0.25, 97, 33, 9, 0.0);

    gk_points_free(sc);
    gk_points_free(dup);
    gk_points_free(lat);
    gk_context_free(ctx);
    printf("test_local_select: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
