/* SPDX-License-Identifier: MIT */
/* gk_check.h - the assertion macros the C test programs share: each check
 * counts, and a failure prints where and what; main() returns failures != 0.
 *
 * A test program built from several files defines GK_CHECK_SHARED before
 * including this in each of them, and defines `int failures, checks;` in
 * one of them, so that all its files count together. */
#ifndef GK_CHECK_H
#define GK_CHECK_H

#include <math.h>
#include <stddef.h>
#include <stdio.h>

#ifdef GK_CHECK_SHARED
extern int failures, checks;
#else
static int failures, checks;
#endif

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

/* CHECK with a printf-style message after the condition. */
#define CHECKF(cond, ...)                                                                          \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* |a - b| <= tol * (1 + |b|): relative, with an absolute floor near 0. */
#define CHECK_NEAR(a, b, tol)                                                                      \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        checks++;                                                                                  \
        if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                                        \
            failures++;                                                                            \
            fprintf(stderr, "%s:%d: %s = %.17g, expected %.17g\n", __FILE__, __LINE__, #a, a_,     \
                    b_);                                                                           \
        }                                                                                          \
    } while (0)

/* |a - b| <= tol * |b|: relative only (1e-300 keeps b = 0 from failing a == 0). */
#define CHECK_REL(a, b, tol)                                                                       \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        checks++;                                                                                  \
        if (!(fabs(a_ - b_) <= (tol)*fabs(b_) + 1e-300)) {                                         \
            failures++;                                                                            \
            fprintf(stderr, "%s:%d: %s = %.17g, expected %.17g (rel %.2e)\n", __FILE__, __LINE__,  \
                    #a, a_, b_, fabs(a_ - b_) / fabs(b_));                                         \
        }                                                                                          \
    } while (0)

/* Two sizes equal. */
#define CHECK_EQ_SZ(a, b)                                                                          \
    do {                                                                                           \
        size_t a_ = (a), b_ = (b);                                                                 \
        checks++;                                                                                  \
        if (a_ != b_) {                                                                            \
            failures++;                                                                            \
            fprintf(stderr, "%s:%d: %s == %zu, expected %zu\n", __FILE__, __LINE__, #a, a_, b_);   \
        }                                                                                          \
    } while (0)

#endif
