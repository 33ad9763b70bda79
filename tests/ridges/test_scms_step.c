/* SPDX-License-Identifier: MIT */
/* test_scms_step.c - scms_step.h, the walker arithmetic shared with the GPU:
 * its binned kernel sums against a direct long-double sum over every
 * sample, its eigenvectors against matrices built from known ones, and the
 * step across a straight ridge of known place. */
#include "gk_check.h"
#include "ridges_synth.h"
#include "ridges/scms_index.h"

#include <string.h>

/* The bins must visit every sample within the cut-off once: S0 and S1
 * (gradient = S1 / h^2) against long double over all n samples. Double
 * sums of n terms round by at most n eps of the sum of magnitudes
 * (n = 3000: 7e-13); 1e-12 of that sum is the bound, so a missed or
 * doubled sample (>= e^-8 = 3e-4 of the peak term) fails. */
static void test_sums(int dim)
{
    size_t n = 3000;
    double *p = malloc(n * 3 * sizeof(double)), h = 1.7, cutoff = 4.0;
    synth_state = 5 + (uint64_t)dim;
    for (size_t i = 0; i < n * (size_t)dim; i++)
        p[i] = 40.0 * synth_u01() + (i % (size_t)dim == 0 ? 1e5 : 0.0); /* far from 0 */
    gk_scms_bins b;
    CHECK(gk_scms_bins_build(&b, dim, n, p, NULL, cutoff * h / GK_SCMS_SPAN) == 0);
    for (int q = 0; q < 8; q++) {
        double x[3];
        for (int k = 0; k < dim; k++)
            x[k] = p[(size_t)(q * 101) * (size_t)dim + k] + 0.37 * (q - 3);
        gk_scms_acc a;
        gk_scms_sums(&b.ix, x, h, cutoff, &a);
        long double s0 = 0.0L, s1[3] = {0.0L, 0.0L, 0.0L}, m1[3] = {0.0L, 0.0L, 0.0L};
        long double r2 = (long double)cutoff * h * cutoff * h;
        for (size_t i = 0; i < n; i++) {
            long double d[3] = {0.0L, 0.0L, 0.0L}, d2 = 0.0L;
            for (int k = 0; k < dim; k++) {
                d[k] = (long double)p[i * (size_t)dim + k] - x[k];
                d2 += d[k] * d[k];
            }
            if (d2 > r2)
                continue;
            long double K = expl(-d2 / (2.0L * h * h));
            s0 += K;
            for (int k = 0; k < dim; k++) {
                s1[k] += K * d[k];
                m1[k] += fabsl(K * d[k]);
            }
        }
        CHECKF(fabsl(a.s0 - s0) <= 1e-12L * s0, "dim %d point %d: S0 %.17g vs %.17Lg", dim, q, a.s0,
               s0);
        for (int k = 0; k < dim; k++)
            CHECKF(fabsl(a.s1[k] - s1[k]) <= 1e-12L * m1[k],
                   "dim %d point %d: S1[%d] %.17g vs "
                   "%.17Lg",
                   dim, q, k, a.s1[k], s1[k]);
    }
    gk_scms_bins_free(&b);
    free(p);
}

/* C = R diag(l) R^T with R known: the top eigenvector is R's column of the
 * largest l, up to sign (1e-12: a few roundings of O(1) entries). */
static void test_eigen(void)
{
    for (int j = 0; j < 12; j++) {
        double th = 0.4 * j - 2.0, c = cos(th), s = sin(th), l0 = 3.0 + j, l1 = 1.0, t[3];
        gk_scms_eig2(l0 * c * c + l1 * s * s, (l0 - l1) * c * s, l0 * s * s + l1 * c * c, t);
        CHECKF(fabs(fabs(t[0] * c + t[1] * s) - 1.0) < 1e-12, "eig2 angle %g", th);
    }
    double t[3];
    gk_scms_eig2(2.0, 0.0, 2.0, t); /* isotropic: any unit vector; (1, 0) by rule */
    CHECK(t[0] == 1.0 && t[1] == 0.0);
    for (int j = 0; j < 12; j++) { /* R = Rz(a) Rx(b) */
        double a = 0.5 * j - 3.0, bb = 0.3 * j + 0.1, ca = cos(a), sa = sin(a), cb = cos(bb),
               sb = sin(bb);
        double R[3][3] = {{ca, -sa * cb, sa * sb}, {sa, ca * cb, -ca * sb}, {0.0, sb, cb}};
        double l[3] = {0.5, 4.0 + j, 1.5}, C[6];
        int s = 0;
        for (int r = 0; r < 3; r++)
            for (int q = r; q < 3; q++, s++)
                C[s] =
                    R[r][0] * l[0] * R[q][0] + R[r][1] * l[1] * R[q][1] + R[r][2] * l[2] * R[q][2];
        gk_scms_eig3(C, t);
        double dot = t[0] * R[0][1] + t[1] * R[1][1] + t[2] * R[2][1];
        CHECKF(fabs(fabs(dot) - 1.0) < 1e-12, "eig3 case %d: |dot| %.17g", j, fabs(dot));
    }
}

/* Samples on a grid (x 0..40 step 1, y = 1.25 + 0.25 j, |j| <= 24) weighted
 * by a Gaussian of sigma 1 in y - 1.25: a straight ridge at y = 1.25 by
 * symmetry. A walker from (20, 3) ends there within the step left when it
 * stops (tol * h) plus rounding, and keeps its x (x = 20 is the middle of
 * the grid, and the step is across only). */
static void test_walk(void)
{
    size_t n = 0;
    double *p = malloc(41 * 49 * 2 * sizeof(double)), *w = malloc(41 * 49 * sizeof(double)),
           h = 1.0;
    for (int i = 0; i <= 40; i++)
        for (int j = -24; j <= 24; j++) {
            p[2 * n] = i;
            p[2 * n + 1] = 1.25 + 0.25 * j;
            w[n++] = exp(-0.5 * (0.25 * j) * (0.25 * j));
        }
    gk_scms_bins b;
    CHECK(gk_scms_bins_build(&b, 2, n, p, w, 4.0 * h / GK_SCMS_SPAN) == 0);
    double x[2] = {20.0, 3.0}, den, t[2];
    int32_t it = gk_scms_walk(&b.ix, x, h, 4.0, 1e-6, 200, &den, t);
    CHECKF(it >= 1 && it <= 200, "iterations %d", it);
    CHECKF(fabs(x[1] - 1.25) < 1e-5 && fabs(x[0] - 20.0) < 1e-9, "ended at (%.12g, %.12g)", x[0],
           x[1]);
    CHECKF(fabs(fabs(t[0]) - 1.0) < 1e-9, "tangent (%g, %g)", t[0], t[1]);
    /* no sample within the cut-off: no step, density 0 */
    double far[2] = {500.0, 500.0};
    CHECK(gk_scms_walk(&b.ix, far, h, 4.0, 1e-6, 200, &den, t) == 0 && den == 0.0);
    gk_scms_bins_free(&b);
    free(p);
    free(w);
}

int main(void)
{
    test_sums(2);
    test_sums(3);
    test_eigen();
    test_walk();
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
