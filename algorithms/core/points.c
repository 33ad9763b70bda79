/* SPDX-License-Identifier: MIT */
/* points.c - the point set: structure of arrays of doubles. */
#include "gk_internal.h"

#include <math.h>
#include <stdlib.h>
#include <stdint.h>

gk_points *gk_points_new(gk_context *ctx)
{
    gk_points *p = calloc(1, sizeof *p);
    if (!p) {
        gk_error(ctx, GK_ERR_NOMEM, "out of memory allocating a point set");
        return NULL;
    }
    p->ctx = ctx;
    return p;
}

void gk_points_free(gk_points *p)
{
    if (!p)
        return;
    free(p->x);
    free(p->y);
    free(p->z);
    free(p);
}

int gk_points_reserve(gk_points *p, size_t n)
{
    if (n <= p->cap)
        return GK_OK;
    double *x = realloc(p->x, n * sizeof *x);
    if (x)
        p->x = x;
    double *y = realloc(p->y, n * sizeof *y);
    if (y)
        p->y = y;
    double *z = realloc(p->z, n * sizeof *z);
    if (z)
        p->z = z;
    if (!x || !y || !z)
        return gk_error(p->ctx, GK_ERR_NOMEM, "out of memory holding %zu points", n);
    p->cap = n;
    return GK_OK;
}

int gk_points_add(gk_points *p, double x, double y, double z)
{
    if (p->n == p->cap) {
        int rc = gk_points_reserve(p, p->cap ? p->cap * 2 : 1024);
        if (rc)
            return rc;
    }
    p->x[p->n] = x;
    p->y[p->n] = y;
    p->z[p->n] = z;
    p->n++;
    return GK_OK;
}

int gk_points_extend(gk_points *p, size_t n, double **x, double **y, double **z)
{
    if (n > SIZE_MAX / (3 * sizeof(double)) - p->n)
        return gk_error(p->ctx, GK_ERR_NOMEM, "out of memory holding %zu more points", n);
    int rc = gk_points_reserve(p, p->n + n);
    if (rc)
        return rc;
    *x = p->x + p->n;
    *y = p->y + p->n;
    *z = p->z + p->n;
    p->n += n;
    return GK_OK;
}

void gk_points_truncate(gk_points *p, size_t n)
{
    if (n < p->n)
        p->n = n;
}

size_t gk_points_count(const gk_points *p) { return p->n; }
const double *gk_points_x(const gk_points *p) { return p->x; }
const double *gk_points_y(const gk_points *p) { return p->y; }
const double *gk_points_z(const gk_points *p) { return p->z; }

void gk_points_fill_z(gk_points *p, double z)
{
    for (size_t i = 0; i < p->n; i++)
        p->z[i] = z;
}

int gk_points_bounds(const gk_points *p, double *xmin, double *ymin, double *xmax, double *ymax)
{
    if (p->n == 0)
        return gk_error(p->ctx, GK_ERR_NO_POINTS, "no points");
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (size_t i = 0; i < p->n; i++) {
        if (p->x[i] < x0)
            x0 = p->x[i];
        if (p->x[i] > x1)
            x1 = p->x[i];
        if (p->y[i] < y0)
            y0 = p->y[i];
        if (p->y[i] > y1)
            y1 = p->y[i];
    }
    *xmin = x0;
    *ymin = y0;
    *xmax = x1;
    *ymax = y1;
    return GK_OK;
}
