/* gk_check.h - the assertion macros the C test programs share: each CHECK
 * counts, and a failure prints where and what; main() returns failures != 0. */
#ifndef GK_CHECK_H
#define GK_CHECK_H

#include <math.h>
#include <stdio.h>

static int failures, checks;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        checks++;                                                                    \
        if (!(cond)) {                                                               \
            failures++;                                                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

/* |a - b| <= tol * (1 + |b|): relative, with an absolute floor near 0. */
#define CHECK_NEAR(a, b, tol)                                                               \
    do {                                                                                    \
        double a_ = (a), b_ = (b);                                                          \
        checks++;                                                                           \
        if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) {                                 \
            failures++;                                                                     \
            fprintf(stderr, "%s:%d: %s = %.17g, expected %.17g\n", __FILE__, __LINE__, #a, \
                    a_, b_);                                                                \
        }                                                                                   \
    } while (0)

#endif
