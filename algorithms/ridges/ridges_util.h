/* SPDX-License-Identifier: MIT */
/*
 * ridges_util.h - what the family's own files share beyond the methods'
 * contract (ridges.h): the -a parser's pieces (ridges_params.c,
 * ridges_keys.c) and the thread count (ridges_util.c).
 */
#ifndef GK_RIDGES_UTIL_H
#define GK_RIDGES_UTIL_H

#include "ridges.h"

/* One key=value into m: GK_OK, -1 for a key m's method does not take, or
 * GK_ERR_ARG (the message in ctx) for a bad value. */
int gk_ridges_key(gk_context *ctx, gk_ridges_method *m, const char *key, const char *val);
/* Rebuilds m->text from m's fields ("auto" where a value is still to be
 * estimated). */
void gk_ridges_canonical(gk_ridges_method *m);

/* Threads for an OpenMP region from the context (0: all the cores). */
int gk_ridges_threads(const gk_context *ctx);

#endif
