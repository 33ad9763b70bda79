/* SPDX-License-Identifier: MIT */
/*
 * random.h - counter-based random numbers: a number is a hash of (seed,
 * stream, i, j), not the next state of a generator, so that what a node of
 * a realization draws does not depend on which thread, tile, process or
 * device draws it, nor on the order of the draws (simulation's path and
 * noise). The hash is splitmix64's finaliser applied in a chain; the
 * normal deviates are Wichura's AS 241 quantile of a uniform (normal.c).
 */
#ifndef GK_RANDOM_H
#define GK_RANDOM_H

#include <stdint.h>

static inline uint64_t gk_mix64(uint64_t z)
{
    z ^= z >> 30;
    z *= 0xbf58476d1ce4e5b9ULL;
    z ^= z >> 27;
    z *= 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The part of a draw's hash that (seed, stream, i) fixes: draws (i, j) for
 * many j reuse it (gk_random_bits_at). */
static inline uint64_t gk_random_row(uint64_t seed, uint64_t stream, uint64_t i)
{
    const uint64_t h = gk_mix64(seed ^ 0x9e3779b97f4a7c15ULL * (stream + 1));
    return gk_mix64(h + 0x9e3779b97f4a7c15ULL + i);
}

/* Draw j of a row: gk_random_bits(seed, stream, i, j) for row(seed, stream, i). */
static inline uint64_t gk_random_bits_at(uint64_t row, uint64_t j)
{
    return gk_mix64(row + 0x632be59bd9b4e019ULL + j);
}

/* 64 random bits for draw (i, j) of a stream under seed. */
static inline uint64_t gk_random_bits(uint64_t seed, uint64_t stream, uint64_t i, uint64_t j)
{
    return gk_random_bits_at(gk_random_row(seed, stream, i), j);
}

/* A uniform in (0, 1), never 0 or 1: the top 53 bits, centred in their
 * interval. */
static inline double gk_random_uniform(uint64_t bits)
{
    return ((double)(bits >> 11) + 0.5) * 0x1p-53;
}

/* The standard normal quantile Phi^-1(p) for 0 < p < 1 (Wichura 1988,
 * AS 241 PPND16: about 1e-16 relative); -inf / +inf at 0 / 1, NaN outside. */
double gk_normal_quantile(double p);
/* The standard normal distribution function Phi(y). */
double gk_normal_cdf(double y);

#endif
