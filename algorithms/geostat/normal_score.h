/* SPDX-License-Identifier: MIT */
/*
 * geostat/normal_score.h - GSLIB's normal-score transform (nscore) and its
 * back-transform (backtr), for simulation with transform=normal_score.
 *
 * The n values sorted, value k (from 0) has the cumulative frequency
 * (k + 1/2) / n and the score Phi^-1 of it; equal values share the mean of
 * their frequencies (GSLIB breaks ties at random instead: here the same
 * data give the same scores). Back: linear between the table's scores;
 * below the lowest and above the highest, GSLIB's linear tails in
 * G = Phi(y) towards zmin and zmax (ltail = utail = 1).
 */
#ifndef GK_NORMAL_SCORE_H
#define GK_NORMAL_SCORE_H

#include <stddef.h>

typedef struct {
    size_t n;      /* distinct values */
    double *z, *y; /* ascending values and their scores */
    double zmin, zmax;
    double g1, gn; /* Phi of the lowest and highest score */
} gk_nscore;

/* The table of z[0..n) (finite) with tails to zmin <= min z and zmax >= max
 * z; 0, or -1 when out of memory. */
int gk_nscore_build(const double *z, size_t n, double zmin, double zmax, gk_nscore *t);
void gk_nscore_free(gk_nscore *t);
/* The score of a value of the table (the data); another value's by the
 * same interpolation the back-transform inverts. */
double gk_nscore_forward(const gk_nscore *t, double z);
/* The value of a score. */
double gk_nscore_back(const gk_nscore *t, double y);

#endif
