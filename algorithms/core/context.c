/* SPDX-License-Identifier: MIT */
/* context.c - the gk_context: last error, thread count, hooks. */
#include "gk_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

gk_context *gk_context_new(void) { return calloc(1, sizeof(gk_context)); }

void gk_context_free(gk_context *ctx) { free(ctx); }

void gk_context_set_threads(gk_context *ctx, int threads)
{
    ctx->threads = threads > 0 ? threads : 0;
}

int gk_context_threads(const gk_context *ctx) { return ctx->threads; }

const char *gk_version(void) { return GK_VERSION_STRING; }

int gk_errno(const gk_context *ctx) { return ctx ? ctx->err : GK_ERR_NOMEM; }

const char *gk_errmsg(const gk_context *ctx)
{
    if (!ctx)
        return "out of memory (no context)";
    return ctx->err ? ctx->msg : "";
}

int gk_error(gk_context *ctx, int code, const char *fmt, ...)
{
    if (!ctx)
        return code;
    ctx->err = code;
    ctx->n_errors++;
    /* through a copy: callers pass gk_errmsg(ctx) to prefix the message,
     * and vsnprintf must not read the buffer it writes */
    char tmp[sizeof ctx->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    memcpy(ctx->msg, tmp, sizeof tmp);
    return code;
}

void gk_error_clear(gk_context *ctx)
{
    ctx->err = GK_OK;
    ctx->msg[0] = '\0';
}

void gk_ridges_set_sharing(gk_context *ctx, int part, int parts, gk_ridges_exchange_fn fn,
                           void *user)
{
    const int on = fn && parts > 1 && part >= 0 && part < parts;
    ctx->share_part = on ? part : 0;
    ctx->share_parts = on ? parts : 1;
    ctx->share_fn = on ? fn : NULL;
    ctx->share_user = on ? user : NULL;
}

void gk_context_set_triangulator(gk_context *ctx, gk_triangulate_fn fn, void *user)
{
    ctx->triangulate = fn;
    ctx->triangulate_user = user;
}

void gk_context_set_gpu_late(gk_context *ctx, int on) { ctx->gpu_late = on != 0; }
