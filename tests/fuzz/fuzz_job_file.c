/* SPDX-License-Identifier: MIT */
/* fuzz_job_file.c - libFuzzer target: a .gridkit file's bytes, arbitrary, as
 * the plugin reads them (gdal_plugin.cpp after VSIFOpenL): gk_job_file_split
 * (the UTF-8 byte order mark, the text check, the splitting with '#'
 * comments), then the parser the plugin hands the words to:
 * gk_ridges_options_new after a first word "ridges", else
 * gk_grid_options_new. The input is the file, whole. */
#include "fuzz_common.h"
#include "lib/grid_options.h"
#include "lib/job_args.h"
#include "lib/gridkit_lib.h"

#include "cpl_string.h"

#include <limits.h>

static void fail(const char *why)
{
    fprintf(stderr, "%s\n", why);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    char **words = NULL;
    const char *why = NULL;
    size_t bad = 0;
    if (gk_job_file_split(s, size, &words, &why, &bad)) {
        if (words || !why || !*why)
            fail("refused without a message, or with words");
        if (bad != (size_t)-1 && bad >= size)
            fail("the byte named as not text is outside the file");
        /* an ASCII byte named as not text is a control character */
        if (bad != (size_t)-1 && data[bad] < 0x80 && data[bad] >= 32 && data[bad] != 127)
            fail("a printable ASCII byte named as not text");
        return 0;
    }
    /* accepted: no NUL, and UTF-8 by GDAL's own test too (CPLIsUTF8, which
     * is laxer: it also takes encoded surrogates) */
    if (memchr(s, 0, size))
        fail("a file with a NUL byte accepted as text");
    if (size < INT_MAX && !CPLIsUTF8(s, (int)size))
        fail("accepted as text, but not UTF-8 to GDAL");
    int n = CSLCount(words);
    for (int i = 0; i < n; i++)
        if (gk_text_check(words[i], strlen(words[i]), NULL) != (size_t)-1)
            fail("a word that is not text");
    /* a byte order mark first reads as its absence (unless what follows
     * begins with a mark too, which that read would skip or refuse) */
    if (size >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3) &&
        !(size >= 6 && !memcmp(s + 3, "\xEF\xBB\xBF", 3))) {
        char **w2 = NULL;
        size_t bad2;
        if (gk_job_file_split(s + 3, size - 3, &w2, &why, &bad2) || CSLCount(w2) != n)
            fail("a file with a byte order mark reads unlike the same file without");
        for (int i = 0; i < n; i++)
            if (strcmp(words[i], w2[i]))
                fail("a file with a byte order mark reads unlike the same file without");
        CSLDestroy(w2);
    }
    gk_context *ctx = gk_context_new();
    if (n >= 1 && !strcmp(words[0], "ridges")) {
        gk_ridges_options *o = gk_ridges_options_new(ctx, n - 1, words + 1);
        if (!o && (!gk_errmsg(ctx) || !*gk_errmsg(ctx)))
            fail("ridges arguments rejected without a message");
        gk_ridges_options_free(o);
    } else {
        gk_grid_options *o = gk_grid_options_new(ctx, n, words);
        if (!o && (!gk_errmsg(ctx) || !*gk_errmsg(ctx)))
            fail("grid arguments rejected without a message");
        gk_grid_options_free(o);
    }
    gk_context_free(ctx);
    CSLDestroy(words);
    return 0;
}
