/* SPDX-License-Identifier: MIT */
/*
 * stale_temps.h - temporaries of an output left by a run killed outright
 * (SIGKILL, a power cut): removed by the next run for the same output.
 */
#ifndef GK_STALE_TEMPS_H
#define GK_STALE_TEMPS_H

#include <time.h>

/* In dst's directory, the files named as gk_output_temp_name() names dst's
 * temporaries ("<stem>.gridkit-tmp-<pid>[-old|-src]<.ext>[side-car]") whose
 * process is gone are deleted; an old output left aside ("-old") goes back
 * to dst when dst is missing. Only regular files; nothing else is touched.
 *
 * A process is gone when kill(pid, 0) says ESRCH, or when the process now
 * under that pid started after the file last changed (its ctime: creating,
 * writing and renaming all set it), i.e. the pid was reused. Start times
 * come from /proc; without /proc a live pid counts as the writer's. */
void gk_output_clear_stale(const char *dst);

/* The side-cars a driver writes beside a file in place of its extension
 * (a shapefile's parts, GML's schema, a CSV's types), NULL-terminated:
 * a temporary's are temporaries too. */
extern const char *const gk_output_sidecar_exts[];

/* The process pid is gone (the rule above), for a file of its that last
 * changed at changed. */
int gk_process_gone(long pid, time_t changed);

#endif
