/* SPDX-License-Identifier: MIT */
/* ridges_synth.h - synthetic noisy curves with a known truth for the ridges
 * tests: a curve as a fine polyline, samples uniform along its length plus
 * isotropic Gaussian noise (a seeded generator, splitmix64 and Box-Muller,
 * so every run and machine sees the same points), and the distances that
 * measure a result against the truth: of points (the density walkers) or of
 * lines (gk_lines, both ways). */
#ifndef RIDGES_SYNTH_H
#define RIDGES_SYNTH_H

#include "gridkit_ridges.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct {
    int dim;
    size_t m;    /* polyline vertices */
    double *v;   /* m * dim */
    double *cum; /* m: length along it */
} synth_curve;

typedef void (*synth_fn)(double t, double *x, const double *par);

static uint64_t synth_state;
static inline double synth_u01(void) /* splitmix64 */
{
    uint64_t z = (synth_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}
static inline double synth_normal(void) /* Box-Muller */
{
    double a = synth_u01(), b = synth_u01();
    return sqrt(-2.0 * log(a)) * cos(2.0 * M_PI * b);
}

/* The curve f(t), t in [t0, t1], as m vertices. */
static inline synth_curve synth_make(synth_fn f, const double *par, double t0, double t1, size_t m,
                                     int dim)
{
    synth_curve c = {dim, m, malloc(m * (size_t)dim * sizeof(double)), malloc(m * sizeof(double))};
    for (size_t i = 0; i < m; i++) {
        f(t0 + (t1 - t0) * (double)i / (double)(m - 1), c.v + i * (size_t)dim, par);
        double d2 = 0.0;
        for (int k = 0; i && k < dim; k++) {
            double d = c.v[i * (size_t)dim + k] - c.v[(i - 1) * (size_t)dim + k];
            d2 += d * d;
        }
        c.cum[i] = i ? c.cum[i - 1] + sqrt(d2) : 0.0;
    }
    return c;
}

/* n samples of c with noise sigma appended to p (interleaved). */
static inline void synth_sample(const synth_curve *c, size_t n, double sigma, double *p)
{
    double L = c->cum[c->m - 1];
    for (size_t i = 0; i < n; i++) {
        double s = L * synth_u01();
        size_t lo = 0, hi = c->m - 1;
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (c->cum[mid] <= s)
                lo = mid;
            else
                hi = mid;
        }
        double f = (s - c->cum[lo]) / (c->cum[hi] - c->cum[lo]);
        for (int k = 0; k < c->dim; k++) {
            double a = c->v[lo * (size_t)c->dim + k], b = c->v[hi * (size_t)c->dim + k];
            p[i * (size_t)c->dim + k] = a + f * (b - a) + sigma * synth_normal();
        }
    }
}

/* Distance from x to the polyline c. */
static inline double synth_dist(const synth_curve *c, const double *x)
{
    double best = INFINITY;
    int d = c->dim;
    for (size_t i = 0; i + 1 < c->m; i++) {
        const double *a = c->v + i * (size_t)d, *b = a + d;
        double ab2 = 0.0, t = 0.0, d2 = 0.0;
        for (int k = 0; k < d; k++) {
            ab2 += (b[k] - a[k]) * (b[k] - a[k]);
            t += (x[k] - a[k]) * (b[k] - a[k]);
        }
        t = ab2 > 0.0 ? fmin(1.0, fmax(0.0, t / ab2)) : 0.0;
        for (int k = 0; k < d; k++) {
            double q = a[k] + t * (b[k] - a[k]) - x[k];
            d2 += q * q;
        }
        best = fmin(best, d2);
    }
    return sqrt(best);
}

static inline int synth_dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median and largest distance of the n points x to curves c[0..nc-1]
 * (each point to its nearest curve), and *cover: the largest distance
 * from a curve vertex to the nearest point. */
static inline void synth_quality(const synth_curve *c, int nc, const double *x, size_t n,
                                 double *median, double *worst, double *cover)
{
    int d = c[0].dim;
    double *dd = malloc((n ? n : 1) * sizeof(double));
    *worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        dd[i] = INFINITY;
        for (int j = 0; j < nc; j++)
            dd[i] = fmin(dd[i], synth_dist(&c[j], x + i * (size_t)d));
        *worst = fmax(*worst, dd[i]);
    }
    qsort(dd, n, sizeof(double), synth_dcmp);
    *median = n ? dd[n / 2] : INFINITY;
    free(dd);
    *cover = n ? 0.0 : INFINITY;
    for (int j = 0; j < nc && n; j++)
        for (size_t a = 0; a < c[j].m; a += 8) {
            double b2 = INFINITY;
            for (size_t i = 0; i < n; i++) {
                double s = 0.0;
                for (int k = 0; k < d; k++) {
                    double q = x[i * (size_t)d + k] - c[j].v[a * (size_t)d + k];
                    s += q * q;
                }
                b2 = fmin(b2, s);
            }
            *cover = fmax(*cover, sqrt(b2));
        }
}

/* The curves the density tests sample (synth_make's f; p their parameters):
 * a circle (centre, radius), a segment (two ends), an Archimedean spiral
 * (r = p0 + p1 t) and a helix (radius, rise per radian). */
static inline void f_circle(double t, double *x, const double *p)
{
    x[0] = p[0] + p[2] * cos(t);
    x[1] = p[1] + p[2] * sin(t);
}
static inline void f_line(double t, double *x, const double *p)
{
    x[0] = p[0] + t * (p[2] - p[0]);
    x[1] = p[1] + t * (p[3] - p[1]);
}
static inline void f_spiral(double t, double *x, const double *p)
{
    x[0] = (p[0] + p[1] * t) * cos(t);
    x[1] = (p[0] + p[1] * t) * sin(t);
}
static inline void f_helix(double t, double *x, const double *p)
{
    x[0] = p[0] * cos(t);
    x[1] = p[0] * sin(t);
    x[2] = p[1] * t;
}

static inline void synth_free(synth_curve *c)
{
    free(c->v);
    free(c->cum);
}

/* ---- lines against the truth ---------------------------------------------- */

static inline void synth_line_vertex(const gk_lines *l, size_t i, double *p)
{
    p[0] = l->x[i];
    p[1] = l->y[i];
    p[2] = l->dim == 3 ? l->z[i] : 0.0;
}

/* Distance of x to the nearest segment of the lines. */
static inline double synth_to_lines(const gk_lines *l, const double *x)
{
    double best = INFINITY;
    for (size_t li = 0; li < l->n_lines; li++)
        for (size_t i = l->start[li]; i + 1 < l->start[li + 1]; i++) {
            double a[3], b[3], ab2 = 0.0, t = 0.0, d2 = 0.0;
            synth_line_vertex(l, i, a);
            synth_line_vertex(l, i + 1, b);
            for (int k = 0; k < l->dim; k++) {
                ab2 += (b[k] - a[k]) * (b[k] - a[k]);
                t += (x[k] - a[k]) * (b[k] - a[k]);
            }
            t = ab2 > 0.0 ? fmin(1.0, fmax(0.0, t / ab2)) : 0.0;
            for (int k = 0; k < l->dim; k++) {
                double q = a[k] + t * (b[k] - a[k]) - x[k];
                d2 += q * q;
            }
            best = fmin(best, d2);
        }
    return sqrt(best);
}

typedef struct {
    double h_out;  /* Hausdorff, lines -> truth (points every step along the lines) */
    double h_in;   /* Hausdorff, truth -> lines (every fourth truth vertex) */
    double median; /* median distance, lines -> truth */
    double p95;    /* its 95th percentile */
} synth_lines_quality;

/* The lines against curves c[0..nc-1] (each point to its nearest curve),
 * the lines walked in steps of at most `step`. */
static inline synth_lines_quality synth_measure_lines(const gk_lines *l, const synth_curve *c,
                                                      int nc, double step)
{
    synth_lines_quality q = {0, 0, 0, 0};
    size_t cap = 1024, n = 0;
    double *d = malloc(cap * sizeof *d);
    for (size_t li = 0; li < l->n_lines; li++)
        for (size_t i = l->start[li]; i + 1 < l->start[li + 1]; i++) {
            double a[3], b[3], len = 0;
            synth_line_vertex(l, i, a);
            synth_line_vertex(l, i + 1, b);
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
                d[n] = INFINITY;
                for (int j = 0; j < nc; j++)
                    d[n] = fmin(d[n], synth_dist(&c[j], x));
                n++;
            }
        }
    for (size_t i = 0; i < n; i++)
        q.h_out = d[i] > q.h_out ? d[i] : q.h_out;
    qsort(d, n, sizeof *d, synth_dcmp);
    q.median = n ? d[n / 2] : INFINITY;
    q.p95 = n ? d[n * 95 / 100] : INFINITY;
    free(d);
    for (int j = 0; j < nc; j++)
        for (size_t i = 0; i < c[j].m; i += 4) {
            double x[3] = {0, 0, 0};
            for (int k = 0; k < c[j].dim; k++)
                x[k] = c[j].v[i * (size_t)c[j].dim + k];
            double dd = l->n_lines ? synth_to_lines(l, x) : INFINITY;
            q.h_in = dd > q.h_in ? dd : q.h_in;
        }
    return q;
}

#endif
