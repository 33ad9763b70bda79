/* SPDX-License-Identifier: MIT */
/*
 * core/monomials.h - the monomials of two variables up to degree 3, in the
 * order gstat's trend surfaces and SciPy's RBFInterpolator both take them:
 * 1, u, v, u^2, uv, v^2, u^3, u^2 v, u v^2, v^3. Shared by polynomial's fits
 * and rbf's systems, on both devices (header-only).
 */
#ifndef GK_MONOMIALS_H
#define GK_MONOMIALS_H

#ifdef __CUDACC__
#define GK_MONO_FN static inline __host__ __device__
#else
#define GK_MONO_FN static inline
#endif

#define GK_MONO_MAX 10 /* the monomials of degree 3 */

/* How many up to degree d (0 for d < 0: none). */
GK_MONO_FN int gk_monomial_count(int d) { return d < 0 ? 0 : (d + 1) * (d + 2) / 2; }

/* Those up to degree d at (u, v) into t. */
GK_MONO_FN void gk_monomials(double u, double v, int d, double *t)
{
    int k = 0;
    if (d >= 0)
        t[k++] = 1.0;
    if (d >= 1)
        t[k++] = u, t[k++] = v;
    if (d >= 2)
        t[k++] = u * u, t[k++] = u * v, t[k++] = v * v;
    if (d >= 3)
        t[k++] = u * u * u, t[k++] = u * u * v, t[k++] = u * v * v, t[k++] = v * v * v;
}

/* Monomial j (0 .. GK_MONO_MAX - 1) of gk_monomials at (u, v), the same
 * product, by index: a GPU thread's loop over the terms then keeps no
 * array in local memory. */
GK_MONO_FN double gk_monomial(double u, double v, int j)
{
    switch (j) {
    case 0:
        return 1.0;
    case 1:
        return u;
    case 2:
        return v;
    case 3:
        return u * u;
    case 4:
        return u * v;
    case 5:
        return v * v;
    case 6:
        return u * u * u;
    case 7:
        return u * u * v;
    case 8:
        return u * v * v;
    default:
        return v * v * v;
    }
}

#endif
