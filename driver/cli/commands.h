/* SPDX-License-Identifier: MIT */
/* commands.h - the gridkit commands, each a thin shell over the library in a
 * file of its own (cmd_<name>.c). argv excludes "gridkit <name>"; GDAL is
 * registered; the return value is the exit code. */
#ifndef GK_COMMANDS_H
#define GK_COMMANDS_H

#include "gridkit.h"

int gk_cmd_grid(int argc, char **argv);
int gk_cmd_variogram(int argc, char **argv);
int gk_cmd_cv(int argc, char **argv);
int gk_cmd_ridges(int argc, char **argv);

/* What a command does with its own context (GDAL set up); non-zero, or an
 * error in ctx, is a failure. */
typedef int (*gk_cli_body)(gk_context *ctx, int argc, char **argv);

/* The shell around a body: --help or -h anywhere prints usage on stdout;
 * a failure prints "gridkit NAME: error: " and the context's message, else
 * fallback (nothing when both are missing). Returns the exit code. */
int gk_cli_run(const char *name, const char *usage, const char *fallback, gk_cli_body body,
               int argc, char **argv);

#endif
