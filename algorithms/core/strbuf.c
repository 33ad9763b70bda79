/* SPDX-License-Identifier: MIT */
/* core/strbuf.c - appending printf pieces to a fixed buffer (canonical
 * algorithm strings). */
#include "gk_internal.h"

#include <stdarg.h>
#include <stdio.h>

void gk_strbuf_add(gk_strbuf *b, const char *fmt, ...)
{
    if (b->full)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p, b->room, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= b->room) {
        b->full = 1; /* what fitted stays; nothing more is added */
        return;
    }
    b->p += n;
    b->room -= (size_t)n;
}
