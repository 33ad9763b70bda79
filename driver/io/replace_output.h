/* SPDX-License-Identifier: MIT */
/*
 * replace_output.h - an output that replaces an existing one without losing
 * it, for the raster writer (write_raster.c) and cv's residuals (cli/cmd_cv.c).
 *
 * The new dataset is written under a temporary name next to dst. When it is
 * whole, the old file is renamed aside (not deleted), the new files are
 * renamed in, and only then are the aside file and the old dataset's files
 * that no new file replaced (its overviews, .aux.xml, spatial index) deleted.
 * If the new files cannot be renamed in, the old file is put back. Renaming
 * straight over the old file would be simpler, but ext4 then writes the new
 * file out at once (auto_da_alloc): 0.05 s for a 64 MB GeoTIFF.
 */
#ifndef GK_REPLACE_OUTPUT_H
#define GK_REPLACE_OUTPUT_H

#include "gridkit.h"

#include <gdal.h>
#include <stdio.h>

/* "<dst without extension>.gridkit-tmp-<pid><tag><.ext>", ext being dst's
 * own unless ext_override; malloc'd, NULL when out of memory. */
char *gk_output_temp_name(const char *dst, const char *tag, const char *ext_override);

/* Renames an existing dst aside; *aside is its new name (free it), NULL when
 * dst did not exist. An error naming dst where dst is not a regular file
 * (never renamed: a device, FIFO or link is no output of ours) or cannot be
 * renamed. */
int gk_output_aside(gk_context *ctx, const char *dst, char **aside);

/* The new files could not take dst's name: the old file back from aside.
 * Says so in ctx's message when that fails too. */
void gk_output_restore(gk_context *ctx, const char *dst, const char *aside);

/* The new files took dst's name: deletes aside, and every file of old (the
 * old dataset's files) that is neither dst nor one of now (the new files'
 * names, the same file under another spelling included). */
void gk_output_drop_old(const char *dst, const char *aside, char **old, char **now);

/* A one-file output (a table, a plot) complete at tmp takes dst's name
 * (a regular file or none; output_check.h) by rename, with cancelling held
 * off meanwhile; tmp is deleted when that fails. Forgets tmp in
 * cancel_cleanup.h. An error names what (the option) and dst. */
int gk_output_commit_file(gk_context *ctx, const char *what, const char *tmp, const char *dst);

/* Creates the temporary tmp as a new empty regular file (O_EXCL, no link
 * followed), before a driver writes it: a symbolic link planted under
 * that predictable name (in /tmp, say) is never written through. An error
 * names what, dst and tmp. */
int gk_output_claim(gk_context *ctx, const char *what, const char *dst, const char *tmp);
/* After a library has re-created a claimed file (opened it truncating, as
 * GDAL's GTiff does): ext4 (auto_da_alloc) flushes a file truncated to
 * empty to the disk when a handle of it closes, which the library's final
 * close then waits for (about a second for 2 GB); a handle of ours, opened
 * and closed at once, takes that flush while the file is still empty.
 * Harmless elsewhere. */
void gk_output_settle(const char *tmp);
/* The same, opened for writing (a table, a plot); NULL and an error. */
FILE *gk_output_open_temp(gk_context *ctx, const char *what, const char *dst, const char *tmp);

/* The finished dataset at tmp (closed) takes dst's place: dst aside,
 * GDALRenameDataset (side-cars follow; a plain rename where the driver
 * cannot), then the old dataset's files that no new file replaced deleted.
 * None of the names the new files take may be a file of inputs (NULL:
 * none). Cancelling is held off meanwhile. For the raster writer. */
struct gk_inputs;
int gk_output_replace_dataset(gk_context *ctx, GDALDriverH driver, const char *tmp, const char *dst,
                              const struct gk_inputs *inputs);

/* "the disk holding DIR is full (N free)" where path's directory has
 * less than 1 MiB left for this user, else ""; buf holds it. For messages
 * of writes that failed with a driver's own words, or none. */
const char *gk_output_disk_note(const char *path, char *buf, size_t cap);

/* The files of the dataset at dst that replacing dst deletes: dst, and
 * its side-cars where dst is its dataset's main file (a GeoTIFF's .ovr,
 * a shapefile's .dbf); dst alone where it is a part of another file's
 * dataset. */
char **gk_output_old_files(const char *dst);

/* a and b both exist and are the same file (device and inode). */
int gk_output_same_file(const char *a, const char *b);
/* Deletes a temporary dataset (through drv, else as a file) and the
 * .aux.xml a failed Create may leave, without messages; NULL: nothing. */
void gk_output_delete_quietly(GDALDriverH drv, const char *name);

#endif
