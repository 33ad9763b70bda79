/*
 * ridges_synth.h - synthetic noisy curves with a known truth for the ridges
 * tests, and the distances that measure a result against that truth.
 *
 * A truth is a dense polyline (TRUTH_V vertices of a parametric curve);
 * samples are spread uniformly along its arc length and moved by Gaussian
 * noise of standard deviation sigma in every coordinate (a seeded
 * xorshift generator and Box-Muller: the same points on every machine).
 */
#ifndef RIDGES_SYNTH_H
#define RIDGES_SYNTH_H

#include "gridkit_ridges.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define TRUTH_V 4001

typedef struct {
    int dim;
    size_t n; /* TRUTH_V */
    double v[TRUTH_V * 3];
    double cum[TRUTH_V]; /* arc length to each vertex */
} truth;

typedef void (*curve_fn)(double t, double *out); /* t in [0, 1] */

static uint64_t rng_state;
static double rng_uniform(void) /* (0, 1] */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return ((double)(rng_state >> 11) + 1.0) / 9007199254740992.0;
}
static double rng_gauss(void)
{
    double u1 = rng_uniform(), u2 = rng_uniform();
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static void truth_make(truth *t, int dim, curve_fn f)
{
    t->dim = dim;
    t->n = TRUTH_V;
    for (size_t i = 0; i < TRUTH_V; i++) {
        double p[3] = {0, 0, 0};
        f((double)i / (TRUTH_V - 1), p);
        for (int k = 0; k < dim; k++)
            t->v[i * dim + k] = p[k];
        double d2 = 0;
        for (int k = 0; i && k < dim; k++)
            d2 += (p[k] - t->v[(i - 1) * dim + k]) * (p[k] - t->v[(i - 1) * dim + k]);
        t->cum[i] = i ? t->cum[i - 1] + sqrt(d2) : 0.0;
    }
}

static double truth_length(const truth *t) { return t->cum[t->n - 1]; }

/* n noisy samples of t appended to pts. */
static void truth_sample(const truth *t, size_t n, double sigma, uint64_t seed, gk_points *pts)
{
    rng_state = seed * 2654435761u + 88172645463325252ull;
    double L = truth_length(t);
    for (size_t i = 0; i < n; i++) {
        double u = rng_uniform() * L;
        size_t lo = 0, hi = t->n - 1; /* cum[lo] <= u <= cum[hi] */
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (t->cum[mid] <= u)
                lo = mid;
            else
                hi = mid;
        }
        double seg = t->cum[hi] - t->cum[lo], f = seg > 0 ? (u - t->cum[lo]) / seg : 0.0;
        double p[3] = {0, 0, 0};
        for (int k = 0; k < t->dim; k++)
            p[k] = t->v[lo * t->dim + k] + f * (t->v[hi * t->dim + k] - t->v[lo * t->dim + k]) +
                   sigma * rng_gauss();
        gk_points_add(pts, p[0], p[1], p[2]);
    }
}

static double seg_d2(const double *x, const double *a, const double *b, int dim)
{
    double ab = 0, ax = 0, t = 0, d2 = 0;
    for (int k = 0; k < dim; k++) {
        ab += (b[k] - a[k]) * (b[k] - a[k]);
        ax += (x[k] - a[k]) * (b[k] - a[k]);
    }
    if (ab > 0)
        t = ax <= 0 ? 0 : ax >= ab ? 1 : ax / ab;
    for (int k = 0; k < dim; k++)
        d2 += (x[k] - a[k] - t * (b[k] - a[k])) * (x[k] - a[k] - t * (b[k] - a[k]));
    return d2;
}

static void line_vertex(const gk_lines *l, size_t i, double *p)
{
    p[0] = l->x[i];
    p[1] = l->y[i];
    p[2] = l->dim == 3 ? l->z[i] : 0.0;
}

/* Distance of x to the nearest of the truths. */
static double to_truth(const truth *const *ts, int nt, const double *x)
{
    double best = INFINITY;
    for (int j = 0; j < nt; j++)
        for (size_t i = 0; i + 1 < ts[j]->n; i++) {
            const double *a = ts[j]->v + i * ts[j]->dim;
            double d2 = seg_d2(x, a, a + ts[j]->dim, ts[j]->dim);
            best = d2 < best ? d2 : best;
        }
    return sqrt(best);
}

/* Distance of x to the nearest segment of the lines. */
static double to_lines(const gk_lines *l, const double *x)
{
    double best = INFINITY;
    for (size_t li = 0; li < l->n_lines; li++)
        for (size_t i = l->start[li]; i + 1 < l->start[li + 1]; i++) {
            double a[3], b[3];
            line_vertex(l, i, a);
            line_vertex(l, i + 1, b);
            double d2 = seg_d2(x, a, b, l->dim);
            best = d2 < best ? d2 : best;
        }
    return sqrt(best);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    double h_out;  /* Hausdorff, output -> truth (points every step along the lines) */
    double h_in;   /* Hausdorff, truth -> output (every truth vertex) */
    double median; /* median distance, output -> truth */
    double p95;    /* its 95th percentile */
} quality;

/* The lines against the truths; the lines walked in steps of at most `step`. */
static quality measure(const gk_lines *l, const truth *const *ts, int nt, double step)
{
    quality q = {0, 0, 0, 0};
    size_t cap = 1024, n = 0;
    double *d = malloc(cap * sizeof *d);
    for (size_t li = 0; li < l->n_lines; li++)
        for (size_t i = l->start[li]; i + 1 < l->start[li + 1]; i++) {
            double a[3], b[3], len = 0;
            line_vertex(l, i, a);
            line_vertex(l, i + 1, b);
            for (int k = 0; k < 3; k++)
                len += (b[k] - a[k]) * (b[k] - a[k]);
            int steps = (int)ceil(sqrt(len) / step);
            steps = steps < 1 ? 1 : steps;
            for (int s = 0; s <= steps; s++) {
                double x[3];
                for (int k = 0; k < 3; k++)
                    x[k] = a[k] + (b[k] - a[k]) * s / steps;
                if (n == cap)
                    d = realloc(d, (cap *= 2) * sizeof *d);
                d[n++] = to_truth(ts, nt, x);
            }
        }
    for (size_t i = 0; i < n; i++)
        q.h_out = d[i] > q.h_out ? d[i] : q.h_out;
    qsort(d, n, sizeof *d, cmp_d);
    q.median = n ? d[n / 2] : INFINITY;
    q.p95 = n ? d[n * 95 / 100] : INFINITY;
    free(d);
    for (int j = 0; j < nt; j++)
        for (size_t i = 0; i < ts[j]->n; i += 4) {
            double x[3] = {0, 0, 0};
            for (int k = 0; k < ts[j]->dim; k++)
                x[k] = ts[j]->v[i * ts[j]->dim + k];
            double dd = l->n_lines ? to_lines(l, x) : INFINITY;
            q.h_in = dd > q.h_in ? dd : q.h_in;
        }
    return q;
}

#endif
