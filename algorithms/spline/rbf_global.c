/* SPDX-License-Identifier: MIT */
/*
 * spline/rbf_global.c - `rbf` with every point in one system (no
 * neighbors=): the system is factorised once, on every core, and each node
 * is then a sum over the points.
 *
 * The factorisation is rbf_system.h's, panel by panel, with the trailing
 * update cut into blocks of rows (columns for U12) shared among threads:
 * every entry takes the same operations in the same order whatever the
 * thread count, so the coefficients (and the raster) do not depend on it.
 */
#include "core/cpu_level.h"
#include "rbf.h"

#include <omp.h>
#include <stdlib.h>

/* A = P L U on nth threads, the same doubles as gk_rbf_lu; once for each
 * vector width (the same operations per entry, no FMA: the same doubles). */
#define LU_THREADS(NAME, ATTR)                                                                     \
    ATTR static int NAME(double *A, int N, int *piv, int nth)                                      \
    {                                                                                              \
        int singular = 0;                                                                          \
        _Pragma("omp parallel num_threads(nth)") for (int c0 = 0; c0 < N && !singular;             \
                                                      c0 += GK_RBF_NB)                             \
        {                                                                                          \
            const int c1 = c0 + GK_RBF_NB < N ? c0 + GK_RBF_NB : N;                                \
            _Pragma("omp single") singular = gk_rbf_lu_panel(A, N, piv, c0, c1);                   \
            /* the implied barrier: every thread sees singular and the panel */                    \
            if (singular || c1 >= N)                                                               \
                continue;                                                                          \
            const int nj = N - c1, cols = 256;                                                     \
            _Pragma("omp for schedule(static)") for (int jb = 0; jb < nj; jb += cols)              \
                gk_rbf_lu_trail(A, N, c0, c1, c0, c1, c1 + jb,                                     \
                                c1 + (jb + cols < nj ? jb + cols : nj)); /* U12, by columns */     \
            _Pragma("omp for schedule(dynamic, 1)") for (int r = c1; r < N; r += 8)                \
                gk_rbf_lu_trail(A, N, c0, c1, r, r + 8 < N ? r + 8 : N, c1, N); /* A22, by rows */ \
        }                                                                                          \
        return singular;                                                                           \
    }

LU_THREADS(lu_portable, )
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
LU_THREADS(lu_avx2, __attribute__((target("avx2"))))
#endif

static int lu_threads(double *A, int N, int *piv, int nth)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (gk_cpu_level() >= GK_ISA_AVX2)
        return lu_avx2(A, N, piv, nth);
#endif
    return lu_portable(A, N, piv, nth);
}

static int by_xy(const void *a, const void *b)
{
    const double *u = a, *v = b;
    if (u[0] != v[0])
        return u[0] < v[0] ? -1 : 1;
    return (u[1] > v[1]) - (u[1] < v[1]);
}

/* Are two of the n points at one place? 1, 0, or -1 when out of memory. */
static int coincident(const double *x, const double *y, int n)
{
    double *xy = malloc((size_t)n * 2 * sizeof *xy);
    if (!xy)
        return -1;
    for (int i = 0; i < n; i++)
        xy[2 * i] = x[i], xy[2 * i + 1] = y[i];
    qsort(xy, (size_t)n, 2 * sizeof *xy, by_xy);
    int same = 0;
    for (int i = 1; i < n && !same; i++)
        same = xy[2 * i] == xy[2 * i - 2] && xy[2 * i + 1] == xy[2 * i - 1];
    free(xy);
    return same;
}

int gk_rbf_global_check(const gk_rbf_spec *sp, const double *x, const double *y, int n)
{
    const int m = gk_rbf_terms(sp->degree);
    double shift[2], scale[2], *work = NULL;
    /* coincident points make two equal rows, which rounding may hide from LU */
    int rc = sp->smoothing == 0.0 ? coincident(x, y, n) : 0;
    if (rc > 0)
        return GK_RBF_SINGULAR;
    if (rc < 0 || !m)
        return rc;
    if (!(work = malloc((size_t)n * m * sizeof *work)))
        return -1;
    gk_rbf_frame(x, y, NULL, n, shift, scale);
    rc = gk_rbf_full_rank(x, y, NULL, n, shift, scale, sp->degree, work) ? 0 : GK_RBF_NO_RANK;
    free(work);
    return rc;
}

int gk_rbf_global_solve(const gk_rbf_spec *sp, const double *x, const double *y, const double *z,
                        int n, int nth, gk_rbf_global *g)
{
    const int m = gk_rbf_terms(sp->degree), N = n + m;
    gk_rbf_frame(x, y, NULL, n, g->shift, g->scale);
    g->n = n;
    g->coef = malloc((size_t)N * sizeof *g->coef);
    double *A = malloc((size_t)N * N * sizeof *A);
    int *piv = malloc((size_t)N * sizeof *piv);
    int rc = -1;
    if (g->coef && A && piv && !(rc = gk_rbf_global_check(sp, x, y, n))) {
        gk_rbf_fill(sp, x, y, z, NULL, n, g->shift, g->scale, NULL, A, g->coef);
        if (lu_threads(A, N, piv, nth) || gk_rbf_lu_solve(A, N, piv, g->coef))
            rc = GK_RBF_SINGULAR;
    }
    free(A);
    free(piv);
    return rc;
}
