/* job_args.c - word splitting of GRIDKIT: strings and .gridkit files. */
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
