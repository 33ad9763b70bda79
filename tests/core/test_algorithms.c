/* SPDX-License-Identifier: MIT */
/* test_algorithms.c - the k-d tree against brute force, the neighbourhood
 * selection, and every search-based algorithm on hand-checked cases and
 * against independent brute-force implementations written here. One program
 * from the families' files (see core/algo_harness.h); this one holds every
 * algorithm's whole tiles against brute force, and main. The benchmark that
 * was `test_algorithms bench` is tests/bench/bench_algorithms.c. */
#include "core/algo_harness.h"
#include "core/method.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- whole tiles against brute force ----------------------------------------------- */

static int bf_inside(const gk_ellipse *e, double dx, double dy)
{
    return gk_ellipse_contains(e, dx, dy);
}

/* Brute-force value of one node; returns 0 for nodata. */
static int bf_node(const gk_algorithm *a, const gk_ellipse *e, const pset *p, double nx, double ny,
                   double *v, cand *c)
{
    size_t n = 0;
    double s2 = a->smoothing * a->smoothing;
    for (size_t i = 0; i < p->n; i++) {
        double dx = p->x[i] - nx, dy = p->y[i] - ny;
        int in = a->kind == GK_ALG_INVDISTNN ? dx * dx + dy * dy <= a->radius1 * a->radius1
                                             : bf_inside(e, dx, dy);
        if (in) {
            c[n].d2 = dx * dx + dy * dy;
            c[n].idx = (int)i;
            n++;
        }
    }
    switch (a->kind) {
    case GK_ALG_INVDIST:
    case GK_ALG_INVDISTNN: {
        for (size_t i = 0; i < n; i++) /* c is in input order here */
            if (c[i].d2 + s2 < HIT2) {
                *v = p->z[c[i].idx];
                return 1;
            }
        qsort(c, n, sizeof *c, cand_cmp);
        size_t m = a->max_points > 0 && (size_t)a->max_points < n ? (size_t)a->max_points : n;
        if (m == 0 || m < (size_t)a->min_points)
            return 0;
        double num = 0, den = 0;
        for (size_t i = 0; i < m; i++) {
            double w = pow(c[i].d2 + s2, -a->power / 2);
            num += w * p->z[c[i].idx];
            den += w;
        }
        *v = num / den;
        return 1;
    }
    case GK_ALG_AVERAGE: {
        if (n == 0 || n < (size_t)a->min_points)
            return 0;
        double sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += p->z[c[i].idx];
        *v = sum / n;
        return 1;
    }
    case GK_ALG_NEAREST: {
        if (n == 0)
            return 0;
        size_t b = 0;
        for (size_t i = 1; i < n; i++)
            if (c[i].d2 <= c[b].d2)
                b = i; /* input order: <= keeps the last */
        *v = p->z[c[b].idx];
        return 1;
    }
    case GK_ALG_COUNT:
        *v = (double)n;
        return 1;
    case GK_ALG_AVERAGE_DISTANCE_PTS: {
        if (n < 2)
            return 0;
        double sum = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++)
                sum += sqrt(bf_d2(p, c[j].idx, p->x[c[i].idx], p->y[c[i].idx]));
        *v = sum / (n * (n - 1) / 2.0);
        return 1;
    }
    default:
        return 0;
    }
}

void test_tiles_vs_bruteforce(void)
{
    pset sets[2];
    make_uniform(&sets[0], 1500);
    make_clustered(&sets[1], 1500);
    struct {
        gk_alg_kind kind;
        double r1, r2, angle, power, smoothing;
        int max_points, min_points;
    } cases[] = {
        {GK_ALG_INVDIST, 4, 4, 0, 2, 0, 0, 0},
        {GK_ALG_INVDIST, 4, 4, 0, 2, 0, 12, 3},
        {GK_ALG_INVDIST, 6, 2.5, 30, 3, 0.5, 10, 0},
        {GK_ALG_INVDIST, 5, 5, 45, 1.5, 0, 8, 0},
        {GK_ALG_INVDISTNN, 3, 3, 0, 2, 0, 12, 0},
        {GK_ALG_INVDISTNN, 3, 3, 0, 2.5, 0.2, 0, 2},
        {GK_ALG_INVDISTNN, 5, 5, 0, 2, 0, 100, 0},
        {GK_ALG_AVERAGE, 3, 5, 20, 2, 0, 0, 2},
        {GK_ALG_NEAREST, 2, 2, 0, 2, 0, 0, 0},
        {GK_ALG_NEAREST, 4, 1, 60, 2, 0, 0, 0},
        {GK_ALG_NEAREST, 0, 0, 0, 2, 0, 0, 0},
        {GK_ALG_COUNT, 3, 2, 10, 2, 0, 0, 0},
        {GK_ALG_AVERAGE_DISTANCE_PTS, 2, 2, 0, 2, 0, 0, 0},
    };
    int ncases = (int)(sizeof cases / sizeof cases[0]);
    gk_grid g = {-3.3, 103.3, -2.1, 102.7, 47, 41};
    double *out = malloc((size_t)g.nx * g.ny * sizeof *out);
    cand *c = malloc(1500 * sizeof *c);
    for (int si = 0; si < 2; si++) {
        for (int ci = 0; ci < ncases; ci++) {
            gk_algorithm a = alg_of(cases[ci].kind);
            a.radius1 = cases[ci].r1;
            a.radius2 = cases[ci].r2;
            a.angle = cases[ci].angle;
            a.power = cases[ci].power;
            a.smoothing = cases[ci].smoothing;
            a.max_points = cases[ci].max_points;
            a.min_points = cases[ci].min_points;
            tjob tj;
            tjob_init(&tj, sets[si].x, sets[si].y, sets[si].z, sets[si].n, &a);
            /* two tiles over the grid to exercise offsets */
            gk_scratch s = {0};
            int hw = g.nx / 2;
            double *left = malloc((size_t)hw * g.ny * sizeof *left);
            double *right = malloc((size_t)(g.nx - hw) * g.ny * sizeof *right);
            gk_tile t1 = {&g, 0, 0, hw, g.ny, HIT2}, t2 = {&g, hw, 0, g.nx - hw, g.ny, HIT2};
            uint64_t nd = fn_of(a.kind)(tj.job, &t1, left, &s);
            nd += fn_of(a.kind)(tj.job, &t2, right, &s);
            gk_scratch_free(&s);
            for (int j = 0; j < g.ny; j++) {
                for (int i = 0; i < hw; i++)
                    out[j * g.nx + i] = left[j * hw + i];
                for (int i = hw; i < g.nx; i++)
                    out[j * g.nx + i] = right[j * (g.nx - hw) + i - hw];
            }
            free(left);
            free(right);
            int bad = 0;
            uint64_t bnd = 0;
            for (int j = 0; j < g.ny; j++) {
                for (int i = 0; i < g.nx; i++) {
                    double v, nx = gk_grid_node_x(&g, i), ny = gk_grid_node_y(&g, j);
                    int ok = bf_node(&a, &tj.job->ell, &sets[si], nx, ny, &v, c);
                    double got = out[j * g.nx + i];
                    if (!ok) {
                        bnd++;
                        if (got != a.nodata)
                            bad++;
                    } else if (!(fabs(got - v) <= 1e-12 * (1 + fabs(v)))) {
                        if (bad < 3)
                            fprintf(stderr, "  node %d,%d: got %.17g want %.17g\n", i, j, got, v);
                        bad++;
                    }
                }
            }
            if (bad || nd != bnd)
                fprintf(stderr,
                        "tiles: set %d case %d (kind %d): %d bad nodes, nodata %llu vs %llu\n", si,
                        ci, (int)a.kind, bad, (unsigned long long)nd, (unsigned long long)bnd);
            CHECK(bad == 0);
            CHECK(nd == bnd);
            tjob_free(&tj);
        }
    }
    free(out);
    free(c);
    pset_free(&sets[0]);
    pset_free(&sets[1]);
}

/* Every row says the kind of its line in methods.def (the kind is the row's
 * index: gk_method_of). */
static void test_registry(void)
{
    CHECK_EQ_SZ((size_t)gk_n_methods, (size_t)GK_ALG_COUNT_OF_KINDS);
    for (int i = 0; i < gk_n_methods; i++) {
        CHECK((int)gk_methods[i]->kind == i);
        CHECK(gk_method_of(gk_methods[i]->kind) == gk_methods[i]);
        CHECK(gk_method_find(gk_methods[i]->name) == gk_methods[i]);
    }
}

int main(int argc, char **argv)
{
    ctx = gk_context_new();
    gk_context_set_device(ctx, "cpu"); /* the tile functions are called on the jobs */
    if (argc > 1 && !strcmp(argv[1], "single")) {
        /* the single-precision kernels alone, under a capped GRIDKIT_ISA */
        test_invdist_single();
        test_invdist_single_far();
        gk_context_free(ctx);
        printf("%d checks, %d failures\n", checks, failures);
        return failures ? 1 : 0;
    }
    test_registry();
    test_kdtree();
    test_kdtree_threads();
    test_kdtree_levels();
    test_knn_bins();
    test_invdistnn_ties();
    test_sort();
    test_invdist();
    test_invdist_single();
    test_invdist_single_far();
    test_invdistnn();
    test_quadrants();
    test_quadrants_knn();
    test_average_nearest();
    test_metrics();
    test_aidw();
    test_tiles_vs_bruteforce();
    test_bucket_grid();
    gk_context_free(ctx);
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
