/* SPDX-License-Identifier: MIT */
/*
 * job_args.h - the text of a GRIDKIT: open string or a .gridkit file into
 * the words of `gridkit grid` (the plugin's parse, in C so that a fuzz
 * target can reach it without loading the plugin).
 */
#ifndef GK_JOB_ARGS_H
#define GK_JOB_ARGS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Shell-like word splitting of the n bytes at s, without any expansion:
 * blanks separate words, '...' keeps everything literally, "..." keeps
 * everything but \" and \\, a backslash outside quotes keeps the next
 * character. With comments, '#' at the start of a word begins a comment
 * running to the end of the line (.gridkit files). On success returns 0 and
 * *words, a CSL list (CSLDestroy; NULL when there is no word). Otherwise -1,
 * *words NULL and *why a static message (an unterminated quote, or out of
 * memory). */
int gk_job_args_split(const char *s, size_t n, int comments, char ***words, const char **why);

/* A .gridkit file's n bytes as the plugin reads them: a UTF-8 byte order
 * mark at the start is skipped (as GDAL's own text readers do), the rest
 * must be text (below), then it is split as above with '#' comments.
 * 0 and *words on success. Otherwise -1, *words NULL, *why a static message
 * and *bad the offset in the file of the first byte that is not text, or
 * (size_t)-1 when the text itself was not at fault (a quote, memory). */
int gk_job_file_split(const char *s, size_t n, char ***words, const char **why, size_t *bad);

/* Text: UTF-8 (RFC 3629: no overlong forms, surrogates or code points
 * above U+10FFFF) without control characters (C0, DEL, C1) other than the
 * blanks \t \n \v \f \r. The offset of the first byte of the n at s that is
 * not text, or (size_t)-1; *why (may be NULL) says what is wrong there. */
size_t gk_text_check(const char *s, size_t n, const char **why);

/* The UTF-8 character at s (n > 0 bytes): its length, 1 to 4, and code
 * point *cp; 0 where the bytes are not valid UTF-8 (as gk_text_check). */
size_t gk_utf8_next(const char *s, size_t n, unsigned *cp);

#ifdef __cplusplus
}
#endif

#endif
