/* SPDX-License-Identifier: MIT */
/*
 * cancel_cleanup.h - temporaries removed when the run is cancelled by
 * SIGINT, SIGTERM or SIGHUP, so that no file that looks complete (a GeoTIFF
 * of zeros under a temporary name) stays behind.
 *
 * The handler does only async-signal-safe work: unlink() of names prepared
 * here in advance, then the signal again with its default action (the exit
 * status says "killed by signal"). Between gk_cancel_hold() and
 * gk_cancel_release() (an output taking its name: old file aside, new one
 * in) the signal waits, so that the previous output is never left aside.
 * Only the CLI installs the handlers; the plugin, in GDAL's process, never.
 */
#ifndef GK_CANCEL_CLEANUP_H
#define GK_CANCEL_CLEANUP_H

/* Installs the handlers (signals the process ignores, e.g. SIGHUP under
 * nohup, stay ignored). */
void gk_cancel_install(void);

/* name and the side-cars a driver may add to it (.aux.xml, SQLite's
 * -journal/-wal/-shm, a shapefile's .dbf/.shx/.prj/.cpg) are deleted if the
 * run is cancelled; until gk_cancel_forget(name). */
void gk_cancel_watch(const char *name);
void gk_cancel_forget(const char *name);

/* A cancel that arrives in between takes effect at release. Not nested. */
void gk_cancel_hold(void);
void gk_cancel_release(void);

#endif
