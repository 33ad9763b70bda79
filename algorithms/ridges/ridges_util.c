/* SPDX-License-Identifier: MIT */
/*
 * ridges_util.c - the family's small shared pieces, below every method
 * (ridges.h, ridges_util.h): the thread count, lengths in the user's units,
 * the profile's timer. ridges.c, curve.c, density.c and lines.c call down
 * to it.
 */
#include "ridges_util.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int gk_ridges_threads(const gk_context *ctx)
{
    int t = gk_context_threads(ctx);
    return t > 0 ? t : omp_get_num_procs();
}

double gk_ridges_user_length(const gk_ridges_method *m, double v) { return ldexp(v, m->scale_exp); }

void gk_ridges_prof(const char *what, double *t)
{
    static int on = -1;
    if (on < 0) {
        const char *e = getenv("GRIDKIT_RIDGES_PROFILE");
        on = e && *e && strcmp(e, "0");
    }
    if (!on)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    if (what && *t > 0.0)
        fprintf(stderr, "ridges: %s: %.4f s\n", what, now - *t);
    *t = now;
}
