/* SPDX-License-Identifier: MIT */
/*
 * geostat/normal_score.c - the normal-score table and its two directions
 * (normal_score.h).
 */
#include "normal_score.h"
#include "core/random.h"
#include "core/gk_internal.h"
#include "gridkit_geostat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int gk_nscore_build(const double *z, size_t n, double zmin, double zmax, gk_nscore *t)
{
    memset(t, 0, sizeof *t);
    double *s = malloc((n ? n : 1) * sizeof *s);
    t->z = malloc((n ? n : 1) * sizeof *t->z);
    t->y = malloc((n ? n : 1) * sizeof *t->y);
    if (!s || !t->z || !t->y) {
        free(s);
        gk_nscore_free(t);
        return -1;
    }
    memcpy(s, z, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && s[j] == s[i])
            j++;
        /* the mean of (k + 1/2) / n over k = i .. j-1 */
        t->z[t->n] = s[i];
        t->y[t->n] = gk_normal_quantile(0.5 * (double)(i + j) / (double)n);
        t->n++;
        i = j;
    }
    free(s);
    t->zmin = zmin;
    t->zmax = zmax;
    t->g1 = n ? gk_normal_cdf(t->y[0]) : 0.0;
    t->gn = n ? gk_normal_cdf(t->y[t->n - 1]) : 1.0;
    return 0;
}

void gk_nscore_free(gk_nscore *t)
{
    free(t->z);
    free(t->y);
    t->z = t->y = NULL;
    t->n = 0;
}

/* The last k with v[k] <= x (0 when x is below v[0]). */
static size_t below(const double *v, size_t n, double x)
{
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

double gk_nscore_forward(const gk_nscore *t, double z)
{
    const size_t n = t->n;
    if (z <= t->z[0] || n == 1)
        return t->y[0];
    if (z >= t->z[n - 1])
        return t->y[n - 1];
    size_t k = below(t->z, n, z);
    if (z == t->z[k])
        return t->y[k];
    return t->y[k] + (t->y[k + 1] - t->y[k]) * (z - t->z[k]) / (t->z[k + 1] - t->z[k]);
}

double gk_nscore_back(const gk_nscore *t, double y)
{
    const size_t n = t->n;
    if (!(y == y))
        return y;
    if (y <= t->y[0]) {
        if (y == t->y[0] || !(t->g1 > 0))
            return t->z[0];
        return t->zmin + (t->z[0] - t->zmin) * gk_normal_cdf(y) / t->g1;
    }
    if (y >= t->y[n - 1]) {
        if (y == t->y[n - 1] || !(t->gn < 1))
            return t->z[n - 1];
        return t->z[n - 1] + (t->zmax - t->z[n - 1]) * (gk_normal_cdf(y) - t->gn) / (1.0 - t->gn);
    }
    size_t k = below(t->y, n, y);
    if (y == t->y[k])
        return t->z[k];
    return t->z[k] + (t->z[k + 1] - t->z[k]) * (y - t->y[k]) / (t->y[k + 1] - t->y[k]);
}

int gk_normal_scores(gk_context *ctx, const double *z, size_t n, double *scores)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(z[i]))
            return gk_error(ctx, GK_ERR_ARG, "normal scores: value %zu is not finite", i + 1);
    gk_nscore t;
    if (gk_nscore_build(z, n, 0, 0, &t))
        return gk_error(ctx, GK_ERR_NOMEM, "normal scores: out of memory");
    if (t.n < 2) {
        gk_nscore_free(&t);
        return gk_error(ctx, GK_ERR_ARG, "normal scores: the %zu values are all equal", n);
    }
    for (size_t i = 0; i < n; i++)
        scores[i] = gk_nscore_forward(&t, z[i]);
    gk_nscore_free(&t);
    return GK_OK;
}
