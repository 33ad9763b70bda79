/* SPDX-License-Identifier: MIT */
/*
 * output_check.h - what every command checks of an output name before any
 * work: it is no input, and it is a regular file or none.
 */
#ifndef GK_OUTPUT_CHECK_H
#define GK_OUTPUT_CHECK_H

#include "gridkit.h"
#include "io/input_files.h"

#include <gdal.h>

/* The name to write for dst, malloc'd, or NULL and an error in ctx naming
 * what (the option, e.g. "-o") and dst:
 * - dst may be no file of inputs (input_files.h: however the inputs and
 *   dst are spelt; inputs may be NULL);
 * - a directory, device, FIFO or socket is refused: gridkit replaces only
 *   regular files (a FIFO would hang the run, a device would be renamed);
 * - a symbolic link is followed: the result is its target (which must
 *   exist), so the target is replaced and the link stays a link;
 * - temporaries that a killed run left for this name are cleared
 *   (stale_temps.h). /vsi names are GDAL's business: only compared. */
char *gk_output_prepare(gk_context *ctx, const char *what, const char *dst,
                        const gk_inputs *inputs);

/* GK_OK, or an error naming the input of which path (dst, or a file the
 * output dst will have: a side-car) is a file. */
int gk_output_not_input(gk_context *ctx, const char *what, const char *dst, const char *path,
                        const gk_inputs *inputs);

/* The driver writes its datasets to files: not memory (MEM, Memory) nor a
 * database (a driver with a connection prefix, PG:): nothing there to
 * write under a temporary name, check or replace. */
int gk_output_driver_writes_files(GDALDriverH d);

/* a and b name the same file: same device and inode, or, where either does
 * not exist, the same canonical path. */
int gk_output_same_name(const char *a, const char *b);

#endif
