/* SPDX-License-Identifier: MIT */
/*
 * test_kriging_kernels.c - the dense kernels of local kriging against the
 * operation order they promise (kriging_kernels.h), bit for bit: the
 * Cholesky factor (from scratch and from a leading block already factorised),
 * the forward solve, and the k nearest as a set. Every instruction-set path must give the
 * doubles of the plain loops below, which is what makes kriging's bytes the
 * same on every CPU: ctest runs this natively and with GRIDKIT_ISA=avx2 and
 * =portable.
 *
 * Padding (entries above the diagonal, rows past m) is filled with NaN, so
 * that a kernel that lets it into a value is caught.
 */
#include "geostat/kriging_kernels.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gk_check.h"

static uint64_t rng = 88172645463325252ull;

static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static int same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* A covariance matrix of m random points (spherical model plus a nugget):
 * the kind of system kriging factorises. Column-major lower triangle,
 * padding NaN. With dup > 0, point dup repeats point dup - 1 and there is
 * no nugget: singular at pivot dup. */
static void make_system(double *A, int m, int ld, int dup)
{
    double x[256], y[256];
    for (int i = 0; i < m; i++) {
        x[i] = 1000.0 * uniform();
        y[i] = 1000.0 * uniform();
    }
    if (dup > 0 && dup < m)
        x[dup] = x[dup - 1], y[dup] = y[dup - 1];
    for (size_t i = 0; i < (size_t)ld * ld; i++)
        A[i] = NAN;
    const double psill = 10.0, range = 600.0, nugget = dup ? 0.0 : 0.5;
    for (int j = 0; j < m; j++)
        for (int i = j; i < m; i++) {
            double h = hypot(x[i] - x[j], y[i] - y[j]), u = h / range;
            double g =
                i == j ? 0.0 : nugget + (h >= range ? psill : psill * (1.5 * u - 0.5 * u * u * u));
            A[(size_t)j * ld + i] = nugget + psill - g;
        }
}

/* The promised order: element (i, j) takes L_jq L_iq off for q = 0, 1, ...
 * in turn (a product, then a difference: no fused multiply-add), then is
 * multiplied by 1 / L_jj; L_jj = sqrt of what is left; a pivot at or below
 * tol times the matrix's own diagonal entry fails. */
static int chol_ref_tol(const double *A, double *L, int m, int ld, double *inv, double tol)
{
    memcpy(L, A, sizeof(double) * ld * ld);
    for (int j = 0; j < m; j++) {
        const double orig = A[(size_t)j * ld + j];
        for (int i = j; i < m; i++) {
            double c = L[(size_t)j * ld + i];
            for (int q = 0; q < j; q++)
                c = c - L[(size_t)q * ld + j] * L[(size_t)q * ld + i];
            L[(size_t)j * ld + i] = c;
        }
        double s = L[(size_t)j * ld + j];
        if (!(s > tol * fabs(orig)))
            return -1;
        double d = sqrt(s);
        inv[j] = 1.0 / d;
        L[(size_t)j * ld + j] = d;
        for (int i = j + 1; i < m; i++)
            L[(size_t)j * ld + i] = L[(size_t)j * ld + i] * inv[j];
    }
    return 0;
}

/* b_i takes L_ij y_j off for j = 0, 1, ... in turn; y_i = b_i / L_ii as a
 * product with inv. */
static void fwd_ref(const double *L, int m, int ld, const double *inv, double *b)
{
    for (int i = 0; i < m; i++) {
        double c = b[i];
        for (int j = 0; j < i; j++)
            c = c - L[(size_t)j * ld + i] * b[j];
        b[i] = c * inv[i];
    }
}

static int lower_same(const double *P, const double *Q, int m, int ld)
{
    for (int j = 0; j < m; j++)
        for (int i = j; i < m; i++)
            if (!same_double(P[(size_t)j * ld + i], Q[(size_t)j * ld + i]))
                return 0;
    return 1;
}

static void test_chol(void)
{
    static double A[264 * 264], R[264 * 264], L[264 * 264];
    double rinv[264], inv[264];
    const double tol = 1e-12;
    int cases = 0;
    for (int m = 1; m <= 70; m++) {
        int ld = (m + 7) & ~7;
        for (int pad = 0; pad <= 8; pad += 8) {
            make_system(A, m, ld + pad, 0);
            int rc = chol_ref_tol(A, R, m, ld + pad, rinv, tol);
            CHECKF(rc == 0, "m=%d: the reference fails on a positive definite system", m);
            /* from scratch */
            memcpy(L, A, sizeof(double) * (ld + pad) * (ld + pad));
            rc = gk_kk_chol(L, m, ld + pad, inv, tol);
            CHECKF(rc == 0 && lower_same(L, R, m, ld + pad) &&
                       memcmp(inv, rinv, sizeof(double) * m) == 0,
                   "m=%d ld=%d: the factor differs from the promised order", m, ld + pad);
            /* from a leading block already factorised: the matrix below and
             * right of p0, the factor above */
            int p0s[] = {1, m / 3, m / 2, m - 1, m};
            for (int t = 0; t < 5; t++) {
                int p0 = p0s[t];
                if (p0 < 1 || p0 > m)
                    continue;
                memcpy(L, A, sizeof(double) * (ld + pad) * (ld + pad));
                for (int j = 0; j < p0; j++)
                    for (int i = j; i < p0; i++)
                        L[(size_t)j * (ld + pad) + i] = R[(size_t)j * (ld + pad) + i];
                memcpy(inv, rinv, sizeof(double) * p0);
                rc = gk_kk_chol_from(L, m, ld + pad, inv, tol, p0);
                CHECKF(rc == 0 && lower_same(L, R, m, ld + pad) &&
                           memcmp(inv, rinv, sizeof(double) * m) == 0,
                       "m=%d p0=%d: the factor from a leading block differs", m, p0);
                cases++;
            }
            /* the forward solve, one and three right-hand sides */
            double b[3 * 264], rb[3 * 264];
            for (int r = 0; r < 3; r++)
                for (int i = 0; i < ld + pad; i++)
                    b[r * (ld + pad) + i] = i < m ? 100.0 * uniform() - 50.0 : NAN;
            memcpy(rb, b, sizeof b);
            for (int r = 0; r < 3; r++)
                fwd_ref(R, m, ld + pad, rinv, rb + r * (ld + pad));
            gk_kk_fwd(R, m, ld + pad, rinv, b, 3, ld + pad);
            int ok = 1;
            for (int r = 0; r < 3; r++)
                for (int i = 0; i < m; i++)
                    ok &= same_double(b[r * (ld + pad) + i], rb[r * (ld + pad) + i]);
            CHECKF(ok, "m=%d: the forward solve differs from the promised order", m);
        }
    }
    CHECK(cases > 300);

    /* a repeated point and no nugget: singular at the second pivot, on
     * every path */
    for (int m = 2; m <= 40; m += 5) {
        int ld = (m + 7) & ~7;
        make_system(A, m, ld, 1);
        memcpy(L, A, sizeof(double) * ld * ld);
        CHECKF(gk_kk_chol(L, m, ld, inv, tol) == -1, "m=%d: a singular system factorised", m);
        CHECK(chol_ref_tol(A, R, m, ld, rinv, tol) == -1);
    }
    /* singular at every pivot s of every size up to 30: each panel width,
     * each column of the panel, each chunk of rows fails there, from
     * scratch and from a leading block of s or s - 1 columns (the
     * reference's block before s is final) */
    int fails = 0, runs = 0;
    for (int m = 2; m <= 30; m++) {
        int ld = (m + 7) & ~7;
        for (int sp = 1; sp < m; sp++) {
            make_system(A, m, ld, sp);
            CHECKF(chol_ref_tol(A, R, m, ld, rinv, tol) == -1, "m=%d: reference at %d", m, sp);
            memcpy(L, A, sizeof(double) * ld * ld);
            fails += gk_kk_chol(L, m, ld, inv, tol) == -1, runs++;
            for (int p0 = sp - 1; p0 <= sp; p0++) {
                if (p0 < 1)
                    continue;
                memcpy(L, A, sizeof(double) * ld * ld);
                for (int j = 0; j < p0; j++)
                    for (int i = j; i < p0; i++)
                        L[(size_t)j * ld + i] = R[(size_t)j * ld + i];
                memcpy(inv, rinv, sizeof(double) * p0);
                fails += gk_kk_chol_from(L, m, ld, inv, tol, p0) == -1, runs++;
            }
        }
    }
    CHECKF(fails == runs, "%d of %d singular systems factorised", runs - fails, runs);
}

/* The k nearest as a set: the set of gk_kk_select's first k (ties in
 * distance broken by index), with the k-th distance, whether few or many
 * candidates are dropped. */
static void test_select_set(void)
{
    int cid[200], id2[200], idx[64], ref[64];
    double cd2[264], d2[200], rd2[64];
    int cases = 0;
    for (int n = 1; n <= 60; n += 3)
        for (int k = 1; k <= n; k += 2) {
            for (int i = 0; i < n; i++) {
                cid[i] = (i * 37 + 11) % 997;
                cd2[i] = (double)(int)(8.0 * uniform()); /* many ties */
            }
            gk_kk_select(cid, cd2, n, k, ref, rd2);
            memcpy(id2, cid, sizeof(int) * n);
            memcpy(d2, cd2, sizeof(double) * n);
            double dk = gk_kk_select_set(id2, d2, n, k, idx);
            int ok = dk == rd2[k - 1];
            for (int i = 0; i < k; i++) { /* same set: every ref in idx */
                int found = 0;
                for (int j = 0; j < k; j++)
                    found |= idx[j] == ref[i];
                ok &= found;
            }
            CHECKF(ok, "select_set n=%d k=%d", n, k);
            cases++;
        }
    CHECK(cases > 250);
}

int main(void)
{
    gk_kk_init();
    test_chol();
    test_select_set();
    printf("kriging kernels: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
