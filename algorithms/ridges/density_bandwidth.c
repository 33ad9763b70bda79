/* SPDX-License-Identifier: MIT */
/*
 * density_bandwidth.c - the default bandwidth of `density`: the noise
 * across the curves, measured by local principal components.
 *
 * Around up to 512 samples (evenly spaced in input order) the points within
 * r give a principal axis; their spread across it, after a quadratic in
 * the position along it takes out the curve's bend, is the variance across
 * the curve. For r well above the noise sigma this is sigma^2; for r below
 * it, about r^2 / 4 (a uniform disc). So r <- 4 * median spread is iterated
 * from a tenth of the box's diagonal (doubled while too few points lie
 * within it) to its fixed point r ~ 4 sigma, and the bandwidth is that
 * sigma: a straight ridge's place does not depend on h, a bend's bias grows
 * with sigma^2 + h^2, and h below the noise only adds spurious wiggles.
 *
 * It is floored at 8 times the spacing of the samples along the curve
 * (2 r / median count within r, on a round with >= 16): the kernel then spans at least 16 samples
 * (+-h), enough for their local covariance's top eigenvector, the tangent,
 * to hold still; with fewer (clean or sparse samples) the ridge breaks into
 * bumps of a few samples each (measured: 4 to 35 pieces of one curve with
 * a floor of 2 spacings, one line with 6 or 8). Global rules (Scott,
 * Silverman) scale with the curves' extent, not their width, and smooth a
 * ring into a disc.
 */
#include "ridges/density.h"

#include <stdlib.h>

typedef struct {
    const double *p, *c;
    int dim;
    double r2;
    size_t n;
    double s1[3], s2[6];
} local_pca;

static int pca_add(uint32_t i, void *user)
{
    local_pca *a = user;
    double d[3] = {0.0, 0.0, 0.0}, d2 = 0.0;
    for (int k = 0; k < a->dim; k++) {
        d[k] = a->p[(size_t)i * (size_t)a->dim + k] - a->c[k];
        d2 += d[k] * d[k];
    }
    if (d2 > a->r2)
        return 0;
    a->n++;
    int s = 0;
    for (int k = 0; k < a->dim; k++) {
        a->s1[k] += d[k];
        for (int j = k; j < a->dim; j++)
            a->s2[s++] += d[k] * d[j];
    }
    return 0;
}

/* The second pass: each point's offset from the mean m split into s along
 * t and the rest r (across); sums for fitting r by a quadratic in s / rad. */
typedef struct {
    const double *p, *c, *m, *t;
    int dim;
    double r2, rad;
    double A[6], B[3][3], rr; /* A: sym 3x3 of (1, u, u^2); B[j][k]: u^j r_k */
} quad_fit;

static int quad_add(uint32_t i, void *user)
{
    quad_fit *q = user;
    double d[3] = {0.0, 0.0, 0.0}, d2 = 0.0, s = 0.0;
    for (int k = 0; k < q->dim; k++) {
        double o = q->p[(size_t)i * (size_t)q->dim + k] - q->c[k];
        d2 += o * o;
        d[k] = o - q->m[k];
        s += d[k] * q->t[k];
    }
    if (d2 > q->r2)
        return 0;
    double u = s / q->rad, f[3] = {1.0, u, u * u};
    q->A[0] += 1.0, q->A[1] += u, q->A[2] += u * u, q->A[3] += u * u, q->A[4] += u * u * u;
    q->A[5] += u * u * u * u;
    for (int k = 0; k < q->dim; k++) {
        double r = d[k] - s * q->t[k];
        q->rr += r * r;
        for (int j = 0; j < 3; j++)
            q->B[j][k] += f[j] * r;
    }
    return 0;
}

/* b^T A^-1 b for the symmetric 3x3 A (1, u, u^2 moments) by Cramer's rule;
 * -1 when A is singular (the points at one or two places along t). */
static double quad_explained(const double *A, const double *b)
{
    double a00 = A[0], a01 = A[1], a02 = A[2], a11 = A[3], a12 = A[4], a22 = A[5];
    double c00 = a11 * a22 - a12 * a12, c01 = a02 * a12 - a01 * a22, c02 = a01 * a12 - a02 * a11;
    double det = a00 * c00 + a01 * c01 + a02 * c02;
    if (!(fabs(det) > 1e-12 * a00 * a00 * a00))
        return -1.0;
    double c11 = a00 * a22 - a02 * a02, c12 = a01 * a02 - a00 * a12, c22 = a00 * a11 - a01 * a01;
    double x0 = (c00 * b[0] + c01 * b[1] + c02 * b[2]) / det;
    double x1 = (c01 * b[0] + c11 * b[1] + c12 * b[2]) / det;
    double x2 = (c02 * b[0] + c12 * b[1] + c22 * b[2]) / det;
    return b[0] * x0 + b[1] * x1 + b[2] * x2;
}

/* Top eigenvector t of the covariance of a's points, and their mean m. */
static void pca_axis(const local_pca *a, double *m, double *t)
{
    double C[6];
    for (int k = 0; k < a->dim; k++)
        m[k] = a->s1[k] / (double)a->n;
    int s = 0;
    for (int k = 0; k < a->dim; k++)
        for (int j = k; j < a->dim; j++, s++)
            C[s] = a->s2[s] / (double)a->n - m[k] * m[j];
    if (a->dim == 2)
        gk_scms_eig2(C[0], C[1], C[2], t);
    else
        gk_scms_eig3(C, t);
}

/* Spread across the curve around centre c (variance): the residual of the
 * offsets across the local principal axis after a quadratic in the
 * position along it (so that the curve's bend within r is not counted as
 * noise), per across direction. -1 when fewer than dim + 3 points lie
 * within r; *count gets their number. */
static double across_var(const gk_scms_bins *b, const double *p, int dim, const double *c, double r,
                         size_t *count)
{
    local_pca a = {p, c, dim, r * r, 0, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}};
    gk_scms_bins_visit(b, c, pca_add, &a);
    *count = a.n;
    if (a.n < (size_t)dim + 3)
        return -1.0;
    double m[3] = {0.0, 0.0, 0.0}, t[3] = {0.0, 0.0, 0.0};
    pca_axis(&a, m, t);
    quad_fit q = {p, c, m, t, dim, r * r, r, {0.0}, {{0.0}}, 0.0};
    gk_scms_bins_visit(b, c, quad_add, &q);
    double rss = q.rr;
    for (int k = 0; k < dim; k++) {
        double bk[3] = {q.B[0][k], q.B[1][k], q.B[2][k]}, e = quad_explained(q.A, bk);
        if (e < 0.0)
            return -1.0;
        rss -= e;
    }
    double v = rss / ((double)(dim - 1) * (double)(a.n - 3));
    return v > 0.0 ? v : 0.0;
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One round at radius r: the median across variance and median count over
 * the centres; 0, or 1 when no centre had enough points or memory ran out. */
static int pca_round(const gk_cloud *c, double r, size_t k_centres, int threads, double *var,
                     double *count)
{
    gk_scms_bins b;
    if (gk_scms_bins_build(&b, c->dim, c->n, c->p, NULL, r))
        return 1;
    double *v = malloc(k_centres * sizeof(double)), *nc = malloc(k_centres * sizeof(double));
    size_t m = 0;
    if (v && nc) {
#pragma omp parallel for num_threads(threads) schedule(dynamic, 8)
        for (long j = 0; j < (long)k_centres; j++) {
            size_t i = (size_t)j * c->n / k_centres, cnt = 0;
            v[j] = across_var(&b, c->p, c->dim, c->p + i * (size_t)c->dim, r, &cnt);
            nc[j] = (double)cnt;
        }
        for (size_t j = 0; j < k_centres; j++)
            if (v[j] >= 0.0) {
                v[m] = v[j];
                nc[m++] = nc[j];
            }
        if (m) {
            qsort(v, m, sizeof(double), dbl_cmp);
            qsort(nc, m, sizeof(double), dbl_cmp);
            *var = v[m / 2];
            *count = nc[m / 2];
        }
    }
    free(v);
    free(nc);
    gk_scms_bins_free(&b);
    return m ? 0 : 1;
}

double gk_density_bandwidth(const gk_cloud *c, int threads)
{
    double diag2 = 0.0;
    for (int k = 0; k < c->dim; k++) {
        double lo = c->p[k], hi = c->p[k];
        for (size_t i = 1; i < c->n; i++) {
            double v = c->p[i * (size_t)c->dim + k];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        diag2 += (hi - lo) * (hi - lo);
    }
    if (!(diag2 > 0.0) || c->n < 3)
        return 0.0;
    size_t kc = c->n < 512 ? c->n : 512;
    /* sp_r, sp_n: the round the spacing is measured on: the smallest r
     * with a median count >= 16 (else the largest count), so that the
     * count's +-1 at the disc's edge and the curve's bend are both small */
    double r = 0.1 * sqrt(diag2), var = -1.0, sp_r = 0.0, sp_n = 0.0;
    for (int round = 0; round < 16; round++) {
        double v, n_in;
        if (pca_round(c, r, kc, threads, &v, &n_in)) {
            if (var >= 0.0 || r >= sqrt(diag2))
                break;
            r *= 2.0; /* sparse: grow until centres have points */
            continue;
        }
        var = v;
        if ((n_in >= 16.0 && (sp_n < 16.0 || r < sp_r)) || (sp_n < 16.0 && n_in > sp_n)) {
            sp_r = r;
            sp_n = n_in;
        }
        double rn = 4.0 * sqrt(v);
        if (fabs(rn - r) <= 0.02 * r)
            break;
        r = rn > 0.0 ? rn : r / 4.0; /* noise-free: shrink until too few points */
    }
    if (var < 0.0)
        return 0.0;
    double sigma = sqrt(var), spacing = 2.0 * sp_r / sp_n;
    return sigma > 8.0 * spacing ? sigma : 8.0 * spacing;
}
