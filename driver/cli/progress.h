/* SPDX-License-Identifier: MIT */
/* progress.h - GDAL-style text progress (0...10...20...100 - done.) on
 * stderr, a gk_progress_fn for the commands. */
#ifndef GK_PROGRESS_H
#define GK_PROGRESS_H

/* user: a gk_term_progress_state, zero-initialised. */
typedef struct {
    int last_tick;
    int started;
} gk_term_progress_state;
int gk_term_progress(double complete, const char *message, void *user);

/* gk_term_progress for the commands whose core calls carry a message only
 * once, a line worth showing (cv's and variogram's slow paths): printed as
 * "gridkit COMMAND: MESSAGE" on a line of its own before the dots, which
 * start with the first step past 0 so that such a line comes first.
 * user: a gk_note_progress_state, zero-initialised but for command. */
typedef struct {
    gk_term_progress_state term;
    const char *command;
} gk_note_progress_state;
int gk_term_progress_notes(double complete, const char *message, void *user);
/* Ends an unfinished line of dots (a failed or cancelled run). */
void gk_term_progress_end(const gk_term_progress_state *st);

#endif
