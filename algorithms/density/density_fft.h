/* SPDX-License-Identifier: MIT */
/*
 * density_fft.h - the arithmetic of gauss's method=fft (density/gauss_fft.c),
 * shared with the CUDA module (gpu/density.cu) so that both give the same
 * bits: the lattice's plan along an axis, the points' bilinear binning,
 * radix-2 FFT butterflies with twiddles from half angles (+, *, /, sqrt
 * only, no libm), and the kernel's spectrum. Compiled without contraction
 * on both sides (ISO C; nvcc -fmad=false).
 */
#ifndef GK_DENSITY_FFT_H
#define GK_DENSITY_FFT_H

#include "density/density_sum.h"

#include <math.h>

#define GK_FFT_MMAX 8 /* lattice nodes a cell at most; coarser cells: the cut-off sum */
/* FFT length at most: a block's lattice window is N_x x N_y doubles (512 MB
 * here) and each thread holds one; kernels wider than that (over about
 * 2,000 lattice steps each side) get the cut-off sum too. */
#define GK_FFT_NMAX 8192

/* An axis of the lattice: m nodes a cell (steps cell / m <= sigma / 4), R
 * taps each side (within the cut-off r), FFTs of N >= L + 2 R, blocks of L
 * outputs (a multiple of m: cells = L / m whole cells). */
typedef struct {
    int m, R, N, L, cells;
    double step;
} gk_fft_axis;

/* 0, or 1 when the cells are too coarse (over 2 sigma) or the taps too
 * many for an FFT of GK_FFT_NMAX. */
GK_DS_HD int gk_fft_axis_plan(double cell, double s, double r, gk_fft_axis *a)
{
    const double m = ceil(cell / (s / 4.0));
    if (!(m <= GK_FFT_MMAX))
        return 1;
    a->m = m < 1 ? 1 : (int)m;
    a->step = cell / a->m;
    const double R = floor(r / a->step);
    if (!(4.0 * R + 2.0 <= GK_FFT_NMAX))
        return 1;
    a->R = (int)R;
    a->N = 64;
    while (a->N < 4 * a->R + 2)
        a->N *= 2;
    a->L = (a->N - 2 * a->R) / a->m * a->m;
    a->cells = a->L / a->m;
    return 0;
}

/* exp(-2 pi i k / N) for k < N / 2 (N = 2^p, p <= 38): the angles 2 pi /
 * 2^j by half angles from pi / 2, then each k as the product over its bits. */
GK_DS_HD void gk_fft_twiddles(int N, double *wr, double *wi)
{
    double c[40], s[40]; /* cos and sin of 2 pi / 2^j */
    int p = 0;
    while ((1 << p) < N)
        p++;
    c[1] = -1.0, s[1] = 0.0;
    c[2] = 0.0, s[2] = 1.0;
    for (int j = 3; j <= p; j++) {
        c[j] = sqrt((1.0 + c[j - 1]) / 2.0);
        s[j] = s[j - 1] / (2.0 * c[j]);
    }
    for (int k = 0; k < N / 2; k++) {
        double re = 1.0, im = 0.0;
        for (int b = 0; (1 << b) <= k; b++)
            if (k & (1 << b)) { /* times exp(-i 2 pi 2^b / N) = exp(-i 2 pi / 2^(p - b)) */
                const double cr = c[p - b], ci = -s[p - b];
                const double r = re * cr - im * ci, i = re * ci + im * cr;
                re = r, im = i;
            }
        wr[k] = re, wi[k] = im;
    }
}

/* Butterfly j of a stage of half-length half (len = 2 half): a = x[i + j],
 * b = x[i + j + half], twiddle (c, s) = w^(j N / len), conjugated for the
 * inverse: a + w b and a - w b. The stages' butterflies are independent,
 * so any order within a stage gives these bits. */
GK_DS_HD void gk_fft_butterfly(double *re, double *im, int a, int half, double c, double s)
{
    const double xr = re[a + half], xi = im[a + half];
    const double vr = xr * c - xi * s, vi = xr * s + xi * c;
    re[a + half] = re[a] - vr, im[a + half] = im[a] - vi;
    re[a] = re[a] + vr, im[a] = im[a] + vi;
}

/* i with its log2(N) bits reversed. */
GK_DS_HD int gk_fft_bitrev(int i, int N)
{
    int r = 0;
    for (int b = 1; b < N; b <<= 1, i >>= 1)
        r = (r << 1) | (i & 1);
    return r;
}

/* In-place radix-2 FFT of re + i im (inverse: conjugate twiddles, no
 * scaling), one thread. */
GK_DS_HD void gk_fft_run(double *re, double *im, int N, const double *wr, const double *wi,
                         int inverse)
{
    for (int i = 0; i < N; i++) {
        const int j = gk_fft_bitrev(i, N);
        if (i < j) {
            double t = re[i];
            re[i] = re[j], re[j] = t;
            t = im[i];
            im[i] = im[j], im[j] = t;
        }
    }
    for (int len = 2; len <= N; len <<= 1) {
        const int half = len >> 1, step = N / len;
        for (int i = 0; i < N; i += len)
            for (int j = 0; j < half; j++)
                gk_fft_butterfly(re, im, i + j, half, wr[j * step],
                                 inverse ? -wi[j * step] : wi[j * step]);
    }
}

/* The taps t = -R..R (exp(-(t step)^2 / (2 s^2)) within r, circularly about
 * 0) and their spectrum over N, into kr + i ki (N each). */
GK_DS_HD void gk_fft_spectrum(const gk_fft_axis *a, double s, double r, const double *wr,
                              const double *wi, double *kr, double *ki)
{
    const double c = 1.0 / (2.0 * s * s), inv = 1.0 / a->N;
    for (int t = 0; t < a->N; t++) {
        const int d = t <= a->R ? t : t >= a->N - a->R ? a->N - t : -1;
        kr[t] = d < 0 ? 0.0 : gk_ds_gauss1(d * a->step, c, r);
        ki[t] = 0.0;
    }
    gk_fft_run(kr, ki, a->N, wr, wi, 0);
    for (int t = 0; t < a->N; t++)
        kr[t] *= inv, ki[t] *= inv; /* a power of two: exact */
}

/* One spectrum value times a line's: (re + i im) (kr + i ki). */
GK_DS_HD void gk_fft_times(double *re, double *im, double kr, double ki)
{
    const double r = *re * kr - *im * ki, i = *re * ki + *im * kr;
    *re = r, *im = i;
}

/* A point's bilinear binning: its lattice cell (fu, fv) (lattice (0, 0) at
 * (x0, y0), steps dx and dy, rows downwards) and the parts of w at (fu,
 * fv), (fu + 1, fv), (fu, fv + 1), (fu + 1, fv + 1). */
GK_DS_HD void gk_fft_bin(double px, double py, double w, double x0, double y0, double dx, double dy,
                         double *fu, double *fv, double part[4])
{
    const double u = (px - x0) / dx, v = (y0 - py) / dy;
    *fu = floor(u), *fv = floor(v);
    const double f = u - *fu, g = v - *fv;
    const double wa = w * (1.0 - g), wb = w * g;
    part[0] = wa * (1.0 - f), part[1] = wa * f, part[2] = wb * (1.0 - f), part[3] = wb * f;
}

#endif
