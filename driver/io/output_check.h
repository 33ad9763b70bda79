/*
 * output_check.h - what every command checks of an output name before any
 * work: it is no input, and it is a regular file or none.
 */
#ifndef GK_OUTPUT_CHECK_H
#define GK_OUTPUT_CHECK_H

#include "gridkit.h"

/* The name to write for dst, malloc'd, or NULL and an error in ctx naming
 * what (the option, e.g. "-o") and dst:
 * - dst may not be one of inputs (NULL-terminated; NULL entries skipped)
 *   nor a file of an input dataset sharing its stem (a shapefile's .dbf),
 *   compared by device and inode, else by canonical path;
 * - a directory, device, FIFO or socket is refused: gridkit replaces only
 *   regular files (a FIFO would hang the run, a device would be renamed);
 * - a symbolic link is followed: the result is its target (which must
 *   exist), so the target is replaced and the link stays a link;
 * - temporaries that a killed run left for this name are cleared
 *   (stale_temps.h). /vsi names are GDAL's business: only compared. */
char *gk_output_prepare(gk_context *ctx, const char *what, const char *dst,
                        const char *const *inputs, int n_inputs);

/* a and b name the same file: same device and inode, or, where either does
 * not exist, the same canonical path. */
int gk_output_same_name(const char *a, const char *b);

#endif
