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
