/* SPDX-License-Identifier: MIT */
/*
 * bench_docs.h - the guard against the next slow-down: a benchmark's
 * figures beside the ones docs/benchmarks.md gives for the same row, and a
 * flag on each that is more than BENCH_DOCS_SLACK slower.
 *
 * A row is found by its first two cells, as the benchmark prints them: the
 * spec in backticks and the precision (`invdistnn:radius=200:max_points=16`
 * | double | ...), in a table whose header names the column ("GPU setup").
 * A cell's figure is its first number, in ms or s ("**6.47 ms**", "1.2 s",
 * "183 ms (triangulation, CPU)").
 */
#ifndef GK_BENCH_DOCS_H
#define GK_BENCH_DOCS_H

#define BENCH_DOCS_SLACK 1.20 /* more than 20% slower is flagged */
/* differences below this are the runs' own: set-ups of a few ms differed by
 * up to 3 ms between two runs of one build on an H200 (medians of 3) */
#define BENCH_DOCS_FLOOR_MS 1.0

typedef struct bench_docs bench_docs;

/* The tables of the markdown file at path; NULL (with a message on stderr)
 * when it cannot be read. */
bench_docs *bench_docs_load(const char *path);
void bench_docs_free(bench_docs *d);

/* The figure in ms of column col in the row (spec, prec), NAN when the
 * docs have none. */
double bench_docs_ms(const bench_docs *d, const char *spec, const char *prec, const char *col);

/* Prints "col now ms (docs ms, ratio)" and " SLOWER" when flagged; counts
 * the figures compared and flagged. */
void bench_docs_compare(const bench_docs *d, const char *spec, const char *prec, const char *col,
                        double now_ms, int *compared, int *flagged);

#endif
