/* SPDX-License-Identifier: MIT */
/*
 * scratch.c - a thread's scratch memory (gk_internal.h's gk_scratch), grown
 * on demand and reused across tiles, so that the per-node code allocates
 * nothing.
 */
#include "gk_internal.h"

#include <stdlib.h>
#include <string.h>

int gk_scratch_reserve(gk_scratch *s, size_t n)
{
    if (n <= s->cap)
        return GK_OK;
    size_t cap = s->cap ? s->cap : 256;
    while (cap < n)
        cap *= 2;
    int *idx = realloc(s->idx, cap * sizeof *idx);
    if (idx)
        s->idx = idx;
    double *d2 = realloc(s->d2, cap * sizeof *d2);
    if (d2)
        s->d2 = d2;
    if (!idx || !d2)
        return GK_ERR_NOMEM;
    s->cap = cap;
    return GK_OK;
}

int gk_scratch_reserve2(gk_scratch *s, size_t n)
{
    if (n <= s->cap2)
        return GK_OK;
    size_t cap = s->cap2 ? s->cap2 : 256;
    while (cap < n)
        cap *= 2;
    int *idx = realloc(s->idx2, cap * sizeof *idx);
    if (idx)
        s->idx2 = idx;
    double *d2 = realloc(s->d2b, cap * sizeof *d2);
    if (d2)
        s->d2b = d2;
    if (!idx || !d2)
        return GK_ERR_NOMEM;
    s->cap2 = cap;
    return GK_OK;
}

int gk_scratch_reserve_f(gk_scratch *s, size_t n)
{
    if (n <= s->fcap)
        return GK_OK;
    float *f = realloc(s->f, n * sizeof *f);
    if (!f)
        return GK_ERR_NOMEM;
    s->f = f;
    s->fcap = n;
    return GK_OK;
}

void gk_scratch_free(gk_scratch *s)
{
    free(s->idx);
    free(s->d2);
    free(s->idx2);
    free(s->d2b);
    free(s->f);
    memset(s, 0, sizeof *s);
}
