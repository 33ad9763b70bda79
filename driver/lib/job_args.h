/*
 * job_args.h - splits the text of a GRIDKIT: open string or a .gridkit file
 * into the words of `gridkit grid` (the plugin's parse, in C so that a fuzz
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

#ifdef __cplusplus
}
#endif

#endif
