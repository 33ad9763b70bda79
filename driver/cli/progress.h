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

#endif
