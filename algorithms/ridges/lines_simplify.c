/* SPDX-License-Identifier: MIT */
/* lines_simplify.c - Douglas-Peucker without recursion (lines.h). */
#include "lines.h"

#include <stdlib.h>

double gk_seg_d2(const double *x, const double *a, const double *b, int dim)
{
    double ab = 0.0, ax = 0.0, t = 0.0, d2 = 0.0;
    for (int k = 0; k < dim; k++) {
        ab += (b[k] - a[k]) * (b[k] - a[k]);
        ax += (x[k] - a[k]) * (b[k] - a[k]);
    }
    if (ab > 0.0)
        t = ax <= 0.0 ? 0.0 : ax >= ab ? 1.0 : ax / ab;
    for (int k = 0; k < dim; k++) {
        double d = x[k] - (a[k] + t * (b[k] - a[k]));
        d2 += d * d;
    }
    return d2;
}

void gk_simplify(const double *v, int dim, const uint32_t *idx, size_t n, double tol,
                 unsigned char *keep)
{
    for (size_t i = 0; i < n; i++)
        keep[i] = tol <= 0.0 || i == 0 || i + 1 == n;
    if (tol <= 0.0 || n < 3)
        return;
    /* ranges still to split; at most n of them are ever pending */
    size_t *stack = malloc(2 * n * sizeof *stack);
    if (!stack) { /* keep every point: a correct, unsimplified line */
        for (size_t i = 0; i < n; i++)
            keep[i] = 1;
        return;
    }
    size_t top = 0;
    stack[top++] = 0;
    stack[top++] = n - 1;
    const double tol2 = tol * tol;
    while (top) {
        size_t j = stack[--top], i = stack[--top];
        size_t far = i;
        double dmax = -1.0;
        for (size_t k = i + 1; k < j; k++) {
            double d2 = gk_seg_d2(v + (size_t)idx[k] * dim, v + (size_t)idx[i] * dim,
                                  v + (size_t)idx[j] * dim, dim);
            if (d2 > dmax) {
                dmax = d2;
                far = k;
            }
        }
        if (far == i || dmax <= tol2)
            continue;
        keep[far] = 1;
        stack[top++] = i;
        stack[top++] = far;
        stack[top++] = far;
        stack[top++] = j;
    }
    free(stack);
}
