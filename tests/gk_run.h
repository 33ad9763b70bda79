/* SPDX-License-Identifier: MIT */
/* gk_run.h - what the C tests of a method share: an -a string run on points
 * over a whole grid through the public API, and a fixed random sequence (the
 * same numbers on every machine, so that a test's data never change). */
#ifndef GK_RUN_H
#define GK_RUN_H

#include "gridkit.h"

#include <stdio.h>

/* spec on pts over g into out (the job's bands, plane after plane), its
 * counters into st if not NULL. Returns the bands, or 0 (said on stderr)
 * when the string, the job or the run failed. */
static inline int gk_test_run(gk_context *ctx, const char *spec, const gk_points *pts,
                              const gk_grid *g, double *out, gk_run_stats *st)
{
    gk_algorithm *a = gk_algorithm_parse(ctx, spec);
    if (!a) {
        fprintf(stderr, "parse %s: %s\n", spec, gk_errmsg(ctx));
        return 0;
    }
    gk_job *job = gk_job_new(ctx, pts, a);
    gk_algorithm_free(a);
    if (!job) {
        fprintf(stderr, "job %s: %s\n", spec, gk_errmsg(ctx));
        return 0;
    }
    const int nb = gk_job_bands(job);
    const int rc = gk_job_compute_window(job, g, 0, 0, g->nx, g->ny, out);
    if (st)
        gk_job_stats(job, st);
    gk_job_free(job);
    if (rc)
        fprintf(stderr, "run %s: %s\n", spec, gk_errmsg(ctx));
    return rc ? 0 : nb;
}

/* Uniform in [0, 1) from a 64-bit LCG (Knuth's MMIX constants). */
static inline double gk_test_urand(unsigned long long *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*state >> 11) / 9007199254740992.0;
}

#endif
