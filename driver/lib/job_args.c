/* SPDX-License-Identifier: MIT */
/* job_args.c - word splitting of GRIDKIT: strings and .gridkit files, and
 * the text check of a .gridkit file. */
#include "lib/job_args.h"

#include "cpl_string.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* One word is at most n bytes, so one buffer of n + 1 holds any. */
int gk_job_args_split(const char *s, size_t n, int comments, char ***words, const char **why)
{
    *words = NULL;
    *why = NULL;
    char *w = malloc(n + 1);
    if (!w) {
        *why = "out of memory";
        return -1;
    }
    char **out = NULL;
    size_t count = 0, cap = 0, i = 0;
    while (i < n) {
        while (i < n && isspace((unsigned char)s[i]))
            i++;
        if (i >= n)
            break;
        if (comments && s[i] == '#') {
            while (i < n && s[i] != '\n')
                i++;
            continue;
        }
        size_t L = 0;
        while (i < n && !isspace((unsigned char)s[i])) {
            char c = s[i++];
            if (c == '\'') {
                const char *e = memchr(s + i, '\'', n - i);
                if (!e) {
                    *why = "unterminated ' quote";
                    goto fail;
                }
                memcpy(w + L, s + i, (size_t)(e - (s + i)));
                L += (size_t)(e - (s + i));
                i = (size_t)(e - s) + 1;
            } else if (c == '"') {
                for (;;) {
                    if (i >= n) {
                        *why = "unterminated \" quote";
                        goto fail;
                    }
                    c = s[i++];
                    if (c == '"')
                        break;
                    if (c == '\\' && i < n && (s[i] == '"' || s[i] == '\\'))
                        c = s[i++];
                    w[L++] = c;
                }
            } else if (c == '\\' && i < n) {
                w[L++] = s[i++];
            } else {
                w[L++] = c;
            }
        }
        /* A NUL inside a word ends it, as it would in argv. */
        w[L] = '\0';
        /* Own growth, not CSLAddString (which counts the list each time):
         * a 1 MB file may hold 500000 words. */
        if (count + 1 >= cap) {
            size_t nc = cap ? cap * 2 : 16;
            char **no = VSIRealloc(out, nc * sizeof *no);
            if (!no) {
                *why = "out of memory";
                goto fail;
            }
            out = no;
            out[count] = NULL;
            cap = nc;
        }
        if (!(out[count] = VSIStrdup(w))) {
            *why = "out of memory";
            goto fail;
        }
        out[++count] = NULL;
    }
    free(w);
    *words = out;
    return 0;
fail:
    free(w);
    CSLDestroy(out);
    return -1;
}

size_t gk_utf8_next(const char *s, size_t n, unsigned *cp)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned c = p[0], lo = 0x80, hi = 0xBF;
    size_t len;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c < 0xC2) /* a continuation byte, or an overlong 2-byte form */
        return 0;
    if (c < 0xE0) {
        len = 2;
        c &= 0x1F;
    } else if (c < 0xF0) {
        len = 3;
        lo = c == 0xE0 ? 0xA0 : 0x80; /* overlong */
        hi = c == 0xED ? 0x9F : 0xBF; /* surrogates */
        c &= 0x0F;
    } else if (c < 0xF5) {
        len = 4;
        lo = c == 0xF0 ? 0x90 : 0x80; /* overlong */
        hi = c == 0xF4 ? 0x8F : 0xBF; /* above U+10FFFF */
        c &= 0x07;
    } else {
        return 0;
    }
    if (n < len || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t k = 1; k < len; k++) {
        if ((p[k] & 0xC0) != 0x80)
            return 0;
        c = c << 6 | (p[k] & 0x3F);
    }
    *cp = c;
    return len;
}

size_t gk_text_check(const char *s, size_t n, const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    *why = NULL;
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t len = gk_utf8_next(s + i, n - i, &cp);
        if (!len) {
            *why = "not UTF-8";
            return i;
        }
        int blank = cp == '\t' || cp == '\n' || cp == '\v' || cp == '\f' || cp == '\r';
        if ((cp < 32 && !blank) || (cp >= 127 && cp < 160)) {
            *why = cp ? "a control character" : "a NUL byte";
            return i;
        }
        i += len;
    }
    return (size_t)-1;
}

int gk_job_file_split(const char *s, size_t n, char ***words, const char **why, size_t *bad)
{
    *words = NULL;
    *bad = (size_t)-1;
    const unsigned char *u = (const unsigned char *)s;
    if (n >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF))) {
        *why = "a UTF-16 byte order mark: save the file as UTF-8";
        *bad = 0;
        return -1;
    }
    size_t start = n >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF ? 3 : 0;
    size_t at = gk_text_check(s + start, n - start, why);
    if (at != (size_t)-1) {
        *bad = start + at;
        return -1;
    }
    return gk_job_args_split(s + start, n - start, 1, words, why);
}
