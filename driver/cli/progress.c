/* SPDX-License-Identifier: MIT */
/* progress.c - GDAL's text progress (0...10...20...100 - done.), on stderr so
 * that stdout stays clean for data. Same tokens as GDALTermProgress. */
#include "cli/progress.h"

#include <stdio.h>

int gk_term_progress(double complete, const char *message, void *user)
{
    gk_term_progress_state *st = user;
    (void)message;
    int tick = (int)(complete * 40.0);
    if (tick < 0)
        tick = 0;
    if (tick > 40)
        tick = 40;
    if (!st->started) {
        st->started = 1;
        st->last_tick = -1;
    }
    if (tick <= st->last_tick)
        return 1;
    while (st->last_tick < tick) {
        st->last_tick++;
        if (st->last_tick % 4 == 0)
            fprintf(stderr, "%d", st->last_tick / 4 * 10);
        else
            fputc('.', stderr);
    }
    if (tick == 40)
        fputs(" - done.\n", stderr);
    fflush(stderr);
    return 1;
}

int gk_term_progress_notes(double complete, const char *message, void *user)
{
    gk_note_progress_state *st = user;
    if (message) {
        gk_term_progress_end(&st->term); /* not expected: the dots go on below */
        fprintf(stderr, "gridkit %s: %s\n", st->command, message);
        fflush(stderr);
    }
    if (complete <= 0.0 && !st->term.started)
        return 1; /* "0" comes with the first step */
    return gk_term_progress(complete, NULL, &st->term);
}

void gk_term_progress_end(const gk_term_progress_state *st)
{
    if (st->started && st->last_tick >= 0 && st->last_tick < 40)
        fputc('\n', stderr);
}
