/*
 * density_bandwidth.c - the default bandwidth of `density`: the noise
 * across the curves, measured by local principal components.
 *
 * Around up to 512 samples (evenly spaced in input order) the points within
 * r give a covariance; its spread across the curve is the variance off its
 * top eigenvector, (trace - lambda_max) / (dim - 1). For r well above the
 * noise sigma this is sigma^2 (plus the curve's bend within r); for r below
 * it, r^2 / 4 (a uniform disc). So r <- 4 * median spread is iterated from a
 * tenth of the box's diagonal (doubled while too few points lie within it)
 * to its fixed point r ~ 4 sigma, and the
 * bandwidth is that sigma: a straight ridge's place does not depend on h,
 * a bend's bias grows with sigma^2 + h^2, and h below the noise only adds
 * spurious wiggles. It is floored at twice the spacing along the curve
 * (2 r / median count) so that sparse clean samples still make one ridge,
 * not a bead per sample. Global rules (Scott, Silverman) scale with the
 * curves' extent, not their width, and oversmooth a ring into a disc.
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

/* Spread across the curve around centre c (variance), -1 when fewer than
 * dim + 3 points lie within r; *count gets their number. */
static double across_var(const gk_scms_bins *b, const double *p, int dim, const double *c,
                         double r, size_t *count)
{
    local_pca a = {p, c, dim, r * r, 0, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}};
    gk_scms_bins_visit(b, c, pca_add, &a);
    *count = a.n;
    if (a.n < (size_t)dim + 3)
        return -1.0;
    double C[6], m[3], t[3], tr = 0.0;
    for (int k = 0; k < dim; k++)
        m[k] = a.s1[k] / (double)a.n;
    int s = 0;
    for (int k = 0; k < dim; k++)
        for (int j = k; j < dim; j++, s++)
            C[s] = a.s2[s] / (double)a.n - m[k] * m[j];
    if (dim == 2) {
        gk_scms_eig2(C[0], C[1], C[2], t);
        tr = C[0] + C[2];
    } else {
        gk_scms_eig3(C, t);
        tr = C[0] + C[3] + C[5];
    }
    double lmax = dim == 2 ? t[0] * (C[0] * t[0] + C[1] * t[1]) + t[1] * (C[1] * t[0] + C[2] * t[1])
                           : t[0] * (C[0] * t[0] + C[1] * t[1] + C[2] * t[2]) +
                                 t[1] * (C[1] * t[0] + C[3] * t[1] + C[4] * t[2]) +
                                 t[2] * (C[2] * t[0] + C[4] * t[1] + C[5] * t[2]);
    double v = (tr - lmax) / (double)(dim - 1);
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
    double r = 0.1 * sqrt(diag2), var = -1.0, cnt = 0.0, r_used = r;
    for (int round = 0; round < 16; round++) {
        double v, n_in;
        if (pca_round(c, r, kc, threads, &v, &n_in)) {
            if (var >= 0.0 || r >= sqrt(diag2))
                break;
            r *= 2.0; /* sparse: grow until centres have points */
            continue;
        }
        var = v;
        cnt = n_in;
        r_used = r;
        double rn = 4.0 * sqrt(v);
        if (fabs(rn - r) <= 0.02 * r)
            break;
        r = rn > 0.0 ? rn : r / 4.0; /* noise-free: shrink until too few points */
    }
    if (var < 0.0)
        return 0.0;
    double sigma = sqrt(var), spacing = 2.0 * r_used / cnt;
    return sigma > 2.0 * spacing ? sigma : 2.0 * spacing;
}
